"""Everything the backend holds, loaded from Fixtures/api, and the ids it makes."""
import copy
import hashlib
import json
import threading

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
        # Seconds a WebSocket connection waits after its 101 before it is served (tests).
        self.upgrade_pause = 0.0
        self.generation = 0  # bumped by reset: stalls wake when it changes
        self.auth = Auth()
        self.sockets = []  # WebSocket clients: (protocol object, socket, send lock)

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

    def record(self, method, path, query, headers, body):
        """Keeps one request for /_debug/requests and wakes /_debug/wait. Runs under the lock."""
        self.requests.append({"method": method, "path": path, "query": query,
                              "headers": [[k, v] for k, v in headers.items()], "body": body})
        self.lock.notify_all()

    def take_canned(self, path):
        """The first queued answer for `path` (counting it down), or None, and the reset
        generation a stall waits on. Runs under the lock."""
        canned = None
        for index, entry in enumerate(self.canned):
            if path.startswith(entry.get("path", "")):
                canned = dict(entry)
                entry["count"] -= 1
                if entry["count"] <= 0:
                    del self.canned[index]
                break
        return canned, self.generation


class Auth:
    """The expiring access token, off until /_debug/auth turns it on (then every API call but
    auth/token needs `Authorization: Bearer <token>`, else HTTP 401). Runs under the lock."""

    def __init__(self):
        self.enabled = False
        self.token = None  # the one valid token; None when it expired or none was issued
        self.issued = 0  # tokens handed out by auth/token: the refreshes a client made
        self.rejected = 0  # API calls answered 401

    def issue(self):
        self.issued += 1
        self.token = f"token-{self.issued}"
        return self.token

    def accepts(self, header):
        return self.token is not None and header == f"Bearer {self.token}"

    def report(self):
        return {"enabled": self.enabled, "token": self.token, "issued": self.issued, "rejected": self.rejected}
