/* vmafhip — CAMBI, libvmaf 3.2.0's no-reference banding detector (`cambi`).
 *
 * On the distorted luma: convert to 10 bits (nearest-neighbour resize to
 * the encode size, a 2x2 anti-dithering mean when the encode had fewer
 * than 10 bits), a spatial mask of flat pixels (7x7 count of pixels equal
 * to their right and lower neighbours), then over 5 scales (halved each
 * time, in place): a 3x3 mode filter, per masked pixel a contrast value
 * from sliding-window histograms of the masked pixels' values (the largest
 * over luma steps d of w_d p0 max(p1, p2) / (p0 + max), for steps that the
 * BT.1886 or PQ threshold-versus-intensity model deems visible), the mean
 * of the top-k values; the scales weighted 16, 8, 4, 2, 1 over the window's
 * pixel count.  Everything is integer except the contrast values (float,
 * libvmaf's reciprocal table, rebuilt from its rule) and the pooling (double), which follow
 * libvmaf's order of operations, quick-select included, so the scores are
 * the same doubles.  The buffers are the encode size and the scales work in
 * place, as libvmaf's do: with small pictures the window reaches past a
 * scale's rows and reads what earlier scales left there, as libvmaf does.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "vh-feature-internal.h"
#include "vh-multiversion.h"

#define NUM_SCALES 5
#define MASK_FILTER_SIZE 7
#define MIN_WIDTH_HEIGHT 216
#define DEFAULT_TOPK 0.6

static const int scale_weights[NUM_SCALES] = {16, 8, 4, 2, 1};
/* suprathreshold contrast response per luma step */
static const int contrast_weights[32] = {1, 2, 3, 4, 4, 5, 5, 6, 6, 6, 6, 7,
    7, 7, 7, 8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9};

/* libvmaf's reciprocal table: 1/i printed with 9 significant digits, read
 * back as float (42 entries are not 1.0f / i, and libvmaf multiplies by
 * the table's values); entry 0 is 0.  Built once, locale-independent. */
#define RECIPROCAL_SIZE 4226
static float reciprocal[RECIPROCAL_SIZE];

static gpointer
fill_reciprocal (gpointer unused)
{
  (void) unused;
  char text[G_ASCII_DTOSTR_BUF_SIZE];
  for (int i = 1; i < RECIPROCAL_SIZE; i++)
    reciprocal[i] = (float) g_ascii_strtod (g_ascii_formatd (text,
            sizeof text, "%.9g", 1.0 / i), NULL);
  return NULL;
}

enum { EOTF_BT1886, EOTF_PQ };
static const char *const eotf_names[] = {"bt1886", "pq", NULL};

typedef struct {
  double cambi_max_val;
  int enc_width, enc_height, enc_bitdepth;
  int src_width, src_height;
  int window_size;
  double topk, cambi_topk;
  double tvi_threshold;
  double cambi_vis_lum_threshold;
  int max_log_contrast;
  bool full_ref;
  int eotf, cambi_eotf;
  int cambi_high_res_speedup;
  char heatmaps_path[VH_OPT_STRING_SIZE];
} CambiOptions;

typedef struct {
  unsigned bpc;                 /* input */
  unsigned enc_w, enc_h, src_w, src_h, enc_bitdepth;
  unsigned window, src_window;  /* adjusted window sizes (odd) */
  bool speedup;                 /* halve before the first scale */
  bool full_ref;
  double topk, max_val;
  int num_diffs;
  uint16_t tvi[32];             /* per step: highest value (+num_diffs) */
  uint16_t vlt_luma;
  uint16_t band_base, band_size; /* the values the histograms keep */
  unsigned stride;              /* samples per buffer row */
  uint16_t *image, *mask;       /* alloc_w x alloc_h, worked in place */
  uint16_t *hist;               /* band_size rows of alloc_w counts */
  uint16_t *mode_rows;          /* 3 rows for the mode filter */
  uint16_t *deriv;              /* 7 rows of zero-derivative flags */
  uint32_t *colsum;             /* per column: flags in the 7-row window */
  float *c_values;
  /* heatmaps_path: one file per scale (-1: none); written with pwrite at
   * each frame's offset, so that the engine's workers, each with a state
   * of its own, can share the files */
  int heatmap_fd[NUM_SCALES];
  uint16_t *heatmap_row;
} CambiState;

#define OPT(f) offsetof (CambiOptions, f)
static const VhOptionDesc cambi_options[] = {
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
  {"eotf", NULL, VH_OPT_ENUM, EOTF_BT1886, 0, 1, OPT (eotf), true},
  {"cambi_eotf", "ceot", VH_OPT_ENUM, EOTF_BT1886, 0, 1, OPT (cambi_eotf),
      true},
  {"cambi_high_res_speedup", "hrs", VH_OPT_INT, 0, 0, 2160,
      OPT (cambi_high_res_speedup), true},
  {"heatmaps_path", NULL, VH_OPT_STRING, 0, 0, 0, OPT (heatmaps_path),
      false},
  {NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false},
};

static const char *const *
cambi_enum_names (const char *option)
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
  return eotf == EOTF_PQ ? pq (v) : bt1886 (v);
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

static void
cambi_close (void *priv)
{
  CambiState *s = priv;
  for (int k = 0; k < NUM_SCALES; k++)
    if (s->heatmap_fd[k] >= 0)
      close (s->heatmap_fd[k]);
  g_free (s->heatmap_row);
  g_free (s->image);
  g_free (s->mask);
  g_free (s->hist);
  g_free (s->mode_rows);
  g_free (s->deriv);
  g_free (s->colsum);
  g_free (s->c_values);
}

/* libvmaf's heatmap files, cambi_heatmap_scale_K_WxH_16b.gray, named with
 * the encode size halved per scale (also with the high-resolution
 * speed-up, whose maps are half that), emptied when the feature starts
 * (the engine does not start it again at a reset, and the workers' states
 * open them before any frame is written) */
static gboolean
open_heatmaps (CambiState *s, const char *path, GError **error)
{
  for (int k = 0; k < NUM_SCALES; k++)
    s->heatmap_fd[k] = -1;
  if (!path[0])
    return TRUE;
  if (g_mkdir_with_parents (path, 0770) != 0) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi: heatmaps_path %s: cannot create the folder: %s", path,
        g_strerror (errno));
    return FALSE;
  }
  unsigned w = s->enc_w, h = s->enc_h;
  for (int k = 0; k < NUM_SCALES; k++) {
    char name[64];
    g_snprintf (name, sizeof name, "cambi_heatmap_scale_%d_%ux%u_16b.gray", k,
        w, h);
    char *file = g_build_filename (path, name, NULL);
    const int fd = g_open (file, O_WRONLY | O_CREAT, 0666);
    if (fd < 0 || ftruncate (fd, 0) != 0) {
      g_set_error (error, VH_ERROR, VH_ERROR_IO,
          "cambi: heatmaps_path: cannot write %s: %s", file,
          g_strerror (errno));
      if (fd >= 0)
        close (fd);
      g_free (file);
      for (int j = 0; j < k; j++) {
        close (s->heatmap_fd[j]);
        s->heatmap_fd[j] = -1;
      }
      return FALSE;
    }
    g_free (file);
    s->heatmap_fd[k] = fd;
    w = (w + 1) >> 1;
    h = (h + 1) >> 1;
  }
  s->heatmap_row = g_new (uint16_t, s->stride);
  return TRUE;
}

/* One scale's contrast values as libvmaf dumps them: scaled so that the
 * largest possible value (the top step weight times a quarter of the
 * window) is 65535, truncated to 16 bits, frame `index` at its offset. */
static gboolean
write_heatmap (CambiState *s, int scale, unsigned w, unsigned h,
    unsigned window, unsigned index, GError **error)
{
  int max_weight = contrast_weights[0];
  for (int d = 0; d < s->num_diffs; d++)
    max_weight = MAX (max_weight, contrast_weights[d]);
  const int max_c = max_weight * (int) window * (int) window / 4;
  const double scaling = (double) ((1 << 16) - 1) / max_c;
  for (unsigned i = 0; i < h; i++) {
    const float *c = s->c_values + (size_t) i * w;
    for (unsigned j = 0; j < w; j++)
      s->heatmap_row[j] = (uint16_t) (scaling * c[j]);
    const off_t at = ((off_t) index * h + i) * w * sizeof (uint16_t);
    const size_t bytes = w * sizeof (uint16_t);
    if (pwrite (s->heatmap_fd[scale], s->heatmap_row, bytes, at)
        != (ssize_t) bytes) {
      g_set_error (error, VH_ERROR, VH_ERROR_IO,
          "cambi: writing the heatmap of scale %d, frame %u: %s", scale,
          index, g_strerror (errno));
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean
cambi_init (void *priv, const void *opts_, const VhVideoInfo *info,
    GError **error)
{
  CambiState *s = priv;
  const CambiOptions *o = opts_;
  unsigned w = info->width, h = info->height;
  static GOnce reciprocal_once = G_ONCE_INIT;
  g_once (&reciprocal_once, fill_reciprocal, NULL);

  if (info->bpc != 8 && info->bpc != 10 && info->bpc != 12) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "cambi: unsupported bit depth %u (8, 10 or 12)", info->bpc);
    return FALSE;
  }
  s->bpc = info->bpc;
  s->full_ref = o->full_ref;
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
  int eotf = o->cambi_eotf != EOTF_BT1886 ? o->cambi_eotf : o->eotf;
  for (int d = 0; d < s->num_diffs; d++)
    s->tvi[d] = (uint16_t) (tvi_for_diff (d + 1, o->tvi_threshold, eotf)
        + s->num_diffs);
  s->vlt_luma = vlt_luma (o->cambi_vis_lum_threshold, eotf);

  s->window = adjust_window (o->window_size, s->enc_w, s->enc_h, s->speedup);
  s->src_window = adjust_window (o->window_size, s->src_w, s->src_h,
      s->speedup);
  unsigned max_window = MAX (s->window, s->src_window);
  if (max_window * max_window >= RECIPROCAL_SIZE) {
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

  unsigned aw = s->full_ref ? MAX (s->src_w, s->enc_w) : s->enc_w;
  unsigned ah = s->full_ref ? MAX (s->src_h, s->enc_h) : s->enc_h;
  s->stride = aw;
  s->image = g_new (uint16_t, (size_t) aw * ah);
  s->mask = g_new (uint16_t, (size_t) aw * ah);
  s->hist = g_new (uint16_t, (size_t) aw * s->band_size);
  s->mode_rows = g_new (uint16_t, 3 * (size_t) aw);
  s->deriv = g_new (uint16_t, MASK_FILTER_SIZE * (size_t) aw);
  s->colsum = g_new (uint32_t, aw);
  s->c_values = g_new (float, (size_t) aw * ah);
  return open_heatmaps (s, o->heatmaps_path, error);
}

/* ---- preprocessing: to 10 bits at the encode size */

static gboolean
preprocess (CambiState *s, const VhPlane *p, unsigned out_w, unsigned out_h)
{
  const unsigned in_w = p->width, in_h = p->height, bpc = s->bpc;
  const unsigned maxv = (1u << bpc) - 1;
  uint16_t *out = s->image;

  /* libvmaf refuses samples above the bit depth */
  if (bpc > 8) {
    for (unsigned i = 0; i < in_h; i++)
      for (unsigned j = 0; j < in_w; j++)
        if (vh_plane_sample (p, bpc, j, i) > maxv)
          return FALSE;
  }
  const int up = bpc == 8 ? 2 : 0, down = bpc > 10 ? (int) bpc - 10 : 0;
  const unsigned round = down ? 1u << (down - 1) : 0;
#define TO10(v) ((uint16_t) (up ? (v) << up : ((v) + round) >> down))
  if (in_w == out_w && in_h == out_h) {
    for (unsigned i = 0; i < out_h; i++)
      for (unsigned j = 0; j < out_w; j++)
        out[i * s->stride + j] = TO10 (vh_plane_sample (p, bpc, j, i));
  } else {
    /* libvmaf's nearest neighbour, positions stepped in float */
    float ratio_x = (float) in_w / out_w, ratio_y = (float) in_h / out_h;
    float start_x = ratio_x / 2 - 0.5, y = ratio_y / 2 - 0.5;
    for (unsigned i = 0; i < out_h; i++) {
      unsigned oy = (int) (y + 0.5);
      float x = start_x;
      for (unsigned j = 0; j < out_w; j++) {
        unsigned ox = (int) (x + 0.5);
        out[i * s->stride + j] = TO10 (vh_plane_sample (p, bpc, ox, oy));
        x += ratio_x;
      }
      y += ratio_y;
    }
  }
#undef TO10

  if (s->enc_bitdepth < 10) {
    /* anti-dithering: mean of each 2x2 (2x1 at the last column / row); in
     * place, each output reads only samples not yet rewritten */
    const unsigned st = s->stride;
    for (unsigned i = 0; i + 1 < out_h; i++) {
      uint16_t *r = out + i * st, *n = r + st;
      for (unsigned j = 0; j + 1 < out_w; j++)
        r[j] = (r[j] + r[j + 1] + n[j] + n[j + 1]) >> 2;
      r[out_w - 1] = (r[out_w - 1] + n[out_w - 1]) >> 1;
    }
    uint16_t *r = out + (out_h - 1) * st;
    for (unsigned j = 0; j + 1 < out_w; j++)
      r[j] = (r[j] + r[j + 1]) >> 1;
  }
  return TRUE;
}

/* ---- spatial mask */

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

/* 1 where a pixel equals its right and lower neighbours (the picture's
 * edges count as equal); the last column apart, so the loop vectorises */
VH_MULTIVERSION static void
zero_derivative_row (const uint16_t *img, unsigned st, unsigned w,
    unsigned h, unsigned row, uint16_t *out)
{
  const uint16_t *r = img + (size_t) row * st;
  const uint16_t *n = row + 1 < h ? r + st : r;
  for (unsigned c = 0; c + 1 < w; c++)
    out[c] = (uint16_t) ((r[c] == r[c + 1]) & (n[c] == r[c]));
  out[w - 1] = n[w - 1] == r[w - 1];
}

/* mask = (count of zero-derivative pixels in the 7x7 window, zero outside
 * the picture) > index; an exact integer count, so summed any way */
static void
spatial_mask (CambiState *s, unsigned w, unsigned h)
{
  const int pad = MASK_FILTER_SIZE / 2;
  const unsigned st = s->stride;
  const uint32_t index = (MASK_FILTER_SIZE * MASK_FILTER_SIZE
      + 3 * ((int) ceil_log2 ((w >> 6) * (h >> 6)) - 11) - 1) >> 1;
  uint32_t *col = s->colsum;

  memset (col, 0, w * sizeof *col);
  /* rows 0 .. pad-1 enter before the first output row */
  for (int r = 0; r < pad && r < (int) h; r++) {
    uint16_t *d = s->deriv + (size_t) (r % MASK_FILTER_SIZE) * st;
    zero_derivative_row (s->image, st, w, h, r, d);
    for (unsigned c = 0; c < w; c++)
      col[c] += d[c];
  }
  for (int i = 0; i < (int) h; i++) {
    int in = i + pad, out = i - pad - 1;
    /* the leaving row first: the entering one takes its slot */
    if (out >= 0) {
      const uint16_t *d = s->deriv + (size_t) (out % MASK_FILTER_SIZE) * st;
      for (unsigned c = 0; c < w; c++)
        col[c] -= d[c];
    }
    if (in < (int) h) {
      uint16_t *d = s->deriv + (size_t) (in % MASK_FILTER_SIZE) * st;
      zero_derivative_row (s->image, st, w, h, in, d);
      for (unsigned c = 0; c < w; c++)
        col[c] += d[c];
    }
    uint16_t *m = s->mask + (size_t) i * st;
    uint32_t sum = 0;
    for (int c = 0; c < pad && c < (int) w; c++)
      sum += col[c];
    for (int c = 0; c < (int) w; c++) {
      if (c + pad < (int) w)
        sum += col[c + pad];
      if (c - pad - 1 >= 0)
        sum -= col[c - pad - 1];
      m[c] = sum > index;
    }
  }
}

/* ---- per scale */

static void
decimate (uint16_t *data, unsigned st, unsigned w, unsigned h)
{
  for (unsigned i = 0; i < h; i++)
    for (unsigned j = 0; j < w; j++)
      data[i * st + j] = data[2 * i * st + 2 * j];
}

/* the value two of three share, else the smallest; selects, not
 * branches, so that the loops below vectorise */
static inline uint16_t
mode3 (uint16_t a, uint16_t b, uint16_t c)
{
  const uint16_t smallest = MIN (MIN (a, b), c);
  const uint16_t bc = b == c ? b : smallest;
  return a == b || a == c ? a : bc;
}

/* 3x3 mode, separable (horizontal, then vertical), in place; the outer
 * rows, and the outer columns of the horizontal pass, stay as they are */
VH_MULTIVERSION static void
filter_mode (CambiState *s, unsigned w, unsigned h)
{
  const unsigned st = s->stride;
  uint16_t *data = s->image;
  for (unsigned i = 0; i < h; i++) {
    uint16_t *line = s->mode_rows + (i % 3) * (size_t) w;
    const uint16_t *r = data + (size_t) i * st;
    line[0] = r[0];
    for (unsigned j = 1; j + 1 < w; j++)
      line[j] = mode3 (r[j - 1], r[j], r[j + 1]);
    line[w - 1] = r[w - 1];
    if (i > 1) {
      uint16_t *o = data + (size_t) (i - 1) * st;
      const uint16_t *l0 = s->mode_rows, *l1 = l0 + w, *l2 = l1 + w;
      for (unsigned j = 0; j < w; j++)
        o[j] = mode3 (l0[j], l1[j], l2[j]);
    }
  }
}

/* Adds `delta` (+1 / -1, modulo 2^16 as libvmaf's counts) to the histogram
 * columns within `pad` of each masked in-band pixel of row `row`.  Columns
 * run to max (pad, w) as in libvmaf (with pad >= w it reads past the
 * scale's row, what earlier scales left there).  Masked pixels come in
 * runs of one value (the mask keeps flat areas): a run's windows overlap,
 * so column k takes the number of the run's pixels within `pad` of it in
 * one addition (the same counts modulo 2^16, a window's work per run
 * instead of per pixel). */
VH_MULTIVERSION static void
hist_row (CambiState *s, unsigned row, int w, int pad, int delta)
{
  const uint16_t *img = s->image + (size_t) row * s->stride;
  const uint16_t *m = s->mask + (size_t) row * s->stride;
  const int n = MAX (pad, w);
  for (int j = 0; j < n; j++) {
    if (!m[j])
      continue;
    uint16_t v = (uint16_t) (img[j] - s->band_base);
    if (v >= s->band_size)
      continue;
    int last = j;
    while (last + 1 < n && m[last + 1] && img[last + 1] == img[j])
      last++;
    uint16_t *hr = s->hist + (size_t) v * w;
    int lo = MAX (j - pad, 0), hi = MIN (last + pad + 1, w);
    if (last == j) {
      for (int k = lo; k < hi; k++)
        hr[k] = (uint16_t) (hr[k] + delta);
    } else {
      for (int k = lo; k < hi; k++) {
        const int first_in = MAX (j, k - pad), last_in = MIN (last, k + pad);
        hr[k] = (uint16_t) (hr[k] + delta * (last_in - first_in + 1));
      }
    }
    j = last;
  }
}

/* The contrast values of row `row` from the histograms of its windows */
static void
c_values_row (CambiState *s, unsigned row, int w)
{
  const uint16_t *img = s->image + (size_t) row * s->stride;
  const uint16_t *m = s->mask + (size_t) row * s->stride;
  const int nd = s->num_diffs;
  float *out = s->c_values + (size_t) row * w;
  for (int col = 0; col < w; col++) {
    float c = 0.0f;
    int cv = (int) img[col] - (int) s->band_base;
    if (m[col] && (unsigned) cv < s->band_size) {
      int value = img[col] + nd;
      unsigned p0 = s->hist[(size_t) cv * w + col];
      for (int d = 0; d < nd; d++) {
        if (value > s->tvi[d] || value + d + 1 <= s->vlt_luma)
          continue;
        int i1 = cv + d + 1, i2 = cv - d - 1;
        unsigned p1 = s->hist[(size_t) i1 * w + col];
        unsigned p2 = i2 >= 0 ? s->hist[(size_t) i2 * w + col] : 0;
        unsigned pm = MAX (p1, p2);
        float val = (float) (contrast_weights[d] * (int) (p0 * pm))
            * reciprocal[pm + p0];
        if (val > c)
          c = val;
      }
    }
    out[col] = c;
  }
}

/* libvmaf's three row loops: windows entering at the top, sliding, leaving
 * at the bottom (for pictures shorter than the window, rows of the first
 * and last loops overlap and are computed twice, the second time winning) */
static void
c_values (CambiState *s, unsigned window, int w, int h)
{
  const int pad = window >> 1;
  memset (s->hist, 0, (size_t) w * s->band_size * sizeof *s->hist);
  for (int i = 0; i < pad; i++)
    hist_row (s, i, w, pad, 1);
  for (int i = 0; i < pad + 1; i++) {
    if (i + pad < h)
      hist_row (s, i + pad, w, pad, 1);
    c_values_row (s, i, w);
  }
  for (int i = pad + 1; i < h - pad; i++) {
    hist_row (s, i - pad - 1, w, pad, -1);
    hist_row (s, i + pad, w, pad, 1);
    c_values_row (s, i, w);
  }
  for (int i = MAX (h - pad, 0); i < h; i++) {
    if (i - pad - 1 >= 0)
      hist_row (s, i - pad - 1, w, pad, -1);
    c_values_row (s, i, w);
  }
}

/* libvmaf's quick-select (Hoare partition, descending): the k largest
 * first, in the order its sum then takes them */
static void
quick_select (float *a, int n, int k)
{
  if (n == k)
    return;
  int left = 0, right = n - 1;
  while (left < right) {
    float pivot = a[k];
    int i = left, j = right;
    do {
      while (a[i] > pivot)
        i++;
      while (a[j] < pivot)
        j--;
      if (i <= j) {
        float t = a[i];
        a[i] = a[j];
        a[j] = t;
        i++;
        j--;
      }
    } while (i <= j);
    if (j < k)
      left = i;
    if (k < i)
      right = j;
  }
}

static double
pool_topk (float *c, double topk, int n)
{
  int k = CLAMP ((int) (topk * n), 1, n);
  quick_select (c, n, k);
  double sum = 0;
  for (int i = 0; i < k; i++)
    sum += c[i];
  return sum / k;
}

static gboolean
score_picture (CambiState *s, const VhPlane *p, bool is_src, unsigned index,
    double *score, GError **error)
{
  unsigned w = is_src ? s->src_w : s->enc_w, h = is_src ? s->src_h : s->enc_h;
  unsigned window = is_src ? s->src_window : s->window;
  double per_scale[NUM_SCALES];

  if (!preprocess (s, p, w, h)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi: frame %u has luma samples above %u bits", index, s->bpc);
    return FALSE;
  }
  spatial_mask (s, w, h);
  for (int scale = 0; scale < NUM_SCALES; scale++) {
    if (scale > 0 || s->speedup) {
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
      decimate (s->image, s->stride, w, h);
      decimate (s->mask, s->stride, w, h);
    }
    filter_mode (s, w, h);
    c_values (s, window, (int) w, (int) h);
    /* libvmaf dumps the distorted picture's maps only */
    if (s->heatmap_row && !is_src
        && !write_heatmap (s, scale, w, h, window, index, error))
      return FALSE;
    per_scale[scale] = pool_topk (s->c_values, s->topk, (int) (w * h));
  }
  double sum = 0.0;
  for (int scale = 0; scale < NUM_SCALES; scale++)
    sum += per_scale[scale] * scale_weights[scale];
  *score = sum / (uint16_t) (window * window);
  return TRUE;
}

static gboolean
cambi_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  CambiState *s = priv;
  double dist, src;

  if (!score_picture (s, &dis->plane[0], false, index, &dist, error))
    return FALSE;
  vh_feature_sink_put (sink, "cambi", index, MIN (dist, s->max_val));
  if (s->full_ref) {
    if (!score_picture (s, &ref->plane[0], true, index, &src, error))
      return FALSE;
    /* libvmaf prints these two without the option suffix */
    vh_feature_sink_put_plain (sink, "cambi_source", index,
        MIN (src, s->max_val));
    vh_feature_sink_put_plain (sink, "cambi_full_reference", index,
        MIN (MAX (0, dist - src), s->max_val));
  }
  return TRUE;
}

const VhFeatureExtractor vh_fex_cambi = {
  .name = "cambi",
  .options = cambi_options,
  .opts_size = sizeof (CambiOptions),
  .priv_size = sizeof (CambiState),
  .init = cambi_init,
  .extract = cambi_extract,
  .close = cambi_close,
  .enum_names = cambi_enum_names,
};
