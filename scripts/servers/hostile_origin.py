#!/usr/bin/python3
"""A real HTTP server on loopback that misbehaves on purpose, for the image cache's downloader
tests (Tests/DouyinCacheTests/HostileOrigin.swift starts it with /usr/bin/python3): what nginx
will not do. Standard library only. Prints its port once it listens. Paths, N a byte count:
  /close/N            200, no Content-Length, N bytes, then the connection closes
  /close-cut/N        the same head, but closed after N/2 bytes (a truncation no client can see)
  /endless            200, no Content-Length, bytes until the client goes away (paced, see PAUSE)
  /chunked/N          200, Transfer-Encoding: chunked, N bytes in 4 KiB chunks, properly ended
  /chunked-endless    chunks until the client goes away (paced likewise)
  /announce/N         200 with Content-Length: N but only 1000 bytes sent, then it waits
  /gzip-close/N       200, Content-Encoding: gzip, no length, N zero bytes gzipped, then close
Each body byte i is i * 7 mod 256.
"""
import gzip, http.server, socketserver, sys, time

def body(n):
    return bytes((i * 7) % 256 for i in range(n))

BLOCK = body(65536)
# Endless bodies pause after each block (at most ~64 MB/s). Unpaced over loopback the socket
# never drains, and FoundationNetworking, which reads it on the session's work queue, did not
# get to a cancellation queued there for seconds (135 s once, in a loaded TSan run), reading
# and discarding gigabytes meanwhile. No client can stop that; a real link is slower anyway.
PAUSE = 0.001

class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *args):
        pass
    def head(self, extra):
        self.send_response(200)
        for name, value in extra:
            self.send_header(name, value)
        self.end_headers()
    def do_GET(self):
        parts = self.path.strip("/").split("/")
        kind = parts[0]
        n = int(parts[1]) if len(parts) > 1 else 0
        try:
            if kind == "close" or kind == "close-cut":
                self.head([("Connection", "close")])
                self.wfile.write(body(n if kind == "close" else n // 2))
                self.close_connection = True
            elif kind == "endless":
                self.head([("Connection", "close")])
                while True:
                    self.wfile.write(BLOCK)
                    time.sleep(PAUSE)
            elif kind == "chunked":
                self.head([("Transfer-Encoding", "chunked")])
                data = body(n)
                for start in range(0, len(data), 4096):
                    piece = data[start:start + 4096]
                    self.wfile.write(b"%x\r\n" % len(piece) + piece + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            elif kind == "chunked-endless":
                self.head([("Transfer-Encoding", "chunked")])
                while True:
                    self.wfile.write(b"%x\r\n" % len(BLOCK) + BLOCK + b"\r\n")
                    time.sleep(PAUSE)
            elif kind == "announce":
                self.head([("Content-Length", str(n))])
                self.wfile.write(body(1000))
                self.wfile.flush()
                time.sleep(60)
                self.close_connection = True
            elif kind == "gzip-close":
                self.head([("Content-Encoding", "gzip"), ("Connection", "close")])
                self.wfile.write(gzip.compress(bytes(n)))
                self.close_connection = True
            else:
                self.send_error(404)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True

server = Server(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
