/* vmafhip — float SSIM (libvmaf 3.2.0's `float_ssim`).
 *
 * libvmaf computes it with its copy of the IQA library: luma converted to
 * float (8-bit as is, 10/12-bit divided by 4/16), Wang's automatic
 * down-sampling by `scale` = round(min(w, h) / 256) with a box filter and
 * mirrored edges, then an 11x11 Gaussian window (separable, "valid" region
 * only) for the local means and (co)variances, and the mean over the map.
 * Every operation below keeps IQA's float/double mix, which decides the
 * last printed digit: products of two floats are float, sums of kernel
 * taps double, the structure term a float division.
 */
#include <math.h>
#include <string.h>

#include "ssim.h"
#include "vh-feature.h"

typedef VhSsimOptions SsimOptions;

typedef struct {
  SsimOptions opt;
  unsigned width, height, bpc;
  double max_db;
  VhSsimBuffers buf;
} SsimState;

/* IQA's 11-tap Gaussian (sigma 1.5), as libvmaf's table spells it */
static const float gaussian[VH_SSIM_WINDOW] = { VH_SSIM_GAUSSIAN };

gboolean
vh_ssim_buffers_init (VhSsimBuffers *b, unsigned w, unsigned h)
{
  const size_t n = (size_t) w * h;
  b->ref = g_try_new (float, n);
  b->cmp = g_try_new (float, n);
  b->mu_ref = g_try_new (float, n);
  b->mu_cmp = g_try_new (float, n);
  b->sq_ref = g_try_new (float, n);
  b->sq_cmp = g_try_new (float, n);
  b->both = g_try_new (float, n);
  b->cache = g_try_new (float, n);
  return b->ref && b->cmp && b->mu_ref && b->mu_cmp && b->sq_ref && b->sq_cmp
      && b->both && b->cache;
}

void
vh_ssim_buffers_clear (VhSsimBuffers *b)
{
  g_free (b->ref);
  g_free (b->cmp);
  g_free (b->mu_ref);
  g_free (b->mu_cmp);
  g_free (b->sq_ref);
  g_free (b->sq_cmp);
  g_free (b->both);
  g_free (b->cache);
  memset (b, 0, sizeof *b);
}

void
vh_ssim_load_plane (const VhPlane *p, unsigned bpc, float *dst)
{
  if (bpc == 8) {
    for (unsigned y = 0; y < p->height; y++) {
      const uint8_t *row = (const uint8_t *) p->data + (ptrdiff_t) y * p->stride;
      for (unsigned x = 0; x < p->width; x++)
        dst[(size_t) y * p->width + x] = (float) row[(size_t) x * p->step];
    }
    return;
  }
  /* libvmaf's picture_copy: to the 8-bit range */
  const float scaler = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
  for (unsigned y = 0; y < p->height; y++) {
    const uint16_t *row = (const uint16_t *) ((const uint8_t *) p->data
        + (ptrdiff_t) y * p->stride);
    for (unsigned x = 0; x < p->width; x++)
      dst[(size_t) y * p->width + x] = (float) row[(size_t) x * p->step]
          / scaler;
  }
}

/* IQA's _round: halves away from zero, through a float difference */
static int
iqa_round (float a)
{
  const int sign = a > 0.0f ? 1 : -1;
  return a - (int) a >= 0.5 ? (int) a + sign : (int) a;
}

int
vh_ssim_auto_scale (unsigned w, unsigned h)
{
  const int s = iqa_round ((float) MIN (w, h) / 256.0f);
  return MAX (1, s);
}

/* Mirrored edge: -1 -> 0, w -> w - 1 (IQA's KBND_SYMMETRIC). */
static inline int
mirror (int i, int n)
{
  if (i < 0)
    return -1 - i;
  if (i >= n)
    return n - (i - n) - 1;
  return i;
}

void
vh_iqa_decimate (const float *src, float *dst, int w, int h, int factor,
    const float *kernel, int klen, int *out_w, int *out_h)
{
  const int sw = w / factor + (w & 1);
  const int sh = h / factor + (h & 1);
  const int c = klen / 2;
  const int last = c - (klen % 2 ? 0 : 1);
  /* src == dst (the box filter of SSIM) works as in IQA: every read lies
   * at or after the pixel written */
  for (int y = 0; y < sh; y++) {
    for (int x = 0; x < sw; x++) {
      const int cx = x * factor, cy = y * factor;
      const bool edge = cx < c || cy < c || cx >= w - c || cy >= h - c;
      const float *k = kernel;
      double sum = 0.0;
      for (int v = -c; v <= last; v++) {
        for (int u = -c; u <= last; u++, k++) {
          const float px = edge
              ? src[mirror (cy + v, h) * w + mirror (cx + u, w)]
              : src[(cy + v) * w + cx + u];
          sum += px * *k;
        }
      }
      dst[y * sw + x] = (float) sum;
    }
  }
  *out_w = sw;
  *out_h = sh;
}

void
vh_ssim_decimate (float *img, int w, int h, int factor, int *out_w,
    int *out_h)
{
  float box[10 * 10];
  for (int i = 0; i < factor * factor; i++)
    box[i] = 1.0f / (float) (factor * factor);
  vh_iqa_decimate (img, img, w, h, factor, box, factor, out_w, out_h);
}

/* The Gaussian over the "valid" region: (w - 10) x (h - 10) outputs, rows
 * first into `cache`, then columns. */
static void
convolve (const float *img, int w, int h, float *cache, float *out)
{
  const int r = VH_SSIM_WINDOW / 2;
  const int dw = w - VH_SSIM_WINDOW + 1, dh = h - VH_SSIM_WINDOW + 1;
  for (int y = 0; y < h; y++) {
    for (int x = 0; x < dw; x++) {
      const float *in = img + (size_t) y * w + x + r;
      double sum = 0.0;
      for (int u = -r; u <= r; u++)
        sum += in[u] * gaussian[u + r];
      cache[(size_t) y * w + x + r] = (float) sum;
    }
  }
  for (int x = 0; x < dw; x++) {
    for (int y = 0; y < dh; y++) {
      const float *in = cache + (size_t) (y + r) * w + x + r;
      double sum = 0.0;
      for (int v = -r; v <= r; v++)
        sum += in[(ptrdiff_t) v * w] * gaussian[v + r];
      out[(size_t) y * dw + x] = (float) sum;
    }
  }
}

void
vh_ssim_compute (VhSsimBuffers *b, const float *ref, const float *cmp, int w,
    int h, VhSsimResult *res)
{
  const float c1 = VH_SSIM_C1, c2 = VH_SSIM_C2, c3 = VH_SSIM_C3;
  const size_t n = (size_t) w * h;

  convolve (ref, w, h, b->cache, b->mu_ref);
  convolve (cmp, w, h, b->cache, b->mu_cmp);
  for (size_t i = 0; i < n; i++) {
    b->sq_ref[i] = ref[i] * ref[i];
    b->sq_cmp[i] = cmp[i] * cmp[i];
    b->both[i] = ref[i] * cmp[i];
  }
  convolve (b->sq_ref, w, h, b->cache, b->sq_ref);
  convolve (b->sq_cmp, w, h, b->cache, b->sq_cmp);
  convolve (b->both, w, h, b->cache, b->both);
  w -= VH_SSIM_WINDOW - 1;
  h -= VH_SSIM_WINDOW - 1;

  double ssim_sum = 0.0, l_sum = 0.0, c_sum = 0.0, s_sum = 0.0;
  for (size_t i = 0; i < (size_t) w * h; i++) {
    const float mr = b->mu_ref[i], mc = b->mu_cmp[i];
    float sr = b->sq_ref[i] - mr * mr;
    float sc = b->sq_cmp[i] - mc * mc;
    sr = sr < 0.0f ? 0.0f : sr;
    sc = sc < 0.0f ? 0.0f : sc;
    const float sb = b->both[i] - mr * mc;
    const float sigma_rc = (float) sqrt (sr * sc);
    const double l = (2.0 * mr * mc + c1) / (mr * mr + mc * mc + c1);
    const double c = (2.0 * sigma_rc + c2) / (sr + sc + c2);
    /* identical flat regions: sigma_both may dip below zero by rounding */
    const float sb_clamped = sb < 0.0f && sigma_rc <= 0.0f ? 0.0f : sb;
    const double s = (sb_clamped + c3) / (sigma_rc + c3);
    ssim_sum += l * c * s;
    l_sum += l;
    c_sum += c;
    s_sum += s;
  }
  const double area = (double) ((size_t) w * h);
  res->ssim = (float) (ssim_sum / area);
  res->l = (float) (l_sum / area);
  res->c = (float) (c_sum / area);
  res->s = (float) (s_sum / area);
}

/* ------------------------------------------------------------ extractor */

static const VhOptionDesc ssim_options[] = {
  {"enable_lcs", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (SsimOptions, enable_lcs), false},
  {"enable_db", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (SsimOptions, enable_db), false},
  {"clip_db", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (SsimOptions, clip_db), false},
  {"scale", NULL, VH_OPT_INT, 0, 0, 10, offsetof (SsimOptions, scale), false},
  /* (10 bounds the box filter's taps: vh_ssim_decimate) */
  {NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false},
};

double
vh_ssim_max_db (bool clip, unsigned bpc, unsigned w, unsigned h)
{
  if (!clip)
    return INFINITY;
  const unsigned peak = (1u << bpc) - 1;
  const double mse = 0.5 / (w * h);
  return ceil (10. * log10 (peak * peak / mse));
}

double
vh_ssim_to_db (double score, double max_db)
{
  const double db = -10. * log10 (1 - score);
  return db < max_db ? db : max_db;
}

static gboolean
ssim_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  SsimState *s = priv;
  s->opt = *(const SsimOptions *) opts;
  s->width = info->width;
  s->height = info->height;
  s->bpc = info->bpc;
  const int scale = s->opt.scale > 0 ? s->opt.scale
      : vh_ssim_auto_scale (info->width, info->height);
  /* the picture after down-sampling must hold one 11x11 window */
  const unsigned sw = info->width / scale + (info->width & 1);
  const unsigned sh = info->height / scale + (info->height & 1);
  if (sw < VH_SSIM_WINDOW || sh < VH_SSIM_WINDOW) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "float_ssim: %ux%u is too small (down-sampled by %d to %ux%u; the "
        "11x11 window needs at least 11x11)", info->width, info->height,
        scale, sw, sh);
    return FALSE;
  }
  s->max_db = vh_ssim_max_db (s->opt.clip_db, info->bpc, info->width,
      info->height);
  if (!vh_ssim_buffers_init (&s->buf, info->width, info->height)) {
    vh_ssim_buffers_clear (&s->buf);
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "float_ssim: out of memory for the picture buffers");
    return FALSE;
  }
  return TRUE;
}

static void
ssim_put (const SsimState *s, const VhSsimResult *res, unsigned index,
    VhFeatureSink *sink)
{
  const VhSsimResult r = *res;
  double score = r.ssim;
  if (s->opt.enable_db)
    score = vh_ssim_to_db (score, s->max_db);
  vh_feature_sink_put (sink, "float_ssim", index, score);
  if (s->opt.enable_lcs) {
    vh_feature_sink_put (sink, "float_ssim_l", index, r.l);
    vh_feature_sink_put (sink, "float_ssim_c", index, r.c);
    vh_feature_sink_put (sink, "float_ssim_s", index, r.s);
  }
}

static gboolean
ssim_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  SsimState *s = priv;
  (void) error;
  int w = (int) s->width, h = (int) s->height;
  vh_ssim_load_plane (&ref->plane[0], s->bpc, s->buf.ref);
  vh_ssim_load_plane (&dis->plane[0], s->bpc, s->buf.cmp);
  const int scale = s->opt.scale > 0 ? s->opt.scale
      : vh_ssim_auto_scale (s->width, s->height);
  if (scale > 1) {
    int dw, dh;
    vh_ssim_decimate (s->buf.ref, w, h, scale, &dw, &dh);
    vh_ssim_decimate (s->buf.cmp, w, h, scale, &dw, &dh);
    w = dw;
    h = dh;
  }
  VhSsimResult r;
  vh_ssim_compute (&s->buf, s->buf.ref, s->buf.cmp, w, h, &r);
  ssim_put (s, &r, index, sink);
  return TRUE;
}

/* The GPU's sums over the map (VhSsimSums): the means as the CPU takes
 * them */
static gboolean
ssim_extract_sums (void *priv, const void *sums, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  const SsimState *s = priv;
  const VhSsimSums *g = sums;
  (void) error;
  const int scale = s->opt.scale > 0 ? s->opt.scale
      : vh_ssim_auto_scale (s->width, s->height);
  unsigned w = s->width, h = s->height;
  if (scale > 1) {
    w = w / scale + (w & 1);
    h = h / scale + (h & 1);
  }
  const double area = (double) (((size_t) w - VH_SSIM_WINDOW + 1)
      * ((size_t) h - VH_SSIM_WINDOW + 1));
  const VhSsimResult r = {
    (float) (g->sum[0] / area), (float) (g->sum[1] / area),
    (float) (g->sum[2] / area), (float) (g->sum[3] / area),
  };
  ssim_put (s, &r, index, sink);
  return TRUE;
}

static void
ssim_close (void *priv)
{
  SsimState *s = priv;
  vh_ssim_buffers_clear (&s->buf);
}

const VhFeatureExtractor vh_fex_float_ssim = {
  .name = "float_ssim",
  .options = ssim_options,
  .opts_size = sizeof (SsimOptions),
  .priv_size = sizeof (SsimState),
  .needs_chroma = false,
  .init = ssim_init,
  .extract = ssim_extract,
  .extract_sums = ssim_extract_sums,
  .close = ssim_close,
};
