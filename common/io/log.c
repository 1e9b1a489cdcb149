/* vmafhip — libvmaf-compatible log writers (JSON, XML, CSV, MicroDVD
 * subtitles).
 *
 * Same structure, keys and number formatting as libvmaf 3.2.0's output.c, so
 * tools that read libvmaf logs read ours: values print with %.6f, or %.16f
 * when a value has more than six leading zeros after the decimal point;
 * NaN/Inf print as JSON null. Numbers always use '.' (C locale).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vh-scores.h"

#define VH_LIBVMAF_VERSION "3.2.0"

static const struct {
  VhPoolMethod method;
  const char *name;
} pool_names[] = {
  {VH_POOL_MIN, "min"},
  {VH_POOL_MAX, "max"},
  {VH_POOL_MEAN, "mean"},
  {VH_POOL_HARMONIC_MEAN, "harmonic_mean"},
};

bool
vh_log_format_from_string (const char *s, VhLogFormat *format)
{
  if (!s)
    return false;
  if (!g_ascii_strcasecmp (s, "json"))
    *format = VH_LOG_JSON;
  else if (!g_ascii_strcasecmp (s, "xml"))
    *format = VH_LOG_XML;
  else if (!g_ascii_strcasecmp (s, "csv"))
    *format = VH_LOG_CSV;
  else if (!g_ascii_strcasecmp (s, "sub"))
    *format = VH_LOG_SUB;
  else
    return false;
  return true;
}

/* Width reserved for the fps a stream's log learns only at its end. */
#define VH_LOG_FPS_WIDTH 24

static bool
metric_included (const VhLogFilter *filter, unsigned metric)
{
  return !filter || !filter->include || filter->include (metric,
      filter->data);
}

static int
leading_fraction_zeros (double x)
{
  double frac = fabs (x) - (double) (long long) fabs (x);
  int zeros = 0;
  while (frac < 1.0 && frac != 0.0 && zeros < 400) {
    frac *= 10.0;
    zeros++;
  }
  return zeros;
}

/* Appends a number the way libvmaf prints it. */
static void
append_number (GString *out, double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE + 64];
  if (!isfinite (v)) {
    g_string_append (out, "null");
    return;
  }
  g_ascii_formatd (buf, sizeof buf,
      leading_fraction_zeros (v) <= 6 ? "%.6f" : "%.16f", v);
  g_string_append (out, buf);
}

/* One metric's statistics as JSON members ("name": value, each on its
 * line at `indent`) or XML attributes (name="value" ) */
static void
append_fields (GString *out, bool json, const char *indent,
    const char *const *names, const double *values, gsize n)
{
  for (gsize k = 0; k < n; k++) {
    if (json) {
      g_string_append_printf (out, "%s%s\"%s\": ", k ? ",\n" : "\n", indent,
          names[k]);
      append_number (out, values[k]);
    } else {
      g_string_append_printf (out, "%s=\"", names[k]);
      append_number (out, values[k]);
      g_string_append (out, "\" ");
    }
  }
}

/* A pooled metric's four statistics, in pool_names' order */
static void
append_pooled (GString *out, bool json, const char *indent,
    const VhPooled *p)
{
  const char *names[G_N_ELEMENTS (pool_names)];
  double values[G_N_ELEMENTS (pool_names)];
  for (gsize k = 0; k < G_N_ELEMENTS (pool_names); k++) {
    names[k] = pool_names[k].name;
    values[k] = vh_pooled_get (p, pool_names[k].method);
  }
  append_fields (out, json, indent, names, values, G_N_ELEMENTS (names));
}

static bool
frame_has_values (const VhScoreTable *t, const VhLogFilter *filter,
    unsigned frame)
{
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++)
    if (metric_included (filter, m) && vh_score_table_get (t, m, frame, NULL))
      return true;
  return false;
}

static bool
frame_selected (const VhScoreTable *t, const VhLogFilter *filter,
    const VhLogInfo *info, unsigned i)
{
  if (info->subsample > 1 && i % info->subsample)
    return false;
  return frame_has_values (t, filter, i);
}

/* The pieces of each format, shared by the whole-table writer and the
 * streaming one: head, one frame, pooled section and tail. The head's fps
 * is either known (whole table) or a fixed-width field patched at the end
 * (stream). */

static void
append_fps (GString *out, double fps, bool null_if_unknown)
{
  char buf[64];
  if (!isfinite (fps) && null_if_unknown) {
    g_string_append (out, "null");
    return;
  }
  g_ascii_formatd (buf, sizeof buf, "%.2f", isfinite (fps) ? fps : 0.0);
  g_string_append (out, buf);
}

static void
json_head (GString *out, double fps, gsize *fps_at)
{
  g_string_append (out, "{\n  \"version\": \"" VH_LIBVMAF_VERSION "\",\n");
  g_string_append (out, "  \"fps\": ");
  if (fps_at)
    *fps_at = out->len;
  append_fps (out, fps, true);
  if (fps_at)
    while (out->len < *fps_at + VH_LOG_FPS_WIDTH)
      g_string_append_c (out, ' ');
  g_string_append (out, ",\n  \"frames\": [");
}

static void
json_frame (GString *out, const VhScoreTable *t, const VhLogFilter *filter,
    unsigned i, bool first_frame, const VhLogFrameSource *source)
{
  g_string_append (out, first_frame ? "\n" : ",\n");
  g_string_append_printf (out, "    {\n      \"frameNum\": %u,\n", i);
  if (source) {
    g_string_append_printf (out, "      \"refFrameNum\": %" G_GUINT64_FORMAT
        ",\n      \"time\": ", source->ref_frame);
    append_number (out, source->time);
    g_string_append (out, ",\n");
  }
  g_string_append (out, "      \"metrics\": {\n");
  bool first = true;
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    double v;
    if (!metric_included (filter, m) || !vh_score_table_get (t, m, i, &v))
      continue;
    if (!first)
      g_string_append (out, ",\n");
    first = false;
    g_string_append_printf (out, "        \"%s\": ",
        vh_score_table_metric_name (t, m));
    append_number (out, v);
  }
  g_string_append (out, "\n      }\n    }");
}

static void
json_tail (GString *out, const VhScoreTable *t, const VhLogFilter *filter,
    const VhLogInfo *info, const GString *intervals, const GString *segments)
{
  g_string_append (out, "\n  ],\n  \"pooled_metrics\": {");
  bool first_metric = true;
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    VhPooled p;
    if (!metric_included (filter, m)
        || !vh_score_table_pool_all (t, m, info->subsample, &p))
      continue;
    g_string_append (out, first_metric ? "\n" : ",\n");
    first_metric = false;
    g_string_append_printf (out, "    \"%s\": {",
        vh_score_table_metric_name (t, m));
    append_pooled (out, true, "      ", &p);
    g_string_append (out, "\n    }");
  }
  g_string_append (out, "\n  },\n  \"aggregate_metrics\": {");
  /* as libvmaf: one per line, null where not finite */
  for (unsigned k = 0; k < vh_score_table_n_aggregates (t); k++) {
    double v;
    const char *name = vh_score_table_aggregate (t, k, &v);
    g_string_append_printf (out, "%s\n    \"%s\": ", k ? "," : "", name);
    append_number (out, v);
  }
  g_string_append (out, "\n  }");
  if (segments)
    g_string_append_printf (out, ",\n  \"segments\": [%s\n  ]",
        segments->str);
  if (intervals)
    g_string_append_printf (out, ",\n  \"intervals\": [%s\n  ]",
        intervals->str);
  g_string_append (out, "\n}\n");
}

static void
xml_head (GString *out, const VhLogInfo *info, double fps, gsize *fps_at)
{
  g_string_append_printf (out,
      "<VMAF version=\"" VH_LIBVMAF_VERSION "\">\n"
      "  <params qualityWidth=\"%u\" qualityHeight=\"%u\" />\n"
      "  <fyi fps=\"", info->width, info->height);
  if (fps_at)
    *fps_at = out->len;
  append_fps (out, fps, false);
  g_string_append_c (out, '"');
  if (fps_at)
    while (out->len < *fps_at + VH_LOG_FPS_WIDTH)
      g_string_append_c (out, ' ');
  g_string_append (out, " />\n  <frames>\n");
}

static void
xml_frame (GString *out, const VhScoreTable *t, const VhLogFilter *filter,
    unsigned i, const VhLogFrameSource *source)
{
  g_string_append_printf (out, "    <frame frameNum=\"%u\" ", i);
  if (source) {
    g_string_append_printf (out, "refFrameNum=\"%" G_GUINT64_FORMAT "\" "
        "time=\"", source->ref_frame);
    append_number (out, source->time);
    g_string_append (out, "\" ");
  }
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    double v;
    if (!metric_included (filter, m) || !vh_score_table_get (t, m, i, &v))
      continue;
    g_string_append_printf (out, "%s=\"", vh_score_table_metric_name (t, m));
    append_number (out, v);
    g_string_append (out, "\" ");
  }
  g_string_append (out, "/>\n");
}

static void
xml_tail (GString *out, const VhScoreTable *t, const VhLogFilter *filter,
    const VhLogInfo *info, const GString *intervals, const GString *segments)
{
  g_string_append (out, "  </frames>\n  <pooled_metrics>\n");
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    VhPooled p;
    if (!metric_included (filter, m))
      continue;
    g_string_append_printf (out, "    <metric name=\"%s\" ",
        vh_score_table_metric_name (t, m));
    if (vh_score_table_pool_all (t, m, info->subsample, &p))
      append_pooled (out, false, "", &p);
    g_string_append (out, "/>\n");
  }
  g_string_append (out, "  </pooled_metrics>\n  <aggregate_metrics ");
  for (unsigned k = 0; k < vh_score_table_n_aggregates (t); k++) {
    double v;
    const char *name = vh_score_table_aggregate (t, k, &v);
    g_string_append_printf (out, "%s=\"", name);
    if (isfinite (v))
      append_number (out, v);
    else                        /* libvmaf's printf: inf, -inf, nan */
      g_string_append (out, isnan (v) ? "nan" : v > 0 ? "inf" : "-inf");
    g_string_append (out, "\" ");
  }
  g_string_append (out, "/>\n");
  if (segments)
    g_string_append_printf (out, "  <segments>\n%s  </segments>\n",
        segments->str);
  if (intervals)
    g_string_append_printf (out, "  <intervals>\n%s  </intervals>\n",
        intervals->str);
  g_string_append (out, "</VMAF>\n");
}

static void
csv_head (GString *out, const VhScoreTable *t, const VhLogFilter *filter)
{
  g_string_append (out, "Frame,");
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++)
    if (metric_included (filter, m))
      g_string_append_printf (out, "%s,", vh_score_table_metric_name (t, m));
  g_string_append_c (out, '\n');
}

static void
csv_frame (GString *out, const VhScoreTable *t, const VhLogFilter *filter,
    unsigned i)
{
  g_string_append_printf (out, "%u,", i);
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    double v;
    if (!metric_included (filter, m) || !vh_score_table_get (t, m, i, &v))
      continue;
    append_number (out, v);
    g_string_append_c (out, ',');
  }
  g_string_append_c (out, '\n');
}

/* libvmaf's "sub" log: one MicroDVD subtitle per frame, shown from that
 * frame to the next ("{start}{end}text", '|' breaks lines), so a player
 * overlays the scores on the video; no head, no pooled section. */
static void
sub_frame (GString *out, const VhScoreTable *t, const VhLogFilter *filter,
    unsigned i)
{
  g_string_append_printf (out, "{%u}{%u}frame: %u|", i, i + 1, i);
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    double v;
    if (!metric_included (filter, m) || !vh_score_table_get (t, m, i, &v))
      continue;
    g_string_append_printf (out, "%s: ", vh_score_table_metric_name (t, m));
    append_number (out, v);
    g_string_append_c (out, '|');
  }
  g_string_append_c (out, '\n');
}

/* Everything before the first frame. `fps_at`: NULL when the fps is known
 * (whole table); otherwise the fps is left unknown in a fixed-width field
 * whose offset in `out` is stored there (0 for formats without one). */
static void
append_head (GString *out, VhLogFormat format, const VhScoreTable *t,
    const VhLogFilter *filter, const VhLogInfo *info, gsize *fps_at)
{
  const double fps = fps_at ? NAN : info->fps;

  if (fps_at)
    *fps_at = 0;
  switch (format) {
    case VH_LOG_XML:
      xml_head (out, info, fps, fps_at);
      break;
    case VH_LOG_CSV:
      csv_head (out, t, filter);
      break;
    case VH_LOG_SUB:
      break;
    case VH_LOG_JSON:
    default:
      json_head (out, fps, fps_at);
      break;
  }
}

/* One selected frame in `format` (the head written before it); where
 * `source` is given, JSON and XML say which reference frame it is. */
static void
append_frame (GString *out, VhLogFormat format, const VhScoreTable *t,
    const VhLogFilter *filter, unsigned i, bool first_frame,
    const VhLogFrameSource *source)
{
  switch (format) {
    case VH_LOG_XML:
      xml_frame (out, t, filter, i, source);
      break;
    case VH_LOG_CSV:
      csv_frame (out, t, filter, i);
      break;
    case VH_LOG_SUB:
      sub_frame (out, t, filter, i);
      break;
    case VH_LOG_JSON:
    default:
      json_frame (out, t, filter, i, first_frame, source);
      break;
  }
}

/* Everything after the last frame (CSV and sub have nothing there); the
 * segments' and intervals' sections (NULL: none) before the log's end. */
static void
append_tail (GString *out, VhLogFormat format, const VhScoreTable *t,
    const VhLogFilter *filter, const VhLogInfo *info,
    const GString *intervals, const GString *segments)
{
  if (format == VH_LOG_XML)
    xml_tail (out, t, filter, info, intervals, segments);
  else if (format == VH_LOG_JSON)
    json_tail (out, t, filter, info, intervals, segments);
}

void
vh_log_write_filtered (const VhScoreTable *t, VhLogFormat format,
    const VhLogInfo *info, const VhLogFilter *filter, GString *out)
{
  const unsigned n_frames = vh_score_table_n_frames (t);
  bool first_frame = true;

  append_head (out, format, t, filter, info, NULL);
  for (unsigned i = vh_score_table_first_frame (t); i < n_frames; i++) {
    if (!frame_selected (t, filter, info, i))
      continue;
    append_frame (out, format, t, filter, i, first_frame, NULL);
    first_frame = false;
  }
  append_tail (out, format, t, filter, info, NULL, NULL);
}

void
vh_log_write (const VhScoreTable *t, VhLogFormat format,
    const VhLogInfo *info, GString *out)
{
  vh_log_write_filtered (t, format, info, NULL, out);
}

gboolean
vh_log_write_file (const VhScoreTable *t, VhLogFormat format,
    const VhLogInfo *info, const char *path, GError **error)
{
  GString *out = g_string_new (NULL);
  GError *err = NULL;
  gboolean ok;

  vh_log_write (t, format, info, out);
  ok = g_file_set_contents (path, out->str, out->len, &err);
  if (!ok) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "cannot write results file '%s': %s", path, err->message);
    g_clear_error (&err);
  }
  g_string_free (out, TRUE);
  return ok;
}

/* ------------------------------------------------------ streaming writer */

struct VhLogWriter {
  FILE *file;
  char *path;
  VhLogFormat format;
  VhLogInfo info;
  VhLogFilter filter;
  gsize fps_at;                 /* file offset of the fps field; 0: none */
  bool head_written, any_frame;
  int failed_with;              /* errno of the first failed write; 0: none */
  GString *buf;
  /* intervals (vh_log_writer_add_interval), written at the end: JSON
   * objects or XML elements, comma-free; how many */
  GString *intervals;
  unsigned n_intervals;
  /* segments (vh_log_writer_add_segment), written at the end as the
   * intervals are; how many */
  GString *segments;
  unsigned n_segments;
};

static gboolean
writer_error (VhLogWriter *w, GError **error)
{
  g_set_error (error, VH_ERROR, VH_ERROR_IO,
      "cannot write results file '%s': %s", w->path,
      g_strerror (w->failed_with));
  return FALSE;
}

static gboolean
writer_fail (VhLogWriter *w, int err, GError **error)
{
  w->failed_with = err ? err : EIO;
  return writer_error (w, error);
}

/* Whether the log can take more. Once the file lost data every later call
 * fails with the first cause. */
static gboolean
writer_usable (VhLogWriter *w, GError **error)
{
  if (w->failed_with)
    return writer_error (w, error);
  if (!w->file) {
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "results file '%s' is already finished", w->path);
    return FALSE;
  }
  return TRUE;
}

/* Writes the buffer out and flushes, so a full disk shows at once. */
static gboolean
writer_flush (VhLogWriter *w, GError **error)
{
  if (!writer_usable (w, error))
    return FALSE;
  errno = 0;
  if ((w->buf->len && fwrite (w->buf->str, 1, w->buf->len, w->file)
          != w->buf->len) || fflush (w->file) != 0)
    return writer_fail (w, errno, error);
  g_string_truncate (w->buf, 0);
  return TRUE;
}

VhLogWriter *
vh_log_writer_open (const char *path, VhLogFormat format,
    const VhLogInfo *info, const VhLogFilter *filter, GError **error)
{
  FILE *file = fopen (path, "w");
  if (!file) {
    int e = errno;
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "cannot write results file '%s': %s", path, g_strerror (e));
    return NULL;
  }
  VhLogWriter *w = g_new0 (VhLogWriter, 1);
  w->file = file;
  w->path = g_strdup (path);
  w->format = format;
  w->info = *info;
  if (filter)
    w->filter = *filter;
  w->buf = g_string_new (NULL);
  return w;
}

const char *
vh_log_writer_path (const VhLogWriter *w)
{
  return w->path;
}

static void
writer_head (VhLogWriter *w, const VhScoreTable *t)
{
  append_head (w->buf, w->format, t, &w->filter, &w->info, &w->fps_at);
  w->head_written = true;
}

gboolean
vh_log_writer_add_frame (VhLogWriter *w, const VhScoreTable *t,
    unsigned frame, GError **error)
{
  return vh_log_writer_add_frame_from (w, t, frame, NULL, error);
}

gboolean
vh_log_writer_add_frame_from (VhLogWriter *w, const VhScoreTable *t,
    unsigned frame, const VhLogFrameSource *source, GError **error)
{
  if (!writer_usable (w, error))
    return FALSE;
  /* CSV's header names the metrics: written with the first frame, when
   * every metric exists */
  if (!w->head_written)
    writer_head (w, t);
  if (frame_selected (t, &w->filter, &w->info, frame)) {
    append_frame (w->buf, w->format, t, &w->filter, frame, !w->any_frame,
        source);
    w->any_frame = true;
  }
  return writer_flush (w, error);
}

void
vh_log_writer_add_interval (VhLogWriter *w, double start, double end,
    unsigned n_frames, unsigned n_models, const char *const *names,
    const VhMonitorStats *stats)
{
  if (w->format != VH_LOG_JSON && w->format != VH_LOG_XML)
    return;
  if (!w->intervals)
    w->intervals = g_string_new (NULL);
  GString *o = w->intervals;
  const bool json = w->format == VH_LOG_JSON;
  if (json) {
    g_string_append_printf (o, "%s    {\n      \"start\": %.6f,\n"
        "      \"end\": %.6f,\n      \"frames\": %u,\n"
        "      \"metrics\": {", w->n_intervals ? ",\n" : "\n", start, end,
        n_frames);
  } else {
    g_string_append_printf (o, "    <interval start=\"%.6f\" end=\"%.6f\" "
        "frames=\"%u\">\n", start, end, n_frames);
  }
  /* the pooled statistics' names, then the 5th percentile */
  static const char *const stat_names[] = {
    "min", "max", "mean", "harmonic_mean", "p5",
  };
  for (unsigned m = 0; m < n_models; m++) {
    const double v[] = {
      stats[m].min, stats[m].max, stats[m].mean, stats[m].harmonic_mean,
      stats[m].p5,
    };
    if (json)
      g_string_append_printf (o, "%s        \"%s\": {", m ? "," : "",
          names[m]);
    else
      g_string_append_printf (o, "      <metric name=\"%s\" ", names[m]);
    append_fields (o, json, "          ", stat_names, v, G_N_ELEMENTS (v));
    g_string_append (o, json ? "\n        }" : "/>\n");
  }
  g_string_append (o, json ? "\n      }\n    }" : "    </interval>\n");
  w->n_intervals++;
}

void
vh_log_writer_add_segment (VhLogWriter *w, unsigned first, unsigned last,
    const char *video, const VhScoreTable *t, unsigned subsample,
    const VhLogFilter *filter)
{
  if (w->format != VH_LOG_JSON && w->format != VH_LOG_XML)
    return;
  if (!w->segments)
    w->segments = g_string_new (NULL);
  GString *o = w->segments;
  const bool json = w->format == VH_LOG_JSON;
  gchar *escaped = json ? g_strescape (video, NULL)
      : g_markup_escape_text (video, -1);
  if (json)
    g_string_append_printf (o, "%s    {\n      \"first_frame\": %u,\n"
        "      \"last_frame\": %u,\n      \"video\": \"%s\",\n"
        "      \"pooled_metrics\": {", w->n_segments ? ",\n" : "\n", first,
        last, escaped);
  else
    g_string_append_printf (o, "    <segment first_frame=\"%u\" "
        "last_frame=\"%u\" video=\"%s\">\n", first, last, escaped);
  g_free (escaped);
  bool first_metric = true;
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    VhPooled p;
    if (!metric_included (filter, m)
        || !vh_score_table_pool_all (t, m, subsample, &p))
      continue;
    if (json) {
      g_string_append_printf (o, "%s        \"%s\": {",
          first_metric ? "\n" : ",\n", vh_score_table_metric_name (t, m));
      append_pooled (o, true, "          ", &p);
      g_string_append (o, "\n        }");
    } else {
      g_string_append_printf (o, "      <metric name=\"%s\" ",
          vh_score_table_metric_name (t, m));
      append_pooled (o, false, "", &p);
      g_string_append (o, "/>\n");
    }
    first_metric = false;
  }
  g_string_append (o, json ? "\n      }\n    }" : "    </segment>\n");
  w->n_segments++;
}

gboolean
vh_log_writer_finish (VhLogWriter *w, const VhScoreTable *t, double fps,
    GError **error)
{
  if (!writer_usable (w, error))
    return FALSE;
  if (!w->head_written)
    writer_head (w, t);
  append_tail (w->buf, w->format, t, &w->filter, &w->info, w->intervals,
      w->segments);
  if (!writer_flush (w, error))
    return FALSE;
  /* the fps is known now: over the placeholder, if the file can seek */
  if (w->fps_at && isfinite (fps) && fseek (w->file, (long) w->fps_at,
          SEEK_SET) == 0) {
    append_fps (w->buf, fps, w->format != VH_LOG_XML);
    if (w->format == VH_LOG_XML)
      g_string_append_c (w->buf, '"');
    /* a rate too long for the field (never at %.2f) stays unpatched */
    if (w->buf->len > VH_LOG_FPS_WIDTH)
      g_string_truncate (w->buf, 0);
    if (!writer_flush (w, error))
      return FALSE;
  }
  errno = 0;
  if (fclose (w->file) != 0) {
    w->file = NULL;
    return writer_fail (w, errno, error);
  }
  w->file = NULL;
  return TRUE;
}

void
vh_log_writer_free (VhLogWriter *w)
{
  if (!w)
    return;
  if (w->file)
    fclose (w->file);
  g_free (w->path);
  g_string_free (w->buf, TRUE);
  if (w->intervals)
    g_string_free (w->intervals, TRUE);
  if (w->segments)
    g_string_free (w->segments, TRUE);
  g_free (w);
}
