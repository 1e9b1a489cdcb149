/* vmafhip — the GPU backend per feature (gpu-backend-private.h): each
 * accelerated extractor's kernel image, accumulator size, options and
 * launches, as one table. */
#include "gpu-backend-private.h"

#include <string.h>

#include "adm-gpu.h"
#include "cambi-gpu.h"
#include "ciede-gpu.h"
#include "ssim-gpu.h"
#include "ms-ssim-gpu.h"
#include "stage-copy.h"
#include "motion-gpu.h"
#include "psnr-gpu.h"
#include "psnr-hvs-gpu.h"
#include "scale-gpu.h"
#include "speed-gpu.h"
#include "gpu-picture.h"
#include "vh-gpu-backend.h"
#include "vh-kernel-images.h"
#include "vif-gpu.h"

#include "adm.h"
#include "motion.h"
#include "psnr.h"
#include "psnr-hvs.h"
#include "ciede.h"
#include "ssim.h"
#include "vif.h"

/* A feature's kernel context for one slot: its vh_*_gpu_new / _free, which
 * all take the picture's size and depth. */
#define KERNEL_CONTEXT(name, prefix) \
  static void * \
  name##_ctx_new (const VhGpuBackend *b, VhGpuModule *m, \
      const VhVideoInfo *i, const Handle *h, GError **e) \
  { \
    (void) h; \
    return prefix##_new (b->gpu, m, i->width, i->height, i->bpc, e); \
  } \
  static void \
  name##_ctx_free (void *ctx) \
  { \
    prefix##_free (ctx); \
  }

static gboolean
vif_configure (VhGpuBackend *b, Handle *h, const void *opts, GError **error)
{
  (void) b;
  (void) error;
  h->vif = *(const VhVifOptions *) opts;
  return TRUE;
}

KERNEL_CONTEXT (vif, vh_vif_gpu)

static gboolean
vif_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  const unsigned first_scale = h->vif.skip_scale0 ? 1 : 0;
  const VhVifGpuReference *share = vh_gpu_ref_share_vif (s->ref_share);
  (void) index;
  /* the reference's share computed once for several engines: only the
   * distorted picture's here */
  if (vh_vif_gpu_reference_fits (ctx, share, first_scale))
    return vh_vif_gpu_enqueue_distorted (ctx, s->stream, share, s->dis[0],
        b->pitch[0], h->vif.enhn_gain_limit, first_scale, out, error);
  return vh_vif_gpu_enqueue (ctx, s->stream, s->ref[0], b->pitch[0],
      s->dis[0], b->pitch[0], h->vif.enhn_gain_limit, first_scale, out,
      error);
}

static gboolean
adm_configure (VhGpuBackend *b, Handle *h, const void *opts, GError **error)
{
  (void) b;
  return vh_adm_params_init (&h->adm, opts, error);
}

KERNEL_CONTEXT (adm, vh_adm_gpu)

static gboolean
adm_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  const VhAdmGpuReference *share = vh_gpu_ref_share_adm (s->ref_share);
  (void) index;
  /* the reference's wavelet decomposition computed once for several
   * engines: only the distorted picture's here (where the share fits
   * this context's size, depth and libvmaf flavour) */
  if (share && vh_adm_gpu_reference_fits (ctx, share, &h->adm, NULL))
    return vh_adm_gpu_enqueue_distorted (ctx, s->stream, share, s->dis[0],
        b->pitch[0], &h->adm, out, error);
  return vh_adm_gpu_enqueue (ctx, s->stream, s->ref[0], b->pitch[0],
      s->dis[0], b->pitch[0], &h->adm, out, error);
}

static gboolean
motion_configure (VhGpuBackend *b, Handle *h, const void *opts,
    GError **error)
{
  const VhMotionOptions *mo = opts;
  (void) error;
  h->lag = mo->five_frame_window ? 2 : 1;
  b->max_lag = MAX (b->max_lag, h->lag);
  return TRUE;
}

KERNEL_CONTEXT (motion, vh_motion_gpu)

/* The SAD of this frame against the one `lag` frames before, whose slot
 * still holds it (its upload awaited); nothing for the first frames. */
static gboolean
motion_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  if (index < h->lag)
    return TRUE;
  /* the SAD computed once with the shared reference, where this engine's
   * frame before was the upload it was computed against */
  guint64 sad;
  if (h->lag == 1 && vh_gpu_ref_share_motion (s->ref_share,
          b->prev_ref_share_id, &sad)) {
    /* the slot's results are the host's until the frame is submitted */
    *(guint64 *) out = sad;
    return TRUE;
  }
  const Slot *prev = &b->slots[(index - h->lag) % b->n_slots];
  return vh_gpu_stream_wait_event (s->stream, prev->uploaded, error)
      && vh_motion_gpu_enqueue (ctx, s->stream, prev->ref[0], b->pitch[0],
      s->ref[0], b->pitch[0], out, error);
}

KERNEL_CONTEXT (psnr, vh_psnr_gpu)

static gboolean
psnr_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  VhPsnrSums *sums = out;
  VhPsnrGpuPlane rp[MAX_PLANES], dp[MAX_PLANES];

  (void) h;
  (void) index;
  sums->nplanes = b->nplanes;
  for (unsigned p = 0; p < b->nplanes; p++) {
    rp[p] = (VhPsnrGpuPlane) { s->ref[p], b->pitch[p], b->width[p],
      b->height[p], 1 };
    dp[p] = rp[p];
    dp[p].data = s->dis[p];
    sums->width[p] = b->width[p];
    sums->height[p] = b->height[p];
  }
  return vh_psnr_gpu_enqueue (ctx, s->stream, rp, dp, b->nplanes, sums->sse,
      error);
}

/* with the Lab table unless the engine's config turns it off */
static void *
ciede_ctx_new (const VhGpuBackend *b, VhGpuModule *m, const VhVideoInfo *i,
    const Handle *h, GError **e)
{
  (void) h;
  return vh_ciede_gpu_new_table (b->gpu, m, i->width, i->height, i->bpc,
      b->ciede_lab_table, e);
}

static void
ciede_ctx_free (void *ctx)
{
  vh_ciede_gpu_free (ctx);
}

/* 4:4:4, or 4:2:0 (chroma halved both ways): the engine had the
 * extractor's check_layout refuse the rest before the first frame */
static gboolean
ciede_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  (void) h;
  (void) index;
  const gboolean half = b->width[1] < b->width[0];
  const size_t pitch[3] = { b->pitch[0], b->pitch[1], b->pitch[2] };
  return vh_ciede_gpu_enqueue (ctx, s->stream, s->ref, s->dis, pitch,
      half ? 1 : 0, &((VhCiedeSums *) out)->sum, error);
}

static gboolean
ssim_configure (VhGpuBackend *b, Handle *h, const void *opts, GError **error)
{
  const VhSsimOptions *o = opts;
  (void) error;
  h->ssim_scale = o->scale > 0 ? (unsigned) o->scale
      : (unsigned) vh_ssim_auto_scale (b->info.width, b->info.height);
  return TRUE;
}

KERNEL_CONTEXT (ssim, vh_ssim_gpu)

static gboolean
ssim_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  (void) index;
  return vh_ssim_gpu_enqueue (ctx, s->stream, s->ref[0], s->dis[0],
      b->pitch[0], h->ssim_scale, ((VhSsimSums *) out)->sum, error);
}

/* the exact kernels unless the engine's config asks for the fast ones */
static void *
ms_ssim_ctx_new (const VhGpuBackend *b, VhGpuModule *m,
    const VhVideoInfo *i, const Handle *h, GError **e)
{
  (void) h;
  return vh_ms_ssim_gpu_new_family (b->gpu, m, i->width, i->height, i->bpc,
      !b->ms_ssim_fast, e);
}

static void
ms_ssim_ctx_free (void *ctx)
{
  vh_ms_ssim_gpu_free (ctx);
}

static gboolean
ms_ssim_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  (void) h;
  (void) index;
  return vh_ms_ssim_gpu_enqueue (ctx, s->stream, s->ref[0], s->dis[0],
      b->pitch[0], &((VhMsSsimSums *) out)->sum[0][0], error);
}

KERNEL_CONTEXT (psnr_hvs, vh_psnr_hvs_gpu)

/* Three planes of any subsampling, each at least 8x8: the engine had the
 * extractor's check_layout refuse the rest before the first frame */
static gboolean
psnr_hvs_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  VhPsnrHvsSums *sums = out;
  (void) h;
  (void) index;
  if (b->nplanes < 3) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "GPU backend: psnr_hvs needs three planes");
    return FALSE;
  }
  return vh_psnr_hvs_gpu_enqueue (ctx, s->stream, s->ref, s->dis, b->pitch,
      b->width, b->height, sums->sum, sums->pixels, error);
}

/* the distorted luma (and the reference's with full_ref); options the
 * kernels lack leave it to the CPU */
static gboolean
cambi_configure (VhGpuBackend *b, Handle *h, const void *opts,
    GError **error)
{
  const char *why;
  if (!vh_cambi_plan (opts, &b->info, &h->cambi, error))
    return FALSE;
  if (!vh_cambi_gpu_supported (&h->cambi, &why)) {
    g_debug ("GPU backend: cambi with %s: on the CPU", why);
    h->on_cpu = TRUE;
  }
  return TRUE;
}

static void *
cambi_ctx_new (const VhGpuBackend *b, VhGpuModule *m, const VhVideoInfo *i,
    const Handle *h, GError **e)
{
  (void) i;
  return vh_cambi_gpu_new (b->gpu, m, &h->cambi, e);
}

static void
cambi_ctx_free (void *ctx)
{
  vh_cambi_gpu_free (ctx);
}

static gboolean
cambi_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  (void) h;
  (void) index;
  return vh_cambi_gpu_enqueue (ctx, s->stream, s->dis[0], s->ref[0],
      b->pitch[0], out, error);
}

/* the chroma planes; a prescale leaves it to the CPU */
static gboolean
speed_configure (VhGpuBackend *b, Handle *h, const void *opts,
    GError **error)
{
  const char *why;
  (void) error;
  h->speed = *(const VhSpeedChromaOptions *) opts;
  if (!vh_speed_gpu_supported (&h->speed, &why)) {
    g_debug ("GPU backend: speed_chroma with %s: on the CPU", why);
    h->on_cpu = TRUE;
  }
  /* 4:4:4 chroma is as large as it gets */
  h->sums_size = vh_speed_gpu_sums_size (b->info.width, b->info.height);
  return TRUE;
}

static void *
speed_ctx_new (const VhGpuBackend *b, VhGpuModule *m, const VhVideoInfo *i,
    const Handle *h, GError **e)
{
  return vh_speed_gpu_new (b->gpu, m, &h->speed, i->bpc, e);
}

static void
speed_ctx_free (void *ctx)
{
  vh_speed_gpu_free (ctx);
}

static gboolean
speed_enqueue (VhGpuBackend *b, const Handle *h, Slot *s, unsigned index,
    void *ctx, void *out, GError **error)
{
  (void) h;
  (void) index;
  if (b->nplanes < 3) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "GPU backend: speed_chroma needs three planes");
    return FALSE;
  }
  return vh_speed_gpu_enqueue (ctx, s->stream, s->ref, s->dis, b->pitch,
      b->width, b->height, out, error);
}

const FeatureOps vh_gpu_feature_ops[] = {
  {&vh_fex_vif, &vh_kernel_vif, sizeof (VhVifSums), vif_configure,
      vif_ctx_new, vif_ctx_free, vif_enqueue},
  {&vh_fex_adm, &vh_kernel_adm, sizeof (VhAdmSums), adm_configure,
      adm_ctx_new, adm_ctx_free, adm_enqueue},
  {&vh_fex_motion, &vh_kernel_motion, sizeof (uint64_t), motion_configure,
      motion_ctx_new, motion_ctx_free, motion_enqueue},
  {&vh_fex_psnr, &vh_kernel_psnr, sizeof (VhPsnrSums), NULL,
      psnr_ctx_new, psnr_ctx_free, psnr_enqueue},
  {&vh_fex_ciede, &vh_kernel_ciede, sizeof (VhCiedeSums), NULL,
      ciede_ctx_new, ciede_ctx_free, ciede_enqueue},
  {&vh_fex_float_ssim, &vh_kernel_ssim, sizeof (VhSsimSums), ssim_configure,
      ssim_ctx_new, ssim_ctx_free, ssim_enqueue},
  /* every option acts on the host, on the sums: nothing to configure */
  {&vh_fex_float_ms_ssim, &vh_kernel_ms_ssim, sizeof (VhMsSsimSums), NULL,
      ms_ssim_ctx_new, ms_ssim_ctx_free, ms_ssim_enqueue},
  {&vh_fex_psnr_hvs, &vh_kernel_psnr_hvs, sizeof (VhPsnrHvsSums), NULL,
      psnr_hvs_ctx_new, psnr_hvs_ctx_free, psnr_hvs_enqueue},
  {&vh_fex_cambi, &vh_kernel_cambi, sizeof (VhCambiSums), cambi_configure,
      cambi_ctx_new, cambi_ctx_free, cambi_enqueue},
  /* sized by configure: the picture's */
  {&vh_fex_speed_chroma, &vh_kernel_speed, 0, speed_configure,
      speed_ctx_new, speed_ctx_free, speed_enqueue},
};
const unsigned vh_gpu_n_feature_ops = G_N_ELEMENTS (vh_gpu_feature_ops);
G_STATIC_ASSERT (G_N_ELEMENTS (vh_gpu_feature_ops)
    <= G_SIZEOF_MEMBER (VhGpuBackend, modules) / sizeof (VhGpuModule *));

const FeatureOps *
vh_gpu_feature_ops_find (const VhFeatureExtractor *fex)
{
  for (unsigned k = 0; k < vh_gpu_n_feature_ops; k++)
    if (vh_gpu_feature_ops[k].fex == fex)
      return &vh_gpu_feature_ops[k];
  return NULL;
}
