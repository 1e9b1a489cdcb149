/* vmafhip — float MS-SSIM (libvmaf 3.2.0's `float_ms_ssim`).
 *
 * Wang's five-scale MS-SSIM as libvmaf's IQA copy computes it: each scale
 * is the previous one filtered with the 9x9 (9/7 biorthogonal) low-pass
 * and decimated by 2, SSIM's luminance, contrast and structure means are
 * taken at every scale with the 11x11 Gaussian (ssim.c), and the score is
 * the product of l^alpha c^beta s^gamma over the scales with Wang's
 * exponents.  No automatic down-sampling first; the picture must hold an
 * 11x11 window at the fifth scale (at least 176x176).
 */
#include <math.h>
#include <string.h>

#include "ssim.h"
#include "vh-feature.h"
#include "ms-ssim-device.h"

#define SCALES VH_MS_SSIM_SCALES
#define LPF_LEN VH_MS_SSIM_LPF

static const float lpf[LPF_LEN * LPF_LEN] = VH_MS_SSIM_LPF_TAPS;

/* Wang's exponents per scale */
static const float alphas[SCALES] = { 0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f };
static const float betas[SCALES] = { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f };
static const float gammas[SCALES] = { 0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f };

typedef struct {
  bool enable_lcs, enable_db, clip_db;
} MsSsimOptions;

typedef struct {
  MsSsimOptions opt;
  unsigned width, height, bpc;
  double max_db;
  VhSsimBuffers buf;              /* scale 0 pictures and the SSIM maps */
  float *ref[SCALES], *cmp[SCALES];   /* scales 1..4 (0: buf.ref/cmp) */
} MsSsimState;

static const VhOptionDesc ms_ssim_options[] = {
  {"enable_lcs", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (MsSsimOptions, enable_lcs), false},
  {"enable_db", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (MsSsimOptions, enable_db), false},
  {"clip_db", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (MsSsimOptions, clip_db), false},
  {NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false},
};

static void
ms_ssim_close (void *priv)
{
  MsSsimState *s = priv;
  vh_ssim_buffers_clear (&s->buf);
  for (int i = 1; i < SCALES; i++) {
    g_clear_pointer (&s->ref[i], g_free);
    g_clear_pointer (&s->cmp[i], g_free);
  }
}

static gboolean
ms_ssim_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  MsSsimState *s = priv;
  s->opt = *(const MsSsimOptions *) opts;
  s->width = info->width;
  s->height = info->height;
  s->bpc = info->bpc;
  /* libvmaf's check: the window fits at every scale (halving down) */
  unsigned w = info->width, h = info->height;
  for (int i = 0; i < SCALES; i++, w /= 2, h /= 2) {
    if (w < VH_SSIM_WINDOW || h < VH_SSIM_WINDOW) {
      g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
          "float_ms_ssim: %ux%u is too small (scale %d would be %ux%u; the "
          "five scales need at least 176x176)", info->width, info->height, i,
          w, h);
      return FALSE;
    }
  }
  s->max_db = vh_ssim_max_db (s->opt.clip_db, info->bpc, info->width,
      info->height);
  gboolean ok = vh_ssim_buffers_init (&s->buf, info->width, info->height);
  int cw = (int) info->width, ch = (int) info->height;
  for (int i = 1; ok && i < SCALES; i++) {
    cw = cw / 2 + (cw & 1);
    ch = ch / 2 + (ch & 1);
    s->ref[i] = g_try_new (float, (size_t) cw * ch);
    s->cmp[i] = g_try_new (float, (size_t) cw * ch);
    ok = s->ref[i] && s->cmp[i];
  }
  if (!ok) {
    ms_ssim_close (s);
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "float_ms_ssim: out of memory for the picture buffers");
  }
  return ok;
}

/* The score from the five scales' means, and the options' outputs */
static void
ms_ssim_put (const MsSsimState *s, const VhSsimResult r[SCALES],
    unsigned index, VhFeatureSink *sink)
{
  double msssim = 1.0;
  for (int i = 0; i < SCALES; i++)
    msssim *= pow (r[i].l, alphas[i]) * pow (r[i].c, betas[i])
        * pow (r[i].s, gammas[i]);

  double score = msssim;
  if (s->opt.enable_db)
    score = vh_ssim_to_db (score, s->max_db);
  vh_feature_sink_put (sink, "float_ms_ssim", index, score);
  if (s->opt.enable_lcs) {
    static const char *const names[3][SCALES] = {
      {"float_ms_ssim_l_scale0", "float_ms_ssim_l_scale1",
          "float_ms_ssim_l_scale2", "float_ms_ssim_l_scale3",
          "float_ms_ssim_l_scale4"},
      {"float_ms_ssim_c_scale0", "float_ms_ssim_c_scale1",
          "float_ms_ssim_c_scale2", "float_ms_ssim_c_scale3",
          "float_ms_ssim_c_scale4"},
      {"float_ms_ssim_s_scale0", "float_ms_ssim_s_scale1",
          "float_ms_ssim_s_scale2", "float_ms_ssim_s_scale3",
          "float_ms_ssim_s_scale4"},
    };
    for (int i = 0; i < SCALES; i++) {
      vh_feature_sink_put (sink, names[0][i], index, r[i].l);
      vh_feature_sink_put (sink, names[1][i], index, r[i].c);
      vh_feature_sink_put (sink, names[2][i], index, r[i].s);
    }
  }
}

static gboolean
ms_ssim_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  MsSsimState *s = priv;
  (void) error;
  VhSsimResult r[SCALES];
  vh_ssim_load_plane (&ref->plane[0], s->bpc, s->buf.ref);
  vh_ssim_load_plane (&dis->plane[0], s->bpc, s->buf.cmp);
  s->ref[0] = s->buf.ref;
  s->cmp[0] = s->buf.cmp;

  int w = (int) s->width, h = (int) s->height;
  for (int i = 1; i < SCALES; i++) {
    int sw, sh;
    vh_iqa_decimate (s->ref[i - 1], s->ref[i], w, h, 2, lpf, LPF_LEN, &sw,
        &sh);
    vh_iqa_decimate (s->cmp[i - 1], s->cmp[i], w, h, 2, lpf, LPF_LEN, &sw,
        &sh);
    w = sw;
    h = sh;
  }
  w = (int) s->width;
  h = (int) s->height;
  for (int i = 0; i < SCALES; i++) {
    vh_ssim_compute (&s->buf, s->ref[i], s->cmp[i], w, h, &r[i]);
    w = w / 2 + (w & 1);
    h = h / 2 + (h & 1);
  }
  s->ref[0] = s->cmp[0] = NULL;
  ms_ssim_put (s, r, index, sink);
  return TRUE;
}

/* The GPU's sums over each scale's map (VhMsSsimSums): the means as the
 * CPU takes them, then the same score and outputs */
static gboolean
ms_ssim_extract_sums (void *priv, const void *sums, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  const MsSsimState *s = priv;
  const VhMsSsimSums *g = sums;
  VhSsimResult r[SCALES];
  (void) error;
  size_t w = s->width, h = s->height;
  for (int i = 0; i < SCALES; i++) {
    const double area = (double) ((w - VH_SSIM_WINDOW + 1)
        * (h - VH_SSIM_WINDOW + 1));
    r[i].ssim = 0.0f;           /* unused by MS-SSIM */
    r[i].l = (float) (g->sum[i][0] / area);
    r[i].c = (float) (g->sum[i][1] / area);
    r[i].s = (float) (g->sum[i][2] / area);
    w = w / 2 + (w & 1);
    h = h / 2 + (h & 1);
  }
  ms_ssim_put (s, r, index, sink);
  return TRUE;
}

const VhFeatureExtractor vh_fex_float_ms_ssim = {
  .name = "float_ms_ssim",
  .options = ms_ssim_options,
  .opts_size = sizeof (MsSsimOptions),
  .priv_size = sizeof (MsSsimState),
  .needs_chroma = false,
  .init = ms_ssim_init,
  .extract = ms_ssim_extract,
  .extract_sums = ms_ssim_extract_sums,
  .close = ms_ssim_close,
};
