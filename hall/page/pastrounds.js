// The finished rounds on the director's page (issue 37, docs/hall.md "The
// director's page"): after `hall round 2` the round-1 rows leave the live
// table, so the page keeps a collapsed "Earlier rounds" section below it: a
// round chosen there shows each of its games (the players, both final
// times, how it ended, the penalties, when it ended) with links to its log
// and its timeline.  The rows come from the page's own server
// (`rounds/N.json`, hall/served.py: `hall results --round N`'s rows, read
// when asked), fetched when the section is opened or another round is
// chosen: nothing is polled.  Every field is drawn as text.
"use strict";

var PastRounds = (function () {
  var now = null;       // the current round
  var loaded = {};      // round -> its games, as last fetched

  function el(id) { return document.getElementById(id); }

  // The rounds before the current one, newest first.
  function current(n) {
    if (n === now) return;
    now = n;
    var sel = el("pastround");
    if (!sel) return;
    var keep = sel.value;
    sel.textContent = "";
    for (var r = n - 1; r >= 1; r--) {
      var o = document.createElement("option");
      o.value = String(r);
      o.textContent = "round " + r;
      sel.appendChild(o);
    }
    if (keep && +keep < n) sel.value = keep;
    el("past").hidden = n <= 1;
    if (el("past").open) load();
  }

  function load() {
    var r = +el("pastround").value;
    if (!r) return;
    el("pastnote").textContent = "loading\u2026";
    fetch("rounds/" + r + ".json", {cache: "no-store"}).then(function (resp) {
      if (!resp.ok) throw new Error("HTTP " + resp.status);
      return resp.json();
    }).then(function (body) {
      if (!body || body.round !== r || !Array.isArray(body.games)) throw new Error("not a round");
      loaded[r] = body.games;
      if (+el("pastround").value === r) draw(r, body.games);
    }).catch(function (e) {
      el("pastnote").textContent = "round " + r + " cannot be shown: " + e.message;
    });
  }

  function cell(tr, text) {
    var td = document.createElement("td");
    td.textContent = text === undefined || text === null ? "" : String(text);
    tr.appendChild(td);
    return td;
  }

  function link(td, href, text) {
    if (typeof href !== "string" || !/^[\w./-]+\.txt$/.test(href)) return;
    var a = document.createElement("a");
    a.href = href;
    a.target = "_blank";
    a.textContent = text;
    if (td.firstChild) td.appendChild(document.createTextNode(" "));
    td.appendChild(a);
  }

  function draw(r, games) {
    var body = el("pastrows");
    body.textContent = "";
    games.forEach(function (g) {
      var tr = document.createElement("tr");
      tr.dataset.table = g.table;
      tr.dataset.game = g.game;
      cell(tr, g.table + (String(g.account) !== String(g.table) ? " (account " + g.account + ")" : ""));
      var names = cell(tr, "");
      names.className = "players";
      HallIsolate.names(names, g.left || g.right ? [g.left, g.right] : [], " \u2013 ");
      cell(tr, g.left_clock);
      cell(tr, g.right_clock);
      cell(tr, g.forfeit ? "forfeit " + g.forfeit : "finished");
      cell(tr, g.left_penalty || g.right_penalty ? g.left_penalty + " / " + g.right_penalty : "");
      cell(tr, g.end_local);
      var logs = cell(tr, "");
      link(logs, g.log, "log");
      link(logs, g.timeline, "timeline");
      body.appendChild(tr);
    });
    el("pastnote").textContent = games.length + " game" + (games.length === 1 ? "" : "s") +
        " finished in round " + r;
  }

  function start() {
    if (!el("past")) return;
    el("pastround").addEventListener("change", load);
    el("past").addEventListener("toggle", function () { if (el("past").open) load(); });
  }

  if (typeof document !== "undefined") start();
  return {current: current, load: load, loaded: loaded};
})();
