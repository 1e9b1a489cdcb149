/* vmafhip — integer motion SAD on the GPU: host side of kernels/motion.hip. */
#include "motion-gpu.h"
#include "motion.h"

#include "vh-error.h"

/* Must match kernels/motion-device.h (VH_MOTION_THREADS, VH_MOTION_TILE_W,
 * VH_MOTION_TILE_H): the kernel is written for exactly this block. */
#define MOTION_THREADS 128
#define MOTION_TILE_W 124
#define MOTION_TILE_H 16
/* The blur reflects one sample past each edge: common/features/motion/motion.h's limit. */
#define MOTION_MIN_SIZE VH_MOTION_MIN_SIZE

struct VhMotionGpu {
  VhGpu *gpu;
  VhGpuFunction *kernel;     /* vh_motion_sad_8 or _16, for ctx->bpc */
  unsigned width, height, bpc;
  VhGpuPtr sad;              /* device uint64 accumulator */
};

VhMotionGpu *
vh_motion_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  if (!gpu || !module) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion (GPU): no %s given", gpu ? "kernel module" : "GPU");
    return NULL;
  }
  if (bpc != 8 && bpc != 10 && bpc != 12) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "motion (GPU): %u bits per sample is not supported (8, 10 or 12)",
        bpc);
    return NULL;
  }
  if (!width || !height) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion (GPU): picture size %ux%u is empty", width, height);
    return NULL;
  }
  if (width < MOTION_MIN_SIZE || height < MOTION_MIN_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "motion (GPU): picture %ux%u is smaller than the blur's %ux%u",
        width, height, MOTION_MIN_SIZE, MOTION_MIN_SIZE);
    return NULL;
  }
  if (width > VH_MOTION_GPU_MAX_DIM || height > VH_MOTION_GPU_MAX_DIM) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "motion (GPU): picture %ux%u exceeds the GPU path's %ux%u",
        width, height, VH_MOTION_GPU_MAX_DIM, VH_MOTION_GPU_MAX_DIM);
    return NULL;
  }

  VhGpuFunction *kernel = vh_gpu_function (module,
      bpc == 8 ? "vh_motion_sad_8" : "vh_motion_sad_16", error);
  if (!kernel)
    return NULL;
  const VhGpuPtr sad = vh_gpu_mem_alloc (gpu, sizeof (guint64), error);
  if (!sad)
    return NULL;

  VhMotionGpu *ctx = g_new0 (VhMotionGpu, 1);
  ctx->gpu = gpu;
  ctx->kernel = kernel;
  ctx->width = width;
  ctx->height = height;
  ctx->bpc = bpc;
  ctx->sad = sad;
  return ctx;
}

void
vh_motion_gpu_free (VhMotionGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_mem_free (ctx->gpu, ctx->sad);
  g_free (ctx);
}

/* NULL if a luma plane can be read as described, else what is wrong. */
static const char *
plane_problem (const VhMotionGpu *ctx, VhGpuPtr data, size_t pitch)
{
  const size_t sample_bytes = ctx->bpc > 8 ? 2 : 1;
  if (!data)
    return "has no data (device address 0)";
  if (pitch < (size_t) ctx->width * sample_bytes)
    return "has a pitch shorter than a row";
  if (sample_bytes == 2 && ((data | (VhGpuPtr) pitch) & 1))
    return "has 16-bit samples that are not 2-byte aligned";
  return NULL;
}

gboolean
vh_motion_gpu_enqueue (VhMotionGpu *ctx, VhGpuStream *stream, VhGpuPtr prev,
    size_t prev_pitch, VhGpuPtr cur, size_t cur_pitch, uint64_t *sad,
    GError **error)
{
  if (!ctx || !stream || !sad) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion (GPU): enqueue without a %s", !ctx ? "context"
        : !stream ? "stream" : "result address");
    return FALSE;
  }
  const char *problem = plane_problem (ctx, prev, prev_pitch);
  const char *which = "previous";
  if (!problem) {
    problem = plane_problem (ctx, cur, cur_pitch);
    which = "current";
  }
  if (problem) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion (GPU): the %s luma plane %s", which, problem);
    return FALSE;
  }

  /* The kernel's parameters, in its order and sizes. */
  VhGpuPtr prev_arg = prev, cur_arg = cur, sad_arg = ctx->sad;
  guint64 prev_pitch_arg = prev_pitch, cur_pitch_arg = cur_pitch;
  gint width_arg = (gint) ctx->width, height_arg = (gint) ctx->height;
  gint bpc_arg = (gint) ctx->bpc;
  void *args[] = { &prev_arg, &prev_pitch_arg, &cur_arg, &cur_pitch_arg,
    &width_arg, &height_arg, &bpc_arg, &sad_arg };
  const VhGpuDim3 grid = {
    (ctx->width + MOTION_TILE_W - 1) / MOTION_TILE_W,
    (ctx->height + MOTION_TILE_H - 1) / MOTION_TILE_H, 1
  };
  const VhGpuDim3 block = { MOTION_THREADS, 1, 1 };

  return vh_gpu_memset_async (stream, ctx->sad, 0, sizeof (guint64), error)
      && vh_gpu_launch (ctx->kernel, grid, block, 0, stream, args, error)
      && vh_gpu_copy_d2h_async (stream, sad, ctx->sad, sizeof (guint64),
          error);
}
