#!/bin/sh
# Builds every libFuzzer target into .build/fuzz: the package's modules once each, as static
# libraries instrumented for libFuzzer and AddressSanitizer, then one small executable per
# Fuzz/Targets/<name>.swift linked against them. `make fuzz` and `make test` call it; a second
# run recompiles only what changed (a module whose sources, or a module below it, are newer).
# Usage: Fuzz/build.sh [target...]   (no target: all of them)
set -eu
cd "$(dirname "$0")/.."
# FUZZ_OUT and FUZZ_OPT: where and how; `make test`'s smoke builds with -Onone into its own
# directory (half the compile time; a smoke run's few thousand inputs need no speed).
OUT=${FUZZ_OUT:-.build/fuzz}
OPT=${FUZZ_OPT:--O}
mkdir -p "$OUT/obj"
SWIFTC=${SWIFTC:-swiftc}
# -O by default: libFuzzer's throughput matters more than the build's seconds. Swift has no
# -sanitize=undefined; its own checks (overflow, bounds, force-unwrap) trap in -O builds, and
# a trap is a crash libFuzzer reports. -enable-testing: a target may `@testable import` the
# internal type it drives (as some tests do), so the parser under test needs no new API.
FLAGS="-sanitize=fuzzer,address -parse-as-library -swift-version 6 $OPT -package-name DouyinKit
 -enable-upcoming-feature ExistentialAny -warnings-as-errors -num-threads 2 -enable-testing -I $OUT
 -I Sources/CCurl -I Sources/CLinux -I Sources/CDouyinCRC32C/include -I Sources/CZlib -I Sources/COpenSSL"

# CRC-32C's C half (DouyinSupport calls it), compiled as SwiftPM does, without instrumentation.
if [ ! -f "$OUT/obj/crc32c.o" ] || [ Sources/CDouyinCRC32C/CDouyinCRC32C.c -nt "$OUT/obj/crc32c.o" ]; then
    clang -O2 -c -I Sources/CDouyinCRC32C/include Sources/CDouyinCRC32C/CDouyinCRC32C.c -o "$OUT/obj/crc32c.o"
    ar rcs "$OUT/libCDouyinCRC32C.a" "$OUT/obj/crc32c.o"
fi

# module <name> <extra flags> <modules it imports>: rebuilds when a source or a dependency's
# library is newer than its own library.
module() {
    name=$1; extra=$2; shift 2
    lib="$OUT/lib$name.a"
    sources=$(find "Sources/$name" -name '*.swift' | sort)
    stale=no
    [ -f "$lib" ] || stale=yes
    for f in $sources; do [ "$stale" = yes ] || [ "$f" -nt "$lib" ] && stale=yes; done
    for d in "$@"; do [ "$OUT/lib$d.a" -nt "$lib" ] && stale=yes; done
    [ "$stale" = no ] && return 0
    echo "fuzz: compiling $name"
    # shellcheck disable=SC2086
    $SWIFTC $FLAGS $extra -module-name "$name" -emit-module -emit-module-path "$OUT/$name.swiftmodule" \
        -emit-library -static -o "$lib" $sources
}

module DouyinSupport ""
module DouyinLogging ""
module DouyinModels ""
module DouyinVideoCache "" DouyinSupport DouyinLogging
module DouyinAPI "" DouyinSupport DouyinLogging DouyinModels
module DouyinChat "" DouyinSupport DouyinLogging DouyinModels DouyinAPI
module DouyinCache "" DouyinSupport DouyinLogging
module DouyinGift "" DouyinSupport DouyinModels
WEBP_FLAGS="-I Sources/CWebP $(pkg-config --cflags-only-I libwebpdemux | sed 's/-I/-Xcc -I/g')"
module DouyinWebP "$WEBP_FLAGS" DouyinSupport

# Every module's library, dependents first (a static library is searched once, in order).
LIBS="-L $OUT -lDouyinChat -lDouyinAPI -lDouyinVideoCache -lDouyinCache -lDouyinGift -lDouyinWebP -lDouyinModels
 -lDouyinSupport -lDouyinLogging -lCDouyinCRC32C -lcurl -lz -lssl -lcrypto $(pkg-config --libs libwebpdemux)"

# target <name>: Fuzz/Targets/<name>.swift and Fuzz/Common.swift, linked into $OUT/<name>.
target() {
    binary="$OUT/$1"
    if [ -f "$binary" ] && [ ! "Fuzz/Targets/$1.swift" -nt "$binary" ] && [ ! Fuzz/Common.swift -nt "$binary" ] \
        && [ -z "$(find "$OUT" -name 'lib*.a' -newer "$binary")" ]; then return 0; fi
    echo "fuzz: linking $1"
    # shellcheck disable=SC2086
    # lld: gold warns about every sanitizer symbol it cannot export.
    $SWIFTC $FLAGS $WEBP_FLAGS -use-ld=lld Fuzz/Common.swift "Fuzz/Targets/$1.swift" $LIBS -o "$binary"
}

if [ $# -eq 0 ]; then set -- $(ls Fuzz/Targets | sed 's/\.swift$//'); fi
for name in "$@"; do target "$name"; done
