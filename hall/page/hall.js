// The director's page (issues 14, 19; docs/hall.md).  Subscribes over MQTT
// over WebSockets (the broker that serves this page) with the read-only
// account in config.js; never polls.  Every message goes through
// HallModel.parse (model.js): one row per table and clock account, both
// from the topic; a message that is not what a clock sends is skipped with
// one warning line (console and the header).  Each row renders on its own:
// one bad row never stops the others.  Between messages the running side's
// time counts down here, from the last state and the moment it arrived.
"use strict";

var EV = HALL.event;
var M = HallModel;
var rows = {};     // "table/account" -> {table, account, state, at, status, logs, row, cells}
var shown = null;  // the row key in the log view
var bad = {count: 0, last: ""};
var MAX_LOGS = 20; // game logs kept per row
var ROUND = HallModel.newRound();  // the round, its seating and games (model.js)
var OWNERS = HallModel.newOwners(); // each clock's account, as the recorder says (issue 29)

function now() { return performance.now(); }
// issue 37: the hall stopped (the connection closed): every time stays as
// shown at that instant, marked stale, until the broker answers again
var lost = null;
function shownNow() { return lost !== null ? lost : now(); }

function warn(topic, why) {
  bad.count++;
  bad.last = String(topic).slice(0, 80) + ": " + why;
  console.warn("hall: skipped " + bad.last);
  set(document.getElementById("warn"), bad.count + " bad message" + (bad.count > 1 ? "s" : "") +
      " ignored (last: " + bad.last + ")");
}

function get(t) {
  var x = rows[t.key];
  if (!x) {
    x = rows[t.key] = {key: t.key, table: t.table, account: t.account, state: null, at: 0,
                       status: "", logs: {}, row: null};
    var tr = document.createElement("tr");
    tr.id = "t-" + t.table + "-" + t.account;
    tr.dataset.table = t.table;
    tr.dataset.account = t.account;
    tr.innerHTML = '<td class="table"></td><td class="players"></td>' +
                   '<td class="time left"></td><td class="time right"></td>' +
                   '<td class="state"></td><td class="pen"></td><td class="clock"></td>';
    tr.querySelector(".table").textContent = t.table;
    tr.onclick = function () { showLog(t.key); };
    x.row = tr;
    x.cells = {players: tr.children[1], left: tr.children[2], right: tr.children[3],
               state: tr.children[4], pen: tr.children[5], clock: tr.children[6]};
    document.getElementById("rows").appendChild(tr);
  }
  return x;
}

function drop(key) {
  var x = rows[key];
  if (!x) return;
  if (x.row.parentNode) x.row.parentNode.removeChild(x.row);
  delete rows[key];
  if (shown === key) { shown = null; document.getElementById("logview").hidden = true; }
}

function renderRow(x, f, show, n) {
  // (issue 37: an offline row keeps the time shown when it went offline)
  var off = x.status === "offline", e = off ? x.offE || 0 : shownNow() - x.at, s = x.state;
  // both players of the round's seating (issue 21: hall pairings), left - right
  var names = M.names(ROUND, x.table);
  // (issue 35: each name isolated, HallIsolate: an override in one never
  // reverses the other)
  HallIsolate.names(x.cells.players, names ? [names[0], names[1]] : [], " \u2013 ");
  x.cur = M.current(ROUND, x.table, x.account, s);
  if (!x.cur) {
    // issue 27: a game of an earlier round (the clock still shows its end):
    // nothing of it here until this round's first press at this clock
    set(x.cells.left, ""); set(x.cells.right, ""); set(x.cells.pen, "");
    x.cells.left.className = "time left"; x.cells.right.className = "time right";
    badges(x.cells.state, ["waiting for round " + ROUND.round]);
    set(x.cells.clock, "clock " + s.clock + (x.account !== String(x.table) ?
        " (account " + x.account + ")" : ""));
    x.row.className = "waiting";
    x.sortTime = Infinity;
    x.words = ["waiting"];
    n.waiting++;
    x.row.hidden = !(match(x, f) && show === "all");
    return;
  }
  var t = M.times(s, false, e), w = M.words(s, off, e);
  set(x.cells.left, M.fmt(t[0]));
  set(x.cells.right, M.fmt(t[1]));
  x.cells.left.className = "time left" + (s.running === "left" && !s.over ? " run" : "") + (t[0] < 0 ? " over" : "");
  x.cells.right.className = "time right" + (s.running === "right" && !s.over ? " run" : "") + (t[1] < 0 ? " over" : "");
  badges(x.cells.state, w);
  set(x.cells.pen, s.left.penalty || s.right.penalty ? s.left.penalty + " / " + s.right.penalty : "");
  set(x.cells.clock, "clock " + s.clock + ", game " + s.game +
      (x.account !== String(x.table) ? " (account " + x.account + ")" : ""));
  x.row.className = off ? "offline" : s.over ? "finished" : "";
  var run = s.over ? "over" : s.running || "";
  if (x.row.dataset.run !== run) {   // when the page first showed a turn change
    x.row.dataset.run = run;         // (make bench: press-to-page latency)
    x.row.dataset.changed = Date.now();
  }
  x.sortTime = Math.min(t[0], t[1]);
  x.words = w;
  if (off) n.offline++; else if (s.over) n.finished++; else n.playing++;
  x.row.hidden = !(match(x, f) && keep(w, x, show));
}

// The state words as badges: fixed words, built as elements (no HTML from a message).
function badges(cell, w) {
  var key = w.join("|");
  if (cell.dataset.words === key) return;
  cell.dataset.words = key;
  cell.textContent = "";
  w.forEach(function (s, i) {
    var b = document.createElement("span");
    // (the first word; a self-test's first two: "self-test failed")
    b.className = "badge " + s.split(" ").slice(0, s.indexOf("self-test ") === 0 ? 2 : 1).join(" ");
    b.textContent = s;
    if (i) cell.appendChild(document.createTextNode(" "));
    cell.appendChild(b);
  });
}

function render() {
  var f = document.getElementById("filter").value.trim();
  var show = document.getElementById("show").value;
  var list = [], n = {playing: 0, finished: 0, offline: 0, waiting: 0};
  Object.keys(rows).forEach(function (k) {
    var x = rows[k];
    if (!x.state) { x.row.hidden = true; return; }
    // issue 29: another account's clock is refused here as by the recorder
    // (it stores no result of it): no row, one warning for each reason
    var no = M.refused(OWNERS, x.account, x.state);
    if (no !== x.refused) { x.refused = no; if (no) warn(x.key, no); }
    if (no) { x.row.hidden = true; return; }
    try {
      renderRow(x, f, show, n);
      list.push(x);
    } catch (e) {          // never one row for all: this one is hidden, said once
      x.state = null;
      x.row.hidden = true;
      warn(x.key, "cannot show it: " + e);
    }
  });
  sortRows(list);
  HallAlerts.scan(list);   // issue 37: the director called (alerts.js)
  set(document.getElementById("counts"),
      n.playing + " playing, " + n.finished + " finished, " + n.offline + " offline" +
      (n.waiting ? ", " + n.waiting + " waiting for round " + ROUND.round : ""));
  set(document.getElementById("progress"), ROUND.round === null ? "" : M.progress(ROUND, list).text);
  HallIsolate.labelled(document.getElementById("byes"), "bye: ", ROUND.byes, ", ");
}

function set(el, text) { if (el.textContent !== text) el.textContent = text; }

function match(x, f) {
  if (!f) return true;
  var k = x.table;
  var m = /^(\d+)\s*-\s*(\d+)$/.exec(f);
  if (m) return k >= +m[1] && k <= +m[2];
  // table numbers ("12", "3, 7 12"), or part of a clock id
  return f.split(/[ ,]+/).some(function (p) {
    return /^\d+$/.test(p) ? +p === k : x.state.clock.indexOf(p) >= 0;
  });
}

function keep(w, x, show) {
  if (show === "all") return true;
  if (show === "offline") return w[0] === "offline";
  if (show === "finished") return x.state.over;
  if (show === "overtime") return w.indexOf("overtime") >= 0 || w.indexOf("flag") >= 0;
  return !x.state.over && w[0] !== "offline";
}

var ORDER = {offline: 0, overtime: 1, flag: 1, running: 2, paused: 3, ready: 4, finished: 5, forfeit: 5, waiting: 6};
function sortRows(list) {
  var by = document.getElementById("sort").value;
  function byTable(a, b) { return (a.table - b.table) || (+a.account - +b.account); }
  list.sort(function (a, b) {
    if (by === "time") return (a.state.over - b.state.over) || (a.sortTime - b.sortTime) || byTable(a, b);
    if (by === "state") {
      var sa = ORDER[a.words.indexOf("overtime") >= 0 ? "overtime" : a.words[0].split(" ")[0]];
      var sb = ORDER[b.words.indexOf("overtime") >= 0 ? "overtime" : b.words[0].split(" ")[0]];
      return (sa - sb) || byTable(a, b);
    }
    return byTable(a, b);
  });
  var body = document.getElementById("rows");
  for (var i = 0; i < list.length; i++) {
    if (body.children[i] !== list[i].row) body.insertBefore(list[i].row, body.children[i] || null);
  }
}

function showLog(key) {
  var x = rows[key];
  if (!x) return;
  var games = Object.keys(x.logs).map(Number).sort(function (a, b) { return a - b; });
  var g = x.state && x.logs[x.state.game] !== undefined ? x.state.game : games[games.length - 1];
  shown = key;
  document.getElementById("logview").hidden = false;
  document.getElementById("logtitle").textContent = "Table " + x.table + (g ? ", game " + g : "");
  document.getElementById("logtext").textContent = g !== undefined ? x.logs[g] :
      "No log yet: the clock publishes its game log when the game ends.";
  // issue 27: the log as a file, and its timeline (the recorder writes one
  // per language next to the page, hall/filing.py)
  var file = document.getElementById("logfile"), tl = document.getElementById("timeline");
  file.hidden = tl.hidden = g === undefined;
  if (g !== undefined) {
    if (file.href.indexOf("blob:") === 0) URL.revokeObjectURL(file.href);
    file.href = URL.createObjectURL(new Blob([x.logs[g]], {type: "text/plain"}));
    file.download = "table" + x.table + "-game" + g + ".txt";
    tl.href = "timeline-t" + x.table + "-a" + x.account + "-g" + g + "-" + M.logLang(x.logs[g]) + ".txt";
  }
}

function onMessage(topic, payload, retained) {
  var r = M.parseRoundTopic(EV, topic, payload.toString());
  if (r !== null) {   // the round, a table's seating and games (issues 21, 27)
    if (r.error) { warn(topic, r.error); return; }
    M.addRound(ROUND, r);
    if (ROUND.round !== null) {
      set(document.getElementById("round"), "round " + ROUND.round);
      document.title = EV + ", round " + ROUND.round + " \u2013 director's page";
      PastRounds.current(ROUND.round);   // issue 37: the rounds before it (pastrounds.js)
    }
    return;
  }
  var o = M.parseOwner(EV, topic, payload.toString());
  if (o !== null) {   // whose clock is it (issue 29): rows are checked in render()
    if (o.error) warn(topic, o.error); else M.addOwner(OWNERS, o);
    return;
  }
  if (topic === "scrabble/" + EV + "/alarm") {   // the recorder's trouble (issue 29)
    var a = M.parseAlarm(payload.toString());
    if (a.error) { warn(topic, a.error); return; }
    showAlarm(a, retained);
    return;
  }
  var m = M.parse(EV, topic, payload);   // (the bytes: the protocol's limits are bytes)
  if (m === null) return;
  if (m.error) { warn(topic, m.error); return; }
  if (m.kind === "clear") { drop(m.key); return; }   // a renumbered clock's old table
  var x = get(m);
  if (m.kind === "state" || m.kind === "heartbeat") {
    x.state = m.value;
    x.at = now();
    if (x.status === "offline" && m.kind === "heartbeat") x.status = "online";
  } else if (m.kind === "status") {
    if (m.value === "offline" && x.status !== "offline") x.offE = x.state ? shownNow() - x.at : 0;
    x.status = m.value;
    if (m.value === "online") x.at = now();
  } else if (m.kind === "log") {
    x.logs[m.game] = m.value;
    var keys = Object.keys(x.logs).map(Number).sort(function (a, b) { return a - b; });
    while (keys.length > MAX_LOGS) delete x.logs[keys.shift()];
    if (shown === x.key) showLog(x.key);
  } else if (m.kind === "result" && !x.state) {
    x.state = m.value;
    x.at = now();
  }
}

// The recorder's alarm: results that cannot be stored (a full disk, a
// read-only folder: they wait unconfirmed on the clocks) in red; its last
// warnings (a result refused, a re-published result not counted) below.
function showAlarm(a, retained) {
  var el = document.getElementById("alarm");
  el.hidden = !a.writing && !a.events.length && !a.refused;
  el.className = a.writing ? "alarm bad" : "alarm";
  // issue 35: what the recorder refused (each message dropped, the others stored)
  var refused = a.refused ? "; " + a.refused + " message" + (a.refused > 1 ? "s" : "") +
      " refused by the recorder (last: " + a.last + ")" : "";
  set(document.getElementById("alarmtext"), (a.writing ?
      "RESULTS ARE NOT BEING STORED: " + a.writing + "; " + a.waiting +
      " waiting unconfirmed on their clocks (they are re-sent)" :
      a.events.length + " recorder warning" + (a.events.length > 1 ? "s" : "")) + refused);
  set(document.getElementById("alarmlog"), a.events.slice().reverse().join("\n"));
  HallAlerts.recorder(a.events, retained);   // (issue 37: a new warning calls the director)
}

function start() {
  document.getElementById("event").textContent = EV;
  document.title = EV + " \u2013 director's page";
  HallAlerts.start();
  // the results desk (hall/desk.py): served by `hall` on the hall
  // computer's loopback only (config.js's deskPort)
  document.getElementById("desk").href = "http://127.0.0.1:" + HALL.deskPort + "/";
  var url = HallModel.brokerUrl(location, HALL);
  var c = mqtt.connect(url, {username: HALL.user, password: HALL.password,
                             reconnectPeriod: 2000, clean: true});
  var conn = document.getElementById("conn");
  c.on("connect", function () {
    conn.textContent = "live"; conn.className = "conn on";
    lost = null; document.body.classList.remove("stale");
    c.subscribe("scrabble/" + EV + "/#", {qos: 0});
  });
  c.on("close", function () {
    if (lost === null) {
      lost = now();
      document.body.classList.add("stale");
      conn.textContent = "no connection: times stale since " + new Date().toTimeString().slice(0, 8);
    }
    conn.className = "conn off";
  });
  c.on("message", function (topic, payload, packet) {
    try { onMessage(topic, payload, !!(packet && packet.retain)); } catch (e) { warn(topic, "" + e); }
  });
  ["filter", "show", "sort"].forEach(function (id) {
    document.getElementById(id).addEventListener("input", render);
  });
  document.getElementById("logclose").onclick = function () {
    shown = null; document.getElementById("logview").hidden = true;
  };
  setInterval(render, 100);   // local countdown only: no network here
}

start();
