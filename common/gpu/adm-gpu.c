/* vmafhip — integer ADM on the GPU, host side (see adm-gpu.h).
 *
 * The geometry of each scale (regions, shifts, the columns of libvmaf's
 * AVX-512 loops) comes from common/adm.c's own vh_adm_plan (one source for
 * both), and is handed to the kernels as one VhAdmGpuScale per launch
 * (kernels/adm-device.h).
 */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "adm-gpu.h"
#include "vh-error.h"
#include "../../kernels/adm-device.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846264338327
#endif

/* The kernels write a scale's accumulators as VH_ADM_NQ uint64 in the
 * order dlm[3], aim[3], den[3]. */
G_STATIC_ASSERT (sizeof (VhAdmScaleSums) == VH_ADM_NQ * sizeof (uint64_t));
G_STATIC_ASSERT (offsetof (VhAdmScaleSums, aim) == VH_ADM_Q_AIM * sizeof (uint64_t));
G_STATIC_ASSERT (offsetof (VhAdmScaleSums, den) == VH_ADM_Q_DEN * sizeof (uint64_t));
G_STATIC_ASSERT (sizeof (VhAdmSums) == VH_ADM_SCALES * sizeof (VhAdmScaleSums));

static const char *const kernel_names[] = {
  [VH_ADM_SRC_U8] = "vh_adm_scale0_u8",
  [VH_ADM_SRC_U16] = "vh_adm_scale0_u16",
  [VH_ADM_SRC_S1] = "vh_adm_scale1",
  [VH_ADM_SRC_S23] = "vh_adm_scale23",
};
#define N_KERNELS G_N_ELEMENTS (kernel_names)

struct VhAdmGpu {
  VhGpu *gpu;
  VhGpuFunction *fn[N_KERNELS];
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

VhAdmGpu *
vh_adm_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error)
{
  if (!gpu || !module) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: NULL %s", !gpu ? "GPU" : "kernel module");
    return NULL;
  }
  if (bpc != 8 && bpc != 10 && bpc != 12) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "adm-gpu: %u bits per component is not supported (8, 10 or 12)", bpc);
    return NULL;
  }
  if (width == 0 || height == 0) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: empty picture (%ux%u)", width, height);
    return NULL;
  }
  if (width < VH_ADM_MIN_SIZE || height < VH_ADM_MIN_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "adm-gpu: %ux%u is too small for the 4-level wavelet pyramid "
        "(at least %ux%u)", width, height, VH_ADM_MIN_SIZE, VH_ADM_MIN_SIZE);
    return NULL;
  }
  if (width > (1u << 16) || height > (1u << 16)) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "adm-gpu: %ux%u is too large (at most 65536 on a side)", width,
        height);
    return NULL;
  }

  VhAdmGpu *ctx = g_new0 (VhAdmGpu, 1);
  ctx->gpu = gpu;
  ctx->width = width;
  ctx->height = height;
  ctx->bpc = bpc;
  vh_adm_band_sizes (width, height, ctx->bw, ctx->bh);

  for (size_t k = 0; k < N_KERNELS; k++) {
    ctx->fn[k] = vh_gpu_function (module, kernel_names[k], error);
    if (!ctx->fn[k])
      goto fail;
  }

  layout_accumulators (ctx);
  ctx->acc = vh_gpu_mem_alloc (gpu, ctx->acc_size, error);
  if (!ctx->acc)
    goto fail;
  for (int s = 0; s < VH_ADM_SCALES - 1; s++) {
    for (int i = 0; i < 2; i++) {
      ctx->low[i][s] = vh_gpu_mem_alloc (gpu,
          (size_t) ctx->bw[s] * ctx->bh[s] * sizeof (int32_t), error);
      if (!ctx->low[i][s])
        goto fail;
    }
  }

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
  for (int s = 0; s < VH_ADM_SCALES - 1; s++)
    for (int i = 0; i < 2; i++)
      vh_gpu_mem_free (ctx->gpu, ctx->low[i][s]);
  vh_gpu_mem_free (ctx->gpu, ctx->acc);
  vh_gpu_mem_free (ctx->gpu, ctx->div);
  g_free (ctx);
}

/* The launch of scale s: what adm_plan () and adm_scale () of adm.c
 * derive, plus the buffers and the grid. */
static void
plan_scale (const VhAdmGpu *ctx, int s, VhGpuPtr ref, size_t ref_pitch,
    VhGpuPtr dis, size_t dis_pitch, const VhAdmParams *params,
    VhAdmGpuScale *p, VhGpuDim3 *grid)
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
  p->want_detail = !(s == 0 && params->skip_scale0);
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
  if (!p->want_low) {
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
  if (!ref || !dis) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: NULL %s luma plane", !ref ? "reference" : "distorted");
    return FALSE;
  }
  const size_t row_bytes = (size_t) ctx->width * (ctx->bpc == 8 ? 1 : 2);
  if (ref_pitch < row_bytes || dis_pitch < row_bytes) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: %s luma pitch %zu is shorter than a row (%zu bytes)",
        ref_pitch < row_bytes ? "reference" : "distorted",
        ref_pitch < row_bytes ? ref_pitch : dis_pitch, row_bytes);
    return FALSE;
  }
  /* 16-bit samples are read as 16-bit words: a GPU faults on an odd
   * address. */
  if (ctx->bpc > 8 && ((ref | dis | ref_pitch | dis_pitch) & 1)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: %u-bit luma planes need even addresses and pitches "
        "(ref 0x%" G_GINT64_MODIFIER "x pitch %zu, dis 0x%"
        G_GINT64_MODIFIER "x pitch %zu)", ctx->bpc, (guint64) ref, ref_pitch,
        (guint64) dis, dis_pitch);
    return FALSE;
  }
  if (params->reference != VH_ADM_LIBVMAF_AVX512
      && params->reference != VH_ADM_LIBVMAF_C) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu: unknown VhAdmReference %d", (int) params->reference);
    return FALSE;
  }

  if (!vh_gpu_memset_async (stream, ctx->acc, 0, ctx->acc_size, error))
    return FALSE;
  const VhGpuDim3 block = { VH_ADM_THREADS, 1, 1 };
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    VhAdmGpuScale plan;
    VhGpuDim3 grid;
    plan_scale (ctx, s, ref, ref_pitch, dis, dis_pitch, params, &plan, &grid);
    const VhAdmSrcKind kind = s == 0
        ? (ctx->bpc == 8 ? VH_ADM_SRC_U8 : VH_ADM_SRC_U16)
        : s == 1 ? VH_ADM_SRC_S1 : VH_ADM_SRC_S23;
    void *args[] = { &plan };
    if (!vh_gpu_launch (ctx->fn[kind], grid, block, 0, stream, args, error))
      return FALSE;
  }
  return vh_gpu_copy_d2h_async (stream, out, ctx->acc + ctx->out_off,
      sizeof (VhAdmSums), error);
}

/* ---- host emulation -------------------------------------------------------
 *
 * The kernels' own code (kernels/adm-device.h) run on the host: the same
 * plans as the launches, host memory where the device's would be, and every
 * thread of every block of every scale played in turn, phase by phase (the
 * kernel's __syncthreads () between phases). Tests compare the result with
 * the CPU engine on machines without a GPU. */
gboolean
vh_adm_gpu_emulate (const VhPlane *ref, const VhPlane *dis, unsigned bpc,
    const VhAdmParams *params, VhAdmSums *out, GError **error)
{
  VhAdmGpu ctx = { 0 };
  gboolean ok = TRUE;

  if (!ref || !dis || ref->width < VH_ADM_MIN_SIZE
      || ref->height < VH_ADM_MIN_SIZE || (bpc != 8 && bpc != 10
          && bpc != 12)) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "adm-gpu emulation: bad pictures or depth");
    return FALSE;
  }
  ctx.width = ref->width;
  ctx.height = ref->height;
  ctx.bpc = bpc;
  vh_adm_band_sizes (ctx.width, ctx.height, ctx.bw, ctx.bh);
  layout_accumulators (&ctx);
  guint8 *acc = g_malloc0 (ctx.acc_size);
  ctx.acc = (VhGpuPtr) (uintptr_t) acc;
  for (int s = 0; s < VH_ADM_SCALES - 1; s++)
    for (int i = 0; i < 2; i++)
      ctx.low[i][s] = (VhGpuPtr) (uintptr_t) g_malloc0 ((size_t) ctx.bw[s]
          * ctx.bh[s] * sizeof (int32_t));
  ctx.div = (VhGpuPtr) (uintptr_t) vh_adm_div_table ();

  VhAdmTile *tile = g_new (VhAdmTile, 1);
  VhAdmThread *threads = g_new (VhAdmThread, VH_ADM_THREADS);
  for (int s = 0; s < VH_ADM_SCALES; s++) {
    VhAdmGpuScale plan;
    VhGpuDim3 grid;
    plan_scale (&ctx, s, (VhGpuPtr) (uintptr_t) ref->data,
        (size_t) ref->stride, (VhGpuPtr) (uintptr_t) dis->data,
        (size_t) dis->stride, params, &plan, &grid);
    const int kind = s == 0 ? (bpc == 8 ? VH_ADM_SRC_U8 : VH_ADM_SRC_U16)
        : s == 1 ? VH_ADM_SRC_S1 : VH_ADM_SRC_S23;
    for (unsigned gy = 0; gy < grid.y; gy++) {
      for (unsigned gx = 0; gx < grid.x; gx++) {
        /* shared and per-thread memory start as garbage on a GPU */
        memset (tile, 0xa5, sizeof *tile);
        memset (threads, 0x5a, sizeof *threads * VH_ADM_THREADS);
        for (int phase = 0; phase < VH_ADM_PHASES; phase++) {
          int go = 0;
          for (int t = 0; t < VH_ADM_THREADS; t++)
            go = vh_adm_phase (&plan, kind, phase, plan.tile_x0 + (int) gx,
                plan.tile_y0 + (int) gy, t, tile, &threads[t]);
          /* block-uniform: every thread stops at the same phase */
          if (!go)
            break;
        }
      }
    }
  }
  memcpy (out, acc + ctx.out_off, sizeof *out);

  g_free (tile);
  g_free (threads);
  for (int s = 0; s < VH_ADM_SCALES - 1; s++)
    for (int i = 0; i < 2; i++)
      g_free ((void *) (uintptr_t) ctx.low[i][s]);
  g_free (acc);
  return ok;
}
