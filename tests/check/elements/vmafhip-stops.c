/* vmafhip — every way a run stops finishes its results (issue 33): the
 * pipeline set to NULL from PLAYING, to READY from PAUSED, a flushing
 * seek; every frame paired before the stop is scored and reported once,
 * the pooled message says how the measurement ended, and the results file
 * parses with its pooled section.  A results file that cannot be written
 * fails the run unless write-failure=warn.  (Stops as gst-launch-1.0 users
 * make them, Ctrl-C without -e and an upstream error: test-launch-stops.py;
 * the same on renditions: vmafhip-renditions.c.) */
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "vh-element-fixture.h"

#define N_PAIRS 7

/* A fixture writing JSON results into a fresh folder (*dir, *path) */
static Fixture *
fixture_with_results (gchar ** dir, gchar ** path, const char *more_props)
{
  gchar *props;
  Fixture *f;

  results_dir_new (dir, path);
  props = g_strdup_printf ("results-filename=%s results-format=json %s",
      *path, more_props ? more_props : "");
  f = fixture_new (props, FALSE);
  g_free (props);
  fixture_set_caps (f, "I420", "I420", 5);
  return f;
}

/* Pushes n pairs and waits until the element has taken them all: they are
 * paired, though most wait for their scores (the motion lookahead) */
static void
push_and_wait_paired (Fixture * f, guint n)
{
  push_pairs (f, 0, n);
  wait_taken (f->element, "ref_sink");
  wait_taken (f->element, "dist_sink");
}

/* Every frame 0..n-1 reported once with the engine's scores, one pooled
 * message over them that ended with `end` */
static void
check_reported (Fixture * f, guint n, const char *end)
{
  const char *const models[] = { "vmaf_v0.6.1", NULL };
  Expected x = { 0 };
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  const GstStructure *pooled;
  guint n_pooled, n_dropped = 1;
  GPtrArray *frames = frame_messages (msgs, &pooled, &n_pooled);

  /* the mock GPU runtime runs no kernel: counts only, not scores */
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  guint n_frames = 0;

  expected_run (&x, &f->content, models, FALSE, FALSE, 0, n);
  fail_unless_equals_int (frames->len, n);
  for (guint i = 0; i < n; i++) {
    gint index = -1;
    fail_unless (gst_structure_get_int (g_ptr_array_index (frames, i),
            "index", &index));
    fail_unless_equals_int (index, i);
    if (scored)
      check_frame_scores (g_ptr_array_index (frames, i), &x, i);
  }
  fail_unless_equals_int (n_pooled, 1);
  fail_unless (gst_structure_get_uint (pooled, "n-frames", &n_frames));
  fail_unless_equals_int (n_frames, n);
  if (scored)
    check_pooled (pooled, &x, n, 1, "mean");
  fail_unless_equals_string (gst_structure_get_string (pooled, "end"), end);
  fail_unless (gst_structure_get_uint (pooled, "n-dropped", &n_dropped));
  fail_unless_equals_int (n_dropped, 0);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
}

/* Stopped without EOS: an application sets the pipeline to NULL while
 * playing (0), or it goes PAUSED, then READY (1: as gst-launch-1.0 stops
 * on Ctrl-C without -e) */
GST_START_TEST (test_stop_without_eos)
{
  static const GstState path_to[2][2] = {
    {GST_STATE_NULL, GST_STATE_NULL}, {GST_STATE_PAUSED, GST_STATE_READY}
  };
  gchar *dir, *path;
  Fixture *f = fixture_with_results (&dir, &path, NULL);

  push_and_wait_paired (f, N_PAIRS);
  gst_element_set_state (f->element, path_to[__i__][0]);
  fail_unless_equals_int (gst_element_set_state (f->element,
          path_to[__i__][1]), GST_STATE_CHANGE_SUCCESS);
  check_reported (f, N_PAIRS, "stopped");
  JsonNode *root = check_results_json (path, N_PAIRS);
  /* each frame says which reference frame, and when */
  JsonArray *frames = json_object_get_array_member (json_node_get_object
      (root), "frames");
  for (guint i = 0; i < N_PAIRS; i++) {
    JsonObject *fr = json_array_get_object_element (frames, i);
    fail_unless_equals_int (json_object_get_int_member (fr, "frameNum"), i);
    fail_unless_equals_int (json_object_get_int_member (fr, "refFrameNum"), i);
    fail_unless (json_object_get_double_member (fr, "time")
        == (double) (i * FRAME_DUR) / GST_SECOND);
  }
  json_node_unref (root);
  fixture_free (f);
  results_dir_free (dir, path);
}

GST_END_TEST;

/* A stop after EOS reports nothing twice: one pooled message ("eos") */
GST_START_TEST (test_null_after_eos)
{
  gchar *dir, *path;
  Fixture *f = fixture_with_results (&dir, &path, NULL);

  push_pairs (f, 0, N_PAIRS);
  push_eos_both (f);
  wait_eos (f);
  gst_element_set_state (f->element, GST_STATE_NULL);
  check_reported (f, N_PAIRS, "eos");
  json_node_unref (check_results_json (path, N_PAIRS));
  fixture_free (f);
  results_dir_free (dir, path);
}

GST_END_TEST;

/* A flushing seek finishes the file of the frames before it (the next
 * measurement then writes it again from its first frame) */
GST_START_TEST (test_flushing_seek_finishes_file)
{
  gchar *dir, *path;
  Fixture *f = fixture_with_results (&dir, &path, NULL);

  push_and_wait_paired (f, 4);
  push_flush (f);
  /* the flush is handled by the element's thread: the pooled message
   * comes with it */
  for (int t = 0; t < 10000; t++) {
    drain_bus (f->bus, &f->seen);
    gboolean pooled = FALSE;
    for (GList * l = f->seen; l; l = l->next) {
      const GstStructure *s = vmaf_structure (l->data);
      pooled |= s && !g_strcmp0 (gst_structure_get_string (s, "type"),
          "pooled");
    }
    if (pooled)
      break;
    g_usleep (1000);
  }
  check_reported (f, 4, "flushing-seek");
  json_node_unref (check_results_json (path, 4));
  fixture_free (f);
  results_dir_free (dir, path);
}

GST_END_TEST;

/* /dev/full takes the open but no data: by default an element error that
 * names the cause and the property that keeps the run going */
GST_START_TEST (test_write_failure_fails_the_run)
{
  const gchar *needles[] = { "dist_sink", "No space left",
    "write-failure=warn", NULL
  };
  Fixture *f;
  GstFlowReturn ret = GST_FLOW_OK;

  fail_unless (access ("/dev/full", W_OK) == 0, "no writable /dev/full");
  f = fixture_new ("results-filename=/dev/full", FALSE);
  fixture_set_caps (f, "I420", "I420", 42);
  /* the error stops the element: a later push is refused */
  for (guint i = 0; i < 40 && ret == GST_FLOW_OK; i++) {
    ret = push_ref (f, i);
    if (ret == GST_FLOW_OK)
      ret = push_dist (f, i);
  }
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  fail_unless (ret != GST_FLOW_OK, "the element went on after the error");
  fixture_free (f);
}

GST_END_TEST;

static Suite *
vmafhip_stops_suite (void)
{
  Suite *s = suite_create ("vmafhip-stops");
  TCase *tc = tcase_create ("stops");

  suite_add_tcase (s, tc);
  tcase_add_loop_test (tc, test_stop_without_eos, 0, 2);
  tcase_add_test (tc, test_null_after_eos);
  tcase_add_test (tc, test_flushing_seek_finishes_file);
  tcase_add_test (tc, test_write_failure_fails_the_run);
  return s;
}

GST_CHECK_MAIN (vmafhip_stops);
