/* vmafhip — integer VIF, bit-exact with libvmaf 3.2.0 `vif` (integer_vif.c).
 *
 * Per frame, on luma: the statistics at scale 0, then three times
 * "subsample (filter with the next scale's taps at the current resolution,
 * keep even rows and columns), statistics". Filtering is exact integer
 * arithmetic with libvmaf's rounding shifts, so the order of the sums is
 * free; only the per-pixel gain g and the noise variance sv² go through
 * double, exactly as libvmaf writes them.
 *
 * FMA: σ₂² − g·σ₁₂ must not be contracted into a fused multiply-add (the
 * truncated sv² would differ now and then). GCC contracts by default in its
 * GNU modes when the target has FMA and ignores #pragma STDC FP_CONTRACT,
 * so the product goes through a volatile (see vif-pixels.c); -std=c11 or
 * -ffp-contract=off is still the recommended build.
 *
 * Layout: each scale is a separable filter, vertical then horizontal, one
 * output row at a time. The vertical pass reads the rows it needs through
 * a table of row pointers mirrored reflect-101 (no padded copy of the
 * input) and leaves its results in row buffers whose margins are then
 * mirrored the same way for the horizontal pass.
 *
 * Speed: every filter is a sequence of "two taps over a run of columns"
 * loops, acc[j] += f0·x0[j] + f1·x1[j] with 16-bit x and 32-bit acc, which
 * compilers vectorise as 16x16 → 32-bit multiplies. Runs are VIF_CHUNK
 * columns (the accumulators stay in L1) and always a multiple of VIF_ALIGN
 * so that no scalar remainder is needed: the row buffers have room past
 * the end, and the last partial block of an input row is read from a
 * zero-padded copy. Only kept pixels of a subsample are filtered (libvmaf
 * filters them all, then drops 3/4). The per-pixel statistic is scalar.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "vif.h"
#include "vif-filters.h"
#include "vif-pixels.h"
#include "vh-multiversion.h"
#include "vh-feature.h"
#include "vh-parallel.h"
#include "vif-params.h"

/* Q16 Gaussian taps per scale (σ = N/5), each summing to 65536
 * (kernels/vif-params.h). */
static const uint16_t vif_taps[VH_VIF_SCALES][17] = {
  { VH_VIF_FILTER_S0 },
  { VH_VIF_FILTER_S1 },
  { VH_VIF_FILTER_S2 },
  { VH_VIF_FILTER_S3 },
};
/* Half widths: 17, 9, 5 and 3 taps. */
static const unsigned vif_half[VH_VIF_SCALES] = {
  VH_VIF_HALF_S0, VH_VIF_HALF_S1, VH_VIF_HALF_S2, VH_VIF_HALF_S3,
};

#define VIF_MAX_TAPS 17
/* Vectorised runs are multiples of this: 64 8-bit samples fill the
 * widest vectors (AVX-512), and the compiler only uses vectors whose
 * lane count is known to divide the run. */
#define VIF_ALIGN 64
#define VIF_CHUNK 512           /* columns per run */
/* Row buffers: the left margin holds the mirrored columns (≤ 8); the right
 * one also the columns a run reads past the end (VIF_ALIGN − 1 + 8 + 1),
 * twice that for a subsample's row, read two samples per output. */
#define VIF_MARGIN_LEFT 64
#define VIF_MARGIN_RIGHT (2 * VIF_ALIGN + 32)


/* Kernels are inlined into their callers, where run lengths are known to
 * be multiples of VIF_ALIGN. */
#define VIF_INLINE G_ALWAYS_INLINE static inline


/* Rounding of the vertical pass of 16-bit samples: μ by (Σ + 2^(s−1)) >> s
 * with s = mu_shift, squares likewise with s = sq_shift (both ≥ 1). */
typedef struct VifRounding {
  unsigned mu_shift;
  unsigned sq_shift;
} VifRounding;

/* The vertical results of one row, each array VIF_MARGIN_LEFT into its
 * buffer. The squares are uint32 split into 16-bit halves so that the
 * horizontal pass is all 16x16 → 32-bit multiply-adds too. */
enum {
  ROW_MU1, ROW_MU2, ROW_XX_HI, ROW_XX_LO, ROW_YY_HI, ROW_YY_LO, ROW_XY_HI,
  ROW_XY_LO, ROW_ARRAYS
};

struct VhVifWork {
  unsigned width[VH_VIF_SCALES], height[VH_VIF_SCALES];
  /* vif_taps as run-time values (see the filter loops). */
  uint16_t taps[VH_VIF_SCALES][VIF_MAX_TAPS];
  /* Scales 1..3 ([0] unused), uint16 at "8-bit pixel · 256"; rows padded
   * to whole runs. */
  uint16_t *pyr_ref[VH_VIF_SCALES], *pyr_dis[VH_VIF_SCALES];
  size_t pyr_stride[VH_VIF_SCALES];   /* samples */
  uint16_t *row[ROW_ARRAYS];
  uint16_t *sub_ref, *sub_dis;  /* vertical pass of a subsample */
  uint16_t *even, *odd;         /* its even and odd samples */
  uint32_t *acc[ROW_ARRAYS];    /* VIF_CHUNK accumulators each */
  int32_t *sigma1_sq, *sigma2_sq, *sigma12;  /* VIF_CHUNK each */
  /* Zero-padded copy of the last partial block of the rows a vertical pass
   * reads: 2 pictures x VIF_MAX_TAPS rows x VIF_ALIGN 16-bit samples. */
  uint8_t *tail;
  const uint16_t *log2;
  VhVifPixelsFunc pixels;
  /* vif-filters.c (AVX2, AVX-512), or NULL: the loops here */
  /* per scale: the hand-written kernels (vif-filters.c), or NULL for the
   * plain C (no SIMD, or a tap of 2^15 or more, which their 16-bit
   * multiply-adds cannot take).  One choice per scale for every pass, as
   * the SIMD vertical pass leaves its row arrays biased for the SIMD
   * horizontal one. */
  const VhVifFilters *simd[VH_VIF_SCALES];
  void *mem;
  /* Row bands (vh_vif_work_set_threads): up to max_threads threads, each
   * piece on a work of its own, band[i], which shares this one's pyramid
   * and has scratch of its own (band[0] is this work). */
  unsigned max_threads;
  int *budget;
  unsigned n_band_works;
  VhVifWork **band;
};

/* Bands per pass at most, whatever the threads (pieces of a phase: two
 * passes' bands) */
#define VIF_MAX_BANDS 16

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

static void
mirror_margins (uint16_t *row, unsigned w, unsigned half)
{
  for (unsigned f = 1; f <= half; f++) {
    row[-(int) f] = row[f];
    row[w - 1 + f] = row[w - 1 - f];
  }
}

/* ---------------------------------------------------------------------
 * Filter loops: two taps (a lone one paired with a zero tap) over a run
 * of n columns. n is a multiple of VIF_ALIGN; masking it says so to the
 * compiler, which then vectorises without a scalar remainder (GCC -O2
 * requires that). Two taps per pass halve the accumulator loads and
 * stores. Every partial sum of a filter stays below its final value,
 * which libvmaf's own types hold, so uint32 is exact. Operands are written
 * as 16-bit values so that the multiplies are 16x16 → 32 bits. The tap
 * values come from the work (not from constants) so that compilers do not
 * factor equal taps, f·a + f·b into f·(a + b), which needs a 32-bit
 * multiply.
 * --------------------------------------------------------------------- */

#define VIF_RUN(n) ((n) & ~(unsigned) (VIF_ALIGN - 1))

/* acc (+)= f0·x0 + f1·x1 and acc = Σ f[k]·x[k] over ntaps rows, for 8- or
 * 16-bit samples: a template. `init` (a constant where inlined) stores
 * instead of adding, which saves zeroing the accumulators first. */
#define DEFINE_FILTER(sfx, pixel_t)                                         \
VIF_INLINE void                                                             \
mac2_##sfx (uint32_t *restrict acc, const pixel_t *restrict x0,             \
    const pixel_t *restrict x1, uint16_t f0, uint16_t f1, bool init,        \
    unsigned n)                                                             \
{                                                                           \
  for (unsigned j = 0; j < VIF_RUN (n); j++) {                              \
    const uint32_t v = (uint32_t) f0 * (uint16_t) x0[j]                     \
        + (uint32_t) f1 * (uint16_t) x1[j];                                 \
    acc[j] = init ? v : acc[j] + v;                                         \
  }                                                                         \
}                                                                           \
                                                                            \
VIF_INLINE void                                                             \
filter_##sfx (uint32_t *restrict acc, const void *const *x,                 \
    const uint16_t *taps, unsigned ntaps, unsigned n)                       \
{                                                                           \
  /* ntaps is odd: the first tap alone, then pairs. */                      \
  mac2_##sfx (acc, x[0], x[0], taps[0], 0, true, n);                        \
  for (unsigned k = 1; k + 1 < ntaps; k += 2)                               \
    mac2_##sfx (acc, x[k], x[k + 1], taps[k], taps[k + 1], false, n);       \
}

DEFINE_FILTER (8, uint8_t)
DEFINE_FILTER (16, uint16_t)

/* filter_16, or its AVX-512 version where the CPU and the scale's taps
 * allow (the same sums) */
VIF_INLINE void
filter_16_best (const VhVifWork *work, unsigned scale, uint32_t *acc,
    const void *const *x, unsigned ntaps, unsigned n)
{
  if (work->simd[scale])
    work->simd[scale]->filter16 (acc, (const uint16_t *const *) x,
        work->taps[scale], ntaps, n);
  else
    filter_16 (acc, x, work->taps[scale], ntaps, n);
}

/* the eight row arrays from column col */
VIF_INLINE void
rows_at (const VhVifWork *work, unsigned col, uint16_t *out[ROW_ARRAYS])
{
  for (unsigned a = 0; a < ROW_ARRAYS; a++)
    out[a] = work->row[a] + col;
}

/* 8-bit μ with the symmetric taps folded (a + b fits 16 bits):
 * acc += f0·(a0 + b0) + f1·(a1 + b1). */
VIF_INLINE void
mac2_folded_8 (uint32_t *restrict acc, const uint8_t *restrict a0,
    const uint8_t *restrict b0, const uint8_t *restrict a1,
    const uint8_t *restrict b1, uint16_t f0, uint16_t f1, unsigned n)
{
  for (unsigned j = 0; j < VIF_RUN (n); j++)
    acc[j] += (uint32_t) f0 * (uint16_t) (a0[j] + b0[j])
        + (uint32_t) f1 * (uint16_t) (a1[j] + b1[j]);
}

/* Two taps of the three square sums of 8-bit samples r, d (the products
 * fit 16 bits): xx += f0·r0² + f1·r1², yy likewise with d, xy with r·d.
 * The symmetric taps are not folded: f·(p + q) would need 32x32 bits. */
VIF_INLINE void
mac2_squares_8 (uint32_t *restrict xx, uint32_t *restrict yy,
    uint32_t *restrict xy, const uint8_t *restrict r0,
    const uint8_t *restrict d0, const uint8_t *restrict r1,
    const uint8_t *restrict d1, uint16_t f0, uint16_t f1, bool init,
    unsigned n)
{
  for (unsigned j = 0; j < VIF_RUN (n); j++) {
    const uint16_t a0 = r0[j], b0 = d0[j], a1 = r1[j], b1 = d1[j];
    const uint32_t vx = (uint32_t) f0 * (uint16_t) (a0 * a0)
        + (uint32_t) f1 * (uint16_t) (a1 * a1);
    const uint32_t vy = (uint32_t) f0 * (uint16_t) (b0 * b0)
        + (uint32_t) f1 * (uint16_t) (b1 * b1);
    const uint32_t vxy = (uint32_t) f0 * (uint16_t) (a0 * b0)
        + (uint32_t) f1 * (uint16_t) (a1 * b1);
    xx[j] = init ? vx : xx[j] + vx;
    yy[j] = init ? vy : yy[j] + vy;
    xy[j] = init ? vxy : xy[j] + vxy;
  }
}

/* 16-bit products, split p = 2^16·hi + lo and summed apart. */
VIF_INLINE void
mac2_products_16 (uint32_t *restrict acc_hi, uint32_t *restrict acc_lo,
    const uint16_t *restrict a0, const uint16_t *restrict b0,
    const uint16_t *restrict a1, const uint16_t *restrict b1, uint16_t f0,
    uint16_t f1, bool init, unsigned n)
{
  for (unsigned j = 0; j < VIF_RUN (n); j++) {
    const uint32_t p0 = (uint32_t) a0[j] * b0[j];
    const uint32_t p1 = (uint32_t) a1[j] * b1[j];
    const uint32_t hi = (uint32_t) f0 * (uint16_t) (p0 >> 16)
        + (uint32_t) f1 * (uint16_t) (p1 >> 16);
    const uint32_t lo = (uint32_t) f0 * (uint16_t) p0
        + (uint32_t) f1 * (uint16_t) p1;
    acc_hi[j] = init ? hi : acc_hi[j] + hi;
    acc_lo[j] = init ? lo : acc_lo[j] + lo;
  }
}

/* The rounded square sum (Σ f·p² + 2^(s−1)) >> s from its halves
 * 2^16·hi + lo: (hi << (16 − s)) + ((lo + 2^(s−1)) >> s) exactly, s ≤ 16. */
VIF_INLINE uint32_t
combine_square_sum (uint32_t sum_hi, uint32_t sum_lo, unsigned s)
{
  return (sum_hi << (16 - s)) + ((sum_lo + (1u << (s - 1))) >> s);
}

/* ---------------------------------------------------------------------
 * Vertical passes over a run of n columns. `ref`/`dis` are the tap rows,
 * positioned at the run's first column; results go to column `col` of the
 * row buffers.
 * --------------------------------------------------------------------- */

/* Rounds the vertical sums of a run into the row buffers at column col:
 * μ by mu_shift; the squares by sq_shift from their halves, or, if
 * `halves` is false, as the 32-bit sums kept in the _HI accumulators. */
VIF_INLINE void
store_row (VhVifWork *work, unsigned col, unsigned n, unsigned mu_shift,
    bool halves, unsigned sq_shift)
{
  uint32_t *const *acc = work->acc;

  for (unsigned m = ROW_MU1; m <= ROW_MU2; m++) {
    const uint32_t *restrict sum = acc[m];
    uint16_t *restrict out = work->row[m] + col;
    for (unsigned j = 0; j < VIF_RUN (n); j++)
      out[j] = (sum[j] + (1u << (mu_shift - 1))) >> mu_shift;
  }
  for (unsigned a = ROW_XX_HI; a < ROW_ARRAYS; a += 2) {
    const uint32_t *restrict hi = acc[a], *restrict lo = acc[a + 1];
    uint16_t *restrict out_hi = work->row[a] + col;
    uint16_t *restrict out_lo = work->row[a + 1] + col;
    if (halves) {
      for (unsigned j = 0; j < VIF_RUN (n); j++) {
        const uint32_t v = combine_square_sum (hi[j], lo[j], sq_shift);
        out_hi[j] = v >> 16;
        out_lo[j] = v;
      }
    } else {
      for (unsigned j = 0; j < VIF_RUN (n); j++) {
        out_hi[j] = hi[j] >> 16;
        out_lo[j] = hi[j];
      }
    }
  }
}

/* 8-bit samples (scale 0 only): r² fits 16 bits and Σ f·r² 32, so libvmaf
 * keeps the squares unshifted; μ is (Σ f·r + 128) >> 8. */
VIF_INLINE void
vertical_stats_8 (VhVifWork *work, const void *const *ref,
    const void *const *dis, unsigned n, unsigned col)
{
  const uint16_t *taps = work->taps[0];
  const unsigned half = vif_half[0], last = 2 * half;
  uint32_t *const *acc = work->acc;
  const uint8_t *const *r = (const uint8_t *const *) ref;
  const uint8_t *const *d = (const uint8_t *const *) dis;

  /* the row arrays stored biased, for the one-row filter of the same
   * version */
  if (work->simd[0]) {
    uint16_t *out[ROW_ARRAYS];
    rows_at (work, col, out);
    work->simd[0]->vertical8 (out, r, d, taps, last + 1, n);
    return;
  }

  /* The three square sums: the first tap alone, then pairs. */
  mac2_squares_8 (acc[ROW_XX_HI], acc[ROW_YY_HI], acc[ROW_XY_HI], r[0], d[0],
      r[0], d[0], taps[0], 0, true, n);
  for (unsigned k = 1; k < last; k += 2)
    mac2_squares_8 (acc[ROW_XX_HI], acc[ROW_YY_HI], acc[ROW_XY_HI], r[k],
        d[k], r[k + 1], d[k + 1], taps[k], taps[k + 1], false, n);

  /* μ: the centre, then the folded pairs of taps (k, last − k). */
  mac2_8 (acc[ROW_MU1], r[half], r[half], taps[half], 0, true, n);
  mac2_8 (acc[ROW_MU2], d[half], d[half], taps[half], 0, true, n);
  for (unsigned k = 0; k < half; k += 2) {
    mac2_folded_8 (acc[ROW_MU1], r[k], r[last - k], r[k + 1],
        r[last - k - 1], taps[k], taps[k + 1], n);
    mac2_folded_8 (acc[ROW_MU2], d[k], d[last - k], d[k + 1],
        d[last - k - 1], taps[k], taps[k + 1], n);
  }

  store_row (work, col, n, 8, false, 0);
}

/* 16-bit samples: >8-bit scale 0 and every later scale. */
VIF_INLINE void
vertical_stats_16 (VhVifWork *work, const void *const *ref,
    const void *const *dis, unsigned scale, const VifRounding *rnd,
    unsigned n, unsigned col)
{
  const uint16_t *taps = work->taps[scale];
  const unsigned last = 2 * vif_half[scale];
  uint32_t *const *acc = work->acc;
  const uint16_t *const *r = (const uint16_t *const *) ref;
  const uint16_t *const *d = (const uint16_t *const *) dis;

  if (work->simd[scale]) {
    uint16_t *out[ROW_ARRAYS];
    rows_at (work, col, out);
    work->simd[scale]->vertical16 (out, r, d, taps, last + 1, rnd->mu_shift,
        rnd->sq_shift, n);
    return;
  }

  filter_16 (acc[ROW_MU1], ref, taps, last + 1, n);
  filter_16 (acc[ROW_MU2], dis, taps, last + 1, n);
  /* The square sums: the first tap alone, then pairs. */
  mac2_products_16 (acc[ROW_XX_HI], acc[ROW_XX_LO], r[0], r[0], r[0], r[0],
      taps[0], 0, true, n);
  mac2_products_16 (acc[ROW_YY_HI], acc[ROW_YY_LO], d[0], d[0], d[0], d[0],
      taps[0], 0, true, n);
  mac2_products_16 (acc[ROW_XY_HI], acc[ROW_XY_LO], r[0], d[0], r[0], d[0],
      taps[0], 0, true, n);
  for (unsigned k = 1; k < last; k += 2) {
    mac2_products_16 (acc[ROW_XX_HI], acc[ROW_XX_LO], r[k], r[k], r[k + 1],
        r[k + 1], taps[k], taps[k + 1], false, n);
    mac2_products_16 (acc[ROW_YY_HI], acc[ROW_YY_LO], d[k], d[k], d[k + 1],
        d[k + 1], taps[k], taps[k + 1], false, n);
    mac2_products_16 (acc[ROW_XY_HI], acc[ROW_XY_LO], r[k], d[k], r[k + 1],
        d[k + 1], taps[k], taps[k + 1], false, n);
  }

  store_row (work, col, n, rnd->mu_shift, true, rnd->sq_shift);
}

/* Vertical half of a subsample: (Σ f·p + 2^(s−1)) >> s of the filtered
 * rows in acc. */
VIF_INLINE void
round_out (const uint32_t *restrict acc, unsigned shift, unsigned n,
    uint16_t *restrict out)
{
  for (unsigned j = 0; j < VIF_RUN (n); j++)
    out[j] = (acc[j] + (1u << (shift - 1))) >> shift;
}

/* Which vertical pass a row driver runs. */
typedef enum {
  PASS_STATS_8, PASS_STATS_16, PASS_SUBSAMPLE_8, PASS_SUBSAMPLE_16
} VifPass;

typedef struct VifVerticalJob {
  VifPass pass;
  unsigned scale;               /* whose taps */
  unsigned ntaps;
  const VifRounding *rnd;       /* PASS_STATS_16 */
  unsigned shift;               /* PASS_SUBSAMPLE_* */
} VifVerticalJob;

/* Runs one vertical pass on the rows at `ref`/`dis` (tap row pointers,
 * positioned at column 0) over columns [0, w). */
VH_MULTIVERSION static void
vertical_row (VhVifWork *work, const VifVerticalJob *job,
    const void *const *ref, const void *const *dis, unsigned w)
{
  const size_t sample = job->pass == PASS_STATS_8
      || job->pass == PASS_SUBSAMPLE_8 ? 1 : 2;
  const void *ref_at[VIF_MAX_TAPS], *dis_at[VIF_MAX_TAPS];
  unsigned j0 = 0;

  while (j0 < w) {
    unsigned n = MIN (VIF_CHUNK, VIF_RUN (w - j0));

    if (n > 0) {
      for (unsigned k = 0; k < job->ntaps; k++) {
        ref_at[k] = (const uint8_t *) ref[k] + j0 * sample;
        dis_at[k] = (const uint8_t *) dis[k] + j0 * sample;
      }
    } else {
      /* The last w % VIF_ALIGN columns: from a zero-padded copy, as the
       * input may end right after them. */
      uint8_t *t = work->tail;
      const size_t len = (w - j0) * sample, block = VIF_ALIGN * sample;
      for (unsigned k = 0; k < job->ntaps; k++) {
        uint8_t *rt = t + 2 * k * block, *dt = rt + block;
        memset (rt, 0, 2 * block);
        memcpy (rt, (const uint8_t *) ref[k] + j0 * sample, len);
        memcpy (dt, (const uint8_t *) dis[k] + j0 * sample, len);
        ref_at[k] = rt;
        dis_at[k] = dt;
      }
      n = VIF_ALIGN;
    }

    switch (job->pass) {
      case PASS_STATS_8:
        vertical_stats_8 (work, ref_at, dis_at, n, j0);
        break;
      case PASS_STATS_16:
        vertical_stats_16 (work, ref_at, dis_at, job->scale, job->rnd, n,
            j0);
        break;
      case PASS_SUBSAMPLE_8:
        if (work->simd[job->scale]) {
          work->simd[job->scale]->subsample8 (work->sub_ref + j0,
              (const uint8_t *const *) ref_at, work->taps[job->scale],
              job->ntaps, job->shift, n);
          work->simd[job->scale]->subsample8 (work->sub_dis + j0,
              (const uint8_t *const *) dis_at, work->taps[job->scale],
              job->ntaps, job->shift, n);
          break;
        }
        filter_8 (work->acc[0], ref_at, work->taps[job->scale], job->ntaps,
            n);
        round_out (work->acc[0], job->shift, n, work->sub_ref + j0);
        filter_8 (work->acc[0], dis_at, work->taps[job->scale], job->ntaps,
            n);
        round_out (work->acc[0], job->shift, n, work->sub_dis + j0);
        break;
      case PASS_SUBSAMPLE_16:
        filter_16_best (work, job->scale, work->acc[0], ref_at, job->ntaps,
            n);
        round_out (work->acc[0], job->shift, n, work->sub_ref + j0);
        filter_16_best (work, job->scale, work->acc[0], dis_at, job->ntaps,
            n);
        round_out (work->acc[0], job->shift, n, work->sub_dis + j0);
        break;
    }
    j0 += n;
  }
}

/* ---------------------------------------------------------------------
 * Horizontal pass and per-pixel statistic.
 * --------------------------------------------------------------------- */

typedef struct VifPixelParams {
  double enhn_gain_limit;
  const uint16_t *log2;
  VhVifPixelsFunc pixels;       /* vif-pixels.c: plain C or AVX-512 */
} VifPixelParams;

/* σ₁², σ₂², σ₁₂ from the eight filtered sums (vif-filters.h's sigmas, in
 * plain C) */
VIF_INLINE void
plain_sigmas (uint32_t *const *acc, int32_t *restrict sigma1_sq,
    int32_t *restrict sigma2_sq, int32_t *restrict sigma12, unsigned n)
{
  const uint32_t *restrict mu1 = acc[ROW_MU1], *restrict mu2 = acc[ROW_MU2];
  const uint32_t *restrict xx_hi = acc[ROW_XX_HI];
  const uint32_t *restrict xx_lo = acc[ROW_XX_LO];
  const uint32_t *restrict yy_hi = acc[ROW_YY_HI];
  const uint32_t *restrict yy_lo = acc[ROW_YY_LO];
  const uint32_t *restrict xy_hi = acc[ROW_XY_HI];
  const uint32_t *restrict xy_lo = acc[ROW_XY_LO];
  for (unsigned j = 0; j < VIF_RUN (n); j++) {
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
}

/* Horizontal filter of the row buffers over columns [j0, j0 + n) (n a
 * multiple of VIF_ALIGN, possibly past the row end), then the statistics
 * of its first `valid` columns. libvmaf's uint64 square sums Σ f·v are
 * taken as 2^16·Σ f·hi + Σ f·lo and rounded like combine_square_sum. */
VIF_INLINE void
horizontal_stats (VhVifWork *work, unsigned scale, unsigned j0, unsigned n,
    unsigned valid, const VifPixelParams *p, VhVifScaleSums *sums)
{
  const unsigned half = vif_half[scale], ntaps = 2 * half + 1;
  uint32_t *const *acc = work->acc;
  int32_t *restrict sigma1_sq = work->sigma1_sq;
  int32_t *restrict sigma2_sq = work->sigma2_sq;
  int32_t *restrict sigma12 = work->sigma12;
  const void *cols[VIF_MAX_TAPS];
  const VhVifFilters *simd = work->simd[scale];

  for (unsigned a = 0; a < ROW_ARRAYS; a++) {
    if (simd) {
      simd->hfilter16 (acc[a], work->row[a] + ((ptrdiff_t) j0 - half),
          work->taps[scale], ntaps, n);
      continue;
    }
    for (unsigned k = 0; k < ntaps; k++)
      cols[k] = work->row[a] + ((ptrdiff_t) j0 + k - half);
    filter_16 (acc[a], cols, work->taps[scale], ntaps, n);
  }

  if (simd)
    simd->sigmas ((const uint32_t *const *) acc, sigma1_sq, sigma2_sq,
        sigma12, n);
  else
    plain_sigmas (acc, sigma1_sq, sigma2_sq, sigma12, n);
  p->pixels (sigma1_sq, sigma2_sq, sigma12, valid, p->enhn_gain_limit,
      p->log2, sums);
}

/* Sums of one scale. `ref`/`dis` are its rows (input plane at scale 0,
 * pyramid level otherwise); `rnd` NULL means 8-bit samples at scale 0. */
VH_MULTIVERSION static void
scale_stats (VhVifWork *work, unsigned scale, const uint8_t *ref,
    ptrdiff_t ref_stride, const uint8_t *dis, ptrdiff_t dis_stride,
    const VifRounding *rnd, const VifPixelParams *p, unsigned row0,
    unsigned row1, VhVifScaleSums *out)
{
  const unsigned w = work->width[scale], h = work->height[scale];
  const unsigned half = vif_half[scale];
  const VifVerticalJob job = {
    .pass = rnd ? PASS_STATS_16 : PASS_STATS_8,
    .scale = scale, .ntaps = 2 * half + 1, .rnd = rnd,
  };
  const void *ref_rows[VIF_MAX_TAPS], *dis_rows[VIF_MAX_TAPS];
  VhVifScaleSums sums = { 0 };

  for (unsigned i = row0; i < row1; i++) {
    for (unsigned k = 0; k < job.ntaps; k++) {
      const ptrdiff_t y = mirror ((int) (i + k) - (int) half, (int) h);
      ref_rows[k] = ref + y * ref_stride;
      dis_rows[k] = dis + y * dis_stride;
    }
    vertical_row (work, &job, ref_rows, dis_rows, w);
    for (unsigned a = 0; a < ROW_ARRAYS; a++)
      mirror_margins (work->row[a], w, half);

    for (unsigned j0 = 0; j0 < w; j0 += VIF_CHUNK) {
      const unsigned valid = MIN (VIF_CHUNK, w - j0);
      horizontal_stats (work, scale, j0, VIF_RUN (valid + VIF_ALIGN - 1),
          valid, p, &sums);
    }
  }
  *out = sums;
}

/* Horizontal half of a subsample, even columns only (libvmaf filters every
 * column, then keeps the even ones). The row is split into its even and
 * odd samples from column −2·half on, E[m] = in[2m − 2·half] and
 * O[m] = in[2m + 1 − 2·half]; output j's tap k reads in[2j + k − half],
 * that is E or O (as k + half is even or odd) at j + (k + half)/2: a filter
 * over contiguous runs again. */
VH_MULTIVERSION static void
horizontal_decimate (VhVifWork *work, const uint16_t *in, unsigned scale,
    unsigned out_w, uint16_t *out)
{
  const unsigned half = vif_half[scale], ntaps = 2 * half + 1;
  const unsigned span = VIF_RUN (out_w + VIF_ALIGN - 1) + ntaps;
  uint16_t *restrict even = work->even, *restrict odd = work->odd;
  const uint16_t *restrict src = in - 2 * half;
  const void *cols[VIF_MAX_TAPS];

  for (unsigned m = 0; m < span; m++) {
    even[m] = src[2 * m];
    odd[m] = src[2 * m + 1];
  }
  for (unsigned j0 = 0; j0 < out_w; j0 += VIF_CHUNK) {
    const unsigned n = VIF_RUN (MIN (VIF_CHUNK, out_w - j0) + VIF_ALIGN - 1);
    for (unsigned k = 0; k < ntaps; k++) {
      const unsigned t = k + half;
      cols[k] = (t % 2 ? odd : even) + j0 + t / 2;
    }
    filter_16_best (work, scale, work->acc[0], cols, ntaps, n);
    const uint32_t *restrict acc = work->acc[0];
    uint16_t *restrict o = out + j0;
    for (unsigned j = 0; j < VIF_RUN (n); j++)
      o[j] = (acc[j] + 32768) >> 16;
  }
}

/* Builds rows [row0, row1) of pyramid level `scale` from the level above
 * it (or the input): filter with taps[scale], keep even rows and columns.
 * The vertical pass rounds by `shift`: bpc from the input, 16 from a
 * pyramid level. */
VH_MULTIVERSION static void
subsample (VhVifWork *work, unsigned scale, const uint8_t *ref,
    ptrdiff_t ref_stride, const uint8_t *dis, ptrdiff_t dis_stride,
    bool wide, unsigned shift, unsigned row0, unsigned row1)
{
  const unsigned src_w = work->width[scale - 1];
  const unsigned src_h = work->height[scale - 1];
  const unsigned w = work->width[scale];
  const unsigned half = vif_half[scale];
  const VifVerticalJob job = {
    .pass = wide ? PASS_SUBSAMPLE_16 : PASS_SUBSAMPLE_8,
    .scale = scale, .ntaps = 2 * half + 1, .shift = shift,
  };
  const void *ref_rows[VIF_MAX_TAPS], *dis_rows[VIF_MAX_TAPS];

  for (unsigned i = row0; i < row1; i++) {
    for (unsigned k = 0; k < job.ntaps; k++) {
      const ptrdiff_t y = mirror ((int) (2 * i + k) - (int) half, (int) src_h);
      ref_rows[k] = ref + y * ref_stride;
      dis_rows[k] = dis + y * dis_stride;
    }
    vertical_row (work, &job, ref_rows, dis_rows, src_w);
    mirror_margins (work->sub_ref, src_w, half);
    mirror_margins (work->sub_dis, src_w, half);
    horizontal_decimate (work, work->sub_ref, scale, w,
        work->pyr_ref[scale] + i * work->pyr_stride[scale]);
    horizontal_decimate (work, work->sub_dis, scale, w,
        work->pyr_dis[scale] + i * work->pyr_stride[scale]);
  }
}

/* ---------------------------------------------------------------------
 * Public core
 * --------------------------------------------------------------------- */

/* Carves `size` bytes, 64-byte aligned, from a block (sizing pass: NULL). */
static void *
carve (uint8_t *base, size_t *offset, size_t size)
{
  void *p;

  *offset = (*offset + 63) & ~(size_t) 63;
  p = base ? base + *offset : NULL;
  *offset += size;
  return p;
}

/* Lays out (or, with base NULL, measures) the buffers of a work: its
 * scratch, and the pyramid unless it is a band's (which shares its
 * parent's). */
static size_t
work_layout (VhVifWork *work, uint8_t *base, bool pyramid)
{
  const size_t row_len = VIF_MARGIN_LEFT + work->width[0] + VIF_MARGIN_RIGHT;
  const size_t row_bytes = row_len * sizeof (uint16_t);
  size_t offset = 0;

  for (unsigned a = 0; a < ROW_ARRAYS; a++) {
    work->row[a] = carve (base, &offset, row_bytes);
    work->acc[a] = carve (base, &offset, VIF_CHUNK * sizeof (uint32_t));
  }
  work->sub_ref = carve (base, &offset, row_bytes);
  work->sub_dis = carve (base, &offset, row_bytes);
  work->even = carve (base, &offset, row_bytes);
  work->odd = carve (base, &offset, row_bytes);
  work->sigma1_sq = carve (base, &offset, VIF_CHUNK * sizeof (int32_t));
  work->sigma2_sq = carve (base, &offset, VIF_CHUNK * sizeof (int32_t));
  work->sigma12 = carve (base, &offset, VIF_CHUNK * sizeof (int32_t));
  work->tail = carve (base, &offset,
      2 * VIF_MAX_TAPS * VIF_ALIGN * sizeof (uint16_t));
  for (unsigned s = 1; pyramid && s < VH_VIF_SCALES; s++) {
    work->pyr_stride[s] = VIF_RUN (work->width[s] + VIF_ALIGN - 1);
    const size_t bytes = work->pyr_stride[s] * work->height[s]
        * sizeof (uint16_t);
    work->pyr_ref[s] = carve (base, &offset, bytes);
    work->pyr_dis[s] = carve (base, &offset, bytes);
  }

  if (base) {
    for (unsigned a = 0; a < ROW_ARRAYS; a++)
      work->row[a] += VIF_MARGIN_LEFT;
    work->sub_ref += VIF_MARGIN_LEFT;
    work->sub_dis += VIF_MARGIN_LEFT;
  }
  return offset + 64;
}

VhVifWork *
vh_vif_work_new (unsigned width, unsigned height)
{
  if (width < VH_VIF_MIN_SIZE || height < VH_VIF_MIN_SIZE
      || width > VH_VIF_MAX_SIZE || height > VH_VIF_MAX_SIZE)
    return NULL;

  VhVifWork *work = g_new0 (VhVifWork, 1);
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    work->width[s] = width >> s;
    work->height[s] = height >> s;
  }

  /* Zeroed once: the columns the runs read past the row ends are then
   * defined (their results are never used). */
  const size_t bytes = work_layout (work, NULL, true);
  work->mem = g_try_malloc0 (bytes);
  if (!work->mem) {
    g_free (work);
    return NULL;
  }
  work_layout (work,
      (uint8_t *) (((uintptr_t) work->mem + 63) & ~(uintptr_t) 63), true);
  for (unsigned s = 0; s < VH_VIF_SCALES; s++)
    for (unsigned k = 0; k <= 2 * vif_half[s]; k++)
      work->taps[s][k] = vif_taps[s][k];
  work->log2 = vh_vif_log2_table ();
  work->pixels = vh_vif_pixels_best ();
  const VhVifFilters *simd = vh_vif_filters_best ();
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    work->simd[s] = simd;
    for (unsigned k = 0; k <= 2 * vif_half[s]; k++)
      if (work->taps[s][k] >= 32768)
        work->simd[s] = NULL;
  }
  work->max_threads = 1;
  return work;
}

void
vh_vif_work_free (VhVifWork *work)
{
  if (!work)
    return;
  for (unsigned i = 1; i < work->n_band_works; i++) {
    g_free (work->band[i]->mem);
    g_free (work->band[i]);
  }
  g_free (work->band);
  g_free (work->mem);
  g_free (work);
}

/* A band's work: the parent's sizes, taps, kernels and pyramid, scratch
 * of its own */
static VhVifWork *
band_work_new (const VhVifWork *parent)
{
  VhVifWork *band = g_new (VhVifWork, 1);
  *band = *parent;
  band->band = NULL;
  band->n_band_works = 0;
  band->max_threads = 1;
  band->budget = NULL;
  for (unsigned a = 0; a < ROW_ARRAYS; a++)
    band->row[a] = NULL;
  const size_t bytes = work_layout (band, NULL, false);
  band->mem = g_try_malloc0 (bytes);
  if (!band->mem) {
    g_free (band);
    return NULL;
  }
  work_layout (band,
      (uint8_t *) (((uintptr_t) band->mem + 63) & ~(uintptr_t) 63), false);
  return band;
}

bool
vh_vif_work_set_threads (VhVifWork *work, unsigned max_threads, int *budget)
{
  g_return_val_if_fail (work != NULL, false);
  max_threads = CLAMP (max_threads, 1, VIF_MAX_BANDS);
  /* a phase runs two passes' bands at once */
  const unsigned needed = max_threads > 1 ? 2 * max_threads : 1;
  if (needed > work->n_band_works) {
    work->band = g_renew (VhVifWork *, work->band, needed);
    if (!work->n_band_works)
      work->band[work->n_band_works++] = work;
    while (work->n_band_works < needed) {
      VhVifWork *band = band_work_new (work);
      if (!band)
        return false;
      work->band[work->n_band_works++] = band;
    }
  }
  work->max_threads = max_threads;
  work->budget = budget;
  return true;
}

/* One phase of a frame: what reads pyramid level s (the input at s = 0),
 * the statistics of scale s and the subsample that makes level s + 1, each
 * split into row bands; piece i runs on work->band[i]. */
typedef struct VifPhase {
  VhVifWork *work;
  bool banded;
  const VifPixelParams *params;
  const uint8_t *ref, *dis;     /* level s */
  ptrdiff_t ref_stride, dis_stride;
  unsigned scale;               /* s */
  const VifRounding *rnd;       /* the statistics' (NULL: 8-bit scale 0) */
  unsigned stats_bands;         /* 0: scale s not computed */
  unsigned sub_bands;           /* 0: no level s + 1 */
  bool sub_wide;
  unsigned sub_shift;
  VhVifScaleSums band_sums[VIF_MAX_BANDS];
} VifPhase;

static void
phase_piece (void *data, unsigned i)
{
  VifPhase *ph = data;
  /* one after the other in the caller where not banded */
  VhVifWork *work = ph->banded ? ph->work->band[i] : ph->work;
  if (i < ph->stats_bands) {
    const unsigned h = work->height[ph->scale];
    scale_stats (work, ph->scale, ph->ref, ph->ref_stride, ph->dis,
        ph->dis_stride, ph->rnd, ph->params,
        vh_band_row (h, ph->stats_bands, i),
        vh_band_row (h, ph->stats_bands, i + 1), &ph->band_sums[i]);
    return;
  }
  i -= ph->stats_bands;
  const unsigned h = work->height[ph->scale + 1];
  subsample (work, ph->scale + 1, ph->ref, ph->ref_stride, ph->dis,
      ph->dis_stride, ph->sub_wide, ph->sub_shift,
      vh_band_row (h, ph->sub_bands, i), vh_band_row (h, ph->sub_bands, i + 1));
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
    .pixels = work->pixels,
  };
  const bool wide = bpc > 8;
  /* Scale 0 brings everything to 8-bit units: μ by >> bpc; squares not at
   * all for 8-bit (the 8-bit kernel), by >> 2(bpc − 8) above. Later
   * scales are at 8-bit·256 and shift both by 16. */
  const VifRounding scale0 = { .mu_shift = bpc, .sq_shift = 2 * (bpc - 8) };
  const VifRounding scaled = { .mu_shift = 16, .sq_shift = 16 };
  const ptrdiff_t u16 = sizeof (uint16_t);
  const bool banded = work->max_threads > 1 && work->band;

  memset (sums, 0, sizeof *sums);
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    VifPhase ph = {
      .work = work, .banded = banded, .params = &params, .scale = s,
      .ref = s ? (const uint8_t *) work->pyr_ref[s] : ref->data,
      .dis = s ? (const uint8_t *) work->pyr_dis[s] : dis->data,
      .ref_stride = s ? (ptrdiff_t) work->pyr_stride[s] * u16 : ref->stride,
      .dis_stride = s ? (ptrdiff_t) work->pyr_stride[s] * u16 : dis->stride,
      .rnd = s ? &scaled : wide ? &scale0 : NULL,
      /* the first subsample shifts by bpc (8-bit: (Σ + 128) >> 8) */
      .sub_wide = s ? true : wide,
      .sub_shift = s ? 16 : bpc,
    };
    if (s >= first_scale)
      ph.stats_bands = banded ? vh_band_count (work->height[s],
          work->max_threads) : 1;
    if (s + 1 < VH_VIF_SCALES)
      ph.sub_bands = banded ? vh_band_count (work->height[s + 1],
          work->max_threads) : 1;
    vh_parallel_for (ph.stats_bands + ph.sub_bands,
        banded ? work->max_threads : 1, work->budget, phase_piece, &ph);
    /* integer sums: the bands' order does not matter */
    for (unsigned i = 0; i < ph.stats_bands; i++) {
      VhVifScaleSums *out = &sums->scale[s];
      out->num_log += ph.band_sums[i].num_log;
      out->den_log += ph.band_sums[i].den_log;
      out->num_non_log += ph.band_sums[i].num_non_log;
      out->den_non_log += ph.band_sums[i].den_non_log;
    }
  }
}

void
vh_vif_compute_sums (VhVifWork *work, const VhPlane *ref, const VhPlane *dis,
    unsigned bpc, double enhn_gain_limit, VhVifSums *sums)
{
  vh_vif_compute_sums_from (work, ref, dis, bpc, enhn_gain_limit, 0, sums);
}
