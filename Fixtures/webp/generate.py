#!/usr/bin/env python3
"""Makes DouyinKit's WebP fixtures with libwebp's own tools (Debian package `webp`).

Source frames are PAM files written here, so every expected pixel is known:
- covers/cover-N.webp: 9-frame animated covers (lossy, as the app receives them), via img2webp;
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


if __name__ == "__main__":
    covers()
