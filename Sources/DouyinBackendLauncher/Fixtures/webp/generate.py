#!/usr/bin/env python3
"""Makes DouyinKit's WebP fixtures with libwebp's own tools (Debian package `webp`).

Source frames are PAM files written here, so every expected pixel is known:
- covers/cover-N.webp: 9-frame animated covers (lossy, as the app receives them), via img2webp;
- bench/cover-lossy-N.webp, bench/cover-lossless.webp: 9-frame 360x640 covers for the benchmark;
- long-200.webp: a 200-frame 360x640 animation for the memory-budget test and benchmark;
- low-alpha-*.webp: semi-transparent animations with low alpha (1…40 over 255), put together by
  webpmux from alpha PNG frames (lossy with -alpha_q, and lossless), where a straight-alpha
  canvas differs most from a premultiplied one divided back;
- tiny/: stills of 1x1 and 13x1, the smallest files cwebp writes, and files carrying ICC, EXIF
  and XMP chunks (a still and an animation).
Run from anywhere; needs img2webp, webpmux and cwebp on PATH.
"""
import struct
import subprocess
import tempfile
import zlib
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


def write_png(path, width, height, pixel):
    """An 8-bit RGBA PNG (colour type 6, no filtering); pixel(x, y) -> (r, g, b, a)."""
    raw = bytearray()
    for y in range(height):
        raw.append(0)
        for x in range(width):
            raw.extend(pixel(x, y))

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 9))
                     + chunk(b"IEND", b""))


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


def low_alpha():
    """Semi-transparent frames, mostly alpha 1…40, blended over each other at offsets with every
    dispose x blend combination: webpmux from alpha PNG frames, once lossy (cwebp -alpha_q) and
    once lossless (with and without -exact, which keeps the colour under alpha 0)."""
    parts = Path(tempfile.mkdtemp())
    specs = [  # (width, height, x, y, dispose, blend)
        (48, 40, 0, 0, 0, "-b"),
        (30, 24, 6, 4, 0, "+b"),
        (24, 20, 14, 10, 1, "+b"),
        (28, 22, 10, 12, 0, "+b"),
        (20, 16, 2, 2, 1, "-b"),
        (36, 30, 8, 6, 0, "+b"),
        (48, 40, 0, 0, 0, "+b"),
    ]
    for kind in ("lossy", "lossless"):
        args = ["webpmux"]
        for index, (w, h, x, y, dispose, blend) in enumerate(specs):
            png = parts / f"{kind}{index}.png"
            def pixel(px, py, i=index):
                # Colours sweep the whole range; alpha stays low, with a few opaque and fully
                # transparent pixels so every branch of the blend is taken.
                alpha = 1 + (px * 3 + py * 5 + 7 * i) % 40
                if (px + 2 * py + i) % 17 == 0:
                    alpha = 255
                elif (px * py + i) % 13 == 0:
                    alpha = 0
                return ((px * 37 + 60 * i) % 256, (py * 53 + 90 * i) % 256, (px * py * 7 + 30 * i) % 256, alpha)
            write_png(png, w, h, pixel)
            still = parts / f"{kind}{index}.webp"
            if kind == "lossy":
                run("cwebp", "-quiet", "-q", "75", "-alpha_q", str(min(100, 10 + 15 * index)), png, "-o", still)
            else:
                run("cwebp", "-quiet", "-lossless", *(["-exact"] if index % 2 else []), png, "-o", still)
            args += ["-frame", still, f"+{50 + index}+{x}+{y}+{dispose}{blend}"]
        run(*args, "-loop", "0", "-o", HERE / f"low-alpha-{kind}.webp")
    # img2webp from the same kind of frames: it picks sub-rectangles and blending itself.
    names = []
    for frame in range(5):
        png = parts / f"img2webp{frame}.png"
        write_png(png, 40, 32, lambda px, py, f=frame: (
            (px * 41 + 50 * f) % 256, (py * 29) % 256, 200, 2 + (px + py + 3 * f) % 24 if (px + f) % 9 else 255))
        names.append(png)
    args = ["img2webp", "-loop", "0", "-lossy", "-q", "60"]
    for name in names:
        args += ["-d", "80", name]
    run(*args, "-o", HERE / "low-alpha-img2webp.webp")


def tiny_and_metadata():
    """Edge stills: 1x1 and 13x1, the smallest files cwebp writes, and ICC / EXIF / XMP chunks."""
    parts = Path(tempfile.mkdtemp())
    out = HERE / "tiny"
    out.mkdir(exist_ok=True)
    one = parts / "one.png"
    write_png(one, 1, 1, lambda x, y: (200, 30, 90, 77))
    run("cwebp", "-quiet", "-lossless", "-exact", one, "-o", out / "one-lossless-alpha.webp")
    run("cwebp", "-quiet", "-q", "90", one, "-o", out / "one-lossy-alpha.webp")
    opaque_one = parts / "one-opaque.png"
    write_png(opaque_one, 1, 1, lambda x, y: (0, 0, 0, 255))
    run("cwebp", "-quiet", "-lossless", opaque_one, "-o", out / "one-lossless-opaque.webp")
    row = parts / "row.png"
    write_png(row, 13, 1, lambda x, y: (x * 19, 255 - x * 19, 128, 20 * x))
    run("cwebp", "-quiet", "-q", "80", "-alpha_q", "60", row, "-o", out / "row-13x1-lossy-alpha.webp")
    run("cwebp", "-quiet", "-lossless", "-exact", row, "-o", out / "row-13x1-lossless.webp")
    # Metadata chunks: cwebp writes a VP8X header when any are set.
    icc = parts / "profile.icc"
    icc.write_bytes(b"\x00\x00\x01\x00DKit" + bytes(range(248)))
    exif = parts / "exif.bin"
    exif.write_bytes(b"Exif\x00\x00II*\x00\x08\x00\x00\x00\x00\x00")
    xmp = parts / "xmp.xml"
    xmp.write_text('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>')
    still = parts / "still.webp"
    write_png(parts / "meta.png", 13, 7, lambda x, y: (x * 19, y * 36, 99, 40 + x * 15))
    run("cwebp", "-quiet", "-q", "80", parts / "meta.png", "-o", still)
    with_icc = parts / "icc.webp"
    run("webpmux", "-set", "icc", icc, still, "-o", with_icc)
    with_exif = parts / "exif.webp"
    run("webpmux", "-set", "exif", exif, with_icc, "-o", with_exif)
    run("webpmux", "-set", "xmp", xmp, with_exif, "-o", out / "still-icc-exif-xmp.webp")
    animated = parts / "animated.webp"
    run("webpmux", "-frame", out / "one-lossless-alpha.webp", "+70+0+0+0-b",
        "-frame", out / "one-lossy-alpha.webp", "+70+0+0+0+b", "-loop", "1", "-o", animated)
    animated_icc = parts / "animated-icc.webp"
    run("webpmux", "-set", "icc", icc, animated, "-o", animated_icc)
    run("webpmux", "-set", "xmp", xmp, animated_icc, "-o", out / "animated-icc-xmp.webp")


if __name__ == "__main__":
    covers()
    lossless_opaque()
    muxed()
    stills()
    bench_covers()
    long_animation()
    low_alpha()
    tiny_and_metadata()
