/* vmafhip — a picture uploaded into GPU memory once (see gpu-picture.h). */
#include "gpu-picture.h"

#include <string.h>

#include "stage-copy.h"
#include "vh-error.h"
#include "adm-gpu.h"
#include "motion-gpu.h"
#include "vh-kernel-images.h"
#include "vif-gpu.h"

#define MAX_PLANES 3
#define PITCH_ALIGN 256

/* The reference's shares of the last upload, and where the engines'
 * streams are done reading them (one event per reader, recorded by the
 * readers' threads) */
struct VhGpuRefShare {
  guint64 id;                   /* the upload's, unique in the process */
  VhVifGpuReference *vif;       /* NULL: not computed */
  VhAdmGpuReference *adm;       /* NULL: not computed */
  /* motion's SAD against the upload `after` (another picture's), when
   * has_motion */
  gboolean has_motion;
  guint64 after;
  guint64 *motion_sad;          /* pinned */
  GMutex lock;
  GPtrArray *read_events;       /* VhGpuEvent*, reused */
  guint n_read;                 /* recorded since the upload */
  VhGpu *gpu;
};

/* One kind of kernel the shares need, loaded and given a context once
 * for every picture of a sharer: the pictures upload one after the
 * other (the sharer's thread), and neither context keeps anything from
 * one upload to the next but its scratch */
typedef struct {
  const char *what;
  const VhGpuImageSet *image;
  void *(*ctx_new) (VhGpu *gpu, VhGpuModule *module, unsigned width,
      unsigned height, unsigned bpc, GError **error);
  void (*ctx_free) (void *ctx);
  VhGpuModule *module;
  void *ctx;
  unsigned width, height, bpc;  /* what ctx (or the refusal) is for */
  gboolean refused;
} ShareKernel;

struct VhGpuSharer {
  VhGpu *gpu;
  ShareKernel vif, adm, motion;
  VhAdmParams adm_params;       /* libvmaf's defaults: its flavour */
  gboolean adm_params_ok;
};

/* A ShareKernel's context functions over a kernel's _new / _free (as
 * gpu-backend-features.c's KERNEL_CONTEXT does for the engines') */
#define SHARE_KERNEL_CONTEXT(name, prefix) \
  static void * \
  name##_ctx_new (VhGpu *gpu, VhGpuModule *module, unsigned width, \
      unsigned height, unsigned bpc, GError **error) \
  { \
    return prefix##_new (gpu, module, width, height, bpc, error); \
  } \
  static void \
  name##_ctx_free (void *ctx) \
  { \
    prefix##_free (ctx); \
  }

SHARE_KERNEL_CONTEXT (vif, vh_vif_gpu)
SHARE_KERNEL_CONTEXT (adm, vh_adm_gpu)
SHARE_KERNEL_CONTEXT (motion, vh_motion_gpu)

VhGpuSharer *
vh_gpu_sharer_new (VhGpu *gpu)
{
  VhGpuSharer *sharer = g_new0 (VhGpuSharer, 1);
  sharer->gpu = vh_gpu_ref (gpu);
  sharer->vif = (ShareKernel) { .what = "VIF", .image = &vh_kernel_vif,
    .ctx_new = vif_ctx_new, .ctx_free = vif_ctx_free };
  sharer->adm = (ShareKernel) { .what = "ADM", .image = &vh_kernel_adm,
    .ctx_new = adm_ctx_new, .ctx_free = adm_ctx_free };
  /* the share's flavour (the default); engines with other options run
   * their pairs (vh_adm_gpu_reference_fits) */
  VhAdmOptions adm_opts;
  vh_adm_options_default (&adm_opts);
  sharer->adm_params_ok = vh_adm_params_init (&sharer->adm_params, &adm_opts,
      NULL);
  sharer->motion = (ShareKernel) { .what = "motion",
    .image = &vh_kernel_motion, .ctx_new = motion_ctx_new,
    .ctx_free = motion_ctx_free };
  return sharer;
}

static void
share_kernel_clear (ShareKernel *k)
{
  if (k->ctx)
    k->ctx_free (k->ctx);
  k->ctx = NULL;
  vh_gpu_module_free (k->module);
  k->module = NULL;
}

void
vh_gpu_sharer_free (VhGpuSharer *sharer)
{
  if (!sharer)
    return;
  share_kernel_clear (&sharer->vif);
  share_kernel_clear (&sharer->adm);
  share_kernel_clear (&sharer->motion);
  vh_gpu_close (sharer->gpu);
  g_free (sharer);
}

/* The kernel's context for this geometry, made on first use; NULL where
 * it cannot be (said once per geometry in the debug log) */
static void *
share_kernel_ctx (VhGpu *gpu, ShareKernel *k, unsigned width,
    unsigned height, unsigned bpc)
{
  if ((k->ctx || k->refused) && (k->width != width || k->height != height
          || k->bpc != bpc)) {
    if (k->ctx)
      k->ctx_free (k->ctx);
    k->ctx = NULL;
    k->refused = FALSE;
  }
  if (k->ctx || k->refused)
    return k->ctx;
  GError *error = NULL;
  k->width = width;
  k->height = height;
  k->bpc = bpc;
  if (!k->module)
    k->module = vh_gpu_module_load_embedded (gpu, k->image, &error);
  if (k->module)
    k->ctx = k->ctx_new (gpu, k->module, width, height, bpc, &error);
  if (!k->ctx) {
    g_debug ("GPU picture: no %s share for %ux%u %u-bit pictures: %s",
        k->what, width, height, bpc, error ? error->message : "?");
    g_clear_error (&error);
    k->refused = TRUE;
  }
  return k->ctx;
}

struct VhGpuPicture {
  VhGpu *gpu;
  VhGpuStream *stream;
  VhGpuSharer *sharer;          /* computes the shares; NULL: none */
  VhGpuRefShare share;
  /* the layout the memory was made for, and the last upload's depth */
  unsigned nplanes, bytes, bpc;
  unsigned width[MAX_PLANES], height[MAX_PLANES];
  size_t row[MAX_PLANES], pitch[MAX_PLANES];
  VhGpuPtr plane[MAX_PLANES];
  guint8 *staging;              /* pinned: the packed planes */
};

VhGpuPicture *
vh_gpu_picture_new (VhGpu *gpu)
{
  VhGpuPicture *gp = g_new0 (VhGpuPicture, 1);
  gp->gpu = vh_gpu_ref (gpu);
  gp->share.gpu = gp->gpu;
  g_mutex_init (&gp->share.lock);
  gp->share.read_events = g_ptr_array_new_with_free_func ((GDestroyNotify)
      vh_gpu_event_free);
  return gp;
}

void
vh_gpu_picture_set_shared (VhGpuPicture *gp, VhGpuSharer *sharer)
{
  gp->sharer = sharer;
}

const VhVifGpuReference *
vh_gpu_ref_share_vif (const VhGpuRefShare *share)
{
  return share ? share->vif : NULL;
}

const VhAdmGpuReference *
vh_gpu_ref_share_adm (const VhGpuRefShare *share)
{
  return share ? share->adm : NULL;
}

guint64
vh_gpu_ref_share_id (const VhGpuRefShare *share)
{
  return share ? share->id : 0;
}

gboolean
vh_gpu_ref_share_motion (const VhGpuRefShare *share, guint64 after,
    guint64 *sad)
{
  if (!share || !share->has_motion || after == 0 || share->after != after)
    return FALSE;
  *sad = *share->motion_sad;
  return TRUE;
}

gboolean
vh_gpu_ref_share_read_on (const VhGpuRefShare *cshare, VhGpuStream *stream,
    GError **error)
{
  /* the readers' marks are the share's only mutable part */
  VhGpuRefShare *share = (VhGpuRefShare *) cshare;
  gboolean ok = TRUE;
  g_mutex_lock (&share->lock);
  if (share->n_read == share->read_events->len) {
    VhGpuEvent *event = vh_gpu_event_new (share->gpu, FALSE, error);
    if (event)
      g_ptr_array_add (share->read_events, event);
    else
      ok = FALSE;
  }
  if (ok)
    ok = vh_gpu_event_record (g_ptr_array_index (share->read_events,
            share->n_read), stream, error);
  if (ok)
    share->n_read++;
  g_mutex_unlock (&share->lock);
  return ok;
}

/* The upload's stream waits until every reader of the last upload is
 * done (on the GPU); `sync`: the caller waits too (before freeing). */
static gboolean
wait_for_readers (VhGpuPicture *gp, gboolean sync, GError **error)
{
  gboolean ok = TRUE;
  g_mutex_lock (&gp->share.lock);
  for (guint i = 0; ok && i < gp->share.n_read; i++) {
    VhGpuEvent *event = g_ptr_array_index (gp->share.read_events, i);
    ok = sync ? vh_gpu_event_sync (event, error)
        : vh_gpu_stream_wait_event (gp->stream, event, error);
  }
  gp->share.n_read = 0;
  g_mutex_unlock (&gp->share.lock);
  return ok;
}

static void
release_vif (VhGpuPicture *gp)
{
  vh_vif_gpu_reference_free (gp->share.vif);
  gp->share.vif = NULL;
}

static void
release_adm (VhGpuPicture *gp)
{
  vh_adm_gpu_reference_free (gp->share.adm);
  gp->share.adm = NULL;
}

static void
release_memory (VhGpuPicture *gp)
{
  release_vif (gp);
  release_adm (gp);
  for (unsigned p = 0; p < MAX_PLANES; p++) {
    vh_gpu_mem_free (gp->gpu, gp->plane[p]);
    gp->plane[p] = 0;
  }
  if (gp->staging)
    vh_gpu_host_free (gp->gpu, gp->staging);
  gp->staging = NULL;
  gp->nplanes = 0;
}

void
vh_gpu_picture_free (VhGpuPicture *gp)
{
  if (!gp)
    return;
  /* the engines' kernels may still read the share and the plane */
  wait_for_readers (gp, TRUE, NULL);
  if (gp->stream)
    vh_gpu_stream_sync (gp->stream, NULL);
  release_memory (gp);
  if (gp->share.motion_sad)
    vh_gpu_host_free (gp->gpu, gp->share.motion_sad);
  g_ptr_array_unref (gp->share.read_events);
  g_mutex_clear (&gp->share.lock);
  vh_gpu_stream_free (gp->stream);
  vh_gpu_close (gp->gpu);
  g_free (gp);
}

static gboolean
same_layout (const VhGpuPicture *gp, const VhPicture *host, unsigned nplanes)
{
  if (gp->nplanes != nplanes || gp->bytes != (host->bpc > 8 ? 2u : 1u))
    return FALSE;
  for (unsigned p = 0; p < nplanes; p++)
    if (gp->width[p] != host->plane[p].width
        || gp->height[p] != host->plane[p].height)
      return FALSE;
  return TRUE;
}

static gboolean
allocate (VhGpuPicture *gp, const VhPicture *host, unsigned nplanes,
    GError **error)
{
  release_memory (gp);
  gp->bytes = host->bpc > 8 ? 2 : 1;
  size_t staging = 0;
  for (unsigned p = 0; p < nplanes; p++) {
    gp->width[p] = host->plane[p].width;
    gp->height[p] = host->plane[p].height;
    gp->row[p] = (size_t) gp->width[p] * gp->bytes;
    gp->pitch[p] = (gp->row[p] + PITCH_ALIGN - 1) & ~(size_t) (PITCH_ALIGN - 1);
    staging += gp->row[p] * gp->height[p];
    if (!(gp->plane[p] = vh_gpu_mem_alloc (gp->gpu,
                gp->pitch[p] * gp->height[p], error)))
      return FALSE;
  }
  if (!(gp->staging = vh_gpu_host_alloc (gp->gpu, staging, error)))
    return FALSE;
  gp->nplanes = nplanes;
  return TRUE;
}

/* Queues the VIF share of the luma just uploaded; FALSE (the engines then
 * do it all) where VIF does not take the picture or its kernels cannot
 * run here. */
static gboolean
compute_vif_share (VhGpuPicture *gp, unsigned bpc)
{
  GError *error = NULL;
  VhVifGpu *ctx = share_kernel_ctx (gp->gpu, &gp->sharer->vif, gp->width[0],
      gp->height[0], bpc);
  if (!ctx)
    return FALSE;
  if (gp->share.vif && gp->bpc != bpc)
    release_vif (gp);           /* 10 and 12 bits: the same layout */
  if (!gp->share.vif && !(gp->share.vif = vh_vif_gpu_reference_new (gp->gpu,
              gp->width[0], gp->height[0], bpc, &error)))
    goto failed;
  /* computed from scale 0: good for engines that skip it too */
  if (vh_vif_gpu_enqueue_reference (ctx, gp->share.vif, gp->stream,
          gp->plane[0], gp->pitch[0], 0, &error))
    return TRUE;
failed:
  g_debug ("GPU picture: no VIF share: %s", error->message);
  g_clear_error (&error);
  release_vif (gp);
  return FALSE;
}

/* Queues ADM's share of the luma just uploaded (its wavelet
 * decomposition); FALSE (the engines then do it all) where ADM does not
 * take the picture or its kernels cannot run here. */
static gboolean
compute_adm_share (VhGpuPicture *gp, unsigned bpc)
{
  GError *error = NULL;
  VhAdmGpu *ctx = gp->sharer->adm_params_ok ? share_kernel_ctx (gp->gpu,
      &gp->sharer->adm, gp->width[0], gp->height[0], bpc) : NULL;
  /* (the narrowest pictures: no engine could use it) */
  if (!ctx || !vh_adm_gpu_share_possible (ctx, &gp->sharer->adm_params))
    return FALSE;
  if (gp->share.adm && gp->bpc != bpc)
    release_adm (gp);
  if (!gp->share.adm && !(gp->share.adm = vh_adm_gpu_reference_new (gp->gpu,
              gp->width[0], gp->height[0], bpc, &error)))
    goto failed;
  if (vh_adm_gpu_enqueue_reference (ctx, gp->share.adm, gp->stream,
          gp->plane[0], gp->pitch[0], &gp->sharer->adm_params, &error))
    return TRUE;
failed:
  g_debug ("GPU picture: no ADM share: %s", error->message);
  g_clear_error (&error);
  release_adm (gp);
  return FALSE;
}

/* Queues motion's SAD between `prev`'s last upload and the luma just
 * uploaded (motion reads the reference alone); FALSE where it cannot be
 * (another size or depth, no kernels): the engines then compute it. */
static gboolean
compute_motion_share (VhGpuPicture *gp, const VhGpuPicture *prev,
    unsigned bpc)
{
  GError *error = NULL;
  /* (prev is another picture: this one's last upload is overwritten) */
  if (!prev || prev == gp || !prev->nplanes || prev->share.id == 0
      || prev->width[0] != gp->width[0] || prev->height[0] != gp->height[0]
      || prev->bpc != bpc)
    return FALSE;
  VhMotionGpu *ctx = share_kernel_ctx (gp->gpu, &gp->sharer->motion,
      gp->width[0], gp->height[0], bpc);
  if (!ctx)
    return FALSE;
  if (!gp->share.motion_sad && !(gp->share.motion_sad = vh_gpu_host_alloc
          (gp->gpu, sizeof (guint64), &error)))
    goto failed;
  if (vh_motion_gpu_enqueue (ctx, gp->stream, prev->plane[0], prev->pitch[0],
          gp->plane[0], gp->pitch[0], gp->share.motion_sad, &error))
    return TRUE;
failed:
  g_debug ("GPU picture: no motion share: %s", error->message);
  g_clear_error (&error);
  return FALSE;
}

gboolean
vh_gpu_picture_upload (VhGpuPicture *gp, const VhPicture *host,
    unsigned nplanes, VhPicture *out, GError **error)
{
  return vh_gpu_picture_upload_after (gp, NULL, host, nplanes, out, error);
}

gboolean
vh_gpu_picture_upload_after (VhGpuPicture *gp, const VhGpuPicture *prev,
    const VhPicture *host, unsigned nplanes, VhPicture *out, GError **error)
{
  static gsize last_id;
  if (nplanes == 0 || nplanes > host->nplanes || nplanes > MAX_PLANES) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "GPU picture: %u planes of a %s picture of %u cannot be uploaded",
        nplanes, host->memory == VH_PICTURE_HOST ? "host" : "GPU",
        host->nplanes);
    return FALSE;
  }
  /* every rendition waits for this upload and its shares: ahead of their
   * kernels on the GPU where it has a share to compute */
  if (!gp->stream && !(gp->stream = gp->sharer
          ? vh_gpu_stream_new_urgent (gp->gpu, error)
          : vh_gpu_stream_new (gp->gpu, error)))
    return FALSE;
  /* nothing of the last upload may be overwritten while an engine's
   * kernels read it */
  if (!wait_for_readers (gp, FALSE, error))
    return FALSE;
  if (!same_layout (gp, host, nplanes) && !allocate (gp, host, nplanes,
          error))
    return FALSE;
  guint8 *stage = gp->staging;
  for (unsigned p = 0; p < nplanes; p++) {
    const VhPlane *src = &host->plane[p];
    /* a picture in GPU memory (a decoder's) is copied on the device, from
     * its own context where it has one */
    if (host->memory == VH_PICTURE_DEVICE) {
      if (src->step != 1 || src->stride <= 0
          || (size_t) src->stride < gp->row[p]) {
        g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
            "GPU picture: plane %u in GPU memory is not planar rows", p);
        return FALSE;
      }
      if (!vh_gpu_copy2d_d2d_async (gp->stream, gp->plane[p], gp->pitch[p],
              host->device_context, (VhGpuPtr) (uintptr_t) src->data,
              (size_t) src->stride, gp->row[p], gp->height[p], error))
        return FALSE;
      continue;
    }
    /* planar rows in pinned memory go as they are, others through staging */
    const gboolean pinned = src->step == 1 && src->stride > 0
        && (size_t) src->stride >= gp->row[p] && vh_gpu_host_contains
        (src->data, (size_t) src->stride * (gp->height[p] - 1) + gp->row[p]);
    if (!pinned)
      vh_stage_rows (src, gp->bytes, stage, gp->row[p], 0, gp->height[p]);
    if (!vh_gpu_copy2d_h2d_async (gp->stream, gp->plane[p], gp->pitch[p],
            pinned ? src->data : stage, pinned ? (size_t) src->stride
            : gp->row[p], gp->row[p], gp->height[p], error))
      return FALSE;
    stage += gp->row[p] * gp->height[p];
  }
  /* where VIF's cannot be computed, the share has none (vif NULL) */
  if (gp->sharer && !compute_vif_share (gp, host->bpc))
    release_vif (gp);
  if (gp->sharer && !compute_adm_share (gp, host->bpc))
    release_adm (gp);
  const gboolean motion_share = gp->sharer
      && compute_motion_share (gp, prev, host->bpc);
  gp->share.id = 0;             /* until done */
  if (!vh_gpu_stream_sync (gp->stream, error))
    return FALSE;
  gp->share.has_motion = motion_share;
  gp->share.after = motion_share ? prev->share.id : 0;
  gp->share.id = (guint64) g_atomic_pointer_add (&last_id, 1) + 1;
  gp->bpc = host->bpc;
  memset (out, 0, sizeof *out);
  out->nplanes = nplanes;
  out->bpc = host->bpc;
  out->memory = VH_PICTURE_DEVICE;
  /* with shares asked for, always: its id tells the engines which upload
   * their frame was (motion's SAD is offered against it) */
  out->device_share = gp->sharer ? &gp->share : NULL;
  for (unsigned p = 0; p < nplanes; p++)
    out->plane[p] = (VhPlane) { (const void *) (uintptr_t) gp->plane[p],
      (ptrdiff_t) gp->pitch[p], gp->width[p], gp->height[p], 1 };
  return TRUE;
}
