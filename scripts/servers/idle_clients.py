#!/usr/bin/env python3
"""Idle clients for the proxy's tests: opens COUNT TCP connections to 127.0.0.1:PORT, sends
nothing on them, and prints `connected COUNT`. Then, for each line `first` on stdin, waits (60 s
at most) for the server to end the first connection and prints `closed` (end of stream or reset)
or `open` (still open after 60 s). Exits when stdin closes.

Why a process of its own: a thousand sockets in the test process itself put it past the number
of descriptors at which swift-corelibs-foundation 6.3's Process.run() can read past the end of
its /proc/self/fd buffer and crash the test process (fixed on that project's main branch in
May 2026; the 6.3 releases still have it).

Usage: idle_clients.py PORT COUNT
"""
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


def main():
    port, count = int(sys.argv[1]), int(sys.argv[2])
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(count)]
    print(f"connected {len(clients)}", flush=True)
    for line in sys.stdin:
        if line.strip() == "first":
            print(first_closed(clients[0]), flush=True)


if __name__ == "__main__":
    main()
