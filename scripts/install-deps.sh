#!/bin/sh
# Installs what DouyinKit needs and this machine lacks. `install-deps.sh` installs the build
# dependencies (libwebp; on Linux libcurl for the HTTP transport, OpenSSL and zlib for the chat
# client's wss:// and compression) and ffmpeg, the player the demo's proxy section runs;
# `install-deps.sh test` adds what the tests use (nginx, libwebp's tools, curl, python3-venv,
# gdb on Linux, and the Autobahn case runner kosoku 0.1.0 from PyPI in .build/autobahn-venv).
set -eu

root="$(cd "$(dirname "$0")/.." && pwd)"

# The Autobahn WebSocket suite's case files, run from Python 3 by kosoku (pinned): its own
# virtual environment, so nothing is installed into the system's Python.
autobahn_venv() {
    venv="$root/.build/autobahn-venv"
    if "$venv/bin/python" -c 'import kosoku' >/dev/null 2>&1; then return 0; fi
    mkdir -p "$root/.build"
    if [ -x /usr/bin/python3 ]; then /usr/bin/python3 -m venv "$venv"; else python3 -m venv "$venv"; fi
    "$venv/bin/pip" install --quiet --disable-pip-version-check 'kosoku==0.1.0'
}
finish() {
    if [ "${1:-}" = "test" ]; then autobahn_venv; fi
    exit 0
}

missing_debian=""
missing_brew=""
want() { # <present?> <debian package> <brew formula>
    if ! eval "$1" >/dev/null 2>&1; then
        missing_debian="$missing_debian $2"
        missing_brew="$missing_brew $3"
    fi
}

want "command -v pkg-config" pkg-config pkg-config
want "pkg-config --exists libwebpdemux" libwebp-dev webp
# DouyinChat's own client on Linux: wss:// through OpenSSL, permessage-deflate through zlib (the
# COpenSSL and CZlib shims; Apple platforms use URLSession and need neither).
if [ "$(uname -s)" != "Darwin" ]; then
    want "pkg-config --exists openssl" libssl-dev libssl-dev
    want "pkg-config --exists zlib" zlib1g-dev zlib1g-dev
    # The HTTP transport on Linux: libcurl's multi interface (the CCurl shim).
    want "pkg-config --exists libcurl" libcurl4-openssl-dev curl
fi
# ffmpeg is the real player the demo's proxy section plays through (and makes the tests' media).
want "command -v ffmpeg" ffmpeg ffmpeg
# The local API backend's WebSocket push, which the demo's chat sections use too: Debian's
# package (seen by /usr/bin/python3), or pip on macOS.
if [ "$(uname -s)" = "Darwin" ]; then
    python3 -c "import websockets" >/dev/null 2>&1 || pip3 install websockets
else
    want "/usr/bin/python3 -c 'import websockets'" python3-websockets python3-websockets
fi
if [ "${1:-}" = "test" ]; then
    want "command -v nginx || test -x /usr/sbin/nginx" nginx nginx
    want "command -v img2webp && command -v webpmux && command -v cwebp" webp webp
    # curl checks the proxy's HTTP semantics.
    want "command -v curl" curl curl
    # The Autobahn runner's virtual environment (finish below makes it).
    if [ "$(uname -s)" != "Darwin" ]; then
        want "/usr/bin/python3 -c 'import ensurepip, venv'" python3-venv python3-venv
        # The test harness records a hung child's stacks before its time limit ends it.
        want "test -x /usr/bin/gdb" gdb gdb
    fi
fi

[ -z "$missing_debian" ] && finish "${1:-}"

if [ "$(uname -s)" = "Darwin" ]; then
    if command -v brew >/dev/null 2>&1; then
        echo "installing with brew:$missing_brew"
        # shellcheck disable=SC2086
        brew install $missing_brew
        finish "${1:-}"
    fi
    echo "error: missing$missing_brew; install Homebrew, then run: brew install$missing_brew" >&2
    exit 1
fi

if command -v apt-get >/dev/null 2>&1; then
    if [ "$(id -u)" -eq 0 ]; then
        as_root=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
        as_root="sudo"
    else
        echo "error: missing$missing_debian; run as root: apt-get install$missing_debian" >&2
        exit 1
    fi
    echo "installing with apt-get:$missing_debian"
    $as_root apt-get update -qq
    # shellcheck disable=SC2086
    DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq --no-install-recommends $missing_debian
    finish "${1:-}"
fi

echo "error: missing$missing_debian and no apt-get or brew here; install them by hand" >&2
exit 1
