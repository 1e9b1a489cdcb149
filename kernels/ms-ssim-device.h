/* vmafhip — float MS-SSIM on the GPU: the per-thread arithmetic.
 *
 * Included by kernels/ms-ssim.hip (device code), by common/gpu/features/ms-ssim-gpu.c
 * (C: the launch parameters and geometry only) and by the host test
 * tests/check/test-ms-ssim-emulation.cpp, which runs these very functions
 * block by block and thread by thread against the CPU extractor
 * (common/features/ssim/ms-ssim.c).
 *
 * Two families of kernels share this code (template argument kFast):
 *   - exact: every per-pixel operation is the CPU's, in its order and with
 *     its float/double mix (kernels are built without fused multiply-add):
 *     the pictures of every scale and each pixel's l, c, s are bit for bit
 *     the CPU's; only the sums over the map are added in another (fixed)
 *     order;
 *   - fast (the default): the same filters with float sums of fused
 *     multiply-adds and float l, c, s: about a third of the instructions,
 *     the scores within 2e-6 of the CPU's on the test vectors.
 *
 * One launch per scale k (0..4), one block per tile of VH_MS_SSIM_TILE^2
 * pixels (tiles cover the picture; at the last scale only its valid
 * region):
 *   1. the tile's input with a halo (4 pixels left and above for the
 *      low-pass, 10 right and below for the window) into shared memory as
 *      float, mirrored at the picture's edges as IQA does;
 *   2. scale k + 1 (k < 4): the tile's pixels of even coordinates through
 *      IQA's 9x9 low-pass, from the shared input;
 *   3. SSIM over the tile's part of the valid region: the 11-tap Gaussian
 *      along the rows of the five products, then along the columns, l, c,
 *      s per pixel, and a fixed-order tree of the block's three double
 *      sums -> partial[3 * tile].
 * Scale 0 reads the luma planes (8 or 16-bit samples, scaled to 8 bits as
 * libvmaf does), the others the float pictures the launch before wrote.
 * A last launch adds each scale's partials in a fixed order (reduce). */
#ifndef VH_MS_SSIM_DEVICE_H
#define VH_MS_SSIM_DEVICE_H

#include <stdint.h>

#include "ssim-params.h"

#define VH_MS_SSIM_SCALES 5
#define VH_MS_SSIM_WINDOW VH_SSIM_WINDOW   /* SSIM's, ssim-params.h */
#define VH_MS_SSIM_LPF 9
/* IQA's 9x9 low-pass, as its 2-D table (used as such, not separated): the
 * CPU (common/features/ssim/ms-ssim.c) and the kernels read these */
#define VH_MS_SSIM_LPF_TAPS { \
  0.000714f, -0.000450f, -0.002090f, 0.007132f, 0.016114f, 0.007132f, -0.002090f, -0.000450f, 0.000714f, \
  -0.000450f, 0.000283f, 0.001316f, -0.004490f, -0.010146f, -0.004490f, 0.001316f, 0.000283f, -0.000450f, \
  -0.002090f, 0.001316f, 0.006115f, -0.020867f, -0.047149f, -0.020867f, 0.006115f, 0.001316f, -0.002090f, \
  0.007132f, -0.004490f, -0.020867f, 0.071207f, 0.160885f, 0.071207f, -0.020867f, -0.004490f, 0.007132f, \
  0.016114f, -0.010146f, -0.047149f, 0.160885f, 0.363505f, 0.160885f, -0.047149f, -0.010146f, 0.016114f, \
  0.007132f, -0.004490f, -0.020867f, 0.071207f, 0.160885f, 0.071207f, -0.020867f, -0.004490f, 0.007132f, \
  -0.002090f, 0.001316f, 0.006115f, -0.020867f, -0.047149f, -0.020867f, 0.006115f, 0.001316f, -0.002090f, \
  -0.000450f, 0.000283f, 0.001316f, -0.004490f, -0.010146f, -0.004490f, 0.001316f, 0.000283f, -0.000450f, \
  0.000714f, -0.000450f, -0.002090f, 0.007132f, 0.016114f, 0.007132f, -0.002090f, -0.000450f, 0.000714f, \
}
#define VH_MS_SSIM_BLOCK 256
/* SSIM tile side (outputs); its input is TILE + WINDOW - 1 wide and high */
#define VH_MS_SSIM_TILE 32
#define VH_MS_SSIM_IN (VH_MS_SSIM_TILE + VH_MS_SSIM_WINDOW - 1)
/* the smallest picture: an 11x11 window at the fifth scale */
#define VH_MS_SSIM_MIN_SIZE 176

/* One scale's launch, passed by value (device addresses as uint64). */
typedef struct VhMsSsimParams {
  uint64_t ref, dis;            /* this scale: the luma planes, or floats */
  uint64_t next_ref, next_dis;  /* scale + 1 (packed floats); 0 at scale 4 */
  uint64_t partial;             /* double [3 * n_tiles]: l, c, s per tile */
  uint32_t pitch;               /* bytes per row of ref and dis */
  uint32_t width, height;       /* this scale */
  uint32_t next_width, next_height;
  uint32_t tiles_x, n_tiles;    /* SSIM tiles: the grid's first blocks */
  float inv_scaler;             /* samples to 8 bits: 1, 1/4, 1/16, 1/256 */
} VhMsSsimParams;

/* The reduction: one block per scale. */
typedef struct VhMsSsimReduce {
  uint64_t partial[VH_MS_SSIM_SCALES];
  uint64_t sums;                /* double [5][3]: VhMsSsimSums */
  uint32_t n_tiles[VH_MS_SSIM_SCALES];
  uint32_t pad;
} VhMsSsimReduce;

#ifdef __cplusplus

#include "vh-device-bits.h"

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_MS_SSIM_FN __host__ __device__ __forceinline__
#else
#include <math.h>
#define VH_MS_SSIM_FN inline     /* plain host C++ (tests) */
#endif
/* Unrolled loops make every tap an immediate (device passes only: the
 * host compilers would warn) */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_MS_SSIM_UNROLL _Pragma ("unroll")
#else
#define VH_MS_SSIM_UNROLL
#endif
/* the fast kernels' division: the GPU's approximate one (host: exact) */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_MS_SSIM_FDIV(a, b) __fdividef ((a), (b))
#else
#define VH_MS_SSIM_FDIV(a, b) ((a) / (b))
#endif

static_assert (sizeof (VhMsSsimParams) == 72, "VhMsSsimParams layout");
static_assert (sizeof (VhMsSsimReduce) == 72, "VhMsSsimReduce layout");
static_assert (VH_MS_SSIM_TILE * VH_MS_SSIM_TILE % VH_MS_SSIM_BLOCK == 0,
    "tile geometry");

namespace vh_ms_ssim {

constexpr int kTile = VH_MS_SSIM_TILE;
constexpr int kIn = VH_MS_SSIM_IN;
constexpr int kBlock = VH_MS_SSIM_BLOCK;
constexpr int kRadius = VH_MS_SSIM_WINDOW / 2;
constexpr int kLpfRadius = VH_MS_SSIM_LPF / 2;
/* the shared input: kSpan x kSpan from (x0 - 4, y0 - 4); rows kStride
 * apart and the second picture kPicture floats after the first (odd, so
 * that lanes reading every other column of both pictures, or of four
 * rows, fall in distinct banks) */
constexpr int kSpan = kIn + kLpfRadius;
constexpr int kStride = kSpan + 1;
constexpr int kPicture = kSpan * kStride + 1;

/* A block's shared memory: the float input, then the row pass (the
 * reduction reuses its space). 44,184 bytes. */
struct Shared {
  float in[2 * kPicture];
  union {
    float row[5][kIn][kTile];   /* ref, cmp, ref^2, cmp^2, ref*cmp */
    double red[3][kBlock];
  } u;
};

/* The shared input of picture `pic` at (x, y) of the tile's SSIM input
 * (0, 0: the tile's first pixel) */
VH_MS_SSIM_FN const float *
tile_at (const Shared &sm, int pic, int x, int y)
{
  return &sm.in[pic * kPicture + (y + kLpfRadius) * kStride + x
      + kLpfRadius];
}

using vh_bits::float_bits;
using vh_bits::bits_float;
using vh_bits::hilo_double;

/* The CPU's `sum += (double) float` without the float -> double
 * conversion (a quarter of the double-add rate on the H100; these sums
 * are most of the kernels' work).  widen (f) is f * 2^-896 exactly, for
 * every finite f: the float's exponent field becomes the double's as is,
 * its mantissa the double's top bits (a float denormal becomes a double
 * denormal, scaled alike).  Sums of such terms round exactly as the
 * unscaled sums do (every partial sum is a multiple of 2^-149 unscaled, so
 * where the scaled one falls below the normal range it is exact in both),
 * and narrow () scales back (exact: a power of two) before the one
 * conversion per sum.  widen_pos: f known non-negative (one shift fewer). */
VH_MS_SSIM_FN double
widen (float f)
{
  const uint32_t u = float_bits (f);
  return hilo_double ((u & 0x80000000u) | ((u >> 3) & 0x0fffffffu), u << 29);
}

VH_MS_SSIM_FN double
widen_pos (float f)
{
  const uint32_t u = float_bits (f);
  return hilo_double (u >> 3, u << 29);
}

template <bool kPos>
VH_MS_SSIM_FN double
widen_t (float f)
{
  return kPos ? widen_pos (f) : widen (f);
}

VH_MS_SSIM_FN float
narrow (double s)
{
  return (float) (s * 0x1p896);
}

/* libvmaf's luma as float: 8-bit as is, deeper divided to 8 bits (Pixel
 * float: a picture of a later scale, inv_scaler 1).  Integer samples go
 * through the float bits (2^23 + v, exact) rather than a conversion, and
 * the division by a power of two is the multiplication by its inverse
 * (exact, so the same float). */
template <typename Pixel>
VH_MS_SSIM_FN float
load (uint64_t plane, uint32_t pitch, int x, int y, float inv_scaler)
{
  const Pixel v = ((const Pixel *) (uintptr_t) (plane
          + (uint64_t) y * pitch))[x];
  if (sizeof (Pixel) == sizeof (float))
    return (float) v;
  else
    return (bits_float (0x4b000000u | (uint32_t) v) - 8388608.0f)
        * inv_scaler;
}

/* IQA's KBND_SYMMETRIC: -1 -> 0, n -> n - 1 */
VH_MS_SSIM_FN int
mirror (int i, int n)
{
  return i < 0 ? -1 - i : i >= n ? n - (i - n) - 1 : i;
}

/* ---- SSIM tiles ------------------------------------------------------ */

/* Step 1: the tile's input and halo.  Inside the picture the samples as
 * they are; at its edges IQA's mirror, which the low-pass reads (the SSIM
 * window reads only the picture); 0 beyond the mirror's reach (never
 * read).  `inside`: the whole span lies in the picture (the same for the
 * whole block). */
template <typename Pixel>
VH_MS_SSIM_FN void
tile_load (const VhMsSsimParams &p, unsigned tile, unsigned t, Shared &sm)
{
  const int x0 = (int) (tile % p.tiles_x) * kTile - kLpfRadius;
  const int y0 = (int) (tile / p.tiles_x) * kTile - kLpfRadius;
  const int w = (int) p.width, h = (int) p.height;
  const bool inside = x0 >= 0 && y0 >= 0 && x0 + kSpan <= w
      && y0 + kSpan <= h;
  for (unsigned i = t; i < (unsigned) (kSpan * kSpan); i += kBlock) {
    const int x = (int) (i % kSpan), y = (int) (i / kSpan);
    int gx = x0 + x, gy = y0 + y;
    float r = 0.0f, d = 0.0f;
    if (!inside) {
      if (gx >= -kLpfRadius && gx < w + kLpfRadius && gy >= -kLpfRadius
          && gy < h + kLpfRadius) {
        gx = mirror (gx, w);
        gy = mirror (gy, h);
      } else {
        gx = -1;
      }
    }
    if (gx >= 0) {
      r = load<Pixel> (p.ref, p.pitch, gx, gy, p.inv_scaler);
      d = load<Pixel> (p.dis, p.pitch, gx, gy, p.inv_scaler);
    }
    sm.in[y * kStride + x] = r;
    sm.in[kPicture + y * kStride + x] = d;
  }
}

/* Step 2: the Gaussian along the rows.  Exact (kFast false): as
 * common/features/ssim/ssim.c's convolve: float products (the squares float first),
 * double sums, the result float; kPos: scale 0, every sample and product
 * non-negative.  Fast: float sums of fused multiply-adds, a thread taking
 * kRun outputs side by side (each input and its squares read and formed
 * once for all of them). */
constexpr int kRun = 4;

template <bool kFast, bool kPos>
VH_MS_SSIM_FN void
tile_rows (unsigned t, Shared &sm)
{
  const float g[VH_MS_SSIM_WINDOW] = { VH_SSIM_GAUSSIAN };   /* SSIM's */
  if (kFast) {
    for (unsigned i = t; i < (unsigned) (kIn * kTile / kRun); i += kBlock) {
      const int x = (int) (i % (kTile / kRun)) * kRun;
      const int y = (int) (i / (kTile / kRun));
      const float *a = tile_at (sm, 0, x, y), *b = tile_at (sm, 1, x, y);
      float s[5][kRun] = { };
      VH_MS_SSIM_UNROLL
      for (int u = 0; u < VH_MS_SSIM_WINDOW + kRun - 1; u++) {
        const float ra = a[u], rb = b[u];
        const float qa = ra * ra, qb = rb * rb, ab = ra * rb;
        VH_MS_SSIM_UNROLL
        for (int j = 0; j < kRun; j++) {
          if (u - j < 0 || u - j >= VH_MS_SSIM_WINDOW)
            continue;
          const float tap = g[u - j];
          s[0][j] = fmaf (ra, tap, s[0][j]);
          s[1][j] = fmaf (rb, tap, s[1][j]);
          s[2][j] = fmaf (qa, tap, s[2][j]);
          s[3][j] = fmaf (qb, tap, s[3][j]);
          s[4][j] = fmaf (ab, tap, s[4][j]);
        }
      }
      VH_MS_SSIM_UNROLL
      for (int k = 0; k < 5; k++)
        VH_MS_SSIM_UNROLL
        for (int j = 0; j < kRun; j++)
          sm.u.row[k][y][x + j] = s[k][j];
    }
  } else {
    for (unsigned i = t; i < (unsigned) (kIn * kTile); i += kBlock) {
      const int x = (int) (i % kTile), y = (int) (i / kTile);
      const float *a = tile_at (sm, 0, x, y), *b = tile_at (sm, 1, x, y);
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0;
      VH_MS_SSIM_UNROLL
      for (int u = 0; u < VH_MS_SSIM_WINDOW; u++) {
        const float ra = a[u], rb = b[u];
        const float sa = ra * ra, sb = rb * rb, ab = ra * rb;
        s0 += widen_t<kPos> (ra * g[u]);
        s1 += widen_t<kPos> (rb * g[u]);
        s2 += widen_pos (sa * g[u]);
        s3 += widen_pos (sb * g[u]);
        s4 += widen_t<kPos> (ab * g[u]);
      }
      sm.u.row[0][y][x] = narrow (s0);
      sm.u.row[1][y][x] = narrow (s1);
      sm.u.row[2][y][x] = narrow (s2);
      sm.u.row[3][y][x] = narrow (s3);
      sm.u.row[4][y][x] = narrow (s4);
    }
  }
}

/* SSIM's constants, and one pixel's means and (co)variances from its five
 * filtered values, as vh_ssim_compute forms them (in float) */
constexpr float kC1 = VH_SSIM_C1;
constexpr float kC2 = VH_SSIM_C2;
constexpr float kC3 = VH_SSIM_C3;

struct Moments {
  float mr, mc, sr, sc, sb;
};

VH_MS_SSIM_FN Moments
moments (const float v[5])
{
  Moments m;
  m.mr = v[0];
  m.mc = v[1];
  m.sr = v[2] - m.mr * m.mr;
  m.sc = v[3] - m.mc * m.mc;
  m.sr = m.sr < 0.0f ? 0.0f : m.sr;
  m.sc = m.sc < 0.0f ? 0.0f : m.sc;
  m.sb = v[4] - m.mr * m.mc;
  return m;
}

/* SSIM's terms of one pixel, as vh_ssim_compute writes them (the
 * float/double mix included) */
VH_MS_SSIM_FN void
lcs (const float v[5], double *l_out, double *c_out, double *s_out)
{
  const Moments m = moments (v);
  /* C's sqrt of a float product: the double sqrt */
  const float sigma_rc = (float) sqrt ((double) (m.sr * m.sc));
  *l_out = (2.0 * m.mr * m.mc + kC1) / (m.mr * m.mr + m.mc * m.mc + kC1);
  *c_out = (2.0 * sigma_rc + kC2) / (m.sr + m.sc + kC2);
  const float sb = m.sb < 0.0f && sigma_rc <= 0.0f ? 0.0f : m.sb;
  *s_out = (sb + kC3) / (sigma_rc + kC3);
}

/* The same in float (fast kernels): float square root, and the GPU's
 * fast division (within 2 ulps; every denominator here lies in [c1, 2^17]) */
VH_MS_SSIM_FN void
lcs_float (const float v[5], float *l_out, float *c_out, float *s_out)
{
  const Moments m = moments (v);
  const float sigma_rc = sqrtf (m.sr * m.sc);
  *l_out = VH_MS_SSIM_FDIV (2.0f * m.mr * m.mc + kC1,
      m.mr * m.mr + m.mc * m.mc + kC1);
  *c_out = VH_MS_SSIM_FDIV (2.0f * sigma_rc + kC2, m.sr + m.sc + kC2);
  const float sb = m.sb < 0.0f && sigma_rc <= 0.0f ? 0.0f : m.sb;
  *s_out = VH_MS_SSIM_FDIV (sb + kC3, sigma_rc + kC3);
}

/* Step 3: the Gaussian along the columns and each pixel's l, c, s added
 * into the thread's sums.  Thread t takes kRows pixels one above the other
 * (column t % kTile), so each shared value it reads serves up to kRows
 * sums (a quarter of the loads of one pixel per thread); each sum still
 * takes its 11 terms in the CPU's order.  kPos: scale 0 (the row sums,
 * the squares' included, are non-negative). */
constexpr int kRows = kTile * kTile / kBlock;

template <bool kFast, bool kPos>
VH_MS_SSIM_FN void
tile_columns (const VhMsSsimParams &p, unsigned tile, unsigned t,
    const Shared &sm, double acc[3])
{
  const float g[VH_MS_SSIM_WINDOW] = { VH_SSIM_GAUSSIAN };   /* SSIM's */
  const int dw = (int) p.width - VH_MS_SSIM_WINDOW + 1;
  const int dh = (int) p.height - VH_MS_SSIM_WINDOW + 1;
  const int x = (int) (t % kTile), y = (int) (t / kTile) * kRows;
  const int x0 = (int) (tile % p.tiles_x) * kTile;
  const int y0 = (int) (tile / p.tiles_x) * kTile;
  acc[0] = acc[1] = acc[2] = 0.0;
  if (x0 + x >= dw || y0 + y >= dh)
    return;
  float v[kRows][5];
  VH_MS_SSIM_UNROLL
  for (int k = 0; k < 5; k++) {
    if (kFast) {
      float s[kRows] = { };
      VH_MS_SSIM_UNROLL
      for (int r = 0; r < kRows + VH_MS_SSIM_WINDOW - 1; r++) {
        const float in = sm.u.row[k][y + r][x];
        VH_MS_SSIM_UNROLL
        for (int j = 0; j < kRows; j++)
          if (r - j >= 0 && r - j < VH_MS_SSIM_WINDOW)
            s[j] = fmaf (in, g[r - j], s[j]);
      }
      VH_MS_SSIM_UNROLL
      for (int j = 0; j < kRows; j++)
        v[j][k] = s[j];
    } else {
      double s[kRows] = { };
      VH_MS_SSIM_UNROLL
      for (int r = 0; r < kRows + VH_MS_SSIM_WINDOW - 1; r++) {
        const float in = sm.u.row[k][y + r][x];
        VH_MS_SSIM_UNROLL
        for (int j = 0; j < kRows; j++) {
          if (r - j >= 0 && r - j < VH_MS_SSIM_WINDOW)
            s[j] += k == 2 || k == 3 ? widen_pos (in * g[r - j])
                : widen_t<kPos> (in * g[r - j]);
        }
      }
      VH_MS_SSIM_UNROLL
      for (int j = 0; j < kRows; j++)
        v[j][k] = narrow (s[j]);
    }
  }
  float fl = 0.0f, fc = 0.0f, fs = 0.0f;   /* fast: float within a thread */
  VH_MS_SSIM_UNROLL
  for (int j = 0; j < kRows; j++) {
    if (y0 + y + j >= dh)
      continue;
    if (kFast) {
      float l, c, s;
      lcs_float (v[j], &l, &c, &s);
      fl += l;
      fc += c;
      fs += s;
    } else {
      double l, c, s;
      lcs (v[j], &l, &c, &s);
      acc[0] += l;
      acc[1] += c;
      acc[2] += s;
    }
  }
  if (kFast) {
    acc[0] = fl;
    acc[1] = fc;
    acc[2] = fs;
  }
}

/* Step 4, the tree over the block: red[k][t] holds thread t's sums; this
 * is one level (the threads below `step`), a barrier after each. */
VH_MS_SSIM_FN void
tree_level (unsigned t, unsigned step, double red[3][kBlock])
{
  if (t < step)
    VH_MS_SSIM_UNROLL
    for (int k = 0; k < 3; k++)
      red[k][t] += red[k][t + step];
}

/* ---- the next scale ---------------------------------------------------- */

/* Step 2 (k < 4): the tile's pixels of scale k + 1, vh_iqa_decimate's 9x9
 * sum at every other pixel (exact: float products, double sum, row by row;
 * fast: a float sum of fused multiply-adds), from the shared input.  Two
 * per thread: lanes 0-15 and 16-31 of a warp take the two pictures (banks
 * of different parity), the 16 columns of a row of outputs. */
template <bool kFast, bool kPos>
VH_MS_SSIM_FN void
tile_decimate (const VhMsSsimParams &p, unsigned tile, unsigned t,
    const Shared &sm)
{
  const float k[VH_MS_SSIM_LPF * VH_MS_SSIM_LPF] = VH_MS_SSIM_LPF_TAPS;
  const int pic = (int) (t >> 4) & 1;
  const int ox = (int) (t & 15);
  const int cx = (int) (tile % p.tiles_x) * kTile + 2 * ox;
  const int row0 = (int) (tile / p.tiles_x) * kTile;
  VH_MS_SSIM_UNROLL
  for (int rep = 0; rep < 2; rep++) {
    const int oy = (int) (t >> 5) + rep * (kBlock / 32);
    const int cy = row0 + 2 * oy;
    if (cx >= (int) p.width || cy >= (int) p.height)
      continue;
    /* the window's first sample: (cx - 4, cy - 4) */
    const float *in = tile_at (sm, pic, 2 * ox - kLpfRadius,
        2 * oy - kLpfRadius);
    double sum = 0.0;
    float fsum = 0.0f;
    VH_MS_SSIM_UNROLL
    for (int v = 0; v < VH_MS_SSIM_LPF; v++)
      VH_MS_SSIM_UNROLL
      for (int u = 0; u < VH_MS_SSIM_LPF; u++) {
        const float px = in[v * kStride + u];
        const float kv = k[v * VH_MS_SSIM_LPF + u];
        if (kFast)
          fsum = fmaf (px, kv, fsum);
        else if (!kPos)
          sum += widen (px * kv);
        else if (kv < 0.0f)     /* px >= 0: fl (px kv) = -fl (px |kv|) */
          sum -= widen_pos (px * -kv);
        else
          sum += widen_pos (px * kv);
      }
    const unsigned i = (unsigned) (cy / 2) * p.next_width
        + (unsigned) (cx / 2);
    ((float *) (uintptr_t) (pic ? p.next_dis : p.next_ref))[i] = kFast
        ? fsum : narrow (sum);
  }
}

/* ---- the reduction ------------------------------------------------------ */

/* Thread t's share of scale k's partials, in order. */
VH_MS_SSIM_FN void
reduce_thread (const VhMsSsimReduce &r, unsigned k, unsigned t, double acc[3])
{
  const double *partial = (const double *) (uintptr_t) r.partial[k];
  acc[0] = acc[1] = acc[2] = 0.0;
  for (unsigned i = t; i < r.n_tiles[k]; i += kBlock)
    VH_MS_SSIM_UNROLL
    for (int q = 0; q < 3; q++)
      acc[q] += partial[3 * i + q];
}

}  /* namespace vh_ms_ssim */

#endif /* __cplusplus */
#endif /* VH_MS_SSIM_DEVICE_H */
