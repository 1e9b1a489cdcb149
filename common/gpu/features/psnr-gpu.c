/* vmafhip — integer PSNR's SSE on the GPU: host side of kernels/psnr.hip. */
#include "psnr-gpu.h"

#include <stddef.h>

#include "vh-error.h"

/* Must match kernels/motion-device.h (VH_PSNR_THREADS, VH_PSNR_ROWS). */
#define PSNR_THREADS 256
#define PSNR_ROWS 4
#define PSNR_MAX_PLANES 3

/* The kernel's first parameter, by value: struct VhPsnrJobs of
 * kernels/motion-device.h, byte for byte (48 bytes per plane, no padding;
 * the kernel checks the same sizes). */
typedef struct {
  guint64 ref, dis;
  guint64 ref_pitch, dis_pitch;
  guint32 width, height;
  guint32 ref_step, dis_step;
} PsnrPlaneJob;

typedef struct {
  PsnrPlaneJob plane[PSNR_MAX_PLANES];
} PsnrJobs;

G_STATIC_ASSERT (sizeof (PsnrPlaneJob) == 48);
G_STATIC_ASSERT (offsetof (PsnrPlaneJob, width) == 32);
G_STATIC_ASSERT (offsetof (PsnrPlaneJob, dis_step) == 44);
G_STATIC_ASSERT (sizeof (PsnrJobs) == 144);

struct VhPsnrGpu {
  VhGpu *gpu;
  VhGpuFunction *kernel;     /* vh_psnr_sse_8 or _16, for ctx->bpc */
  unsigned width, height, bpc;
  VhGpuPtr sse;              /* device uint64[3] accumulators */
};

VhPsnrGpu *
vh_psnr_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  if (!gpu || !module) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr (GPU): no %s given", gpu ? "kernel module" : "GPU");
    return NULL;
  }
  if (bpc != 8 && bpc != 10 && bpc != 12) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "psnr (GPU): %u bits per sample is not supported (8, 10 or 12)", bpc);
    return NULL;
  }
  if (!width || !height) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr (GPU): picture size %ux%u is empty", width, height);
    return NULL;
  }
  if (width > VH_PSNR_GPU_MAX_DIM || height > VH_PSNR_GPU_MAX_DIM) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "psnr (GPU): picture %ux%u exceeds the GPU path's %ux%u",
        width, height, VH_PSNR_GPU_MAX_DIM, VH_PSNR_GPU_MAX_DIM);
    return NULL;
  }

  VhGpuFunction *kernel = vh_gpu_function (module,
      bpc == 8 ? "vh_psnr_sse_8" : "vh_psnr_sse_16", error);
  if (!kernel)
    return NULL;
  const VhGpuPtr sse = vh_gpu_mem_alloc (gpu,
      PSNR_MAX_PLANES * sizeof (guint64), error);
  if (!sse)
    return NULL;

  VhPsnrGpu *ctx = g_new0 (VhPsnrGpu, 1);
  ctx->gpu = gpu;
  ctx->kernel = kernel;
  ctx->width = width;
  ctx->height = height;
  ctx->bpc = bpc;
  ctx->sse = sse;
  return ctx;
}

void
vh_psnr_gpu_free (VhPsnrGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_mem_free (ctx->gpu, ctx->sse);
  g_free (ctx);
}

/* NULL if a plane can be read as described, else what is wrong (and
 * *code the error code for it). */
static const char *
plane_problem (const VhPsnrGpuPlane *plane, unsigned bpc, VhErrorCode *code)
{
  const size_t sample_bytes = bpc > 8 ? 2 : 1;
  *code = VH_ERROR_UNSUPPORTED;
  if (plane->width > VH_PSNR_GPU_MAX_DIM || plane->height > VH_PSNR_GPU_MAX_DIM)
    return "exceeds the GPU path's maximum side of 65535";
  *code = VH_ERROR_INVALID_ARGUMENT;
  if (!plane->data)
    return "has no data (device address 0)";
  if (!plane->width || !plane->height)
    return "is empty";
  if (plane->step != 1 && plane->step != 2)
    return "has a sample step other than 1 or 2";
  if (plane->pitch
      < ((size_t) (plane->width - 1) * plane->step + 1) * sample_bytes)
    return "has a pitch shorter than a row";
  if (sample_bytes == 2 && ((plane->data | (VhGpuPtr) plane->pitch) & 1))
    return "has 16-bit samples that are not 2-byte aligned";
  return NULL;
}

/* Checks the pairs and fills the kernel's jobs; FALSE with the error. */
static gboolean
make_jobs (const VhPsnrGpu *ctx, const VhPsnrGpuPlane *ref,
    const VhPsnrGpuPlane *dis, unsigned n_planes, PsnrJobs *jobs,
    unsigned *max_height, GError **error)
{
  *max_height = 0;
  for (unsigned p = 0; p < n_planes; p++) {
    const VhPsnrGpuPlane *rp = &ref[p], *dp = &dis[p];
    VhErrorCode code;
    const char *problem = plane_problem (rp, ctx->bpc, &code);
    const char *which = "reference";
    if (!problem) {
      problem = plane_problem (dp, ctx->bpc, &code);
      which = "distorted";
    }
    if (problem) {
      g_set_error (error, VH_ERROR, code, "psnr (GPU): %s plane %u %s",
          which, p, problem);
      return FALSE;
    }
    if (rp->width != dp->width || rp->height != dp->height) {
      g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
          "psnr (GPU): plane %u is %ux%u in the reference, %ux%u in the "
          "distorted picture", p, rp->width, rp->height, dp->width,
          dp->height);
      return FALSE;
    }
    if (p == 0 && (rp->width != ctx->width || rp->height != ctx->height)) {
      g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
          "psnr (GPU): luma is %ux%u, the context %ux%u", rp->width,
          rp->height, ctx->width, ctx->height);
      return FALSE;
    }
    jobs->plane[p] = (PsnrPlaneJob) {
      .ref = rp->data, .dis = dp->data,
      .ref_pitch = rp->pitch, .dis_pitch = dp->pitch,
      .width = rp->width, .height = rp->height,
      .ref_step = rp->step, .dis_step = dp->step,
    };
    if (rp->height > *max_height)
      *max_height = rp->height;
  }
  return TRUE;
}

gboolean
vh_psnr_gpu_enqueue (VhPsnrGpu *ctx, VhGpuStream *stream,
    const VhPsnrGpuPlane *ref, const VhPsnrGpuPlane *dis, unsigned n_planes,
    uint64_t *sse, GError **error)
{
  if (!ctx || !stream || !ref || !dis || !sse) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr (GPU): enqueue without a %s", !ctx ? "context"
        : !stream ? "stream" : !sse ? "result address" : "plane");
    return FALSE;
  }
  if (n_planes < 1 || n_planes > PSNR_MAX_PLANES) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "psnr (GPU): %u planes (want 1 to 3)", n_planes);
    return FALSE;
  }

  /* Planes past n_planes stay zero: the kernel never reads them. */
  PsnrJobs jobs = { 0 };
  unsigned max_height;
  if (!make_jobs (ctx, ref, dis, n_planes, &jobs, &max_height, error))
    return FALSE;

  /* The kernel's parameters, in its order and sizes. */
  guint32 n_planes_arg = n_planes;
  VhGpuPtr sse_arg = ctx->sse;
  void *args[] = { &jobs, &n_planes_arg, &sse_arg };
  /* One block per PSNR_ROWS rows of the tallest plane and per plane;
   * blocks below a shorter plane's last row leave at once. */
  const VhGpuDim3 grid = { (max_height + PSNR_ROWS - 1) / PSNR_ROWS,
    n_planes, 1 };
  const VhGpuDim3 block = { PSNR_THREADS, 1, 1 };
  const size_t bytes = n_planes * sizeof (guint64);

  return vh_gpu_memset_async (stream, ctx->sse, 0, bytes, error)
      && vh_gpu_launch (ctx->kernel, grid, block, 0, stream, args, error)
      && vh_gpu_copy_d2h_async (stream, sse, ctx->sse, bytes, error);
}
