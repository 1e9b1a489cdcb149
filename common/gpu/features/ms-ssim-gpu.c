/* vmafhip — float MS-SSIM on the GPU: the host side of kernels/ms-ssim.hip
 * (see ms-ssim-gpu.h). */
#include "ms-ssim-gpu.h"

#include <string.h>

#include "vh-error.h"

#include "ms-ssim-device.h"

#define SCALES VH_MS_SSIM_SCALES
#define SUMS_BYTES (SCALES * 3 * sizeof (double))

struct VhMsSsimGpu {
  VhGpu *gpu;                   /* NULL: host emulation */
  VhGpuFunction *scale0, *scale, *reduce;
  unsigned width, height, bpc;
  unsigned w[SCALES], h[SCALES];
  unsigned tiles_x[SCALES], n_tiles[SCALES], n_blocks[SCALES];
  /* one block of memory: scales 1..4 (ref, dis), partials, sums */
  VhGpuPtr mem;
  size_t size;
  VhGpuPtr ref[SCALES], dis[SCALES], partial[SCALES], sums;
};

/* Each scale's size (IQA's decimation: w / 2 + (w & 1)), grid and place in
 * the memory block; FALSE where the fifth scale cannot hold the window. */
static gboolean
plan (VhMsSsimGpu *ctx, unsigned width, unsigned height, unsigned bpc,
    GError **error)
{
  /* the CPU extractor's check (halving down), and 32-bit indices */
  unsigned w = width, h = height;
  for (int k = 0; k < SCALES; k++, w /= 2, h /= 2) {
    if (w < VH_MS_SSIM_WINDOW || h < VH_MS_SSIM_WINDOW) {
      g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
          "float_ms_ssim (GPU): %ux%u is too small (at least 176x176)",
          width, height);
      return FALSE;
    }
  }
  if ((guint64) width * height > G_MAXUINT32 / 4 || bpc < 8 || bpc > 16) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "float_ms_ssim (GPU): %ux%u %u-bit is not supported", width, height,
        bpc);
    return FALSE;
  }
  ctx->width = width;
  ctx->height = height;
  ctx->bpc = bpc;
  size_t off = 0;
  w = width;
  h = height;
  for (int k = 0; k < SCALES; k++) {
    ctx->w[k] = w;
    ctx->h[k] = h;
    /* tiles over the valid region, and over the whole picture where
     * they also make the next scale */
    const unsigned cover_w = k + 1 < SCALES ? w : w - VH_MS_SSIM_WINDOW + 1;
    const unsigned cover_h = k + 1 < SCALES ? h : h - VH_MS_SSIM_WINDOW + 1;
    ctx->tiles_x[k] = (cover_w + VH_MS_SSIM_TILE - 1) / VH_MS_SSIM_TILE;
    ctx->n_tiles[k] = ctx->tiles_x[k]
        * ((cover_h + VH_MS_SSIM_TILE - 1) / VH_MS_SSIM_TILE);
    if (k > 0) {
      /* float pictures, 256-byte aligned */
      const size_t plane = ((size_t) w * h * sizeof (float) + 255) & ~(size_t) 255;
      ctx->ref[k] = off;
      ctx->dis[k] = off + plane;
      off += 2 * plane;
    }
    w = w / 2 + (w & 1);
    h = h / 2 + (h & 1);
  }
  for (int k = 0; k < SCALES; k++) {
    ctx->n_blocks[k] = ctx->n_tiles[k];
    ctx->partial[k] = off;
    off += ((size_t) ctx->n_tiles[k] * 3 * sizeof (double) + 255)
        & ~(size_t) 255;
  }
  ctx->sums = off;
  ctx->size = off + SUMS_BYTES;
  return TRUE;
}

/* The offsets of plan () made addresses in the block at `base`. */
static void
place (VhMsSsimGpu *ctx, VhGpuPtr base)
{
  ctx->mem = base;
  for (int k = 0; k < SCALES; k++) {
    if (k > 0) {
      ctx->ref[k] += base;
      ctx->dis[k] += base;
    }
    ctx->partial[k] += base;
  }
  ctx->sums += base;
}

/* The launches' parameters: scale 0 reads the planes, the others the
 * float pictures. */
static void
fill_params (const VhMsSsimGpu *ctx, VhGpuPtr ref, VhGpuPtr dis,
    size_t pitch, VhMsSsimParams p[SCALES], VhMsSsimReduce *r)
{
  memset (p, 0, SCALES * sizeof *p);
  memset (r, 0, sizeof *r);
  for (int k = 0; k < SCALES; k++) {
    p[k].ref = k ? ctx->ref[k] : ref;
    p[k].dis = k ? ctx->dis[k] : dis;
    p[k].pitch = k ? (uint32_t) (ctx->w[k] * sizeof (float)) : (uint32_t) pitch;
    p[k].width = ctx->w[k];
    p[k].height = ctx->h[k];
    if (k + 1 < SCALES) {
      p[k].next_ref = ctx->ref[k + 1];
      p[k].next_dis = ctx->dis[k + 1];
      p[k].next_width = ctx->w[k + 1];
      p[k].next_height = ctx->h[k + 1];
    }
    p[k].partial = ctx->partial[k];
    p[k].tiles_x = ctx->tiles_x[k];
    p[k].n_tiles = ctx->n_tiles[k];
    /* libvmaf's picture_copy: to the 8-bit range */
    p[k].inv_scaler = k || ctx->bpc == 8 ? 1.0f : ctx->bpc == 10 ? 0.25f
        : ctx->bpc == 12 ? 0.0625f : 0.00390625f;
    r->partial[k] = ctx->partial[k];
    r->n_tiles[k] = ctx->n_tiles[k];
  }
  r->sums = ctx->sums;
}

VhMsSsimGpu *
vh_ms_ssim_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  return vh_ms_ssim_gpu_new_family (gpu, module, width, height, bpc,
      TRUE, error);
}

VhMsSsimGpu *
vh_ms_ssim_gpu_new_family (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, gboolean exact, GError **error)
{
  if (!gpu || !module) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "float_ms_ssim (GPU): no GPU or module");
    return NULL;
  }
  VhMsSsimGpu *ctx = g_new0 (VhMsSsimGpu, 1);
  ctx->gpu = gpu;
  const char *scale0 = bpc == 8
      ? (exact ? "vh_ms_ssim_scale0_8bit" : "vh_ms_ssim_fast_scale0_8bit")
      : (exact ? "vh_ms_ssim_scale0_16bit" : "vh_ms_ssim_fast_scale0_16bit");
  if (!plan (ctx, width, height, bpc, error)
      || !(ctx->scale0 = vh_gpu_function (module, scale0, error))
      || !(ctx->scale = vh_gpu_function (module, exact ? "vh_ms_ssim_scale"
                  : "vh_ms_ssim_fast_scale", error))
      || !(ctx->reduce = vh_gpu_function (module, "vh_ms_ssim_reduce",
              error))) {
    vh_ms_ssim_gpu_free (ctx);
    return NULL;
  }
  const VhGpuPtr base = vh_gpu_mem_alloc (gpu, ctx->size, error);
  if (!base) {
    vh_ms_ssim_gpu_free (ctx);
    return NULL;
  }
  place (ctx, base);
  return ctx;
}

void
vh_ms_ssim_gpu_free (VhMsSsimGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_scratch_free (ctx->gpu, ctx->mem);
  g_free (ctx);
}

gboolean
vh_ms_ssim_gpu_enqueue (VhMsSsimGpu *ctx, VhGpuStream *stream, VhGpuPtr ref,
    VhGpuPtr dis, size_t pitch, double *sums, GError **error)
{
  if (pitch > G_MAXUINT32) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "float_ms_ssim (GPU): row pitch %zu too large", pitch);
    return FALSE;
  }
  VhMsSsimParams p[SCALES];
  VhMsSsimReduce r;
  fill_params (ctx, ref, dis, pitch, p, &r);
  const VhGpuDim3 block = { VH_MS_SSIM_BLOCK, 1, 1 };
  for (int k = 0; k < SCALES; k++) {
    void *args[] = { &p[k] };
    if (!vh_gpu_launch (k ? ctx->scale : ctx->scale0,
            (VhGpuDim3) { ctx->n_blocks[k], 1, 1 }, block, 0, stream, args,
            error))
      return FALSE;
  }
  void *args[] = { &r };
  return vh_gpu_launch (ctx->reduce, (VhGpuDim3) { SCALES, 1, 1 }, block, 0,
      stream, args, error)
      && vh_gpu_copy_d2h_async (stream, sums, ctx->sums, SUMS_BYTES, error);
}

/* ---- host emulation ------------------------------------------------------ */

VhMsSsimGpu *
vh_ms_ssim_gpu_new_host (unsigned width, unsigned height, unsigned bpc,
    GError **error)
{
  VhMsSsimGpu *ctx = g_new0 (VhMsSsimGpu, 1);
  if (!plan (ctx, width, height, bpc, error)) {
    g_free (ctx);
    return NULL;
  }
  place (ctx, vh_gpu_scratch_alloc (NULL, ctx->size, NULL));
  return ctx;
}

void
vh_ms_ssim_gpu_host_params (VhMsSsimGpu *ctx, const VhPlane *ref,
    const VhPlane *dis, void *p, void *r, unsigned *n_blocks)
{
  /* the kernels read one pitch for both planes */
  g_assert (ref->stride == dis->stride && ref->stride > 0 && ref->step == 1);
  fill_params (ctx, (VhGpuPtr) (uintptr_t) ref->data,
      (VhGpuPtr) (uintptr_t) dis->data, (size_t) ref->stride, p, r);
  memcpy (n_blocks, ctx->n_blocks, sizeof ctx->n_blocks);
}

const double *
vh_ms_ssim_gpu_host_sums (const VhMsSsimGpu *ctx)
{
  return (const double *) (uintptr_t) ctx->sums;
}
