/* vmafhip — the element's refusals: caps that cannot be scored, models,
 * results files and backends it cannot use, each with a message that names
 * the problem, at the state change or negotiation where it shows. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>
#include <json-glib/json-glib.h>

#include "gstvmafhipmeta.h"
#include "gstvmafhippool.h"
#include "vh-gpu.h"
#include "vh-engine.h"
#include "vh-synth.h"
#include "vh-test-util.h"
#include "vh-element-fixture.h"


static void
check_mismatch (const char *props, const char *ref_caps,
    const char *dist_caps, const gchar * const *needles)
{
  Fixture *f = fixture_new (props, FALSE);

  GstVideoInfo ri, di;
  GstCaps *caps;

  gst_harness_set_src_caps_str (f->ref, ref_caps);
  gst_harness_set_src_caps_str (f->dist, dist_caps);
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);

  caps = gst_caps_from_string (ref_caps);
  fail_unless (gst_video_info_from_caps (&ri, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string (dist_caps);
  fail_unless (gst_video_info_from_caps (&di, caps));
  gst_caps_unref (caps);
  push_after_refusal (f, ri.size, di.size);
  fixture_free (f);
}

GST_START_TEST (test_error_size_mismatch)
{
  const gchar *needles[] = { "ref_sink: 160x90", "dist_sink: 80x46", "size",
    "videoscale", "width=160,height=90", "scaler=bicubic", NULL
  };
  /* scaled up by default (vmafhip-scale.c tests that): refused without */
  check_mismatch ("scaler=none", "video/x-raw,format=I420,width=160,height=90,"
      "framerate=25/1", "video/x-raw,format=I420,width=80,height=46,"
      "framerate=25/1", needles);
}

GST_END_TEST;

GST_START_TEST (test_error_depth_mismatch)
{
  const gchar *needles[] = { "ref_sink: 160x90, 8-bit I420",
    "dist_sink: 160x90, 10-bit I420_10LE", "bit depth", "videoconvert",
    "format=I420", NULL
  };
  check_mismatch (NULL, "video/x-raw,format=I420,width=160,height=90,"
      "framerate=25/1", "video/x-raw,format=I420_10LE,width=160,height=90,"
      "framerate=25/1", needles);
}

GST_END_TEST;

GST_START_TEST (test_error_size_and_depth_mismatch)
{
  const gchar *needles[] = { "size and bit depth", "videoscale",
    "videoconvert", NULL
  };
  check_mismatch (NULL, "video/x-raw,format=I420_10LE,width=160,height=90,"
      "framerate=25/1", "video/x-raw,format=I420,width=320,height=180,"
      "framerate=25/1", needles);
}

GST_END_TEST;

/* Errors at READY→PAUSED: the state change fails with a clear message. */
static void
check_start_error (const char *props, const gchar * const *needles)
{
  GstElement *e = make_element (props);
  GstBus *bus = gst_bus_new ();
  GList *seen = NULL;

  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  expect_message (bus, &seen, GST_MESSAGE_ERROR, needles);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_list_free_full (seen, (GDestroyNotify) gst_message_unref);
}

GST_START_TEST (test_error_unknown_model)
{
  const gchar *n1[] = { "model-filename", "'vmaf_v9'", "built-in",
    "vmaf_v0.6.1", NULL
  };
  const gchar *n2[] = { "models", "'nosuchmodel'", "built-in", NULL };
  const gchar *n3[] = { "model-filename is empty", NULL };
  check_start_error ("model-filename=vmaf_v9", n1);
  check_start_error ("models=vmaf_v0.6.1,nosuchmodel", n2);
  {
    GstElement *e = make_element (NULL);
    GstBus *bus = gst_bus_new ();
    GList *seen = NULL;
    g_object_set (e, "model-filename", "", NULL);
    gst_element_set_bus (e, bus);
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    expect_message (bus, &seen, GST_MESSAGE_ERROR, n3);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_element_set_bus (e, NULL);
    gst_object_unref (bus);
    gst_object_unref (e);
    g_list_free_full (seen, (GDestroyNotify) gst_message_unref);
  }
}

GST_END_TEST;

GST_START_TEST (test_error_model_file)
{
  gchar *dir = g_dir_make_tmp ("vmafhip-test-XXXXXX", NULL);
  gchar *missing = g_build_filename (dir, "missing.json", NULL);
  gchar *garbage = g_build_filename (dir, "garbage.json", NULL);
  gchar *empty = g_build_filename (dir, "notamodel.json", NULL);
  gchar *props;

  fail_unless (g_file_set_contents (garbage, "{ this is not json", -1, NULL));
  fail_unless (g_file_set_contents (empty, "{ \"x\": 1 }", -1, NULL));
  {
    const gchar *needles[] = { "Cannot read the VMAF model", missing,
      "No such file", NULL
    };
    props = g_strdup_printf ("model-filename=%s", missing);
    check_start_error (props, needles);
    g_free (props);
  }
  {
    const gchar *needles[] = { garbage, "invalid JSON", NULL };
    props = g_strdup_printf ("model-filename=%s", garbage);
    check_start_error (props, needles);
    g_free (props);
  }
  {
    const gchar *needles[] = { empty, NULL };
    props = g_strdup_printf ("models=vmaf_v0.6.1,%s", empty);
    check_start_error (props, needles);
    g_free (props);
  }
  g_unlink (garbage);
  g_unlink (empty);
  g_rmdir (dir);
  g_free (missing);
  g_free (garbage);
  g_free (empty);
  g_free (dir);
}

GST_END_TEST;

/* A model needing a feature vmafhip lacks fails at start, not later. */
/* A model that needs a libvmaf feature vmafhip does not implement (float
 * VIF): the element fails at start and names the file and the feature. */
GST_START_TEST (test_error_model_unsupported_feature)
{
  gchar *dir = g_dir_make_tmp ("vmafhip-model-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "float_vif_model.json", NULL);
  const gchar *needles[] = { "float_vif_model.json", "vif_scale0",
    "not implement", NULL
  };
  fail_unless (g_file_set_contents (path,
          "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", "
          "\"norm_type\": \"linear_rescale\", \"score_clip\": [0.0, 100.0], "
          "\"feature_names\": [\"VMAF_feature_vif_scale0_score\"], "
          "\"feature_opts_dicts\": [{}], \"slopes\": [0.01, 1.0], "
          "\"intercepts\": [-0.01, 0.0], \"model\": \"svm_type nu_svr\\n"
          "kernel_type rbf\\ngamma 0.5\\nnr_class 2\\ntotal_sv 2\\nrho -0.5\\n"
          "SV\\n0.25 1:0.2 \\n-0.125 1:0.9 \\n\"}}", -1, NULL));
  gchar *props = g_strdup_printf ("model-filename=%s", path);
  check_start_error (props, needles);
  g_unlink (path);
  g_rmdir (dir);
  g_free (props);
  g_free (path);
  g_free (dir);
}

GST_END_TEST;

GST_START_TEST (test_error_models_list)
{
  const gchar *n1[] = { "unknown option 'colour'", "name=", NULL };
  const gchar *n4[] = { "cambi.x", "does not use", "adm, motion, vif",
    NULL
  };
  const gchar *n5[] = { "vif.vif_enhn_gain_limit", "wants a number", NULL };
  const gchar *n6[] = { "has no option 'nope'", NULL };
  const gchar *n7[] = { "outside its range", NULL };
  const gchar *n8[] = { "/nonexistent/m.json", NULL };
  const gchar *n9[] = { "not FEATURE.OPTION=VALUE", NULL };
  /* libvmaf's keys: a model without name= is "vmaf", so two unnamed
   * models collide whichever they are */
  const gchar *n2[] = { "reported as 'vmaf'", ":name=", NULL };
  const gchar *n2b[] = { "reported as 'x'", ":name=", NULL };
  const gchar *n3[] = { "lists no model", NULL };
  check_start_error ("models=vmaf_v0.6.1:colour=red", n1);
  check_start_error ("models=vmaf_v0.6.1,vmaf_v0.6.1", n2);
  check_start_error ("models=vmaf_v0.6.1,vmaf_v0.6.1neg", n2);
  check_start_error ("models=vmaf_v0.6.1:name=x,vmaf_v0.6.1neg:name=x", n2b);
  check_start_error ("models=,", n3);
  /* libvmaf's --model syntax: bad overrides and sources */
  check_start_error ("models=version=vmaf_v0.6.1:cambi.x=1", n4);
  check_start_error ("models=version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=lots",
      n5);
  check_start_error ("models=version=vmaf_v0.6.1:vif.nope=1", n6);
  check_start_error ("models=version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=0.5",
      n7);
  check_start_error ("models=path=/nonexistent/m.json", n8);
  check_start_error ("models=version=vmaf_v0.6.1:vif.=1", n9);
}

GST_END_TEST;

GST_START_TEST (test_error_results_file)
{
  const gchar *n1[] = { "/nonexistent-vmafhip-dir/r.json", "does not exist",
    NULL
  };
  gchar *dir = g_dir_make_tmp ("vmafhip-test-XXXXXX", NULL);
  gchar *props = g_strdup_printf ("results-filename=%s", dir);
  const gchar *n2[] = { dir, "folder", NULL };

  check_start_error ("results-filename=/nonexistent-vmafhip-dir/r.json", n1);
  check_start_error (props, n2);
  g_rmdir (dir);
  g_free (props);
  g_free (dir);
}

GST_END_TEST;

GST_START_TEST (test_error_backend_hip)
{
  if (gpu_present ()) {
    GstElement *e = make_element ("backend=hip");
    gchar *active;
    fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
        GST_STATE_CHANGE_SUCCESS);
    g_object_get (e, "active-backend", &active, NULL);
    fail_unless (g_str_has_prefix (active, "hip: "), "active: %s", active);
    g_free (active);
    gst_element_set_state (e, GST_STATE_NULL);
    gst_object_unref (e);
    return;
  }
  const gchar *needles[] = { "No usable HIP GPU", "backend=cpu", NULL };
  check_start_error ("backend=hip", needles);
  /* a device id that does not exist is refused by name */
  const gchar *range[] = { "No usable HIP GPU", NULL };
  check_start_error ("backend=hip device-id=7", range);
}

GST_END_TEST;

GST_START_TEST (test_backend_auto)
{
  if (gpu_present ())
    return;                     /* auto takes the GPU there: no warning */
  GstElement *e = make_element ("backend=auto");
  GstBus *bus = gst_bus_new ();
  const gchar *needles[] = { "No usable GPU", "CPU", NULL };
  gchar *active;
  GList *seen = NULL;

  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  expect_message (bus, &seen, GST_MESSAGE_WARNING, needles);
  g_object_get (e, "active-backend", &active, NULL);
  fail_unless_equals_string (active, "cpu");
  g_free (active);
  /* once per element: no second warning on the next start */
  gst_element_set_state (e, GST_STATE_READY);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  {
    GList *w = take_messages (bus, &seen, GST_MESSAGE_WARNING);
    fail_unless (w == NULL, "a second warning");
  }
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
  g_list_free_full (seen, (GDestroyNotify) gst_message_unref);
}

GST_END_TEST;

/* features: an unknown feature and an unknown option fail at start,
 * naming them; so does a malformed entry. */
GST_START_TEST (test_error_features)
{
  const gchar *n1[] = { "features", "'bogus'", "unknown feature",
    "float_ssim", NULL
  };
  const gchar *n2[] = { "features", "'psnr'", "no option 'nonsense'", NULL };
  const gchar *n3[] = { "features", "float_ssim=scale", NULL };
  const gchar *n4[] = { "features", "scale", "11", NULL };
  check_start_error ("features=bogus", n1);
  check_start_error ("features=psnr=nonsense=1", n2);
  check_start_error ("features=float_ssim=scale", n3);
  check_start_error ("features=float_ssim=scale=11", n4);
}

GST_END_TEST;

/* ciede reads chroma: GRAY and 4:2:2 streams are refused at the caps,
 * naming the metric and the reason. */
static void
check_ciede_refused (const char *format, const gchar * const *needles)
{
  Fixture *f = fixture_new ("features=ciede", FALSE);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=160,height=90,"
      "framerate=25/1", format);
  GstVideoInfo info;

  gst_harness_set_src_caps_str (f->ref, caps);
  gst_harness_set_src_caps_str (f->dist, caps);
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  gst_video_info_set_format (&info, gst_video_format_from_string (format),
      160, 90);
  push_after_refusal (f, info.size, info.size);
  g_free (caps);
  fixture_free (f);
}

GST_START_TEST (test_error_ciede_layouts)
{
  const gchar *gray[] = { "ciede", "needs chroma", "GRAY8", NULL };
  const gchar *i422[] = { "ciede", "4:2:2", "Y42B", NULL };
  check_ciede_refused ("GRAY8", gray);
  check_ciede_refused ("Y42B", i422);
}

GST_END_TEST;

/* MS-SSIM needs 176x176; the fixture's 160x90 is refused at the caps with
 * an error naming the metric and the size, and no frame is scored. */
GST_START_TEST (test_error_ms_ssim_too_small)
{
  const gchar *needles[] = { "float_ms_ssim", "160x90", "176x176", NULL };
  Fixture *f = fixture_new ("ms-ssim=true", FALSE);
  GstVideoInfo info;

  gst_harness_set_src_caps_str (f->ref, "video/x-raw,format=I420,width=160,"
      "height=90,framerate=25/1");
  gst_harness_set_src_caps_str (f->dist, "video/x-raw,format=I420,width=160,"
      "height=90,framerate=25/1");
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_I420, 160, 90);
  push_after_refusal (f, info.size, info.size);
  fixture_free (f);
}

GST_END_TEST;

/* A live pipeline whose sources buffer at most 1 s (appsrc max-latency):
 * align=auto with a 2 s search window cannot wait that long, an error
 * naming search-window; the same pipeline without align runs.  threads=2
 * because the frames in flight (threads + 2) add to the latency and to
 * the frames pushed before the first one comes out: with the default (one
 * worker a CPU) both would depend on the machine's cores. */
static GstMessage *
run_live (const char *align, GstClockTime wait)
{
  const char *src = "appsrc is-live=true format=time min-latency=0 "
      "max-latency=1000000000 caps=video/x-raw,format=I420,width=176,"
      "height=144,framerate=25/1";
  gchar *desc = g_strdup_printf ("%s name=r ! v.ref_sink %s name=d ! "
      "v.dist_sink vmafhip name=v backend=cpu threads=2 %s ! fakesink "
      "sync=true", src,
      src, align);
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  g_free (desc);
  fail_unless (pipe != NULL, "%s", error ? error->message : "");
  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  const gsize size = 176 * 144 * 3 / 2;
  for (int i = 0; i < 2; i++) {
    GstElement *app = gst_bin_get_by_name (GST_BIN (pipe), i ? "d" : "r");
    /* enough frames for the element to put some out: a live sink
     * answers latency queries once it has one */
    for (guint k = 0; k < 12; k++) {
      GstBuffer *b = gst_buffer_new_allocate (NULL, size, NULL);
      gst_buffer_memset (b, 0, 16 + 8 * (k % 3), size);
      GST_BUFFER_PTS (b) = k * GST_SECOND / 25;
      GST_BUFFER_DURATION (b) = GST_SECOND / 25;
      gst_app_src_push_buffer (GST_APP_SRC (app), b);
    }
    gst_object_unref (app);
  }
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *m;
  /* as applications do (gst-launch-1.0 too): the latency recalculated
   * when an element says it changed, whether that comes before or after
   * PLAYING's own query */
  while ((m = gst_bus_timed_pop_filtered (bus, wait, GST_MESSAGE_ERROR
              | GST_MESSAGE_LATENCY))
      && GST_MESSAGE_TYPE (m) == GST_MESSAGE_LATENCY) {
    gst_message_unref (m);
    gst_bin_recalculate_latency (GST_BIN (pipe));
  }
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return m;
}

GST_START_TEST (test_error_search_window_buffering)
{
  GstMessage *m = run_live ("align=auto search-window=2000000000",
      10 * GST_SECOND);
  fail_unless (m != NULL, "no error");
  GError *error = NULL;
  gst_message_parse_error (m, &error, NULL);
  fail_unless (strstr (error->message, "search-window")
      && strstr (error->message, "buffers at most"), "%s", error->message);
  g_clear_error (&error);
  gst_message_unref (m);
  /* without align the element waits a few frames: no error */
  m = run_live ("", GST_SECOND);
  fail_unless (m == NULL, "an error without align");
}

GST_END_TEST;

static Suite *
vmafhip_errors_suite (void)
{
  Suite *s = suite_create ("vmafhip-errors");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_error_size_mismatch);
  tcase_add_test (tc, test_error_depth_mismatch);
  tcase_add_test (tc, test_error_size_and_depth_mismatch);
  tcase_add_test (tc, test_error_unknown_model);
  tcase_add_test (tc, test_error_model_file);
  tcase_add_test (tc, test_error_models_list);
  tcase_add_test (tc, test_error_model_unsupported_feature);
  tcase_add_test (tc, test_error_results_file);
  tcase_add_test (tc, test_error_backend_hip);
  tcase_add_test (tc, test_backend_auto);
  tcase_add_test (tc, test_error_ms_ssim_too_small);
  tcase_add_test (tc, test_error_features);
  tcase_add_test (tc, test_error_ciede_layouts);
  tcase_add_test (tc, test_error_search_window_buffering);
  return s;
}

GST_CHECK_MAIN (vmafhip_errors);
