/* vmafhip — when a frame is: a buffer's running time in its pad's
 * segment, and jumps in a pad's timeline (a live source that restarts, a
 * new segment, timestamps that leap).  Frames are paired by running time,
 * so a jump on one pad moves every later frame of it against the other
 * pads'.  A jump is a frame whose running time is more than JUMP_FRAMES
 * frames after the one expected from the frame before it, or more than a
 * frame before it (a live encoder's dropped frames are not jumps: they
 * leave a short gap, and pairing by time already counts them).
 *
 * Every sink pad (ref_sink, dist_sink, each dist_sink_%u) has a timeline
 * of its own, kept on the pad: frames are checked as they reach the head
 * of their pad (clip), and a jump is said there (with align=auto an INFO
 * message: the lag is searched again; otherwise a warning naming the pad:
 * frames are paired by their running time again from there, those in a
 * gap counted as unpaired).  Whoever pairs the pad's frames takes the jump
 * (gst_vmafhip_timeline_take_jump) and searches its lag again, or forgets
 * the frame on screen. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* half a second at 25 fps: longer than the gaps of dropped frames */
#define JUMP_FRAMES 12

typedef struct
{
  GstClockTime next;            /* the next frame's running time, expected */
  gint jumped;                  /* (atomic) a jump not taken yet */
} Timeline;

static GQuark
timeline_quark (void)
{
  return g_quark_from_static_string ("vmafhip-timeline");
}

GstClockTime
gst_vmafhip_buffer_running_time (GstAggregatorPad * pad, GstBuffer * buf)
{
  GstClockTime rt = GST_CLOCK_TIME_NONE;

  if (!GST_BUFFER_PTS_IS_VALID (buf))
    return rt;
  GST_OBJECT_LOCK (pad);
  if (pad->segment.format == GST_FORMAT_TIME)
    rt = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));
  GST_OBJECT_UNLOCK (pad);
  return rt;
}

void
gst_vmafhip_timeline_forget (GstAggregatorPad * pad)
{
  g_object_set_qdata (G_OBJECT (pad), timeline_quark (), NULL);
}

void
gst_vmafhip_timeline_reset (GstVmafHip * self)
{
  GST_OBJECT_LOCK (self);
  for (GList * l = GST_ELEMENT (self)->sinkpads; l; l = l->next)
    gst_vmafhip_timeline_forget (l->data);
  GST_OBJECT_UNLOCK (self);
}

gboolean
gst_vmafhip_timeline_take_jump (GstAggregatorPad * pad)
{
  Timeline *tl = g_object_get_qdata (G_OBJECT (pad), timeline_quark ());
  return tl && g_atomic_int_compare_and_exchange (&tl->jumped, TRUE, FALSE);
}

/* Whether a frame at rt is a jump from *next, the running time its pad's
 * frame before leads to expect (updated); *jump how far */
static gboolean
is_jump (GstVmafHip * self, GstClockTime * next, GstBuffer * buf,
    GstClockTime rt, GstClockTimeDiff * jump)
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
gst_vmafhip_timeline_check (GstVmafHip * self, GstAggregatorPad * pad,
    GstBuffer * buf, GstClockTime rt)
{
  const char *name = GST_PAD_NAME (pad);
  Timeline *tl = g_object_get_qdata (G_OBJECT (pad), timeline_quark ());
  GstClockTimeDiff jump = 0;

  if (!tl) {
    tl = g_new0 (Timeline, 1);
    tl->next = GST_CLOCK_TIME_NONE;
    g_object_set_qdata_full (G_OBJECT (pad), timeline_quark (), tl, g_free);
  }
  if (!is_jump (self, &tl->next, buf, rt, &jump))
    return;
  if (self->cfg.align == GST_VMAFHIP_ALIGN_AUTO) {
    GST_ELEMENT_INFO (self, STREAM, FAILED,
        ("%s jumped by %" GST_STIME_FORMAT " at %" GST_TIME_FORMAT
            ": align=auto searches the lag again.", name,
            GST_STIME_ARGS (jump), GST_TIME_ARGS (rt)), ("%s", name));
  } else {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("%s jumped by %" GST_STIME_FORMAT " at %" GST_TIME_FORMAT
            " (a restarted source or a new segment): frames are paired by "
            "running time again from here, so if the other pads did not "
            "jump with it the frames between are unpaired, or every frame "
            "from here is. align=auto finds the feeds' new lag.", name,
            GST_STIME_ARGS (jump), GST_TIME_ARGS (rt)), ("%s", name));
  }
  g_atomic_int_set (&tl->jumped, TRUE);
}
