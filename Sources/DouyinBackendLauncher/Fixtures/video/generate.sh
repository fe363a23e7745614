#!/bin/sh
# Writes clip.mp4: 5 s of ffmpeg's test pattern at 360x640 (a portrait feed video), H.264 with
# the moov atom first (`+faststart`) as feed videos are served. Needs ffmpeg with libx264
# (Debian: apt-get install ffmpeg); the output is committed, so only a change needs this.
set -eu
cd "$(dirname "$0")"
ffmpeg -hide_banner -loglevel error -y \
    -f lavfi -i "testsrc2=size=360x640:rate=30:duration=5" \
    -f lavfi -i "sine=frequency=440:duration=5" \
    -c:v libx264 -preset medium -crf 30 -pix_fmt yuv420p -c:a aac -b:a 48k \
    -movflags +faststart -metadata title="DouyinKit fixture" clip.mp4
