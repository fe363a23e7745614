#!/bin/sh
# Runs the targets Fuzz/build.sh built. LeakSanitizer reads Fuzz/lsan.supp; a crash, a leak, a
# hang (-timeout, seconds per input) or a broken property stops a run and leaves its input in
# .build/fuzz/crashes/.
#   Fuzz/run.sh fuzz <target> <seconds>   fuzz from the kept corpus (Fuzz/Corpus/<target>) and
#                                         the fixtures' seeds; new inputs go to .build/fuzz/work
#   Fuzz/run.sh smoke <seconds>           every target over its kept corpus only, then mutating
#                                         it for <seconds>; nothing is written to the repo
#   Fuzz/run.sh merge <target>            keeps in Fuzz/Corpus/<target> a smallest set of the inputs of it and
#                                         of .build/fuzz/work/<target> covering what they all cover (-set_cover_merge=1)
#   Fuzz/run.sh replay <target> <file>    runs one input (a crash) once, with the output
set -eu
cd "$(dirname "$0")/.."
OUT=${FUZZ_OUT:-.build/fuzz}
# The Swift runtime's backtracer off: libFuzzer prints the stack, and the backtracer once hung
# attached to a crashed target.
export SWIFT_BACKTRACE=enable=no
export LSAN_OPTIONS="suppressions=$PWD/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
# -rss_limit_mb: a parser whose memory an input can blow up fails the run; -timeout: 10 s per input.
LIMITS="-rss_limit_mb=2048 -timeout=10 -max_len=16384"
mkdir -p "$OUT/crashes" "$OUT/work"

# seeds <target> <directory>: copies the package's fixtures that suit the target.
seeds() {
    case $1 in
        HLSPlaylist) find Fixtures -name '*.m3u8' -exec cp {} "$2/" \; 2>/dev/null || true ;;
        # The index target writes a valid video index and disk entry, its encoders' own output.
        IndexFiles) FUZZ_SEED_DIR="$2" "$OUT/IndexFiles" -runs=0 >/dev/null 2>&1 || true ;;
        WebP) cp Fixtures/webp/still-*.webp Fixtures/webp/low-alpha-*.webp Fixtures/webp/muxed-alpha.webp Fixtures/webp/lossless-opaque.webp "$2/" 2>/dev/null || true ;;
        # The API's JSON: the fixtures and the demo's captured responses (../shared/captures or
        # $DOUYIN_CAPTURES, as the tests find them), when that folder exists.
        JSONModels)
            cp Fixtures/api/*.json Fixtures/feed/feed.json "$2/" 2>/dev/null || true
            captures=${DOUYIN_CAPTURES:-../shared/captures}
            if [ -d "$captures" ]; then
                find "$captures" -name '*.json' | while read -r file; do cp "$file" "$2/capture$(echo "$file" | tr / _)"; done
            fi ;;
        GiftScript) cp Fixtures/gift/*.script "$2/" 2>/dev/null || true ;;
        MP4Boxes) cp Fixtures/video/clip.mp4 Fixtures/feed/moov-at-end.mp4 "$2/" 2>/dev/null || true ;;
    esac
}

case $1 in
fuzz)
    work="$OUT/work/$2"
    mkdir -p "$work" "Fuzz/Corpus/$2"
    seeds "$2" "$work"
    dict=""
    [ -f "Fuzz/$2.dict" ] && dict="-dict=Fuzz/$2.dict"
    # shellcheck disable=SC2086
    "$OUT/$2" $LIMITS $dict -max_total_time="$3" -print_final_stats=1 -artifact_prefix="$OUT/crashes/$2-" "$work" "Fuzz/Corpus/$2"
    ;;
smoke)
    for binary in $(ls Fuzz/Targets | sed 's/\.swift$//'); do
        scratch=$(mktemp -d)
        echo "fuzz smoke: $binary"
        # shellcheck disable=SC2086
        "$OUT/$binary" $LIMITS -max_total_time="$2" -artifact_prefix="$OUT/crashes/$binary-" "$scratch" "Fuzz/Corpus/$binary" 2>"$scratch.log" \
            || { tail -40 "$scratch.log"; rm -rf "$scratch" "$scratch.log"; exit 1; }
        grep -h "^Done" "$scratch.log" || true
        rm -rf "$scratch" "$scratch.log"
    done
    ;;
merge)
    mkdir -p "Fuzz/Corpus/$2" "$OUT/work/$2"
    merged=$(mktemp -d)
    # shellcheck disable=SC2086
    # JSON pages are long: kept at 1 KB they keep 98 % of the edges in a tenth of the bytes.
    length=16384
    [ "$2" = JSONModels ] && length=1024
    "$OUT/$2" $LIMITS -max_len=$length -set_cover_merge=1 "$merged" "Fuzz/Corpus/$2" "$OUT/work/$2"
    rm -rf "Fuzz/Corpus/$2" && mv "$merged" "Fuzz/Corpus/$2"
    ;;
replay)
    # shellcheck disable=SC2086
    "$OUT/$2" $LIMITS "$3"
    ;;
esac
