/* vmafhip — PSNR-HVS (libvmaf 3.2.0's `psnr_hvs`: Xiph's PSNR-HVS-M).
 *
 * Per plane, 8x8 blocks every 7 samples: the blocks' integer DCT (Daala's
 * lifting DCT), a contrast-masking threshold from the AC energy weighted by
 * the squared, scaled CSF and the blocks' variance ratio, and the CSF-
 * weighted error above the threshold; the plane's mean squared error over
 * the peak squared gives psnr_hvs_y/cb/cr, and 0.8 Y + 0.1 (Cb + Cr) gives
 * psnr_hvs.  The float arithmetic follows libvmaf's exactly (its AC energy
 * is a 32-bit integer product, which wraps for large coefficients at 10
 * and 12 bits; so does this one).  The per-block arithmetic is
 * kernels/psnr-hvs-device.h, which the GPU kernels share.
 */
#include <math.h>
#include <stdint.h>

#include "psnr-hvs.h"
#include "vh-feature.h"
#include "psnr-hvs-device.h"

typedef struct {
  unsigned bpc;
  float mask[3][64];            /* each plane's masking weights */
} PsnrHvsState;

/* one CSF table per plane (kernels/psnr-hvs-device.h) */
static const float csf[3][64] = {
  VH_PSNR_HVS_CSF_Y, VH_PSNR_HVS_CSF_CB, VH_PSNR_HVS_CSF_CR,
};

static void
load_block (const VhPlane *p, unsigned bpc, int x, int y, int32_t blk[64])
{
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++)
      blk[i * 8 + j] = (int32_t) vh_plane_sample (p, bpc, x + j, y + i);
}

/* The plane's sum of masked, CSF-weighted squared DCT errors, added one by
 * one into a float as libvmaf does (the GPU reproduces this sum exactly) */
static float
plane_sum (const VhPlane *ref, const VhPlane *dis, unsigned bpc,
    const float csf_p[64], const float mask[64], int *pixels)
{
  const int w = (int) ref->width, h = (int) ref->height;
  float ret = 0;
  int32_t s[64], d[64];
  float err[64];
  *pixels = 0;
  for (int y = 0; y < h - 7; y += 7) {
    for (int x = 0; x < w - 7; x += 7) {
      load_block (ref, bpc, x, y, s);
      load_block (dis, bpc, x, y, d);
      vh_psnr_hvs_block_errors (s, d, csf_p, mask, err);
      for (int k = 0; k < 64; k++)
        ret += err[k];
      *pixels += 64;
    }
  }
  return ret;
}

/* The plane's mean over the squared peak, in libvmaf's float steps */
static double
plane_score (float ret, int pixels, unsigned bpc)
{
  ret /= pixels;
  const int32_t peak = (1 << bpc) - 1;
  ret /= peak * peak;
  return ret;
}

static double
to_db (double score)
{
  return 10 * (-1 * log10 (score));
}

static gboolean
psnr_hvs_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  PsnrHvsState *s = priv;
  (void) opts;
  if (info->width < 8 || info->height < 8) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "psnr_hvs: %ux%u is too small (8x8 blocks)", info->width,
        info->height);
    return FALSE;
  }
  s->bpc = info->bpc;
  for (int p = 0; p < 3; p++)
    for (int k = 0; k < 64; k++)
      s->mask[p][k] = vh_psnr_hvs_mask_weight (csf[p][k]);
  return TRUE;
}

/* Three planes, each holding an 8x8 block */
static gboolean
psnr_hvs_check_layout (const VhPicture *layout, GError **error)
{
  if (layout->nplanes < 3) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "psnr_hvs: needs chroma (the pictures are luma only)");
    return FALSE;
  }
  for (int p = 0; p < 3; p++) {
    if (layout->plane[p].width < 8 || layout->plane[p].height < 8) {
      g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
          "psnr_hvs: plane %d is %ux%u, smaller than an 8x8 block", p,
          layout->plane[p].width, layout->plane[p].height);
      return FALSE;
    }
  }
  return TRUE;
}

static void
put_scores (const PsnrHvsState *s, const VhPsnrHvsSums *sums, unsigned index,
    VhFeatureSink *sink)
{
  static const char *const names[3] = {
    "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr"
  };
  double score[3];
  for (int p = 0; p < 3; p++) {
    score[p] = plane_score (sums->sum[p], (int) sums->pixels[p], s->bpc);
    vh_feature_sink_put (sink, names[p], index, to_db (score[p]));
  }
  vh_feature_sink_put (sink, "psnr_hvs", index,
      to_db (score[0] * .8 + .1 * (score[1] + score[2])));
}

static gboolean
psnr_hvs_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  PsnrHvsState *s = priv;
  (void) error;
  VhPsnrHvsSums sums;
  for (int p = 0; p < 3; p++) {
    int pixels;
    sums.sum[p] = plane_sum (&ref->plane[p], &dis->plane[p], s->bpc, csf[p],
        s->mask[p], &pixels);
    sums.pixels[p] = (uint32_t) pixels;
  }
  put_scores (s, &sums, index, sink);
  return TRUE;
}

/* The GPU's per-plane sums (VhPsnrHvsSums), the same floats */
static gboolean
psnr_hvs_extract_sums (void *priv, const void *sums, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  (void) error;
  put_scores (priv, sums, index, sink);
  return TRUE;
}

static const VhOptionDesc psnr_hvs_options[] = {
  {NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false},
};

const VhFeatureExtractor vh_fex_psnr_hvs = {
  .name = "psnr_hvs",
  .options = psnr_hvs_options,
  .opts_size = 0,
  .priv_size = sizeof (PsnrHvsState),
  .needs_chroma = true,
  .init = psnr_hvs_init,
  .extract = psnr_hvs_extract,
  .extract_sums = psnr_hvs_extract_sums,
  .check_layout = psnr_hvs_check_layout,
};
