/* vmafhip — float SSIM on the GPU: the host side of kernels/ssim.hip. */
#include "ssim-gpu.h"

#include <stddef.h>

#include "vh-error.h"
#include "ssim-params.h"

#define SSIM_THREADS 256
#define SSIM_WINDOW VH_SSIM_WINDOW
#define SSIM_BLOCKS 1024        /* first passes; the partials fit one block */

/* the kernels' parameter blocks */
typedef struct {
  guint64 ref, dis;
  guint64 pitch;
  guint32 src_w, src_h, w, h, scale;
  float scaler;
  guint64 out_ref, out_dis;
} SsimLoad;

typedef struct {
  guint64 ref, cmp;
  guint64 cache[5];
  guint32 w, h;
  guint64 partial;
} SsimMaps;

G_STATIC_ASSERT (sizeof (SsimLoad) == 64);
G_STATIC_ASSERT (sizeof (SsimMaps) == 72);

struct VhSsimGpu {
  VhGpu *gpu;
  VhGpuFunction *load, *rows, *map, *reduce;
  unsigned width, height, bpc;
  VhGpuPtr ref, cmp, cache[5], partial, sums;
};

VhSsimGpu *
vh_ssim_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  if (!gpu || !module || width < SSIM_WINDOW || height < SSIM_WINDOW
      || (guint64) width * height > G_MAXUINT32) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "float_ssim (GPU): no GPU or module, or picture size %ux%u out of "
        "range", width, height);
    return NULL;
  }
  VhSsimGpu *ctx = g_new0 (VhSsimGpu, 1);
  ctx->gpu = gpu;
  ctx->width = width;
  ctx->height = height;
  ctx->bpc = bpc;
  const size_t plane = (size_t) width * height * sizeof (float);
  gboolean ok = (ctx->load = vh_gpu_function (module, bpc == 8
          ? "vh_ssim_load_8bit" : "vh_ssim_load_16bit", error))
      && (ctx->rows = vh_gpu_function (module, "vh_ssim_rows", error))
      && (ctx->map = vh_gpu_function (module, "vh_ssim_map", error))
      && (ctx->reduce = vh_gpu_function (module, "vh_ssim_reduce", error))
      && (ctx->ref = vh_gpu_mem_alloc (gpu, plane, error))
      && (ctx->cmp = vh_gpu_mem_alloc (gpu, plane, error))
      && (ctx->partial = vh_gpu_mem_alloc (gpu, SSIM_BLOCKS * 4
              * sizeof (double), error))
      && (ctx->sums = vh_gpu_mem_alloc (gpu, 4 * sizeof (double), error));
  for (int k = 0; ok && k < 5; k++)
    ok = (ctx->cache[k] = vh_gpu_mem_alloc (gpu, plane, error)) != 0;
  if (!ok) {
    vh_ssim_gpu_free (ctx);
    return NULL;
  }
  return ctx;
}

void
vh_ssim_gpu_free (VhSsimGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_mem_free (ctx->gpu, ctx->ref);
  vh_gpu_mem_free (ctx->gpu, ctx->cmp);
  for (int k = 0; k < 5; k++)
    vh_gpu_mem_free (ctx->gpu, ctx->cache[k]);
  vh_gpu_mem_free (ctx->gpu, ctx->partial);
  vh_gpu_mem_free (ctx->gpu, ctx->sums);
  g_free (ctx);
}

static unsigned
blocks_for (guint64 items)
{
  return (unsigned) MAX (1, MIN ((items + SSIM_THREADS - 1) / SSIM_THREADS,
          SSIM_BLOCKS));
}

gboolean
vh_ssim_gpu_enqueue (VhSsimGpu *ctx, VhGpuStream *stream, VhGpuPtr ref,
    VhGpuPtr dis, size_t pitch, unsigned scale, double *sums, GError **error)
{
  /* IQA's decimated size (the CPU's vh_iqa_decimate) */
  unsigned w = ctx->width, h = ctx->height;
  if (scale > 1) {
    w = w / scale + (w & 1);
    h = h / scale + (h & 1);
  }
  if (scale < 1 || scale > 10 || w < SSIM_WINDOW || h < SSIM_WINDOW) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "float_ssim (GPU): scale %u leaves %ux%u", scale, w, h);
    return FALSE;
  }
  SsimLoad load = {
    .ref = ref, .dis = dis, .pitch = pitch,
    .src_w = ctx->width, .src_h = ctx->height, .w = w, .h = h,
    .scale = scale,
    .scaler = ctx->bpc == 10 ? 4.0f : ctx->bpc == 12 ? 16.0f : 1.0f,
    .out_ref = ctx->ref, .out_dis = ctx->cmp,
  };
  SsimMaps maps = {
    .ref = ctx->ref, .cmp = ctx->cmp, .w = w, .h = h,
    .partial = ctx->partial,
  };
  for (int k = 0; k < 5; k++)
    maps.cache[k] = ctx->cache[k];
  const unsigned map_blocks = blocks_for ((guint64) (w - SSIM_WINDOW + 1)
      * (h - SSIM_WINDOW + 1));
  unsigned n_partial = map_blocks;
  void *load_args[] = { &load };
  void *map_args[] = { &maps };
  void *reduce_args[] = { &ctx->partial, &n_partial, &ctx->sums };
  const VhGpuDim3 block = { SSIM_THREADS, 1, 1 };
  return vh_gpu_launch (ctx->load, (VhGpuDim3) { blocks_for ((guint64) w * h),
          1, 1 }, block, 0, stream, load_args, error)
      && vh_gpu_launch (ctx->rows, (VhGpuDim3) { blocks_for ((guint64)
              (w - SSIM_WINDOW + 1) * h), 1, 1 }, block, 0, stream, map_args,
      error)
      && vh_gpu_launch (ctx->map, (VhGpuDim3) { map_blocks, 1, 1 }, block, 0,
      stream, map_args, error)
      && vh_gpu_launch (ctx->reduce, (VhGpuDim3) { 1, 1, 1 }, block, 0,
      stream, reduce_args, error)
      && vh_gpu_copy_d2h_async (stream, sums, ctx->sums, 4 * sizeof (double),
      error);
}
