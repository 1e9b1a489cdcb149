/* vmafhip — integer ADM (libvmaf 3.2.0 `adm`, bit-exact).
 *
 * Per scale, libvmaf runs whole-band passes: DWT, decouple, denominator,
 * CSF and contrast masking (CM) for DLM, then CSF and CM again for AIM.
 * Every pass but the DWT only reads the band at the same position or in a
 * 3×3 window, so this port streams the band row by row instead:
 *
 *   DWT row y ─► decouple + CSF of row y ─► CM of row y−1
 *
 * keeping three rows of the CM inputs in a ring. Only the low band `a` is
 * kept whole, as the next scale's input. The arithmetic of each pixel is
 * libvmaf's, including its quirks (marked QUIRK below) and, by default, the
 * few places where its AVX-512 code, which produced the golden scores,
 * differs from its C code ("AVX-512 flavour" below). Results are the
 * integer row sums that libvmaf rounds and accumulates, so they do not
 * depend on the order in which rows are produced.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "adm.h"
#include "adm-dwt.h"
#include "adm-rows.h"
#include "vh-cpu.h"
#include "vh-multiversion.h"
#include "vh-feature.h"
#include "vh-parallel.h"
#include "adm-params.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846264338327
#endif

/* ---- Per-scale constants -------------------------------------------------
 * Options, parameters and each scale's geometry (vh_adm_plan) are in
 * adm-params.c, shared with the GPU host. */


/* ---- AVX-512 flavour -------------------------------------------------------
 *
 * libvmaf's AVX-512 functions, which produced the golden scores, differ from
 * its C functions in four places. Each is deterministic and tied to the
 * columns the vector loops cover, so it is reproduced here:
 *
 * 1. DWT: the horizontal vector loops (32 outputs a step at scale 0 for
 *    8 bits, 64 for 10-12 bits, 8 at scales 1-3) also cover the last output
 *    column when (band width − 1) is a multiple of the step. That column
 *    then reads the two samples after the vertical-pass row instead of
 *    their mirror. In libvmaf's scratch each picture's low-pass row is
 *    followed by its high-pass row; at scales 1-3 the reference's high-pass
 *    row by the distorted low-pass row, and the distorted high-pass row by
 *    what the scale before left there: columns 0-1 (or 2-3) of the
 *    distorted low-pass row of its last band row at scales 2-3, memory
 *    nothing ever writes at scale 1 (taken as zero, what a fresh heap block
 *    holds). At scale 0 the high-pass rows are followed by stale memory
 *    too; the mirror is kept there, as the last column only reaches the CM
 *    window in bands narrower than 25, which a step of 32 never meets.
 *    So the only guess is the scale-1 zero, which matters for pictures 33-36
 *    and 65-68 wide.
 * 2. Decouple, all scales, 16-wide loops: r·egl is rounded to nearest (even)
 *    instead of truncated. Same for integer egl (1, 100).
 * 3. Scale-0 CSF, 16-wide loop: |csf|/30 is taken from the value before its
 *    int16 store. Same unless |csf| > 32767 (CSF weights of Barten mode).
 * 4. Scale-0 CM, 14-wide interior loop: the centre term |csf|/15 is not
 *    wrapped to int16 (it wraps where |csf| ≥ 15360, e.g. at sharp edges).
 *
 * The vector loops cover the extended region [el, er) from its left edge in
 * whole steps of 16 (2, 3) and the score columns [sl, sr) in whole steps of
 * 14 (4, rows 1 .. h − 2, only where sl > 0).
 */

/* ---- Work buffers --------------------------------------------------------- */

enum { X_DLM, X_AIM };                      /* DLM and AIM, in that order */
enum { ROW_MASK, ROW_CENTRE, ROW_CENTRE_RAW, N_MASK_ROWS };
#define RING 3

struct VhAdmWork {
  unsigned width, height;
  int bw[VH_ADM_SCALES], bh[VH_ADM_SCALES];   /* band sizes */

  /* Low band of ref [0] and dis [1] at scales 0-2: the next scale's input. */
  int32_t *low[2][VH_ADM_SCALES - 1];
  /* Vertical pass output of ref and dis, lo [0] and hi [1], padded to
   * [−1, n + 1]. */
  int32_t *vert[2][2];
  /* h, v, d of the current band row of ref [0] and dis [1]. */
  int32_t *detail[2][VH_ADM_BANDS];
  uint8_t *angle;
  /* Ring of CM inputs, per measure (DLM, AIM): the mask row Σ_bands flt,
   * padded by one column on each side for the mirrored neighbours; the
   * centre row Σ_bands |csf|/15, and the same unwrapped (AVX-512 flavour);
   * and the CM signal x per band. */
  int32_t *mask[RING][2][N_MASK_ROWS];
  int32_t *x[RING][2][VH_ADM_BANDS];
  int32_t *thr;
  int32_t *k_row, *r_row;   /* decouple ratios and restored row */
  int32_t *scratch[2];      /* DWT outputs nobody reads (lo, hi) */
  /* AVX-512 flavour 1: what libvmaf's scratch holds after the distorted
   * high-pass row at scales 1-3 (set by the scale before). */
  int32_t stale[2];
  bool dwt_avx2;            /* scale 0's DWT by adm-dwt-x86.c */
  /* the CSF, CM and denominator rows: vh_adm_rows_c or hand-written */
  const VhAdmRows *rows;

  void *block;
  /* Row bands (vh_adm_work_set_threads): band[i] runs piece i of a scale
   * with row scratch of its own and this work's low bands (band[0] is
   * this work). */
  unsigned max_threads;
  gint *budget;
  unsigned n_band_works;
  VhAdmWork **band;
};

/* Bands at most (each band also computes a row above and below for the CM
 * window; vh_band_count sizes them) */
#define ADM_MAX_BANDS 16

static size_t
aligned_count (size_t n)
{
  return (n + 15) & ~(size_t) 15;   /* 64-byte steps of int32 */
}

/* Allocates a work's buffers: the row scratch, and the low bands unless
 * it is a band's (which uses its parent's). FALSE if memory runs out. */
static gboolean
work_alloc (VhAdmWork *wk, bool low_planes)
{
  const size_t row = aligned_count (wk->bw[0] + 2);
  const size_t vrow = aligned_count (wk->width + 3);
  size_t total = 0;
  for (int s = 0; low_planes && s < VH_ADM_SCALES - 1; s++)
    total += 2 * aligned_count ((size_t) wk->bw[s] * wk->bh[s]);
  total += 4 * vrow;
  total += 2 * VH_ADM_BANDS * row;
  total += RING * 2 * (N_MASK_ROWS + VH_ADM_BANDS) * row;
  total += 5 * row;                         /* thr, k_row, r_row, scratch */
  total += row;                             /* angle flags, as bytes */

  int32_t *p = g_try_malloc0 (total * sizeof (int32_t));
  if (!p)
    return FALSE;
  wk->block = p;
  for (int s = 0; low_planes && s < VH_ADM_SCALES - 1; s++) {
    for (int i = 0; i < 2; i++) {
      wk->low[i][s] = p;
      p += aligned_count ((size_t) wk->bw[s] * wk->bh[s]);
    }
  }
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++, p += vrow)
      wk->vert[i][k] = p + 1;
  for (int i = 0; i < 2; i++)
    for (int b = 0; b < VH_ADM_BANDS; b++, p += row)
      wk->detail[i][b] = p;
  for (int r = 0; r < RING; r++) {
    for (int k = 0; k < 2; k++) {
      for (int m = 0; m < N_MASK_ROWS; m++, p += row)
        wk->mask[r][k][m] = p + 1;
      for (int b = 0; b < VH_ADM_BANDS; b++, p += row)
        wk->x[r][k][b] = p;
    }
  }
  wk->thr = p;
  p += row;
  wk->k_row = p;
  p += row;
  wk->r_row = p;
  p += row;
  wk->scratch[0] = p;
  p += row;
  wk->scratch[1] = p;
  p += row;
  wk->angle = (uint8_t *) p;
  return TRUE;
}

VhAdmWork *
vh_adm_work_new (unsigned width, unsigned height)
{
  if (width < VH_ADM_MIN_SIZE || height < VH_ADM_MIN_SIZE
      || width > (1u << 16) || height > (1u << 16))
    return NULL;

  VhAdmWork *wk = g_new0 (VhAdmWork, 1);
  wk->width = width;
  wk->height = height;
  wk->max_threads = 1;
#ifdef VH_ADM_DWT_X86
  wk->dwt_avx2 = vh_cpu_simd_level () >= VH_CPU_SIMD_AVX2;
#endif
  wk->rows = vh_adm_rows_best ();
  if (!wk->rows)
    wk->rows = &vh_adm_rows_c;
  vh_adm_band_sizes (width, height, wk->bw, wk->bh);
  if (!work_alloc (wk, true)) {
    g_free (wk);
    return NULL;
  }
  return wk;
}

void
vh_adm_work_free (VhAdmWork *work)
{
  if (!work)
    return;
  for (unsigned i = 1; i < work->n_band_works; i++) {
    g_free (work->band[i]->block);
    g_free (work->band[i]);
  }
  g_free (work->band);
  g_free (work->block);
  g_free (work);
}

gboolean
vh_adm_work_set_threads (VhAdmWork *work, unsigned max_threads,
    gint *budget)
{
  g_return_val_if_fail (work != NULL, FALSE);
  max_threads = CLAMP (max_threads, 1, ADM_MAX_BANDS);
  if (max_threads > work->n_band_works) {
    work->band = g_renew (VhAdmWork *, work->band, max_threads);
    if (!work->n_band_works)
      work->band[work->n_band_works++] = work;
    while (work->n_band_works < max_threads) {
      VhAdmWork *band = g_new (VhAdmWork, 1);
      *band = *work;
      band->band = NULL;
      band->n_band_works = 0;
      band->max_threads = 1;
      band->budget = NULL;
      if (!work_alloc (band, false)) {
        g_free (band);
        return FALSE;
      }
      /* the parent's low bands, which every band writes its rows of */
      memcpy (band->low, work->low, sizeof band->low);
      work->band[work->n_band_works++] = band;
    }
  }
  work->max_threads = max_threads;
  work->budget = budget;
  return TRUE;
}

/* Band row y of ref and dis: the low band into the `low` plane (scales
 * 0-2) and, if `detail`, the h, v and d rows. */
static void
dwt_band_row (VhAdmWork *wk, const VhAdmPlan *pl, const VhAdmSource src[2],
    int y, unsigned bpc, bool low, bool detail, bool tail_quirk)
{
  const int n = src[0].w, half = pl->w, scale = pl->scale;

  for (int i = 0; i < 2; i++)
    vh_adm_dwt_vertical (&src[i], y, scale, bpc, wk->dwt_avx2, wk->vert[i][0],
        wk->vert[i][1]);
  if (tail_quirk) {
    /* AVX-512 flavour 1: what follows each row in libvmaf's scratch. */
    for (int i = 0; i < 2; i++) {
      wk->vert[i][0][n] = wk->vert[i][1][0];
      wk->vert[i][0][n + 1] = wk->vert[i][1][1];
    }
    if (scale > 0) {
      wk->vert[0][1][n] = wk->vert[1][0][0];
      wk->vert[0][1][n + 1] = wk->vert[1][0][1];
      wk->vert[1][1][n] = wk->stale[0];
      wk->vert[1][1][n + 1] = wk->stale[1];
    }
  }
  for (int i = 0; i < 2; i++) {
    /* Outputs nobody reads go to a scratch row. */
    int32_t *a = low ? wk->low[i][scale] + (size_t) y * half : wk->scratch[0];
    int32_t *const *d = wk->detail[i];
    vh_adm_dwt_horizontal (wk->vert[i][0], half, scale, wk->dwt_avx2, a,
        detail ? d[VH_ADM_ORIENT_V] : wk->scratch[1]);
    if (detail)
      vh_adm_dwt_horizontal (wk->vert[i][1], half, scale, wk->dwt_avx2,
          d[VH_ADM_ORIENT_H], d[VH_ADM_ORIENT_D]);
  }
}

/* ---- Decouple ------------------------------------------------------------- */

/* cos²(1°), computed in double and stored as float, as libvmaf does. */
static float
cos_1deg_sq (void)
{
  return (float) (cos (1.0 * M_PI / 180.0) * cos (1.0 * M_PI / 180.0));
}

/* k = clamp(t / o, 0, 1) in Q15, 1 where o = 0, for a band row: t / o by
 * reciprocal multiplication, a divisor beyond 15 bits first rounded to 15
 * significant bits. Written without branches (signs and magnitudes are
 * data, not patterns), with the sign of o moved onto t. */
VH_MULTIVERSION static void
ratio_row (const int32_t *o, const int32_t *t, int l, int r,
    const int32_t *div, int32_t *restrict k)
{
  for (int j = l; j < r; j++) {
    const int32_t oj = o[j];
    const int32_t sign = oj >> 31;                  /* 0 or −1 */
    const int64_t tj = ((int64_t) t[j] ^ sign) - sign;
    const uint32_t mag = (uint32_t) ((oj ^ sign) - sign);
    const int shift = mag >= 32768 ? 17 - __builtin_clz (mag | 1) : 0;
    const uint32_t m = (mag + ((1u << shift) >> 1)) >> shift;
    int64_t q = (div[m] * tj + ((int64_t) 1 << (14 + shift))) >> (15 + shift);
    q = q > 0 ? q : 0;
    q = q < 32768 ? q : 32768;
    k[j] = oj == 0 ? 32768 : (int32_t) q;
  }
}

/* The same at scale 0, where |o| < 32768: a plain lookup, with the sign of
 * o moved onto t to keep the loop free of branches. */
static void
ratio_row_s0 (const int32_t *o, const int32_t *t, int l, int r,
    const int32_t *div, int32_t *restrict k)
{
  for (int j = l; j < r; j++) {
    const int32_t oj = o[j];
    const int32_t sign = oj >> 31;                  /* 0 or −1 */
    const int32_t tj = (t[j] ^ sign) - sign;
    int64_t q = ((int64_t) div[(oj ^ sign) - sign] * tj + 16384) >> 15;
    q = q > 0 ? q : 0;
    q = q < 32768 ? q : 32768;
    k[j] = oj == 0 ? 32768 : (int32_t) q;
  }
}

/* The part of the distorted coefficient t explained by the reference o:
 * r = k·o, then, where the orientation is kept within 1°, allowed to grow
 * by up to `egl` towards t. libvmaf tests the sign of the float
 * (k/2^15)·(o/2^6); it cannot underflow, so it is the sign of o when k > 0.
 * The product with egl is in double and limited by t before it returns to
 * int32 (at scales 1-3 it can exceed int32): truncated (C) or rounded to
 * nearest (AVX-512 flavour 2). r has the sign of o, so the limited value
 * is always in range and can be selected without branches. */
VH_MULTIVERSION static void
restore_row (const int32_t *o, const int32_t *t, const int32_t *k,
    const uint8_t *within_1deg, int l, int r, double egl, bool nearest,
    int32_t *restrict out)
{
  for (int j = l; j < r; j++) {
    const int32_t v = (int32_t) (((int64_t) k[j] * o[j] + 16384) >> 15);
    double g = v * egl;
    g = nearest ? rint (g) : g;
    const int32_t lo = (int32_t) (o[j] > 0 && g < t[j] ? g : t[j]);
    const int32_t hi = (int32_t) (o[j] < 0 && g > t[j] ? g : t[j]);
    const int32_t lim = o[j] > 0 ? lo : hi;
    out[j] = (within_1deg[j] & (k[j] > 0) & (o[j] != 0)) ? lim : v;
  }
}

/* The same for an integer egl (1, 100 ...), where the double product is
 * exact: integer arithmetic, identical results, and no rounding choice. */
VH_MULTIVERSION static void
restore_row_int (const int32_t *o, const int32_t *t, const int32_t *k,
    const uint8_t *within_1deg, int l, int r, int64_t egl,
    int32_t *restrict out)
{
  for (int j = l; j < r; j++) {
    const int64_t v = ((int64_t) k[j] * o[j] + 16384) >> 15;
    const int64_t g = v * egl;
    const int64_t lo = g < t[j] ? g : t[j];
    const int64_t hi = g > t[j] ? g : t[j];
    const int64_t lim = o[j] > 0 ? lo : hi;
    out[j] = (int32_t) ((within_1deg[j] & (k[j] > 0) & (o[j] != 0)) ? lim : v);
  }
}

/* Scale 0 with an integer egl: bands stay within ±23000 for 8-12 bit input
 * (the DWT gains bound them) and egl ≤ 100, so int32 suffices. */
VH_MULTIVERSION static void
restore_row_s0 (const int32_t *o, const int32_t *t, const int32_t *k,
    const uint8_t *within_1deg, int l, int r, int32_t egl,
    int32_t *restrict out)
{
  FOR_COLUMNS (j, l, r, {
    const int32_t v = (k[j] * o[j] + 16384) >> 15;
    const int32_t g = v * egl;
    const int32_t lo = g < t[j] ? g : t[j];
    const int32_t hi = g > t[j] ? g : t[j];
    const int32_t lim = o[j] > 0 ? lo : hi;
    out[j] = (within_1deg[j] & (k[j] > 0) & (o[j] != 0)) ? lim : v;
  });
}

/* ---- CSF ------------------------------------------------------------------ */

/* Scale 0: weight·value in Q21/Q23, then >> 15, 15, 17 (before the int16
 * store). QUIRK: the d band rounds with 65535, not 2^16. */
static inline int32_t
csf_s0 (int32_t weighted, int band)
{
  static const int32_t add[3] = { VH_ADM_CSF_S0_ADD_HV, VH_ADM_CSF_S0_ADD_HV,
    VH_ADM_CSF_S0_ADD_D };
  static const int shift[3] = { VH_ADM_CSF_S0_SHIFT_HV,
    VH_ADM_CSF_S0_SHIFT_HV, VH_ADM_CSF_S0_SHIFT_D };
  return (weighted + add[band]) >> shift[band];
}

/* |c|/30 and |c|/15 at scale 0; libvmaf stores them as int16, which can
 * wrap; the unwrapped centre is AVX-512 flavour 4. */
static inline int32_t
flt_s0 (int32_t c)
{
  return (int16_t) ((VH_ADM_ONE_BY_30 * abs (c) + 2048) >> 12);
}

static inline int32_t
centre_raw_s0 (int32_t c)
{
  return (VH_ADM_ONE_BY_15 * abs (c) + 2048) >> 12;
}

/* Scales 1-3: Q32 weight, result >> 28 with rounding. */
static inline int32_t
csf_s123 (int32_t v, uint32_t weight)
{
  return (int32_t) (((int64_t) weight * v + (1 << 27)) >> 28);
}

/* QUIRK: the "rounding" add of these two is an int32 initialised from
 * 1u << 31, i.e. −2^31. */
static inline int32_t
flt_s123 (int32_t c)
{
  return (int32_t) (((int64_t) VH_ADM_I4_ONE_BY_30 * abs (c) + INT32_MIN)
      >> 32);
}

static inline int32_t
centre_s123 (int32_t c)
{
  return (int32_t) (((int64_t) VH_ADM_I4_ONE_BY_15 * abs (c) + INT32_MIN)
      >> 32);
}

/* CSF of the restored signal r and the impairment t − r for a scale-0
 * band row, into the CM inputs. `vec`: inside the AVX-512 16-wide loop
 * (flavour 3). */
static inline void
csf_row_s0 (const int32_t *rr, const int32_t *t, int l, int r, int32_t weight,
    int band, bool vec, int32_t *restrict x_dlm, int32_t *restrict x_aim,
    int32_t *restrict m_dlm, int32_t *restrict c_dlm,
    int32_t *restrict craw_dlm, int32_t *restrict m_aim,
    int32_t *restrict c_aim, int32_t *restrict craw_aim)
{
  FOR_COLUMNS (j, l, r, {
    /* The CM signal is the unshifted product at scale 0. */
    const int32_t xr = rr[j] * weight, xa = (t[j] - rr[j]) * weight;
    x_dlm[j] = xr;
    x_aim[j] = xa;
    const int32_t csf_r = csf_s0 (xr, band), csf_a = csf_s0 (xa, band);
    const int32_t csf_r16 = (int16_t) csf_r, csf_a16 = (int16_t) csf_a;
    m_dlm[j] += flt_s0 (vec ? csf_a : csf_a16);
    m_aim[j] += flt_s0 (vec ? csf_r : csf_r16);
    const int32_t ca = centre_raw_s0 (csf_a16), cr = centre_raw_s0 (csf_r16);
    c_dlm[j] += (int16_t) ca;
    c_aim[j] += (int16_t) cr;
    craw_dlm[j] += ca;
    craw_aim[j] += cr;
  });
}

/* csf_row_s0 for the table (vh_adm_rows_c); decouple_csf_row has it
 * inline, which GCC vectorises better. */
VH_MULTIVERSION static void
csf_row_s0_c (const int32_t *rr, const int32_t *t, int l, int r,
    int32_t weight, int band, bool vec, int32_t *x_dlm, int32_t *x_aim,
    int32_t *m_dlm, int32_t *c_dlm, int32_t *craw_dlm, int32_t *m_aim,
    int32_t *c_aim, int32_t *craw_aim)
{
  csf_row_s0 (rr, t, l, r, weight, band, vec, x_dlm, x_aim, m_dlm, c_dlm,
      craw_dlm, m_aim, c_aim, craw_aim);
}

/* The same at scales 1-3, where the CM signal is the CSF output itself.
 * Sums are modulo 2^32 like libvmaf's int32 ones on x86. */
VH_MULTIVERSION static void
csf_row_s123 (const int32_t *rr, const int32_t *t, int l, int r,
    uint32_t weight, int32_t *restrict x_dlm, int32_t *restrict x_aim,
    int32_t *restrict m_dlm, int32_t *restrict c_dlm,
    int32_t *restrict m_aim, int32_t *restrict c_aim)
{
  for (int j = l; j < r; j++) {
    const int32_t csf_r = csf_s123 (rr[j], weight);
    const int32_t csf_a = csf_s123 (t[j] - rr[j], weight);
    x_dlm[j] = csf_r;
    x_aim[j] = csf_a;
    m_dlm[j] = (int32_t) ((uint32_t) m_dlm[j] + (uint32_t) flt_s123 (csf_a));
    c_dlm[j] = (int32_t) ((uint32_t) c_dlm[j] + (uint32_t) centre_s123 (csf_a));
    m_aim[j] = (int32_t) ((uint32_t) m_aim[j] + (uint32_t) flt_s123 (csf_r));
    c_aim[j] = (int32_t) ((uint32_t) c_aim[j] + (uint32_t) centre_s123 (csf_r));
  }
}

/* Whether each pair of (horizontal, vertical) detail vectors, reference
 * (oh, ov) and distorted (th, tv), is less than 1 degree apart.
 * QUIRK: libvmaf rounds the int64 products to float, then scales and
 * compares in double.  The rows as separate arguments (not re-read through
 * ref[] after each store to flags) let GCC vectorise it. */
VH_MULTIVERSION static void
angle_flags (const int32_t *oh, const int32_t *ov, const int32_t *th,
    const int32_t *tv, int l, int r, float cos_sq, uint8_t *flags)
{
  for (int j = l; j < r; j++) {
    const int64_t dp = (int64_t) oh[j] * th[j] + (int64_t) ov[j] * tv[j];
    const int64_t o2 = (int64_t) oh[j] * oh[j] + (int64_t) ov[j] * ov[j];
    const int64_t t2 = (int64_t) th[j] * th[j] + (int64_t) tv[j] * tv[j];
    const double dpf = (float) dp / 4096.0;
    flags[j] = (dpf >= 0.0f) & (dpf * dpf
        >= cos_sq * ((float) o2 / 4096.0) * ((float) t2 / 4096.0));
  }
}

/* Decouple and CSF of one band row over the columns the CM window reads.
 * The DLM masks the restored signal r with the impairment a = t − r, the
 * AIM masks a with r, so both CSF outputs feed both measures. Each step
 * is a loop of its own so that all but the table lookup can vectorise. */
VH_MULTIVERSION static void
decouple_csf_row (const VhAdmPlan *pl, const VhAdmParams *params,
    const VhAdmRows *rows, int32_t *ref[3], int32_t *dis[3],
    uint8_t *angle,
    int32_t *k_row, int32_t *r_row, int32_t *mask[2][N_MASK_ROWS],
    int32_t *x[2][3])
{
  const int nl = pl->nl, nr = pl->nr;
  /* AVX-512 flavour 2 and 3 apply to the columns [vl, vr). */
  const int vl = CLAMP (pl->vec_l, nl, nr), vr = CLAMP (pl->vec_r, vl, nr);
  const double egl = params->enhn_gain_limit;
  /* egl as an integer (1, 100 ...), else 0. */
  const int32_t egl_int = egl == floor (egl) ? (int32_t) egl : 0;
  const int32_t *div = vh_adm_div_table ();
  const float cos_sq = cos_1deg_sq ();

  angle_flags (ref[VH_ADM_ORIENT_H], ref[VH_ADM_ORIENT_V],
      dis[VH_ADM_ORIENT_H], dis[VH_ADM_ORIENT_V], nl, nr, cos_sq, angle);
  for (int k = 0; k < 2; k++)
    for (int m = 0; m < N_MASK_ROWS; m++)
      memset (mask[k][m] + nl, 0, (nr - nl) * sizeof (int32_t));

  int32_t *const *md = mask[X_DLM], *const *ma = mask[X_AIM];
  for (int b = 0; b < VH_ADM_BANDS; b++) {
    const int32_t *o = ref[b], *t = dis[b];
    if (pl->scale == 0)
      ratio_row_s0 (o, t, nl, nr, div, k_row);
    else
      ratio_row (o, t, nl, nr, div, k_row);
    if (egl_int > 0 && pl->scale == 0) {
      restore_row_s0 (o, t, k_row, angle, nl, nr, egl_int, r_row);
    } else if (egl_int > 0) {
      restore_row_int (o, t, k_row, angle, nl, nr, egl_int, r_row);
    } else {
      restore_row (o, t, k_row, angle, nl, vl, egl, false, r_row);
      restore_row (o, t, k_row, angle, vl, vr, egl, true, r_row);
      restore_row (o, t, k_row, angle, vr, nr, egl, false, r_row);
    }

    int32_t *x_dlm = x[X_DLM][b], *x_aim = x[X_AIM][b];
    if (pl->scale == 0) {
      const int32_t w = params->rfactor_s0[b];
      const int cut[4] = { nl, vl, vr, nr };
      for (int p = 0; p < 3; p++) {
        if (rows == &vh_adm_rows_c)   /* inline: vectorised with vec known */
          csf_row_s0 (r_row, t, cut[p], cut[p + 1], w, b, p == 1, x_dlm,
              x_aim, md[ROW_MASK], md[ROW_CENTRE], md[ROW_CENTRE_RAW],
              ma[ROW_MASK], ma[ROW_CENTRE], ma[ROW_CENTRE_RAW]);
        else
          rows->csf_s0 (r_row, t, cut[p], cut[p + 1], w, b, p == 1, x_dlm,
              x_aim, md[ROW_MASK], md[ROW_CENTRE], md[ROW_CENTRE_RAW],
              ma[ROW_MASK], ma[ROW_CENTRE], ma[ROW_CENTRE_RAW]);
      }
    } else {
      rows->csf_s123 (r_row, t, nl, nr, params->rfactor_q32[pl->scale][b],
          x_dlm, x_aim, md[ROW_MASK], md[ROW_CENTRE], ma[ROW_MASK],
          ma[ROW_CENTRE]);
    }
  }

  /* CM neighbours outside the band mirror like the DWT: −1 reads 1,
   * w reads w − 1. */
  for (int k = 0; k < 2; k++) {
    int32_t *m = mask[k][ROW_MASK];
    if (nl == 0)
      m[-1] = m[1];
    if (nr == pl->w)
      m[pl->w] = m[pl->w - 1];
  }
}

/* ---- Denominator ---------------------------------------------------------- */

/* |o| is taken as 16 bits (libvmaf's uint16 cast); v² fits 32 bits, so
 * the cube is a 32x32 -> 64-bit product, which vectorises (vpmuludq) */
VH_MULTIVERSION static uint64_t
den_row_s0 (const int32_t *o, int l, int r)
{
  uint64_t sum = 0;
  for (int j = l; j < r; j++) {
    const uint32_t v = (uint16_t) abs (o[j]);
    sum += (uint64_t) (v * v) * v;
  }
  return sum;
}

/* QUIRK: the square is rounded with a full 2^sq, not 2^(sq−1). */
VH_MULTIVERSION static uint64_t
den_row_s123 (const int32_t *o, int l, int r, int sq_shift, int cube_shift)
{
  const uint64_t sq_add = (uint64_t) 1 << sq_shift;
  const uint64_t cube_add = (uint64_t) vh_adm_half_of (cube_shift);
  uint64_t sum = 0;
  for (int j = l; j < r; j++) {
    const uint64_t v = (uint32_t) abs (o[j]);
    sum += ((((v * v) + sq_add) >> sq_shift) * v + cube_add) >> cube_shift;
  }
  return sum;
}

/* ---- Contrast masking ----------------------------------------------------- */

/* Masking threshold: the 3×3 sum of Σ_bands |csf|/30 with the centre
 * replaced by Σ_bands |csf|/15. */
VH_MULTIVERSION static void
cm_threshold_row (const int32_t *up, const int32_t *mid, const int32_t *down,
    const int32_t *centre, int l, int r, int32_t *restrict thr)
{
  /* Modulo 2^32, like libvmaf's int32 sums on x86. */
  FOR_COLUMNS (j, l, r, {
    thr[j] = (int32_t) ((uint32_t) up[j - 1] + (uint32_t) up[j]
        + (uint32_t) up[j + 1] + (uint32_t) mid[j - 1] + (uint32_t) mid[j + 1]
        + (uint32_t) down[j - 1] + (uint32_t) down[j] + (uint32_t) down[j + 1]
        + (uint32_t) centre[j]);
  });
}

/* Σ_row max(|x| − thr, 0)³ with libvmaf's roundings. Its int32 shift and
 * subtraction are done modulo 2^32, as the x86 code it runs as does. */
VH_MULTIVERSION static int64_t
cm_row (const int32_t *x, const int32_t *thr, int l, int r, int sub,
    int sq_shift, int cube_shift)
{
  const int64_t sq_add = vh_adm_half_of (sq_shift), cube_add = vh_adm_half_of (cube_shift);
  int64_t sum = 0;
  for (int j = l; j < r; j++) {
    const uint32_t t = (uint32_t) thr[j] << sub;
    int32_t v = (int32_t) ((uint32_t) abs (x[j]) - t);
    v = v < 0 ? 0 : v;
    const int32_t sq = (int32_t) (((int64_t) v * v + sq_add) >> sq_shift);
    sum += ((int64_t) sq * v + cube_add) >> cube_shift;
  }
  return sum;
}

/* These rows as a table (adm-rows.h): the reference for the hand-written
 * versions of adm-rows-x86.c, and what runs without them. */
const VhAdmRows vh_adm_rows_c = {
  .name = "c",
  .csf_s0 = csf_row_s0_c,
  .csf_s123 = csf_row_s123,
  .cm_threshold = cm_threshold_row,
  .cm_row = cm_row,
  .den_s0 = den_row_s0,
  .den_s123 = den_row_s123,
};

/* CM of band row y for DLM and AIM; its ring rows hold rows y − 1 .. y + 1. */
static void
cm_band_row (VhAdmWork *wk, const VhAdmPlan *pl, int y, bool want_aim,
    VhAdmScaleSums *out)
{
  const int above = y == 0 ? 1 : y - 1;         /* −1 reads 1 */
  const int below = y == pl->h - 1 ? y : y + 1; /* h reads h − 1 */
  const int64_t row_add = vh_adm_half_of (pl->cm_row_shift);
  const bool vec_row = y >= 1 && y < pl->h - 1;
  const VhAdmRows *rows = wk->rows;

  for (int k = 0; k < 2; k++) {
    if (k == X_AIM && !want_aim)
      break;
    int32_t *const *mid = wk->mask[y % RING][k];
    const int32_t *up = wk->mask[above % RING][k][ROW_MASK];
    const int32_t *down = wk->mask[below % RING][k][ROW_MASK];
    /* AVX-512 flavour 4: the unwrapped centre in [sl, cm_vec_r) (the
     * same sums as adding raw − centre afterwards: modulo 2^32) */
    const int raw_r = vec_row ? MAX (pl->cm_vec_r, pl->sl) : pl->sl;
    rows->cm_threshold (up, mid[ROW_MASK], down, mid[ROW_CENTRE_RAW], pl->sl,
        raw_r, wk->thr);
    rows->cm_threshold (up, mid[ROW_MASK], down, mid[ROW_CENTRE], raw_r,
        pl->sr, wk->thr);
    int64_t *acc = k == X_DLM ? out->dlm : out->aim;
    for (int b = 0; b < VH_ADM_BANDS; b++) {
      const int64_t s = rows->cm_row (wk->x[y % RING][k][b], wk->thr, pl->sl,
          pl->sr, pl->cm_sub[b], pl->cm_sq_shift[b], pl->cm_cube_shift[b]);
      /* Rows are rounded before they are added up. */
      acc[b] += (s + row_add) >> pl->cm_row_shift;
    }
  }
}

/* ---- One scale ------------------------------------------------------------ */

/* Band rows [y0, y1) of one scale: their low-band rows, denominator and
 * CM sums (added into *out).  The CM of a row reads the mask rows above
 * and below it, so rows y0 − 1 and y1 are computed too, for that only. */
static void
adm_scale_rows (VhAdmWork *wk, const VhAdmPlan *pl, const VhAdmSource src[2],
    unsigned bpc, const VhAdmParams *params, int y0, int y1,
    VhAdmScaleSums *out)
{
  const int scale = pl->scale;
  const bool skip = scale == 0 && params->skip_scale0;
  const bool want_aim = !params->skip_aim;
  const bool want_low = scale < VH_ADM_SCALES - 1;
  /* libvmaf's skipped scale 0 runs a C low-pass-only DWT. */
  const bool tail_quirk = pl->dwt_tail && !skip;
  const uint64_t den_add = (uint64_t) vh_adm_half_of (pl->den_row_shift);
  const int first = MAX (y0 - 1, 0), last = MIN (y1, pl->h - 1);

  for (int y = first; y <= last; y++) {
    const bool own = y >= y0 && y < y1;
    const bool needed = !skip && y >= pl->nt && y < pl->nb;
    if (!needed && !(want_low && own))
      continue;
    dwt_band_row (wk, pl, src, y, bpc, want_low && own, needed, tail_quirk);
    if (!needed)
      continue;

    if (own && y >= pl->st && y < pl->sb) {
      for (int b = 0; b < VH_ADM_BANDS; b++) {
        const uint64_t s = scale == 0
            ? wk->rows->den_s0 (wk->detail[0][b], pl->sl, pl->sr)
            : wk->rows->den_s123 (wk->detail[0][b], pl->sl, pl->sr,
                pl->den_sq_shift, pl->den_cube_shift);
        out->den[b] += (s + den_add) >> pl->den_row_shift;
      }
    }

    decouple_csf_row (pl, params, wk->rows, wk->detail[0],
        wk->detail[1], wk->angle,
        wk->k_row, wk->r_row, wk->mask[y % RING], wk->x[y % RING]);

    if (y - 1 >= y0 && y - 1 >= pl->st && y - 1 < pl->sb)
      cm_band_row (wk, pl, y - 1, want_aim, out);
  }
  if (!skip && y1 == pl->h && pl->sb == pl->h)
    cm_band_row (wk, pl, pl->h - 1, want_aim, out);

  /* AVX-512 flavour 1: the next scale's scratch (4 rows of its input
   * width, pl->w) ends where this scale's distorted low-pass row (the third
   * of 4 rows of width src.w) holds its last row's columns 0-3 (the band
   * with the last row has them). */
  if ((scale == 1 || scale == 2) && y1 == pl->h) {
    const int off = 4 * pl->w - 2 * src[1].w;
    wk->stale[0] = wk->vert[1][0][off];
    wk->stale[1] = wk->vert[1][0][off + 1];
  }
}

/* One scale in row bands, piece i on work->band[i] */
typedef struct {
  VhAdmWork *work;
  const VhAdmPlan *plan;
  const VhAdmSource *src;
  unsigned bpc;
  const VhAdmParams *params;
  unsigned bands;
  VhAdmScaleSums band_sums[ADM_MAX_BANDS];
} AdmScaleJob;

static void
scale_piece (void *data, unsigned i)
{
  AdmScaleJob *job = data;
  VhAdmWork *wk = job->bands > 1 ? job->work->band[i] : job->work;
  const int h = job->plan->h;
  memset (&job->band_sums[i], 0, sizeof job->band_sums[i]);
  adm_scale_rows (wk, job->plan, job->src, job->bpc, job->params,
      (int) vh_band_row ((unsigned) h, job->bands, i),
      (int) vh_band_row ((unsigned) h, job->bands, i + 1),
      &job->band_sums[i]);
}

static void
adm_scale (VhAdmWork *wk, int scale, const VhAdmSource src[2], unsigned bpc,
    const VhAdmParams *params, VhAdmScaleSums *out)
{
  VhAdmPlan pl;
  vh_adm_plan (&pl, scale, wk->bw[scale], wk->bh[scale],
      params->reference == VH_ADM_LIBVMAF_AVX512, bpc);
  AdmScaleJob job = {
    .work = wk, .plan = &pl, .src = src, .bpc = bpc, .params = params,
    .bands = wk->band ? vh_band_count ((unsigned) pl.h, wk->max_threads) : 1,
  };
  /* the scale before's stale columns, for every band (flavour 1) */
  for (unsigned i = 1; i < job.bands; i++)
    memcpy (wk->band[i]->stale, wk->stale, sizeof wk->stale);
  vh_parallel_for (job.bands, job.bands, wk->budget, scale_piece, &job);
  if (job.bands > 1)
    memcpy (wk->stale, wk->band[job.bands - 1]->stale, sizeof wk->stale);
  /* integer sums of rounded rows: the bands' order does not matter */
  memset (out, 0, sizeof *out);
  for (unsigned i = 0; i < job.bands; i++)
    for (int b = 0; b < VH_ADM_BANDS; b++) {
      out->den[b] += job.band_sums[i].den[b];
      out->dlm[b] += job.band_sums[i].dlm[b];
      out->aim[b] += job.band_sums[i].aim[b];
    }
}

void
vh_adm_compute_sums (VhAdmWork *work, const VhPlane *ref, const VhPlane *dis,
    unsigned bpc, const VhAdmParams *params, VhAdmSums *sums)
{
  g_return_if_fail (work && ref && dis && params && sums);
  VhAdmSource src[2];
  const VhPlane *pic[2] = { ref, dis };
  for (int i = 0; i < 2; i++) {
    src[i] = (VhAdmSource) {
      .data = pic[i]->data,
      .stride = pic[i]->stride,
      .kind = bpc == 8 ? VH_ADM_SRC_U8 : VH_ADM_SRC_U16,
      .w = work->width,
      .h = work->height,
    };
  }
  /* At scale 1, libvmaf reads scratch memory nothing ever writes; a fresh
   * heap block holds zeros. */
  work->stale[0] = work->stale[1] = 0;
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    adm_scale (work, s, src, bpc, params, &sums->scale[s]);
    for (int i = 0; i < 2 && s < VH_ADM_SCALES - 1; i++) {
      src[i] = (VhAdmSource) {
        .data = (const uint8_t *) work->low[i][s],
        .stride = (ptrdiff_t) work->bw[s] * sizeof (int32_t),
        .kind = VH_ADM_SRC_I32,
        .w = work->bw[s],
        .h = work->bh[s],
      };
    }
  }
}
