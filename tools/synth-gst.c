/* vmafhip — synthetic frame pairs as GStreamer buffers (vh-synth-gst.h). */
#include "vh-synth-gst.h"

#include <string.h>

#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include "vh-synth.h"

void
vh_synth_gst_frames (unsigned w, unsigned h, unsigned n, GstBuffer **frames[2])
{
  VhSynth *synth = vh_synth_new (w, h, 8, VH_SYNTH_420, 3);
  GstVideoInfo info;
  /* GStreamer's own I420 layout (rows padded to 4 bytes, odd sizes'
   * chroma rounded up), so that any size matches its caps */
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, w, h);
  for (unsigned i = 0; i < n; i++) {
    VhPicture pic[2];
    vh_synth_render (synth, i, 3, &pic[0], &pic[1]);
    for (int k = 0; k < 2; k++) {
      GstBuffer *buf = gst_buffer_new_allocate (NULL, info.size, NULL);
      GstVideoFrame frame;
      gst_buffer_memset (buf, 0, 0, info.size);
      gst_video_frame_map (&frame, &info, buf, GST_MAP_WRITE);
      for (unsigned p = 0; p < 3; p++) {
        const VhPlane *src = &pic[k].plane[p];
        const guint rows = MIN (src->height,
            (guint) GST_VIDEO_FRAME_COMP_HEIGHT (&frame, p));
        const guint cols = MIN (src->width,
            (guint) GST_VIDEO_FRAME_COMP_WIDTH (&frame, p));
        for (guint y = 0; y < rows; y++)
          memcpy ((guint8 *) GST_VIDEO_FRAME_COMP_DATA (&frame, p)
              + (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (&frame, p),
              (const guint8 *) src->data + (gsize) y * src->stride, cols);
      }
      gst_video_frame_unmap (&frame);
      frames[k][i] = buf;
    }
  }
  vh_synth_free (synth);
}

gint64
vh_synth_gst_push (GstElement *const *src, GstBuffer **const *frames,
    unsigned n_src, unsigned distinct, gint64 n_frames)
{
  const GstClockTime dur = GST_SECOND / 60;
  gint64 f = 0;
  gboolean ok = TRUE;
  for (; f < n_frames && ok; f++)
    for (unsigned k = 0; k < n_src && ok; k++) {
      GstBuffer *b = gst_buffer_copy (frames[k][f % distinct]);
      GST_BUFFER_PTS (b) = (GstClockTime) f * dur;
      GST_BUFFER_DURATION (b) = dur;
      ok = gst_app_src_push_buffer (GST_APP_SRC (src[k]), b) == GST_FLOW_OK;
    }
  for (unsigned k = 0; k < n_src; k++)
    gst_app_src_end_of_stream (GST_APP_SRC (src[k]));
  return ok ? f : f - 1;
}
