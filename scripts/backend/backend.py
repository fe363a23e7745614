#!/usr/bin/env python3
"""A local stand-in of the demo app's backend, for DouyinKit's tests, demo and benchmark.

Serves every endpoint of DESIGN.md's table under /douyin/ from Fixtures/api, with state:
posted comments and chat messages appear at the head of their lists, deletes remove them, and
each new chat message is pushed as a JSON text frame to every WebSocket client of
ws://HOST:PORT/douyin/groupchat (header `udid`). HTTP and WebSocket share one port: the HTTP
side is the standard library's threading server, the WebSocket framing is python3-websockets'
sans-I/O protocol object (so the frames are the library's, not ours).

Switches and the request record for tests live under /_debug/ (never recorded themselves):
  GET    /_debug/requests          every request so far: method, path, query, headers, body (base64)
  DELETE /_debug/requests          forgets them
  GET    /_debug/wait?count=N      returns once N requests are recorded (timeout=S, default 30 s, then 408)
  POST   /_debug/enqueue           JSON {count, status?, headers?, content_type?, body?, stall?, path?}:
                                   the next `count` requests (whose path starts with `path`, if
                                   given) first stall `stall` seconds, then get this canned answer
                                   (or, without `status`, their normal one)
  POST   /_debug/config            JSON {lie_has_more: bool}: has_more 1 on every page
  POST   /_debug/reset             drops queued answers and config, releases every stall
  POST   /_debug/push              sends the body as a text frame to every WebSocket client
  POST   /_debug/disconnect        closes every WebSocket connection (code 1001)

Usage: backend.py [--host 127.0.0.1] [--port 0] [--fixtures DIR]
Prints `listening on HOST:PORT` on stdout once the socket accepts connections.
"""
import argparse
import base64
import copy
import hashlib
import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

try:
    import websockets.server
except ImportError:  # pragma: no cover - said once, clearly, at start-up
    sys.stderr.write(
        "backend.py needs the websockets package: on Debian `apt-get install python3-websockets` and run\n"
        "it with /usr/bin/python3 (a pyenv python3 does not see Debian's packages); on macOS\n"
        "`pip3 install websockets`.\n")
    sys.exit(3)

# websockets 11 renamed the sans-I/O server object; accept both spellings.
WSServer = getattr(websockets.server, "ServerProtocol", None) or websockets.server.ServerConnection

PAGE_SIZES = {"aweme": 21, "comment": 20, "groupchat": 20}
BAD_PARAMETER = 1
NOT_FOUND = 2001
NOT_OWNER = 2003


class APIFailure(Exception):
    """A failure the API reports in its envelope (HTTP 200, code != 0)."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code
        self.message = message


def load(fixtures, name):
    with open(fixtures / name, encoding="utf-8") as handle:
        return json.load(handle)


def sniff_image_size(data):
    """Width and height of a PNG or GIF; (0, 0) for anything else."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    return 0, 0


class State:
    """Everything the backend holds; every method runs under `lock`."""

    def __init__(self, fixtures):
        self.lock = threading.Condition()
        owner = load(fixtures, "user.json")["data"]
        feed = load(fixtures, "feed.json")["data"] + load(fixtures, "feed-page2.json")["data"]
        large = load(fixtures, "feed-large.json")
        self.posts = large["data"]
        self.favorites = feed
        # The real API reports a total_count that disagrees with the items; keep the fixture's.
        self.favorites_total = load(fixtures, "feed.json").get("total_count")
        self.users = {owner["uid"]: owner}
        for aweme in self.posts + self.favorites:
            author = aweme.get("author")
            if author and author.get("uid") not in self.users:
                self.users[author["uid"]] = author
        self.awemes = {a["aweme_id"] for a in self.posts + self.favorites}
        self.comments = load(fixtures, "comments.json")["data"]
        self.awemes.update(c["aweme_id"] for c in self.comments)
        self.chats = load(fixtures, "groupchats.json")["data"]
        self.template_visitor = self.chats[0]["visitor"]
        self.visitors = {}
        self.images = {}
        self.next_id = 1
        self.requests = []
        self.canned = []
        self.lie_has_more = False
        self.generation = 0  # bumped by reset: stalls wake when it changes
        self.sockets = []  # WebSocket clients: (connection, socket, send lock)

    def new_id(self):
        """A fresh 19-digit id (beyond 2^53, as the real ids are)."""
        self.next_id += 1
        return str(7000000000000000000 + self.next_id)

    def visitor(self, udid):
        if udid not in self.visitors:
            digest = hashlib.md5(("visitor:" + udid).encode()).hexdigest()
            visitor = copy.deepcopy(self.template_visitor)
            visitor["uid"] = digest[:24]
            visitor["udid"] = udid
            self.visitors[udid] = visitor
        return self.visitors[udid]


def required(params, name):
    value = params.get(name)
    if value is None or value == "":
        raise APIFailure(BAD_PARAMETER, f"missing parameter {name}")
    return value


def integer(params, name, default):
    value = params.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except ValueError:
        raise APIFailure(BAD_PARAMETER, f"parameter {name} must be an integer, got {value!r}")
    if number < 0 or number > 1_000_000:
        raise APIFailure(BAD_PARAMETER, f"parameter {name} out of range: {number}")
    return number


def paged(state, items, params, kind, total=None):
    page = integer(params, "page", 0)
    size = integer(params, "size", PAGE_SIZES[kind])
    if size == 0:
        raise APIFailure(BAD_PARAMETER, "parameter size must be positive")
    chunk = items[page * size:(page + 1) * size]
    more = (page + 1) * size < len(items) or state.lie_has_more
    return {"code": 0, "message": "success", "data": chunk,
            "total_count": len(items) if total is None else total, "has_more": 1 if more else 0}


def success(data):
    return {"code": 0, "message": "success", "data": data}


def chat_message(state, udid, kind, content, pictures=None):
    message = {"id": hashlib.md5(state.new_id().encode()).hexdigest()[:24],
               "visitor": state.visitor(udid), "msg_type": kind, "msg_content": content,
               "pic_thumbnail": None, "pic_medium": None, "pic_large": None, "pic_original": None,
               "create_time": int(time.time())}
    if pictures:
        message.update(pictures)
    state.chats.insert(0, message)
    return message


def image_message(state, udid, part, base):
    file_id = hashlib.md5(part["data"]).hexdigest()
    state.images[file_id] = (part["content_type"], part["data"])
    width, height = sniff_image_size(part["data"])
    info = {"file_id": file_id, "url": f"{base}/douyin/image?id={file_id}", "width": width, "height": height,
            "type": part["content_type"]}
    pictures = {key: dict(info) for key in ("pic_thumbnail", "pic_medium", "pic_large", "pic_original")}
    return chat_message(state, udid, "image", "file", pictures)


def parse_multipart(content_type, body):
    """(fields, files) of a multipart/form-data body; files keep their name, type and bytes."""
    boundary = None
    for piece in content_type.split(";")[1:]:
        key, _, value = piece.strip().partition("=")
        if key.lower() == "boundary":
            boundary = value.strip('"')
    if not boundary:
        raise APIFailure(BAD_PARAMETER, "multipart body without a boundary")
    fields, files = {}, []
    delimiter = b"--" + boundary.encode()
    sections = body.split(delimiter)
    if len(sections) < 3 or not sections[-1].startswith(b"--"):
        raise APIFailure(BAD_PARAMETER, "malformed multipart body")
    for section in sections[1:-1]:
        if not section.startswith(b"\r\n") or not section.endswith(b"\r\n"):
            raise APIFailure(BAD_PARAMETER, "malformed multipart part")
        head, separator, data = section[2:-2].partition(b"\r\n\r\n")
        if not separator:
            raise APIFailure(BAD_PARAMETER, "multipart part without headers")
        headers = {}
        for line in head.decode("utf-8", "replace").split("\r\n"):
            key, _, value = line.partition(":")
            headers[key.strip().lower()] = value.strip()
        disposition = headers.get("content-disposition", "")
        params = {}
        for piece in disposition.split(";")[1:]:
            key, _, value = piece.strip().partition("=")
            params[key.lower()] = value.strip('"')
        name = params.get("name")
        if name is None:
            raise APIFailure(BAD_PARAMETER, "multipart part without a name")
        if "filename" in params:
            files.append({"name": name, "filename": params["filename"],
                          "content_type": headers.get("content-type", "application/octet-stream"), "data": data})
        else:
            fields[name] = data.decode("utf-8")
    return fields, files


def handle_api(state, method, endpoint, params, files, base):
    """The envelope for one API call; raises APIFailure for a bad call. Runs under the lock."""
    if endpoint == "visitor/create" and method == "POST":
        return success(state.visitor(required(params, "udid")))
    if endpoint == "user" and method == "GET":
        uid = required(params, "uid")
        if uid not in state.users:
            raise APIFailure(NOT_FOUND, f"user {uid} not found")
        return success(state.users[uid])
    if endpoint in ("aweme/post", "aweme/favorite") and method == "GET":
        uid = required(params, "uid")
        if uid not in state.users:
            raise APIFailure(NOT_FOUND, f"user {uid} not found")
        if endpoint == "aweme/post":
            return paged(state, state.posts, params, "aweme")
        return paged(state, state.favorites, params, "aweme", total=state.favorites_total)
    if endpoint == "comment/list" and method == "GET":
        aweme_id = required(params, "aweme_id")
        if aweme_id not in state.awemes:
            raise APIFailure(NOT_FOUND, "aweme not found")
        return paged(state, [c for c in state.comments if c["aweme_id"] == aweme_id], params, "comment")
    if endpoint == "comment/post" and method == "POST":
        aweme_id, udid, text = required(params, "aweme_id"), required(params, "udid"), required(params, "text")
        if aweme_id not in state.awemes:
            raise APIFailure(NOT_FOUND, "aweme not found")
        comment = {"cid": state.new_id(), "status": 1, "text": text, "digg_count": 0,
                   "create_time": int(time.time()), "reply_id": "0", "aweme_id": aweme_id, "user_digged": 0,
                   "user_type": "visitor", "user": None, "visitor": state.visitor(udid)}
        state.comments.insert(0, comment)
        return success(comment)
    if endpoint == "comment/delete" and method == "DELETE":
        cid, udid = required(params, "cid"), required(params, "udid")
        match = [c for c in state.comments if c["cid"] == cid]
        if not match:
            raise APIFailure(NOT_FOUND, f"comment {cid} not found")
        if (match[0].get("visitor") or {}).get("udid") != udid:
            raise APIFailure(NOT_OWNER, "only its author can delete a comment")
        state.comments.remove(match[0])
        return success(None)
    if endpoint == "groupchat/list" and method == "GET":
        return paged(state, state.chats, params, "groupchat")
    if endpoint == "groupchat/text" and method == "POST":
        udid, text = required(params, "udid"), required(params, "text")
        return success(chat_message(state, udid, "text", text))
    if endpoint in ("groupchat/image", "groupchat/images") and method == "POST":
        udid = required(params, "udid")
        parts = [f for f in files if f["name"] == "file"]
        if not parts:
            raise APIFailure(BAD_PARAMETER, "missing file part file")
        if endpoint == "groupchat/image":
            if len(parts) != 1:
                raise APIFailure(BAD_PARAMETER, "groupchat/image takes one file part; use groupchat/images")
            return success(image_message(state, udid, parts[0], base))
        return success([image_message(state, udid, part, base) for part in parts])
    if endpoint == "groupchat/delete" and method == "DELETE":
        message_id, udid = required(params, "id"), required(params, "udid")
        match = [m for m in state.chats if m["id"] == message_id]
        if not match:
            raise APIFailure(NOT_FOUND, f"message {message_id} not found")
        if (match[0].get("visitor") or {}).get("udid") != udid:
            raise APIFailure(NOT_OWNER, "only its sender can delete a message")
        state.chats.remove(match[0])
        return success(None)
    return None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as the real backend's nginx did
    server_version = "douyin-backend"
    sys_version = ""

    def log_message(self, format, *args):  # quiet: tests read /_debug/requests instead
        pass

    # http.server dispatches on do_<METHOD>.
    def do_GET(self):
        self.dispatch()

    def do_POST(self):
        self.dispatch()

    def do_DELETE(self):
        self.dispatch()

    def do_PUT(self):
        self.dispatch()

    def reply(self, status, body, content_type="application/json; charset=utf-8", headers=None):
        if isinstance(body, (dict, list)):
            body = json.dumps(body, ensure_ascii=False).encode("utf-8")
        elif isinstance(body, str):
            body = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, str(value))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def dispatch(self):
        state = self.server.state
        split = urlsplit(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        if split.path.startswith("/_debug/"):
            return self.debug(state, split, body)
        if split.path == "/douyin/groupchat" and self.headers.get("Upgrade", "").lower() == "websocket":
            return self.websocket(state)
        with state.lock:
            state.requests.append({
                "method": self.command, "path": split.path, "query": split.query,
                "headers": [[k, v] for k, v in self.headers.items()],
                "body": base64.b64encode(body).decode("ascii")})
            state.lock.notify_all()
            canned = None
            for index, entry in enumerate(state.canned):
                if split.path.startswith(entry.get("path", "")):
                    canned = dict(entry)
                    entry["count"] -= 1
                    if entry["count"] <= 0:
                        del state.canned[index]
                    break
            generation = state.generation
        if canned and canned.get("stall"):
            deadline = time.monotonic() + float(canned["stall"])
            with state.lock:
                while state.generation == generation and time.monotonic() < deadline:
                    state.lock.wait(deadline - time.monotonic())
        if canned and canned.get("status") is not None:
            try:
                return self.reply(canned["status"], canned.get("body", ""),
                                  canned.get("content_type", "application/json; charset=utf-8"), canned.get("headers"))
            except (BrokenPipeError, ConnectionResetError):
                return None
        try:
            self.api(state, split, body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or a cancelled task)

    def api(self, state, split, body):
        if split.path.startswith("/douyin/image"):
            with state.lock:
                image = state.images.get(parse_qs(split.query).get("id", [""])[0])
            if image is None:
                return self.reply(404, {"code": NOT_FOUND, "message": "no such image", "data": None})
            return self.reply(200, image[1], image[0])
        if not split.path.startswith("/douyin/"):
            return self.reply(404, "<html><body>404 Not Found</body></html>", "text/html")
        endpoint = split.path[len("/douyin/"):].strip("/")
        params = {k: v[0] for k, v in parse_qs(split.query, keep_blank_values=True).items()}
        files = []
        content_type = self.headers.get("Content-Type", "")
        try:
            if self.command == "POST":
                if content_type.startswith("application/x-www-form-urlencoded"):
                    try:
                        text = body.decode("utf-8")
                    except UnicodeDecodeError:
                        raise APIFailure(BAD_PARAMETER, "form body is not UTF-8")
                    params.update({k: v[0] for k, v in parse_qs(text, keep_blank_values=True,
                                                                   errors="strict").items()})
                elif content_type.startswith("multipart/form-data"):
                    fields, files = parse_multipart(content_type, body)
                    params.update(fields)
                elif body:
                    raise APIFailure(BAD_PARAMETER, f"unsupported body type {content_type!r}")
            base = f"http://{self.headers.get('Host', '127.0.0.1')}"
            pushed = None
            with state.lock:
                envelope = handle_api(state, self.command, endpoint, params, files, base)
                if envelope is not None and endpoint.startswith("groupchat/") and self.command == "POST":
                    pushed = envelope["data"] if isinstance(envelope["data"], list) else [envelope["data"]]
            if envelope is None:
                return self.reply(404, "<html><body>404 Not Found</body></html>", "text/html")
            self.reply(200, envelope)
            for message in pushed or []:
                broadcast(state, json.dumps(message, ensure_ascii=False))
        except APIFailure as failure:
            self.reply(200, {"code": failure.code, "message": failure.message, "data": None})
        except UnicodeDecodeError:
            self.reply(200, {"code": BAD_PARAMETER, "message": "parameters are not UTF-8", "data": None})

    def debug(self, state, split, body):
        path, query = split.path, parse_qs(split.query)
        if path == "/_debug/requests" and self.command == "GET":
            with state.lock:
                return self.reply(200, list(state.requests))
        if path == "/_debug/requests" and self.command == "DELETE":
            with state.lock:
                state.requests.clear()
            return self.reply(200, {"ok": True})
        if path == "/_debug/wait":
            count = int(query.get("count", ["1"])[0])
            deadline = time.monotonic() + float(query.get("timeout", ["30"])[0])
            with state.lock:
                while len(state.requests) < count and time.monotonic() < deadline:
                    state.lock.wait(deadline - time.monotonic())
                seen = len(state.requests)
            return self.reply(200 if seen >= count else 408, {"count": seen})
        if path == "/_debug/enqueue" and self.command == "POST":
            entry = json.loads(body or b"{}")
            entry["count"] = int(entry.get("count", 1))
            with state.lock:
                state.canned.append(entry)
            return self.reply(200, {"ok": True})
        if path == "/_debug/config" and self.command == "POST":
            config = json.loads(body or b"{}")
            with state.lock:
                state.lie_has_more = bool(config.get("lie_has_more", state.lie_has_more))
            return self.reply(200, {"ok": True})
        if path == "/_debug/reset" and self.command == "POST":
            with state.lock:
                state.canned.clear()
                state.lie_has_more = False
                state.generation += 1
                state.lock.notify_all()
            return self.reply(200, {"ok": True})
        if path == "/_debug/push" and self.command == "POST":
            sent = broadcast(state, body.decode("utf-8"))
            return self.reply(200, {"clients": sent})
        if path == "/_debug/disconnect" and self.command == "POST":
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
            return self.reply(200, {"clients": len(clients)})
        return self.reply(404, {"error": "no such debug endpoint"})

    def websocket(self, state):
        """Upgrades this connection and keeps it until the client leaves; the server only pushes."""
        udid = self.headers.get("udid") or parse_qs(urlsplit(self.path).query).get("udid", [""])[0]
        with state.lock:
            state.requests.append({
                "method": self.command, "path": urlsplit(self.path).path, "query": urlsplit(self.path).query,
                "headers": [[k, v] for k, v in self.headers.items()], "body": ""})
            state.lock.notify_all()
        if not udid:
            self.close_connection = True
            return self.reply(400, {"code": BAD_PARAMETER, "message": "missing header udid", "data": None},
                              headers={"Connection": "close"})
        # http.server has read the request already; hand its bytes to the protocol object, whose
        # parser starts by reading the handshake request and goes on to frames.
        head = f"GET {self.path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in self.headers.items()) + "\r\n"
        connection = WSServer()
        connection.receive_data(head.encode("latin-1"))
        request = connection.events_received()[0]
        response = connection.accept(request)
        connection.send_response(response)
        sock = self.connection
        send_lock = threading.Lock()
        with send_lock:
            for chunk in connection.data_to_send():
                sock.sendall(chunk)
        self.close_connection = True
        if response.status_code != 101:
            return None
        entry = (connection, sock, send_lock)
        with state.lock:
            state.sockets.append(entry)
        try:
            while True:
                # rfile, not the socket: its buffer may already hold bytes sent after the handshake.
                data = self.rfile.read1(65536)
                finished = False
                with send_lock:
                    if data:
                        connection.receive_data(data)
                    else:
                        connection.receive_eof()
                    connection.events_received()  # pings and closes are answered by the protocol object
                    for chunk in connection.data_to_send():
                        if chunk:
                            sock.sendall(chunk)
                        else:  # the protocol's end-of-stream marker: half-close
                            sock.shutdown(socket.SHUT_WR)
                            finished = True
                if not data or finished:
                    break
        except OSError:
            pass
        finally:
            with state.lock:
                if entry in state.sockets:
                    state.sockets.remove(entry)
        return None


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


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="0 picks a free port")
    parser.add_argument("--fixtures", default=str(Path(__file__).resolve().parents[2] / "Fixtures" / "api"))
    args = parser.parse_args()
    server = Server((args.host, args.port), Handler)
    server.state = State(Path(args.fixtures))
    host, port = server.server_address[:2]
    print(f"listening on {host}:{port}", flush=True)
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
