"""One HTTP request: recorded, then a queued canned answer or stall if one matches, then its
debug switch, WebSocket upgrade, image or API route."""
import base64
import json
import time
from http.server import BaseHTTPRequestHandler
from urllib.parse import parse_qs, urlsplit

from backend.debug import DEBUG
from backend.forms import parameters
from backend.push import broadcast, upgrade
from backend.routes import ROUTES
from backend.state import BAD_PARAMETER, NOT_FOUND, APIFailure

JSON = "application/json; charset=utf-8"
NOT_FOUND_PAGE = "<html><body>404 Not Found</body></html>"


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

    def reply(self, status, body, content_type=JSON, headers=None):
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
            switch = DEBUG.get((self.command, split.path))
            if switch is None:
                return self.reply(404, {"error": "no such debug endpoint"})
            return self.reply(*switch(state, parse_qs(split.query), body))
        if split.path == "/douyin/groupchat" and self.headers.get("Upgrade", "").lower() == "websocket":
            return upgrade(self, state)
        with state.lock:
            state.record(self.command, split.path, split.query, self.headers, base64.b64encode(body).decode("ascii"))
            canned, generation = state.take_canned(split.path)
        if canned and canned.get("stall"):
            deadline = time.monotonic() + float(canned["stall"])
            with state.lock:
                while state.generation == generation and time.monotonic() < deadline:
                    state.lock.wait(deadline - time.monotonic())
        try:
            if canned and canned.get("status") is not None:
                return self.reply(canned["status"], canned.get("body", ""), canned.get("content_type", JSON),
                                  canned.get("headers"))
            self.api(state, split, body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout or a cancelled task)

    def authenticate(self, state, endpoint):
        """With /_debug/auth on: the answer to auth/token (a new token) or the 401 of a call
        without the current one; None lets the call through (always, with auth off)."""
        with state.lock:
            auth = state.auth
            if not auth.enabled:
                return None
            if (self.command, endpoint) == ("POST", "auth/token"):
                return 200, {"code": 0, "message": "success", "data": {"token": auth.issue(), "expires_in": 3600}}
            if auth.accepts(self.headers.get("Authorization")):
                return None
            auth.rejected += 1
        return 401, {"code": 401, "message": "token expired or missing", "data": None}, JSON, \
            {"WWW-Authenticate": 'Bearer error="invalid_token"'}

    def api(self, state, split, body):
        if split.path.startswith("/douyin/image"):
            with state.lock:
                image = state.images.get(parse_qs(split.query).get("id", [""])[0])
            if image is None:
                return self.reply(404, {"code": NOT_FOUND, "message": "no such image", "data": None})
            return self.reply(200, image[1], image[0])
        if not split.path.startswith("/douyin/"):
            return self.reply(404, NOT_FOUND_PAGE, "text/html")
        endpoint = split.path[len("/douyin/"):].strip("/")
        route = ROUTES.get((self.command, endpoint))
        refusal = self.authenticate(state, endpoint)
        if refusal:
            return self.reply(*refusal)
        try:
            params, files = parameters(self.command, split.query, self.headers.get("Content-Type", ""), body)
            base = f"http://{self.headers.get('Host', '127.0.0.1')}"
            with state.lock:
                envelope = route(state, params, files, base) if route else None
            if envelope is None:
                return self.reply(404, NOT_FOUND_PAGE, "text/html")
            self.reply(200, envelope)
            if endpoint.startswith("groupchat/") and self.command == "POST":
                data = envelope["data"]
                for message in data if isinstance(data, list) else [data]:
                    broadcast(state, json.dumps(message, ensure_ascii=False))
        except APIFailure as failure:
            self.reply(200, {"code": failure.code, "message": failure.message, "data": None})
        except UnicodeDecodeError:
            self.reply(200, {"code": BAD_PARAMETER, "message": "parameters are not UTF-8", "data": None})
