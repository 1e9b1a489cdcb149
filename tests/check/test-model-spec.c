/* vmafhip — libvmaf's --model and --feature strings (common/engine/vh-spec.h):
 * what each part parses to, every malformed part failing with a message
 * that names it, and overrides changing the features and scores exactly as
 * libvmaf's vmaf_model_feature_overload does: on the project's own
 * synthetic content, and against libvmaf's scores in ../shared/testdata
 * where that folder is present (skipped loudly where it is not). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <json-glib/json-glib.h>

#include "vh-rawvideo.h"
#include "vh-spec.h"
#include "vh-synth.h"
#include "vh-test-util.h"

static const char *testdata;

static VhModelSpec *
parse_ok (const char *text)
{
  GError *error = NULL;
  VhModelSpec *spec = vh_model_spec_parse (text, NULL, &error);

  ck_assert_msg (spec != NULL, "'%s': %s", text, error ? error->message : "");
  ck_assert (error == NULL);
  return spec;
}

/* The error must name the offending part (`needle`), not just fail. */
static void
assert_error_names (GError *error, const char *what, const char *needle)
{
  ck_assert_msg (error != NULL, "'%s' was accepted", what);
  ck_assert_msg (strstr (error->message, needle) != NULL,
      "'%s': '%s' not in \"%s\"", what, needle, error->message);
  g_error_free (error);
}

/* ----------------------------------------------------------- model parse */

START_TEST (test_model_sources)
{
  VhModelSpec *s = parse_ok ("version=vmaf_v0.6.1");
  ck_assert_str_eq (s->source, "vmaf_v0.6.1");
  ck_assert_int_eq (s->source_kind, VH_MODEL_SOURCE_BUILTIN);
  ck_assert (s->report_name == NULL);
  ck_assert (!s->flags.enable_transform && !s->flags.disable_clip);
  ck_assert_uint_eq (s->n_overrides, 0);
  vh_model_spec_free (s);

  s = parse_ok ("path=/models/a.b/vmaf_v0.6.1neg.json:name=neg");
  ck_assert_str_eq (s->source, "/models/a.b/vmaf_v0.6.1neg.json");
  ck_assert_int_eq (s->source_kind, VH_MODEL_SOURCE_PATH);
  ck_assert_str_eq (s->report_name, "neg");
  vh_model_spec_free (s);

  /* vmafhip's short form: a bare built-in name or path, first only */
  s = parse_ok ("vmaf_4k_v0.6.1:name=4k");
  ck_assert_str_eq (s->source, "vmaf_4k_v0.6.1");
  ck_assert_int_eq (s->source_kind, VH_MODEL_SOURCE_ANY);
  ck_assert_str_eq (s->report_name, "4k");
  vh_model_spec_free (s);

  /* the order of the parts does not matter for keyed ones */
  s = parse_ok ("name=late:enable_transform:version=vmaf_b_v0.6.3");
  ck_assert_str_eq (s->source, "vmaf_b_v0.6.3");
  ck_assert_str_eq (s->report_name, "late");
  ck_assert (s->flags.enable_transform);
  vh_model_spec_free (s);

  /* a path holding ':' (the element's model-filename) taken whole */
  s = vh_model_spec_new_source ("/odd:dir/m.json", NULL);
  ck_assert_str_eq (s->source, "/odd:dir/m.json");
  ck_assert_int_eq (s->source_kind, VH_MODEL_SOURCE_ANY);
  vh_model_spec_free (s);
}
END_TEST

START_TEST (test_model_flags)
{
  const VhModelFlags global = { .disable_clip = true };
  GError *error = NULL;
  VhModelSpec *s;

  s = parse_ok ("version=vmaf_v0.6.1:enable_transform");
  ck_assert (s->flags.enable_transform && !s->flags.disable_clip);
  vh_model_spec_free (s);
  s = parse_ok ("version=vmaf_v0.6.1:enable_transform=true:disable_clip");
  ck_assert (s->flags.enable_transform && s->flags.disable_clip);
  vh_model_spec_free (s);
  s = parse_ok ("version=vmaf_v0.6.1:enable_transform=false");
  ck_assert (!s->flags.enable_transform);
  vh_model_spec_free (s);

  /* the caller's flags are the starting point; the text can turn them off */
  s = vh_model_spec_parse ("version=vmaf_v0.6.1", &global, &error);
  ck_assert (s && s->flags.disable_clip);
  vh_model_spec_free (s);
  s = vh_model_spec_parse ("version=vmaf_v0.6.1:disable_clip=false", &global,
      &error);
  ck_assert (s && !s->flags.disable_clip);
  vh_model_spec_free (s);
}
END_TEST

START_TEST (test_model_overrides_parsed)
{
  VhModelSpec *s = parse_ok ("version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0"
      ":adm.adm_enhn_gain_limit=1:vif.vif_skip_scale0=false"
      ":motion.motion_max_val=abc");

  ck_assert_uint_eq (s->n_overrides, 4);
  ck_assert_str_eq (s->overrides[0].feature, "vif");
  ck_assert_str_eq (s->overrides[0].opt.key, "vif_enhn_gain_limit");
  ck_assert_int_eq (s->overrides[0].opt.kind, VH_OPTVAL_NUMBER);
  ck_assert (s->overrides[0].opt.number == 1.0);
  ck_assert_str_eq (s->overrides[1].feature, "adm");
  ck_assert (s->overrides[1].opt.number == 1.0);
  ck_assert_int_eq (s->overrides[2].opt.kind, VH_OPTVAL_BOOL);
  ck_assert (!s->overrides[2].opt.boolean);
  /* not a number: kept as text, refused when checked against the option */
  ck_assert_int_eq (s->overrides[3].opt.kind, VH_OPTVAL_STRING);
  ck_assert_str_eq (s->overrides[3].opt.string, "abc");
  vh_model_spec_free (s);
}
END_TEST

START_TEST (test_model_parse_errors)
{
  const struct {
    const char *text, *needle;
  } cases[] = {
    {"", "empty model"},
    {"   ", "empty model"},
    {"name=vmaf", "names no model"},
    {"enable_transform", "names no model"},
    {"version=", "version= needs a value"},
    {"path=", "path= needs a value"},
    {"version=vmaf_v0.6.1:path=m.json", "more than one model"},
    {"vmaf_v0.6.1:version=vmaf_v0.6.1neg", "more than one model"},
    {"version=vmaf_v0.6.1:name=", "name= needs a value"},
    {"version=vmaf_v0.6.1:name", "name= needs a value"},
    {"version=vmaf_v0.6.1:enable_transform=yes", "'yes' wants true or false"},
    {"version=vmaf_v0.6.1:disable_clip=1", "'1' wants true or false"},
    {"version=vmaf_v0.6.1::name=x", "empty option"},
    {"version=vmaf_v0.6.1:", "empty option"},
    {"version=vmaf_v0.6.1:colour=red", "unknown option 'colour'"},
    /* a bare source after the first part reads as an override */
    {"name=x:vmaf_v0.6.1", "'vmaf_v0.6.1' is not FEATURE.OPTION=VALUE"},
    {"version=vmaf_v0.6.1:vif.vif_enhn_gain_limit",
        "'vif.vif_enhn_gain_limit' is not FEATURE.OPTION=VALUE"},
    {"version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=",
        "'vif.vif_enhn_gain_limit=' is not FEATURE.OPTION=VALUE"},
    {"version=vmaf_v0.6.1:.vif_enhn_gain_limit=1",
        "'.vif_enhn_gain_limit=1' is not FEATURE.OPTION=VALUE"},
    {"version=vmaf_v0.6.1:vif.=1", "'vif.=1' is not FEATURE.OPTION=VALUE"},
    {"version=vmaf_v0.6.1:name=score", "'score' is reserved"},
  };

  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
    GError *error = NULL;
    VhModelSpec *s = vh_model_spec_parse (cases[k].text, NULL, &error);
    ck_assert_msg (s == NULL, "'%s' was accepted", cases[k].text);
    assert_error_names (error, cases[k].text, cases[k].needle);
  }
  {
    GError *error = NULL;
    ck_assert (vh_model_spec_parse (NULL, NULL, &error) == NULL);
    assert_error_names (error, "NULL", "empty model");
  }
}
END_TEST

/* Parsed fine, refused once the model is known: the message names the
 * model, the override and what is wrong with it. */
START_TEST (test_model_load_errors)
{
  const struct {
    const char *text, *needle;
  } cases[] = {
    {"version=vmaf_v9", "vmaf_v9"},
    /* version= is only the built-in names, path= only files */
    {"version=/nonexistent/vmaf.json", "/nonexistent/vmaf.json"},
    {"path=vmaf_v0.6.1", "vmaf_v0.6.1"},
    {"version=vmaf_v0.6.1:cambi.window_size=9",
        "override 'cambi.window_size' names 'cambi', which this model does "
        "not use"},
    {"version=vmaf_v0.6.1:psnr.enable_chroma=false",
        "names 'psnr', which this model does not use (its features come "
        "from: adm, motion, vif)"},
    {"version=vmaf_v0.6.1:vif.vif_gain=1", "has no option 'vif_gain'"},
    {"version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=0.5",
        "outside its range [1, 100]"},
    {"version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1e9",
        "outside its range [1, 100]"},
    {"version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=x", "wants a number"},
    {"version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=true", "wants a number"},
    {"version=vmaf_v0.6.1:adm.adm_csf_mode=1.5", "wants an integer"},
    {"version=vmaf_v0.6.1:motion.motion_force_zero=1", "wants a boolean"},
    {"version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=nan", "vif_enhn_gain_limit"},
  };

  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
    GError *error = NULL;
    VhModelSpec *s = parse_ok (cases[k].text);
    VhModel *m = vh_model_spec_load (s, &error);
    ck_assert_msg (m == NULL, "'%s' loaded", cases[k].text);
    assert_error_names (error, cases[k].text, cases[k].needle);
    vh_model_spec_free (s);
  }
  {
    /* the override's own name is in the message of a bad value */
    GError *error = NULL;
    VhModelSpec *s = parse_ok ("version=vmaf_v0.6.1:adm.adm_csf_mode=9");
    ck_assert (vh_model_spec_load (s, &error) == NULL);
    assert_error_names (error, "adm_csf_mode=9",
        "model 'vmaf_v0.6.1', override 'adm.adm_csf_mode'");
    vh_model_spec_free (s);
  }
}
END_TEST

/* --------------------------------------------------- model on the engine */

/* An engine with one model spec per entry of `models` (NULL-ended) and the
 * features of `features`, over `n` synthetic frames distorted with
 * `strength` (0: the distorted frames equal the reference). */
static VhEngine *
score_specs (const char *const *models, const char *const *features,
    unsigned n, unsigned strength)
{
  GError *error = NULL;
  const VhVideoInfo info = { 96, 64, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  VhSynth *synth = vh_synth_new (96, 64, 8, VH_SYNTH_420, 11);

  for (; models && *models; models++) {
    VhModelSpec *s = parse_ok (*models);
    VhModel *m = vh_model_spec_load (s, &error);
    ck_assert_msg (m != NULL, "%s: %s", *models, error ? error->message : "");
    ck_assert_msg (vh_engine_add_model_spec (e, s, m, &error), "%s: %s",
        *models, error ? error->message : "");
    vh_model_spec_free (s);
  }
  for (; features && *features; features++) {
    VhFeatureSpec *f = vh_feature_spec_parse (*features, &error);
    ck_assert_msg (f != NULL, "%s: %s", *features, error ? error->message :
        "");
    ck_assert_msg (vh_engine_add_feature_spec (e, f, &error), "%s: %s",
        *features, error ? error->message : "");
    vh_feature_spec_free (f);
  }
  for (unsigned i = 0; i < n; i++) {
    VhPicture ref, dis;
    vh_synth_render (synth, i, strength, &ref, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
  }
  ck_assert (vh_engine_flush (e, &error));
  vh_synth_free (synth);
  return e;
}

static gboolean
has_metric (VhEngine *e, const char *name)
{
  return vh_score_table_find (vh_engine_scores (e), name) >= 0;
}

static double
value_of (VhEngine *e, const char *name, unsigned frame)
{
  const VhScoreTable *t = vh_engine_scores (e);
  const int m = vh_score_table_find (t, name);
  double v = NAN;

  ck_assert_msg (m >= 0, "no metric %s", name);
  ck_assert_msg (vh_score_table_get (t, (unsigned) m, frame, &v),
      "no %s at frame %u", name, frame);
  return v;
}

/* vmaf_v0.6.1neg is vmaf_v0.6.1's SVM with vif and adm at an enhancement
 * gain limit of 1: the overrides must turn one into the other exactly. */
START_TEST (test_overrides_make_neg)
{
  static const char *const models[] = {
    "version=vmaf_v0.6.1:name=vmaf_egl:vif.vif_enhn_gain_limit=1.0"
        ":adm.adm_enhn_gain_limit=1.0",
    "version=vmaf_v0.6.1neg:name=vmaf_neg",
    NULL
  };
  VhEngine *e = score_specs (models, NULL, 5, 4);
  static const char *const suffixed[] = {
    "integer_vif_scale0_egl_1", "integer_vif_scale3_egl_1",
    "integer_adm2_egl_1", "integer_adm_scale0_egl_1",
  };

  for (gsize k = 0; k < G_N_ELEMENTS (suffixed); k++)
    ck_assert_msg (has_metric (e, suffixed[k]), "no %s", suffixed[k]);
  /* the overridden model computes no unsuffixed vif/adm, and motion, which
   * no override touched, keeps its name */
  ck_assert (!has_metric (e, "integer_vif_scale0"));
  ck_assert (!has_metric (e, "integer_adm2"));
  ck_assert (!has_metric (e, "integer_motion2_egl_1"));
  ck_assert (has_metric (e, "integer_motion2"));
  for (unsigned i = 0; i < 5; i++)
    ck_assert_msg (value_of (e, "vmaf_egl", i) == value_of (e, "vmaf_neg", i),
        "frame %u: %.9f against %.9f", i, value_of (e, "vmaf_egl", i),
        value_of (e, "vmaf_neg", i));
  vh_engine_free (e);
}
END_TEST

/* An override wins over the model's own option (libvmaf merges the model's
 * dictionary first, then the override): vmaf_v0.6.1neg with vif back at its
 * default is vmaf_v0.6.1 on vif, still NEG on adm. */
START_TEST (test_override_wins_over_model_option)
{
  static const char *const models[] = {
    "version=vmaf_v0.6.1neg:name=mixed:vif.vif_enhn_gain_limit=100",
    "version=vmaf_v0.6.1:name=plain",
    "version=vmaf_v0.6.1neg:name=neg",
    NULL
  };
  VhEngine *e = score_specs (models, NULL, 4, 4);

  ck_assert (has_metric (e, "integer_vif_scale0"));
  ck_assert (has_metric (e, "integer_adm2_egl_1"));
  /* the mixed model shares vif with "plain" and adm with "neg"; its score
   * is neither (the synthetic distortion makes the gain limit matter) */
  ck_assert (value_of (e, "integer_vif_scale0_egl_1", 2)
      != value_of (e, "integer_vif_scale0", 2));
  ck_assert (value_of (e, "mixed", 2) != value_of (e, "plain", 2));
  ck_assert (value_of (e, "mixed", 2) != value_of (e, "neg", 2));
  vh_engine_free (e);
}
END_TEST

/* libvmaf applies an override to every member of a bootstrap collection. */
START_TEST (test_override_bootstrap_members)
{
  static const char *const models[] = {
    "version=vmaf_b_v0.6.3:name=b:motion.motion_max_val=18", NULL
  };
  VhEngine *e = score_specs (models, NULL, 3, 4);

  ck_assert (has_metric (e, "integer_motion2_mmxv_18"));
  ck_assert (!has_metric (e, "integer_motion2"));
  ck_assert (has_metric (e, "b_bagging") && has_metric (e, "b_0020"));
  vh_engine_free (e);
}
END_TEST

/* The flags reach prediction: enable_transform raises the score (the
 * phone transform), disable_clip lets undistorted frames past 100. */
START_TEST (test_flags_reach_prediction)
{
  static const char *const models[] = {
    "version=vmaf_v0.6.1:name=plain",
    "version=vmaf_v0.6.1:name=phone:enable_transform",
    "version=vmaf_v0.6.1:name=noclip:disable_clip",
    NULL
  };
  VhEngine *distorted = score_specs (models, NULL, 3, 4);
  VhEngine *same = score_specs (models, NULL, 3, 0);

  for (unsigned i = 0; i < 3; i++) {
    ck_assert (value_of (distorted, "phone", i) >
        value_of (distorted, "plain", i));
    ck_assert (value_of (distorted, "noclip", i) ==
        value_of (distorted, "plain", i));
  }
  /* frames 1 and 2 of an undistorted pair predict above 100 */
  for (unsigned i = 1; i < 3; i++) {
    ck_assert (value_of (same, "plain", i) == 100.0);
    ck_assert (value_of (same, "noclip", i) > 100.0);
  }
  vh_engine_free (distorted);
  vh_engine_free (same);
}
END_TEST

/* --------------------------------------------------------------- features */

START_TEST (test_feature_parse)
{
  GError *error = NULL;
  VhFeatureSpec *f = vh_feature_spec_parse ("psnr", &error);

  ck_assert (f != NULL);
  ck_assert_str_eq (f->name, "psnr");
  ck_assert_uint_eq (f->n_opts, 0);
  vh_feature_spec_free (f);

  f = vh_feature_spec_parse ("psnr=enable_chroma=false:min_sse=0.5", &error);
  ck_assert (f != NULL);
  ck_assert_str_eq (f->name, "psnr");
  ck_assert_uint_eq (f->n_opts, 2);
  ck_assert_str_eq (f->opts[0].key, "enable_chroma");
  ck_assert_int_eq (f->opts[0].kind, VH_OPTVAL_BOOL);
  ck_assert (!f->opts[0].boolean);
  ck_assert_str_eq (f->opts[1].key, "min_sse");
  ck_assert_int_eq (f->opts[1].kind, VH_OPTVAL_NUMBER);
  ck_assert (f->opts[1].number == 0.5);
  vh_feature_spec_free (f);
}
END_TEST

START_TEST (test_feature_parse_errors)
{
  const struct {
    const char *text, *needle;
  } cases[] = {
    {"", "no feature name"},
    {"=enable_chroma=false", "no feature name"},
    {"psnr=enable_chroma", "'enable_chroma' is not OPTION=VALUE"},
    {"psnr=enable_chroma=", "'enable_chroma=' is not OPTION=VALUE"},
    {"psnr==false", "is not OPTION=VALUE"},
    {"psnr=min_sse=1:", "'' is not OPTION=VALUE"},
    {"psnr=", "'' is not OPTION=VALUE"},
  };

  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
    GError *error = NULL;
    VhFeatureSpec *f = vh_feature_spec_parse (cases[k].text, &error);
    ck_assert_msg (f == NULL, "'%s' was accepted", cases[k].text);
    assert_error_names (error, cases[k].text, cases[k].needle);
  }
}
END_TEST

START_TEST (test_feature_on_engine)
{
  static const char *const features[] = {
    "psnr=enable_chroma=false",
    "vif=vif_enhn_gain_limit=1.0",
    "adm=adm_csf_mode=2:adm_enhn_gain_limit=1",
    NULL
  };
  VhEngine *e = score_specs (NULL, features, 3, 4);

  ck_assert (has_metric (e, "psnr_y"));
  ck_assert (!has_metric (e, "psnr_cb"));
  ck_assert (has_metric (e, "integer_vif_scale0_egl_1"));
  ck_assert (!has_metric (e, "integer_vif_scale0"));
  /* libvmaf's suffix: non-default feature parameters sorted by option name */
  ck_assert (has_metric (e, "integer_adm2_csf_2_egl_1"));
  vh_engine_free (e);
}
END_TEST

START_TEST (test_feature_engine_errors)
{
  const struct {
    const char *text, *needle;
  } cases[] = {
    {"ssimulacra", "feature 'ssimulacra'"},
    {"psnr=colour=red", "feature 'psnr': feature 'psnr' has no option "
          "'colour'"},
    {"psnr=min_sse=-1", "outside its range"},
    {"psnr=enable_chroma=2", "wants a boolean"},
    {"adm=adm_csf_mode=x", "wants an integer"},
  };
  const VhVideoInfo info = { 96, 64, 8 };

  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
    GError *error = NULL;
    VhEngine *e = vh_engine_new (&info, &error);
    VhFeatureSpec *f = vh_feature_spec_parse (cases[k].text, &error);
    ck_assert_msg (f != NULL, "%s", cases[k].text);
    ck_assert_msg (!vh_engine_add_feature_spec (e, f, &error), "'%s' added",
        cases[k].text);
    assert_error_names (error, cases[k].text, cases[k].needle);
    vh_feature_spec_free (f);
    vh_engine_free (e);
  }
}
END_TEST

/* ----------------------------------------------------- against libvmaf */

/* Scores a raw clip of ../shared/testdata with the model specs and
 * feature specs given; returns the flushed engine. */
static VhEngine *
score_clip (const char *file_stem, const char *format, unsigned w,
    unsigned h, const char *const *models, const char *const *features)
{
  const VhRawFormat *fmt = vh_raw_format_lookup (format);
  const VhVideoInfo info = { w, h, fmt->bpc };
  const size_t fsize = vh_raw_frame_size (fmt, w, h);
  GError *error = NULL;
  gchar *data[2] = { NULL, NULL };
  gsize len[2] = { 0, 0 };
  VhEngine *e = vh_engine_new (&info, &error);

  for (int k = 0; k < 2; k++) {
    gchar *path = g_strdup_printf ("%s/clips/%s_%s.yuv", testdata, file_stem,
        k ? "dis" : "ref");
    ck_assert_msg (g_file_get_contents (path, &data[k], &len[k], &error),
        "%s: %s", path, error ? error->message : "");
    g_free (path);
  }
  ck_assert_uint_eq (len[0], len[1]);
  for (; *models; models++) {
    VhModelSpec *s = parse_ok (*models);
    VhModel *m = vh_model_spec_load (s, &error);
    ck_assert_msg (m && vh_engine_add_model_spec (e, s, m, &error), "%s: %s",
        *models, error ? error->message : "");
    vh_model_spec_free (s);
  }
  for (; features && *features; features++) {
    VhFeatureSpec *f = vh_feature_spec_parse (*features, &error);
    ck_assert_msg (f && vh_engine_add_feature_spec (e, f, &error), "%s: %s",
        *features, error ? error->message : "");
    vh_feature_spec_free (f);
  }
  for (size_t off = 0; off + fsize <= len[0]; off += fsize) {
    VhPicture ref, dis;
    vh_raw_picture (fmt, data[0] + off, w, h, &ref);
    vh_raw_picture (fmt, data[1] + off, w, h, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
  }
  ck_assert (vh_engine_flush (e, &error));
  g_free (data[0]);
  g_free (data[1]);
  return e;
}

/* Every frame's value of `ours` against libvmaf's `theirs` in the golden
 * log; returns how many were compared. */
static unsigned
compare_golden (VhEngine *e, const char *golden, const char *ours,
    const char *theirs, double tolerance)
{
  gchar *path = g_strdup_printf ("%s/golden/%s", testdata, golden);
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  JsonArray *frames;
  unsigned n;

  ck_assert_msg (json_parser_load_from_file (parser, path, &error), "%s: %s",
      path, error ? error->message : "");
  frames = json_object_get_array_member (json_node_get_object
      (json_parser_get_root (parser)), "frames");
  n = json_array_get_length (frames);
  ck_assert_uint_eq (n, vh_engine_n_final (e));
  for (unsigned i = 0; i < n; i++) {
    JsonObject *metrics = json_object_get_object_member
        (json_array_get_object_element (frames, i), "metrics");
    ck_assert_msg (json_object_has_member (metrics, theirs), "%s has no %s",
        golden, theirs);
    const double gold = json_object_get_double_member (metrics, theirs);
    const double mine = value_of (e, ours, i);
    ck_assert_msg (fabs (mine - gold) <= tolerance,
        "%s frame %u: %s %.9f, libvmaf's %s %.6f", golden, i, ours, mine,
        theirs, gold);
  }
  g_object_unref (parser);
  g_free (path);
  return n;
}

/* libvmaf scored vmaf_v0.6.1neg as "vmaf_neg": vmaf_v0.6.1 with the NEG
 * overrides must give its scores and its features' names and values. */
START_TEST (test_golden_overrides_equal_neg)
{
  static const char *const models[] = {
    "version=vmaf_v0.6.1:name=vmaf_egl:vif.vif_enhn_gain_limit=1.0"
        ":adm.adm_enhn_gain_limit=1.0", NULL
  };
  static const char *const features[] = {
    "integer_vif_scale0_egl_1", "integer_vif_scale1_egl_1",
    "integer_vif_scale2_egl_1", "integer_vif_scale3_egl_1",
    "integer_adm2_egl_1", "integer_adm_scale0_egl_1",
    "integer_adm_scale3_egl_1", "integer_motion2",
  };
  VhEngine *e = score_clip ("src01_160x90", "I420", 160, 90, models, NULL);
  unsigned n = compare_golden (e, "src01_160x90.v0.json", "vmaf_egl",
      "vmaf_neg", 1e-4);

  /* integer features: exact up to libvmaf's 6-decimal print */
  for (gsize k = 0; k < G_N_ELEMENTS (features); k++)
    compare_golden (e, "src01_160x90.v0.json", features[k], features[k],
        1e-6 + 1e-9);
  fprintf (stderr, "src01_160x90: vmaf_v0.6.1 with NEG overrides equals "
      "libvmaf's vmaf_neg on %u frames\n", n);
  vh_engine_free (e);
}
END_TEST

/* The v1.0.16 models' ADM and motion options, given as overrides of
 * vmaf_v0.6.1 and as --feature options, give libvmaf's names (every
 * option in the suffix) and values. */
START_TEST (test_golden_v1_options)
{
  static const char *const models[] = {
    "version=vmaf_v0.6.1:name=v:adm.adm_csf_mode=2:adm.adm_dlm_weight=0.7"
        ":adm.adm_enhn_gain_limit=1.0:adm.adm_noise_weight=0.02"
        ":adm.adm_min_val=0.5:motion.motion_max_val=18", NULL
  };
  static const char *const features[] = {
    "adm=adm_csf_mode=2:adm_dlm_weight=0.7:adm_enhn_gain_limit=1.0"
        ":adm_noise_weight=0.02:adm_min_val=0.5:adm_norm_view_dist=1.5"
        ":adm_ref_display_height=2160", NULL
  };
  static const char *const names[] = {
    "integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02",
    "integer_adm_scale0_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02",
    "integer_adm2_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160",
    "integer_adm3_csf_2_dlmw_0.7_egl_1_min_0.5_nw_0.02_nvd_1.5_rdh_2160",
    "integer_motion2_mmxv_18",
    "VMAF_integer_feature_motion_sad_score_mmxv_18",
  };
  VhEngine *e = score_clip ("hall_352x288", "I420", 352, 288, models,
      features);

  for (gsize k = 0; k < G_N_ELEMENTS (names); k++)
    compare_golden (e, "hall_352x288.v1.json", names[k], names[k],
        1e-6 + 1e-9);
  vh_engine_free (e);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("model-spec");
  TCase *parse = tcase_create ("parse");
  TCase *engine = tcase_create ("engine");
  SRunner *sr;
  int failed;

  tcase_add_test (parse, test_model_sources);
  tcase_add_test (parse, test_model_flags);
  tcase_add_test (parse, test_model_overrides_parsed);
  tcase_add_test (parse, test_model_parse_errors);
  tcase_add_test (parse, test_model_load_errors);
  tcase_add_test (parse, test_feature_parse);
  tcase_add_test (parse, test_feature_parse_errors);
  suite_add_tcase (s, parse);
  tcase_add_test (engine, test_overrides_make_neg);
  tcase_add_test (engine, test_override_wins_over_model_option);
  tcase_add_test (engine, test_override_bootstrap_members);
  tcase_add_test (engine, test_flags_reach_prediction);
  tcase_add_test (engine, test_feature_on_engine);
  tcase_add_test (engine, test_feature_engine_errors);
  suite_add_tcase (s, engine);

  testdata = vh_test_testdata_dir ();
  if (testdata) {
    TCase *golden = tcase_create ("libvmaf-3.2.0");
    tcase_set_timeout (golden, 300);
    tcase_add_test (golden, test_golden_overrides_equal_neg);
    tcase_add_test (golden, test_golden_v1_options);
    suite_add_tcase (s, golden);
  } else {
    vh_test_skip_case ("test_golden_overrides_equal_neg",
        "no shared test vectors");
    vh_test_skip_case ("test_golden_v1_options", "no shared test vectors");
  }
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
