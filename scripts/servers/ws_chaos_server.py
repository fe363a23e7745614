#!/usr/bin/python3
"""A hostile push server for the realtime client's "no message lost, none twice" test (Debian's
python3-websockets through ws_protocol.py, run with /usr/bin/python3; loopback only).

Usage: ws_chaos_server.py --total N [--seed S] [--port P]
Prints `listening on 127.0.0.1:<port>` once listening (P, or one the OS picks for 0, the default). Any WebSocket path pushes GroupChats `c000000`, `c000001`, …
in order up to N. On a schedule drawn from the seed, each connection (but the last) ends after
a few hundred messages (and a ping answered, so the client read them all) in one of five ways: TCP dropped without a close frame; silence with the
socket kept open (no data, no pong: only the client's heartbeat can tell); a close with 1001 or
1011; or a restart (every connection and the listening socket closed, then listening again on
the same port). Every new connection resends from a little before where the last one stopped,
so the client sees duplicates. A plain HTTP GET (the client's gap fill, `groupchat/list`) is
answered with the newest 20 messages the client is known to have read (a pong after them), in
the API's envelope. Stops when stdin closes.
"""
import argparse
import asyncio
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ws_protocol import AsyncPeer, request_of, new_protocol, until_stdin_closes  # noqa: E402,F401

FAULTS = ["drop", "silent", "close1001", "close1011", "restart"]


def chat(index):
    return {"id": f"c{index:06d}", "visitor": None, "msg_type": "text", "msg_content": f"chaos {index}",
            "pic_thumbnail": None, "pic_medium": None, "pic_large": None, "pic_original": None,
            "create_time": 1_600_000_000 + index}


class Chaos:
    def __init__(self, total, seed, port):
        self.total = total
        self.random = random.Random(seed)
        self.sent = 0          # the highest index pushed so far, plus one
        self.acked = 0         # the highest index the client is known to have read, plus one
        self.server = None
        self.port = port
        self.peers = set()
        # Every kind of fault in a seeded order, then again: a short run still meets each.
        self.faults = self.random.sample(FAULTS, len(FAULTS))
        # Faults carried out so far: the next connection gets the next one. Counted when done,
        # not per connection, so a connection the client ends first (a pong late on a loaded
        # machine) does not use up a fault the test expects to see.
        self.faults_done = 0

    async def listen(self):
        self.server = await asyncio.start_server(self.client, "127.0.0.1", self.port, reuse_address=True)
        self.port = self.server.sockets[0].getsockname()[1]

    async def restart(self):
        self.server.close()
        for writer in list(self.peers):
            writer.transport.abort()
        await self.server.wait_closed()
        await asyncio.sleep(0.2)  # refused connections meanwhile: the client backs off
        await self.listen()

    async def client(self, reader, writer):
        self.peers.add(writer)
        try:
            await self.serve(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.TimeoutError):
            writer.transport.abort()
        finally:
            self.peers.discard(writer)

    async def serve(self, reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        if b"upgrade: websocket" not in head.lower():
            body = json.dumps({"code": 0, "message": "success", "total_count": self.sent, "has_more": 0,
                               "data": [chat(i) for i in range(max(0, self.acked - 20), self.acked)][::-1]}).encode()
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                         b"Content-Length: %d\r\n\r\n" % len(body) + body)
            await writer.drain()
            writer.close()
            return
        ws = AsyncPeer(reader, writer)
        request = request_of(ws.protocol, head)
        if request is None:
            writer.transport.abort()
            return
        ws.accept(request)
        # Pings are answered while pushing (the protocol object pongs as it reads).
        reading = asyncio.ensure_future(self.read_forever(ws))
        start = max(0, self.sent - self.random.randint(1, 40))
        last = start + self.random.randint(150, 600)
        fault = self.faults[self.faults_done % len(self.faults)] if last < self.total else None
        index = start
        while index < min(last, self.total):
            ws.send(json.dumps(chat(index)))
            index += 1
            self.sent = max(self.sent, index)
            if index % 50 == 0:
                await writer.drain()
        await writer.drain()
        if fault is None:
            await reading
            return
        # A pong means the client read every message before the ping: what the next connection
        # resends from is then really "a little before where the client stopped", never a gap
        # (a TCP reset discards what the client's kernel held unread).
        reading.cancel()
        # Generous waits (here and for the close below): a guard against a client that never
        # answers, far above what a loaded machine takes.
        await ws.ping(b"ack", 120)
        self.acked = max(self.acked, index)
        self.faults_done += 1
        if fault == "drop":
            writer.transport.abort()
        elif fault == "silent":
            # Keep the socket open, read nothing the protocol would answer: the client's
            # ping goes unanswered until its heartbeat gives up and it disconnects.
            while await reader.read(65536):
                pass
            writer.transport.abort()
        elif fault in ("close1001", "close1011"):
            ws.protocol.send_close(int(fault[-4:]), "chaos")
            ws.flush()
            await asyncio.wait_for(self.read_forever(ws), 120)
            writer.transport.abort()
        else:
            await self.restart()

    async def read_forever(self, ws):
        while not ws.closed:
            await ws.read_once()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--total", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=25)
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args()
    chaos = Chaos(args.total, args.seed, args.port)
    await chaos.listen()
    print(f"listening on 127.0.0.1:{chaos.port}", flush=True)
    await until_stdin_closes()


if __name__ == "__main__":
    asyncio.run(main())
