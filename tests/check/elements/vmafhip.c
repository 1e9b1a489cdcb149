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
  fail_unless_equals_int (i, 0);        /* GPU 0; -1 is auto */
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
  const char *const models[] = { "vmaf_v0.6.1", "vmaf_v0.6.1neg:name=vmaf_neg",
    NULL
  };
  Fixture *f = fixture_new ("models=vmaf_v0.6.1,vmaf_v0.6.1neg:name=vmaf_neg "
      "psnr=true", FALSE);
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


/* Message contents: every model, feature and CI field, in order. */
GST_START_TEST (test_messages)
{
  const char *const models[] = { "vmaf_v0.6.1", "vmaf_b_v0.6.3:name=vmaf_b",
    NULL
  };
  Fixture *f = fixture_new ("models=vmaf_v0.6.1,vmaf_b_v0.6.3:name=vmaf_b "
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
    fail_unless (gst_structure_has_field_typed (s, "vmaf_b_ci_p95_lo",
            G_TYPE_DOUBLE));
    fail_unless (gst_structure_has_field_typed (s, "vmaf_b_bagging",
            G_TYPE_DOUBLE));
    fail_unless (gst_structure_has_field_typed (s, "integer_vif_scale0",
            G_TYPE_DOUBLE));
    fail_unless (gst_structure_has_field_typed (s, "integer_motion2",
            G_TYPE_DOUBLE));
    check_frame_timing (s, i, i * FRAME_DUR);
    check_frame_scores (s, &x, i);
  }
  check_pooled (pooled, &x, n, 1, "mean");
  fail_unless (gst_structure_has_field (pooled, "vmaf_b_ci_p95_hi-max"));
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
 * model-filename alone reports "score" and "vmaf", libvmaf's key. */
GST_START_TEST (test_messages_single_model)
{
  static const struct {
    const char *props, *model, *absent;
  } cases[] = {
    {"model-filename=vmaf_b_v0.6.3", "vmaf_b_v0.6.3", "vmaf_ci_p95_lo"},
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
      fail_unless (gst_structure_has_field (s, "vmaf"));
      fail_if (gst_structure_has_field (s, cases[k].model));
      fail_if (gst_structure_has_field (s, cases[k].absent));
      fail_if (gst_structure_has_field (s, "vmaf_0001"));
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
  /* the frames not reported are not computed: their meta holds the
   * motion values (motion runs every frame) and no VMAF, VIF or ADM */
  for (guint i = 0; i < 5; i++) {
    GstBuffer *b = gst_harness_pull (f->ref);
    GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (b);
    gdouble v;
    fail_unless (meta != NULL);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (meta), i);
    fail_unless_equals_int (gst_vmafhip_meta_get_score (meta, "vmaf",
            &v), i % 2 == 0);
    fail_unless_equals_int (gst_vmafhip_meta_get_score (meta,
            "integer_vif_scale0", &v), i % 2 == 0);
    fail_unless (gst_vmafhip_meta_get_score (meta, "integer_motion2", &v),
        "frame %u has no motion", i);
    gst_buffer_unref (b);
  }
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
  const char *const models[] = { "vmaf_v0.6.1", "vmaf_v0.6.1neg:name=vmaf_neg",
    NULL
  };
  Fixture *f = fixture_new ("models=vmaf_v0.6.1,vmaf_v0.6.1neg:name=vmaf_neg "
      "psnr=true", FALSE);
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
    fail_unless (gst_vmafhip_meta_get_score (meta, "vmaf_neg", &v));
    check_frame_scores (gst_vmafhip_meta_get_scores (meta), &x, i);
    fail_unless (structures_equal_doubles (gst_vmafhip_meta_get_scores (meta),
            g_ptr_array_index (frames, i)));
    fail_if (gst_vmafhip_meta_get_score (meta, "no_such_metric", &v));
    /* kept by copies */
    copy = gst_buffer_copy (b);
    meta = gst_buffer_get_vmafhip_meta (copy);
    fail_unless (meta != NULL);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (meta), i);
    fail_unless (gst_vmafhip_meta_get_score (meta, "vmaf", &v));
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


/* results-filename: libvmaf's JSON, XML and CSV, matching the messages. */
GST_START_TEST (test_results_file)
{
  static const char *const formats[] = { "json", "xml", "csv", "sub", "none" };
  gchar *dir = g_dir_make_tmp ("vmafhip-test-XXXXXX", NULL);

  for (guint k = 0; k < G_N_ELEMENTS (formats); k++) {
    gchar *path = g_strdup_printf ("%s/scores.%s", dir, formats[k]);
    gchar *props = g_strdup_printf ("models=vmaf_v0.6.1,"
        "vmaf_v0.6.1neg:name=vmaf_neg psnr=true results-filename=%s "
        "results-format=%s", path, formats[k]);
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
    fail_unless (strstr (text, "vmaf_neg") != NULL);
    fail_if (strstr (text, "vmaf_v0.6.1"), "a model's version as a key");
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
                "vmaf", &v));
        fail_unless (fabs (json_object_get_double_member (m, "vmaf")
                - v) <= 5e-7);
      }
      fail_unless (json_object_has_member (json_object_get_object_member
              (root, "pooled_metrics"), "vmaf"));
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
  tcase_add_test (tc, test_messages);
  tcase_add_test (tc, test_messages_single_model);
  tcase_add_test (tc, test_pool_method);
  tcase_add_test (tc, test_frame_message_off);
  tcase_add_test (tc, test_subsample);
  tcase_add_test (tc, test_meta);
  tcase_add_test (tc, test_results_file);
  return s;
}

GST_CHECK_MAIN (vmafhip);
