/* vmafhip — CAMBI on the GPU: the per-thread arithmetic.
 *
 * Included by kernels/cambi.hip (device code), by common/gpu/features/cambi-gpu.c
 * (C: the launch parameters and geometry only) and by the host test
 * tests/check/test-cambi-emulation.cpp, which runs these functions block
 * by block and thread by thread against the CPU extractor
 * (common/features/cambi/cambi.c).  Every contrast value is the CPU's, bit for bit: the
 * same integer counts and the same float operations.  The top-k pooling
 * adds the selected values exactly (fixed point, units of 2^-24) where the
 * CPU adds them in double in its quick-select's order: the pooled value
 * differs from the CPU's by the CPU's rounding only.
 *
 * Launches for one picture, in order on one stream:
 *   preprocess   luma -> 10 bits (anti-dithering mean when the encode had
 *                fewer bits), samples above the bit depth counted
 *   deriv        zero-derivative flags (equal to the right and lower
 *                neighbours), each pixel's column of 7 counted
 *   mask         7x7 count of the flags (7 column counts) over the mask
 *                index
 *   then per scale (5):
 *   scale        the previous scale's picture decimated (every other pixel
 *                both ways; before the first scale only with the
 *                high-resolution speed-up), 3x3 mode filter; and the values
 *                the histograms count (masked, within the band; the rest
 *                VH_CAMBI_OUTSIDE)
 *   cvalues      per tile of VH_CAMBI_CV_ROWS rows, a column per 4 or 16
 *                threads (cvalues_wide): the window's counts
 *                of the values near each pixel's own, slid down the column
 *                while the value stays (two window rows a pixel, not the
 *                whole window), its contrast value, and a histogram of the
 *                non-zero values by their top bits
 *   level2       the grid: the values in the k-th largest's level-1 bin
 *                counted by their next 10 bits
 *   level3       the grid: those in its level-2 bin by their last 10
 *                bits, and the sum of those above it
 *   select       one block: the k-th largest value from the three levels'
 *                counts, the exact sum of the top k
 */
#ifndef VH_CAMBI_DEVICE_H
#define VH_CAMBI_DEVICE_H

#include <stdint.h>

#include "cambi-params.h"

#define VH_CAMBI_BLOCK 256
#define VH_CAMBI_SELECT_BLOCK 1024
/* contrast values: a block of VH_CAMBI_CV_THREADS takes a tile
 * VH_CAMBI_CV_ROWS high, `split` adjacent threads a column (each a share
 * of every window row): VH_CAMBI_CV_SPLIT on large scales (32 columns a
 * tile), VH_CAMBI_CV_SPLIT_WIDE where the scale is too small to fill the
 * GPU that way (8 columns a tile: more threads, shorter chains) */
#define VH_CAMBI_CV_THREADS 128
#define VH_CAMBI_CV_ROWS 32
#define VH_CAMBI_CV_SPLIT 4
#define VH_CAMBI_CV_SPLIT_WIDE 16
#define VH_CAMBI_CV_COLS (VH_CAMBI_CV_THREADS / VH_CAMBI_CV_SPLIT)
/* the largest half window the kernels take (libvmaf's 65-pixel limit) */
#define VH_CAMBI_MAX_PAD 32
/* the luma steps the kernels count: max_log_contrast up to 2 */
#define VH_CAMBI_GPU_DIFFS 4
/* a pixel the histograms do not count (not masked, outside the band, or
 * outside the picture) */
#define VH_CAMBI_OUTSIDE 0xffffu
/* Non-zero contrast values are floats in [0.5, 2^15): w p0 pm / (p0 + pm)
 * with w <= 4 and p0 + pm <= 65^2.  Their top 12 bits (sign, exponent,
 * three mantissa bits) from 0x3f0 fall in 128 bins; levels 2 and 3 take
 * 10 bits each. */
#define VH_CAMBI_BIN1_BASE 0x3f0u
#define VH_CAMBI_BINS1 128
#define VH_CAMBI_BINS 1024
/* Each scale's histograms, cleared every frame: level 1 from the contrast
 * kernel (counts and exact sums of 128 bins), the selection's level-2 and
 * level-3 counts (1024 bins each) and its sum of the level-2 bins above
 * the k-th value's; byte offsets */
#define VH_CAMBI_HIST_COUNT1 0
#define VH_CAMBI_HIST_SUM1 (VH_CAMBI_BINS1 * 4)
#define VH_CAMBI_HIST_COUNT2 (VH_CAMBI_HIST_SUM1 + VH_CAMBI_BINS1 * 8)
#define VH_CAMBI_HIST_COUNT3 (VH_CAMBI_HIST_COUNT2 + VH_CAMBI_BINS * 4)
#define VH_CAMBI_HIST_PART (VH_CAMBI_HIST_COUNT3 + VH_CAMBI_BINS * 4)
#define VH_CAMBI_HIST_BYTES (VH_CAMBI_HIST_PART + 8)
/* the level-2 and level-3 passes: about this many values a thread, in at
 * most this many blocks */
#define VH_CAMBI_SELECT_PER_THREAD 16
#define VH_CAMBI_SELECT_MAX_BLOCKS 256

/* preprocess, deriv, mask */
typedef struct VhCambiPre {
  uint64_t src;                 /* luma, 8 or 16-bit samples */
  uint64_t img;                 /* uint16 [width * height], 10 bits */
  uint64_t deriv;               /* uint8 [width * height]: column counts */
  uint64_t mask;                /* uint8 [width * height] */
  uint64_t bad;                 /* uint32: samples above the bit depth */
  uint32_t pitch;               /* bytes per row of src */
  uint32_t width, height;
  uint32_t bpc;
  uint32_t anti_dither;         /* the encode had fewer than 10 bits */
  uint32_t mask_index;          /* masked: the 7x7 count exceeds it */
} VhCambiPre;

/* one scale's scale, cvalues and select (the selection kernels read
 * every scale's from device memory: blockIdx.y the scale) */
typedef struct VhCambiScale {
  uint64_t prev;                /* uint16 [prev_w * prev_h] */
  uint64_t img;                 /* uint16 [w * h]: this scale, filtered */
  uint64_t counted;             /* uint16 [w * h] */
  uint64_t mask;                /* uint8 full-size mask */
  uint64_t c_values;            /* float [w * h] */
  uint64_t hist;                /* VH_CAMBI_HIST_BYTES: the histograms */
  uint64_t result;              /* uint64: the top-k sum (2^-24 units) */
  uint64_t reciprocal;          /* float [VH_CAMBI_RECIPROCAL_SIZE] */
  uint32_t prev_w, prev_h, w, h;
  uint32_t mask_w, mask_shift;  /* mask of (i, j): mask[i << s][j << s] */
  uint32_t decimate;
  uint32_t pad;                 /* half the window */
  uint32_t tiles_x;             /* contrast tiles across */
  uint32_t split;               /* threads a column */
  uint32_t k;                   /* how many values the top-k sum takes */
  uint32_t band_base, band_size;
  uint32_t num_diffs, vlt_luma;
  uint32_t tvi[VH_CAMBI_GPU_DIFFS];
  uint32_t weight[VH_CAMBI_GPU_DIFFS];
  uint32_t select_blocks;       /* its level-2 and level-3 grids' blocks */
} VhCambiScale;

/* The level-2 and level-3 selection grids for a scale of n values */
static inline unsigned
vh_cambi_select_blocks (unsigned n)
{
  const unsigned per_block = VH_CAMBI_SELECT_BLOCK
      * VH_CAMBI_SELECT_PER_THREAD;
  const unsigned blocks = (n + per_block - 1) / per_block;
  return blocks < 1 ? 1 : blocks > VH_CAMBI_SELECT_MAX_BLOCKS
      ? VH_CAMBI_SELECT_MAX_BLOCKS : blocks;
}

#ifdef __cplusplus

#include "vh-device-bits.h"
#include "vh-lanes.h"

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_CAMBI_FN __host__ __device__ __forceinline__
#else
#define VH_CAMBI_FN inline      /* plain host C++ (tests) */
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_CAMBI_UNROLL _Pragma ("unroll")
#else
#define VH_CAMBI_UNROLL
#endif

static_assert (sizeof (VhCambiPre) == 64, "VhCambiPre layout");
static_assert (sizeof (VhCambiScale) == 160, "VhCambiScale layout");

namespace vh_cambi {

constexpr int kTileRows = VH_CAMBI_CV_ROWS;
constexpr int kInCols = VH_CAMBI_CV_COLS + 2 * VH_CAMBI_MAX_PAD;
constexpr int kInRows = VH_CAMBI_CV_ROWS + 2 * VH_CAMBI_MAX_PAD;

using vh_bits::atomic_add32;
using vh_bits::atomic_add64;
using vh_bits::float_bits;

/* A non-zero contrast value (a normal float >= 0.5) in units of 2^-24:
 * its mantissa shifted by its exponent, exact. */
VH_CAMBI_FN uint64_t
fixed_value (uint32_t bits)
{
  return (uint64_t) ((bits & 0x7fffffu) | 0x800000u) << ((bits >> 23) - 126);
}

/* ---- preprocessing ------------------------------------------------------ */

template <typename Pixel>
VH_CAMBI_FN uint32_t
to10 (const VhCambiPre &p, int x, int y)
{
  const uint32_t v = ((const Pixel *) (uintptr_t) (p.src
          + (uint64_t) y * p.pitch))[x];
  if (p.bpc == 8)
    return v << 2;
  if (p.bpc == 10)
    return v;
  const uint32_t down = p.bpc - 10;
  return (v + (1u << (down - 1))) >> down;
}

/* Pixel i of the 10-bit picture: the sample, or with anti-dithering the
 * mean of its 2x2 (2x1 at the last row or column; the corner as is), as
 * the CPU computes it in place.  Counts samples above the bit depth. */
template <typename Pixel>
VH_CAMBI_FN uint16_t
preprocess_pixel (const VhCambiPre &p, unsigned i, bool *bad)
{
  const int w = (int) p.width, h = (int) p.height;
  const int x = (int) (i % p.width), y = (int) (i / p.width);
  const uint32_t raw = ((const Pixel *) (uintptr_t) (p.src
          + (uint64_t) y * p.pitch))[x];
  *bad = p.bpc > 8 && raw >= (1u << p.bpc);
  const uint32_t v = to10<Pixel> (p, x, y);
  if (!p.anti_dither)
    return (uint16_t) v;
  const bool right = x + 1 < w, down = y + 1 < h;
  if (right && down)
    return (uint16_t) ((v + to10<Pixel> (p, x + 1, y) + to10<Pixel> (p, x,
                y + 1) + to10<Pixel> (p, x + 1, y + 1)) >> 2);
  if (down)
    return (uint16_t) ((v + to10<Pixel> (p, x, y + 1)) >> 1);
  if (right)
    return (uint16_t) ((v + to10<Pixel> (p, x + 1, y)) >> 1);
  return (uint16_t) v;
}

/* 1 where the pixel at (x, y) equals its right and lower neighbours (the
 * picture's edges count as equal) */
VH_CAMBI_FN uint32_t
deriv_at (const uint16_t *img, unsigned width, unsigned height, unsigned x,
    unsigned y)
{
  const size_t i = (size_t) y * width + x;
  const uint16_t v = img[i];
  const uint16_t below = y + 1 < height ? img[i + width] : v;
  const uint16_t right = x + 1 < width ? img[i + 1] : v;
  return (uint32_t) ((v == right) & (v == below));
}

/* The 7x7 count of the flags, summed as columns then rows (the same
 * integers as the window summed whole, a fifth of the reads): first each
 * pixel's column of 7 flags (rows clipped to the picture), into `deriv`
 */
VH_CAMBI_FN uint8_t
deriv_column_pixel (const VhCambiPre &p, unsigned i)
{
  const uint16_t *img = (const uint16_t *) (uintptr_t) p.img;
  const int x = (int) (i % p.width), y = (int) (i / p.width);
  const int r = VH_CAMBI_MASK_FILTER / 2;
  const int y0 = y - r < 0 ? 0 : y - r;
  const int y1 = y + r >= (int) p.height ? (int) p.height - 1 : y + r;
  uint32_t sum = 0;
  for (int yy = y0; yy <= y1; yy++)
    sum += deriv_at (img, p.width, p.height, (unsigned) x, (unsigned) yy);
  return (uint8_t) sum;
}

/* then each pixel's row of 7 column counts (clipped), over the index */
VH_CAMBI_FN uint8_t
mask_pixel (const VhCambiPre &p, unsigned i)
{
  const uint8_t *columns = (const uint8_t *) (uintptr_t) p.deriv;
  const int x = (int) (i % p.width), y = (int) (i / p.width);
  const int r = VH_CAMBI_MASK_FILTER / 2;
  const int x0 = x - r < 0 ? 0 : x - r;
  const int x1 = x + r >= (int) p.width ? (int) p.width - 1 : x + r;
  const uint8_t *row = columns + (size_t) y * p.width;
  uint32_t sum = 0;
  for (int xx = x0; xx <= x1; xx++)
    sum += row[xx];
  return (uint8_t) (sum > p.mask_index);
}

/* ---- one scale: decimation, mode filter, counted values ------------------ */

VH_CAMBI_FN uint16_t
mode3 (uint16_t a, uint16_t b, uint16_t c)
{
  const uint16_t ab = a < b ? a : b;
  const uint16_t smallest = ab < c ? ab : c;
  const uint16_t bc = b == c ? b : smallest;
  return a == b || a == c ? a : bc;
}

/* the decimated picture (before the mode filter) at (x, y) */
VH_CAMBI_FN uint16_t
decimated (const VhCambiScale &p, int x, int y)
{
  const uint16_t *prev = (const uint16_t *) (uintptr_t) p.prev;
  const int s = p.decimate ? 1 : 0;
  return prev[(size_t) (y << s) * p.prev_w + (x << s)];
}

/* the horizontal mode at (x, y): the outer columns as they are */
VH_CAMBI_FN uint16_t
mode_row (const VhCambiScale &p, int x, int y)
{
  if (x == 0 || x + 1 >= (int) p.w)
    return decimated (p, x, y);
  return mode3 (decimated (p, x - 1, y), decimated (p, x, y),
      decimated (p, x + 1, y));
}

VH_CAMBI_FN void
scale_pixel (const VhCambiScale &p, unsigned i)
{
  const int x = (int) (i % p.w), y = (int) (i / p.w);
  /* the outer rows keep the decimated values, unfiltered both ways */
  const uint16_t v = y == 0 || y + 1 >= (int) p.h ? decimated (p, x, y)
      : mode3 (mode_row (p, x, y - 1), mode_row (p, x, y),
      mode_row (p, x, y + 1));
  ((uint16_t *) (uintptr_t) p.img)[i] = v;
  const uint8_t *mask = (const uint8_t *) (uintptr_t) p.mask;
  const bool masked = mask[((size_t) y << p.mask_shift) * p.mask_w
      + ((size_t) x << p.mask_shift)] != 0;
  const bool in_band = (uint32_t) (uint16_t) (v - p.band_base) < p.band_size;
  ((uint16_t *) (uintptr_t) p.counted)[i] = masked && in_band ? v
      : (uint16_t) VH_CAMBI_OUTSIDE;
}

/* The histogram bin of a non-zero value (the bound above keeps it in
 * range; clamped all the same) */
VH_CAMBI_FN uint32_t
bin1 (uint32_t bits)
{
  const uint32_t b = (bits >> 20) - VH_CAMBI_BIN1_BASE;
  return b < VH_CAMBI_BINS1 ? b : VH_CAMBI_BINS1 - 1;
}

/* ---- contrast values -------------------------------------------------- */

/* A block's shared memory: the tile's counted values with the window's
 * margin (the largest window's; smaller ones use its top-left part), and
 * the block's histogram of its non-zero values. */
struct CvShared {
  uint16_t in[kInRows][kInCols];
  uint32_t count[VH_CAMBI_BINS1];
  uint64_t sum[VH_CAMBI_BINS1];
};

/* Step 1: the tile's input (VH_CAMBI_OUTSIDE outside the picture) */
VH_CAMBI_FN void
cv_load (const VhCambiScale &p, unsigned tile, unsigned t, unsigned n_threads,
    CvShared &sm)
{
  const int pad = (int) p.pad, cols = VH_CAMBI_CV_THREADS / (int) p.split;
  const int side_x = cols + 2 * pad, side_y = kTileRows + 2 * pad;
  const int x0 = (int) (tile % p.tiles_x) * cols - pad;
  const int y0 = (int) (tile / p.tiles_x) * kTileRows - pad;
  const uint16_t *counted = (const uint16_t *) (uintptr_t) p.counted;
  for (unsigned i = t; i < (unsigned) (side_x * side_y); i += n_threads) {
    const int x = (int) i % side_x, y = (int) i / side_x;
    const int gx = x0 + x, gy = y0 + y;
    const bool in = gx >= 0 && gy >= 0 && gx < (int) p.w && gy < (int) p.h;
    sm.in[y][x] = in ? counted[(size_t) gy * p.w + gx]
        : (uint16_t) VH_CAMBI_OUTSIDE;
  }
  for (unsigned i = t; i < VH_CAMBI_BINS1; i += n_threads) {
    sm.count[i] = 0;
    sm.sum[i] = 0;
  }
}

/* One pixel's contrast value from its window's counts of the values
 * v - 4 .. v + 4 (counts[4] is v's own): the CPU's c_values_row. */
VH_CAMBI_FN float
contrast (const VhCambiScale &p, uint32_t v, const uint32_t counts[9])
{
  const float *reciprocal = (const float *) (uintptr_t) p.reciprocal;
  const uint32_t p0 = counts[4];
  const uint32_t value = v + p.num_diffs;
  float c = 0.0f;
  /* unrolled over the most diffs: counts stays in registers */
  VH_CAMBI_UNROLL
  for (uint32_t d = 0; d < VH_CAMBI_GPU_DIFFS; d++) {
    if (d >= p.num_diffs || value > p.tvi[d] || value + d + 1 <= p.vlt_luma)
      continue;
    const uint32_t p1 = counts[4 + d + 1], p2 = counts[4 - d - 1];
    const uint32_t pm = p1 > p2 ? p1 : p2;
    const float val = (float) ((int) p.weight[d] * (int) (p0 * pm))
        * reciprocal[pm + p0];
    if (val > c)
      c = val;
  }
  return c;
}

/* One window row's matches of the values base .. base + 8, in 7-bit
 * fields of one word (field e counts base + e): up to 127 matches a
 * field, so a word adds the matches of as many rows as fit (a row is at
 * most 65 pixels) */
VH_CAMBI_FN uint64_t
match (uint32_t u, uint32_t base)
{
  const uint32_t e = u - base;
  return e <= 8 ? (uint64_t) 1 << (7 * e) : 0;
}

/* Two rows' matches over window columns [begin, end) at once (two
 * independent chains) */
VH_CAMBI_FN void
row_pair_part (const uint16_t *row_a, const uint16_t *row_b, int begin,
    int end, uint32_t base, uint64_t *a, uint64_t *b)
{
  uint64_t x = 0, y = 0;
  for (int c = begin; c < end; c++) {
    x += match (row_a[c], base);
    y += match (row_b[c], base);
  }
  *a = x;
  *b = y;
}

/* the window columns of share `part` of `split` */
VH_CAMBI_FN void
split_share (int span, int split, int part, int *begin, int *end)
{
  const int seg = (span + split - 1) / split;
  *begin = part * seg < span ? part * seg : span;
  *end = *begin + seg < span ? *begin + seg : span;
}

/* A lane's share of its column (kernels/cambi.hip: `split` adjacent lanes
 * a column): window columns [begin, end) of every row, and how many rows'
 * matches of it one word can add (chunk) */
struct LaneShare {
  int begin, end;
  int chunk;
  VH_CAMBI_FN void
  rows (const uint16_t *row_a, const uint16_t *row_b, uint32_t base,
      uint64_t *a, uint64_t *b) const
  {
    row_pair_part (row_a, row_b, begin, end, base, a, b);
  }
};

VH_CAMBI_FN LaneShare
lane_share (int span, int split, int part)
{
  LaneShare s;
  split_share (span, split, part, &s.begin, &s.end);
  /* a share is at most this wide: its matches a row, at most this many */
  const int widest = (span + split - 1) / split;
  s.chunk = 127 / widest;
  return s;
}

/* A share's nine counts two a word (each at most 65^2 < 2^16), so that
 * five shuffles add them */
VH_CAMBI_FN void
pack_counts (const uint32_t counts[9], uint32_t w[5])
{
  VH_CAMBI_UNROLL
  for (int i = 0; i < 5; i++)
    w[i] = counts[2 * i] | (2 * i + 1 < 9 ? counts[2 * i + 1] << 16 : 0);
}

VH_CAMBI_FN void
unpack_counts (const uint32_t w[5], uint32_t out[9])
{
  VH_CAMBI_UNROLL
  for (int e = 0; e < 9; e++)
    out[e] = (w[e / 2] >> (16 * (e % 2))) & 0xffffu;
}

/* The packed counts of a column's Split lanes added, every lane left with
 * the column's: a butterfly of lane shuffles within the aligned group of
 * Split adjacent lanes (kernels/vh-lanes.h; the emulation runs it on its
 * 32- and 64-lane model) */
template <int Split, class Wave>
VH_CAMBI_FN void
column_add (Wave &wave, typename Wave::template Of<uint32_t> w[5])
{
  static_assert ((Split & (Split - 1)) == 0 && Split <= VH_LANES_MIN,
      "a column's lanes: a power of two within any wavefront");
  typedef typename Wave::template Of<uint32_t> Words;
  const typename Wave::template Of<typename Wave::Mask> group =
      wave.group (Split);
  VH_CAMBI_UNROLL
  for (int m = 1; m < Split; m *= 2)
    VH_CAMBI_UNROLL
    for (int i = 0; i < 5; i++) {
      const Words other = wave.shfl_xor (group, w[i], (unsigned) m);
      w[i] = wave.each ([&] (unsigned l) { return w[i][l] + other[l]; });
    }
}

VH_CAMBI_FN void
add_matches (uint32_t counts[9], uint64_t acc)
{
  VH_CAMBI_UNROLL
  for (int e = 0; e < 9; e++)
    counts[e] += (uint32_t) (acc >> (7 * e)) & 0x7fu;
}

VH_CAMBI_FN void
remove_matches (uint32_t counts[9], uint64_t acc)
{
  VH_CAMBI_UNROLL
  for (int e = 0; e < 9; e++)
    counts[e] -= (uint32_t) (acc >> (7 * e)) & 0x7fu;
}

/* Step 2: column `col` of the tile, top to bottom, by its threads (all
 * of them take the same branches: the same pixels).  Each keeps the
 * counts of its share of the window's columns (lane.rows: its share of
 * two rows' matches); lane.total adds the shares' counts.  The counts of
 * v - 4 .. v + 4 slide down a row at a time (the row that leaves taken
 * off, the row that enters added) while the counted value v stays the
 * same; a new value, or a gap of uncounted pixels longer than half the
 * window, counts the window afresh (up to lane.chunk rows' matches added
 * in one word before they are spread into the counts).  The `writer` puts
 * each value out, and the non-zero ones into the block's histogram. */
template <class Lane>
VH_CAMBI_FN void
cv_column (const VhCambiScale &p, unsigned tile, unsigned col, bool writer,
    CvShared &sm, const Lane &lane)
{
  const int pad = (int) p.pad, span = 2 * pad + 1;
  const int cols = VH_CAMBI_CV_THREADS / (int) p.split;
  const int x = (int) (tile % p.tiles_x) * cols + (int) col;
  const int y0 = (int) (tile / p.tiles_x) * kTileRows;
  if (x >= (int) p.w)
    return;
  const int rows = (int) p.h - y0 < kTileRows ? (int) p.h - y0 : kTileRows;
  float *out = (float *) (uintptr_t) p.c_values + (size_t) y0 * p.w + x;
  uint32_t counts[9];           /* this share's */
  uint32_t base = 0;            /* the counts are of base .. base + 8 */
  int at = -1;                  /* the row they are for; -1: none yet */
  /* the histogram's additions gathered while the bin stays the same (a
   * flat column has one: one atomic addition, not one a pixel) */
  uint32_t run_bin = 0, run_count = 0;
  uint64_t run_sum = 0;
  for (int j = 0; j < rows; j++) {
    /* output row j's window: the tile's input rows j .. j + 2 pad */
    const uint32_t v = sm.in[j + pad][col + pad];
    float c = 0.0f;
    if (v != VH_CAMBI_OUTSIDE) {
      if (at < 0 || v - 4 != base || 2 * (j - at) > span) {
        base = v - 4;
        VH_CAMBI_UNROLL
        for (int e = 0; e < 9; e++)
          counts[e] = 0;
        for (int r = j; r < j + span;) {
          const int stop = r + lane.chunk < j + span ? r + lane.chunk
              : j + span;
          uint64_t acc = 0;
          while (r < stop) {
            /* the last row of an odd run paired with itself */
            const int r2 = r + 1 < stop ? r + 1 : r;
            uint64_t a, b;
            lane.rows (&sm.in[r][col], &sm.in[r2][col], base, &a, &b);
            acc += r2 != r ? a + b : a;
            r = r2 + 1;
          }
          add_matches (counts, acc);
        }
      } else {
        for (int r = at; r < j; r++) {
          uint64_t entering, leaving;
          lane.rows (&sm.in[r + span][col], &sm.in[r][col], base, &entering,
              &leaving);
          add_matches (counts, entering);
          remove_matches (counts, leaving);
        }
      }
      at = j;
      uint32_t window[9];
      lane.total (counts, window);
      c = contrast (p, v, window);
    }
    if (!writer)
      continue;
    out[(size_t) j * p.w] = c;
    if (c > 0.0f) {
      const uint32_t bits = float_bits (c);
      if (run_count && bin1 (bits) != run_bin) {
        atomic_add32 (&sm.count[run_bin], run_count);
        atomic_add64 (&sm.sum[run_bin], run_sum);
        run_count = 0;
        run_sum = 0;
      }
      run_bin = bin1 (bits);
      run_count++;
      run_sum += fixed_value (bits);
    }
  }
  if (run_count) {
    atomic_add32 (&sm.count[run_bin], run_count);
    atomic_add64 (&sm.sum[run_bin], run_sum);
  }
}

/* Step 3: the block's histogram into the scale's (integer additions: the
 * same totals in any order) */
VH_CAMBI_FN void
cv_flush (const VhCambiScale &p, unsigned t, unsigned n_threads,
    const CvShared &sm)
{
  uint32_t *count = (uint32_t *) (uintptr_t) (p.hist + VH_CAMBI_HIST_COUNT1);
  uint64_t *sum = (uint64_t *) (uintptr_t) (p.hist + VH_CAMBI_HIST_SUM1);
  for (unsigned b = t; b < VH_CAMBI_BINS1; b += n_threads)
    if (sm.count[b]) {
      atomic_add32 (&count[b], sm.count[b]);
      atomic_add64 (&sum[b], sm.sum[b]);
    }
}

/* ---- top-k selection -------------------------------------------------- */

/* The bin among n (counts from the top) holding the `need`-th largest
 * value: sets *bin, and *need to its rank within the bin. */
VH_CAMBI_FN void
find_bin (const uint32_t *count, unsigned n, uint32_t *need, unsigned *bin)
{
  uint32_t above = 0;
  for (unsigned b = n; b-- > 0;) {
    if (above + count[b] >= *need) {
      *bin = b;
      *need -= above;
      return;
    }
    above += count[b];
  }
  *bin = 0;
}


/* The selection block's shared memory and state. */
struct SelShared {
  uint32_t count1[VH_CAMBI_BINS1];  /* the level-1 histogram */
  uint64_t sum1[VH_CAMBI_BINS1];
  uint32_t count[VH_CAMBI_BINS];
  uint32_t scan[2][VH_CAMBI_BINS]; /* suffix sums of count, ping-pong */
  uint64_t part[VH_CAMBI_SELECT_BLOCK];
  uint64_t above;               /* sum of the values above the bins so far */
  uint32_t need;                /* rank of the k-th largest in its bin */
  uint32_t b1, b2, b3;
  uint32_t found_bin, found_need;  /* the one thread's pick */
  uint32_t done;
};

static_assert (VH_CAMBI_BINS == VH_CAMBI_SELECT_BLOCK,
    "one selection thread per level-2/3 bin");

/* The bin holding the need-th largest value of count (from the top), in
 * parallel: thread t holds bin t's inclusive suffix sum after the steps
 * (Hillis-Steele, one step per barrier, reading scan[src] and writing the
 * other), then the one thread whose bin spans `need` picks it. */
VH_CAMBI_FN void
select_scan_init (unsigned t, SelShared &sm)
{
  sm.scan[0][t] = sm.count[t];
}

/* step 1, 2, 4 ... while below VH_CAMBI_BINS; src alternates from 0 */
VH_CAMBI_FN void
select_scan_step (unsigned t, unsigned step, unsigned src, SelShared &sm)
{
  sm.scan[src ^ 1][t] = sm.scan[src][t]
      + (t + step < VH_CAMBI_BINS ? sm.scan[src][t + step] : 0);
}

/* after the steps: `src` is where the last one wrote */
VH_CAMBI_FN void
select_scan_pick (unsigned t, unsigned src, SelShared &sm)
{
  const uint32_t incl = sm.scan[src][t], above = incl - sm.count[t];
  if (above < sm.need && sm.need <= incl) {
    sm.found_bin = t;
    sm.found_need = sm.need - above;
  }
}


/* Phase 1, every thread of every selection block: the contrast kernel's
 * histogram into the block's (thread 0 reads it many times) */
VH_CAMBI_FN void
select_first_load (const VhCambiScale &p, unsigned t, unsigned n_threads,
    SelShared &sm)
{
  const uint32_t *count = (const uint32_t *) (uintptr_t) (p.hist
      + VH_CAMBI_HIST_COUNT1);
  const uint64_t *sum = (const uint64_t *) (uintptr_t) (p.hist
      + VH_CAMBI_HIST_SUM1);
  for (unsigned b = t; b < VH_CAMBI_BINS1; b += n_threads) {
    sm.count1[b] = count[b];
    sm.sum1[b] = sum[b];
  }
}

/* ... then thread 0: the top bin; with no more non-zero values than k,
 * the sum of them all. */
VH_CAMBI_FN void
select_first (const VhCambiScale &p, SelShared &sm)
{
  uint64_t total = 0, nonzero = 0;
  for (unsigned b = 0; b < VH_CAMBI_BINS1; b++) {
    nonzero += sm.count1[b];
    total += sm.sum1[b];
  }
  sm.done = nonzero <= p.k;
  sm.above = total;
  if (sm.done)
    return;
  sm.need = p.k;
  unsigned b1;
  find_bin (sm.count1, VH_CAMBI_BINS1, &sm.need, &b1);
  sm.b1 = b1;
  sm.above = 0;
  for (unsigned b = b1 + 1; b < VH_CAMBI_BINS1; b++)
    sm.above += sm.sum1[b];
}

VH_CAMBI_FN void
select_clear (unsigned t, unsigned n_threads, SelShared &sm)
{
  for (unsigned i = t; i < VH_CAMBI_BINS; i += n_threads)
    sm.count[i] = 0;
  sm.part[t] = 0;
}

/* The scale's level-2 or level-3 counts (offset VH_CAMBI_HIST_COUNT2 or
 * _COUNT3 of the histograms) into the block's */
VH_CAMBI_FN void
select_load (const VhCambiScale &p, unsigned t, unsigned n_threads,
    unsigned offset, SelShared &sm)
{
  const uint32_t *count = (const uint32_t *) (uintptr_t) (p.hist + offset);
  for (unsigned i = t; i < VH_CAMBI_BINS; i += n_threads)
    sm.count[i] = count[i];
}

/* ... and the block's counts added into the scale's */
VH_CAMBI_FN void
select_flush (const VhCambiScale &p, unsigned t, unsigned n_threads,
    unsigned offset, const SelShared &sm)
{
  uint32_t *count = (uint32_t *) (uintptr_t) (p.hist + offset);
  for (unsigned i = t; i < VH_CAMBI_BINS; i += n_threads)
    if (sm.count[i])
      atomic_add32 (&count[i], sm.count[i]);
}

/* Phase 2 (every thread of the grid; `first` and `stride` its share of
 * the values): level-2 counts of the values in bin b1 */
VH_CAMBI_FN void
select_level2 (const VhCambiScale &p, unsigned first, unsigned stride,
    SelShared &sm)
{
  const uint32_t *c = (const uint32_t *) (uintptr_t) p.c_values;
  const unsigned n = p.w * p.h;
  for (unsigned i = first; i < n; i += stride) {
    const uint32_t bits = c[i];
    if (bits && bin1 (bits) == sm.b1)
      atomic_add32 (&sm.count[(bits >> 10) & (VH_CAMBI_BINS - 1)], 1);
  }
}

/* Phase 3 (every thread of the grid): level-3 counts of the values in
 * (b1, b2), and the thread's sum of those of b1 above b2 */
VH_CAMBI_FN void
select_level3 (const VhCambiScale &p, unsigned t, unsigned first,
    unsigned stride, SelShared &sm)
{
  const uint32_t *c = (const uint32_t *) (uintptr_t) p.c_values;
  const unsigned n = p.w * p.h;
  uint64_t part = 0;
  for (unsigned i = first; i < n; i += stride) {
    const uint32_t bits = c[i];
    if (!bits || bin1 (bits) != sm.b1)
      continue;
    const uint32_t b2 = (bits >> 10) & (VH_CAMBI_BINS - 1);
    if (b2 == sm.b2)
      atomic_add32 (&sm.count[bits & (VH_CAMBI_BINS - 1)], 1);
    else if (b2 > sm.b2)
      part += fixed_value (bits);
  }
  sm.part[t] = part;
}

/* one level of the tree over part (threads below step) */
VH_CAMBI_FN void
select_tree (unsigned t, unsigned step, SelShared &sm)
{
  if (t < step)
    sm.part[t] += sm.part[t + step];
}

/* (thread 0, after the tree) the block's sum into the scale's */
VH_CAMBI_FN void
select_part_flush (const VhCambiScale &p, const SelShared &sm)
{
  atomic_add64 ((uint64_t *) (uintptr_t) (p.hist + VH_CAMBI_HIST_PART),
      sm.part[0]);
}

/* the value of level-3 bin b within (b1, b2) */
VH_CAMBI_FN uint32_t
select_bits (const SelShared &sm, uint32_t b)
{
  return (sm.b1 + VH_CAMBI_BIN1_BASE) << 20 | sm.b2 << 10 | b;
}

/* Phase 4 (every thread of the last block, after b3 is found): the
 * level-3 bins above b3 into the thread's sum */
VH_CAMBI_FN void
select_above (unsigned t, unsigned n_threads, SelShared &sm)
{
  sm.part[t] = 0;
  for (unsigned b = t; b < VH_CAMBI_BINS; b += n_threads)
    if (b > sm.b3)
      sm.part[t] += sm.count[b] * fixed_value (select_bits (sm, b));
}

/* Phase 5 (thread 0 of the last block, after the tree over part): the
 * top-k sum */
VH_CAMBI_FN uint64_t
select_result (const VhCambiScale &p, const SelShared &sm)
{
  if (sm.done)
    return sm.above;
  const uint64_t level3_above = *(const uint64_t *) (uintptr_t) (p.hist
      + VH_CAMBI_HIST_PART);
  return sm.above + level3_above + sm.part[0]
      + sm.need * fixed_value (select_bits (sm, sm.b3));
}

}  /* namespace vh_cambi */

#endif /* __cplusplus */
#endif /* VH_CAMBI_DEVICE_H */
