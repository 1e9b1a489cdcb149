/* vmafhip — a jump in ref_sink's or dist_sink's timeline (a live source
 * that restarts, a new segment, timestamps that leap): frames are paired
 * by running time, so a jump on one pad moves every later frame of it
 * against the other pad's.  A jump is a frame whose running time is more
 * than JUMP_FRAMES frames after the one expected from the frame before
 * it, or more than a frame before it (a live encoder's dropped frames are
 * not jumps: they leave a short gap, and pairing by time already counts
 * them).  With align=auto the lag is searched again; otherwise a warning
 * names the pad and the jump, and frames are paired by their running time
 * again from there (the frames in a gap counted as unpaired).  A
 * rendition's jump is said and handled the same way, for its own lag. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* half a second at 25 fps: longer than the gaps of dropped frames */
#define JUMP_FRAMES 12

void
gst_vmafhip_timeline_reset (GstVmafHip * self)
{
  for (int i = 0; i < 2; i++)
    self->timeline_next[i] = GST_CLOCK_TIME_NONE;
}

gboolean
gst_vmafhip_timeline_jump (GstVmafHip * self, GstClockTime * next,
    GstBuffer * buf, GstClockTime rt, GstClockTimeDiff * jump)
{
  GstClockTime frame = GST_BUFFER_DURATION_IS_VALID (buf)
      && GST_BUFFER_DURATION (buf) > 0 ? GST_BUFFER_DURATION (buf)
      : self->frame_duration;

  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return FALSE;
  if (!GST_CLOCK_TIME_IS_VALID (frame) || frame == 0)
    frame = GST_SECOND / 25;
  const GstClockTime expected = *next;
  *next = rt + frame;
  if (!GST_CLOCK_TIME_IS_VALID (expected))
    return FALSE;
  *jump = GST_CLOCK_DIFF (expected, rt);
  return *jump > (GstClockTimeDiff) (JUMP_FRAMES * frame)
      || *jump < -(GstClockTimeDiff) frame;
}

void
gst_vmafhip_timeline_said (GstVmafHip * self, const char *pad,
    GstClockTimeDiff jump, GstClockTime rt)
{
  if (self->cfg.align == GST_VMAFHIP_ALIGN_AUTO) {
    GST_ELEMENT_INFO (self, STREAM, FAILED,
        ("%s jumped by %" GST_STIME_FORMAT " at %" GST_TIME_FORMAT
            ": align=auto searches the lag again.", pad,
            GST_STIME_ARGS (jump), GST_TIME_ARGS (rt)), ("%s", pad));
    return;
  }
  GST_ELEMENT_WARNING (self, STREAM, FAILED,
      ("%s jumped by %" GST_STIME_FORMAT " at %" GST_TIME_FORMAT
          " (a restarted source or a new segment): frames are paired by "
          "running time again from here, so if the other pads did not jump "
          "with it the frames between are unpaired, or every frame from "
          "here is. align=auto finds the feeds' new lag.", pad,
          GST_STIME_ARGS (jump), GST_TIME_ARGS (rt)), ("%s", pad));
}

void
gst_vmafhip_timeline_check (GstVmafHip * self, GstAggregatorPad * pad,
    GstBuffer * buf, GstClockTime rt)
{
  const int which = pad == self->side[REF].pad ? REF
      : pad == self->side[DIST].pad ? DIST : -1;
  GstClockTimeDiff jump = 0;

  if (which < 0) {
    gst_vmafhip_renditions_timeline_check (self, pad, buf, rt);
    return;
  }
  if (!gst_vmafhip_timeline_jump (self, &self->timeline_next[which], buf, rt,
          &jump))
    return;
  gst_vmafhip_timeline_said (self, side_name (which), jump, rt);
  if (self->cfg.align == GST_VMAFHIP_ALIGN_AUTO) {
    gst_vmafhip_aligner_restart (&self->dist_stream.align);
    /* the renditions' searches too (gst_vmafhip_renditions_ready) */
    if (which == REF)
      g_atomic_int_set (&self->reference_jumped, TRUE);
  }
  /* following the reference: the frame on screen before the jump is not
   * on screen after it */
  if (which == DIST) {
    gst_clear_buffer (&self->held_dist);
    self->held_dist_used = FALSE;
  }
}
