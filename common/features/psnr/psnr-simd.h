/* vmafhip — PSNR's sum of squared errors of a planar plane pair: the
 * plain C (psnr.c, the reference and the fallback) and hand-written
 * versions, x86-64 AVX2 and AVX-512 or aarch64 NEON (psnr-simd.c).
 *
 * Integer sums in any order give the same result; 8-bit rows are summed
 * modulo 2^32 (uint32, as libvmaf) before they join the uint64 total,
 * 16-bit rows in full.  The x86 versions square ref − dis as int16, so
 * |ref − dis| must stay below 2^15 (any samples within 15 bits, so every
 * 10- or 12-bit picture).  test-motion-psnr-simd runs every version
 * against the plain C. */
#ifndef VH_PSNR_SIMD_H
#define VH_PSNR_SIMD_H

#include <stdint.h>

#include "vh-picture.h"

/* Σ (ref − dis)² of two planes of one size, both with step 1; bpc 8 reads
 * bytes, 10 and 12 16-bit words (checked by the caller). */
typedef uint64_t (*VhPsnrSseFunc) (const VhPlane *ref, const VhPlane *dis,
    unsigned bpc);

typedef struct {
  const char *name;
  VhPsnrSseFunc sse;
} VhPsnrSseVersion;

/* The plain C (psnr-sse.c). */
uint64_t vh_psnr_sse_planar_c (const VhPlane *ref, const VhPlane *dis,
    unsigned bpc);
/* Pairs with a sample step (interleaved chroma): plain C only */
uint64_t vh_psnr_sse_stepped_c (const VhPlane *ref, const VhPlane *dis,
    unsigned bpc);

/* What PSNR uses: the best hand-written version the CPU runs within
 * the SIMD cap (vh_cpu_set_simd_cap), else the plain C. */
VhPsnrSseFunc vh_psnr_sse_best (void);

/* Every hand-written version this CPU runs, best first, up to max (tests:
 * not capped). */
unsigned vh_psnr_sse_all (const VhPsnrSseVersion **out, unsigned max);

#endif /* VH_PSNR_SIMD_H */
