/* vmafhip — the results file in long runs: written as frames become final
 * (so memory does not grow with the stream), and a file that stops taking
 * data mid-run costs the file only, never the scores. */
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "gstvmafhipmeta.h"
#include "vh-element-fixture.h"

#define N_PAIRS 16
/* the CPU holds one frame (motion); the GPU backend its slots as well */
#define MAX_IN_FLIGHT 10

static guint
count (const gchar * text, const gchar * needle)
{
  guint n = 0;
  for (const gchar * p = text; (p = strstr (p, needle)); p++)
    n++;
  return n;
}

/* Frames are in the file while the stream still runs. */
GST_START_TEST (test_results_streamed)
{
  gchar *dir = g_dir_make_tmp ("vmafhip-results-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "scores.csv", NULL);
  gchar *props = g_strdup_printf ("results-filename=%s results-format=csv",
      path);
  Fixture *f = fixture_new (props, FALSE);
  gchar *text = NULL;

  fixture_set_caps (f, "I420", "I420", 41);
  push_pairs (f, 0, N_PAIRS);
  /* The CPU finalises frame i once frame i+1 is in (motion); the GPU
   * backend keeps a few frames in flight. Either way frames reach the file
   * while the stream runs: wait (the last pairs are scored on the
   * aggregator's thread) for all but the in-flight ones. */
  for (guint tries = 0; tries < 200; tries++) {
    g_free (text);
    fail_unless (g_file_get_contents (path, &text, NULL, NULL));
    if (count (text, "\n") >= 1 + N_PAIRS - MAX_IN_FLIGHT)
      break;
    g_usleep (10000);
  }
  fail_unless (count (text, "\n") >= 1 + N_PAIRS - MAX_IN_FLIGHT,
      "%u lines before EOS", count (text, "\n"));
  fail_unless (g_str_has_prefix (text, "Frame,"));
  g_free (text);
  text = NULL;
  push_eos_both (f);
  wait_eos (f);
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  fail_unless_equals_int (count (text, "\n"), 1 + N_PAIRS);
  g_free (text);
  fixture_free (f);
  g_unlink (path);
  g_rmdir (dir);
  g_free (props);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

/* /dev/full takes the open but no data: with write-failure=warn one
 * warning naming the pad and the cause; every frame is still scored,
 * posted and pooled. */
GST_START_TEST (test_results_file_fails_mid_run)
{
  const char *const models[] = { "vmaf_v0.6.1", NULL };
  Fixture *f;
  const gchar *needles[] = { "dist_sink", "No space left", "Scoring goes on",
    NULL
  };
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  /* Linux always has it; its absence is a broken test machine */
  fail_unless (access ("/dev/full", W_OK) == 0, "no writable /dev/full");
  f = fixture_new ("results-filename=/dev/full write-failure=warn", FALSE);
  fixture_set_caps (f, "I420", "I420", 42);
  push_pairs (f, 0, 5);
  push_eos_both (f);
  wait_eos (f);
  expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);
  expected_run (&x, &f->content, models, FALSE, FALSE, 0, 5);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT
      | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 5);
  for (guint i = 0; i < 5; i++)
    check_frame_scores (g_ptr_array_index (frames, i), &x, i);
  fail_unless_equals_int (n_pooled, 1);
  check_pooled (pooled, &x, 5, 1, "mean");
  /* one warning only, no error */
  for (GList * l = msgs; l; l = l->next)
    fail_unless (GST_MESSAGE_TYPE (l->data) == GST_MESSAGE_ELEMENT,
        "unexpected %" GST_PTR_FORMAT, l->data);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

static Suite *
vmafhip_results_suite (void)
{
  Suite *s = suite_create ("vmafhip-results");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_results_streamed);
  tcase_add_test (tc, test_results_file_fails_mid_run);
  return s;
}

GST_CHECK_MAIN (vmafhip_results);
