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
    GET  /export?round=N&as=tsh|csv|excel   the file a director enters into
                                TSH or opens in a spreadsheet

Every answer checks the Host header (127.0.0.1 or localhost with this
port: a web page elsewhere cannot reach the desk through a DNS name bound
to 127.0.0.1), and a POST the token that only the desk's own page knows
(no other page can read it: no CORS headers).
"""
import html
import io
import json
import os
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import hallproto as hp

from host_sim import tournament

PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "desk.html")
MAX_BODY = 1024


def round_view(folder, rnd):
    """What the desk shows of round rnd: rows (games and byes, the CSV's
    fields) and the missing lines."""
    rows = tournament.rows(folder, rnd, lambda m: None)
    return {"round": rnd, "current": tournament.current_round(folder, lambda m: None),
            "rows": rows, "missing": tournament.missing(folder, rnd, rows, lambda m: None)}


def export(folder, rnd, kind, division=None, bye_score=tournament.BYE_SCORE):
    """(bytes, content type, file name) of round rnd as TSH's entry block,
    CSV or Excel CSV (the same as `hall results --round N --tsh/--csv/--excel`)."""
    rows = tournament.rows(folder, rnd, lambda m: None)
    if kind == "tsh":
        if division is None:
            src = tournament.load_seating(folder, rnd, lambda m: None).source
            division = src[:-2] if src.lower().endswith(".t") else "a"
        lines, _problems = tournament.tsh_lines(rows, rnd, division, bye_score)
        return ("\n".join(lines) + "\n").encode(), "text/plain; charset=utf-8", \
            "round%d-tsh.txt" % rnd
    out = io.StringIO(newline="")
    tournament.write_csv(rows, out, excel=kind == "excel")
    return out.getvalue().encode("utf-8"), "text/csv; charset=utf-8", \
        "round%d%s.csv" % (rnd, "-excel" if kind == "excel" else "")


class Desk:
    """The desk's HTTP server for a hall folder; start() serves it in a
    thread, stop() ends it."""

    def __init__(self, folder, port, host="127.0.0.1"):
        self.folder = folder
        self.token = secrets.token_urlsafe(16)
        desk = self

        class Handler(BaseHTTPRequestHandler):
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
                if name:
                    self.send_header("Content-Disposition", 'attachment; filename="%s"' % name)
                self.end_headers()
                self.wfile.write(body)

            def _round(self, q):
                v = (q.get("round") or [""])[0]
                return hp.num(v, 1, tournament.MAX_ROUND)

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
                    return self._send(200, json.dumps(round_view(desk.folder, rnd),
                                                      ensure_ascii=False))
                if u.path == "/export" and rnd is not None:
                    kind = (q.get("as") or ["csv"])[0]
                    if kind in ("tsh", "csv", "excel"):
                        body, ctype, name = export(desk.folder, rnd, kind)
                        return self._send(200, body, ctype, name)
                return self._send(404, '{"error": "no such page"}')

            def do_POST(self):
                if not self._host_ok() or self.headers.get("X-Desk-Token") != desk.token:
                    return self._send(403, '{"error": "not this desk"}')
                if urlparse(self.path).path != "/scores":
                    return self._send(404, '{"error": "no such page"}')
                try:
                    n = int(self.headers.get("Content-Length", "0"))
                    if not 0 < n <= MAX_BODY:
                        raise ValueError("a body of %d bytes" % n)
                    d = json.loads(self.rfile.read(n))
                    tournament.set_scores(desk.folder, d["round"], d["table"], d["left"],
                                          d["right"])
                except (ValueError, KeyError, TypeError, tournament.TournamentError) as e:
                    return self._send(400, json.dumps({"error": str(e)[:200]}))
                return self._send(200, json.dumps(round_view(desk.folder, d["round"]),
                                                  ensure_ascii=False))

        self.server = ThreadingHTTPServer((host, port), Handler)
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
