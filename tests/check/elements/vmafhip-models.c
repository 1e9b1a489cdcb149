/* vmafhip — GstHarness tests of the `vmafhip` element's models and
 * features: the keys each model and feature reports, model names and the
 * phone model, libvmaf's model syntax, feature debug values, a feature
 * beside a model.  As in vmafhip.c, every score is compared with the engine
 * run directly on the same synthetic pictures (tools/vh-synth.h).
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

static Suite *
vmafhip_models_suite (void)
{
  Suite *s = suite_create ("vmafhip-models");
  TCase *tc = tcase_create ("models");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_model_keys);
  tcase_add_test (tc, test_models_names_and_phone);
  tcase_add_test (tc, test_models_libvmaf_syntax);
  tcase_add_test (tc, test_feature_debug);
  tcase_add_test (tc, test_feature_beside_model);
  return s;
}

GST_CHECK_MAIN (vmafhip_models);
