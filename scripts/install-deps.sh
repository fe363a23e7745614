#!/bin/sh
# Installs what DouyinKit needs and this machine lacks. `install-deps.sh` installs the build
# dependency (libwebp); `install-deps.sh test` adds what the tests use (nginx, libwebp's tools, ffmpeg, curl).
set -eu

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
    # ffmpeg makes the test media and is the player through the local proxy; curl checks its
    # HTTP semantics.
    want "command -v ffmpeg" ffmpeg ffmpeg
    want "command -v curl" curl curl
fi

[ -z "$missing_debian" ] && exit 0

if [ "$(uname -s)" = "Darwin" ]; then
    if command -v brew >/dev/null 2>&1; then
        echo "installing with brew:$missing_brew"
        # shellcheck disable=SC2086
        brew install $missing_brew
        exit 0
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
    exit 0
fi

echo "error: missing$missing_debian and no apt-get or brew here; install them by hand" >&2
exit 1
