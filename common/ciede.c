/* vmafhip — CIEDE2000 (libvmaf 3.2.0's `ciede`, output `ciede2000`).
 *
 * Per pixel: YUV (limited range, BT.709 assumed, chroma repeated up to
 * 4:4:4) to linear RGB, XYZ (D65) and CIE Lab, then the CIEDE2000 colour
 * difference with kL = 0.65, kC = 1, kH = 4; the frame's score is
 * 45 - 20 log10 (mean difference).  libvmaf mixes float and double in
 * every step (Lab components, most intermediate terms and the difference
 * are floats; the colour conversions double); the same mix is kept here,
 * since it decides the printed digits.
 *
 * 4:2:2 is refused: libvmaf 3.2.0's chroma up-sampling reads 4:2:2 chroma
 * rows and columns at the wrong places, and no result of it is worth
 * reproducing.
 */
#include <math.h>

#include "vh-feature-internal.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

typedef struct {
  unsigned bpc;
} CiedeState;

typedef struct {
  float l, a, b;
} Lab;

/* sRGB's transfer inverted (values below 10/255 linear) */
static double
to_linear (double c)
{
  if (c > 10. / 255.)
    return pow ((c + 0.055) * (1.0 / 1.055), 2.4);
  return c * (1.0 / 12.92);
}

static float
lab_f (double c)
{
  const double kappa = 24389.0 / 27.0, epsilon = 216.0 / 24389.0;
  if (c > epsilon)
    return (float) pow (c, 1.0 / 3.0);
  return (float) ((kappa * c + 16.0) * (1.0 / 116.0));
}

static Lab
yuv_to_lab (double y, double u, double v, unsigned bpc)
{
  const double scale = 1 << (bpc - 8);
  y = (y - 16. * scale) * (1. / (219. * scale));
  u = (u - 128. * scale) * (1. / (224. * scale));
  v = (v - 128. * scale) * (1. / (224. * scale));
  const double r = to_linear (y + 1.28033 * v);
  const double g = to_linear (y - 0.21482 * u - 0.38059 * v);
  const double b = to_linear (y + 2.12798 * u);
  const double x = lab_f ((r * 0.4124564390896921 + g * 0.357576077643909
          + b * 0.18043748326639894) * (1.0 / 0.95047));
  const double yy = lab_f (r * 0.21267285140562248 + g * 0.715152155287818
      + b * 0.07217499330655958);
  const double z = lab_f ((r * 0.019333895582329317 + g * 0.119192025881303
          + b * 0.9503040785363677) * (1.0 / 1.08883));
  return (Lab) { (float) ((116.0 * yy) - 16.0), (float) (500.0 * (x - yy)),
    (float) (200.0 * (yy - z)) };
}

static float
hue_angle (float x, float y)
{
  if (x == 0.0 && y == 0.0)
    return 0.0f;
  float h = (float) atan2 (x, y);
  if (h < 0.0)
    h = (float) (h + 2. * M_PI);
  return h;
}

static float
hue_difference (float c1, float c2, float h1, float h2)
{
  if (c1 == 0.0 || c2 == 0.0)
    return 0.0f;
  if (fabsf (h1 - h2) <= M_PI)
    return h2 - h1;
  if (h2 <= h1)
    return (float) (h2 - h1 + 2. * M_PI);
  return (float) (h2 - h1 - 2. * M_PI);
}

static float
mean_hue (float h1, float h2)
{
  return (float) (fabs ((h1 - h2)) > M_PI ? (h1 + h2 + 2.0 * M_PI) / 2.0
      : (h1 + h2) / 2.0);
}

static float
weight_t (float h)
{
  return (float) (1.0 - 0.17 * cos (h - M_PI / 6.0) + 0.24 * cos (2.0 * h)
      + 0.32 * cos (3.0 * h + M_PI / 30.0)
      - 0.20 * cos (4.0 * h - 7.0 * M_PI / 20.0));
}

static float
to_degrees (float radians)
{
  return (float) (radians * (180.0 / M_PI));
}

static float
to_radians (float degrees)
{
  return (float) (degrees * (M_PI / 180.0));
}

static float
rotation (float c_bar, float h_bar)
{
  const float d = (float) ((to_degrees (h_bar) - 275.0) * (1.0 / 25.0));
  const float c7 = powf (c_bar, 7);
  return (float) (-2.0 * sqrt (c7 / (c7 + powf (25.f, 7)))
      * sin (to_radians ((float) (60.0 * exp (-(powf (d, 2)))))));
}

static float
delta_e00 (Lab p, Lab q)
{
  const float kl = 0.65f, kc = 1.0f, kh = 4.0f;
  const float dl = q.l - p.l;
  const float l_bar = (p.l + q.l) / 2;
  const float c1 = (float) sqrt (pow (p.a, 2) + pow (p.b, 2));
  const float c2 = (float) sqrt (pow (q.a, 2) + pow (q.b, 2));
  const float c_bar = (c1 + c2) / 2;
  const double g = 1 - sqrt (pow (c_bar, 7) / (pow (c_bar, 7) + pow (25, 7)));
  const float a1 = (float) (p.a + (p.a / 2) * g);
  const float a2 = (float) (q.a + (q.a / 2) * g);
  const float cp1 = (float) sqrt (pow (a1, 2) + pow (p.b, 2));
  const float cp2 = (float) sqrt (pow (a2, 2) + pow (q.b, 2));
  const float cp_bar = (cp1 + cp2) / 2;
  const float dc = cp2 - cp1;
  const float sl = (float) (1. + ((0.015 * pow (l_bar - 50, 2))
          / sqrt (20 + pow (l_bar - 50, 2))));
  const float sc = (float) (1. + 0.045 * cp_bar);
  const float h1 = hue_angle (p.b, a1);
  const float h2 = hue_angle (q.b, a2);
  /* libvmaf tests the unprimed chromas here */
  const float dh = hue_difference (c1, c2, h1, h2);
  const float d_hue = (float) (2.0 * sqrt (cp1 * cp2) * sin (dh / 2.0));
  const float h_bar = mean_hue (h1, h2);
  const float sh = (float) (1.0 + 0.015 * cp_bar * weight_t (h_bar));
  const float rt = rotation (cp_bar, h_bar);
  const float lightness = dl / (kl * sl);
  const float chroma = dc / (kc * sc);
  const float hue = d_hue / (kh * sh);
  return (float) sqrt (pow (lightness, 2) + pow (chroma, 2) + pow (hue, 2)
      + rt * chroma * hue);
}

static gboolean
ciede_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  CiedeState *s = priv;
  (void) opts;
  (void) error;
  s->bpc = info->bpc;
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
  if (ref->nplanes < 3) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "ciede: needs chroma (the pictures are luma only)");
    return FALSE;
  }
  const VhPlane *ry = &ref->plane[0], *dy = &dis->plane[0];
  const unsigned w = ry->width, h = ry->height;
  /* 4:4:4, or 4:2:0 with each chroma sample repeated over 2x2 */
  const bool half = ref->plane[1].width < w;
  if (half && ref->plane[1].height == h) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "ciede: 4:2:2 is not supported (libvmaf 3.2.0 reads 4:2:2 chroma "
        "at the wrong places); use 4:2:0 or 4:4:4");
    return FALSE;
  }
  const unsigned shift = half ? 1 : 0;
  double sum = 0.;
  for (unsigned y = 0; y < h; y++) {
    for (unsigned x = 0; x < w; x++) {
      const unsigned cx = x >> shift, cy = y >> shift;
      const Lab p = yuv_to_lab (sample (ry, s->bpc, x, y),
          sample (&ref->plane[1], s->bpc, cx, cy),
          sample (&ref->plane[2], s->bpc, cx, cy), s->bpc);
      const Lab q = yuv_to_lab (sample (dy, s->bpc, x, y),
          sample (&dis->plane[1], s->bpc, cx, cy),
          sample (&dis->plane[2], s->bpc, cx, cy), s->bpc);
      sum += delta_e00 (p, q);
    }
  }
  vh_feature_sink_put (sink, "ciede2000", index,
      45. - 20. * log10 (sum / (w * h)));
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
};
