#!/usr/bin/python3
"""A loopback origin that makes its clients wait, for the transport's CPU measurements
(`douyinkit-bench transport`): a transfer that waits should cost its client no CPU.

  /trickle/<anything>   200 (or 206 for a `Range: bytes=a-b`) whose body is a JSON envelope
                        padded with spaces to 1,000,000 bytes (so `api`, `cache get` and
                        `video get` all accept it), sent 1,024 bytes every 0.5 s
  /hold/<S>/<anything>  reads the request, sends nothing for S seconds, then a small JSON answer
  /_stats               {"connections": N, "trickled": bytes} as JSON

Prints `listening on 127.0.0.1:PORT` once bound. Standard library only; not for production.
"""
import argparse, json, re, socket, socketserver, threading, time

LENGTH = 1_000_000
PREFIX = b'{"code":0,"message":"","data":{"uid":"slow"}}'
STATS = {"connections": 0, "trickled": 0}
LOCK = threading.Lock()


def body_byte(i):
    return PREFIX[i] if i < len(PREFIX) else 0x20


class Handler(socketserver.BaseRequestHandler):
    def handle(self):
        with LOCK:
            STATS["connections"] += 1
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = self.request.recv(65536)
            if not chunk:
                return
            data += chunk
        head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1")
        path = head.split(" ")[1]
        if path.startswith("/_stats"):
            body = json.dumps(STATS).encode()
            self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
            return
        hold = re.match(r"/hold/([0-9.]+)/", path)
        if hold:
            time.sleep(float(hold.group(1)))
            self.request.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n"
                                 % len(PREFIX) + PREFIX)
            return
        first, last = 0, LENGTH - 1
        status = b"200 OK"
        extra = b""
        wanted = re.search(r"(?im)^range:\s*bytes=(\d+)-(\d*)\s*$", head)
        if wanted:
            first = int(wanted.group(1))
            last = min(LENGTH - 1, int(wanted.group(2))) if wanted.group(2) else LENGTH - 1
            status = b"206 Partial Content"
            extra = b"Content-Range: bytes %d-%d/%d\r\n" % (first, last, LENGTH)
        self.request.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: application/json\r\nAccept-Ranges: bytes\r\n" + extra
                             + b"Content-Length: %d\r\nConnection: close\r\n\r\n" % (last - first + 1))
        offset = first
        try:
            while offset <= last:
                step = min(1024, last + 1 - offset)
                self.request.sendall(bytes(body_byte(i) for i in range(offset, offset + step)))
                offset += step
                with LOCK:
                    STATS["trickled"] += step
                time.sleep(0.5)
        except OSError:
            return


class Server(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    server = Server(("127.0.0.1", args.port), Handler)
    print("listening on 127.0.0.1:%d" % server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
