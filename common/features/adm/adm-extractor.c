/* vmafhip — integer ADM's float tail and feature extractor: the scores
 * from the integer sums (libvmaf's float arithmetic, bit-exact) and the
 * `adm` extractor the engine runs (options, per-frame glue). The pixel
 * arithmetic is in adm.c, the options and geometry in adm-params.c. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "adm.h"
#include "vh-feature.h"

/* ---- Float tail ----------------------------------------------------------- */

/* powf(x, 1/3) + powf(area·nw, 1/3) per band, summed in float. */
static float
band_sum (const float v[3], double area_nw)
{
  const float noise = powf (area_nw, 1.0f / 3.0f);
  float s[3];
  for (int b = 0; b < 3; b++)
    s[b] = powf (v[b], 1.0f / 3.0f) + noise;
  return s[0] + s[1] + s[2];
}

void
vh_adm_sums_to_scores (const VhAdmSums *sums, unsigned width, unsigned height,
    const VhAdmParams *params, VhAdmScores *sc)
{
  g_return_if_fail (sums && params && sc);
  int w = width, h = height;
  double num = 0, den = 0, aim = 0;

  memset (sc, 0, sizeof *sc);
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    VhAdmPlan pl;
    vh_adm_plan (&pl, s, w, h, false, 8);
    const VhAdmScaleSums *ss = &sums->scale[s];
    float num_s = 0.0f, den_s = 0.0f, aim_s = 0.0f;

    if (s == 0 && params->skip_scale0) {
      den_s = 1e-10f;   /* libvmaf's guard against 0/0 */
    } else {
      const double area_nw =
          (pl.sb - pl.st) * (pl.sr - pl.sl) * params->noise_weight;
      float f_den[3], f_dlm[3], f_aim[3];

      /* Denominator: its accumulator is |o|³ (Q18 at scale 0) times the
       * cubed float weight, in double. */
      const double den_div = s == 0
          ? pow (2, 18 - pl.den_row_shift)
          : pow (2, (uint32_t) ((s == 1 ? 32 : s == 2 ? 27 : 23)
                  - pl.den_row_shift - pl.den_cube_shift));
      for (int b = 0; b < 3; b++)
        f_den[b] = (double) (ss->den[b] / den_div)
            * pow (params->rfactor[s][b], 3);

      /* Numerators. QUIRK: scale 0 divides in double, scales 1-3 by a
       * float power of two in float; the exponents are unsigned. */
      for (int b = 0; b < 3; b++) {
        if (s == 0) {
          const double div = pow (2, (uint32_t) ((b == VH_ADM_ORIENT_D ? 57 : 52)
                  - pl.cm_cube_shift[b] - pl.cm_row_shift));
          f_dlm[b] = (float) (ss->dlm[b] / div);
          f_aim[b] = (float) (ss->aim[b] / div);
        } else {
          const float div = pow (2, (uint32_t) ((s == 1 ? 45 : s == 2 ? 39 : 36)
                  - pl.cm_cube_shift[b] - pl.cm_row_shift));
          f_dlm[b] = (float) (ss->dlm[b] / div);
          f_aim[b] = (float) (ss->aim[b] / div);
        }
      }
      den_s = band_sum (f_den, area_nw);
      num_s = band_sum (f_dlm, area_nw);
      /* AIM: noise weight 0; skipped entirely with adm_skip_aim. */
      if (!params->skip_aim)
        aim_s = band_sum (f_aim, 0.0);
    }
    sc->num[s] = num_s;
    sc->den[s] = den_s;
    sc->aim_num[s] = aim_s;
    sc->scale[s] = (double) num_s / den_s;
    num += num_s;
    den += den_s;
    aim += aim_s;
  }

  const double limit = 1e-10 * ((double) width * height) / (1920.0 * 1080.0);
  num = num < limit ? 0 : num;
  den = den < limit ? 0 : den;
  sc->num_total = num;
  sc->den_total = den;
  sc->aim_total = aim;
  if (den == 0.0) {
    /* libvmaf leaves aim uninitialised here; 0 (no impairment) goes with
     * its adm2 of 1. */
    sc->adm2 = 1.0;
    sc->aim = 0.0;
  } else {
    sc->adm2 = num / den;
    sc->aim = aim / den;
  }
  const double adm3 = sc->adm2 * params->dlm_weight
      + (1 - sc->aim) * (1 - params->dlm_weight);
  sc->adm3 = adm3 > params->min_val ? adm3 : params->min_val;
}

/* ---- Feature extractor ---------------------------------------------------- */

typedef struct AdmPriv {
  VhAdmOptions opts;
  VhAdmParams params;
  VhAdmWork *work;
  VhVideoInfo info;
} AdmPriv;

#define OPT(field) offsetof (VhAdmOptions, field)

static const VhOptionDesc adm_options[] = {
  { "debug", NULL, VH_OPT_BOOL, 0, 0, 1, OPT (debug), false },
  { "adm_csf_scale", "scf", VH_OPT_DOUBLE, 1.0, 0.0, 50.0, OPT (csf_scale),
    true },
  { "adm_csf_diag_scale", "scfd", VH_OPT_DOUBLE, 1.0, 0.0, 50.0,
    OPT (csf_diag_scale), true },
  { "adm_dlm_weight", "dlmw", VH_OPT_DOUBLE, 0.5, 0.0, 1.0, OPT (dlm_weight),
    true },
  { "adm_enhn_gain_limit", "egl", VH_OPT_DOUBLE, 100.0, 1.0, 100.0,
    OPT (enhn_gain_limit), true },
  { "adm_norm_view_dist", "nvd", VH_OPT_DOUBLE, 3.0, 0.75, 24.0,
    OPT (norm_view_dist), true },
  { "adm_ref_display_height", "rdh", VH_OPT_INT, 1080, 1, 4320,
    OPT (ref_display_height), true },
  { "adm_csf_mode", "csf", VH_OPT_INT, 0, 0, 3, OPT (csf_mode), true },
  { "adm_noise_weight", "nw", VH_OPT_DOUBLE, 0.03125, 0.0, 1500.0,
    OPT (noise_weight), true },
  { "adm_skip_aim", NULL, VH_OPT_BOOL, 0, 0, 1, OPT (skip_aim), false },
  { "adm_skip_scale0", "ssz", VH_OPT_BOOL, 0, 0, 1, OPT (skip_scale0), true },
  { "adm_min_val", "min", VH_OPT_DOUBLE, 0.0, 0.0, 1.0, OPT (min_val), true },
  { .name = NULL },
};

static gboolean
adm_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  AdmPriv *s = priv;
  if (!s || !opts || !info) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm: NULL state, options or video info");
    return FALSE;
  }
  if (info->bpc != 8 && info->bpc != 10 && info->bpc != 12) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "adm: %u bits per component is not supported (8, 10 or 12)",
        info->bpc);
    return FALSE;
  }
  if (info->width == 0 || info->height == 0) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm: empty picture (%ux%u)", info->width, info->height);
    return FALSE;
  }
  if (info->width < VH_ADM_MIN_SIZE || info->height < VH_ADM_MIN_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "adm: %ux%u is too small for the 4-level wavelet pyramid "
        "(at least %ux%u)", info->width, info->height, VH_ADM_MIN_SIZE,
        VH_ADM_MIN_SIZE);
    return FALSE;
  }
  s->opts = *(const VhAdmOptions *) opts;
  if (!vh_adm_params_init (&s->params, &s->opts, error))
    return FALSE;
  s->work = vh_adm_work_new (info->width, info->height);
  if (!s->work) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "adm: %ux%u is too large", info->width, info->height);
    return FALSE;
  }
  s->info = *info;
  return TRUE;
}

static gboolean
check_plane (const VhPlane *p, const char *which, const VhVideoInfo *info,
    GError **error)
{
  const unsigned bytes = info->bpc == 8 ? 1 : 2;
  if (!p->data) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm: %s luma plane has no data", which);
    return FALSE;
  }
  if (p->width != info->width || p->height != info->height) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "adm: %s luma is %ux%u, expected %ux%u", which, p->width, p->height,
        info->width, info->height);
    return FALSE;
  }
  if (p->step != 1) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "adm: %s luma must be planar (step %u)", which, p->step);
    return FALSE;
  }
  if (p->stride < (ptrdiff_t) (p->width * bytes)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm: %s luma stride %td is shorter than a row", which, p->stride);
    return FALSE;
  }
  return TRUE;
}

static gboolean
adm_extract_sums (void *priv, const void *sums, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  AdmPriv *s = priv;
  (void) error;
  VhAdmScores sc;
  vh_adm_sums_to_scores (sums, s->info.width, s->info.height, &s->params,
      &sc);

  static const char *const scale_names[VH_ADM_SCALES] = {
    "integer_adm_scale0", "integer_adm_scale1", "integer_adm_scale2",
    "integer_adm_scale3",
  };
  vh_feature_sink_put (sink, "integer_adm2", index, sc.adm2);
  vh_feature_sink_put (sink, "integer_aim", index, sc.aim);
  vh_feature_sink_put (sink, "integer_adm3", index, sc.adm3);
  for (int i = 0; i < VH_ADM_SCALES; i++)
    vh_feature_sink_put (sink, scale_names[i], index, sc.scale[i]);

  if (s->opts.debug) {
    static const char *const num_names[VH_ADM_SCALES] = {
      "integer_adm_num_scale0", "integer_adm_num_scale1",
      "integer_adm_num_scale2", "integer_adm_num_scale3",
    };
    static const char *const den_names[VH_ADM_SCALES] = {
      "integer_adm_den_scale0", "integer_adm_den_scale1",
      "integer_adm_den_scale2", "integer_adm_den_scale3",
    };
    vh_feature_sink_put (sink, "integer_adm", index, sc.adm2);
    vh_feature_sink_put (sink, "integer_adm_num", index, sc.num_total);
    vh_feature_sink_put (sink, "integer_adm_den", index, sc.den_total);
    for (int i = 0; i < VH_ADM_SCALES; i++) {
      vh_feature_sink_put (sink, num_names[i], index, sc.num[i]);
      vh_feature_sink_put (sink, den_names[i], index, sc.den[i]);
    }
  }
  return TRUE;
}

static gboolean
adm_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  AdmPriv *s = priv;
  if (!s || !s->work || !ref || !dis) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm: NULL or uninitialised state or picture");
    return FALSE;
  }
  if (ref->nplanes < 1 || dis->nplanes < 1 || ref->bpc != s->info.bpc
      || dis->bpc != s->info.bpc) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm: pictures must have a luma plane of %u bits", s->info.bpc);
    return FALSE;
  }
  if (!check_plane (&ref->plane[0], "reference", &s->info, error)
      || !check_plane (&dis->plane[0], "distorted", &s->info, error))
    return FALSE;

  VhAdmSums sums;
  vh_adm_compute_sums (s->work, &ref->plane[0], &dis->plane[0], s->info.bpc,
      &s->params, &sums);
  return adm_extract_sums (s, &sums, index, sink, error);
}

static void
adm_close (void *priv)
{
  AdmPriv *s = priv;
  if (!s)
    return;
  vh_adm_work_free (s->work);
  s->work = NULL;
}

static void
adm_set_threads (void *priv, unsigned max_threads, gint *budget)
{
  AdmPriv *s = priv;
  /* out of memory for the bands' scratch: one thread, as before */
  if (s->work && !vh_adm_work_set_threads (s->work, max_threads, budget))
    vh_adm_work_set_threads (s->work, 1, NULL);
}

const VhFeatureExtractor vh_fex_adm = {
  .name = "adm",
  .options = adm_options,
  .opts_size = sizeof (VhAdmOptions),
  .priv_size = sizeof (AdmPriv),
  .needs_chroma = false,
  .init = adm_init,
  .extract = adm_extract,
  .extract_sums = adm_extract_sums,
  .flush = NULL,
  .close = adm_close,
  .set_threads = adm_set_threads,
};
