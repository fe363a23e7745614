#!/usr/bin/env python3
"""A hostile origin for the API client's tests: answers that lie about their framing, never end,
or never finish. Standard library only; raw sockets, because the framing must be malformed.

    hostile_api.py --port 0        prints "listening on 127.0.0.1:PORT" once bound

The behaviour is chosen by the first path segments, so a test points the client's base URL at
`http://127.0.0.1:PORT/<behaviour>/` and every endpoint gets it:

    /length/N/...        Content-Length N, then N spaces (streamed; stops when the client leaves)
    /chunked/N/...       chunked, N spaces (N = 0: without end, until the client leaves or 10 min)
    /gzip/N/...          Content-Encoding gzip, chunked: N spaces compressed as they are made
    /trickle/MS/...      Content-Length 1000, then one space every MS ms; closes after 60 s
    /processing/MS/...   "102 Processing" every MS ms, never a final answer; closes after 60 s
    /cl/KIND/...         a valid empty list body of 103 bytes under a bad Content-Length:
                         two (two fields: 42 and 103), list ("42, 103"), plus ("+42"),
                         huge (10^23), good (103, the control)
    /redirect/STATUS/... STATUS (307, 308…) to the same path under /record/
    /record/...          records the request and answers a visitor {"uid":"v1"}
    /repeat/...          the same page of two awemes with has_more 1, whatever the page
    /_requests           the recorded requests as JSON: [{method, path, query, headers, body(base64)}]

Every connection is one exchange (`Connection: close`). Nothing here is for production use.
"""

import argparse
import base64
import json
import socket
import socketserver
import threading
import time
import zlib

RECORDED = []
RECORDED_LOCK = threading.Lock()
GIVE_UP_SECONDS = 60
EMPTY_LIST = b'{"code":0,"data":[]}'


def read_request(sock):
    """The request head (method, target, headers) and body, or None when the client left."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            return None
        data += chunk
        if len(data) > 1 << 20:
            return None
    head, _, rest = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = (lines[0].split(" ") + ["", ""])[:3]
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append([name.strip(), value.strip()])
    lookup = {name.lower(): value for name, value in headers}
    if lookup.get("expect", "").lower() == "100-continue":
        sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
    body = rest
    if "content-length" in lookup:
        length = int(lookup["content-length"])
        while len(body) < length:
            chunk = sock.recv(65536)
            if not chunk:
                break
            body += chunk
    elif lookup.get("transfer-encoding", "").lower() == "chunked":
        body = read_chunked(sock, body)
    return method, target, headers, body


def read_chunked(sock, data):
    body = b""
    while True:
        while b"\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return body
            data += chunk
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        while len(data) < size + 2:
            chunk = sock.recv(65536)
            if not chunk:
                return body + data
            data += chunk
        if size == 0:
            return body
        body += data[:size]
        data = data[size + 2:]


def head(status, reason, fields):
    lines = ["HTTP/1.1 %d %s" % (status, reason)] + ["%s: %s" % field for field in fields] + ["Connection: close", "", ""]
    return "\r\n".join(lines).encode("latin-1")


def send_json(sock, status, payload, extra=()):
    body = json.dumps(payload).encode("utf-8")
    sock.sendall(head(status, "OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))] + list(extra)) + body)


def stream_spaces(sock, total, chunked):
    """Sends `total` spaces (0 with `chunked`: no end), 64 KB at a time, until the client leaves."""
    block = b" " * 65536
    sent = 0
    started = time.monotonic()
    while total == 0 or sent < total:
        if total == 0 and time.monotonic() - started > 600:
            break
        piece = block if total == 0 else block[: min(len(block), total - sent)]
        sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
        sent += len(piece)
    if chunked:
        sock.sendall(b"0\r\n\r\n")


def stream_gzip(sock, total):
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # 31: a gzip wrapper
    block = b" " * (1 << 20)
    made = 0
    while made < total:
        piece = block[: min(len(block), total - made)]
        made += len(piece)
        out = compressor.compress(piece)
        if out:
            sock.sendall(b"%x\r\n%s\r\n" % (len(out), out))
    out = compressor.flush()
    sock.sendall(b"%x\r\n%s\r\n0\r\n\r\n" % (len(out), out))


def framing(sock, kind):
    body = EMPTY_LIST + b" " * (103 - len(EMPTY_LIST))
    fields = {
        "two": [("Content-Length", "42"), ("Content-Length", "103")],
        "list": [("Content-Length", "42, 103")],
        "plus": [("Content-Length", "+42")],
        "huge": [("Content-Length", "100000000000000000000000")],
        "good": [("Content-Length", "103")],
    }[kind]
    sock.sendall(head(200, "OK", [("Content-Type", "application/json")] + fields) + body)


def answer(sock, method, target, headers, body):
    path = target.split("?", 1)[0]
    parts = [part for part in path.split("/") if part]
    kind = parts[0] if parts else ""
    argument = parts[1] if len(parts) > 1 else ""
    if kind == "_requests":
        with RECORDED_LOCK:
            send_json(sock, 200, RECORDED)
        return
    if kind == "length":
        sock.sendall(head(200, "OK", [("Content-Type", "application/json"), ("Content-Length", argument)]))
        stream_spaces(sock, int(argument), chunked=False)
    elif kind == "chunked":
        sock.sendall(head(200, "OK", [("Content-Type", "application/json"), ("Transfer-Encoding", "chunked")]))
        stream_spaces(sock, int(argument), chunked=True)
    elif kind == "gzip":
        sock.sendall(head(200, "OK", [("Content-Type", "application/json"), ("Content-Encoding", "gzip"), ("Transfer-Encoding", "chunked")]))
        stream_gzip(sock, int(argument))
    elif kind == "trickle":
        sock.sendall(head(200, "OK", [("Content-Type", "application/json"), ("Content-Length", "1000")]))
        started = time.monotonic()
        while time.monotonic() - started < GIVE_UP_SECONDS:
            sock.sendall(b" ")
            time.sleep(int(argument) / 1000)
    elif kind == "processing":
        started = time.monotonic()
        while time.monotonic() - started < GIVE_UP_SECONDS:
            sock.sendall(b"HTTP/1.1 102 Processing\r\n\r\n")
            time.sleep(int(argument) / 1000)
    elif kind == "cl":
        framing(sock, argument)
    elif kind == "redirect":
        location = "/record/" + "/".join(parts[2:]) + ("?" + target.split("?", 1)[1] if "?" in target else "")
        sock.sendall(head(int(argument), "Redirect", [("Location", location), ("Content-Length", "0")]))
    elif kind == "record":
        with RECORDED_LOCK:
            query = target.split("?", 1)[1] if "?" in target else ""
            RECORDED.append({"method": method, "path": path, "query": query, "headers": headers, "body": base64.b64encode(body).decode("ascii")})
        send_json(sock, 200, {"code": 0, "data": {"uid": "v1"}})
    elif kind == "repeat":
        send_json(sock, 200, {"code": 0, "data": [{"aweme_id": "1"}, {"aweme_id": "2"}], "has_more": 1})
    else:
        send_json(sock, 404, {"code": 404, "message": "no behaviour " + kind})


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        try:
            request = read_request(self.request)
            if request is not None:
                answer(self.request, *request)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client left, as it should when it refuses an answer


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    server = Server(("127.0.0.1", arguments.port), Handler)
    print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
