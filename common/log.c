/* vmafhip — libvmaf-compatible log writers (JSON, XML, CSV).
 *
 * Same structure, keys and number formatting as libvmaf 3.2.0's output.c, so
 * tools that read libvmaf logs read ours: values print with %.6f, or %.16f
 * when a value has more than six leading zeros after the decimal point;
 * NaN/Inf print as JSON null. Numbers always use '.' (C locale).
 */
#include <math.h>
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
  else
    return false;
  return true;
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

static bool
frame_has_values (const VhScoreTable *t, unsigned frame)
{
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++)
    if (vh_score_table_get (t, m, frame, NULL))
      return true;
  return false;
}

static bool
frame_selected (const VhScoreTable *t, const VhLogInfo *info, unsigned i)
{
  if (info->subsample > 1 && i % info->subsample)
    return false;
  return frame_has_values (t, i);
}

static void
write_json (const VhScoreTable *t, const VhLogInfo *info, GString *out)
{
  const unsigned n_metrics = vh_score_table_n_metrics (t);
  const unsigned n_frames = vh_score_table_n_frames (t);
  bool first_frame = true;

  g_string_append (out, "{\n  \"version\": \"" VH_LIBVMAF_VERSION "\",\n");
  g_string_append (out, "  \"fps\": ");
  if (isfinite (info->fps)) {
    char buf[64];
    g_ascii_formatd (buf, sizeof buf, "%.2f", info->fps);
    g_string_append (out, buf);
  } else {
    g_string_append (out, "null");
  }
  g_string_append (out, ",\n  \"frames\": [");
  for (unsigned i = 0; i < n_frames; i++) {
    if (!frame_selected (t, info, i))
      continue;
    g_string_append (out, first_frame ? "\n" : ",\n");
    first_frame = false;
    g_string_append_printf (out,
        "    {\n      \"frameNum\": %u,\n      \"metrics\": {\n", i);
    bool first = true;
    for (unsigned m = 0; m < n_metrics; m++) {
      double v;
      if (!vh_score_table_get (t, m, i, &v))
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
  g_string_append (out, "\n  ],\n  \"pooled_metrics\": {");
  bool first_metric = true;
  for (unsigned m = 0; m < n_metrics; m++) {
    VhPooled p;
    if (!n_frames
        || !vh_score_table_pool (t, m, 0, n_frames - 1, info->subsample, &p))
      continue;
    g_string_append (out, first_metric ? "\n" : ",\n");
    first_metric = false;
    g_string_append_printf (out, "    \"%s\": {",
        vh_score_table_metric_name (t, m));
    for (gsize k = 0; k < G_N_ELEMENTS (pool_names); k++) {
      g_string_append_printf (out, "%s      \"%s\": ", k ? ",\n" : "\n",
          pool_names[k].name);
      append_number (out, vh_pooled_get (&p, pool_names[k].method));
    }
    g_string_append (out, "\n    }");
  }
  g_string_append (out, "\n  },\n  \"aggregate_metrics\": {\n  }\n}\n");
}

static void
write_xml (const VhScoreTable *t, const VhLogInfo *info, GString *out)
{
  const unsigned n_metrics = vh_score_table_n_metrics (t);
  const unsigned n_frames = vh_score_table_n_frames (t);
  char fps[64];

  g_ascii_formatd (fps, sizeof fps, "%.2f", isfinite (info->fps) ?
      info->fps : 0.0);
  g_string_append_printf (out,
      "<VMAF version=\"" VH_LIBVMAF_VERSION "\">\n"
      "  <params qualityWidth=\"%u\" qualityHeight=\"%u\" />\n"
      "  <fyi fps=\"%s\" />\n  <frames>\n", info->width, info->height, fps);
  for (unsigned i = 0; i < n_frames; i++) {
    if (!frame_selected (t, info, i))
      continue;
    g_string_append_printf (out, "    <frame frameNum=\"%u\" ", i);
    for (unsigned m = 0; m < n_metrics; m++) {
      double v;
      if (!vh_score_table_get (t, m, i, &v))
        continue;
      g_string_append_printf (out, "%s=\"", vh_score_table_metric_name (t, m));
      append_number (out, v);
      g_string_append (out, "\" ");
    }
    g_string_append (out, "/>\n");
  }
  g_string_append (out, "  </frames>\n  <pooled_metrics>\n");
  for (unsigned m = 0; m < n_metrics; m++) {
    VhPooled p;
    g_string_append_printf (out, "    <metric name=\"%s\" ",
        vh_score_table_metric_name (t, m));
    if (n_frames
        && vh_score_table_pool (t, m, 0, n_frames - 1, info->subsample, &p)) {
      for (gsize k = 0; k < G_N_ELEMENTS (pool_names); k++) {
        g_string_append_printf (out, "%s=\"", pool_names[k].name);
        append_number (out, vh_pooled_get (&p, pool_names[k].method));
        g_string_append (out, "\" ");
      }
    }
    g_string_append (out, "/>\n");
  }
  g_string_append (out, "  </pooled_metrics>\n  <aggregate_metrics />\n"
      "</VMAF>\n");
}

static void
write_csv (const VhScoreTable *t, const VhLogInfo *info, GString *out)
{
  const unsigned n_metrics = vh_score_table_n_metrics (t);
  const unsigned n_frames = vh_score_table_n_frames (t);

  g_string_append (out, "Frame,");
  for (unsigned m = 0; m < n_metrics; m++)
    g_string_append_printf (out, "%s,", vh_score_table_metric_name (t, m));
  g_string_append_c (out, '\n');
  for (unsigned i = 0; i < n_frames; i++) {
    if (!frame_selected (t, info, i))
      continue;
    g_string_append_printf (out, "%u,", i);
    for (unsigned m = 0; m < n_metrics; m++) {
      double v;
      if (!vh_score_table_get (t, m, i, &v))
        continue;
      append_number (out, v);
      g_string_append_c (out, ',');
    }
    g_string_append_c (out, '\n');
  }
}

void
vh_log_write (const VhScoreTable *t, VhLogFormat format,
    const VhLogInfo *info, GString *out)
{
  switch (format) {
    case VH_LOG_XML:
      write_xml (t, info, out);
      break;
    case VH_LOG_CSV:
      write_csv (t, info, out);
      break;
    case VH_LOG_JSON:
    default:
      write_json (t, info, out);
      break;
  }
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
