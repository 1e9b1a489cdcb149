/* vmafhip — the plane scaler on the GPU: host side of kernels/scale.hip. */
#include "scale-gpu.h"

#include <string.h>

#include "vh-error.h"
#include "scale-device.h"

G_STATIC_ASSERT (sizeof (VhScaleParams) == VH_SCALE_PARAMS_SIZE);
G_STATIC_ASSERT (offsetof (VhScaleParams, src_step) == 72);
G_STATIC_ASSERT (offsetof (VhScaleParams, top) == 108);
/* the windows' first indices are uploaded as the kernels' uint32 */
G_STATIC_ASSERT (sizeof (unsigned) == sizeof (uint32_t));

/* One direction's table in device memory */
typedef struct {
  VhGpuPtr first, coef;
  unsigned n_taps;
} AxisTable;

struct VhScaleGpu {
  VhGpu *gpu;                   /* NULL: host emulation, host memory */
  VhGpuFunction *h_fn, *v_fn;
  VhScalerInfo info;
  AxisTable h, v;
  unsigned row0, rows;          /* the source rows the windows read */
  VhGpuPtr tmp;                 /* int32, rows x dst_w */
  size_t device_bytes;
};

/* Allocates one axis's tables and fills them: uploaded on stream, or
 * copied where the context is host memory (stream NULL). */
static gboolean
upload_axis (VhScaleGpu *ctx, const VhScaler *scaler, gboolean horizontal,
    VhGpuStream *stream, AxisTable *t, GError **error)
{
  const unsigned *first;
  const int16_t *coef = vh_scaler_taps (scaler, horizontal, &t->n_taps,
      &first);
  const size_t n_out = horizontal ? ctx->info.dst_w : ctx->info.dst_h;
  const size_t first_bytes = n_out * sizeof (uint32_t);
  const size_t coef_bytes = n_out * t->n_taps * sizeof (int16_t);
  if (!(t->first = vh_gpu_scratch_alloc (ctx->gpu, first_bytes, error))
      || !(t->coef = vh_gpu_scratch_alloc (ctx->gpu, coef_bytes, error)))
    return FALSE;
  ctx->device_bytes += first_bytes + coef_bytes;
  if (!ctx->gpu) {
    memcpy ((void *) (uintptr_t) t->first, first, first_bytes);
    memcpy ((void *) (uintptr_t) t->coef, coef, coef_bytes);
    return TRUE;
  }
  return vh_gpu_copy_h2d_async (stream, t->first, first, first_bytes, error)
      && vh_gpu_copy_h2d_async (stream, t->coef, coef, coef_bytes, error);
}

/* Everything but the kernels: tables, intermediate; gpu NULL for host
 * memory.  The uploads are waited for, so the scaler's tables may go. */
static VhScaleGpu *
context_new (VhGpu *gpu, const VhScaler *scaler, GError **error)
{
  VhScaleGpu *ctx = g_new0 (VhScaleGpu, 1);
  ctx->gpu = gpu;
  vh_scaler_get_info (scaler, &ctx->info);

  /* The windows only move down: the rows read are first[0] up to the
   * last window's end. */
  const unsigned *v_first;
  unsigned v_taps;
  vh_scaler_taps (scaler, FALSE, &v_taps, &v_first);
  ctx->row0 = v_first[0];
  ctx->rows = v_first[ctx->info.dst_h - 1] + v_taps - ctx->row0;

  VhGpuStream *stream = NULL;
  if (gpu && !(stream = vh_gpu_stream_new (gpu, error)))
    goto fail;
  const gboolean uploaded =
      upload_axis (ctx, scaler, TRUE, stream, &ctx->h, error)
      && upload_axis (ctx, scaler, FALSE, stream, &ctx->v, error)
      && (!stream || vh_gpu_stream_sync (stream, error));
  vh_gpu_stream_free (stream);
  if (!uploaded)
    goto fail;

  const size_t tmp_bytes = (size_t) ctx->rows * ctx->info.dst_w
      * sizeof (int32_t);
  if (!(ctx->tmp = vh_gpu_scratch_alloc (gpu, tmp_bytes, error)))
    goto fail;
  ctx->device_bytes += tmp_bytes;
  return ctx;

fail:
  g_prefix_error (error, "scale (GPU): ");
  vh_scale_gpu_free (ctx);
  return NULL;
}

VhScaleGpu *
vh_scale_gpu_new (VhGpu *gpu, VhGpuModule *module, const VhScaler *scaler,
    GError **error)
{
  if (!gpu || !module || !scaler) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scale (GPU): no %s given", !gpu ? "GPU" : !module ? "kernel module"
        : "scaler");
    return NULL;
  }
  VhScalerInfo info;
  vh_scaler_get_info (scaler, &info);
  const char *h_name = info.bpc == 8 ? "vh_scale_h_8" : "vh_scale_h_16";
  const char *v_name = info.bpc == 8 ? "vh_scale_v_8"
      : info.wide ? "vh_scale_v_16_wide" : "vh_scale_v_16";
  VhGpuFunction *h_fn = vh_gpu_function (module, h_name, error);
  VhGpuFunction *v_fn = h_fn ? vh_gpu_function (module, v_name, error) : NULL;
  if (!v_fn) {
    g_prefix_error (error, "scale (GPU): ");
    return NULL;
  }
  VhScaleGpu *ctx = context_new (gpu, scaler, error);
  if (ctx) {
    ctx->h_fn = h_fn;
    ctx->v_fn = v_fn;
  }
  return ctx;
}

VhScaleGpu *
vh_scale_gpu_new_host (const VhScaler *scaler, GError **error)
{
  if (!scaler) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scale (GPU): no scaler given");
    return NULL;
  }
  return context_new (NULL, scaler, error);
}

void
vh_scale_gpu_free (VhScaleGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_scratch_free (ctx->gpu, ctx->h.first);
  vh_gpu_scratch_free (ctx->gpu, ctx->h.coef);
  vh_gpu_scratch_free (ctx->gpu, ctx->v.first);
  vh_gpu_scratch_free (ctx->gpu, ctx->v.coef);
  vh_gpu_scratch_free (ctx->gpu, ctx->tmp);
  g_free (ctx);
}

size_t
vh_scale_gpu_device_bytes (const VhScaleGpu *ctx)
{
  return ctx ? ctx->device_bytes : 0;
}

/* FALSE with the error if a plane cannot be read (src) or written (dst)
 * as described for this context. */
static gboolean
check_plane (const VhScaleGpu *ctx, const VhScaleGpuPlane *pl,
    gboolean is_src, GError **error)
{
  const char *which = is_src ? "source" : "destination";
  const unsigned want_w = is_src ? ctx->info.src_w : ctx->info.dst_w;
  const unsigned want_h = is_src ? ctx->info.src_h : ctx->info.dst_h;
  const size_t sample_bytes = ctx->info.bpc > 8 ? 2 : 1;
  if (pl->width != want_w || pl->height != want_h) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "scale (GPU): the %s plane is %ux%u, the scaler's %ux%u", which,
        pl->width, pl->height, want_w, want_h);
    return FALSE;
  }
  const char *problem = NULL;
  if (!pl->data)
    problem = "has no data (address 0)";
  else if (pl->step < 1 || (!is_src && pl->step != 1))
    problem = is_src ? "has a sample step of 0" : "has a sample step other "
        "than 1";
  else if (pl->pitch
      < ((size_t) (pl->width - 1) * pl->step + 1) * sample_bytes)
    problem = "has a pitch shorter than a row";
  else if (sample_bytes == 2 && ((pl->data | (VhGpuPtr) pl->pitch) & 1))
    problem = "has 16-bit samples that are not 2-byte aligned";
  if (problem) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scale (GPU): the %s plane %s", which, problem);
    return FALSE;
  }
  return TRUE;
}

static gboolean
make_params (const VhScaleGpu *ctx, const VhScaleGpuPlane *src,
    const VhScaleGpuPlane *dst, VhScaleParams *p, GError **error)
{
  if (!check_plane (ctx, src, TRUE, error)
      || !check_plane (ctx, dst, FALSE, error))
    return FALSE;
  *p = (VhScaleParams) {
    .src = src->data, .tmp = ctx->tmp, .dst = dst->data,
    .h_first = ctx->h.first, .h_coef = ctx->h.coef,
    .v_first = ctx->v.first, .v_coef = ctx->v.coef,
    .src_pitch = src->pitch, .dst_pitch = dst->pitch,
    .src_step = src->step,
    .dst_w = ctx->info.dst_w, .dst_h = ctx->info.dst_h,
    .h_taps = ctx->h.n_taps, .v_taps = ctx->v.n_taps,
    .row0 = ctx->row0, .rows = ctx->rows,
    .h_shift = ctx->info.h_shift, .v_shift = ctx->info.v_shift,
    .top = ctx->info.top, .max = ctx->info.max,
  };
  return TRUE;
}

gboolean
vh_scale_gpu_enqueue (VhScaleGpu *ctx, VhGpuStream *stream,
    const VhScaleGpuPlane *src, const VhScaleGpuPlane *dst, GError **error)
{
  if (!ctx || !ctx->gpu || !stream || !src || !dst) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "scale (GPU): enqueue without a %s", !ctx ? "context"
        : !ctx->gpu ? "GPU (a host emulation context)" : !stream ? "stream"
        : !src ? "source plane" : "destination plane");
    return FALSE;
  }
  VhScaleParams p;
  if (!make_params (ctx, src, dst, &p, error))
    return FALSE;
  void *args[] = { &p };
  const VhGpuDim3 block = { VH_SCALE_BLOCK_W, VH_SCALE_BLOCK_H, 1 };
  const VhGpuDim3 h_grid = { vh_scale_blocks (p.dst_w, VH_SCALE_BLOCK_W),
    vh_scale_blocks (p.rows, VH_SCALE_BLOCK_H), 1 };
  const VhGpuDim3 v_grid = { h_grid.x,
    vh_scale_blocks (p.dst_h, VH_SCALE_BLOCK_H), 1 };
  /* the vertical pass reads what the horizontal one wrote: same stream */
  if (!vh_gpu_launch (ctx->h_fn, h_grid, block, 0, stream, args, error)
      || !vh_gpu_launch (ctx->v_fn, v_grid, block, 0, stream, args, error)) {
    g_prefix_error (error, "scale (GPU): ");
    return FALSE;
  }
  return TRUE;
}

gboolean
vh_scale_gpu_host_params (VhScaleGpu *ctx, const VhPlane *src,
    const VhPlane *dst, VhScaleParams *params, GError **error)
{
  g_return_val_if_fail (ctx != NULL && !ctx->gpu, FALSE);
  g_return_val_if_fail (src != NULL && dst != NULL && params != NULL, FALSE);
  const VhScaleGpuPlane s = {
    (VhGpuPtr) (uintptr_t) src->data, (size_t) src->stride, src->width,
    src->height, src->step,
  };
  const VhScaleGpuPlane d = {
    (VhGpuPtr) (uintptr_t) dst->data, (size_t) dst->stride, dst->width,
    dst->height, dst->step,
  };
  return make_params (ctx, &s, &d, params, error);
}
