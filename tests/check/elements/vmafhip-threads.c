/* vmafhip — the element with worker threads (frames in flight on the
 * CPU): the same frame messages as one thread, in order, none lost or
 * repeated; the latency it reports; clean shutdown on EOS, flushing seeks
 * and state changes; more threads than CPUs capped with a note. */
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>

#include "vh-element-fixture.h"

#define FRAMES 40

/* ref: videotestsrc; dist: the same through videobalance (so the scores
 * vary); vmaf_v0.6.1, PSNR and SSIM on the CPU */
static GstElement *
pipeline_new (guint threads, guint n_buffers)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "! video/x-raw,width=176,height=144,format=I420,framerate=25/1 ! tee "
      "name=t t. ! queue ! v.ref_sink t. ! queue ! videobalance "
      "brightness=0.05 contrast=0.9 ! v.dist_sink vmafhip name=v "
      "backend=cpu frame-message=true psnr=true ssim=true threads=%u ! "
      "fakesink name=sink", n_buffers, threads);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL, "%s", desc);
  g_free (desc);
  return pipe;
}

/* Runs to EOS; returns each frame's VMAF by index (-1: no message), and
 * fails on an index seen twice or out of order. */
static GArray *
frame_scores (guint threads)
{
  GstElement *pipe = pipeline_new (threads, FRAMES);
  GstBus *bus = gst_element_get_bus (pipe);
  GArray *scores = g_array_new (FALSE, FALSE, sizeof (gdouble));
  GstMessage *m;
  gint last = -1;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (m);
    const gboolean done = GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT;
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR);
    if (s && gst_structure_has_name (s, "VMAF")
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
      gint index;
      gdouble v;
      fail_unless (gst_structure_get_int (s, "index", &index));
      fail_unless (gst_structure_get_double (s, "vmaf", &v));
      fail_unless_equals_int (index, last + 1);
      last = index;
      g_array_append_val (scores, v);
    }
    gst_message_unref (m);
    if (done)
      break;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return scores;
}

GST_START_TEST (test_threads_same_frames)
{
  GArray *one = frame_scores (1);
  fail_unless_equals_int (one->len, FRAMES);
  for (guint threads = 2; threads <= 4; threads++) {
    GArray *many = frame_scores (threads);
    fail_unless_equals_int (many->len, FRAMES);
    for (guint i = 0; i < FRAMES; i++)
      fail_unless (g_array_index (one, gdouble, i)
          == g_array_index (many, gdouble, i), "frame %u: %.17g, %u threads "
          "%.17g", i, g_array_index (one, gdouble, i), threads,
          g_array_index (many, gdouble, i));
    g_array_unref (many);
  }
  g_array_unref (one);
}

GST_END_TEST;

/* The latency query answers the lookahead plus the frames in flight. */
GST_START_TEST (test_threads_latency)
{
  const guint cpus = g_get_num_processors ();
  for (guint threads = 1; threads <= 2; threads++) {
    GstElement *pipe = pipeline_new (threads, 1000);
    GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), "v");
    GstBus *bus = gst_element_get_bus (pipe);
    GstMessage *m;

    gst_element_set_state (pipe, GST_STATE_PLAYING);
    m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
        GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR);
    fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ASYNC_DONE);
    gst_message_unref (m);
    GstQuery *q = gst_query_new_latency ();
    GstPad *src = gst_element_get_static_pad (v, "src");
    fail_unless (gst_pad_query (src, q));
    GstClockTime min;
    gst_query_parse_latency (q, NULL, &min, NULL);
    /* 40 ms a frame; one frame of lookahead (motion) */
    const guint in_flight = threads > 1 ? MIN (threads, cpus) + 2 : 0;
    fail_unless_equals_uint64 (min, (1 + in_flight) * 40 * GST_MSECOND);
    gst_query_unref (q);
    gst_object_unref (src);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (v);
    gst_object_unref (pipe);
  }
}

GST_END_TEST;

/* Stopped with frames in flight, restarted, stopped again; a flushing seek
 * to the start in the middle: the frames after it count from 0 again. */
GST_START_TEST (test_threads_state_changes_and_seek)
{
  GstElement *pipe = pipeline_new (3, 1000);
  GstBus *bus = gst_element_get_bus (pipe);

  for (int round = 0; round < 2; round++) {
    guint n = 0;
    GstMessage *m;
    gboolean seeked = FALSE;
    gint after_seek = -1, last = -1;

    gst_element_set_state (pipe, GST_STATE_PLAYING);
    while ((m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
                GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR))) {
      const GstStructure *s = gst_message_get_structure (m);
      fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR);
      gint index;
      if (s && gst_structure_has_name (s, "VMAF")
          && gst_structure_get_int (s, "index", &index)) {
        n++;
        /* messages posted before the seek went through may still come */
        if (seeked && after_seek < 0 && index <= last)
          after_seek = index;
        last = index;
      }
      gst_message_unref (m);
      if (round == 1 && n == 10 && !seeked) {
        fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
                GST_SEEK_FLAG_FLUSH, 0));
        seeked = TRUE;
      }
      if ((round == 0 && n >= 15) || after_seek >= 0)
        break;
    }
    fail_unless (n > 0);
    if (round == 1)
      fail_unless_equals_int (after_seek, 0);
    /* frames in flight are dropped, the workers stop */
    fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_NULL),
        GST_STATE_CHANGE_SUCCESS);
  }
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* More threads than CPUs: accepted, capped, said in an INFO message. */
GST_START_TEST (test_threads_capped)
{
  GstElement *pipe = pipeline_new (100000, 3);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;
  gboolean noted = FALSE;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_INFO | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const gboolean done = GST_MESSAGE_TYPE (m) != GST_MESSAGE_INFO;
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR);
    if (!done) {
      GError *info = NULL;
      gst_message_parse_info (m, &info, NULL);
      noted |= strstr (info->message, "threads=100000") != NULL
          && strstr (info->message, "CPUs") != NULL;
      g_error_free (info);
    }
    gst_message_unref (m);
    if (done)
      break;
  }
  fail_unless (noted, "no note that threads were capped");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* A worker's error (CAMBI refuses a 10-bit sample above 1023 in frame 3):
 * an element error that names the frame, the pushes after it refused, and
 * the element torn down with frames in flight. */
GST_START_TEST (test_threads_worker_error)
{
  Fixture *f = fixture_new ("backend=cpu threads=2 features=cambi", FALSE);
  video_info_init (&f->ref_info, "I420_10LE", 256, 144);
  video_info_init (&f->dist_info, "I420_10LE", 256, 144);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  content_init (&f->content, &f->ref_info, 5);
  GstFlowReturn ret = GST_FLOW_OK;
  for (guint i = 0; i < 12 && ret == GST_FLOW_OK; i++) {
    VhPicture r, d;
    render (f, i, &r, &d);
    if (i == 3)
      ((guint16 *) d.plane[0].data)[2 * 256 + 5] = 3000;
    ret = gst_harness_push (f->ref, make_buffer (&f->ref_info, &r, i, 0));
    if (ret == GST_FLOW_OK)
      ret = gst_harness_push (f->dist, make_buffer (&f->dist_info, &d, i,
              0));
  }
  fail_unless (ret != GST_FLOW_OK, "frames kept being scored after the bad "
      "sample");
  static const gchar *const needles[] = { "frame 3", "above 10 bits", NULL };
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  fixture_free (f);
}

GST_END_TEST;

/* CAMBI's heatmaps through the element, with workers: every frame is in
 * the files at the end (the reset at the end of the measurement keeps
 * them). */
GST_START_TEST (test_threads_cambi_heatmaps)
{
  char *dir = g_dir_make_tmp ("vmafhip-heatmaps-XXXXXX", NULL);
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=6 "
      "pattern=gradient ! video/x-raw,width=320,height=240,format=I420 ! "
      "tee name=t t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafhip "
      "name=v backend=cpu threads=2 features=cambi=heatmaps_path=%s ! "
      "fakesink", dir);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL, "%s", desc);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
  gst_message_unref (m);
  gst_element_set_state (pipe, GST_STATE_NULL);
  guint w = 320, h = 240;
  for (int k = 0; k < 5; k++) {
    gchar *file = g_strdup_printf ("%s/cambi_heatmap_scale_%d_%ux%u_16b.gray",
        dir, k, w, h);
    GStatBuf st;
    fail_unless (g_stat (file, &st) == 0, "no %s", file);
    fail_unless_equals_uint64 ((guint64) st.st_size, 6ull * w * h * 2);
    g_unlink (file);
    g_free (file);
    w = (w + 1) >> 1;
    h = (h + 1) >> 1;
  }
  g_rmdir (dir);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (dir);
}

GST_END_TEST;

static Suite *
vmafhip_threads_suite (void)
{
  Suite *s = suite_create ("vmafhip-threads");
  TCase *tc = tcase_create ("threads");
  tcase_add_test (tc, test_threads_same_frames);
  tcase_add_test (tc, test_threads_latency);
  tcase_add_test (tc, test_threads_state_changes_and_seek);
  tcase_add_test (tc, test_threads_capped);
  tcase_add_test (tc, test_threads_worker_error);
  tcase_add_test (tc, test_threads_cambi_heatmaps);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (vmafhip_threads);
