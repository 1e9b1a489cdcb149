/* vmafhip — integer PSNR per plane, as libvmaf 3.2.0 `psnr` computes it.
 *
 * psnr = min (10·log10 (peak² / max (mse, 1e-16)), psnr_max) per plane,
 * mse = integer SSE / samples. peak is 2^bpc − 1 (255·2^(bpc−8) with
 * reduced_hbd_peak); psnr_max is 6·bpc + 12 dB unless min_sse sets it.
 * Outputs psnr_y, psnr_cb, psnr_cr (only psnr_y for luma-only pictures or
 * with enable_chroma off), and mse_y/cb/cr with enable_mse.
 *
 * enable_apsnr: the aggregate PSNR of the whole stream, from the SSE and
 * the sample count summed over every frame (libvmaf's flush()):
 *   apsnr = min (10·(log10 (peak²) + log10 (n) − log10 (sse)),
 *                ceil (10·log10 (peak² · n · 2)))
 * per plane, written as the aggregates apsnr_y, apsnr_cb, apsnr_cr (all
 * three, as libvmaf: a plane not computed has n = sse = 0, which gives
 * −inf, printed null in JSON).  As libvmaf's `psnr` is a temporal
 * extractor, it runs on every frame, --subsample's or not, so the sums
 * take every frame; it is sequential here so that one instance sees the
 * SSE of every frame in order, whether the CPU's workers or the GPU
 * computed it (compute_sums / extract_sums).
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "psnr.h"
#include "psnr-simd.h"
#include "vh-feature.h"

/* The planar version for this CPU, chosen at the first call. */
static VhPsnrSseFunc
planar_sse (void)
{
  static VhPsnrSseFunc chosen;
  VhPsnrSseFunc f = g_atomic_pointer_get (&chosen);
  if (!f) {
    f = vh_psnr_sse_best ();
    g_atomic_pointer_set (&chosen, f);
  }
  return f;
}

static gboolean
bpc_supported (unsigned bpc)
{
  return bpc == 8 || bpc == 10 || bpc == 12;
}

/* NULL if the plane can be read as described, else what is wrong. */
static const char *
plane_problem (const VhPlane *plane, unsigned bpc)
{
  const size_t sample_bytes = bpc > 8 ? 2 : 1;
  if (!plane->data)
    return "has no data";
  if (!plane->width || !plane->height)
    return "is empty";
  if (plane->step != 1 && plane->step != 2)
    return "has a sample step other than 1 or 2";
  if ((size_t) ABS (plane->stride) <
      ((size_t) (plane->width - 1) * plane->step + 1) * sample_bytes)
    return "has a stride shorter than a row";
  if (sample_bytes == 2 && (((uintptr_t) plane->data | (uintptr_t)
              plane->stride) & 1))
    return "has 16-bit samples that are not 2-byte aligned";
  return NULL;
}

uint64_t
vh_psnr_sse (const VhPlane *ref, const VhPlane *dis, unsigned bpc)
{
  g_return_val_if_fail (ref && dis, 0);
  g_return_val_if_fail (bpc_supported (bpc), 0);
  g_return_val_if_fail (!plane_problem (ref, bpc), 0);
  g_return_val_if_fail (!plane_problem (dis, bpc), 0);
  g_return_val_if_fail (ref->width == dis->width
      && ref->height == dis->height, 0);

  if (ref->step == 1 && dis->step == 1)
    return planar_sse () (ref, dis, bpc);
  return vh_psnr_sse_stepped_c (ref, dis, bpc);
}

double
vh_psnr_db (double mse, uint32_t peak, double psnr_max)
{
  const double peak_sq = (uint32_t) (peak * peak);
  const double mse_floor = mse > 1e-16 ? mse : 1e-16;
  const double db = 10. * log10 (peak_sq / mse_floor);
  return db < psnr_max ? db : psnr_max;
}

double
vh_psnr_from_sse (uint64_t sse, uint64_t n_samples, unsigned bpc)
{
  g_return_val_if_fail (bpc_supported (bpc) && n_samples, 0.);
  return vh_psnr_db ((double) sse / (double) n_samples, (1u << bpc) - 1,
      6 * bpc + 12);
}

/* ---- extractor ---------------------------------------------------------- */

typedef struct {
  bool enable_chroma;
  bool enable_mse;
  bool enable_apsnr;
  bool reduced_hbd_peak;
  double min_sse;
} PsnrOptions;

/* None is a feature parameter in libvmaf: output names carry no suffix. */
static const VhOptionDesc psnr_options[] = {
  {"enable_chroma", NULL, VH_OPT_BOOL, 1, 0, 1,
      offsetof (PsnrOptions, enable_chroma), false},
  {"enable_mse", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (PsnrOptions, enable_mse), false},
  /* the stream's aggregate PSNR, at flush */
  {"enable_apsnr", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (PsnrOptions, enable_apsnr), false},
  {"reduced_hbd_peak", NULL, VH_OPT_BOOL, 0, 0, 1,
      offsetof (PsnrOptions, reduced_hbd_peak), false},
  {"min_sse", NULL, VH_OPT_DOUBLE, 0.0, 0.0, DBL_MAX,
      offsetof (PsnrOptions, min_sse), false},
  {NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false},
};

typedef struct {
  PsnrOptions opt;
  unsigned width, height, bpc;
  uint32_t peak;
  double psnr_max[3];
  /* The chroma layout, fixed by the first frame (min_sse depends on it). */
  bool have_layout;
  unsigned nplanes;
  unsigned chroma_width, chroma_height;
  /* enable_apsnr: sums over the frames so far, as libvmaf's (the sample
   * count of a frame in unsigned arithmetic, then added) */
  uint64_t apsnr_sse[3], apsnr_n[3];
} PsnrState;

static const char *const psnr_names[3] = {"psnr_y", "psnr_cb", "psnr_cr"};
static const char *const mse_names[3] = {"mse_y", "mse_cb", "mse_cr"};

static gboolean
psnr_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  PsnrState *s = priv;

  if (!opts || !info) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr: no %s given", opts ? "video info" : "options");
    return FALSE;
  }
  if (!bpc_supported (info->bpc)) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "psnr: %u bits per sample is not supported (8, 10 or 12)", info->bpc);
    return FALSE;
  }
  if (!info->width || !info->height) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr: picture size %ux%u is empty", info->width, info->height);
    return FALSE;
  }
  s->opt = *(const PsnrOptions *) opts;
  if (!(s->opt.min_sse >= 0.0)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr: min_sse %g is negative or not a number", s->opt.min_sse);
    return FALSE;
  }

  s->width = info->width;
  s->height = info->height;
  s->bpc = info->bpc;
  /* libvmaf: 255 * 1 << (bpc - 8), i.e. 255 · 2^(bpc−8) */
  s->peak = s->opt.reduced_hbd_peak ? 255u << (s->bpc - 8)
      : (1u << s->bpc) - 1;
  for (unsigned p = 0; p < 3; p++)
    s->psnr_max[p] = 6 * s->bpc + 12;
  return TRUE;
}

/* With min_sse, libvmaf caps each plane at ceil (PSNR of an SSE of min_sse).
 * Its chroma sample count uses the luma size halved and rounded down per
 * subsampled direction, not the real (rounded up) chroma plane size. */
static void
set_min_sse_caps (PsnrState *s)
{
  const bool ss_hor = s->chroma_width != s->width;
  const bool ss_ver = s->chroma_height != s->height;
  for (unsigned p = 0; p < 3; p++) {
    const unsigned w = p && ss_hor ? s->width / 2 : s->width;
    const unsigned h = p && ss_ver ? s->height / 2 : s->height;
    const double mse = s->opt.min_sse / (unsigned) (w * h);
    s->psnr_max[p] = ceil (10. * log10 ((uint32_t) (s->peak * s->peak) / mse));
  }
}

static gboolean
check_planes (PsnrState *s, const VhPicture *ref, const VhPicture *dis,
    unsigned index, GError **error)
{
  if (!ref || !dis) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr: frame %u lacks the %s picture", index,
        ref ? "distorted" : "reference");
    return FALSE;
  }
  if (ref->bpc != s->bpc || dis->bpc != s->bpc) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr: frame %u has %u/%u bits per sample, the stream %u", index,
        ref->bpc, dis->bpc, s->bpc);
    return FALSE;
  }
  if ((ref->nplanes != 1 && ref->nplanes != 3)
      || ref->nplanes != dis->nplanes) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr: frame %u has %u reference and %u distorted planes "
        "(want 1 or 3 in both)", index, ref->nplanes, dis->nplanes);
    return FALSE;
  }
  if (ref->plane[0].width != s->width || ref->plane[0].height != s->height) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "psnr: frame %u luma is %ux%u, the stream %ux%u", index,
        ref->plane[0].width, ref->plane[0].height, s->width, s->height);
    return FALSE;
  }
  for (unsigned p = 0; p < ref->nplanes; p++) {
    const VhPlane *rp = &ref->plane[p], *dp = &dis->plane[p];
    const char *problem = plane_problem (rp, s->bpc);
    const char *which = "reference";
    if (!problem) {
      problem = plane_problem (dp, s->bpc);
      which = "distorted";
    }
    if (problem) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "psnr: frame %u: %s plane %u %s", index, which, p, problem);
      return FALSE;
    }
    if (rp->width != dp->width || rp->height != dp->height) {
      g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
          "psnr: frame %u plane %u is %ux%u in the reference, %ux%u in the "
          "distorted picture", index, p, rp->width, rp->height, dp->width,
          dp->height);
      return FALSE;
    }
  }

  if (!s->have_layout) {
    s->have_layout = true;
    s->nplanes = ref->nplanes;
    if (s->nplanes == 3) {
      s->chroma_width = ref->plane[1].width;
      s->chroma_height = ref->plane[1].height;
    }
    if (s->opt.min_sse != 0.0)
      set_min_sse_caps (s);
  }
  if (ref->nplanes != s->nplanes || (s->nplanes == 3
          && (ref->plane[1].width != s->chroma_width
              || ref->plane[1].height != s->chroma_height
              || ref->plane[2].width != s->chroma_width
              || ref->plane[2].height != s->chroma_height))) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "psnr: frame %u changes the plane layout of the stream", index);
    return FALSE;
  }
  return TRUE;
}

static gboolean
psnr_extract_sums (void *priv, const void *data, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  PsnrState *s = priv;
  const VhPsnrSums *sums = data;

  (void) error;
  const unsigned n = s->opt.enable_chroma ? sums->nplanes : 1;
  for (unsigned p = 0; p < n; p++) {
    /* libvmaf: (double) sse / (w * h), w * h in unsigned arithmetic */
    const double mse = (double) sums->sse[p]
        / (unsigned) (sums->width[p] * sums->height[p]);
    vh_feature_sink_put (sink, psnr_names[p], index,
        vh_psnr_db (mse, s->peak, s->psnr_max[p]));
    if (s->opt.enable_mse)
      vh_feature_sink_put (sink, mse_names[p], index, mse);
    if (s->opt.enable_apsnr) {
      s->apsnr_sse[p] += sums->sse[p];
      s->apsnr_n[p] += (unsigned) (sums->width[p] * sums->height[p]);
    }
  }
  return TRUE;
}

double
vh_apsnr_db (uint64_t sse, uint64_t n_samples, uint32_t peak)
{
  /* libvmaf: peak² in uint32, the cap's product in uint64 (wrapping as
   * libvmaf's does), then doubles */
  const uint32_t peak_sq = peak * peak;
  const double apsnr = 10 * (log10 ((double) peak_sq)
      + log10 ((double) n_samples) - log10 ((double) sse));
  const double max_apsnr = ceil (10 * log10 ((double) ((uint64_t) peak_sq
              * n_samples * 2)));
  /* MIN (apsnr, max_apsnr) as libvmaf's macro: NaN gives max_apsnr */
  return apsnr < max_apsnr ? apsnr : max_apsnr;
}

static gboolean
psnr_flush (void *priv, VhFeatureSink *sink, GError **error)
{
  PsnrState *s = priv;
  static const char *const apsnr_names[3] = {"apsnr_y", "apsnr_cb",
    "apsnr_cr"};

  (void) error;
  if (!s->opt.enable_apsnr)
    return TRUE;
  for (unsigned p = 0; p < 3; p++)
    vh_feature_sink_set_aggregate (sink, apsnr_names[p],
        vh_apsnr_db (s->apsnr_sse[p], s->apsnr_n[p], s->peak));
  return TRUE;
}

/* One frame's SSE per plane, in any thread (a worker's instance). */
static gboolean
psnr_compute_sums (void *priv, const VhPicture *ref, const VhPicture *dis,
    const VhPicture *const *earlier, unsigned index, void *out,
    GError **error)
{
  PsnrState *s = priv;
  VhPsnrSums *sums = out;

  (void) earlier;
  if (!check_planes (s, ref, dis, index, error))
    return FALSE;
  /* libvmaf turns chroma off for YUV400 */
  memset (sums, 0, sizeof *sums);
  sums->nplanes = s->opt.enable_chroma ? ref->nplanes : 1;
  for (unsigned p = 0; p < sums->nplanes; p++) {
    const VhPlane *rp = &ref->plane[p];
    sums->sse[p] = vh_psnr_sse (rp, &dis->plane[p], s->bpc);
    sums->width[p] = rp->width;
    sums->height[p] = rp->height;
  }
  return TRUE;
}

static gboolean
psnr_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  VhPsnrSums sums;

  return psnr_compute_sums (priv, ref, dis, NULL, index, &sums, error)
      && psnr_extract_sums (priv, &sums, index, sink, error);
}

const VhFeatureExtractor vh_fex_psnr = {
  .name = "psnr",
  .options = psnr_options,
  .opts_size = sizeof (PsnrOptions),
  .priv_size = sizeof (PsnrState),
  .needs_chroma = true,
  .init = psnr_init,
  .extract = psnr_extract,
  .extract_sums = psnr_extract_sums,
  .flush = psnr_flush,
  .close = NULL,
  /* libvmaf's psnr is temporal: every frame, in order (apsnr's sums) */
  .sequential = true,
  .compute_sums = psnr_compute_sums,
  .sums_size = sizeof (VhPsnrSums),
};
