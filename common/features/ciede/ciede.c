/* vmafhip — CIEDE2000 (libvmaf 3.2.0's `ciede`, output `ciede2000`).
 *
 * Per pixel: YUV (limited range, BT.709 assumed, chroma repeated up to
 * 4:4:4) to linear RGB, XYZ (D65) and CIE Lab, then the CIEDE2000 colour
 * difference with kL = 0.65, kC = 1, kH = 4; the frame's score is
 * 45 - 20 log10 (mean difference).  The per-pixel arithmetic, with
 * libvmaf's mix of float and double, is kernels/ciede-device.h, which the
 * GPU kernel shares.
 *
 * 4:2:2 is refused: libvmaf 3.2.0's chroma up-sampling reads 4:2:2 chroma
 * rows and columns at the wrong places, and no result of it is worth
 * reproducing.
 */
#include <math.h>

#include "vh-feature.h"
#include "ciede.h"
#include "ciede-device.h"

typedef struct {
  unsigned bpc, width, height;
} CiedeState;

/* Chroma at full size or halved both ways */
static gboolean
ciede_check_layout (const VhPicture *layout, GError **error)
{
  if (layout->nplanes < 3) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "ciede: needs chroma (the pictures are luma only)");
    return FALSE;
  }
  if (layout->plane[1].width < layout->plane[0].width
      && layout->plane[1].height == layout->plane[0].height) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "ciede: 4:2:2 is not supported (libvmaf 3.2.0 reads 4:2:2 chroma "
        "at the wrong places); use 4:2:0 or 4:4:4");
    return FALSE;
  }
  return TRUE;
}

static gboolean
ciede_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  CiedeState *s = priv;
  (void) opts;
  (void) error;
  s->bpc = info->bpc;
  s->width = info->width;
  s->height = info->height;
  return TRUE;
}

static inline float
sample (const VhPlane *p, unsigned bpc, unsigned x, unsigned y)
{
  return (float) vh_plane_sample (p, bpc, x, y);
}

static gboolean
ciede_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  CiedeState *s = priv;
  (void) error;
  const VhPlane *ry = &ref->plane[0], *dy = &dis->plane[0];
  const unsigned w = ry->width, h = ry->height;
  /* 4:4:4, or 4:2:0 with each chroma sample repeated over 2x2 (the engine
   * had ciede_check_layout refuse the rest) */
  const unsigned shift = ref->plane[1].width < w ? 1 : 0;
  double sum = 0.;
  for (unsigned y = 0; y < h; y++) {
    for (unsigned x = 0; x < w; x++) {
      const unsigned cx = x >> shift, cy = y >> shift;
      const VhLab p = vh_ciede_lab (sample (ry, s->bpc, x, y),
          sample (&ref->plane[1], s->bpc, cx, cy),
          sample (&ref->plane[2], s->bpc, cx, cy), s->bpc);
      const VhLab q = vh_ciede_lab (sample (dy, s->bpc, x, y),
          sample (&dis->plane[1], s->bpc, cx, cy),
          sample (&dis->plane[2], s->bpc, cx, cy), s->bpc);
      sum += vh_ciede_delta_e (p, q);
    }
  }
  vh_feature_sink_put (sink, "ciede2000", index,
      45. - 20. * log10 (sum / (w * h)));
  return TRUE;
}

/* The GPU's sum of differences (VhCiedeSums) */
static gboolean
ciede_extract_sums (void *priv, const void *sums, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  const CiedeState *s = priv;
  const VhCiedeSums *c = sums;
  (void) error;
  vh_feature_sink_put (sink, "ciede2000", index,
      45. - 20. * log10 (c->sum / (s->width * s->height)));
  return TRUE;
}

static const VhOptionDesc ciede_options[] = {
  {NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false},
};

const VhFeatureExtractor vh_fex_ciede = {
  .name = "ciede",
  .options = ciede_options,
  .opts_size = 0,
  .priv_size = sizeof (CiedeState),
  .needs_chroma = true,
  .init = ciede_init,
  .extract = ciede_extract,
  .extract_sums = ciede_extract_sums,
  .check_layout = ciede_check_layout,
};
