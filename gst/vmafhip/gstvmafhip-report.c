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

/* Pushes one reference buffer; dist_sink's frame scored with it goes out
 * with it (its scores in the buffer's meta, its message, its record). */
static GstFlowReturn
output_frame (GstVmafHip * self, PendingFrame * pf)
{
  GstBuffer *buf = gst_buffer_make_writable (pf->buffer);
  GstVmafHipStream *stream = &self->dist_stream;
  const gboolean reported = pf->index >= 0 && !pf->stand_in;
  GstVmafHipMeta *meta = gst_buffer_add_vmafhip_meta (buf, reported
      ? (gint) gst_vmafhip_record_number (&stream->record) : -1);

  pf->buffer = NULL;
  /* the scores go straight into the meta's structure; the message copies
   * them from there */
  if (pf->index >= 0)
    gst_vmafhip_stream_report (self, stream, (guint) pf->index + 1,
        reported && meta ? gst_custom_meta_get_structure (meta) : NULL);
  gst_clear_buffer (&pf->held_dist);
  g_free (pf);
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), buf);
}

/* Pushes, in order, every held frame whose scores are final. */
GstFlowReturn
gst_vmafhip_emit_ready (GstVmafHip * self)
{
  const unsigned n_final = self->dist_stream.engine ? vh_engine_n_final (self->dist_stream.engine) : 0;
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

/* Every way a measurement ends (EOS, a stop without EOS, a flushing seek)
 * ends here: dist_sink's frames already paired are scored (or counted as
 * dropped, with the reason, where the engine cannot finish them) and
 * reported whether or not their buffers went out, the pooled message says
 * how it ended (`end`), and the results file is finished with its pooled
 * section.  Returns the frames scored. */
static unsigned
conclude (GstVmafHip * self, const char *end)
{
  guint64 unpaired_ref;

  self->finished = TRUE;
  GST_OBJECT_LOCK (self);
  unpaired_ref = self->unpaired_ref;
  GST_OBJECT_UNLOCK (self);
  return gst_vmafhip_stream_conclude (self, &self->dist_stream, end,
      (gint64) unpaired_ref);
}

gboolean
gst_vmafhip_end_segment (GstVmafHip * self, int which,
    const GstVideoInfo * info)
{
  GstVmafHipStream *stream = &self->dist_stream;
  GError *error = NULL;
  GstFlowReturn ret;

  if (!stream->engine || vh_engine_n_pushed (stream->engine) == 0)
    return TRUE;
  if (!vh_engine_flush (stream->engine, &error)) {
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
  /* frames downstream did not take are reported all the same (by
   * end_segment), their buffers dropped: the next engine numbers its
   * frames from 0 again */
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  gst_vmafhip_stream_end_segment (self, stream, side_name (which),
      &self->side[which].info, info);
  gst_clear_buffer (&self->held_dist);
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
  if (self->dist_stream.engine && vh_engine_n_pushed (self->dist_stream.engine) > 0) {
    GError *error = NULL;
    if (vh_engine_flush (self->dist_stream.engine, &error)) {
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
