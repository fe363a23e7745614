// The parts of the system's libwebp that DouyinWebP uses: still-image decoding and the
// container demuxer. Nothing of libwebp is vendored; pkg-config finds it (libwebpdemux).
#include <webp/decode.h>
#include <webp/demux.h>
