// Players' names drawn as data (issue 35; docs/hall.md "The director's
// page"): each name in an element of its own, a <bdi> (unicode-bidi:
// isolate), so a right-to-left name, or a right-to-left override in one,
// never reorders the text around it: the opponent's name, the separator,
// the other byes.  The director's page, the projector and the results desk
// (hall/desk.html) draw every name so.
"use strict";

var HallIsolate = (function () {
  // el shows names (an array of strings) joined by sep, each a <bdi>;
  // redrawn only when they change (the pages render several times a second).
  function names(el, list, sep) {
    var key = JSON.stringify([list, sep]);
    if (el.dataset.names === key) return;
    el.dataset.names = key;
    el.textContent = "";
    list.forEach(function (n, i) {
      if (i) el.appendChild(document.createTextNode(sep));
      var b = document.createElement("bdi");
      b.textContent = n;
      el.appendChild(b);
    });
  }

  // el shows prefix, then the names (as names()); nothing if there are none.
  function labelled(el, prefix, list, sep) {
    if (!list.length) { names(el, [], sep); return; }
    var key = JSON.stringify([prefix, list, sep]);
    if (el.dataset.names === key) return;
    names(el, list, sep);
    el.insertBefore(document.createTextNode(prefix), el.firstChild);
    el.dataset.names = key;
  }

  return {names: names, labelled: labelled};
})();
