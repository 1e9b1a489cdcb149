/* vmafhip — synthetic frame pairs as GStreamer buffers, for the programs
 * that feed the element from memory (vmafhip-element-bench, vmafhip-soak). */
#ifndef VH_SYNTH_GST_H
#define VH_SYNTH_GST_H

#include <gst/gst.h>

/* n pre-rendered pairs of packed 8-bit I420 w x h pictures (vh_synth, seed
 * 3, strength 3): frames[0][i] the reference, frames[1][i] the distorted. */
void vh_synth_gst_frames (unsigned w, unsigned h, unsigned n,
    GstBuffer **frames[2]);

#endif
