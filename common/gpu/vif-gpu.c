/* vmafhip — integer VIF on the GPU: host side (see vif-gpu.h).
 *
 * Per frame: one memset of the 16 accumulators, four kernel launches (one
 * per scale, each reading the pyramid level the previous one wrote, stream
 * ordered) and one 128-byte copy back. The kernels, their tiling and their
 * arithmetic are described in kernels/vif-device.h; this file sets up the
 * geometry and the rounding shifts per scale, exactly those of the CPU
 * core (common/vif.c).
 */
#include "vif-gpu.h"

#include <string.h>

#include "vh-error.h"
/* The launch parameters shared with the kernels (its C part only). */
#include "../../kernels/vif-device.h"

_Static_assert (sizeof (VhVifLevelParams) == 104,
    "VhVifLevelParams must match the kernels' layout");
/* The device accumulators are copied into a VhVifSums as they are. */
_Static_assert (sizeof (VhVifSums)
    == VH_VIF_SCALES * VH_VIF_SUMS_PER_SCALE * sizeof (int64_t),
    "VhVifSums is 4 x 4 int64");

#define VIF_MIN_SIZE VH_VIF_MIN_SIZE    /* common/vif.h: one limit */
#define VIF_MAX_SIZE (1u << 20)
/* The log2 table entries the kernels read, T[32768..65535] (x >> k always
 * has bit 15 set). */
#define LOG2_TABLE_FIRST 32768u
#define LOG2_TABLE_ENTRIES 32768u
/* Pyramid rows are padded to this many samples (128-byte rows). */
#define PYRAMID_ROW_ALIGN 64u

static const char *const scale0_kernel_8 = "vh_vif_scale0_8bit";
static const char *const scale0_kernel_16 = "vh_vif_scale0_16bit";
static const char *const scale_kernels[VH_VIF_SCALES] = {
  NULL, "vh_vif_scale1", "vh_vif_scale2", "vh_vif_scale3",
};

struct VhVifGpu {
  VhGpu *gpu;
  unsigned width[VH_VIF_SCALES], height[VH_VIF_SCALES];
  unsigned bpc;
  /* scale 0 is the 8- or 16-bit kernel, chosen by bpc */
  VhGpuFunction *kernel[VH_VIF_SCALES];

  VhGpuPtr mem;                       /* the one device allocation */
  VhGpuPtr log2_table;                /* T[32768..65535] */
  VhGpuPtr sums;                      /* int64 [scale][4] = VhVifSums */
  VhGpuPtr pyr_ref[VH_VIF_SCALES], pyr_dis[VH_VIF_SCALES];  /* [1..3] */
  unsigned pyr_pitch[VH_VIF_SCALES];  /* samples */
};

static size_t
align_up (size_t n, size_t a)
{
  return (n + a - 1) / a * a;
}

/* Where the parts of the one allocation lie: the table, the accumulators,
 * then the pyramid levels, each 256-byte aligned. */
typedef struct {
  size_t log2, sums, pyr[VH_VIF_SCALES][2];
  size_t size;
} Layout;

/* The scales' sizes and pitches, and the allocation's layout. */
static void
plan_layout (VhVifGpu *ctx, unsigned width, unsigned height, Layout *l)
{
  size_t size = 0;

  memset (l, 0, sizeof *l);
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    ctx->width[s] = width >> s;
    ctx->height[s] = height >> s;
  }
  l->log2 = size;
  size = align_up (size + LOG2_TABLE_ENTRIES * sizeof (uint16_t), 256);
  l->sums = size;
  size = align_up (size + sizeof (VhVifSums), 256);
  for (unsigned s = 1; s < VH_VIF_SCALES; s++) {
    ctx->pyr_pitch[s] = (unsigned) align_up (ctx->width[s], PYRAMID_ROW_ALIGN);
    const size_t plane = (size_t) ctx->pyr_pitch[s] * ctx->height[s]
        * sizeof (uint16_t);
    for (unsigned i = 0; i < 2; i++) {
      l->pyr[s][i] = size;
      size = align_up (size + plane, 256);
    }
  }
  l->size = size;
}

/* The parts' addresses once ctx->mem is allocated. */
static void
place_parts (VhVifGpu *ctx, const Layout *l)
{
  ctx->log2_table = ctx->mem + l->log2;
  ctx->sums = ctx->mem + l->sums;
  for (unsigned s = 1; s < VH_VIF_SCALES; s++) {
    ctx->pyr_ref[s] = ctx->mem + l->pyr[s][0];
    ctx->pyr_dis[s] = ctx->mem + l->pyr[s][1];
  }
}

static gboolean
upload_log2_table (VhVifGpu *ctx, GError **error)
{
  VhGpuStream *stream = vh_gpu_stream_new (ctx->gpu, error);
  gboolean ok;

  if (!stream)
    return FALSE;
  ok = vh_gpu_copy_h2d_async (stream, ctx->log2_table,
      vh_vif_log2_table () + LOG2_TABLE_FIRST,
      LOG2_TABLE_ENTRIES * sizeof (uint16_t), error)
      && vh_gpu_stream_sync (stream, error);
  vh_gpu_stream_free (stream);
  return ok;
}

VhVifGpu *
vh_vif_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  if (!gpu || !module) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: new called with a NULL %s", !gpu ? "GPU" : "module");
    return NULL;
  }
  if (bpc < 8 || bpc > 16) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif-gpu: unsupported bit depth %u (8 to 16 supported)", bpc);
    return NULL;
  }
  if (width < VIF_MIN_SIZE || height < VIF_MIN_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "vif-gpu: picture %ux%u too small: its 4-scale pyramid needs a luma "
        "of at least %ux%u", width, height, VIF_MIN_SIZE, VIF_MIN_SIZE);
    return NULL;
  }
  if (width > VIF_MAX_SIZE || height > VIF_MAX_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif-gpu: picture %ux%u too large (at most %u each way)", width,
        height, VIF_MAX_SIZE);
    return NULL;
  }
  if (vh_gpu_max_shared_per_block (gpu) < VH_VIF_SHARED_BYTES
      || vh_gpu_max_threads_per_block (gpu) < VH_VIF_BLOCK) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif-gpu: %s allows %zu bytes of shared memory and %d threads per "
        "block; the vif kernels need %u and %u", vh_gpu_device_name (gpu),
        vh_gpu_max_shared_per_block (gpu), vh_gpu_max_threads_per_block (gpu),
        (unsigned) VH_VIF_SHARED_BYTES, (unsigned) VH_VIF_BLOCK);
    return NULL;
  }

  VhVifGpu *ctx = g_new0 (VhVifGpu, 1);
  ctx->gpu = gpu;
  ctx->bpc = bpc;
  Layout l;
  plan_layout (ctx, width, height, &l);
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    const char *name = s > 0 ? scale_kernels[s]
        : bpc == 8 ? scale0_kernel_8 : scale0_kernel_16;
    ctx->kernel[s] = vh_gpu_function (module, name, error);
    if (!ctx->kernel[s]) {
      g_prefix_error (error, "vif-gpu: module without the vif kernels: ");
      g_free (ctx);
      return NULL;
    }
  }

  ctx->mem = vh_gpu_mem_alloc (gpu, l.size, error);
  if (!ctx->mem) {
    g_prefix_error (error, "vif-gpu: %ux%u scratch: ", width, height);
    g_free (ctx);
    return NULL;
  }
  place_parts (ctx, &l);

  if (!upload_log2_table (ctx, error)) {
    g_prefix_error (error, "vif-gpu: log2 table upload: ");
    vh_vif_gpu_free (ctx);
    return NULL;
  }
  return ctx;
}

void
vh_vif_gpu_free (VhVifGpu *ctx)
{
  if (!ctx)
    return;
  vh_gpu_scratch_free (ctx->gpu, ctx->mem);
  g_free (ctx);
}

/* Checks one input plane; `which` names it in the message. */
static gboolean
check_plane (const VhVifGpu *ctx, VhGpuPtr plane, size_t pitch,
    const char *which, GError **error)
{
  const size_t sample = ctx->bpc > 8 ? 2 : 1;
  const size_t row_bytes = (size_t) ctx->width[0] * sample;

  if (!plane) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: %s plane is a NULL device address", which);
    return FALSE;
  }
  if (pitch < row_bytes) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: %s pitch %zu is shorter than its %zu-byte rows", which,
        pitch, row_bytes);
    return FALSE;
  }
  if (sample == 2 && (plane % 2 != 0 || pitch % 2 != 0)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: %s plane of %u-bit samples must be 2-byte aligned "
        "(address 0x%" G_GINT64_MODIFIER "x, pitch %zu)", which, ctx->bpc,
        (guint64) plane, pitch);
    return FALSE;
  }
  /* The kernels index samples with 32 bits. */
  const guint64 samples = (guint64) (pitch / sample) * (ctx->height[0] - 1)
      + ctx->width[0];
  if (samples > G_MAXUINT32) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "vif-gpu: %s plane spans %" G_GUINT64_FORMAT " samples, above the "
        "kernels' 2^32", which, samples);
    return FALSE;
  }
  return TRUE;
}

/* The launch parameters of scale s and its number of blocks: the one
 * source for the launches and the host emulation. */
static void
level_params (const VhVifGpu *ctx, unsigned s, VhGpuPtr ref,
    size_t ref_pitch, VhGpuPtr dis, size_t dis_pitch, double enhn_gain_limit,
    unsigned first_scale, VhVifLevelParams *out, unsigned *n_blocks)
{
  const size_t sample = ctx->bpc > 8 ? 2 : 1;
  VhVifLevelParams p;

  memset (&p, 0, sizeof p);
  if (s == 0) {
    p.ref = ref;
    p.dis = dis;
    /* The kernels read whole samples: row pitches in samples (for
     * 16-bit planes both pitches are even, checked above). */
    p.ref_pitch = (uint32_t) (ref_pitch / sample);
    p.dis_pitch = (uint32_t) (dis_pitch / sample);
  } else {
    p.ref = ctx->pyr_ref[s];
    p.dis = ctx->pyr_dis[s];
    p.ref_pitch = p.dis_pitch = ctx->pyr_pitch[s];
  }
  if (s + 1 < VH_VIF_SCALES) {
    p.next_ref = ctx->pyr_ref[s + 1];
    p.next_dis = ctx->pyr_dis[s + 1];
    p.next_width = ctx->width[s + 1];
    p.next_height = ctx->height[s + 1];
    p.next_pitch = ctx->pyr_pitch[s + 1];
  }
  p.log2_table = ctx->log2_table;
  p.sums = ctx->sums + (VhGpuPtr) s * sizeof (VhVifScaleSums);
  p.enhn_gain_limit = enhn_gain_limit;
  p.width = ctx->width[s];
  p.height = ctx->height[s];
  p.tiles_x = (ctx->width[s] + VH_VIF_TILE_W - 1) / VH_VIF_TILE_W;
  /* Scale 0 brings everything to 8-bit units: μ and the subsample by
   * bpc, the squares by 2(bpc − 8) (8-bit: the kernel keeps them as
   * they are). Later scales are at "8-bit pixel · 256": 16 for all. */
  p.mu_shift = s == 0 ? ctx->bpc : 16;
  p.sq_shift = s == 0 ? 2 * (ctx->bpc - 8) : 16;
  p.sub_shift = s == 0 ? ctx->bpc : 16;
  p.do_stats = s >= first_scale;
  /* (scale 3 always computes its statistics: first_scale ≤ 3) */

  const unsigned tiles_y = (ctx->height[s] + VH_VIF_TILE_H - 1)
      / VH_VIF_TILE_H;
  *out = p;
  *n_blocks = p.tiles_x * tiles_y;
}

gboolean
vh_vif_gpu_enqueue (VhVifGpu *ctx, VhGpuStream *stream, VhGpuPtr ref,
    size_t ref_pitch, VhGpuPtr dis, size_t dis_pitch, double enhn_gain_limit,
    unsigned first_scale, VhVifSums *out, GError **error)
{
  if (!ctx || !stream || !out) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: enqueue called with a NULL %s",
        !ctx ? "context" : !stream ? "stream" : "output");
    return FALSE;
  }
  if (!check_plane (ctx, ref, ref_pitch, "reference", error)
      || !check_plane (ctx, dis, dis_pitch, "distorted", error))
    return FALSE;
  if (!(enhn_gain_limit >= 1.0 && enhn_gain_limit <= 100.0)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: enhn_gain_limit must be in [1, 100], got %g",
        enhn_gain_limit);
    return FALSE;
  }
  if (first_scale >= VH_VIF_SCALES) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: first_scale must be 0 to %u, got %u", VH_VIF_SCALES - 1,
        first_scale);
    return FALSE;
  }

  if (!vh_gpu_memset_async (stream, ctx->sums, 0, sizeof (VhVifSums), error))
    return FALSE;

  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    VhVifLevelParams p;
    unsigned n_blocks;
    level_params (ctx, s, ref, ref_pitch, dis, dis_pitch, enhn_gain_limit,
        first_scale, &p, &n_blocks);
    const VhGpuDim3 grid = { n_blocks, 1, 1 };
    const VhGpuDim3 block = { VH_VIF_BLOCK, 1, 1 };
    void *args[] = { &p };
    if (!vh_gpu_launch (ctx->kernel[s], grid, block, 0, stream, args, error))
      return FALSE;
  }
  return vh_gpu_copy_d2h_async (stream, out, ctx->sums, sizeof (VhVifSums),
      error);
}

/* ---- host emulation ------------------------------------------------------ */

VhVifGpu *
vh_vif_gpu_new_host (unsigned width, unsigned height, unsigned bpc,
    GError **error)
{
  if (bpc < 8 || bpc > 16 || width < VIF_MIN_SIZE || height < VIF_MIN_SIZE
      || width > VIF_MAX_SIZE || height > VIF_MAX_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu emulation: %ux%u %u-bit is not supported", width, height,
        bpc);
    return NULL;
  }
  VhVifGpu *ctx = g_new0 (VhVifGpu, 1);
  Layout l;
  plan_layout (ctx, width, height, &l);
  ctx->bpc = bpc;
  ctx->mem = vh_gpu_scratch_alloc (NULL, l.size, NULL);
  place_parts (ctx, &l);
  memcpy ((void *) (uintptr_t) ctx->log2_table,
      vh_vif_log2_table () + LOG2_TABLE_FIRST,
      LOG2_TABLE_ENTRIES * sizeof (uint16_t));
  return ctx;
}

void
vh_vif_gpu_host_level (VhVifGpu *ctx, unsigned s, const VhPlane *ref,
    const VhPlane *dis, double enhn_gain_limit, unsigned first_scale,
    void *p, unsigned *n_blocks)
{
  if (s == 0)
    memset ((void *) (uintptr_t) ctx->sums, 0, sizeof (VhVifSums));
  level_params (ctx, s, (VhGpuPtr) (uintptr_t) ref->data,
      (size_t) ref->stride, (VhGpuPtr) (uintptr_t) dis->data,
      (size_t) dis->stride, enhn_gain_limit, first_scale, p, n_blocks);
}

const VhVifSums *
vh_vif_gpu_host_sums (const VhVifGpu *ctx)
{
  return (const VhVifSums *) (uintptr_t) ctx->sums;
}
