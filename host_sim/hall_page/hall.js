// The director's page (issue 14, docs/hall.md).  Subscribes over MQTT over
// WebSockets (the broker that serves this page) with the read-only account in
// config.js; never polls.  Between messages the running side's time counts
// down here, from the last state and the moment it arrived.
"use strict";

var EV = HALL.event;
var tables = {};   // table -> {state, at, status, logs: {game: text}, row, cells}
var shown = null;  // [table, game] in the log view

function fmt(ms) {
  // As the clock's display shows it (firmware/gamelog.py fmt_time): remaining
  // rounded up, overtime rounded down with a minus.
  var s, sign = "";
  if (ms > 0) { s = Math.floor((ms + 999) / 1000); }
  else { s = Math.floor(-ms / 1000); if (s > 0) sign = "-"; }
  var m = Math.floor(s / 60), r = s % 60;
  return sign + (m < 10 ? "0" : "") + m + ":" + (r < 10 ? "0" : "") + r;
}

function signed(side) {
  return side.overtime_ms ? -side.overtime_ms : side.remaining_ms;
}

function get(t) {
  var x = tables[t];
  if (!x) {
    x = tables[t] = {table: t, state: null, at: 0, status: "", logs: {}, row: null};
    var tr = document.createElement("tr");
    tr.id = "t-" + t;
    tr.innerHTML = '<td class="table"></td><td class="time left"></td><td class="time right"></td>' +
                   '<td class="state"></td><td class="pen"></td><td class="clock"></td>';
    tr.querySelector(".table").textContent = t;
    tr.onclick = function () { showLog(t); };
    x.row = tr;
    x.cells = {left: tr.children[1], right: tr.children[2], state: tr.children[3],
               pen: tr.children[4], clock: tr.children[5]};
    document.getElementById("rows").appendChild(tr);
  }
  return x;
}

function now() { return performance.now(); }

// The times to show now: [left ms, right ms], signed (negative: overtime).
function times(x) {
  var s = x.state;
  var l = signed(s.left), r = signed(s.right);
  if (s.running && !s.over && x.status !== "offline") {
    var e = Math.max(0, now() - x.at);
    if (s.running === "left") l -= e; else r -= e;
  }
  return [l, r];
}

function words(x) {
  var s = x.state, w = [];
  if (x.status === "offline") w.push("offline");
  if (s.over) {
    if (s.left.forfeit) w.push("forfeit left");
    else if (s.right.forfeit) w.push("forfeit right");
    else w.push("finished");
  } else if (s.paused) w.push("paused");
  else if (s.running) w.push("running");
  else w.push("ready");
  var t = times(x);
  if (!s.over && (t[0] < 0 || t[1] < 0)) w.push("overtime");
  if (s.left.flag || s.right.flag) w.push("flag");
  // A running clock sends a heartbeat every 5 s; the broker's last will
  // ("offline") comes 30 s after it goes silent.  Say so meanwhile.
  if (s.running && !s.over && w[0] !== "offline" && now() - x.at > 12000) w.push("no signal");
  return w;
}

function render() {
  var f = document.getElementById("filter").value.trim();
  var show = document.getElementById("show").value;
  var list = [], n = {playing: 0, finished: 0, offline: 0};
  Object.keys(tables).forEach(function (k) {
    var x = tables[k];
    if (!x.state) { x.row.hidden = true; return; }
    var t = times(x), w = words(x);
    set(x.cells.left, fmt(t[0]));
    set(x.cells.right, fmt(t[1]));
    x.cells.left.className = "time left" + (x.state.running === "left" && !x.state.over ? " run" : "") + (t[0] < 0 ? " over" : "");
    x.cells.right.className = "time right" + (x.state.running === "right" && !x.state.over ? " run" : "") + (t[1] < 0 ? " over" : "");
    var html = w.map(function (s) { return '<span class="badge ' + s.split(" ")[0] + '">' + s + "</span>"; }).join(" ");
    if (x.cells.state.innerHTML !== html) x.cells.state.innerHTML = html;
    var p = x.state.left.penalty || x.state.right.penalty ?
        x.state.left.penalty + " / " + x.state.right.penalty : "";
    set(x.cells.pen, p);
    set(x.cells.clock, x.state.clock + " #" + x.state.game);
    x.row.className = w[0] === "offline" ? "offline" : x.state.over ? "finished" : "";
    var run = x.state.over ? "over" : x.state.running || "";
    if (x.row.dataset.run !== run) {   // when the page first showed a turn change
      x.row.dataset.run = run;         // (make bench: press-to-page latency)
      x.row.dataset.changed = Date.now();
    }
    x.sortTime = Math.min(t[0], t[1]);
    x.words = w;
    if (w[0] === "offline") n.offline++; else if (x.state.over) n.finished++; else n.playing++;
    x.row.hidden = !(match(k, x, f) && keep(w, x, show));
    list.push(x);
  });
  sortRows(list);
  set(document.getElementById("counts"),
      n.playing + " playing, " + n.finished + " finished, " + n.offline + " offline");
}

function set(el, text) { if (el.textContent !== text) el.textContent = text; }

function match(k, x, f) {
  if (!f) return true;
  var m = /^(\d+)\s*-\s*(\d+)$/.exec(f);
  if (m) return +k >= +m[1] && +k <= +m[2];
  // table numbers ("12", "3, 7 12"), or part of a clock id
  return f.split(/[ ,]+/).some(function (p) {
    return /^\d+$/.test(p) ? p === k : (x.state.clock + "").indexOf(p) >= 0;
  });
}

function keep(w, x, show) {
  if (show === "all") return true;
  if (show === "offline") return w[0] === "offline";
  if (show === "finished") return x.state.over;
  if (show === "overtime") return w.indexOf("overtime") >= 0 || w.indexOf("flag") >= 0;
  return !x.state.over && w[0] !== "offline";
}

var ORDER = {offline: 0, overtime: 1, flag: 1, running: 2, paused: 3, ready: 4, finished: 5, forfeit: 5};
function sortRows(list) {
  var by = document.getElementById("sort").value;
  list.sort(function (a, b) {
    if (by === "time") return (a.state.over - b.state.over) || (a.sortTime - b.sortTime) || (a.table - b.table);
    if (by === "state") {
      var sa = ORDER[a.words.indexOf("overtime") >= 0 ? "overtime" : a.words[0].split(" ")[0]];
      var sb = ORDER[b.words.indexOf("overtime") >= 0 ? "overtime" : b.words[0].split(" ")[0]];
      return (sa - sb) || (a.table - b.table);
    }
    return a.table - b.table;
  });
  var body = document.getElementById("rows");
  for (var i = 0; i < list.length; i++) {
    if (body.children[i] !== list[i].row) body.insertBefore(list[i].row, body.children[i] || null);
  }
}

function showLog(t) {
  var x = tables[t], games = Object.keys(x.logs).map(Number).sort(function (a, b) { return a - b; });
  var g = x.state && x.logs[x.state.game] !== undefined ? x.state.game : games[games.length - 1];
  shown = [t, g];
  document.getElementById("logview").hidden = false;
  document.getElementById("logtitle").textContent = "Table " + t + (g ? ", game " + g : "");
  document.getElementById("logtext").textContent = g !== undefined ? x.logs[g] :
      "No log yet: the clock publishes its game log when the game ends.";
}

function onMessage(topic, payload) {
  // scrabble/<event>/<table>/<kind>[/<game>]/<clock account>
  var p = topic.split("/");
  if (p.length < 5 || !/^\d+$/.test(p[2])) return;
  if (payload.length === 0) {
    // A clock renumbered in its setup menu empties its old table's retained
    // state and status: that table's row goes (no ghost).
    var old = tables[+p[2]];
    if (old && p[3] === "state") {
      old.row.parentNode.removeChild(old.row);
      delete tables[+p[2]];
      if (shown && shown[0] === old.table) { shown = null; document.getElementById("logview").hidden = true; }
    }
    return;
  }
  var x = get(+p[2]), text = payload.toString();
  if (p[3] === "state" || p[3] === "heartbeat") {
    try { x.state = JSON.parse(text); } catch (e) { return; }
    x.at = now();
    if (x.status === "offline" && p[3] === "heartbeat") x.status = "online";
  } else if (p[3] === "status") {
    x.status = text;
    if (text === "online") x.at = now();
  } else if (p[3] === "log" && p.length > 5) {
    x.logs[+p[4]] = text;
    if (shown && shown[0] === x.table) showLog(x.table);
  } else if (p[3] === "result" && !x.state) {
    try { x.state = JSON.parse(text); x.at = now(); } catch (e) { return; }
  }
}

function start() {
  document.getElementById("event").textContent = EV;
  var url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/";
  var c = mqtt.connect(url, {username: HALL.user, password: HALL.password,
                             reconnectPeriod: 2000, clean: true});
  var conn = document.getElementById("conn");
  c.on("connect", function () {
    conn.textContent = "live"; conn.className = "conn on";
    c.subscribe("scrabble/" + EV + "/#", {qos: 0});
  });
  c.on("close", function () { conn.textContent = "no connection"; conn.className = "conn off"; });
  c.on("message", onMessage);
  ["filter", "show", "sort"].forEach(function (id) {
    document.getElementById(id).addEventListener("input", render);
  });
  document.getElementById("logclose").onclick = function () {
    shown = null; document.getElementById("logview").hidden = true;
  };
  setInterval(render, 100);   // local countdown only: no network here
}

start();
