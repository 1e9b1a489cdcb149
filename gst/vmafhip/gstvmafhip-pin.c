/* vmafhip — frames copied into pinned host memory in upstream's thread.
 *
 * With the GPU backend, a frame in ordinary memory is copied, as it
 * arrives on a sink pad (ref_sink, dist_sink, dist_sink_%u), into a
 * buffer of pinned memory, in a pad probe: so in the thread that just
 * wrote it (the cache still holds it), each pad's copies in a thread of
 * its own, and the GPU then uploads the frame by DMA straight from that
 * buffer, without the backend's staging copy.  (The aggregator's clip
 * function would run in its own thread: GstAggregator clips when it peeks
 * at a pad's buffer.)  Each pad keeps its pool (qdata), used by its
 * streaming thread alone; the distorted pads copy the luma alone where no
 * feature reads chroma (those frames are never pushed downstream).  Frames
 * already in pinned, CUDA or dmabuf memory, and formats the backend stages
 * anyway (interleaved chroma it reads, P010), go as they are.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhippool.h"
#include "stage-copy.h"

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* A pad's pinned copies: the pool and what its frames look like */
typedef struct
{
  GstCaps *caps;                /* what info and usable were made from */
  GstVideoInfo info;
  gboolean usable;              /* planes the GPU reads as they are */
  GstBufferPool *pool;
  gsize size;
} PadPin;

static GQuark
pin_quark (void)
{
  static GQuark quark;
  if (!quark)
    quark = g_quark_from_static_string ("vmafhip-pad-pin");
  return quark;
}

static void
pad_pin_free (gpointer data)
{
  PadPin *pin = data;
  if (pin->pool) {
    gst_buffer_pool_set_active (pin->pool, FALSE);
    gst_object_unref (pin->pool);
  }
  gst_clear_caps (&pin->caps);
  g_free (pin);
}

/* A plain pool (no metas of its own: the frame's are copied) of pinned
 * buffers of `size` bytes. */
static GstBufferPool *
pinned_frame_pool_new (GstVmafHip * self, gsize size)
{
  GError *error = NULL;
  GstAllocator *allocator = gst_vmafhip_pinned_allocator_new (self->gpu,
      &error);
  if (!allocator) {
    GST_WARNING_OBJECT (self, "no pinned memory: %s", error->message);
    g_clear_error (&error);
    return NULL;
  }
  GstBufferPool *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (pool);
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  gst_buffer_pool_config_set_params (config, NULL, (guint) size, 0, 0);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  gst_object_unref (allocator);
  if (!gst_buffer_pool_set_config (pool, config)
      || !gst_buffer_pool_set_active (pool, TRUE)) {
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}

/* The bytes of a frame up to the end of its luma plane */
static gsize
luma_end (const GstVideoInfo * info, GstBuffer * buf)
{
  const GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  const gsize end = meta
      ? meta->offset[0] + (gsize) meta->stride[0] * meta->height
      : GST_VIDEO_INFO_PLANE_OFFSET (info, 0)
      + (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, 0)
      * GST_VIDEO_INFO_COMP_HEIGHT (info, 0);
  return MIN (end, gst_buffer_get_size (buf));
}

/* buf copied (its first copy_size bytes, all its metadata) into a buffer
 * of pin's pool, made or remade for buf's size; buf itself where it is
 * not one block of ordinary memory of at least a frame, or no pinned
 * buffer is to be had.  Takes buf. */
static GstBuffer *
pin_copy (GstVmafHip * self, PadPin * pin, gsize copy_size, GstBuffer * buf)
{
  if (gst_buffer_n_memory (buf) != 1)
    return buf;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  /* ordinary memory only: not pinned already, not CUDA, not dmabuf */
  if (!gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM))
    return buf;
  const gsize size = gst_buffer_get_size (buf);
  if (size < GST_VIDEO_INFO_SIZE (&pin->info))
    return buf;
  if (pin->pool && pin->size != size) {
    gst_buffer_pool_set_active (pin->pool, FALSE);
    gst_clear_object (&pin->pool);
  }
  if (!pin->pool) {
    pin->pool = pinned_frame_pool_new (self, size);
    pin->size = size;
    if (!pin->pool) {
      g_atomic_int_set (&self->pin_upstream, FALSE);
      return buf;
    }
  }

  GstBuffer *pinned = NULL;
  GstMapInfo in, out;
  if (gst_buffer_pool_acquire_buffer (pin->pool, &pinned, NULL) != GST_FLOW_OK)
    return buf;
  if (!gst_buffer_map (buf, &in, GST_MAP_READ)) {
    gst_buffer_unref (pinned);
    return buf;
  }
  if (!gst_buffer_map (pinned, &out, GST_MAP_WRITE)) {
    gst_buffer_unmap (buf, &in);
    gst_buffer_unref (pinned);
    return buf;
  }
  vh_stream_copy (out.data, in.data, copy_size);
  vh_stream_fence ();
  gst_buffer_unmap (pinned, &out);
  gst_buffer_unmap (buf, &in);
  gst_buffer_copy_into (pinned, buf, GST_BUFFER_COPY_METADATA, 0, -1);
  gst_buffer_unref (buf);
  return pinned;
}

static GstPadProbeReturn
pin_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstVmafHip *self = data;
  /* (use_gpu and reads_chroma are set at start, before any frame) */
  if (!self->use_gpu || !g_atomic_int_get (&self->pin_upstream))
    return GST_PAD_PROBE_OK;
  PadPin *pin = g_object_get_qdata (G_OBJECT (pad), pin_quark ());
  if (!pin) {
    pin = g_new0 (PadPin, 1);
    g_object_set_qdata_full (G_OBJECT (pad), pin_quark (), pin,
        pad_pin_free);
  }
  /* the pad's caps, as the frame came (the element's own view of them is
   * updated in its thread) */
  GstCaps *caps = gst_pad_get_current_caps (pad);
  if (!caps)
    return GST_PAD_PROBE_OK;
  if (caps != pin->caps) {
    gst_caps_replace (&pin->caps, caps);
    pin->usable = gst_video_info_from_caps (&pin->info, caps)
        && gst_vmafhip_info_read_as_is (self, &pin->info, self->reads_chroma);
  }
  gst_caps_unref (caps);
  if (!pin->usable)
    return GST_PAD_PROBE_OK;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const gboolean whole = pad == GST_PAD (self->side[REF].pad)
      || self->reads_chroma;
  GST_PAD_PROBE_INFO_DATA (info) = pin_copy (self, pin, whole
      ? gst_buffer_get_size (buf) : luma_end (&pin->info, buf), buf);
  return GST_PAD_PROBE_OK;
}

void
gst_vmafhip_pin_on_pad (GstVmafHip * self, GstPad * pad)
{
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, pin_probe, self, NULL);
}

void
gst_vmafhip_pins_clear (GstVmafHip * self)
{
  GstIterator *it = gst_element_iterate_sink_pads (GST_ELEMENT (self));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    g_object_set_qdata (g_value_get_object (&item), pin_quark (), NULL);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
}
