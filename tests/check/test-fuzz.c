/* vmafhip — a plain fuzz driver (issue 16): seeded mutations of a corpus
 * the project writes itself, fed to the parsers and the engine.  Run in CI
 * and under AddressSanitizer/UBSan (scripts/test-sanitizers.sh), where an
 * out-of-bounds access, a leak or undefined behaviour fails it; here each
 * input must either be accepted or refused with an error that says
 * something, never crash or hang.
 *
 * Targets: the model JSON loader (vh_model_load_data, then a prediction),
 * the `models=` and `features=` option parsers (and what they name, run on
 * a small engine), and the raw picture path (random sizes, depths, plane
 * layouts and strides, with each plane allocated to its last byte so that
 * a read past it is caught).
 *
 * VMAFHIP_FUZZ_EXECS=N multiplies the executions of every target by N
 * (default 1); VMAFHIP_FUZZ_SEED picks another seed. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "vh-engine.h"
#include "vh-error.h"
#include "vh-model.h"
#include "vh-spec.h"
#include "vh-synth.h"

static guint32 seed = 20261126;
static guint scale = 1;

/* ---- mutation --------------------------------------------------------- */

/* Tokens a mutation may insert: JSON's and the option syntax's own, and
 * values at the edges of what a parser converts. */
static const char *const dictionary[] = {
  "{", "}", "[", "]", ":", ",", "\"", "\\", "=", "\n", " ", "\\u0000",
  "null", "true", "false", "-1", "0", "1e308", "-1e308", "1e-320", "NaN",
  "inf", "4294967296", "-2147483649", "0x10", "18446744073709551616",
  "\"model_dict\"", "\"model_type\"", "\"feature_names\"", "\"slopes\"",
  "\"intercepts\"", "\"score_transform\"", "\"feature_opts_dicts\"",
  "\"norm_type\"", "\"score_clip\"", "\"model\"", "SV\n", "total_sv ",
  "nr_class ", "rho ", "1:", "version=", "path=", "name=", "disable_clip",
  "enable_transform", "adm.", "vif.", "motion.", ":", "motion_force_zero",
  "adm_enhn_gain_limit=", "vif_enhn_gain_limit=", "window_size=",
  "enable_db=", "clip_db=", "enable_lcs=", "full_ref=", "topk=",
  "max_log_contrast=", "speed_prescale=", "scale=",
};

/* 0 to 3 random edits of `data` (0: the seed as it is, a quarter of the
 * time, so that what follows the parsers runs too): a byte flipped or
 * replaced, a range deleted, repeated or cut off, a dictionary token
 * inserted. */
static void
mutate (GRand * r, GByteArray * data)
{
  const int n = g_rand_int_range (r, 0, 4);
  for (int k = 0; k < n; k++) {
    const guint len = data->len;
    const guint at = len ? (guint) g_rand_int_range (r, 0, (gint32) len) : 0;
    /* (drawn once: MIN evaluates its arguments twice) */
    const guint span = (guint) g_rand_int_range (r, 1, 17);
    switch (g_rand_int_range (r, 0, 6)) {
      case 0:
        if (len)
          data->data[at] ^= (guint8) (1u << g_rand_int_range (r, 0, 8));
        break;
      case 1:
        if (len)
          data->data[at] = (guint8) g_rand_int_range (r, 0, 256);
        break;
      case 2:
        if (len)
          g_byte_array_remove_range (data, at, MIN (len - at, span / 2));
        break;
      case 3:{
        const guint n_copy = MIN (len - at, span);
        if (n_copy) {
          guint8 *copy = g_memdup2 (data->data + at, n_copy);
          GByteArray *tail = g_byte_array_new ();
          g_byte_array_append (tail, data->data + at, len - at);
          g_byte_array_set_size (data, at);
          g_byte_array_append (data, copy, n_copy);
          g_byte_array_append (data, tail->data, tail->len);
          g_byte_array_unref (tail);
          g_free (copy);
        }
        break;
      }
      case 4:
        g_byte_array_set_size (data, at);
        break;
      default:{
        const char *token = dictionary[g_rand_int_range (r, 0,
                G_N_ELEMENTS (dictionary))];
        GByteArray *tail = g_byte_array_new ();
        g_byte_array_append (tail, data->data + at, len - at);
        g_byte_array_set_size (data, at);
        g_byte_array_append (data, (const guint8 *) token, strlen (token));
        g_byte_array_append (data, tail->data, tail->len);
        g_byte_array_unref (tail);
        break;
      }
    }
  }
}

/* A mutated copy of one of the seeds, NUL-terminated (it may hold NULs of
 * its own: `len` is its length). */
static char *
mutated_seed (GRand * r, const char *const *seeds, guint n_seeds, gsize *len)
{
  const char *s = seeds[g_rand_int_range (r, 0, (gint32) n_seeds)];
  GByteArray *data = g_byte_array_new ();
  g_byte_array_append (data, (const guint8 *) s, strlen (s));
  mutate (r, data);
  *len = data->len;
  g_byte_array_append (data, (const guint8 *) "", 1);
  return (char *) g_byte_array_free (data, FALSE);
}

/* A refusal says something. */
static void
check_refusal (GError * error, const char *what, const char *input)
{
  ck_assert_msg (error != NULL, "%s refused without an error: %s", what,
      input);
  ck_assert_msg (error->message && strlen (error->message) > 8,
      "%s: an empty error for %s", what, input);
  g_error_free (error);
}

/* ---- the model loader ------------------------------------------------- */

#define SVR(FEATURES, OPTS, SLOPES, INTERCEPTS, EXTRA, SV) \
  "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"norm_type\": " \
  "\"linear_rescale\", \"score_clip\": [0.0, 100.0], " \
  "\"feature_names\": [" FEATURES "], \"feature_opts_dicts\": [" OPTS "], " \
  "\"slopes\": [" SLOPES "], \"intercepts\": [" INTERCEPTS "]" EXTRA ", " \
  "\"model\": \"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\n" \
  "nr_class 2\\ntotal_sv 2\\nrho -0.5\\nSV\\n" SV "\"}}"

static const char *const model_seeds[] = {
  SVR ("\"VMAF_integer_feature_adm2_score\"", "{}", "0.01, 1.0",
      "-0.01, 0.0", "", "0.25 1:0.2 \\n-0.125 1:0.9 \\n"),
  SVR ("\"VMAF_integer_feature_adm2_score\", "
      "\"VMAF_integer_feature_motion2_score\"",
      "{\"adm_enhn_gain_limit\": 1.0}, {}", "0.01, 1.0, 0.05",
      "-0.01, 0.0, 0.0", ", \"score_transform\": {\"enabled\": true, "
      "\"p0\": 1.7, \"p1\": 1.07, \"p2\": -0.0018, \"out_lte_in\": "
      "\"true\"}", "0.25 1:0.2 2:0.5 \\n-0.125 1:0.9 2:0.1 \\n"),
  SVR ("\"VMAF_integer_feature_vif_scale0_score\"",
      "{\"vif_enhn_gain_limit\": 1.0}", "0.01, 1.0", "-0.01, 0.0",
      ", \"score_clip\": [0.0, 110.0]", "1 1:0.5 \\n-1 1:0.25 \\n"),
};

START_TEST (test_fuzz_model_json)
{
  GRand *r = g_rand_new_with_seed (seed);
  const guint execs = 20000 * scale;
  guint loaded = 0;
  for (guint i = 0; i < execs; i++) {
    gsize len;
    char *text = mutated_seed (r, model_seeds, G_N_ELEMENTS (model_seeds),
        &len);
    GError *error = NULL;
    VhModel *m = vh_model_load_data (text, len, "fuzz", &error);
    if (m) {
      const unsigned n = vh_model_n_features (m);
      double *features = g_new (double, MAX (n, 1));
      for (unsigned f = 0; f < n; f++)
        features[f] = g_rand_double_range (r, -2.0, 2.0);
      VhModelScore score;
      vh_model_predict (m, features, NULL, &score);
      g_free (features);
      vh_model_free (m);
      loaded++;
    } else {
      check_refusal (error, "model JSON", text);
    }
    g_free (text);
  }
  printf ("model JSON: %u inputs, %u loaded and predicted, %u refused\n",
      execs, loaded, execs - loaded);
  /* the mutations reach past the parser's first checks */
  ck_assert_uint_gt (loaded, execs / 50);
  g_rand_free (r);
}
END_TEST

/* ---- models= and features=, run on an engine ------------------------- */

#define W 224
#define H 224

/* Pushes three synthetic pairs (8-bit 4:2:0, large enough for CAMBI,
 * MS-SSIM and SpEED) and flushes: TRUE, or
 * FALSE with the error the engine gave. */
static gboolean
run_engine (VhEngine * e, GError ** error)
{
  VhSynth *synth = vh_synth_new (W, H, 8, VH_SYNTH_420, 7);
  gboolean ok = TRUE;
  for (unsigned i = 0; i < 3 && ok; i++) {
    VhPicture ref, dis;
    vh_synth_render (synth, i, 3, &ref, &dis);
    ok = vh_engine_push (e, &ref, &dis, error);
  }
  vh_synth_free (synth);
  return ok && vh_engine_flush (e, error);
}

static const char *const model_spec_seeds[] = {
  "version=vmaf_v0.6.1",
  "version=vmaf_v0.6.1neg:name=neg:disable_clip",
  "version=vmaf_v0.6.1:adm.adm_enhn_gain_limit=1.0:vif.vif_enhn_gain_limit=1.0",
  "version=vmaf_4k_v0.6.1:enable_transform:motion.motion_force_zero=true",
  "version=vmaf_v0.6.1:name=a:motion.motion_force_zero=true",
  "version=vmaf_v1.0.16_3d0h:name=v1",
  "path=/nonexistent/vmafhip-fuzz.json:name=x",
};

START_TEST (test_fuzz_model_spec)
{
  GRand *r = g_rand_new_with_seed (seed + 1);
  const guint execs = 1500 * scale;
  guint parsed = 0, ran = 0;
  const VhVideoInfo info = { W, H, 8 };
  for (guint i = 0; i < execs; i++) {
    gsize len;
    char *text = mutated_seed (r, model_spec_seeds,
        G_N_ELEMENTS (model_spec_seeds), &len);
    GError *error = NULL;
    VhModelSpec *spec = vh_model_spec_parse (text, NULL, &error);
    if (!spec) {
      check_refusal (error, "models=", text);
      g_free (text);
      continue;
    }
    parsed++;
    VhModel *model = vh_model_spec_load (spec, &error);
    VhEngine *e = model ? vh_engine_new (&info, NULL) : NULL;
    if (!model)
      check_refusal (error, "models= (load)", text);
    else if (!vh_model_spec_check (spec, model, &error)
        || !vh_engine_add_model_spec (e, spec, g_steal_pointer (&model),
            &error) || !run_engine (e, &error))
      check_refusal (error, "models= (run)", text);
    else
      ran++;
    if (model)
      vh_model_free (model);
    vh_engine_free (e);
    vh_model_spec_free (spec);
    g_free (text);
  }
  printf ("models=: %u inputs, %u parsed, %u scored frames\n", execs,
      parsed, ran);
  ck_assert_uint_gt (ran, execs / 50);
  g_rand_free (r);
}
END_TEST

static const char *const feature_spec_seeds[] = {
  "psnr", "psnr=enable_chroma=false", "float_ssim=enable_db=true:clip_db=true",
  "float_ssim=enable_lcs=true", "ciede", "psnr_hvs",
  "cambi=full_ref=true:max_log_contrast=3:topk=0.6",
  "cambi=window_size=17:enc_width=216:enc_height=216",
  "adm=adm_enhn_gain_limit=1.2:adm_csf_mode=2",
  "vif=vif_enhn_gain_limit=1.0", "motion=motion_force_zero=true",
  "speed_chroma=speed_prescale=1.0", "float_ms_ssim=enable_lcs=true",
};

START_TEST (test_fuzz_feature_spec)
{
  GRand *r = g_rand_new_with_seed (seed + 2);
  const guint execs = 600 * scale;
  guint parsed = 0, ran = 0;
  const VhVideoInfo info = { W, H, 8 };
  for (guint i = 0; i < execs; i++) {
    gsize len;
    char *text = mutated_seed (r, feature_spec_seeds,
        G_N_ELEMENTS (feature_spec_seeds), &len);
    GError *error = NULL;
    VhFeatureSpec *spec = vh_feature_spec_parse (text, &error);
    if (!spec) {
      check_refusal (error, "features=", text);
      g_free (text);
      continue;
    }
    parsed++;
    VhEngine *e = vh_engine_new (&info, NULL);
    if (!vh_engine_add_feature_spec (e, spec, &error)
        || !run_engine (e, &error))
      check_refusal (error, "features= (run)", text);
    else
      ran++;
    vh_engine_free (e);
    vh_feature_spec_free (spec);
    g_free (text);
  }
  printf ("features=: %u inputs, %u parsed, %u scored frames\n", execs,
      parsed, ran);
  ck_assert_uint_gt (ran, execs / 50);
  g_rand_free (r);
}
END_TEST

/* ---- raw pictures ----------------------------------------------------- */

/* One plane of random samples (the depth's range, or beyond it at times),
 * allocated to its last sample: rows `stride` bytes apart. */
static void *
random_plane (GRand * r, VhPlane * p, unsigned w, unsigned h, unsigned bpc)
{
  const unsigned bytes = bpc > 8 ? 2 : 1;
  const ptrdiff_t row = (ptrdiff_t) w * bytes;
  p->width = w;
  p->height = h;
  p->step = 1;
  p->stride = row + (g_rand_boolean (r) ? 0 : g_rand_int_range (r, 0, 64))
      * bytes;
  if (g_rand_int_range (r, 0, 40) == 0)
    p->stride = row - 1;        /* too short: refused */
  const gsize size = h ? (gsize) p->stride * (h - 1) + (gsize) row : 0;
  guint8 *data = g_malloc (MAX (size, 1));
  const guint32 top = g_rand_int_range (r, 0, 30) == 0 ? 0xffffu
      : (1u << bpc) - 1;
  for (gsize i = 0; i + bytes <= size; i += bytes) {
    const guint32 v = (guint32) g_rand_int_range (r, 0, (gint32) top + 1);
    if (bytes == 2)
      memcpy (data + i, &(guint16) { (guint16) v }, 2);
    else
      data[i] = (guint8) v;
  }
  p->data = data;
  return data;
}

static const char *const picture_models[] = {
  "vmaf_v0.6.1", "vmaf_v1.0.16_3d0h"
};

START_TEST (test_fuzz_pictures)
{
  GRand *r = g_rand_new_with_seed (seed + 3);
  const guint execs = 600 * scale;
  guint scored = 0;
  static const unsigned depths[] = { 8, 10, 12, 8, 10, 9, 16 };
  for (guint i = 0; i < execs; i++) {
    const unsigned w = g_rand_int_range (r, 0, 5) == 0
        ? (unsigned) g_rand_int_range (r, 0, 33)
        : (unsigned) g_rand_int_range (r, 33, 97);
    const unsigned h = g_rand_int_range (r, 0, 5) == 0
        ? (unsigned) g_rand_int_range (r, 0, 33)
        : (unsigned) g_rand_int_range (r, 33, 81);
    const unsigned bpc = depths[g_rand_int_range (r, 0, G_N_ELEMENTS (depths))];
    const VhVideoInfo info = { w, h, bpc };
    GError *error = NULL;
    VhEngine *e = vh_engine_new (&info, &error);
    if (!e) {
      check_refusal (error, "engine size", "");
      continue;
    }
    /* a model, with PSNR (chroma) at times */
    const char *model = picture_models[g_rand_int_range (r, 0,
            G_N_ELEMENTS (picture_models))];
    gboolean ok = vh_engine_add_model (e, model, NULL, NULL, &error)
        && (g_rand_boolean (r) || vh_engine_add_feature (e, "psnr", &error));
    /* chroma layout: 4:2:0, 4:2:2, 4:4:4, luma only, or wrong sizes */
    const int layout = g_rand_int_range (r, 0, 5);
    const unsigned cw = layout == 2 ? w : (w + 1) / 2;
    const unsigned ch = layout == 0 ? (h + 1) / 2 : h;
    for (unsigned f = 0; f < 3 && ok; f++) {
      VhPicture pic[2];
      void *mem[2][3] = { { NULL } };
      for (int k = 0; k < 2; k++) {
        memset (&pic[k], 0, sizeof pic[k]);
        pic[k].bpc = g_rand_int_range (r, 0, 50) ? bpc : 8;
        pic[k].nplanes = layout == 3 ? 1 : 3;
        mem[k][0] = random_plane (r, &pic[k].plane[0], w, h, bpc);
        for (unsigned p = 1; p < pic[k].nplanes; p++)
          mem[k][p] = random_plane (r, &pic[k].plane[p], layout == 4
              ? cw + 1 : cw, layout == 4 ? ch / 2 + 1 : ch, bpc);
      }
      ok = vh_engine_push (e, &pic[0], &pic[1], &error);
      for (int k = 0; k < 2; k++)
        for (int p = 0; p < 3; p++)
          g_free (mem[k][p]);
    }
    ok = ok && vh_engine_flush (e, &error);
    if (ok)
      scored++;
    else
      check_refusal (error, "pictures", "");
    vh_engine_free (e);
  }
  printf ("pictures: %u engines, %u scored their frames\n", execs, scored);
  ck_assert_uint_gt (scored, execs / 10);
  g_rand_free (r);
}
END_TEST

int
main (void)
{
  const char *env = g_getenv ("VMAFHIP_FUZZ_EXECS");
  if (env && atoi (env) > 0)
    scale = (guint) atoi (env);
  env = g_getenv ("VMAFHIP_FUZZ_SEED");
  if (env)
    seed = (guint32) strtoul (env, NULL, 10);
  Suite *s = suite_create ("fuzz");
  TCase *tc = tcase_create ("corpus");
  tcase_set_timeout (tc, 1200);
  tcase_add_test (tc, test_fuzz_model_json);
  tcase_add_test (tc, test_fuzz_model_spec);
  tcase_add_test (tc, test_fuzz_feature_spec);
  tcase_add_test (tc, test_fuzz_pictures);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  const int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
