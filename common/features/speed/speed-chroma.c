/* vmafhip — SpEED-chroma (libvmaf 3.2.0's `speed_chroma`).
 *
 * SpEED-QA's spatial entropic differences on the U and V planes: each plane
 * to float (minus 128; 10/12-bit divided by 4/16), an optional prescale, a
 * Gaussian anti-alias filter, decimation by 16, a 3-tap local mean taken
 * off; then, on that 1/16 picture, the 25x25 covariance of 5x5 neighbour-
 * hoods, its vh_speed_eigenvalues (Householder tridiagonalisation and implicit QR
 * steps, in float), the variance of every 5x5 block (a QR solve against the
 * covariance) and its entropy.  The score is the mean over blocks of
 * |E_ref log2 (1 + v_ref) - E_dis log2 (1 + v_mix)|, v_mix chosen by
 * `speed_weight_var_mode`.  Outputs speed_chroma_u, _v and _uv (their mean,
 * or the other channel's score where one is singular), each clipped to
 * `speed_max_val`.
 *
 * Every step keeps libvmaf's float/double mix and order of operations; the
 * covariance sums follow its AVX-512 kernel (the golden logs come from an
 * AVX-512 build): double lanes accumulated with FMA, 16 samples a step,
 * then 8, then a plain tail, reduced as _mm512_reduce_add_pd does.
 */
#include <math.h>
#include <string.h>

#include "vh-feature.h"
#include "vh-cpu.h"
#include "vh-multiversion.h"
#include "vh-parallel.h"
#include "speed-chroma.h"

#define BLOCK VH_SPEED_BLOCK
#define NB VH_SPEED_NB
#define NUM_SCALES VH_SPEED_NUM_SCALES
#define EIG_EPS VH_SPEED_EPS

/* One picture's est_params: its scratch and results */
typedef struct {
  float cov[NB * NB], eig[NB], work[VH_SPEED_EIG_WORK];
  float qr[6 * NB * NB];
  float *indep, *sol, *rect;        /* NB x nblocks */
  float *entropy, *variance;        /* per block */
  gboolean regular;                 /* the covariance was not singular */
} PictureStats;

typedef struct {
  VhSpeedChromaOptions opt;
  unsigned luma_w, luma_h, bpc;
  gboolean ready;
  VhSpeedDims d;
  size_t stride;                    /* floats per row of the frame buffers */
  float *frame, *tmp, *row;         /* a plane, prescale source, filter row */
  guint8 *rows_read;                /* per plane row: the filter reads it */
  float *small, *mean;              /* 1/16 picture and its local mean */
  VhSpeedFilters f;                 /* anti-alias and scale-4 filters */
  /* 0 reference U, 1 distorted U, 2 reference V, 3 distorted V */
  PictureStats pic[VH_SPEED_PICTURES];
} SpeedChromaState;

static const char *const prescale_methods[] = {
  "nearest", "bilinear", "bicubic", "lanczos4", NULL
};

/* libvmaf's valid kernel scales (vif_tools.h), as floats */
static const float valid_kernelscales[] = {
  1.0f, 1.0f / 2.0f, 3.0f / 2.0f, 2.0f, 2.0f / 3.0f, 24.0f / 10.0f,
  360.0f / 97.0f, 4.0f / 3.0f, 3.5f / 3.0f, 3.75f / 3.0f, 4.25f / 3.0f,
  5.0f / 3.0f, 3.0f, 1.0f / 2.25f, 1.4746f, 1.54f, 1.6f, 1.06667f, 0.711111f,
  0.740740f, 1.111111f,
};

/* ---- filters (libvmaf's vif_tools.c) ---------------------------------- */

static int
round_up_to_odd (float f)
{
  int c = (int) ceil (f);
  return c % 2 == 0 ? c + 1 : c;
}

static int
filter_size (int scale, float kernelscale)
{
  int n = (1 << (4 - scale)) + 1;
  int size = round_up_to_odd (n * kernelscale);
  return size > 3 ? size : 3;
}

/* Normalised Gaussian taps; the pdf is evaluated in double, stored as
 * float, and the normalising sum is a float sum, as in libvmaf. */
static void
gaussian_kernel (float *out, int size, float stdev)
{
  const int k = (size - 1) / 2;
  float sum = 0;
  for (int i = 0; i < size; i++) {
    const float x = (float) (i - k);
    const float num = exp (-0.5 * x / stdev * x / stdev);
    const float den = 1 / (stdev * sqrt (2 * M_PI));
    out[i] = num / den;
    sum += out[i];
  }
  for (int i = 0; i < size; i++)
    out[i] /= sum;
}

static inline int
mirror_index (int i, int n)
{
  return i < 0 ? -i : i >= n ? 2 * n - i - 2 : i;
}

/* ---- prescale (libvmaf's vif_scale_frame_s) ------------------------------ */

static float
mirror_f (float i, float left, float right)
{
  return i < left ? -i : i > right ? 2 * right - i : i;
}

static float
bicubic_weight (float t)
{
  const float a = -0.75f;
  if (t < 0)
    t = -t;
  if (t < 1)
    return ((a + 2) * t - (a + 3)) * t * t + 1;
  if (t < 2)
    return (((t - 5) * t + 8) * t - 4) * a;
  return 0;
}

static float
lanczos4_weight (float x, float a)
{
  if (x == 0.0)
    return 1.0;
  if (x > -a && x < a)
    return a * sin (M_PI * x) * sin (M_PI * x / a) / (M_PI * M_PI * x * x);
  return 0.0;
}

static float
sample_at (const float *src, int w, int h, size_t stride, int method,
    float x, float y)
{
  if (method == VH_SPEED_PRESCALE_BILINEAR) {
    const int x1 = (int) mirror_f (floor (x), 0, w - 1);
    const int x2 = (int) mirror_f (ceil (x), 0, w - 1);
    const int y1 = (int) mirror_f (floor (y), 0, h - 1);
    const int y2 = (int) mirror_f (ceil (y), 0, h - 1);
    const float dx = x - x1, dy = y - y1;
    return (1 - dy) * (1 - dx) * src[y1 * stride + x1]
        + (1 - dy) * dx * src[y1 * stride + x2]
        + dy * (1 - dx) * src[y2 * stride + x1]
        + dy * dx * src[y2 * stride + x2];
  }
  const int x0 = (int) floor (x), y0 = (int) floor (y);
  const float dx = x - x0, dy = y - y0;
  if (method == VH_SPEED_PRESCALE_BICUBIC) {
    float wx[4], wy[4], v = 0.0f;
    for (int i = -1; i <= 2; i++) {
      wx[i + 1] = bicubic_weight (i - dx);
      wy[i + 1] = bicubic_weight (i - dy);
    }
    for (int j = -1; j <= 2; j++)
      for (int i = -1; i <= 2; i++) {
        const int xi = (int) mirror_f (x0 + i, 0, w - 1);
        const int yi = (int) mirror_f (y0 + j, 0, h - 1);
        const float weight = wx[i + 1] * wy[j + 1];
        v += src[yi * stride + xi] * weight;
      }
    return v;
  }
  /* lanczos4 */
  const int a = 4;
  float wx[9], wy[9], v = 0.0f, wsum = 0.0f;
  for (int i = -a; i <= a; i++) {
    wx[i + a] = lanczos4_weight (i - dx, (float) a);
    wy[i + a] = lanczos4_weight (i - dy, (float) a);
  }
  for (int j = -a; j <= a; j++)
    for (int i = -a; i <= a; i++) {
      const float weight = wx[i + a] * wy[j + a];
      wsum += weight;
      const int xi = (int) mirror_f (x0 + i, 0, w - 1);
      const int yi = (int) mirror_f (y0 + j, 0, h - 1);
      v += src[yi * stride + xi] * weight;
    }
  return v / wsum;
}

static void
prescale (const float *src, float *dst, size_t stride, int method, int sw,
    int sh, int dw, int dh)
{
  if (sw == dw && sh == dh) {
    memcpy (dst, src, stride * dh * sizeof (float));
    return;
  }
  const float rx = (float) sw / dw, ry = (float) sh / dh;
  for (int y = 0; y < dh; y++) {
    const float yy = (y + 0.5) * ry - 0.5;
    for (int x = 0; x < dw; x++) {
      float v;
      if (method == VH_SPEED_PRESCALE_NEAREST)
        v = src[(int) (y * ry) * stride + (int) (x * rx)];
      else
        v = sample_at (src, sw, sh, stride, method, (x + 0.5) * rx - 0.5, yy);
      dst[y * stride + x] = v;
    }
  }
}

/* ---- the 1/16 picture -------------------------------------------------- */

/* row[x] = the sum over k of fa[k] * rows[k][x], added in k order (as one
 * sum per x would be): a tap at a time over the row, so that it
 * vectorises */
VH_MULTIVERSION static void
vertical_pass (float *restrict row, const float *const *rows,
    const float *fa, int n, int w)
{
  for (int x = 0; x < w; x++)
    row[x] = 0;
  for (int k = 0; k < n; k++) {
    const float fk = fa[k];
    const float *restrict src = rows[k];
    for (int x = 0; x < w; x++)
      row[x] += fk * src[x];
  }
}

/* Which rows of the plane the anti-alias filter reads: every 16th row's
 * neighbourhood (all rows where a prescale reads them first) */
static void
mark_rows_read (SpeedChromaState *s)
{
  const VhSpeedDims *d = &s->d;
  const gboolean prescaled = fabs (s->opt.prescale - 1.0) >= 1.0e-3;
  memset (s->rows_read, prescaled, d->h);
  if (prescaled)
    return;
  const int r = s->f.fa_width / 2;
  for (unsigned i = 0; i < d->oh; i++)
    for (int k = 0; k < s->f.fa_width; k++)
      s->rows_read[mirror_index (16 * (int) i - r + k, (int) d->sh)] = 1;
}

/* libvmaf filters the whole plane with the anti-alias Gaussian and keeps
 * every 16th sample; only the kept rows and columns are computed here, each
 * with the same float sums (vertical pass, then horizontal). */
static void
filter_and_downscale (SpeedChromaState *s, float *frame)
{
  const VhSpeedDims *d = &s->d;
  const int w = (int) d->sw, h = (int) d->sh, r = s->f.fa_width / 2;
  const int ow = (int) d->ow, oh = (int) d->oh, r4 = s->f.f4_width / 2;
  const size_t stride = s->stride;

  if (fabs (s->opt.prescale - 1.0) >= 1.0e-3) {
    memcpy (s->tmp, frame, stride * MAX (d->h, d->sh) * sizeof (float));
    prescale (s->tmp, frame, stride, s->opt.prescale_method, (int) d->w,
        (int) d->h, w, h);
  }

  for (int i = 0; i < oh; i++) {
    const int y = 16 * i;
    const float *taps[VH_SPEED_MAX_TAPS];
    for (int k = 0; k < s->f.fa_width; k++)
      taps[k] = frame + mirror_index (y - r + k, h) * stride;
    vertical_pass (s->row, taps, s->f.fa, s->f.fa_width, w);
    for (int j = 0; j < ow; j++) {
      float acc = 0;
      for (int k = 0; k < s->f.fa_width; k++)
        acc += s->f.fa[k] * s->row[mirror_index (16 * j - r + k, w)];
      s->small[i * ow + j] = acc;
    }
  }

  /* local mean by the scale-4 filter, then taken off */
  for (int i = 0; i < oh; i++) {
    for (int x = 0; x < ow; x++) {
      float acc = 0;
      for (int k = 0; k < s->f.f4_width; k++)
        acc += s->f.f4[k] * s->small[mirror_index (i - r4 + k, oh) * ow + x];
      s->row[x] = acc;
    }
    for (int j = 0; j < ow; j++) {
      float acc = 0;
      for (int k = 0; k < s->f.f4_width; k++)
        acc += s->f.f4[k] * s->row[mirror_index (j - r4 + k, ow)];
      s->mean[i * ow + j] = acc;
    }
  }
  for (int i = 0; i < oh * ow; i++)
    s->small[i] -= s->mean[i];
}

/* ---- covariance -------------------------------------------------------- */

/* The reduction of cov_sum's two 8-lane accumulators, as
 * _mm512_reduce_add_pd does, then the tail */
static double
reduce_lanes (const double a0[8], const double a1[8], double tail)
{
  double q[4], p[2];
  for (int l = 0; l < 4; l++)
    q[l] = (a0[l + 4] + a1[l + 4]) + (a0[l] + a1[l]);
  for (int l = 0; l < 2; l++)
    p[l] = q[l + 2] + q[l];
  return (p[0] + p[1]) + tail;
}

/* Sum of (x - mx)(y - my) over the window, in the order of libvmaf's
 * AVX-512 kernel: per row, 16 samples into two 8-lane FMA accumulators,
 * then 8 into the first, then a scalar tail; lanes reduced pairwise. */
VH_MULTIVERSION static double
cov_sum (const float *x, const float *y, size_t stride, unsigned h,
    unsigned w, double mx, double my)
{
  double a0[8] = { 0 }, a1[8] = { 0 }, tail = 0.0;
  for (unsigned i = 0; i < h; i++) {
    const float *rx = x + i * stride, *ry = y + i * stride;
    unsigned j = 0;
    for (; j + 15 < w; j += 16)
      for (int l = 0; l < 8; l++) {
        a0[l] = fma ((double) rx[j + l] - mx, (double) ry[j + l] - my, a0[l]);
        a1[l] = fma ((double) rx[j + 8 + l] - mx,
            (double) ry[j + 8 + l] - my, a1[l]);
      }
    for (; j + 7 < w; j += 8)
      for (int l = 0; l < 8; l++)
        a0[l] = fma ((double) rx[j + l] - mx, (double) ry[j + l] - my, a0[l]);
    for (; j < w; j++)
      tail += ((double) rx[j] - mx) * ((double) ry[j] - my);
  }
  return reduce_lanes (a0, a1, tail);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* lanes 0-3 and 4-7 of eight floats, as doubles less m */
#define LOW_DOUBLES(v, m) _mm256_sub_pd (_mm256_cvtps_pd \
    (_mm256_castps256_ps128 (v)), m)
#define HIGH_DOUBLES(v, m) _mm256_sub_pd (_mm256_cvtps_pd \
    (_mm256_extractf128_ps (v, 1)), m)

/* cov_sum with AVX2 and FMA: each lane's accumulator takes the same fused
 * multiply-adds in the same order, so the sum is the same double */
__attribute__ ((target ("avx2,fma"))) static double
cov_sum_avx2 (const float *x, const float *y, size_t stride, unsigned h,
    unsigned w, double mx, double my)
{
  const __m256d vmx = _mm256_set1_pd (mx), vmy = _mm256_set1_pd (my);
  __m256d a0lo = _mm256_setzero_pd (), a0hi = a0lo, a1lo = a0lo, a1hi = a0lo;
  double tail = 0.0;
  for (unsigned i = 0; i < h; i++) {
    const float *rx = x + i * stride, *ry = y + i * stride;
    unsigned j = 0;
    for (; j + 15 < w; j += 16) {
      const __m256 x0 = _mm256_loadu_ps (rx + j), y0 = _mm256_loadu_ps (ry + j);
      const __m256 x1 = _mm256_loadu_ps (rx + j + 8);
      const __m256 y1 = _mm256_loadu_ps (ry + j + 8);
      a0lo = _mm256_fmadd_pd (LOW_DOUBLES (x0, vmx), LOW_DOUBLES (y0, vmy),
          a0lo);
      a0hi = _mm256_fmadd_pd (HIGH_DOUBLES (x0, vmx), HIGH_DOUBLES (y0, vmy),
          a0hi);
      a1lo = _mm256_fmadd_pd (LOW_DOUBLES (x1, vmx), LOW_DOUBLES (y1, vmy),
          a1lo);
      a1hi = _mm256_fmadd_pd (HIGH_DOUBLES (x1, vmx), HIGH_DOUBLES (y1, vmy),
          a1hi);
    }
    for (; j + 7 < w; j += 8) {
      const __m256 x0 = _mm256_loadu_ps (rx + j), y0 = _mm256_loadu_ps (ry + j);
      a0lo = _mm256_fmadd_pd (LOW_DOUBLES (x0, vmx), LOW_DOUBLES (y0, vmy),
          a0lo);
      a0hi = _mm256_fmadd_pd (HIGH_DOUBLES (x0, vmx), HIGH_DOUBLES (y0, vmy),
          a0hi);
    }
    for (; j < w; j++)
      tail += ((double) rx[j] - mx) * ((double) ry[j] - my);
  }
  double a0[8], a1[8];
  _mm256_storeu_pd (a0, a0lo);
  _mm256_storeu_pd (a0 + 4, a0hi);
  _mm256_storeu_pd (a1, a1lo);
  _mm256_storeu_pd (a1 + 4, a1hi);
  return reduce_lanes (a0, a1, tail);
}
#undef LOW_DOUBLES
#undef HIGH_DOUBLES
#endif

typedef double (*CovSumFunc) (const float *x, const float *y, size_t stride,
    unsigned h, unsigned w, double mx, double my);

/* AVX2 with FMA where the CPU has them (and the SIMD cap allows), else
 * the C */
static CovSumFunc
choose_cov_sum (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  if (vh_cpu_simd_level () >= VH_CPU_SIMD_AVX2
      && __builtin_cpu_supports ("fma"))
    return cov_sum_avx2;
#endif
  return cov_sum;
}

static void
covariance_matrix (const VhSpeedDims *d, const float *data, size_t stride,
    float *cov)
{
  const CovSumFunc sum_products = choose_cov_sum ();
  float means[NB];
  const float n = (float) ((size_t) d->subw * d->subh);
  for (int r = 0; r < BLOCK; r++)
    for (int c = 0; c < BLOCK; c++) {
      float sum = 0;
      for (unsigned i = 0; i < d->subh; i++)
        for (unsigned j = 0; j < d->subw; j++)
          sum += data[(r + i) * stride + c + j];
      means[r * BLOCK + c] = sum / n;
    }
  const double dn = (double) ((size_t) d->subw * d->subh);
  for (int a = 0; a < NB; a++)
    for (int b = 0; b <= a; b++) {
      const float *x = data + (a / BLOCK) * stride + a % BLOCK;
      const float *y = data + (b / BLOCK) * stride + b % BLOCK;
      const float v = sum_products (x, y, stride, d->subh, d->subw,
          means[a], means[b]) / dn;
      cov[a * NB + b] = v;
      cov[b * NB + a] = v;
    }
}

/* Solves cov X = B (B and X: NB x m) by QR and back substitution; FALSE
 * where R has a pivot under 1e-6, as libvmaf. */
static gboolean
solve (PictureStats *ps, const float *B, float *X, int m)
{
  const int n = NB;
  float *Q = ps->qr, *R = Q + n * n, *H = R + n * n, *Z = H + n * n;
  float *A = Z + n * n;
  memcpy (A, ps->cov, sizeof (float) * n * n);
  vh_speed_qr_decompose (A, Q, R, H, Z);
  vh_speed_transpose (Q, n);
  vh_speed_mat_mul (ps->rect, Q, B, n, m);
  /* back substitution, row i of X across the blocks at once: each
   * element still takes its terms in k order, as libvmaf's per-element
   * loop (the same floats), but the blocks' independent sums vectorise */
  for (int i = n - 1; i >= 0; i--) {
    const float den = R[i * n + i];
    if (fabsf (den) < EIG_EPS)
      return FALSE;
    float *restrict xi = X + (size_t) i * m;
    memcpy (xi, ps->rect + (size_t) i * m, sizeof (float) * m);
    for (int k = i + 1; k < n; k++) {
      const float r = R[i * n + k];
      const float *restrict xk = X + (size_t) k * m;
      for (int j = 0; j < m; j++)
        xi[j] -= xk[j] * r;
    }
    for (int j = 0; j < m; j++)
      xi[j] /= den;
  }
  return TRUE;
}

/* ---- per-picture statistics and the score ------------------------------ */

/* libvmaf's est_params on a centred 1/16 picture (`data`, rows of
 * `stride` floats) whose covariance is in ps->cov: each block's entropy
 * and variance, and whether the covariance was regular (if not, the
 * variances are 0). */
static void
est_params (const SpeedChromaState *s, PictureStats *ps, const float *data,
    size_t stride)
{
  const VhSpeedDims *d = &s->d;
  const int m = (int) d->nblocks;
  const float sigma_nn = (float) s->opt.sigma_nn;

  vh_speed_eigenvalues (ps->cov, ps->eig, ps->work);

  /* the blocks' samples: row = position in the block, column = block */
  for (int r = 0; r < BLOCK; r++)
    for (int c = 0; c < BLOCK; c++)
      for (unsigned bi = 0; bi < d->nbv; bi++)
        for (unsigned bj = 0; bj < d->nbh; bj++)
          ps->indep[(r * BLOCK + c) * m + bi * d->nbh + bj] =
              data[(r + BLOCK * bi) * stride + c + BLOCK * bj];

  gboolean ok = TRUE;
  for (int i = 0; i < NB; i++)
    if (ps->eig[i] < EIG_EPS)
      ok = FALSE;
  if (ok)
    ok = solve (ps, ps->indep, ps->sol, m);
  if (!ok)
    memset (ps->sol, 0, sizeof (float) * NB * m);

  const float nbf = (float) NB;
  for (int i = 0; i < NB; i++)
    for (int j = 0; j < m; j++)
      ps->sol[i * m + j] = (ps->sol[i * m + j] * ps->indep[i * m + j]) / nbf;
  for (int i = 1; i < NB; i++)
    for (int j = 0; j < m; j++)
      ps->sol[j] += ps->sol[i * m + j];

  for (int j = 0; j < m; j++) {
    float e = 0;
    for (int k = 0; k < NB; k++) {
      const float L = ps->eig[k] < 0 ? 0 : ps->eig[k];
      e += log2 (L * ps->sol[j] + sigma_nn) + log2 (2 * M_PI * M_E);
    }
    ps->entropy[j] = e;
    ps->variance[j] = ps->sol[j];
  }
  ps->regular = ok;
}

/* channel 0: U, 1: V */
static float
speed_score (const SpeedChromaState *s, int channel, float sigma_nn,
    float nn_floor)
{
  const unsigned n = s->d.nblocks;
  const PictureStats *ref = &s->pic[2 * channel], *dis = ref + 1;
  const float *er = ref->entropy, *ed = dis->entropy;
  const float *vr = ref->variance, *vd = dis->variance;
  const float base = (size_t) NB * (log2 ((1 + nn_floor) * sigma_nn)
      + log2 (2 * M_PI * M_E));
  float score = 0;
  for (unsigned i = 0; i < n; i++) {
    /* both below the noise floor: no visible difference */
    if (er[i] < base && ed[i] < base)
      continue;
    float sr, sd;
    switch (s->opt.weight_var_mode) {
      case 0:
        sr = er[i] * log2 (1 + vr[i]);
        sd = ed[i] * log2 (1 + vd[i]);
        break;
      case 1:
        sr = er[i] * log2 (1 + vr[i]);
        sd = ed[i] * log2 (1 + vr[i]);
        break;
      case 2:
        sr = er[i] * log2 (1 + vd[i]);
        sd = ed[i] * log2 (1 + vd[i]);
        break;
      case 3:
        sr = er[i] * log2 (1 + (vr[i] + vd[i]) / 2.0);
        sd = ed[i] * log2 (1 + (vr[i] + vd[i]) / 2.0);
        break;
      case 4:
        sr = er[i] * log2 (1 + vr[i]);
        sd = ed[i] * log2 (1 + (vr[i] + vd[i]) / 2.0);
        break;
      case 5:
        sr = er[i] * log2 (1 + vr[i]);
        sd = ed[i] * log2 (1 + (0.75 * vr[i] + 0.25 * vd[i]));
        break;
      default:
        sr = er[i] * log2 (1 + vr[i]);
        sd = ed[i] * log2 (1 + (0.25 * vr[i] + 0.75 * vd[i]));
        break;
    }
    score += fabsf (sr - sd);
  }
  return score / (float) n;
}

/* One plane to float, minus 128, 10/12-bit scaled to 8 (picture_copy);
 * only the rows the filter reads */
static void
load_plane (const SpeedChromaState *s, const VhPlane *p, float *dst)
{
  const unsigned w = s->d.w, h = s->d.h;
  if (s->bpc == 8) {
    for (unsigned y = 0; y < h; y++) {
      if (!s->rows_read[y])
        continue;
      const uint8_t *row = (const uint8_t *) p->data + (ptrdiff_t) y * p->stride;
      for (unsigned x = 0; x < w; x++)
        dst[y * s->stride + x] = (float) row[(size_t) x * p->step] + -128;
    }
    return;
  }
  const float scaler = s->bpc == 10 ? 4.0f : s->bpc == 12 ? 16.0f : 256.0f;
  for (unsigned y = 0; y < h; y++) {
    if (!s->rows_read[y])
      continue;
    const uint16_t *row = (const uint16_t *) ((const uint8_t *) p->data
        + (ptrdiff_t) y * p->stride);
    for (unsigned x = 0; x < w; x++)
      dst[y * s->stride + x] = (float) row[(size_t) x * p->step] / scaler
          + -128;
  }
}

/* One channel's score (0: U, 1: V) from its pictures' statistics;
 * *singular where either covariance was */
static float
channel_result (const SpeedChromaState *s, int channel, gboolean *singular)
{
  const gboolean ok[2] = { s->pic[2 * channel].regular,
    s->pic[2 * channel + 1].regular };
  *singular = !ok[0] || !ok[1];
  /* one picture singular (rare): 0 rather than an inflated score */
  if (ok[0] != ok[1])
    return 0.0f;
  return speed_score (s, channel, (float) s->opt.sigma_nn,
      (float) s->opt.nn_floor);
}

/* Picture k's statistics from the plane (the CPU's whole path) */
static void
picture_stats (SpeedChromaState *s, unsigned k, const VhPlane *plane)
{
  PictureStats *ps = &s->pic[k];
  load_plane (s, plane, s->frame);
  filter_and_downscale (s, s->frame);
  covariance_matrix (&s->d, s->small, s->d.ow, ps->cov);
  est_params (s, ps, s->small, s->d.ow);
}

typedef struct {
  SpeedChromaState *s;
  const VhSpeedSums *sums;
} SumsJob;

/* Picture k's statistics from the GPU's centred picture and covariance;
 * the four pictures at once (vh_parallel_run), each on its own scratch */
static void
picture_stats_from_sums (void *data, unsigned k)
{
  SumsJob *job = data;
  PictureStats *ps = &job->s->pic[k];
  memcpy (ps->cov, vh_speed_sums_cov (job->sums, k), sizeof ps->cov);
  est_params (job->s, ps, vh_speed_sums_centred (job->sums, k),
      job->sums->tw);
}

/* ---- sizes and buffers ------------------------------------------------- */

void
vh_speed_dims (VhSpeedDims *d, unsigned w, unsigned h, double prescale)
{
  memset (d, 0, sizeof *d);
  d->w = w;
  d->h = h;
  d->sw = (unsigned) (w * prescale + 0.5);
  d->sh = (unsigned) (h * prescale + 0.5);
  d->ow = d->sw >> NUM_SCALES;
  d->oh = d->sh >> NUM_SCALES;
  d->tw = d->ow / BLOCK * BLOCK;
  d->th = d->oh / BLOCK * BLOCK;
  d->nbh = d->tw / BLOCK;
  d->nbv = d->th / BLOCK;
  d->nblocks = d->nbh * d->nbv;
  if (d->nblocks) {
    d->subw = d->tw - BLOCK + 1;
    d->subh = d->th - BLOCK + 1;
  }
}

static gboolean
check_dims (const VhSpeedDims *d, const VhSpeedChromaOptions *o, GError **error)
{
  if (d->nblocks)
    return TRUE;
  g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
      "speed_chroma: %ux%u chroma planes are too small: SpEED needs at "
      "least 80x80 chroma samples (after speed_prescale %g) for one 5x5 "
      "block at 1/16 resolution", d->w, d->h, o->prescale);
  return FALSE;
}

static void
free_buffers (SpeedChromaState *s)
{
  g_free (s->frame);
  g_free (s->tmp);
  g_free (s->row);
  g_free (s->rows_read);
  s->rows_read = NULL;
  g_free (s->small);
  g_free (s->mean);
  s->frame = s->tmp = s->row = s->small = s->mean = NULL;
  for (int k = 0; k < VH_SPEED_PICTURES; k++) {
    PictureStats *ps = &s->pic[k];
    g_free (ps->indep);
    g_free (ps->sol);
    g_free (ps->rect);
    g_free (ps->entropy);
    g_free (ps->variance);
    ps->indep = ps->sol = ps->rect = ps->entropy = ps->variance = NULL;
  }
  s->ready = FALSE;
}

/* Sets up for chroma planes of w x h (libvmaf's halved sizes for 4:2:x);
 * with_planes: the buffers that load and filter the planes too (extract;
 * extract_sums gets the 1/16 pictures from the GPU) */
static gboolean
setup (SpeedChromaState *s, unsigned w, unsigned h, gboolean with_planes,
    GError **error)
{
  free_buffers (s);
  vh_speed_dims (&s->d, w, h, s->opt.prescale);
  if (!check_dims (&s->d, &s->opt, error))
    return FALSE;
  const VhSpeedDims *d = &s->d;
  s->stride = MAX (d->w, d->sw);
  const size_t frame = s->stride * MAX (d->h, d->sh);
  const size_t small = (size_t) d->ow * d->oh;
  const size_t rect = (size_t) NB * d->nblocks;
  const gboolean prescaled = fabs (s->opt.prescale - 1.0) >= 1.0e-3;
  gboolean ok = TRUE;
  if (with_planes) {
    s->frame = g_try_new (float, frame);
    /* the prescale's source */
    s->tmp = prescaled ? g_try_new (float, frame) : NULL;
    s->row = g_try_new (float, s->stride);
    s->rows_read = g_try_new (guint8, d->h);
    s->small = g_try_new (float, small);
    s->mean = g_try_new (float, small);
    ok = s->frame && (s->tmp || !prescaled) && s->row && s->small && s->mean
        && s->rows_read;
  }
  for (int k = 0; k < VH_SPEED_PICTURES; k++) {
    PictureStats *ps = &s->pic[k];
    ps->indep = g_try_new (float, rect);
    ps->sol = g_try_new (float, rect);
    ps->rect = g_try_new (float, rect);
    ps->entropy = g_try_new (float, d->nblocks);
    ps->variance = g_try_new (float, d->nblocks);
    ok = ok && ps->indep && ps->sol && ps->rect && ps->entropy
        && ps->variance;
  }
  if (!ok) {
    free_buffers (s);
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "speed_chroma: out of memory for %ux%u chroma planes", w, h);
    return FALSE;
  }
  if (with_planes)
    mark_rows_read (s);
  s->ready = TRUE;
  return TRUE;
}

void
vh_speed_chroma_size (unsigned luma_w, unsigned luma_h, unsigned chroma_w,
    unsigned chroma_h, unsigned *w, unsigned *h)
{
  *w = chroma_w == luma_w ? luma_w : luma_w / 2;
  *h = chroma_h == luma_h ? luma_h : luma_h / 2;
}

gboolean
vh_speed_filters (double kernelscale, VhSpeedFilters *f, GError **error)
{
  const float ks = (float) kernelscale;
  gboolean valid = FALSE;
  for (gsize i = 0; i < G_N_ELEMENTS (valid_kernelscales); i++)
    if (fabsf (ks - valid_kernelscales[i]) < 1e-3)
      valid = TRUE;
  if (!valid) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "speed_chroma: speed_kernelscale %g is not one of libvmaf's kernel "
        "scales (1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, 4/3, 3.5/3, 3.75/3, "
        "4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, 0.711111, "
        "0.74074, 1.111111)", kernelscale);
    return FALSE;
  }
  memset (f, 0, sizeof *f);
  f->fa_width = filter_size (1, ks);
  /* libvmaf's sigma trick: scale 1's size, sqrt (4) times its sigma */
  gaussian_kernel (f->fa, f->fa_width, sqrt (NUM_SCALES) * f->fa_width
      / 5.0f);
  f->f4_width = filter_size (NUM_SCALES, ks);
  gaussian_kernel (f->f4, f->f4_width, f->f4_width / 5.0f);
  g_assert (f->fa_width <= VH_SPEED_MAX_TAPS
      && f->f4_width <= VH_SPEED_MAX_TAPS);
  return TRUE;
}

gboolean
vh_speed_gpu_supported (const VhSpeedChromaOptions *o, const char **why)
{
  *why = NULL;
  if (fabs (o->prescale - 1.0) >= 1.0e-3)
    *why = "speed_prescale";
  return *why == NULL;
}

/* ---- the extractor ----------------------------------------------------- */

static gboolean
speed_chroma_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  SpeedChromaState *s = priv;
  s->opt = *(const VhSpeedChromaOptions *) opts;
  s->luma_w = info->width;
  s->luma_h = info->height;
  s->bpc = info->bpc;

  if (!vh_speed_filters (s->opt.kernelscale, &s->f, error))
    return FALSE;

  /* 4:4:4 chroma is as large as it gets: refuse now what cannot fit then */
  VhSpeedDims d;
  vh_speed_dims (&d, info->width, info->height, s->opt.prescale);
  return check_dims (&d, &s->opt, error);
}

/* speed_chroma_u, _v and _uv from the four pictures' statistics: uv their
 * mean, or where one channel is singular (e.g. flat) the other one's
 * score */
static void
put_scores (const SpeedChromaState *s, unsigned index, VhFeatureSink *sink)
{
  gboolean sing_u, sing_v;
  const float u = channel_result (s, 0, &sing_u);
  const float v = channel_result (s, 1, &sing_v);
  float uv;
  if (sing_u && !sing_v)
    uv = v;
  else if (sing_v && !sing_u)
    uv = u;
  else
    uv = (u + v) / 2.0;

  const double mx = s->opt.max_val;
  vh_feature_sink_put (sink, "speed_chroma_u", index, MIN (u, mx));
  vh_feature_sink_put (sink, "speed_chroma_v", index, MIN (v, mx));
  vh_feature_sink_put (sink, "speed_chroma_uv", index, MIN (uv, mx));
}

static gboolean
speed_chroma_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  SpeedChromaState *s = priv;
  unsigned w, h;
  vh_speed_chroma_size (ref->plane[0].width, ref->plane[0].height,
      ref->plane[1].width, ref->plane[1].height, &w, &h);
  if ((!s->ready || w != s->d.w || h != s->d.h || !s->frame)
      && !setup (s, w, h, TRUE, error))
    return FALSE;

  for (unsigned k = 0; k < VH_SPEED_PICTURES; k++)
    picture_stats (s, k, &(k % 2 ? dis : ref)->plane[1 + k / 2]);
  put_scores (s, index, sink);
  return TRUE;
}

gboolean
vh_speed_chroma_cpu_sums (void *priv, const VhPicture *ref,
    const VhPicture *dis, VhSpeedSums *sums, GError **error)
{
  SpeedChromaState *s = priv;
  unsigned w, h;
  vh_speed_chroma_size (ref->plane[0].width, ref->plane[0].height,
      ref->plane[1].width, ref->plane[1].height, &w, &h);
  if ((!s->ready || w != s->d.w || h != s->d.h || !s->frame)
      && !setup (s, w, h, TRUE, error))
    return FALSE;
  const VhSpeedDims *d = &s->d;
  *sums = (VhSpeedSums) { d->w, d->h, d->tw, d->th };
  for (unsigned k = 0; k < VH_SPEED_PICTURES; k++) {
    load_plane (s, &(k % 2 ? dis : ref)->plane[1 + k / 2], s->frame);
    filter_and_downscale (s, s->frame);
    covariance_matrix (d, s->small, d->ow, (float *) vh_speed_sums_cov (sums,
            k));
    float *centred = (float *) vh_speed_sums_centred (sums, k);
    for (unsigned y = 0; y < d->th; y++)
      memcpy (centred + (size_t) y * d->tw, s->small + (size_t) y * d->ow,
          sizeof (float) * d->tw);
  }
  return TRUE;
}

/* The GPU's part of the work (VhSpeedSums), the rest as extract does */
static gboolean
speed_chroma_extract_sums (void *priv, const void *data, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  SpeedChromaState *s = priv;
  const VhSpeedSums *sums = data;
  if ((!s->ready || sums->w != s->d.w || sums->h != s->d.h)
      && !setup (s, sums->w, sums->h, FALSE, error))
    return FALSE;
  if (sums->tw != s->d.tw || sums->th != s->d.th) {
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "speed_chroma: the GPU's %ux%u 1/16 pictures do not match %ux%u "
        "chroma", sums->tw, sums->th, sums->w, sums->h);
    return FALSE;
  }
  SumsJob job = { s, sums };
  vh_parallel_run (VH_SPEED_PICTURES, picture_stats_from_sums, &job);
  put_scores (s, index, sink);
  return TRUE;
}

/* extract_sums reads the sums and its scratch only (setup makes the same
 * scratch from the sums' header on any instance) */
static size_t
speed_chroma_sums_size (const void *sums)
{
  const VhSpeedSums *s = sums;
  return vh_speed_sums_size (s->tw, s->th);
}

static void
speed_chroma_close (void *priv)
{
  free_buffers (priv);
}

/* libvmaf reads 4:2:0, 4:2:2 and 4:4:4 (its 4:2:x sizes are the luma's
 * halved); anything else has no pixel format there. */
static gboolean
speed_chroma_check_layout (const VhPicture *layout, GError **error)
{
  if (layout->nplanes < 3) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "speed_chroma: needs chroma (the pictures are luma only)");
    return FALSE;
  }
  const unsigned lw = layout->plane[0].width, lh = layout->plane[0].height;
  const unsigned cw = layout->plane[1].width, ch = layout->plane[1].height;
  const gboolean full_w = cw == lw, half_w = cw == (lw + 1) / 2;
  const gboolean full_h = ch == lh, half_h = ch == (lh + 1) / 2;
  if (layout->plane[2].width != cw || layout->plane[2].height != ch
      || !((full_w && full_h) || (half_w && full_h) || (half_w && half_h))) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "speed_chroma: reads 4:2:0, 4:2:2 and 4:4:4 chroma only (as "
        "libvmaf); these pictures have %ux%u luma with %ux%u and %ux%u "
        "chroma", lw, lh, cw, ch, layout->plane[2].width,
        layout->plane[2].height);
    return FALSE;
  }
  return TRUE;
}

static const char *const *
speed_chroma_enum_names (const char *option)
{
  (void) option;                /* speed_prescale_method is the only one */
  return prescale_methods;
}

#define OPT(f) offsetof (VhSpeedChromaOptions, f)
static const VhOptionDesc speed_chroma_options[] = {
  { "speed_kernelscale", "ks", VH_OPT_DOUBLE, 1.0, 0.1, 4.0,
    OPT (kernelscale), true },
  { "speed_prescale", "ps", VH_OPT_DOUBLE, 1.0, 0.1, 4.0, OPT (prescale),
    true },
  { "speed_prescale_method", "psm", VH_OPT_ENUM, VH_SPEED_PRESCALE_NEAREST,
    VH_SPEED_PRESCALE_NEAREST, VH_SPEED_PRESCALE_LANCZOS4, OPT (prescale_method), true },
  { "speed_sigma_nn", "snn", VH_OPT_DOUBLE, 0.29, 0.1, 2.0, OPT (sigma_nn),
    true },
  { "speed_nn_floor", "nnf", VH_OPT_DOUBLE, 0.0, 0.0, 1.0, OPT (nn_floor),
    true },
  { "speed_max_val", "mxv", VH_OPT_DOUBLE, 1000.0, 0.0, 1000.0,
    OPT (max_val), true },
  { "speed_weight_var_mode", "wvm", VH_OPT_INT, 0, 0, 6,
    OPT (weight_var_mode), true },
  { NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false },
};
#undef OPT

const VhFeatureExtractor vh_fex_speed_chroma = {
  .name = "speed_chroma",
  .options = speed_chroma_options,
  .opts_size = sizeof (VhSpeedChromaOptions),
  .priv_size = sizeof (SpeedChromaState),
  .needs_chroma = true,
  .init = speed_chroma_init,
  .extract = speed_chroma_extract,
  .extract_sums = speed_chroma_extract_sums,
  .independent_sums_size = speed_chroma_sums_size,
  .close = speed_chroma_close,
  .check_layout = speed_chroma_check_layout,
  .enum_names = speed_chroma_enum_names,
};
