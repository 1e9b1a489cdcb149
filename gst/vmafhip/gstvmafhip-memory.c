/* vmafhip — the element's memory paths: allocation offered upstream and
 * plane access for the engine. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhippool.h"
#include "stage-copy.h"

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug


/* With the GPU backend, upstream is offered a pool (and an allocator) of
 * pinned host memory: frames written there are uploaded by DMA straight
 * from the buffer, without the backend's staging copy. Upstream may ignore
 * the offer; any other memory is uploaded through that copy. On the CPU
 * there is nothing to gain: no pool, as before. */
gboolean
gst_vmafhip_propose_allocation (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * decide_query, GstQuery * query)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  GstCaps *caps = NULL;
  gboolean need_pool = FALSE;
  GstVideoInfo info;

  (void) decide_query;
  /* we read any stride and offset through gst_video_frame_map */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  /* use_gpu and gpu are set at start(), before any pad is active */
  if (!self->use_gpu)
    return TRUE;
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return TRUE;
  if (gst_vmafhip_caps_are_dmabuf (caps))
    return TRUE;                /* upstream brings its dmabufs */
  if (gst_vmafhip_cuda_propose_allocation (self, query, caps,
          (guint) GST_VIDEO_INFO_SIZE (&info)))
    return TRUE;

  GError *error = NULL;
  GstAllocator *allocator = gst_vmafhip_pinned_allocator_new (self->gpu,
      &error);
  if (!allocator) {
    GST_WARNING_OBJECT (pad, "no pinned pool offered: %s", error->message);
    g_clear_error (&error);
    return TRUE;
  }
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  gst_query_add_allocation_param (query, allocator, &params);
  if (need_pool) {
    /* no minimum: the pool grows to what the queues hold, and stays */
    GstBufferPool *pool = gst_vmafhip_pinned_pool_new (allocator, caps,
        (guint) GST_VIDEO_INFO_SIZE (&info), 0, 0);
    if (pool) {
      gst_query_add_allocation_pool (query, pool,
          (guint) GST_VIDEO_INFO_SIZE (&info), 0, 0);
      gst_object_unref (pool);
    }
  }
  GST_DEBUG_OBJECT (pad, "offered pinned host memory%s for %" GST_PTR_FORMAT,
      need_pool ? " and a pool" : "", caps);
  gst_object_unref (allocator);
  return TRUE;
}



/* First sample of component c. GStreamer 1.22 gives P010's V a byte offset
 * of 1 within the shared UV plane, but its samples are 16-bit words and V
 * starts at byte 2 (as videoconvert writes it): round up to a whole sample
 * (a no-op where the offset is already right). */
static const guint8 *
comp_data (const GstVideoFrame * frame, guint c, guint bytes)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const guint offset = GST_ROUND_UP_N (GST_VIDEO_FORMAT_INFO_POFFSET (finfo,
          c), bytes);

  return (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame,
      GST_VIDEO_FORMAT_INFO_PLANE (finfo, c)) + offset;
}

/* Describes one mapped frame to the engine: plane views, no copies (except
 * the shift of MSB-aligned formats such as P010). */
void
gst_vmafhip_fill_picture (GstVmafHip * self, int which, GstVideoFrame * frame,
    VhPicture * pic)
{
  gst_vmafhip_fill_side_picture (self, &self->side[which], frame, pic);
}

void
gst_vmafhip_fill_side_picture (GstVmafHip * self, Side * side,
    GstVideoFrame * frame, VhPicture * pic)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const unsigned bpc = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  const unsigned bytes = bpc > 8 ? 2 : 1;

  memset (pic, 0, sizeof *pic);
  pic->bpc = bpc;
  pic->nplanes = self->luma_only ? 1 : 3;
  for (unsigned c = 0; c < pic->nplanes; c++) {
    VhPlane *pl = &pic->plane[c];
    const unsigned shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c);

    pl->data = comp_data (frame, c, bytes);
    pl->stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, c);
    pl->width = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    pl->height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
    pl->step = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c) / bytes;
    if (shift && side->staging[c]) {
      guint16 *dst = side->staging[c];
      for (unsigned y = 0; y < pl->height; y++) {
        const guint16 *src = (const guint16 *) ((const guint8 *) pl->data
            + (gsize) y * pl->stride);
        for (unsigned x = 0; x < pl->width; x++)
          dst[(gsize) y * pl->width + x] =
              GUINT16_FROM_LE (src[(gsize) x * pl->step]) >> shift;
      }
      pl->data = dst;
      pl->stride = (ptrdiff_t) pl->width * 2;
      pl->step = 1;
    }
    GST_LOG_OBJECT (self, "%s plane %u: %ux%u stride %td step %u",
        side->pad ? GST_PAD_NAME (side->pad) : "?", c, pl->width, pl->height,
        pl->stride, pl->step);
  }
}


gboolean
gst_vmafhip_planes_read_as_is (GstVmafHip * self, int which)
{
  return gst_vmafhip_info_read_as_is (self, &self->side[which].info,
      self->reads_chroma);
}

gboolean
gst_vmafhip_info_read_as_is (GstVmafHip * self, const GstVideoInfo * info,
    gboolean reads_chroma)
{
  const guint n = self->luma_only || !reads_chroma ? 1
      : GST_VIDEO_INFO_N_COMPONENTS (info);
  const guint bytes = GST_VIDEO_INFO_COMP_DEPTH (info, 0) > 8 ? 2 : 1;
  for (guint c = 0; c < n; c++)
    if (GST_VIDEO_INFO_COMP_PSTRIDE (info, c) != (gint) bytes
        || GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, c))
      return FALSE;
  return TRUE;
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

/* How much of an incoming frame its pinned copy needs: all of it, except
 * for the distorted frame where nothing reads chroma: that frame is never
 * pushed downstream, so its chroma (a third of a 4:2:0 frame) is not
 * copied at all. */
static gsize
pinned_copy_size (GstVmafHip * self, int which, GstBuffer * buf)
{
  const GstVideoInfo *info = &self->side[which].info;
  const gsize size = gst_buffer_get_size (buf);
  if (which != DIST || !(self->luma_only || !self->reads_chroma))
    return size;
  const GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
  const gsize luma_end = meta
      ? meta->offset[0] + (gsize) meta->stride[0] * meta->height
      : GST_VIDEO_INFO_PLANE_OFFSET (info, 0)
      + (gsize) GST_VIDEO_INFO_PLANE_STRIDE (info, 0)
      * GST_VIDEO_INFO_COMP_HEIGHT (info, 0);
  return MIN (luma_end, size);
}

/* Called from clip, which GstAggregator runs when it first peeks at a
 * pad's buffer: in the element's streaming thread (a probe that copied in
 * upstream's thread was measured and not kept, docs/element.md).  The
 * backend's own staging copy (in its threads) is then skipped. */
GstBuffer *
gst_vmafhip_pin_frame (GstVmafHip * self, int which, GstBuffer * buf)
{
  Side *side = &self->side[which];
  /* frames the backend stages anyway (interleaved chroma it reads, P010's
   * shifted samples) gain nothing from a pinned copy */
  if (!self->use_gpu || !self->pin_upstream || !side->have_info
      || gst_buffer_n_memory (buf) != 1
      || !gst_vmafhip_planes_read_as_is (self, which))
    return buf;
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  /* ordinary memory only: not pinned already, not CUDA, not dmabuf */
  if (!gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM))
    return buf;
  const gsize size = gst_buffer_get_size (buf);
  if (size < GST_VIDEO_INFO_SIZE (&side->info))
    return buf;
  if (side->pinned_pool && side->pinned_size != size) {
    gst_buffer_pool_set_active (side->pinned_pool, FALSE);
    gst_clear_object (&side->pinned_pool);
  }
  if (!side->pinned_pool) {
    side->pinned_pool = pinned_frame_pool_new (self, size);
    side->pinned_size = size;
    if (!side->pinned_pool) {
      self->pin_upstream = FALSE;
      return buf;
    }
  }

  GstBuffer *pinned = NULL;
  GstMapInfo in, out;
  if (gst_buffer_pool_acquire_buffer (side->pinned_pool, &pinned, NULL)
      != GST_FLOW_OK)
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
  vh_stream_copy (out.data, in.data, pinned_copy_size (self, which, buf));
  vh_stream_fence ();
  gst_buffer_unmap (pinned, &out);
  gst_buffer_unmap (buf, &in);
  gst_buffer_copy_into (pinned, buf, GST_BUFFER_COPY_METADATA, 0, -1);
  gst_buffer_unref (buf);
  return pinned;
}
