"""The switches and the request record for tests under /_debug/ (never recorded themselves):
one small function per switch, found in DEBUG by (method, path). Each takes (state, query,
body) and returns (status, JSON body)."""
import json
import time

from backend.push import broadcast, disconnect_all
from backend.state import Auth


def requests(state, query, body):
    with state.lock:
        return 200, list(state.requests)


def forget_requests(state, query, body):
    with state.lock:
        state.requests.clear()
    return 200, {"ok": True}


def wait(state, query, body):
    """Returns once `count` requests are recorded, or 408 after `timeout` seconds (30)."""
    count = int(query.get("count", ["1"])[0])
    deadline = time.monotonic() + float(query.get("timeout", ["30"])[0])
    with state.lock:
        while len(state.requests) < count and time.monotonic() < deadline:
            state.lock.wait(deadline - time.monotonic())
        seen = len(state.requests)
    return (200 if seen >= count else 408), {"count": seen}


def enqueue(state, query, body):
    entry = json.loads(body or b"{}")
    entry["count"] = int(entry.get("count", 1))
    with state.lock:
        state.canned.append(entry)
    return 200, {"ok": True}


def config(state, query, body):
    settings = json.loads(body or b"{}")
    with state.lock:
        state.lie_has_more = bool(settings.get("lie_has_more", state.lie_has_more))
        state.upgrade_pause = float(settings.get("upgrade_pause", state.upgrade_pause))
    return 200, {"ok": True}


def auth(state, query, body):
    """JSON {enabled?: bool, expire?: bool}: turns the token check on or off, expires the
    current token; answers the counts (tokens issued, calls rejected) and the current token."""
    settings = json.loads(body or b"{}")
    with state.lock:
        if "enabled" in settings:
            state.auth.enabled = bool(settings["enabled"])
        if settings.get("expire"):
            state.auth.token = None
        return 200, state.auth.report()


def auth_report(state, query, body):
    with state.lock:
        return 200, state.auth.report()


def reset(state, query, body):
    with state.lock:
        state.canned.clear()
        state.lie_has_more = False
        state.upgrade_pause = 0.0
        state.auth = Auth()
        state.generation += 1
        state.lock.notify_all()
    return 200, {"ok": True}


def push(state, query, body):
    return 200, {"clients": broadcast(state, body.decode("utf-8"))}


def disconnect(state, query, body):
    return 200, {"clients": disconnect_all(state)}


DEBUG = {
    ("GET", "/_debug/requests"): requests,
    ("DELETE", "/_debug/requests"): forget_requests,
    ("POST", "/_debug/enqueue"): enqueue,
    ("POST", "/_debug/config"): config,
    ("POST", "/_debug/auth"): auth,
    ("GET", "/_debug/auth"): auth_report,
    ("POST", "/_debug/reset"): reset,
    ("POST", "/_debug/push"): push,
    ("POST", "/_debug/disconnect"): disconnect,
}
# The wait answers whatever the method (the handler serves these four).
DEBUG.update({(method, "/_debug/wait"): wait for method in ("GET", "POST", "DELETE", "PUT")})
