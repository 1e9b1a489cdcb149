/* vmafhip — the element's reports: frame messages, buffer meta, pooled
 * scores and the results file. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstvmafhipmeta.h"

#include "gstvmafhip-private.h"
#include "gstvmafhip-record.h"
#include "vh-accel.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

void
gst_vmafhip_pending_frame_free (gpointer p)
{
  PendingFrame *pf = p;

  gst_buffer_unref (pf->buffer);
  gst_clear_buffer (&pf->held_dist);
  g_free (pf);
}


gboolean
gst_vmafhip_metric_reported (GstVmafHip * self, const VhEngine * engine,
    unsigned metric)
{
  /* bootstrap details only with conf-interval; the engine knows which */
  return vh_engine_metric_kind (engine, metric)
      != VH_METRIC_MODEL_BOOTSTRAP || self->cfg.conf_interval;
}

static const char *
first_model_name (GstVmafHip * self)
{
  return ((ModelSpec *) g_ptr_array_index (self->specs, 0))->report_name;
}

void
gst_vmafhip_add_frame_scores (GstVmafHip * self, const VhEngine * engine,
    GstStructure * s, unsigned frame)
{
  const VhScoreTable *t = vh_engine_scores (engine);
  const unsigned n = vh_score_table_n_metrics (t);
  int first = vh_score_table_find (t, first_model_name (self));
  double v;

  if (first >= 0 && vh_score_table_get (t, (unsigned) first, frame, &v))
    gst_structure_set (s, "score", G_TYPE_DOUBLE, v, NULL);
  for (unsigned m = 0; m < n; m++) {
    if (gst_vmafhip_metric_reported (self, engine, m)
        && vh_score_table_get (t, m, frame, &v))
      gst_structure_set (s, vh_score_table_metric_name (t, m), G_TYPE_DOUBLE,
          v, NULL);
  }
  if (self->cfg.psnr && gst_structure_get_double (s, "psnr_y", &v))
    gst_structure_set (s, "psnr-y", G_TYPE_DOUBLE, v, NULL);
}

static void record_frame (GstVmafHip * self, unsigned index,
    const PendingFrame * pf);

static gboolean
copy_field (GQuark field, const GValue * value, gpointer user_data)
{
  gst_structure_id_set_value (user_data, field, value);
  return TRUE;
}

/* Reports one scored frame: its scores into `scores` (the meta's
 * structure), the monitor, the frame message, the results file. */
static void
report_frame (GstVmafHip * self, const PendingFrame * pf,
    GstStructure * scores)
{
  const gint index = pf->index;
  /* its number in the stream (segments continue the numbering) */
  const gint number = (gint) gst_vmafhip_record_number (&self->record);

  gst_vmafhip_add_frame_scores (self, self->engine, scores, (unsigned) index);
  gst_vmafhip_watch_push (&self->watch, self->engine, (guint) index,
      (guint) number, pf->t.running_time, pf->t.duration);
  if (self->cfg.frame_message
      && vh_subsample_computes (FALSE, self->cfg.subsample, (unsigned) index)) {
    GstStructure *s = gst_vmafhip_record_frame_message (&self->record, &pf->t);
    gst_structure_foreach (scores, copy_field, s);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), s));
  }
  record_frame (self, (unsigned) index, pf);
}

/* Pushes one reference buffer with its meta (and posts its message). */
static GstFlowReturn
output_frame (GstVmafHip * self, PendingFrame * pf)
{
  GstBuffer *buf = gst_buffer_make_writable (pf->buffer);
  /* the scores go straight into the meta's structure; the message copies
   * them from there */
  const gboolean reported = pf->index >= 0 && !pf->stand_in;
  GstVmafHipMeta *meta = gst_buffer_add_vmafhip_meta (buf, reported
      ? (gint) gst_vmafhip_record_number (&self->record) : -1);

  pf->buffer = NULL;
  if (reported && meta)
    report_frame (self, pf, gst_custom_meta_get_structure (meta));
  gst_clear_buffer (&pf->held_dist);
  g_free (pf);
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), buf);
}

/* Pushes, in order, every held frame whose scores are final. */
GstFlowReturn
gst_vmafhip_emit_ready (GstVmafHip * self)
{
  const unsigned n_final = self->engine ? vh_engine_n_final (self->engine) : 0;
  PendingFrame *pf;

  while ((pf = g_queue_peek_head (&self->pending))) {
    GstFlowReturn ret;

    if (pf->index >= 0 && (unsigned) pf->index >= n_final)
      break;
    g_queue_pop_head (&self->pending);
    ret = output_frame (self, pf);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  /* a results file failed with write-failure=error (posted): the run ends */
  if (g_atomic_int_get (&self->results_write_failed))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

PendingFrame *
gst_vmafhip_queue_frame (GstVmafHip * self, GstBuffer * ref, gint index)
{
  GstAggregatorPad *pad = self->side[REF].pad;
  PendingFrame *pf = g_new0 (PendingFrame, 1);

  pf->buffer = ref;
  pf->index = index;
  pf->t.pts = GST_BUFFER_PTS (ref);
  pf->t.duration = GST_BUFFER_DURATION (ref);
  if (!GST_CLOCK_TIME_IS_VALID (pf->t.duration))
    pf->t.duration = self->frame_duration;
  pf->t.running_time = pf->t.stream_time = GST_CLOCK_TIME_NONE;
  pf->t.ref_index = self->n_ref_frames++;
  if (GST_CLOCK_TIME_IS_VALID (pf->t.pts)) {
    GST_OBJECT_LOCK (pad);
    if (pad->segment.format == GST_FORMAT_TIME) {
      pf->t.running_time = gst_segment_to_running_time (&pad->segment,
          GST_FORMAT_TIME, pf->t.pts);
      pf->t.stream_time = gst_segment_to_stream_time (&pad->segment,
          GST_FORMAT_TIME, pf->t.pts);
    }
    GST_OBJECT_UNLOCK (pad);
  }
  g_queue_push_tail (&self->pending, pf);
  gst_vmafhip_renditions_score (self, pf);
  return pf;
}

void
gst_vmafhip_mark_stand_in (GstVmafHip * self, PendingFrame * pf)
{
  pf->stand_in = TRUE;
  g_queue_push_tail (&self->stand_ins, GUINT_TO_POINTER (pf->index + 1));
}


/* ----------------------------------------------------------------- EOS */

static VhPoolMethod
engine_pool_method (GstVmafHipPoolMethod method)
{
  switch (method) {
    case GST_VMAFHIP_POOL_MIN:
      return VH_POOL_MIN;
    case GST_VMAFHIP_POOL_MAX:
      return VH_POOL_MAX;
    case GST_VMAFHIP_POOL_HARMONIC_MEAN:
      return VH_POOL_HARMONIC_MEAN;
    case GST_VMAFHIP_POOL_MEAN:
    default:
      return VH_POOL_MEAN;
  }
}

static void
set_pooled (GstStructure * s, const char *name, const VhPooled * p,
    GstVmafHipPoolMethod method)
{
  char *field;

  gst_structure_set (s, name, G_TYPE_DOUBLE,
      vh_pooled_get (p, engine_pool_method (method)), NULL);
  field = g_strconcat (name, "-mean", NULL);
  gst_structure_set (s, field, G_TYPE_DOUBLE, p->mean, NULL);
  g_free (field);
  field = g_strconcat (name, "-harmonic-mean", NULL);
  gst_structure_set (s, field, G_TYPE_DOUBLE, p->harmonic_mean, NULL);
  g_free (field);
  field = g_strconcat (name, "-min", NULL);
  gst_structure_set (s, field, G_TYPE_DOUBLE, p->min, NULL);
  g_free (field);
  field = g_strconcat (name, "-max", NULL);
  gst_structure_set (s, field, G_TYPE_DOUBLE, p->max, NULL);
  g_free (field);
}

void
gst_vmafhip_add_pooled_table (GstVmafHip * self, const VhScoreTable * t,
    unsigned subsample, const VhEngine * engine, GstStructure * s)
{
  const unsigned n = vh_score_table_n_metrics (t);
  const GstVmafHipPoolMethod method = self->cfg.pool_method;
  VhPooled p;
  const int first = vh_score_table_find (t, first_model_name (self));

  if (first >= 0 && vh_score_table_pool_all (t, (unsigned) first, subsample,
          &p))
    gst_structure_set (s, "score", G_TYPE_DOUBLE,
        vh_pooled_get (&p, engine_pool_method (method)), NULL);
  for (unsigned m = 0; m < n; m++) {
    const char *name = vh_score_table_metric_name (t, m);
    if ((engine && !gst_vmafhip_metric_reported (self, engine, m))
        || !vh_score_table_pool_all (t, m, subsample, &p))
      continue;
    set_pooled (s, name, &p, method);
    if (self->cfg.psnr && !strcmp (name, "psnr_y"))
      set_pooled (s, "psnr-y", &p, method);
  }
}

static void
post_pooled (GstVmafHip * self, unsigned n_dropped, const char *end,
    const char *dropped_why)
{
  GstStructure *s = gst_vmafhip_record_pooled_message (self, &self->record,
      end, n_dropped, dropped_why);

  GST_OBJECT_LOCK (self);
  gst_structure_set (s, "unpaired-ref", G_TYPE_UINT64, self->unpaired_ref,
      "unpaired-dist", G_TYPE_UINT64, self->unpaired_dist, NULL);
  GST_OBJECT_UNLOCK (self);
  gst_vmafhip_scale_add_fields (self, self->engine, &self->side[DIST].info, s);
  GST_INFO_OBJECT (self, "pooled: %" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* A results file cannot be written completely (full disk, I/O error, its
 * folder removed): by default an element error, so that the run fails
 * and a batch script sees it (the aggregator then stops with
 * GST_FLOW_ERROR); with write-failure=warn a warning, and scoring goes on
 * (the messages and the meta still carry every score).  Any thread. */
void
gst_vmafhip_results_failed (GstVmafHip * self, const char *pad_name,
    const GError * error)
{
  const char *why = error ? error->message : "unknown error";

  if (self->cfg.write_failure == GST_VMAFHIP_WRITE_FAILURE_WARN) {
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
        ("%s's results file cannot be written: %s. Scoring goes on "
            "(write-failure=warn); the scores are still posted and "
            "attached, but the file is incomplete.", pad_name, why),
        ("property results-filename"));
    return;
  }
  GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
      ("%s's results file cannot be written: %s. The run fails; free the "
          "space or fix the path, or set write-failure=warn to keep scoring "
          "with a warning.", pad_name, why), ("property results-filename"));
  g_atomic_int_set (&self->results_write_failed, TRUE);
}

/* Frame `index` is final and reported: into the record and the results
 * file, then out of the engine's memory. */
static void
record_frame (GstVmafHip * self, unsigned index, const PendingFrame * pf)
{
  GError *error = NULL;
  gboolean stand_in = FALSE;

  while (!g_queue_is_empty (&self->stand_ins)
      && GPOINTER_TO_UINT (g_queue_peek_head (&self->stand_ins)) <= index + 1)
    stand_in = GPOINTER_TO_UINT (g_queue_pop_head (&self->stand_ins))
        == index + 1;
  if (!stand_in)
    gst_vmafhip_record_frame (self, &self->record, self->engine, index,
        pf ? &pf->t : NULL);
  if (!vh_engine_release_frames (self->engine, index + 1, self->cfg.subsample,
          &error)) {
    GST_WARNING_OBJECT (self, "%s", error->message);
    g_clear_error (&error);
  }
  self->n_recorded = index + 1;
}

/* Ends the results file with the pooled section and the measured rate;
 * a failure is reported as write-failure says. */
static void
finish_results (GstVmafHip * self, unsigned n_frames)
{
  const double secs = self->first_push_us
      ? (g_get_monotonic_time () - self->first_push_us) / 1e6 : 0.0;

  gst_vmafhip_record_finish (self, &self->record, self->engine,
      secs > 0 ? n_frames / secs : NAN);
}

/* The frames scored but still held when their buffers cannot go out (a
 * flush, downstream stopped): reported as every other (the frame message,
 * the monitor, the results file), so that the pooled message counts no
 * frame the messages did not show; only the buffers are dropped. */
static void
report_held_frames (GstVmafHip * self, unsigned n_frames)
{
  for (GList * l = self->pending.head; l; l = l->next) {
    const PendingFrame *pf = l->data;
    if (pf->index >= 0 && !pf->stand_in
        && (unsigned) pf->index >= self->n_recorded
        && (unsigned) pf->index < n_frames) {
      GstStructure *scores = gst_structure_new_empty ("scores");
      report_frame (self, pf, scores);
      gst_structure_free (scores);
    }
  }
  while (self->n_recorded < n_frames)
    record_frame (self, self->n_recorded, NULL);
}

/* Every way a measurement ends (EOS, a stop without EOS, a flushing seek)
 * ends here: the frames already paired are scored (or counted as dropped,
 * with the reason, where the engine cannot finish them), reported whether
 * or not their buffers went out, the pooled message says how it ended
 * (`end`), and the results file is finished with its pooled section.
 * Returns the frames scored. */
static unsigned
conclude (GstVmafHip * self, const char *end)
{
  GError *error = NULL;
  gchar *dropped_why = NULL;
  unsigned n_frames, n_dropped = 0;

  self->finished = TRUE;
  if (self->engine && vh_engine_n_pushed (self->engine) > 0) {
    if (!vh_engine_flush (self->engine, &error)) {
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("Cannot score the last frames: %s. They are counted as dropped "
              "in the pooled message.", error->message), (NULL));
      dropped_why = g_strdup (error->message);
      g_clear_error (&error);
    }
    n_dropped = vh_engine_n_pushed (self->engine)
        - vh_engine_n_final (self->engine);
    report_held_frames (self, vh_engine_n_final (self->engine));
  }
  /* every segment's frames */
  n_frames = self->record.n_frames;
  if (n_frames + n_dropped > 0) {
    GST_INFO_OBJECT (self, "end of measurement (%s): %u frames, %u dropped",
        end, n_frames, n_dropped);
    gst_vmafhip_watch_finish (&self->watch);
    post_pooled (self, n_dropped, end, dropped_why);
  }
  if (n_frames > 0)
    finish_results (self, n_frames);
  g_free (dropped_why);
  return n_frames;
}

gboolean
gst_vmafhip_end_segment (GstVmafHip * self, int which,
    const GstVideoInfo * info)
{
  GError *error = NULL;
  GstFlowReturn ret;

  if (!self->engine || vh_engine_n_pushed (self->engine) == 0)
    return TRUE;
  if (!vh_engine_flush (self->engine, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot finish the frames scored before the video changed: %s",
            error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  /* out with the caps they came with */
  ret = gst_vmafhip_emit_ready (self);
  if (ret != GST_FLOW_OK)
    GST_INFO_OBJECT (self, "pushing the segment's last frames: %s",
        gst_flow_get_name (ret));
  report_held_frames (self, vh_engine_n_final (self->engine));
  /* frames downstream did not take: reported, their buffers dropped (the
   * next engine numbers its frames from 0 again) */
  while (!g_queue_is_empty (&self->pending))
    gst_vmafhip_pending_frame_free (g_queue_pop_head (&self->pending));
  gst_vmafhip_record_end_segment (self, &self->record, self->engine,
      side_name (which), &self->side[which].info, info);
  self->n_recorded = 0;
  g_queue_clear (&self->stand_ins);
  gst_clear_buffer (&self->last_dist);
  gst_clear_buffer (&self->held_dist);
  g_clear_pointer (&self->engine, vh_engine_free);
  self->engine_sized = FALSE;
  return TRUE;
}

/* A flushing seek: the pooled message and results files of what was
 * scored before it, as upstream posts its statistics there (the frames
 * still held are scored and reported but not pushed; the results files
 * start again after the seek). */
void
gst_vmafhip_conclude_before_flush (GstVmafHip * self)
{
  gst_vmafhip_renditions_finish (self, "flushing-seek");
  if (!self->finished)
    conclude (self, "flushing-seek");
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
    conclude (self, "stopped");
}

/* The end of the measurement: whichever input ended first. */
GstFlowReturn
gst_vmafhip_finish (GstVmafHip * self)
{
  GstFlowReturn ret;
  gboolean failed = FALSE;

  /* the renditions end with the reference frames */
  gst_vmafhip_renditions_finish (self, "eos");
  /* every frame scored, then pushed downstream where it can go */
  if (self->engine && vh_engine_n_pushed (self->engine) > 0) {
    GError *error = NULL;
    if (vh_engine_flush (self->engine, &error)) {
      ret = gst_vmafhip_emit_ready (self);
      if (ret != GST_FLOW_OK)
        GST_INFO_OBJECT (self, "pushing the last frames: %s",
            gst_flow_get_name (ret));
    } else {
      /* the run fails; conclude still reports what was scored */
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Cannot finish the measurement: %s", error->message), (NULL));
      g_clear_error (&error);
      failed = TRUE;
    }
  }
  if (conclude (self, "eos") == 0 && !failed) {
    g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("No frame pair was scored: one of the inputs ended before sending "
            "a frame, so there is no pooled score%s.",
            self->write_log ? " and no results file" : ""), (NULL));
    return GST_FLOW_EOS;
  }
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  if (failed || g_atomic_int_get (&self->results_write_failed))
    return GST_FLOW_ERROR;
  return GST_FLOW_EOS;
}
