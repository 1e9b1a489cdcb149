/* vmafhip — PSNR-HVS (libvmaf 3.2.0's `psnr_hvs`: Xiph's PSNR-HVS-M).
 *
 * Per plane, 8x8 blocks every 7 samples: the blocks' integer DCT (Daala's
 * lifting DCT), a contrast-masking threshold from the AC energy weighted by
 * the squared, scaled CSF and the blocks' variance ratio, and the CSF-
 * weighted error above the threshold; the plane's mean squared error over
 * the peak squared gives psnr_hvs_y/cb/cr, and 0.8 Y + 0.1 (Cb + Cr) gives
 * psnr_hvs.  The float arithmetic follows libvmaf's exactly (its AC energy
 * is a 32-bit integer product, which wraps for large coefficients at 10
 * and 12 bits; so does this one).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "vh-feature-internal.h"

typedef struct {
  unsigned bpc;
  float mask[3][8][8];          /* masking_table of each plane's CSF */
} PsnrHvsState;

/* Contrast sensitivity per DCT coefficient (Y, and Cb/Cr as for 4:2:0,
 * which libvmaf uses for every layout); double literals rounded to float,
 * as libvmaf's tables are */
static const float csf_y[8][8] = {
  {1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, 1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542},
  {2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, 1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551},
  {2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, 0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596},
  {1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, 0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565},
  {1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, 0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204},
  {0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, 0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321},
  {0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, 0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001},
  {0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, 0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276},
};
static const float csf_cb[8][8] = {
  {1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, 1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242},
  {2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, 1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625},
  {1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, 1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837},
  {1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, 0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374},
  {1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, 0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034},
  {0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, 0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965},
  {0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733},
  {0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, 0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237},
};
static const float csf_cr[8][8] = {
  {2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, 1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971},
  {2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, 1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198},
  {1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, 0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706},
  {1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, 0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023},
  {1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, 0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273},
  {0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, 0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543},
  {0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063},
  {0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, 0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658},
};

/* a / 2^b rounded toward zero (Daala's unbiased shift) */
static inline int32_t
half_shift (int32_t a, int b)
{
  return (int32_t) (((uint32_t) a >> (32 - b)) + (uint32_t) a) >> b;
}

/* a * num / 2^shift, rounded (one lifting step) */
static inline int32_t
lift (int32_t a, int32_t num, int shift)
{
  return (a * num + (1 << (shift - 1))) >> shift;
}

/* Daala's 8-point integer DCT-II (lifting), x read with a stride */
static void
dct8 (int32_t y[8], const int32_t *x, int stride)
{
  int32_t t0 = x[0], t4 = x[stride], t2 = x[2 * stride], t6 = x[3 * stride];
  int32_t t7 = x[4 * stride], t3 = x[5 * stride], t5 = x[6 * stride];
  int32_t t1 = x[7 * stride];
  t1 = t0 - t1;
  const int32_t t1h = half_shift (t1, 1);
  t0 -= t1h;
  t4 += t5;
  const int32_t t4h = half_shift (t4, 1);
  t5 -= t4h;
  t3 = t2 - t3;
  t2 -= half_shift (t3, 1);
  t6 += t7;
  const int32_t t6h = half_shift (t6, 1);
  t7 = t6h - t7;
  /* 4-point DCT-II */
  t0 += t6h;
  t6 = t0 - t6;
  t2 = t4h - t2;
  t4 = t2 - t4;
  /* 2-point DCT-II: sqrt(2) - 1, sqrt(1/2), sqrt(2) - 1 */
  t0 -= lift (t4, 13573, 15);
  t4 += lift (t0, 11585, 14);
  t0 -= lift (t4, 13573, 15);
  /* 2-point DST-IV (3 pi / 8) */
  t6 -= lift (t2, 21895, 15);
  t2 += lift (t6, 15137, 14);
  t6 -= lift (t2, 21895, 15);
  /* 4-point DST-IV */
  t3 += lift (t5, 19195, 15);
  t5 += lift (t3, 11585, 14);
  t3 -= lift (t5, 7489, 13);
  t7 = half_shift (t5, 1) - t7;
  t5 -= t7;
  t3 = t1h - t3;
  t1 -= t3;
  /* pi / 16 */
  t7 += lift (t1, 3227, 15);
  t1 -= lift (t7, 6393, 15);
  t7 += lift (t1, 3227, 15);
  /* 3 pi / 16 */
  t5 += lift (t3, 2485, 13);
  t3 -= lift (t5, 18205, 15);
  t5 += lift (t3, 2485, 13);
  y[0] = t0; y[1] = t1; y[2] = t2; y[3] = t3;
  y[4] = t4; y[5] = t5; y[6] = t6; y[7] = t7;
}

/* In place: columns into a scratch block, then rows */
static void
dct8x8 (int32_t *block)
{
  int32_t z[64];
  for (int i = 0; i < 8; i++)
    dct8 (z + 8 * i, block + i, 8);
  for (int i = 0; i < 8; i++)
    dct8 (block + 8 * i, z + i, 8);
}

/* The squared coefficient as libvmaf's 32-bit int product (wrapping) */
static inline int32_t
square32 (int32_t v)
{
  return (int32_t) ((uint32_t) v * (uint32_t) v);
}

/* The contrast-masking weights: the CSF scaled and squared */
static void
masking_table (const float csf[8][8], float mask[8][8])
{
  for (int i = 0; i < 8; i++)
    for (int j = 0; j < 8; j++)
      mask[i][j] = (float) ((csf[i][j] * 0.3885746225901003)
          * (csf[i][j] * 0.3885746225901003));
}

/* Reads an 8x8 block of samples and returns its variance ratio: the sum
 * of its four 4x4 quadrants' variances over the whole block's (the
 * block's as is when that is 0). */
static float
load_block (const VhPlane *p, unsigned bpc, int x, int y, int32_t blk[64])
{
  float means[4] = { 0 }, vars[4] = { 0 }, gmean = 0, gvar = 0;
  for (int i = 0; i < 8; i++) {
    for (int j = 0; j < 8; j++) {
      const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
      blk[i * 8 + j] = (int32_t) vh_plane_sample (p, bpc, x + j, y + i);
      gmean += blk[i * 8 + j];
      means[sub] += blk[i * 8 + j];
    }
  }
  gmean /= 64.f;
  for (int i = 0; i < 4; i++)
    means[i] /= 16.f;
  for (int i = 0; i < 8; i++) {
    for (int j = 0; j < 8; j++) {
      const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
      gvar += (blk[i * 8 + j] - gmean) * (blk[i * 8 + j] - gmean);
      vars[sub] += (blk[i * 8 + j] - means[sub]) * (blk[i * 8 + j] - means[sub]);
    }
  }
  gvar *= 1 / 63.f * 64;
  for (int i = 0; i < 4; i++)
    vars[i] *= 1 / 15.f * 16;
  if (gvar > 0)
    gvar = (vars[0] + vars[1] + vars[2] + vars[3]) / gvar;
  return gvar;
}

/* The masking threshold of a transformed block: its weighted AC energy
 * (libvmaf's 32-bit product) times the variance ratio. */
static float
block_mask (const int32_t dct[64], const float mask[8][8], float ratio)
{
  float m = 0;
  for (int i = 0; i < 8; i++)
    for (int j = (i == 0); j < 8; j++)
      m += square32 (dct[i * 8 + j]) * mask[i][j];
  return (float) (sqrt (m * ratio) / 32.f);
}

/* Mean masked, CSF-weighted squared DCT error of one plane over the
 * squared peak. */
static double
plane_score (const VhPlane *ref, const VhPlane *dis, unsigned bpc,
    const float csf[8][8], const float mask[8][8])
{
  const int w = (int) ref->width, h = (int) ref->height;
  float ret = 0;
  int pixels = 0;
  int32_t s[64], d[64];
  for (int y = 0; y < h - 7; y += 7) {
    for (int x = 0; x < w - 7; x += 7) {
      const float s_ratio = load_block (ref, bpc, x, y, s);
      const float d_ratio = load_block (dis, bpc, x, y, d);
      dct8x8 (s);
      dct8x8 (d);
      float s_mask = block_mask (s, mask, s_ratio);
      const float d_mask = block_mask (d, mask, d_ratio);
      if (d_mask > s_mask)
        s_mask = d_mask;
      for (int i = 0; i < 8; i++) {
        for (int j = 0; j < 8; j++) {
          float err = (float) abs (s[i * 8 + j] - d[i * 8 + j]);
          if (i != 0 || j != 0)
            err = err < s_mask / mask[i][j] ? 0 : err - s_mask / mask[i][j];
          ret += (err * csf[i][j]) * (err * csf[i][j]);
          pixels++;
        }
      }
    }
  }
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
  masking_table (csf_y, s->mask[0]);
  masking_table (csf_cb, s->mask[1]);
  masking_table (csf_cr, s->mask[2]);
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

static gboolean
psnr_hvs_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  PsnrHvsState *s = priv;
  static const char *const names[3] = {
    "psnr_hvs_y", "psnr_hvs_cb", "psnr_hvs_cr"
  };
  (void) error;
  double score[3];
  for (int p = 0; p < 3; p++) {
    score[p] = plane_score (&ref->plane[p], &dis->plane[p], s->bpc,
        p == 0 ? csf_y : p == 1 ? csf_cb : csf_cr, s->mask[p]);
    vh_feature_sink_put (sink, names[p], index, to_db (score[p]));
  }
  vh_feature_sink_put (sink, "psnr_hvs", index,
      to_db (score[0] * .8 + .1 * (score[1] + score[2])));
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
  .check_layout = psnr_hvs_check_layout,
};
