// CRC-32C (Castagnoli) in the processor's own instructions: SSE 4.2 `crc32` on x86-64, the
// ARMv8 CRC extension on arm64. DouyinSupport's `CRC32C` calls these when
// `douyin_crc32c_hardware_available()` says so, and keeps its Swift table as the fallback.
#ifndef CDOUYINCRC32C_H
#define CDOUYINCRC32C_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when this processor has CRC-32C instructions this library can use, else 0. Decided once
/// (cpuid on x86-64, getauxval(AT_HWCAP) on Linux arm64); cheap to call again.
int douyin_crc32c_hardware_available(void);

/// The CRC-32C of `count` bytes at `bytes`, continuing from `seed` (the checksum of the bytes
/// before them; 0 for none). Only call when `douyin_crc32c_hardware_available()` is 1; the
/// result then equals the table implementation's. `bytes` may be NULL when `count` is 0.
uint32_t douyin_crc32c_hardware(uint32_t seed, const void *bytes, size_t count);

#ifdef __cplusplus
}
#endif

#endif
