/* vmafhip — PSNR-HVS on the GPU: the host side of kernels/psnr-hvs.hip. */
#include "psnr-hvs-gpu.h"

#include <stddef.h>

#include "vh-error.h"
#include "psnr-hvs-device.h"


/* the kernels' VhPsnrHvsParams */
typedef struct {
  guint64 ref[3], dis[3];
  guint64 pitch[3];
  guint32 across[3], n_blocks[3], first_block[3], first_chunk[3];
  guint32 total_blocks, total_chunks;
  guint64 values, approx, chunk_sums, blocks, chunks, result;
} PsnrHvsParams;

G_STATIC_ASSERT (sizeof (PsnrHvsParams) == 176);
G_STATIC_ASSERT (offsetof (PsnrHvsParams, values) == 128);
G_STATIC_ASSERT (sizeof (VhPsnrHvsBlockSpan) == 32);
G_STATIC_ASSERT (sizeof (VhPsnrHvsChunkSpan) == 56);

struct VhPsnrHvsGpu {
  VhGpu *gpu;
  VhGpuFunction *errors, *quantize, *walk;
  unsigned bpc;
  guint64 capacity;             /* blocks the scratch holds */
  VhGpuPtr values, approx, chunk_sums, blocks, chunks, result;
};

VhPsnrHvsGpu *
vh_psnr_hvs_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  if (!gpu || !module || width < 8 || height < 8
      || (guint64) width * height > G_MAXUINT32) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr_hvs (GPU): no GPU or module, or picture size %ux%u out of "
        "range", width, height);
    return NULL;
  }
  VhPsnrHvsGpu *ctx = g_new0 (VhPsnrHvsGpu, 1);
  ctx->gpu = gpu;
  ctx->bpc = bpc;
  if (!(ctx->errors = vh_gpu_function (module, bpc == 8
              ? "vh_psnr_hvs_errors_8bit" : "vh_psnr_hvs_errors_16bit",
              error))
      || !(ctx->quantize = vh_gpu_function (module, "vh_psnr_hvs_quantize",
              error))
      || !(ctx->walk = vh_gpu_function (module, "vh_psnr_hvs_walk", error))
      || !(ctx->result = vh_gpu_mem_alloc (gpu, 4 * sizeof (float),
              error))) {
    vh_psnr_hvs_gpu_free (ctx);
    return NULL;
  }
  return ctx;
}

static void
free_scratch (VhPsnrHvsGpu *ctx)
{
  vh_gpu_mem_free (ctx->gpu, ctx->values);
  vh_gpu_mem_free (ctx->gpu, ctx->approx);
  vh_gpu_mem_free (ctx->gpu, ctx->chunk_sums);
  vh_gpu_mem_free (ctx->gpu, ctx->blocks);
  vh_gpu_mem_free (ctx->gpu, ctx->chunks);
  ctx->values = ctx->approx = ctx->chunk_sums = ctx->blocks = ctx->chunks = 0;
  ctx->capacity = 0;
}

void
vh_psnr_hvs_gpu_free (VhPsnrHvsGpu *ctx)
{
  if (!ctx)
    return;
  free_scratch (ctx);
  vh_gpu_mem_free (ctx->gpu, ctx->result);
  g_free (ctx);
}

/* Scratch for `blocks` blocks (chunks: at most one partial per plane) */
static gboolean
reserve (VhPsnrHvsGpu *ctx, guint64 blocks, GError **error)
{
  if (blocks <= ctx->capacity)
    return TRUE;
  free_scratch (ctx);
  const guint64 chunks = blocks / VH_PSNR_HVS_CHUNK + 3;
  if (!(ctx->values = vh_gpu_mem_alloc (ctx->gpu, blocks * 64 * sizeof (float),
              error))
      || !(ctx->approx = vh_gpu_mem_alloc (ctx->gpu, blocks * sizeof (double),
              error))
      || !(ctx->chunk_sums = vh_gpu_mem_alloc (ctx->gpu,
              chunks * sizeof (double), error))
      || !(ctx->blocks = vh_gpu_mem_alloc (ctx->gpu,
              blocks * sizeof (VhPsnrHvsBlockSpan), error))
      || !(ctx->chunks = vh_gpu_mem_alloc (ctx->gpu,
              chunks * sizeof (VhPsnrHvsChunkSpan), error))) {
    free_scratch (ctx);
    return FALSE;
  }
  ctx->capacity = blocks;
  return TRUE;
}

gboolean
vh_psnr_hvs_gpu_enqueue (VhPsnrHvsGpu *ctx, VhGpuStream *stream,
    const VhGpuPtr ref[3], const VhGpuPtr dis[3], const size_t pitch[3],
    const unsigned width[3], const unsigned height[3], float *sums,
    guint32 *pixels, GError **error)
{
  PsnrHvsParams p = { .total_blocks = 0 };
  guint64 total = 0, chunks = 0;
  for (int i = 0; i < 3; i++) {
    /* the engine had check_layout refuse planes under 8x8 */
    if (width[i] < 8 || height[i] < 8) {
      g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
          "psnr_hvs (GPU): plane %d is %ux%u, smaller than an 8x8 block", i,
          width[i], height[i]);
      return FALSE;
    }
    p.ref[i] = ref[i];
    p.dis[i] = dis[i];
    p.pitch[i] = pitch[i];
    p.across[i] = vh_psnr_hvs_blocks_across (width[i]);
    p.n_blocks[i] = p.across[i] * vh_psnr_hvs_blocks_across (height[i]);
    pixels[i] = p.n_blocks[i] * 64;
    p.first_block[i] = (guint32) total;
    p.first_chunk[i] = (guint32) chunks;
    total += p.n_blocks[i];
    chunks += (p.n_blocks[i] + VH_PSNR_HVS_CHUNK - 1) / VH_PSNR_HVS_CHUNK;
  }
  if (!reserve (ctx, total, error))
    return FALSE;
  p.total_blocks = (guint32) total;
  p.total_chunks = (guint32) chunks;
  p.values = ctx->values;
  p.approx = ctx->approx;
  p.chunk_sums = ctx->chunk_sums;
  p.blocks = ctx->blocks;
  p.chunks = ctx->chunks;
  p.result = ctx->result;
  void *args[] = { &p };
  /* errors and quantize: one block of VH_PSNR_HVS_CHUNK threads per chunk;
   * the walk: one wavefront per plane (32 or 64 lanes, checked when the
   * GPU was opened) */
  const unsigned lanes = (unsigned) vh_gpu_warp_size (ctx->gpu);
  return vh_gpu_launch (ctx->errors, (VhGpuDim3) { (unsigned) chunks, 1, 1 },
      (VhGpuDim3) { VH_PSNR_HVS_CHUNK, 1, 1 }, 0, stream, args, error)
      && vh_gpu_launch (ctx->quantize, (VhGpuDim3) { (unsigned) chunks, 1, 1 },
      (VhGpuDim3) { VH_PSNR_HVS_CHUNK, 1, 1 }, 0, stream, args, error)
      && vh_gpu_launch (ctx->walk, (VhGpuDim3) { 3, 1, 1 },
      (VhGpuDim3) { lanes, 1, 1 }, 0, stream, args, error)
      && vh_gpu_copy_d2h_async (stream, sums, ctx->result,
      3 * sizeof (float), error);
}
