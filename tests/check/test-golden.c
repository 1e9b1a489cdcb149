/* vmafhip — golden test: every clip pair of ../shared/testdata through the
 * CPU engine, every frame's every supported metric compared with libvmaf
 * 3.2.0's scores (integer features within 1e-6, models within 1e-4), pooled
 * values likewise. Skips loudly (exit 77) where the vectors are absent. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-glib/json-glib.h>

#include "vh-engine.h"
#include "vh-rawvideo.h"
#include "vh-test-util.h"
#include "vh-tool-config.h"

typedef struct {
  const char *name;      /* golden file stem */
  const char *format;
  unsigned width, height;
  const char *ref, *dis; /* under clips/ */
  gboolean has_v1;
} Clip;

static const Clip clips[] = {
  {"src01_160x90", "I420", 160, 90, "src01_160x90_ref.yuv",
      "src01_160x90_dis.yuv", FALSE},
  {"src01_576x324_10b", "I420_10LE", 576, 324, "src01_576x324_10b_ref.yuv",
      "src01_576x324_10b_dis.yuv", TRUE},
  {"hall_352x288", "I420", 352, 288, "hall_352x288_ref.yuv",
      "hall_352x288_dis.yuv", TRUE},
  {"dark_1920x1080", "I420", 1920, 1080, "dark_1920x1080_ref.yuv",
      "dark_1920x1080_dis.yuv", TRUE},
  {"bsds_481x321_444", "Y444", 481, 321, "bsds_481x321_444_ref.yuv",
      "bsds_481x321_444_dis.yuv", TRUE},
  {"seeking_720x480", "I420", 720, 480, "seeking_720x480_ref.mp4",
      "seeking_720x480_dis_crf40.mp4", TRUE},
};

/* Metrics in the golden files that vmafhip does not compute (yet). */
static const char *const not_implemented[] = {
  "vmaf_v1",
};

static const char *testdata;
static const char *models_dir;

static gboolean
is_implemented (const char *metric)
{
  for (gsize i = 0; i < G_N_ELEMENTS (not_implemented); i++)
    if (g_str_has_prefix (metric, not_implemented[i]))
      return FALSE;
  return TRUE;
}

static double
tolerance_of (const char *metric)
{
  /* integer features are exact up to the 6-decimal print */
  if (g_str_has_prefix (metric, "integer_") || g_str_has_prefix (metric,
          "VMAF_integer") || g_str_has_prefix (metric, "psnr_")
      || !strcmp (metric, "float_ssim") || !strcmp (metric, "float_ms_ssim")
      || !strcmp (metric, "ciede2000") || g_str_has_prefix (metric, "psnr_hvs")
      || g_str_has_prefix (metric, "cambi")
      || g_str_has_prefix (metric, "speed_chroma"))
    return 1e-6 + 1e-9;
  return 1e-4;
}

/* Input file of a clip: raw as is, MP4 decoded to a temp file. */
static char *
clip_input (const char *file, gboolean *is_temp)
{
  char *path = g_build_filename (testdata, "clips", file, NULL);
  *is_temp = g_str_has_suffix (file, ".mp4");
  if (*is_temp) {
    GError *error = NULL;
    char *raw = vh_test_decode_mp4 (path, &error);
    ck_assert_msg (raw != NULL, "decoding %s: %s", path,
        error ? error->message : "?");
    g_free (path);
    return raw;
  }
  return path;
}

typedef enum {
  SET_V0_BUILTIN, SET_V0_FILES, SET_V1_FEATURES,
  SET_V1_MODELS,     /* libvmaf's v1.0.16 model files: their scores only */
  SET_V1_BUILTIN     /* the same models built in, by name */
} MetricSet;

/* The v1.0.16 models of the v1 logs. */
static const struct {
  const char *builtin, *file, *report;
} v1_models[] = {
  {"vmaf_v1.0.16_3d0h", "vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json", "vmaf_v1"},
  {"vmaf_v1.0.16_1d5h_2160", "vmaf_v1.0.16/vmaf_v1.0.16_1d5h_2160.json",
      "vmaf_v1_4k"},
  {"vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_3d0h.json",
      "vmaf_v1_hfr"},
};

/* Whether a metric of the golden log is compared in this set. */
static gboolean
compared_in (const char *metric, MetricSet set)
{
  if (set >= SET_V1_MODELS)
    return g_str_has_prefix (metric, "vmaf_v1");
  return is_implemented (metric);
}

static void
setup_engine (VhEngine *e, MetricSet set, const VhVideoInfo *info)
{
  GError *error = NULL;
  const VhModelFlags transform = { .enable_transform = true };

  if (set >= SET_V1_MODELS) {
    /* the models bring their own features (CAMBI, SpEED-chroma, ADM and
     * motion with their options) */
    for (gsize i = 0; i < G_N_ELEMENTS (v1_models); i++) {
      char *src = set == SET_V1_MODELS ? g_build_filename (models_dir,
          v1_models[i].file, NULL) : g_strdup (v1_models[i].builtin);
      ck_assert_msg (vh_engine_add_model (e, src, v1_models[i].report, NULL,
              &error), "model %s: %s", src, error ? error->message : "?");
      g_free (src);
    }
    return;
  }
  if (set == SET_V1_FEATURES) {
    /* the integer features of the v1.0.16 models (3d0h, 1d5h_2160, hfr) */
    const VhModelOpt adm_1080[] = {
      {"adm_csf_mode", VH_OPTVAL_NUMBER, 2, 0, NULL},
      {"adm_dlm_weight", VH_OPTVAL_NUMBER, 0.7, 0, NULL},
      {"adm_enhn_gain_limit", VH_OPTVAL_NUMBER, 1.0, 0, NULL},
      {"adm_noise_weight", VH_OPTVAL_NUMBER, 0.02, 0, NULL},
      {"adm_min_val", VH_OPTVAL_NUMBER, 0.5, 0, NULL},
      {"adm_norm_view_dist", VH_OPTVAL_NUMBER, 3.0, 0, NULL},
      {"adm_ref_display_height", VH_OPTVAL_NUMBER, 1080, 0, NULL},
    };
    VhModelOpt adm_2160[G_N_ELEMENTS (adm_1080)];
    memcpy (adm_2160, adm_1080, sizeof adm_1080);
    adm_2160[5].number = 1.5;
    adm_2160[6].number = 2160;
    const VhModelOpt motion[] = {
      {"motion_max_val", VH_OPTVAL_NUMBER, 18, 0, NULL},
    };
    const VhModelOpt motion_hfr[] = {
      {"motion_max_val", VH_OPTVAL_NUMBER, 18, 0, NULL},
      {"motion_five_frame_window", VH_OPTVAL_BOOL, 0, true, NULL},
      {"motion_moving_average", VH_OPTVAL_BOOL, 0, true, NULL},
    };
    ck_assert (vh_engine_add_feature_with_options (e, "adm", adm_1080,
            G_N_ELEMENTS (adm_1080), &error));
    ck_assert (vh_engine_add_feature_with_options (e, "adm", adm_2160,
            G_N_ELEMENTS (adm_2160), &error));
    ck_assert (vh_engine_add_feature_with_options (e, "motion", motion,
            G_N_ELEMENTS (motion), &error));
    ck_assert (vh_engine_add_feature_with_options (e, "motion", motion_hfr,
            G_N_ELEMENTS (motion_hfr), &error));
    /* CAMBI: default (`cambi`) and the v1.0.16 models' options
     * (`cambi_hrs_1080_cmxv_17_vlt_0.06`) */
    const VhModelOpt cambi_v1[] = {
      {"cambi_high_res_speedup", VH_OPTVAL_NUMBER, 1080, 0, NULL},
      {"cambi_vis_lum_threshold", VH_OPTVAL_NUMBER, 0.06, 0, NULL},
      {"cambi_max_val", VH_OPTVAL_NUMBER, 17, 0, NULL},
    };
    ck_assert_msg (vh_engine_add_feature (e, "cambi", &error), "cambi: %s",
        error ? error->message : "?");
    ck_assert (vh_engine_add_feature_with_options (e, "cambi", cambi_v1,
            G_N_ELEMENTS (cambi_v1), &error));
    /* SpEED-chroma with the v1.0.16 models' options
     * (`speed_chroma_uv_mxv_45_nnf_0.1_snn_0.19_wvm_5`) */
    const VhModelOpt speed_v1[] = {
      {"speed_kernelscale", VH_OPTVAL_NUMBER, 1.0, 0, NULL},
      {"speed_nn_floor", VH_OPTVAL_NUMBER, 0.1, 0, NULL},
      {"speed_sigma_nn", VH_OPTVAL_NUMBER, 0.19, 0, NULL},
      {"speed_weight_var_mode", VH_OPTVAL_NUMBER, 5, 0, NULL},
      {"speed_max_val", VH_OPTVAL_NUMBER, 45, 0, NULL},
    };
    ck_assert_msg (vh_engine_add_feature_with_options (e, "speed_chroma",
            speed_v1, G_N_ELEMENTS (speed_v1), &error), "speed_chroma: %s",
        error ? error->message : "?");
    return;
  }

  struct {
    const char *builtin, *file, *report;
    gboolean transform;
  } models[] = {
    {"vmaf_v0.6.1", "vmaf_v0.6.1.json", "vmaf", FALSE},
    {"vmaf_v0.6.1neg", "vmaf_v0.6.1neg.json", "vmaf_neg", FALSE},
    {"vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1.json", "vmaf_4k", FALSE},
    {"vmaf_b_v0.6.3", "vmaf_b_v0.6.3.json", "vmaf_b", FALSE},
    {"vmaf_v0.6.1", "vmaf_v0.6.1.json", "vmaf_phone", TRUE},
  };
  for (gsize i = 0; i < G_N_ELEMENTS (models); i++) {
    char *src = set == SET_V0_FILES ? g_build_filename (models_dir,
        models[i].file, NULL) : g_strdup (models[i].builtin);
    gboolean ok = vh_engine_add_model (e, src, models[i].report,
        models[i].transform ? &transform : NULL, &error);
    ck_assert_msg (ok, "model %s: %s", src, error ? error->message : "?");
    g_free (src);
  }
  ck_assert (vh_engine_add_feature (e, "psnr", &error));
  ck_assert (vh_engine_add_feature (e, "float_ssim", &error));
  ck_assert (vh_engine_add_feature (e, "ciede", &error));
  ck_assert (vh_engine_add_feature (e, "psnr_hvs", &error));
  /* libvmaf logs MS-SSIM only where its five scales fit (>= 176x176) */
  if (info->width >= 176 && info->height >= 176)
    ck_assert (vh_engine_add_feature (e, "float_ms_ssim", &error));
}

static void
compare_clip (const Clip *clip, MetricSet set)
{
  const VhRawFormat *fmt = vh_raw_format_lookup (clip->format);
  const VhVideoInfo info = { clip->width, clip->height, fmt->bpc };
  GError *error = NULL;
  gboolean ref_tmp, dis_tmp;
  char *ref_path = clip_input (clip->ref, &ref_tmp);
  char *dis_path = clip_input (clip->dis, &dis_tmp);
  gchar *ref_data = NULL, *dis_data = NULL;
  gsize ref_len = 0, dis_len = 0;

  ck_assert (g_file_get_contents (ref_path, &ref_data, &ref_len, NULL));
  ck_assert (g_file_get_contents (dis_path, &dis_data, &dis_len, NULL));
  const size_t fsize = vh_raw_frame_size (fmt, clip->width, clip->height);
  ck_assert_uint_eq (ref_len % fsize, 0);
  ck_assert_uint_eq (ref_len, dis_len);
  const unsigned n_frames = ref_len / fsize;

  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (e);
  setup_engine (e, set, &info);
  for (unsigned i = 0; i < n_frames; i++) {
    VhPicture ref, dis;
    vh_raw_picture (fmt, ref_data + i * fsize, clip->width, clip->height, &ref);
    vh_raw_picture (fmt, dis_data + i * fsize, clip->width, clip->height, &dis);
    ck_assert_msg (vh_engine_push (e, &ref, &dis, &error), "%s frame %u: %s",
        clip->name, i, error ? error->message : "?");
    /* motion: a frame is final once the next one is in (the next two with
     * the five-frame window of the v1 hfr set) */
    const unsigned lookahead = set >= SET_V1_FEATURES ? 2 : 1;
    ck_assert_uint_eq (vh_engine_n_final (e), i + 1 > lookahead ?
        i + 1 - lookahead : 0);
  }
  ck_assert (vh_engine_flush (e, &error));
  ck_assert_uint_eq (vh_engine_n_final (e), n_frames);

  /* Golden file */
  char *golden_path = g_strdup_printf ("%s/golden/%s.%s.json", testdata,
      clip->name, set >= SET_V1_FEATURES ? "v1" : "v0");
  JsonParser *parser = json_parser_new ();
  ck_assert_msg (json_parser_load_from_file (parser, golden_path, &error),
      "%s: %s", golden_path, error ? error->message : "?");
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonArray *frames = json_object_get_array_member (root, "frames");
  ck_assert_uint_eq (json_array_get_length (frames), n_frames);

  const VhScoreTable *t = vh_engine_scores (e);
  unsigned compared = 0;
  double worst = 0.0;
  const char *worst_name = "";
  for (unsigned i = 0; i < n_frames; i++) {
    JsonObject *fr = json_array_get_object_element (frames, i);
    ck_assert_uint_eq (json_object_get_int_member (fr, "frameNum"), i);
    JsonObject *metrics = json_object_get_object_member (fr, "metrics");
    GList *names = json_object_get_members (metrics);
    for (GList *l = names; l; l = l->next) {
      const char *name = l->data;
      if (!compared_in (name, set))
        continue;
      int m = vh_score_table_find (t, name);
      double ours, gold = json_object_get_double_member (metrics, name);
      ck_assert_msg (m >= 0, "%s: metric %s missing", clip->name, name);
      ck_assert_msg (vh_score_table_get (t, m, i, &ours),
          "%s frame %u: no %s", clip->name, i, name);
      const double diff = fabs (ours - gold);
      ck_assert_msg (diff <= tolerance_of (name),
          "%s frame %u %s: ours %.9f, libvmaf %.6f (diff %.3g)", clip->name,
          i, name, ours, gold, diff);
      if (diff > worst) {
        worst = diff;
        worst_name = name;
      }
      compared++;
    }
    g_list_free (names);
  }

  JsonObject *pooled = json_object_get_object_member (root, "pooled_metrics");
  GList *names = json_object_get_members (pooled);
  for (GList *l = names; l; l = l->next) {
    const char *name = l->data;
    static const char *const methods[] = { "min", "max", "mean",
        "harmonic_mean" };
    static const VhPoolMethod pm[] = { VH_POOL_MIN, VH_POOL_MAX, VH_POOL_MEAN,
        VH_POOL_HARMONIC_MEAN };
    VhPooled p;
    if (!compared_in (name, set))
      continue;
    ck_assert (vh_score_table_pool (t, vh_score_table_find (t, name), 0,
            n_frames - 1, 1, &p));
    JsonObject *g = json_object_get_object_member (pooled, name);
    for (gsize k = 0; k < G_N_ELEMENTS (methods); k++) {
      const double gold = json_object_get_double_member (g, methods[k]);
      const double ours = vh_pooled_get (&p, pm[k]);
      ck_assert_msg (fabs (ours - gold) <= tolerance_of (name),
          "%s pooled %s %s: ours %.9f, libvmaf %.6f", clip->name, name,
          methods[k], ours, gold);
      compared++;
    }
  }
  g_list_free (names);
  /* three model scores a frame, pooled four ways */
  ck_assert_uint_gt (compared, set >= SET_V1_MODELS ? n_frames * 3
      : n_frames * 10);
  fprintf (stderr, "%s (%s): %u values match libvmaf; worst |diff| %.2g (%s)\n",
      clip->name, set == SET_V0_BUILTIN ? "v0 built-in models" :
      set == SET_V0_FILES ? "v0 model files" : set == SET_V1_FEATURES
      ? "v1 features" : set == SET_V1_MODELS ? "v1.0.16 model files"
      : "v1.0.16 built-in models",
      compared, worst, worst_name);

  g_object_unref (parser);
  g_free (golden_path);
  vh_engine_free (e);
  g_free (ref_data);
  g_free (dis_data);
  if (ref_tmp)
    unlink (ref_path);
  if (dis_tmp)
    unlink (dis_path);
  g_free (ref_path);
  g_free (dis_path);
}

START_TEST (test_golden_v0_builtin)
{
  compare_clip (&clips[_i], SET_V0_BUILTIN);
}
END_TEST

/* registered only with the shared model files */
START_TEST (test_golden_v0_model_files)
{
  compare_clip (&clips[_i], SET_V0_FILES);
}
END_TEST

/* registered only for the clips that have libvmaf's v1 log */
START_TEST (test_golden_v1_features)
{
  compare_clip (&clips[_i], SET_V1_FEATURES);
}
END_TEST

/* registered only with the shared v1.0.16 model files, for the clips that
 * have a v1 log */
START_TEST (test_golden_v1_model_files)
{
  compare_clip (&clips[_i], SET_V1_MODELS);
}
END_TEST

/* every clip with a v1 log: needs no model files */
START_TEST (test_golden_v1_builtin)
{
  compare_clip (&clips[_i], SET_V1_BUILTIN);
}
END_TEST

static gboolean
have_v1_model_files (void)
{
  for (gsize i = 0; models_dir && i < G_N_ELEMENTS (v1_models); i++) {
    char *path = g_build_filename (models_dir, v1_models[i].file, NULL);
    const gboolean found = g_file_test (path, G_FILE_TEST_EXISTS);
    g_free (path);
    if (!found)
      return FALSE;
  }
  return models_dir != NULL;
}

/* VMAFHIP_GOLDEN_CLIPS (comma-separated clip names): only these, the others
 * announced as left out (the emulated Arm run keeps to the small clips) */
static gboolean
clip_selected (const Clip *clip)
{
  const char *list = g_getenv ("VMAFHIP_GOLDEN_CLIPS");
  if (!list || !*list)
    return TRUE;
  char **names = g_strsplit (list, ",", -1);
  const gboolean in = g_strv_contains ((const char *const *) names,
      clip->name);
  g_strfreev (names);
  if (!in)
    fprintf (stderr, "test-golden: clip %s LEFT OUT (not in "
        "VMAFHIP_GOLDEN_CLIPS)\n", clip->name);
  return in;
}

static Suite *
golden_suite (void)
{
  Suite *s = suite_create ("golden");
  TCase *tc = tcase_create ("libvmaf-3.2.0");
  tcase_set_timeout (tc, 600);
  const gboolean v1_files = have_v1_model_files ();
  if (!models_dir)
    vh_test_skip_case ("test_golden_v0_model_files", "no shared models");
  if (!v1_files)
    vh_test_skip_case ("test_golden_v1_model_files", "no shared v1.0.16 "
        "model files");
  for (gsize i = 0; i < G_N_ELEMENTS (clips); i++) {
    if (!clip_selected (&clips[i]))
      continue;
    tcase_add_loop_test (tc, test_golden_v0_builtin, (int) i, (int) i + 1);
    if (models_dir)
      tcase_add_loop_test (tc, test_golden_v0_model_files, (int) i,
          (int) i + 1);
    if (clips[i].has_v1 && v1_files)
      tcase_add_loop_test (tc, test_golden_v1_model_files, (int) i,
          (int) i + 1);
    if (clips[i].has_v1) {
      tcase_add_loop_test (tc, test_golden_v1_features, (int) i, (int) i + 1);
      tcase_add_loop_test (tc, test_golden_v1_builtin, (int) i, (int) i + 1);
    }
    else
      fprintf (stderr, "test_golden_v1_features: clip %s has no v1 log: "
          "not registered\n", clips[i].name);
  }
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  /* VMAFHIP_CPU_SIMD: golden-plain-c and golden-avx2 cap the SIMD here */
  vh_tool_config ();
  testdata = vh_test_testdata_dir ();
  if (!testdata)
    return VH_TEST_SKIP;
  models_dir = vh_test_models_dir ();
  SRunner *sr = srunner_create (golden_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
