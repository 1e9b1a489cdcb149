/* vmafhip — the element's reports: frame messages, buffer meta, pooled
 * scores and the results file. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstvmafhipmeta.h"

#include "gstvmafhip-private.h"
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

static gboolean
metric_reported (GstVmafHip * self, unsigned metric)
{
  return gst_vmafhip_metric_reported (self, self->engine, metric);
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

static void record_frame (GstVmafHip * self, unsigned index);

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

  gst_vmafhip_add_frame_scores (self, self->engine, scores, (unsigned) index);
  gst_vmafhip_monitor_push (self, index, pf->running_time, pf->duration,
      scores);
  if (!GST_CLOCK_TIME_IS_VALID (self->first_pts)) {
    self->first_pts = pf->pts;
    self->first_running_time = pf->running_time;
    self->first_stream_time = pf->stream_time;
  }
  if (GST_CLOCK_TIME_IS_VALID (pf->pts))
    self->end_pts = pf->pts + (GST_CLOCK_TIME_IS_VALID (pf->duration)
        ? pf->duration : 0);

  if (self->cfg.frame_message
      && vh_subsample_computes (FALSE, self->cfg.subsample, (unsigned) index)) {
    GstStructure *s = gst_structure_new ("VMAF",
        "timestamp", G_TYPE_UINT64, pf->pts,
        "stream-time", G_TYPE_UINT64, pf->stream_time,
        "running-time", G_TYPE_UINT64, pf->running_time,
        "duration", G_TYPE_UINT64, pf->duration,
        "index", G_TYPE_INT, index,
        "type", G_TYPE_STRING, "frame",
        "pad", G_TYPE_STRING, "dist_sink", NULL);
    gst_structure_foreach (scores, copy_field, s);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), s));
  }
  record_frame (self, (unsigned) index);
}

/* Pushes one reference buffer with its meta (and posts its message). */
static GstFlowReturn
output_frame (GstVmafHip * self, PendingFrame * pf)
{
  GstBuffer *buf = gst_buffer_make_writable (pf->buffer);
  /* the scores go straight into the meta's structure; the message copies
   * them from there */
  GstVmafHipMeta *meta = gst_buffer_add_vmafhip_meta (buf, pf->index);

  pf->buffer = NULL;
  if (pf->index >= 0 && meta)
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
  return GST_FLOW_OK;
}

PendingFrame *
gst_vmafhip_queue_frame (GstVmafHip * self, GstBuffer * ref, gint index)
{
  GstAggregatorPad *pad = self->side[REF].pad;
  PendingFrame *pf = g_new0 (PendingFrame, 1);

  pf->buffer = ref;
  pf->index = index;
  pf->pts = GST_BUFFER_PTS (ref);
  pf->duration = GST_BUFFER_DURATION (ref);
  if (!GST_CLOCK_TIME_IS_VALID (pf->duration))
    pf->duration = self->frame_duration;
  pf->running_time = pf->stream_time = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (pf->pts)) {
    GST_OBJECT_LOCK (pad);
    if (pad->segment.format == GST_FORMAT_TIME) {
      pf->running_time = gst_segment_to_running_time (&pad->segment,
          GST_FORMAT_TIME, pf->pts);
      pf->stream_time = gst_segment_to_stream_time (&pad->segment,
          GST_FORMAT_TIME, pf->pts);
    }
    GST_OBJECT_UNLOCK (pad);
  }
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
gst_vmafhip_add_pooled_scores (GstVmafHip * self, const VhEngine * engine,
    GstStructure * s)
{
  const VhScoreTable *t = vh_engine_scores (engine);
  const unsigned n = vh_score_table_n_metrics (t);
  const unsigned sub = self->cfg.subsample;
  const GstVmafHipPoolMethod method = self->cfg.pool_method;
  VhPooled p;
  const int first = vh_score_table_find (t, first_model_name (self));

  if (first >= 0 && vh_score_table_pool_all (t, (unsigned) first, sub, &p))
    gst_structure_set (s, "score", G_TYPE_DOUBLE,
        vh_pooled_get (&p, engine_pool_method (method)), NULL);
  for (unsigned m = 0; m < n; m++) {
    const char *name = vh_score_table_metric_name (t, m);
    if (!gst_vmafhip_metric_reported (self, engine, m)
        || !vh_score_table_pool_all (t, m, sub, &p))
      continue;
    set_pooled (s, name, &p, method);
    if (self->cfg.psnr && !strcmp (name, "psnr_y"))
      set_pooled (s, "psnr-y", &p, method);
  }
}

static void
post_pooled (GstVmafHip * self, unsigned n_frames)
{
  GstClockTime duration = GST_CLOCK_TIME_NONE;
  GstStructure *s;

  if (GST_CLOCK_TIME_IS_VALID (self->first_pts)
      && GST_CLOCK_TIME_IS_VALID (self->end_pts)
      && self->end_pts >= self->first_pts)
    duration = self->end_pts - self->first_pts;

  GST_OBJECT_LOCK (self);
  s = gst_structure_new ("VMAF",
      "timestamp", G_TYPE_UINT64, self->first_pts,
      "stream-time", G_TYPE_UINT64, self->first_stream_time,
      "running-time", G_TYPE_UINT64, self->first_running_time,
      "duration", G_TYPE_UINT64, duration,
      "type", G_TYPE_STRING, "pooled",
      "pad", G_TYPE_STRING, "dist_sink",
      "n-frames", G_TYPE_UINT, n_frames,
      "unpaired-ref", G_TYPE_UINT64, self->unpaired_ref,
      "unpaired-dist", G_TYPE_UINT64, self->unpaired_dist, NULL);
  GST_OBJECT_UNLOCK (self);

  gst_vmafhip_add_pooled_scores (self, self->engine, s);
  GST_INFO_OBJECT (self, "pooled: %" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

static gboolean
log_includes_metric (unsigned metric, gpointer self)
{
  return metric_reported (self, metric);
}

/* The results file stopped taking data: say so once, keep scoring (the
 * messages and the meta still carry every score). */
static void
results_file_failed (GstVmafHip * self, GError * error)
{
  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("The results file stopped working: %s. Scoring goes on; the scores "
          "are still posted and attached, but the file is incomplete.",
          error->message), ("property results-filename"));
  g_clear_pointer (&self->log_writer, vh_log_writer_free);
  self->log_failed = TRUE;
}

/* Frame `index` is final and reported: into the results file (opened with
 * the first frame), then out of the engine's memory. */
static void
record_frame (GstVmafHip * self, unsigned index)
{
  const VhScoreTable *t = vh_engine_scores (self->engine);
  GError *error = NULL;

  if (self->write_log && !self->log_failed) {
    if (!self->log_writer) {
      const VhLogFilter filter = { log_includes_metric, self };
      /* the fps is patched in at the end */
      const VhLogInfo li = { self->engine_info.width,
        self->engine_info.height, NAN, self->cfg.subsample
      };
      self->log_writer = vh_log_writer_open (self->cfg.results_filename,
          self->log_format, &li, &filter, &error);
    }
    if (!self->log_writer
        || !vh_log_writer_add_frame (self->log_writer, t, index, &error))
      results_file_failed (self, error);
    g_clear_error (&error);
  }
  if (!vh_engine_release_frames (self->engine, index + 1, self->cfg.subsample,
          &error)) {
    GST_WARNING_OBJECT (self, "%s", error->message);
    g_clear_error (&error);
  }
  self->n_recorded = index + 1;
}

/* Ends the results file with the pooled section and the measured rate. */
static gboolean
finish_results (GstVmafHip * self, unsigned n_frames, GError ** error)
{
  const double secs = self->first_push_us
      ? (g_get_monotonic_time () - self->first_push_us) / 1e6 : 0.0;
  gboolean ok;

  if (!self->log_writer)
    return TRUE;
  ok = vh_log_writer_finish (self->log_writer, vh_engine_scores
      (self->engine), secs > 0 ? n_frames / secs : NAN, error);
  g_clear_pointer (&self->log_writer, vh_log_writer_free);
  return ok;
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
    if (pf->index >= 0 && (unsigned) pf->index >= self->n_recorded
        && (unsigned) pf->index < n_frames) {
      GstStructure *scores = gst_structure_new_empty ("scores");
      report_frame (self, pf, scores);
      gst_structure_free (scores);
    }
  }
  while (self->n_recorded < n_frames)
    record_frame (self, self->n_recorded);
}

/* A flushing seek: the pooled message of what was scored before it, as
 * upstream posts its statistics there (the frames still held are scored
 * and reported but not pushed; the results file starts again after the
 * seek). */
void
gst_vmafhip_post_pooled_before_flush (GstVmafHip * self)
{
  GError *error = NULL;
  unsigned n_frames;

  if (!self->engine || self->finished
      || vh_engine_n_pushed (self->engine) == 0)
    return;
  if (!vh_engine_flush (self->engine, &error)) {
    GST_WARNING_OBJECT (self, "no pooled message before the seek: %s",
        error->message);
    g_clear_error (&error);
    return;
  }
  n_frames = vh_engine_n_final (self->engine);
  report_held_frames (self, n_frames);
  if (n_frames == 0)
    return;
  gst_vmafhip_monitor_finish (self);
  post_pooled (self, n_frames);
}

/* The end of the measurement: whichever input ended first. */
GstFlowReturn
gst_vmafhip_finish (GstVmafHip * self)
{
  GError *error = NULL;
  GstFlowReturn ret;
  unsigned n_frames = 0;

  self->finished = TRUE;
  /* the renditions end with the reference frames */
  gst_vmafhip_renditions_finish (self);
  if (self->engine && vh_engine_n_pushed (self->engine) > 0
      && !vh_engine_flush (self->engine, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot finish the measurement: %s", error->message), (NULL));
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }
  ret = gst_vmafhip_emit_ready (self);
  if (ret != GST_FLOW_OK)
    GST_INFO_OBJECT (self, "pushing the last frames: %s",
        gst_flow_get_name (ret));
  if (self->engine)
    n_frames = vh_engine_n_final (self->engine);
  report_held_frames (self, n_frames);
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  if (n_frames == 0) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("No frame pair was scored: one of the inputs ended before sending "
            "a frame, so there is no pooled score%s.",
            self->write_log ? " and no results file" : ""), (NULL));
    return GST_FLOW_EOS;
  }
  GST_INFO_OBJECT (self, "end of measurement: %u frames", n_frames);
  gst_vmafhip_monitor_finish (self);
  post_pooled (self, n_frames);
  if (!finish_results (self, n_frames, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot write the results file: %s", error->message),
        ("property results-filename"));
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_EOS;
}

