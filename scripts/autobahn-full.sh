#!/bin/sh
# The Autobahn groups too long for `swift test` in a debug build (issue 25): 9, 12 and 13 whole
# by default, against a release `douyinkit ws echo`. `make test` runs 9 whole and 168 of the 216
# cases of 12 and 13 (every data set and offer variant, the sizes up to 64 KiB and some larger:
# AutobahnRun.compressionCases in Tests/DouyinChatTests/AutobahnTests.swift); this script also
# covers the other 48. Prints each case's verdict and a count of behaviours; exits 1 when a
# case failed.
#
#   swift build -c release --product douyinkit && scripts/autobahn-full.sh ['12.*' ...]
#
# Needs .build/autobahn-venv (scripts/install-deps.sh test) and python3-websockets for the
# run's first and last request.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
tool="${DOUYINKIT:-$root/.build/release/douyinkit}"
[ -x "$tool" ] || { echo "error: no $tool (swift build -c release --product douyinkit)" >&2; exit 1; }
[ $# -gt 0 ] || set -- '9.*' '12.*' '13.*'
include=""
for group in "$@"; do include="$include --include $group"; done

work="$(mktemp -d)"
trap 'rm -rf "$work"; [ -n "${holder:-}" ] && kill "$holder" 2>/dev/null || true' EXIT
mkfifo "$work/stdin"
: > "$work/out"
# The server exits when its stdin closes: a sleeping holder keeps it open for the run.
sleep 86400 > "$work/stdin" &
holder=$!
# shellcheck disable=SC2086
"$root/.build/autobahn-venv/bin/python" "$root/scripts/servers/ws_autobahn_server.py" $include < "$work/stdin" > "$work/out" &
server=$!
while ! grep -q '^listening on ' "$work/out"; do
    kill -0 "$server" 2>/dev/null || { echo "error: the fuzzing server did not start" >&2; exit 1; }
    sleep 0.1
done
base="ws://127.0.0.1:$(sed -n 's/^listening on 127.0.0.1://p' "$work/out")"
ask() { # <path>: the first message of a request (or nothing), through python3-websockets
    /usr/bin/python3 -c "
import asyncio, sys, websockets
async def main():
    async with websockets.connect(sys.argv[1]) as socket:
        try: print(await socket.recv())
        except websockets.ConnectionClosed: pass
asyncio.run(main())" "$base$1"
}
count="$(ask /getCaseCount)"
start=$(date +%s)
index=1
while [ "$index" -le "$count" ]; do
    "$tool" ws echo "$base/runCase?case=$index&agent=douyinkit" --timeout 600 || echo "case $index: ws echo exited $?" >&2
    index=$((index + 1))
done
ask "/updateReports?agent=douyinkit" >/dev/null
while ! grep -q '^END' "$work/out"; do sleep 0.2; done
elapsed=$(( $(date +%s) - start ))
grep '^CASE ' "$work/out"
echo "$count cases in $elapsed s: $(grep '^CASE ' "$work/out" | awk '{print $3}' | sort | uniq -c | awk '{printf "%s %s  ", $2, $1}')"
! grep -q '^CASE .* failed ' "$work/out"
