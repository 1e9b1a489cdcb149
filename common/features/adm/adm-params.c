/* vmafhip — integer ADM's options, parameters and per-scale geometry.
 *
 * Everything about ADM that is not pixel arithmetic: the libvmaf options
 * and their checks, the CSF weights, and each scale's regions, shifts and
 * the columns of libvmaf's AVX-512 loops (vh_adm_plan). The CPU code
 * (adm.c) and the GPU host (common/gpu/features/adm-gpu.c) both take them from here,
 * so the two cannot drift apart.
 */
#include <math.h>
#include <string.h>

#include "adm.h"
#include "vh-error.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846264338327
#endif

/* libvmaf's ADM_BORDER_FACTOR: the score ignores 10% of each side. */
#define ADM_BORDER 0.1

/* ---- Options -------------------------------------------------------------- */

void
vh_adm_options_default (VhAdmOptions *opts)
{
  *opts = (VhAdmOptions) {
    .debug = false,
    .csf_scale = 1.0,
    .csf_diag_scale = 1.0,
    .dlm_weight = 0.5,
    .enhn_gain_limit = 100.0,
    .norm_view_dist = 3.0,
    .ref_display_height = 1080,
    .csf_mode = VH_ADM_CSF_WATSON97,
    .noise_weight = 0.03125,
    .skip_aim = false,
    .skip_scale0 = false,
    .min_val = 0.0,
  };
}

static bool
in_range (double v, double lo, double hi)
{
  return v >= lo && v <= hi;   /* false for NaN */
}

gboolean
vh_adm_params_init (VhAdmParams *params, const VhAdmOptions *opts,
    GError **error)
{
  if (!params || !opts) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm: NULL parameters or options");
    return FALSE;
  }
  const struct { const char *name; double v, lo, hi; } checks[] = {
    { "adm_csf_scale", opts->csf_scale, 0.0, 50.0 },
    { "adm_csf_diag_scale", opts->csf_diag_scale, 0.0, 50.0 },
    { "adm_dlm_weight", opts->dlm_weight, 0.0, 1.0 },
    { "adm_enhn_gain_limit", opts->enhn_gain_limit, 1.0, 100.0 },
    { "adm_norm_view_dist", opts->norm_view_dist, 0.75, 24.0 },
    { "adm_ref_display_height", opts->ref_display_height, 1, 4320 },
    { "adm_csf_mode", opts->csf_mode, 0, 3 },
    { "adm_noise_weight", opts->noise_weight, 0.0, 1500.0 },
    { "adm_min_val", opts->min_val, 0.0, 1.0 },
  };
  for (size_t i = 0; i < G_N_ELEMENTS (checks); i++) {
    if (!in_range (checks[i].v, checks[i].lo, checks[i].hi)) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "adm: %s = %g is outside [%g, %g]", checks[i].name, checks[i].v,
          checks[i].lo, checks[i].hi);
      return FALSE;
    }
  }
  const double nvd = opts->norm_view_dist;
  const int rdh = opts->ref_display_height;
  /* libvmaf refuses this in extract(): its fixed-point pipeline is sized
   * for CSF weights no larger than those of 1080 lines at 3H. */
  if (nvd * rdh < 3.0 * 1080) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm: adm_norm_view_dist × adm_ref_display_height = %g × %d is "
        "below 3 × 1080, which libvmaf's 16-bit ADM pipeline cannot handle",
        nvd, rdh);
    return FALSE;
  }

  memset (params, 0, sizeof *params);
  params->enhn_gain_limit = opts->enhn_gain_limit;
  params->noise_weight = opts->noise_weight;
  params->dlm_weight = opts->dlm_weight;
  params->min_val = opts->min_val;
  params->skip_aim = opts->skip_aim;
  params->skip_scale0 = opts->skip_scale0;
  params->reference = VH_ADM_LIBVMAF_AVX512;

  for (int s = 0; s < VH_ADM_SCALES; s++) {
    for (int b = 0; b < VH_ADM_BANDS; b++) {
      float w;
      if (!vh_adm_csf_weight (opts->csf_mode, s, b, nvd, rdh,
              opts->csf_scale, opts->csf_diag_scale, &w)) {
        /* libvmaf would go on with a weight of −22 (−EINVAL as float). */
        g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
            "adm: adm_csf_mode %d has no CSF table for "
            "adm_ref_display_height %d at adm_norm_view_dist %g (tables "
            "exist for 1080 at 3 and 5, 2160 at 1.5, 3 and 5, 720 and 480 "
            "at 3 and 5)", opts->csf_mode, rdh, nvd);
        return FALSE;
      }
      params->rfactor[s][b] = w;
    }
  }

  /* Fixed-point weights. libvmaf converts with a plain cast, undefined
   * beyond the target type; refuse such weights instead. */
  const double q[VH_ADM_BANDS] = { 1 << 21, 1 << 21, 1 << 23 };
  for (int b = 0; b < VH_ADM_BANDS; b++) {
    const double v = params->rfactor[0][b] * q[b];
    if (!in_range (v, 0.0, 65535.0)) {
      g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
          "adm: CSF weight %g of scale 0 does not fit libvmaf's 16-bit "
          "fixed point (adm_csf_scale / adm_csf_diag_scale too large?)",
          params->rfactor[0][b]);
      return FALSE;
    }
    params->rfactor_s0[b] = (uint16_t) v;
  }
  /* QUIRK: at 3·1080 Watson's scale-0 weights are hard-coded, and differ
   * by one unit from the computed ones. */
  if (fabs (nvd * rdh - 3.0 * 1080) < 1.0e-8
      && opts->csf_mode == VH_ADM_CSF_WATSON97) {
    params->rfactor_s0[VH_ADM_ORIENT_H] = 36453;
    params->rfactor_s0[VH_ADM_ORIENT_V] = 36453;
    params->rfactor_s0[VH_ADM_ORIENT_D] = 49417;
  }
  /* At scales 1-3 the bands reach ±2^31 and the CSF output is 16·w times
   * them: from w = 1/16 on it can leave int32, where libvmaf's C and
   * AVX-512 code disagree. Only Barten weights (mode 1) get there. */
  for (int s = 1; s < VH_ADM_SCALES; s++) {
    for (int b = 0; b < VH_ADM_BANDS; b++) {
      if (!(params->rfactor[s][b] >= 0.0f && params->rfactor[s][b] < 0.0625f)) {
        g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
            "adm: CSF weight %g of scale %d would overflow libvmaf's int32 "
            "pipeline (adm_csf_scale / adm_csf_diag_scale too large?)",
            params->rfactor[s][b], s);
        return FALSE;
      }
      params->rfactor_q32[s][b] = (uint32_t) (params->rfactor[s][b] * pow (2, 32));
    }
  }
  return TRUE;
}

/* ---- Geometry ------------------------------------------------------------ */

/* ⌈log2 n⌉ for n ≥ 1; libvmaf computes ceil(log2(n)) in double, which is
 * the same for any size a picture can have. */
static int
ceil_log2 (unsigned n)
{
  return n <= 1 ? 0 : 32 - __builtin_clz (n - 1);
}


void
vh_adm_band_sizes (unsigned width, unsigned height, int bw[VH_ADM_SCALES],
    int bh[VH_ADM_SCALES])
{
  int w = (int) width, h = (int) height;
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    bw[s] = w;
    bh[s] = h;
  }
}

void
vh_adm_plan (VhAdmPlan *pl, int scale, int w, int h, bool avx512,
    unsigned bpc)
{
  memset (pl, 0, sizeof *pl);
  pl->scale = scale;
  pl->w = w;
  pl->h = h;
  pl->sl = (int) (w * ADM_BORDER - 0.5);
  pl->st = (int) (h * ADM_BORDER - 0.5);
  pl->sr = w - pl->sl;
  pl->sb = h - pl->st;
  pl->nl = MAX (pl->sl - 1, 0);
  pl->nt = MAX (pl->st - 1, 0);
  pl->nr = MIN (pl->sr + 1, w);
  pl->nb = MIN (pl->sb + 1, h);

  const int area = (pl->sb - pl->st) * (pl->sr - pl->sl);
  pl->cm_row_shift = ceil_log2 (h);
  if (scale == 0) {
    /* Q formats: bands Q6 after the DWT, weights Q21 (h, v) / Q23 (d). */
    static const int sub[3] = { 10, 10, 12 }, sq[3] = { 29, 29, 30 };
    for (int b = 0; b < VH_ADM_BANDS; b++) {
      pl->cm_sub[b] = sub[b];
      pl->cm_sq_shift[b] = sq[b];
    }
    /* Sized so that a row of cubes cannot overflow 64 bits. */
    pl->cm_cube_shift[VH_ADM_ORIENT_H] = ceil_log2 (w) - 4;
    pl->cm_cube_shift[VH_ADM_ORIENT_V] = ceil_log2 (w) - 4;
    pl->cm_cube_shift[VH_ADM_ORIENT_D] = ceil_log2 (w) - 3;
    pl->den_row_shift = MAX (ceil_log2 (area) - 20, 0);
  } else {
    static const int den_sq[4] = { 0, 31, 30, 31 };
    for (int b = 0; b < VH_ADM_BANDS; b++) {
      pl->cm_sub[b] = 0;
      pl->cm_sq_shift[b] = 30;
      pl->cm_cube_shift[b] = ceil_log2 (w);
    }
    pl->den_sq_shift = den_sq[scale];
    pl->den_cube_shift = ceil_log2 (pl->sr - pl->sl);
    pl->den_row_shift = ceil_log2 (pl->sb - pl->st);
  }

  if (avx512) {
    const int step = scale > 0 ? 8 : bpc == 8 ? 32 : 64;
    pl->dwt_tail = w > 1 && (w - 1) % step == 0;
    /* libvmaf's extended region: the right edge uses the unclamped left. */
    const int el = (int) (w * ADM_BORDER - 0.5 - 1);
    const int er = MIN (w - el + 2, w);
    pl->vec_l = MAX (el, 0);
    pl->vec_r = er - (er - pl->vec_l) % 16;
    if (scale == 0 && pl->sl > 0)
      pl->cm_vec_r = pl->sr - (pl->sr - pl->sl) % 14;
  }
}

