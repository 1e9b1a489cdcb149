/* vmafhip — motion's SAD of a whole plane pair (vh_motion_sad's integer):
 * the plain C (motion.c, the reference and the fallback) and hand-written
 * versions, x86-64 AVX2 and AVX-512 or aarch64 NEON (motion-simd.c).
 *
 * Every version gives the same integer: the vertical pass is exact
 * integer arithmetic in any order, the horizontal pass's rounding is
 * reproduced exactly, and each row's Σ|·| is taken modulo 2^32 (uint32,
 * as libvmaf) before it joins the uint64 total.  Samples must lie within
 * bpc (the engine refuses others), which also keeps prev − cur in int16.
 * test-motion-psnr-simd runs every version against the plain C. */
#ifndef VH_MOTION_SIMD_H
#define VH_MOTION_SIMD_H

#include <stddef.h>
#include <stdint.h>

#include "vh-picture.h"

/* Scratch a version needs for planes `width` samples wide: the C's int32
 * row with the blur's margins; the vector versions' int32 row and five
 * int16 rows, each on a cache line of its own. */
#define VH_MOTION_SAD_SCRATCH_BYTES(width) \
  (sizeof (int32_t) * ((size_t) (width) + 64) \
      + 5 * sizeof (int16_t) * ((size_t) (width) + 64))

/* Σ|blur (prev − cur)| of two planes of one size (at least 3x3, step 1,
 * bpc 8, 10 or 12, checked by the caller); `scratch` holds
 * VH_MOTION_SAD_SCRATCH_BYTES (width) bytes. */
typedef uint64_t (*VhMotionSadFunc) (const VhPlane *prev, const VhPlane *cur,
    unsigned bpc, void *scratch);

typedef struct {
  const char *name;
  VhMotionSadFunc sad;
} VhMotionSadVersion;

/* The plain C (motion-sad.c). */
uint64_t vh_motion_sad_c (const VhPlane *prev, const VhPlane *cur,
    unsigned bpc, void *scratch);

/* What motion uses: the best hand-written version the CPU runs within
 * the SIMD cap (vh_cpu_set_simd_cap), else the plain C. */
VhMotionSadFunc vh_motion_sad_best (void);

/* Every hand-written version this CPU runs, best first, up to max (tests:
 * not capped). */
unsigned vh_motion_sad_all (const VhMotionSadVersion **out, unsigned max);

#endif /* VH_MOTION_SIMD_H */
