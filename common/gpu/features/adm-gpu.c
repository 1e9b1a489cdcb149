/* vmafhip — integer ADM on the GPU, host side (see adm-gpu.h).
 *
 * The geometry of each scale (regions, shifts, the columns of libvmaf's
 * AVX-512 loops) comes from common/features/adm/adm.c's own vh_adm_plan (one source for
 * both), and is handed to the kernels as one VhAdmGpuScale per launch
 * (kernels/adm-device.h).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "adm-gpu.h"
#include "vh-error.h"
#include "adm-device.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846264338327
#endif

/* The kernels write a scale's accumulators as VH_ADM_NQ uint64 in the
 * order dlm[3], aim[3], den[3]. */
G_STATIC_ASSERT (sizeof (VhAdmScaleSums) == VH_ADM_NQ * sizeof (uint64_t));
G_STATIC_ASSERT (offsetof (VhAdmScaleSums, aim) == VH_ADM_Q_AIM * sizeof (uint64_t));
G_STATIC_ASSERT (offsetof (VhAdmScaleSums, den) == VH_ADM_Q_DEN * sizeof (uint64_t));
G_STATIC_ASSERT (sizeof (VhAdmSums) == VH_ADM_SCALES * sizeof (VhAdmScaleSums));

/* [part][input kind] */
#define N_PARTS 3
#define N_KERNELS 4
static const char *const kernel_names[N_PARTS][N_KERNELS] = {
  [VH_ADM_PART_PAIR] = {
    [VH_ADM_SRC_U8] = "vh_adm_scale0_u8",
    [VH_ADM_SRC_U16] = "vh_adm_scale0_u16",
    [VH_ADM_SRC_S1] = "vh_adm_scale1",
    [VH_ADM_SRC_S23] = "vh_adm_scale23",
  },
  [VH_ADM_PART_REF] = {
    [VH_ADM_SRC_U8] = "vh_adm_scale0_u8_ref",
    [VH_ADM_SRC_U16] = "vh_adm_scale0_u16_ref",
    [VH_ADM_SRC_S1] = "vh_adm_scale1_ref",
    [VH_ADM_SRC_S23] = "vh_adm_scale23_ref",
  },
  [VH_ADM_PART_DIS] = {
    [VH_ADM_SRC_U8] = "vh_adm_scale0_u8_dis",
    [VH_ADM_SRC_U16] = "vh_adm_scale0_u16_dis",
    [VH_ADM_SRC_S1] = "vh_adm_scale1_dis",
    [VH_ADM_SRC_S23] = "vh_adm_scale23_dis",
  },
};

/* The reference's share: its low bands (the next scale's input) and its
 * detail bands h, v, d at every scale, in GPU memory (host memory in the
 * emulation) */
struct VhAdmGpuReference {
  VhGpu *gpu;                   /* NULL: host memory (emulation) */
  unsigned width, height, bpc;
  int bw[VH_ADM_SCALES], bh[VH_ADM_SCALES];
  VhGpuPtr low[VH_ADM_SCALES - 1];
  VhGpuPtr bands[VH_ADM_SCALES];        /* int32 [3][bh][bw] */
  gboolean computed;
  VhAdmReference flavour;       /* what it was computed for */
};

struct VhAdmGpu {
  VhGpu *gpu;
  VhGpuFunction *fn[N_PARTS][N_KERNELS];
  unsigned width, height, bpc;
  int bw[VH_ADM_SCALES], bh[VH_ADM_SCALES];   /* band sizes */
  VhGpuPtr div;
  /* Low band of ref [0] and dis [1] at scales 0-2: the next scale's input. */
  VhGpuPtr low[2][VH_ADM_SCALES - 1];
  /* Zeroed every frame: row sums of every scale, block counters, the
   * AVX-512 flavour-1 carry-over between scales, the result. */
  VhGpuPtr acc;
  size_t acc_size;
  size_t rows_off[VH_ADM_SCALES];
  size_t counter_off, stale_off, out_off;
};

static size_t
align8 (size_t n)
{
  return (n + 7) & ~(size_t) 7;
}

/* Where each scale's row sums, the block counters, the AVX-512 carry-over
 * and the result lie in the accumulator block. */
static void
layout_accumulators (VhAdmGpu *ctx)
{
  size_t off = 0;
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    ctx->rows_off[s] = off;
    off += (size_t) VH_ADM_NQ * ctx->bh[s] * sizeof (uint64_t);
  }
  ctx->counter_off = off;
  off = align8 (off + VH_ADM_SCALES * sizeof (uint32_t));
  ctx->stale_off = off;
  off = align8 (off + (VH_ADM_SCALES - 1) * 2 * sizeof (int32_t));
  ctx->out_off = off;
  off += sizeof (VhAdmSums);
  ctx->acc_size = off;
}

/* The pictures ADM takes (the CPU extractor's checks): a context, a
 * reference share and the emulation refuse the same ones, the same way */
static gboolean
check_geometry (unsigned width, unsigned height, unsigned bpc,
    GError **error)
{
  if (bpc != 8 && bpc != 10 && bpc != 12)
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "%u bits per component is not supported (8, 10 or 12)", bpc);
  else if (width == 0 || height == 0)
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "empty picture (%ux%u)", width, height);
  else if (width < VH_ADM_MIN_SIZE || height < VH_ADM_MIN_SIZE)
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "%ux%u is too small for the 4-level wavelet pyramid "
        "(at least %ux%u)", width, height, VH_ADM_MIN_SIZE, VH_ADM_MIN_SIZE);
  else if (width > (1u << 16) || height > (1u << 16))
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "%ux%u is too large (at most 65536 on a side)", width,
        height);
  else
    return TRUE;
  return FALSE;
}

/* The accumulators and the low bands of a context of ctx's size, on its
 * GPU (NULL: host memory, for the emulation); freed by free_work */
static gboolean
allocate_work (VhAdmGpu *ctx, GError **error)
{
  vh_adm_band_sizes (ctx->width, ctx->height, ctx->bw, ctx->bh);
  layout_accumulators (ctx);
  if (!(ctx->acc = vh_gpu_scratch_alloc (ctx->gpu, ctx->acc_size, error)))
    return FALSE;
  for (int s = 0; s < VH_ADM_SCALES - 1; s++)
    for (int i = 0; i < 2; i++)
      if (!(ctx->low[i][s] = vh_gpu_scratch_alloc (ctx->gpu,
                  (size_t) ctx->bw[s] * ctx->bh[s] * sizeof (int32_t),
                  error)))
        return FALSE;
  return TRUE;
}

static void
free_work (VhAdmGpu *ctx)
{
  for (int s = 0; s < VH_ADM_SCALES - 1; s++)
    for (int i = 0; i < 2; i++)
      vh_gpu_scratch_free (ctx->gpu, ctx->low[i][s]);
  vh_gpu_scratch_free (ctx->gpu, ctx->acc);
}

VhAdmGpu *
vh_adm_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  if (!gpu || !module) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: NULL %s", !gpu ? "GPU" : "kernel module");
    return NULL;
  }
  if (!check_geometry (width, height, bpc, error)) {
    g_prefix_error (error, "adm-gpu: ");
    return NULL;
  }

  VhAdmGpu *ctx = g_new0 (VhAdmGpu, 1);
  ctx->gpu = gpu;
  ctx->width = width;
  ctx->height = height;
  ctx->bpc = bpc;

  for (int part = 0; part < N_PARTS; part++)
    for (int k = 0; k < N_KERNELS; k++)
      if (!(ctx->fn[part][k] = vh_gpu_function (module,
                  kernel_names[part][k], error)))
        goto fail;

  if (!allocate_work (ctx, error))
    goto fail;

  /* The DIV table, once: the CPU's own, so that both divide alike. */
  const size_t div_size = VH_ADM_DIV_TABLE_SIZE * sizeof (int32_t);
  ctx->div = vh_gpu_mem_alloc (gpu, div_size, error);
  if (!ctx->div)
    goto fail;
  VhGpuStream *stream = vh_gpu_stream_new (gpu, error);
  if (!stream)
    goto fail;
  const gboolean copied = vh_gpu_copy_h2d_async (stream, ctx->div,
      vh_adm_div_table (), div_size, error)
      && vh_gpu_stream_sync (stream, error);
  vh_gpu_stream_free (stream);
  if (!copied)
    goto fail;
  return ctx;

fail:
  vh_adm_gpu_free (ctx);
  return NULL;
}

void
vh_adm_gpu_free (VhAdmGpu *ctx)
{
  if (!ctx)
    return;
  free_work (ctx);
  vh_gpu_mem_free (ctx->gpu, ctx->div);
  g_free (ctx);
}

/* The launch of scale s: what adm_plan () and adm_scale () of adm.c
 * derive, plus the buffers and the grid. */
static void
plan_scale (const VhAdmGpu *ctx, int part, const VhAdmGpuReference *share,
    int s, VhGpuPtr ref, size_t ref_pitch, VhGpuPtr dis, size_t dis_pitch,
    const VhAdmParams *params, VhAdmGpuScale *p, VhGpuDim3 *grid)
{
  const int w = ctx->bw[s], h = ctx->bh[s];

  memset (p, 0, sizeof *p);
  p->scale = s;
  p->bpc = (int32_t) ctx->bpc;
  p->in_w = s == 0 ? (int) ctx->width : ctx->bw[s - 1];
  p->in_h = s == 0 ? (int) ctx->height : ctx->bh[s - 1];
  p->w = w;
  p->h = h;
  if (s == 0) {
    p->src[0] = ref;
    p->src[1] = dis;
    p->src_pitch[0] = ref_pitch;
    p->src_pitch[1] = dis_pitch;
  } else {
    for (int i = 0; i < 2; i++) {
      p->src[i] = ctx->low[i][s - 1];
      p->src_pitch[i] = (uint64_t) ctx->bw[s - 1] * sizeof (int32_t);
    }
  }
  p->want_low = s < VH_ADM_SCALES - 1;
  if (p->want_low) {
    p->low[0] = ctx->low[0][s];
    p->low[1] = ctx->low[1][s];
  }
  if (part != VH_ADM_PART_PAIR) {
    /* the reference's low bands and detail bands: the share's */
    p->ref_bands = share->bands[s];
    if (part == VH_ADM_PART_REF) {
      if (s > 0)
        p->src[0] = share->low[s - 1];
      if (p->want_low)
        p->low[0] = share->low[s];
    }
  }
  p->div = ctx->div;
  p->rows = ctx->acc + ctx->rows_off[s];
  p->counter = ctx->acc + ctx->counter_off + s * sizeof (uint32_t);
  p->out = ctx->acc + ctx->out_off + s * sizeof (VhAdmScaleSums);
  /* AVX-512 flavour 1 carry-over: slot k holds what scale k leaves for
   * scale k + 1; slot 0 is never written (zero, as adm.c assumes). */
  const VhGpuPtr stale = ctx->acc + ctx->stale_off;
  p->stale_in = stale + (s > 0 ? s - 1 : 0) * 2 * sizeof (int32_t);
  if (s == 1 || s == 2)
    p->stale_out = stale + s * 2 * sizeof (int32_t);
  p->stale_col = 4 * w - 2 * p->in_w;

  const double egl = params->enhn_gain_limit;
  p->egl = egl;
  p->egl_int = egl == floor (egl) ? (int32_t) egl : 0;
  p->cos_sq = (float) (cos (1.0 * M_PI / 180.0) * cos (1.0 * M_PI / 180.0));
  /* (the share has every scale: its engines may skip scale 0 or not) */
  p->want_detail = part == VH_ADM_PART_REF || !(s == 0 && params->skip_scale0);
  p->want_aim = !params->skip_aim;
  for (int b = 0; b < VH_ADM_NBANDS; b++) {
    p->rf_s0[b] = params->rfactor_s0[b];
    p->rf_q32[b] = params->rfactor_q32[s][b];
  }

  /* Regions, shifts and libvmaf's AVX-512 columns: adm.c's own plan. */
  VhAdmPlan pl;
  vh_adm_plan (&pl, s, w, h, params->reference == VH_ADM_LIBVMAF_AVX512,
      ctx->bpc);
  p->sl = pl.sl;
  p->st = pl.st;
  p->sr = pl.sr;
  p->sb = pl.sb;
  p->nl = pl.nl;
  p->nt = pl.nt;
  p->nr = pl.nr;
  p->nb = pl.nb;
  p->cm_row_shift = pl.cm_row_shift;
  for (int b = 0; b < VH_ADM_NBANDS; b++) {
    p->cm_sub[b] = pl.cm_sub[b];
    p->cm_sq_shift[b] = pl.cm_sq_shift[b];
    p->cm_cube_shift[b] = pl.cm_cube_shift[b];
  }
  p->den_row_shift = pl.den_row_shift;
  p->den_sq_shift = pl.den_sq_shift;
  p->den_cube_shift = pl.den_cube_shift;
  /* libvmaf's skipped scale 0 runs a C low-pass-only DWT */
  p->dwt_tail = pl.dwt_tail && p->want_detail;
  p->cm_vec_r = pl.cm_vec_r;
  const int vec_l = pl.vec_l, vec_r = pl.vec_r;
  /* As decouple_csf_row () clamps them to the decouple region. */
  p->vec_l = CLAMP (vec_l, p->nl, p->nr);
  p->vec_r = CLAMP (vec_r, p->vec_l, p->nr);

  /* The grid: every tile of the band where the low band is needed, else
   * (scale 3) those of the score region. */
  int tx0 = 0, ty0 = 0;
  int tx1 = (w + VH_ADM_TILE_W - 1) / VH_ADM_TILE_W;
  int ty1 = (h + VH_ADM_TILE_H - 1) / VH_ADM_TILE_H;
  const int dx0 = p->sl / VH_ADM_TILE_W, dx1 = (p->sr - 1) / VH_ADM_TILE_W + 1;
  const int dy0 = p->st / VH_ADM_TILE_H, dy1 = (p->sb - 1) / VH_ADM_TILE_H + 1;
  /* (the share's part covers the whole band: its decouple region reaches
   * a pixel beyond the score region's tiles) */
  if (!p->want_low && part != VH_ADM_PART_REF) {
    tx0 = dx0;
    ty0 = dy0;
    tx1 = dx1;
    ty1 = dy1;
  }
  p->tile_x0 = tx0;
  p->tile_y0 = ty0;
  p->detail_blocks = p->want_detail ? (uint32_t) ((dx1 - dx0) * (dy1 - dy0)) : 0;
  grid->x = (unsigned) (tx1 - tx0);
  grid->y = (unsigned) (ty1 - ty0);
  grid->z = 1;
}

/* The checks of a picture a part reads (ref or dis) */
static gboolean
check_plane (const VhAdmGpu *ctx, const char *what, VhGpuPtr plane,
    size_t pitch, GError **error)
{
  if (!plane) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: NULL %s luma plane", what);
    return FALSE;
  }
  const size_t row_bytes = (size_t) ctx->width * (ctx->bpc == 8 ? 1 : 2);
  if (pitch < row_bytes) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: %s luma pitch %zu is shorter than a row (%zu bytes)",
        what, pitch, row_bytes);
    return FALSE;
  }
  /* 16-bit samples are read as 16-bit words: a GPU faults on an odd
   * address. */
  if (ctx->bpc > 8 && ((plane | pitch) & 1)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: %u-bit luma planes need even addresses and pitches "
        "(%s 0x%" G_GINT64_MODIFIER "x pitch %zu)", ctx->bpc, what,
        (guint64) plane, pitch);
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_params (const VhAdmParams *params, GError **error)
{
  if (params->reference != VH_ADM_LIBVMAF_AVX512
      && params->reference != VH_ADM_LIBVMAF_C) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: unknown VhAdmReference %d", (int) params->reference);
    return FALSE;
  }
  return TRUE;
}

static VhAdmSrcKind
scale_kind (const VhAdmGpu *ctx, int s)
{
  return s == 0 ? (ctx->bpc == 8 ? VH_ADM_SRC_U8 : VH_ADM_SRC_U16)
      : s == 1 ? VH_ADM_SRC_S1 : VH_ADM_SRC_S23;
}

/* The four launches of a part; the pair and a distorted part also clear
 * the accumulators before and copy the result out after. */
static gboolean
enqueue_part (VhAdmGpu *ctx, int part, const VhAdmGpuReference *share,
    VhGpuStream *stream, VhGpuPtr ref, size_t ref_pitch, VhGpuPtr dis,
    size_t dis_pitch, const VhAdmParams *params, VhAdmSums *out,
    GError **error)
{
  const gboolean sums = part != VH_ADM_PART_REF;
  if (sums && !vh_gpu_memset_async (stream, ctx->acc, 0, ctx->acc_size,
          error))
    return FALSE;
  const VhGpuDim3 block = { VH_ADM_THREADS, 1, 1 };
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    VhAdmGpuScale plan;
    VhGpuDim3 grid;
    plan_scale (ctx, part, share, s, ref, ref_pitch, dis, dis_pitch, params,
        &plan, &grid);
    void *args[] = { &plan };
    if (!vh_gpu_launch (ctx->fn[part][scale_kind (ctx, s)], grid, block, 0,
            stream, args, error))
      return FALSE;
  }
  return !sums || vh_gpu_copy_d2h_async (stream, out, ctx->acc
      + ctx->out_off, sizeof (VhAdmSums), error);
}

gboolean
vh_adm_gpu_enqueue (VhAdmGpu *ctx, VhGpuStream *stream, VhGpuPtr ref,
    size_t ref_pitch, VhGpuPtr dis, size_t dis_pitch,
    const VhAdmParams *params, VhAdmSums *out, GError **error)
{
  if (!ctx || !stream || !params || !out) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: NULL context, stream, parameters or result");
    return FALSE;
  }
  return check_plane (ctx, "reference", ref, ref_pitch, error)
      && check_plane (ctx, "distorted", dis, dis_pitch, error)
      && check_params (params, error)
      && enqueue_part (ctx, VH_ADM_PART_PAIR, NULL, stream, ref, ref_pitch,
      dis, dis_pitch, params, out, error);
}

/* ---- the reference's share ---------------------------------------------- */

static VhAdmGpuReference *
reference_alloc (VhGpu *gpu, unsigned width, unsigned height, unsigned bpc,
    GError **error)
{
  VhAdmGpuReference *share = g_new0 (VhAdmGpuReference, 1);
  share->gpu = gpu;
  share->width = width;
  share->height = height;
  share->bpc = bpc;
  vh_adm_band_sizes (width, height, share->bw, share->bh);
  /* (gpu NULL: host memory, for the emulation) */
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    const size_t band = (size_t) share->bw[s] * share->bh[s]
        * sizeof (int32_t);
    if (!(share->bands[s] = vh_gpu_scratch_alloc (gpu, VH_ADM_NBANDS * band,
                error))
        || (s < VH_ADM_SCALES - 1
            && !(share->low[s] = vh_gpu_scratch_alloc (gpu, band, error)))) {
      vh_adm_gpu_reference_free (share);
      return NULL;
    }
  }
  return share;
}

VhAdmGpuReference *
vh_adm_gpu_reference_new (VhGpu *gpu, unsigned width, unsigned height,
    unsigned bpc, GError **error)
{
  if (!gpu) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: no reference share for %ux%u %u-bit pictures (no GPU)",
        width, height, bpc);
    return NULL;
  }
  if (!check_geometry (width, height, bpc, error)) {
    g_prefix_error (error, "adm-gpu: no reference share for %ux%u %u-bit "
        "pictures: ",
        width, height, bpc);
    return NULL;
  }
  return reference_alloc (gpu, width, height, bpc, error);
}

void
vh_adm_gpu_reference_free (VhAdmGpuReference *share)
{
  if (!share)
    return;
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    vh_gpu_scratch_free (share->gpu, share->bands[s]);
    if (s < VH_ADM_SCALES - 1)
      vh_gpu_scratch_free (share->gpu, share->low[s]);
  }
  g_free (share);
}

gboolean
vh_adm_gpu_enqueue_reference (VhAdmGpu *ctx, VhAdmGpuReference *share,
    VhGpuStream *stream, VhGpuPtr ref, size_t ref_pitch,
    const VhAdmParams *params, GError **error)
{
  if (!ctx || !share || !stream || !params) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: NULL context, share, stream or parameters");
    return FALSE;
  }
  if (share->width != ctx->width || share->height != ctx->height
      || share->bpc != ctx->bpc) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "adm-gpu: a reference share of %ux%u %u-bit pictures for a context "
        "of %ux%u %u-bit", share->width, share->height, share->bpc,
        ctx->width, ctx->height, ctx->bpc);
    return FALSE;
  }
  share->computed = FALSE;
  if (!check_plane (ctx, "reference", ref, ref_pitch, error)
      || !check_params (params, error)
      || !enqueue_part (ctx, VH_ADM_PART_REF, share, stream, ref, ref_pitch,
          0, 0, params, NULL, error))
    return FALSE;
  share->computed = TRUE;
  share->flavour = params->reference;
  return TRUE;
}

/* libvmaf's AVX-512 tail: the reference's high-pass rows past the right
 * edge are the distorted picture's low-pass ones; a share has none, so no
 * scored band column may reach them (2X + 2 < in_w for every X of the
 * decouple region) */
static gboolean
tail_clear (const VhAdmGpu *ctx, const VhAdmParams *params)
{
  for (int s = 1; s < VH_ADM_SCALES
      && params->reference == VH_ADM_LIBVMAF_AVX512; s++) {
    VhAdmPlan pl;
    vh_adm_plan (&pl, s, ctx->bw[s], ctx->bh[s], TRUE, ctx->bpc);
    if (pl.dwt_tail && 2 * pl.nr >= ctx->bw[s - 1])
      return FALSE;
  }
  return TRUE;
}

gboolean
vh_adm_gpu_share_possible (const VhAdmGpu *ctx, const VhAdmParams *params)
{
  return ctx && params && tail_clear (ctx, params);
}

gboolean
vh_adm_gpu_reference_fits (const VhAdmGpu *ctx,
    const VhAdmGpuReference *share, const VhAdmParams *params,
    GError **error)
{
  const char *why = NULL;
  if (!ctx || !share || !params)
    why = "no share";
  else if (!share->computed)
    why = "the share was never computed";
  else if (share->width != ctx->width || share->height != ctx->height
      || share->bpc != ctx->bpc)
    why = "the share is of another size or depth";
  else if (share->flavour != params->reference)
    why = "the share was computed for the other libvmaf flavour";
  else if (!tail_clear (ctx, params))
    why = "the picture is too narrow for a share (libvmaf's AVX-512 "
        "tail reaches the scored columns)";
  if (why) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: %s", why);
    return FALSE;
  }
  return TRUE;
}

gboolean
vh_adm_gpu_enqueue_distorted (VhAdmGpu *ctx, VhGpuStream *stream,
    const VhAdmGpuReference *share, VhGpuPtr dis, size_t dis_pitch,
    const VhAdmParams *params, VhAdmSums *out, GError **error)
{
  if (!ctx || !stream || !params || !out) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: NULL context, stream, parameters or result");
    return FALSE;
  }
  return vh_adm_gpu_reference_fits (ctx, share, params, error)
      && check_plane (ctx, "distorted", dis, dis_pitch, error)
      && enqueue_part (ctx, VH_ADM_PART_DIS, share, stream, 0, 0, dis,
      dis_pitch, params, out, error);
}

/* ---- host emulation -------------------------------------------------------
 *
 * The kernels' own code (kernels/adm-device.h) run on the host: the same
 * plans as the launches, host memory where the device's would be, and every
 * thread of every block of every scale played in turn, phase by phase (the
 * kernel's __syncthreads () between phases). Tests compare the result with
 * the CPU engine on machines without a GPU. */
/* Every block and thread of every scale of one part, on the host */
static void
emulate_part (VhAdmGpu *ctx, int part, const VhAdmGpuReference *share,
    const VhPlane *ref, const VhPlane *dis, const VhAdmParams *params)
{
  VhAdmTile *tile = g_new (VhAdmTile, 1);
  VhAdmThread *threads = g_new (VhAdmThread, VH_ADM_THREADS);
  if (part != VH_ADM_PART_REF)
    memset ((void *) (uintptr_t) ctx->acc, 0, ctx->acc_size);
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    VhAdmGpuScale plan;
    VhGpuDim3 grid;
    plan_scale (ctx, part, share, s,
        ref ? (VhGpuPtr) (uintptr_t) ref->data : 0,
        ref ? (size_t) ref->stride : 0,
        dis ? (VhGpuPtr) (uintptr_t) dis->data : 0,
        dis ? (size_t) dis->stride : 0, params, &plan, &grid);
    const int kind = scale_kind (ctx, s);
    for (unsigned gy = 0; gy < grid.y; gy++) {
      for (unsigned gx = 0; gx < grid.x; gx++) {
        /* shared and per-thread memory start as garbage on a GPU */
        memset (tile, 0xa5, sizeof *tile);
        memset (threads, 0x5a, sizeof *threads * VH_ADM_THREADS);
        for (int phase = 0; phase < VH_ADM_PHASES; phase++) {
          int go = 0;
          for (int t = 0; t < VH_ADM_THREADS; t++)
            go = vh_adm_phase (&plan, kind, part, phase,
                plan.tile_x0 + (int) gx, plan.tile_y0 + (int) gy, t, tile,
                &threads[t]);
          /* block-uniform: every thread stops at the same phase */
          if (!go)
            break;
        }
      }
    }
  }
  g_free (tile);
  g_free (threads);
}

/* A context in host memory for the emulation */
static gboolean
emulation_ctx (VhAdmGpu *ctx, const VhPlane *ref, unsigned bpc,
    GError **error)
{
  memset (ctx, 0, sizeof *ctx);
  if (!ref) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu emulation: no reference picture");
    return FALSE;
  }
  if (!check_geometry (ref->width, ref->height, bpc, error)) {
    g_prefix_error (error, "adm-gpu emulation: ");
    return FALSE;
  }
  ctx->width = ref->width;
  ctx->height = ref->height;
  ctx->bpc = bpc;
  allocate_work (ctx, NULL);    /* (host memory: g_malloc0 aborts) */
  ctx->div = (VhGpuPtr) (uintptr_t) vh_adm_div_table ();
  return TRUE;
}

gboolean
vh_adm_gpu_emulate (const VhPlane *ref, const VhPlane *dis, unsigned bpc,
    const VhAdmParams *params, VhAdmSums *out, GError **error)
{
  VhAdmGpu ctx;
  if (!dis || !emulation_ctx (&ctx, ref, bpc, error))
    return FALSE;
  emulate_part (&ctx, VH_ADM_PART_PAIR, NULL, ref, dis, params);
  memcpy (out, (const guint8 *) (uintptr_t) ctx.acc + ctx.out_off,
      sizeof *out);
  free_work (&ctx);
  return TRUE;
}

gboolean
vh_adm_gpu_emulate_shared (const VhPlane *ref, const VhPlane *const *dis,
    unsigned n, unsigned bpc, const VhAdmParams *params, VhAdmSums *out,
    GError **error)
{
  VhAdmGpu ctx;
  if (!emulation_ctx (&ctx, ref, bpc, error))
    return FALSE;
  VhAdmGpuReference *share = reference_alloc (NULL, ctx.width, ctx.height,
      bpc, error);
  emulate_part (&ctx, VH_ADM_PART_REF, share, ref, NULL, params);
  share->computed = TRUE;
  share->flavour = params->reference;
  gboolean ok = vh_adm_gpu_reference_fits (&ctx, share, params, error);
  for (unsigned i = 0; ok && i < n; i++) {
    emulate_part (&ctx, VH_ADM_PART_DIS, share, NULL, dis[i], params);
    memcpy (&out[i], (const guint8 *) (uintptr_t) ctx.acc + ctx.out_off,
        sizeof *out);
  }
  vh_adm_gpu_reference_free (share);
  free_work (&ctx);
  return ok;
}
