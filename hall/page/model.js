// The hall's messages, checked (issue 19, docs/hall.md): small pure functions,
// no DOM, shared by every view of the hall (the page loads this file first;
// a second view can too).  Every message a clock account can publish is
// checked here before a view uses it: a row is keyed by the TOPIC (its table
// and the account that published it: the broker's ACL lets an account write
// only topics that end in its own name), and a body that disagrees with its
// topic, or is not what firmware/net.py sends, is refused with a reason.
//
//   HallModel.parse(event, topic, payloadText)
//     -> {kind, table, account, game, key, value}   a usable message
//     -> {error: "why"}                              refuse it (one warning)
//     -> null                                        not for the page (no warning)
//   kinds: "state" / "heartbeat" (value: the state object), "status" ("online" /
//   "offline"), "result" (the final state), "log" (text), "clear" (an emptied
//   retained state: the row goes)
"use strict";

var HallModel = (function () {
  // The protocol (topics, ids, limits, fields, names) is the hall's one
  // definition, firmware/hallproto.py, as hallproto.js (generated from it,
  // loaded before this file): nothing of it is written here again.
  var P = typeof HallProto !== "undefined" ? HallProto : require("./hallproto.js");   // (node)
  var INT_MAX = P.D.INT_MAX;
  var MAX_SEAT = 4096;            // bytes of a table's round message (the recorder's)
  var num = P.num;

  function isInt(v, lo, hi) {
    return typeof v === "number" && Math.floor(v) === v && v >= lo && v <= hi;
  }

  function isObj(v) {
    return v !== null && typeof v === "object" && !Array.isArray(v);
  }

  // A clock's message (HallProto.parse: parsed once, then by its kind) as a
  // view uses it; null for the hall's own kinds, emptied messages and other
  // topics.
  function parse(event, topic, payload) {
    var m = P.parse(event, String(topic), payload);
    if (m.kind === "refused") return {error: m.why};
    if (m.kind === "other" || m.kind === "empty" || P.D.HALL_KINDS.indexOf(m.kind) >= 0) {
      return null;
    }
    return {kind: m.kind, table: m.table, account: m.account, game: m.game,
            key: m.table + "/" + m.account, value: m.value};
  }

  function parseTopic(event, topic) {
    var m = P.parseTopic(event, String(topic));
    if (m.kind === "refused") return {error: m.why};
    if (m.kind === "other" || P.D.HALL_KINDS.indexOf(m.kind) >= 0) return null;
    return {kind: m.kind, table: m.table, account: m.account, game: m.game,
            key: m.table + "/" + m.account};
  }

  var checkState = P.checkState;

  // The round and its seating, retained by the recorder (issue 27: one
  // message per table, hall/tournament.py messages()):
  //   scrabble/<event>/round      {round, tables: [1, 2, ...], byes: [names]}
  //   scrabble/<event>/round/<t>  {round, left, right, games: [[account, clock, game]]}
  var isName = P.isName;      // code points, no control or bidi characters (hallproto.py)

  function parseRound(text) {
    if (typeof text !== "string" || text.length > 65536) return {error: "too long"};
    var r;
    try { r = JSON.parse(text); } catch (e) { return {error: "not JSON"}; }
    if (!isObj(r)) return {error: "not an object"};
    if (!isInt(r.round, 1, 999)) return {error: "round is not 1-999"};
    var t = r.tables === undefined ? [] : r.tables, b = r.byes === undefined ? [] : r.byes;
    if (!Array.isArray(t) || t.length > 999) return {error: "tables is not a list of tables"};
    var tables = {};
    for (var i = 0; i < t.length; i++) {
      if (!isInt(t[i], 1, 999)) return {error: "a table is not 1-999"};
      tables[t[i]] = true;
    }
    if (!Array.isArray(b) || b.length > 999 || !b.every(isName)) return {error: "byes are not names"};
    return {round: r.round, tables: tables, byes: b.slice()};
  }

  function parseSeat(text) {
    if (typeof text !== "string" || text.length > MAX_SEAT) return {error: "too long"};
    var r;
    try { r = JSON.parse(text); } catch (e) { return {error: "not JSON"}; }
    if (!isObj(r)) return {error: "not an object"};
    if (!isInt(r.round, 1, 999)) return {error: "round is not 1-999"};
    if (!isName(r.left) || !isName(r.right)) return {error: "not two names"};
    if (!Array.isArray(r.games) || r.games.length > 50) return {error: "games is not a list"};
    for (var i = 0; i < r.games.length; i++) {
      var g = r.games[i];
      if (!Array.isArray(g) || g.length !== 3 || !P.isAccount(g[0]) || !P.isId(g[1]) ||
          !isInt(g[2], 1, INT_MAX)) {
        return {error: "a game is not [account, clock, game]"};
      }
    }
    return {round: r.round, left: r.left, right: r.right, games: r.games};
  }

  // A round message (kind "round") or a table's (kind "seat"), else null.
  function parseRoundTopic(event, topic, text) {
    var p = String(topic).split("/");
    if (p[0] !== "scrabble" || p[1] !== event || p[2] !== "round") return null;
    if (p.length === 3) {
      var r = parseRound(String(text));
      return r.error ? r : {kind: "round", value: r};
    }
    var t = p.length === 4 ? num(p[3], 1, 999) : null;
    if (t === null) return {error: "not a round topic"};
    if (text === "") return {kind: "seat", table: t, value: null};   // a table gone
    var s = parseSeat(String(text));
    return s.error ? s : {kind: "seat", table: t, value: s};
  }

  // What the pages know of the round: R = newRound(), then addRound(R, m) for
  // every "round" / "seat" message.
  function newRound() { return {round: null, tables: {}, byes: [], seats: {}}; }

  function addRound(R, m) {
    if (m.kind === "round") {
      R.round = m.value.round; R.tables = m.value.tables; R.byes = m.value.byes;
    } else if (m.value === null) delete R.seats[m.table];
    else R.seats[m.table] = m.value;
  }

  function seat(R, t) {
    var s = R && R.seats[t];
    return s && s.round === R.round ? s : null;
  }

  // [left, right] of a table of the round's seating, or null.
  function names(R, t) {
    var s = seat(R, t);
    return s && R.tables[t] ? [s.left, s.right] : null;
  }

  // Has the game of this state begun (hall/tournament.py started())?
  function begun(s) {
    return ((s.running === "left" || s.running === "right") && s.late === null) ||
        s.paused === true || s.over === true;
  }

  // Is this clock's state of the current round?  A game that has begun is
  // only when the recorder lists it at the table (its first press came
  // after `hall round N`); before any round message, everything is.  A
  // ready clock shows nothing of an earlier round: it is.
  function current(R, table, account, s) {
    if (!R || R.round === null || !begun(s)) return true;
    var st = seat(R, table);
    return !!st && st.games.some(function (g) {
      return g[0] === account && g[1] === s.clock && g[2] === s.game;
    });
  }

  // "37 of 40 finished": the seating's tables (issue 27: not unseated
  // clocks); without a seating, the tables with a clock of the round.
  // cards: [{table, state, cur}].
  function progress(R, cards) {
    var tables = {}, done = {}, seated = R && Object.keys(R.tables).length > 0;
    if (seated) Object.keys(R.tables).forEach(function (t) { tables[t] = true; });
    cards.forEach(function (c) {
      if (!c.state || !c.cur) return;
      if (!seated) tables[c.table] = true;
      if (tables[c.table] && c.state.over) done[c.table] = true;
    });
    var n = Object.keys(tables).length, f = Object.keys(done).length;
    return {finished: f, of: n, text: f + " of " + n + " finished"};
  }

  // The recorder's alarm, retained on scrabble/<event>/alarm (issue 29):
  //   {writing: null or "why results cannot be stored", waiting: n, events: ["..."]}
  //   -> {writing, waiting, events} or {error}
  function parseAlarm(text) {
    if (typeof text !== "string" || text.length > 65536) return {error: "too long"};
    var a;
    try { a = JSON.parse(text); } catch (e) { return {error: "not JSON"}; }
    if (a === null || typeof a !== "object" || Array.isArray(a)) return {error: "not an object"};
    if (a.writing !== null && typeof a.writing !== "string") return {error: "writing is not text"};
    if (!isInt(a.waiting, 0, INT_MAX)) return {error: "waiting is not a count"};
    if (!Array.isArray(a.events) || a.events.length > 100 ||
        a.events.some(function (e) { return typeof e !== "string"; })) {
      return {error: "events is not a list of lines"};
    }
    // issue 35: the messages the recorder refused (its run), the last one's reason
    var refused = a.refused === undefined ? 0 : a.refused, last = a.last === undefined ? null : a.last;
    if (!isInt(refused, 0, INT_MAX)) return {error: "refused is not a count"};
    if (last !== null && typeof last !== "string") return {error: "last is not text"};
    return {writing: a.writing, waiting: a.waiting, events: a.events, refused: refused, last: last};
  }

  // Whose clock is it (issue 29): the recorder publishes each clock's account,
  // retained, on scrabble/<event>/owner/<clock> (hall/recorder.py
  // publish_owners, from owners.jsonl: the deploy's line, else the first
  // account seen with that clock).  A view refuses a clock's state or result
  // under another account, as the recorder refuses to store it; a clock the
  // recorder has not named yet is shown (the recorder takes it for the first
  // account it sees).  O = newOwners(), then addOwner(O, m) for each "owner"
  // message; refused(O, account, state) -> null or the reason.
  function newOwners() { return Object.create(null); }

  function parseOwner(event, topic, text) {
    var p = String(topic).split("/");
    if (p.length !== 4 || p[0] !== "scrabble" || p[1] !== event || p[2] !== "owner") return null;
    if (!P.isId(p[3])) return {error: "not a clock id"};
    text = String(text);
    if (text !== "" && !P.isAccount(text)) return {error: "not an account"};
    return {kind: "owner", clock: p[3], account: text === "" ? null : text};
  }

  function addOwner(O, m) {
    if (m.account === null) delete O[m.clock];
    else O[m.clock] = m.account;
  }

  function refused(O, account, s) {
    var owner = O && s ? O[s.clock] : undefined;
    if (owner === undefined || owner === account) return null;
    return "clock " + s.clock + " belongs to account " + owner + ", not to account " + account;
  }

  // -- what a row shows --------------------------------------------------------------
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

  // The times to show `elapsed` ms after the state arrived: [left, right],
  // signed (negative: overtime); the running side counts down.
  function times(s, offline, elapsed) {
    var l = signed(s.left), r = signed(s.right);
    if (s.running && !s.over && !offline) {
      var e = Math.max(0, elapsed);
      if (s.running === "left") l -= e; else r -= e;
    }
    return [l, r];
  }

  // The state words: offline / finished / forfeit ... / paused / running /
  // ready, then overtime, flag, "no signal" (a running clock sends a heartbeat
  // every 5 s; the broker's last will comes 30 s after it went silent).
  function words(s, offline, elapsed) {
    var w = [];
    if (offline) w.push("offline");
    if (s.over) {
      if (s.left.forfeit) w.push("forfeit left");
      else if (s.right.forfeit) w.push("forfeit right");
      else w.push("finished");
    } else if (s.paused) w.push("paused");
    else if (s.running) w.push("running");
    else w.push("ready");
    var t = times(s, offline, elapsed);
    if (!s.over && (t[0] < 0 || t[1] < 0)) w.push("overtime");
    if (s.left.flag || s.right.flag) w.push("flag");
    if (s.running && !s.over && !offline && elapsed > 12000) w.push("no signal");
    // the clock's last self-test since power-up (issue 37: the organizer's
    // checklist sees each clock pass on this page): a failure always, a pass
    // until its game begins
    if (typeof s.selftest === "string" && s.selftest !== "pass") {
      w.push("self-test failed" + s.selftest.replace(/^fail/, ""));
    } else if (s.selftest === "pass" && !begun(s)) w.push("self-test passed");
    return w;
  }

  // The broker for a page served from `loc` (location): MQTT over secure
  // WebSockets on the hall's port (config.js's wsPort; issue 29: no listener
  // in clear), on the host the page came from.  The one place pages build it.
  function brokerUrl(loc, hall) {
    return "wss://" + loc.hostname + ":" + hall.wsPort + "/";
  }

  // The language a game log names in its header (`# lang de`, firmware/
  // gamelog.py; none means English, the clock's default): the page links
  // that language's timeline, so it reads as the clock did.
  function logLang(text) {
    var m = /^# lang (en|de|pl)[ \t]*$/m.exec(String(text));
    return m ? m[1] : "en";
  }

  return {parse: parse, logLang: logLang, parseTopic: parseTopic, checkState: checkState, parseRound: parseRound,
          parseSeat: parseSeat, parseRoundTopic: parseRoundTopic, newRound: newRound,
          addRound: addRound, names: names, current: current, begun: begun, progress: progress,
          parseAlarm: parseAlarm, newOwners: newOwners, parseOwner: parseOwner,
          addOwner: addOwner, refused: refused, fmt: fmt, brokerUrl: brokerUrl,
          signed: signed, times: times, words: words};
})();

if (typeof module !== "undefined") module.exports = HallModel;
