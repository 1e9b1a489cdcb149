/* vmafhip — separable resampler with libswscale's filter definitions
 * (scale.h says what it computes, docs/scaling.md how close it is).
 *
 * Per direction, output i has a window of n_taps consecutive source
 * samples starting at first[i] and n_taps 14-bit coefficients. The windows
 * lie inside the source: weights of taps past an edge are added to the
 * edge sample's (the same as repeating the edge). The horizontal pass
 * writes int32 rows with frac_bits fraction bits into a ring of n_taps
 * rows; the vertical pass weighs those rows, rounds and clips.
 */
#include <math.h>
#include <string.h>

#include "scale.h"
#include "vh-error.h"
#include "vh-multiversion.h"
#include "vh-parallel.h"

#define COEF_ONE (1 << VH_SCALE_COEF_BITS)

/* swscale's bicubic defaults (its param[0], param[1]) */
#define BICUBIC_B 0.0
#define BICUBIC_C 0.6
/* swscale's default lanczos lobes (its param[0]) */
#define LANCZOS_LOBES 3

typedef struct ScaleAxis {
  unsigned n_taps;
  unsigned *first;        /* dst_size */
  int16_t *coef;          /* dst_size x n_taps */
} ScaleAxis;

struct VhScaler {
  unsigned src_w, src_h, dst_w, dst_h, bpc;
  VhScaleFilter filter;
  ScaleAxis h, v;
  /* Fraction bits of the horizontal pass's output. Up to 12 bits the
   * intermediate keeps bpc + frac_bits = 15 bits, so that the vertical
   * sums (at most 1.7 · 2^15 · 2^14 with lanczos's negative lobes) fit
   * int32; above 12 bits it keeps all 14 and the vertical pass sums in
   * int64. */
  unsigned frac_bits;
};

static const char *const filter_names[] = {
  [VH_SCALE_BILINEAR] = "bilinear",
  [VH_SCALE_BICUBIC] = "bicubic",
  [VH_SCALE_LANCZOS] = "lanczos",
};

const char *
vh_scale_filter_name (VhScaleFilter filter)
{
  if ((unsigned) filter >= G_N_ELEMENTS (filter_names))
    return NULL;
  return filter_names[filter];
}

gboolean
vh_scale_filter_from_string (const char *name, VhScaleFilter *filter)
{
  g_return_val_if_fail (filter != NULL, FALSE);
  if (!name)
    return FALSE;
  for (unsigned i = 0; i < G_N_ELEMENTS (filter_names); i++)
    if (g_ascii_strcasecmp (name, filter_names[i]) == 0) {
      *filter = (VhScaleFilter) i;
      return TRUE;
    }
  return FALSE;
}

/* sin (πx) by argument reduction and a Taylor series, not libm's sin: the
 * library may pick a different code path (and last bit) per CPU, and the
 * coefficients must not depend on it. Error below 1e-15. */
static double
sin_pi (double x)
{
  const double n = floor (x + 0.5);
  const double t = G_PI * (x - n);          /* |t| <= π/2 */
  const double t2 = t * t;
  double series = 1.0;
  for (int k = 23; k >= 3; k -= 2)          /* 1 − t²/3! (1 − t²/(4·5) (…)) */
    series = 1.0 - t2 / (double) (k * (k - 1)) * series;
  const double s = t * series;
  return fmod (n, 2.0) != 0.0 ? -s : s;
}

/* The kernels at distance d >= 0 (source samples, already stretched when
 * downscaling), unnormalised. */
static double
kernel (VhScaleFilter filter, double d)
{
  switch (filter) {
    case VH_SCALE_BILINEAR:
      return d < 1.0 ? 1.0 - d : 0.0;
    case VH_SCALE_BICUBIC:{
      const double b = BICUBIC_B, c = BICUBIC_C;
      if (d < 1.0)
        return ((12 - 9 * b - 6 * c) * d * d * d
            + (-18 + 12 * b + 6 * c) * d * d + (6 - 2 * b)) / 6;
      if (d < 2.0)
        return ((-b - 6 * c) * d * d * d + (6 * b + 30 * c) * d * d
            + (-12 * b - 48 * c) * d + (8 * b + 24 * c)) / 6;
      return 0.0;
    }
    case VH_SCALE_LANCZOS:
      if (d == 0.0)
        return 1.0;
      if (d < LANCZOS_LOBES)
        return LANCZOS_LOBES * sin_pi (d) * sin_pi (d / LANCZOS_LOBES)
            / (G_PI * G_PI * d * d);
      return 0.0;
  }
  return 0.0;
}

/* Half the kernel's support in (unstretched) source samples. */
static unsigned
kernel_radius (VhScaleFilter filter)
{
  switch (filter) {
    case VH_SCALE_BILINEAR:
      return 1;
    case VH_SCALE_BICUBIC:
      return 2;
    case VH_SCALE_LANCZOS:
      return LANCZOS_LOBES;
  }
  return 1;
}

/* Rounds weights w[0..n) to integers summing exactly to COEF_ONE: each
 * coefficient is the rounded running sum minus the previous one, so the
 * rounding errors do not add up along the row. */
static void
quantise_row (const double *w, unsigned n, int16_t *coef)
{
  double total = 0.0;
  for (unsigned k = 0; k < n; k++)
    total += w[k];
  int32_t previous = 0;
  double running = 0.0;
  for (unsigned k = 0; k < n; k++) {
    running += w[k];
    const int32_t upto = k + 1 == n ? COEF_ONE
        : (int32_t) floor (running / total * COEF_ONE + 0.5);
    coef[k] = (int16_t) (upto - previous);
    previous = upto;
  }
}

/* The windows and coefficients from src to dst samples. swscale's
 * conventions: the step is src/dst in 16.16 fixed point rounded to
 * nearest; output i's centre is at ((2i + 1) · step − 1) / 2 in source
 * samples (centres aligned); upscaling uses the kernel as is with 2·radius
 * + 1 taps, downscaling stretches it by src/dst with 1 + ⌈2·radius·src/dst⌉
 * taps. Equal sizes copy (one tap), as swscale's unscaled case. */
static void
build_axis (ScaleAxis *ax, unsigned src, unsigned dst, VhScaleFilter filter)
{
  ax->first = g_new (unsigned, dst);
  if (src == dst) {
    ax->n_taps = 1;
    ax->coef = g_new (int16_t, dst);
    for (unsigned i = 0; i < dst; i++) {
      ax->first[i] = i;
      ax->coef[i] = COEF_ONE;
    }
    return;
  }

  const int64_t step_q16 = (((int64_t) src << 16) + dst / 2) / dst;
  const gboolean down = step_q16 > (1 << 16);
  const double stretch = down ? (double) dst / src : 1.0;
  const uint64_t radius2 = 2 * kernel_radius (filter);
  /* taps spanning the (stretched) support, whatever the phase */
  const unsigned span = down ? (unsigned) ((radius2 * src + dst - 1) / dst)
      : (unsigned) radius2;
  const unsigned n_raw = span + 1;
  const unsigned n = MIN (n_raw, src);
  ax->n_taps = n;
  ax->coef = g_new (int16_t, (size_t) dst * n);
  double *w = g_new (double, n);

  for (unsigned i = 0; i < dst; i++) {
    /* the centre in source samples times 2^17 (exact) */
    const int64_t centre_q17 = (2 * (int64_t) i + 1) * step_q16 - (1 << 16);
    /* centre − span/2 + ½ truncated towards zero, as swscale places it:
     * inside the picture the n_raw taps cover the support; near the left
     * or top edge (negative start) it may leave out the outermost tap,
     * and the row is normalised without it */
    const int64_t start = (centre_q17 - (int64_t) (span - 1) * (1 << 16))
        / (1 << 17);
    const int64_t first = CLAMP (start, 0, (int64_t) (src - n));
    ax->first[i] = (unsigned) first;
    memset (w, 0, n * sizeof *w);
    for (unsigned k = 0; k < n_raw; k++) {
      const int64_t p = start + k;
      const double d = fabs ((double) (p * (1 << 17) - centre_q17))
          / (1 << 17) * stretch;
      const int64_t edge = CLAMP (p, 0, (int64_t) src - 1);
      w[edge - first] += kernel (filter, d);
    }
    quantise_row (w, n, ax->coef + (size_t) i * n);
  }
  g_free (w);
}

VhScaler *
vh_scaler_new (unsigned src_w, unsigned src_h, unsigned dst_w,
    unsigned dst_h, unsigned bpc, VhScaleFilter filter, GError **error)
{
  if (!src_w || !src_h || !dst_w || !dst_h) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scaler: %ux%u to %ux%u has a zero dimension", src_w, src_h,
        dst_w, dst_h);
    return NULL;
  }
  if (MAX (MAX (src_w, src_h), MAX (dst_w, dst_h)) > VH_SCALE_MAX_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scaler: %ux%u to %ux%u is larger than the scaler's %u samples a "
        "side", src_w, src_h, dst_w, dst_h, VH_SCALE_MAX_SIZE);
    return NULL;
  }
  const uint64_t r = VH_SCALE_MAX_RATIO;
  if (dst_w > r * src_w || src_w > r * dst_w
      || dst_h > r * src_h || src_h > r * dst_h) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scaler: %ux%u to %ux%u changes a side by more than %ux",
        src_w, src_h, dst_w, dst_h, VH_SCALE_MAX_RATIO);
    return NULL;
  }
  if (bpc < 8 || bpc > 16) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "scaler: %u bits a sample is outside 8..16", bpc);
    return NULL;
  }
  if (!vh_scale_filter_name (filter)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scaler: unknown filter %d (bilinear, bicubic or lanczos)",
        (int) filter);
    return NULL;
  }

  VhScaler *s = g_new0 (VhScaler, 1);
  s->src_w = src_w;
  s->src_h = src_h;
  s->dst_w = dst_w;
  s->dst_h = dst_h;
  s->bpc = bpc;
  s->filter = filter;
  s->frac_bits = bpc <= 12 ? 15 - bpc : VH_SCALE_COEF_BITS;
  build_axis (&s->h, src_w, dst_w, filter);
  build_axis (&s->v, src_h, dst_h, filter);
  return s;
}

void
vh_scaler_free (VhScaler *s)
{
  if (!s)
    return;
  g_free (s->h.first);
  g_free (s->h.coef);
  g_free (s->v.first);
  g_free (s->v.coef);
  g_free (s);
}

const int16_t *
vh_scaler_taps (const VhScaler *s, gboolean horizontal, unsigned *n_taps,
    const unsigned **first)
{
  g_return_val_if_fail (s != NULL, NULL);
  const ScaleAxis *ax = horizontal ? &s->h : &s->v;
  if (n_taps)
    *n_taps = ax->n_taps;
  if (first)
    *first = ax->first;
  return ax->coef;
}

void
vh_scaler_get_info (const VhScaler *s, VhScalerInfo *info)
{
  g_return_if_fail (s != NULL && info != NULL);
  *info = (VhScalerInfo) {
    .src_w = s->src_w, .src_h = s->src_h,
    .dst_w = s->dst_w, .dst_h = s->dst_h,
    .bpc = s->bpc, .filter = s->filter, .frac_bits = s->frac_bits,
    .h_shift = VH_SCALE_COEF_BITS - s->frac_bits,
    .v_shift = VH_SCALE_COEF_BITS + s->frac_bits,
    /* swscale caps the horizontal pass's overshoot just below 2^bpc (its
     * 15- or 19-bit intermediate) but lets undershoot through; so do we,
     * for outputs that track it near bright edges */
    .top = (int32_t) ((1u << (s->bpc + s->frac_bits)) - 1),
    .max = (int32_t) ((1u << s->bpc) - 1),
    .wide = s->bpc > 12,
  };
}

/* One source row to dst_w intermediate samples: the sum of samples times
 * coefficients (it fits int32 even for 16-bit samples: at most
 * 65535 · 1.3 · 2^14), rounded, keeping 14 − shift fraction bits. */
#define DEFINE_SCALE_ROW(name, pixel_t, STEP)                                 \
  VH_MULTIVERSION static void                                                 \
  name (const pixel_t *src, size_t step, const ScaleAxis *ax, unsigned dst_w, \
      unsigned shift, int32_t top, int32_t *restrict out)                     \
  {                                                                           \
    const int32_t half = (int32_t) ((1u << shift) >> 1);                      \
    const unsigned n = ax->n_taps;                                            \
    (void) step;                /* unused where STEP is 1 */                  \
    for (unsigned x = 0; x < dst_w; x++) {                                    \
      const pixel_t *s = src + (size_t) ax->first[x] * (STEP);                \
      const int16_t *c = ax->coef + (size_t) x * n;                           \
      int32_t sum = half;                                                     \
      for (unsigned k = 0; k < n; k++)                                        \
        sum += (int32_t) s[k * (STEP)] * c[k];                                \
      out[x] = MIN (sum >> shift, top);                                       \
    }                                                                         \
  }

/* planar rows (step 1, a constant the compiler can use) and others */
DEFINE_SCALE_ROW (scale_row_u8, uint8_t, 1)
DEFINE_SCALE_ROW (scale_row_u16, uint16_t, 1)
DEFINE_SCALE_ROW (scale_row_u8_step, uint8_t, step)
DEFINE_SCALE_ROW (scale_row_u16_step, uint16_t, step)

/* n intermediate rows to one output row: the weighted sum, column by
 * column so that each loop runs along a row (vectorised), then rounded,
 * shifted back to samples and clipped. */
#define DEFINE_SCALE_COLUMNS(name, acc_t, pixel_t)                            \
  VH_MULTIVERSION static void                                                 \
  name (const int32_t *const *rows, const int16_t *c, unsigned n,             \
      unsigned w, unsigned shift, int32_t max, acc_t *restrict acc,           \
      pixel_t *restrict out)                                                  \
  {                                                                           \
    const acc_t half = (acc_t) 1 << (shift - 1);                              \
    for (unsigned x = 0; x < w; x++)                                          \
      acc[x] = half;                                                          \
    for (unsigned k = 0; k < n; k++) {                                        \
      const int32_t *restrict row = rows[k];                                  \
      const acc_t ck = c[k];                                                  \
      for (unsigned x = 0; x < w; x++)                                        \
        acc[x] += (acc_t) row[x] * ck;                                        \
    }                                                                         \
    for (unsigned x = 0; x < w; x++) {                                        \
      const acc_t v = acc[x] >> shift;                                        \
      out[x] = (pixel_t) (v < 0 ? 0 : v > max ? max : v);                     \
    }                                                                         \
  }

DEFINE_SCALE_COLUMNS (scale_columns_u8, int32_t, uint8_t)
DEFINE_SCALE_COLUMNS (scale_columns_u16, int32_t, uint16_t)
DEFINE_SCALE_COLUMNS (scale_columns_u16_wide, int64_t, uint16_t)

void
vh_scaler_run (const VhScaler *s, const VhPlane *src, const VhPlane *dst)
{
  g_return_if_fail (s != NULL);
  vh_scaler_run_rows (s, src, dst, 0, s->dst_h);
}

/* The row pass's scratch: the vertical sums, the ring's row pointers and
 * the ring of horizontal rows */
static size_t
scratch_bytes (const VhScaler *s)
{
  const size_t n = s->v.n_taps, w = s->dst_w;
  return n * w * sizeof (int32_t) + n * sizeof (const int32_t *)
      + w * sizeof (int64_t);
}

static void run_rows_in (const VhScaler *s, const VhPlane *src,
    const VhPlane *dst, unsigned y0, unsigned y1, void *scratch);

void
vh_scaler_run_rows (const VhScaler *s, const VhPlane *src,
    const VhPlane *dst, unsigned y0, unsigned y1)
{
  g_return_if_fail (s != NULL);
  void *scratch = g_malloc (scratch_bytes (s));
  run_rows_in (s, src, dst, y0, y1, scratch);
  g_free (scratch);
}

/* vh_scaler_run_rows in scratch of scratch_bytes (s) */
static void
run_rows_in (const VhScaler *s, const VhPlane *src, const VhPlane *dst,
    unsigned y0, unsigned y1, void *scratch)
{
  g_return_if_fail (s != NULL && src != NULL && dst != NULL);
  g_return_if_fail (src->data != NULL && dst->data != NULL);
  g_return_if_fail (src->width == s->src_w && src->height == s->src_h);
  g_return_if_fail (dst->width == s->dst_w && dst->height == s->dst_h);
  g_return_if_fail (src->step >= 1 && dst->step == 1);
  g_return_if_fail (y0 <= y1 && y1 <= s->dst_h);

  VhScalerInfo info;
  vh_scaler_get_info (s, &info);
  const unsigned n = s->v.n_taps, w = s->dst_w;
  const gboolean bytes = s->bpc == 8, wide = info.wide;
  const unsigned h_shift = info.h_shift, v_shift = info.v_shift;
  const int32_t max = info.max, top = info.top;
  /* row r of the horizontal pass lives in ring slot r % n while needed;
   * the windows only move down, so a row leaves once behind them */
  /* the widest first: every part stays aligned */
  void *acc = scratch;
  const int32_t **rows = (const int32_t **) ((int64_t *) acc + w);
  int32_t *ring = (int32_t *) (rows + n);
  unsigned next_row = 0;        /* the first source row not yet in the ring */

  for (unsigned y = y0; y < y1; y++) {
    const unsigned first = s->v.first[y];
    for (unsigned r = MAX (next_row, first); r < first + n; r++) {
      const uint8_t *line = (const uint8_t *) src->data
          + (ptrdiff_t) r * src->stride;
      int32_t *slot = ring + (size_t) (r % n) * w;
      const uint16_t *line16 = (const uint16_t *) line;
      if (src->step == 1 && bytes)
        scale_row_u8 (line, 1, &s->h, w, h_shift, top, slot);
      else if (src->step == 1)
        scale_row_u16 (line16, 1, &s->h, w, h_shift, top, slot);
      else if (bytes)
        scale_row_u8_step (line, src->step, &s->h, w, h_shift, top, slot);
      else
        scale_row_u16_step (line16, src->step, &s->h, w, h_shift, top, slot);
    }
    next_row = MAX (next_row, first + n);
    for (unsigned k = 0; k < n; k++)
      rows[k] = ring + (size_t) ((first + k) % n) * w;

    uint8_t *out = (uint8_t *) dst->data + (ptrdiff_t) y * dst->stride;
    const int16_t *c = s->v.coef + (size_t) y * n;
    if (bytes)
      scale_columns_u8 (rows, c, n, w, v_shift, max, acc, out);
    else if (!wide)
      scale_columns_u16 (rows, c, n, w, v_shift, max, acc,
          (uint16_t *) out);
    else
      scale_columns_u16_wide (rows, c, n, w, v_shift, max, acc,
          (uint16_t *) out);
  }
}

/* ---- whole pictures ------------------------------------------------------ */

/* the luma's bands of rows in one run: a piece each */
#define PICTURE_LUMA_BANDS 4

struct VhPictureScaler {
  unsigned nplanes;
  VhScaler *plane[3];
  guint8 *buf;
  VhPicture out;
  /* each piece's row scratch, made once (not per frame) */
  void *scratch[PICTURE_LUMA_BANDS + 2];
};

/* the plane piece i scales */
static unsigned
piece_plane (unsigned i)
{
  return i < PICTURE_LUMA_BANDS ? 0 : i - PICTURE_LUMA_BANDS + 1;
}

void
vh_picture_scaler_free (VhPictureScaler *ps)
{
  if (!ps)
    return;
  for (unsigned p = 0; p < 3; p++)
    vh_scaler_free (ps->plane[p]);
  for (unsigned i = 0; i < G_N_ELEMENTS (ps->scratch); i++)
    g_free (ps->scratch[i]);
  g_free (ps->buf);
  g_free (ps);
}

VhPictureScaler *
vh_picture_scaler_new (unsigned nplanes, const unsigned src_w[],
    const unsigned src_h[], const unsigned dst_w[], const unsigned dst_h[],
    unsigned bpc, VhScaleFilter filter, GError **error)
{
  if (nplanes != 1 && nplanes != 3) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scaler: a picture of %u planes (1 or 3)", nplanes);
    return NULL;
  }
  const size_t sample = bpc > 8 ? 2 : 1;
  VhPictureScaler *ps = g_new0 (VhPictureScaler, 1);
  size_t offset[3], size = 0;
  ps->nplanes = nplanes;
  for (unsigned p = 0; p < nplanes; p++) {
    ps->plane[p] = vh_scaler_new (src_w[p], src_h[p], dst_w[p], dst_h[p],
        bpc, filter, error);
    if (!ps->plane[p]) {
      vh_picture_scaler_free (ps);
      return NULL;
    }
    offset[p] = size;
    size += (size_t) dst_w[p] * dst_h[p] * sample;
  }
  ps->buf = g_malloc (size);
  for (unsigned i = 0; i < PICTURE_LUMA_BANDS + nplanes - 1; i++)
    ps->scratch[i] = g_malloc (scratch_bytes (ps->plane[piece_plane (i)]));
  ps->out = (VhPicture) { .nplanes = nplanes, .bpc = bpc,
    .memory = VH_PICTURE_HOST };
  for (unsigned p = 0; p < nplanes; p++)
    ps->out.plane[p] = (VhPlane) { ps->buf + offset[p],
      (ptrdiff_t) (dst_w[p] * sample), dst_w[p], dst_h[p], 1 };
  return ps;
}

typedef struct {
  VhPictureScaler *ps;
  const VhPicture *src;
} PictureJob;

/* piece i: a band of the luma's rows, or a chroma plane whole */
static void
picture_piece (void *data, unsigned i)
{
  const PictureJob *job = data;
  const unsigned p = piece_plane (i);
  const VhPlane *dst = &job->ps->out.plane[p];
  const unsigned y0 = p ? 0 : dst->height * i / PICTURE_LUMA_BANDS;
  const unsigned y1 = p ? dst->height
      : dst->height * (i + 1) / PICTURE_LUMA_BANDS;
  run_rows_in (job->ps->plane[p], &job->src->plane[p], dst, y0, y1,
      job->ps->scratch[i]);
}

const VhPicture *
vh_picture_scaler_run (VhPictureScaler *ps, const VhPicture *src,
    unsigned max_threads)
{
  g_return_val_if_fail (ps != NULL && src != NULL, NULL);
  ps->out.nplanes = MIN (src->nplanes, ps->nplanes);
  const PictureJob job = { ps, src };
  vh_parallel_for (PICTURE_LUMA_BANDS + ps->out.nplanes - 1, max_threads,
      NULL, picture_piece, (void *) &job);
  return &ps->out;
}
