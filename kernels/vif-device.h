/* vmafhip — integer VIF on the GPU: the per-thread arithmetic.
 *
 * Included by kernels/vif.hip (device code, hipcc or nvcc -x cu), by
 * common/gpu/features/vif-gpu.c (C: only the launch parameters and tile geometry
 * below) and by host-side C++ tests, which run the very functions the
 * kernels run, one "thread" after the other, and compare the sums with the
 * CPU engine (common/features/vif/vif.c). Everything after `#ifdef __cplusplus` is
 * therefore __host__ __device__ and free of device-only built-ins except
 * where a device branch is spelled out.
 *
 * One kernel launch per scale s (a "level" of the pyramid) works on tiles
 * of VH_VIF_TILE_W x VH_VIF_TILE_H pixels, one block of VH_VIF_BLOCK
 * threads per tile, and does in one pass what libvmaf's CUDA code does in
 * two kernels (its CUDA VIF filters each scale vertically, then
 * horizontally, in separate launches):
 *   0. the offsets of the tile's input rows, mirrored reflect-101 at the
 *      top and bottom of the picture, into shared memory (once per block);
 *   1. vertical pass, in jobs of one column (of the tile plus its halo) by
 *      VH_VIF_ROWS_PER_JOB rows, two per thread: the input is read straight
 *      from global memory (columns mirrored like rows), each sample once
 *      per job, and the five vertical sums (μ₁, μ₂, ref², dis², ref·dis)
 *      of the job's rows are kept in registers, and in the same loop the
 *      vertical half of the next level's subsample filter (taps of scale
 *      s+1) at the even rows; both go to shared memory, rounded exactly as
 *      libvmaf rounds them;
 *   2. horizontal pass: each thread filters VH_VIF_H_OUTPUTS consecutive
 *      pixels of one row, forms σ₁², σ₂², σ₁₂ and adds the per-pixel VIF
 *      statistic into four int64 accumulators;
 *   3. the next level: the horizontal half of the subsample, only at the
 *      even columns of the even rows (the pixels kept), stored as uint16;
 *   4. a shared-memory tree reduction of the four accumulators and one
 *      64-bit atomicAdd each per block.
 * All filtering is exact integer arithmetic (same wrap-arounds, same
 * rounding shifts as libvmaf), so the order of the sums is free; only the
 * per-pixel gain g and noise variance sv² go through double, with each
 * operation rounded on its own (no fused multiply-add).
 */
#ifndef VH_VIF_DEVICE_H
#define VH_VIF_DEVICE_H

#include <stdint.h>

#include "vif-params.h"

/* Tile geometry.  The vertical pass needs TILE_W + 2·half columns (half =
 * VH_VIF_HALF_S0..S3 = 8, 4, 2, 1 for scales 0..3), at most VH_VIF_VCOLS
 * = 128: jobs of 128 columns x 4 groups of 4 rows, thread t taking column
 * t % 128 of groups t / 128 and t / 128 + 2. The horizontal pass is 16
 * rows x 16 threads x 7 pixels. TILE_W and TILE_H are even so that the
 * kept pixels of a subsample are the tile's even rows and columns. */
#define VH_VIF_TILE_W 112
#define VH_VIF_TILE_H 16
#define VH_VIF_BLOCK 256
#define VH_VIF_VCOLS 128
#define VH_VIF_ROWS_PER_JOB 4
#define VH_VIF_H_THREADS_PER_ROW (VH_VIF_BLOCK / VH_VIF_TILE_H)
#define VH_VIF_H_OUTPUTS (VH_VIF_TILE_W / VH_VIF_H_THREADS_PER_ROW)
/* Row pitch (32-bit words) of the vertical results in shared memory: ≡ 16
 * mod 32, so the two rows a 32-lane warp reads in the horizontal pass
 * (lane·7 + k apart) fall into disjoint banks. */
#define VH_VIF_STAT_PITCH 144

/* Static shared memory of a block (TileShared below), for the host's
 * check against the device limit. */
#define VH_VIF_SHARED_BYTES \
  (4 * 4 * VH_VIF_TILE_H * VH_VIF_STAT_PITCH \
      + 4 * (VH_VIF_TILE_H / 2) * VH_VIF_VCOLS \
      + 2 * 4 * (VH_VIF_TILE_H + 2 * VH_VIF_HALF_S0))

/* The four accumulators of a scale, in the order of VhVifScaleSums. */
#define VH_VIF_SUMS_PER_SCALE 4

/* Launch parameters of one scale, passed by value as the only kernel
 * argument. Plain C with fixed-width fields (device addresses as uint64),
 * 8-byte fields first: the same layout for the C host and the C++ device
 * compilers. */
typedef struct VhVifLevelParams {
  uint64_t ref, dis;            /* this level, column 0 of row 0 */
  uint64_t next_ref, next_dis;  /* level s+1 (uint16), 0 at scale 3 */
  uint64_t log2_table;          /* uint16 T[32768..65535] (vh_vif_log2_table) */
  uint64_t sums;                /* int64 [4] of this scale, zeroed before */
  uint64_t ref_stats;           /* the reference's share (VhVifRefStat per
                                 * pixel, VH_VIF_TILE_W x VH_VIF_TILE_H per
                                 * block in the kernels' own order):
                                 * written by the reference part, read by
                                 * the distorted part; 0 otherwise */
  double enhn_gain_limit;
  uint32_t width, height;       /* this level */
  uint32_t ref_pitch, dis_pitch;  /* this level, in samples */
  uint32_t next_width, next_height;
  uint32_t next_pitch;          /* samples */
  uint32_t tiles_x;             /* tiles per row; the grid is 1-D */
  uint32_t mu_shift;            /* vertical μ rounding: bpc at scale 0, else 16 */
  uint32_t sq_shift;            /* vertical squares: 2(bpc−8) at scale 0 (none
                                 * for 8-bit), else 16 */
  uint32_t sub_shift;           /* vertical subsample: bpc at scale 0, else 16 */
  uint32_t do_stats;            /* 0: build the next level only (skipped scale) */
  uint32_t reserved[2];
} VhVifLevelParams;

/* The reference's share of one pixel's statistic, written once by the
 * reference part of a scale and read by the distorted part of each
 * picture scored against it: μ₁ (the horizontal sum) and σ₁². */
typedef struct VhVifRefStat {
  uint32_t mu1;
  int32_t sigma1_sq;
} VhVifRefStat;

/* Which share of a scale a kernel computes: both pictures' (one pair), the
 * reference's alone (μ₁, σ₁² and its next level, for several distorted
 * pictures), or the distorted picture's with the reference's share read
 * back (μ₂, σ₂², σ₁₂, the statistic and its next level). */
#define VH_VIF_PART_PAIR 0
#define VH_VIF_PART_REF 1
#define VH_VIF_PART_DIS 2

#ifdef __cplusplus

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_VIF_HD __host__ __device__ __forceinline__
#else
#define VH_VIF_HD inline        /* plain host C++ (tests) */
#endif

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_VIF_DEVICE_PASS 1
#endif

/* Unrolled loops make every tap an immediate and every register-blocked
 * array index constant. Host compilers may do as they like. */
#ifdef VH_VIF_DEVICE_PASS
#define VH_VIF_UNROLL _Pragma ("unroll")
#define VH_VIF_NO_UNROLL _Pragma ("unroll 1")
#else
#define VH_VIF_NO_UNROLL
#define VH_VIF_UNROLL
#endif

static_assert (sizeof (VhVifLevelParams) == 120, "VhVifLevelParams layout");
static_assert (VH_VIF_TILE_H % VH_VIF_ROWS_PER_JOB == 0
    && VH_VIF_ROWS_PER_JOB % 2 == 0, "tile geometry");
static_assert (VH_VIF_H_OUTPUTS * VH_VIF_H_THREADS_PER_ROW == VH_VIF_TILE_W,
    "tile geometry");
static_assert (VH_VIF_TILE_W + 2 * VH_VIF_HALF_S0 <= VH_VIF_VCOLS,
    "tile geometry");
static_assert (VH_VIF_BLOCK % VH_VIF_VCOLS == 0, "tile geometry");
static_assert (VH_VIF_TILE_W % 2 == 0 && VH_VIF_TILE_H % 2 == 0,
    "tile geometry");
static_assert (2 * (VH_VIF_TILE_H + 2 * VH_VIF_HALF_S0) <= VH_VIF_BLOCK,
    "tile geometry");

namespace vh_vif {

constexpr int kTileW = VH_VIF_TILE_W;
constexpr int kTileH = VH_VIF_TILE_H;
constexpr int kBlock = VH_VIF_BLOCK;
constexpr int kVCols = VH_VIF_VCOLS;
constexpr int kRows = VH_VIF_ROWS_PER_JOB;
constexpr int kGroups = kTileH / kRows;
constexpr int kHThreadsPerRow = VH_VIF_H_THREADS_PER_ROW;
constexpr int kHOutputs = VH_VIF_H_OUTPUTS;
constexpr int kStatPitch = VH_VIF_STAT_PITCH;
/* σ_n² = 2 in the units of the statistics ((8-bit pixel)² · 2^16). */
constexpr int32_t kSigmaNsq = VH_VIF_SIGMA_NSQ;

/* Q16 Gaussian taps of libvmaf (vif-params.h; each set sums to 65536),
 * symmetric: tap k of the filter of half width `half` (k in [0, 2·half]).
 * A constexpr function rather than an array so that, with the loops
 * unrolled, every tap is an immediate operand and no memory is read. */
VH_VIF_HD constexpr uint32_t
tap_at (int half, int m)        /* m: distance from the end, 0..half */
{
  /* One expression: hipcc compiles C++11, whose constexpr functions are
   * a single return statement. */
  return half == VH_VIF_HALF_S0 ? (m == 0 ? VH_VIF_S0_TAP0
          : m == 1 ? VH_VIF_S0_TAP1 : m == 2 ? VH_VIF_S0_TAP2
          : m == 3 ? VH_VIF_S0_TAP3 : m == 4 ? VH_VIF_S0_TAP4
          : m == 5 ? VH_VIF_S0_TAP5 : m == 6 ? VH_VIF_S0_TAP6
          : m == 7 ? VH_VIF_S0_TAP7 : m == 8 ? VH_VIF_S0_TAP8 : 0)
      : half == VH_VIF_HALF_S1 ? (m == 0 ? VH_VIF_S1_TAP0
          : m == 1 ? VH_VIF_S1_TAP1 : m == 2 ? VH_VIF_S1_TAP2
          : m == 3 ? VH_VIF_S1_TAP3 : m == 4 ? VH_VIF_S1_TAP4 : 0)
      : half == VH_VIF_HALF_S2 ? (m == 0 ? VH_VIF_S2_TAP0
          : m == 1 ? VH_VIF_S2_TAP1 : m == 2 ? VH_VIF_S2_TAP2 : 0)
      : half == VH_VIF_HALF_S3 ? (m == 0 ? VH_VIF_S3_TAP0
          : m == 1 ? VH_VIF_S3_TAP1 : 0)
      : 0;
}

VH_VIF_HD constexpr uint32_t
tap (int half, int k)
{
  return tap_at (half, k <= half ? k : 2 * half - k);
}

/* Reflect-101 index (−1 → 1, n → n − 2), one reflection as on the CPU (the
 * minimum picture size keeps every index a valid pixel needs within it),
 * then clamped so that the columns and rows a tile computes past the
 * picture, whose results are never used, still read inside it. */
VH_VIF_HD int
mirror (int i, int n)
{
  if (i < 0)
    i = -i;
  if (i >= n)
    i = 2 * (n - 1) - i;
  return i < 0 ? 0 : (i >= n ? n - 1 : i);
}

VH_VIF_HD int
clz32 (uint32_t x)
{
#ifdef VH_VIF_DEVICE_PASS
  return __clz ((int) x);
#else
  return __builtin_clz (x);
#endif
}

VH_VIF_HD int
clz64 (uint64_t x)
{
#ifdef VH_VIF_DEVICE_PASS
  return __clzll ((long long) x);
#else
  return __builtin_clzll (x);
#endif
}

/* Stops the compiler from moving memory accesses across this point. */
VH_VIF_HD void
compiler_fence ()
{
#if defined(__CUDACC__) || defined(__HIP__) || defined(__GNUC__)
  asm volatile ("" ::: "memory");
#endif
}

/* Double operations rounded one by one: the device intrinsics are never
 * contracted into FMAs whatever the compiler flags; on the host the test
 * build passes -ffp-contract=off (as the kernel build does). */
VH_VIF_HD double
dmul (double a, double b)
{
#ifdef VH_VIF_DEVICE_PASS
  return __dmul_rn (a, b);
#else
  return a * b;
#endif
}

VH_VIF_HD double
dsub (double a, double b)
{
#ifdef VH_VIF_DEVICE_PASS
  return __dsub_rn (a, b);
#else
  return a - b;
#endif
}

VH_VIF_HD double
ddiv (double a, double b)
{
#ifdef VH_VIF_DEVICE_PASS
  return __ddiv_rn (a, b);
#else
  return a / b;
#endif
}

VH_VIF_HD double
dadd (double a, double b)
{
#ifdef VH_VIF_DEVICE_PASS
  return __dadd_rn (a, b);
#else
  return a + b;
#endif
}

/* Q11 log2 of x ≥ 2^17 (libvmaf's log2_32 / log2_64): the top 16 bits,
 * whose bit 15 is set, through the table of T[32768..65535] (the mask
 * drops that bit), and the truncating shift in whole units of 2048. */
VH_VIF_HD int32_t
log2_q11_32 (const uint16_t *table_hi, uint32_t x)
{
  const int k = 16 - clz32 (x);
  return (int32_t) table_hi[(x >> k) & 0x7fffu] + 2048 * k;
}

VH_VIF_HD int32_t
log2_q11_64 (const uint16_t *table_hi, uint64_t x)
{
  const int k = 48 - clz64 (x);
  return (int32_t) table_hi[(uint32_t) (x >> k) & 0x7fffu] + 2048 * k;
}

/* The four sums of VhVifScaleSums. */
struct Accum {
  int64_t num_log, den_log, num_non_log, den_non_log;
};

/* libvmaf's per-pixel statistic, in its order of operations. */
VH_VIF_HD void
add_pixel (int32_t sigma1_sq, int32_t sigma2_sq, int32_t sigma12,
    double enhn_gain_limit, const uint16_t *table_hi, Accum &acc)
{
  if (sigma1_sq < kSigmaNsq) {
    acc.num_non_log += sigma2_sq;
    acc.den_non_log++;
    return;
  }
  /* log2(1 + σ₁²/σ_n²) as L(σ_n² + σ₁²) − L(σ_n²), L(2^17) = 17·2048. */
  acc.den_log += log2_q11_32 (table_hi,
      (uint32_t) kSigmaNsq + (uint32_t) sigma1_sq) - VH_VIF_LOG2_SIGMA_NSQ;
  if (sigma12 > 0 && sigma2_sq > 0) {
    /* g = σ₁₂ / (σ₁² + ε) with libvmaf's ε = 65536·1e−10 (a constant the
     * C compiler folds to the double nearest the product). */
    const double eps = VH_VIF_EPS;
    double g = ddiv ((double) sigma12, dadd ((double) sigma1_sq, eps));
    /* sv² = σ₂² − g·σ₁₂, the product rounded first, truncated to int32
     * and clamped at 0: a positive value is at most σ₂², so the
     * conversion is always in range. */
    const double sv_sq_d = dsub ((double) sigma2_sq,
        dmul (g, (double) sigma12));
    const int32_t sv_sq = sv_sq_d > 0.0 ? (int32_t) sv_sq_d : 0;
    /* The gain limit applies after sv² (libvmaf's order). */
    if (!(g < enhn_gain_limit))
      g = enhn_gain_limit;
    const uint32_t n1 = (uint32_t) sv_sq + kSigmaNsq;
    /* (g·g)·σ₁², truncated to int64 (it is ≥ 0 and < 2^45). */
    const int64_t gain = (int64_t) dmul (dmul (g, g), (double) sigma1_sq);
    const uint64_t n2 = (uint64_t) (gain + (int64_t) n1);
    acc.num_log += log2_q11_64 (table_hi, n2) - log2_q11_64 (table_hi, n1);
  }
}

/* σ₁², σ₂², σ₁₂ of one pixel from its horizontal sums: μ products rounded
 * by (p + 2^31) >> 32, squares by (Σ + 2^15) >> 16, both kept as uint32;
 * the differences wrap in uint32 and are read as int32; σ₂² ≥ 0. The
 * reference's share (σ₁²) and the rest are apart so that the reference's
 * can be computed once for several distorted pictures; a pair computes
 * both, with the same operations. */
struct Sigmas {
  int32_t sigma1_sq, sigma2_sq, sigma12;
};

VH_VIF_HD int32_t
sigma1_sq_of (uint32_t mu1, uint64_t xx_sum)
{
  const uint32_t mu1_sq = (uint32_t) (((uint64_t) mu1 * mu1 + 0x80000000u) >> 32);
  const uint32_t xx = (uint32_t) ((xx_sum + 32768) >> 16);
  return (int32_t) (xx - mu1_sq);
}

VH_VIF_HD Sigmas
sigmas_with (uint32_t mu1, int32_t sigma1_sq, uint32_t mu2, uint64_t yy_sum,
    uint64_t xy_sum)
{
  const uint32_t mu2_sq = (uint32_t) (((uint64_t) mu2 * mu2 + 0x80000000u) >> 32);
  const uint32_t mu12 = (uint32_t) (((uint64_t) mu1 * mu2 + 0x80000000u) >> 32);
  const uint32_t yy = (uint32_t) ((yy_sum + 32768) >> 16);
  const uint32_t xy = (uint32_t) ((xy_sum + 32768) >> 16);
  Sigmas s;
  s.sigma1_sq = sigma1_sq;
  const int32_t s2 = (int32_t) (yy - mu2_sq);
  s.sigma2_sq = s2 < 0 ? 0 : s2;
  s.sigma12 = (int32_t) (xy - mu12);
  return s;
}

/* Shared memory of one block. The vertical results are written once the
 * input has been read into registers, and the reduction scratch reuses
 * them once the horizontal passes are done. */
struct TileShared {
  union {
    struct {
      /* Vertical sums of the statistics, per tile row and vertical column
       * (column c is picture column x0 − half + c): μ₁ | μ₂ << 16 (both
       * rounded to uint16), and the rounded square sums as uint32. */
      uint32_t mu[kTileH][kStatPitch];
      uint32_t xx[kTileH][kStatPitch];
      uint32_t yy[kTileH][kStatPitch];
      uint32_t xy[kTileH][kStatPitch];
      /* Vertical half of the next level's filter at the even tile rows:
       * ref | dis << 16, rounded to uint16. */
      uint32_t sub[kTileH / 2][kVCols];
    } v;
    unsigned long long partial[VH_VIF_SUMS_PER_SCALE][kBlock];
  } u;
  /* Sample offset of each input row the tile reads (tile row i − half,
   * mirrored) in the reference and the distorted plane: the same for
   * every column, so computed once per block. */
  uint32_t ref_row_offset[kTileH + 2 * VH_VIF_HALF_S0];
  uint32_t dis_row_offset[kTileH + 2 * VH_VIF_HALF_S0];
};

static_assert (sizeof (TileShared) == VH_VIF_SHARED_BYTES, "shared memory");

/* Picture position of a tile (the grid is 1-D: tiles row by row). */
struct Tile {
  int x0, y0;
};

VH_VIF_HD Tile
tile_of (const VhVifLevelParams &p, unsigned block)
{
  Tile t;
  t.x0 = (int) (block % p.tiles_x) * kTileW;
  t.y0 = (int) (block / p.tiles_x) * kTileH;
  return t;
}

/* Square sums of the vertical pass: 8-bit samples keep them in uint32
 * (Σ f·r² < 2^32, unshifted, as libvmaf), wider ones in uint64. */
template <typename Pixel> struct SquareSum {
  typedef uint64_t type;
};
template <> struct SquareSum<uint8_t> {
  typedef uint32_t type;
};

/* Step 0, thread `tid`: one entry of the row offset tables (the input
 * rows of the tile, mirrored at the top and bottom of the picture). The
 * offsets fit 32 bits: the host refuses planes of 2^32 samples or more. */
template <int HALF>
VH_VIF_HD void
row_offsets (const VhVifLevelParams &p, Tile tile, unsigned tid,
    TileShared &sm)
{
  constexpr unsigned kIn = kTileH + 2 * HALF;
  const unsigned i = tid % kIn;

  if (tid >= 2 * kIn)
    return;
  const uint32_t y = (uint32_t) mirror (tile.y0 - HALF + (int) i,
      (int) p.height);
  if (tid < kIn)
    sm.ref_row_offset[i] = y * p.ref_pitch;
  else
    sm.dis_row_offset[i] = y * p.dis_pitch;
}

/* Step 1, one job: the vertical pass of vertical column `col`, tile rows
 * group·kRows .. +kRows−1, and the next level's vertical pass at the even
 * ones. HALF is this scale's half width, NEXT_HALF the next scale's (0: no
 * next level); STATS false skips the statistics; PART (VH_VIF_PART_*)
 * which pictures' sums are formed: the reference's μ₁ and ref², the
 * distorted picture's μ₂, dis² and ref·dis, or all five. */
template <int HALF, int NEXT_HALF, bool STATS, typename Pixel, int PART>
VH_VIF_HD void
vertical_job (const VhVifLevelParams &p, Tile tile, unsigned col,
    unsigned group, TileShared &sm)
{
  typedef typename SquareSum<Pixel>::type Sq;
  constexpr bool kRef = PART != VH_VIF_PART_DIS;
  constexpr bool kDis = PART != VH_VIF_PART_REF;
  constexpr int kIn = kRows + 2 * HALF;       /* input rows read */
  constexpr int kSubRows = kRows / 2;         /* even rows of the group */
  const Pixel *ref = (const Pixel *) (uintptr_t) p.ref;
  const Pixel *dis = (const Pixel *) (uintptr_t) p.dis;
  const int x = mirror (tile.x0 - HALF + (int) col, (int) p.width);
  const uint32_t *ref_row = sm.ref_row_offset + group * kRows;
  const uint32_t *dis_row = sm.dis_row_offset + group * kRows;

  uint32_t mu1[kRows], mu2[kRows];
  Sq xx[kRows], yy[kRows], xy[kRows];
  uint32_t sub_ref[kSubRows], sub_dis[kSubRows];
  VH_VIF_UNROLL
  for (int i = 0; i < kRows; i++) {
    mu1[i] = mu2[i] = 0;
    xx[i] = yy[i] = xy[i] = 0;
  }
  VH_VIF_UNROLL
  for (int i = 0; i < kSubRows; i++)
    sub_ref[i] = sub_dis[i] = 0;

  /* Each input row is read once and added to every output row it is a
   * tap of (output row i, tap k = j − i). */
  VH_VIF_UNROLL
  for (int j = 0; j < kIn; j++) {
    const uint32_t r = ref[ref_row[j] + (uint32_t) x];
    const uint32_t d = kDis ? (uint32_t) dis[dis_row[j] + (uint32_t) x] : 0;

    if (STATS) {
      /* libvmaf adds (f·r)·r; f·(r·r) is the same integer (no product
       * overflows its type: r·r < 2^32, f·r·r < 2^32 for 8-bit samples,
       * < 2^64 otherwise) and costs one multiply per row, not per tap. */
      const uint32_t rr = r * r, dd = d * d, rd = r * d;
      VH_VIF_UNROLL
      for (int i = 0; i < kRows; i++) {
        const int k = j - i;
        if (k >= 0 && k <= 2 * HALF) {
          const uint32_t f = tap (HALF, k);
          if (kRef) {
            mu1[i] += f * r;
            xx[i] += (Sq) f * rr;
          }
          if (kDis) {
            mu2[i] += f * d;
            yy[i] += (Sq) f * dd;
            xy[i] += (Sq) f * rd;
          }
        }
      }
    }
    if (NEXT_HALF > 0) {
      /* Even row 2i of the group, tap k of the next filter, reads the
       * group's input row 2i + k − NEXT_HALF + HALF. */
      VH_VIF_UNROLL
      for (int i = 0; i < kSubRows; i++) {
        const int k = j - 2 * i - (HALF - NEXT_HALF);
        if (k >= 0 && k <= 2 * NEXT_HALF) {
          if (kRef)
            sub_ref[i] += tap (NEXT_HALF, k) * r;
          if (kDis)
            sub_dis[i] += tap (NEXT_HALF, k) * d;
        }
      }
    }
  }

  if (STATS) {
    const uint32_t mu_round = 1u << (p.mu_shift - 1);
    VH_VIF_UNROLL
    for (int i = 0; i < kRows; i++) {
      const int row = (int) group * kRows + i;
      /* (Σ + 2^(s−1)) >> s, kept as uint16 (libvmaf's casts). */
      const uint32_t m1 = ((mu1[i] + mu_round) >> p.mu_shift) & 0xffffu;
      const uint32_t m2 = ((mu2[i] + mu_round) >> p.mu_shift) & 0xffffu;
      sm.u.v.mu[row][col] = m1 | m2 << 16;
      if (sizeof (Pixel) == 1) {
        /* 8-bit scale 0: the squares unshifted. */
        if (kRef)
          sm.u.v.xx[row][col] = (uint32_t) xx[i];
        if (kDis) {
          sm.u.v.yy[row][col] = (uint32_t) yy[i];
          sm.u.v.xy[row][col] = (uint32_t) xy[i];
        }
      } else {
        const unsigned s = p.sq_shift;
        const uint64_t round = (uint64_t) 1 << (s - 1);
        if (kRef)
          sm.u.v.xx[row][col] = (uint32_t) (((uint64_t) xx[i] + round) >> s);
        if (kDis) {
          sm.u.v.yy[row][col] = (uint32_t) (((uint64_t) yy[i] + round) >> s);
          sm.u.v.xy[row][col] = (uint32_t) (((uint64_t) xy[i] + round) >> s);
        }
      }
    }
  }
  if (NEXT_HALF > 0) {
    const uint32_t sub_round = 1u << (p.sub_shift - 1);
    VH_VIF_UNROLL
    for (int i = 0; i < kSubRows; i++) {
      const uint32_t a = ((sub_ref[i] + sub_round) >> p.sub_shift) & 0xffffu;
      const uint32_t b = ((sub_dis[i] + sub_round) >> p.sub_shift) & 0xffffu;
      sm.u.v.sub[(int) group * kSubRows + i][col] = a | b << 16;
    }
  }
}

/* Step 1, thread `tid`: its jobs, column tid % 128 of row groups
 * tid / 128, + 2, ... (one at a time: the registers of one job are what
 * limits the occupancy). */
template <int HALF, int NEXT_HALF, bool STATS, typename Pixel, int PART>
VH_VIF_HD void
vertical_pass (const VhVifLevelParams &p, Tile tile, unsigned tid,
    TileShared &sm)
{
  const unsigned col = tid % kVCols;

  if (col >= (unsigned) (kTileW + 2 * HALF))
    return;
  VH_VIF_NO_UNROLL
  for (unsigned group = tid / kVCols; group < (unsigned) kGroups;
      group += kBlock / kVCols)
    vertical_job<HALF, NEXT_HALF, STATS, Pixel, PART> (p, tile, col, group,
        sm);
}

/* Horizontal pass and statistic of N consecutive pixels of tile row
 * `row` from vertical column c on (of which the first `valid` are in the
 * picture; pixel o's entry of the reference's share is
 * stat + o · kHThreadsPerRow, see horizontal_stats).
 * Pixel c + o, tap k reads vertical column c + o + k: each column is read
 * once and added to every output it is a tap of. The reference part
 * stores μ₁ and σ₁² instead of adding the statistic; the distorted part
 * reads them back. */
template <int HALF, int N, int PART>
VH_VIF_HD void
horizontal_run (const VhVifLevelParams &p, int row, int c, int valid,
    size_t stat, const TileShared &sm, Accum &acc)
{
  constexpr bool kRef = PART != VH_VIF_PART_DIS;
  constexpr bool kDis = PART != VH_VIF_PART_REF;
  uint32_t mu1[N], mu2[N];
  uint64_t xx[N], yy[N], xy[N];
  VH_VIF_UNROLL
  for (int o = 0; o < N; o++) {
    mu1[o] = mu2[o] = 0;
    xx[o] = yy[o] = xy[o] = 0;
  }
  VH_VIF_UNROLL
  for (int j = 0; j < N + 2 * HALF; j++) {
    const uint32_t mu = sm.u.v.mu[row][c + j];
    const uint32_t m1 = mu & 0xffffu, m2 = mu >> 16;
    const uint32_t vxx = kRef ? sm.u.v.xx[row][c + j] : 0;
    const uint32_t vyy = kDis ? sm.u.v.yy[row][c + j] : 0;
    const uint32_t vxy = kDis ? sm.u.v.xy[row][c + j] : 0;
    VH_VIF_UNROLL
    for (int o = 0; o < N; o++) {
      const int k = j - o;
      if (k >= 0 && k <= 2 * HALF) {
        const uint32_t f = tap (HALF, k);
        if (kRef) {
          mu1[o] += f * m1;
          xx[o] += (uint64_t) f * vxx;
        }
        if (kDis) {
          mu2[o] += f * m2;
          yy[o] += (uint64_t) f * vyy;
          xy[o] += (uint64_t) f * vxy;
        }
      }
    }
  }

  const uint16_t *table_hi = (const uint16_t *) (uintptr_t) p.log2_table;
  VhVifRefStat *stats = (VhVifRefStat *) (uintptr_t) p.ref_stats;
  VH_VIF_UNROLL
  for (int o = 0; o < N; o++) {
    if (o < valid) {
      if (PART == VH_VIF_PART_REF) {
        VhVifRefStat out;
        out.mu1 = mu1[o];
        out.sigma1_sq = sigma1_sq_of (mu1[o], xx[o]);
        stats[stat + (size_t) (o * kHThreadsPerRow)] = out;
        continue;
      }
      VhVifRefStat in;
      if (PART == VH_VIF_PART_DIS) {
        in = stats[stat + (size_t) (o * kHThreadsPerRow)];
      } else {
        in.mu1 = mu1[o];
        in.sigma1_sq = sigma1_sq_of (mu1[o], xx[o]);
      }
      const Sigmas s = sigmas_with (in.mu1, in.sigma1_sq, mu2[o], yy[o],
          xy[o]);
      add_pixel (s.sigma1_sq, s.sigma2_sq, s.sigma12, p.enhn_gain_limit,
          table_hi, acc);
    }
  }
}

/* Step 2, thread `tid`: the horizontal pass and the statistic of pixels
 * tid % 16 · 7 .. +6 of tile row tid / 16, in two runs (fewer live
 * registers than one of 7); returns the thread's sums. */
template <int HALF, int PART>
VH_VIF_HD Accum
horizontal_stats (const VhVifLevelParams &p, Tile tile, unsigned tid,
    const TileShared &sm)
{
  constexpr int kFirstRun = (kHOutputs + 1) / 2;
  Accum acc = { 0, 0, 0, 0 };
  const int row = (int) (tid / kHThreadsPerRow);
  const int c0 = (int) (tid % kHThreadsPerRow) * kHOutputs;
  const int valid = (int) p.width - (tile.x0 + c0);

  if (tile.y0 + row >= (int) p.height || valid <= 0)
    return acc;
  /* The share's entries in the order the threads reach them: per block,
   * row, output o, then the row's threads, so that the 16 threads of a
   * row store and load 16 neighbouring entries at each o (whole cache
   * lines) rather than entries 7 apart. */
  const size_t block = (size_t) (tile.y0 / kTileH) * p.tiles_x
      + (size_t) (tile.x0 / kTileW);
  const size_t stat = (block * kTileH + (size_t) row) * kTileW
      + (size_t) (tid % kHThreadsPerRow);
  horizontal_run<HALF, kFirstRun, PART> (p, row, c0, valid, stat, sm, acc);
  /* Without this the compiler keeps the columns the two runs share in
   * registers across the first, which costs more than reading them again. */
  compiler_fence ();
  if (valid > kFirstRun)
    horizontal_run<HALF, kHOutputs - kFirstRun, PART> (p, row, c0 + kFirstRun,
        valid - kFirstRun, stat + kFirstRun * kHThreadsPerRow, sm, acc);
  return acc;
}

/* Step 3, thread `tid`: the horizontal half of the next level's filter at
 * the kept pixels (the tile's even columns of its even rows), rounded by
 * (Σ + 2^15) >> 16 and stored as uint16 (the pictures of PART). */
template <int HALF, int NEXT_HALF, int PART>
VH_VIF_HD void
horizontal_subsample (const VhVifLevelParams &p, Tile tile, unsigned tid,
    const TileShared &sm)
{
  constexpr int kOutW = kTileW / 2, kOutH = kTileH / 2;
  uint16_t *next_ref = (uint16_t *) (uintptr_t) p.next_ref;
  uint16_t *next_dis = (uint16_t *) (uintptr_t) p.next_dis;

  for (unsigned o = tid; o < (unsigned) (kOutW * kOutH); o += kBlock) {
    const int i = (int) o / kOutW, j = (int) o % kOutW;
    const int nx = tile.x0 / 2 + j, ny = tile.y0 / 2 + i;
    if (nx >= (int) p.next_width || ny >= (int) p.next_height)
      continue;
    /* Tile column 2j, tap k: picture column x0 + 2j + k − NEXT_HALF, that
     * is vertical column 2j + k + HALF − NEXT_HALF. */
    uint32_t acc_ref = 0, acc_dis = 0;
    VH_VIF_UNROLL
    for (int k = 0; k <= 2 * NEXT_HALF; k++) {
      const uint32_t v = sm.u.v.sub[i][2 * j + k + HALF - NEXT_HALF];
      acc_ref += tap (NEXT_HALF, k) * (v & 0xffffu);
      acc_dis += tap (NEXT_HALF, k) * (v >> 16);
    }
    const size_t at = (size_t) ny * p.next_pitch + (size_t) nx;
    if (PART != VH_VIF_PART_DIS)
      next_ref[at] = (uint16_t) ((acc_ref + 32768) >> 16);
    if (PART != VH_VIF_PART_REF)
      next_dis[at] = (uint16_t) ((acc_dis + 32768) >> 16);
  }
}

}  /* namespace vh_vif */

#endif /* __cplusplus */
#endif /* VH_VIF_DEVICE_H */
