/* vmafhip — the plane scaler's per-sample integer arithmetic, shared by
 * the GPU kernels (kernels/scale.hip), their host side
 * (common/gpu/features/scale-gpu.c, which fills VhScaleParams) and their host
 * emulation (tests/check/test-scale-emulation.cpp).
 *
 * The CPU scaler (common/core/scale.c, vh_scaler_run) defines the result: a
 * horizontal pass into an int32 intermediate, its overshoot capped (not
 * its undershoot), then a vertical pass rounded, shifted and clipped; the
 * coefficient tables and windows are the CPU scaler's own (uploaded).
 * These functions do the same operations in the same integer types
 * (int32, and int64 for the vertical sums above 12 bits), so every sample
 * is the CPU's bit for bit.  The CPU streams the intermediate rows through
 * a ring; here they all live in one buffer, rows row0 .. row0 + rows − 1
 * of the source, which changes no value.
 *
 * Plain C (the host side includes it) and C++ (kernels, emulation). */
#ifndef VH_SCALE_DEVICE_H
#define VH_SCALE_DEVICE_H

#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_SCALE_FN __host__ __device__ __forceinline__
#else
#define VH_SCALE_FN static inline
#endif

/* Both kernels: blocks of VH_SCALE_BLOCK_W x VH_SCALE_BLOCK_H threads, one
 * output (resp. intermediate) sample each, x along rows (coalesced). */
#define VH_SCALE_BLOCK_W 32
#define VH_SCALE_BLOCK_H 8

/* The kernels' one parameter, by value; the host fills it
 * (common/gpu/features/scale-gpu.c).  Addresses are device addresses (host ones in
 * the emulation).  Every field is fixed-width and naturally aligned, so C
 * and the device compilers lay it out alike (120 bytes; both check). */
typedef struct VhScaleParams {
  uint64_t src;           /* first sample of the source plane */
  uint64_t tmp;           /* int32 intermediate, rows x dst_w */
  uint64_t dst;           /* first sample of the destination plane */
  uint64_t h_first;       /* uint32 per output column: its first source column */
  uint64_t h_coef;        /* int16, dst_w x h_taps */
  uint64_t v_first;       /* uint32 per output row: its first source row */
  uint64_t v_coef;        /* int16, dst_h x v_taps */
  uint64_t src_pitch;     /* bytes between source rows */
  uint64_t dst_pitch;     /* bytes between destination rows */
  uint32_t src_step;      /* samples between horizontal source neighbours */
  uint32_t dst_w, dst_h;
  uint32_t h_taps, v_taps;
  uint32_t row0;          /* the first source row a window reads */
  uint32_t rows;          /* source rows the windows read (the intermediate's) */
  uint32_t h_shift, v_shift;
  int32_t top;            /* cap of the intermediate */
  int32_t max;            /* largest sample */
  uint32_t reserved;      /* zero: keeps the size a multiple of 8 */
} VhScaleParams;

#define VH_SCALE_PARAMS_SIZE 120

/* The launches: x over dst_w, y over the intermediate's rows (horizontal)
 * or dst_h (vertical). */
VH_SCALE_FN uint32_t
vh_scale_blocks (uint32_t n, uint32_t per_block)
{
  return (n + per_block - 1) / per_block;
}

/* Intermediate sample (x, r): source row row0 + r weighed over the window
 * of output column x; t = MIN (sum >> h_shift, top).  Threads outside
 * the intermediate do nothing.  bytes: 8-bit samples, else uint16. */
VH_SCALE_FN void
vh_scale_h_thread (const VhScaleParams *p, int bytes, uint32_t x, uint32_t r)
{
  if (x >= p->dst_w || r >= p->rows)
    return;
  const uint32_t n = p->h_taps, step = p->src_step;
  const uint32_t first = ((const uint32_t *) (uintptr_t) p->h_first)[x];
  const int16_t *c = (const int16_t *) (uintptr_t) p->h_coef
      + (uint64_t) x * n;
  const uint64_t line = p->src + (uint64_t) (p->row0 + r) * p->src_pitch;
  /* (1 << shift) >> 1: no rounding term when nothing is shifted out */
  int32_t sum = (int32_t) ((1u << p->h_shift) >> 1);
  if (bytes) {
    const uint8_t *s = (const uint8_t *) (uintptr_t) line
        + (uint64_t) first * step;
    for (uint32_t k = 0; k < n; k++)
      sum += (int32_t) s[(uint64_t) k * step] * c[k];
  } else {
    const uint16_t *s = (const uint16_t *) (uintptr_t) line
        + (uint64_t) first * step;
    for (uint32_t k = 0; k < n; k++)
      sum += (int32_t) s[(uint64_t) k * step] * c[k];
  }
  /* arithmetic shift, as the CPU's: undershoot stays negative */
  const int32_t t = sum >> p->h_shift;
  ((int32_t *) (uintptr_t) p->tmp)[(uint64_t) r * p->dst_w + x] =
      t < p->top ? t : p->top;
}

/* Output sample (x, y): the window of output row y over the intermediate,
 * rounded, shifted and clipped to [0, max].  wide: sums in int64 (above
 * 12 bits), else int32, as the CPU sums them.  Threads outside the
 * destination do nothing. */
VH_SCALE_FN void
vh_scale_v_thread (const VhScaleParams *p, int bytes, int wide, uint32_t x,
    uint32_t y)
{
  if (x >= p->dst_w || y >= p->dst_h)
    return;
  const uint32_t n = p->v_taps, w = p->dst_w;
  const uint32_t first = ((const uint32_t *) (uintptr_t) p->v_first)[y];
  const int16_t *c = (const int16_t *) (uintptr_t) p->v_coef
      + (uint64_t) y * n;
  const int32_t *t = (const int32_t *) (uintptr_t) p->tmp
      + (uint64_t) (first - p->row0) * w + x;
  int64_t v;
  if (wide) {
    int64_t acc = (int64_t) 1 << (p->v_shift - 1);
    for (uint32_t k = 0; k < n; k++)
      acc += (int64_t) t[(uint64_t) k * w] * (int64_t) c[k];
    v = acc >> p->v_shift;
  } else {
    int32_t acc = (int32_t) 1 << (p->v_shift - 1);
    for (uint32_t k = 0; k < n; k++)
      acc += t[(uint64_t) k * w] * (int32_t) c[k];
    v = acc >> p->v_shift;
  }
  v = v < 0 ? 0 : v > p->max ? p->max : v;
  const uint64_t line = p->dst + (uint64_t) y * p->dst_pitch;
  if (bytes)
    ((uint8_t *) (uintptr_t) line)[x] = (uint8_t) v;
  else
    ((uint16_t *) (uintptr_t) line)[x] = (uint16_t) v;
}

#endif /* VH_SCALE_DEVICE_H */
