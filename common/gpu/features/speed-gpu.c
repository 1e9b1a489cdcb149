/* vmafhip — SpEED-chroma on the GPU: the host side of kernels/speed.hip
 * (see speed-gpu.h). */
#include "speed-gpu.h"

#include <string.h>

#include "vh-error.h"

#include "speed-device.h"

#define PICTURES VH_SPEED_PICTURES
#define NB VH_SPEED_NB

G_STATIC_ASSERT (sizeof (VhSpeedSums) == 16);

struct VhSpeedGpu {
  VhGpu *gpu;                   /* NULL: host emulation */
  VhGpuFunction *fn_small, *fn_centre, *fn_means, *fn_cov;
  VhSpeedFilters filters;
  unsigned bpc;
  /* sized at the first frame: the 1/16 pictures, the window means, then
   * a VhSpeedSums' room and the covariances and centred pictures as the
   * sums hold them (copied back in one piece) */
  VhSpeedDims d;
  gboolean sized;
  VhGpuPtr mem, small, means, sums;
  size_t result_bytes;          /* from the covariances on */
};

static size_t
aligned (size_t n)
{
  return (n + 255) & ~(size_t) 255;
}

size_t
vh_speed_gpu_sums_size (unsigned luma_w, unsigned luma_h)
{
  VhSpeedDims d;
  vh_speed_dims (&d, luma_w, luma_h, 1.0);
  return vh_speed_sums_size (d.tw, d.th);
}

static VhSpeedGpu *
context_new (VhGpu *gpu, const VhSpeedChromaOptions *opts, unsigned bpc,
    GError **error)
{
  const char *why;
  if (!vh_speed_gpu_supported (opts, &why)) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "speed_chroma (GPU): not with %s", why);
    return NULL;
  }
  VhSpeedGpu *ctx = g_new0 (VhSpeedGpu, 1);
  ctx->gpu = gpu;
  ctx->bpc = bpc;
  if (!vh_speed_filters (opts->kernelscale, &ctx->filters, error)) {
    g_free (ctx);
    return NULL;
  }
  return ctx;
}

VhSpeedGpu *
vh_speed_gpu_new (VhGpu *gpu, VhGpuModule *module,
    const VhSpeedChromaOptions *opts, unsigned bpc, GError **error)
{
  if (!gpu || !module) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "speed_chroma (GPU): no GPU or module");
    return NULL;
  }
  VhSpeedGpu *ctx = context_new (gpu, opts, bpc, error);
  if (ctx && (!(ctx->fn_small = vh_gpu_function (module, bpc == 8
                  ? "vh_speed_small_8bit" : "vh_speed_small_16bit", error))
          || !(ctx->fn_centre = vh_gpu_function (module, "vh_speed_centre",
                  error))
          || !(ctx->fn_means = vh_gpu_function (module, "vh_speed_means",
                  error))
          || !(ctx->fn_cov = vh_gpu_function (module, "vh_speed_cov",
                  error)))) {
    vh_speed_gpu_free (ctx);
    return NULL;
  }
  return ctx;
}

VhSpeedGpu *
vh_speed_gpu_new_host (const VhSpeedChromaOptions *opts, unsigned bpc,
    GError **error)
{
  return context_new (NULL, opts, bpc, error);
}

void
vh_speed_gpu_free (VhSpeedGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_scratch_free (ctx->gpu, ctx->mem);
  g_free (ctx);
}

/* Scratch for chroma of w x h (libvmaf's size), once */
static gboolean
size_for (VhSpeedGpu *ctx, unsigned w, unsigned h, GError **error)
{
  if (ctx->sized) {
    if (w == ctx->d.w && h == ctx->d.h)
      return TRUE;
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "speed_chroma (GPU): chroma changed from %ux%u to %ux%u", ctx->d.w,
        ctx->d.h, w, h);
    return FALSE;
  }
  vh_speed_dims (&ctx->d, w, h, 1.0);
  const VhSpeedDims *d = &ctx->d;
  if (!d->nblocks) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "speed_chroma (GPU): %ux%u chroma has no 5x5 block at 1/16", w, h);
    return FALSE;
  }
  const size_t small = aligned (PICTURES * sizeof (float) * d->ow * d->oh);
  const size_t means = aligned (PICTURES * sizeof (float) * NB);
  ctx->result_bytes = vh_speed_sums_size (d->tw, d->th)
      - sizeof (VhSpeedSums);
  const size_t total = small + means + sizeof (VhSpeedSums)
      + ctx->result_bytes;
  ctx->mem = vh_gpu_scratch_alloc (ctx->gpu, total, error);
  if (!ctx->mem) {
    g_prefix_error (error, "speed_chroma (GPU): ");
    return FALSE;
  }
  ctx->small = ctx->mem;
  ctx->means = ctx->small + small;
  ctx->sums = ctx->means + means;
  ctx->sized = TRUE;
  return TRUE;
}

static void
fill_params (const VhSpeedGpu *ctx, const VhGpuPtr src[PICTURES],
    const size_t pitch[PICTURES], VhSpeedParams *p)
{
  const VhSpeedDims *d = &ctx->d;
  memset (p, 0, sizeof *p);
  for (int k = 0; k < PICTURES; k++) {
    p->src[k] = src[k];
    p->pitch[k] = (uint32_t) pitch[k];
  }
  p->small = ctx->small;
  p->means = ctx->means;
  p->cov = ctx->sums + sizeof (VhSpeedSums);
  p->centred = p->cov + PICTURES * sizeof (float) * NB * NB;
  p->bpc = ctx->bpc;
  p->w = d->w;
  p->h = d->h;
  p->ow = d->ow;
  p->oh = d->oh;
  p->tw = d->tw;
  p->th = d->th;
  p->subw = d->subw;
  p->subh = d->subh;
  p->fa_width = (uint32_t) ctx->filters.fa_width;
  p->f4_width = (uint32_t) ctx->filters.f4_width;
  memcpy (p->fa, ctx->filters.fa, sizeof p->fa);
  memcpy (p->f4, ctx->filters.f4, sizeof p->f4);
}

static void
fill_header (const VhSpeedGpu *ctx, VhSpeedSums *h)
{
  h->w = ctx->d.w;
  h->h = ctx->d.h;
  h->tw = ctx->d.tw;
  h->th = ctx->d.th;
}

static VhGpuDim3
grid_for (size_t n, unsigned block, unsigned y)
{
  return (VhGpuDim3) { (unsigned) ((n + block - 1) / block), y, 1 };
}

gboolean
vh_speed_gpu_enqueue (VhSpeedGpu *ctx, VhGpuStream *stream,
    const VhGpuPtr ref[3], const VhGpuPtr dis[3], const size_t pitch[3],
    const unsigned width[3], const unsigned height[3], VhSpeedSums *sums,
    GError **error)
{
  unsigned w, h;
  vh_speed_chroma_size (width[0], height[0], width[1], height[1], &w, &h);
  if (!size_for (ctx, w, h, error))
    return FALSE;
  if (pitch[1] > G_MAXUINT32 || pitch[2] > G_MAXUINT32) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "speed_chroma (GPU): chroma row pitch too large");
    return FALSE;
  }
  const VhGpuPtr src[PICTURES] = { ref[1], dis[1], ref[2], dis[2] };
  const size_t src_pitch[PICTURES] = { pitch[1], pitch[1], pitch[2],
    pitch[2] };
  VhSpeedParams p;
  fill_params (ctx, src, src_pitch, &p);
  /* host memory, read once the frame is done */
  fill_header (ctx, sums);
  void *args[] = { &p };
  const VhGpuDim3 block = { VH_SPEED_THREADS, 1, 1 };
  const VhSpeedDims *d = &ctx->d;
  return vh_gpu_launch (ctx->fn_small, grid_for ((size_t) d->ow * d->oh,
          VH_SPEED_THREADS, PICTURES), block, 0, stream, args, error)
      && vh_gpu_launch (ctx->fn_centre, grid_for ((size_t) d->tw * d->th,
          VH_SPEED_THREADS, PICTURES), block, 0, stream, args, error)
      && vh_gpu_launch (ctx->fn_means, (VhGpuDim3) { PICTURES, 1, 1 },
          (VhGpuDim3) { VH_SPEED_MEANS_THREADS, 1, 1 }, 0, stream, args,
          error)
      && vh_gpu_launch (ctx->fn_cov, grid_for (VH_SPEED_PAIRS,
          VH_SPEED_PAIRS_PER_BLOCK, PICTURES), block, 0, stream, args, error)
      && vh_gpu_copy_d2h_async (stream, sums + 1, (VhGpuPtr) p.cov,
          ctx->result_bytes, error);
}

/* ---- host emulation ------------------------------------------------------ */

gboolean
vh_speed_gpu_host_params (VhSpeedGpu *ctx, const VhPicture *ref,
    const VhPicture *dis, void *params, GError **error)
{
  const VhPicture *pics[2] = { ref, dis };
  VhGpuPtr src[PICTURES];
  size_t pitch[PICTURES];
  for (int k = 0; k < PICTURES; k++) {
    const VhPlane *pl = &pics[k % 2]->plane[1 + k / 2];
    g_assert (pl->step == 1 && pl->stride > 0);
    src[k] = (VhGpuPtr) (uintptr_t) pl->data;
    pitch[k] = (size_t) pl->stride;
  }
  unsigned w, h;
  vh_speed_chroma_size (ref->plane[0].width, ref->plane[0].height,
      ref->plane[1].width, ref->plane[1].height, &w, &h);
  if (!size_for (ctx, w, h, error))
    return FALSE;
  fill_params (ctx, src, pitch, params);
  fill_header (ctx, (VhSpeedSums *) (uintptr_t) ctx->sums);
  return TRUE;
}

const VhSpeedSums *
vh_speed_gpu_host_sums (const VhSpeedGpu *ctx)
{
  return (const VhSpeedSums *) (uintptr_t) ctx->sums;
}
