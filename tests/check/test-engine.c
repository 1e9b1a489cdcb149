/* vmafhip — engine tests on content the project makes itself (runs on any
 * fresh clone): bad input, streaming contract, bit-depth/layout invariance,
 * models (pooling and the log writers: test-engine-logs.c). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <json-glib/json-glib.h>

#include "vh-engine.h"
#include "vh-engine-test-util.h"
#include "vh-synth.h"

/* ---- bad input ---------------------------------------------------------- */

START_TEST (test_bad_video_info)
{
  GError *error = NULL;
  VhVideoInfo zero = { 0, 1080, 8 }, bpc9 = { 64, 64, 9 }, bpc16 = { 64, 64, 16 };
  ck_assert (!vh_engine_new (NULL, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "no video info");
  g_clear_error (&error);
  ck_assert (!vh_engine_new (&zero, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "0x1080");
  g_clear_error (&error);
  ck_assert (!vh_engine_new (&bpc9, &error));
  assert_error (error, VH_ERROR_UNSUPPORTED, "bit depth 9");
  g_clear_error (&error);
  ck_assert (!vh_engine_new (&bpc16, &error));
  assert_error (error, VH_ERROR_UNSUPPORTED, "bit depth 16");
  g_clear_error (&error);
}
END_TEST

/* float_ssim needs one 11x11 window after Wang's down-sampling: 10x10 is
 * refused naming the metric; 11x11 and a 600x600 picture (down-sampled by
 * 2 to 300x300) are taken. */
START_TEST (test_ssim_sizes)
{
  GError *error = NULL;
  const VhVideoInfo tiny = { 10, 10, 8 }, least = { 11, 11, 8 },
      big = { 600, 600, 10 };
  VhEngine *e = vh_engine_new (&tiny, &error);
  ck_assert (e);
  ck_assert (!vh_engine_add_feature (e, "float_ssim", &error));
  assert_error (error, VH_ERROR_TOO_SMALL, "float_ssim");
  ck_assert (strstr (error->message, "10x10"));
  g_clear_error (&error);
  vh_engine_free (e);
  e = vh_engine_new (&least, &error);
  ck_assert (vh_engine_add_feature (e, "float_ssim", &error));
  vh_engine_free (e);
  e = vh_engine_new (&big, &error);
  ck_assert (vh_engine_add_feature (e, "float_ssim", &error));
  vh_engine_free (e);
}
END_TEST

/* ciede reads chroma: 4:2:2 and luma-only pictures are refused with the
 * reason; 4:2:0 and 4:4:4 give a score. */
START_TEST (test_ciede_layouts)
{
  static const struct {
    VhSynthChroma chroma;
    gboolean luma_only;
    const char *error;
  } cases[] = {
    {VH_SYNTH_420, FALSE, NULL}, {VH_SYNTH_444, FALSE, NULL},
    {VH_SYNTH_422, FALSE, "4:2:2"}, {VH_SYNTH_420, TRUE, "needs chroma"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++) {
    GError *error = NULL;
    const VhVideoInfo info = { 64, 48, 8 };
    VhEngine *e = vh_engine_new (&info, &error);
    VhSynth *synth = vh_synth_new (64, 48, 8, cases[i].chroma, 3);
    VhPicture r, d;
    ck_assert (vh_engine_add_feature (e, "ciede", &error));
    vh_synth_render (synth, 0, 3, &r, &d);
    if (cases[i].luma_only)
      r.nplanes = d.nplanes = 1;
    const gboolean ok = vh_engine_push (e, &r, &d, &error);
    if (cases[i].error) {
      ck_assert (!ok);
      ck_assert_msg (strstr (error->message, "ciede")
          && strstr (error->message, cases[i].error), "%s", error->message);
      g_clear_error (&error);
    } else {
      ck_assert_msg (ok, "%s", error ? error->message : "?");
    }
    vh_synth_free (synth);
    vh_engine_free (e);
  }
}
END_TEST

START_TEST (test_too_small)
{
  GError *error = NULL;
  VhVideoInfo tiny = { 16, 16, 8 };
  VhEngine *e = vh_engine_new (&tiny, &error);
  ck_assert (e);
  ck_assert (!vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  assert_error (error, VH_ERROR_TOO_SMALL, "16x16");
  g_clear_error (&error);
  vh_engine_free (e);
}
END_TEST

START_TEST (test_mismatched_pictures)
{
  GError *error = NULL;
  VhVideoInfo info = { 64, 48, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  VhSynth *s = vh_synth_new (64, 48, 8, VH_SYNTH_420, 1);
  VhSynth *s2 = vh_synth_new (64, 40, 8, VH_SYNTH_420, 1);
  VhSynth *s10 = vh_synth_new (64, 48, 10, VH_SYNTH_420, 1);
  VhPicture ref, dis, other_ref, other_dis;

  vh_synth_render (s, 0, 2, &ref, &dis);
  vh_synth_render (s2, 0, 2, &other_ref, &other_dis);
  ck_assert (!vh_engine_push (e, &ref, &other_dis, &error));
  assert_error (error, VH_ERROR_SIZE_MISMATCH, "distorted picture is 64x40");
  g_clear_error (&error);

  vh_synth_render (s10, 0, 2, &other_ref, &other_dis);
  ck_assert (!vh_engine_push (e, &other_ref, &dis, &error));
  assert_error (error, VH_ERROR_SIZE_MISMATCH, "bit depth 10");
  g_clear_error (&error);

  ck_assert (!vh_engine_push (e, NULL, &dis, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "no reference picture");
  g_clear_error (&error);

  VhPicture broken = ref;
  broken.plane[0].data = NULL;
  ck_assert (!vh_engine_push (e, &broken, &dis, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "plane 0");
  g_clear_error (&error);

  broken = ref;
  broken.plane[0].stride = 10;
  ck_assert (!vh_engine_push (e, &broken, &dis, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "stride");
  g_clear_error (&error);

  /* nothing was scored by the failed pushes */
  ck_assert_uint_eq (vh_engine_n_pushed (e), 0);
  ck_assert (vh_engine_push (e, &ref, &dis, &error));
  ck_assert (vh_engine_flush (e, &error));
  ck_assert (!vh_engine_push (e, &ref, &dis, &error));
  assert_error (error, VH_ERROR_STATE, "after the end");
  g_clear_error (&error);

  vh_synth_free (s);
  vh_synth_free (s2);
  vh_synth_free (s10);
  vh_engine_free (e);
}
END_TEST

START_TEST (test_no_model)
{
  GError *error = NULL;
  VhVideoInfo info = { 64, 48, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  VhSynth *s = vh_synth_new (64, 48, 8, VH_SYNTH_420, 1);
  VhPicture ref, dis;
  vh_synth_render (s, 0, 2, &ref, &dis);
  ck_assert (!vh_engine_push (e, &ref, &dis, &error));
  assert_error (error, VH_ERROR_STATE, "no model");
  g_clear_error (&error);
  ck_assert (!vh_engine_add_feature (e, "ssim", &error));
  assert_error (error, VH_ERROR_UNSUPPORTED, "ssim");
  g_clear_error (&error);
  vh_synth_free (s);
  vh_engine_free (e);
}
END_TEST

START_TEST (test_unknown_model)
{
  GError *error = NULL;
  VhVideoInfo info = { 64, 48, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (!vh_engine_add_model (e, "vmaf_v9.9", NULL, NULL, &error));
  assert_error (error, VH_ERROR_MODEL, "vmaf_v9.9");
  /* the message lists what exists */
  ck_assert (strstr (error->message, "vmaf_v0.6.1"));
  g_clear_error (&error);
  vh_engine_free (e);
}
END_TEST

static char *
write_temp (const char *contents)
{
  char *path = NULL;
  int fd = g_file_open_tmp ("vmafhip-model-XXXXXX.json", &path, NULL);
  ck_assert (fd >= 0);
  close (fd);
  ck_assert (g_file_set_contents (path, contents, -1, NULL));
  return path;
}

/* A complete small model in libvmaf's format, written by the test. */
#define TINY_MODEL(FEATURE, OPTS) \
  "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\", \"norm_type\": " \
  "\"linear_rescale\", \"score_clip\": [0.0, 100.0], " \
  "\"feature_names\": [\"" FEATURE "\"], " \
  "\"feature_opts_dicts\": [" OPTS "], " \
  "\"slopes\": [0.01, 1.0], \"intercepts\": [-0.01, 0.0], " \
  "\"model\": \"svm_type nu_svr\\nkernel_type rbf\\ngamma 0.5\\nnr_class 2\\n" \
  "total_sv 2\\nrho -0.5\\nSV\\n0.25 1:0.2 \\n-0.125 1:0.9 \\n\"}}"

START_TEST (test_model_needs_missing_feature)
{
  GError *error = NULL;
  VhVideoInfo info = { 320, 240, 10 };
  VhEngine *e = vh_engine_new (&info, &error);
  /* libvmaf's float VIF: known, not implemented */
  char *path = write_temp (TINY_MODEL ("VMAF_feature_vif_scale0_score",
          "{}"));
  ck_assert (!vh_engine_add_model (e, path, NULL, NULL, &error));
  assert_error (error, VH_ERROR_UNSUPPORTED, "vif_scale0");
  ck_assert (strstr (error->message, "not implement"));
  g_clear_error (&error);
  unlink (path);
  g_free (path);

  path = write_temp (TINY_MODEL ("VMAF_integer_feature_adm2_score",
          "{\"adm_enhn_gain_limit\": 0.5}"));
  ck_assert (!vh_engine_add_model (e, path, NULL, NULL, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "adm_enhn_gain_limit");
  g_clear_error (&error);
  unlink (path);
  g_free (path);

  path = write_temp (TINY_MODEL ("VMAF_integer_feature_adm2_score",
          "{\"adm_csf_mode\": 1}"));
  ck_assert (!vh_engine_add_model (e, path, NULL, NULL, &error));
  assert_error (error, VH_ERROR_UNSUPPORTED, "csf");
  g_clear_error (&error);
  unlink (path);
  g_free (path);
  vh_engine_free (e);
}
END_TEST

START_TEST (test_bad_model_files)
{
  GError *error = NULL;
  const char *const broken[] = {
    "",                                        /* empty */
    "{\"model_dict\": {\"model_type\": \"LIBSV",  /* truncated */
    "[1, 2, 3]",                               /* not an object */
    "{\"model_dict\": {\"model_type\": \"LIBSVMNUSVR\"}}",  /* keys missing */
  };
  for (gsize i = 0; i < G_N_ELEMENTS (broken); i++) {
    char *path = write_temp (broken[i]);
    VhModel *m = vh_model_load (path, &error);
    ck_assert_msg (!m, "accepted broken model %zu", i);
    assert_error (error, VH_ERROR_MODEL, path);
    g_clear_error (&error);
    unlink (path);
    g_free (path);
  }
  ck_assert (!vh_model_load ("/nonexistent/dir/model.json", &error));
  ck_assert (error && strstr (error->message, "/nonexistent/dir/model.json"));
  g_clear_error (&error);
}
END_TEST

START_TEST (test_tiny_model_predicts)
{
  /* The model written above, by hand: x' = 0.01·x − 0.01 (no, slopes[1]=1,
   * intercepts[1]=0 → x' = x); y' = 0.25·e^(−0.5(x−0.2)²) − 0.125·e^(−0.5(x−0.9)²)
   * + 0.5; score = (y' + 0.01) / 0.01, clipped to [0, 100]. */
  GError *error = NULL;
  char *path = write_temp (TINY_MODEL ("VMAF_integer_feature_adm2_score", "{}"));
  VhModel *m = vh_model_load (path, &error);
  ck_assert_msg (m, "%s", error ? error->message : "?");
  ck_assert_uint_eq (vh_model_n_features (m), 1);
  VhModelScore s;
  const double x = 0.5;
  const double y = 0.25 * exp (-0.5 * 0.09) - 0.125 * exp (-0.5 * 0.16) + 0.5;
  VhModelFlags noclip = { .disable_clip = true };
  vh_model_predict (m, &x, &noclip, &s);
  ck_assert_double_eq_tol (s.score, (y + 0.01) / 0.01, 1e-9);
  vh_model_predict (m, &x, NULL, &s);
  ck_assert_double_eq_tol (s.score, MIN ((y + 0.01) / 0.01, 100.0), 1e-9);
  ck_assert_uint_eq (s.n_bootstrap, 0);
  vh_model_free (m);
  unlink (path);
  g_free (path);
}
END_TEST

/* ---- behaviour on synthetic content ------------------------------------- */

START_TEST (test_identical_pictures)
{
  /* strength 0: distorted == reference (no blur, no noise, q = 1 LSB) */
  VhEngine *e = score_synthetic (176, 144, 8, 3, 0, "vmaf_v0.6.1", "psnr");
  for (unsigned i = 0; i < 3; i++) {
    for (int s = 0; s < 4; s++) {
      char name[32];
      g_snprintf (name, sizeof name, "integer_vif_scale%d", s);
      ck_assert_double_eq_tol (score_of (e, name, i), 1.0, 1e-6);
    }
    /* libvmaf's ADM of identical pictures is 1 up to its noise terms */
    ck_assert_double_eq_tol (score_of (e, "integer_adm2", i), 1.0, 1e-4);
    ck_assert_double_eq_tol (score_of (e, "psnr_y", i), 60.0, 1e-9);
    ck_assert (score_of (e, "vmaf", i) > 95.0);
  }
  vh_engine_free (e);
}
END_TEST

START_TEST (test_distortion_lowers_score)
{
  double last = 101.0;
  for (unsigned strength = 1; strength <= 7; strength += 3) {
    VhEngine *e = score_synthetic (176, 144, 8, 4, strength, "vmaf_v0.6.1",
        NULL);
    const double v = pooled_mean (e, "vmaf");
    ck_assert_msg (v < last, "strength %u: vmaf %f not below %f", strength, v,
        last);
    ck_assert (v >= 0.0 && v <= 100.0);
    last = v;
    vh_engine_free (e);
  }
}
END_TEST

START_TEST (test_streaming_finality)
{
  GError *error = NULL;
  VhVideoInfo info = { 96, 64, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  VhSynth *s = vh_synth_new (96, 64, 8, VH_SYNTH_420, 3);
  const VhScoreTable *t = vh_engine_scores (e);
  for (unsigned i = 0; i < 5; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, 3, &ref, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
    /* motion2 of frame i needs frame i+1: one frame of lookahead */
    ck_assert_uint_eq (vh_engine_n_final (e), i);
    if (i > 0) {
      int m = vh_score_table_find (t, "vmaf_v0.6.1");
      ck_assert (m >= 0 && vh_score_table_get (t, m, i - 1, NULL));
      ck_assert (!vh_score_table_get (t, m, i, NULL));
    }
  }
  ck_assert (vh_engine_flush (e, &error));
  ck_assert_uint_eq (vh_engine_n_final (e), 5);
  ck_assert (vh_engine_is_flushed (e));

  /* the scores of a restarted stream equal the first run's */
  double first = score_of (e, "vmaf_v0.6.1", 2);
  vh_engine_reset (e);
  ck_assert_uint_eq (vh_engine_n_final (e), 0);
  ck_assert_uint_eq (vh_score_table_n_frames (t), 0);
  for (unsigned i = 0; i < 5; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, 3, &ref, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
  }
  ck_assert (vh_engine_flush (e, &error));
  ck_assert (score_of (e, "vmaf_v0.6.1", 2) == first);
  vh_synth_free (s);
  vh_engine_free (e);
}
END_TEST

START_TEST (test_single_frame)
{
  VhEngine *e = score_synthetic (96, 64, 8, 1, 3, "vmaf_v0.6.1", NULL);
  ck_assert_uint_eq (vh_engine_n_final (e), 1);
  ck_assert_double_eq (score_of (e, "integer_motion2", 0), 0.0);
  vh_engine_free (e);
}
END_TEST

/* 10- and 12-bit content that is 8-bit content shifted left gives the same
 * VMAF features: libvmaf's pipelines normalise to the 8-bit scale. */
START_TEST (test_bit_depth_invariance)
{
  const unsigned w = 200, h = 120, n = 3;
  GError *error = NULL;
  VhSynth *s = vh_synth_new (w, h, 8, VH_SYNTH_420, 9);
  VhEngine *e[3];
  const unsigned depth[3] = { 8, 10, 12 };
  guint16 *wide[2][3];
  for (int d = 0; d < 3; d++) {
    VhVideoInfo info = { w, h, depth[d] };
    e[d] = vh_engine_new (&info, &error);
    ck_assert (vh_engine_add_model (e[d], "vmaf_v0.6.1", "vmaf", NULL, &error));
  }
  for (int k = 0; k < 2; k++)
    for (int p = 0; p < 3; p++)
      wide[k][p] = g_new (guint16, (size_t) w * h);
  for (unsigned i = 0; i < n; i++) {
    VhPicture pic[2];
    vh_synth_render (s, i, 4, &pic[0], &pic[1]);
    ck_assert (vh_engine_push (e[0], &pic[0], &pic[1], &error));
    for (int d = 1; d < 3; d++) {
      VhPicture hp[2];
      for (int k = 0; k < 2; k++) {
        hp[k] = pic[k];
        hp[k].bpc = depth[d];
        for (int p = 0; p < 3; p++) {
          const VhPlane *src = &pic[k].plane[p];
          for (unsigned y = 0; y < src->height; y++)
            for (unsigned x = 0; x < src->width; x++)
              wide[k][p][y * src->width + x] = (guint16)
                  (((const guint8 *) src->data)[y * src->stride + x] << (depth[d] - 8));
          hp[k].plane[p].data = wide[k][p];
          hp[k].plane[p].stride = src->width * 2;
        }
      }
      ck_assert (vh_engine_push (e[d], &hp[0], &hp[1], &error));
    }
  }
  static const char *const names[] = { "integer_vif_scale0",
    "integer_vif_scale3", "integer_adm2", "integer_adm_scale0",
    "VMAF_integer_feature_motion_sad_score", "integer_motion2", "vmaf" };
  for (int d = 0; d < 3; d++)
    ck_assert (vh_engine_flush (e[d], &error));
  for (unsigned i = 0; i < n; i++)
    for (gsize k = 0; k < G_N_ELEMENTS (names); k++)
      for (int d = 1; d < 3; d++)
        ck_assert_msg (score_of (e[d], names[k], i) == score_of (e[0],
                names[k], i), "%s frame %u differs at %u bits", names[k], i,
            depth[d]);
  /* and the content is not trivial */
  ck_assert (score_of (e[0], "integer_motion2", 1) > 0.1);
  ck_assert (score_of (e[0], "integer_vif_scale0", 0) < 0.95);
  for (int d = 0; d < 3; d++)
    vh_engine_free (e[d]);
  for (int k = 0; k < 2; k++)
    for (int p = 0; p < 3; p++)
      g_free (wide[k][p]);
  vh_synth_free (s);
}
END_TEST

/* NV12-style interleaved chroma and padded strides give the same scores as
 * packed planar data. */
START_TEST (test_layouts)
{
  const unsigned w = 96, h = 64;
  GError *error = NULL;
  VhVideoInfo info = { w, h, 8 };
  VhSynth *s = vh_synth_new (w, h, 8, VH_SYNTH_420, 5);
  VhEngine *planar = vh_engine_new (&info, &error);
  VhEngine *semi = vh_engine_new (&info, &error);
  ck_assert (vh_engine_add_model (planar, "vmaf_v0.6.1", "vmaf", NULL, &error));
  ck_assert (vh_engine_add_feature (planar, "psnr", &error));
  ck_assert (vh_engine_add_model (semi, "vmaf_v0.6.1", "vmaf", NULL, &error));
  ck_assert (vh_engine_add_feature (semi, "psnr", &error));
  const size_t pad = 32, stride = w + pad;
  guint8 *buf[2];
  for (int k = 0; k < 2; k++)
    buf[k] = g_malloc0 (stride * h + stride * (h / 2));
  for (unsigned i = 0; i < 2; i++) {
    VhPicture pic[2], nv[2];
    vh_synth_render (s, i, 3, &pic[0], &pic[1]);
    ck_assert (vh_engine_push (planar, &pic[0], &pic[1], &error));
    for (int k = 0; k < 2; k++) {
      guint8 *y = buf[k], *uv = buf[k] + stride * h;
      for (unsigned r = 0; r < h; r++)
        memcpy (y + r * stride, (const guint8 *) pic[k].plane[0].data + r * w, w);
      for (unsigned r = 0; r < h / 2; r++)
        for (unsigned c = 0; c < w / 2; c++) {
          uv[r * stride + 2 * c] = ((const guint8 *) pic[k].plane[1].data)[r * (w / 2) + c];
          uv[r * stride + 2 * c + 1] = ((const guint8 *) pic[k].plane[2].data)[r * (w / 2) + c];
        }
      nv[k] = (VhPicture) { .nplanes = 3, .bpc = 8 };
      nv[k].plane[0] = (VhPlane) { y, (ptrdiff_t) stride, w, h, 1 };
      nv[k].plane[1] = (VhPlane) { uv, (ptrdiff_t) stride, w / 2, h / 2, 2 };
      nv[k].plane[2] = (VhPlane) { uv + 1, (ptrdiff_t) stride, w / 2, h / 2, 2 };
    }
    ck_assert (vh_engine_push (semi, &nv[0], &nv[1], &error));
  }
  ck_assert (vh_engine_flush (planar, &error));
  ck_assert (vh_engine_flush (semi, &error));
  static const char *const names[] = { "vmaf", "psnr_y", "psnr_cb", "psnr_cr",
    "integer_adm2", "integer_vif_scale0" };
  for (unsigned i = 0; i < 2; i++)
    for (gsize k = 0; k < G_N_ELEMENTS (names); k++)
      ck_assert (score_of (planar, names[k], i) == score_of (semi, names[k], i));
  ck_assert (score_of (planar, "psnr_cb", 0) != score_of (planar, "psnr_y", 0));
  g_free (buf[0]);
  g_free (buf[1]);
  vh_engine_free (planar);
  vh_engine_free (semi);
  vh_synth_free (s);
}
END_TEST

START_TEST (test_shared_feature_instances)
{
  /* NEG options produce their own, suffixed feature names */
  GError *error = NULL;
  VhVideoInfo info = { 128, 96, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", "vmaf", NULL, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_4k_v0.6.1", "vmaf_4k", NULL, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1neg", "vmaf_neg", NULL, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_b_v0.6.3", "vmaf_b", NULL, &error));
  VhSynth *s = vh_synth_new (128, 96, 8, VH_SYNTH_420, 4);
  for (unsigned i = 0; i < 3; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, 5, &ref, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
  }
  ck_assert (vh_engine_flush (e, &error));
  const VhScoreTable *t = vh_engine_scores (e);
  ck_assert (vh_score_table_find (t, "integer_vif_scale0_egl_1") >= 0);
  ck_assert (vh_score_table_find (t, "integer_adm2_egl_1") >= 0);
  ck_assert (vh_score_table_find (t, "integer_motion2_egl_1") < 0);
  ck_assert (vh_engine_model_is_bootstrap (e, 3));
  for (unsigned i = 0; i < 3; i++) {
    const double lo = score_of (e, "vmaf_b_ci_p95_lo", i);
    const double hi = score_of (e, "vmaf_b_ci_p95_hi", i);
    const double bag = score_of (e, "vmaf_b_bagging", i);
    ck_assert (lo <= bag && bag <= hi);
    ck_assert (score_of (e, "vmaf_b_stddev", i) > 0.0);
    ck_assert (vh_score_table_find (t, "vmaf_b_0020") >= 0);
    ck_assert (score_of (e, "integer_vif_scale0_egl_1", i) <=
        score_of (e, "integer_vif_scale0", i));
  }
  vh_synth_free (s);
  vh_engine_free (e);
}
END_TEST

/* vif=debug=true: libvmaf 3.2.0's extra outputs (integer_vif.c's
 * write_scores), after the four scale scores and in its order: the
 * totals integer_vif, integer_vif_num, integer_vif_den, then num and den
 * per scale. Per scale, num and den are floats and the score is their
 * quotient in float; the totals sum them in double, scale 0 left out
 * with vif_skip_scale0, which then reports num 0 and den -1. The scale
 * scores equal a plain vif's, and a plain vif has no debug keys; debug is
 * no feature parameter (no suffix of its own), the others suffix every
 * key. With and without worker threads alike. */
static VhEngine *
vif_engine (const VhModelOpt *opts, unsigned n_opts, unsigned threads,
    unsigned n)
{
  GError *error = NULL;
  VhVideoInfo info = { 120, 72, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (e);
  ck_assert_msg (vh_engine_add_feature_with_options (e, "vif", opts, n_opts,
          &error), "%s", error ? error->message : "?");
  ck_assert (vh_engine_set_threads (e, threads, &error));
  push_synthetic (e, 120, 72, 8, 35, n, 1, 2);
  return e;
}

static double
suffixed (VhEngine *e, const char *key, const char *suffix, unsigned frame)
{
  char *name = g_strconcat (key, suffix, NULL);
  const double v = score_of (e, name, frame);
  g_free (name);
  return v;
}

START_TEST (test_vif_debug)
{
  static const char *const order[] = {
    "integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
    "integer_vif_scale3", "integer_vif", "integer_vif_num",
    "integer_vif_den", "integer_vif_num_scale0", "integer_vif_den_scale0",
    "integer_vif_num_scale1", "integer_vif_den_scale1",
    "integer_vif_num_scale2", "integer_vif_den_scale2",
    "integer_vif_num_scale3", "integer_vif_den_scale3",
  };
  static const struct {
    const char *suffix;
    VhModelOpt extra;       /* key NULL: none */
  } variants[] = {
    { "", { NULL, VH_OPTVAL_BOOL, 0, false, NULL } },
    { "_ssclz", { "vif_skip_scale0", VH_OPTVAL_BOOL, 0, true, NULL } },
    { "_egl_1", { "vif_enhn_gain_limit", VH_OPTVAL_NUMBER, 1.0, 0, NULL } },
  };
  const unsigned n = 4;

  for (unsigned v = 0; v < G_N_ELEMENTS (variants); v++) {
    const gboolean skip = v == 1;
    VhModelOpt opts[2] = {
      { "debug", VH_OPTVAL_BOOL, 0, true, NULL }, variants[v].extra,
    };
    const unsigned n_opts = variants[v].extra.key ? 2 : 1;
    VhEngine *plain = vif_engine (opts + 1, n_opts - 1, 1, n);
    const VhScoreTable *tp = vh_engine_scores (plain);
    ck_assert_uint_eq (vh_score_table_n_metrics (tp), 4);

    for (unsigned threads = 1; threads <= 3; threads += 2) {
      VhEngine *e = vif_engine (opts, n_opts, threads, n);
      const VhScoreTable *t = vh_engine_scores (e);
      char name[64];

      ck_assert_uint_eq (vh_score_table_n_metrics (t), G_N_ELEMENTS (order));
      for (unsigned m = 0; m < G_N_ELEMENTS (order); m++) {
        g_snprintf (name, sizeof name, "%s%s", order[m], variants[v].suffix);
        ck_assert_str_eq (vh_score_table_metric_name (t, m), name);
      }
#define GET(key, i) suffixed (e, (key), variants[v].suffix, (i))
      for (unsigned i = 0; i < n; i++) {
        double num = 0.0, den = 0.0;
        for (unsigned k = 0; k < 4; k++) {
          char key[64];
          g_snprintf (key, sizeof key, "integer_vif_num_scale%u", k);
          const double nk = GET (key, i);
          g_snprintf (key, sizeof key, "integer_vif_den_scale%u", k);
          const double dk = GET (key, i);
          g_snprintf (key, sizeof key, "integer_vif_scale%u", k);
          const double sk = GET (key, i);
          g_snprintf (name, sizeof name, "%s%s", key, variants[v].suffix);
          ck_assert_msg (sk == score_of (plain, name, i),
              "%s frame %u: %.17g, a plain vif's %.17g", name, i, sk,
              score_of (plain, name, i));
          if (skip && k == 0) {
            ck_assert (nk == 0.0 && dk == -1.0 && sk == 0.0);
            continue;
          }
          ck_assert (nk == (double) (float) nk && dk == (double) (float) dk);
          ck_assert (dk > 0.0 && nk > 0.0);
          ck_assert_msg (sk == (double) ((float) nk / (float) dk),
              "scale %u frame %u: %.17g, num/den %.17g", k, i, sk,
              (double) ((float) nk / (float) dk));
          num += nk;
          den += dk;
        }
        ck_assert (GET ("integer_vif_num", i) == num);
        ck_assert (GET ("integer_vif_den", i) == den);
        ck_assert (GET ("integer_vif", i) == num / den);
        ck_assert (num / den > 0.0 && num / den <= 1.0);
      }
#undef GET
      vh_engine_free (e);
    }
    vh_engine_free (plain);
  }
}
END_TEST

/* An engine configured before the picture size (as the element at start):
 * options checked and lookahead known at once, the size's checks when it
 * comes, and then the same scores as an engine made for that size. */
START_TEST (test_unsized_engine)
{
  const VhVideoInfo small = { 16, 16, 8 }, vi = { 64, 48, 8 };
  const VhModelOpt five[] = {
    {"motion_five_frame_window", VH_OPTVAL_BOOL, 0, true, NULL},
  };
  const VhModelOpt bad[] = { {"adm_csf_mode", VH_OPTVAL_NUMBER, 7, 0, NULL} };
  GError *error = NULL;
  VhEngine *u = vh_engine_new_unsized ();
  VhEngine *sized = vh_engine_new (&vi, &error);
  VhSynth *s = vh_synth_new (64, 48, 8, VH_SYNTH_420, 9);
  VhPicture r, d;

  ck_assert (vh_engine_add_model (u, "vmaf_v0.6.1", NULL, NULL, &error));
  ck_assert_uint_eq (vh_engine_lookahead (u), 1);
  ck_assert (vh_engine_add_feature_with_options (u, "motion", five, 1,
          &error));
  ck_assert_uint_eq (vh_engine_lookahead (u), 2);
  /* a bad option fails now, without a size */
  ck_assert (!vh_engine_add_feature_with_options (u, "adm", bad, 1, &error));
  g_clear_error (&error);
  vh_synth_render (s, 0, 3, &r, &d);
  ck_assert (!vh_engine_push (u, &r, &d, &error));
  assert_error (error, VH_ERROR_STATE, "picture size is not set");
  g_clear_error (&error);
  /* ADM's minimum size shows when the size comes */
  ck_assert (!vh_engine_set_video_info (u, &small, &error));
  ck_assert_msg (strstr (error->message, "adm") != NULL, "%s",
      error->message);
  g_clear_error (&error);
  vh_engine_free (u);

  u = vh_engine_new_unsized ();
  ck_assert (vh_engine_add_model (u, "vmaf_v0.6.1", NULL, NULL, &error));
  ck_assert (vh_engine_add_feature_with_options (u, "motion", five, 1,
          &error));
  ck_assert (vh_engine_set_video_info (u, &vi, &error));
  ck_assert (vh_engine_set_video_info (u, &vi, &error));
  ck_assert (!vh_engine_set_video_info (u, &small, &error));
  g_clear_error (&error);
  ck_assert (vh_engine_add_model (sized, "vmaf_v0.6.1", NULL, NULL, &error));
  ck_assert (vh_engine_add_feature_with_options (sized, "motion", five, 1,
          &error));
  for (unsigned i = 0; i < 4; i++) {
    vh_synth_render (s, i, 3, &r, &d);
    ck_assert (vh_engine_push (u, &r, &d, &error));
    ck_assert (vh_engine_push (sized, &r, &d, &error));
  }
  ck_assert (vh_engine_flush (u, &error) && vh_engine_flush (sized, &error));
  const VhScoreTable *tu = vh_engine_scores (u), *ts = vh_engine_scores (sized);
  ck_assert_uint_eq (vh_score_table_n_metrics (tu),
      vh_score_table_n_metrics (ts));
  for (unsigned m = 0; m < vh_score_table_n_metrics (ts); m++)
    for (unsigned i = 0; i < 4; i++) {
      double a, b;
      ck_assert (vh_score_table_get (ts, m, i, &a));
      ck_assert (vh_score_table_get (tu, (unsigned) vh_score_table_find (tu,
                  vh_score_table_metric_name (ts, m)), i, &b));
      ck_assert (a == b);
    }
  vh_synth_free (s);
  vh_engine_free (u);
  vh_engine_free (sized);
}
END_TEST

/* The engine says which metrics are model outputs and which are a
 * bootstrap model's details; it also carries them through a reset. */
START_TEST (test_metric_kinds)
{
  const VhVideoInfo vi = { 64, 48, 8 };
  GError *error = NULL;
  VhEngine *e = vh_engine_new (&vi, &error);
  VhSynth *s = vh_synth_new (64, 48, 8, VH_SYNTH_420, 3);
  unsigned models = 0, details = 0, features = 0;

  ck_assert (vh_engine_add_model (e, "vmaf_b_v0.6.3", "b", NULL, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  for (int round = 0; round < 2; round++) {
    for (unsigned i = 0; i < 3; i++) {
      VhPicture r, d;
      vh_synth_render (s, i, 3, &r, &d);
      ck_assert (vh_engine_push (e, &r, &d, &error));
    }
    ck_assert (vh_engine_flush (e, &error));
    const VhScoreTable *t = vh_engine_scores (e);
    models = details = features = 0;
    for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
      const char *name = vh_score_table_metric_name (t, m);
      switch (vh_engine_metric_kind (e, m)) {
        case VH_METRIC_MODEL:
          ck_assert (!strcmp (name, "b") || !strcmp (name, "vmaf_v0.6.1"));
          models++;
          break;
        case VH_METRIC_MODEL_BOOTSTRAP:
          ck_assert (g_str_has_prefix (name, "b_"));
          details++;
          break;
        default:
          ck_assert (g_str_has_prefix (name, "integer_")
              || g_str_has_prefix (name, "VMAF_integer"));
          features++;
          break;
      }
    }
    ck_assert_uint_eq (models, 2);
    /* 4 CI fields and the bootstrap members */
    ck_assert_uint_gt (details, 4);
    ck_assert_uint_gt (features, 0);
    vh_engine_reset (e);
  }
  vh_synth_free (s);
  vh_engine_free (e);
}
END_TEST

START_TEST (test_transform_and_clip)
{
  GError *error = NULL;
  VhVideoInfo info = { 128, 96, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  VhModelFlags phone = { .enable_transform = true };
  VhModelFlags noclip = { .disable_clip = true };
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", "plain", NULL, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", "phone", &phone, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", "noclip", &noclip, &error));
  VhSynth *s = vh_synth_new (128, 96, 8, VH_SYNTH_420, 4);
  for (unsigned i = 0; i < 3; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, 0, &ref, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
  }
  ck_assert (vh_engine_flush (e, &error));
  double max_raw = 0.0;
  for (unsigned i = 0; i < 3; i++) {
    const double plain = score_of (e, "plain", i);
    const double raw = score_of (e, "noclip", i);
    max_raw = MAX (max_raw, raw);
    ck_assert_double_eq (plain, CLAMP (raw, 0.0, 100.0));
    /* p0 + p1·y + p2·y² with out_gte_in, then clip */
    const double y = raw;
    const double tr = 1.70674692 + 1.72643844 * y - 0.00705305 * y * y;
    ck_assert_double_eq_tol (score_of (e, "phone", i),
        CLAMP (MAX (tr, y), 0.0, 100.0), 1e-9);
  }
  /* identical moving pictures: the unclipped SVR output exceeds 100 */
  ck_assert (max_raw > 100.0);
  vh_synth_free (s);
  vh_engine_free (e);
}
END_TEST

static Suite *
engine_suite (void)
{
  Suite *s = suite_create ("engine");
  TCase *bad = tcase_create ("bad-input");
  tcase_add_test (bad, test_bad_video_info);
  tcase_add_test (bad, test_too_small);
  tcase_add_test (bad, test_ssim_sizes);
  tcase_add_test (bad, test_ciede_layouts);
  tcase_add_test (bad, test_mismatched_pictures);
  tcase_add_test (bad, test_no_model);
  tcase_add_test (bad, test_unknown_model);
  tcase_add_test (bad, test_model_needs_missing_feature);
  tcase_add_test (bad, test_bad_model_files);
  suite_add_tcase (s, bad);

  TCase *beh = tcase_create ("behaviour");
  tcase_set_timeout (beh, 120);
  tcase_add_test (beh, test_tiny_model_predicts);
  tcase_add_test (beh, test_identical_pictures);
  tcase_add_test (beh, test_distortion_lowers_score);
  tcase_add_test (beh, test_streaming_finality);
  tcase_add_test (beh, test_single_frame);
  tcase_add_test (beh, test_bit_depth_invariance);
  tcase_add_test (beh, test_layouts);
  tcase_add_test (beh, test_shared_feature_instances);
  tcase_add_test (beh, test_vif_debug);
  tcase_add_test (beh, test_transform_and_clip);
  tcase_add_test (beh, test_metric_kinds);
  tcase_add_test (beh, test_unsized_engine);
  suite_add_tcase (s, beh);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (engine_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
