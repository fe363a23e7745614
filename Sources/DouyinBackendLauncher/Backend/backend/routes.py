"""The API: one small function per endpoint, found in ROUTES by (method, endpoint).

Each takes (state, params, files, base) under the state's lock and returns the envelope, or
raises APIFailure for a call the API refuses in its envelope."""
import hashlib
import time

from backend.forms import paged, required, success
from backend.state import BAD_PARAMETER, NOT_FOUND, NOT_OWNER, APIFailure


def sniff_image_size(data):
    """Width and height of a PNG or GIF; (0, 0) for anything else."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    return 0, 0


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


def known_user(state, params):
    uid = required(params, "uid")
    if uid not in state.users:
        raise APIFailure(NOT_FOUND, f"user {uid} not found")
    return uid


def known_aweme(state, params):
    aweme_id = required(params, "aweme_id")
    if aweme_id not in state.awemes:
        raise APIFailure(NOT_FOUND, "aweme not found")
    return aweme_id


def owned(items, key, value, udid, what, who):
    """The one item whose `key` is `value`, if `udid`'s visitor made it."""
    match = [item for item in items if item[key] == value]
    if not match:
        raise APIFailure(NOT_FOUND, f"{what} {value} not found")
    if (match[0].get("visitor") or {}).get("udid") != udid:
        raise APIFailure(NOT_OWNER, f"only its {who} can delete a {what}")
    return match[0]


def visitor_create(state, params, files, base):
    return success(state.visitor(required(params, "udid")))


def user(state, params, files, base):
    return success(state.users[known_user(state, params)])


def aweme_post(state, params, files, base):
    known_user(state, params)
    return paged(state, state.posts, params, "aweme")


def aweme_favorite(state, params, files, base):
    known_user(state, params)
    return paged(state, state.favorites, params, "aweme", total=state.favorites_total)


def comment_list(state, params, files, base):
    aweme_id = known_aweme(state, params)
    return paged(state, [c for c in state.comments if c["aweme_id"] == aweme_id], params, "comment")


def comment_post(state, params, files, base):
    aweme_id, udid, text = required(params, "aweme_id"), required(params, "udid"), required(params, "text")
    known_aweme(state, params)
    comment = {"cid": state.new_id(), "status": 1, "text": text, "digg_count": 0,
               "create_time": int(time.time()), "reply_id": "0", "aweme_id": aweme_id, "user_digged": 0,
               "user_type": "visitor", "user": None, "visitor": state.visitor(udid)}
    state.comments.insert(0, comment)
    return success(comment)


def comment_delete(state, params, files, base):
    cid, udid = required(params, "cid"), required(params, "udid")
    state.comments.remove(owned(state.comments, "cid", cid, udid, "comment", "author"))
    return success(None)


def groupchat_list(state, params, files, base):
    return paged(state, state.chats, params, "groupchat")


def groupchat_text(state, params, files, base):
    udid, text = required(params, "udid"), required(params, "text")
    return success(chat_message(state, udid, "text", text))


def file_parts(params, files):
    udid = required(params, "udid")
    parts = [f for f in files if f["name"] == "file"]
    if not parts:
        raise APIFailure(BAD_PARAMETER, "missing file part file")
    return udid, parts


def groupchat_image(state, params, files, base):
    udid, parts = file_parts(params, files)
    if len(parts) != 1:
        raise APIFailure(BAD_PARAMETER, "groupchat/image takes one file part; use groupchat/images")
    return success(image_message(state, udid, parts[0], base))


def groupchat_images(state, params, files, base):
    udid, parts = file_parts(params, files)
    return success([image_message(state, udid, part, base) for part in parts])


def groupchat_delete(state, params, files, base):
    message_id, udid = required(params, "id"), required(params, "udid")
    state.chats.remove(owned(state.chats, "id", message_id, udid, "message", "sender"))
    return success(None)


ROUTES = {
    ("POST", "visitor/create"): visitor_create,
    ("GET", "user"): user,
    ("GET", "aweme/post"): aweme_post,
    ("GET", "aweme/favorite"): aweme_favorite,
    ("GET", "comment/list"): comment_list,
    ("POST", "comment/post"): comment_post,
    ("DELETE", "comment/delete"): comment_delete,
    ("GET", "groupchat/list"): groupchat_list,
    ("POST", "groupchat/text"): groupchat_text,
    ("POST", "groupchat/image"): groupchat_image,
    ("POST", "groupchat/images"): groupchat_images,
    ("DELETE", "groupchat/delete"): groupchat_delete,
}
