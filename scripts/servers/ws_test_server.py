#!/usr/bin/python3
"""WebSocket test server for DouyinChat's tests and the `chat listen` tool tests (Debian's
python3-websockets, run with /usr/bin/python3).

Listens on two loopback ports and prints `PORTS <ws> <raw>` once ready:
- <ws>: WebSocket frames from python3-websockets' protocol object (ws_protocol.py, the one
  websockets API of these servers); the path picks a behaviour (see `behave`);
- <raw>: a hand-written server on plain sockets that breaks the protocol on purpose, and
  answers `GET /lastclose?path=P` with the close code the client sent after P's violation
  (waiting up to PATIENCE for it), and `GET /lastdrop?path=P` with who closed the TCP
  connection after that close frame: the server never answers it nor closes, so a client that
  fails the connection as RFC 6455 §7.1.7 says drops it itself (`client`); `server` when the
  client still held it after PATIENCE. `/raw/closewait` answers a client's normal close and
  holds TCP until `GET /release?path=/raw/closewait`; /lastdrop then says `server` when the
  client waited for that (§7.1.1).
Stops when stdin closes (the test process ended) or on SIGTERM.
"""
import asyncio
import base64
import hashlib
import http
import json
import struct
import zlib
from urllib.parse import urlparse, parse_qs

from ws_protocol import AsyncPeer, until_stdin_closes

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
CLOSES = {}        # raw path -> close code the client sent
CLOSE_EVENTS = {}  # raw path -> asyncio.Event
DROPS = {}         # raw path -> "client" | "server": who ended the TCP connection after the close frame
DROP_EVENTS = {}   # raw path -> asyncio.Event
RELEASES = {}      # raw path -> asyncio.Event: GET /release?path=P lets /raw/closewait close
# Seconds the server waits for a client's pong or close frame (and /lastclose for it) before it
# reports none: a guard against a client that never answers, far above what a loaded machine
# takes (a whole-suite test run on two cores has stood still for 80 s; 5 s waits were here).
PATIENCE = 120
PUSH_COUNTS = {}   # /count?name=N -> connections so far


def query(path):
    parsed = urlparse(path)
    return parsed.path, {k: v[0] for k, v in parse_qs(parsed.query).items()}


def groupchat(ident, text, created):
    return json.dumps({"id": ident, "visitor": None, "msg_type": "text", "msg_content": text,
                       "pic_thumbnail": None, "pic_medium": None, "pic_large": None,
                       "pic_original": None, "create_time": created}, ensure_ascii=False)


HOSTILE = [
    ("h1\r\nforged 0 text fake", "text\x1b[2J", "a\x07b\x1b]0;title\x07\r\nv0 text forged line"),
    ("h2\x9b31m", "image\u2028x", "back\\slash\ttab\x7f\x00end"),
]


async def behave(ws, route, args, request):
    if route == "/echo":
        while (message := await ws.recv()) is not None:
            ws.send(message)
    elif route == "/headers":
        ws.send(request.headers.get("udid", ""))
        await ws.wait_closed()
    elif route == "/big":
        size = int(args.get("size", 1 << 20))
        ws.send("x" * size)
        await ws.wait_closed()
    elif route == "/fragmented":
        size, piece = int(args.get("size", 100000)), int(args.get("piece", 1000))
        text = "".join(chr(0x4E00 + (i % 500)) for i in range(size))
        ws.send_fragments([text[i:i + piece] for i in range(0, len(text), piece)])
        await ws.wait_closed()
    elif route == "/ping":
        await ws.ping(b"srv1", PATIENCE)
        ws.send("pong-ok")
        await ws.wait_closed()
    elif route == "/close":
        await ws.close(int(args.get("code", 1000)), args.get("reason", ""))
    elif route == "/drop":
        ws.send("before-drop")
        await asyncio.sleep(0.05)
        ws.abort()
    elif route == "/push":
        # Pushes `count` GroupChats with ids `<prefix><n>`, then stays open; a connection
        # counter per name lets a test see reconnections. With `grow=1` each later connection
        # of the name pushes one more (the k-th pushes count + k - 1), so a client that
        # reconnects after a drop sees a message only a reconnection can bring.
        name = args.get("name", "default")
        PUSH_COUNTS[name] = PUSH_COUNTS.get(name, 0) + 1
        extra = PUSH_COUNTS[name] - 1 if args.get("grow") == "1" else 0
        for n in range(int(args.get("count", 3)) + extra):
            ws.send(groupchat(f"{args.get('prefix', 'm')}{n}", f"message {n} [微笑]", 1_600_000_000 + n))
        if args.get("then") == "drop":
            await asyncio.sleep(0.05)
            ws.abort()
            return
        await ws.wait_closed()
    elif route == "/hostile":
        # GroupChats whose id, msg_type and content hold line breaks and terminal controls
        # (forged lines, ESC sequences, BEL, a C1 CSI, U+2028), then a close with code 1008 and
        # a reason holding the same: `chat listen` must print each on its own escaped line.
        for ident, kind, text in HOSTILE:
            ws.send(json.dumps({"id": ident, "visitor": None, "msg_type": kind, "msg_content": text,
                                "create_time": 1_600_000_000}))
        await ws.close(1008, "bye\r\nstate=open\x1b[0m\x07")
    elif route == "/nopong":
        # Never answers pings: read nothing at all.
        await asyncio.sleep(3600)
    else:
        await ws.close(1008, "unknown path")


async def ws_client(reader, writer):
    """One connection to the WebSocket port: the handshake, then the path's behaviour."""
    ws = AsyncPeer(reader, writer, max_size=None)
    try:
        request = await ws.handshake()
        if request is None:
            return
        route, args = query(request.path)
        if route == "/reject":
            ws.reject(http.HTTPStatus(int(args.get("status", 403))), "no\n")
            writer.close()
            return
        ws.accept(request)
        await behave(ws, route, args, request)
    except (ConnectionError, asyncio.TimeoutError):
        ws.abort()


def accept(key):
    return base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()


def frame(opcode, payload, fin=True, rsv=0, mask=None, length_override=None):
    first = (0x80 if fin else 0) | (rsv << 4) | opcode
    n = len(payload) if length_override is None else length_override
    mask_bit = 0x80 if mask else 0
    if length_override == "nonminimal16":
        head = bytes([first, mask_bit | 126]) + struct.pack("!H", len(payload))
    elif length_override == "msb64":
        head = bytes([first, mask_bit | 127]) + struct.pack("!Q", (1 << 63) | len(payload))
    elif isinstance(n, int) and n < 126:
        head = bytes([first, mask_bit | n])
    elif isinstance(n, int) and n < 65536:
        head = bytes([first, mask_bit | 126]) + struct.pack("!H", n)
    else:
        head = bytes([first, mask_bit | 127]) + struct.pack("!Q", n)
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        head += mask
    return head + payload


VIOLATIONS = {
    "/raw/masked": lambda: frame(1, b"hello", mask=b"\x01\x02\x03\x04"),
    "/raw/rsv": lambda: frame(1, b"hello", rsv=4),
    "/raw/opcode": lambda: frame(3, b"x"),
    "/raw/badcont": lambda: frame(0, b"orphan"),
    "/raw/interleaved": lambda: frame(1, b"part", fin=False) + frame(1, b"again"),
    "/raw/ctrlfrag": lambda: frame(9, b"p", fin=False),
    "/raw/longping": lambda: frame(9, b"p" * 126),
    "/raw/nonminimal": lambda: frame(1, b"short", length_override="nonminimal16"),
    "/raw/msb64": lambda: frame(1, b"", length_override="msb64"),
    "/raw/toobig": lambda: frame(2, b"", length_override=1 << 30),
    "/raw/badutf8": lambda: frame(1, b"ok \xff\xfe"),
    "/raw/badutf8frag": lambda: frame(1, "中".encode()[:2], fin=False) + frame(0, b"\x00"),
    "/raw/badclosecode": lambda: frame(8, struct.pack("!H", 1005)),
    "/raw/closeonebyte": lambda: frame(8, b"\x03"),
}


def answer(status="HTTP/1.1 101 Switching Protocols", upgrade="Upgrade: websocket",
           connection="Connection: Upgrade", accept_line="Sec-WebSocket-Accept: {accept}", extra=""):
    lines = [status, upgrade, connection, accept_line] + ([extra] if extra else [])
    return lambda good: "\r\n".join(line for line in lines if line).format(accept=good) + "\r\n\r\n"


# /raw/answer?case=NAME: each breaks one rule of the opening handshake's answer, except `good`
# and `mixedcase`, which a client must accept.
ANSWERS = {
    "good": answer(),
    "mixedcase": answer(upgrade="uPgRaDe: WebSocket", connection="CONNECTION: keep-alive, UPGRADE",
                        accept_line="sec-websocket-accept: {accept}"),
    "protocol": answer(extra="Sec-WebSocket-Protocol: chat"),
    "emptyprotocol": answer(extra="Sec-WebSocket-Protocol: "),
    "protocollist": answer(extra="Sec-WebSocket-Protocol: chat, superchat"),
    "extension": answer(extra="Sec-WebSocket-Extensions: x-webkit-deflate-frame"),
    "deflate": answer(extra="Sec-WebSocket-Extensions: permessage-deflate"),
    "deflatebits": answer(extra="Sec-WebSocket-Extensions: permessage-deflate; server_max_window_bits=16"),
    "deflateunknown": answer(extra="Sec-WebSocket-Extensions: permessage-deflate; x_param"),
    "deflatetwice": answer(extra="Sec-WebSocket-Extensions: permessage-deflate, permessage-deflate"),
    "deflaterepeat": answer(extra="Sec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; server_no_context_takeover"),
    "emptyextension": answer(extra="Sec-WebSocket-Extensions: "),
    "status200": answer(status="HTTP/1.1 200 OK"),
    "statusplus": answer(status="HTTP/1.1 +101 Switching Protocols"),
    "noupgrade": answer(upgrade=""),
    "upgradeother": answer(upgrade="Upgrade: h2c"),
    "upgradelist": answer(upgrade="Upgrade: websocket, h2c"),
    "noconnection": answer(connection=""),
    "connectionother": answer(connection="Connection: keep-alive"),
    "connectionsubstring": answer(connection="Connection: upgraded"),
    "noaccept": answer(accept_line=""),
    "acceptcase": lambda good: answer(accept_line="Sec-WebSocket-Accept: " + good.swapcase())(good),
    "accepttwice": answer(extra="Sec-WebSocket-Accept: {accept}"),
    "spacebeforecolon": answer(extra="Sec-WebSocket-Protocol : chat"),
    "barelf": answer(extra="X-Note: a\nSec-WebSocket-Protocol: chat"),
    "folded": answer(extra="X-Note: a\r\n Sec-WebSocket-Protocol: chat"),
}


async def read_client_frame(reader):
    head = await reader.readexactly(2)
    n = head[1] & 0x7F
    if n == 126:
        n = struct.unpack("!H", await reader.readexactly(2))[0]
    elif n == 127:
        n = struct.unpack("!Q", await reader.readexactly(8))[0]
    mask = await reader.readexactly(4) if head[1] & 0x80 else b"\0\0\0\0"
    payload = bytes(b ^ mask[i % 4] for i, b in enumerate(await reader.readexactly(n)))
    return head[0] & 0x0F, bool(head[1] & 0x80), payload


async def answer_question(writer, route, target):
    """Answers `GET /lastclose`, `/lastdrop` (once known, or `none` after the wait) or
    `/release` about the raw path `target`, as a plain-text HTTP body."""
    if route == "/release":
        RELEASES.setdefault(target, asyncio.Event()).set()
        body = b""
    else:
        # A drop is known up to PATIENCE after the close frame, itself up to PATIENCE late.
        events, values, wait = (CLOSE_EVENTS, CLOSES, PATIENCE) if route == "/lastclose" else (DROP_EVENTS, DROPS, 2 * PATIENCE)
        try:
            await asyncio.wait_for(events.setdefault(target, asyncio.Event()).wait(), wait)
            body = str(values[target]).encode()
        except asyncio.TimeoutError:
            body = b"none"
    writer.write(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(body) + body)
    await writer.drain()


async def record_close(reader, route):
    """Reads the client's next frame, which should be its close: records its code for
    /lastclose (minus the opcode when it was another frame) and returns its payload."""
    opcode, _, payload = await asyncio.wait_for(read_client_frame(reader), PATIENCE)
    CLOSES[route] = struct.unpack("!H", payload[:2])[0] if opcode == 8 and len(payload) >= 2 else -opcode
    CLOSE_EVENTS.setdefault(route, asyncio.Event()).set()
    return payload


async def client_drops(reader):
    """`client` once the client ends the connection (an end of stream or a reset), reading and
    discarding what it still sends; `server` when it still holds it after PATIENCE."""
    try:
        async with asyncio.timeout(PATIENCE):
            while await reader.read(65536):
                pass
    except ConnectionError:
        pass
    except TimeoutError:
        return "server"
    return "client"


async def raw_client(reader, writer):
    try:
        request = await reader.readuntil(b"\r\n\r\n")
        line = request.split(b"\r\n", 1)[0].decode()
        path = line.split(" ")[1]
        route, args = query(path)
        headers = {}
        for h in request.decode().split("\r\n")[1:]:
            if ":" in h:
                k, v = h.split(":", 1)
                headers[k.strip().lower()] = v.strip()
        if route in ("/lastclose", "/lastdrop", "/release"):
            await answer_question(writer, route, args["path"])
            return
        if route == "/raw/silent":
            await asyncio.sleep(3600)
            return
        if route == "/raw/nopong":
            # A proper handshake, then nothing is read or answered (pings get no pong).
            writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Accept: {accept(headers.get('sec-websocket-key', ''))}\r\n\r\n").encode())
            await writer.drain()
            await asyncio.sleep(3600)
            return
        if route == "/raw/answer":
            # A 101 answer broken in one way (RFC 6455 §4.1), then a GroupChat the client must
            # never deliver, then silence.
            key = headers.get("sec-websocket-key", "")
            writer.write(ANSWERS[args["case"]](accept(key)).encode("latin-1"))
            writer.write(frame(1, groupchat("attacker-1", "from a server that broke the handshake", 1_600_000_000).encode()))
            await writer.drain()
            await asyncio.sleep(3600)
            return
        if route == "/raw/refuse-hostile":
            # A refusal whose reason phrase holds ESC, BEL and a C1 CSI (latin-1 on the wire).
            writer.write(b"HTTP/1.1 403 Forbidden\x1b[2J\x07\x9b31m\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
            return
        key = headers.get("sec-websocket-key", "")
        good = accept(key)
        if route == "/raw/badaccept":
            good = accept("wrong" + key)
        if route == "/raw/checkmask":
            # Answers with what it saw: every client frame must be masked.
            pass
        if route == "/raw/checkdeflate":
            # Accepts permessage-deflate with `answer` as its parameters, reads one client frame
            # and answers (uncompressed) with what it saw: RSV1, the wire length, and the
            # inflated payload's SHA-1.
            params = args.get("answer", "")
            writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Accept: {good}\r\nSec-WebSocket-Extensions: permessage-deflate{params}\r\n"
                          f"X-Offer: {headers.get('sec-websocket-extensions', '')}\r\n\r\n").encode())
            await writer.drain()
            head = await reader.readexactly(2)
            n = head[1] & 0x7F
            if n == 126:
                n = struct.unpack("!H", await reader.readexactly(2))[0]
            elif n == 127:
                n = struct.unpack("!Q", await reader.readexactly(8))[0]
            mask = await reader.readexactly(4)
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(await reader.readexactly(n)))
            rsv1 = bool(head[0] & 0x40)
            data = zlib.decompressobj(-15).decompress(payload + b"\x00\x00\xff\xff") if rsv1 else payload
            reply = f"rsv1={int(rsv1)} wire={n} sha1={hashlib.sha1(data).hexdigest()} offer={headers.get('sec-websocket-extensions', '')}"
            writer.write(frame(1, reply.encode()))
            await writer.drain()
            await asyncio.sleep(3600)
            return
        if route in ("/raw/bomb", "/raw/deflated"):
            # permessage-deflate accepted, then one compressed text message (RSV1): `/raw/bomb`
            # inflates to `mib` MiB of "a" (deflate's ratio caps near 1:1000, so 1 GiB is a
            # ~1 MiB frame); `/raw/deflated` is "hello " × `count`, twice, with context
            # takeover (the second message refers back into the first).
            writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          f"Sec-WebSocket-Accept: {good}\r\nSec-WebSocket-Extensions: permessage-deflate\r\n\r\n").encode())
            compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
            if route == "/raw/bomb":
                block = b"a" * (1 << 20)
                mib = int(args.get("mib", 1024))
                # Seconds of CPU: off the event loop, so the other routes keep answering.
                body = await asyncio.get_running_loop().run_in_executor(
                    None, lambda: b"".join(compressor.compress(block) for _ in range(mib)) + compressor.flush(zlib.Z_SYNC_FLUSH))
                messages = [body]
            else:
                text = b"hello " * int(args.get("count", 1000))
                messages = [compressor.compress(text) + compressor.flush(zlib.Z_SYNC_FLUSH) for _ in range(2)]
            for message in messages:
                assert message.endswith(b"\x00\x00\xff\xff")
                writer.write(frame(1, message[:-4], rsv=4))
            await writer.drain()
            await record_close(reader, route)
            return
        writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Accept: {good}\r\n\r\n").encode())
        await writer.drain()
        if route == "/raw/checkmask":
            opcode, masked, payload = await read_client_frame(reader)
            reply = f"opcode={opcode} masked={masked} length={len(payload)} sha1={hashlib.sha1(payload).hexdigest()}"
            writer.write(frame(1, reply.encode()))
            await writer.drain()
            await asyncio.sleep(3600)
            return
        if route == "/raw/closewait":
            # A normal closing handshake the client starts: its close frame is answered with
            # ours, then the TCP connection is held until the test releases it. /lastdrop says
            # who ended it: `server` when the client waited for our close (RFC 6455 §7.1.1).
            payload = await record_close(reader, route)
            writer.write(frame(8, payload[:2]))
            await writer.drain()
            dropped = asyncio.ensure_future(reader.read(1))
            released = asyncio.ensure_future(RELEASES.setdefault(route, asyncio.Event()).wait())
            done, pending = await asyncio.wait({dropped, released}, timeout=PATIENCE, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            DROPS[route] = "client" if dropped in done else "server"
            DROP_EVENTS.setdefault(route, asyncio.Event()).set()
            return
        if route == "/raw/lengths":
            # One message each of 125, 126, 65535, 65536 bytes: every length form.
            for n in (0, 125, 126, 65535, 65536, 70000):
                writer.write(frame(2, bytes([n % 251]) * n))
            await writer.drain()
            await asyncio.sleep(3600)
            return
        if route in VIOLATIONS:
            writer.write(VIOLATIONS[route]())
            await writer.drain()
            await record_close(reader, route)
            # No close frame back and no close of ours: the client failed the connection, so
            # it closes TCP itself, at once (§7.1.7), not after a wait for our close.
            DROPS[route] = await client_drops(reader)
            DROP_EVENTS.setdefault(route, asyncio.Event()).set()
            return
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.TimeoutError):
        pass
    finally:
        writer.close()


async def main():
    ws_server = await asyncio.start_server(ws_client, "127.0.0.1", 0)
    raw_server = await asyncio.start_server(raw_client, "127.0.0.1", 0)
    ws_port = ws_server.sockets[0].getsockname()[1]
    raw_port = raw_server.sockets[0].getsockname()[1]
    print(f"PORTS {ws_port} {raw_port}", flush=True)
    await until_stdin_closes()


if __name__ == "__main__":
    asyncio.run(main())
