/* vmafhip — live monitoring in the element: the models' scores of every
 * frame a distorted pad reports, at its running time, into that pad's
 * monitor (common/io/monitor.c: dist_sink's and each rendition's, a
 * GstVmafHipWatch), and its events as messages naming the pad: "VMAF" of
 * type "window" and "interval", and "vmafhip-alarm" (docs/element.md). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

static const char *
model_name (GstVmafHip * self, guint m)
{
  return ((ModelSpec *) g_ptr_array_index (self->specs, m))->report_name;
}

gboolean
gst_vmafhip_monitor_start (GstVmafHip * self)
{
  GError *error = NULL;

  gst_vmafhip_watch_clear (&self->dist_stream.watch);
  if (!vh_monitor_settings_active (&self->cfg.monitor))
    return TRUE;
  if (self->specs->len == 0) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Invalid monitoring settings: windows, alarms and intervals watch "
            "a model's score, and no model is set"), (NULL));
    return FALSE;
  }
  if (!vh_monitor_settings_check (&self->cfg.monitor, 0, &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Invalid monitoring settings: %s", error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  gst_vmafhip_watch_start (self, &self->dist_stream.watch, &self->dist_stream.record);
  return TRUE;
}

void
gst_vmafhip_watch_start (GstVmafHip * self, GstVmafHipWatch * watch,
    GstVmafHipRecord * record)
{
  gst_vmafhip_watch_clear (watch);
  watch->self = self;
  watch->record = record;
  if (!vh_monitor_settings_active (&self->cfg.monitor)
      || self->specs->len == 0)
    return;
  watch->monitor = vh_monitor_new (&self->cfg.monitor, self->specs->len);
  watch->scores = g_new0 (double, self->specs->len);
}

gboolean
gst_vmafhip_monitor_check_rate (GstVmafHip * self, GstClockTime frame)
{
  GError *error = NULL;

  if (!self->dist_stream.watch.monitor || !GST_CLOCK_TIME_IS_VALID (frame))
    return TRUE;
  if (!vh_monitor_settings_check (&self->cfg.monitor, frame, &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Invalid monitoring settings for this stream: %s", error->message),
        (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  return TRUE;
}

static void
set_stats (GstStructure * s, const char *name, const VhMonitorStats * st)
{
  const struct
  {
    const char *suffix;
    double value;
  } fields[] = {
    {"-mean", st->mean}, {"-min", st->min}, {"-max", st->max},
    {"-harmonic-mean", st->harmonic_mean}, {"-p5", st->p5},
  };

  for (guint i = 0; i < G_N_ELEMENTS (fields); i++) {
    gchar *field = g_strconcat (name, fields[i].suffix, NULL);
    gst_structure_set (s, field, G_TYPE_DOUBLE, fields[i].value, NULL);
    g_free (field);
  }
}

static void
post_event (const VhMonitorEvent * e, gpointer data)
{
  const GstVmafHipWatch *watch = data;
  GstVmafHip *self = watch->self;
  const char *pad = watch->record->pad_name;
  GstStructure *s;

  if (e->kind == VH_MONITOR_WINDOW || e->kind == VH_MONITOR_INTERVAL) {
    s = gst_structure_new ("VMAF",
        "pad", G_TYPE_STRING, pad,
        "type", G_TYPE_STRING,
        e->kind == VH_MONITOR_WINDOW ? "window" : "interval",
        "running-time", G_TYPE_UINT64, e->start,
        "duration", G_TYPE_UINT64, e->end - e->start,
        "n-frames", G_TYPE_UINT, e->n_frames,
        "score", G_TYPE_DOUBLE, e->stats[0].mean, NULL);
    for (guint m = 0; m < self->specs->len; m++)
      set_stats (s, model_name (self, m), &e->stats[m]);
    /* intervals also go into the results file, at its end */
    if (e->kind == VH_MONITOR_INTERVAL && watch->record->log) {
      const char **names = g_new (const char *, self->specs->len);
      for (guint m = 0; m < self->specs->len; m++)
        names[m] = model_name (self, m);
      vh_log_writer_add_interval (watch->record->log, e->start / 1e9,
          e->end / 1e9, e->n_frames, self->specs->len, names, e->stats);
      g_free (names);
    }
  } else {
    const gboolean raised = e->kind == VH_MONITOR_ALARM;
    s = gst_structure_new ("vmafhip-alarm",
        "pad", G_TYPE_STRING, pad,
        "state", G_TYPE_STRING, raised ? "raised" : "cleared",
        "model", G_TYPE_STRING, model_name (self, 0),
        "running-time", G_TYPE_UINT64, e->start,
        "duration", G_TYPE_UINT64, e->end - e->start,
        "threshold", G_TYPE_DOUBLE, self->cfg.monitor.alarm_threshold,
        "windowed-score", G_TYPE_DOUBLE, e->windowed,
        "worst-index", G_TYPE_UINT64, e->worst_index,
        "worst-running-time", G_TYPE_UINT64, e->worst_time,
        "worst-score", G_TYPE_DOUBLE, e->worst_score, NULL);
    if (raised)
      GST_WARNING_OBJECT (self, "quality alarm: %" GST_PTR_FORMAT, s);
    else
      GST_INFO_OBJECT (self, "quality alarm cleared: %" GST_PTR_FORMAT, s);
  }
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

void
gst_vmafhip_watch_push (GstVmafHipWatch * watch, const VhEngine * engine,
    guint frame, guint number, GstClockTime running_time,
    GstClockTime duration)
{
  GstVmafHip *self = watch->self;

  if (!watch->monitor)
    return;
  if (!GST_CLOCK_TIME_IS_VALID (running_time)
      || !GST_CLOCK_TIME_IS_VALID (duration)) {
    if (!watch->warned_time) {
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("%s: frames without a running time or duration are left out of "
              "the windows, alarms and intervals", watch->record->pad_name),
          (NULL));
      watch->warned_time = TRUE;
    }
    return;
  }
  const VhScoreTable *t = vh_engine_scores (engine);
  for (guint m = 0; m < self->specs->len; m++) {
    const int metric = vh_score_table_find (t, model_name (self, m));
    if (metric < 0 || !vh_score_table_get (t, (unsigned) metric, frame,
            &watch->scores[m]))
      return;                   /* no model score for this frame */
  }
  vh_monitor_push (watch->monitor, number, running_time, duration,
      watch->scores, post_event, watch);
}

void
gst_vmafhip_watch_finish (GstVmafHipWatch * watch)
{
  if (watch->monitor)
    vh_monitor_finish (watch->monitor, post_event, watch);
}

void
gst_vmafhip_watch_reset (GstVmafHipWatch * watch)
{
  if (watch->monitor)
    vh_monitor_reset (watch->monitor);
}

void
gst_vmafhip_watch_clear (GstVmafHipWatch * watch)
{
  g_clear_pointer (&watch->monitor, vh_monitor_free);
  g_clear_pointer (&watch->scores, g_free);
  watch->warned_time = FALSE;
}
