/* vmafhip — the GPU backend of the engine (see vh-gpu-backend.h).
 *
 * Uploads take one of two paths, chosen per frame pair:
 *   - staging: the planes are packed into the slot's pinned staging (a few
 *     threads), then copied to the device asynchronously; submit returns
 *     while the copies run, since they read only our own staging.
 *   - zero-copy: when every plane to upload already lies in pinned memory
 *     (vh_gpu_host_contains: e.g. a GStreamer buffer from the element's
 *     pinned pool) and is planar, the 2-D copies read the caller's planes
 *     directly.  The caller may reuse or free its pictures as soon as submit
 *     returns (VhAccelOps), so submit then waits for the slot's `uploaded`
 *     event before returning; the kernels queued after it run on.  Not
 *     for pictures the caller holds until the frame is delivered
 *     (VhPicture.held): their copies run on after submit returns.
 * Both paths put the same bytes on the device: the scores are identical. */
#include <string.h>

#include "gpu-backend-private.h"
#include "gpu-picture.h"
#include "stage-copy.h"
#include "psnr.h"

/* One staging thread's share of a frame pair: part `part` of `parts` of
 * the rows of every plane */
typedef struct {
  VhGpuBackend *b;
  const VhPlane *const *src;
  guint8 *const *dst;
  unsigned n_planes, part, parts;
  unsigned bits;                /* the OR of the 16-bit samples staged */
} StageJob;

static void run_stage_job (gpointer data, gpointer user_data);

/* n threads stage a picture, the caller one of them (0: one a CPU, at
 * most 4); the caller alone where the pool cannot start */
static void
set_stagers (VhGpuBackend *b, unsigned n)
{
  if (b->stagers)
    g_thread_pool_free (b->stagers, FALSE, TRUE);
  b->stagers = NULL;
  b->n_stagers = n ? n : MIN (4, g_get_num_processors ());
  if (b->n_stagers > 1)
    b->stagers = g_thread_pool_new (run_stage_job, b,
        (gint) b->n_stagers - 1, FALSE, NULL);
}

VhGpuBackend *
vh_gpu_backend_new (VhGpu *gpu, unsigned slots, GError **error)
{
  if (!gpu) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "GPU backend: no GPU given");
    return NULL;
  }
  if (!slots)
    slots = VH_GPU_BACKEND_DEFAULT_SLOTS;
  if (slots < 4) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "GPU backend: %u slots, at least 4 needed", slots);
    return NULL;
  }
  VhGpuBackend *b = g_new0 (VhGpuBackend, 1);
  b->gpu = gpu;
  b->n_slots = slots;
  b->subsample = 1;
  b->ciede_lab_table = TRUE;    /* vh_config_init's */
  b->slots = g_new0 (Slot, slots);
  b->handles = g_ptr_array_new ();
  g_mutex_init (&b->stage_lock);
  g_cond_init (&b->stage_done);
  set_stagers (b, 0);
  for (unsigned i = 0; i < slots; i++) {
    Slot *s = &b->slots[i];
    if (!(s->stream = vh_gpu_stream_new (gpu, error))
        || !(s->uploaded = vh_gpu_event_new (gpu, FALSE, error))
        || !(s->done = vh_gpu_event_new (gpu, FALSE, error))) {
      vh_gpu_backend_ops.free (b);
      return NULL;
    }
  }
  return b;
}

void
vh_gpu_backend_set_release (VhGpuBackend *b, GDestroyNotify release,
    gpointer data)
{
  b->release = release;
  b->release_data = data;
}

VhGpu *
vh_gpu_backend_gpu (VhGpuBackend *b)
{
  return b->gpu;
}

unsigned
vh_gpu_backend_n_zero_copy (const VhGpuBackend *b)
{
  return b->n_zero_copy;
}

unsigned
vh_gpu_backend_n_device (const VhGpuBackend *b)
{
  return b->n_device;
}

static void
handle_free (VhGpuBackend *b, Handle *h)
{
  for (unsigned i = 0; h->ctx && i < b->n_slots; i++)
    if (h->ctx[i])
      h->ops->ctx_free (h->ctx[i]);
  g_free (h->ctx);
  g_free (h);
}

static gboolean
backend_attach (gpointer backend, const VhFeatureExtractor *fex,
    const void *opts, const VhVideoInfo *info, gpointer *handle,
    GError **error)
{
  VhGpuBackend *b = backend;
  Handle *h = g_new0 (Handle, 1);

  *handle = NULL;
  if (b->n_submitted) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "GPU backend: features must be added before the first frame");
    g_free (h);
    return FALSE;
  }
  if (b->have_info && (info->width != b->info.width
          || info->height != b->info.height || info->bpc != b->info.bpc)) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "GPU backend: one backend serves one picture format");
    g_free (h);
    return FALSE;
  }
  b->info = *info;
  b->have_info = TRUE;

  h->ops = vh_gpu_feature_ops_find (fex);
  if (!h->ops) {
    /* not accelerated: the CPU computes it */
    g_free (h);
    return TRUE;
  }
  /* built without this feature's kernels for this GPU (while the build's
   * other kernels run on it): the CPU computes it */
  if (vh_gpu_image_set_choose (&vh_kernel_probe, vh_gpu_vendor (b->gpu),
          vh_gpu_arch (b->gpu), NULL)
      && !vh_gpu_image_set_choose (h->ops->image, vh_gpu_vendor (b->gpu),
          vh_gpu_arch (b->gpu), NULL)) {
    g_debug ("GPU backend: no %s kernels for %s in this build: on the CPU",
        fex->name, vh_gpu_arch (b->gpu));
    g_free (h);
    return TRUE;
  }
  h->sums_size = h->ops->sums_size;
  if (h->ops->configure && !h->ops->configure (b, h, opts, error)) {
    g_free (h);
    return FALSE;
  }
  if (h->on_cpu) {
    g_free (h);
    return TRUE;
  }
  /* PSNR, CIEDE2000: the chroma planes are uploaded too */
  b->want_chroma |= fex->needs_chroma;

  /* kernel contexts, one per slot (their scratch is per frame in flight) */
  VhGpuModule **module = &b->modules[h->ops - vh_gpu_feature_ops];
  if (!*module && !(*module = vh_gpu_module_load_embedded (b->gpu,
              h->ops->image, error)))
    goto fail;
  h->ctx = g_new0 (void *, b->n_slots);
  for (unsigned i = 0; i < b->n_slots; i++) {
    h->ctx[i] = h->ops->ctx_new (b, *module, info, h, error);
    if (!h->ctx[i])
      goto fail;
  }
  /* 16-byte aligned place in every slot's result block */
  h->sums_offset = b->sums_size;
  b->sums_size += (h->sums_size + 15) & ~(size_t) 15;
  g_ptr_array_add (b->handles, h);
  *handle = h;
  return TRUE;

fail:
  g_prefix_error (error, "GPU backend (%s): ", fex->name);
  handle_free (b, h);
  return FALSE;
}

/* The small distorted planes on the device and each slot's scalers. */
static gboolean
allocate_scaling (VhGpuBackend *b, const VhPicture *ref, GError **error)
{
  if (ref->nplanes < b->nplanes) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "GPU backend: the distorted planes to scale do not match the "
        "reference's");
    return FALSE;
  }
  if (!b->scale_module && !(b->scale_module =
          vh_gpu_module_load_embedded (b->gpu, &vh_kernel_scale, error)))
    return FALSE;
  for (unsigned p = 0; p < b->nplanes; p++) {
    VhScaler *scaler = vh_scaler_new (b->dis_width[p], b->dis_height[p],
        b->width[p], b->height[p], ref->bpc, b->scale_filter, error);
    if (!scaler)
      return FALSE;
    for (unsigned i = 0; i < b->n_slots; i++) {
      Slot *s = &b->slots[i];
      if (!(s->dis_small[p] = vh_gpu_mem_alloc (b->gpu,
                  b->dis_pitch[p] * b->dis_height[p], error))
          || !(s->scale[p] = vh_scale_gpu_new (b->gpu, b->scale_module,
                  scaler, error))) {
        vh_scaler_free (scaler);
        return FALSE;
      }
    }
    vh_scaler_free (scaler);
  }
  return TRUE;
}

/* Device planes and pinned buffers, sized by the first frame's layout. */
static gboolean
allocate (VhGpuBackend *b, const VhPicture *ref, GError **error)
{
  b->nplanes = b->want_chroma ? ref->nplanes : 1;
  b->bytes = ref->bpc > 8 ? 2 : 1;
  b->staging_size = 0;
  for (unsigned p = 0; p < b->nplanes; p++) {
    b->width[p] = ref->plane[p].width;
    b->height[p] = ref->plane[p].height;
    b->staged_row[p] = (size_t) b->width[p] * b->bytes;
    b->pitch[p] = (b->staged_row[p] + PITCH_ALIGN - 1) & ~(size_t) (PITCH_ALIGN - 1);
    b->staging_size += b->staged_row[p] * b->height[p];
    if (b->scaled) {
      b->dis_row[p] = (size_t) b->dis_width[p] * b->bytes;
      b->dis_pitch[p] = (b->dis_row[p] + PITCH_ALIGN - 1)
          & ~(size_t) (PITCH_ALIGN - 1);
      b->staging_size += b->dis_row[p] * b->dis_height[p];
    } else {
      b->staging_size += b->staged_row[p] * b->height[p];
    }
  }
  if (b->scaled && !allocate_scaling (b, ref, error))
    return FALSE;
  for (unsigned i = 0; i < b->n_slots; i++) {
    Slot *s = &b->slots[i];
    for (unsigned p = 0; p < b->nplanes; p++) {
      const size_t size = b->pitch[p] * b->height[p];
      if (!(s->ref[p] = vh_gpu_mem_alloc (b->gpu, size, error))
          || !(s->dis[p] = vh_gpu_mem_alloc (b->gpu, size, error)))
        return FALSE;
    }
    if (!(s->staging = vh_gpu_host_alloc (b->gpu, b->staging_size, error))
        || !(s->sums = vh_gpu_host_alloc (b->gpu, MAX (b->sums_size, 16),
                error)))
      return FALSE;
  }
  b->allocated = TRUE;
  return TRUE;
}

static void
stage_part (StageJob *job)
{
  job->bits = 0;
  for (unsigned i = 0; i < job->n_planes; i++) {
    const unsigned hgt = job->src[i]->height;
    job->bits |= vh_stage_rows (job->src[i], job->b->bytes, job->dst[i],
        (size_t) job->src[i]->width * job->b->bytes,
        hgt * job->part / job->parts, hgt * (job->part + 1) / job->parts);
  }
}

static void
run_stage_job (gpointer data, gpointer user_data)
{
  VhGpuBackend *b = user_data;
  stage_part (data);
  g_mutex_lock (&b->stage_lock);
  if (--b->stage_left == 0)
    g_cond_signal (&b->stage_done);
  g_mutex_unlock (&b->stage_lock);
}

/* Packs the planes into the slot's pinned staging: each staging thread, and
 * the calling one, takes a share of the rows of every plane (one hand-off
 * per thread and frame, however many planes).  Returns the OR of the
 * 16-bit samples staged. */
static unsigned
stage_picture (VhGpuBackend *b, const VhPlane *const *planes,
    guint8 *const *dst, unsigned n_planes)
{
  const unsigned parts = b->stagers ? b->n_stagers : 1;
  StageJob *jobs = g_newa (StageJob, parts);
  unsigned bits = 0;
  for (unsigned k = 0; k < parts; k++)
    jobs[k] = (StageJob) { b, planes, dst, n_planes, k, parts, 0 };
  if (parts == 1) {
    stage_part (&jobs[0]);
    return jobs[0].bits;
  }
  b->stage_left = parts - 1;
  for (unsigned k = 1; k < parts; k++)
    g_thread_pool_push (b->stagers, &jobs[k], NULL);
  stage_part (&jobs[0]);
  g_mutex_lock (&b->stage_lock);
  while (b->stage_left)
    g_cond_wait (&b->stage_done, &b->stage_lock);
  g_mutex_unlock (&b->stage_lock);
  for (unsigned k = 0; k < parts; k++)
    bits |= jobs[k].bits;
  return bits;
}

/* Whether the plane can be copied to the device straight from where it
 * is: planar (NV12/P010 chroma needs staging to pick every other sample),
 * rows that go forward, and every byte read inside one pinned block. */
static gboolean
plane_is_pinned (const VhPlane *pl, size_t row)
{
  if (pl->step > 1 || pl->stride <= 0 || (size_t) pl->stride < row
      || pl->height == 0)
    return FALSE;
  const size_t span = (size_t) pl->stride * (pl->height - 1) + row;
  return vh_gpu_host_contains (pl->data, span);
}

/* Whether a handle computes frame `index` (the engine's rule) */
static gboolean
computes (const VhGpuBackend *b, const Handle *h, unsigned index)
{
  return vh_subsample_computes (h->ops->fex->sequential, b->subsample, index);
}

/* Queues every attached feature's kernels for frame `index` on slot s. */
static gboolean
enqueue_features (VhGpuBackend *b, Slot *s, unsigned index, GError **error)
{
  for (guint k = 0; k < b->handles->len; k++) {
    Handle *h = g_ptr_array_index (b->handles, k);
    void *out = s->sums + h->sums_offset;
    void *ctx = h->ctx[index % b->n_slots];
    if (!computes (b, h, index))
      continue;
    if (!h->ops->enqueue (b, h, s, index, ctx, out, error))
      return FALSE;
  }
  return TRUE;
}

/* Samples beyond the depth in planes copied from GPU memory: checked (and
 * masked) on the device after the copies, in the slot's stream; the frame
 * is refused when its word comes back (backend_collect). */
static gboolean
enqueue_depth_check (VhGpuBackend *b, Slot *s, const VhGpuPtr *device,
    const size_t *pitch, const unsigned *width, const unsigned *height,
    unsigned n, GError **error)
{
  if (!b->depth_check) {
    const FeatureOps *psnr = vh_gpu_feature_ops_find (&vh_fex_psnr);
    VhGpuModule **module = &b->modules[psnr - vh_gpu_feature_ops];
    if (!*module && !(*module = vh_gpu_module_load_embedded (b->gpu,
                psnr->image, error)))
      return FALSE;
    if (!(b->depth_check = vh_gpu_function (*module, "vh_depth_check_16",
                error)))
      return FALSE;
  }
  if (!s->depth_word && (!(s->depth_word = vh_gpu_mem_alloc (b->gpu, 16,
                  error)) || !(s->depth_bits = vh_gpu_host_alloc (b->gpu, 16,
                  error))))
    return FALSE;
  if (!vh_gpu_memset32_async (s->stream, s->depth_word, 0, 1, error))
    return FALSE;
  guint32 mask = (1u << b->info.bpc) - 1;
  for (unsigned i = 0; i < n; i++) {
    guint64 plane = device[i];
    guint32 row_pitch = (guint32) pitch[i], row_width = width[i];
    VhGpuPtr word = s->depth_word;
    void *args[] = { &plane, &row_pitch, &row_width, &mask, &word };
    const VhGpuDim3 grid = { height[i], 1, 1 }, block = { 256, 1, 1 };
    if (!vh_gpu_launch (b->depth_check, grid, block, 0, s->stream, args,
            error))
      return FALSE;
  }
  return vh_gpu_copy_d2h_async (s->stream, s->depth_bits, s->depth_word,
      sizeof (guint32), error);
}

static gboolean
backend_submit (gpointer backend, const VhPicture *ref, const VhPicture *dis,
    unsigned index, GError **error)
{
  VhGpuBackend *b = backend;
  Slot *s = &b->slots[index % b->n_slots];

  if (index != b->n_submitted) {
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "GPU backend: frame %u submitted, %u expected", index, b->n_submitted);
    return FALSE;
  }
  if (index - b->n_delivered >= b->n_slots) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "GPU backend: no free slot (collect first)");
    return FALSE;
  }
  if (!b->allocated && !allocate (b, ref, error))
    return FALSE;
  if (b->want_chroma && ref->nplanes != b->nplanes) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "GPU backend: the plane layout changed");
    return FALSE;
  }

  /* The slot's pictures of frame index − n_slots are read by the motion
   * kernels of the frames up to max_lag after it: wait for those. */
  if (index >= b->n_slots && b->max_lag) {
    const unsigned reader = index - b->n_slots + b->max_lag;
    if (reader < index && !vh_gpu_stream_wait_event (s->stream,
            b->slots[reader % b->n_slots].done, error))
      return FALSE;
  }

  const VhPlane *planes[2 * MAX_PLANES] = { NULL };
  guint8 *staged[2 * MAX_PLANES] = { NULL };
  VhGpuPtr device[2 * MAX_PLANES];
  /* each picture's planes on the device: the reference's and, unless it
   * is scaled here, the distorted one's at the stream's size */
  size_t pitch[2 * MAX_PLANES], row[2 * MAX_PLANES];
  unsigned width[2 * MAX_PLANES], height[2 * MAX_PLANES];
  /* where each plane is read from: GPU memory (a device-to-device copy),
   * pinned host memory (copied as it is), or else packed into the slot's
   * staging first.  Either picture may be in GPU memory: the element
   * uploads a reference once for all its renditions. */
  gboolean on_device[2 * MAX_PLANES], in_place[2 * MAX_PLANES];
  const VhPlane *to_stage[2 * MAX_PLANES];
  guint8 *stage_dst[2 * MAX_PLANES];
  unsigned n_stage = 0, n_device_planes = 0, n_pinned = 0, n_host = 0;
  guint8 *stage = s->staging;
  unsigned n = 0;
  for (unsigned p = 0; p < b->nplanes; p++) {
    for (int k = 0; k < 2; k++, n++) {
      const gboolean small = k && b->scaled;
      const VhPicture *pic = k ? dis : ref;
      planes[n] = &pic->plane[p];
      device[n] = small ? s->dis_small[p] : k ? s->dis[p] : s->ref[p];
      pitch[n] = small ? b->dis_pitch[p] : b->pitch[p];
      row[n] = small ? b->dis_row[p] : b->staged_row[p];
      width[n] = small ? b->dis_width[p] : b->width[p];
      height[n] = small ? b->dis_height[p] : b->height[p];
      staged[n] = stage;
      stage += row[n] * height[n];
      if (planes[n]->width != width[n] || planes[n]->height != height[n]) {
        g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
            "GPU backend: %s plane %u is %ux%u, the stream's %ux%u",
            k ? "distorted" : "reference", p, planes[n]->width,
            planes[n]->height, width[n], height[n]);
        return FALSE;
      }
      on_device[n] = pic->memory == VH_PICTURE_DEVICE;
      if (on_device[n] && (planes[n]->step > 1 || planes[n]->stride <= 0
              || (size_t) planes[n]->stride < row[n])) {
        g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
            "GPU backend: plane %u in GPU memory is not planar with forward "
            "rows (step %u, stride %td)", p, planes[n]->step,
            planes[n]->stride);
        return FALSE;
      }
      in_place[n] = on_device[n] || plane_is_pinned (planes[n], row[n]);
      if (on_device[n])
        n_device_planes++;
      else {
        n_host++;
        n_pinned += in_place[n];
      }
      if (!in_place[n]) {
        to_stage[n_stage] = planes[n];
        stage_dst[n_stage++] = staged[n];
      }
    }
  }
  /* A reference shared in GPU memory with a share of its work: the
   * kernels read both in place, and the next upload into it waits on the
   * GPU until they are done (vh_gpu_ref_share_read_on below) */
  s->ref_share = ref->memory == VH_PICTURE_DEVICE ? ref->device_share : NULL;
  b->prev_ref_share_id = b->ref_share_id;
  b->ref_share_id = vh_gpu_ref_share_id (s->ref_share);
  /* other planes read where they are: the caller owns them again once we
   * return (unless it holds them until the frame is delivered), so the
   * call waits until they have been read */
  gboolean wait_upload = FALSE, reads_in_place = FALSE;
  for (unsigned i = 0; i < n; i++) {
    const gboolean shared = i % 2 == 0 && on_device[i] && s->ref_share;
    const gboolean held = !on_device[i] && (i % 2 ? dis : ref)->held;
    reads_in_place |= in_place[i];
    wait_upload |= in_place[i] && !shared && !held;
  }

  /* Upload: one 2-D copy per plane.  Samples beyond the depth (what the
   * CPU engine refuses too) are found on the way: while staging, or by
   * reading the pinned planes; planes in GPU memory after their copy, on
   * the device (enqueue_depth_check). */
  unsigned bits = n_stage ? stage_picture (b, to_stage, stage_dst, n_stage)
      : 0;
  for (unsigned i = 0; b->bytes == 2 && i < n; i++)
    if (in_place[i] && !on_device[i])
      bits |= vh_plane_or16 (planes[i], 0, planes[i]->height);
  if (ref->bpc > 8 && ref->bpc < 16 && (bits >> ref->bpc)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "frame %u: a sample above %u bits (the data does not match its "
        "declared depth)", index, ref->bpc);
    return FALSE;
  }
  gboolean ok = TRUE;
  for (unsigned i = 0; ok && i < n; i++) {
    const void *src = in_place[i] ? planes[i]->data : staged[i];
    const size_t src_pitch = in_place[i] ? (size_t) planes[i]->stride : row[i];
    if (on_device[i])
      ok = vh_gpu_copy2d_d2d_async (s->stream, device[i], pitch[i],
          (i % 2 ? dis : ref)->device_context, (VhGpuPtr) (uintptr_t) src,
          src_pitch, row[i], height[i], error);
    else
      ok = vh_gpu_copy2d_h2d_async (s->stream, device[i], pitch[i], src,
          src_pitch, row[i], height[i], error);
  }
  ok = ok && vh_gpu_event_record (s->uploaded, s->stream, error);
  s->depth_checked = ok && n_device_planes && b->bytes == 2
      && ref->bpc < 16;
  if (s->depth_checked)
    ok = enqueue_depth_check (b, s, device, pitch, width, height, n, error);
  /* the distorted planes scaled into the stream's size, after the depth
   * check (which masks what it finds) */
  for (unsigned p = 0; ok && b->scaled && p < b->nplanes; p++) {
    const VhScaleGpuPlane from = { s->dis_small[p], b->dis_pitch[p],
      b->dis_width[p], b->dis_height[p], 1
    };
    const VhScaleGpuPlane to = { s->dis[p], b->pitch[p], b->width[p],
      b->height[p], 1
    };
    ok = vh_scale_gpu_enqueue (s->scale[p], s->stream, &from, &to, error);
  }
  if (!ok) {
    /* copies already queued may still read the caller's planes (held
     * ones too: a failed frame is never delivered) */
    if (reads_in_place || s->ref_share)
      vh_gpu_stream_sync (s->stream, NULL);
    return FALSE;
  }

  ok = enqueue_features (b, s, index, error)
      && vh_gpu_event_record (s->done, s->stream, error);
  if (ok && s->ref_share && !vh_gpu_ref_share_read_on (s->ref_share,
          s->stream, error)) {
    /* no mark: hold the caller until the kernels are done */
    vh_gpu_event_sync (s->done, NULL);
    ok = FALSE;
  }
  /* Planes read in place must stay untouched until the copies have read
   * them, and the caller owns them again once we return: wait for the
   * upload (not for the kernels queued after it).  On error too, held
   * planes as well (a failed frame is never delivered). */
  if ((wait_upload || (!ok && reads_in_place))
      && !vh_gpu_event_sync (s->uploaded, ok ? error : NULL))
    ok = FALSE;
  if (!ok)
    return FALSE;
  if (n_device_planes && b->n_device++ == 0)
    g_debug ("GPU backend: copying %s from GPU memory (%s context)",
        n_device_planes == n ? "frames" : "the reference",
        (ref->memory == VH_PICTURE_DEVICE ? ref : dis)->device_context
        ? "another" : "our own");
  if (n_host && n_pinned == n_host && b->n_zero_copy++ == 0)
    g_debug ("GPU backend: uploading straight from pinned memory (zero-copy)");
  s->index = index;
  b->n_submitted++;
  return TRUE;
}

static gboolean
backend_collect (gpointer backend, unsigned max_pending,
    VhAccelDeliverFunc deliver, gpointer engine_data, unsigned *delivered,
    GError **error)
{
  VhGpuBackend *b = backend;
  *delivered = 0;
  while (b->n_delivered < b->n_submitted) {
    Slot *s = &b->slots[b->n_delivered % b->n_slots];
    if (b->n_submitted - b->n_delivered > max_pending) {
      if (!vh_gpu_event_sync (s->done, error))
        return FALSE;
    } else {
      gboolean done = FALSE;
      if (!vh_gpu_event_query (s->done, &done, error))
        return FALSE;
      if (!done)
        break;
    }
    if (s->depth_checked && *s->depth_bits >> b->info.bpc) {
      /* the kernels read masked samples: their sums are dropped */
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "frame %u: a sample above %u bits (the data in GPU memory does "
          "not match its declared depth)", s->index, b->info.bpc);
      return FALSE;
    }
    for (guint k = 0; k < b->handles->len; k++) {
      Handle *h = g_ptr_array_index (b->handles, k);
      if (computes (b, h, s->index))
        deliver (engine_data, h, s->index, s->sums + h->sums_offset);
    }
    b->n_delivered++;
    (*delivered)++;
  }
  return TRUE;
}

static unsigned
backend_max_in_flight (gpointer backend)
{
  VhGpuBackend *b = backend;
  return b->n_slots;
}

static void
backend_set_subsample (gpointer backend, unsigned n)
{
  ((VhGpuBackend *) backend)->subsample = n;
}

static gboolean
backend_scale_distorted (gpointer backend, unsigned nplanes,
    const unsigned width[], const unsigned height[], VhScaleFilter filter,
    GError **error)
{
  VhGpuBackend *b = backend;
  if (b->allocated || nplanes > MAX_PLANES) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "GPU backend: scaling must be set before the first frame");
    return FALSE;
  }
  b->scaled = TRUE;
  b->scale_filter = filter;
  for (unsigned p = 0; p < nplanes; p++) {
    b->dis_width[p] = width[p];
    b->dis_height[p] = height[p];
  }
  return TRUE;
}

static void
backend_reset (gpointer backend)
{
  VhGpuBackend *b = backend;
  for (unsigned i = 0; i < b->n_slots; i++)
    if (b->slots[i].stream)
      vh_gpu_stream_sync (b->slots[i].stream, NULL);
  b->n_submitted = b->n_delivered = 0;
  b->ref_share_id = b->prev_ref_share_id = 0;
}

static void
backend_free (gpointer backend)
{
  VhGpuBackend *b = backend;
  if (!b)
    return;
  backend_reset (b);
  for (guint k = 0; k < b->handles->len; k++)
    handle_free (b, g_ptr_array_index (b->handles, k));
  g_ptr_array_unref (b->handles);
  for (unsigned i = 0; i < b->n_slots; i++) {
    Slot *s = &b->slots[i];
    for (unsigned p = 0; p < MAX_PLANES; p++) {
      vh_gpu_mem_free (b->gpu, s->ref[p]);
      vh_gpu_mem_free (b->gpu, s->dis[p]);
      vh_gpu_mem_free (b->gpu, s->dis_small[p]);
      if (s->scale[p])
        vh_scale_gpu_free (s->scale[p]);
    }
    vh_gpu_host_free (b->gpu, s->staging);
    vh_gpu_host_free (b->gpu, s->sums);
    vh_gpu_mem_free (b->gpu, s->depth_word);
    vh_gpu_host_free (b->gpu, s->depth_bits);
    if (s->uploaded)
      vh_gpu_event_free (s->uploaded);
    if (s->done)
      vh_gpu_event_free (s->done);
    if (s->stream)
      vh_gpu_stream_free (s->stream);
  }
  g_free (b->slots);
  if (b->stagers)
    g_thread_pool_free (b->stagers, FALSE, TRUE);
  g_mutex_clear (&b->stage_lock);
  g_cond_clear (&b->stage_done);
  for (unsigned k = 0; k < G_N_ELEMENTS (b->modules); k++)
    if (b->modules[k])
      vh_gpu_module_free (b->modules[k]);
  if (b->scale_module)
    vh_gpu_module_free (b->scale_module);
  vh_gpu_close (b->gpu);
  if (b->release)
    b->release (b->release_data);
  g_free (b);
}

static void
backend_set_config (gpointer backend, const VhConfig *config)
{
  VhGpuBackend *b = backend;
  b->ciede_lab_table = config->ciede_lab_table;
  b->ms_ssim_fast = config->ms_ssim_gpu_fast;
  if (config->gpu_stagers && config->gpu_stagers != b->n_stagers)
    set_stagers (b, config->gpu_stagers);
}

const VhAccelOps vh_gpu_backend_ops = {
  backend_attach, backend_submit, backend_collect, backend_max_in_flight,
  backend_reset, backend_free, backend_set_subsample,
  backend_scale_distorted, backend_set_config,
};
