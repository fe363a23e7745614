#!/usr/bin/env python3
"""Makes DouyinKit's WebP fixtures with libwebp's own tools (Debian package `webp`).

Source frames are PAM files written here, so every expected pixel is known:
- covers/cover-N.webp: 9-frame animated covers (lossy, as the app receives them), via img2webp;
- bench/cover-lossy-N.webp, bench/cover-lossless.webp: 9-frame 360x640 covers for the benchmark;
- long-200.webp: a 200-frame 360x640 animation for the memory-budget test and benchmark;
Run from anywhere; needs img2webp, webpmux and cwebp on PATH.
"""
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent


def write_pam(path, width, height, pixel):
    """pixel(x, y) -> (r, g, b, a)"""
    rows = bytearray()
    for y in range(height):
        for x in range(width):
            rows.extend(pixel(x, y))
    header = f"P7\nWIDTH {width}\nHEIGHT {height}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
    path.write_bytes(header.encode() + bytes(rows))


def run(*args):
    subprocess.run([str(a) for a in args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def covers():
    frames_dir = Path(tempfile.mkdtemp())
    (HERE / "covers").mkdir(exist_ok=True)
    width, height = 90, 160
    for cover in range(3):
        names = []
        for frame in range(9):
            name = frames_dir / f"cover{cover}-{frame}.pam"
            # A moving diagonal band over a per-cover gradient: every frame differs a little.
            def pixel(x, y, c=cover, f=frame):
                band = (x + y + 12 * f) % 60 < 12
                return (255, 255, 255, 255) if band else ((x * 3 + 70 * c) % 256, (y + 40 * c) % 256, (120 + 20 * f) % 256, 255)
            write_pam(name, width, height, pixel)
            names.append(name)
        args = ["img2webp", "-loop", "0", "-lossy", "-q", "70"]
        for name in names:
            args += ["-d", "100", name]
        run(*args, "-o", HERE / "covers" / f"cover-{cover}.webp")


def fast_pam(path, width, height, rows):
    """rows: bytes of width*height*4 RGBA, already built."""
    header = f"P7\nWIDTH {width}\nHEIGHT {height}\nDEPTH 4\nMAXVAL 255\nTUPLTYPE RGB_ALPHA\nENDHDR\n"
    path.write_bytes(header.encode() + bytes(rows))


def bench_covers():
    """Full-size covers: a per-cover gradient with a moving band, so every frame differs."""
    frames_dir = Path(tempfile.mkdtemp())
    (HERE / "bench").mkdir(exist_ok=True)
    width, height = 360, 640
    for cover, mode in enumerate(["lossy", "lossy", "lossy", "lossy", "lossless"]):
        names = []
        for frame in range(9):
            rows = bytearray()
            for y in range(height):
                row = bytearray()
                for x in range(width):
                    if (x + y + 40 * frame) % 200 < 30:
                        row += b"\xff\xf0\xe0\xff"
                    else:
                        row += bytes(((x + 50 * cover) % 256, (y // 3 + 30 * frame) % 256, (x + y) // 4 % 256, 255))
                rows += row
            name = frames_dir / f"bench{cover}-{frame}.pam"
            fast_pam(name, width, height, rows)
            names.append(name)
        args = ["img2webp", "-loop", "0"] + (["-lossy", "-q", "70"] if mode == "lossy" else ["-lossless"])
        for name in names:
            args += ["-d", "100", name]
        out = "cover-lossless.webp" if mode == "lossless" else f"cover-lossy-{cover}.webp"
        run(*args, "-o", HERE / "bench" / out)


def long_animation():
    """200 lossless frames on a fixed background with a square walking across it."""
    frames_dir = Path(tempfile.mkdtemp())
    width, height = 360, 640
    base = bytearray()
    for y in range(height):
        for x in range(width):
            base += bytes((x % 256, y % 256, 90, 255))
    args = ["img2webp", "-loop", "0", "-lossless"]
    for frame in range(200):
        rows = bytearray(base)
        left, top = (frame * 7) % (width - 40), (frame * 3) % (height - 40)
        for y in range(top, top + 40):
            start = (y * width + left) * 4
            rows[start:start + 160] = b"\xfa\x28\x28\xff" * 40
        name = frames_dir / f"long-{frame}.pam"
        fast_pam(name, width, height, rows)
        args += ["-d", "40", name]
    run(*args, "-o", HERE / "long-200.webp")


def lossless_opaque():
    """6 opaque frames, mostly the same with a moving square: img2webp's frame-difference
    optimisation turns them into sub-rectangles, so decoding must composite to get them back."""
    frames_dir = HERE / "frames"
    frames_dir.mkdir(exist_ok=True)
    width, height = 48, 32
    args = ["img2webp", "-loop", "2", "-lossless"]
    for frame in range(6):
        name = frames_dir / f"opaque-{frame}.pam"
        def pixel(x, y, f=frame):
            inside = 4 + 6 * f <= x < 14 + 6 * f and 8 <= y < 20
            return (250, 40, 40, 255) if inside else (x * 5, y * 7, 90, 255)
        write_pam(name, width, height, pixel)
        args += ["-d", str(80 + 10 * frame), name]
    run(*args, "-o", HERE / "lossless-opaque.webp")


def muxed():
    """Frames with alpha at offsets, every dispose × blend combination, put together by webpmux."""
    parts = Path(tempfile.mkdtemp())
    specs = [  # (width, height, x, y, dispose, blend, colour)
        (40, 30, 0, 0, 0, "-b", (30, 120, 200, 255)),
        (16, 12, 4, 6, 0, "+b", (255, 0, 0, 128)),
        (16, 12, 10, 10, 1, "+b", (0, 255, 0, 64)),
        (20, 10, 12, 4, 1, "-b", (0, 0, 255, 200)),
        (12, 12, 20, 14, 0, "-b", (255, 255, 0, 0)),
        (24, 16, 8, 8, 0, "+b", (200, 100, 50, 180)),
    ]
    args = ["webpmux"]
    for index, (w, h, x, y, dispose, blend, colour) in enumerate(specs):
        pam = parts / f"part{index}.pam"
        def pixel(px, py, c=colour):
            r, g, b, a = c
            return (r, g, b, a if (px + py) % 5 else min(255, a + 60))
        write_pam(pam, w, h, pixel)
        still = parts / f"part{index}.webp"
        run("cwebp", "-quiet", "-lossless", "-exact", pam, "-o", still)
        args += ["-frame", still, f"+{60 + index}+{x}+{y}+{dispose}{blend}"]
    run(*args, "-loop", "3", "-bgcolor", "255,255,255,255", "-o", HERE / "muxed-alpha.webp")


def stills():
    parts = Path(tempfile.mkdtemp())
    pam = parts / "still.pam"
    write_pam(pam, 33, 21, lambda x, y: (x * 7, y * 11, 128, 255 if x < 20 else 100))
    run("cwebp", "-quiet", "-q", "80", pam, "-o", HERE / "still-lossy-alpha.webp")
    run("cwebp", "-quiet", "-lossless", "-exact", pam, "-o", HERE / "still-lossless-alpha.webp")
    opaque = parts / "opaque.pam"
    write_pam(opaque, 33, 21, lambda x, y: (x * 7, y * 11, 128, 255))
    run("cwebp", "-quiet", "-q", "80", "-noalpha", opaque, "-o", HERE / "still-lossy.webp")


if __name__ == "__main__":
    covers()
    lossless_opaque()
    muxed()
    stills()
    bench_covers()
    long_animation()
