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

/* The keys a model is reported under are libvmaf's CLI's: "vmaf" for a
 * model without name= (model-filename or one unnamed entry of models),
 * the name= given otherwise; never the model's version.  Checked in the
 * frame messages, the pooled message, the meta and the JSON and XML
 * results files, on the element's own content. */
GST_START_TEST (test_model_keys)
{
  static const struct {
    const char *props;
    const char *keys[3];        /* reported, NULL-ended */
    const char *absent[3];      /* never a key */
  } cases[] = {
    {"", {"vmaf"}, {"vmaf_v0.6.1"}},
    {"model-filename=vmaf_v0.6.1neg", {"vmaf"}, {"vmaf_v0.6.1neg"}},
    {"models=vmaf_4k_v0.6.1", {"vmaf"}, {"vmaf_4k_v0.6.1"}},
    {"models=version=vmaf_v0.6.1:name=foo", {"foo"}, {"vmaf",
            "vmaf_v0.6.1"}},
    {"models=vmaf_v0.6.1,version=vmaf_v0.6.1neg:name=neg", {"vmaf", "neg"},
        {"vmaf_v0.6.1", "vmaf_v0.6.1neg"}},
  };
  static const char *const formats[] = { "json", "xml" };
  gchar *dir = g_dir_make_tmp ("vmafhip-keys-XXXXXX", NULL);

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++) {
    for (guint fmt = 0; fmt < G_N_ELEMENTS (formats); fmt++) {
      gchar *path = g_strdup_printf ("%s/keys.%s", dir, formats[fmt]);
      gchar *props = g_strdup_printf ("%s results-filename=%s "
          "results-format=%s", cases[k].props, path, formats[fmt]);
      Fixture *f = fixture_new (props, FALSE);
      GList *msgs;
      GPtrArray *frames;
      const GstStructure *pooled;
      guint n_pooled;
      gchar *text = NULL;

      fixture_set_caps (f, "I420", "I420", 5);
      push_pairs (f, 0, 2);
      push_eos_both (f);
      wait_eos (f);
      msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
      frames = frame_messages (msgs, &pooled, &n_pooled);
      fail_unless_equals_int (frames->len, 2);
      fail_unless (g_file_get_contents (path, &text, NULL, NULL));
      for (guint i = 0; i < 2; i++) {
        GstBuffer *b = gst_harness_pull (f->ref);
        GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (b);
        const GstStructure *s = g_ptr_array_index (frames, i);
        gdouble v, score;
        fail_unless (meta != NULL);
        fail_unless (gst_structure_get_double (s, "score", &score));
        for (guint j = 0; cases[k].keys[j]; j++) {
          const char *key = cases[k].keys[j];
          fail_unless (gst_structure_get_double (s, key, &v),
              "'%s': frame %u has no '%s'", cases[k].props, i, key);
          /* the first model is also "score" */
          fail_unless (j > 0 || v == score);
          fail_unless (gst_vmafhip_meta_get_score (meta, key, &v),
              "'%s': meta %u has no '%s'", cases[k].props, i, key);
        }
        for (guint j = 0; cases[k].absent[j]; j++) {
          fail_if (gst_structure_has_field (s, cases[k].absent[j]),
              "'%s': frame message keyed '%s'", cases[k].props,
              cases[k].absent[j]);
          fail_if (gst_vmafhip_meta_get_score (meta, cases[k].absent[j], &v));
        }
        gst_buffer_unref (b);
      }
      for (guint j = 0; cases[k].keys[j]; j++) {
        gchar *field = g_strconcat (cases[k].keys[j], "-mean", NULL);
        gchar *json_key = g_strdup_printf ("\"%s\": {", cases[k].keys[j]);
        gchar *xml_key = g_strdup_printf ("<metric name=\"%s\" ",
            cases[k].keys[j]);
        fail_unless (gst_structure_has_field (pooled, field));
        /* pooled in the file under the key, per frame likewise */
        fail_unless (strstr (text, fmt ? xml_key : json_key) != NULL,
            "'%s': the %s file does not pool '%s'", cases[k].props,
            formats[fmt], cases[k].keys[j]);
        g_free (field);
        g_free (json_key);
        g_free (xml_key);
      }
      for (guint j = 0; cases[k].absent[j]; j++) {
        gchar *field = g_strconcat (cases[k].absent[j], "-mean", NULL);
        gchar *quoted = g_strdup_printf ("\"%s\"", cases[k].absent[j]);
        gchar *attr = g_strdup_printf (" %s=\"", cases[k].absent[j]);
        fail_if (gst_structure_has_field (pooled, field));
        fail_if (strstr (text, quoted), "'%s': %s file has key '%s'",
            cases[k].props, formats[fmt], cases[k].absent[j]);
        fail_if (strstr (text, attr), "'%s': %s file has key '%s'",
            cases[k].props, formats[fmt], cases[k].absent[j]);
        g_free (field);
        g_free (quoted);
        g_free (attr);
      }
      if (!fmt) {
        JsonParser *parser = json_parser_new ();
        JsonObject *root, *m;
        fail_unless (json_parser_load_from_data (parser, text, -1, NULL));
        root = json_node_get_object (json_parser_get_root (parser));
        m = json_object_get_object_member (json_array_get_object_element
            (json_object_get_array_member (root, "frames"), 1), "metrics");
        for (guint j = 0; cases[k].keys[j]; j++)
          fail_unless (json_object_has_member (m, cases[k].keys[j]));
        fail_unless (json_object_has_member (json_object_get_object_member
                (root, "pooled_metrics"), cases[k].keys[0]));
        g_object_unref (parser);
      }
      g_ptr_array_unref (frames);
      free_messages (msgs);
      fixture_free (f);
      g_unlink (path);
      g_free (path);
      g_free (props);
      g_free (text);
    }
  }
  g_rmdir (dir);
  g_free (dir);
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

/* debug=true on the model's vif, adm and motion (models=...:vif.debug=true,
 * as libvmaf's --model: a features= entry beside the model is dropped,
 * test_feature_beside_model): libvmaf's debug outputs in the frame
 * messages, the pooled message and the results file, each the engine's
 * value (test_vif_debug checks the engine against libvmaf's relations);
 * the vif ones in libvmaf's order in the file. */
GST_START_TEST (test_feature_debug)
{
  static const char *const models[] = { "version=vmaf_v0.6.1:vif.debug=true:"
        "adm.debug=true:motion.debug=true", NULL };
  static const char *const extra[] = {
    "integer_vif", "integer_vif_num", "integer_vif_den",
    "integer_vif_num_scale0", "integer_vif_den_scale0",
    "integer_vif_num_scale1", "integer_vif_den_scale1",
    "integer_vif_num_scale2", "integer_vif_den_scale2",
    "integer_vif_num_scale3", "integer_vif_den_scale3",
    "integer_adm", "integer_adm_num", "integer_adm_den",
    "integer_adm_num_scale0", "integer_adm_den_scale3", "integer_motion",
  };
  gchar *dir, *path, *props;
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;

  results_dir_new (&dir, &path);
  props = g_strdup_printf ("backend=cpu models=%s results-filename=%s",
      models[0], path);
  Fixture *f = fixture_new (props, FALSE);
  fixture_set_caps (f, "I420", "I420", 23);
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
    for (guint k = 0; k < G_N_ELEMENTS (extra); k++)
      fail_unless (gst_structure_has_field (s, extra[k]), "frame %u: no %s",
          i, extra[k]);
  }
  check_pooled (pooled, &x, 3, 1, "mean");
  for (guint k = 0; k < G_N_ELEMENTS (extra); k++)
    fail_unless (gst_structure_has_field (pooled, extra[k]), "pooled: no %s",
        extra[k]);

  JsonNode *root = check_results_json (path, 3);
  JsonArray *arr = json_object_get_array_member (json_node_get_object (root),
      "frames");
  const VhScoreTable *t = vh_engine_scores (x.engine);
  for (guint i = 0; i < 3; i++) {
    JsonObject *m = json_object_get_object_member
        (json_array_get_object_element (arr, i), "metrics");
    GList *names = json_object_get_members (m);
    guint at = 0;
    for (GList *l = names; l; l = l->next) {
      const char *name = l->data;
      double want;
      if (g_str_has_prefix (name, "integer_vif")) {
        /* scale0..3 then libvmaf's debug order, as `extra` lists them */
        if (at >= 4)
          fail_unless_equals_string (name, extra[at - 4]);
        at++;
      }
      if (vh_score_table_find (t, name) < 0)
        continue;
      fail_unless (vh_score_table_get (t, vh_score_table_find (t, name), i,
              &want));
      fail_unless (fabs (json_object_get_double_member (m, name) - want)
          <= 5e-7 * MAX (1.0, fabs (want)), "frame %u %s", i, name);
    }
    g_list_free (names);
    fail_unless_equals_int (at, 15);
  }
  json_node_unref (root);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
  fixture_free (f);
  results_dir_free (dir, path);
  g_free (props);
}

GST_END_TEST;

/* features= beside the model, as libvmaf 3.2.0 registers extractors: an
 * entry whose feature parameters equal the model's extractor's
 * (vif=debug=true, adm=adm_skip_aim=true) is dropped with a warning on the
 * bus, the model's keys keep the values of a run without it (before, the
 * second adm wrote integer_aim and integer_adm3 over the model's) and no
 * debug key appears; one with another feature parameter
 * (adm_enhn_gain_limit=1.2) is added under its own keys (_egl_1.2). */
GST_START_TEST (test_feature_beside_model)
{
  static const char *const models[] = { "vmaf_v0.6.1", NULL };
  static const char *const kept[] = { "vmaf", "integer_aim", "integer_adm3",
    "integer_adm2", "integer_vif_scale0", "integer_motion2" };
  static const char *const absent[] = { "integer_vif", "integer_vif_num",
    "integer_vif_num_scale0", "integer_adm", "integer_adm_num" };
  static const char *const features[] = { "vif=debug=true",
    "adm=adm_skip_aim=true:debug=true", "adm=adm_enhn_gain_limit=1.2", NULL };
  Expected plain = { 0 }, x = { .features = features };
  GList *msgs, *warnings;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;
  Fixture *f = fixture_new ("backend=cpu features=vif=debug=true,"
      "adm=adm_skip_aim=true:debug=true,adm=adm_enhn_gain_limit=1.2", FALSE);

  fixture_set_caps (f, "I420", "I420", 29);
  push_pairs (f, 0, 3);
  push_eos_both (f);
  wait_eos (f);
  /* the model alone, and the engine with the same features */
  expected_run (&plain, &f->content, models, FALSE, FALSE, 0, 3);
  expected_run (&x, &f->content, models, FALSE, FALSE, 0, 3);
  const VhScoreTable *t = vh_engine_scores (plain.engine);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, 3);
  for (guint i = 0; i < 3; i++) {
    const GstStructure *s = g_ptr_array_index (frames, i);
    /* the keys and values the engine gives, no other */
    check_frame_scores (s, &x, i);
    for (guint k = 0; k < G_N_ELEMENTS (kept); k++) {
      double v, want;
      fail_unless (gst_structure_get_double (s, kept[k], &v), "frame %u: "
          "no %s", i, kept[k]);
      fail_unless (vh_score_table_get (t, vh_score_table_find (t, kept[k]),
              i, &want));
      fail_unless (v == want, "frame %u %s: %.9g, alone %.9g", i, kept[k], v,
          want);
    }
    for (guint k = 0; k < G_N_ELEMENTS (absent); k++)
      fail_if (gst_structure_has_field (s, absent[k]), "frame %u: %s", i,
          absent[k]);
    fail_unless (gst_structure_has_field (s, "integer_adm2_egl_1.2"));
    fail_unless (gst_structure_has_field (s, "integer_aim_egl_1.2"));
  }
  /* one warning for each dropped entry, naming it and the model */
  warnings = take_messages (f->bus, &f->seen, GST_MESSAGE_WARNING);
  guint n_vif = 0, n_adm = 0;
  for (GList *l = warnings; l; l = l->next) {
    GError *err = NULL;
    gst_message_parse_warning (l->data, &err, NULL);
    if (strstr (err->message, "is not added")) {
      fail_unless (strstr (err->message, "model 'vmaf_v0.6.1'") != NULL,
          "%s", err->message);
      n_vif += strstr (err->message, "'vif=debug=true'") != NULL;
      n_adm += strstr (err->message,
          "'adm=debug=true:adm_skip_aim=true'") != NULL;
    }
    g_error_free (err);
  }
  fail_unless_equals_int (n_vif, 1);
  fail_unless_equals_int (n_adm, 1);
  free_messages (warnings);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (plain.engine);
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
  tcase_add_test (tc, test_model_keys);
  tcase_add_test (tc, test_models_names_and_phone);
  tcase_add_test (tc, test_models_libvmaf_syntax);
  tcase_add_test (tc, test_feature_debug);
  tcase_add_test (tc, test_feature_beside_model);
  tcase_add_test (tc, test_pool_method);
  tcase_add_test (tc, test_frame_message_off);
  tcase_add_test (tc, test_subsample);
  tcase_add_test (tc, test_meta);
  tcase_add_test (tc, test_results_file);
  return s;
}

GST_CHECK_MAIN (vmafhip);
