/* vmafhip — integer VIF, bit-exact with libvmaf 3.2.0 `vif` (integer_vif.c).
 *
 * Per frame, on luma: the statistics at scale 0, then three times
 * "subsample (filter with the next scale's taps at the current resolution,
 * keep even rows and columns), statistics". Filtering is exact integer
 * arithmetic with libvmaf's rounding shifts, so the order of the sums is
 * free; only the per-pixel gain g and the noise variance sv² go through
 * double, exactly as libvmaf writes them.
 *
 * Build note: σ₂² − g·σ₁₂ must not be contracted into an FMA (the truncated
 * sv² would differ now and then). GCC contracts by default in its GNU
 * modes when the target has FMA: build with -std=c11 or -ffp-contract=off.
 *
 * Layout: each scale is a separable filter, vertical then horizontal. The
 * vertical pass reads the rows it needs through a table of row pointers
 * mirrored reflect-101 (no padded copy of the input); its results go to one
 * row buffer whose margins are mirrored the same way for the horizontal
 * pass. Rows and columns are processed in blocks of VIF_BLOCK columns with
 * a constant count so that the compiler vectorises them even at -O2.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "vif.h"
#include "vh-feature.h"

/* Q16 Gaussian taps per scale (σ = N/5), each summing to 65536. */
static const uint16_t vif_taps[VH_VIF_SCALES][17] = {
  { 489, 935, 1640, 2640, 3896, 5274, 6547, 7455, 7784, 7455, 6547, 5274,
    3896, 2640, 1640, 935, 489 },
  { 1244, 3663, 7925, 12590, 14692, 12590, 7925, 3663, 1244 },
  { 3571, 16004, 26386, 16004, 3571 },
  { 10904, 43728, 10904 },
};
/* Half widths: 17, 9, 5 and 3 taps. */
static const unsigned vif_half[VH_VIF_SCALES] = { 8, 4, 2, 1 };

#define VIF_MAX_TAPS 17
#define VIF_BLOCK 16            /* columns per vectorised block */
/* Row buffers: the left margin holds the mirrored columns (≤ 8); the
 * right one also lets the horizontal filter run whole blocks past the
 * end (columns it then ignores). */
#define VIF_MARGIN_LEFT 16
#define VIF_MARGIN_RIGHT (VIF_BLOCK + 16)

/* Kernels inlined into their callers so that block sizes are constants. */
#define VIF_INLINE G_ALWAYS_INLINE static inline
/* Scale 3 is w/8 x h/8 and its 3-tap filter needs 2 samples: below this
 * libvmaf mirrors into rows it never wrote. */
#define VIF_MIN_SIZE 16

/* σ_n² = 2 in the units of the statistics ((8-bit pixel)² · 2^16). */
#define SIGMA_NSQ (2 * 65536)

/* Rounding of the vertical pass of 16-bit samples: μ by (Σ + 2^(s−1)) >> s
 * with s = mu_shift, squares likewise with s = sq_shift (both ≥ 1). */
typedef struct VifRounding {
  unsigned mu_shift;
  unsigned sq_shift;
} VifRounding;

/* One row of vertical results, each pointer VIF_MARGIN_LEFT into its buffer.
 * The squares are uint32 split into 16-bit halves so that the horizontal
 * pass is all 16x16 → 32-bit multiply-adds (see horizontal_stats_block). */
typedef struct VifRow {
  uint16_t *mu1, *mu2;
  uint16_t *xx_hi, *xx_lo, *yy_hi, *yy_lo, *xy_hi, *xy_lo;
} VifRow;

#define VIF_ROW_ARRAYS 8

struct VhVifWork {
  unsigned width[VH_VIF_SCALES], height[VH_VIF_SCALES];
  /* Scales 1..3 ([0] unused), uint16 at "8-bit pixel · 256". */
  uint16_t *pyr_ref[VH_VIF_SCALES], *pyr_dis[VH_VIF_SCALES];
  VifRow row;
  uint16_t *sub_ref, *sub_dis;  /* vertical pass of the subsample */
  const uint16_t *log2;
  void *mem;
};

/* Reflect-101 index; the minimum size keeps a single reflection enough. */
VIF_INLINE int
mirror (int i, int n)
{
  if (i < 0)
    return -i;
  if (i >= n)
    return 2 * (n - 1) - i;
  return i;
}

VIF_INLINE void
mirror_margins (uint16_t *row, unsigned w, unsigned half)
{
  for (unsigned f = 1; f <= half; f++) {
    row[-(int) f] = row[f];
    row[w - 1 + f] = row[w - 1 - f];
  }
}

VIF_INLINE void
split_u32 (uint32_t v, uint16_t *hi, uint16_t *lo)
{
  *hi = v >> 16;
  *lo = v & 0xffff;
}

/* Q11 log2 of x ≥ 2^17: the top 16 bits through the table, the shift
 * (truncating, as libvmaf) in whole units of 2048. */
VIF_INLINE int32_t
log2_q11_32 (const uint16_t *table, uint32_t x)
{
  const int k = 16 - __builtin_clz (x);
  return table[x >> k] + 2048 * k;
}

VIF_INLINE int32_t
log2_q11_64 (const uint16_t *table, uint64_t x)
{
  const int k = 48 - __builtin_clzll (x);
  return table[x >> k] + 2048 * k;
}

/* ---------------------------------------------------------------------
 * Vertical passes of the statistics. Every partial sum below stays under
 * the final one, which libvmaf's own types hold, so the unsigned 32-bit
 * arithmetic is exact; products are 16x16 → 32 bits wherever possible,
 * which vectorises well.
 * --------------------------------------------------------------------- */

/* 8-bit samples (scale 0 only): r² fits 16 bits and Σ f·r² fits 32, so
 * libvmaf keeps the squares unshifted; μ is (Σ f·r + 128) >> 8. Symmetric
 * taps are folded where the sum still fits 16 bits (r0 + r1). */
VIF_INLINE void
vertical_stats_block_8 (const void *const *ref_rows,
    const void *const *dis_rows, unsigned j0, unsigned n, const VifRow *out)
{
  const uint16_t *taps = vif_taps[0];
  const unsigned half = vif_half[0];
  uint32_t mu1[VIF_BLOCK], mu2[VIF_BLOCK];
  uint32_t xx[VIF_BLOCK], yy[VIF_BLOCK], xy[VIF_BLOCK];
  const uint32_t fc = taps[half];
  const uint8_t *rc = (const uint8_t *) ref_rows[half] + j0;
  const uint8_t *dc = (const uint8_t *) dis_rows[half] + j0;

  for (unsigned j = 0; j < n; j++) {
    const uint16_t r = rc[j], d = dc[j];
    mu1[j] = fc * r;
    mu2[j] = fc * d;
    xx[j] = fc * (uint16_t) (r * r);
    yy[j] = fc * (uint16_t) (d * d);
    xy[j] = fc * (uint16_t) (r * d);
  }
  for (unsigned k = 0; k < half; k++) {
    const uint32_t f = taps[k];
    const uint8_t *ra = (const uint8_t *) ref_rows[k] + j0;
    const uint8_t *da = (const uint8_t *) dis_rows[k] + j0;
    const uint8_t *rb = (const uint8_t *) ref_rows[2 * half - k] + j0;
    const uint8_t *db = (const uint8_t *) dis_rows[2 * half - k] + j0;
    for (unsigned j = 0; j < n; j++) {
      const uint16_t r0 = ra[j], d0 = da[j], r1 = rb[j], d1 = db[j];
      mu1[j] += f * (uint16_t) (r0 + r1);
      mu2[j] += f * (uint16_t) (d0 + d1);
      xx[j] += f * (uint16_t) (r0 * r0) + f * (uint16_t) (r1 * r1);
      yy[j] += f * (uint16_t) (d0 * d0) + f * (uint16_t) (d1 * d1);
      xy[j] += f * (uint16_t) (r0 * d0) + f * (uint16_t) (r1 * d1);
    }
  }
  for (unsigned j = 0; j < n; j++) {
    const unsigned c = j0 + j;
    out->mu1[c] = (mu1[j] + 128) >> 8;
    out->mu2[c] = (mu2[j] + 128) >> 8;
    split_u32 (xx[j], &out->xx_hi[c], &out->xx_lo[c]);
    split_u32 (yy[j], &out->yy_hi[c], &out->yy_lo[c]);
    split_u32 (xy[j], &out->xy_hi[c], &out->xy_lo[c]);
  }
}

/* Σ f·p² of 16-bit samples needs 48 bits. With p² = 2^16·h + l it is
 * 2^16·Σ f·h + Σ f·l, both sums in 32 bits, and the rounded result is
 * (Σ f·h << (16 − s)) + ((Σ f·l + 2^(s−1)) >> s) exactly, for s ≤ 16. */
VIF_INLINE uint32_t
combine_square_sum (uint32_t sum_hi, uint32_t sum_lo, unsigned s)
{
  return (sum_hi << (16 - s)) + ((sum_lo + (1u << (s - 1))) >> s);
}

/* 16-bit samples: >8-bit scale 0 and every later scale. */
VIF_INLINE void
vertical_stats_block_16 (const void *const *ref_rows,
    const void *const *dis_rows, const uint16_t *taps, unsigned ntaps,
    const VifRounding *rnd, unsigned j0, unsigned n, const VifRow *out)
{
  uint32_t mu1[VIF_BLOCK], mu2[VIF_BLOCK];
  uint32_t xx_hi[VIF_BLOCK], xx_lo[VIF_BLOCK], yy_hi[VIF_BLOCK];
  uint32_t yy_lo[VIF_BLOCK], xy_hi[VIF_BLOCK], xy_lo[VIF_BLOCK];

  for (unsigned j = 0; j < n; j++) {
    mu1[j] = mu2[j] = 0;
    xx_hi[j] = xx_lo[j] = yy_hi[j] = yy_lo[j] = xy_hi[j] = xy_lo[j] = 0;
  }
  for (unsigned k = 0; k < ntaps; k++) {
    const uint32_t f = taps[k];
    const uint16_t *rk = (const uint16_t *) ref_rows[k] + j0;
    const uint16_t *dk = (const uint16_t *) dis_rows[k] + j0;
    for (unsigned j = 0; j < n; j++) {
      const uint32_t r = rk[j], d = dk[j];
      const uint32_t rr = r * r, dd = d * d, rd = r * d;
      mu1[j] += f * r;
      mu2[j] += f * d;
      xx_hi[j] += f * (rr >> 16);
      xx_lo[j] += f * (rr & 0xffff);
      yy_hi[j] += f * (dd >> 16);
      yy_lo[j] += f * (dd & 0xffff);
      xy_hi[j] += f * (rd >> 16);
      xy_lo[j] += f * (rd & 0xffff);
    }
  }
  const unsigned ms = rnd->mu_shift, ss = rnd->sq_shift;
  for (unsigned j = 0; j < n; j++) {
    const unsigned c = j0 + j;
    out->mu1[c] = (mu1[j] + (1u << (ms - 1))) >> ms;
    out->mu2[c] = (mu2[j] + (1u << (ms - 1))) >> ms;
    split_u32 (combine_square_sum (xx_hi[j], xx_lo[j], ss),
        &out->xx_hi[c], &out->xx_lo[c]);
    split_u32 (combine_square_sum (yy_hi[j], yy_lo[j], ss),
        &out->yy_hi[c], &out->yy_lo[c]);
    split_u32 (combine_square_sum (xy_hi[j], xy_lo[j], ss),
        &out->xy_hi[c], &out->xy_lo[c]);
  }
}

/* Vertical half of the subsample filter (Σ f·p + 2^(s−1)) >> s, the same
 * for both sample types: a template. */
#define DEFINE_VERTICAL_SUBSAMPLE(sfx, pixel_t)                             \
VIF_INLINE void                                                             \
vertical_subsample_block_##sfx (const void *const *rows,                    \
    const uint16_t *taps, unsigned ntaps, unsigned shift, unsigned j0,      \
    unsigned n, uint16_t *out)                                              \
{                                                                           \
  uint32_t acc[VIF_BLOCK];                                                  \
                                                                            \
  for (unsigned j = 0; j < n; j++)                                          \
    acc[j] = 1u << (shift - 1);                                             \
  for (unsigned k = 0; k < ntaps; k++) {                                    \
    const uint32_t f = taps[k];                                             \
    const pixel_t *p = (const pixel_t *) rows[k] + j0;                     \
    for (unsigned j = 0; j < n; j++)                                        \
      acc[j] += f * (uint16_t) p[j];                                        \
  }                                                                         \
  for (unsigned j = 0; j < n; j++)                                          \
    out[j0 + j] = acc[j] >> shift;                                          \
}                                                                           \
                                                                            \
static void                                                                 \
vertical_subsample_row_##sfx (const void *const *rows,                      \
    const uint16_t *taps, unsigned ntaps, unsigned shift, unsigned w,       \
    uint16_t *out)                                                          \
{                                                                           \
  unsigned j0 = 0;                                                          \
  for (; j0 + VIF_BLOCK <= w; j0 += VIF_BLOCK)                              \
    vertical_subsample_block_##sfx (rows, taps, ntaps, shift, j0,           \
        VIF_BLOCK, out);                                                    \
  if (j0 < w)                                                               \
    vertical_subsample_block_##sfx (rows, taps, ntaps, shift, j0, w - j0,   \
        out);                                                               \
}

DEFINE_VERTICAL_SUBSAMPLE (8, uint8_t)
DEFINE_VERTICAL_SUBSAMPLE (16, uint16_t)

/* ---------------------------------------------------------------------
 * Horizontal pass and per-pixel statistic (sample type no longer matters).
 * --------------------------------------------------------------------- */

typedef struct VifPixelParams {
  double enhn_gain_limit;
  const uint16_t *log2;
} VifPixelParams;

/* libvmaf's per-pixel contribution, in its order of operations. */
VIF_INLINE void
vif_pixel (int32_t sigma1_sq, int32_t sigma2_sq, int32_t sigma12,
    const VifPixelParams *p, VhVifScaleSums *acc)
{
  if (sigma1_sq < SIGMA_NSQ) {
    acc->num_non_log += sigma2_sq;
    acc->den_non_log++;
    return;
  }
  /* log2(1 + σ₁²/σ_n²) as L(σ_n² + σ₁²) − L(σ_n²), L(2^17) = 17·2048. */
  acc->den_log += log2_q11_32 (p->log2, SIGMA_NSQ + sigma1_sq) - 17 * 2048;
  if (sigma12 > 0 && sigma2_sq > 0) {
    /* The epsilon is libvmaf's, kept for bit-exactness. */
    double g = sigma12 / (sigma1_sq + 65536 * 1.0e-10);
    /* libvmaf truncates to int32 then clamps at 0; the double is at most
     * σ₂², and a very negative one (out of int32) also ends at 0. */
    const double sv_sq_d = sigma2_sq - g * sigma12;
    const int32_t sv_sq = sv_sq_d > 0 ? (int32_t) sv_sq_d : 0;
    /* The gain limit applies after sv² (libvmaf's order). */
    if (!(g < p->enhn_gain_limit))
      g = p->enhn_gain_limit;
    const uint32_t n1 = (uint32_t) sv_sq + SIGMA_NSQ;
    const int64_t n2 = (int64_t) (g * g * sigma1_sq) + n1;
    acc->num_log += log2_q11_64 (p->log2, n2) - log2_q11_64 (p->log2, n1);
  }
}

/* acc[j] = Σ_k taps[k]·in[j + k], j < n: 16x16 → 32-bit multiply-adds. */
VIF_INLINE void
filter_row_block (const uint16_t *in, const uint16_t *taps, unsigned ntaps,
    unsigned n, uint32_t *acc)
{
  for (unsigned j = 0; j < n; j++)
    acc[j] = 0;
  for (unsigned k = 0; k < ntaps; k++) {
    const uint32_t f = taps[k];
    const uint16_t *p = in + k;
    for (unsigned j = 0; j < n; j++)
      acc[j] += f * p[j];
  }
}

/* Horizontal filter of columns [j0, j0 + n) and their statistics. The
 * square sums are libvmaf's uint64 Σ f·v, taken as 2^16·Σ f·hi + Σ f·lo
 * and rounded by >> 16 the same way as in combine_square_sum. */
VIF_INLINE void
horizontal_stats_block (const VifRow *row, const uint16_t *taps,
    unsigned half, unsigned j0, unsigned n, const VifPixelParams *p,
    VhVifScaleSums *acc)
{
  uint32_t mu1[VIF_BLOCK], mu2[VIF_BLOCK];
  uint32_t xx_hi[VIF_BLOCK], xx_lo[VIF_BLOCK], yy_hi[VIF_BLOCK];
  uint32_t yy_lo[VIF_BLOCK], xy_hi[VIF_BLOCK], xy_lo[VIF_BLOCK];
  int32_t sigma1_sq[VIF_BLOCK], sigma2_sq[VIF_BLOCK], sigma12[VIF_BLOCK];
  const unsigned ntaps = 2 * half + 1;
  const ptrdiff_t first = (ptrdiff_t) j0 - half;

  /* Whole blocks even at the end of the row (see VIF_MARGIN_RIGHT): only
   * the first n columns are used. */
  filter_row_block (row->mu1 + first, taps, ntaps, VIF_BLOCK, mu1);
  filter_row_block (row->mu2 + first, taps, ntaps, VIF_BLOCK, mu2);
  filter_row_block (row->xx_hi + first, taps, ntaps, VIF_BLOCK, xx_hi);
  filter_row_block (row->xx_lo + first, taps, ntaps, VIF_BLOCK, xx_lo);
  filter_row_block (row->yy_hi + first, taps, ntaps, VIF_BLOCK, yy_hi);
  filter_row_block (row->yy_lo + first, taps, ntaps, VIF_BLOCK, yy_lo);
  filter_row_block (row->xy_hi + first, taps, ntaps, VIF_BLOCK, xy_hi);
  filter_row_block (row->xy_lo + first, taps, ntaps, VIF_BLOCK, xy_lo);

  for (unsigned j = 0; j < VIF_BLOCK; j++) {
    const uint32_t mu1_sq = ((uint64_t) mu1[j] * mu1[j] + 0x80000000u) >> 32;
    const uint32_t mu2_sq = ((uint64_t) mu2[j] * mu2[j] + 0x80000000u) >> 32;
    const uint32_t mu12 = ((uint64_t) mu1[j] * mu2[j] + 0x80000000u) >> 32;
    const uint32_t xx = combine_square_sum (xx_hi[j], xx_lo[j], 16);
    const uint32_t yy = combine_square_sum (yy_hi[j], yy_lo[j], 16);
    const uint32_t xy = combine_square_sum (xy_hi[j], xy_lo[j], 16);
    /* Differences wrap in uint32 and are read as int32, as in libvmaf. */
    const int32_t s2 = (int32_t) (yy - mu2_sq);
    sigma1_sq[j] = (int32_t) (xx - mu1_sq);
    sigma2_sq[j] = s2 < 0 ? 0 : s2;
    sigma12[j] = (int32_t) (xy - mu12);
  }
  for (unsigned j = 0; j < n; j++)
    vif_pixel (sigma1_sq[j], sigma2_sq[j], sigma12[j], p, acc);
}

/* Sums of one scale. `ref`/`dis` are its rows (input plane at scale 0,
 * pyramid level otherwise); `rnd` NULL means 8-bit samples at scale 0. */
static void
scale_stats (VhVifWork *work, unsigned scale, const uint8_t *ref,
    ptrdiff_t ref_stride, const uint8_t *dis, ptrdiff_t dis_stride,
    const VifRounding *rnd, const VifPixelParams *p, VhVifScaleSums *out)
{
  const unsigned w = work->width[scale], h = work->height[scale];
  const unsigned half = vif_half[scale], ntaps = 2 * half + 1;
  const uint16_t *taps = vif_taps[scale];
  const VifRow *row = &work->row;
  uint16_t *const row_arrays[VIF_ROW_ARRAYS] = { row->mu1, row->mu2,
    row->xx_hi, row->xx_lo, row->yy_hi, row->yy_lo, row->xy_hi, row->xy_lo };
  const void *ref_rows[VIF_MAX_TAPS], *dis_rows[VIF_MAX_TAPS];
  VhVifScaleSums acc = { 0 };

  for (unsigned i = 0; i < h; i++) {
    for (unsigned k = 0; k < ntaps; k++) {
      const ptrdiff_t y = mirror ((int) (i + k) - (int) half, (int) h);
      ref_rows[k] = ref + y * ref_stride;
      dis_rows[k] = dis + y * dis_stride;
    }

    unsigned j0 = 0;
    if (!rnd) {
      for (; j0 + VIF_BLOCK <= w; j0 += VIF_BLOCK)
        vertical_stats_block_8 (ref_rows, dis_rows, j0, VIF_BLOCK, row);
      if (j0 < w)
        vertical_stats_block_8 (ref_rows, dis_rows, j0, w - j0, row);
    } else {
      for (; j0 + VIF_BLOCK <= w; j0 += VIF_BLOCK)
        vertical_stats_block_16 (ref_rows, dis_rows, taps, ntaps, rnd, j0,
            VIF_BLOCK, row);
      if (j0 < w)
        vertical_stats_block_16 (ref_rows, dis_rows, taps, ntaps, rnd, j0,
            w - j0, row);
    }
    for (unsigned a = 0; a < VIF_ROW_ARRAYS; a++)
      mirror_margins (row_arrays[a], w, half);

    for (j0 = 0; j0 < w; j0 += VIF_BLOCK)
      horizontal_stats_block (row, taps, half, j0, MIN (VIF_BLOCK, w - j0),
          p, &acc);
  }
  *out = acc;
}

/* Horizontal half of the subsample, even columns only (libvmaf filters
 * every column, then keeps the even ones). */
static void
horizontal_decimate (const uint16_t *in, const uint16_t *taps, unsigned half,
    unsigned out_w, uint16_t *out)
{
  for (unsigned j = 0; j < out_w; j++) {
    const uint16_t *c = in + 2 * j;
    uint32_t acc = (uint32_t) taps[half] * c[0];
    for (unsigned k = 0; k < half; k++)
      acc += taps[k] * ((uint32_t) c[(int) k - (int) half] + c[half - k]);
    out[j] = (acc + 32768) >> 16;
  }
}

/* Builds pyramid level `scale` from the level above it (or the input):
 * filter with taps[scale], keep even rows and columns. The vertical pass
 * rounds by `shift`: bpc from the input, 16 from a pyramid level. */
static void
subsample (VhVifWork *work, unsigned scale, const uint8_t *ref,
    ptrdiff_t ref_stride, const uint8_t *dis, ptrdiff_t dis_stride,
    bool wide, unsigned shift)
{
  const unsigned src_w = work->width[scale - 1];
  const unsigned src_h = work->height[scale - 1];
  const unsigned w = work->width[scale], h = work->height[scale];
  const unsigned half = vif_half[scale], ntaps = 2 * half + 1;
  const uint16_t *taps = vif_taps[scale];
  const void *ref_rows[VIF_MAX_TAPS], *dis_rows[VIF_MAX_TAPS];

  for (unsigned i = 0; i < h; i++) {
    for (unsigned k = 0; k < ntaps; k++) {
      const ptrdiff_t y = mirror ((int) (2 * i + k) - (int) half, (int) src_h);
      ref_rows[k] = ref + y * ref_stride;
      dis_rows[k] = dis + y * dis_stride;
    }
    if (wide) {
      vertical_subsample_row_16 (ref_rows, taps, ntaps, shift, src_w,
          work->sub_ref);
      vertical_subsample_row_16 (dis_rows, taps, ntaps, shift, src_w,
          work->sub_dis);
    } else {
      vertical_subsample_row_8 (ref_rows, taps, ntaps, shift, src_w,
          work->sub_ref);
      vertical_subsample_row_8 (dis_rows, taps, ntaps, shift, src_w,
          work->sub_dis);
    }
    mirror_margins (work->sub_ref, src_w, half);
    mirror_margins (work->sub_dis, src_w, half);
    horizontal_decimate (work->sub_ref, taps, half, w,
        work->pyr_ref[scale] + (size_t) i * w);
    horizontal_decimate (work->sub_dis, taps, half, w,
        work->pyr_dis[scale] + (size_t) i * w);
  }
}

/* ---------------------------------------------------------------------
 * Public core
 * --------------------------------------------------------------------- */

VhVifWork *
vh_vif_work_new (unsigned width, unsigned height)
{
  if (width < VIF_MIN_SIZE || height < VIF_MIN_SIZE)
    return NULL;
  /* Keeps every index and size below in int / size_t comfortably. */
  if (width > (1u << 20) || height > (1u << 20))
    return NULL;

  VhVifWork *work = g_new0 (VhVifWork, 1);
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    work->width[s] = width >> s;
    work->height[s] = height >> s;
  }

  const size_t row_len = VIF_MARGIN_LEFT + width + VIF_MARGIN_RIGHT;
  const unsigned n_rows = VIF_ROW_ARRAYS + 2;
  size_t pyr_len = 0;
  for (unsigned s = 1; s < VH_VIF_SCALES; s++)
    pyr_len += (size_t) work->width[s] * work->height[s];

  const size_t bytes = (n_rows * row_len + 2 * pyr_len) * sizeof (uint16_t);
  uint16_t *mem = g_try_malloc0 (bytes);
  if (!mem) {
    g_free (work);
    return NULL;
  }
  work->mem = mem;

  uint16_t **row_ptrs[VIF_ROW_ARRAYS + 2] = { &work->row.mu1, &work->row.mu2,
    &work->row.xx_hi, &work->row.xx_lo, &work->row.yy_hi, &work->row.yy_lo,
    &work->row.xy_hi, &work->row.xy_lo, &work->sub_ref, &work->sub_dis };
  for (unsigned r = 0; r < n_rows; r++)
    *row_ptrs[r] = mem + r * row_len + VIF_MARGIN_LEFT;

  uint16_t *pyr = mem + n_rows * row_len;
  for (unsigned s = 1; s < VH_VIF_SCALES; s++) {
    const size_t len = (size_t) work->width[s] * work->height[s];
    work->pyr_ref[s] = pyr;
    work->pyr_dis[s] = pyr + len;
    pyr += 2 * len;
  }
  work->log2 = vh_vif_log2_table ();
  return work;
}

void
vh_vif_work_free (VhVifWork *work)
{
  if (!work)
    return;
  g_free (work->mem);
  g_free (work);
}

void
vh_vif_compute_sums_from (VhVifWork *work, const VhPlane *ref,
    const VhPlane *dis, unsigned bpc, double enhn_gain_limit,
    unsigned first_scale, VhVifSums *sums)
{
  g_return_if_fail (work != NULL && ref != NULL && dis != NULL);
  g_return_if_fail (sums != NULL);
  g_return_if_fail (bpc >= 8 && bpc <= 16);
  g_return_if_fail (ref->width == work->width[0]
      && ref->height == work->height[0]);
  g_return_if_fail (dis->width == ref->width && dis->height == ref->height);
  g_return_if_fail (ref->step == 1 && dis->step == 1);

  const VifPixelParams params = {
    .enhn_gain_limit = enhn_gain_limit,
    .log2 = work->log2,
  };
  const bool wide = bpc > 8;
  /* Scale 0 brings everything to 8-bit units: μ by >> bpc; squares not at
   * all for 8-bit (the 8-bit kernel), by >> 2(bpc − 8) above. Later
   * scales are at 8-bit·256 and shift both by 16. */
  const VifRounding scale0 = { .mu_shift = bpc, .sq_shift = 2 * (bpc - 8) };
  const VifRounding scaled = { .mu_shift = 16, .sq_shift = 16 };
  const ptrdiff_t u16 = sizeof (uint16_t);

  memset (sums, 0, sizeof *sums);
  if (first_scale == 0)
    scale_stats (work, 0, ref->data, ref->stride, dis->data, dis->stride,
        wide ? &scale0 : NULL, &params, &sums->scale[0]);

  for (unsigned s = 1; s < VH_VIF_SCALES; s++) {
    if (s == 1)
      /* The first subsample shifts by bpc (8-bit: (Σ + 128) >> 8). */
      subsample (work, 1, ref->data, ref->stride, dis->data, dis->stride,
          wide, bpc);
    else
      subsample (work, s,
          (const uint8_t *) work->pyr_ref[s - 1], work->width[s - 1] * u16,
          (const uint8_t *) work->pyr_dis[s - 1], work->width[s - 1] * u16,
          true, 16);

    if (s >= first_scale)
      scale_stats (work, s,
          (const uint8_t *) work->pyr_ref[s], work->width[s] * u16,
          (const uint8_t *) work->pyr_dis[s], work->width[s] * u16,
          &scaled, &params, &sums->scale[s]);
  }
}

void
vh_vif_compute_sums (VhVifWork *work, const VhPlane *ref, const VhPlane *dis,
    unsigned bpc, double enhn_gain_limit, VhVifSums *sums)
{
  vh_vif_compute_sums_from (work, ref, dis, bpc, enhn_gain_limit, 0, sums);
}

void
vh_vif_sums_to_scores (const VhVifSums *sums, double num[VH_VIF_SCALES],
    double den[VH_VIF_SCALES], double score[VH_VIF_SCALES])
{
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    const VhVifScaleSums *a = &sums->scale[s];
    /* Computed in double, kept as float, divided in float: libvmaf's. */
    const float n = a->num_log / 2048.0
        + (a->den_non_log - (a->num_non_log / 16384.0) / 65025.0);
    const float d = a->den_log / 2048.0 + a->den_non_log;
    if (num)
      num[s] = n;
    if (den)
      den[s] = d;
    if (score)
      score[s] = n / d;
  }
}

/* ---------------------------------------------------------------------
 * Extractor
 * --------------------------------------------------------------------- */

typedef struct VifOptions {
  double enhn_gain_limit;
  bool skip_scale0;
} VifOptions;

static const VhOptionDesc vif_options[] = {
  { .name = "vif_enhn_gain_limit", .alias = "egl", .type = VH_OPT_DOUBLE,
    .default_val = 100.0, .min = 1.0, .max = 100.0,
    .offset = offsetof (VifOptions, enhn_gain_limit), .feature_param = true },
  { .name = "vif_skip_scale0", .alias = "ssclz", .type = VH_OPT_BOOL,
    .default_val = 0.0, .min = 0.0, .max = 1.0,
    .offset = offsetof (VifOptions, skip_scale0), .feature_param = true },
  { .name = NULL },
};

typedef struct VifState {
  VifOptions opts;
  VhVideoInfo info;
  VhVifWork *work;
} VifState;

static const char *const vif_score_names[VH_VIF_SCALES] = {
  "integer_vif_scale0", "integer_vif_scale1",
  "integer_vif_scale2", "integer_vif_scale3",
};

static gboolean
vif_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  VifState *s = priv;
  const VifOptions *o = opts;

  if (!s || !o || !info) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif: init called with a NULL %s",
        !s ? "state" : !o ? "options struct" : "video info");
    return FALSE;
  }
  if (!(o->enhn_gain_limit >= 1.0 && o->enhn_gain_limit <= 100.0)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif: vif_enhn_gain_limit must be in [1, 100], got %g",
        o->enhn_gain_limit);
    return FALSE;
  }
  if (info->bpc != 8 && info->bpc != 10 && info->bpc != 12) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif: unsupported bit depth %u (8, 10 or 12 supported)", info->bpc);
    return FALSE;
  }
  if (info->width < VIF_MIN_SIZE || info->height < VIF_MIN_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "vif: picture %ux%u too small: its 4-scale pyramid needs a luma of "
        "at least %ux%u (scale 3 is 1/8 of it and its 3-tap filter needs "
        "2 samples each way)", info->width, info->height, VIF_MIN_SIZE,
        VIF_MIN_SIZE);
    return FALSE;
  }

  s->opts = *o;
  s->info = *info;
  s->work = vh_vif_work_new (info->width, info->height);
  if (!s->work) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif: cannot allocate the buffers for %ux%u", info->width,
        info->height);
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_luma (const VifState *s, const VhPicture *pic, const char *which,
    GError **error)
{
  const VhPlane *y;

  if (!pic || pic->nplanes < 1 || !pic->plane[0].data) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif: %s picture has no luma plane", which);
    return FALSE;
  }
  y = &pic->plane[0];
  if (pic->bpc != s->info.bpc) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "vif: %s picture is %u-bit, the stream was set up for %u-bit",
        which, pic->bpc, s->info.bpc);
    return FALSE;
  }
  if (y->width != s->info.width || y->height != s->info.height) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "vif: %s luma is %ux%u, the stream was set up for %ux%u", which,
        y->width, y->height, s->info.width, s->info.height);
    return FALSE;
  }
  if (y->step != 1) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif: %s luma has sample step %u, only planar luma (1) is handled",
        which, y->step);
    return FALSE;
  }
  return TRUE;
}

static gboolean
vif_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  VifState *s = priv;
  VhVifSums sums;
  double score[VH_VIF_SCALES];

  if (!s || !s->work) {
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "vif: extract called on an extractor that is not initialised");
    return FALSE;
  }
  if (!check_luma (s, ref, "reference", error)
      || !check_luma (s, dis, "distorted", error))
    return FALSE;

  /* vif_skip_scale0: libvmaf skips the scale-0 statistics and reports 0. */
  vh_vif_compute_sums_from (s->work, &ref->plane[0], &dis->plane[0],
      s->info.bpc, s->opts.enhn_gain_limit, s->opts.skip_scale0 ? 1 : 0,
      &sums);
  vh_vif_sums_to_scores (&sums, NULL, NULL, score);
  if (s->opts.skip_scale0)
    score[0] = 0.0;

  for (unsigned i = 0; i < VH_VIF_SCALES; i++)
    vh_feature_sink_put (sink, vif_score_names[i], index, score[i]);
  return TRUE;
}

static void
vif_close (void *priv)
{
  VifState *s = priv;

  if (!s)
    return;
  vh_vif_work_free (s->work);
  s->work = NULL;
}

const VhFeatureExtractor vh_fex_vif = {
  .name = "vif",
  .options = vif_options,
  .opts_size = sizeof (VifOptions),
  .priv_size = sizeof (VifState),
  .needs_chroma = false,
  .init = vif_init,
  .extract = vif_extract,
  .flush = NULL,
  .close = vif_close,
};
