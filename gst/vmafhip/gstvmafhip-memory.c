/* vmafhip — frames in memory: plane access for the engine, and caps
 * features. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"
#include "gstvmafhippool.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug


GstCaps *
gst_vmafhip_caps_drop_feature (GstCaps * caps, const char *feature)
{
  caps = gst_caps_make_writable (caps);
  for (guint i = gst_caps_get_size (caps); i-- > 0;) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    if (f && gst_caps_features_contains (f, feature))
      gst_caps_remove_structure (caps, i);
  }
  return caps;
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

/* Whether the GPU may read this frame's planes in place after push
 * returns (VhPicture.held): every byte in the element's own pinned memory
 * (what upstream wrote through the allocator or the pool offered above:
 * the pool grows, so holding a few more buffers never stalls upstream),
 * read as they are (not through P010's shifted copy, which the next frame
 * overwrites).  The caller then keeps the buffer until the frame's scores
 * are final. */
gboolean
gst_vmafhip_can_hold (GstVmafHip * self, int which, GstBuffer * buf,
    const VhPicture * pic)
{
  const guint n = gst_buffer_n_memory (buf);
  if (!self->use_gpu || pic->memory != VH_PICTURE_HOST || n == 0
      || !gst_vmafhip_planes_read_as_is (self, which))
    return FALSE;
  for (guint i = 0; i < n; i++)
    if (!gst_memory_is_type (gst_buffer_peek_memory (buf, i),
            GST_VMAFHIP_PINNED_MEMORY_TYPE))
      return FALSE;
  return TRUE;
}
