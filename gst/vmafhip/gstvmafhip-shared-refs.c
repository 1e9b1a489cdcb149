/* vmafhip — the reference frames the renditions scored on the GPU share
 * (see gstvmafhip-shared-refs.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"
#include "gstvmafhip-shared-refs.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* reference frames in GPU memory at once (each read by the renditions'
 * workers, then free again) */
#define SHARED_REFS 4

/* Reference frames uploaded into GPU memory once for the renditions that
 * score there: a ring, each entry uploaded by the uploader's thread (off
 * the aggregator's), and free again when every worker that takes it has
 * pushed it; the engines' kernels may read it later, and the next upload
 * into it waits for them on the GPU (gpu-picture.h) */
struct _GstVmafHipSharedRef
{
  VhBackendPicture *picture;
  VhPicture view;
  guint readers;              /* workers still to push it */
  gboolean ready, failed;     /* the upload is done / did not work */
  GstBuffer *source;          /* the frame to upload (a reference held) */
  unsigned nplanes;
  /* the entry uploaded before this one (motion's SAD is computed against
   * it), or NULL */
  struct _GstVmafHipSharedRef *prev;
};

typedef struct _GstVmafHipSharedRefs GstVmafHipSharedRefs;
struct _GstVmafHipSharedRefs
{
  GstVmafHip *self;
  GstVmafHipSharedRef ref[SHARED_REFS];
  guint next;
  GstVmafHipSharedRef *last;  /* handed to the uploader last */
  GMutex lock;
  GCond changed;              /* an upload ended, or an entry was freed */
  GThreadPool *uploader;
  VhBackendSharer *sharer;        /* the shares' kernels, for every entry */
  Side side;                  /* the uploader's view of the reference */
};

void
gst_vmafhip_shared_ref_done (GstVmafHip * self, GstVmafHipSharedRef * ref)
{
  GstVmafHipSharedRefs *refs = self->renditions.shared_refs;
  g_mutex_lock (&refs->lock);
  if (--ref->readers == 0)
    g_cond_broadcast (&refs->changed);
  g_mutex_unlock (&refs->lock);
}

/* The shared reference's device view once uploaded, or NULL where the
 * upload failed (the worker then reads the frame from host memory) */
const VhPicture *
gst_vmafhip_shared_ref_wait (GstVmafHip * self, GstVmafHipSharedRef * ref)
{
  GstVmafHipSharedRefs *refs = self->renditions.shared_refs;
  g_mutex_lock (&refs->lock);
  while (!ref->ready && !ref->failed)
    g_cond_wait (&refs->changed, &refs->lock);
  g_mutex_unlock (&refs->lock);
  return ref->ready ? &ref->view : NULL;
}

/* The uploader's task: one reference frame into its ring entry */
static void
run_upload (gpointer data, gpointer user_data)
{
  GstVmafHipSharedRef *ref = data;
  GstVmafHipSharedRefs *refs = user_data;
  GstVmafHip *self = refs->self;
  GError *error = NULL;
  GstVideoFrame rf;
  VhPicture host;
  gboolean ok = FALSE;

  if (!ref->picture) {
    ref->picture = vh_backend_picture_new (self->backend);
    /* the reference's share of VIF and motion computed once too */
    if (!refs->sharer)
      refs->sharer = vh_backend_sharer_new (self->backend);
    vh_backend_picture_set_shared (ref->picture, refs->sharer);
  }
  /* in GPU memory (a decoder's), copied on the device; else uploaded */
  gboolean mapped = FALSE;
  if (gst_vmafhip_cuda_map_side (self, &refs->side, NULL, ref->nplanes > 1,
          ref->source, &rf, &host, &mapped) && !mapped
      && gst_video_frame_map (&rf, &refs->side.info, ref->source,
          GST_MAP_READ)) {
    gst_vmafhip_fill_side_picture (self, &refs->side, &rf, &host);
    mapped = TRUE;
  }
  if (mapped) {
    /* the uploader's thread uploads in order: the entry before is done
     * (and its picture stays until this thread uploads into it again) */
    VhBackendPicture *after = NULL;
    g_mutex_lock (&refs->lock);
    if (ref->prev && ref->prev->ready)
      after = ref->prev->picture;
    g_mutex_unlock (&refs->lock);
    ok = vh_backend_picture_upload (ref->picture, after, &host,
        MIN (ref->nplanes, host.nplanes), &ref->view, &error);
    gst_video_frame_unmap (&rf);
  }
  if (!ok) {
    GST_DEBUG_OBJECT (self, "the renditions read the reference from host "
        "memory: %s", error ? error->message : "it cannot be mapped");
    g_clear_error (&error);
  }
  gst_buffer_unref (ref->source);
  g_mutex_lock (&refs->lock);
  ref->source = NULL;
  ref->ready = ok;
  ref->failed = !ok;
  g_cond_broadcast (&refs->changed);
  g_mutex_unlock (&refs->lock);
}

static GstVmafHipSharedRefs *
shared_refs_new (GstVmafHip * self)
{
  GstVmafHipSharedRefs *refs = g_new0 (GstVmafHipSharedRefs, 1);
  refs->self = self;
  refs->side.pad = self->side[REF].pad;        /* (its name in messages) */
  g_mutex_init (&refs->lock);
  g_cond_init (&refs->changed);
  refs->uploader = g_thread_pool_new (run_upload, refs, 1, TRUE, NULL);
  if (!refs->uploader) {
    g_mutex_clear (&refs->lock);
    g_cond_clear (&refs->changed);
    g_free (refs);
    return NULL;
  }
  return refs;
}

/* The reference frame in GPU memory for `takers` workers, uploaded once
 * (by the uploader's thread) with its share of VIF, ADM and motion: each
 * engine then reads it on the device instead of uploading it again, and
 * computes only its own parts.  Only with share-reference (or
 * VMAFHIP_SHARED_REFERENCE=1), and where two or more take it: on the
 * H100 it saved little (docs/performance.md, "The reference's share of
 * the kernels").  NULL: each uploads its own. */
GstVmafHipSharedRef *
gst_vmafhip_shared_ref_upload (GstVmafHip * self, GstBuffer * buffer, guint takers,
    unsigned nplanes)
{
  if (takers < 2 || !self->cfg.share_reference)
    return NULL;
  if (!self->renditions.shared_refs && !(self->renditions.shared_refs =
          shared_refs_new (self)))
    return NULL;
  GstVmafHipSharedRefs *refs = self->renditions.shared_refs;
  g_mutex_lock (&refs->lock);
  GstVmafHipSharedRef *ref = &refs->ref[refs->next];
  refs->next = (refs->next + 1) % SHARED_REFS;
  /* its last frame read by every worker, and its upload over */
  while (ref->readers || ref->source)
    g_cond_wait (&refs->changed, &refs->lock);
  /* the reference's format, with conversion buffers of the uploader's
   * own (no upload runs now) */
  gst_vmafhip_side_follow (&refs->side, &self->side[REF].info);
  ref->readers = takers;
  ref->ready = ref->failed = FALSE;
  ref->source = gst_buffer_ref (buffer);
  ref->nplanes = nplanes;
  ref->prev = refs->last;
  refs->last = ref;
  g_mutex_unlock (&refs->lock);
  g_thread_pool_push (refs->uploader, ref, NULL);
  return ref;
}

/* After every rendition's queue is drained */
void
gst_vmafhip_shared_refs_free (GstVmafHip * self)
{
  GstVmafHipSharedRefs *refs = self->renditions.shared_refs;
  if (!refs)
    return;
  g_thread_pool_free (refs->uploader, FALSE, TRUE);
  for (guint i = 0; i < SHARED_REFS; i++)
    vh_backend_picture_free (refs->ref[i].picture);
  vh_backend_sharer_free (refs->sharer);
  gst_vmafhip_side_clear (&refs->side);
  g_mutex_clear (&refs->lock);
  g_cond_clear (&refs->changed);
  g_free (refs);
  self->renditions.shared_refs = NULL;
}

