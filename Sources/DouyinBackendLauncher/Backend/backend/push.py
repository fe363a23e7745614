"""The WebSocket side: ws://HOST:PORT/douyin/groupchat on the HTTP port. A client connects with
a `udid` header and the server only pushes; frames come from python3-websockets' protocol
object (ws_protocol.py), so they are the library's, not ours."""
import socket
import threading
import time
from urllib.parse import parse_qs, urlsplit

from backend.state import BAD_PARAMETER
from ws_protocol import new_protocol, request_of


def upgrade(handler, state):
    """Upgrades the handler's connection and keeps it until the client leaves."""
    split = urlsplit(handler.path)
    udid = handler.headers.get("udid") or parse_qs(split.query).get("udid", [""])[0]
    with state.lock:
        state.record(handler.command, split.path, split.query, handler.headers, "")
    if not udid:
        handler.close_connection = True
        return handler.reply(400, {"code": BAD_PARAMETER, "message": "missing header udid", "data": None},
                             headers={"Connection": "close"})
    # http.server has read the request already; hand its bytes to the protocol object, whose
    # parser starts by reading the handshake request and goes on to frames.
    head = f"GET {handler.path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in handler.headers.items()) + "\r\n"
    connection = new_protocol()
    response = connection.accept(request_of(connection, head.encode("latin-1")))
    connection.send_response(response)
    sock = handler.connection
    send_lock = threading.Lock()
    entry = (connection, sock, send_lock)
    handler.close_connection = True
    try:
        with send_lock:
            # Listed before the 101 goes out: a client that sees its connection open may post
            # at once, and a broadcast that had not listed it yet skipped it (seen: the demo
            # waited for ever for the push of its own post). A broadcast meanwhile waits for
            # send_lock, so its frame still follows the 101.
            if response.status_code == 101:
                with state.lock:
                    state.sockets.append(entry)
            for chunk in connection.data_to_send():
                sock.sendall(chunk)
        if response.status_code == 101:
            with state.lock:
                pause = state.upgrade_pause
            if pause > 0:
                time.sleep(pause)
            relay(handler, connection, sock, send_lock)
    except OSError:
        pass
    finally:
        with state.lock:
            if entry in state.sockets:
                state.sockets.remove(entry)
    return None


def relay(handler, connection, sock, send_lock):
    """Feeds what the client sends to the protocol object (which answers pings and the close)
    until the client's end of stream or the closing handshake."""
    while True:
        # rfile, not the socket: its buffer may already hold bytes sent after the handshake.
        data = handler.rfile.read1(65536)
        finished = False
        with send_lock:
            if data:
                connection.receive_data(data)
            else:
                connection.receive_eof()
            connection.events_received()
            for chunk in connection.data_to_send():
                if chunk:
                    sock.sendall(chunk)
                else:  # the protocol's end-of-stream marker: half-close
                    sock.shutdown(socket.SHUT_WR)
                    finished = True
        if not data or finished:
            return


def broadcast(state, text):
    """Sends `text` as one text frame to every WebSocket client; returns how many got it."""
    with state.lock:
        clients = list(state.sockets)
    sent = 0
    for connection, sock, send_lock in clients:
        with send_lock:
            try:
                connection.send_text(text.encode("utf-8"))
                for chunk in connection.data_to_send():
                    sock.sendall(chunk)
                sent += 1
            except Exception:  # a client that left meanwhile; its reader thread removes it
                pass
    return sent


def disconnect_all(state):
    """Closes every WebSocket connection from the server side (code 1001); returns how many."""
    with state.lock:
        clients = list(state.sockets)
    for connection, sock, send_lock in clients:
        with send_lock:
            try:
                connection.send_close(1001, "server going away")
                for chunk in connection.data_to_send():
                    sock.sendall(chunk)
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
    return len(clients)
