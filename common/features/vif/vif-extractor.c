/* vmafhip — integer VIF's float tail and feature extractor: the scores
 * from the integer sums (libvmaf's arithmetic) and the `vif` extractor
 * the engine runs (options, per-frame glue). The pixel arithmetic is in
 * vif.c, its SIMD kernels in vif-filters.c and vif-pixels.c. */
#include <stddef.h>

#include "vif.h"
#include "vh-feature.h"

void
vh_vif_sums_to_scores (const VhVifSums *sums, double num[VH_VIF_SCALES],
    double den[VH_VIF_SCALES], double score[VH_VIF_SCALES])
{
  g_return_if_fail (sums != NULL);

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
    /* d > 0 for any computed scale; 0 only for a skipped one. */
    if (score)
      score[s] = d != 0.0f ? n / d : 0.0;
  }
}

/* ---------------------------------------------------------------------
 * Extractor
 * --------------------------------------------------------------------- */


/* libvmaf 3.2.0's integer_vif.c, in its order; debug is no feature
 * parameter (no name suffix). */
static const VhOptionDesc vif_options[] = {
  { .name = "debug", .type = VH_OPT_BOOL, .default_val = 0.0, .min = 0.0,
    .max = 1.0, .offset = offsetof (VhVifOptions, debug),
    .feature_param = false },
  { .name = "vif_enhn_gain_limit", .alias = "egl", .type = VH_OPT_DOUBLE,
    .default_val = 100.0, .min = 1.0, .max = 100.0,
    .offset = offsetof (VhVifOptions, enhn_gain_limit), .feature_param = true },
  { .name = "vif_skip_scale0", .alias = "ssclz", .type = VH_OPT_BOOL,
    .default_val = 0.0, .min = 0.0, .max = 1.0,
    .offset = offsetof (VhVifOptions, skip_scale0), .feature_param = true },
  { .name = NULL },
};

typedef struct VifState {
  VhVifOptions opts;
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
  const VhVifOptions *o = opts;

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
  if (info->width < VH_VIF_MIN_SIZE || info->height < VH_VIF_MIN_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "vif: picture %ux%u too small: its 4-scale pyramid needs a luma of "
        "at least %ux%u (scale 3 is 1/8 of it and its 3-tap filter needs "
        "2 samples each way)", info->width, info->height, VH_VIF_MIN_SIZE,
        VH_VIF_MIN_SIZE);
    return FALSE;
  }

  if (info->width > VH_VIF_MAX_SIZE || info->height > VH_VIF_MAX_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif: picture %ux%u too large (at most %u each way)", info->width,
        info->height, VH_VIF_MAX_SIZE);
    return FALSE;
  }

  vh_vif_work_free (s->work);
  s->opts = *o;
  s->info = *info;
  s->work = vh_vif_work_new (info->width, info->height);
  if (!s->work) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif: out of memory for the buffers of %ux%u", info->width,
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
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
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
  const size_t row_bytes = (size_t) y->width * (s->info.bpc > 8 ? 2 : 1);
  if ((size_t) (y->stride < 0 ? -y->stride : y->stride) < row_bytes) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif: %s luma stride %td is shorter than its %zu-byte rows", which,
        y->stride, row_bytes);
    return FALSE;
  }
  return TRUE;
}

static const char *const vif_num_names[VH_VIF_SCALES] = {
  "integer_vif_num_scale0", "integer_vif_num_scale1",
  "integer_vif_num_scale2", "integer_vif_num_scale3",
};

static const char *const vif_den_names[VH_VIF_SCALES] = {
  "integer_vif_den_scale0", "integer_vif_den_scale1",
  "integer_vif_den_scale2", "integer_vif_den_scale3",
};

/* debug=true: libvmaf's write_scores after the four scale scores, in its
 * order. num and den are the scales' floats; their totals sum them in
 * double, scale 0 left out where it is skipped, which then reads num 0
 * and den -1. */
static void
put_debug (const VifState *s, const double num[VH_VIF_SCALES],
    const double den[VH_VIF_SCALES], unsigned index, VhFeatureSink *sink)
{
  const unsigned first = s->opts.skip_scale0 ? 1 : 0;
  double total_num = 0.0, total_den = 0.0;

  for (unsigned i = first; i < VH_VIF_SCALES; i++) {
    total_num += num[i];
    total_den += den[i];
  }
  vh_feature_sink_put (sink, "integer_vif", index,
      total_den == 0.0 ? 1.0 : total_num / total_den);
  vh_feature_sink_put (sink, "integer_vif_num", index, total_num);
  vh_feature_sink_put (sink, "integer_vif_den", index, total_den);
  for (unsigned i = 0; i < VH_VIF_SCALES; i++) {
    const gboolean skipped = i < first;
    vh_feature_sink_put (sink, vif_num_names[i], index,
        skipped ? 0.0 : num[i]);
    vh_feature_sink_put (sink, vif_den_names[i], index,
        skipped ? -1.0 : den[i]);
  }
}

static gboolean
vif_extract_sums (void *priv, const void *sums, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  VifState *s = priv;
  double num[VH_VIF_SCALES], den[VH_VIF_SCALES], score[VH_VIF_SCALES];

  (void) error;
  vh_vif_sums_to_scores (sums, num, den, score);
  if (s->opts.skip_scale0)
    score[0] = 0.0;
  for (unsigned i = 0; i < VH_VIF_SCALES; i++)
    vh_feature_sink_put (sink, vif_score_names[i], index, score[i]);
  if (s->opts.debug)
    put_debug (s, num, den, index, sink);
  return TRUE;
}

static gboolean
vif_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  VifState *s = priv;
  VhVifSums sums;

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
  return vif_extract_sums (s, &sums, index, sink, error);
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

static void
vif_set_threads (void *priv, unsigned max_threads, gint *budget)
{
  VifState *s = priv;
  /* out of memory for the bands' scratch: one thread, as before */
  if (s->work && !vh_vif_work_set_threads (s->work, max_threads, budget))
    vh_vif_work_set_threads (s->work, 1, NULL);
}

const VhFeatureExtractor vh_fex_vif = {
  .name = "vif",
  .options = vif_options,
  .opts_size = sizeof (VhVifOptions),
  .priv_size = sizeof (VifState),
  .needs_chroma = false,
  .init = vif_init,
  .extract = vif_extract,
  .flush = NULL,
  .close = vif_close,
  .extract_sums = vif_extract_sums,
  .set_threads = vif_set_threads,
};
