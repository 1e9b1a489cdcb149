/* vmafhip — PSNR's sum of squared errors in plain C: the reference every
 * SIMD version of psnr-simd.c equals, their fallback, and the only version
 * for pairs with a sample step (psnr-simd.h). */
#include <stddef.h>
#include <stdint.h>

#include "psnr-simd.h"

/* One instance per sample type and sample step. The 8-bit row sum is uint32
 * like libvmaf's (it could only wrap past 66000 columns); the 16-bit one is
 * uint64 since 4095² per sample fills 32 bits within a row. The unsigned
 * square of the difference is exact (|e| < 2^16). */
#define DEFINE_PLANE_SSE(name, pixel_t, row_sum_t, REF_STEP, DIS_STEP)        \
static uint64_t                                                               \
name (const VhPlane *ref, const VhPlane *dis)                                 \
{                                                                             \
  const size_t ref_step = (REF_STEP), dis_step = (DIS_STEP);                  \
  uint64_t sse = 0;                                                           \
  for (unsigned y = 0; y < ref->height; y++) {                                \
    const pixel_t *r = (const pixel_t *) ((const uint8_t *) ref->data         \
        + (ptrdiff_t) y * ref->stride);                                       \
    const pixel_t *d = (const pixel_t *) ((const uint8_t *) dis->data         \
        + (ptrdiff_t) y * dis->stride);                                       \
    row_sum_t row_sum = 0;                                                    \
    for (size_t x = 0; x < ref->width; x++) {                                 \
      const int32_t e = (int32_t) r[x * ref_step] - (int32_t) d[x * dis_step]; \
      row_sum += (uint32_t) e * (uint32_t) e;                                 \
    }                                                                         \
    sse += row_sum;                                                           \
  }                                                                           \
  return sse;                                                                 \
}

/* Planar pairs get constant steps so that the loops vectorise. */
DEFINE_PLANE_SSE (plane_sse_8, uint8_t, uint32_t, 1, 1)
DEFINE_PLANE_SSE (plane_sse_16, uint16_t, uint64_t, 1, 1)
DEFINE_PLANE_SSE (plane_sse_8_stepped, uint8_t, uint32_t, ref->step, dis->step)
DEFINE_PLANE_SSE (plane_sse_16_stepped, uint16_t, uint64_t, ref->step,
    dis->step)

/* The reference and the fallback for planar pairs (psnr-simd.h). */
uint64_t
vh_psnr_sse_planar_c (const VhPlane *ref, const VhPlane *dis, unsigned bpc)
{
  return bpc == 8 ? plane_sse_8 (ref, dis) : plane_sse_16 (ref, dis);
}

/* Pairs with a sample step (interleaved chroma), in plain C only */
uint64_t
vh_psnr_sse_stepped_c (const VhPlane *ref, const VhPlane *dis, unsigned bpc)
{
  return bpc == 8 ? plane_sse_8_stepped (ref, dis)
      : plane_sse_16_stepped (ref, dis);
}
