// zlib (Debian zlib1g-dev) for DouyinChat's permessage-deflate (RFC 7692) on Linux.
// deflateInit2 and inflateInit2 are macros; Swift calls these wrappers instead.
#ifndef DOUYIN_CZLIB_SHIM_H
#define DOUYIN_CZLIB_SHIM_H

#include <zlib.h>

/// A raw-deflate compressor (no zlib header) with a window of 2^windowBits bytes.
static inline int douyin_deflate_init_raw(z_stream *stream, int level, int windowBits) {
    return deflateInit2(stream, level, Z_DEFLATED, -windowBits, 8, Z_DEFAULT_STRATEGY);
}

/// A raw-deflate decompressor with a window of 2^windowBits bytes.
static inline int douyin_inflate_init_raw(z_stream *stream, int windowBits) {
    return inflateInit2(stream, -windowBits);
}

#endif
