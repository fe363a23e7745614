#!/usr/bin/env python3
"""Writes DouyinFeed's fixtures (deterministic: a rerun gives the same bytes).

- moov-at-end.mp4: ../video/clip.mp4 remuxed with its `moov` box after `mdat` (not
  "faststart"), chunk offsets (stco/co64) moved to match, so it still plays. A preloader that
  fetches only the first bytes of such a file cannot start it; the tests check the tail is fetched.
- feed.json: an APIResponse<[Aweme]> of 6 items whose video, cover and avatar URLs point at
  ORIGIN (`http://origin.invalid`); tests replace that with their loopback nginx's base URL and
  serve videos/v<i>.mp4, covers/c<i>.webp and avatars/a<i>.jpeg there.
"""
import json
import struct
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORIGIN = "http://origin.invalid"
CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"dinf"}


def boxes(data, start=0, end=None):
    end = len(data) if end is None else end
    offset = start
    while offset + 8 <= end:
        size, kind = struct.unpack(">I4s", data[offset:offset + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8:offset + 16])[0]
            header = 16
        elif size == 0:
            size = end - offset
        yield offset, size, header, kind
        offset += size


def shift_offsets(moov, delta):
    """Returns moov with every stco/co64 entry moved by delta (moov is a bytearray)."""
    def walk(start, end):
        for offset, size, header, kind in boxes(moov, start, end):
            if kind in CONTAINERS:
                walk(offset + header, offset + size)
            elif kind == b"stco":
                count = struct.unpack(">I", moov[offset + 12:offset + 16])[0]
                for i in range(count):
                    at = offset + 16 + 4 * i
                    value = struct.unpack(">I", moov[at:at + 4])[0]
                    moov[at:at + 4] = struct.pack(">I", value + delta)
            elif kind == b"co64":
                count = struct.unpack(">I", moov[offset + 12:offset + 16])[0]
                for i in range(count):
                    at = offset + 16 + 8 * i
                    value = struct.unpack(">Q", moov[at:at + 8])[0]
                    moov[at:at + 8] = struct.pack(">Q", value + delta)
    walk(0, len(moov))
    return moov


def moov_at_end():
    data = (HERE.parent / "video" / "clip.mp4").read_bytes()
    parts = {kind: (offset, size) for offset, size, _, kind in boxes(data)}
    ftyp = data[parts[b"ftyp"][0]:parts[b"ftyp"][0] + parts[b"ftyp"][1]]
    moov_off, moov_size = parts[b"moov"]
    mdat_off, mdat_size = parts[b"mdat"]
    mdat = data[mdat_off:mdat_off + mdat_size]
    new_mdat_off = len(ftyp)
    moov = shift_offsets(bytearray(data[moov_off:moov_off + moov_size]), new_mdat_off - mdat_off)
    return ftyp + mdat + bytes(moov)


def aweme(source, i):
    """An aweme of the package's API fixtures with its URLs pointed at ORIGIN."""
    item = json.loads(json.dumps(source))
    item["video"]["play_addr"]["url_list"] = [f"{ORIGIN}/videos/v{i}.mp4"]
    item["video"]["cover"]["url_list"] = [f"{ORIGIN}/covers/c{i}.webp"]
    item["author"]["avatar_thumb"]["url_list"] = [f"{ORIGIN}/avatars/a{i}.jpeg"]
    item["video"]["duration"] = 5000
    # 4.8 Mbit/s, so 3 s of video is 1,800,000 bytes.
    item["video"]["bit_rate"] = [{"bit_rate": 4_800_000, "gear_name": "normal_360", "quality_type": 1}]
    return item


def main():
    (HERE / "moov-at-end.mp4").write_bytes(moov_at_end())
    source = json.loads((HERE.parent / "api" / "feed-large.json").read_text())["data"]
    feed = {"code": 0, "message": "success", "has_more": 0, "data": [aweme(source[i], i) for i in range(6)]}
    (HERE / "feed.json").write_text(json.dumps(feed, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
