#!/usr/bin/python3
"""A loopback video origin with ONE token bucket shared by all its connections, for the feed
session tests and `douyinkit-bench session` (Tests/DouyinTestSupport/SessionMedia.swift starts
it). nginx's limit_rate is per connection, so a client that opens four connections would get
four times the link; this origin is a link. Standard library only.

  --root DIR        files served: any path's last segment names a file in DIR, so
                    /i7/clip3-1200.mp4 and /i8/clip3-1200.mp4 are two URLs of one file
  --rate BITS       the link in bits per second (GET /_rate/BITS changes it; 0: unlimited)
  --latency-ms MS   the wait before each response's first byte (40 by default)

GET and HEAD, one `Range: bytes=a-b | a- | -n` (206 + Content-Range) or none (200), 416 past
the end, Accept-Ranges always, Content-Type video/mp4. Bodies go out in 8 KiB slices, each
one reserved on the shared link (first come, first served) and sent when the link would have
carried it. GET /_stats answers JSON {"body_bytes": N, "responses": [[path, first, sent]]};
GET /_reset clears them. Prints `listening on 127.0.0.1:PORT` once bound.
"""
import argparse, http.server, json, os, re, socketserver, threading, time

SLICE = 8192


class Link:
    """One link for every connection: each slice is booked after the previous booking ends."""

    def __init__(self, bits):
        self.lock = threading.Lock()
        self.set_rate(bits)
        self.free_at = 0.0

    def set_rate(self, bits):
        with self.lock:
            self.bytes_per_second = bits / 8.0

    def carry(self, size):
        """Blocks until a slice of `size` bytes would have crossed the link."""
        with self.lock:
            if self.bytes_per_second <= 0:
                return
            now = time.monotonic()
            start = max(now, self.free_at)
            self.free_at = start + size / self.bytes_per_second
            done = self.free_at
        delay = done - time.monotonic()
        if delay > 0:
            time.sleep(delay)


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.clear()

    def clear(self):
        self.body_bytes = 0
        self.responses = []

    def record(self, entry):
        with self.lock:
            self.responses.append(entry)
            return len(self.responses) - 1

    def sent(self, index, count):
        with self.lock:
            self.body_bytes += count
            self.responses[index][2] += count

    def json(self):
        with self.lock:
            return json.dumps({"body_bytes": self.body_bytes, "responses": self.responses}).encode()


RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def small(self, status, body, extra=()):
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def do_GET(self):
        server = self.server
        path = self.path.split("?", 1)[0]
        if path == "/_stats":
            return self.small(200, server.stats.json(), [("Content-Type", "application/json")])
        if path == "/_reset":
            server.stats.clear()
            return self.small(200, b"{}")
        if path.startswith("/_rate/"):
            server.link.set_rate(int(path[len("/_rate/"):]))
            return self.small(200, b"{}")
        name = os.path.basename(path)
        file = os.path.join(server.root, name)
        if not name or name.startswith(".") or not os.path.isfile(file):
            return self.small(404, b"not found")
        length = os.path.getsize(file)
        first, last, status = 0, length - 1, 200
        header = self.headers.get("Range")
        if header:
            match = RANGE.match(header.strip())
            if match and (match.group(1) or match.group(2)):
                if match.group(1):
                    first = int(match.group(1))
                    last = min(length - 1, int(match.group(2))) if match.group(2) else length - 1
                else:
                    first = max(0, length - int(match.group(2)))
                if first >= length:
                    return self.small(416, b"", [("Content-Range", "bytes */%d" % length)])
                status = 206
        time.sleep(server.latency)
        self.send_response(status)
        self.send_header("Content-Type", "video/mp4")
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(last - first + 1))
        if status == 206:
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, length))
        self.end_headers()
        if self.command == "HEAD":
            return
        index = server.stats.record([path, first, 0])
        try:
            with open(file, "rb") as handle:
                handle.seek(first)
                left = last - first + 1
                while left > 0:
                    piece = handle.read(min(SLICE, left))
                    if not piece:
                        break
                    server.link.carry(len(piece))
                    self.wfile.write(piece)
                    server.stats.sent(index, len(piece))
                    left -= len(piece)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A client that hangs up (a cancelled preload, a swipe) is normal here, not news.
        import sys
        if not isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            super().handle_error(request, client_address)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--root", required=True)
    parser.add_argument("--rate", type=int, default=8_000_000)
    parser.add_argument("--latency-ms", type=float, default=40)
    options = parser.parse_args()
    server = Server(("127.0.0.1", options.port), Handler)
    server.root = options.root
    server.link = Link(options.rate)
    server.latency = options.latency_ms / 1000.0
    server.stats = Stats()
    print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
