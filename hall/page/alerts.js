// The director's alerts (issue 37, docs/hall.md "The director's page"): the
// page calls the director when a table needs them, with a banner and a
// beep, each switched on or off at the header (remembered by this browser,
// localStorage).  Four kinds, each said once per table and game:
//   silent    a clock of a game not over went offline, or "no signal" (its
//             heartbeat 12 s overdue); said again if it comes back and goes
//             silent again
//   overtime  a side went past 00:00
//   forfeit   a game ended by forfeit (TSO § 5.2 c)
//   check     a result to look at: a flag fallen at 00:00 (a loss on time
//             on a flag profile), two finished games of the round at one table, or a
//             new warning of the recorder (a result refused, a re-published
//             result not counted)
// HallAlerts.kinds() is pure (no DOM); the rest draws the banner and beeps
// (WebAudio: a generated tone, no sound file).  A browser lets a page sound
// only after a click on it: the sound switch's click counts.
"use strict";

var HallAlerts = (function () {
  var KEYS = {banner: "hall.alerts.banner", sound: "hall.alerts.sound"};
  var MAX_SHOWN = 8;
  var fired = {};        // "kind|table/account|game" -> true: said once
  var shown = [];        // [{kind, text}] newest first, until "seen"
  var seenEvents = null; // the recorder's warnings already known
  var ctx = null;
  var stats = {raised: 0, beeps: 0};

  // The alert kinds of one row: x {words, state, cur}; finishedAt: how many
  // finished games of the round stand at its table.
  function kinds(x, finishedAt) {
    var s = x.state, w = x.words || [], out = [];
    if (!s || x.cur === false) return out;
    if (!s.over && (w[0] === "offline" || w.indexOf("no signal") >= 0)) out.push("silent");
    if (!s.over && w.indexOf("overtime") >= 0) out.push("overtime");
    if (s.over && (s.left.forfeit || s.right.forfeit)) out.push("forfeit");
    if (fell(s) || (s.over && finishedAt > 1)) out.push("check");
    return out;
  }

  // A flag at 00:00 with no overtime: a loss on time on a flag profile (pfs;
  // an overtime profile's flag counts on into overtime, said as overtime).
  function fell(s) {
    return !s.left.forfeit && !s.right.forfeit &&
        ((s.left.flag && !s.left.overtime_ms) || (s.right.flag && !s.right.overtime_ms));
  }

  var WHY = {silent: "is silent (offline or no signal)", overtime: "went into overtime",
             forfeit: "ended by forfeit", check: "has a result to check"};

  function text(kind, x, finishedAt) {
    var s = x.state, t = "table " + x.table + (x.account !== String(x.table) ?
        " (account " + x.account + ")" : "");
    if (kind === "forfeit") return t + ": forfeit " + (s.left.forfeit ? "left" : "right");
    if (kind === "check") {
      return t + ": result to check: " + (fell(s) ? "the " +
          (s.left.flag && !s.left.overtime_ms ? "left" : "right") + " flag fell at 00:00 " +
          "(a loss on time)" : finishedAt + " results at this table");
    }
    return t + " " + WHY[kind];
  }

  function on(which) {
    try { return window.localStorage.getItem(KEYS[which]) !== "off"; } catch (e) { return true; }
  }

  function setOn(which, v) {
    try { window.localStorage.setItem(KEYS[which], v ? "on" : "off"); } catch (e) { /* private mode */ }
    draw();
  }

  function beep() {
    stats.beeps++;
    tone();
  }

  function tone() {
    try {
      var AC = window.AudioContext || window.webkitAudioContext;
      if (!AC) return;
      ctx = ctx || new AC();
      if (ctx.state === "suspended") ctx.resume();
      [0, 0.3].forEach(function (at) {
        var o = ctx.createOscillator(), g = ctx.createGain(), t0 = ctx.currentTime + at;
        o.frequency.value = 880;
        g.gain.setValueAtTime(0.0001, t0);
        g.gain.exponentialRampToValueAtTime(0.3, t0 + 0.02);
        g.gain.exponentialRampToValueAtTime(0.0001, t0 + 0.2);
        o.connect(g); g.connect(ctx.destination);
        o.start(t0); o.stop(t0 + 0.22);
      });
    } catch (e) { /* no audio device: the banner still says it */ }
  }

  function raise(kind, line) {
    stats.raised++;
    shown.unshift({kind: kind, text: line});
    if (shown.length > MAX_SHOWN) shown.length = MAX_SHOWN;
    if (on("sound")) beep();
    draw();
  }

  // Every render: rows [{key, table, account, state, words, cur}].
  function scan(list) {
    var done = {};
    list.forEach(function (x) {
      if (x.state && x.state.over && x.cur !== false) done[x.table] = (done[x.table] || 0) + 1;
    });
    list.forEach(function (x) {
      var got = kinds(x, done[x.table] || 0), game = x.state ? x.state.game : 0;
      var silentKey = "silent|" + x.key + "|" + game;
      if (got.indexOf("silent") < 0) delete fired[silentKey];   // back: may be said again
      got.forEach(function (k) {
        var id = k + "|" + x.key + "|" + game;
        if (fired[id]) return;
        fired[id] = true;
        raise(k, text(k, x, done[x.table] || 0));
      });
    });
  }

  // The recorder's warnings (its alarm's events): each new one is a result
  // to check.  known: the alarm as retained when the page (re)connected: what
  // it held then is in the alarm's own section, not raised again.
  function recorder(events, known) {
    if (seenEvents === null) seenEvents = {};
    events.forEach(function (e) {
      if (known) { seenEvents[e] = true; return; }
      if (seenEvents[e]) return;
      seenEvents[e] = true;
      raise("check", "recorder: " + e);
    });
  }

  function draw() {
    if (typeof document === "undefined") return;
    var el = document.getElementById("alertbanner");
    if (!el) return;
    el.hidden = !on("banner") || shown.length === 0;
    var list = document.getElementById("alertlist");
    list.textContent = "";
    shown.forEach(function (a) {
      var li = document.createElement("li");
      li.className = "alert-" + a.kind;
      li.textContent = a.text;          // text, never HTML
      list.appendChild(li);
    });
    document.getElementById("alert-banner").checked = on("banner");
    document.getElementById("alert-sound").checked = on("sound");
  }

  function start() {
    if (typeof document === "undefined" || !document.getElementById("alertbanner")) return;
    document.getElementById("alert-banner").addEventListener("change", function (e) {
      setOn("banner", e.target.checked);
    });
    document.getElementById("alert-sound").addEventListener("change", function (e) {
      setOn("sound", e.target.checked);
      if (e.target.checked && !ctx) tone();   // (a click: the browser lets it sound)
    });
    document.getElementById("alertseen").onclick = function () { shown = []; draw(); };
    draw();
  }

  return {kinds: kinds, scan: scan, recorder: recorder, start: start, on: on, setOn: setOn,
          stats: stats, KEYS: KEYS};
})();

if (typeof module !== "undefined") module.exports = HallAlerts;
