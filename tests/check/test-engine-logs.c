/* vmafhip — the engine's pooling and its log writers (JSON read back,
 * XML and CSV) on content the project makes itself. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "vh-engine.h"
#include "vh-engine-test-util.h"

/* ---- pooling and logs --------------------------------------------------- */

START_TEST (test_pooling)
{
  VhScoreTable *t = vh_score_table_new ();
  unsigned m = vh_score_table_metric (t, "x");
  const double v[] = { 1.0, 3.0, 7.0, 5.0 };
  VhPooled p;
  for (unsigned i = 0; i < 4; i++)
    vh_score_table_set (t, m, i, v[i]);
  ck_assert (vh_score_table_pool (t, m, 0, 3, 1, &p));
  ck_assert_double_eq (p.mean, 4.0);
  ck_assert_double_eq (p.min, 1.0);
  ck_assert_double_eq (p.max, 7.0);
  ck_assert_double_eq_tol (p.harmonic_mean,
      4.0 / (1 / 2.0 + 1 / 4.0 + 1 / 8.0 + 1 / 6.0) - 1.0, 1e-12);
  ck_assert (vh_score_table_pool (t, m, 0, 3, 2, &p));
  ck_assert_double_eq (p.mean, 4.0);   /* frames 0 and 2 */
  ck_assert_uint_eq (p.n_frames, 2);
  ck_assert (!vh_score_table_pool (t, vh_score_table_metric (t, "empty"), 0, 3,
          1, &p));
  vh_score_table_free (t);
}
END_TEST

START_TEST (test_log_json_roundtrip)
{
  VhEngine *e = score_synthetic (128, 96, 8, 4, 3, "vmaf_v0.6.1", "psnr");
  const VhScoreTable *t = vh_engine_scores (e);
  VhLogInfo info = { 128, 96, 25.0, 1 };
  GString *out = g_string_new (NULL);
  GError *error = NULL;
  vh_log_write (t, VH_LOG_JSON, &info, out);
  JsonParser *parser = json_parser_new ();
  ck_assert_msg (json_parser_load_from_data (parser, out->str, out->len,
          &error), "invalid JSON: %s", error ? error->message : "");
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  ck_assert_str_eq (json_object_get_string_member (root, "version"), "3.2.0");
  JsonArray *frames = json_object_get_array_member (root, "frames");
  ck_assert_uint_eq (json_array_get_length (frames), 4);
  for (unsigned i = 0; i < 4; i++) {
    JsonObject *f = json_array_get_object_element (frames, i);
    JsonObject *m = json_object_get_object_member (f, "metrics");
    ck_assert_int_eq (json_object_get_int_member (f, "frameNum"), i);
    ck_assert_double_eq_tol (json_object_get_double_member (m, "vmaf"),
        score_of (e, "vmaf", i), 5e-7);
    ck_assert_double_eq_tol (json_object_get_double_member (m, "psnr_y"),
        score_of (e, "psnr_y", i), 5e-7);
  }
  JsonObject *pooled = json_object_get_object_member (root, "pooled_metrics");
  JsonObject *vm = json_object_get_object_member (pooled, "vmaf");
  ck_assert_double_eq_tol (json_object_get_double_member (vm, "mean"),
      pooled_mean (e, "vmaf"), 5e-7);
  ck_assert (json_object_has_member (vm, "harmonic_mean"));
  g_object_unref (parser);
  g_string_free (out, TRUE);
  vh_engine_free (e);
}
END_TEST

static void
xml_start (GMarkupParseContext *ctx, const char *element, const char **names,
    const char **values, gpointer user_data, GError **error)
{
  unsigned *counts = user_data;
  (void) ctx;
  (void) error;
  if (!strcmp (element, "frame"))
    counts[0]++;
  if (!strcmp (element, "metric"))
    for (int i = 0; names[i]; i++)
      if (!strcmp (names[i], "name") && !strcmp (values[i], "vmaf"))
        counts[1]++;
}

START_TEST (test_log_xml_csv)
{
  VhEngine *e = score_synthetic (128, 96, 8, 3, 3, "vmaf_v0.6.1", NULL);
  const VhScoreTable *t = vh_engine_scores (e);
  VhLogInfo info = { 128, 96, NAN, 1 };
  GString *xml = g_string_new (NULL), *csv = g_string_new (NULL);
  GError *error = NULL;
  unsigned counts[2] = { 0, 0 };
  GMarkupParser parser = { xml_start, NULL, NULL, NULL, NULL };

  vh_log_write (t, VH_LOG_XML, &info, xml);
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, counts,
      NULL);
  ck_assert_msg (g_markup_parse_context_parse (ctx, xml->str, xml->len, &error)
      && g_markup_parse_context_end_parse (ctx, &error), "bad XML: %s",
      error ? error->message : "");
  g_markup_parse_context_free (ctx);
  ck_assert_uint_eq (counts[0], 3);
  ck_assert_uint_eq (counts[1], 1);
  ck_assert (strstr (xml->str, "qualityWidth=\"128\""));

  vh_log_write (t, VH_LOG_CSV, &info, csv);
  char **lines = g_strsplit (csv->str, "\n", -1);
  ck_assert (g_str_has_prefix (lines[0], "Frame,"));
  ck_assert (strstr (lines[0], ",vmaf,"));
  ck_assert (g_str_has_prefix (lines[1], "0,"));
  ck_assert (g_str_has_prefix (lines[3], "2,"));
  ck_assert_str_eq (lines[4], "");
  g_strfreev (lines);

  /* unwritable path: clear error naming the file */
  ck_assert (!vh_log_write_file (t, VH_LOG_JSON, &info,
          "/nonexistent/dir/out.json", &error));
  assert_error (error, VH_ERROR_IO, "/nonexistent/dir/out.json");
  g_clear_error (&error);

  VhLogFormat f;
  ck_assert (vh_log_format_from_string ("XML", &f) && f == VH_LOG_XML);
  ck_assert (vh_log_format_from_string ("sub", &f) && f == VH_LOG_SUB);
  ck_assert (!vh_log_format_from_string ("srt", &f));
  g_string_free (xml, TRUE);
  g_string_free (csv, TRUE);
  vh_engine_free (e);
}
END_TEST

static Suite *
engine_logs_suite (void)
{
  Suite *s = suite_create ("engine-logs");
  TCase *logs = tcase_create ("pooling-logs");
  tcase_add_test (logs, test_pooling);
  tcase_add_test (logs, test_log_json_roundtrip);
  tcase_add_test (logs, test_log_xml_csv);
  suite_add_tcase (s, logs);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (engine_logs_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
