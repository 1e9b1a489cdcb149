/* vmafhip — CAMBI on the GPU: the host side of kernels/cambi.hip (see
 * cambi-gpu.h). */
#include "cambi-gpu.h"

#include <string.h>

#include "vh-error.h"

#include "cambi-device.h"

#define SCALES VH_CAMBI_SCALES
#define RECIPROCAL_NAME "cambi-reciprocal"
#define RECIPROCAL_BYTES (VH_CAMBI_RECIPROCAL_SIZE * sizeof (float))
#define HIST_BYTES VH_CAMBI_HIST_BYTES

G_STATIC_ASSERT (sizeof (VhCambiPass) == 48);
G_STATIC_ASSERT (sizeof (VhCambiSums) == 2 * sizeof (VhCambiPass));

struct VhCambiGpu {
  VhGpu *gpu;                   /* NULL: host emulation */
  VhGpuFunction *fn_pre, *fn_deriv, *fn_mask, *fn_scale, *fn_cvalues,
      *fn_cvalues_wide, *fn_level2, *fn_level3, *fn_select;
  VhCambiPlan plan;
  unsigned w[SCALES], h[SCALES], shift[SCALES];
  unsigned tiles_x[SCALES], n_tiles[SCALES], k[SCALES];
  unsigned split[SCALES];       /* threads a column of the contrast grid */
  unsigned select_blocks;       /* the selection grid: the largest scale's */
  unsigned wide_below;          /* narrow tiles below which split wide */
  /* one block of memory: 10-bit picture, flags, mask, each scale's picture
   * and counted values, each scale's contrast values, both passes' scale
   * parameters (read by the selection kernels), then what is cleared
   * every frame: the histograms (again before the reference's pass) and
   * the results (a VhCambiSums) */
  VhGpuPtr mem;
  size_t size;
  VhGpuPtr img10, deriv, mask, img[SCALES], counted[SCALES];
  VhGpuPtr c_values[SCALES], params;
  VhGpuPtr hist[SCALES], result, reciprocal;
  size_t hist_bytes;            /* every scale's histograms, in one run */
  gboolean have_reciprocal;     /* acquired from the device's tables */
  VhGpuEvent *const *marks;     /* VH_CAMBI_GPU_MARKS, or NULL */
};

static size_t
aligned (size_t n)
{
  return (n + 255) & ~(size_t) 255;
}

gboolean
vh_cambi_gpu_supported (const VhCambiPlan *p, const char **why)
{
  *why = NULL;
  if (p->full_ref && (p->src_w != p->width || p->src_h != p->height
          || p->src_window != p->window))
    *why = "the full-reference form with a source size other than the "
        "picture's";
  else if (p->heatmaps)
    *why = "heatmaps_path";
  else if (p->enc_w != p->width || p->enc_h != p->height)
    *why = "an encode size other than the picture's";
  else if (p->num_diffs > VH_CAMBI_GPU_DIFFS)
    *why = "max_log_contrast above 2";
  else if ((p->window >> 1) > VH_CAMBI_MAX_PAD)
    *why = "a window above 65 pixels";
  if (*why)
    return FALSE;
  /* every scale at least as wide and high as half the window (below, the
   * CPU's windows read what earlier scales left in its buffers) */
  unsigned sw[SCALES], sh[SCALES];
  vh_cambi_scale_sizes (p->width, p->height, p->speedup, sw, sh);
  const unsigned pad = p->window >> 1;
  for (int s = 0; s < SCALES; s++) {
    if (pad > sw[s] || pad > sh[s]) {
      *why = "a window wider than the smallest scale";
      return FALSE;
    }
  }
  return TRUE;
}

/* Each scale's contrast grid: 4 threads a column, or 16 (8-column tiles)
 * where the 4-thread grid has fewer than ctx->wide_below tiles */
static void
plan_tiles (VhCambiGpu *ctx)
{
  for (int s = 0; s < SCALES; s++) {
    const unsigned rows = (ctx->h[s] + VH_CAMBI_CV_ROWS - 1)
        / VH_CAMBI_CV_ROWS;
    const unsigned narrow = (ctx->w[s] + VH_CAMBI_CV_COLS - 1)
        / VH_CAMBI_CV_COLS;
    ctx->split[s] = narrow * rows < ctx->wide_below ? VH_CAMBI_CV_SPLIT_WIDE
        : VH_CAMBI_CV_SPLIT;
    const unsigned cols = VH_CAMBI_CV_THREADS / ctx->split[s];
    ctx->tiles_x[s] = (ctx->w[s] + cols - 1) / cols;
    ctx->n_tiles[s] = ctx->tiles_x[s] * rows;
  }
}

static gboolean
plan_layout (VhCambiGpu *ctx, const VhCambiPlan *plan, GError **error)
{
  const char *why;
  if (!vh_cambi_gpu_supported (plan, &why)) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "cambi (GPU): not with %s", why);
    return FALSE;
  }
  if ((guint64) plan->width * plan->height > G_MAXUINT32 / 4) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi (GPU): %ux%u is too large", plan->width, plan->height);
    return FALSE;
  }
  ctx->plan = *plan;
  const size_t full = (size_t) plan->width * plan->height;
  size_t off = 0;
  ctx->img10 = off;
  off += aligned (full * sizeof (uint16_t));
  ctx->deriv = off;
  off += aligned (full);
  ctx->mask = off;
  off += aligned (full);
  vh_cambi_scale_sizes (plan->width, plan->height, plan->speedup, ctx->w,
      ctx->h);
  for (int s = 0; s < SCALES; s++) {
    const unsigned w = ctx->w[s], h = ctx->h[s];
    /* decimations so far: the mask of (i, j) is the full one's at
     * (i << shift, j << shift) */
    ctx->shift[s] = (unsigned) s + (plan->speedup ? 1 : 0);
    ctx->k[s] = (unsigned) vh_cambi_topk_count (plan->topk, (int) (w * h));
    ctx->select_blocks = MAX (ctx->select_blocks, vh_cambi_select_blocks
        (w * h));
    ctx->img[s] = off;
    off += aligned ((size_t) w * h * sizeof (uint16_t));
    ctx->counted[s] = off;
    off += aligned ((size_t) w * h * sizeof (uint16_t));
  }
  ctx->wide_below = VH_CAMBI_GPU_WIDE_BELOW;
  plan_tiles (ctx);
  /* every scale's: the selection pools them all after the last scale */
  for (int s = 0; s < SCALES; s++) {
    ctx->c_values[s] = off;
    off += aligned ((size_t) ctx->w[s] * ctx->h[s] * sizeof (float));
  }
  ctx->params = off;
  off += aligned (2 * SCALES * sizeof (VhCambiScale));
  for (int s = 0; s < SCALES; s++) {
    ctx->hist[s] = off;
    off += HIST_BYTES;
  }
  ctx->result = off;
  off += sizeof (VhCambiSums);
  ctx->hist_bytes = ctx->result - ctx->hist[0];
  ctx->size = off;
  return TRUE;
}

static void
place (VhCambiGpu *ctx, VhGpuPtr base)
{
  ctx->mem = base;
  ctx->img10 += base;
  ctx->deriv += base;
  ctx->mask += base;
  for (int s = 0; s < SCALES; s++) {
    ctx->img[s] += base;
    ctx->counted[s] += base;
    ctx->hist[s] += base;
    ctx->c_values[s] += base;
  }
  ctx->params += base;
  ctx->result += base;
}

/* The launches of one pass: the luma `src` into the result `pass` (0: the
 * distorted picture, 1: the reference) */
static void
fill_params (const VhCambiGpu *ctx, VhGpuPtr src, size_t pitch, int pass,
    VhCambiPre *pre, VhCambiScale sc[SCALES])
{
  const VhCambiPlan *pl = &ctx->plan;
  const VhGpuPtr result = ctx->result + (pass ? G_STRUCT_OFFSET (VhCambiSums,
          src) : G_STRUCT_OFFSET (VhCambiSums, dis));
  memset (pre, 0, sizeof *pre);
  pre->src = src;
  pre->img = ctx->img10;
  pre->deriv = ctx->deriv;
  pre->mask = ctx->mask;
  pre->bad = result + G_STRUCT_OFFSET (VhCambiPass, bad_samples);
  pre->pitch = (uint32_t) pitch;
  pre->width = pl->width;
  pre->height = pl->height;
  pre->bpc = pl->bpc;
  pre->anti_dither = pl->enc_bitdepth < 10;
  pre->mask_index = vh_cambi_mask_index (pl->width, pl->height);
  unsigned pw = pl->width, ph = pl->height;
  for (int s = 0; s < SCALES; s++) {
    VhCambiScale *p = &sc[s];
    memset (p, 0, sizeof *p);
    p->prev = s ? ctx->img[s - 1] : ctx->img10;
    p->img = ctx->img[s];
    p->counted = ctx->counted[s];
    p->mask = ctx->mask;
    p->c_values = ctx->c_values[s];
    p->hist = ctx->hist[s];
    p->result = result + s * sizeof (uint64_t);
    p->reciprocal = ctx->reciprocal;
    p->prev_w = pw;
    p->prev_h = ph;
    p->w = ctx->w[s];
    p->h = ctx->h[s];
    p->mask_w = pl->width;
    p->mask_shift = ctx->shift[s];
    p->decimate = s > 0 || pl->speedup;
    p->pad = pl->window >> 1;
    p->tiles_x = ctx->tiles_x[s];
    p->split = ctx->split[s];
    p->k = ctx->k[s];
    p->select_blocks = vh_cambi_select_blocks (ctx->w[s] * ctx->h[s]);
    p->band_base = pl->band_base;
    p->band_size = pl->band_size;
    p->num_diffs = (uint32_t) pl->num_diffs;
    p->vlt_luma = pl->vlt_luma;
    for (int d = 0; d < VH_CAMBI_GPU_DIFFS; d++) {
      p->tvi[d] = d < pl->num_diffs ? pl->tvi[d] : 0;
      p->weight[d] = (uint32_t) vh_cambi_contrast_weight (d);
    }
    pw = ctx->w[s];
    ph = ctx->h[s];
  }
}

/* libvmaf's reciprocal table, once per device */
static gboolean
fill_reciprocal (VhGpu *gpu, VhGpuPtr mem, void *data, GError **error)
{
  (void) data;
  VhGpuStream *stream = vh_gpu_stream_new (gpu, error);
  if (!stream)
    return FALSE;
  gboolean ok = vh_gpu_copy_h2d_async (stream, mem, vh_cambi_reciprocal (),
      RECIPROCAL_BYTES, error) && vh_gpu_stream_sync (stream, error);
  vh_gpu_stream_free (stream);
  return ok;
}

/* Both passes' scale parameters, as the selection kernels read them from
 * ctx->params (only the pass's source picture, which they do not read,
 * changes from frame to frame; nor do they read the contrast grid's
 * split, which a benchmark may change) */
static void
select_params (const VhCambiGpu *ctx, VhCambiScale sc[2][SCALES])
{
  VhCambiPre pre;
  for (int pass = 0; pass < 2; pass++)
    fill_params (ctx, 0, 0, pass, &pre, sc[pass]);
}

/* ... uploaded once */
static gboolean
upload_params (VhCambiGpu *ctx, GError **error)
{
  VhCambiScale sc[2][SCALES];
  select_params (ctx, sc);
  VhGpuStream *stream = vh_gpu_stream_new (ctx->gpu, error);
  if (!stream)
    return FALSE;
  gboolean ok = vh_gpu_copy_h2d_async (stream, ctx->params, sc, sizeof sc,
      error) && vh_gpu_stream_sync (stream, error);
  vh_gpu_stream_free (stream);
  return ok;
}

VhCambiGpu *
vh_cambi_gpu_new (VhGpu *gpu, VhGpuModule *module, const VhCambiPlan *plan,
    GError **error)
{
  if (!gpu || !module) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi (GPU): no GPU or module");
    return NULL;
  }
  VhCambiGpu *ctx = g_new0 (VhCambiGpu, 1);
  ctx->gpu = gpu;
  if (!plan_layout (ctx, plan, error)
      || !(ctx->fn_pre = vh_gpu_function (module, plan->bpc == 8
              ? "vh_cambi_preprocess_8bit" : "vh_cambi_preprocess_16bit",
              error))
      || !(ctx->fn_deriv = vh_gpu_function (module, "vh_cambi_deriv", error))
      || !(ctx->fn_mask = vh_gpu_function (module, "vh_cambi_mask", error))
      || !(ctx->fn_scale = vh_gpu_function (module, "vh_cambi_scale", error))
      || !(ctx->fn_cvalues = vh_gpu_function (module, "vh_cambi_cvalues",
              error))
      || !(ctx->fn_cvalues_wide = vh_gpu_function (module,
              "vh_cambi_cvalues_wide", error))
      || !(ctx->fn_level2 = vh_gpu_function (module, "vh_cambi_level2",
              error))
      || !(ctx->fn_level3 = vh_gpu_function (module, "vh_cambi_level3",
              error))
      || !(ctx->fn_select = vh_gpu_function (module, "vh_cambi_select",
              error))) {
    vh_cambi_gpu_free (ctx);
    return NULL;
  }
  ctx->reciprocal = vh_gpu_table_acquire (gpu, RECIPROCAL_NAME,
      RECIPROCAL_BYTES, fill_reciprocal, NULL, error);
  if (!ctx->reciprocal) {
    vh_cambi_gpu_free (ctx);
    return NULL;
  }
  ctx->have_reciprocal = TRUE;
  const VhGpuPtr base = vh_gpu_mem_alloc (gpu, ctx->size, error);
  if (!base) {
    vh_cambi_gpu_free (ctx);
    return NULL;
  }
  place (ctx, base);
  if (!upload_params (ctx, error)) {
    vh_cambi_gpu_free (ctx);
    return NULL;
  }
  return ctx;
}

void
vh_cambi_gpu_free (VhCambiGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_scratch_free (ctx->gpu, ctx->mem);
  if (ctx->have_reciprocal)
    vh_gpu_table_release (ctx->gpu, RECIPROCAL_NAME);
  g_free (ctx);
}

static VhGpuDim3
grid_for (size_t n, unsigned block)
{
  return (VhGpuDim3) { (unsigned) ((n + block - 1) / block), 1, 1 };
}

/* a stage's end marked on the stream, when a benchmark asked */
static gboolean
mark (const VhCambiGpu *ctx, VhGpuStream *stream, int i, GError **error)
{
  return !ctx->marks || vh_gpu_event_record (ctx->marks[i], stream, error);
}

/* One picture's launches (fill_params' pass) */
static gboolean
enqueue_pass (VhCambiGpu *ctx, VhGpuStream *stream, VhGpuPtr src,
    size_t pitch, int pass, GError **error)
{
  VhCambiPre pre;
  VhCambiScale sc[SCALES];
  fill_params (ctx, src, pitch, pass, &pre, sc);
  const VhGpuDim3 block = { VH_CAMBI_BLOCK, 1, 1 };
  const size_t full = (size_t) ctx->plan.width * ctx->plan.height;
  void *pre_args[] = { &pre };
  if (!mark (ctx, stream, 0, error)
      || !vh_gpu_launch (ctx->fn_pre, grid_for (full, VH_CAMBI_BLOCK), block,
          0, stream, pre_args, error)
      || !vh_gpu_launch (ctx->fn_deriv, grid_for (full, VH_CAMBI_BLOCK),
          block, 0, stream, pre_args, error)
      || !vh_gpu_launch (ctx->fn_mask, grid_for (full, VH_CAMBI_BLOCK), block,
          0, stream, pre_args, error)
      || !mark (ctx, stream, 1, error))
    return FALSE;
  const VhGpuDim3 cv_block = { VH_CAMBI_CV_THREADS, 1, 1 };
  for (int s = 0; s < SCALES; s++) {
    void *args[] = { &sc[s] };
    const size_t n = (size_t) ctx->w[s] * ctx->h[s];
    if (!vh_gpu_launch (ctx->fn_scale, grid_for (n, VH_CAMBI_BLOCK), block,
            0, stream, args, error)
        || !mark (ctx, stream, 2 + 2 * s, error)
        || !vh_gpu_launch (ctx->split[s] == VH_CAMBI_CV_SPLIT
            ? ctx->fn_cvalues : ctx->fn_cvalues_wide, (VhGpuDim3) {
              ctx->n_tiles[s], 1, 1 }, cv_block, 0, stream, args, error)
        || !mark (ctx, stream, 3 + 2 * s, error))
      return FALSE;
  }
  /* every scale's selection at once (blockIdx.y the scale) */
  uint64_t scales = ctx->params + (uint64_t) pass * SCALES
      * sizeof (VhCambiScale);
  void *select_args[] = { &scales };
  const VhGpuDim3 select_block = { VH_CAMBI_SELECT_BLOCK, 1, 1 };
  const VhGpuDim3 select_grid = { ctx->select_blocks, SCALES, 1 };
  const int m = 2 + 2 * SCALES;
  return vh_gpu_launch (ctx->fn_level2, select_grid, select_block, 0,
          stream, select_args, error)
      && mark (ctx, stream, m, error)
      && vh_gpu_launch (ctx->fn_level3, select_grid, select_block, 0,
          stream, select_args, error)
      && mark (ctx, stream, m + 1, error)
      && vh_gpu_launch (ctx->fn_select, (VhGpuDim3) { 1, SCALES, 1 },
      select_block, 0, stream, select_args, error)
      && mark (ctx, stream, m + 2, error);
}

gboolean
vh_cambi_gpu_enqueue (VhCambiGpu *ctx, VhGpuStream *stream, VhGpuPtr dis,
    VhGpuPtr ref, size_t pitch, VhCambiSums *sums, GError **error)
{
  if (pitch > G_MAXUINT32) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "cambi (GPU): row pitch %zu too large", pitch);
    return FALSE;
  }
  const gboolean full_ref = ctx->plan.full_ref;
  /* the histograms and results: cleared every frame, and the histograms
   * again before the reference's pass */
  return vh_gpu_memset_async (stream, ctx->hist[0], 0, ctx->hist_bytes
      + sizeof (VhCambiSums), error)
      && enqueue_pass (ctx, stream, dis, pitch, 0, error)
      && (!full_ref || (vh_gpu_memset_async (stream, ctx->hist[0], 0,
                  ctx->hist_bytes, error)
              && enqueue_pass (ctx, stream, ref, pitch, 1, error)))
      && vh_gpu_copy_d2h_async (stream, sums, ctx->result,
      sizeof (VhCambiSums), error);
}

void
vh_cambi_gpu_set_marks (VhCambiGpu *ctx, VhGpuEvent *const *marks)
{
  ctx->marks = marks;
}

void
vh_cambi_gpu_set_wide_below (VhCambiGpu *ctx, unsigned tiles)
{
  ctx->wide_below = tiles;
  plan_tiles (ctx);
}

/* ---- host emulation ------------------------------------------------------ */

VhCambiGpu *
vh_cambi_gpu_new_host (const VhCambiPlan *plan, GError **error)
{
  VhCambiGpu *ctx = g_new0 (VhCambiGpu, 1);
  if (!plan_layout (ctx, plan, error)) {
    g_free (ctx);
    return NULL;
  }
  place (ctx, vh_gpu_scratch_alloc (NULL, ctx->size, NULL));
  ctx->reciprocal = (VhGpuPtr) (uintptr_t) vh_cambi_reciprocal ();
  VhCambiScale sc[2][SCALES];
  select_params (ctx, sc);
  memcpy ((void *) (uintptr_t) ctx->params, sc, sizeof sc);
  return ctx;
}

const void *
vh_cambi_gpu_host_select_params (const VhCambiGpu *ctx, int pass)
{
  return (const VhCambiScale *) (uintptr_t) ctx->params + pass * SCALES;
}

void
vh_cambi_gpu_host_params (VhCambiGpu *ctx, const VhPlane *luma, int pass,
    void *pre, void *scales, unsigned *n_tiles)
{
  g_assert (luma->stride > 0 && luma->step == 1);
  fill_params (ctx, (VhGpuPtr) (uintptr_t) luma->data,
      (size_t) luma->stride, pass, pre, scales);
  memcpy (n_tiles, ctx->n_tiles, sizeof ctx->n_tiles);
}

void
vh_cambi_gpu_host_clear (VhCambiGpu *ctx, gboolean results)
{
  memset ((void *) (uintptr_t) ctx->hist[0], 0, ctx->hist_bytes
      + (results ? sizeof (VhCambiSums) : 0));
}

const VhCambiSums *
vh_cambi_gpu_host_sums (const VhCambiGpu *ctx)
{
  return (const VhCambiSums *) (uintptr_t) ctx->result;
}
