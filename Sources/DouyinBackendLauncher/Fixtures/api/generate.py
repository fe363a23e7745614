#!/usr/bin/env python3
"""Writes DouyinKit's own API fixtures in the captured response format.

Deterministic: run it again and the files come out the same. Every quirk the real API shows
(see DESIGN.md) appears at least once so the tests can pin it.
"""
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent


def image_set(uri, size="720x720", hosts=("p1", "p3"), scheme="https"):
    return {"uri": uri, "url_list": [f"{scheme}://{h}.example-cdn.test/img/{size}/{uri}.jpeg" for h in hosts]}


def user(uid, nickname, *, short_id, signature="", followers=0, following=0, awemes=0,
         favoriting=0, total_favorited=0, icon_urls=(), qrcode="qr" , virtual_uri="", avatar_uri="av",
         birthday="1995-05-05", constellation=2, verified=False, created=1500000000, gender=1):
    avatar = f"avatar{uid}"
    return {
        "uid": str(uid), "short_id": str(short_id), "unique_id": f"handle{uid}", "nickname": nickname,
        "gender": gender, "signature": signature,
        "avatar_thumb": image_set(avatar, "100x100"), "avatar_medium": image_set(avatar, "720x720"),
        "avatar_larger": image_set(avatar, "1080x1080"), "avatar_uri": avatar_uri,
        "follower_count": followers, "following_count": following, "aweme_count": awemes,
        "favoriting_count": favoriting, "total_favorited": total_favorited,
        "constellation": constellation, "birthday": birthday, "region": "CN",
        "is_verified": verified, "custom_verify": "", "create_time": created,
        "share_qrcode_uri": qrcode,
        "video_icon": {"uri": "", "url_list": list(icon_urls) if icon_urls is not None else None},
        "video_icon_virtual_URI": virtual_uri, "follow_status": 0,
        "geofencing": None, "activity": {"use_music_count": 0, "digg_count": 0},
        "story_open": False, "room_id": 0,
    }


def aweme(n, author, *, desc, text_extra=(), cha_list=True, music_id_as_number=False, http_urls=False):
    aweme_id = str(6600000000000000000 + n)
    music_id = 6500000000000000000 + 7 * n + 3
    scheme = "http" if http_urls else "https"
    return {
        "aweme_id": aweme_id, "desc": desc, "create_time": 1530000000 + 3600 * n,
        "author_user_id": int(author["uid"]), "author": author,
        "music": {
            "id": music_id if music_id_as_number else str(music_id), "id_str": str(music_id),
            "mid": str(music_id), "title": f"Track {n}", "author": f"Composer {n % 5}",
            "duration": 10 + n % 50, "play_url": {"uri": f"{scheme}://music.example-cdn.test/{n}.mp3",
                                                  "url_list": [f"{scheme}://music.example-cdn.test/{n}.mp3"]},
            "cover_hd": image_set(f"mhd{n}"), "cover_large": image_set(f"mlg{n}"),
            "cover_medium": image_set(f"mmd{n}"), "cover_thumb": image_set(f"mth{n}"),
            "user_count": n * 11, "extra": json.dumps({"has_edited": n % 2, "beats": {"level": n % 3}}),
            "is_original": False, "status": 1, "uid": None,
        },
        "video": {
            "play_addr": image_set(f"v{n}", "play", scheme=scheme),
            "play_addr_lowbr": image_set(f"v{n}lb", "play", scheme=scheme),
            "cover": image_set(f"c{n}", "cover", scheme=scheme),
            "origin_cover": image_set(f"oc{n}", "origin", scheme=scheme),
            "dynamic_cover": image_set(f"dc{n}", "dynamic", scheme=scheme),
            "download_addr": image_set(f"dl{n}", "download", scheme=scheme),
            "width": 720, "height": 1280, "duration": 8000 + 137 * n, "ratio": "720p",
            "has_watermark": True, "bit_rate": [{"bit_rate": 1000000 + n, "gear_name": "normal_720", "quality_type": 1}],
        },
        "statistics": {"aweme_id": aweme_id, "comment_count": 10 * n, "digg_count": 1000 * n + 7,
                       "play_count": 0, "share_count": 3 * n},
        "share_url": f"https://share.example.test/video/{aweme_id}/",
        "share_info": {"share_url": f"https://share.example.test/video/{aweme_id}/?r=1",
                       "share_title": desc, "share_desc": "share", "share_weibo_desc": desc},
        "cha_list": [{"cid": str(1600000000000000 + n), "cha_name": f"challenge{n}", "desc": "join in",
                      "user_count": n, "schema": "aweme://challenge", "type": 0, "sub_type": 0,
                      "is_pgcshow": False}] if cha_list else None,
        "text_extra": list(text_extra), "is_top": 1 if n == 1 else 0, "user_digged": n % 2,
        "region": "CN", "video_labels": [], "geofencing": [], "is_ads": False,
    }


def envelope(data, **paging):
    return {"code": 0, "message": "success", "data": data, **paging}


def write(name, obj):
    (HERE / name).write_text(json.dumps(obj, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def main():
    owner = user(97795069001, "Lin Xiao", short_id=8812000001, signature="Cats, coffee & code ☕",
                 followers=1520, following=9, awemes=4, favoriting=40, total_favorited=98321,
                 verified=True, constellation=10, birthday="1993-11-02", gender=2,
                 icon_urls=None, qrcode=None, virtual_uri=None)
    write("user.json", {"code": 0, "message": "success", "data": owner})

    guest = user(66946480002, "山川", short_id=333533002, avatar_uri=None, qrcode=None, icon_urls=None,
                 virtual_uri=None, created=0)
    # Hashtag after an emoji: the offsets count UTF-16 units, so "😺" counts 2.
    desc1 = "😺 morning walk #cats"
    tag_start = len(desc1.encode("utf-16-le")) // 2 - len("#cats")
    feed = [
        aweme(1, owner, desc=desc1, text_extra=[{"start": tag_start, "end": tag_start + 5, "type": 1,
                                                 "hashtag_name": "cats"}]),
        aweme(2, owner, desc="no challenge here", cha_list=False, music_id_as_number=True),
        aweme(3, guest, desc="@Lin Xiao look", text_extra=[{"start": 0, "end": 9, "type": 0,
                                                            "user_id": owner["uid"]}], http_urls=True),
        aweme(4, owner, desc="最后生无可恋的囧哥", cha_list=False),
    ]
    # total_count disagrees with the items on purpose: the real API does this.
    write("feed.json", envelope(feed, total_count=7, has_more=1))
    write("feed-page2.json", envelope([aweme(5, guest, desc="page two")], total_count=7, has_more=0))

    rng = random.Random(20261202)
    authors = [owner, guest] + [user(70000000000 + i, f"creator {i}", short_id=500000 + i,
                                     followers=rng.randrange(100000)) for i in range(20)]
    large = [aweme(10 + i, rng.choice(authors), desc=f"clip {i} " + "🎬" * (i % 4),
                   cha_list=i % 2 == 0, music_id_as_number=i % 3 == 0, http_urls=i % 5 == 0)
             for i in range(150)]
    write("feed-large.json", envelope(large, total_count=150, has_more=0))

    visitor = {
        "uid": "5b4096f8e43d130352e40001", "udid": "9f78a27d53d3ddf798a77d331c450001",
        "avatar_thumbnail": {"file_id": "f1", "url": "http://chat.example.test/image?id=f1", "width": 50, "height": 50, "type": "image/jpeg"},
        "avatar_medium": {"file_id": "f2", "url": "http://chat.example.test/image?id=f2", "width": 200, "height": 200, "type": "image/jpeg"},
        "avatar_large": {"file_id": "f3", "url": "http://chat.example.test/image?id=f3", "width": 500, "height": 500, "type": "image/jpeg"},
    }
    comment = lambda cid, text, kind, **who: {
        "cid": cid, "status": 1, "text": text, "digg_count": len(text), "create_time": 1532064108,
        "reply_id": "0", "aweme_id": feed[0]["aweme_id"], "user_digged": 0, "user_type": kind,
        "user": who.get("user"), "visitor": who.get("visitor")}
    write("comments.json", envelope([
        comment("1606485654300001", "so cute [可爱]", "user", user=guest),
        comment("1606485654300002", "first!", "visitor", visitor=visitor),
        comment("1606485654300003", "from the future", "bot"),
    ], total_count=3, has_more=0))

    pic = lambda i, w, h: {"file_id": f"p{i}", "url": f"http://chat.example.test/image?id=p{i}", "width": w, "height": h, "type": None}
    chat = lambda i, kind, content, pics=False: {
        "id": f"5b52bcb240c1680b6c50{i:04d}", "visitor": visitor, "msg_type": kind, "msg_content": content,
        "pic_thumbnail": pic(1, 100, 66) if pics else None, "pic_medium": pic(2, 500, 333) if pics else None,
        "pic_large": pic(3, 1000, 666) if pics else None, "pic_original": pic(4, 3072, 2047) if pics else None,
        "create_time": 1532148914 + i}
    write("groupchats.json", envelope([
        chat(1, "system", "welcome to the group [可爱]"), chat(2, "text", "[微笑][微笑] hi"),
        chat(3, "image", "file", pics=True), chat(4, "sticker", "🦄"),
    ], total_count=4, has_more=1))

    names = [("weixiao", "[微笑]"), ("keai", "[可爱]"), ("ziya", "[呲牙]"), ("kuye", "[枯叶]"), ("baiyan", "[白眼]")]
    write("emotions.json", {"dict": dict(names), "array": [["weixiao", "keai", "ziya"], ["kuye", "baiyan", "missing"]]})

    write_real_shapes()

    write("error.json", {"code": 2001, "message": "aweme not found", "data": None})
    write("empty.json", envelope([], total_count=0, has_more=0))


# Shapes of Douyin's and TikTok's own APIs, which send far fewer fields than the demo backend
# (DESIGN.md, "The data"). Written here with this project's own values; only the set of keys and
# the value forms (counts as numeric strings, ids as strings) follow the real responses.

def sparse_image(uri, size):
    # The real web API adds the picture's size beside {uri, url_list}; the models ignore it.
    return {"uri": uri, "url_list": [f"https://p9.example-cdn.test/img/{size}/{uri}.webp"], "width": 720, "height": 720}


def share_page_author(uid, nickname, *, total_favorited):
    # A share page's author: no gender, constellation, birthday, is_verified or create_time;
    # total_favorited and the other counts arrive as numeric strings.
    return {
        "uid": str(uid), "short_id": str(uid % 1000000000), "nickname": nickname, "signature": "daily clips",
        "avatar_thumb": sparse_image(f"st{uid}", "100x100"), "avatar_medium": sparse_image(f"sm{uid}", "720x720"),
        "avatar_larger": sparse_image(f"sl{uid}", "1080x1080"), "unique_id": f"share{uid}",
        "sec_uid": f"MS4wLjABAAAA{uid}", "follow_status": 0, "total_favorited": str(total_favorited),
        "follower_count": str(total_favorited // 7), "following_count": 12, "aweme_count": "31",
        "favoriting_count": 0, "followers_detail": None, "platform_sync_info": None,
        "geofencing": None, "policy_version": None, "type_label": None, "card_entries": None,
    }


def share_page_item(n, author):
    # A share page's list item: no create_time, author_user_id or share_url.
    aweme_id = str(7200000000000000000 + n)
    return {
        "aweme_id": aweme_id, "desc": f"share page clip {n} #city", "author": author,
        "music": {"id": 7100000000000000000 + n, "id_str": str(7100000000000000000 + n), "title": f"original sound {n}",
                  "author": author["nickname"], "cover_thumb": sparse_image(f"mt{n}", "168x168"),
                  "play_url": {"uri": f"https://music.example-cdn.test/{n}.mp3", "url_list": []}, "duration": 15},
        "video": {"play_addr": sparse_image(f"sp{n}", "play"), "cover": sparse_image(f"sc{n}", "cover"),
                  "height": 1024, "width": 576, "dynamic_cover": sparse_image(f"sd{n}", "dynamic"),
                  "origin_cover": sparse_image(f"so{n}", "origin"), "ratio": "540p",
                  "download_addr": sparse_image(f"sw{n}", "download"), "has_watermark": True,
                  "bit_rate": None, "duration": 15000 + n},
        "statistics": {"aweme_id": aweme_id, "comment_count": 40 + n, "digg_count": str(5000 + n),
                       "play_count": 0, "share_count": 3, "forward_count": 1},
        "text_extra": [{"start": len(f"share page clip {n} "), "end": len(f"share page clip {n} #city"), "type": 1,
                        "hashtag_name": "city"}],
        "video_labels": None, "aweme_type": 4, "image_infos": None, "risk_infos": {"warn": False, "type": 0, "content": ""},
        "position": None, "uniqid_position": None, "comment_list": None, "geofencing": [], "video_text": None,
        "label_top_text": None, "promotions": None, "long_video": None, "cha_list": None,
    }


def web_comment_user(uid, nickname):
    # A web comment's user: no signature, no avatar_medium / avatar_larger, no counts.
    return {"uid": str(uid), "short_id": "0", "nickname": nickname, "avatar_thumb": sparse_image(f"wt{uid}", "100x100"),
            "unique_id": "", "sec_uid": f"MS4wLjABAAAA{uid}", "custom_verify": "", "region": "CN"}


def web_comment(cid, text, user, *, digg):
    # No user_type: Douyin's own comments never carry one.
    return {"cid": str(cid), "text": text, "aweme_id": "7200000000000000001", "create_time": 1690000000 + cid % 1000,
            "digg_count": digg, "status": 1, "user": user, "reply_id": "0", "user_digged": 0,
            "reply_comment": None, "text_extra": [], "reply_comment_total": 2, "is_author_digged": False,
            "ip_label": "Shanghai", "label_list": None}


def tiktok_comment(cid, text, user):
    return {"cid": str(cid), "text": text, "aweme_id": "7300000000000000009", "create_time": 1700000000 + cid % 1000,
            "digg_count": 1200 + cid % 10, "user": user, "reply_comment_total": 0, "comment_language": "en",
            "is_comment_translatable": True, "status": 1, "user_buried": False, "user_digged": 0}


def tiktok_user(uid, nickname):
    # No short_id, no user_type around it.
    return {"uid": str(uid), "nickname": nickname, "unique_id": nickname.lower().replace(" ", "_"),
            "avatar_thumb": sparse_image(f"tt{uid}", "100x100"), "sec_uid": f"MS4wLjABAAAAtt{uid}",
            "ins_id": "", "twitter_id": "", "youtube_channel_id": ""}


def write_real_shapes():
    author = share_page_author(88123000001, "Harbour Lights", total_favorited=416017)
    write("douyin-share-page-awemes.json", {
        "status_code": 0, "aweme_list": [share_page_item(n, author) for n in (1, 2)],
        "max_cursor": 1690000000000, "min_cursor": 1680000000000, "has_more": True,
        "extra": {"now": 1690000500000, "logid": "20230722000000000000000000000000"},
    })
    write("douyin-share-page-user.json", {"status_code": 0, "user_info": author,
                                           "extra": {"now": 1690000500000}})
    write("douyin-web-comments.json", {
        "status_code": 0, "comments": [
            web_comment(7250000000000000001, "the light at 0:12 👌", web_comment_user(90000000001, "morning tea"), digg=321),
            web_comment(7250000000000000002, "where is this?", web_comment_user(90000000002, "Q"), digg="12"),
        ], "cursor": 2, "has_more": 1, "total": 57,
    })
    write("tiktok-comments.json", {
        "status_code": 0, "comments": [
            tiktok_comment(7310000000000000003, "this slaps", tiktok_user(6800000000000000001, "River Stone")),
            tiktok_comment(7310000000000000004, "part 2 please", tiktok_user(6800000000000000002, "Ana B")),
        ], "cursor": 20, "has_more": 0, "total": 2,
    })


if __name__ == "__main__":
    main()
