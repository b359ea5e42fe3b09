// The projector view (issue 21, docs/hall.md "The projector"): every table of
// the round as a card in a grid, for the hall's big screen.
//
// Cards stand in table order and never move (a stable order: the eye finds
// table 12 where it was); one page holds at most 40 cards (8 x 5 at
// 1920x1080), more turn page by themselves every PAGE_MS.  The header says
// the round, "37 of 40 finished" and the tables with an alert; a card with
// an alert changes colour and says it: overtime, a forfeit, a clock offline
// for more than 30 s, a low battery, a game still running when most of the
// round has finished.  Names come from the round's seating (`hall pairings`),
// published retained on scrabble/<event>/round by `hall round` / `hall
// pairings`.  Every clock message goes through HallModel.parse (model.js);
// the pure functions below (Projector.*) hold the rules, the rest draws.
"use strict";

var Projector = (function () {
  var MAX_PER_PAGE = 40;
  var OFFLINE_MS = 30000;     // issue 21: offline for more than 30 s
  var SILENT_MS = 30000;      // a running clock's heartbeat missing this long

  // The grid for n cards in a w x h area: {cols, rows, per} with the
  // largest cards of a 3:2-ish shape; at most MAX_PER_PAGE on a page.
  function layout(n, w, h) {
    var per = Math.max(1, Math.min(n, MAX_PER_PAGE)), best = null;
    for (var cols = 1; cols <= per; cols++) {
      var rows = Math.ceil(per / cols);
      var cw = w / cols, ch = h / rows;
      var u = Math.min(ch, cw / 1.2);           // a card needs 1.2 times its height in width
      if (!best || u > best.u) best = {cols: cols, rows: rows, per: per, u: u};
    }
    return best;
  }

  // Cards in a stable order: by table, then by clock account.
  function order(cards) {
    return cards.slice().sort(function (a, b) {
      return (a.table - b.table) || (String(a.account) < String(b.account) ? -1 :
                                     String(a.account) > String(b.account) ? 1 : 0);
    });
  }

  // What a card says, and its alerts (most urgent first).  x: {state, status,
  // offAt, at, cur, bye}; now: ms (performance.now()); most: most of the
  // round is over.  A clock whose game is of an earlier round (x.cur false:
  // the recorder has not seen its first press since `hall round N`) shows
  // nothing of it: "waiting" (issue 27).
  function look(x, now, most) {
    if (x.bye) return {words: "bye", cls: "bye", alerts: []};
    var s = x.state;
    if (!s) return {words: "no clock", cls: "noclock", alerts: []};
    if (x.cur === false) return {words: "waiting", cls: "waiting", alerts: []};
    var off = x.status === "offline";
    var e = now - x.at;
    // (issue 37: an offline card keeps the time shown when it went offline)
    var t = HallModel.times(s, false, off ? x.offE || 0 : e);
    var alerts = [];
    var left = s.left, right = s.right;
    if (left.forfeit || right.forfeit) alerts.push("forfeit " + (left.forfeit ? "left" : "right"));
    var silent = s.running && !s.over && !off && e > SILENT_MS;
    if ((off && now - x.offAt > OFFLINE_MS) || silent) {
      alerts.push("offline " + Math.floor((off ? now - x.offAt : e) / 1000) + " s");
    }
    if (!s.over && (t[0] < 0 || t[1] < 0)) alerts.push("overtime");
    if (s.lowbat === true) alerts.push("battery low");
    if (most && !s.over && (s.running || s.paused)) alerts.push("still playing");
    var state = off ? "offline" : s.over ? "finished" : s.paused ? "paused" :
                s.running ? "running" : "ready";
    return {words: alerts.length ? alerts[0] : state, cls: state, alerts: alerts, times: t};
  }

  // "37 of 40 finished" (HallModel.progress: the seating's tables).
  function progress(cards, R) {
    return HallModel.progress(R, cards);
  }

  // The cards to show, in order: each seated table (its clocks, this
  // round's or waiting; "no clock" if none), each unseated table with a
  // game of this round, then a card per bye.
  function cardsOf(all, R) {
    var byTable = {}, out = [];
    all.forEach(function (x) {
      if (!x.state || x.bye) return;
      x.cur = HallModel.current(R, x.table, x.account, x.state);
      (byTable[x.table] = byTable[x.table] || []).push(x);
    });
    var seated = R ? R.tables : {};
    Object.keys(byTable).forEach(function (t) {
      byTable[t].forEach(function (x) { if (seated[t] || x.cur) out.push(x); });
    });
    return {cards: order(out), byTable: byTable};
  }

  return {layout: layout, parseRound: HallModel.parseRound, order: order, look: look, progress: progress,
          cardsOf: cardsOf, MAX_PER_PAGE: MAX_PER_PAGE, OFFLINE_MS: OFFLINE_MS};
})();

var P = {
  event: (typeof HALL !== "undefined" ? HALL.event : ""),
  cards: {},          // "table/account" -> {table, account, state, at, status, offAt, el}
  round: HallModel.newRound(),   // the round, its seating and games (model.js)
  owners: HallModel.newOwners(), // each clock's account, as the recorder says (issue 29)
  page: 0,
  pageAt: 0,
  PAGE_MS: 10000,
  warnings: 0,
  lost: null          // when the connection closed (the hall stopped), else null
};

function pnow() { return performance.now(); }

function card(key, table, account) {
  var x = P.cards[key];
  if (!x) {
    x = P.cards[key] = {key: key, table: table, account: account, state: null, at: 0,
                        status: "", offAt: 0, el: null};
  }
  return x;
}

function build(x) {
  var el = document.createElement("div");
  el.className = "card";
  el.innerHTML = '<div class="head"><span class="num"></span><span class="state"></span></div>' +
                 '<div class="name"><span class="nl"></span><span class="pen pl"></span></div>' +
                 '<div class="time tl"><span class="t"></span></div>' +
                 '<div class="name"><span class="nr"></span><span class="pen pr"></span></div>' +
                 '<div class="time tr"><span class="t"></span></div>';
  x.el = el;
  x.f = {num: el.querySelector(".num"), state: el.querySelector(".state"),
         nl: el.querySelector(".nl"), nr: el.querySelector(".nr"),
         tl: el.querySelector(".tl"), tr: el.querySelector(".tr"),
         pl: el.querySelector(".pl"), pr: el.querySelector(".pr")};
  x.f.num.textContent = x.table;
  return el;
}

function txt(el, t) { if (el.textContent !== t) el.textContent = t; }

function pen(p) { return p ? "\u2212" + p + " pts" : ""; }

function draw(x, now, most) {
  if (!x.el) build(x);
  var L = Projector.look(x, now, most);
  var names = x.bye ? [x.name, ""] : HallModel.names(P.round, x.table);
  txt(x.f.num, x.bye ? "bye" : String(x.table));
  HallIsolate.names(x.f.nl, names && names[0] ? [names[0]] : [], "");   // issue 35: isolated
  HallIsolate.names(x.f.nr, names && names[1] ? [names[1]] : [], "");
  txt(x.f.state, L.words);
  var cls = "card " + L.cls + L.alerts.map(function (a) { return " a-" + a.split(" ")[0]
      .replace("still", "late"); }).join("");
  if (x.el.className !== cls) x.el.className = cls;
  var s = x.state;
  if (!s || !L.times) {   // no clock, waiting for this round's first press, a bye
    txt(x.f.tl.firstChild, ""); txt(x.f.tr.firstChild, "");
    txt(x.f.pl, ""); txt(x.f.pr, "");
    x.f.tl.className = "time tl"; x.f.tr.className = "time tr";
    return L;
  }
  var sides = [[x.f.tl, "left", 0, x.f.pl], [x.f.tr, "right", 1, x.f.pr]];
  for (var i = 0; i < 2; i++) {
    var f = sides[i][0], side = sides[i][1], t = L.times[sides[i][2]];
    txt(f.firstChild, HallModel.fmt(t));
    txt(sides[i][3], pen(s[side].penalty));   // penalty points with their unit
    var c = "time " + (i ? "tr" : "tl") + (s.running === side && !s.over ? " run" : "") + (t < 0 ? " over" : "");
    if (f.className !== c) f.className = c;
  }
  return L;
}

var BYE_TABLE = 100000;   // bye cards stand after every table

function render() {
  var now = P.lost !== null ? P.lost : pnow();   // (issue 37: frozen when the hall stops)
  var R = P.round;
  // (issue 29: another account's clock is refused, as by the recorder)
  var got = Projector.cardsOf(Object.keys(P.cards).map(function (k) { return P.cards[k]; })
      .filter(function (x) { return !HallModel.refused(P.owners, x.account, x.state); }), R);
  var all = got.cards.slice();
  // a table of the seating without a clock gets a card too
  Object.keys(R.tables).forEach(function (t) {
    if (!got.byTable[t]) all.push(card(t + "/", +t, ""));
  });
  R.byes.forEach(function (name, i) {
    var x = card("bye/" + i, BYE_TABLE + i, "");
    x.bye = true;
    x.name = name;
    all.push(x);
  });
  all = Projector.order(all);
  var prog = Projector.progress(got.cards, R);
  var most = prog.of > 0 && prog.finished * 2 > prog.of;
  txt(document.getElementById("round"), R.round !== null ? String(R.round) : "?");
  txt(document.getElementById("progress"), prog.text);
  HallIsolate.labelled(document.getElementById("byes"), "bye: ", R.byes, ", ");
  var grid = document.getElementById("grid");
  var lay = Projector.layout(all.length, grid.clientWidth - 16, grid.clientHeight - 16);
  var pages = Math.max(1, Math.ceil(all.length / lay.per));
  if (now - P.pageAt >= P.PAGE_MS) { P.page = (P.page + 1) % pages; P.pageAt = now; }
  if (P.page >= pages) P.page = 0;
  var first = P.page * lay.per, shown = all.slice(first, first + lay.per);
  var tnum = function (x) { return x.bye ? "bye" : x.table; };
  txt(document.getElementById("page"), pages > 1 ? "page " + (P.page + 1) + " of " + pages +
      " (tables " + tnum(shown[0]) + "\u2013" + tnum(shown[shown.length - 1]) + ")" : "");
  var alerts = [];
  all.forEach(function (x) {
    var L = draw(x, now, most);
    // (issue 37: "⚠ 3 overtime" read as three tables: each alert names its table)
    if (L.alerts.length) alerts.push("table " + x.table + ": " + L.alerts[0]);
  });
  txt(document.getElementById("alerts"), alerts.length ? "\u26A0 " + alerts.join(" \u00B7 ") : "");
  var u = lay.u / 100;
  grid.style.setProperty("--u", u.toFixed(3) + "px");
  var cols = "repeat(" + lay.cols + ", 1fr)", rows = "repeat(" + lay.rows + ", 1fr)";
  if (grid.style.gridTemplateColumns !== cols) grid.style.gridTemplateColumns = cols;
  if (grid.style.gridTemplateRows !== rows) grid.style.gridTemplateRows = rows;
  for (var i = 0; i < shown.length; i++) {
    if (grid.children[i] !== shown[i].el) grid.insertBefore(shown[i].el, grid.children[i] || null);
  }
  while (grid.children.length > shown.length) grid.removeChild(grid.lastChild);
}

// text: the payload (mqtt.js's Buffer: its bytes are measured, as the
// protocol counts them) or a string.
function onProjectorMessage(topic, payload) {
  var text = payload.toString();
  var r = HallModel.parseRoundTopic(P.event, topic, text);
  if (r !== null) {           // the round, a table's seating and games (issue 27)
    if (r.error) { P.warnings++; console.warn("projector: skipped " + topic + ": " + r.error); return; }
    HallModel.addRound(P.round, r);
    return;
  }
  var o = HallModel.parseOwner(P.event, topic, text);
  if (o !== null) {           // whose clock is it (issue 29)
    if (o.error) { P.warnings++; return; }
    HallModel.addOwner(P.owners, o);
    return;
  }
  var m = HallModel.parse(P.event, topic, payload);
  if (m === null) return;
  if (m.error) { P.warnings++; console.warn("projector: skipped " + topic + ": " + m.error); return; }
  if (m.kind === "clear") { var c = P.cards[m.key]; if (c) delete P.cards[m.key]; return; }
  var x = card(m.key, m.table, m.account);
  if (m.kind === "state" || m.kind === "heartbeat") {
    x.state = m.value;
    x.at = pnow();
    if (x.status === "offline" && m.kind === "heartbeat") x.status = "online";
  } else if (m.kind === "status") {
    if (m.value === "offline" && x.status !== "offline") {
      x.offAt = pnow();
      x.offE = x.state ? (P.lost !== null ? P.lost : pnow()) - x.at : 0;
    }
    x.status = m.value;
    if (m.value === "online") x.at = pnow();
  } else if (m.kind === "result" && !x.state) {
    x.state = m.value;
    x.at = pnow();
  }
}

function startProjector() {
  var conn = document.getElementById("conn");
  if (typeof mqtt !== "undefined" && location.protocol.indexOf("http") === 0) {
    var url = HallModel.brokerUrl(location, HALL);
    var c = mqtt.connect(url, {username: HALL.user, password: HALL.password,
                               reconnectPeriod: 2000, clean: true});
    c.on("connect", function () {
      conn.textContent = "live"; conn.className = "conn on";
      P.lost = null; document.body.classList.remove("stale");
      c.subscribe("scrabble/" + P.event + "/#", {qos: 0});
    });
    c.on("close", function () {
      if (P.lost === null) {   // issue 37: the times stay as shown, marked stale
        P.lost = pnow();
        document.body.classList.add("stale");
        conn.textContent = "no connection: times stale since " + new Date().toTimeString().slice(0, 8);
      }
      conn.className = "conn off";
    });
    c.on("message", function (topic, payload) {
      try { onProjectorMessage(topic, payload); } catch (e) { P.warnings++; }
    });
  }
  P.pageAt = pnow();
  render();
  setInterval(render, 250);   // the countdown and the pages: no network here
}

if (typeof document !== "undefined" && document.getElementById("grid")) startProjector();
