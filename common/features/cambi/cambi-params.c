/* vmafhip — CAMBI's options and the parameters derived from them
 * (vh_cambi_plan), shared by the CPU extractor (cambi.c) and the GPU
 * backend (common/gpu/features/cambi-gpu.c): libvmaf 3.2.0's option rules, its
 * luminance model (BT.1886 or PQ, 10-bit limited range) and the
 * threshold-versus-intensity limits found by its bisection. */
#include <math.h>
#include <string.h>

#include "cambi.h"
#include "vh-feature.h"

#define MIN_WIDTH_HEIGHT 216
#define DEFAULT_TOPK 0.6

/* suprathreshold contrast response per luma step */
static const int contrast_weights[VH_CAMBI_MAX_DIFFS] = {1, 2, 3, 4, 4, 5, 5,
    6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

int
vh_cambi_contrast_weight (int d)
{
  return contrast_weights[d];
}

/* libvmaf's reciprocal table: 1/i printed with 9 significant digits, read
 * back as float (42 entries are not 1.0f / i, and libvmaf multiplies by
 * the table's values); entry 0 is 0.  Built once, locale-independent. */
static float reciprocal[VH_CAMBI_RECIPROCAL_SIZE];

static gpointer
fill_reciprocal (gpointer unused)
{
  (void) unused;
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  for (int i = 1; i < VH_CAMBI_RECIPROCAL_SIZE; i++)
    reciprocal[i] = (float) g_ascii_strtod (g_ascii_formatd (text,
            sizeof text, "%.9g", 1.0 / i), NULL);
  return NULL;
}

const float *
vh_cambi_reciprocal (void)
{
  static GOnce once = G_ONCE_INIT;
  g_once (&once, fill_reciprocal, NULL);
  return reciprocal;
}

static const char *const eotf_names[] = {"bt1886", "pq", NULL};

#define OPT(f) offsetof (VhCambiOptions, f)
const VhOptionDesc vh_cambi_options[] = {
  {"cambi_max_val", "cmxv", VH_OPT_DOUBLE, 1000.0, 0.0, 1000.0,
      OPT (cambi_max_val), true},
  /* 0 = the picture's size / depth (libvmaf's ranges apply when set) */
  {"enc_width", "encw", VH_OPT_INT, 0, 180, 7680, OPT (enc_width), true},
  {"enc_height", "ench", VH_OPT_INT, 0, 150, 7680, OPT (enc_height), true},
  {"enc_bitdepth", "encbd", VH_OPT_INT, 0, 6, 16, OPT (enc_bitdepth), true},
  {"src_width", "srcw", VH_OPT_INT, 0, 320, 7680, OPT (src_width), true},
  {"src_height", "srch", VH_OPT_INT, 0, 200, 4320, OPT (src_height), true},
  {"window_size", "ws", VH_OPT_INT, 65, 15, 127, OPT (window_size), true},
  {"topk", NULL, VH_OPT_DOUBLE, DEFAULT_TOPK, 0.0001, 1.0, OPT (topk), true},
  {"cambi_topk", "ctpk", VH_OPT_DOUBLE, DEFAULT_TOPK, 0.0001, 1.0,
      OPT (cambi_topk), true},
  {"tvi_threshold", "tvit", VH_OPT_DOUBLE, 0.019, 0.0001, 1.0,
      OPT (tvi_threshold), true},
  {"cambi_vis_lum_threshold", "vlt", VH_OPT_DOUBLE, 0.0, 0.0, 300.0,
      OPT (cambi_vis_lum_threshold), true},
  {"max_log_contrast", "mlc", VH_OPT_INT, 2, 0, 5, OPT (max_log_contrast),
      true},
  {"full_ref", NULL, VH_OPT_BOOL, 0, 0, 1, OPT (full_ref), false},
  {"eotf", NULL, VH_OPT_ENUM, VH_CAMBI_EOTF_BT1886, 0, 1, OPT (eotf), true},
  {"cambi_eotf", "ceot", VH_OPT_ENUM, VH_CAMBI_EOTF_BT1886, 0, 1, OPT (cambi_eotf),
      true},
  {"cambi_high_res_speedup", "hrs", VH_OPT_INT, 0, 0, 2160,
      OPT (cambi_high_res_speedup), true},
  {"heatmaps_path", NULL, VH_OPT_STRING, 0, 0, 0, OPT (heatmaps_path),
      false},
  {NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false},
};

const char *const *
vh_cambi_enum_names (const char *option)
{
  (void) option;                /* both enums are EOTFs */
  return eotf_names;
}


/* ---- luminance model (libvmaf's luminance_tools, 10-bit limited range) */

#define LUMA_FOOT 64
#define LUMA_HEAD 940

static double
bt1886 (double v)
{
  const double gamma = 2.4, lw = 300.0, lb = 0.01;
  double a = pow (pow (lw, 1.0 / gamma) - pow (lb, 1.0 / gamma), gamma);
  double b = pow (lb, 1.0 / gamma) /
      (pow (lw, 1.0 / gamma) - pow (lb, 1.0 / gamma));
  return a * pow (MAX (v + b, 0), gamma);
}

static double
pq (double v)
{
  const double m_1 = 0.1593017578125, m_2 = 78.84375;
  const double c_1 = 0.8359375, c_2 = 18.8515625, c_3 = 18.6875;
  double num = pow (v, 1.0 / m_2) - c_1;
  double num_clipped = MAX (num, 0);
  double den = c_2 - c_3 * pow (v, 1.0 / m_2);
  return 10000 * pow (num_clipped / den, 1.0 / m_1);
}

static double
luminance (int sample, int eotf)
{
  int s = CLAMP (sample, LUMA_FOOT, LUMA_HEAD);
  double v = (double) (s - LUMA_FOOT) / (LUMA_HEAD - LUMA_FOOT);
  return eotf == VH_CAMBI_EOTF_PQ ? pq (v) : bt1886 (v);
}

/* Is a step of `diff` above `sample` visible (relative luminance step over
 * the threshold)? */
static bool
tvi_visible (int sample, int diff, double tvi, int eotf)
{
  double mean = luminance (sample, eotf);
  return luminance (sample + diff, eotf) - mean > tvi * mean;
}

/* -1: too small, 0: `sample` is the highest visible one, 1: too big */
static int
tvi_where (int sample, int diff, double tvi, int eotf)
{
  if (!tvi_visible (sample, diff, tvi, eotf))
    return 1;
  if (tvi_visible (sample + 1, diff, tvi, eotf))
    return -1;
  return 0;
}

/* The highest 10-bit value at which a step of `diff` is visible, found by
 * libvmaf's bisection (its end cases included) */
static int
tvi_for_diff (int diff, double tvi, int eotf)
{
  int foot = LUMA_FOOT, head = LUMA_HEAD - diff - 1, w;
  w = tvi_where (foot, diff, tvi, eotf);
  if (w > 0)
    return 0;
  if (w == 0)
    return foot;
  w = tvi_where (head, diff, tvi, eotf);
  if (w < 0)
    return 1023;
  if (w == 0)
    return head;
  for (;;) {
    int mid = foot + (head - foot) / 2;
    w = tvi_where (mid, diff, tvi, eotf);
    if (w > 0)
      head = mid;
    else if (w < 0)
      foot = mid;
    else
      return mid;
  }
}

/* The lowest value whose luminance reaches `threshold` (0 if the foot's) */
static uint16_t
vlt_luma (double threshold, int eotf)
{
  uint16_t sample = LUMA_FOOT;
  while (luminance (sample, eotf) < threshold)
    sample++;
  return sample == LUMA_FOOT ? 0 : sample;
}

/* libvmaf's window: scaled by (w + h) / (3840 + 2160), halved with the
 * high-resolution speed-up, made odd */
static unsigned
adjust_window (unsigned window, unsigned w, unsigned h, bool speedup)
{
  uint16_t ws = (uint16_t) (((window * (w + h)) / 375) >> 4);
  if (speedup)
    ws = (ws + 1) >> 1;
  return ws | 1;
}

gboolean
vh_cambi_plan (const VhCambiOptions *o, const VhVideoInfo *info,
    VhCambiPlan *s, GError **error)
{
  unsigned w = info->width, h = info->height;

  memset (s, 0, sizeof *s);
  if (info->bpc != 8 && info->bpc != 10 && info->bpc != 12) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "cambi: unsupported bit depth %u (8, 10 or 12)", info->bpc);
    return FALSE;
  }
  s->bpc = info->bpc;
  s->width = w;
  s->height = h;
  s->full_ref = o->full_ref;
  s->heatmaps = o->heatmaps_path[0] != '\0';
  s->enc_bitdepth = o->enc_bitdepth ? (unsigned) o->enc_bitdepth : info->bpc;
  s->enc_w = o->enc_width && o->enc_height ? (unsigned) o->enc_width : w;
  s->enc_h = o->enc_width && o->enc_height ? (unsigned) o->enc_height : h;
  s->src_w = o->src_width && o->src_height ? (unsigned) o->src_width : w;
  s->src_h = o->src_width && o->src_height ? (unsigned) o->src_height : h;
  /* a downscaled encode is not scaled back up */
  if (s->enc_h > h || s->enc_w > w) {
    s->enc_w = w;
    s->enc_h = h;
  }
  if (s->enc_w < MIN_WIDTH_HEIGHT && s->enc_h < MIN_WIDTH_HEIGHT) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi: picture (encode size) %ux%u too small: width or height "
        "must be at least %d", s->enc_w, s->enc_h, MIN_WIDTH_HEIGHT);
    return FALSE;
  }
  if (s->src_w < MIN_WIDTH_HEIGHT && s->src_h < MIN_WIDTH_HEIGHT) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi: source size %ux%u too small: width or height must be at "
        "least %d", s->src_w, s->src_h, MIN_WIDTH_HEIGHT);
    return FALSE;
  }
  if ((s->src_w > s->enc_w && s->src_h < s->enc_h)
      || (s->src_w < s->enc_w && s->src_h > s->enc_h)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi: source size %ux%u and encode size %ux%u are not scaled the "
        "same way in both dimensions", s->src_w, s->src_h, s->enc_w,
        s->enc_h);
    return FALSE;
  }
  unsigned enc_pix = s->enc_w * s->enc_h;
  switch (o->cambi_high_res_speedup) {
    case 1080: s->speedup = enc_pix >= 1920u * 1080; break;
    case 1440: s->speedup = enc_pix >= 2560u * 1440; break;
    case 2160: s->speedup = enc_pix >= 3840u * 2160; break;
    default: s->speedup = false; break;
  }

  s->max_val = o->cambi_max_val;
  /* a non-default topk wins over cambi_topk */
  s->topk = o->topk != DEFAULT_TOPK ? o->topk : o->cambi_topk;
  s->num_diffs = 1 << o->max_log_contrast;
  /* a non-default cambi_eotf wins over eotf */
  int eotf = o->cambi_eotf != VH_CAMBI_EOTF_BT1886 ? o->cambi_eotf : o->eotf;
  for (int d = 0; d < s->num_diffs; d++)
    s->tvi[d] = (uint16_t) (tvi_for_diff (d + 1, o->tvi_threshold, eotf)
        + s->num_diffs);
  s->vlt_luma = vlt_luma (o->cambi_vis_lum_threshold, eotf);

  s->window = adjust_window (o->window_size, s->enc_w, s->enc_h, s->speedup);
  s->src_window = adjust_window (o->window_size, s->src_w, s->src_h,
      s->speedup);
  unsigned max_window = MAX (s->window, s->src_window);
  if (max_window * max_window >= VH_CAMBI_RECIPROCAL_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi: window_size %d gives a %u-pixel window at %ux%u, larger "
        "than libvmaf's limit of 65", o->window_size, max_window, s->enc_w,
        s->enc_h);
    return FALSE;
  }
  /* The window's first rows and columns are read at the full size before
   * any scale; libvmaf reads outside its picture when they pass its edge. */
  for (int pass = 0; pass < 1 + s->full_ref; pass++) {
    unsigned pw = pass ? s->src_w : s->enc_w, ph = pass ? s->src_h : s->enc_h;
    unsigned half = (pass ? s->src_window : s->window) >> 1;
    if (half >= pw || half >= ph) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "cambi: picture %ux%u too small for its %u-pixel window", pw, ph,
          2 * half + 1);
      return FALSE;
    }
  }

  int lo = (int) s->vlt_luma - 3 * s->num_diffs + 1;
  s->band_base = lo > 0 ? (uint16_t) lo : 0;
  s->band_size = (uint16_t) (s->tvi[s->num_diffs - 1] + 1 - s->band_base);
  return TRUE;
}

static unsigned
ceil_log2 (uint32_t n)
{
  unsigned shift = 0;
  if (!n)
    return 0;
  for (uint32_t t = n - 1; t; t >>= 1)
    shift++;
  return shift;
}

uint32_t
vh_cambi_mask_index (unsigned w, unsigned h)
{
  return (VH_CAMBI_MASK_FILTER * VH_CAMBI_MASK_FILTER
      + 3 * ((int) ceil_log2 ((w >> 6) * (h >> 6)) - 11) - 1) >> 1;
}

void
vh_cambi_scale_sizes (unsigned w, unsigned h, bool speedup,
    unsigned sw[VH_CAMBI_SCALES], unsigned sh[VH_CAMBI_SCALES])
{
  for (int scale = 0; scale < VH_CAMBI_SCALES; scale++) {
    if (scale > 0 || speedup) {
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
    }
    sw[scale] = w;
    sh[scale] = h;
  }
}

int
vh_cambi_topk_count (double topk, int n)
{
  return CLAMP ((int) (topk * n), 1, n);
}

double
vh_cambi_combine (const double per_scale[VH_CAMBI_SCALES], unsigned window)
{
  static const int scale_weights[VH_CAMBI_SCALES] = {16, 8, 4, 2, 1};
  double sum = 0.0;
  for (int scale = 0; scale < VH_CAMBI_SCALES; scale++)
    sum += per_scale[scale] * scale_weights[scale];
  return sum / (uint16_t) (window * window);
}
