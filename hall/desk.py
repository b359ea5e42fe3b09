"""The results desk (issue 27, docs/hall.md "The results desk"): a page on
the hall computer where the director types each table's two scores from its
score sheet and takes the round's exports, beside the director's page.

The director's page reads the hall over MQTT with the viewer's account,
which can write nothing (anyone on the hall's Wi-Fi has it).  So the desk is
not on that connection: `hall` serves it itself, on 127.0.0.1 only
(--desk-port, default the page's port + 1), whatever --lan says: only
someone at the hall computer types scores.  The director's page links it.

    GET  /                      the desk (desk.html)
    GET  /round?round=N         round N's rows (tournament.rows), the byes
                                and what is missing, as JSON
    POST /scores                {"round", "table", "left", "right"}: stored
                                (tournament.set_scores); needs the page's
                                token in X-Desk-Token
    GET  /export?round=N&as=tsh|csv|excel[&division=D]   the file a
                                director enters into TSH or opens in a
                                spreadsheet

Every answer checks the Host header (127.0.0.1 or localhost with this
port: a web page elsewhere cannot reach the desk through a DNS name bound
to 127.0.0.1), and a POST the token that only the desk's own page knows
(no other page can read it: no CORS headers).  No page may frame it
(`Content-Security-Policy: frame-ancestors 'none'`, `X-Frame-Options:
DENY`: a site cannot overlay it to make the director click).

A score for a table the round does not seat, or for a round without a
seating, is refused with its reason (tournament.set_scores).  The round's
TSH view is tournament.tsh_export's, as `hall results --tsh`: the same
lines and the same warnings and refusals.

A room of desk users typing at once all get answers: every request has a
thread of its own, the listen backlog holds a room's burst
(REQUEST_QUEUE; the standard library's 5 reset the sixth connection of a
burst), and tournament's appends lock the file they append to.
"""
import html
import io
import json
import os
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

from hall import tournament

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "desk.html")
MAX_BODY = 1024
REQUEST_QUEUE = 128     # the listen backlog (the kernel caps it at somaxconn)
IDLE_S = 30             # a connection that sends nothing this long is closed


def tsh_view(folder, rnd, division=None, bye_score=tournament.BYE_SCORE):
    """Round rnd's TSH entry as `hall results --round N --tsh` gives it:
    {"lines": the block ([] if nothing to enter), "messages": its warnings
    and refusals, "error": the one line of a division TSH would not take}."""
    try:
        lines, said = tournament.tsh_export(folder, rnd, division, bye_score, lambda m: None,
                                            tournament.isolated)
    except tournament.TournamentError as e:
        return {"lines": [], "messages": [], "error": str(e)}
    return {"lines": lines, "messages": said, "error": ""}


def round_view(folder, rnd, division=None):
    """What the desk shows of round rnd: rows (games and byes, the CSV's
    fields), the missing lines and the TSH view."""
    rows = tournament.rows(folder, rnd, lambda m: None)
    return {"round": rnd, "current": tournament.current_round(folder, lambda m: None),
            "rows": rows, "missing": tournament.missing(folder, rnd, rows, lambda m: None,
                                                        tournament.isolated),
            "tsh": tsh_view(folder, rnd, division)}


def export(folder, rnd, kind, division=None, bye_score=tournament.BYE_SCORE):
    """(bytes, content type, file name) of round rnd as TSH's entry block,
    CSV or Excel CSV (the same as `hall results --round N --tsh/--csv/--excel`);
    a TournamentError for a TSH entry there is nothing to enter in (its line)."""
    if kind == "tsh":
        v = tsh_view(folder, rnd, division, bye_score)
        if v["error"] or not v["lines"]:
            raise tournament.TournamentError(v["error"] or v["messages"][0])
        return ("\n".join(v["lines"]) + "\n").encode(), "text/plain; charset=utf-8", \
            "round%d-tsh.txt" % rnd
    rows = tournament.rows(folder, rnd, lambda m: None)
    out = io.StringIO(newline="")
    tournament.write_csv(rows, out, excel=kind == "excel")
    return out.getvalue().encode("utf-8"), "text/csv; charset=utf-8", \
        "round%d%s.csv" % (rnd, "-excel" if kind == "excel" else "")


class _Server(ThreadingHTTPServer):
    request_queue_size = REQUEST_QUEUE
    daemon_threads = True


class Desk:
    """The desk's HTTP server for a hall folder; start() serves it in a
    thread, stop() ends it."""

    def __init__(self, folder, port, host="127.0.0.1"):
        self.folder = folder
        self.token = secrets.token_urlsafe(16)
        desk = self

        class Handler(BaseHTTPRequestHandler):
            timeout = IDLE_S

            def log_message(self, *a):
                pass

            def _host_ok(self):
                h = self.headers.get("Host", "")
                return h in ("127.0.0.1:%d" % desk.port, "localhost:%d" % desk.port)

            def _send(self, code, body, ctype="application/json; charset=utf-8", name=None):
                if isinstance(body, str):
                    body = body.encode()
                self.send_response(code)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", "no-store")
                self.send_header("X-Content-Type-Options", "nosniff")
                self.send_header("Content-Security-Policy", "frame-ancestors 'none'")
                self.send_header("X-Frame-Options", "DENY")
                if name:
                    self.send_header("Content-Disposition", 'attachment; filename="%s"' % name)
                self.end_headers()
                self.wfile.write(body)

            def _round(self, q):
                return tournament.number((q.get("round") or [""])[0], 1, tournament.MAX_ROUND)

            def _division(self, q):
                return (q.get("division") or [None])[0] or None

            def do_GET(self):
                if not self._host_ok():
                    return self._send(403, '{"error": "not this desk"}')
                u = urlparse(self.path)
                q = parse_qs(u.query)
                if u.path == "/":
                    with open(PAGE, encoding="utf-8") as f:
                        page = f.read().replace("@TOKEN@", html.escape(desk.token))
                    return self._send(200, page, "text/html; charset=utf-8")
                rnd = self._round(q)
                if u.path == "/round":
                    if rnd is None:
                        rnd = tournament.current_round(desk.folder, lambda m: None)
                    return self._send(200, json.dumps(round_view(desk.folder, rnd,
                                                                 self._division(q)),
                                                      ensure_ascii=False))
                if u.path == "/export" and rnd is not None:
                    kind = (q.get("as") or ["csv"])[0]
                    if kind in ("tsh", "csv", "excel"):
                        try:
                            body, ctype, name = export(desk.folder, rnd, kind,
                                                       self._division(q))
                        except tournament.TournamentError as e:
                            return self._send(409, str(e) + "\n", "text/plain; charset=utf-8")
                        return self._send(200, body, ctype, name)
                return self._send(404, '{"error": "no such page"}')

            def _drain(self):
                """A refused POST's body read (up to MAX_BODY), so the answer
                reaches the client rather than a reset for unread data."""
                self.close_connection = True
                n = tournament.number(self.headers.get("Content-Length", "0"), 0, MAX_BODY)
                if n:
                    self.rfile.read(n)

            def do_POST(self):
                if not self._host_ok() or self.headers.get("X-Desk-Token") != desk.token:
                    self._drain()
                    return self._send(403, '{"error": "not this desk"}')
                if urlparse(self.path).path != "/scores":
                    self._drain()
                    return self._send(404, '{"error": "no such page"}')
                try:
                    n = tournament.number(self.headers.get("Content-Length", "0"), 0, 10 ** 9)
                    if n is None or not 0 < n <= MAX_BODY:
                        self.close_connection = True
                        raise ValueError("a body of %s bytes" % n)
                    d = json.loads(self.rfile.read(n))
                    tournament.set_scores(desk.folder, d["round"], d["table"], d["left"],
                                          d["right"])
                except (ValueError, KeyError, TypeError, RecursionError,
                        tournament.TournamentError) as e:
                    return self._send(400, json.dumps({"error": str(e)[:200]}))
                return self._send(200, json.dumps(round_view(desk.folder, d["round"]),
                                                  ensure_ascii=False))

        self.server = _Server((host, port), Handler)
        self.port = self.server.server_address[1]
        self.thread = None

    def url(self):
        return "http://127.0.0.1:%d/" % self.port

    def start(self):
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        if self.thread is not None:
            self.thread.join()
