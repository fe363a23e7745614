// CRC-32C with the processor's CRC instructions. The register these instructions update is the
// reflected CRC without the initial and final inversion, so the public function inverts on the
// way in and out, exactly as the table implementation in DouyinSupport does.
//
// x86-64: one `crc32` instruction has a latency of three cycles and a throughput of one per
// cycle, so one dependent chain runs at a third of the possible speed. The buffer is cut into
// three adjacent blocks checksummed at once, each chain independent; the three registers are
// then joined by "appending" the later blocks: running a register through n zero bytes is a
// linear map on its 32 bits, tabulated once per block length (four 256-entry tables, one per
// byte of the register), so a join costs eight table loads instead of a multiply.
//
// arm64: the ARMv8 CRC extension, one chain. Compiled on arm64 builds only and not run on the
// project's machine (x86-64); the tests run it wherever the package is tested on arm64.

#include "CDouyinCRC32C.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DOUYIN_CRC32C_X86 1
#include <cpuid.h>
#include <nmmintrin.h>
#include <pthread.h>
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define DOUYIN_CRC32C_ARM 1
#if defined(__APPLE__)
#include <sys/sysctl.h>
#elif defined(__linux__)
#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif
#endif
#endif

/// A little-endian 8-byte load from any address (memcpy compiles to one unaligned move).
__attribute__((unused)) static inline uint64_t load64(const unsigned char *p) {
    uint64_t value;
    memcpy(&value, p, sizeof value);
    return value;
}

#if DOUYIN_CRC32C_X86

/// Bytes per stream in the long and short rounds: a long round covers 24 KB, where the two
/// joins are lost in the work; the short round keeps three chains going for buffers from
/// 768 bytes up (a 100 KB cache entry ends in up to 31 of them).
enum { LONG_BLOCK = 8192, SHORT_BLOCK = 256 };

/// `shift[k][b]`: the register after `b << 8k` runs through one block of zero bytes.
typedef uint32_t ShiftTable[4][256];

static ShiftTable long_shift, short_shift;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static int has_sse42;

__attribute__((target("sse4.2")))
static uint32_t zeros(uint32_t crc, size_t count) {
    uint64_t value = crc;
    for (size_t i = 0; i < count / 8; i++) value = _mm_crc32_u64(value, 0);
    return (uint32_t)value;
}

/// Each single-bit register run through `block` zero bytes gives one column of the linear map;
/// every table entry is then the XOR of the columns of its set bits.
__attribute__((target("sse4.2")))
static void fill(ShiftTable table, size_t block) {
    uint32_t column[32];
    for (int bit = 0; bit < 32; bit++) column[bit] = zeros(UINT32_C(1) << bit, block);
    for (int k = 0; k < 4; k++) {
        table[k][0] = 0;
        for (int b = 1; b < 256; b++) {
            table[k][b] = table[k][b & (b - 1)] ^ column[8 * k + __builtin_ctz((unsigned)b)];
        }
    }
}

static void detect(void) {
    unsigned int eax, ebx, ecx, edx;
    // CPUID leaf 1, ECX bit 20: SSE 4.2 (which carries `crc32`).
    has_sse42 = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 20)) != 0;
    if (has_sse42) {
        fill(long_shift, LONG_BLOCK);
        fill(short_shift, SHORT_BLOCK);
    }
}

static inline uint32_t shift(const ShiftTable table, uint32_t crc) {
    return table[0][crc & 0xff] ^ table[1][(crc >> 8) & 0xff] ^ table[2][(crc >> 16) & 0xff] ^ table[3][crc >> 24];
}

int douyin_crc32c_hardware_available(void) {
    pthread_once(&tables_once, detect);
    return has_sse42;
}

/// Three chains over three adjacent blocks of `block` bytes each, joined into `crc`.
__attribute__((target("sse4.2")))
static inline uint32_t three_streams(uint32_t crc, const unsigned char *p, size_t block, const ShiftTable table) {
    uint64_t a = crc, b = 0, c = 0;
    for (size_t i = 0; i < block; i += 8) {
        a = _mm_crc32_u64(a, load64(p + i));
        b = _mm_crc32_u64(b, load64(p + block + i));
        c = _mm_crc32_u64(c, load64(p + 2 * block + i));
    }
    return shift(table, shift(table, (uint32_t)a) ^ (uint32_t)b) ^ (uint32_t)c;
}

__attribute__((target("sse4.2")))
uint32_t douyin_crc32c_hardware(uint32_t seed, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint32_t crc = ~seed;
    // Up to 7 bytes to an 8-byte boundary, so no load of a chain straddles a cache line.
    while (count > 0 && ((uintptr_t)p & 7) != 0) {
        crc = _mm_crc32_u8(crc, *p++);
        count--;
    }
    if (count >= 3 * SHORT_BLOCK) {
        // Tables are filled by the availability check callers make first; this makes the
        // order explicit for any caller that did not (one load once they are).
        pthread_once(&tables_once, detect);
        while (count >= 3 * LONG_BLOCK) {
            crc = three_streams(crc, p, LONG_BLOCK, (const uint32_t (*)[256])long_shift);
            p += 3 * LONG_BLOCK;
            count -= 3 * LONG_BLOCK;
        }
        while (count >= 3 * SHORT_BLOCK) {
            crc = three_streams(crc, p, SHORT_BLOCK, (const uint32_t (*)[256])short_shift);
            p += 3 * SHORT_BLOCK;
            count -= 3 * SHORT_BLOCK;
        }
    }
    uint64_t wide = crc;
    while (count >= 8) {
        wide = _mm_crc32_u64(wide, load64(p));
        p += 8;
        count -= 8;
    }
    crc = (uint32_t)wide;
    while (count > 0) {
        crc = _mm_crc32_u8(crc, *p++);
        count--;
    }
    return ~crc;
}

#elif DOUYIN_CRC32C_ARM

int douyin_crc32c_hardware_available(void) {
#if defined(__APPLE__)
    int value = 0;
    size_t size = sizeof value;
    return sysctlbyname("hw.optional.armv8_crc32", &value, &size, NULL, 0) == 0 && value != 0;
#elif defined(__linux__)
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
#else
    return 0;
#endif
}

__attribute__((target("crc")))
uint32_t douyin_crc32c_hardware(uint32_t seed, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint32_t crc = ~seed;
    while (count > 0 && ((uintptr_t)p & 7) != 0) {
        crc = __builtin_arm_crc32cb(crc, *p++);
        count--;
    }
    while (count >= 8) {
        crc = __builtin_arm_crc32cd(crc, load64(p));
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __builtin_arm_crc32cb(crc, *p++);
        count--;
    }
    return ~crc;
}

#else

int douyin_crc32c_hardware_available(void) { return 0; }

/// No CRC instructions on this architecture: a bit-at-a-time CRC, so the function still
/// answers correctly if called (DouyinSupport uses its table implementation here instead).
uint32_t douyin_crc32c_hardware(uint32_t seed, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint32_t crc = ~seed;
    while (count-- > 0) {
        crc ^= *p++;
        for (int bit = 0; bit < 8; bit++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
    }
    return ~crc;
}

#endif
