/* vmafhip — renditions (issue 15): dist_sink_%u request pads, each a
 * distorted stream (an ABR ladder's rung) scored against the same
 * reference frames as dist_sink: each a scored stream of its own
 * (gstvmafhip-stream.c: engine, record, monitor, lag, frame on screen),
 * smaller renditions scaled up by its engine (on the GPU where it scores
 * there).
 *
 * A rendition is paired as dist_sink is (see the pairing section below):
 * a frame with the reference frame of the same running time less the
 * rendition's lag, or, following the reference, the frame on screen.  It
 * is scored when the reference frame is taken (whether dist_sink had a
 * partner for it or not), so the reference is read once per frame for all
 * renditions.  Scores go out as frame messages and a pooled message
 * carrying the pad's name, and to a results file of its own; a
 * rendition's end (EOS, release, error) posts its pooled message, and the
 * other pads keep being scored.
 *
 * Threads: the aggregator's thread takes the renditions' frames and hands
 * each to its rendition's worker (a thread of its own, frames in order),
 * which pushes it into the engine and reports what became final: one
 * element scores its renditions as concurrently as separate elements
 * would, while its thread goes on to the next reference frame.  At most
 * MAX_QUEUED frames wait per rendition (then the aggregator waits: back
 * pressure).  Pads are requested and released from any thread.  The list
 * is used under the renditions' lock; a rendition's engine, frames and
 * results belong to its worker while frames are queued: whoever ends,
 * resets or frees a rendition waits for its queue first (rendition_drain),
 * and workers never take the renditions' lock.  Its pairing state (lag
 * search, frame on screen) is the aggregator thread's. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstvmafhip-private.h"
#include "gstvmafhip-shared-refs.h"
#include "vh-accel.h"
#include "vh-parallel.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* frames queued per rendition before the aggregator waits */
#define MAX_QUEUED 4

struct _GstVmafHipRendition
{
  Side side;                  /* pad, caps, staging (P010) */
  /* its scored stream: engine (from the first frame), record, monitor,
   * counts, the last frame (stands in for a missing one, so that motion
   * sees every reference frame) */
  GstVmafHipStream stream;
  gint done;                  /* (atomic) ended or refused: frames dropped */
  /* rate-mismatch=follow-reference: its EOS came while its last frame is
   * still on screen (aggregator thread, renditions' lock) */
  gboolean ended;
  /* the worker: its thread, and the frames queued for it */
  GThreadPool *worker;
  Side ref_side;              /* the worker's view of the reference (its
                               * own conversion buffers for P010 and the
                               * like) */
  GMutex queue_lock;
  GCond queue_cond;
  guint queued;
};

static void
held_clear (GstVmafHipRendition * r)
{
  gst_vmafhip_on_screen_clear (&r->stream.on_screen);
  r->ended = FALSE;
}

static const char *
rendition_name (const GstVmafHipRendition * r)
{
  return GST_PAD_NAME (r->side.pad);
}

static GstVmafHipRendition *
find (GstVmafHip * self, GstAggregatorPad * pad)
{
  for (guint i = 0; i < self->renditions.list->len; i++) {
    GstVmafHipRendition *r = g_ptr_array_index (self->renditions.list, i);
    if (r->side.pad == pad)
      return r;
  }
  return NULL;
}

gboolean
gst_vmafhip_is_rendition_pad (GstVmafHip * self, GstAggregatorPad * pad)
{
  return pad != self->side[REF].pad && pad != self->side[DIST].pad;
}

/* ------------------------------------------------------------ the pads */

GstAggregatorPad *
gst_vmafhip_rendition_new_pad (GstVmafHip * self, GstPadTemplate * templ,
    const gchar * req_name)
{
  guint serial = 0;
  gchar *name;

  g_mutex_lock (&self->renditions.lock);
  if (req_name && sscanf (req_name, "dist_sink_%u", &serial) == 1) {
    for (guint i = 0; i < self->renditions.list->len; i++) {
      GstVmafHipRendition *r = g_ptr_array_index (self->renditions.list, i);
      if (!strcmp (rendition_name (r), req_name)) {
        g_mutex_unlock (&self->renditions.lock);
        GST_WARNING_OBJECT (self, "%s exists already", req_name);
        return NULL;
      }
    }
    self->renditions.next = MAX (self->renditions.next, serial + 1);
  } else {
    serial = self->renditions.next++;
  }
  name = g_strdup_printf ("dist_sink_%u", serial);
  GstVmafHipRendition *r = g_new0 (GstVmafHipRendition, 1);
  r->side.pad = g_object_new (GST_TYPE_AGGREGATOR_PAD, "name", name,
      "direction", GST_PAD_SINK, "template", templ, NULL);
  g_free (name);
  r->ref_side.pad = self->side[REF].pad;        /* (its name in messages) */
  g_mutex_init (&r->queue_lock);
  g_cond_init (&r->queue_cond);
  gst_vmafhip_stream_init (&r->stream, self, &r->side,
      GST_PAD_NAME (r->side.pad));
  g_ptr_array_add (self->renditions.list, r);
  g_mutex_unlock (&self->renditions.lock);
  GST_INFO_OBJECT (self, "rendition %s requested", GST_PAD_NAME (r->side.pad));
  return r->side.pad;
}

static void rendition_finish (GstVmafHip * self, GstVmafHipRendition * r,
    const char *end);
static void rendition_end_segment (GstVmafHip * self,
    GstVmafHipRendition * r, const char *changed_pad,
    const GstVideoInfo * old_info, const GstVideoInfo * new_info);

/* Waits until its worker has done every frame queued for it. */
static void
rendition_drain (GstVmafHipRendition * r)
{
  g_mutex_lock (&r->queue_lock);
  while (r->queued)
    g_cond_wait (&r->queue_cond, &r->queue_lock);
  g_mutex_unlock (&r->queue_lock);
}

static void
rendition_reset (GstVmafHipRendition * r)
{
  rendition_drain (r);
  gst_vmafhip_stream_reset (&r->stream);
  gst_vmafhip_timeline_forget (r->side.pad);
  held_clear (r);
}

static void
rendition_free (GstVmafHipRendition * r)
{
  rendition_reset (r);
  if (r->worker)
    g_thread_pool_free (r->worker, FALSE, TRUE);
  gst_vmafhip_stream_clear (&r->stream);
  gst_vmafhip_side_clear (&r->side);
  gst_vmafhip_side_clear (&r->ref_side);
  g_mutex_clear (&r->queue_lock);
  g_cond_clear (&r->queue_cond);
  g_free (r);
}

void
gst_vmafhip_rendition_release (GstVmafHip * self, GstPad * pad)
{
  g_mutex_lock (&self->renditions.lock);
  GstVmafHipRendition *r = find (self, GST_AGGREGATOR_PAD (pad));
  if (r) {
    g_ptr_array_remove (self->renditions.list, r);
    /* what it scored so far is reported: its pooled message ends it */
    rendition_drain (r);
    rendition_finish (self, r, "released");
    rendition_free (r);
  }
  g_mutex_unlock (&self->renditions.lock);
}

/* ------------------------------------------------------------ checks */

/* Whether the rendition can be scored against the reference: FALSE with
 * a warning naming the pad (the rendition is then left out). */
static gboolean
rendition_check (GstVmafHip * self, GstVmafHipRendition * r)
{
  const GstVideoInfo *ref = &self->side[REF].info;
  const GstVideoInfo *d = &r->side.info;
  const gchar *problem = NULL;
  gchar *detail = NULL;

  if (GST_VIDEO_INFO_COMP_DEPTH (d, 0) != GST_VIDEO_INFO_COMP_DEPTH (ref, 0))
    detail = g_strdup_printf ("its bit depth (%u) is not the reference's "
        "(%u)", GST_VIDEO_INFO_COMP_DEPTH (d, 0),
        GST_VIDEO_INFO_COMP_DEPTH (ref, 0));
  else if (GST_VIDEO_INFO_WIDTH (d) > GST_VIDEO_INFO_WIDTH (ref)
      || GST_VIDEO_INFO_HEIGHT (d) > GST_VIDEO_INFO_HEIGHT (ref))
    detail = g_strdup_printf ("it is %dx%d, larger than the reference's "
        "%dx%d (renditions are scaled up to the reference, never down)",
        GST_VIDEO_INFO_WIDTH (d), GST_VIDEO_INFO_HEIGHT (d),
        GST_VIDEO_INFO_WIDTH (ref), GST_VIDEO_INFO_HEIGHT (ref));
  else if ((GST_VIDEO_INFO_WIDTH (d) != GST_VIDEO_INFO_WIDTH (ref)
          || GST_VIDEO_INFO_HEIGHT (d) != GST_VIDEO_INFO_HEIGHT (ref))
      && self->cfg.scaler == GST_VMAFHIP_SCALER_NONE)
    detail = g_strdup_printf ("it is %dx%d and the reference %dx%d, and "
        "scaler=none", GST_VIDEO_INFO_WIDTH (d), GST_VIDEO_INFO_HEIGHT (d),
        GST_VIDEO_INFO_WIDTH (ref), GST_VIDEO_INFO_HEIGHT (ref));
  else if (!self->luma_only && (GST_VIDEO_INFO_N_COMPONENTS (d) >= 3)
      != (GST_VIDEO_INFO_N_COMPONENTS (ref) >= 3))
    problem = "it has chroma and the reference none, or the other way round";
  else if (self->cfg.rate_mismatch != GST_VMAFHIP_RATE_MISMATCH_FOLLOW_REFERENCE
      && GST_VIDEO_INFO_FPS_N (d) > 0 && GST_VIDEO_INFO_FPS_N (ref) > 0
      && (gint64) GST_VIDEO_INFO_FPS_N (d) * GST_VIDEO_INFO_FPS_D (ref)
      != (gint64) GST_VIDEO_INFO_FPS_N (ref) * GST_VIDEO_INFO_FPS_D (d))
    detail = g_strdup_printf ("its frame rate (%d/%d) is not the "
        "reference's (%d/%d); rate-mismatch=follow-reference scores the "
        "frame on screen at each reference frame", GST_VIDEO_INFO_FPS_N (d),
        GST_VIDEO_INFO_FPS_D (d), GST_VIDEO_INFO_FPS_N (ref),
        GST_VIDEO_INFO_FPS_D (ref));
  /* smaller, not of the reference's aspect ratio, scaler not set */
  if (!problem && !detail)
    detail = gst_vmafhip_scale_refusal (self, d, ref);
  if (!problem && !detail)
    return TRUE;
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("%s is not scored: %s. The other pads are.", rendition_name (r),
          problem ? problem : detail), ("%s: %s", rendition_name (r),
          GST_VIDEO_INFO_NAME (d)));
  g_free (detail);
  return FALSE;
}

gboolean
gst_vmafhip_rendition_caps (GstVmafHip * self, GstAggregatorPad * pad,
    GstCaps * caps)
{
  GstVideoInfo info;

  g_mutex_lock (&self->renditions.lock);
  GstVmafHipRendition *r = find (self, pad);
  if (!r) {
    g_mutex_unlock (&self->renditions.lock);
    return FALSE;
  }
  rendition_drain (r);
  const gboolean parsed = gst_video_info_from_caps (&info, caps);
  if (parsed && r->side.have_info && gst_video_info_is_equal (&info,
          &r->side.info)) {
    /* the same video again (a caps event repeated) */
    g_mutex_unlock (&self->renditions.lock);
    return TRUE;
  }
  /* another video in the middle of the stream: what it scored so far ends
   * a segment; its next frame starts one with a new engine */
  if (parsed && r->side.have_info)
    rendition_end_segment (self, r, rendition_name (r), &r->side.info, &info);
  else if (!parsed)
    rendition_finish (self, r, "error");
  g_clear_pointer (&r->stream.engine, vh_engine_free);
  gst_vmafhip_side_clear (&r->side);
  g_atomic_int_set (&r->done, FALSE);
  if (!parsed) {
    GST_ELEMENT_WARNING (self, CORE, NEGOTIATION,
        ("%s: cannot parse the video caps; it is not scored.",
            rendition_name (r)), ("%" GST_PTR_FORMAT, caps));
    g_atomic_int_set (&r->done, TRUE);
    g_mutex_unlock (&self->renditions.lock);
    return TRUE;
  }
  gst_vmafhip_side_set_info (&r->side, &info);
  /* with the reference known, refused now rather than at its first frame */
  if (self->side[REF].have_info && !rendition_check (self, r))
    g_atomic_int_set (&r->done, TRUE);
  g_mutex_unlock (&self->renditions.lock);
  return TRUE;
}

/* ------------------------------------------------------------ scoring */

/* Its results file: results-filename with the pad's name before the
 * extension (scores.json -> scores.dist_sink_0.json) */
static gchar *
results_path (GstVmafHip * self, GstVmafHipRendition * r)
{
  const gchar *path = self->cfg.results_filename;
  const gchar *base = strrchr (path, '/');
  const gchar *dot = strrchr (base ? base : path, '.');
  if (!dot || dot == (base ? base + 1 : path))
    return g_strdup_printf ("%s.%s", path, rendition_name (r));
  return g_strdup_printf ("%.*s.%s%s", (int) (dot - path), path,
      rendition_name (r), dot);
}

/* Its engine, as dist_sink's (models, features, threads, backend), sized
 * for the reference and scaling the rendition's size up to it */
static gboolean
rendition_engine (GstVmafHip * self, GstVmafHipRendition * r)
{
  GError *error = NULL;

  if (!rendition_check (self, r))
    return FALSE;
  if (self->write_log && !r->stream.record.path)
    r->stream.record.path = results_path (self, r);
  if (!r->stream.watch.self)
    gst_vmafhip_watch_start (self, &r->stream.watch, &r->stream.record);
  if (!(r->stream.engine = gst_vmafhip_new_engine (self, FALSE, &error))
      || !gst_vmafhip_stream_set_video (self, &r->stream, &error)) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("%s is not scored: %s. The other pads are.", rendition_name (r),
            error ? error->message : "no engine"), (NULL));
    g_clear_error (&error);
    g_clear_pointer (&r->stream.engine, vh_engine_free);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "%s: %dx%d scored against the reference's %dx%d",
      rendition_name (r), GST_VIDEO_INFO_WIDTH (&r->side.info),
      GST_VIDEO_INFO_HEIGHT (&r->side.info),
      GST_VIDEO_INFO_WIDTH (&self->side[REF].info),
      GST_VIDEO_INFO_HEIGHT (&self->side[REF].info));
  return TRUE;
}

/* Another video (old_info to new_info) on the rendition's pad or the
 * reference's (changed_pad) in the middle of the stream: what it scored
 * ends a segment (its message and results-file entry); its engine goes,
 * built again for the new video with the next frame.  After
 * rendition_drain. */
static void
rendition_end_segment (GstVmafHip * self, GstVmafHipRendition * r,
    const char *changed_pad, const GstVideoInfo * old_info,
    const GstVideoInfo * new_info)
{
  GError *error = NULL;

  if (!r->stream.engine || vh_engine_n_pushed (r->stream.engine) == 0
      || g_atomic_int_get (&r->done))
    return;
  if (!vh_engine_flush (r->stream.engine, &error)) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("%s: cannot finish the frames scored before the video changed: "
            "%s. They are not scored.", rendition_name (r),
            error->message), (NULL));
    g_clear_error (&error);
  }
  gst_vmafhip_stream_end_segment (self, &r->stream, changed_pad, old_info,
      new_info);  held_clear (r);
}

/* ------------------------------------------------------------ pairing
 *
 * A rendition's frames are paired as dist_sink's are, with a lag of its
 * own (align=offset, or its own align=auto search), following the
 * reference where rate-mismatch=follow-reference.  Two steps per
 * reference frame, on the aggregator thread under the renditions' lock:
 * rendition_prepare, before the reference frame is taken, takes off the
 * pad every frame that comes before it (too early: dropped and counted;
 * searching: into the search; following: the frame on screen) and says
 * whether the pad holds a frame after them or ended, so that the
 * aggregator waits for the rendition's next frame as it waits for
 * dist_sink's; rendition_partner, once the frame is taken, picks its
 * partner (or none). */

static GstClockTime
half_frame (GstVmafHip * self)
{
  return GST_CLOCK_TIME_IS_VALID (self->frame_duration)
      ? self->frame_duration / 2 : GST_MSECOND;
}

/* Following the reference, a frame becomes the one on screen once its own
 * time has (nearly) come: half of the shorter frame */
static GstClockTime
follow_tolerance (GstVmafHip * self, GstVmafHipRendition * r)
{
  GstClockTime tolerance = half_frame (self);
  const GstVideoInfo *d = &r->side.info;

  if (r->side.have_info && GST_VIDEO_INFO_FPS_N (d) > 0)
    tolerance = MIN (tolerance, gst_util_uint64_scale_int (GST_SECOND,
            GST_VIDEO_INFO_FPS_D (d), GST_VIDEO_INFO_FPS_N (d)) / 2);
  return tolerance;
}

static gboolean
following (GstVmafHip * self)
{
  return self->cfg.rate_mismatch == GST_VMAFHIP_RATE_MISMATCH_FOLLOW_REFERENCE;
}

/* A rendition frame's running time less the rendition's lag (*raw: as on
 * its pad); *before: its content comes before the reference's first
 * frame */
static GstClockTime
rendition_time (GstVmafHip * self, GstVmafHipRendition * r, GstBuffer * buf,
    GstClockTime * raw, gboolean * before)
{
  const GstClockTimeDiff shift = gst_vmafhip_stream_shift (self, &r->stream);
  const GstClockTime rt = gst_vmafhip_buffer_running_time (r->side.pad, buf);

  *raw = rt;
  *before = FALSE;
  if (!GST_CLOCK_TIME_IS_VALID (rt) || shift == 0)
    return rt;
  if (shift > 0 && rt < (GstClockTime) shift) {
    *before = TRUE;
    return 0;
  }
  return (GstClockTime) ((GstClockTimeDiff) rt - shift);
}

static void
drop_unpaired (GstVmafHipRendition * r)
{
  gst_buffer_unref (gst_aggregator_pad_pop_buffer (r->side.pad));
  if (!g_atomic_int_get (&r->done))
    gst_vmafhip_stream_count_unpaired (&r->stream);
}

/* A jump in its pad's timeline: align=auto searches its lag again;
 * following the reference, the frame on screen before is not after */
static void
take_jump (GstVmafHip * self, GstVmafHipRendition * r)
{
  if (!gst_vmafhip_timeline_take_jump (r->side.pad))
    return;
  if (self->cfg.align == GST_VMAFHIP_ALIGN_AUTO)
    gst_vmafhip_aligner_restart (&r->stream.align);
  held_clear (r);
}

static gboolean held_covers (GstVmafHip * self, GstVmafHipRendition * r,
    GstClockTime ref_rt);

static gboolean
rendition_prepare (GstVmafHip * self, GstVmafHipRendition * r,
    GstClockTime ref_rt)
{
  const GstClockTime half = half_frame (self);
  GstBuffer *buf;

  /* following the reference, a rendition ends once its last frame is no
   * longer on screen */
  if (r->ended && !held_covers (self, r, ref_rt)) {
    rendition_drain (r);
    rendition_finish (self, r, "eos");
    held_clear (r);
  }

  while ((buf = gst_aggregator_pad_peek_buffer (r->side.pad))) {
    const gboolean done = g_atomic_int_get (&r->done);
    GstClockTime raw;
    gboolean before;

    take_jump (self, r);
    const GstClockTime rt = rendition_time (self, r, buf, &raw, &before);
    gst_buffer_unref (buf);
    if (before) {
      drop_unpaired (r);
      continue;
    }
    /* without timestamps, frames pair in order */
    if (!GST_CLOCK_TIME_IS_VALID (rt) || !GST_CLOCK_TIME_IS_VALID (ref_rt))
      return TRUE;
    if (!done && gst_vmafhip_aligner_searching (&r->stream.align)) {
      /* up to this reference frame, into its search (not counted: nothing
       * is paired while searching); the last one stands in for missing
       * partners meanwhile, so that motion sees every reference frame */
      if (rt > ref_rt + half)
        return TRUE;
      buf = gst_aggregator_pad_pop_buffer (r->side.pad);
      if (GST_CLOCK_TIME_IS_VALID (self->frame_duration))
        gst_vmafhip_aligner_add (&r->stream.align, DIST, buf, raw);
      gst_buffer_replace (&r->stream.last_frame, buf);
      gst_buffer_unref (buf);
      continue;
    }
    if (!done && following (self)) {
      if (rt > ref_rt + follow_tolerance (self, r))
        return TRUE;
      /* shown at or before the reference frame: the one on screen now
       * (the one it replaces was paired already, or skipped) */
      if (gst_vmafhip_on_screen_show (&r->stream.on_screen,
              gst_aggregator_pad_pop_buffer (r->side.pad), rt,
              2 * follow_tolerance (self, r)))
        gst_vmafhip_stream_count_unpaired (&r->stream);
      continue;
    }
    if (rt + half >= ref_rt)
      return TRUE;
    /* its reference frame is gone (a repeated, extra or late frame) */
    drop_unpaired (r);
  }
  return gst_aggregator_pad_is_eos (r->side.pad)
      || gst_aggregator_pad_is_inactive (r->side.pad);
}

gboolean
gst_vmafhip_renditions_ready (GstVmafHip * self, GstClockTime ref_rt,
    gboolean timeout, gboolean reference_jumped)
{
  gboolean ready = TRUE;

  g_mutex_lock (&self->renditions.lock);
  /* the reference jumped: each rendition's lag is searched again */
  if (reference_jumped && self->cfg.align == GST_VMAFHIP_ALIGN_AUTO)
    for (guint i = 0; i < self->renditions.list->len; i++)
      gst_vmafhip_aligner_restart (&((GstVmafHipRendition *)
              g_ptr_array_index (self->renditions.list, i))->stream.align);
  for (guint i = 0; i < self->renditions.list->len; i++)
    ready &= rendition_prepare (self, g_ptr_array_index (self->renditions.list, i),
        ref_rt);
  g_mutex_unlock (&self->renditions.lock);
  /* live, past the deadline: the reference goes on without them */
  return ready || timeout;
}

/* Whether its frame on screen (following the reference) is still shown at
 * ref_rt */
static gboolean
held_covers (GstVmafHip * self, GstVmafHipRendition * r, GstClockTime ref_rt)
{
  return gst_vmafhip_on_screen_covers (&r->stream.on_screen, ref_rt,
      follow_tolerance (self, r));
}

/* The rendition's frame paired with the reference frame `ref` (taken, at
 * running time ref_rt), or NULL.  A done rendition drops its partner
 * instead, so that its pad keeps pace with the others. */
static GstBuffer *
rendition_partner (GstVmafHip * self, GstVmafHipRendition * r,
    GstBuffer * ref, GstClockTime ref_rt)
{
  const gboolean done = g_atomic_int_get (&r->done);
  GstClockTime raw;
  gboolean before;

  if (!done && gst_vmafhip_aligner_searching (&r->stream.align)) {
    if (GST_CLOCK_TIME_IS_VALID (self->frame_duration))
      gst_vmafhip_aligner_add (&r->stream.align, REF, ref, ref_rt);
    return NULL;
  }
  if (!done && following (self) && GST_CLOCK_TIME_IS_VALID (ref_rt)) {
    if (!held_covers (self, r, ref_rt))
      return NULL;
    r->stream.on_screen.used = TRUE;
    return gst_buffer_ref (r->stream.on_screen.buf);
  }
  GstBuffer *buf = gst_aggregator_pad_peek_buffer (r->side.pad);
  if (!buf)
    return NULL;
  const GstClockTime rt = rendition_time (self, r, buf, &raw, &before);
  gst_buffer_unref (buf);
  if (before || (GST_CLOCK_TIME_IS_VALID (rt)
          && GST_CLOCK_TIME_IS_VALID (ref_rt)
          && (guint64) ABS (GST_CLOCK_DIFF (ref_rt, rt)) > half_frame (self)))
    return NULL;
  buf = gst_aggregator_pad_pop_buffer (r->side.pad);
  if (done)
    gst_clear_buffer (&buf);
  return buf;
}

/* align=auto, locked: the pair sampled for its re-checks */
static void
rendition_observe (GstVmafHip * self, GstVmafHipRendition * r,
    GstBuffer * ref, GstClockTime ref_rt, GstBuffer * partner)
{
  if (self->cfg.align != GST_VMAFHIP_ALIGN_AUTO)
    return;
  gst_vmafhip_aligner_observe (&r->stream.align, REF, ref, ref_rt);
  if (partner)
    gst_vmafhip_aligner_observe (&r->stream.align, DIST, partner,
        gst_vmafhip_buffer_running_time (r->side.pad, partner));
}

/* One frame of one rendition, for its worker */
typedef struct
{
  GstVmafHip *self;
  GstVmafHipRendition *r;
  GstBuffer *ref;             /* the reference frame (a reference held) */
  GstVmafHipSharedRef *shared;          /* the same in GPU memory, or NULL */
  GstBuffer *buf;             /* the rendition's frame */
  GstVmafHipFrameTimes t;     /* the reference frame's times */
  gboolean stand_in;          /* no partner: buf stands in (for motion) */
} RenditionJob;

/* An engine whose every feature runs on the GPU takes the reference from
 * GPU memory */
static gboolean
takes_gpu_reference (const GstVmafHipRendition * r)
{
  return vh_engine_is_accelerated (r->stream.engine)
      && vh_engine_all_accelerated (r->stream.engine);
}

/* The worker: pushes one frame into the engine, reports what became
 * final; a failure ends the rendition (the other pads go on) */
/* A frame of `side` read by the rendition's engine: in GPU memory where
 * it is (CUDA memory from nvh264dec, cudaupload; gstvmafhip-cuda.c),
 * else mapped in host memory.  FALSE: it cannot be read. */
static gboolean
map_frame (GstVmafHip * self, GstVmafHipRendition * r, Side * side,
    gboolean in_place, GstBuffer * buf, GstVideoFrame * frame,
    VhPicture * pic)
{
  gboolean mapped = FALSE;
  if (in_place && !gst_vmafhip_cuda_map_side (self, side, r->stream.engine,
          vh_engine_needs_chroma (r->stream.engine), buf, frame, pic, &mapped))
    return FALSE;
  if (mapped)
    return TRUE;
  if (!gst_video_frame_map (frame, &side->info, buf, GST_MAP_READ))
    return FALSE;
  gst_vmafhip_fill_side_picture (self, side, frame, pic);
  return TRUE;
}

static void
rendition_score (GstVmafHip * self, GstVmafHipRendition * r,
    const VhPicture * ref, GstBuffer * buf, const GstVmafHipFrameTimes * t,
    gboolean stand_in)
{
  GstVideoFrame df;
  VhPicture dp;
  GError *error = NULL;
  /* (a rendition scaled on the CPU is read from host memory) */
  const gboolean dis_in_place = !vh_engine_scales_distorted (r->stream.engine)
      || vh_engine_scales_on_accelerator (r->stream.engine);

  if (!map_frame (self, r, &r->side, dis_in_place, buf, &df, &dp)) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("%s: a frame does not match its caps; the rendition is not scored "
            "any more.", rendition_name (r)), ("%" GST_PTR_FORMAT, buf));
    rendition_finish (self, r, "error");
    return;
  }
  /* luma alone where no feature reads chroma: the same planes every frame,
   * whether the reference comes from host or GPU memory */
  VhPicture rp = *ref;
  rp.nplanes = vh_engine_needs_chroma (r->stream.engine) ? MIN (dp.nplanes,
      ref->nplanes) : 1;
  dp.nplanes = rp.nplanes;
  guint index;
  const gboolean ok = gst_vmafhip_stream_push (&r->stream, &rp, &dp, t,
      stand_in, &index, &error);
  gst_video_frame_unmap (&df);
  if (!ok) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("%s: cannot score frame %u: %s. The rendition is not scored any "
            "more; the other pads are.", rendition_name (r), index,
            error->message), (NULL));
    g_clear_error (&error);
    rendition_finish (self, r, "error");
    return;
  }
  gst_vmafhip_stream_report (self, &r->stream, G_MAXUINT, NULL);
}

static void
run_job (gpointer data, gpointer user_data)
{
  RenditionJob *job = data;
  GstVmafHipRendition *r = job->r;
  GstVideoFrame rf;
  VhPicture rp;
  (void) user_data;

  const VhPicture *on_gpu = job->shared && !g_atomic_int_get (&r->done)
      ? gst_vmafhip_shared_ref_wait (job->self, job->shared) : NULL;
  if (g_atomic_int_get (&r->done)) {
    /* ended while this frame waited */
  } else if (on_gpu) {
    rendition_score (job->self, r, on_gpu, job->buf, &job->t,
        job->stand_in);
  } else if (map_frame (job->self, r, &r->ref_side, TRUE, job->ref, &rf,
          &rp)) {
    rendition_score (job->self, r, &rp, job->buf, &job->t, job->stand_in);
    gst_video_frame_unmap (&rf);
  } else {
    g_atomic_int_inc (&r->stream.unpaired);
  }
  if (job->shared)
    gst_vmafhip_shared_ref_done (job->self, job->shared);
  gst_buffer_unref (job->buf);
  gst_buffer_unref (job->ref);
  g_free (job);
  g_mutex_lock (&r->queue_lock);
  if (--r->queued == 0 || r->queued == MAX_QUEUED - 1)
    g_cond_broadcast (&r->queue_cond);
  g_mutex_unlock (&r->queue_lock);
}

/* Hands a frame to the rendition's worker (made on first use), waiting
 * while MAX_QUEUED are queued. */
static gboolean
rendition_queue (GstVmafHip * self, GstVmafHipRendition * r,
    RenditionJob * job)
{
  GError *error = NULL;
  if (!r->worker && !(r->worker = g_thread_pool_new (run_job, NULL, 1, TRUE,
              &error))) {
    GST_ELEMENT_WARNING (self, RESOURCE, FAILED,
        ("%s is not scored: no thread for it: %s. The other pads are.",
            rendition_name (r), error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  g_mutex_lock (&r->queue_lock);
  while (r->queued >= MAX_QUEUED)
    g_cond_wait (&r->queue_cond, &r->queue_lock);
  /* the reference's format, with conversion buffers of its own, while
   * the worker is idle */
  gst_vmafhip_side_follow (&r->ref_side, &self->side[REF].info);
  r->queued++;
  g_mutex_unlock (&r->queue_lock);
  g_thread_pool_push (r->worker, job, NULL);
  return TRUE;
}

/* One reference frame's work: each rendition's partner, handed to its
 * worker (the renditions' engines are independent: one rendition's upload
 * and CPU work need not wait for another's) */
void
gst_vmafhip_renditions_score (GstVmafHip * self, const PendingFrame * pf)
{
  GstVmafHipRendition *rendition[64];
  GstBuffer *buffer[64];
  gboolean stand_in[64];
  guint n = 0, takers = 0;
  unsigned nplanes = 1;

  g_mutex_lock (&self->renditions.lock);
  for (guint i = 0; i < self->renditions.list->len; i++) {
    GstVmafHipRendition *r = g_ptr_array_index (self->renditions.list, i);
    GstBuffer *buf = rendition_partner (self, r, pf->buffer,
        pf->t.running_time);
    if (buf)
      rendition_observe (self, r, pf->buffer, pf->t.running_time, buf);
    /* no partner: its last frame stands in, so that the frames around
     * this one get the reference's motion (not reported) */
    const gboolean missing = !buf;
    if (missing && r->stream.last_frame && !g_atomic_int_get (&r->done))
      buf = gst_buffer_ref (r->stream.last_frame);
    if (!buf)
      continue;
    if (!missing)
      gst_buffer_replace (&r->stream.last_frame, buf);
    /* engines made here, one at a time (GPU modules load per backend) */
    if (!r->stream.engine && !rendition_engine (self, r)) {
      g_atomic_int_set (&r->done, TRUE);
      gst_buffer_unref (buf);
      continue;
    }
    if (n == G_N_ELEMENTS (buffer)) {
      /* beyond 64 renditions: not scored */
      gst_vmafhip_stream_count_unpaired (&r->stream);
      gst_buffer_unref (buf);
      continue;
    }
    if (self->use_gpu && takes_gpu_reference (r)) {
      takers++;
      if (vh_engine_needs_chroma (r->stream.engine))
        nplanes = 3;
    }
    rendition[n] = r;
    stand_in[n] = missing;
    buffer[n++] = buf;
  }
  GstVmafHipSharedRef *shared = n ? gst_vmafhip_shared_ref_upload (self, pf->buffer, takers,
      nplanes) : NULL;
  for (guint i = 0; i < n; i++) {
    GstVmafHipRendition *r = rendition[i];
    RenditionJob *job = g_new (RenditionJob, 1);
    *job = (RenditionJob) { self, r, gst_buffer_ref (pf->buffer),
      shared && takes_gpu_reference (r) ? shared : NULL, buffer[i],
      pf->t, stand_in[i]
    };
    if (!rendition_queue (self, r, job)) {
      if (job->shared)
        gst_vmafhip_shared_ref_done (self, job->shared);
      gst_buffer_unref (job->ref);
      gst_buffer_unref (job->buf);
      g_free (job);
      g_atomic_int_set (&r->done, TRUE);
    }
  }
  g_mutex_unlock (&self->renditions.lock);
}

/* ------------------------------------------------------------ the end */

/* Flushes its engine, reports the last frames, posts its pooled message
 * and ends its results file; it is done from then on. */
static void
rendition_finish (GstVmafHip * self, GstVmafHipRendition * r,
    const char *end)
{
  if (!g_atomic_int_compare_and_exchange (&r->done, FALSE, TRUE))
    return;
  gst_vmafhip_stream_conclude (self, &r->stream, end, -1);
}

void
gst_vmafhip_rendition_eos (GstVmafHip * self, GstAggregatorPad * pad)
{
  g_mutex_lock (&self->renditions.lock);
  GstVmafHipRendition *r = find (self, pad);
  if (r && following (self) && r->stream.on_screen.buf
      && !g_atomic_int_get (&r->done)) {
    /* its last frame stays on screen for the reference frames to come */
    GST_INFO_OBJECT (self, "%s ended; its last frame is on screen until "
        "%" GST_TIME_FORMAT, rendition_name (r),
        GST_TIME_ARGS (r->stream.on_screen.rt
            + (GST_CLOCK_TIME_IS_VALID (r->stream.on_screen.duration)
                ? r->stream.on_screen.duration : 0)));
    r->ended = TRUE;
  } else if (r) {
    GST_INFO_OBJECT (self, "%s ended", rendition_name (r));
    rendition_drain (r);
    rendition_finish (self, r, "eos");
  }
  g_mutex_unlock (&self->renditions.lock);
}

void
gst_vmafhip_renditions_finish (GstVmafHip * self, const char *end)
{
  g_mutex_lock (&self->renditions.lock);
  for (guint i = 0; i < self->renditions.list->len; i++) {
    GstVmafHipRendition *r = g_ptr_array_index (self->renditions.list, i);
    rendition_drain (r);
    rendition_finish (self, r, end);
  }
  g_mutex_unlock (&self->renditions.lock);
}

void
gst_vmafhip_renditions_reference_changed (GstVmafHip * self,
    const GstVideoInfo * ref)
{
  g_mutex_lock (&self->renditions.lock);
  for (guint i = 0; i < self->renditions.list->len; i++) {
    GstVmafHipRendition *r = g_ptr_array_index (self->renditions.list, i);
    rendition_drain (r);
    rendition_end_segment (self, r, "ref_sink", &self->side[REF].info, ref);
  }
  /* the reference frames on the GPU (and their motion chain) are of the
   * old video: none is in use once every queue is drained */
  gst_vmafhip_shared_refs_free (self);
  g_mutex_unlock (&self->renditions.lock);
}

void
gst_vmafhip_renditions_reset (GstVmafHip * self)
{
  g_mutex_lock (&self->renditions.lock);
  for (guint i = 0; i < self->renditions.list->len; i++) {
    GstVmafHipRendition *r = g_ptr_array_index (self->renditions.list, i);
    rendition_drain (r);
    rendition_reset (r);
    if (r->stream.engine)
      vh_engine_reset (r->stream.engine);
    g_atomic_int_set (&r->done, !r->side.have_info);
  }
  g_mutex_unlock (&self->renditions.lock);
}

void
gst_vmafhip_renditions_stop (GstVmafHip * self)
{
  g_mutex_lock (&self->renditions.lock);
  for (guint i = 0; i < self->renditions.list->len; i++) {
    GstVmafHipRendition *r = g_ptr_array_index (self->renditions.list, i);
    rendition_reset (r);
    g_clear_pointer (&r->stream.engine, vh_engine_free);
    /* (results-filename and the monitor may change before the next
     * start) */
    g_clear_pointer (&r->stream.record.path, g_free);
    gst_vmafhip_watch_clear (&r->stream.watch);
    r->stream.watch.self = NULL;
    gst_vmafhip_side_clear (&r->side);
    gst_vmafhip_side_clear (&r->ref_side);
    g_atomic_int_set (&r->done, FALSE);
  }
  gst_vmafhip_shared_refs_free (self);
  g_mutex_unlock (&self->renditions.lock);
}

void
gst_vmafhip_renditions_free (GstVmafHip * self)
{
  for (guint i = 0; i < self->renditions.list->len; i++)
    rendition_free (g_ptr_array_index (self->renditions.list, i));
  gst_vmafhip_shared_refs_free (self);
  g_ptr_array_unref (self->renditions.list);
  g_mutex_clear (&self->renditions.lock);
}
