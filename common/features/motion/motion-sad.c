/* vmafhip — motion's SAD in plain C: the reference every SIMD version of
 * motion-simd.c equals, and their fallback (motion-simd.h). */
#include <stdlib.h>

#include "motion.h"
#include "motion-simd.h"

/* The blur's taps: one source with the GPU kernels. */
#include "motion-params.h"

/* Reflect-101 for indices at most VH_MOTION_RADIUS outside [0, n), n >= 3. */
static inline int
reflect101 (int i, int n)
{
  if (i < 0)
    return -i;
  if (i >= n)
    return 2 * n - 2 - i;
  return i;
}

/* Horizontal blur of one vertical-pass row and Σ|result|.
 *
 * Samples of the vertical pass are on a 16-bit scale, |v| <= 65520 for bpc
 * <= 12, so each symmetric pair times its tap fits int32 (16004 · 131040 <
 * 2^31); only the sum of the three would need int64, as in libvmaf. The row sum
 * is uint32 like libvmaf's (it cannot wrap below ~65000 columns). */
static inline uint32_t
hblur_row_abs_sum (const int32_t *restrict v, unsigned width)
{
  const int32_t *restrict v1 = v + 1, *restrict v2 = v + 2;
  const int32_t *restrict v3 = v + 3, *restrict v4 = v + 4;
  uint32_t sum = 0;
  for (unsigned x = 0; x < width; x++) {
    const int32_t a = VH_MOTION_TAP_OUTER * (v[x] + v4[x]);
    const int32_t b = VH_MOTION_TAP_INNER * (v1[x] + v3[x]);
    const int32_t c = VH_MOTION_TAP_CENTRE * v2[x];
    /* (a + b + c + 2^15) >> 16 without 64-bit lanes: each term split at
     * bit 16 (t = (t >> 16) 2^16 + (t & 0xffff), arithmetic shifts), the
     * high parts added, the low parts' carry added to them: the same
     * value, and the loop vectorises in 32-bit lanes */
    const int32_t high = (a >> 16) + (b >> 16) + (c >> 16);
    const int32_t low = (a & 0xffff) + (b & 0xffff) + (c & 0xffff)
        + (1 << 15);
    const int32_t val = high + (low >> 16);
    sum += (uint32_t) abs (val);
  }
  return sum;
}

/* One instance per sample type. Vertical pass: v = (Σ tap·(prev − cur) +
 * 2^(bpc−1)) >> bpc, i.e. Q8 for 8-bit and the same 16-bit scale for 10/12
 * bits; |Σ| <= 65536 · 4095 keeps it in int32. The shift of a negative value
 * is arithmetic (GCC/Clang, as libvmaf assumes). Rows whose vertical pass is
 * all zero add nothing, so they skip the horizontal pass, as libvmaf does. */
#define DEFINE_MOTION_SAD(suffix, pixel_t)                                    \
static uint64_t                                                               \
motion_sad_##suffix (const VhPlane *prev, const VhPlane *cur, unsigned bpc,   \
    int32_t *restrict vrow)                                                   \
{                                                                             \
  const int width = (int) prev->width, height = (int) prev->height;           \
  const int32_t rounding = 1 << (bpc - 1);                                    \
  int32_t *out = vrow + VH_MOTION_RADIUS;                                          \
  uint64_t sad = 0;                                                           \
                                                                              \
  for (int y = 0; y < height; y++) {                                          \
    const pixel_t *p[5], *c[5];                                               \
    for (int k = 0; k < 5; k++) {                                             \
      const ptrdiff_t r = reflect101 (y - VH_MOTION_RADIUS + k, height);           \
      p[k] = (const pixel_t *) ((const uint8_t *) prev->data                  \
          + r * prev->stride);                                                \
      c[k] = (const pixel_t *) ((const uint8_t *) cur->data                   \
          + r * cur->stride);                                                 \
    }                                                                         \
    /* named restrict rows: GCC then vectorises with plain loads */          \
    const pixel_t *restrict p0 = p[0], *restrict p1 = p[1];                   \
    const pixel_t *restrict p2 = p[2], *restrict p3 = p[3];                   \
    const pixel_t *restrict p4 = p[4], *restrict c0 = c[0];                   \
    const pixel_t *restrict c1 = c[1], *restrict c2 = c[2];                   \
    const pixel_t *restrict c3 = c[3], *restrict c4 = c[4];                   \
    int32_t any = 0;                                                          \
    for (int x = 0; x < width; x++) {                                         \
      const int32_t outer = (p0[x] - c0[x]) + (p4[x] - c4[x]);                \
      const int32_t inner = (p1[x] - c1[x]) + (p3[x] - c3[x]);                \
      const int32_t centre = p2[x] - c2[x];                                   \
      const int32_t v = (VH_MOTION_TAP_OUTER * outer                          \
          + VH_MOTION_TAP_INNER * inner + VH_MOTION_TAP_CENTRE * centre       \
          + rounding) >> bpc;                                                 \
      out[x] = v;                                                             \
      any |= v;                                                               \
    }                                                                         \
    if (!any)                                                                 \
      continue;                                                               \
    out[-2] = out[2];                                                         \
    out[-1] = out[1];                                                         \
    out[width] = out[width - 2];                                              \
    out[width + 1] = out[width - 3];                                          \
    sad += hblur_row_abs_sum (vrow, (unsigned) width);                        \
  }                                                                           \
  return sad;                                                                 \
}

DEFINE_MOTION_SAD (8, uint8_t)
DEFINE_MOTION_SAD (16, uint16_t)

/* The reference and the fallback: plain C, built for the baseline only
 * (where AVX2 or NEON runs, motion-simd.c's versions take over). */
uint64_t
vh_motion_sad_c (const VhPlane *prev, const VhPlane *cur, unsigned bpc,
    void *scratch)
{
  if (bpc == 8)
    return motion_sad_8 (prev, cur, bpc, scratch);
  return motion_sad_16 (prev, cur, bpc, scratch);
}
