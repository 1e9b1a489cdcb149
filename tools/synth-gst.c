/* vmafhip — synthetic frame pairs as GStreamer buffers (vh-synth-gst.h). */
#include "vh-synth-gst.h"

#include <string.h>

#include "vh-synth.h"

void
vh_synth_gst_frames (unsigned w, unsigned h, unsigned n, GstBuffer **frames[2])
{
  VhSynth *synth = vh_synth_new (w, h, 8, VH_SYNTH_420, 3);
  for (unsigned i = 0; i < n; i++) {
    VhPicture pic[2];
    vh_synth_render (synth, i, 3, &pic[0], &pic[1]);
    for (int k = 0; k < 2; k++) {
      gsize total = 0;
      for (unsigned p = 0; p < 3; p++)
        total += (gsize) pic[k].plane[p].width * pic[k].plane[p].height;
      GstBuffer *buf = gst_buffer_new_allocate (NULL, total, NULL);
      GstMapInfo map;
      gst_buffer_map (buf, &map, GST_MAP_WRITE);
      guint8 *o = map.data;
      for (unsigned p = 0; p < 3; p++) {
        const gsize bytes = (gsize) pic[k].plane[p].width
            * pic[k].plane[p].height;
        memcpy (o, pic[k].plane[p].data, bytes);
        o += bytes;
      }
      gst_buffer_unmap (buf, &map);
      frames[k][i] = buf;
    }
  }
  vh_synth_free (synth);
}
