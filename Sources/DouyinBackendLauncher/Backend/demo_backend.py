#!/usr/bin/env python3
"""A local stand-in of the demo app's backend, for DouyinKit's tests, demo and benchmark.

Serves every endpoint of DESIGN.md's table under /douyin/ from Fixtures/api, with state:
posted comments and chat messages appear at the head of their lists, deletes remove them, and
each new chat message is pushed as a JSON text frame to every WebSocket client of
ws://HOST:PORT/douyin/groupchat (header `udid`). HTTP and WebSocket share one port: the HTTP
side is the standard library's threading server, the WebSocket framing is python3-websockets'
sans-I/O protocol object (ws_protocol.py, shared by every server in this folder).

The parts, in backend/: state.py (what it holds), forms.py (parameters, paging, bodies),
routes.py (one function per endpoint, a table keyed by method and endpoint), debug.py (the
switches below, likewise), push.py (the WebSocket side), handler.py (one HTTP request).

Switches and the request record for tests live under /_debug/ (never recorded themselves):
  GET    /_debug/requests          every request so far: method, path, query, headers, body (base64)
  DELETE /_debug/requests          forgets them
  GET    /_debug/wait?count=N      returns once N requests are recorded (timeout=S, default 30 s, then 408)
  POST   /_debug/enqueue           JSON {count, status?, headers?, content_type?, body?, stall?, path?}:
                                   the next `count` requests (whose path starts with `path`, if
                                   given) first stall `stall` seconds, then get this canned answer
                                   (or, without `status`, their normal one)
  POST   /_debug/config            JSON {lie_has_more?: bool, upgrade_pause?: seconds}: has_more 1
                                   on every page; each new WebSocket connection paused that long
                                   after its 101 (it gets pushes meanwhile)
  POST   /_debug/auth              JSON {enabled?, expire?}: with enabled, every API call needs
                                   `Authorization: Bearer <token>` (else HTTP 401, code 401) and
                                   POST /douyin/auth/token issues a new token (the old one stops
                                   working); expire ends the current token. Answers {enabled,
                                   token, issued, rejected}; GET /_debug/auth reads it
  POST   /_debug/reset             drops queued answers, config and auth, releases every stall
  POST   /_debug/push              sends the body as a text frame to every WebSocket client
  POST   /_debug/disconnect        closes every WebSocket connection (code 1001)

Usage: demo_backend.py [--host 127.0.0.1] [--port 0] [--fixtures DIR] [--until-stdin-closes]
Prints `listening on HOST:PORT` on stdout once the socket accepts connections. With
--until-stdin-closes it also stops when its stdin reaches its end: a harness that starts it holds
that pipe, so the server cannot outlive a harness that crashed.
"""
import argparse
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import ws_protocol  # noqa: F401 -- first: says how to install websockets when it is missing
from backend.handler import Handler
from backend.state import State


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--fixtures", default=str(Path(__file__).resolve().parents[1] / "Fixtures" / "api"))
    parser.add_argument("--until-stdin-closes", action="store_true",
                        help="stop when stdin reaches its end (the process that started us ended)")
    args = parser.parse_args()
    server = Server((args.host, args.port), Handler)
    if args.until_stdin_closes:
        def stop_at_end_of_input():
            sys.stdin.buffer.read()
            server.shutdown()
        threading.Thread(target=stop_at_end_of_input, daemon=True).start()
    server.state = State(Path(args.fixtures))
    host, port = server.server_address[:2]
    print(f"listening on {host}:{port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
