/* vmafhip — a scored stream: one distorted pad's measurement against the
 * reference (dist_sink's, and each dist_sink_%u's).
 *
 * Every distorted pad writes its frames out, ends its segments and
 * concludes through this file, whoever pairs its frames (the aggregator
 * thread for dist_sink, a rendition's worker for dist_sink_%u): the frame
 * message, the monitor, the record (numbering, pooled values, results
 * file) and the pooled message are made in one place, the same way for
 * every pad.  Engine frames are reported in order once final; a frame
 * pushed only so that motion sees every reference frame (a stand-in for a
 * missing partner) is released without a report.  Used by one thread at
 * a time (the pad's owner). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstvmafhip-private.h"
#include "vh-accel.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* An engine frame pushed and not yet reported */
typedef struct
{
  GstVmafHipFrameTimes t;     /* its reference frame's */
  gboolean stand_in;          /* pushed for the reference's motion alone */
} StreamFrame;

static void
frames_clear (GstVmafHipStream * s)
{
  g_array_set_size (s->frames, 0);
  s->frames_head = 0;
}

/* The oldest frame not reported, out of the queue (valid until the next
 * push); NULL: none */
static const StreamFrame *
frames_pop (GstVmafHipStream * s)
{
  if (s->frames_head >= s->frames->len)
    return NULL;
  return &g_array_index (s->frames, StreamFrame, s->frames_head++);
}

static void
frames_push (GstVmafHipStream * s, const StreamFrame * f)
{
  /* the reported ones leave the front now and then, so the array stays
   * the size of the frames in flight */
  if (s->frames_head == s->frames->len)
    frames_clear (s);
  else if (s->frames_head >= 64 && s->frames_head * 2 >= s->frames->len) {
    g_array_remove_range (s->frames, 0, s->frames_head);
    s->frames_head = 0;
  }
  g_array_append_val (s->frames, *f);
}

void
gst_vmafhip_stream_init (GstVmafHipStream * s, GstVmafHip * self,
    Side * side, const char *pad_name)
{
  memset (s, 0, sizeof *s);
  s->side = side;
  gst_vmafhip_aligner_init (&s->align, self, side);
  s->frames = g_array_new (FALSE, FALSE, sizeof (StreamFrame));
  gst_vmafhip_record_init (&s->record, pad_name, NULL);
}

void
gst_vmafhip_stream_reset (GstVmafHipStream * s)
{
  /* the engine first: the GPU may still read frames its owner holds */
  if (s->engine)
    vh_engine_reset (s->engine);
  frames_clear (s);
  s->n_reported = 0;
  g_atomic_int_set (&s->unpaired, 0);
  s->first_push_us = 0;
  gst_clear_buffer (&s->last_frame);
  gst_vmafhip_on_screen_clear (&s->on_screen);
  gst_vmafhip_record_reset (&s->record);
  gst_vmafhip_watch_reset (&s->watch);
  gst_vmafhip_aligner_reset (&s->align);
}

void
gst_vmafhip_stream_clear (GstVmafHipStream * s)
{
  g_clear_pointer (&s->engine, vh_engine_free);
  g_clear_pointer (&s->frames, g_array_unref);
  gst_clear_buffer (&s->last_frame);
  gst_vmafhip_on_screen_clear (&s->on_screen);
  gst_vmafhip_watch_clear (&s->watch);
  gst_vmafhip_aligner_clear (&s->align);
  gst_vmafhip_record_clear (&s->record);
}

gboolean
gst_vmafhip_on_screen_covers (const GstVmafHipOnScreen * os,
    GstClockTime ref_rt, GstClockTime tolerance)
{
  GstClockTime shown = os->duration;

  if (!os->buf || !GST_CLOCK_TIME_IS_VALID (ref_rt))
    return FALSE;
  if (!GST_CLOCK_TIME_IS_VALID (shown))
    shown = 2 * tolerance;
  return ref_rt + tolerance >= os->rt && ref_rt < os->rt + shown + tolerance;
}

gboolean
gst_vmafhip_on_screen_show (GstVmafHipOnScreen * os, GstBuffer * buf,
    GstClockTime rt, GstClockTime duration)
{
  const gboolean skipped = os->buf && !os->used;

  gst_clear_buffer (&os->buf);
  os->buf = buf;
  os->rt = rt;
  os->duration = GST_BUFFER_DURATION_IS_VALID (buf)
      ? GST_BUFFER_DURATION (buf) : duration;
  os->used = FALSE;
  return skipped;
}

void
gst_vmafhip_on_screen_clear (GstVmafHipOnScreen * os)
{
  gst_clear_buffer (&os->buf);
  os->used = FALSE;
}

GstClockTimeDiff
gst_vmafhip_stream_shift (GstVmafHip * self, const GstVmafHipStream * s)
{
  if (self->cfg.align == GST_VMAFHIP_ALIGN_AUTO)
    return gst_vmafhip_aligner_shift (&s->align);
  if (self->cfg.align != GST_VMAFHIP_ALIGN_OFFSET || self->cfg.offset == 0
      || !GST_CLOCK_TIME_IS_VALID (self->frame_duration))
    return 0;
  return (GstClockTimeDiff) self->frame_duration * self->cfg.offset;
}

const char *
gst_vmafhip_stream_name (const GstVmafHipStream * s)
{
  return s->record.pad_name;
}

gboolean
gst_vmafhip_stream_set_video (GstVmafHip * self, GstVmafHipStream * s,
    GError ** error)
{
  const GstVideoInfo *ref = &self->side[REF].info;
  const GstVideoInfo *d = &s->side->info;
  const VhVideoInfo vi = { (unsigned) GST_VIDEO_INFO_WIDTH (ref),
    (unsigned) GST_VIDEO_INFO_HEIGHT (ref), GST_VIDEO_INFO_COMP_DEPTH (ref, 0)
  };

  if (!vh_backend_choice_attach (self->backend, s->engine, 0, error)
      || !vh_engine_set_video_info (s->engine, &vi, error)
      || !vh_engine_set_distorted_scaling (s->engine,
          (unsigned) GST_VIDEO_INFO_WIDTH (d),
          (unsigned) GST_VIDEO_INFO_HEIGHT (d),
          gst_vmafhip_scale_filter (self->cfg.scaler), error))
    return FALSE;
  gchar *video = gst_vmafhip_describe_pair (d, ref);
  gst_vmafhip_record_set_video (&s->record, video, vi.width, vi.height);
  g_free (video);
  gst_vmafhip_scale_announce (self, gst_vmafhip_stream_name (s), s->engine,
      d, ref);
  return TRUE;
}

gboolean
gst_vmafhip_stream_push (GstVmafHipStream * s, const VhPicture * ref,
    const VhPicture * dist, const GstVmafHipFrameTimes * t,
    gboolean stand_in, guint * index, GError ** error)
{
  const StreamFrame f = { *t, stand_in };

  *index = vh_engine_n_pushed (s->engine);
  if (!s->first_push_us)
    s->first_push_us = g_get_monotonic_time ();
  if (!vh_engine_push (s->engine, ref, dist, error))
    return FALSE;
  frames_push (s, &f);
  return TRUE;
}

void
gst_vmafhip_stream_count_unpaired (GstVmafHipStream * s)
{
  g_atomic_int_inc (&s->unpaired);
}

static gboolean
copy_field (GQuark field, const GValue * value, gpointer user_data)
{
  gst_structure_id_set_value (user_data, field, value);
  return TRUE;
}

/* One final frame, `index` of the engine, out: its scores into `scores`
 * (a buffer's meta; NULL: none), the monitor, the frame message, the
 * record and results file.  The scores are read from the engine once for
 * each structure that carries them, none made for nothing. */
static void
report_frame (GstVmafHip * self, GstVmafHipStream * s, guint index,
    const StreamFrame * f, GstStructure * scores)
{
  const guint number = gst_vmafhip_record_number (&s->record);

  if (scores)
    gst_vmafhip_add_frame_scores (self, s->engine, scores, index);
  gst_vmafhip_watch_push (&s->watch, s->engine, index, number,
      f->t.running_time, f->t.duration);
  if (self->cfg.frame_message
      && vh_engine_scores_frame (s->engine, index)) {
    GstStructure *m = gst_vmafhip_record_frame_message (&s->record, &f->t);
    if (scores)
      gst_structure_foreach (scores, copy_field, m);
    else
      gst_vmafhip_add_frame_scores (self, s->engine, m, index);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), m));
  }
  gst_vmafhip_record_frame (self, &s->record, s->engine, index, &f->t);
}

void
gst_vmafhip_stream_report (GstVmafHip * self, GstVmafHipStream * s,
    guint upto, GstStructure * scores)
{
  GError *error = NULL;
  const guint from = s->n_reported;

  if (!s->engine)
    return;
  upto = MIN (upto, vh_engine_n_final (s->engine));
  for (; s->n_reported < upto; s->n_reported++) {
    const StreamFrame *f = frames_pop (s);
    if (!f)
      break;                    /* (not pushed through this stream) */
    if (!f->stand_in)
      report_frame (self, s, s->n_reported, f,
          s->n_reported + 1 == upto ? scores : NULL);
  }
  if (s->n_reported > from && !vh_engine_release_frames (s->engine,
          s->n_reported, &error)) {
    GST_WARNING_OBJECT (self, "%s: %s", gst_vmafhip_stream_name (s),
        error->message);
    g_clear_error (&error);
  }
}

/* Frames pushed, not final, not stand-ins: those a failed flush drops */
static guint
count_unfinished (const GstVmafHipStream * s)
{
  guint n = 0;
  for (guint i = s->frames_head; i < s->frames->len; i++)
    n += !g_array_index (s->frames, StreamFrame, i).stand_in;
  return n;
}

void
gst_vmafhip_stream_end_segment (GstVmafHip * self, GstVmafHipStream * s,
    const char *changed_pad, const GstVideoInfo * old_info,
    const GstVideoInfo * new_info)
{
  if (!s->engine)
    return;
  gst_vmafhip_stream_report (self, s, G_MAXUINT, NULL);
  gst_vmafhip_record_end_segment (self, &s->record, s->engine, changed_pad,
      old_info, new_info);
  frames_clear (s);
  s->n_reported = 0;
  gst_clear_buffer (&s->last_frame);
  gst_vmafhip_on_screen_clear (&s->on_screen);
  g_clear_pointer (&s->engine, vh_engine_free);
}

guint
gst_vmafhip_stream_conclude (GstVmafHip * self, GstVmafHipStream * s,
    const char *end, gint64 unpaired_ref)
{
  GError *error = NULL;
  gchar *dropped_why = NULL;
  guint n_dropped = 0;

  if (s->engine && vh_engine_n_pushed (s->engine) > 0) {
    if (!vh_engine_flush (s->engine, &error)) {
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("%s: cannot score its last frames: %s. They are counted as "
              "dropped in its pooled message.", gst_vmafhip_stream_name (s),
              error->message), (NULL));
      dropped_why = g_strdup (error->message);
      g_clear_error (&error);
    }
    gst_vmafhip_stream_report (self, s, G_MAXUINT, NULL);
    n_dropped = count_unfinished (s);
    /* the stream's aggregates (psnr=enable_apsnr=true), set by the flush,
     * for the pooled message and the results file */
    const VhScoreTable *t = vh_engine_scores (s->engine);
    for (unsigned k = 0; k < vh_score_table_n_aggregates (t); k++) {
      double v;
      const char *name = vh_score_table_aggregate (t, k, &v);
      vh_score_table_set_aggregate (s->record.scores, name, v);
    }
  }
  /* every segment's frames */
  const guint n_frames = s->record.n_frames;
  if (n_frames + n_dropped == 0) {
    g_free (dropped_why);
    return 0;
  }
  GST_INFO_OBJECT (self, "%s: end of measurement (%s): %u frames, %u "
      "dropped", gst_vmafhip_stream_name (s), end, n_frames, n_dropped);
  gst_vmafhip_watch_finish (&s->watch);
  GstStructure *m = gst_vmafhip_record_pooled_message (self, &s->record, end,
      n_dropped, dropped_why);
  g_free (dropped_why);
  if (unpaired_ref >= 0)
    gst_structure_set (m, "unpaired-ref", G_TYPE_UINT64,
        (guint64) unpaired_ref, NULL);
  gst_structure_set (m, "unpaired-dist", G_TYPE_UINT64,
      (guint64) g_atomic_int_get (&s->unpaired), NULL);
  gst_vmafhip_scale_add_fields (self, s->engine, &s->side->info, m);
  GST_INFO_OBJECT (self, "%s pooled: %" GST_PTR_FORMAT,
      gst_vmafhip_stream_name (s), m);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), m));
  if (n_frames > 0) {
    const double secs = s->first_push_us
        ? (g_get_monotonic_time () - s->first_push_us) / 1e6 : 0.0;
    gst_vmafhip_record_finish (self, &s->record, s->engine,
        secs > 0 ? n_frames / secs : NAN);
  }
  return n_frames;
}
