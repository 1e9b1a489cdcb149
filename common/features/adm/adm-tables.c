/* vmafhip — integer ADM: CSF weights and the reciprocal table.
 *
 * The constants are libvmaf 3.2.0's (Watson et al. 1997, Barten/HDR-VDP-2,
 * and Netflix's blended tables). The float/double mix of every expression
 * follows libvmaf's, since the weights feed a bit-exact pipeline: a float
 * rounded differently moves a fixed-point weight by one unit.
 */
#include <math.h>

#include "adm.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846264338327
#endif

/* ---- Watson 1997 (mode 0) ------------------------------------------------ */

/* Luma parameters of formula (7), subject "sfl", Table IV. */
static const float watson_a = 0.495f, watson_k = 0.466f, watson_f0 = 0.401f;
static const float watson_g[4] = { 1.501f, 1.0f, 0.534f, 1.0f };

/* Basis function amplitudes A(lambda, theta), Table V (transposed). */
static const float watson_amplitude[6][4] = {
  { 0.62171f, 0.67234f, 0.72709f, 0.67234f },
  { 0.34537f, 0.41317f, 0.49428f, 0.41317f },
  { 0.18004f, 0.22727f, 0.28688f, 0.22727f },
  { 0.091401f, 0.11792f, 0.15214f, 0.11792f },
  { 0.045943f, 0.059758f, 0.077727f, 0.059758f },
  { 0.023013f, 0.030018f, 0.039156f, 0.030018f },
};

/* Quantisation step Q of formula (9); theta 1 for h and v, 2 for d. */
static float
watson_quant_step (int lambda, int theta, double nvd, int rdh)
{
  /* Display resolution in pixels per degree (≈ 56.55 at 3H on 1080). */
  const float r = nvd * rdh * M_PI / 180.0;
  /* k·temp·temp is float arithmetic in libvmaf, the rest double. */
  const float temp =
      log10 (pow (2.0, lambda + 1) * watson_f0 * watson_g[theta] / r);
  const float q = 2.0 * watson_a * pow (10.0, watson_k * temp * temp)
      / watson_amplitude[lambda][theta];
  return q;
}

/* ---- Barten (mode 1), as HDR-VDP-2.2.1 ------------------------------------ */

static const float barten_lum_anchor[6] = { 0.002f, 0.02f, 0.2f, 2, 20, 150 };

static const float barten_param[6][5] = {
  { 0.0160737f, 0.991265f, 3.74038f, 0.50722f, 4.46044f },
  { 0.383873f, 0.800889f, 3.54104f, 0.682505f, 4.94958f },
  { 0.929301f, 0.476505f, 4.37453f, 0.750315f, 5.28678f },
  { 1.29776f, 0.405782f, 4.40602f, 0.935314f, 5.61425f },
  { 1.49222f, 0.334278f, 3.79542f, 1.07327f, 6.4635f },
  { 1.46213f, 0.394533f, 2.7755f, 1.16577f, 7.45665f },
};

static const float barten_sa[4] = { 30.162f, 4.0627f, 1.6596f, 0.2712f };
static const float barten_mtf_a[4] = { 0.424838596301290f, 0.572435103936480f,
    0.000167576239164937f, 0.00255872352306433f };
static const float barten_mtf_b[4] = { 0.028f, 0.37f, 37, 360 };

/* libvmaf evaluates the CSF at a fixed 100 cd/m². */
#define BARTEN_LUMINANCE 100.0

static float
barten_lerp (float x0, float y0, float x1, float y1, float x)
{
  return y0 + ((y1 - y0) / (x1 - x0)) * (x - x0);
}

static float
barten_rod_cone_sensitivity (float lum)
{
  return barten_sa[0]
      * pow (pow (barten_sa[1] / lum, barten_sa[2]) + 1, -barten_sa[3]);
}

static float
barten_mtf (float freq)
{
  float mtf = 0.0f;
  for (int i = 0; i < 4; i++)
    mtf = mtf + barten_mtf_a[i] * exp (-barten_mtf_b[i] * freq);
  return mtf;
}

static float
barten_csf (int lambda, double nvd, int rdh, double scale)
{
  const float r = nvd * rdh * M_PI / 180.0;
  /* Nominal frequency of the DWT level: level 0 is half the resolution. */
  const float freq = r / pow (2, lambda + 1);

  double lum = BARTEN_LUMINANCE;
  if (lum > barten_lum_anchor[5])
    lum = barten_lum_anchor[5];
  else if (lum < barten_lum_anchor[0])
    lum = barten_lum_anchor[0];

  int lo = 0, hi = 0;
  for (int i = 0; i < 5; i++) {
    if (lum >= barten_lum_anchor[i] && lum <= barten_lum_anchor[i + 1]) {
      lo = i;
      hi = i + 1;
      break;
    }
  }
  const float x0 = log10 (barten_lum_anchor[lo]);
  const float x1 = log10 (barten_lum_anchor[hi]);
  const float x = log10 (lum);
  float p[4];
  for (int k = 0; k < 4; k++)
    p[k] = barten_lerp (x0, barten_param[lo][k + 1], x1,
        barten_param[hi][k + 1], x);

  const float a = 1.0f + pow (p[0] * freq, p[1]);
  const float b = 1.0f / pow (1 - exp (-pow (freq / 7, 2)), p[2]);
  const float csf = p[3] / pow (a * b, 0.5);
  return csf * barten_mtf (freq) * barten_rod_cone_sensitivity (BARTEN_LUMINANCE)
      * scale;
}

/* ---- Barten–Watson blend (modes 2 and 3): tables per (rdh, nvd) ----------- */

typedef struct BlendTable {
  int rdh;
  double nvd;
  float weight[2][4];   /* [h and v, d][scale] */
} BlendTable;

/* 2160 at 1.5H has the pixels per degree of 1080 at 3H, hence its table. */
static const BlendTable blend_legacy[] = {
  { 1080, 3.0, { { 0.01183f, 0.025026f, 0.04295f, 0.058621f },
                 { 0.004302f, 0.011778f, 0.023918f, 0.035901f } } },
  { 1080, 5.0, { { 0.004212f, 0.014809f, 0.029642f, 0.047464f },
                 { 0.000984f, 0.005852f, 0.0146f, 0.027574f } } },
  { 2160, 1.5, { { 0.01183f, 0.025026f, 0.04295f, 0.058621f },
                 { 0.004302f, 0.011778f, 0.023918f, 0.035901f } } },
  { 2160, 3.0, { { 0.00226f, 0.01183f, 0.025026f, 0.04295f },
                 { 0.000479f, 0.004302f, 0.011778f, 0.023918f } } },
  { 2160, 5.0, { { 0.000092f, 0.004212f, 0.014809f, 0.029642f },
                 { 0.000050f, 0.000984f, 0.005852f, 0.0146f } } },
  { 720, 3.0, { { 0.018715f, 0.035637f, 0.052798f, 0.061509f },
                { 0.007999f, 0.018396f, 0.031851f, 0.037718f } } },
  { 720, 5.0, { { 0.010144f, 0.022561f, 0.040309f, 0.05672f },
                { 0.003463f, 0.010282f, 0.021839f, 0.034641f } } },
  { 480, 3.0, { { 0.027961f, 0.045875f, 0.060275f, 0.056234f },
                { 0.013572f, 0.026277f, 0.036959f, 0.034511f } } },
  { 480, 5.0, { { 0.016781f, 0.032822f, 0.05032f, 0.061594f },
                { 0.00691f, 0.016545f, 0.029917f, 0.037777f } } },
};

static const BlendTable blend_mae[] = {
  { 1080, 3.0, { { 0.011249f, 0.022606f, 0.035930f, 0.045673f },
                 { 0.004097f, 0.010921f, 0.021430f, 0.031313f } } },
  { 1080, 5.0, { { 0.004052f, 0.013939f, 0.026298f, 0.038833f },
                 { 0.000927f, 0.005544f, 0.013415f, 0.024515f } } },
  { 2160, 1.5, { { 0.011249f, 0.022606f, 0.035930f, 0.045673f },
                 { 0.004097f, 0.010921f, 0.021430f, 0.031313f } } },
  { 2160, 3.0, { { 0.002166f, 0.011249f, 0.022606f, 0.035930f },
                 { 0.000447f, 0.004097f, 0.010921f, 0.021430f } } },
  { 2160, 5.0, { { 0.000077f, 0.004052f, 0.013939f, 0.026298f },
                 { 0.000045f, 0.000927f, 0.005544f, 0.013415f } } },
  { 720, 3.0, { { 0.017329f, 0.030870f, 0.042134f, 0.047410f },
                { 0.007509f, 0.016707f, 0.028072f, 0.032722f } } },
  { 720, 5.0, { { 0.009689f, 0.020577f, 0.034162f, 0.044523f },
                { 0.003302f, 0.009579f, 0.019661f, 0.030318f } } },
  { 480, 3.0, { { 0.024969f, 0.037825f, 0.046676f, 0.043974f },
                { 0.012511f, 0.023424f, 0.032139f, 0.030166f } } },
  { 480, 5.0, { { 0.015665f, 0.028766f, 0.040612f, 0.047483f },
                { 0.006514f, 0.015107f, 0.026476f, 0.032776f } } },
};

static const BlendTable *
blend_lookup (const BlendTable *tables, size_t n, double nvd, int rdh)
{
  /* libvmaf compares nvd exactly. */
  for (size_t i = 0; i < n; i++)
    if (tables[i].rdh == rdh && tables[i].nvd == nvd)
      return &tables[i];
  return NULL;
}

bool
vh_adm_csf_weight (int csf_mode, int scale, int band, double norm_view_dist,
    int ref_display_height, double csf_scale, double csf_diag_scale,
    float *weight)
{
  const bool diag = band == 2;
  const BlendTable *table = NULL;

  switch (csf_mode) {
    case VH_ADM_CSF_WATSON97:
      *weight = 1.0f / watson_quant_step (scale, diag ? 2 : 1, norm_view_dist,
          ref_display_height);
      return true;
    case VH_ADM_CSF_BARTEN:
      *weight = barten_csf (scale, norm_view_dist, ref_display_height,
          diag ? csf_diag_scale : csf_scale);
      return true;
    case VH_ADM_CSF_BLEND:
      table = blend_lookup (blend_legacy, G_N_ELEMENTS (blend_legacy),
          norm_view_dist, ref_display_height);
      break;
    case VH_ADM_CSF_BLEND_MAE:
      table = blend_lookup (blend_mae, G_N_ELEMENTS (blend_mae),
          norm_view_dist, ref_display_height);
      break;
    default:
      break;
  }
  if (!table) {
    /* libvmaf would silently use −EINVAL (−22) as the weight. */
    *weight = NAN;
    return false;
  }
  *weight = table->weight[diag ? 1 : 0][scale];
  return true;
}

/* ---- Reciprocal table ----------------------------------------------------- */

#define DIV_TABLE_SIZE 32769

static int32_t div_table[DIV_TABLE_SIZE];

const int32_t *
vh_adm_div_table (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    div_table[0] = 0;
    for (int i = 1; i < DIV_TABLE_SIZE; i++)
      div_table[i] = (int32_t) ((1 << 30) / i);
    g_once_init_leave (&done, 1);
  }
  return div_table;
}
