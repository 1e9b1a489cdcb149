/* vmafhip — SpEED-chroma on the GPU: the per-thread arithmetic.
 *
 * Included by kernels/speed.hip (device code), by common/gpu/features/speed-gpu.c
 * (C: the launch parameters only) and by the host test
 * tests/check/test-speed-emulation.cpp, which runs these functions thread
 * by thread against the CPU extractor (common/features/speed/speed-chroma.c).  Every
 * value is the CPU's, bit for bit: the same float and double operations in
 * the same order (kernels built without contraction into FMAs; the
 * covariance's FMAs are libvmaf's own).
 *
 * Launches for one frame, on one stream, each over the four chroma
 * pictures (blockIdx.y, or blockIdx.x for means: reference U, distorted U,
 * reference V, distorted V):
 *   small    the anti-alias Gaussian at every 16th row and column: the
 *            1/16 picture (samples to float, minus 128)
 *   centre   its local mean (the scale-4 Gaussian) taken off, cut to whole
 *            5x5 blocks
 *   means    the mean of each of the 25 covariance windows (a float sum in
 *            the CPU's order: one thread each)
 *   cov      the 325 covariances of the 5x5 neighbourhoods: 16 threads a
 *            pair, one per lane of libvmaf's AVX-512 accumulators, the
 *            lanes then reduced as _mm512_reduce_add_pd does
 * The host copies the covariances and centred pictures back; the rest
 * (eigenvalues, solve, entropies) is the CPU extractor's extract_sums. */
#ifndef VH_SPEED_DEVICE_H
#define VH_SPEED_DEVICE_H

#include <stdint.h>

/* VH_SPEED_BLOCK, VH_SPEED_NB, VH_SPEED_PICTURES, VH_SPEED_MAX_TAPS */
#include "speed-params.h"

#define VH_SPEED_THREADS 256
/* covariance: lanes per pair, pairs per block, pairs in all */
#define VH_SPEED_LANES 16
#define VH_SPEED_PAIRS_PER_BLOCK (VH_SPEED_THREADS / VH_SPEED_LANES)
#define VH_SPEED_PAIRS (VH_SPEED_NB * (VH_SPEED_NB + 1) / 2)
#define VH_SPEED_MEANS_THREADS 32

typedef struct VhSpeedParams {
  uint64_t src[VH_SPEED_PICTURES];  /* chroma planes, 8 or 16-bit */
  uint64_t small;               /* float [4][ow * oh] */
  uint64_t means;               /* float [4][NB] */
  uint64_t cov;                 /* float [4][NB * NB] */
  uint64_t centred;             /* float [4][tw * th] */
  uint32_t pitch[VH_SPEED_PICTURES];  /* bytes per row of src[k] */
  uint32_t bpc;
  uint32_t w, h;                /* chroma size read (libvmaf's) */
  uint32_t ow, oh;              /* 1/16 picture */
  uint32_t tw, th;              /* cut to whole blocks */
  uint32_t subw, subh;          /* covariance window */
  uint32_t fa_width, f4_width;
  float fa[VH_SPEED_MAX_TAPS], f4[VH_SPEED_MAX_TAPS];
} VhSpeedParams;

#ifdef __cplusplus

#include "vh-device-bits.h"

/* device and host (the emulation test) alike, as vh-device-bits.h's */
#define VH_SPEED_FN VH_BITS_FN

static_assert (sizeof (VhSpeedParams) == 448, "VhSpeedParams layout");

namespace vh_speed {

constexpr int kBlock = VH_SPEED_BLOCK;
constexpr int kNB = VH_SPEED_NB;

VH_SPEED_FN int
mirror (int i, int n)
{
  return i < 0 ? -i : i >= n ? 2 * n - i - 2 : i;
}

/* a chroma sample as the CPU loads it: minus 128; 10, 12 and 16-bit
 * divided by 4, 16, 256 (a multiplication by the exact reciprocal) */
template <typename Pixel>
VH_SPEED_FN float
sample (const VhSpeedParams &p, unsigned k, int x, int y)
{
  const Pixel *row = (const Pixel *) (uintptr_t) (p.src[k]
      + (uint64_t) y * p.pitch[k]);
  if (sizeof (Pixel) == 1)
    return (float) row[x] + -128;
  const float inv = p.bpc == 10 ? 0.25f : p.bpc == 12 ? 0.0625f
      : 0.00390625f;
  return (float) row[x] * inv + -128;
}

/* Pixel i of picture k's 1/16 picture: the vertical pass at each column
 * the horizontal one reads (mirrored at the edges), as the CPU filters
 * whole rows and keeps every 16th sample. */
template <typename Pixel>
VH_SPEED_FN void
small_pixel (const VhSpeedParams &p, unsigned k, unsigned i)
{
  const int oi = (int) (i / p.ow), oj = (int) (i % p.ow);
  const int r = (int) p.fa_width / 2, n = (int) p.fa_width;
  const int y = 16 * oi;
  float acc = 0;
  for (int kk = 0; kk < n; kk++) {
    const int x = mirror (16 * oj - r + kk, (int) p.w);
    float col = 0;
    for (int t = 0; t < n; t++)
      col += p.fa[t] * sample<Pixel> (p, k, x, mirror (y - r + t,
              (int) p.h));
    acc += p.fa[kk] * col;
  }
  ((float *) (uintptr_t) p.small)[(size_t) k * p.ow * p.oh + i] = acc;
}

/* Pixel i of the centred picture (tw x th): the 1/16 sample less its
 * local mean */
VH_SPEED_FN void
centre_pixel (const VhSpeedParams &p, unsigned k, unsigned i)
{
  const float *sm = (const float *) (uintptr_t) p.small
      + (size_t) k * p.ow * p.oh;
  const int ci = (int) (i / p.tw), cj = (int) (i % p.tw);
  const int r = (int) p.f4_width / 2, n = (int) p.f4_width;
  float acc = 0;
  for (int kk = 0; kk < n; kk++) {
    const int x = mirror (cj - r + kk, (int) p.ow);
    float col = 0;
    for (int t = 0; t < n; t++)
      col += p.f4[t] * sm[(size_t) mirror (ci - r + t, (int) p.oh) * p.ow
          + x];
    acc += p.f4[kk] * col;
  }
  ((float *) (uintptr_t) p.centred)[(size_t) k * p.tw * p.th + i] =
      sm[(size_t) ci * p.ow + cj] - acc;
}

VH_SPEED_FN const float *
centred (const VhSpeedParams &p, unsigned k)
{
  return (const float *) (uintptr_t) p.centred + (size_t) k * p.tw * p.th;
}

/* The mean of covariance window rc (its top-left offset in the block) */
VH_SPEED_FN void
window_mean (const VhSpeedParams &p, unsigned k, unsigned rc)
{
  const float *data = centred (p, k) + (rc / kBlock) * p.tw + rc % kBlock;
  float sum = 0;
  for (unsigned i = 0; i < p.subh; i++)
    for (unsigned j = 0; j < p.subw; j++)
      sum += data[(size_t) i * p.tw + j];
  ((float *) (uintptr_t) p.means)[k * kNB + rc] =
      sum / (float) ((size_t) p.subw * p.subh);
}

/* pair q of the lower triangle: (a, b), b <= a */
VH_SPEED_FN void
pair_of (unsigned q, unsigned *a, unsigned *b)
{
  unsigned row = 0;
  while (q > row) {
    q -= row + 1;
    row++;
  }
  *a = row;
  *b = q;
}

/* Lane `lane` of pair (a, b)'s sum: libvmaf's AVX-512 kernel takes 16
 * samples a step into two 8-lane FMA accumulators (lanes 0-7, 8-15), then
 * 8 into the first, then adds the rest of the row plainly (`*tail`, lane 0
 * only). */
VH_SPEED_FN double
cov_lane (const VhSpeedParams &p, unsigned k, unsigned a, unsigned b,
    unsigned lane, double *tail)
{
  const float *data = centred (p, k);
  const float *means = (const float *) (uintptr_t) p.means + k * kNB;
  const float *x = data + (a / kBlock) * p.tw + a % kBlock;
  const float *y = data + (b / kBlock) * p.tw + b % kBlock;
  const double mx = means[a], my = means[b];
  const unsigned w = p.subw;
  double acc = 0, rest = 0;
  for (unsigned i = 0; i < p.subh; i++) {
    const float *rx = x + (size_t) i * p.tw, *ry = y + (size_t) i * p.tw;
    unsigned j = 0;
    for (; j + 15 < w; j += 16)
      acc = vh_bits::fma_double ((double) rx[j + lane] - mx,
          (double) ry[j + lane] - my, acc);
    for (; j + 7 < w; j += 8)
      if (lane < 8)
        acc = vh_bits::fma_double ((double) rx[j + lane] - mx,
            (double) ry[j + lane] - my, acc);
    if (lane == 0)
      for (; j < w; j++)
        rest += ((double) rx[j] - mx) * ((double) ry[j] - my);
  }
  *tail = rest;
  return acc;
}

/* The lanes (0-7: first accumulator, 8-15: second) and the tail reduced
 * in the CPU's order, divided by the window's size; written both ways */
VH_SPEED_FN void
cov_store (const VhSpeedParams &p, unsigned k, unsigned a, unsigned b,
    const double lanes[VH_SPEED_LANES], double tail)
{
  double q[4], h[2];
  for (int l = 0; l < 4; l++)
    q[l] = (lanes[l + 4] + lanes[8 + l + 4]) + (lanes[l] + lanes[8 + l]);
  for (int l = 0; l < 2; l++)
    h[l] = q[l + 2] + q[l];
  const double dn = (double) ((size_t) p.subw * p.subh);
  const float v = (float) (((h[0] + h[1]) + tail) / dn);
  float *cov = (float *) (uintptr_t) p.cov + (size_t) k * kNB * kNB;
  cov[a * kNB + b] = v;
  cov[b * kNB + a] = v;
}

}  /* namespace vh_speed */

#endif /* __cplusplus */
#endif /* VH_SPEED_DEVICE_H */
