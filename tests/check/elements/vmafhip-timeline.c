/* vmafhip — the element's timeline: the end of the measurement (either pad
 * first, before any frame), a flushing seek, and live mode (latency, the
 * deadline, a late frame, force-live). Same fixture as vmafhip.c. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <json-glib/json-glib.h>

#include "gstvmafhipmeta.h"
#include "gstvmafhippool.h"
#include "vh-gpu.h"
#include "vh-engine.h"
#include "vh-synth.h"
#include "vh-test-util.h"
#include "vh-element-fixture.h"


/* Whichever input ends first ends the measurement. */
static void
check_eos_first (gboolean ref_first)
{
  const char *const models[] = { "vmaf_v0.6.1", NULL };
  Fixture *f = fixture_new (NULL, FALSE);
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  fixture_set_caps (f, "I420", "I420", 4);
  push_pairs (f, 0, 3);
  if (ref_first) {
    gst_harness_push_event (f->ref, gst_event_new_eos ());
    /* the distorted stream goes on: its next frame finds the end */
    push_dist (f, 3);
    push_dist (f, 4);
  } else {
    gst_harness_push_event (f->dist, gst_event_new_eos ());
    push_ref (f, 3);
    push_ref (f, 4);
  }
  wait_eos (f);
  fail_unless_equals_int (gst_harness_buffers_received (f->ref), 3);
  expected_run (&x, &f->content, models, FALSE, FALSE, 0, 3);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 3);
  fail_unless_equals_int (n_pooled, 1);
  for (guint i = 0; i < 3; i++)
    check_frame_scores (g_ptr_array_index (frames, i), &x, i);
  check_pooled (pooled, &x, 3, 1, "mean");
  /* the last frame (held for motion) was pushed, with its meta */
  for (guint i = 0; i < 3; i++) {
    GstBuffer *b = gst_harness_pull (f->ref);
    fail_unless (gst_buffer_get_vmafhip_meta (b) != NULL);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (gst_buffer_get_vmafhip_meta (b)), i);
    gst_buffer_unref (b);
  }
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_START_TEST (test_eos_ref_first)
{
  check_eos_first (TRUE);
}

GST_END_TEST;

GST_START_TEST (test_eos_dist_first)
{
  check_eos_first (FALSE);
}

GST_END_TEST;

GST_START_TEST (test_eos_before_any_frame)
{
  Fixture *f = fixture_new (NULL, FALSE);
  const gchar *needles[] = { "No frame pair was scored", NULL };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  fixture_set_caps (f, "I420", "I420", 4);
  push_eos_both (f);
  wait_eos (f);
  expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 0);
  fail_unless_equals_int (n_pooled, 0);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

/* A flushing seek posts the pooled message of the frames before it, as
 * upstream does, and restarts the statistics cleanly. */
GST_START_TEST (test_flushing_seek)
{
  const char *const models[] = { "vmaf_v0.6.1", NULL };
  Fixture *f = fixture_new (NULL, FALSE);
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled, n_before;
  GstSegment seg;

  fixture_set_caps (f, "I420", "I420", 6);
  push_pairs (f, 0, 3);
  /* frames 0 and 1 are out; frame 2 waits for its successor */
  for (guint i = 0; i < 2; i++)
    gst_buffer_unref (gst_harness_pull (f->ref));

  push_flush (f);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = 10 * FRAME_DUR;
  seg.position = seg.start;
  fail_unless (gst_harness_push_event (f->ref, gst_event_new_segment (&seg)));
  fail_unless (gst_harness_push_event (f->dist, gst_event_new_segment (&seg)));

  /* after the seek: frames 8..13 of the same content, as an accurate seek
   * in a parser gives them: 8 and 9 lie before the segment and are
   * clipped on both pads */
  push_pairs (f, 8, 6);
  push_eos_both (f);
  wait_eos (f);

  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  /* 3 frames before the seek, then a fresh start at index 0: the third,
   * held for motion, is scored and reported at the seek, not pushed */
  n_before = frames->len - 4;
  fail_unless_equals_int (n_before, 3);
  for (guint i = 0; i < n_before; i++) {
    gint index;
    fail_unless (gst_structure_get_int (g_ptr_array_index (frames, i),
            "index", &index));
    fail_unless_equals_int (index, i);
  }
  /* the pooled message at the seek: the same 3 frames; then the last */
  fail_unless_equals_int (n_pooled, 2);
  {
    guint n_seek = 0;
    for (GList * l = msgs; l; l = l->next) {
      const GstStructure *s = vmaf_structure (l->data);
      if (s && !g_strcmp0 (gst_structure_get_string (s, "type"), "pooled")) {
        fail_unless (gst_structure_get_uint (s, "n-frames", &n_seek));
        break;
      }
    }
    fail_unless_equals_int (n_seek, 3);
  }
  expected_run (&x, &f->content, models, FALSE, FALSE, 10, 4);
  for (guint i = 0; i < 4; i++) {
    const GstStructure *s = g_ptr_array_index (frames, n_before + i);
    guint64 rt;
    check_frame_scores (s, &x, i);
    fail_unless (gst_structure_get_uint64 (s, "running-time", &rt));
    fail_unless_equals_uint64 (rt, i * FRAME_DUR);
  }
  check_pooled (pooled, &x, 4, 1, "mean");
  for (guint i = 0; i < 4; i++) {
    GstBuffer *b = gst_harness_pull (f->ref);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), (10 + i) * FRAME_DUR);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (gst_buffer_get_vmafhip_meta (b)), i);
    gst_buffer_unref (b);
  }
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

/* Waits until the element has given up on reference frames (after a
 * cranked deadline), so what is pushed next is really late. */
static void
wait_unpaired_ref (Fixture * f, guint64 n)
{
  const gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  guint64 got = 0;

  while (got < n) {
    g_object_get (f->element, "unpaired-ref-frames", &got, NULL);
    fail_if (g_get_monotonic_time () > deadline, "the deadline did not pass");
    if (got < n)
      g_usleep (1000);
  }
}

/* Live: the element reports one frame of latency, pairs by running time,
 * and counts a late distorted frame instead of pairing it with a stale
 * reference. Driven by the harness test clock. */
GST_START_TEST (test_live_late_frame)
{
  Fixture *f = fixture_new (NULL, TRUE);
  GstQuery *q;
  gboolean live;
  GstClockTime min, max;
  GstPad *src;
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;
  guint64 unpaired;
  const gint want_index[] = { 0, 1, -1, 2 };
  const gchar *needles[] = { "no partner", NULL };

  fixture_set_caps (f, "I420", "I420", 8);
  push_pairs (f, 0, 2);
  /* frame 0 is final once frame 1 is in */
  gst_buffer_unref (gst_harness_pull (f->ref));

  /* latency: one frame held for the motion feature */
  q = gst_query_new_latency ();
  src = gst_element_get_static_pad (f->element, "src");
  fail_unless (gst_pad_query (src, q));
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (live);
  fail_unless_equals_uint64 (min, FRAME_DUR);
  gst_query_unref (q);
  gst_object_unref (src);

  /* reference frame 2 arrives, its distorted frame misses the deadline */
  fail_unless_equals_int (push_ref (f, 2), GST_FLOW_OK);
  fail_unless (gst_harness_crank_single_clock_wait (f->ref));
  wait_unpaired_ref (f, 1);
  /* ... and comes late: it must not be paired with reference frame 3 */
  fail_unless_equals_int (push_dist (f, 2), GST_FLOW_OK);
  push_pairs (f, 3, 1);
  push_eos_both (f);
  wait_eos (f);
  expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);

  fail_unless_equals_int (gst_harness_buffers_in_queue (f->ref), 3);
  for (guint i = 1; i < 4; i++) {
    GstBuffer *b = gst_harness_pull (f->ref);
    GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (b);
    fail_unless (meta != NULL, "buffer %u has no meta", i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), i * FRAME_DUR);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (meta), want_index[i]);
    fail_unless (gst_structure_has_field (gst_vmafhip_meta_get_scores (meta),
            "score") == (want_index[i] >= 0));
    gst_buffer_unref (b);
  }
  g_object_get (f->element, "unpaired-ref-frames", &unpaired, NULL);
  fail_unless_equals_uint64 (unpaired, 1);
  g_object_get (f->element, "unpaired-dist-frames", &unpaired, NULL);
  fail_unless_equals_uint64 (unpaired, 1);

  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 3);
  check_frame_timing (g_ptr_array_index (frames, 2), 2, 3 * FRAME_DUR);
  fail_unless (gst_structure_get_uint64 (pooled, "unpaired-ref", &unpaired));
  fail_unless_equals_uint64 (unpaired, 1);
  fail_unless (gst_structure_get_uint64 (pooled, "unpaired-dist", &unpaired));
  fail_unless_equals_uint64 (unpaired, 1);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

/* Live: matching pairs, scores as the engine's, by running time. */
GST_START_TEST (test_live_pairs)
{
  const char *const models[] = { "vmaf_v0.6.1", NULL };
  Fixture *f = fixture_new (NULL, TRUE);
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  fixture_set_caps (f, "I420", "I420", 15);
  /* the distorted branch runs ahead by one frame: still paired by time */
  fail_unless_equals_int (push_ref (f, 0), GST_FLOW_OK);
  for (guint i = 0; i < 4; i++) {
    fail_unless_equals_int (push_dist (f, i), GST_FLOW_OK);
    if (i + 1 < 4)
      fail_unless_equals_int (push_ref (f, i + 1), GST_FLOW_OK);
  }
  push_eos_both (f);
  wait_eos (f);
  expected_run (&x, &f->content, models, FALSE, FALSE, 0, 4);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 4);
  for (guint i = 0; i < 4; i++) {
    check_frame_timing (g_ptr_array_index (frames, i), i, i * FRAME_DUR);
    check_frame_scores (g_ptr_array_index (frames, i), &x, i);
  }
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

/* force-live on non-live inputs: aggregates on the clock, so a missing
 * distorted frame does not stall the reference. */
GST_START_TEST (test_force_live)
{
  GstElement *e = gst_element_factory_make_full ("vmafhip", "force-live",
      TRUE, "backend", 1, "threads", 1, NULL);
  Fixture *f;
  gboolean fl;
  guint64 unpaired;
  GstBuffer *b;

  fail_unless (e != NULL);
  g_object_get (e, "force-live", &fl, NULL);
  fail_unless (fl);
  f = fixture_new_with_element (e, FALSE);
  fixture_set_caps (f, "I420", "I420", 2);
  push_pairs (f, 0, 2);
  gst_buffer_unref (gst_harness_pull (f->ref));
  fail_unless_equals_int (push_ref (f, 2), GST_FLOW_OK);
  fail_unless (gst_harness_crank_single_clock_wait (f->ref));
  wait_unpaired_ref (f, 1);
  push_eos_both (f);
  wait_eos (f);
  g_object_get (e, "unpaired-ref-frames", &unpaired, NULL);
  fail_unless_equals_uint64 (unpaired, 1);
  b = gst_harness_pull (f->ref);
  fail_unless_equals_int (gst_vmafhip_meta_get_index (gst_buffer_get_vmafhip_meta (b)), 1);
  gst_buffer_unref (b);
  b = gst_harness_pull (f->ref);
  fail_unless_equals_int (gst_vmafhip_meta_get_index (gst_buffer_get_vmafhip_meta (b)), -1);
  gst_buffer_unref (b);
  fixture_free (f);
}

GST_END_TEST;

static Suite *
vmafhip_timeline_suite (void)
{
  Suite *s = suite_create ("vmafhip-timeline");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_eos_ref_first);
  tcase_add_test (tc, test_eos_dist_first);
  tcase_add_test (tc, test_eos_before_any_frame);
  tcase_add_test (tc, test_flushing_seek);
  tcase_add_test (tc, test_live_late_frame);
  tcase_add_test (tc, test_live_pairs);
  tcase_add_test (tc, test_force_live);
  return s;
}

GST_CHECK_MAIN (vmafhip_timeline);
