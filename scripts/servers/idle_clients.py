#!/usr/bin/env python3
"""Idle clients for the proxy's tests and benchmarks: opens COUNT TCP connections to
127.0.0.1:PORT and prints `connected COUNT`. Without PATH they send nothing (silent
connections); with PATH each first sends one keep-alive `GET PATH` for `bytes=0-999` and reads
its whole answer (which must be a 206 of 1,000 bytes), so they wait idle between requests.
Then, for each line `first` on stdin, waits (60 s at most) for the server to end the first
connection and prints `closed` (end of stream or reset) or `open` (still open after 60 s);
for each line `count-open`, prints `open N`: how many connections the server has not ended
(polled without blocking). Exits when stdin closes.

Why a process of its own: a thousand sockets in the test process itself put it past the number
of descriptors at which swift-corelibs-foundation 6.3's Process.run() can read past the end of
its /proc/self/fd buffer and crash the test process (fixed on that project's main branch in
May 2026; the 6.3 releases still have it).

Usage: idle_clients.py PORT COUNT [PATH]
"""
import select
import socket
import sys


def first_closed(client):
    client.settimeout(60)
    try:
        while client.recv(65536):
            pass
        return "closed"
    except ConnectionResetError:
        return "closed"
    except socket.timeout:
        return "open"


def still_open(clients):
    """Connections the server has not ended: not readable, or readable with data (no EOF)."""
    count = 0
    for client in clients:
        readable, _, _ = select.select([client], [], [], 0)
        if not readable:
            count += 1
            continue
        try:
            if client.recv(65536, socket.MSG_PEEK):
                count += 1
        except OSError:
            pass
    return count


def one_request(client, port, path):
    client.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nRange: bytes=0-999\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = client.recv(65536)
        if not chunk:
            raise SystemExit("the server closed a connection before answering")
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    if not lines[0].startswith("HTTP/1.1 206"):
        raise SystemExit(f"unexpected answer: {lines[0]}")
    length = next(int(line.split(":", 1)[1]) for line in lines[1:] if line.lower().startswith("content-length:"))
    while len(body) < length:
        chunk = client.recv(65536)
        if not chunk:
            raise SystemExit("the server closed a connection mid-body")
        body += chunk
    if len(body) != 1000:
        raise SystemExit(f"unexpected body length {len(body)}")


def main():
    port, count = int(sys.argv[1]), int(sys.argv[2])
    path = sys.argv[3] if len(sys.argv) > 3 else None
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
    if path is not None:
        for client in clients:
            one_request(client, port, path)
    print(f"connected {len(clients)}", flush=True)
    for line in sys.stdin:
        if line.strip() == "first":
            print(first_closed(clients[0]), flush=True)
        elif line.strip() == "count-open":
            print(f"open {still_open(clients)}", flush=True)


if __name__ == "__main__":
    main()
