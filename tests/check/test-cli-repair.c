/* vmafhip — vmafhip-score's results files when things go wrong: --repair
 * finishes a log cut short (JSON, XML, CSV, subtitles; cut in the header,
 * mid-frame, after a frame, in the pooled section; with subsample), refuses
 * what is not a log, and a log that cannot be written (-o /dev/full)
 * still prints the pooled scores before exiting 1.
 *
 * Run as: test-cli-repair PATH-TO-vmafhip-score
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "vh-cli-test-util.h"

#define LOG_FRAMES 24

/* The pooled statistics in the order a log writes them. */
enum { POOL_MIN, POOL_MAX, POOL_MEAN, POOL_HARMONIC_MEAN, N_POOL };
static const char *const pool_keys[N_POOL] = {
  "min", "max", "mean", "harmonic_mean"
};

/* A log's content as the tests compare it: each metric's values in frame
 * order, its pooled statistics where the log has a pooled section. */
typedef struct {
  guint n_frames;
  GPtrArray *names;             /* first-seen order */
  GHashTable *values;           /* name -> GArray of double */
  GHashTable *pooled;           /* name -> double[N_POOL] */
  gboolean has_pooled_section;
  gboolean in_pooled;           /* XML: inside <pooled_metrics> */
  GArray *frame_nums;           /* frameNum of each frame (JSON, XML) */
} Log;

static Log *
log_new (void)
{
  Log *l = g_new0 (Log, 1);
  l->names = g_ptr_array_new_with_free_func (g_free);
  l->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) g_array_unref);
  l->pooled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  l->frame_nums = g_array_new (FALSE, FALSE, sizeof (guint));
  return l;
}

static void
log_free (Log * l)
{
  g_ptr_array_unref (l->names);
  g_hash_table_unref (l->values);
  g_hash_table_unref (l->pooled);
  g_array_unref (l->frame_nums);
  g_free (l);
}

static void
log_add (Log * l, const char *name, double v)
{
  GArray *a = g_hash_table_lookup (l->values, name);
  if (!a) {
    a = g_array_new (FALSE, FALSE, sizeof (double));
    g_hash_table_insert (l->values, g_strdup (name), a);
    g_ptr_array_add (l->names, g_strdup (name));
  }
  g_array_append_val (a, v);
}

static GArray *
log_values (const Log * l, const char *name)
{
  GArray *a = g_hash_table_lookup (l->values, name);
  ck_assert_msg (a != NULL, "no metric '%s'", name);
  return a;
}

static Log *
parse_json_log (const char *path)
{
  JsonParser *parser;
  JsonObject *root = load_json (path, &parser);
  JsonArray *frames = frames_of (root);
  Log *l = log_new ();

  ck_assert (frames != NULL);
  l->n_frames = json_array_get_length (frames);
  for (guint i = 0; i < l->n_frames; i++) {
    JsonObject *f = json_array_get_object_element (frames, i);
    JsonObjectIter it;
    const char *name;
    JsonNode *node;
    guint num = (guint) json_object_get_int_member (f, "frameNum");
    g_array_append_val (l->frame_nums, num);
    json_object_iter_init_ordered (&it, json_object_get_object_member (f,
            "metrics"));
    while (json_object_iter_next_ordered (&it, &name, &node))
      log_add (l, name, json_node_get_double (node));
  }
  l->has_pooled_section = json_object_has_member (root, "pooled_metrics")
      && json_object_has_member (root, "aggregate_metrics");
  if (l->has_pooled_section) {
    JsonObjectIter it;
    const char *name;
    JsonNode *node;
    json_object_iter_init_ordered (&it, json_object_get_object_member (root,
            "pooled_metrics"));
    while (json_object_iter_next_ordered (&it, &name, &node)) {
      double *p = g_new (double, N_POOL);
      for (int k = 0; k < N_POOL; k++)
        p[k] = json_object_get_double_member (json_node_get_object (node),
            pool_keys[k]);
      g_hash_table_insert (l->pooled, g_strdup (name), p);
    }
  }
  g_object_unref (parser);
  return l;
}

static void
xml_log_start (GMarkupParseContext * ctx, const char *element,
    const char **names, const char **values, gpointer data, GError ** error)
{
  Log *l = data;
  (void) ctx;
  (void) error;
  if (!strcmp (element, "frame")) {
    l->n_frames++;
    for (guint k = 0; names[k]; k++) {
      if (!strcmp (names[k], "frameNum")) {
        guint num = (guint) g_ascii_strtoull (values[k], NULL, 10);
        g_array_append_val (l->frame_nums, num);
      } else {
        log_add (l, names[k], g_ascii_strtod (values[k], NULL));
      }
    }
  } else if (!strcmp (element, "pooled_metrics")) {
    l->has_pooled_section = l->in_pooled = TRUE;
  } else if (l->in_pooled && !strcmp (element, "metric")) {
    double *p = g_new (double, N_POOL);
    const char *name = NULL;
    for (guint k = 0; names[k]; k++) {
      if (!strcmp (names[k], "name"))
        name = values[k];
      for (int s = 0; s < N_POOL; s++)
        if (!strcmp (names[k], pool_keys[s]))
          p[s] = g_ascii_strtod (values[k], NULL);
    }
    g_hash_table_insert (l->pooled, g_strdup (name), p);
  }
}

static void
xml_log_end (GMarkupParseContext * ctx, const char *element, gpointer data,
    GError ** error)
{
  Log *l = data;
  (void) ctx;
  (void) error;
  if (!strcmp (element, "pooled_metrics"))
    l->in_pooled = FALSE;
}

/* XML through GMarkup: a log that is not well-formed fails the test. */
static Log *
parse_xml_log (const char *path)
{
  static const GMarkupParser parser = { xml_log_start, xml_log_end, NULL,
    NULL, NULL
  };
  Log *l = log_new ();
  gchar *text;
  gsize len;
  GError *error = NULL;
  ck_assert (g_file_get_contents (path, &text, &len, NULL));
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, l,
      NULL);
  ck_assert_msg (g_markup_parse_context_parse (ctx, text, (gssize) len,
          &error) && g_markup_parse_context_end_parse (ctx, &error),
      "%s: %s", path, error ? error->message : "");
  g_markup_parse_context_free (ctx);
  g_free (text);
  return l;
}

/* CSV ("Frame,name,...,", then "N,value,...,") and subtitles
 * ("{N}{N+1}frame: N|name: value|...|"), a frame a line, every line
 * whole. */
static Log *
parse_line_log (const char *path, gboolean csv)
{
  Log *l = log_new ();
  gchar *text;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  ck_assert_msg (!*text || g_str_has_suffix (text, "\n"),
      "%s ends in a partial line", path);
  gchar **lines = g_strsplit (text, "\n", -1);
  gchar **header = csv ? g_strsplit (lines[0], ",", -1) : NULL;
  if (csv)
    ck_assert_str_eq (header[0], "Frame");
  for (guint i = csv ? 1 : 0; lines[i] && *lines[i]; i++) {
    gchar **f = g_strsplit (lines[i], csv ? "," : "|", -1);
    l->n_frames++;
    for (guint k = 1; f[k] && *f[k]; k++) {
      if (csv) {
        log_add (l, header[k], g_ascii_strtod (f[k], NULL));
      } else {
        gchar **nv = g_strsplit (f[k], ": ", 2);
        log_add (l, nv[0], g_ascii_strtod (nv[1], NULL));
        g_strfreev (nv);
      }
    }
    g_strfreev (f);
  }
  g_strfreev (header);
  g_strfreev (lines);
  g_free (text);
  return l;
}

static Log *
parse_log (const char *format, const char *path)
{
  if (!strcmp (format, "json"))
    return parse_json_log (path);
  if (!strcmp (format, "xml"))
    return parse_xml_log (path);
  return parse_line_log (path, !strcmp (format, "csv"));
}

/* The pooled statistics of values as libvmaf pools them. */
static void
pool_of (const GArray * a, double pooled[N_POOL])
{
  double sum = 0, inv_sum = 0;
  pooled[POOL_MIN] = INFINITY;
  pooled[POOL_MAX] = -INFINITY;
  for (guint i = 0; i < a->len; i++) {
    const double v = g_array_index (a, double, i);
    sum += v;
    inv_sum += 1.0 / (v + 1.0);
    pooled[POOL_MIN] = MIN (pooled[POOL_MIN], v);
    pooled[POOL_MAX] = MAX (pooled[POOL_MAX], v);
  }
  pooled[POOL_MEAN] = sum / a->len;
  pooled[POOL_HARMONIC_MEAN] = a->len / inv_sum - 1.0;
}

/* How far rounding every value by up to `step` can move their harmonic
 * mean: its derivatives, n Σ 1/(x+1)² / (Σ 1/(x+1))², times the step. */
static double
harmonic_mean_spread (const GArray * a, double step)
{
  double s1 = 0, s2 = 0;
  for (guint i = 0; i < a->len; i++) {
    const double inv = 1.0 / (g_array_index (a, double, i) + 1.0);
    s1 += inv;
    s2 += inv * inv;
  }
  return a->len * s2 / (s1 * s1) * step * 1.01;
}

/* A finished log of a synthetic run, PSNR included (metrics of several
 * magnitudes); `extra` an option more (NULL: none). */
static gchar *
write_log (const char *name, const char *format, const char *extra,
    const char *extra_value)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *flag = g_strdup_printf ("--%s", format);
  gchar *frames = g_strdup_printf ("%d", LOG_FRAMES);
  gchar *err = NULL;
  ck_assert_int_eq (run_cli (&err, "--synthetic", "96x64", "--frame_cnt",
          frames, "--feature", "psnr", flag, "-o", path, "-q", extra,
          extra_value, NULL), 0);
  g_free (err);
  g_free (flag);
  g_free (frames);
  return path;
}

/* Where a finished log's head ends, where each frame ends and where its
 * frames' end starts, by the writer's layout (common/io/log.c): a JSON frame
 * closes with "\n    }", an XML frame is "<frame ... />\n", CSV and
 * subtitles have a frame a line. */
static GArray *
frame_ends (const char *format, const char *text, gsize * head_end,
    gsize * frames_close)
{
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  const char *p, *q;
  if (!strcmp (format, "json")) {
    *head_end = strstr (text, "\"frames\": [") - text + 11;
    *frames_close = strstr (text, "\n  ],\n  \"pooled_metrics\"") - text;
    for (p = text + *head_end; (q = strstr (p, "\n    }"))
        && q < text + *frames_close; p = q + 6) {
      gsize e = q - text + 6;
      g_array_append_val (ends, e);
    }
  } else if (!strcmp (format, "xml")) {
    *head_end = strstr (text, "<frames>\n") - text + 9;
    *frames_close = strstr (text, "  </frames>") - text;
    for (p = text; (q = strstr (p, "<frame frameNum=")); p = q) {
      q = strstr (q, "/>\n") + 3;
      gsize e = q - text;
      g_array_append_val (ends, e);
    }
  } else {
    *head_end = !strcmp (format, "csv") ? strchr (text, '\n') - text + 1 : 0;
    *frames_close = strlen (text);
    for (p = text + *head_end; (q = strchr (p, '\n')); p = q + 1) {
      gsize e = q - text + 1;
      g_array_append_val (ends, e);
    }
  }
  return ends;
}

/* A pooled value against the one expected, within `tolerance`. */
static void
check_close (double got, double want, double tolerance, const char *what,
    const char *label, double *worst)
{
  ck_assert_msg (fabs (got - want) <= tolerance, "%s: %s %.9f, expected "
      "%.9f (within %.1e)", label, what, got, want, tolerance);
  if (worst)
    *worst = MAX (*worst, fabs (got - want));
}

/* Each metric's mean as --repair printed it ("  name: mean X ..."). */
static double
printed_mean (const char *out, const char *name)
{
  gchar *needle = g_strdup_printf ("  %s: mean ", name);
  const char *at = strstr (out, needle);
  ck_assert_msg (at != NULL, "'%s' not in '%s'", needle, out);
  const double v = g_ascii_strtod (at + strlen (needle), NULL);
  g_free (needle);
  return v;
}

/* Cuts the finished log `text` at `cut`, adds `zeros` zero bytes (what a
 * power loss can leave), repairs it and checks that the result parses,
 * holds exactly the first `kept` frames of `orig` (the first `keep` bytes
 * unchanged), and that its pooled values, and those --repair printed, are
 * those of the kept frames' values; a second --repair leaves it as it is.
 * Returns the repaired log. */
static Log *
check_repair (const char *format, const gchar * text, gsize cut, gsize zeros,
    guint kept, gsize keep, const Log * orig, const char *label)
{
  gchar *path = g_strdup_printf ("%s/cut.%s", dir, format);
  GString *data = g_string_new_len (text, (gssize) cut);
  gchar *out = NULL, *err = NULL, *again = NULL, *repaired, *twice;
  gsize repaired_len, twice_len;
  const gboolean line_log = !strcmp (format, "csv")
      || !strcmp (format, "sub");
  const gboolean whole = line_log && !zeros && cut && text[cut - 1] == '\n';

  for (gsize k = 0; k < zeros; k++)
    g_string_append_c (data, '\0');
  ck_assert (g_file_set_contents (path, data->str, (gssize) data->len,
          NULL));
  const int rc = run_cli_out (&out, &err, "--repair", path, NULL);
  ck_assert_msg (rc == 0, "%s: exit %d: %s", label, rc, err);
  if (whole) {
    ck_assert_msg (strstr (out, "is complete") != NULL, "%s: %s", label,
        out);
  } else {
    gchar *said = g_strdup_printf ("%u complete frames kept", kept);
    ck_assert_msg (strstr (out, said) != NULL, "%s: '%s' not in '%s'",
        label, said, out);
    g_free (said);
    if (zeros) {
      gchar *z = g_strdup_printf ("%zu zero bytes dropped", zeros);
      ck_assert_msg (strstr (out, z) != NULL, "%s: %s", label, out);
      g_free (z);
    }
  }
  ck_assert (g_file_get_contents (path, &repaired, &repaired_len, NULL));
  ck_assert_msg (repaired_len >= keep && !memcmp (repaired, text, keep),
      "%s: the kept frames changed", label);

  Log *l = parse_log (format, path);
  ck_assert_msg (l->n_frames == kept, "%s: %u frames, expected %u", label,
      l->n_frames, kept);
  for (guint m = 0; kept && m < orig->names->len; m++) {
    const char *name = g_ptr_array_index (orig->names, m);
    GArray *got = log_values (l, name), *want = log_values (orig, name);
    ck_assert_uint_eq (got->len, kept);
    for (guint i = 0; i < kept; i++)
      ck_assert (g_array_index (got, double, i) == g_array_index (want,
              double, i));
  }
  for (guint i = 0; i < l->frame_nums->len; i++)
    ck_assert_uint_eq (g_array_index (l->frame_nums, guint, i),
        g_array_index (orig->frame_nums, guint, i));

  /* pooled from the kept values: the same doubles, rounded once when
   * printed (%.6f) */
  if (!line_log)
    ck_assert_msg (l->has_pooled_section, "%s: no pooled section", label);
  if (!line_log && !kept)
    ck_assert_uint_eq (g_hash_table_size (l->pooled), 0);
  for (guint m = 0; kept && m < l->names->len; m++) {
    const char *name = g_ptr_array_index (l->names, m);
    double want[N_POOL];
    pool_of (log_values (l, name), want);
    if (!whole)
      check_close (printed_mean (out, name), want[POOL_MEAN], 5e-7 + 1e-9,
          "printed mean", label, NULL);
    if (line_log)
      continue;
    const double *got = g_hash_table_lookup (l->pooled, name);
    ck_assert_msg (got != NULL, "%s: '%s' not pooled", label, name);
    for (int k = 0; k < N_POOL; k++)
      check_close (got[k], want[k], 5e-7 + 1e-9, pool_keys[k], label, NULL);
  }

  /* finished now: a second repair leaves it byte for byte */
  ck_assert_int_eq (run_cli_out (&again, NULL, "--repair", path, NULL), 0);
  ck_assert_msg (strstr (again, "is complete") != NULL, "%s: %s", label,
      again);
  ck_assert (g_file_get_contents (path, &twice, &twice_len, NULL));
  ck_assert (twice_len == repaired_len && !memcmp (twice, repaired,
          repaired_len));

  g_string_free (data, TRUE);
  g_free (twice);
  g_free (again);
  g_free (repaired);
  g_free (out);
  g_free (err);
  g_free (path);
  return l;
}

/* Nothing but the pooled section cut: the pooled values recomputed from
 * the printed frames against the writer's own. Means: within one unit of
 * the last printed digit (each frame's value is off by at most half a
 * unit, so is their mean, and two numbers within half a unit print at
 * most one unit apart); harmonic means: one unit plus what rounding every
 * value can move them; min and max: the same. */
static void
check_against_original (const Log * l, const Log * orig, const char *label)
{
  double worst[N_POOL] = { 0 };
  ck_assert_uint_eq (g_hash_table_size (l->pooled),
      g_hash_table_size (orig->pooled));
  for (guint m = 0; m < orig->names->len; m++) {
    const char *name = g_ptr_array_index (orig->names, m);
    const double *got = g_hash_table_lookup (l->pooled, name);
    const double *want = g_hash_table_lookup (orig->pooled, name);
    ck_assert (got && want);
    check_close (got[POOL_MIN], want[POOL_MIN], 1e-9, "min", label,
        &worst[POOL_MIN]);
    check_close (got[POOL_MAX], want[POOL_MAX], 1e-9, "max", label,
        &worst[POOL_MAX]);
    check_close (got[POOL_MEAN], want[POOL_MEAN], 1e-6 + 1e-9, "mean",
        label, &worst[POOL_MEAN]);
    check_close (got[POOL_HARMONIC_MEAN], want[POOL_HARMONIC_MEAN], 1e-6 +
        harmonic_mean_spread (log_values (l, name), 5e-7) + 1e-9,
        "harmonic_mean", label, &worst[POOL_HARMONIC_MEAN]);
  }
  fprintf (stderr, "test-cli: --repair, %s, %u metrics over %u frames: "
      "pooled from the printed frames against the writer's: mean %.1e, "
      "harmonic_mean %.1e, min %.1e, max %.1e apart at most\n", label,
      orig->names->len, orig->n_frames, worst[POOL_MEAN],
      worst[POOL_HARMONIC_MEAN], worst[POOL_MIN], worst[POOL_MAX]);
}

/* A log of each format cut in its header, right after it, mid-frame,
 * right after a frame, mid-frame with zero bytes after, in its last frame,
 * and (JSON, XML) in its pooled section and in its last line. */
static void
repair_format (const char *format)
{
  gchar *name = g_strdup_printf ("full.%s", format);
  gchar *full = write_log (name, format, NULL, NULL);
  gchar *text;
  gsize len, head_end, frames_close;
  ck_assert (g_file_get_contents (full, &text, &len, NULL));
  Log *orig = parse_log (format, full);
  GArray *ends = frame_ends (format, text, &head_end, &frames_close);
  const gsize *end = (const gsize *) ends->data;
  const guint n = LOG_FRAMES;
  const gboolean pooled = !strcmp (format, "json") || !strcmp (format,
      "xml");
  const struct {
    const char *label;
    gsize cut, zeros;
    guint kept;
    gsize keep;
  } cases[] = {
    {"inside the header", head_end / 2, 0, 0, 0},
    {"right after the header", head_end, 0, 0, head_end},
    {"mid-frame", (end[2] + end[3]) / 2, 0, 3, end[2]},
    {"right after a frame", end[3], 0, 4, end[3]},
    {"mid-frame, zero bytes after", (end[2] + end[3]) / 2, 4096, 3, end[2]},
    {"in the last frame", end[n - 1] - 2, 0, n - 1, end[n - 2]},
    /* XML: the frame's tag whole, its newline not */
    {"before a frame's newline", end[5] - 1, 0, 6, end[5] - 1},
    {"in the pooled section", (frames_close + len) / 2, 0, n, end[n - 1]},
    /* its last character before the final newline */
    {"in its last line", len - 2, 0, n, end[n - 1]},
  };

  ck_assert_uint_eq (orig->n_frames, n);
  ck_assert_uint_eq (ends->len, n);
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++) {
    if (c >= 6 && !pooled)
      break;
    if (c < 2 && !strcmp (format, "sub"))
      continue;                 /* subtitles have no header */
    if (c == 6 && strcmp (format, "xml"))
      continue;
    gchar *label = g_strdup_printf ("%s cut %s (byte %zu of %zu)", format,
        cases[c].label, cases[c].cut, len);
    Log *l = check_repair (format, text, cases[c].cut, cases[c].zeros,
        cases[c].kept, cases[c].keep, orig, label);
    if (cases[c].kept == n)
      check_against_original (l, orig, label);
    log_free (l);
    g_free (label);
  }
  /* a complete log: left byte for byte, saying so */
  gchar *out = NULL, *after;
  gsize after_len;
  ck_assert_int_eq (run_cli_out (&out, NULL, "--repair", full, NULL), 0);
  ck_assert_msg (strstr (out, "is complete") != NULL, "%s", out);
  ck_assert (g_file_get_contents (full, &after, &after_len, NULL));
  ck_assert (after_len == len && !memcmp (after, text, len));
  g_free (after);
  g_free (out);
  g_array_unref (ends);
  log_free (orig);
  g_free (text);
  g_free (full);
  g_free (name);
}

START_TEST (test_repair_json)
{
  repair_format ("json");
}

END_TEST;

START_TEST (test_repair_xml)
{
  repair_format ("xml");
}

END_TEST;

START_TEST (test_repair_csv)
{
  repair_format ("csv");
}

END_TEST;

START_TEST (test_repair_sub)
{
  repair_format ("sub");
}

END_TEST;

/* --subsample 3: the kept frames are 0, 3, 6, ... and the pooled section
 * pools them alone. */
START_TEST (test_repair_subsample)
{
  gchar *full = write_log ("sub3.json", "json", "--subsample", "3");
  gchar *text;
  gsize head_end, frames_close;
  ck_assert (g_file_get_contents (full, &text, NULL, NULL));
  Log *orig = parse_log ("json", full);
  GArray *ends = frame_ends ("json", text, &head_end, &frames_close);
  const gsize *end = (const gsize *) ends->data;
  ck_assert_uint_eq (orig->n_frames, LOG_FRAMES / 3);
  Log *l = check_repair ("json", text, (end[3] + end[4]) / 2, 0, 4, end[3],
      orig, "json --subsample 3 cut mid-frame");
  ck_assert_uint_eq (g_array_index (l->frame_nums, guint, 3), 9);
  log_free (l);
  l = check_repair ("json", text, (frames_close + strlen (text)) / 2, 0,
      LOG_FRAMES / 3, end[LOG_FRAMES / 3 - 1], orig,
      "json --subsample 3 cut in the pooled section");
  check_against_original (l, orig, "json --subsample 3");
  log_free (l);
  g_array_unref (ends);
  log_free (orig);
  g_free (text);
  g_free (full);
}

END_TEST;

/* What --repair refuses, leaving the file as it was: a file that is not a
 * results file, one damaged in the middle, a missing one, --repair with
 * scoring options; and it leaves no temporary file behind. */
START_TEST (test_repair_refuses)
{
  gchar *full = write_log ("refuse.json", "json", NULL, NULL);
  gchar *video = write_video ("refuse.y4m", FALSE, 0, 1, TRUE);
  gchar *damaged = g_build_filename (dir, "damaged.json", NULL);
  gchar *text = g_build_filename (dir, "notes.txt", NULL);
  gchar *json = g_build_filename (dir, "other.json", NULL);
  gchar *log, *before, *after;
  gsize log_len, before_len, after_len;
  const struct {
    const char *path, *needle;
  } cases[] = {
    {video, "not a vmafhip or libvmaf results file: it starts with "
          "'YUV4MPEG2"},
    {text, "not a vmafhip or libvmaf results file"},
    {json, "its root has the key 'name' where a results file has "
          "\"version\""},
    {damaged, "is damaged at byte 2000"},
  };

  ck_assert (g_file_get_contents (full, &log, &log_len, NULL));
  ck_assert (g_file_set_contents (text, "scores of today\n", -1, NULL));
  ck_assert (g_file_set_contents (json, "{\"name\": \"x\"}\n", -1, NULL));
  /* a log cut short whose middle was overwritten */
  GString *d = g_string_new_len (log, (gssize) log_len / 2);
  d->str[2000] = '\x01';
  ck_assert (g_file_set_contents (damaged, d->str, (gssize) d->len, NULL));
  g_string_free (d, TRUE);
  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
    gchar *err = NULL;
    ck_assert (g_file_get_contents (cases[k].path, &before, &before_len,
            NULL));
    const int rc = run_cli (&err, "--repair", cases[k].path, NULL);
    ck_assert_msg (rc == 1, "%s: exit %d", cases[k].path, rc);
    ck_assert_msg (strstr (err, cases[k].needle) != NULL, "'%s' not in "
        "'%s'", cases[k].needle, err);
    ck_assert_msg (strstr (err, cases[k].path) != NULL, "%s", err);
    ck_assert (g_file_get_contents (cases[k].path, &after, &after_len,
            NULL));
    ck_assert (after_len == before_len && !memcmp (after, before,
            before_len));
    g_free (after);
    g_free (before);
    g_free (err);
  }
  {
    gchar *err = NULL;
    gchar *missing = g_build_filename (dir, "missing.json", NULL);
    ck_assert_int_eq (run_cli (&err, "--repair", missing, NULL), 1);
    ck_assert_msg (strstr (err, missing) != NULL, "%s", err);
    g_free (err);
    ck_assert_int_eq (run_cli (&err, "--repair", full, "--synthetic",
            "96x64", NULL), 1);
    ck_assert_msg (strstr (err, "--repair FILE works on that file alone"),
        "%s", err);
    g_free (err);
    g_free (missing);
  }
  /* no temporary file left in the folder by any repair */
  GDir *listing = g_dir_open (dir, 0, NULL);
  for (const char *n; (n = g_dir_read_name (listing));)
    ck_assert_msg (!strstr (n, ".repair-"), "left behind: %s", n);
  g_dir_close (listing);
  g_free (log);
  g_free (full);
  g_free (video);
  g_free (damaged);
  g_free (text);
  g_free (json);
}

END_TEST;

/* A results file that cannot be written (/dev/full: every write fails
 * with ENOSPC): the scoring goes on, the pooled scores are printed, then
 * the error, and the exit status is 1. */
START_TEST (test_log_unwritable)
{
  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS)) {
    fprintf (stderr, "test-cli: SKIPPED test_log_unwritable: no /dev/full\n");
    return;
  }
  for (int quiet = 0; quiet < 2; quiet++) {
    gchar *out = NULL, *err = NULL;
    const int rc = run_cli_out (&out, &err, "--synthetic", "96x64",
        "--frame_cnt", "6", "--json", "-o", "/dev/full",
        quiet ? "-q" : NULL, NULL);
    ck_assert_int_eq (rc, 1);
    ck_assert_msg (strstr (out, "pooled over 6 frames") != NULL, "%s", out);
    ck_assert_msg (strstr (out, "  vmaf: mean ") != NULL, "%s", out);
    ck_assert_msg (strstr (err, "cannot write results file '/dev/full'")
        != NULL, "%s", err);
    ck_assert_msg (strstr (err, g_strerror (ENOSPC)) != NULL, "%s", err);
    g_free (out);
    g_free (err);
  }
}

END_TEST;

int
main (int argc, char **argv)
{
  Suite *s = suite_create ("cli-repair");
  TCase *tc = tcase_create ("repair");

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_repair_json);
  tcase_add_test (tc, test_repair_xml);
  tcase_add_test (tc, test_repair_csv);
  tcase_add_test (tc, test_repair_sub);
  tcase_add_test (tc, test_repair_subsample);
  tcase_add_test (tc, test_repair_refuses);
  tcase_add_test (tc, test_log_unwritable);
  suite_add_tcase (s, tc);
  return cli_test_main (argc, argv, "test-cli-repair", s);
}
