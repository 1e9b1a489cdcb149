/* vmafhip — the cases the GPU scaler is checked on against vh_scaler_run,
 * shared by its host emulation (test-scale-emulation.cpp) and the GPU test
 * (gpu/test-scale-gpu.c): every filter, up and down in each direction,
 * odd sizes, the identity, the 64x ratios both ways, a 1-row output, at
 * 8, 10, 12 and 16 bits, planar and interleaved (step 2) sources; and the
 * picture they scale: hard full-range edges (the horizontal pass's
 * overshoot cap and undershoot), a ramp, hashed noise.  C and C++. */
#ifndef VH_SCALE_CASES_H
#define VH_SCALE_CASES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scale.h"

typedef struct {
  unsigned src_w, src_h, dst_w, dst_h;
} VhScaleCaseSize;

static const VhScaleCaseSize vh_scale_case_sizes[] = {
  { 97, 61, 301, 187 },         /* up, odd */
  { 301, 187, 97, 61 },         /* down, odd */
  { 123, 77, 129, 300 },        /* slightly up, then up */
  { 400, 50, 133, 201 },        /* down across, up along */
  { 640, 360, 1920, 1080 },     /* a ladder's lowest 16:9 rung */
  { 1921, 1081, 641, 359 },     /* down about 3x, odd */
  { 17, 9, 17, 9 },             /* equal: one tap */
  { 5, 3, 320, 192 },           /* 64x up */
  { 640, 8, 10, 1 },            /* 64x down across (385 lanczos taps), one row */
};

static const unsigned vh_scale_case_bpcs[] = { 8, 10, 12, 16 };

static const VhScaleFilter vh_scale_case_filters[] = {
  VH_SCALE_BILINEAR, VH_SCALE_BICUBIC, VH_SCALE_LANCZOS,
};

#define VH_SCALE_N_SIZES \
  (sizeof vh_scale_case_sizes / sizeof vh_scale_case_sizes[0])
#define VH_SCALE_N_BPCS (sizeof vh_scale_case_bpcs / sizeof vh_scale_case_bpcs[0])
#define VH_SCALE_N_FILTERS \
  (sizeof vh_scale_case_filters / sizeof vh_scale_case_filters[0])

/* Interleaved (step 2) source for every other size and depth: both kinds
 * meet every filter. */
static inline unsigned
vh_scale_case_step (unsigned size_index, unsigned bpc_index)
{
  return (size_index + bpc_index) % 2 ? 2 : 1;
}

/* Bytes a row of the source takes, padded so the pitch is no multiple of
 * the row's (odd at 8 bits). */
static inline size_t
vh_scale_case_pitch (unsigned width, unsigned step, unsigned bpc)
{
  const size_t bytes = bpc > 8 ? 2 : 1;
  return ((size_t) width * step + 3) * bytes;
}

/* Sample (x, y) of the test picture: the left third hard vertical stripes
 * of 0 and max (2 or 3 samples wide), a checkerboard of 0 / max squares
 * along the bottom quarter, a diagonal ramp and hashed noise elsewhere. */
static inline unsigned
vh_scale_case_sample (unsigned x, unsigned y, unsigned w, unsigned h,
    unsigned bpc)
{
  const unsigned max = (1u << bpc) - 1;
  if (x < w / 3)
    return (x / (2 + y % 2)) % 2 ? max : 0;
  if (y >= h - h / 4)
    return ((x / 3) + (y / 3)) % 2 ? max : 0;
  uint32_t v = x * 0x9e3779b1u ^ y * 0x85ebca77u;
  v ^= v >> 15;
  v *= 0x2c1b3c6du;
  v ^= v >> 12;
  if ((x + y) % 4 == 0)
    return v & max;
  return (unsigned) (((uint64_t) (x + 2 * y) * max) / (w + 2 * h));
}

/* Fills buf (pitch bytes a row) with the picture, step samples apart;
 * the samples between (another interleaved plane) get a marker value. */
static inline void
vh_scale_case_fill (void *buf, size_t pitch, unsigned w, unsigned h,
    unsigned step, unsigned bpc)
{
  memset (buf, 0x5a, pitch * h);
  for (unsigned y = 0; y < h; y++) {
    uint8_t *row = (uint8_t *) buf + pitch * y;
    for (unsigned x = 0; x < w; x++) {
      const unsigned v = vh_scale_case_sample (x, y, w, h, bpc);
      if (bpc == 8)
        row[(size_t) x * step] = (uint8_t) v;
      else
        ((uint16_t *) row)[(size_t) x * step] = (uint16_t) v;
    }
  }
}

#endif /* VH_SCALE_CASES_H */
