/* vmafhip — synthetic frame pairs as GStreamer buffers, for the programs
 * that feed the element from memory (vmafhip-element-bench, vmafhip-soak):
 * the frames, and the loop that pushes them. */
#ifndef VH_SYNTH_GST_H
#define VH_SYNTH_GST_H

#include <gst/gst.h>

/* n pre-rendered pairs of packed 8-bit I420 w x h pictures (vh_synth, seed
 * 3, strength 3): frames[0][i] the reference, frames[1][i] the distorted. */
void vh_synth_gst_frames (unsigned w, unsigned h, unsigned n,
    GstBuffer **frames[2]);

/* Feeds n_src appsrc elements from this thread, frame after frame until
 * n_frames (each source's buffers frames[k][0..distinct-1] in turn, as
 * copies sharing their memory, 60 fps timestamps), then EOS on every
 * source.  Returns the number of frames pushed to all sources (less than
 * n_frames where a push failed). */
gint64 vh_synth_gst_push (GstElement *const *src, GstBuffer **const *frames,
    unsigned n_src, unsigned distinct, gint64 n_frames);

#endif
