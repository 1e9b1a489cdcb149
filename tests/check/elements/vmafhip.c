/* vmafhip — GstHarness tests of the `vmafhip` element.
 *
 * Synthetic content (tools/vh-synth.h) is fed through two harnesses, one on
 * each sink pad; every score the element reports is compared with the
 * engine run directly on the same pictures, so a format the element maps
 * wrongly (strides, NV12 interleave, P010 shift, YV12 order) shows up as a
 * wrong score, not just as a missing message.
 */
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

/* ---------------------------------------------------------------- tests */

GST_START_TEST (test_properties)
{
  GstElement *e = gst_element_factory_make ("vmafhip", NULL);
  gchar *s;
  gboolean b;
  guint u;
  gint i, en;

  fail_unless (e != NULL);
  g_object_get (e, "model-filename", &s, NULL);
  fail_unless_equals_string (s, "vmaf_v0.6.1");
  g_free (s);
  g_object_get (e, "models", &s, NULL);
  fail_unless (s == NULL);
  g_object_get (e, "results-filename", &s, NULL);
  fail_unless (s == NULL);
  g_object_get (e, "active-backend", &s, NULL);
  fail_unless (s == NULL);
  g_object_get (e, "frame-message", &b, NULL);
  fail_if (b);                  /* upstream's default */
  g_object_get (e, "psnr", &b, NULL);
  fail_if (b);
  g_object_get (e, "conf-interval", &b, NULL);
  fail_if (b);
  g_object_get (e, "threads", &u, NULL);
  fail_unless_equals_int (u, 0);
  g_object_get (e, "subsample", &u, NULL);
  fail_unless_equals_int (u, 1);
  g_object_get (e, "device-id", &i, NULL);
  fail_unless_equals_int (i, -1);
  g_object_get (e, "pool-method", &en, NULL);
  fail_unless_equals_int (en, 3);       /* mean, libvmaf's value */
  g_object_get (e, "results-format", &en, NULL);
  fail_unless_equals_int (en, 0);       /* none */
  g_object_get (e, "backend", &en, NULL);
  fail_unless_equals_int (en, 0);       /* auto */
  /* the nicks users type, as upstream's vmaf element */
  gst_util_set_object_arg (G_OBJECT (e), "pool-method", "harmonic_mean");
  g_object_get (e, "pool-method", &en, NULL);
  fail_unless_equals_int (en, 4);
  gst_util_set_object_arg (G_OBJECT (e), "results-format", "csv");
  g_object_get (e, "results-format", &en, NULL);
  fail_unless_equals_int (en, 3);
  gst_util_set_object_arg (G_OBJECT (e), "backend", "hip");
  g_object_get (e, "backend", &en, NULL);
  fail_unless_equals_int (en, 2);
  g_object_get (e, "rate-mismatch", &en, NULL);
  fail_unless_equals_int (en, 0);       /* error */
  gst_util_set_object_arg (G_OBJECT (e), "rate-mismatch", "follow-reference");
  g_object_get (e, "rate-mismatch", &en, NULL);
  fail_unless_equals_int (en, 1);
  /* log-level as upstream: libvmaf's values and nicks */
  g_object_get (e, "log-level", &en, NULL);
  fail_unless_equals_int (en, 0);       /* none */
  gst_util_set_object_arg (G_OBJECT (e), "log-level", "warning");
  g_object_get (e, "log-level", &en, NULL);
  fail_unless_equals_int (en, 2);
  for (guint i = 0; i < 3; i++) {
    const char *names[] = { "ref_sink", "dist_sink", "src" };
    GstPad *pad = gst_element_get_static_pad (e, names[i]);
    fail_unless (pad != NULL, "no pad %s", names[i]);
    gst_object_unref (pad);
  }
  gst_object_unref (e);
}

GST_END_TEST;

/* Every accepted format: scores equal the engine's on the same pictures. */
static const char *const accepted_formats[] = {
  "I420", "YV12", "NV12", "Y42B", "Y444", "I420_10LE", "I422_10LE",
  "Y444_10LE", "P010_10LE", "I420_12LE", "GRAY8",
};

GST_START_TEST (test_format_scores)
{
  const char *format = accepted_formats[__i__];
  const char *const models[] = { "vmaf_v0.6.1", "vmaf_v0.6.1neg", NULL };
  Fixture *f = fixture_new ("models=vmaf_v0.6.1,vmaf_v0.6.1neg psnr=true",
      FALSE);
  const guint n = 3;
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;
  GstCaps *out_caps, *in_caps;

  GST_INFO ("format %s", format);
  fixture_set_caps (f, format, format, 7);
  push_pairs (f, 0, n);
  push_eos_both (f);
  wait_eos (f);

  /* output: the reference buffers, with the reference caps */
  fail_unless_equals_int (gst_harness_buffers_received (f->ref), n);
  out_caps = gst_pad_get_current_caps (f->ref->sinkpad);
  in_caps = gst_video_info_to_caps (&f->ref_info);
  fail_unless (gst_caps_is_equal (out_caps, in_caps), "%" GST_PTR_FORMAT,
      out_caps);
  gst_caps_unref (out_caps);
  gst_caps_unref (in_caps);

  expected_run (&x, &f->content, models, TRUE,
      GST_VIDEO_INFO_IS_GRAY (&f->ref_info), 0, n);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT | GST_MESSAGE_ERROR);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, n);
  fail_unless_equals_int (n_pooled, 1);
  for (guint i = 0; i < n; i++) {
    check_frame_timing (g_ptr_array_index (frames, i), i, i * FRAME_DUR);
    check_frame_scores (g_ptr_array_index (frames, i), &x, i);
  }
  check_pooled (pooled, &x, n, 1, "mean");
  if (GST_VIDEO_INFO_IS_GRAY (&f->ref_info))
    fail_if (gst_structure_has_field (pooled, "psnr_cb"));
  else
    fail_unless (gst_structure_has_field (pooled, "psnr_cb"));

  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

/* The two sides may use different layouts of the same size and depth. */
GST_START_TEST (test_mixed_formats)
{
  static const struct {
    const char *ref, *dist;
    gboolean luma_only;
  } cases[] = {
    {"I420", "NV12", FALSE},
    {"YV12", "I420", FALSE},
    {"I420_10LE", "P010_10LE", FALSE},
    {"I420", "Y444", TRUE},     /* chroma layouts differ: luma only */
    {"I420", "GRAY8", TRUE},
  };
  const char *const models[] = { "vmaf_v0.6.1", NULL };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    Fixture *f = fixture_new ("psnr=true", FALSE);
    Expected x = { 0 };
    GList *msgs;
    GPtrArray *frames;
    const GstStructure *pooled;
    guint n_pooled;

    GST_INFO ("%s against %s", cases[k].ref, cases[k].dist);
    fixture_set_caps (f, cases[k].ref, cases[k].dist, 11);
    push_pairs (f, 0, 2);
    push_eos_both (f);
    wait_eos (f);
    if (cases[k].luma_only && strcmp (cases[k].dist, "GRAY8")) {
      const gchar *needles[] = { "Chroma PSNR", cases[k].ref, cases[k].dist,
        NULL
      };
      expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);
    }
    expected_run (&x, &f->content, models, TRUE, cases[k].luma_only, 0, 2);
    msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
    frames = frame_messages (msgs, &pooled, &n_pooled);
    fail_unless_equals_int (frames->len, 2);
    for (guint i = 0; i < 2; i++)
      check_frame_scores (g_ptr_array_index (frames, i), &x, i);
    fail_unless (gst_structure_has_field (pooled, "psnr_y"));
    fail_unless (gst_structure_has_field (pooled, "psnr_cr")
        == !cases[k].luma_only);
    g_ptr_array_unref (frames);
    free_messages (msgs);
    vh_engine_free (x.engine);
    fixture_free (f);
  }
}

GST_END_TEST;

static gboolean
accepts (GstElement * e, const char *pad_name, const char *caps_str)
{
  GstPad *pad = gst_element_get_static_pad (e, pad_name);
  GstCaps *caps = gst_caps_from_string (caps_str);
  gboolean ok = gst_pad_query_accept_caps (pad, caps);
  gst_caps_unref (caps);
  gst_object_unref (pad);
  return ok;
}

GST_START_TEST (test_caps_query)
{
  GstElement *e = make_element (NULL);
  const char *pads[] = { "ref_sink", "dist_sink" };
  GstPad *pad;
  GstCaps *caps;

  for (guint p = 0; p < 2; p++) {
    for (guint i = 0; i < G_N_ELEMENTS (accepted_formats); i++) {
      gchar *c = g_strdup_printf ("video/x-raw,format=%s,width=64,height=48,"
          "framerate=25/1", accepted_formats[i]);
      fail_unless (accepts (e, pads[p], c), "%s refused %s", pads[p], c);
      g_free (c);
    }
    /* in the template; refused at the CAPS event with a clear message */
    fail_unless (accepts (e, pads[p],
            "video/x-raw,format=GRAY16_LE,width=64,height=48,"
            "framerate=25/1"));
    fail_if (accepts (e, pads[p], "video/x-raw,format=RGB,width=64,height=48"));
    fail_if (accepts (e, pads[p],
            "video/x-raw,format=GRAY16_BE,width=64,height=48"));
    fail_if (accepts (e, pads[p],
            "video/x-raw,format=YUY2,width=64,height=48"));
    fail_if (accepts (e, pads[p], "video/x-raw(memory:GLMemory),"
            "format=I420,width=64,height=48"));
    fail_if (accepts (e, pads[p], "audio/x-raw,format=S16LE"));
  }
  pad = gst_element_get_static_pad (e, "dist_sink");
  caps = gst_pad_query_caps (pad, NULL);
  {
    GstCaps *p010 = gst_caps_from_string ("video/x-raw,format=P010_10LE");
    GstCaps *rgba = gst_caps_from_string ("video/x-raw,format=RGBA");
    fail_unless (gst_caps_can_intersect (caps, p010));
    fail_if (gst_caps_can_intersect (caps, rgba));
    gst_caps_unref (p010);
    gst_caps_unref (rgba);
  }
  gst_caps_unref (caps);
  gst_object_unref (pad);
  gst_object_unref (e);
}

GST_END_TEST;

/* Frames after a refusal: not scored, not negotiated, no second error. */
static void
push_after_refusal (Fixture * f, gsize ref_size, gsize dist_size)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GList *more;

  for (guint i = 0; i < 20 && ret == GST_FLOW_OK; i++) {
    GstBuffer *r = gst_buffer_new_allocate (NULL, ref_size, NULL);
    GstBuffer *d = gst_buffer_new_allocate (NULL, dist_size, NULL);
    GST_BUFFER_PTS (r) = GST_BUFFER_PTS (d) = i * FRAME_DUR;
    GST_BUFFER_DURATION (r) = GST_BUFFER_DURATION (d) = FRAME_DUR;
    ret = gst_harness_push (f->ref, r);
    if (ret == GST_FLOW_OK)
      ret = gst_harness_push (f->dist, d);
    else
      gst_buffer_unref (d);
  }
  fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_buffers_received (f->ref), 0);
  more = take_messages (f->bus, &f->seen, GST_MESSAGE_ERROR);
  fail_unless (more == NULL, "the error was posted again");
}

GST_START_TEST (test_gray16_refused)
{
  Fixture *f = fixture_new (NULL, FALSE);
  const gchar *needles[] = { "ref_sink", "GRAY16_LE", "16-bit", "GRAY8",
    NULL
  };
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=GRAY16_LE,"
      "width=160,height=90,framerate=25/1");

  /* queued (the pad accepts its template), then refused by the element */
  GstSegment seg;

  gst_pad_push_event (f->ref->srcpad, gst_event_new_caps (caps));
  gst_caps_unref (caps);
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_pad_push_event (f->ref->srcpad, gst_event_new_segment (&seg));
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  /* the other side is fine; the pair still is not scored */
  gst_harness_set_src_caps_str (f->dist, "video/x-raw,format=I420,"
      "width=160,height=90,framerate=25/1");
  push_after_refusal (f, 160 * 90 * 2, 160 * 90 * 3 / 2);
  fixture_free (f);
}

GST_END_TEST;

static void
check_mismatch (const char *ref_caps, const char *dist_caps,
    const gchar * const *needles)
{
  Fixture *f = fixture_new (NULL, FALSE);

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
    "videoscale", "width=160,height=90", NULL
  };
  check_mismatch ("video/x-raw,format=I420,width=160,height=90,"
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
  check_mismatch ("video/x-raw,format=I420,width=160,height=90,"
      "framerate=25/1", "video/x-raw,format=I420_10LE,width=160,height=90,"
      "framerate=25/1", needles);
}

GST_END_TEST;

GST_START_TEST (test_error_size_and_depth_mismatch)
{
  const gchar *needles[] = { "size and bit depth", "videoscale",
    "videoconvert", NULL
  };
  check_mismatch ("video/x-raw,format=I420_10LE,width=160,height=90,"
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
GST_START_TEST (test_error_model_unsupported_feature)
{
  const char *models = vh_test_models_dir ();
  gchar *path, *props;
  const gchar *needles[] = { "vmaf_v1.0.16_3d0h.json", "needs feature",
    "does not implement", NULL
  };

  /* registered only where the model file exists */
  path = g_build_filename (models, "vmaf_v1.0.16", "vmaf_v1.0.16_3d0h.json",
      NULL);
  props = g_strdup_printf ("model-filename=%s", path);
  check_start_error (props, needles);
  g_free (props);
  g_free (path);
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
  const gchar *n2[] = { "reported as 'vmaf_v0.6.1'", ":name=", NULL };
  const gchar *n3[] = { "lists no model", NULL };
  check_start_error ("models=vmaf_v0.6.1:colour=red", n1);
  check_start_error ("models=vmaf_v0.6.1,vmaf_v0.6.1", n2);
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

/* Whether this machine has a GPU the backend can use (the tests expect
 * the GPU path there, clean refusals elsewhere). */
static gboolean
gpu_present (void)
{
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, NULL);
  if (gpu)
    vh_gpu_close (gpu);
  return gpu != NULL;
}

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

GST_START_TEST (test_error_ssim_not_implemented)
{
  const gchar *n1[] = { "'ssim'", "not implemented", "ssim=false", NULL };
  const gchar *n2[] = { "'ms-ssim'", "not implemented", NULL };
  check_start_error ("ssim=true", n1);
  check_start_error ("ms-ssim=true", n2);
}

GST_END_TEST;

/* Message contents: every model, feature and CI field, in order. */
GST_START_TEST (test_messages)
{
  const char *const models[] = { "vmaf_v0.6.1", "vmaf_b_v0.6.3", NULL };
  Fixture *f = fixture_new ("models=vmaf_v0.6.1,vmaf_b_v0.6.3 "
      "conf-interval=true psnr=true", FALSE);
  const guint n = 6;
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;
  guint64 u;

  fixture_set_caps (f, "I420", "I420", 3);
  push_pairs (f, 0, n);
  push_eos_both (f);
  wait_eos (f);

  expected_run (&x, &f->content, models, TRUE, FALSE, 0, n);
  x.conf_interval = TRUE;
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, n);
  fail_unless_equals_int (n_pooled, 1);
  /* the pooled message comes last */
  fail_unless (vmaf_structure (g_list_last (msgs)->data) == pooled);
  for (guint i = 0; i < n; i++) {
    const GstStructure *s = g_ptr_array_index (frames, i);
    fail_unless (gst_structure_has_field_typed (s, "timestamp",
            G_TYPE_UINT64));
    fail_unless (gst_structure_has_field_typed (s, "index", G_TYPE_INT));
    fail_unless (gst_structure_has_field_typed (s, "vmaf_b_v0.6.3_ci_p95_lo",
            G_TYPE_DOUBLE));
    fail_unless (gst_structure_has_field_typed (s, "vmaf_b_v0.6.3_bagging",
            G_TYPE_DOUBLE));
    fail_unless (gst_structure_has_field_typed (s, "integer_vif_scale0",
            G_TYPE_DOUBLE));
    fail_unless (gst_structure_has_field_typed (s, "integer_motion2",
            G_TYPE_DOUBLE));
    check_frame_timing (s, i, i * FRAME_DUR);
    check_frame_scores (s, &x, i);
  }
  check_pooled (pooled, &x, n, 1, "mean");
  fail_unless (gst_structure_has_field (pooled, "vmaf_b_v0.6.3_ci_p95_hi-max"));
  fail_unless (gst_structure_get_uint64 (pooled, "timestamp", &u));
  fail_unless_equals_uint64 (u, 0);
  fail_unless (gst_structure_get_uint64 (pooled, "duration", &u));
  fail_unless_equals_uint64 (u, n * FRAME_DUR);
  fail_unless (gst_structure_get_uint64 (pooled, "unpaired-ref", &u));
  fail_unless_equals_uint64 (u, 0);
  fail_unless (gst_structure_get_uint64 (pooled, "unpaired-dist", &u));
  fail_unless_equals_uint64 (u, 0);

  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

/* Without conf-interval a bootstrap model reports its score only; the
 * model-filename alone reports "score" and the model's own name. */
GST_START_TEST (test_messages_single_model)
{
  static const struct {
    const char *props, *model, *absent;
  } cases[] = {
    {"model-filename=vmaf_b_v0.6.3", "vmaf_b_v0.6.3", "vmaf_b_v0.6.3_ci_p95_lo"},
    {"", "vmaf_v0.6.1", "psnr_y"},
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    const char *const models[] = { cases[k].model, NULL };
    Fixture *f = fixture_new (cases[k].props, FALSE);
    Expected x = { 0 };
    GList *msgs;
    GPtrArray *frames;
    const GstStructure *pooled;
    guint n_pooled;

    fixture_set_caps (f, "I420", "I420", 5);
    push_pairs (f, 0, 3);
    push_eos_both (f);
    wait_eos (f);
    expected_run (&x, &f->content, models, FALSE, FALSE, 0, 3);
    msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
    frames = frame_messages (msgs, &pooled, &n_pooled);
    fail_unless_equals_int (frames->len, 3);
    for (guint i = 0; i < 3; i++) {
      const GstStructure *s = g_ptr_array_index (frames, i);
      fail_unless (gst_structure_has_field (s, cases[k].model));
      fail_if (gst_structure_has_field (s, cases[k].absent));
      fail_if (gst_structure_has_field (s, "vmaf_b_v0.6.3_0001"));
      check_frame_scores (s, &x, i);
    }
    check_pooled (pooled, &x, 3, 1, "mean");
    g_ptr_array_unref (frames);
    free_messages (msgs);
    vh_engine_free (x.engine);
    fixture_free (f);
  }
}

GST_END_TEST;

/* ":name=" renames, ":enable_transform" per model; phone-model=true gives
 * the same score as the transform flag. */
GST_START_TEST (test_models_names_and_phone)
{
  const char *const models[] = { "vmaf_v0.6.1:name=vmaf",
    "vmaf_v0.6.1:name=vmaf_phone:enable_transform", NULL
  };
  Fixture *f = fixture_new ("models=vmaf_v0.6.1:name=vmaf,"
      "vmaf_v0.6.1:name=vmaf_phone:enable_transform", FALSE);
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames, *phone_frames;
  const GstStructure *pooled;
  guint n_pooled;
  Fixture *p;
  GList *phone_msgs;

  fixture_set_caps (f, "I420", "I420", 9);
  push_pairs (f, 0, 3);
  push_eos_both (f);
  wait_eos (f);
  expected_run (&x, &f->content, models, FALSE, FALSE, 0, 3);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 3);
  for (guint i = 0; i < 3; i++)
    check_frame_scores (g_ptr_array_index (frames, i), &x, i);

  p = fixture_new ("phone-model=true", FALSE);
  fixture_set_caps (p, "I420", "I420", 9);
  push_pairs (p, 0, 3);
  push_eos_both (p);
  wait_eos (p);
  phone_msgs = take_messages (p->bus, &p->seen, GST_MESSAGE_ELEMENT);
  phone_frames = frame_messages (phone_msgs, &pooled, &n_pooled);
  fail_unless_equals_int (phone_frames->len, 3);
  for (guint i = 0; i < 3; i++) {
    gdouble a, b;
    fail_unless (gst_structure_get_double (g_ptr_array_index (phone_frames,
                i), "score", &a));
    fail_unless (gst_structure_get_double (g_ptr_array_index (frames, i),
            "vmaf_phone", &b));
    fail_unless (a == b, "phone %.17g != %.17g", a, b);
  }
  g_ptr_array_unref (phone_frames);
  free_messages (phone_msgs);
  fixture_free (p);

  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

/* libvmaf's model syntax: version=, name= and a FEATURE.OPTION override,
 * whose non-default option shows in the feature's name as libvmaf prints
 * it; a second model without it keeps the plain names. */
GST_START_TEST (test_models_libvmaf_syntax)
{
  const char *const models[] = {
    "version=vmaf_v0.6.1:name=vmaf_egl:vif.vif_enhn_gain_limit=1.0:"
        "adm.adm_enhn_gain_limit=1.0",
    "version=vmaf_v0.6.1neg:name=neg", NULL
  };
  Fixture *f = fixture_new ("models=version=vmaf_v0.6.1:name=vmaf_egl:"
      "vif.vif_enhn_gain_limit=1.0:adm.adm_enhn_gain_limit=1.0,"
      "version=vmaf_v0.6.1neg:name=neg", FALSE);
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  fixture_set_caps (f, "I420", "I420", 19);
  push_pairs (f, 0, 3);
  push_eos_both (f);
  wait_eos (f);
  expected_run (&x, &f->content, models, FALSE, FALSE, 0, 3);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 3);
  for (guint i = 0; i < 3; i++) {
    const GstStructure *s = g_ptr_array_index (frames, i);
    check_frame_scores (s, &x, i);
    /* vmaf_v0.6.1neg itself sets egl 1.0: the override gives the same
     * names, libvmaf's */
    fail_unless (gst_structure_has_field (s, "integer_vif_scale0_egl_1"));
    fail_unless (gst_structure_has_field (s, "integer_adm2_egl_1"));
    fail_unless (gst_structure_has_field (s, "vmaf_egl"));
    fail_unless (gst_structure_has_field (s, "neg"));
    fail_if (gst_structure_has_field (s, "integer_vif_scale0"));
  }
  check_pooled (pooled, &x, 3, 1, "mean");
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

GST_START_TEST (test_pool_method)
{
  static const char *const methods[] = { "min", "max", "harmonic_mean",
    "mean"
  };
  const char *const models[] = { "vmaf_v0.6.1", NULL };

  for (guint k = 0; k < G_N_ELEMENTS (methods); k++) {
    gchar *props = g_strdup_printf ("pool-method=%s", methods[k]);
    Fixture *f = fixture_new (props, FALSE);
    Expected x = { 0 };
    GList *msgs;
    GPtrArray *frames;
    const GstStructure *pooled;
    guint n_pooled;

    fixture_set_caps (f, "I420", "I420", 13);
    push_pairs (f, 0, 4);
    push_eos_both (f);
    wait_eos (f);
    expected_run (&x, &f->content, models, FALSE, FALSE, 0, 4);
    msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
    frames = frame_messages (msgs, &pooled, &n_pooled);
    check_pooled (pooled, &x, 4, 1, methods[k]);
    g_ptr_array_unref (frames);
    free_messages (msgs);
    vh_engine_free (x.engine);
    fixture_free (f);
    g_free (props);
  }
}

GST_END_TEST;

GST_START_TEST (test_frame_message_off)
{
  Fixture *f = fixture_new ("frame-message=false", FALSE);
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  fixture_set_caps (f, "I420", "I420", 1);
  push_pairs (f, 0, 3);
  push_eos_both (f);
  wait_eos (f);
  fail_unless_equals_int (gst_harness_buffers_received (f->ref), 3);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 0);
  fail_unless_equals_int (n_pooled, 1);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  /* the meta is still there */
  for (guint i = 0; i < 3; i++) {
    GstBuffer *b = gst_harness_pull (f->ref);
    GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (b);
    fail_unless (meta != NULL);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (meta), i);
    gst_buffer_unref (b);
  }
  fixture_free (f);
}

GST_END_TEST;

GST_START_TEST (test_subsample)
{
  const char *const models[] = { "vmaf_v0.6.1", NULL };
  Fixture *f = fixture_new ("subsample=2", FALSE);
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  fixture_set_caps (f, "I420", "I420", 1);
  push_pairs (f, 0, 5);
  push_eos_both (f);
  wait_eos (f);
  expected_run (&x, &f->content, models, FALSE, FALSE, 0, 5);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 3);
  for (guint i = 0; i < 3; i++) {
    check_frame_timing (g_ptr_array_index (frames, i), 2 * i,
        2 * i * FRAME_DUR);
    check_frame_scores (g_ptr_array_index (frames, i), &x, 2 * i);
  }
  check_pooled (pooled, &x, 5, 2, "mean");
  fail_unless_equals_int (gst_harness_buffers_received (f->ref), 5);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

static gboolean
structures_equal_doubles (const GstStructure * meta, const GstStructure * msg)
{
  for (gint i = 0; i < gst_structure_n_fields (meta); i++) {
    const gchar *name = gst_structure_nth_field_name (meta, i);
    gdouble a, b;
    if (!strcmp (name, "index"))
      continue;
    if (!gst_structure_get_double (meta, name, &a)
        || !gst_structure_get_double (msg, name, &b) || a != b)
      return FALSE;
  }
  return TRUE;
}

/* The meta: on every output buffer, index and scores as the messages. */
GST_START_TEST (test_meta)
{
  const char *const models[] = { "vmaf_v0.6.1", "vmaf_v0.6.1neg", NULL };
  Fixture *f = fixture_new ("models=vmaf_v0.6.1,vmaf_v0.6.1neg psnr=true",
      FALSE);
  const guint n = 5;
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  fixture_set_caps (f, "NV12", "NV12", 21);
  push_pairs (f, 0, n);
  push_eos_both (f);
  wait_eos (f);
  expected_run (&x, &f->content, models, TRUE, FALSE, 0, n);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless (gst_vmafhip_meta_api_type_lookup () != 0);

  for (guint i = 0; i < n; i++) {
    GstBuffer *b = gst_harness_pull (f->ref), *copy;
    GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (b);
    gdouble v;

    fail_unless (meta != NULL, "buffer %u has no meta", i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), i * FRAME_DUR);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (meta), i);
    fail_unless (gst_vmafhip_meta_get_score (meta, "vmaf_v0.6.1neg", &v));
    check_frame_scores (gst_vmafhip_meta_get_scores (meta), &x, i);
    fail_unless (structures_equal_doubles (gst_vmafhip_meta_get_scores (meta),
            g_ptr_array_index (frames, i)));
    fail_if (gst_vmafhip_meta_get_score (meta, "no_such_metric", &v));
    /* kept by copies */
    copy = gst_buffer_copy (b);
    meta = gst_buffer_get_vmafhip_meta (copy);
    fail_unless (meta != NULL);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (meta), i);
    fail_unless (gst_vmafhip_meta_get_score (meta, "vmaf_v0.6.1", &v));
    gst_buffer_unref (copy);
    gst_buffer_unref (b);
  }
  fail_unless (gst_harness_try_pull (f->ref) == NULL);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
}

GST_END_TEST;

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

/* A flushing seek restarts the statistics cleanly. */
GST_START_TEST (test_flushing_seek)
{
  const char *const models[] = { "vmaf_v0.6.1", NULL };
  Fixture *f = fixture_new (NULL, FALSE);
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled, n_before;
  guint32 seqnum = gst_util_seqnum_next ();
  GstEvent *ev;
  GstSegment seg;

  fixture_set_caps (f, "I420", "I420", 6);
  push_pairs (f, 0, 3);
  /* frames 0 and 1 are out; frame 2 waits for its successor */
  for (guint i = 0; i < 2; i++)
    gst_buffer_unref (gst_harness_pull (f->ref));

  ev = gst_event_new_flush_start ();
  gst_event_set_seqnum (ev, seqnum);
  fail_unless (gst_harness_push_event (f->ref, gst_event_ref (ev)));
  fail_unless (gst_harness_push_event (f->dist, ev));
  ev = gst_event_new_flush_stop (TRUE);
  gst_event_set_seqnum (ev, seqnum);
  fail_unless (gst_harness_push_event (f->ref, gst_event_ref (ev)));
  fail_unless (gst_harness_push_event (f->dist, ev));
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
  /* 2 frames before the seek, then a fresh start at index 0 */
  n_before = frames->len - 4;
  fail_unless_equals_int (n_before, 2);
  fail_unless_equals_int (n_pooled, 1);
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

/* results-filename: libvmaf's JSON, XML and CSV, matching the messages. */
GST_START_TEST (test_results_file)
{
  static const char *const formats[] = { "json", "xml", "csv", "sub", "none" };
  gchar *dir = g_dir_make_tmp ("vmafhip-test-XXXXXX", NULL);

  for (guint k = 0; k < G_N_ELEMENTS (formats); k++) {
    gchar *path = g_strdup_printf ("%s/scores.%s", dir, formats[k]);
    gchar *props = g_strdup_printf ("models=vmaf_v0.6.1,vmaf_v0.6.1neg "
        "psnr=true results-filename=%s results-format=%s", path, formats[k]);
    Fixture *f = fixture_new (props, FALSE);
    GList *msgs;
    GPtrArray *frames;
    const GstStructure *pooled;
    guint n_pooled;
    gchar *text = NULL;

    fixture_set_caps (f, "I420", "I420", 17);
    push_pairs (f, 0, 3);
    push_eos_both (f);
    wait_eos (f);
    msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
    frames = frame_messages (msgs, &pooled, &n_pooled);
    fail_unless (g_file_get_contents (path, &text, NULL, NULL),
        "no results file %s", path);
    fail_unless (strstr (text, "vmaf_v0.6.1neg") != NULL);
    fail_unless (strstr (text, "integer_vif_scale0") != NULL);
    fail_unless (strstr (text, "psnr_y") != NULL);
    if (!strcmp (formats[k], "json") || !strcmp (formats[k], "none")) {
      JsonParser *parser = json_parser_new ();
      JsonObject *root;
      JsonArray *arr;
      fail_unless (json_parser_load_from_data (parser, text, -1, NULL));
      root = json_node_get_object (json_parser_get_root (parser));
      arr = json_object_get_array_member (root, "frames");
      fail_unless_equals_int (json_array_get_length (arr), 3);
      for (guint i = 0; i < 3; i++) {
        JsonObject *m = json_object_get_object_member
            (json_array_get_object_element (arr, i), "metrics");
        gdouble v;
        fail_unless (gst_structure_get_double (g_ptr_array_index (frames, i),
                "vmaf_v0.6.1", &v));
        fail_unless (fabs (json_object_get_double_member (m, "vmaf_v0.6.1")
                - v) <= 5e-7);
      }
      fail_unless (json_object_has_member (json_object_get_object_member
              (root, "pooled_metrics"), "vmaf_v0.6.1"));
      g_object_unref (parser);
    } else if (!strcmp (formats[k], "xml")) {
      fail_unless (strstr (text, "<VMAF version=") != NULL);
      fail_unless (strstr (text, "<frame frameNum=\"2\"") != NULL);
    } else if (!strcmp (formats[k], "sub")) {
      /* one MicroDVD line per frame: {i}{i+1}frame: i|name: value|... */
      gchar **lines = g_strsplit (g_strstrip (text), "\n", -1);
      fail_unless_equals_int (g_strv_length (lines), 3);
      fail_unless (g_str_has_prefix (lines[2], "{2}{3}frame: 2|"));
      g_strfreev (lines);
    } else {
      gchar **lines = g_strsplit (g_strstrip (text), "\n", -1);
      fail_unless_equals_int (g_strv_length (lines), 4);
      fail_unless (g_str_has_prefix (lines[0], "Frame,"));
      g_strfreev (lines);
    }
    g_free (text);
    g_unlink (path);
    g_ptr_array_unref (frames);
    free_messages (msgs);
    fixture_free (f);
    g_free (props);
    g_free (path);
  }
  g_rmdir (dir);
  g_free (dir);
}

GST_END_TEST;

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

/* gpu_present() in a child process: the CUDA driver does not survive a
 * fork, and Check forks every test from the process that builds the
 * suite, so that process must not initialise it. */
static gboolean
gpu_present_in_child (void)
{
  int status = 0;
  pid_t pid = fork ();

  if (pid == 0)
    _exit (gpu_present ()? 0 : 1);
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    return FALSE;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

static gboolean
has_model_file (const char *relative)
{
  const char *models = vh_test_models_dir ();
  gchar *path = models ? g_build_filename (models, relative, NULL) : NULL;
  gboolean found = path && g_file_test (path, G_FILE_TEST_EXISTS);
  g_free (path);
  return found;
}

static gboolean
has_factories (const char *a, const char *b)
{
  GstElementFactory *fa = gst_element_factory_find (a);
  GstElementFactory *fb = gst_element_factory_find (b);
  gboolean found = fa && fb;
  gst_clear_object (&fa);
  gst_clear_object (&fb);
  return found;
}

static Suite *
vmafhip_suite (void)
{
  Suite *s = suite_create ("vmafhip");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_properties);
  tcase_add_loop_test (tc, test_format_scores, 0,
      G_N_ELEMENTS (accepted_formats));
  tcase_add_test (tc, test_mixed_formats);
  tcase_add_test (tc, test_caps_query);
  tcase_add_test (tc, test_gray16_refused);
  tcase_add_test (tc, test_error_size_mismatch);
  tcase_add_test (tc, test_error_depth_mismatch);
  tcase_add_test (tc, test_error_size_and_depth_mismatch);
  tcase_add_test (tc, test_error_unknown_model);
  tcase_add_test (tc, test_error_model_file);
  if (has_model_file ("vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json"))
    tcase_add_test (tc, test_error_model_unsupported_feature);
  else
    vh_test_skip_case ("test_error_model_unsupported_feature",
        "the v1.0.16 model file is not in the shared models");
  tcase_add_test (tc, test_error_models_list);
  tcase_add_test (tc, test_error_results_file);
  tcase_add_test (tc, test_error_backend_hip);
  tcase_add_test (tc, test_backend_auto);
  tcase_add_test (tc, test_error_ssim_not_implemented);
  tcase_add_test (tc, test_messages);
  tcase_add_test (tc, test_messages_single_model);
  tcase_add_test (tc, test_models_names_and_phone);
  tcase_add_test (tc, test_models_libvmaf_syntax);
  tcase_add_test (tc, test_pool_method);
  tcase_add_test (tc, test_frame_message_off);
  tcase_add_test (tc, test_subsample);
  tcase_add_test (tc, test_meta);
  tcase_add_test (tc, test_eos_ref_first);
  tcase_add_test (tc, test_eos_dist_first);
  tcase_add_test (tc, test_eos_before_any_frame);
  tcase_add_test (tc, test_flushing_seek);
  tcase_add_test (tc, test_live_late_frame);
  tcase_add_test (tc, test_live_pairs);
  tcase_add_test (tc, test_force_live);
  tcase_add_test (tc, test_results_file);
  tcase_add_test (tc, test_layout_vs_videoconvert);
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

GST_CHECK_MAIN (vmafhip);
