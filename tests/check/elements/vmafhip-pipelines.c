/* vmafhip — the element in real pipelines: GStreamer's own converters and
 * codecs upstream, and the allocation it offers (a pinned pool with a
 * GPU, none on the CPU). */
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

/* The layouts as GStreamer's own converter writes them (NV12, YV12, P010
 * interleave and shift): identical content must give identical scores. */
GST_START_TEST (test_layout_vs_videoconvert)
{
  static const struct {
    const char *ref, *dist;
    double psnr_max;
  } cases[] = {
    {"I420", "NV12", 60.0},
    {"I420", "YV12", 60.0},
    {"I420_10LE", "P010_10LE", 72.0},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    gchar *desc = g_strdup_printf ("videotestsrc num-buffers=3 pattern=smpte "
        "! video/x-raw,width=160,height=90,format=%s,framerate=25/1 ! tee "
        "name=t t. ! queue ! v.ref_sink t. ! queue ! videoconvert dither=none ! "
        "video/x-raw,format=%s ! v.dist_sink vmafhip name=v backend=cpu frame-message=true "
        "psnr=true threads=1 ! fakesink", cases[k].ref, cases[k].dist);
    GstElement *pipe = gst_parse_launch (desc, NULL);
    GstBus *bus;
    GstMessage *m;
    guint n = 0;

    fail_unless (pipe != NULL, "%s", desc);
    bus = gst_element_get_bus (pipe);
    gst_element_set_state (pipe, GST_STATE_PLAYING);
    while ((m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
                GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
      const GstStructure *s = gst_message_get_structure (m);
      gboolean done = GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT;
      fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "error in %s", desc);
      if (s && gst_structure_has_name (s, "VMAF")
          && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
        const char *planes[] = { "psnr_y", "psnr_cb", "psnr_cr" };
        gdouble v;
        for (guint p = 0; p < 3; p++) {
          fail_unless (gst_structure_get_double (s, planes[p], &v));
          fail_unless (v == cases[k].psnr_max, "%s against %s: %s = %f",
              cases[k].ref, cases[k].dist, planes[p], v);
        }
        n++;
      }
      gst_message_unref (m);
      if (done)
        break;
    }
    fail_unless_equals_int (n, 3);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (bus);
    gst_object_unref (pipe);
    g_free (desc);
  }
}

GST_END_TEST;

/* Live sources and a slow branch: the same moving picture on both pads,
 * the distorted one through an identity that sleeps a while each frame
 * (the aggregator's `latency` gives it 100 ms).  Every frame scored has
 * its own partner (PSNR at its maximum: a neighbour differs, the ball
 * moves), and the element reports itself live with its lookahead's
 * latency. */
GST_START_TEST (test_live_slow_branch)
{
  /* 30 ms a frame: late but within the latency; 60 ms: further behind
   * every frame, beyond it (those frames go unscored, never mispaired) */
  static const guint sleep_us[] = { 30000, 60000 };
  static const guint min_scored[] = { 20, 1 };
  gchar *desc = g_strdup_printf ("videotestsrc is-live=true "
      "num-buffers=40 pattern=ball ! video/x-raw,width=160,height=90,"
      "format=I420,framerate=25/1 ! tee name=t t. ! queue ! v.ref_sink t. ! "
      "queue max-size-time=0 max-size-buffers=0 max-size-bytes=0 ! identity "
      "sleep-time=%u ! v.dist_sink vmafhip name=v backend=cpu psnr=true "
      "threads=1 latency=100000000 frame-message=true ! fakesink sync=true",
      sleep_us[__i__]);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (pipe != NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstMessage *m;
  guint scored = 0;
  gboolean asked_latency = FALSE;
  while ((m = gst_bus_timed_pop_filtered (bus, 30 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (m);
    const gboolean done = GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT;
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "pipeline error");
    if (s && gst_structure_has_name (s, "VMAF")
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
      gdouble psnr;
      gint index;
      fail_unless (gst_structure_get_double (s, "psnr_y", &psnr));
      fail_unless (gst_structure_get_int (s, "index", &index));
      fail_unless (psnr == 60.0, "frame %d scored against another picture "
          "(psnr_y %f)", index, psnr);
      scored++;
      if (!asked_latency) {
        /* playing and scoring: the element's latency */
        GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), "v");
        GstPad *src = gst_element_get_static_pad (v, "src");
        GstQuery *q = gst_query_new_latency ();
        gboolean live;
        GstClockTime min, max;
        fail_unless (gst_pad_query (src, q));
        gst_query_parse_latency (q, &live, &min, &max);
        fail_unless (live);
        /* the motion lookahead (one frame) on top of the source's */
        fail_unless (min >= GST_SECOND / 25, "latency %" GST_TIME_FORMAT,
            GST_TIME_ARGS (min));
        gst_query_unref (q);
        gst_object_unref (src);
        gst_object_unref (v);
        asked_latency = TRUE;
      }
    }
    gst_message_unref (m);
    if (done)
      break;
  }
  fail_unless (scored >= min_scored[__i__], "%u of 40 frames scored",
      scored);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* A demo-style pipeline: tee, x264enc, avdec_h264, as in the README. */
GST_START_TEST (test_pipeline_encode_decode)
{
  GError *error = NULL;
  GstElement *pipe;
  GstBus *bus;
  GstMessage *m;
  guint n_frame = 0, n_pooled = 0;

  /* registered only where x264enc and avdec_h264 exist */
  pipe = gst_parse_launch ("videotestsrc num-buffers=12 pattern=ball ! "
      "video/x-raw,width=320,height=240,format=I420,framerate=25/1 ! tee "
      "name=t t. ! queue ! v.ref_sink t. ! queue ! x264enc tune=zerolatency "
      "bitrate=300 ! avdec_h264 ! v.dist_sink vmafhip name=v backend=cpu frame-message=true "
      "! fakesink", &error);
  fail_unless (pipe != NULL, "%s", error ? error->message : "");
  bus = gst_element_get_bus (pipe);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PLAYING),
      GST_STATE_CHANGE_ASYNC);
  while ((m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (m);
    gboolean done = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "pipeline error");
    if (s && gst_structure_has_name (s, "VMAF")) {
      gdouble score;
      fail_unless (gst_structure_get_double (s, "score", &score));
      fail_unless (score > 20.0 && score <= 100.0, "score %f", score);
      if (!strcmp (gst_structure_get_string (s, "type"), "frame"))
        n_frame++;
      else
        n_pooled++;
    }
    gst_message_unref (m);
    if (done)
      break;
  }
  fail_unless_equals_int (n_frame, 12);
  fail_unless_equals_int (n_pooled, 1);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ------------------------------------------------ pinned buffer pool */

/* What one sink pad saw: the ALLOCATION queries it answered and the
 * buffers it received. */
typedef struct {
  guint queries;                /* ALLOCATION queries answered */
  guint pools, pinned_pools;    /* pools offered; with pinned memory */
  guint pinned_params;          /* allocators offered of pinned memory */
  gboolean video_meta;          /* GstVideoMeta offered every time */
  guint buffers, pinned_buffers;
} PadSeen;

static gboolean
is_pinned_allocator (GstAllocator * allocator)
{
  return allocator && !g_strcmp0 (allocator->mem_type,
      GST_VMAFHIP_PINNED_MEMORY_TYPE);
}

/* The answer, after the element has filled it in (PULL: on the way back). */
static GstPadProbeReturn
allocation_answer_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  PadSeen *seen = data;
  GstQuery *q = GST_PAD_PROBE_INFO_QUERY (info);

  (void) pad;
  if (GST_QUERY_TYPE (q) != GST_QUERY_ALLOCATION)
    return GST_PAD_PROBE_OK;
  seen->video_meta = (seen->queries == 0 || seen->video_meta)
      && gst_query_find_allocation_meta (q, GST_VIDEO_META_API_TYPE, NULL);
  seen->queries++;
  for (guint i = 0; i < gst_query_get_n_allocation_pools (q); i++) {
    GstBufferPool *pool = NULL;
    GstAllocator *allocator = NULL;
    GstStructure *config;

    gst_query_parse_nth_allocation_pool (q, i, &pool, NULL, NULL, NULL);
    seen->pools++;
    if (!pool)
      continue;
    config = gst_buffer_pool_get_config (pool);
    if (gst_buffer_pool_config_get_allocator (config, &allocator, NULL)
        && is_pinned_allocator (allocator)
        && gst_buffer_pool_config_has_option (config,
            GST_BUFFER_POOL_OPTION_VIDEO_META))
      seen->pinned_pools++;
    gst_structure_free (config);
    gst_object_unref (pool);
  }
  for (guint i = 0; i < gst_query_get_n_allocation_params (q); i++) {
    GstAllocator *allocator = NULL;
    gst_query_parse_nth_allocation_param (q, i, &allocator, NULL);
    if (is_pinned_allocator (allocator))
      seen->pinned_params++;
    gst_clear_object (&allocator);
  }
  return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn
buffer_memory_probe (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  PadSeen *seen = data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  gboolean pinned = gst_buffer_n_memory (buf) > 0;

  (void) pad;
  for (guint i = 0; i < gst_buffer_n_memory (buf); i++)
    pinned = pinned && gst_memory_is_type (gst_buffer_peek_memory (buf, i),
        GST_VMAFHIP_PINNED_MEMORY_TYPE);
  seen->buffers++;
  seen->pinned_buffers += pinned ? 1 : 0;
  return GST_PAD_PROBE_OK;
}

/* A videotestsrc on each pad (no tee: each source asks the element for
 * its allocation itself); returns the frame messages and the pooled one,
 * and what each sink pad saw. */
static GPtrArray *
run_testsrc_pipeline (const char *backend, const char *format, int w, int h,
    guint n, PadSeen seen[2], GstStructure ** pooled)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "! video/x-raw,format=%s,width=%d,height=%d,framerate=25/1 ! "
      "v.ref_sink videotestsrc num-buffers=%u pattern=smpte75 ! "
      "video/x-raw,format=%s,width=%d,height=%d,framerate=25/1 ! v.dist_sink "
      "vmafhip name=v backend=%s psnr=true frame-message=true threads=1 ! fakesink", n, format,
      w, h, n, format, w, h, backend);
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstElement *v;
  GstBus *bus;
  GstMessage *m;

  fail_unless (pipe != NULL, "%s: %s", desc, error ? error->message : "");
  memset (seen, 0, 2 * sizeof *seen);
  *pooled = NULL;
  v = gst_bin_get_by_name (GST_BIN (pipe), "v");
  for (int k = 0; k < 2; k++) {
    GstPad *pad = gst_element_get_static_pad (v, k ? "dist_sink" : "ref_sink");
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM
        | GST_PAD_PROBE_TYPE_PULL, allocation_answer_probe, &seen[k], NULL);
    gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, buffer_memory_probe,
        &seen[k], NULL);
    gst_object_unref (pad);
  }
  gst_object_unref (v);

  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (m);
    gboolean done = GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gst_message_parse_error (m, &e, NULL);
      fail ("%s: %s", desc, e->message);
    }
    if (s && gst_structure_has_name (s, "VMAF")) {
      if (!g_strcmp0 (gst_structure_get_string (s, "type"), "frame"))
        g_ptr_array_add (frames, gst_structure_copy (s));
      else
        *pooled = gst_structure_copy (s);
    }
    gst_message_unref (m);
    if (done)
      break;
  }
  fail_unless (m != NULL, "%s: no EOS within 60 s", desc);
  /* the streaming threads are joined: `seen` is final */
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  fail_unless_equals_int (frames->len, n);
  fail_unless (*pooled != NULL, "%s: no pooled message", desc);
  g_free (desc);
  return frames;
}

/* On the CPU the element offers no pinned pool or allocator (only the
 * video meta, as always), upstream's buffers are ordinary, and the
 * pipeline scores every frame. Runs everywhere. */
GST_START_TEST (test_allocation_cpu_no_pinned_pool)
{
  PadSeen seen[2];
  GstStructure *pooled;
  GPtrArray *frames = run_testsrc_pipeline ("cpu", "I420", 320, 240, 4,
      seen, &pooled);

  for (int k = 0; k < 2; k++) {
    fail_unless (seen[k].queries > 0, "pad %d: no ALLOCATION query", k);
    fail_unless (seen[k].video_meta, "pad %d: no GstVideoMeta offered", k);
    fail_unless_equals_int (seen[k].pools, 0);
    fail_unless_equals_int (seen[k].pinned_params, 0);
    fail_unless_equals_int (seen[k].buffers, 4);
    fail_unless_equals_int (seen[k].pinned_buffers, 0);
  }
  for (guint i = 0; i < frames->len; i++) {
    gdouble score;
    fail_unless (gst_structure_get_double (g_ptr_array_index (frames, i),
            "score", &score));
    fail_unless (score >= 0.0 && score <= 100.0, "score %f", score);
  }
  gst_structure_free (pooled);
  g_ptr_array_unref (frames);
}

GST_END_TEST;

/* With a GPU: both videotestsrc write into the element's pinned pool, and
 * every score (frame and pooled) equals the CPU run's exactly. I420 and
 * Y444 are uploaded without a copy; NV12's interleaved chroma goes through
 * the staging copy (luma is pinned too): the same bytes either way. An odd
 * size gives padded rows (strides from the video meta). Skipped without a
 * GPU. */
GST_START_TEST (test_allocation_gpu_pinned_pool)
{
  static const struct {
    const char *format;
    int w, h;
  } cases[] = {
    {"I420", 320, 240}, {"NV12", 320, 240}, {"I420_10LE", 321, 241},
    {"Y444", 320, 240},
  };
  const guint n = 6;

  /* registered only where a GPU is usable */
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++) {
    PadSeen seen[2], cpu_seen[2];
    GstStructure *pooled, *cpu_pooled;
    GPtrArray *frames = run_testsrc_pipeline ("hip", cases[c].format,
        cases[c].w, cases[c].h, n, seen, &pooled);
    GPtrArray *cpu_frames = run_testsrc_pipeline ("cpu", cases[c].format,
        cases[c].w, cases[c].h, n, cpu_seen, &cpu_pooled);

    for (int k = 0; k < 2; k++) {
      fail_unless (seen[k].queries > 0, "%s pad %d: no ALLOCATION query",
          cases[c].format, k);
      fail_unless (seen[k].video_meta);
      fail_unless (seen[k].pinned_pools > 0, "%s pad %d: no pinned pool "
          "offered", cases[c].format, k);
      fail_unless (seen[k].pinned_params > 0);
      fail_unless_equals_int (seen[k].buffers, n);
      fail_unless_equals_int (seen[k].pinned_buffers, n);
      fail_unless_equals_int (cpu_seen[k].pinned_buffers, 0);
    }
    for (guint i = 0; i < n; i++) {
      const GstStructure *g = g_ptr_array_index (frames, i);
      const GstStructure *r = g_ptr_array_index (cpu_frames, i);
      gchar *gs = gst_structure_to_string (g), *rs = gst_structure_to_string (r);
      fail_unless (gst_structure_is_equal (g, r), "%s frame %u:\n hip %s\n "
          "cpu %s", cases[c].format, i, gs, rs);
      g_free (gs);
      g_free (rs);
    }
    fail_unless (gst_structure_is_equal (pooled, cpu_pooled),
        "%s: the pooled scores differ", cases[c].format);
    gst_structure_free (pooled);
    gst_structure_free (cpu_pooled);
    g_ptr_array_unref (frames);
    g_ptr_array_unref (cpu_frames);
  }
}

GST_END_TEST;

static Suite *
vmafhip_pipelines_suite (void)
{
  Suite *s = suite_create ("vmafhip-pipelines");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_layout_vs_videoconvert);
  tcase_add_loop_test (tc, test_live_slow_branch, 0, 2);
  if (has_factories ("x264enc", "avdec_h264"))
    tcase_add_test (tc, test_pipeline_encode_decode);
  else
    vh_test_skip_case ("test_pipeline_encode_decode", "x264enc or "
        "avdec_h264 missing (gstreamer1.0-plugins-ugly, -libav)");
  tcase_add_test (tc, test_allocation_cpu_no_pinned_pool);
  if (gpu_present_in_child ())
    tcase_add_test (tc, test_allocation_gpu_pinned_pool);
  else
    vh_test_skip_case ("test_allocation_gpu_pinned_pool", "no usable GPU "
        "here (the element offers no pinned pool without one)");
  return s;
}

GST_CHECK_MAIN (vmafhip_pipelines);
