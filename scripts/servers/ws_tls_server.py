#!/usr/bin/python3
"""wss:// test server: ws_test_server.py's WebSocket behaviours (echo, push, close …) behind
TLS (Python's ssl over Debian's python3-websockets), one loopback port per certificate.

Usage: ws_tls_server.py --dir D --log F NAME...
Serves D/NAME.pem + D/NAME.key on a port of its own for each NAME (made by ws_tls_certs.sh),
prints `PORTS <p1> <p2> …` in the order of the names once ready, and appends `NAME PATH` to F
for every connection whose TLS handshake completed and whose request arrived (so a test sees
that a client that refused the certificate sent no HTTP request). Stops when stdin closes.
"""
import argparse
import asyncio
import os
import ssl
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ws_test_server  # noqa: E402  (the behaviours, shared with the plain server)
from ws_protocol import until_stdin_closes  # noqa: E402


def handler(name, log):
    async def serve(reader, writer):
        # Peek at the request line without consuming it: the shared handler reads it again.
        line = await reader.readline()
        with open(log, "a") as out:
            out.write(f"{name} {line.decode(errors='replace').split(' ')[1] if line else '-'}\n")
        reader._buffer[:0] = line  # put it back for the handshake parser
        await ws_test_server.ws_client(reader, writer)
    return serve


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("names", nargs="+")
    args = parser.parse_args()
    ports = []
    for name in args.names:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(os.path.join(args.dir, f"{name}.pem"), os.path.join(args.dir, f"{name}.key"))
        server = await asyncio.start_server(handler(name, args.log), "127.0.0.1", 0, ssl=context)
        ports.append(server.sockets[0].getsockname()[1])
    print("PORTS " + " ".join(map(str, ports)), flush=True)
    await until_stdin_closes()


if __name__ == "__main__":
    asyncio.run(main())
