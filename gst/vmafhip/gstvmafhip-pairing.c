/* vmafhip — the element's pairing: which reference and distorted frames
 * are scored together. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* ------------------------------------------------------------- scoring */

GstVmafHipFrameTimes
gst_vmafhip_frame_times (GstVmafHip * self, GstBuffer * ref)
{
  GstAggregatorPad *pad = self->side[REF].pad;
  GstVmafHipFrameTimes t;

  t.pts = GST_BUFFER_PTS (ref);
  t.duration = GST_BUFFER_DURATION (ref);
  if (!GST_CLOCK_TIME_IS_VALID (t.duration))
    t.duration = self->frame_duration;
  t.running_time = t.stream_time = GST_CLOCK_TIME_NONE;
  t.ref_index = self->n_ref_frames;
  if (GST_CLOCK_TIME_IS_VALID (t.pts)) {
    GST_OBJECT_LOCK (pad);
    if (pad->segment.format == GST_FORMAT_TIME) {
      t.running_time = gst_segment_to_running_time (&pad->segment,
          GST_FORMAT_TIME, t.pts);
      t.stream_time = gst_segment_to_stream_time (&pad->segment,
          GST_FORMAT_TIME, t.pts);
    }
    GST_OBJECT_UNLOCK (pad);
  }
  return t;
}

PendingFrame *
gst_vmafhip_queue_frame (GstVmafHip * self, GstBuffer * ref, gint index,
    const GstVmafHipFrameTimes * t)
{
  PendingFrame *pf = g_new0 (PendingFrame, 1);

  pf->buffer = ref;
  pf->index = index;
  pf->t = *t;
  self->n_ref_frames++;
  g_queue_push_tail (&self->pending, pf);
  gst_vmafhip_renditions_score (self, pf);
  return pf;
}

/* ---------------------------------------------------- the measurement
 *
 * Every pad's measurement starts, changes segment and ends here, dist_sink's
 * (gstvmafhip-report.c) and the renditions' (gstvmafhip-renditions.c)
 * alike. */

/* A flushing seek: the pooled messages and results files of what was
 * scored before it, as upstream posts its statistics there (the frames
 * still held are scored and reported but not pushed; the results files
 * start again after the seek). */
void
gst_vmafhip_conclude_before_flush (GstVmafHip * self)
{
  gst_vmafhip_renditions_finish (self, "flushing-seek");
  if (!self->finished)
    gst_vmafhip_report_conclude (self, "flushing-seek");
}

/* A stop without EOS (the pipeline set to READY or NULL by the
 * application, Ctrl-C without -e, an error elsewhere): streaming has
 * stopped; what was paired is scored and reported, every results file
 * finished. */
void
gst_vmafhip_conclude_on_stop (GstVmafHip * self)
{
  gst_vmafhip_renditions_finish (self, "stopped");
  if (!self->finished)
    gst_vmafhip_report_conclude (self, "stopped");
}

/* The end of the measurement: whichever input ended first; the renditions
 * end with the reference frames. */
GstFlowReturn
gst_vmafhip_finish (GstVmafHip * self)
{
  gst_vmafhip_renditions_finish (self, "eos");
  return gst_vmafhip_report_finish (self);
}

gboolean
gst_vmafhip_video_changes (GstVmafHip * self, int which,
    const GstVideoInfo * info)
{
  if (!gst_vmafhip_report_end_segment (self, which, info))
    return FALSE;
  if (which == REF && self->side[REF].have_info)
    gst_vmafhip_renditions_reference_changed (self, info);
  return TRUE;
}



/* A distorted frame's running time moved back by the stream's lag (its
 * content's time on the reference's clock).  A frame whose content comes
 * before time 0 has no reference frame: *before is set (and 0 returned)
 * for the caller to drop it. */
static GstClockTime
dist_running_time (GstVmafHip * self, GstBuffer * buf, gboolean * before)
{
  const GstClockTime rt =
      gst_vmafhip_buffer_running_time (self->side[DIST].pad, buf);
  const GstClockTimeDiff shift = gst_vmafhip_stream_shift (self, &self->dist_stream);

  *before = FALSE;
  if (!GST_CLOCK_TIME_IS_VALID (rt) || shift == 0)
    return rt;
  if (shift > 0 && rt < (GstClockTime) shift) {
    *before = TRUE;
    return 0;
  }
  return (GstClockTime) ((GstClockTimeDiff) rt - shift);
}

/* Frames outside the segment are not part of the stream: an accurate seek
 * makes parsers such as rawvideoparse push from the previous keyframe or
 * the file start and leave the clipping downstream. Both inputs are
 * clipped alike, so the pairing stays aligned. */
GstBuffer *
gst_vmafhip_clip (GstAggregator * agg, GstAggregatorPad * pad,
    GstBuffer * buf)
{
  GstClockTime start = GST_BUFFER_PTS (buf), stop;
  gboolean inside = TRUE;

  /* (no copy here: clip runs in the element's one streaming thread, where
   * a copy into pinned memory limited every pipeline fed from memory;
   * the backend's staging threads copy what is not pinned already) */
  if (!GST_CLOCK_TIME_IS_VALID (start))
    return buf;
  stop = GST_BUFFER_DURATION_IS_VALID (buf)
      ? start + GST_BUFFER_DURATION (buf) : GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  if (pad->segment.format == GST_FORMAT_TIME)
    inside = gst_segment_clip (&pad->segment, GST_FORMAT_TIME, start, stop,
        NULL, NULL);
  GST_OBJECT_UNLOCK (pad);
  if (inside) {
    /* (in order, as frames reach the head of their pad) */
    gst_vmafhip_timeline_check (GST_VMAFHIP_CAST (agg), pad, buf,
        gst_vmafhip_buffer_running_time (pad, buf));
    return buf;
  }
  GST_LOG_OBJECT (agg, "%s: dropping %" GST_TIME_FORMAT ", outside the "
      "segment", GST_PAD_NAME (pad), GST_TIME_ARGS (start));
  gst_buffer_unref (buf);
  return NULL;
}

/* Live mode: the aggregator waits until the earliest queued frame's
 * running time plus the latency, then calls aggregate with timeout. */
GstClockTime
gst_vmafhip_get_next_time (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (agg);
  GstClockTime next = GST_CLOCK_TIME_NONE;

  for (int i = 0; i < 2; i++) {
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (self->side[i].pad);
    if (buf) {
      gboolean before;
      GstClockTime rt = i == DIST ? dist_running_time (self, buf, &before)
          : gst_vmafhip_buffer_running_time (self->side[i].pad, buf);
      if (GST_CLOCK_TIME_IS_VALID (rt)
          && (!GST_CLOCK_TIME_IS_VALID (next) || rt < next))
        next = rt;
      gst_buffer_unref (buf);
    }
  }
  return next;
}

/* align=auto, locked: a frame of dist_sink's pairing sampled for the
 * re-checks */
static void
observe (GstVmafHip * self, int which, GstBuffer * buf)
{
  if (self->cfg.align == GST_VMAFHIP_ALIGN_AUTO)
    gst_vmafhip_aligner_observe (&self->dist_stream.align, which, buf,
        gst_vmafhip_buffer_running_time (self->side[which].pad, buf));
}

/* Counts a frame that has no partner; the first one also warns. */
static void
count_unpaired (GstVmafHip * self, int which, GstBuffer * buf,
    const char *why)
{
  if (which == REF) {
    GST_OBJECT_LOCK (self);
    self->unpaired_ref++;
    GST_OBJECT_UNLOCK (self);
  } else {
    gst_vmafhip_stream_count_unpaired (&self->dist_stream);
  }
  GST_DEBUG_OBJECT (self, "%s frame %" GST_TIME_FORMAT " has no partner: %s",
      which == REF ? "reference" : "distorted",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), why);
  if (!self->warned_unpaired) {
    self->warned_unpaired = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("Some frames have no partner on the other pad and are not scored "
            "(see the unpaired-ref-frames and unpaired-dist-frames "
            "properties and the pooled message)."), ("first: %s", why));
  }
}

static gboolean push_pair (GstVmafHip * self, GstBuffer * ref,
    GstBuffer * dist, gboolean stand_in, GstFlowReturn * ret);

GstFlowReturn
gst_vmafhip_pass_reference (GstVmafHip * self, GstBuffer * ref)
{
  GstFlowReturn ret;

  /* Motion is a property of the reference: a reference frame without a
   * partner is still pushed into the engine, against a stand-in for the
   * distorted picture (the reference itself, or where the distorted video
   * is scaled the last distorted frame), so that the frames around it get
   * the motion of an aligned run.  Its own scores are not reported.  Not
   * where there is nothing to push yet (the distorted pad's caps unknown,
   * a gap) or nothing to stand in. */
  if (!GST_BUFFER_FLAG_IS_SET (ref, GST_BUFFER_FLAG_GAP)
      && self->side[REF].have_info && self->side[DIST].have_info
      && (!self->rung_scaled || self->dist_stream.last_frame)
      && push_pair (self, ref, self->rung_scaled
          ? gst_buffer_ref (self->dist_stream.last_frame) : NULL, TRUE, &ret))
    return ret;
  const GstVmafHipFrameTimes t = gst_vmafhip_frame_times (self, ref);
  gst_vmafhip_queue_frame (self, ref, -1, &t);
  return gst_vmafhip_emit_ready (self);
}

/* A reference frame without a partner: pushed without scores. */
static GstFlowReturn
pass_unpaired_ref (GstVmafHip * self, GstBuffer * ref, const char *why)
{
  observe (self, REF, ref);
  count_unpaired (self, REF, ref, why);
  return gst_vmafhip_pass_reference (self, ref);
}

/* A distorted frame without a partner is dropped. */
static void
drop_unpaired_dist (GstVmafHip * self, GstBuffer * dist, const char *why)
{
  observe (self, DIST, dist);
  count_unpaired (self, DIST, dist, why);
  gst_buffer_unref (dist);
}

/* Describes one side's frame in pic: in place in GPU memory where the GPU
 * can read it (CUDA memory mapped, gstvmafhip-cuda.c; dmabufs imported,
 * gstvmafhip-dmabuf.c), else mapped in host memory.  *mapped: f is mapped
 * (unmap_frame).  An error names the side. */
static gboolean
map_frame (GstVmafHip * self, int which, GstBuffer * buf, GstVideoFrame * f,
    VhPicture * pic, gboolean * mapped)
{
  *mapped = FALSE;
  if (!gst_vmafhip_cuda_map (self, which, buf, f, pic, mapped))
    return FALSE;
  if (*mapped || gst_vmafhip_dmabuf_import (self, which, buf, pic))
    return TRUE;
  if (gst_video_frame_map (f, &self->side[which].info, buf, GST_MAP_READ)) {
    *mapped = TRUE;
    gst_vmafhip_fill_picture (self, which, f, pic);
    return TRUE;
  }
  GST_ELEMENT_ERROR (self, STREAM, FAILED,
      ("Cannot read a %s frame: the buffer does not match its caps.",
          which == REF ? "reference" : "distorted"), ("%" GST_PTR_FORMAT, buf));
  return FALSE;
}

static void
unmap_frame (GstVideoFrame * f, gboolean * mapped)
{
  if (*mapped)
    gst_video_frame_unmap (f);
  *mapped = FALSE;
}

/* A frame mapped from GPU memory mapped again through host memory */
static gboolean
map_on_host (GstVmafHip * self, int which, GstBuffer * buf,
    GstVideoFrame * f, gboolean * mapped, VhPicture * pic)
{
  unmap_frame (f, mapped);
  if (!gst_video_frame_map (f, &self->side[which].info, buf, GST_MAP_READ))
    return FALSE;
  *mapped = TRUE;
  gst_vmafhip_fill_picture (self, which, f, pic);
  return TRUE;
}

/* Scores one pair; takes both buffers. */
static GstFlowReturn
score_pair (GstVmafHip * self, GstBuffer * ref, GstBuffer * dist)
{
  GstFlowReturn ret;

  if (GST_BUFFER_FLAG_IS_SET (ref, GST_BUFFER_FLAG_GAP)
      || GST_BUFFER_FLAG_IS_SET (dist, GST_BUFFER_FLAG_GAP)) {
    /* a gap has no picture: this slot cannot be scored */
    if (!GST_BUFFER_FLAG_IS_SET (dist, GST_BUFFER_FLAG_GAP))
      drop_unpaired_dist (self, dist, "the reference is a gap");
    else
      gst_buffer_unref (dist);
    return pass_unpaired_ref (self, ref, "gap in one of the streams");
  }
  /* align=auto, locked: both frames sampled for the re-check (unpaired
   * ones are, where they are passed or dropped); the reference first, so
   * that the distorted frame finds its partner's thumbnail */
  observe (self, REF, ref);
  observe (self, DIST, dist);
  /* (a scaled distorted frame stands in for the next unpaired
   * reference's: gst_vmafhip_pass_reference) */
  if (self->rung_scaled)
    gst_buffer_replace (&self->dist_stream.last_frame, dist);
  push_pair (self, ref, dist, FALSE, &ret);
  return ret;
}

/* Pushes one pair into the engine and queues the reference frame; takes
 * both buffers.  stand_in: dist stands in for a missing partner (NULL: the
 * reference itself), the frame's scores are not reported; then FALSE,
 * with nothing done and ref not taken, where the pair cannot be pushed
 * (the caps not usable); otherwise TRUE and *ret the flow. */
static gboolean
push_pair (GstVmafHip * self, GstBuffer * ref, GstBuffer * dist,
    gboolean stand_in, GstFlowReturn * ret)
{
  GstVideoFrame rf, df;
  VhPicture rp, dp;
  GError *error = NULL;
  unsigned index;
  gboolean ok;

  if (stand_in && (self->pair_failed || self->side[REF].refused
          || self->side[DIST].refused)) {
    gst_clear_buffer (&dist);
    return FALSE;
  }
  if (!gst_vmafhip_ensure_caps_checked (self)) {
    if (stand_in) {
      gst_clear_buffer (&dist);
      return FALSE;
    }
    gst_buffer_unref (ref);
    gst_buffer_unref (dist);
    *ret = GST_FLOW_NOT_NEGOTIATED;
    return TRUE;
  }

  gboolean rf_mapped, df_mapped = FALSE;
  if (!map_frame (self, REF, ref, &rf, &rp, &rf_mapped)) {
    gst_buffer_unref (ref);
    gst_clear_buffer (&dist);
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  if (!dist) {
    /* the reference stands in for itself: its VIF, ADM... are not read */
    dp = rp;
  } else if (!map_frame (self, DIST, dist, &df, &dp, &df_mapped)) {
    unmap_frame (&rf, &rf_mapped);
    gst_buffer_unref (ref);
    gst_buffer_unref (dist);
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  /* a smaller rendition the engine scales on the CPU is read from host
   * memory; one side in GPU memory and the other not: both through host
   * memory */
  gboolean readable = TRUE;
  if (dist && self->rung_scaled && dp.memory == VH_PICTURE_DEVICE
      && !vh_engine_scales_on_accelerator (self->dist_stream.engine))
    readable = map_on_host (self, DIST, dist, &df, &df_mapped, &dp);
  if (dist && readable && rp.memory != dp.memory)
    readable = rp.memory == VH_PICTURE_DEVICE
        ? map_on_host (self, REF, ref, &rf, &rf_mapped, &rp)
        : map_on_host (self, DIST, dist, &df, &df_mapped, &dp);
  if (!readable) {
    unmap_frame (&rf, &rf_mapped);
    unmap_frame (&df, &df_mapped);
    gst_buffer_unref (ref);
    gst_buffer_unref (dist);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Cannot read a frame."),
        (NULL));
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  /* frames in our pinned memory stay until the frame is final (the
   * reference as every reference does, the distorted one with it): the
   * GPU copies them from there while the next pair comes in */
  rp.held = gst_vmafhip_can_hold (self, REF, ref, &rp);
  if (!dist)
    dp = rp;
  else
    dp.held = gst_vmafhip_can_hold (self, DIST, dist, &dp);
  const GstVmafHipFrameTimes t = gst_vmafhip_frame_times (self, ref);
  ok = gst_vmafhip_stream_push (&self->dist_stream, &rp, &dp, &t, stand_in,
      &index, &error);
  unmap_frame (&rf, &rf_mapped);
  unmap_frame (&df, &df_mapped);
  if (!ok) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot score frame %u: %s", index, error->message), (NULL));
    g_clear_error (&error);
    gst_clear_buffer (&dist);
    gst_buffer_unref (ref);
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  GST_LOG_OBJECT (self, "scored frame %u (%" GST_TIME_FORMAT ")", index,
      GST_TIME_ARGS (GST_BUFFER_PTS (ref)));
  if (!GST_CLOCK_TIME_IS_VALID (self->reported_latency)
      && GST_BUFFER_DURATION_IS_VALID (ref))
    gst_vmafhip_update_latency (self, GST_BUFFER_DURATION (ref));
  PendingFrame *pf = gst_vmafhip_queue_frame (self, ref, (gint) index, &t);
  pf->stand_in = stand_in;
  if (dist && dp.held)
    pf->held_dist = dist;
  else
    gst_clear_buffer (&dist);
  /* Live, with no next pair at hand (between frames): the GPU's frames in
   * flight are collected now rather than at the next push, a frame
   * interval away, so they go out within the reported latency.  Not live
   * (files), they stay in flight, overlapping the next frames' uploads:
   * an aggregator pad holds one buffer, so the next pair is seldom
   * queued yet, and waiting there would serialise the GPU. */
  if (GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (GST_AGGREGATOR
              (self)))
      && !(gst_aggregator_pad_has_buffer (self->side[REF].pad)
          && gst_aggregator_pad_has_buffer (self->side[DIST].pad))
      && !vh_engine_wait_accelerator (self->dist_stream.engine, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot score frame %u: %s", index, error->message), (NULL));
    g_clear_error (&error);
    *ret = GST_FLOW_ERROR;
    return TRUE;
  }
  *ret = gst_vmafhip_emit_ready (self);
  return TRUE;
}


/* ----------------------------------------------------------- aggregate */

/* align=auto, searching: a frame taken into dist_sink's search; a
 * reference frame goes on without scores (its motion kept), not counted
 * as unpaired; a distorted one is dropped */
static GstFlowReturn
align_take (GstVmafHip * self, int which, GstBuffer * buf, GstClockTime rt)
{
  if (!GST_CLOCK_TIME_IS_VALID (self->frame_duration)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("align=auto needs the reference's frame rate in its caps"), (NULL));
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  gst_vmafhip_aligner_add (&self->dist_stream.align, which, buf, rt);
  if (which == REF)
    return gst_vmafhip_pass_reference (self, buf);
  gst_buffer_unref (buf);
  return GST_FLOW_OK;
}

/* Half a frame: two frames closer than this are the same instant. */
static GstClockTime
pairing_tolerance (GstVmafHip * self, GstBuffer * ref)
{
  if (ref && GST_BUFFER_DURATION_IS_VALID (ref)
      && GST_BUFFER_DURATION (ref) > 0)
    return GST_BUFFER_DURATION (ref) / 2;
  if (GST_CLOCK_TIME_IS_VALID (self->frame_duration))
    return self->frame_duration / 2;
  return GST_MSECOND;
}

/* Following the reference, a distorted frame becomes the one on screen
 * only once its own time has (nearly) come: half of the shorter frame. */
static GstClockTime
follow_tolerance (GstVmafHip * self, GstBuffer * ref)
{
  GstClockTime tolerance = pairing_tolerance (self, ref);

  if (GST_CLOCK_TIME_IS_VALID (self->dist_frame_duration)
      && self->dist_frame_duration > 0)
    tolerance = MIN (tolerance, self->dist_frame_duration / 2);
  return tolerance;
}

static void
pop_pair (GstVmafHip * self, GstBuffer * ref, gboolean pop_dist)
{
  gst_aggregator_pad_drop_buffer (self->side[REF].pad);
  if (pop_dist)
    gst_aggregator_pad_drop_buffer (self->side[DIST].pad);
  gst_aggregator_selected_samples (GST_AGGREGATOR (self), GST_BUFFER_PTS (ref),
      GST_BUFFER_DTS (ref), GST_BUFFER_DURATION (ref), NULL);
}

/* rate-mismatch=follow-reference: whether dist_sink's frame on screen is
 * still shown at the reference frame's time. */
static gboolean
held_covers (GstVmafHip * self, GstClockTime rt_ref, GstClockTime tolerance)
{
  return gst_vmafhip_on_screen_covers (&self->dist_stream.on_screen, rt_ref,
      tolerance);
}

/* Non-live streams without timestamps cannot be paired by time: they are
 * paired in arrival order, with one warning naming the pad. */
static GstFlowReturn
pair_without_timestamps (GstVmafHip * self, GstBuffer * ref, GstBuffer * dist,
    GstClockTime rt_ref)
{
  if (!self->warned_no_timestamps) {
    self->warned_no_timestamps = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("%s has frames without timestamps: frames are paired in arrival "
            "order, which is only right if neither stream drops or repeats "
            "a frame.", GST_CLOCK_TIME_IS_VALID (rt_ref) ? "dist_sink" :
            "ref_sink"), (NULL));
  }
  pop_pair (self, ref, TRUE);
  return score_pair (self, ref, dist);
}

/* rate-mismatch=follow-reference: each reference frame is scored against
 * the distorted frame on screen at its time; distorted frames are repeated
 * (slower distorted stream) or skipped (faster one). */
static GstFlowReturn
aggregate_following_reference (GstVmafHip * self, GstBuffer * ref,
    GstBuffer * dist, GstClockTime rt_ref, GstClockTime rt_dist,
    gboolean timeout)
{
  const GstClockTime tolerance = follow_tolerance (self, ref);
  GstAggregatorPad *dpad = self->side[DIST].pad;

  if (dist && GST_CLOCK_TIME_IS_VALID (rt_dist)
      && (!ref || rt_dist <= rt_ref + tolerance)) {
    /* this distorted frame is shown at or before the reference frame: it
     * becomes the one on screen (the one it replaces was shown already, or
     * skipped) */
    gst_aggregator_pad_drop_buffer (dpad);
    if (gst_vmafhip_on_screen_show (&self->dist_stream.on_screen, dist,
            rt_dist, self->dist_frame_duration))
      count_unpaired (self, DIST, dist,
          "skipped: the distorted stream is faster than the reference");
    gst_clear_buffer (&ref);
    return GST_FLOW_OK;
  }
  if (dist && !GST_CLOCK_TIME_IS_VALID (rt_dist)) {
    gst_aggregator_pad_drop_buffer (dpad);
    gst_clear_buffer (&ref);
    drop_unpaired_dist (self, dist, "no timestamp in the "
        "segment");
    return GST_FLOW_OK;
  }
  gst_clear_buffer (&dist);
  if (!ref)
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  if (held_covers (self, rt_ref, tolerance)) {
    self->dist_stream.on_screen.used = TRUE;
    pop_pair (self, ref, FALSE);
    return score_pair (self, ref,
        gst_buffer_ref (self->dist_stream.on_screen.buf));
  }
  gst_aggregator_pad_drop_buffer (self->side[REF].pad);
  return pass_unpaired_ref (self, ref, timeout
      ? "no distorted frame on screen at this time (deadline passed)"
      : "no distorted frame on screen at this time");
}

/* Pairs the two streams by running time, in every mode: a frame whose
 * partner is not within half a frame is counted and never scored against a
 * neighbour. Non-live, aggregate runs when both pads have a frame (or
 * ended); live, also when the deadline passes with one side missing. */
GstFlowReturn
gst_vmafhip_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (agg);
  GstAggregatorPad *rpad = self->side[REF].pad;
  GstAggregatorPad *dpad = self->side[DIST].pad;
  const gboolean follow =
      self->cfg.rate_mismatch == GST_VMAFHIP_RATE_MISMATCH_FOLLOW_REFERENCE;
  GstBuffer *ref, *dist;
  gboolean live, ref_ended, dist_ended;
  GstClockTime rt_ref, rt_dist, tolerance;

  if (self->finished)
    return GST_FLOW_EOS;

  ref = gst_aggregator_pad_peek_buffer (rpad);
  dist = gst_aggregator_pad_peek_buffer (dpad);
  /* a jump in either pad's timeline (said where it was seen): align=auto
   * searches the lag again; following the reference, the frame on screen
   * before the jump is not on screen after it */
  const gboolean ref_jumped = gst_vmafhip_timeline_take_jump (rpad);
  if (gst_vmafhip_timeline_take_jump (dpad)) {
    gst_vmafhip_on_screen_clear (&self->dist_stream.on_screen);
    if (self->cfg.align == GST_VMAFHIP_ALIGN_AUTO)
      gst_vmafhip_aligner_restart (&self->dist_stream.align);
  } else if (ref_jumped && self->cfg.align == GST_VMAFHIP_ALIGN_AUTO) {
    gst_vmafhip_aligner_restart (&self->dist_stream.align);
  }
  rt_ref = ref ? gst_vmafhip_buffer_running_time (rpad, ref)
      : GST_CLOCK_TIME_NONE;
  gboolean dist_before = FALSE;
  rt_dist = dist ? dist_running_time (self, dist, &dist_before)
      : GST_CLOCK_TIME_NONE;
  /* align=offset: distorted frames whose content precedes the
   * reference's first frame have no partner */
  if (dist && dist_before) {
    gst_aggregator_pad_drop_buffer (dpad);
    gst_clear_buffer (&ref);
    drop_unpaired_dist (self, dist, "its content comes before the "
        "reference's first frame (align=offset)");
    return GST_FLOW_OK;
  }
  tolerance = pairing_tolerance (self, ref);
  ref_ended = !ref && gst_aggregator_pad_is_eos (rpad);
  dist_ended = !dist && gst_aggregator_pad_is_eos (dpad);
  /* the measurement ends with whichever input ends first (following the
   * reference, once the last distorted frame is no longer on screen) */
  if (ref_ended || (dist_ended && !(follow && ref && held_covers (self,
                  rt_ref, follow_tolerance (self, ref))))) {
    GST_INFO_OBJECT (self, "%s ended: end of the measurement",
        ref_ended ? "ref_sink" : "dist_sink");
    gst_clear_buffer (&ref);
    gst_clear_buffer (&dist);
    return gst_vmafhip_finish (self);
  }

  live = GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (agg));
  if (!live && ((!ref || !dist) && !(follow && ref && dist_ended))) {
    gst_clear_buffer (&ref);
    gst_clear_buffer (&dist);
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  }

  /* the renditions' frames before this reference frame off their pads;
   * the aggregator waits for a rendition that has none after them yet, as
   * it waits for dist_sink */
  if (ref && !gst_vmafhip_renditions_ready (self, rt_ref, live && timeout,
          ref_jumped)) {
    gst_clear_buffer (&ref);
    gst_clear_buffer (&dist);
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  }

  /* align=auto, searching: the earlier frame goes into the search */
  if (gst_vmafhip_aligner_searching (&self->dist_stream.align) && (ref || dist)) {
    /* live, the distorted side may start first: its frames wait for the
     * reference's caps (the frame rate the search counts in) */
    if (!ref && !self->side[REF].have_info) {
      gst_clear_buffer (&dist);
      return GST_AGGREGATOR_FLOW_NEED_DATA;
    }
    const gboolean take_ref = ref && (!dist || !GST_CLOCK_TIME_IS_VALID
        (rt_dist) || (GST_CLOCK_TIME_IS_VALID (rt_ref) && rt_ref <= rt_dist));
    gst_aggregator_pad_drop_buffer (take_ref ? rpad : dpad);
    if (take_ref)
      gst_clear_buffer (&dist);
    else
      gst_clear_buffer (&ref);
    return align_take (self, take_ref ? REF : DIST,
        take_ref ? ref : dist, take_ref ? rt_ref : rt_dist);
  }

  if (!live && ref && dist && (!GST_CLOCK_TIME_IS_VALID (rt_ref)
          || !GST_CLOCK_TIME_IS_VALID (rt_dist)))
    return pair_without_timestamps (self, ref, dist, rt_ref);

  if (follow)
    return aggregate_following_reference (self, ref, dist, rt_ref, rt_dist,
        timeout);

  if (ref && !GST_CLOCK_TIME_IS_VALID (rt_ref)) {
    gst_aggregator_pad_drop_buffer (rpad);
    gst_clear_buffer (&dist);
    return pass_unpaired_ref (self, ref, "no timestamp in the "
        "segment");
  }
  if (dist && !GST_CLOCK_TIME_IS_VALID (rt_dist)) {
    gst_aggregator_pad_drop_buffer (dpad);
    gst_clear_buffer (&ref);
    drop_unpaired_dist (self, dist, "no timestamp in the "
        "segment");
    return GST_FLOW_OK;
  }

  if (ref && dist) {
    const GstClockTimeDiff diff = GST_CLOCK_DIFF (rt_ref, rt_dist);

    if ((guint64) ABS (diff) <= tolerance) {
      pop_pair (self, ref, TRUE);
      return score_pair (self, ref, dist);
    }
    if (diff < 0) {
      /* the distorted frame's reference frame is already gone (or never
       * came: a repeated or extra distorted frame) */
      gst_aggregator_pad_drop_buffer (dpad);
      gst_buffer_unref (ref);
      drop_unpaired_dist (self, dist, "no reference frame at "
          "its time (a repeated, extra or late distorted frame)");
      return GST_FLOW_OK;
    }
    /* the distorted stream has no frame at this reference frame's time */
    gst_aggregator_pad_drop_buffer (rpad);
    gst_buffer_unref (dist);
    return pass_unpaired_ref (self, ref, "no distorted frame at "
        "its time (a dropped or late distorted frame)");
  }
  /* Live, one side only: either the deadline passed (timeout) or the other
   * pad is inactive (ignore-inactive-pads). */
  if (ref) {
    gst_aggregator_pad_drop_buffer (rpad);
    return pass_unpaired_ref (self, ref, timeout ? "the "
        "distorted frame missed the deadline" : "the distorted pad is "
        "inactive");
  }
  if (dist) {
    gst_aggregator_pad_drop_buffer (dpad);
    drop_unpaired_dist (self, dist, timeout ? "the reference "
        "frame missed the deadline" : "the reference pad is inactive");
    return GST_FLOW_OK;
  }
  return GST_AGGREGATOR_FLOW_NEED_DATA;
}
