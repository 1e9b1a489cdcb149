/* vmafhip — frames in GStreamer's CUDA memory (memory:CUDAMemory).
 *
 * On NVIDIA the GPU backend runs in the device's primary CUDA context.  The
 * element wraps that context in a GstCudaContext and hands it to the CUDA
 * elements of the pipeline (nvh264dec, cudaupload, cudaconvert, ...)
 * through GstContext: it answers their context queries and posts it with
 * have-context, so a bin also gives it to elements added later.  Frames
 * decoded into it are then copied device to device into the backend's
 * slots, without a trip through host memory.  Frames from another context
 * (an element that made its own before asking, or another GPU) are copied
 * between the contexts, with one warning.  Where the GPU cannot read a frame
 * itself (a feature on the CPU, P010's shifted samples, NV12 chroma), the
 * frame is mapped to host memory by GstCudaMemory, again with one warning.
 *
 * Compiled only with gstreamer-cuda-1.0 (HAVE_GST_CUDA); without it the
 * functions below are no-ops and the pads offer system memory only.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

#ifdef HAVE_GST_CUDA

#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/cuda/gstcudabufferpool.h>

/* The wrapper keeps the device (and so its primary context) open for as
 * long as any element holds it. */
static GstCudaContext *
wrap_device_context (VhBackendChoice * device)
{
  GstCudaContext *ctx = gst_cuda_context_new_wrapped (
      (CUcontext) vh_backend_choice_native_context (device),
      /* CUdevice is the ordinal */
      (CUdevice) vh_backend_choice_device_id (device));
  if (ctx)
    g_object_set_data_full (G_OBJECT (ctx), "vmafhip-gpu",
        vh_backend_choice_ref (device),
        (GDestroyNotify) vh_backend_choice_unref);
  return ctx;
}

/* The element's GstCudaContext, made at the first need: the process's
 * shared handle on the NVIDIA device that backend=hip/auto uses (chosen at
 * start), or would use (device-id=-1: the least-loaded one now; start()
 * then follows the context, gst_vmafhip_cuda_device). */
static GstCudaContext *
ensure_context (GstVmafHip * self)
{
  GstCudaContext *ctx = NULL;
  gint device_id;
  GstVmafHipBackend backend;

  GST_OBJECT_LOCK (self);
  if (self->cuda.context) {
    ctx = gst_object_ref (self->cuda.context);
    GST_OBJECT_UNLOCK (self);
    return ctx;
  }
  backend = self->props.backend;
  device_id = self->props.device_id;
  GST_OBJECT_UNLOCK (self);
  if (backend == GST_VMAFHIP_BACKEND_CPU || self->cuda.unavailable)
    return NULL;
  /* (a separate handle on the device start () placed us on, so that the
   * context, which upstream may keep, does not count as a stream there) */
  if (self->backend && vh_backend_choice_is_nvidia (self->backend))
    device_id = vh_backend_choice_device_id (self->backend);
  if (!gst_cuda_load_library ()) {
    GST_DEBUG_OBJECT (self, "no CUDA library: system memory only");
    self->cuda.unavailable = TRUE;
    return NULL;
  }

  GError *error = NULL;
  VhBackendChoice *device = vh_backend_open_nvidia (device_id,
      &self->engine_config, &error);
  if (!device) {
    GST_DEBUG_OBJECT (self, "no CUDA device to share: %s", error->message);
    g_clear_error (&error);
    self->cuda.unavailable = TRUE;
    return NULL;
  }
  ctx = wrap_device_context (device);
  vh_backend_choice_unref (device);
  if (!ctx) {
    self->cuda.unavailable = TRUE;
    return NULL;
  }
  GST_OBJECT_LOCK (self);
  if (self->cuda.context) {
    /* another thread was quicker */
    GST_OBJECT_UNLOCK (self);
    gst_object_unref (ctx);
    return ensure_context (self);
  }
  self->cuda.context = gst_object_ref (ctx);
  GST_OBJECT_UNLOCK (self);
  GST_INFO_OBJECT (self, "sharing CUDA context %p of device %d",
      gst_cuda_context_get_handle (ctx), gst_vmafhip_cuda_device (self));
  /* the bin keeps it and gives it to CUDA elements that ask later */
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_have_context (GST_OBJECT (self),
          gst_context_new_cuda_context (ctx)));
  return ctx;
}

gint
gst_vmafhip_cuda_device (GstVmafHip * self)
{
  guint device = 0;
  GST_OBJECT_LOCK (self);
  GstObject *ctx = self->cuda.context ? gst_object_ref (self->cuda.context)
      : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!ctx)
    return -1;
  g_object_get (ctx, "cuda-device-id", &device, NULL);
  gst_object_unref (ctx);
  return (gint) device;
}

gboolean
gst_vmafhip_cuda_query (GstVmafHip * self, GstQuery * query)
{
  if (GST_QUERY_TYPE (query) != GST_QUERY_CONTEXT)
    return FALSE;
  const gchar *type = NULL;
  if (!gst_query_parse_context_type (query, &type)
      || g_strcmp0 (type, GST_CUDA_CONTEXT_TYPE) != 0)
    return FALSE;
  GstCudaContext *ctx = ensure_context (self);
  if (!ctx)
    return FALSE;
  gboolean ok = gst_cuda_handle_context_query (GST_ELEMENT (self), query, ctx);
  gst_object_unref (ctx);
  return ok;
}

/* CUDA memory is offered while the GPU backend on NVIDIA can take it: not
 * with backend=cpu, not without a CUDA device, not once start() chose the
 * CPU or an AMD GPU. */
static gboolean
cuda_usable (GstVmafHip * self)
{
  if (self->dist_stream.engine && !(self->use_gpu
          && vh_backend_choice_is_nvidia (self->backend)))
    return FALSE;
  GstCudaContext *ctx = ensure_context (self);
  if (!ctx)
    return FALSE;
  gst_object_unref (ctx);
  return TRUE;
}

GstCaps *
gst_vmafhip_cuda_filter_caps (GstVmafHip * self, GstCaps * caps)
{
  if (gst_caps_is_any (caps) || cuda_usable (self))
    return caps;
  return gst_vmafhip_caps_drop_feature (caps,
      GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY);
}

gboolean
gst_vmafhip_cuda_propose_allocation (GstVmafHip * self, GstQuery * query,
    GstCaps * caps, guint size)
{
  GstCapsFeatures *f = gst_caps_get_features (caps, 0);
  if (!f || !gst_caps_features_contains (f,
          GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY))
    return FALSE;
  GstCudaContext *ctx = ensure_context (self);
  if (!ctx)
    return TRUE;                /* nothing to offer: upstream brings its own */
  /* a pool in the shared context: what upstream writes, we read in place */
  GstBufferPool *pool = gst_cuda_buffer_pool_new (ctx);
  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, 0, 0);
  gst_buffer_pool_config_add_option (config, GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (gst_buffer_pool_set_config (pool, config))
    gst_query_add_allocation_pool (query, pool, size, 0, 0);
  gst_object_unref (pool);
  gst_object_unref (ctx);
  return TRUE;
}

/* Why the GPU cannot read a side's frames where they are, or NULL */
static const char *
not_in_place (GstVmafHip * self, const Side * side, const VhEngine * engine,
    gboolean reads_chroma)
{
  if (!self->use_gpu || !vh_backend_choice_is_nvidia (self->backend))
    return "the frames are not scored on an NVIDIA GPU";
  if (engine && !vh_engine_all_accelerated (engine))
    return "a feature runs on the CPU";
  if (!gst_vmafhip_info_read_as_is (self, &side->info, reads_chroma))
    return "the GPU reads planar samples only (NV12 or P010 chroma where "
        "chroma is read, P010's shifted samples)";
  return NULL;
}

gboolean
gst_vmafhip_cuda_map_side (GstVmafHip * self, Side * side,
    const VhEngine * engine, gboolean reads_chroma, GstBuffer * buf,
    GstVideoFrame * frame, VhPicture * pic, gboolean * mapped)
{
  /* (an empty buffer has no memory at all) */
  GstMemory *mem = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf, 0)
      : NULL;
  *mapped = FALSE;
  if (!mem || !gst_is_cuda_memory (mem))
    return TRUE;

  const char *why = not_in_place (self, side, engine, reads_chroma);
  if (why) {
    /* (renditions' workers too: once per element and stream) */
    if (g_atomic_int_compare_and_exchange (&self->cuda.warned_host, FALSE,
            TRUE))
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("Frames in CUDA memory are copied to host memory: %s.", why),
          ("first on %s; once per stream", GST_PAD_NAME (side->pad)));
    return TRUE;                /* the caller maps to host memory */
  }

  if (!gst_video_frame_map (frame, &side->info, buf,
          GST_MAP_READ | GST_MAP_CUDA))
    return FALSE;
  *mapped = TRUE;
  gst_vmafhip_fill_side_picture (self, side, frame, pic);
  pic->memory = VH_PICTURE_DEVICE;

  GstCudaContext *ctx = GST_CUDA_MEMORY_CAST (mem)->context;
  void *handle = gst_cuda_context_get_handle (ctx);
  if (handle != vh_backend_choice_native_context (self->backend)) {
    pic->device_context = handle;
    if (g_atomic_int_compare_and_exchange (&self->cuda.warned_copy, FALSE,
            TRUE)) {
      guint device = 0;
      g_object_get (ctx, "cuda-device-id", &device, NULL);
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("Frames in CUDA memory of another context (device %u) are "
              "copied between contexts.", device),
          ("first on %s: upstream did not take vmafhip's context (of "
              "device %d); scoring is unchanged, the copy costs a little GPU "
              "time; device-id=%u scores on upstream's device",
              GST_PAD_NAME (side->pad),
              vh_backend_choice_device_id (self->backend), device));
    }
  }
  return TRUE;
}

gboolean
gst_vmafhip_cuda_map (GstVmafHip * self, int which, GstBuffer * buf,
    GstVideoFrame * frame, VhPicture * pic, gboolean * mapped)
{
  if (gst_vmafhip_cuda_map_side (self, &self->side[which], self->dist_stream.engine,
          self->reads_chroma, buf, frame, pic, mapped))
    return TRUE;
  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("Cannot map a %s frame in CUDA memory.",
          which == REF ? "reference" : "distorted"), ("%" GST_PTR_FORMAT,
          buf));
  return FALSE;
}

void
gst_vmafhip_cuda_clear (GstVmafHip * self)
{
  GST_OBJECT_LOCK (self);
  gst_clear_object (&self->cuda.context);
  GST_OBJECT_UNLOCK (self);
  self->cuda.unavailable = FALSE;
}

#else /* !HAVE_GST_CUDA */

gint
gst_vmafhip_cuda_device (GstVmafHip * self)
{
  (void) self;
  return -1;
}

gboolean
gst_vmafhip_cuda_query (GstVmafHip * self, GstQuery * query)
{
  (void) self;
  (void) query;
  return FALSE;
}

GstCaps *
gst_vmafhip_cuda_filter_caps (GstVmafHip * self, GstCaps * caps)
{
  (void) self;
  return caps;
}

gboolean
gst_vmafhip_cuda_propose_allocation (GstVmafHip * self, GstQuery * query,
    GstCaps * caps, guint size)
{
  (void) self;
  (void) query;
  (void) caps;
  (void) size;
  return FALSE;
}

gboolean
gst_vmafhip_cuda_map (GstVmafHip * self, int which, GstBuffer * buf,
    GstVideoFrame * frame, VhPicture * pic, gboolean * mapped)
{
  (void) self;
  (void) which;
  (void) buf;
  (void) frame;
  (void) pic;
  *mapped = FALSE;
  return TRUE;
}

gboolean
gst_vmafhip_cuda_map_side (GstVmafHip * self, Side * side,
    const VhEngine * engine, gboolean reads_chroma, GstBuffer * buf,
    GstVideoFrame * frame, VhPicture * pic, gboolean * mapped)
{
  (void) self;
  (void) side;
  (void) engine;
  (void) reads_chroma;
  (void) buf;
  (void) frame;
  (void) pic;
  *mapped = FALSE;
  return TRUE;
}

void
gst_vmafhip_cuda_clear (GstVmafHip * self)
{
  (void) self;
}

#endif
