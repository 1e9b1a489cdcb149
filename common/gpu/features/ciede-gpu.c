/* vmafhip — CIEDE2000 on the GPU: the host side of kernels/ciede.hip. */
#include "ciede-gpu.h"

#include <stddef.h>
#include <string.h>

#include "vh-error.h"
#include "ciede-device.h"

/* blocks of the first pass: enough to fill any GPU, few enough to add up
 * in one block */
#define CIEDE_BLOCKS 1024

/* the kernel's VhCiedeParams */
typedef struct {
  guint64 ref[3], dis[3];
  guint64 pitch[3];
  guint32 width, height, shift, bpc;
  guint64 partial;
} CiedeParams;

G_STATIC_ASSERT (sizeof (CiedeParams) == 96);
G_STATIC_ASSERT (offsetof (CiedeParams, partial) == 88);

struct VhCiedeGpu {
  VhGpu *gpu;
  VhGpuFunction *kernel, *reduce;
  unsigned width, height, bpc;
  VhGpuPtr partial, sum;
  VhGpuPtr table;           /* 8-bit: the shared Lab table, or 0 */
};

/* The 8-bit Lab table: 2^24 entries of 16 bytes (256 MiB), one per device
 * for the whole process (vh_gpu_table_acquire), written on first use. */
#define CIEDE_TABLE_NAME "ciede-lab-8bit"
#define CIEDE_TABLE_SIZE ((size_t) VH_CIEDE_TABLE_ENTRIES \
    * sizeof (VhCiedeLabEntry))

G_STATIC_ASSERT (sizeof (VhCiedeLabEntry) == 16);

typedef struct {
  VhGpuModule *module;
  gboolean fill_failed;         /* the table was allocated, not written */
} TableFill;

static gboolean
fill_table (VhGpu *gpu, VhGpuPtr mem, void *data, GError **error)
{
  TableFill *fill = data;
  VhGpuFunction *build = vh_gpu_function (fill->module, "vh_ciede_lab_table",
      error);
  VhGpuStream *stream = build ? vh_gpu_stream_new (gpu, error) : NULL;
  gboolean ok = stream != NULL;
  if (ok) {
    void *args[] = { &mem };
    ok = vh_gpu_launch (build,
        (VhGpuDim3) { VH_CIEDE_TABLE_ENTRIES / VH_CIEDE_THREADS, 1, 1 },
        (VhGpuDim3) { VH_CIEDE_THREADS, 1, 1 }, 0, stream, args, error)
        && vh_gpu_stream_sync (stream, error);
    vh_gpu_stream_free (stream);
  }
  fill->fill_failed = !ok;
  return ok;
}

/* The table (*table), or 0 where the device has no room for it: then
 * every pixel is converted.  A table that could not be written is a GPU
 * fault: FALSE. */
static gboolean
acquire_table (VhGpu *gpu, VhGpuModule *module, VhGpuPtr *table,
    GError **error)
{
  *table = 0;
  TableFill fill = { module, FALSE };
  GError *local = NULL;
  *table = vh_gpu_table_acquire (gpu, CIEDE_TABLE_NAME, CIEDE_TABLE_SIZE,
      fill_table, &fill, &local);
  if (*table)
    return TRUE;
  if (fill.fill_failed) {
    g_propagate_prefixed_error (error, local,
        "ciede (GPU): writing the Lab table: ");
    return FALSE;
  }
  g_debug ("ciede (GPU): no Lab table, converting every pixel: %s",
      local->message);
  g_clear_error (&local);
  return TRUE;
}

VhCiedeGpu *
vh_ciede_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  return vh_ciede_gpu_new_table (gpu, module, width, height, bpc, TRUE,
      error);
}

VhCiedeGpu *
vh_ciede_gpu_new_table (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, gboolean use_table, GError **error)
{
  if (!gpu || !module || !width || !height || (guint64) width * height
      > G_MAXUINT32) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "ciede (GPU): no GPU or module, or picture size %ux%u out of range",
        width, height);
    return NULL;
  }
  VhGpuPtr table = 0;
  if (bpc == 8 && use_table && !acquire_table (gpu, module, &table, error))
    return NULL;
  VhGpuFunction *kernel = vh_gpu_function (module, table
      ? "vh_ciede_8bit_table" : bpc == 8 ? "vh_ciede_8bit" : "vh_ciede_16bit",
      error);
  VhGpuFunction *reduce = kernel ? vh_gpu_function (module, "vh_ciede_reduce",
      error) : NULL;
  if (!reduce) {
    if (table)
      vh_gpu_table_release (gpu, CIEDE_TABLE_NAME);
    return NULL;
  }
  VhCiedeGpu *ctx = g_new0 (VhCiedeGpu, 1);
  ctx->gpu = gpu;
  ctx->table = table;
  ctx->kernel = kernel;
  ctx->reduce = reduce;
  ctx->width = width;
  ctx->height = height;
  ctx->bpc = bpc;
  if (!(ctx->partial = vh_gpu_mem_alloc (gpu, CIEDE_BLOCKS * sizeof (double),
              error))
      || !(ctx->sum = vh_gpu_mem_alloc (gpu, sizeof (double), error))) {
    vh_ciede_gpu_free (ctx);
    return NULL;
  }
  return ctx;
}

void
vh_ciede_gpu_free (VhCiedeGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_mem_free (ctx->gpu, ctx->partial);
  vh_gpu_mem_free (ctx->gpu, ctx->sum);
  if (ctx->table)
    vh_gpu_table_release (ctx->gpu, CIEDE_TABLE_NAME);
  g_free (ctx);
}

gboolean
vh_ciede_gpu_uses_table (const VhCiedeGpu *ctx)
{
  return ctx && ctx->table != 0;
}

gboolean
vh_ciede_gpu_enqueue (VhCiedeGpu *ctx, VhGpuStream *stream,
    const VhGpuPtr ref[3], const VhGpuPtr dis[3], const size_t pitch[3],
    unsigned shift, double *sum, GError **error)
{
  CiedeParams p = {
    .width = ctx->width, .height = ctx->height, .shift = shift,
    .bpc = ctx->bpc, .partial = ctx->partial,
  };
  for (int i = 0; i < 3; i++) {
    p.ref[i] = ref[i];
    p.dis[i] = dis[i];
    p.pitch[i] = pitch[i];
  }
  const guint64 pixels = (guint64) ctx->width * ctx->height;
  unsigned blocks = (unsigned) MIN ((pixels + VH_CIEDE_THREADS - 1)
      / VH_CIEDE_THREADS, CIEDE_BLOCKS);
  unsigned n_partial = blocks;
  void *args[] = { &p, &ctx->table };
  void *reduce_args[] = { &ctx->partial, &n_partial, &ctx->sum };
  const VhGpuDim3 block = { VH_CIEDE_THREADS, 1, 1 };
  return vh_gpu_launch (ctx->kernel, (VhGpuDim3) { blocks, 1, 1 }, block, 0,
      stream, args, error)
      && vh_gpu_launch (ctx->reduce, (VhGpuDim3) { 1, 1, 1 }, block, 0,
      stream, reduce_args, error)
      && vh_gpu_copy_d2h_async (stream, sum, ctx->sum, sizeof (double),
      error);
}
