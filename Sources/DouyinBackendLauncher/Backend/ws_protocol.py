"""The one websockets API every stand-in server here speaks: python3-websockets' sans-I/O
server protocol object. Bytes go in, frames and handshake events come out, and the bytes to
send are asked for; the server only moves bytes, so every frame on the wire is the library's.

Why this API: it is the one both Debian 12's websockets 10.4 and current releases offer with
the same methods (10.x names it ServerConnection, 11+ ServerProtocol); the asyncio server that
10.4 has is the one 14.0 deprecated as "legacy". One object serves a threaded server (the demo
backend) and an asyncio one (the chat tests' server, through `AsyncPeer`) alike.
"""
import asyncio
import os
import sys

try:
    import websockets.server
    from websockets.frames import Opcode
except ImportError:  # said once, clearly, at start-up
    sys.stderr.write(
        "these servers need the websockets package: on Debian `apt-get install python3-websockets`\n"
        "and run them with /usr/bin/python3 (a pyenv python3 does not see Debian's packages); on\n"
        "macOS `pip3 install websockets`.\n")
    sys.exit(3)

ServerProtocol = getattr(websockets.server, "ServerProtocol", None) or websockets.server.ServerConnection


async def until_stdin_closes():
    """Returns once stdin reaches its end: the test process that started the server holds that
    pipe, so the server stops when the test process does, even one that crashed."""
    loop = asyncio.get_running_loop()
    closed = loop.create_future()
    fd = sys.stdin.fileno()
    loop.add_reader(fd, lambda: closed.done() or os.read(fd, 1024) or closed.set_result(None))
    await closed
    loop.remove_reader(fd)


def new_protocol(max_size=2**20):
    """A server protocol object: no extensions (no compression), messages up to `max_size`
    bytes (None: any)."""
    return ServerProtocol(max_size=max_size)


def request_of(protocol, head):
    """Feeds an HTTP request head (bytes) and returns the parsed handshake request, or None
    when it is not one."""
    try:
        protocol.receive_data(head)
    except Exception:
        return None
    events = protocol.events_received()
    return events[0] if events else None


class AsyncPeer:
    """One WebSocket connection over asyncio streams, driven through the protocol object."""

    def __init__(self, reader, writer, max_size=None):
        self.reader, self.writer = reader, writer
        self.protocol = new_protocol(max_size)
        self.pending = []   # frames read but not yet handed out
        self.pongs = []     # payloads of pongs received
        self.closed = False

    async def handshake(self):
        """The client's handshake request, or None (the connection is then closed)."""
        try:
            head = await self.reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            self.abort()
            return None
        request = request_of(self.protocol, head)
        if request is None:
            self.abort()
        return request

    def accept(self, request):
        self.protocol.send_response(self.protocol.accept(request))
        self.flush()

    def reject(self, status, text):
        self.protocol.send_response(self.protocol.reject(status, text))
        self.flush()

    def flush(self):
        for chunk in self.protocol.data_to_send():
            if chunk:
                self.writer.write(chunk)
            elif self.writer.can_write_eof():  # the protocol's end of stream: half-close
                self.writer.write_eof()

    async def read_once(self):
        """Reads what the network has and feeds it to the protocol (which answers pings and the
        close); keeps data frames in `pending` and pong payloads in `pongs`."""
        data = await self.reader.read(65536)
        if data:
            self.protocol.receive_data(data)
        else:
            self.protocol.receive_eof()
            self.closed = True
        self.flush()
        for frame in self.protocol.events_received():
            if frame.opcode == Opcode.PONG:
                self.pongs.append(frame.data)
            elif frame.opcode == Opcode.CLOSE:
                self.closed = True
            elif frame.opcode != Opcode.PING:
                self.pending.append(frame)

    async def read_frame(self):
        """The next data frame, or None at the end."""
        while not self.pending:
            if self.closed:
                return None
            await self.read_once()
        return self.pending.pop(0)

    async def recv(self):
        """The next whole message (str for text, bytes for binary), or None once closed."""
        frame = await self.read_frame()
        if frame is None:
            return None
        kind, parts = frame.opcode, [frame.data]
        while not frame.fin:
            frame = await self.read_frame()
            if frame is None:
                return None
            parts.append(frame.data)
        data = b"".join(parts)
        return data.decode("utf-8") if kind == Opcode.TEXT else data

    async def wait_closed(self):
        """Reads (answering pings and the close) until the client closes."""
        while await self.read_frame() is not None:
            pass
        self.writer.close()

    def send(self, message):
        """One text (str) or binary (bytes) message."""
        if isinstance(message, str):
            self.protocol.send_text(message.encode("utf-8"))
        else:
            self.protocol.send_binary(message)
        self.flush()

    def send_fragments(self, pieces):
        """One text message sent as one frame per piece."""
        for index, piece in enumerate(pieces):
            last = index == len(pieces) - 1
            if index == 0:
                self.protocol.send_text(piece.encode("utf-8"), fin=last)
            else:
                self.protocol.send_continuation(piece.encode("utf-8"), fin=last)
        self.flush()

    async def ping(self, payload, timeout):
        """Sends a ping and returns once its pong came back (asyncio.TimeoutError otherwise)."""
        self.protocol.send_ping(payload)
        self.flush()

        async def pong():
            while payload not in self.pongs:
                if self.closed:
                    raise ConnectionError("closed before the pong")
                await self.read_once()
        await asyncio.wait_for(pong(), timeout)

    async def close(self, code, reason):
        """Starts the closing handshake and waits for the client's answer."""
        self.protocol.send_close(code, reason)
        self.flush()
        await self.wait_closed()

    def abort(self):
        """Drops the TCP connection without a closing handshake."""
        self.writer.transport.abort()
