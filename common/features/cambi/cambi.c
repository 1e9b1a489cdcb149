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

#include "cambi.h"
#include "vh-feature.h"
#include "vh-multiversion.h"

#define NUM_SCALES VH_CAMBI_SCALES
#define MASK_FILTER_SIZE VH_CAMBI_MASK_FILTER

typedef struct {
  VhCambiPlan p;
  const float *reciprocal;      /* vh_cambi_reciprocal () */
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
  unsigned w = s->p.enc_w, h = s->p.enc_h;
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
  int max_weight = vh_cambi_contrast_weight (0);
  for (int d = 0; d < s->p.num_diffs; d++)
    max_weight = MAX (max_weight, vh_cambi_contrast_weight (d));
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
  const VhCambiOptions *o = opts_;

  if (!vh_cambi_plan (o, info, &s->p, error))
    return FALSE;
  s->reciprocal = vh_cambi_reciprocal ();
  unsigned aw = s->p.full_ref ? MAX (s->p.src_w, s->p.enc_w) : s->p.enc_w;
  unsigned ah = s->p.full_ref ? MAX (s->p.src_h, s->p.enc_h) : s->p.enc_h;
  s->stride = aw;
  s->image = g_new (uint16_t, (size_t) aw * ah);
  s->mask = g_new (uint16_t, (size_t) aw * ah);
  s->hist = g_new (uint16_t, (size_t) aw * s->p.band_size);
  s->mode_rows = g_new (uint16_t, 3 * (size_t) aw);
  s->deriv = g_new (uint16_t, MASK_FILTER_SIZE * (size_t) aw);
  s->colsum = g_new (uint32_t, aw + 2 * (MASK_FILTER_SIZE / 2));
  s->c_values = g_new (float, (size_t) aw * ah);
  if (!open_heatmaps (s, o->heatmaps_path, error)) {
    cambi_close (s);          /* the engine closes only what started */
    return FALSE;
  }
  return TRUE;
}

/* ---- preprocessing: to 10 bits at the encode size */

/* One planar row to 10 bits, as TO10 below: a loop per depth, so that
 * each vectorises */
VH_MULTIVERSION static void
convert_row_to10 (const uint8_t *src, unsigned bpc, unsigned w,
    uint16_t *restrict out)
{
  if (bpc == 8) {
    for (unsigned j = 0; j < w; j++)
      out[j] = (uint16_t) (src[j] << 2);
    return;
  }
  const uint16_t *s16 = (const uint16_t *) src;
  if (bpc <= 10) {
    for (unsigned j = 0; j < w; j++)
      out[j] = s16[j];
    return;
  }
  const unsigned down = bpc - 10, round = 1u << (down - 1);
  for (unsigned j = 0; j < w; j++)
    out[j] = (uint16_t) ((s16[j] + round) >> down);
}

static gboolean
preprocess (CambiState *s, const VhPlane *p, unsigned out_w, unsigned out_h)
{
  const unsigned in_w = p->width, in_h = p->height, bpc = s->p.bpc;
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
  if (in_w == out_w && in_h == out_h && p->step == 1) {
    for (unsigned i = 0; i < out_h; i++)
      convert_row_to10 ((const uint8_t *) p->data + (ptrdiff_t) i * p->stride,
          bpc, out_w, out + (size_t) i * s->stride);
  } else if (in_w == out_w && in_h == out_h) {
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

  if (s->p.enc_bitdepth < 10) {
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

/* One row of the mask from the window's column counts (col[-3 .. w+2],
 * zero outside the picture): each pixel's seven columns added anew rather
 * than a running sum, so that the loop vectorises */
VH_MULTIVERSION static void
mask_row (const uint32_t *col, unsigned w, uint32_t index,
    uint16_t *restrict m)
{
  const int pad = MASK_FILTER_SIZE / 2;
  for (int c = 0; c < (int) w; c++) {
    uint32_t sum = 0;
    for (int k = -pad; k <= pad; k++)
      sum += col[c + k];
    m[c] = sum > index;
  }
}

/* mask = (count of zero-derivative pixels in the 7x7 window, zero outside
 * the picture) > index; an exact integer count, so summed any way */
static void
spatial_mask (CambiState *s, unsigned w, unsigned h)
{
  const int pad = MASK_FILTER_SIZE / 2;
  const unsigned st = s->stride;
  const uint32_t index = vh_cambi_mask_index (w, h);
  /* zeros on either side: the windows at the edges count nothing there */
  uint32_t *col = s->colsum + pad;

  memset (s->colsum, 0, (w + 2 * pad) * sizeof *col);
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
    mask_row (col, w, index, s->mask + (size_t) i * st);
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
    uint16_t v = (uint16_t) (img[j] - s->p.band_base);
    if (v >= s->p.band_size)
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
  const int nd = s->p.num_diffs;
  float *out = s->c_values + (size_t) row * w;
  for (int col = 0; col < w; col++) {
    float c = 0.0f;
    int cv = (int) img[col] - (int) s->p.band_base;
    if (m[col] && (unsigned) cv < s->p.band_size) {
      int value = img[col] + nd;
      unsigned p0 = s->hist[(size_t) cv * w + col];
      for (int d = 0; d < nd; d++) {
        if (value > s->p.tvi[d] || value + d + 1 <= s->p.vlt_luma)
          continue;
        int i1 = cv + d + 1, i2 = cv - d - 1;
        unsigned p1 = s->hist[(size_t) i1 * w + col];
        unsigned p2 = i2 >= 0 ? s->hist[(size_t) i2 * w + col] : 0;
        unsigned pm = MAX (p1, p2);
        float val = (float) (vh_cambi_contrast_weight (d) * (int) (p0 * pm))
            * s->reciprocal[pm + p0];
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
  memset (s->hist, 0, (size_t) w * s->p.band_size * sizeof *s->hist);
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
  int k = vh_cambi_topk_count (topk, n);
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
  unsigned w = is_src ? s->p.src_w : s->p.enc_w, h = is_src ? s->p.src_h : s->p.enc_h;
  unsigned window = is_src ? s->p.src_window : s->p.window;
  double per_scale[NUM_SCALES];

  if (!preprocess (s, p, w, h)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi: frame %u has luma samples above %u bits", index, s->p.bpc);
    return FALSE;
  }
  spatial_mask (s, w, h);
  unsigned sw[NUM_SCALES], sh[NUM_SCALES];
  vh_cambi_scale_sizes (w, h, s->p.speedup, sw, sh);
  for (int scale = 0; scale < NUM_SCALES; scale++) {
    w = sw[scale];
    h = sh[scale];
    if (scale > 0 || s->p.speedup) {
      decimate (s->image, s->stride, w, h);
      decimate (s->mask, s->stride, w, h);
    }
    filter_mode (s, w, h);
    c_values (s, window, (int) w, (int) h);
    /* libvmaf dumps the distorted picture's maps only */
    if (s->heatmap_row && !is_src
        && !write_heatmap (s, scale, w, h, window, index, error))
      return FALSE;
    per_scale[scale] = pool_topk (s->c_values, s->p.topk, (int) (w * h));
  }
  *score = vh_cambi_combine (per_scale, window);
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
  vh_feature_sink_put (sink, "cambi", index, MIN (dist, s->p.max_val));
  if (s->p.full_ref) {
    if (!score_picture (s, &ref->plane[0], true, index, &src, error))
      return FALSE;
    /* libvmaf prints these two without the option suffix */
    vh_feature_sink_put_plain (sink, "cambi_source", index,
        MIN (src, s->p.max_val));
    vh_feature_sink_put_plain (sink, "cambi_full_reference", index,
        MIN (MAX (0, dist - src), s->p.max_val));
  }
  return TRUE;
}

/* One picture's score from the GPU's exact top-k sums: each scale's mean,
 * then the same score as score_picture's */
static gboolean
score_from_pass (const CambiState *s, const VhCambiPass *g, bool is_src,
    unsigned index, double *score, GError **error)
{
  if (g->bad_samples) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi: frame %u has luma samples above %u bits", index, s->p.bpc);
    return FALSE;
  }
  const unsigned w = is_src ? s->p.src_w : s->p.enc_w;
  const unsigned h = is_src ? s->p.src_h : s->p.enc_h;
  double per_scale[NUM_SCALES];
  unsigned sw[NUM_SCALES], sh[NUM_SCALES];
  vh_cambi_scale_sizes (w, h, s->p.speedup, sw, sh);
  for (int scale = 0; scale < NUM_SCALES; scale++) {
    const int k = vh_cambi_topk_count (s->p.topk, (int) (sw[scale]
            * sh[scale]));
    per_scale[scale] = ldexp ((double) g->topk_sum[scale], -24) / k;
  }
  *score = vh_cambi_combine (per_scale, is_src ? s->p.src_window
      : s->p.window);
  return TRUE;
}

/* The GPU's sums (VhCambiSums): the keys cambi_extract puts */
static gboolean
cambi_extract_sums (void *priv, const void *sums, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  const CambiState *s = priv;
  const VhCambiSums *g = sums;
  double dist, src;
  if (!score_from_pass (s, &g->dis, false, index, &dist, error))
    return FALSE;
  vh_feature_sink_put (sink, "cambi", index, MIN (dist, s->p.max_val));
  if (s->p.full_ref) {
    if (!score_from_pass (s, &g->src, true, index, &src, error))
      return FALSE;
    vh_feature_sink_put_plain (sink, "cambi_source", index,
        MIN (src, s->p.max_val));
    vh_feature_sink_put_plain (sink, "cambi_full_reference", index,
        MIN (MAX (0, dist - src), s->p.max_val));
  }
  return TRUE;
}

const VhFeatureExtractor vh_fex_cambi = {
  .name = "cambi",
  .options = vh_cambi_options,
  .opts_size = sizeof (VhCambiOptions),
  .priv_size = sizeof (CambiState),
  .init = cambi_init,
  .extract = cambi_extract,
  .extract_sums = cambi_extract_sums,
  .close = cambi_close,
  .enum_names = vh_cambi_enum_names,
};
