/* vmafhip — a distorted pad's record of what it reported (see
 * gstvmafhip-record.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include <gst/video/video.h>

#include "gstvmafhip-private.h"
#include "gstvmafhip-record.h"
#include "vh-accel.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

void
gst_vmafhip_record_init (GstVmafHipRecord * rec, const char *pad_name,
    const char *path)
{
  memset (rec, 0, sizeof *rec);
  rec->pad_name = g_strdup (pad_name);
  rec->path = g_strdup (path);
  rec->scores = vh_score_table_new ();
  gst_vmafhip_record_reset (rec);
}

void
gst_vmafhip_record_reset (GstVmafHipRecord * rec)
{
  vh_score_table_clear (rec->scores);
  rec->n_frames = rec->segment_first = rec->n_segments = 0;
  rec->first = (GstVmafHipFrameTimes) { GST_CLOCK_TIME_NONE,
    GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE, GST_CLOCK_TIME_NONE, 0
  };
  rec->end_pts = GST_CLOCK_TIME_NONE;
  g_clear_pointer (&rec->segment_video, g_free);
  g_clear_pointer (&rec->log, vh_log_writer_free);
  rec->log_failed = FALSE;
}

void
gst_vmafhip_record_clear (GstVmafHipRecord * rec)
{
  gst_vmafhip_record_reset (rec);
  g_clear_pointer (&rec->scores, vh_score_table_free);
  g_clear_pointer (&rec->pad_name, g_free);
  g_clear_pointer (&rec->path, g_free);
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
  const struct
  {
    const char *suffix;
    double value;
  } fields[] = {
    {"", vh_pooled_get (p, engine_pool_method (method))},
    {"-mean", p->mean}, {"-harmonic-mean", p->harmonic_mean},
    {"-min", p->min}, {"-max", p->max},
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++) {
    gchar *field = g_strconcat (name, fields[i].suffix, NULL);
    gst_structure_set (s, field, G_TYPE_DOUBLE, fields[i].value, NULL);
    g_free (field);
  }
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
  /* aggregates (apsnr_y ...): one value each, under libvmaf's key */
  for (unsigned k = 0; k < vh_score_table_n_aggregates (t); k++) {
    double v;
    const char *name = vh_score_table_aggregate (t, k, &v);
    gst_structure_set (s, name, G_TYPE_DOUBLE, v, NULL);
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

guint
gst_vmafhip_record_number (const GstVmafHipRecord * rec)
{
  return rec->n_frames;
}

gchar *
gst_vmafhip_describe_video (const GstVideoInfo * info)
{
  return g_strdup_printf ("%dx%d %s %d/%d", GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), GST_VIDEO_INFO_NAME (info),
      GST_VIDEO_INFO_FPS_N (info), GST_VIDEO_INFO_FPS_D (info));
}

gchar *
gst_vmafhip_describe_pair (const GstVideoInfo * dist, const GstVideoInfo * ref)
{
  gchar *d = gst_vmafhip_describe_video (dist);
  gchar *r = gst_vmafhip_describe_video (ref);
  gchar *text = g_strdup_printf ("%s against the reference's %s", d, r);
  g_free (d);
  g_free (r);
  return text;
}

void
gst_vmafhip_record_set_video (GstVmafHipRecord * rec, const char *video,
    guint width, guint height)
{
  g_free (rec->segment_video);
  rec->segment_video = g_strdup (video);
  if (!rec->log_width) {
    rec->log_width = width;
    rec->log_height = height;
  }
}

static void
log_failed (GstVmafHip * self, GstVmafHipRecord * rec, GError * error)
{
  gst_vmafhip_results_failed (self, rec->pad_name, error);
  g_clear_pointer (&rec->log, vh_log_writer_free);
  rec->log_failed = TRUE;
}

GstStructure *
gst_vmafhip_record_frame_message (const GstVmafHipRecord * rec,
    const GstVmafHipFrameTimes * t)
{
  return gst_structure_new ("VMAF",
      "timestamp", G_TYPE_UINT64, t->pts,
      "stream-time", G_TYPE_UINT64, t->stream_time,
      "running-time", G_TYPE_UINT64, t->running_time,
      "duration", G_TYPE_UINT64, t->duration,
      "index", G_TYPE_INT, (gint) rec->n_frames,
      "ref-index", G_TYPE_UINT64, t->ref_index,
      "type", G_TYPE_STRING, "frame",
      "pad", G_TYPE_STRING, rec->pad_name, NULL);
}

void
gst_vmafhip_record_frame (GstVmafHip * self, GstVmafHipRecord * rec,
    const VhEngine * engine, guint frame, const GstVmafHipFrameTimes * times)
{
  const VhScoreTable *t = vh_engine_scores (engine);
  const guint number = rec->n_frames;
  const VhLogFrameSource source = { times ? times->ref_index : 0, times
        && GST_CLOCK_TIME_IS_VALID (times->pts)
        ? times->pts / (double) GST_SECOND : NAN
  };
  GError *error = NULL;

  rec->n_frames = number + 1;
  if (times && !GST_CLOCK_TIME_IS_VALID (rec->first.pts))
    rec->first = *times;
  if (times && GST_CLOCK_TIME_IS_VALID (times->pts))
    rec->end_pts = times->pts + (GST_CLOCK_TIME_IS_VALID (times->duration)
        ? times->duration : 0);
  /* the frames the engine computes (subsample): their values only, so that
   * the pools are those of the engine's grid */
  if (!vh_engine_scores_frame (engine, frame))
    return;
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    double v;
    if (gst_vmafhip_metric_reported (self, engine, m)
        && vh_score_table_get (t, m, frame, &v))
      vh_score_table_set (rec->scores, vh_score_table_metric (rec->scores,
              vh_score_table_metric_name (t, m)), number, v);
  }
  if (rec->path && !rec->log_failed) {
    if (!rec->log) {
      /* every frame in the record is one to write; the fps is patched in
       * at the end */
      const VhLogInfo li = { rec->log_width, rec->log_height, NAN, 1 };
      rec->log = vh_log_writer_open (rec->path, self->log_format, &li, NULL,
          &error);
    }
    if (!rec->log || !vh_log_writer_add_frame_from (rec->log, rec->scores,
            number, &source, &error))
      log_failed (self, rec, error);
    g_clear_error (&error);
  }
  /* only the pools stay */
  vh_score_table_retire (rec->scores, number + 1, 1);
}

typedef struct
{
  GstVmafHip *self;
  const VhEngine *engine;
} ReportedFilter;

static gboolean
reported (unsigned metric, gpointer data)
{
  const ReportedFilter *f = data;
  return gst_vmafhip_metric_reported (f->self, f->engine, metric);
}

/* The current segment's entry in the results file */
static void
log_segment (GstVmafHip * self, GstVmafHipRecord * rec,
    const VhEngine * engine)
{
  ReportedFilter data = { self, engine };
  const VhLogFilter filter = { reported, &data };

  if (rec->log && rec->n_frames > rec->segment_first)
    vh_log_writer_add_segment (rec->log, rec->segment_first,
        rec->n_frames - 1, rec->segment_video ? rec->segment_video : "",
        vh_engine_scores (engine), vh_engine_subsample (engine), &filter);
}

void
gst_vmafhip_record_end_segment (GstVmafHip * self, GstVmafHipRecord * rec,
    const VhEngine * engine, const char *changed_pad,
    const GstVideoInfo * old_info, const GstVideoInfo * new_info)
{
  if (rec->n_frames > rec->segment_first) {
    gchar *old_video = gst_vmafhip_describe_video (old_info);
    gchar *new_video = gst_vmafhip_describe_video (new_info);
    GstStructure *s = gst_structure_new ("vmafhip-segment",
        "pad", G_TYPE_STRING, rec->pad_name,
        "changed-pad", G_TYPE_STRING, changed_pad,
        "old-video", G_TYPE_STRING, old_video,
        "new-video", G_TYPE_STRING, new_video,
        "first-frame", G_TYPE_UINT, rec->segment_first,
        "last-frame", G_TYPE_UINT, rec->n_frames - 1,
        "n-frames", G_TYPE_UINT, rec->n_frames - rec->segment_first, NULL);
    g_free (old_video);
    g_free (new_video);
    gst_vmafhip_add_pooled_table (self, vh_engine_scores (engine),
        vh_engine_subsample (engine), engine, s);
    GST_INFO_OBJECT (self, "%s: new segment: %" GST_PTR_FORMAT,
        rec->pad_name, s);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_element (GST_OBJECT (self), s));
    log_segment (self, rec, engine);
    rec->n_segments++;
  }
  rec->segment_first = rec->n_frames;
  /* described when its engine is set up (both pads' video known then) */
  g_clear_pointer (&rec->segment_video, g_free);
}

GstStructure *
gst_vmafhip_record_pooled_message (GstVmafHip * self,
    const GstVmafHipRecord * rec, const char *end, guint n_dropped,
    const char *dropped_why)
{
  const GstClockTime start = rec->first.pts;
  GstStructure *s = gst_structure_new ("VMAF",
      "timestamp", G_TYPE_UINT64, start,
      "stream-time", G_TYPE_UINT64, rec->first.stream_time,
      "running-time", G_TYPE_UINT64, rec->first.running_time,
      "duration", G_TYPE_UINT64, GST_CLOCK_TIME_IS_VALID (start)
      && GST_CLOCK_TIME_IS_VALID (rec->end_pts) && rec->end_pts >= start
      ? rec->end_pts - start : GST_CLOCK_TIME_NONE,
      "type", G_TYPE_STRING, "pooled",
      "pad", G_TYPE_STRING, rec->pad_name,
      "n-frames", G_TYPE_UINT, rec->n_frames,
      "end", G_TYPE_STRING, end,
      "n-dropped", G_TYPE_UINT, n_dropped,
      "n-segments", G_TYPE_UINT, rec->n_segments + 1, NULL);

  if (n_dropped)
    gst_structure_set (s, "dropped-reason", G_TYPE_STRING, dropped_why, NULL);
  /* (the record holds the reported metrics only, on the grid's frames) */
  gst_vmafhip_add_pooled_table (self, rec->scores, 1, NULL, s);
  return s;
}

void
gst_vmafhip_record_finish (GstVmafHip * self, GstVmafHipRecord * rec,
    const VhEngine * engine, double fps)
{
  GError *error = NULL;

  if (!rec->log)
    return;
  if (rec->n_segments > 0 && engine)
    log_segment (self, rec, engine);
  if (!vh_log_writer_finish (rec->log, rec->scores, fps, &error))
    log_failed (self, rec, error);
  g_clear_error (&error);
  g_clear_pointer (&rec->log, vh_log_writer_free);
}
