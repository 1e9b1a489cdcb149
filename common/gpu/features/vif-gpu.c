/* vmafhip — integer VIF on the GPU: host side (see vif-gpu.h).
 *
 * Per frame: one memset of the 16 accumulators, four kernel launches (one
 * per scale, each reading the pyramid level the previous one wrote, stream
 * ordered) and one 128-byte copy back. The kernels, their tiling and their
 * arithmetic are described in kernels/vif-device.h; this file sets up the
 * geometry and the rounding shifts per scale, exactly those of the CPU
 * core (common/features/vif/vif.c).
 */
#include "vif-gpu.h"

#include <string.h>

#include "vh-error.h"
/* The launch parameters shared with the kernels (its C part only). */
#include "vif-device.h"

_Static_assert (sizeof (VhVifLevelParams) == 120,
    "VhVifLevelParams must match the kernels' layout");
/* The device accumulators are copied into a VhVifSums as they are. */
_Static_assert (sizeof (VhVifSums)
    == VH_VIF_SCALES * VH_VIF_SUMS_PER_SCALE * sizeof (int64_t),
    "VhVifSums is 4 x 4 int64");

#define VIF_MIN_SIZE VH_VIF_MIN_SIZE    /* common/features/vif/vif.h: one limit */
#define VIF_MAX_SIZE (1u << 20)
/* The log2 table entries the kernels read, T[32768..65535] (x >> k always
 * has bit 15 set). */
#define LOG2_TABLE_FIRST 32768u
#define LOG2_TABLE_ENTRIES 32768u
/* Pyramid rows are padded to this many samples (128-byte rows). */
#define PYRAMID_ROW_ALIGN 64u

#define N_PARTS 3               /* VH_VIF_PART_PAIR, _REF, _DIS */

static const char *const scale0_kernel_8 = "vh_vif_scale0_8bit";
static const char *const scale0_kernel_16 = "vh_vif_scale0_16bit";
static const char *const scale_kernels[VH_VIF_SCALES] = {
  NULL, "vh_vif_scale1", "vh_vif_scale2", "vh_vif_scale3",
};
/* appended to the kernels' names, per part */
static const char *const part_suffix[N_PARTS] = { "", "_ref", "_dis" };

struct VhVifGpu {
  VhGpu *gpu;
  unsigned width[VH_VIF_SCALES], height[VH_VIF_SCALES];
  unsigned bpc;
  /* per part; scale 0 is the 8- or 16-bit kernel, chosen by bpc */
  VhGpuFunction *kernel[N_PARTS][VH_VIF_SCALES];

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
  for (unsigned part = 0; part < N_PARTS; part++)
    for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
      const char *base = s > 0 ? scale_kernels[s]
          : bpc == 8 ? scale0_kernel_8 : scale0_kernel_16;
      char *name = g_strconcat (base, part_suffix[part], NULL);
      ctx->kernel[part][s] = vh_gpu_function (module, name, error);
      g_free (name);
      if (!ctx->kernel[part][s]) {
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

/* The sizes and depths the kernels take (vh_vif_gpu_new says why not,
 * one reason each) */
static gboolean
geometry_ok (unsigned width, unsigned height, unsigned bpc)
{
  return bpc >= 8 && bpc <= 16 && width >= VIF_MIN_SIZE
      && height >= VIF_MIN_SIZE && width <= VIF_MAX_SIZE
      && height <= VIF_MAX_SIZE;
}

/* The reference's share of one frame (see vif-gpu.h): its pyramid and
 * its μ₁, σ₁² per scale. */
struct VhVifGpuReference {
  VhGpu *gpu;                           /* NULL: host memory (emulation) */
  unsigned width, height, bpc;
  VhGpuPtr mem;
  /* [0]: the caller's plane, given to vh_vif_gpu_enqueue_reference;
   * [1..3]: the pyramid, the layout of a context's */
  VhGpuPtr level[VH_VIF_SCALES];
  unsigned level_pitch[VH_VIF_SCALES];  /* [0] bytes, others samples */
  /* VhVifRefStat per pixel of every tile, in the kernels' order */
  VhGpuPtr stats[VH_VIF_SCALES];
  unsigned first_scale;                 /* what the share was computed for */
  gboolean computed;
};

/* The share's layout, each part 256-byte aligned; the size. */
static size_t
reference_layout (VhVifGpuReference *share, size_t *offset)
{
  size_t size = 0;
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    const unsigned w = share->width >> s, h = share->height >> s;
    if (s > 0) {
      share->level_pitch[s] = (unsigned) align_up (w, PYRAMID_ROW_ALIGN);
      offset[2 * s] = size;
      size = align_up (size + (size_t) share->level_pitch[s] * h
          * sizeof (uint16_t), 256);
    }
    const size_t tiles = (size_t) ((w + VH_VIF_TILE_W - 1) / VH_VIF_TILE_W)
        * ((h + VH_VIF_TILE_H - 1) / VH_VIF_TILE_H);
    offset[2 * s + 1] = size;
    size = align_up (size + tiles * VH_VIF_TILE_W * VH_VIF_TILE_H
        * sizeof (VhVifRefStat), 256);
  }
  return size;
}

static VhVifGpuReference *
reference_new (VhGpu *gpu, unsigned width, unsigned height, unsigned bpc,
    GError **error)
{
  if (!geometry_ok (width, height, bpc)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: no reference share for a %ux%u %u-bit picture", width,
        height, bpc);
    return NULL;
  }
  VhVifGpuReference *share = g_new0 (VhVifGpuReference, 1);
  size_t offset[2 * VH_VIF_SCALES];
  share->gpu = gpu;
  share->width = width;
  share->height = height;
  share->bpc = bpc;
  const size_t size = reference_layout (share, offset);
  share->mem = gpu ? vh_gpu_mem_alloc (gpu, size, error)
      : vh_gpu_scratch_alloc (NULL, size, NULL);
  if (!share->mem) {
    g_prefix_error (error, "vif-gpu: %ux%u reference share: ", width, height);
    g_free (share);
    return NULL;
  }
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    if (s > 0)
      share->level[s] = share->mem + offset[2 * s];
    share->stats[s] = share->mem + offset[2 * s + 1];
  }
  return share;
}

VhVifGpuReference *
vh_vif_gpu_reference_new (VhGpu *gpu, unsigned width, unsigned height,
    unsigned bpc, GError **error)
{
  if (!gpu) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: reference_new called with a NULL GPU");
    return NULL;
  }
  return reference_new (gpu, width, height, bpc, error);
}

void
vh_vif_gpu_reference_free (VhVifGpuReference *share)
{
  if (!share)
    return;
  if (share->gpu)
    vh_gpu_mem_free (share->gpu, share->mem);
  else
    vh_gpu_scratch_free (NULL, share->mem);
  g_free (share);
}

/* The launch parameters of scale s of `part` and its number of blocks:
 * the one source for the launches and the host emulation. The reference
 * part reads `ref` (scale 0) and the share's pyramid and writes the
 * share; the distorted part reads the share instead of `ref`. */
static void
level_params (const VhVifGpu *ctx, const VhVifGpuReference *share,
    unsigned part, unsigned s, VhGpuPtr ref, size_t ref_pitch, VhGpuPtr dis,
    size_t dis_pitch, double enhn_gain_limit, unsigned first_scale,
    VhVifLevelParams *out, unsigned *n_blocks)
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
  if (part != VH_VIF_PART_PAIR) {
    /* the share's pyramid has the context's pitches (one formula) */
    p.ref = share->level[s];
    p.ref_pitch = s == 0 ? (uint32_t) (share->level_pitch[0] / sample)
        : share->level_pitch[s];
    p.next_ref = s + 1 < VH_VIF_SCALES ? share->level[s + 1] : 0;
    p.ref_stats = share->stats[s];
  }
  if (part == VH_VIF_PART_REF) {
    p.dis = p.ref;
    p.dis_pitch = p.ref_pitch;
    p.next_dis = 0;
    p.sums = 0;
  }
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

/* The arguments every enqueue checks. */
static gboolean
check_args (const VhVifGpu *ctx, const VhGpuStream *stream,
    const void *out, const char *out_name, double enhn_gain_limit,
    unsigned first_scale, GError **error)
{
  if (!ctx || !stream || !out) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: enqueue called with a NULL %s",
        !ctx ? "context" : !stream ? "stream" : out_name);
    return FALSE;
  }
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
  return TRUE;
}

/* The share must be of the context's geometry, and (to be read) computed
 * with the scales the distorted part computes. */
static gboolean
check_share (const VhVifGpu *ctx, const VhVifGpuReference *share,
    gboolean computed, unsigned first_scale, GError **error)
{
  if (!share) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: enqueue called with a NULL reference share");
    return FALSE;
  }
  if (share->width != ctx->width[0] || share->height != ctx->height[0]
      || share->bpc != ctx->bpc) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: the reference share is for %ux%u %u-bit pictures, the "
        "context for %ux%u %u-bit", share->width, share->height, share->bpc,
        ctx->width[0], ctx->height[0], ctx->bpc);
    return FALSE;
  }
  if (computed && (!share->computed || share->first_scale > first_scale)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "vif-gpu: the reference share %s", !share->computed
        ? "was never computed" : "lacks the scales asked for");
    return FALSE;
  }
  return TRUE;
}

gboolean
vh_vif_gpu_reference_fits (const VhVifGpu *ctx,
    const VhVifGpuReference *share, unsigned first_scale)
{
  return ctx && share && check_share (ctx, share, TRUE, first_scale, NULL);
}

/* The four scales of `part`, stream ordered. */
static gboolean
launch_scales (VhVifGpu *ctx, const VhVifGpuReference *share, unsigned part,
    VhGpuStream *stream, VhGpuPtr ref, size_t ref_pitch, VhGpuPtr dis,
    size_t dis_pitch, double enhn_gain_limit, unsigned first_scale,
    GError **error)
{
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    VhVifLevelParams p;
    unsigned n_blocks;
    level_params (ctx, share, part, s, ref, ref_pitch, dis, dis_pitch,
        enhn_gain_limit, first_scale, &p, &n_blocks);
    const VhGpuDim3 grid = { n_blocks, 1, 1 };
    const VhGpuDim3 block = { VH_VIF_BLOCK, 1, 1 };
    void *args[] = { &p };
    if (!vh_gpu_launch (ctx->kernel[part][s], grid, block, 0, stream, args,
            error))
      return FALSE;
  }
  return TRUE;
}

gboolean
vh_vif_gpu_enqueue (VhVifGpu *ctx, VhGpuStream *stream, VhGpuPtr ref,
    size_t ref_pitch, VhGpuPtr dis, size_t dis_pitch, double enhn_gain_limit,
    unsigned first_scale, VhVifSums *out, GError **error)
{
  if (!check_args (ctx, stream, out, "output", enhn_gain_limit,
          first_scale, error)
      || !check_plane (ctx, ref, ref_pitch, "reference", error)
      || !check_plane (ctx, dis, dis_pitch, "distorted", error))
    return FALSE;
  return vh_gpu_memset_async (stream, ctx->sums, 0, sizeof (VhVifSums), error)
      && launch_scales (ctx, NULL, VH_VIF_PART_PAIR, stream, ref, ref_pitch,
      dis, dis_pitch, enhn_gain_limit, first_scale, error)
      && vh_gpu_copy_d2h_async (stream, out, ctx->sums, sizeof (VhVifSums),
      error);
}

/* Records the reference's plane in the share (scale 0 of its pyramid). */
static void
share_set_plane (VhVifGpuReference *share, VhGpuPtr ref, size_t ref_pitch,
    unsigned first_scale)
{
  share->level[0] = ref;
  share->level_pitch[0] = (unsigned) ref_pitch;
  share->first_scale = first_scale;
  share->computed = TRUE;
}

gboolean
vh_vif_gpu_enqueue_reference (VhVifGpu *ctx, VhVifGpuReference *share,
    VhGpuStream *stream, VhGpuPtr ref, size_t ref_pitch,
    unsigned first_scale, GError **error)
{
  if (!check_args (ctx, stream, share, "reference share", 100.0,
          first_scale, error)
      || !check_share (ctx, share, FALSE, first_scale, error)
      || !check_plane (ctx, ref, ref_pitch, "reference", error))
    return FALSE;
  share_set_plane (share, ref, ref_pitch, first_scale);
  return launch_scales (ctx, share, VH_VIF_PART_REF, stream, ref, ref_pitch,
      0, 0, 100.0, first_scale, error);
}

gboolean
vh_vif_gpu_enqueue_distorted (VhVifGpu *ctx, VhGpuStream *stream,
    const VhVifGpuReference *share, VhGpuPtr dis, size_t dis_pitch,
    double enhn_gain_limit, unsigned first_scale, VhVifSums *out,
    GError **error)
{
  if (!check_args (ctx, stream, out, "output", enhn_gain_limit,
          first_scale, error)
      || !check_share (ctx, share, TRUE, first_scale, error)
      || !check_plane (ctx, dis, dis_pitch, "distorted", error))
    return FALSE;
  return vh_gpu_memset_async (stream, ctx->sums, 0, sizeof (VhVifSums), error)
      && launch_scales (ctx, share, VH_VIF_PART_DIS, stream, 0, 0, dis,
      dis_pitch, enhn_gain_limit, first_scale, error)
      && vh_gpu_copy_d2h_async (stream, out, ctx->sums, sizeof (VhVifSums),
      error);
}

/* ---- host emulation ------------------------------------------------------ */

VhVifGpu *
vh_vif_gpu_new_host (unsigned width, unsigned height, unsigned bpc,
    GError **error)
{
  if (!geometry_ok (width, height, bpc)) {
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
  vh_vif_gpu_host_level_part (ctx, NULL, VH_VIF_PART_PAIR, s, ref, dis,
      enhn_gain_limit, first_scale, p, n_blocks);
}

VhVifGpuReference *
vh_vif_gpu_reference_new_host (unsigned width, unsigned height, unsigned bpc,
    GError **error)
{
  return reference_new (NULL, width, height, bpc, error);
}

void
vh_vif_gpu_host_level_part (VhVifGpu *ctx, VhVifGpuReference *share,
    unsigned part, unsigned s, const VhPlane *ref, const VhPlane *dis,
    double enhn_gain_limit, unsigned first_scale, void *p, unsigned *n_blocks)
{
  const VhGpuPtr ref_data = ref ? (VhGpuPtr) (uintptr_t) ref->data : 0;
  const size_t ref_pitch = ref ? (size_t) ref->stride : 0;
  if (s == 0 && part != VH_VIF_PART_REF)
    memset ((void *) (uintptr_t) ctx->sums, 0, sizeof (VhVifSums));
  if (s == 0 && part == VH_VIF_PART_REF)
    share_set_plane (share, ref_data, ref_pitch, first_scale);
  level_params (ctx, share, part, s, ref_data, ref_pitch,
      dis ? (VhGpuPtr) (uintptr_t) dis->data : 0,
      dis ? (size_t) dis->stride : 0, enhn_gain_limit, first_scale, p,
      n_blocks);
}

const VhVifSums *
vh_vif_gpu_host_sums (const VhVifGpu *ctx)
{
  return (const VhVifSums *) (uintptr_t) ctx->sums;
}
