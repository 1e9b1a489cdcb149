/* vmafhip — the engine with worker threads (frames in flight,
 * common/core/frame-pool.c), on content the project makes itself: every score
 * of every frame equal to one thread's, frames final in order and never
 * lost or scored twice, reset and errors in the middle of a stream; and
 * VIF's and ADM's row bands: the same sums however a picture's rows are
 * split. */
#include <check.h>
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "vh-engine.h"
#include "vh-synth.h"
#include "vif.h"
#include "adm.h"
#include "vh-parallel.h"

#define W 256
#define H 192
#define FRAMES 23

static void
check_ok (gboolean ok, GError *error)
{
  ck_assert_msg (ok, "%s", error ? error->message : "failed");
}

/* vmaf_v0.6.1 (VIF, ADM, motion), motion with the five-frame window,
 * PSNR (chroma), SSIM, MS-SSIM and CAMBI: every kind of extractor */
static VhEngine *
engine_new (unsigned threads, unsigned bpc)
{
  GError *error = NULL;
  const VhVideoInfo info = { W, H, bpc };
  VhEngine *e = vh_engine_new (&info, &error);
  check_ok (e != NULL, error);
  check_ok (vh_engine_set_threads (e, threads, &error), error);
  check_ok (vh_engine_add_model (e, "vmaf_v0.6.1", "vmaf", NULL, &error),
      error);
  const VhModelOpt five = { "motion_five_frame_window", VH_OPTVAL_BOOL,
    0, true, NULL };
  check_ok (vh_engine_add_feature_with_options (e, "motion", &five, 1,
          &error), error);
  static const char *const features[] = { "psnr", "float_ssim",
    "float_ms_ssim", "cambi" };
  for (unsigned i = 0; i < G_N_ELEMENTS (features); i++)
    check_ok (vh_engine_add_feature (e, features[i], &error), error);
  return e;
}

static void
push_frames (VhEngine *e, VhSynth *s, unsigned first, unsigned n)
{
  GError *error = NULL;
  for (unsigned i = first; i < first + n; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, 4, &ref, &dis);
    check_ok (vh_engine_push (e, &ref, &dis, &error), error);
    /* final frames only ever in order, never ahead of the lookahead */
    const unsigned pushed = vh_engine_n_pushed (e);
    const unsigned ahead = vh_engine_lookahead (e);
    ck_assert_uint_le (vh_engine_n_final (e), pushed > ahead ? pushed - ahead
        : 0);
  }
}

static VhEngine *
score (unsigned threads, unsigned bpc)
{
  GError *error = NULL;
  VhEngine *e = engine_new (threads, bpc);
  VhSynth *s = vh_synth_new (W, H, bpc, VH_SYNTH_420, 7);
  push_frames (e, s, 0, FRAMES);
  check_ok (vh_engine_flush (e, &error), error);
  vh_synth_free (s);
  return e;
}

/* Every metric of every frame of b equal to a's (the same doubles). */
static void
assert_same_scores (VhEngine *a, VhEngine *b)
{
  const VhScoreTable *ta = vh_engine_scores (a), *tb = vh_engine_scores (b);
  ck_assert_uint_eq (vh_engine_n_final (a), FRAMES);
  ck_assert_uint_eq (vh_engine_n_final (b), FRAMES);
  ck_assert_uint_eq (vh_score_table_n_frames (tb), FRAMES);
  ck_assert_uint_eq (vh_score_table_n_metrics (ta),
      vh_score_table_n_metrics (tb));
  ck_assert_uint_ge (vh_score_table_n_metrics (ta), 20);
  for (unsigned m = 0; m < vh_score_table_n_metrics (ta); m++) {
    const char *name = vh_score_table_metric_name (ta, m);
    const int mb = vh_score_table_find (tb, name);
    ck_assert_msg (mb >= 0, "%s missing with threads", name);
    for (unsigned f = 0; f < FRAMES; f++) {
      double va = NAN, vb = NAN;
      ck_assert_msg (vh_score_table_get (ta, m, f, &va), "%s %u", name, f);
      ck_assert_msg (vh_score_table_get (tb, (unsigned) mb, f, &vb),
          "%s of frame %u missing with threads", name, f);
      ck_assert_msg (va == vb, "%s of frame %u: %.17g, with threads %.17g",
          name, f, va, vb);
    }
  }
}

START_TEST (test_same_scores)
{
  static const unsigned threads[] = { 2, 3, 8 };
  const unsigned bpc = _i ? 10 : 8;
  VhEngine *one = score (1, bpc);
  ck_assert_uint_eq (vh_engine_frames_in_flight (one), 0);
  for (unsigned k = 0; k < G_N_ELEMENTS (threads); k++) {
    VhEngine *many = score (threads[k], bpc);
    /* capped at the number of CPUs */
    const unsigned workers = MIN (threads[k], g_get_num_processors ());
    ck_assert_uint_eq (vh_engine_threads (many), workers);
    ck_assert_uint_eq (vh_engine_frames_in_flight (many), workers + 2);
    assert_same_scores (one, many);
    vh_engine_free (many);
  }
  vh_engine_free (one);
}
END_TEST

/* A flushing seek in the middle of a stream: frames in flight are
 * dropped, the stream starts again at frame 0 and scores as a fresh one. */
START_TEST (test_reset_mid_stream)
{
  GError *error = NULL;
  VhEngine *one = score (1, 8);
  VhEngine *e = engine_new (4, 8);
  VhSynth *s = vh_synth_new (W, H, 8, VH_SYNTH_420, 7);
  push_frames (e, s, 5, 9);      /* other frames, left in flight */
  vh_engine_reset (e);
  ck_assert_uint_eq (vh_engine_n_pushed (e), 0);
  ck_assert_uint_eq (vh_engine_n_final (e), 0);
  push_frames (e, s, 0, FRAMES);
  check_ok (vh_engine_flush (e, &error), error);
  assert_same_scores (one, e);
  vh_synth_free (s);
  vh_engine_free (e);
  vh_engine_free (one);
}
END_TEST

/* A frame refused with workers running (a 10-bit sample above 1023: the
 * engine's depth check, before any worker reads it) fails the push that
 * meets it, names the frame, and every later call: no score from that
 * frame on is reported. */
START_TEST (test_worker_error)
{
  GError *error = NULL;
  const VhVideoInfo info = { W, H, 10 };
  VhEngine *e = vh_engine_new (&info, &error);
  check_ok (vh_engine_set_threads (e, 3, &error), error);
  check_ok (vh_engine_add_feature (e, "cambi", &error), error);
  VhSynth *s = vh_synth_new (W, H, 10, VH_SYNTH_420, 7);
  gboolean ok = TRUE;
  unsigned i;
  for (i = 0; ok && i < 12; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, 4, &ref, &dis);
    if (i == 4)
      ((guint16 *) dis.plane[0].data)[W + 3] = 4000;
    ok = vh_engine_push (e, &ref, &dis, &error);
  }
  if (ok)
    ok = vh_engine_flush (e, &error);
  ck_assert_msg (!ok, "a sample above 10 bits was scored");
  ck_assert_msg (strstr (error->message, "frame 4")
      && strstr (error->message, "above 10 bits"), "%s", error->message);
  g_clear_error (&error);
  ck_assert_uint_le (vh_engine_n_final (e), 4);
  VhPicture ref, dis;
  vh_synth_render (s, i, 4, &ref, &dis);
  ck_assert (!vh_engine_push (e, &ref, &dis, &error));
  ck_assert_msg (strstr (error->message, "frame 4"), "%s", error->message);
  g_clear_error (&error);
  vh_synth_free (s);
  vh_engine_free (e);
}
END_TEST

/* Freed with frames still in flight (no flush): nothing leaks or hangs. */
START_TEST (test_free_in_flight)
{
  VhEngine *e = engine_new (3, 8);
  VhSynth *s = vh_synth_new (W, H, 8, VH_SYNTH_420, 7);
  push_frames (e, s, 0, 7);
  vh_engine_free (e);
  vh_synth_free (s);
}
END_TEST

/* CAMBI's heatmaps (heatmaps_path): one file per scale, named as
 * libvmaf's, each frame at its offset: byte for byte the same whether one
 * thread or several workers (each with its own CAMBI state) write them. */
static GBytes *
heatmap_files (unsigned threads, const char *dir, unsigned n)
{
  GError *error = NULL;
  const VhVideoInfo info = { W, H, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  check_ok (vh_engine_set_threads (e, threads, &error), error);
  const VhModelOpt path = { "heatmaps_path", VH_OPTVAL_STRING, 0, false,
    dir };
  check_ok (vh_engine_add_feature_with_options (e, "cambi", &path, 1,
          &error), error);
  /* a slow ramp in 8 bits: flat bands one level apart, what CAMBI sees */
  guint8 *luma = g_malloc (W * H), *chroma = g_malloc (W * H / 4);
  memset (chroma, 128, W * H / 4);
  for (unsigned i = 0; i < n; i++) {
    for (unsigned y = 0; y < H; y++)
      for (unsigned x = 0; x < W; x++)
        luma[y * W + x] = (guint8) (40 + (x + 2 * y + 5 * i) / 37);
    VhPicture pic = { .nplanes = 3, .bpc = 8 };
    pic.plane[0] = (VhPlane) { luma, W, W, H, 1 };
    pic.plane[1] = (VhPlane) { chroma, W / 2, W / 2, H / 2, 1 };
    pic.plane[2] = pic.plane[1];
    check_ok (vh_engine_push (e, &pic, &pic, &error), error);
  }
  check_ok (vh_engine_flush (e, &error), error);
  vh_engine_free (e);          /* closes the files */
  g_free (luma);
  g_free (chroma);

  GByteArray *all = g_byte_array_new ();
  unsigned w = W, h = H;
  for (int k = 0; k < 5; k++) {
    char *name = g_strdup_printf ("%s/cambi_heatmap_scale_%d_%ux%u_16b.gray",
        dir, k, w, h);
    gchar *data;
    gsize len;
    ck_assert_msg (g_file_get_contents (name, &data, &len, NULL), "no %s",
        name);
    ck_assert_uint_eq (len, (gsize) n * w * h * 2);
    g_byte_array_append (all, (const guint8 *) data, (guint) len);
    g_free (data);
    g_unlink (name);
    g_free (name);
    w = (w + 1) >> 1;
    h = (h + 1) >> 1;
  }
  g_rmdir (dir);
  return g_byte_array_free_to_bytes (all);
}

START_TEST (test_cambi_heatmaps)
{
  char *tmp = g_dir_make_tmp ("vmafhip-heatmaps-XXXXXX", NULL);
  char *one_dir = g_build_filename (tmp, "one", NULL);
  char *many_dir = g_build_filename (tmp, "many", "deeper", NULL);
  GBytes *one = heatmap_files (1, one_dir, 7);
  GBytes *many = heatmap_files (3, many_dir, 7);
  ck_assert (g_bytes_equal (one, many));
  /* the content has flat areas: some contrast values are not zero */
  gsize len;
  const guint8 *b = g_bytes_get_data (one, &len);
  gsize nonzero = 0;
  for (gsize i = 0; i < len; i++)
    nonzero += b[i] != 0;
  ck_assert_uint_gt (nonzero, 0);
  g_bytes_unref (one);
  g_bytes_unref (many);
  char *parent = g_build_filename (tmp, "many", NULL);
  g_rmdir (parent);
  g_rmdir (tmp);
  g_free (parent);
  g_free (one_dir);
  g_free (many_dir);
  g_free (tmp);

  /* a folder that cannot be made: an error at start that names it */
  GError *error = NULL;
  const VhVideoInfo info = { W, H, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  const VhModelOpt bad = { "heatmaps_path", VH_OPTVAL_STRING, 0, false,
    "/proc/vmafhip-no-such/heatmaps" };
  ck_assert (!vh_engine_add_feature_with_options (e, "cambi", &bad, 1,
          &error));
  ck_assert_msg (strstr (error->message, "heatmaps_path")
      && strstr (error->message, "/proc/vmafhip-no-such"), "%s",
      error->message);
  g_clear_error (&error);
  /* and a number where a path is wanted */
  const VhModelOpt number = { "heatmaps_path", VH_OPTVAL_NUMBER, 3, false,
    NULL };
  ck_assert (!vh_engine_add_feature_with_options (e, "cambi", &number, 1,
          &error));
  ck_assert_msg (strstr (error->message, "a path"), "%s", error->message);
  g_clear_error (&error);
  vh_engine_free (e);
}
END_TEST

/* subsample=4 computes frames 0, 4, 8 ... only: those get every score of
 * the full run, the others the motion and PSNR metrics alone (they run
 * every frame, as libvmaf's previous-reference and temporal extractors do
 * with n_subsample: PSNR's aggregate sums every frame), with one thread
 * and with frames in flight */
START_TEST (test_subsample_computes_reported_frames)
{
  const unsigned sub = 4;
  for (unsigned threads = 1; threads <= 3; threads += 2) {
    GError *error = NULL;
    VhEngine *all = score (threads, 8);
    VhEngine *e = engine_new (threads, 8);
    check_ok (vh_engine_set_subsample (e, sub, &error), error);
    VhSynth *s = vh_synth_new (W, H, 8, VH_SYNTH_420, 7);
    push_frames (e, s, 0, FRAMES);
    check_ok (vh_engine_flush (e, &error), error);
    vh_synth_free (s);
    ck_assert_uint_eq (vh_engine_n_final (e), FRAMES);
    /* too late now */
    ck_assert (!vh_engine_set_subsample (e, 2, &error));
    g_clear_error (&error);

    const VhScoreTable *ta = vh_engine_scores (all), *tb = vh_engine_scores (e);
    unsigned absent = 0;
    for (unsigned m = 0; m < vh_score_table_n_metrics (ta); m++) {
      const char *name = vh_score_table_metric_name (ta, m);
      const gboolean every_frame = strstr (name, "motion") != NULL
          || (g_str_has_prefix (name, "psnr_")
          && !g_str_has_prefix (name, "psnr_hvs"));
      const int mb = vh_score_table_find (tb, name);
      ck_assert_msg (mb >= 0, "%s missing with subsample", name);
      for (unsigned f = 0; f < FRAMES; f++) {
        double va, vb;
        ck_assert (vh_score_table_get (ta, m, f, &va));
        const gboolean have = vh_score_table_get (tb, (unsigned) mb, f, &vb);
        if (f % sub == 0 || every_frame) {
          ck_assert_msg (have && va == vb, "%s frame %u: %.17g, %.17g with "
              "subsample", name, f, va, have ? vb : NAN);
        } else {
          ck_assert_msg (!have, "%s frame %u computed off the subsample",
              name, f);
          absent++;
        }
      }
    }
    /* VIF, ADM, SSIM, MS-SSIM, CAMBI and the model: not computed */
    ck_assert_uint_ge (absent, 10 * (FRAMES - (FRAMES + sub - 1) / sub));
    double v;
    ck_assert (!vh_score_table_get (tb, (unsigned) vh_score_table_find (tb,
                "vmaf"), 1, &v));
    vh_engine_free (all);
    vh_engine_free (e);
  }

  /* 0 is refused */
  GError *error = NULL;
  VhEngine *e = engine_new (1, 8);
  ck_assert (!vh_engine_set_subsample (e, 0, &error));
  ck_assert_msg (strstr (error->message, "at least 1"), "%s", error->message);
  g_clear_error (&error);
  vh_engine_free (e);
}
END_TEST

/* VIF split into row bands over 2 to 16 threads (vh_vif_work_set_threads):
 * every scale's four integer sums equal to one thread's, at sizes whose
 * rows split unevenly, every depth, and with scale 0 skipped */
START_TEST (test_vif_bands)
{
  static const struct { unsigned w, h, bpc; } cases[] = {
    { 256, 192, 8 }, { 333, 97, 10 }, { 1000, 700, 12 }, { 640, 360, 8 },
  };
  static const unsigned threads[] = { 2, 3, 7, 16, 40 };
  for (unsigned c = 0; c < G_N_ELEMENTS (cases); c++) {
    const unsigned w = cases[c].w, h = cases[c].h, bpc = cases[c].bpc;
    VhSynth *s = vh_synth_new (w, h, bpc, VH_SYNTH_420, 11 + c);
    VhPicture ref, dis;
    vh_synth_render (s, 3, 5, &ref, &dis);
    VhVifWork *one = vh_vif_work_new (w, h), *banded = vh_vif_work_new (w, h);
    ck_assert (one && banded);
    for (unsigned first = 0; first < 2; first++) {
      VhVifSums expect, got;
      vh_vif_compute_sums_from (one, &ref.plane[0], &dis.plane[0], bpc, 100.0,
          first, &expect);
      ck_assert (expect.scale[3].den_log + expect.scale[3].den_non_log > 0);
      for (unsigned t = 0; t < G_N_ELEMENTS (threads); t++) {
        ck_assert (vh_vif_work_set_threads (banded, threads[t], NULL));
        memset (&got, 0x5a, sizeof got);
        vh_vif_compute_sums_from (banded, &ref.plane[0], &dis.plane[0], bpc,
            100.0, first, &got);
        ck_assert_msg (!memcmp (&expect, &got, sizeof got),
            "%ux%u %u-bit, scale %u on: sums differ with %u threads", w, h,
            bpc, first, threads[t]);
      }
      /* back to one thread: the bands' scratch stays, unused */
      ck_assert (vh_vif_work_set_threads (banded, 1, NULL));
      vh_vif_compute_sums_from (banded, &ref.plane[0], &dis.plane[0], bpc,
          100.0, first, &got);
      ck_assert (!memcmp (&expect, &got, sizeof got));
    }
    vh_vif_work_free (one);
    vh_vif_work_free (banded);
    vh_synth_free (s);
  }
}

END_TEST

/* ADM split into row bands over 2 to 16 threads (vh_adm_work_set_threads):
 * every scale's sums equal to one thread's, at sizes whose band rows split
 * unevenly, every depth, with scale 0 and AIM skipped, and both of
 * libvmaf's code paths (the AVX-512 one carries columns between scales) */
START_TEST (test_adm_bands)
{
  static const struct { unsigned w, h, bpc; } cases[] = {
    { 256, 192, 8 }, { 333, 271, 10 }, { 1000, 700, 12 }, { 644, 400, 8 },
    /* 66 wide: the columns the AVX-512 path carries from scale to scale
     * matter (adm.c, flavour 1) */
    { 66, 600, 8 }, { 34, 300, 10 },
  };
  static const unsigned threads[] = { 2, 3, 7, 16, 40 };
  for (unsigned c = 0; c < G_N_ELEMENTS (cases); c++) {
    const unsigned w = cases[c].w, h = cases[c].h, bpc = cases[c].bpc;
    VhSynth *s = vh_synth_new (w, h, bpc, VH_SYNTH_420, 21 + c);
    VhPicture ref, dis;
    vh_synth_render (s, 2, 6, &ref, &dis);
    VhAdmWork *one = vh_adm_work_new (w, h), *banded = vh_adm_work_new (w, h);
    ck_assert (one && banded);
    for (unsigned variant = 0; variant < 3; variant++) {
      VhAdmOptions opts;
      VhAdmParams params;
      GError *error = NULL;
      vh_adm_options_default (&opts);
      opts.skip_scale0 = variant == 1;
      opts.skip_aim = variant == 2;
      check_ok (vh_adm_params_init (&params, &opts, &error), error);
      if (variant == 2)
        params.reference = VH_ADM_LIBVMAF_C;
      VhAdmSums expect, got;
      vh_adm_compute_sums (one, &ref.plane[0], &dis.plane[0], bpc, &params,
          &expect);
      ck_assert (expect.scale[3].den[0] > 0);
      for (unsigned t = 0; t < G_N_ELEMENTS (threads); t++) {
        ck_assert (vh_adm_work_set_threads (banded, threads[t], NULL));
        memset (&got, 0x5a, sizeof got);
        vh_adm_compute_sums (banded, &ref.plane[0], &dis.plane[0], bpc,
            &params, &got);
        ck_assert_msg (!memcmp (&expect, &got, sizeof got),
            "%ux%u %u-bit, variant %u: sums differ with %u threads", w, h,
            bpc, variant, threads[t]);
      }
      ck_assert (vh_adm_work_set_threads (banded, 1, NULL));
      vh_adm_compute_sums (banded, &ref.plane[0], &dis.plane[0], bpc, &params,
          &got);
      ck_assert (!memcmp (&expect, &got, sizeof got));
    }
    vh_adm_work_free (one);
    vh_adm_work_free (banded);
    vh_synth_free (s);
  }
}

END_TEST

/* vh_parallel_for: every piece runs once; with a budget, never more
 * threads at once than the caller plus what the budget had, which comes
 * back whole; with none left, everything runs in the caller */
typedef struct {
  gint running, most;
  gint ran[64];
  GThread *caller;
  gint off_caller;
} PieceLog;

static void
logged_piece (void *data, unsigned i)
{
  PieceLog *log = data;
  const gint now = g_atomic_int_add (&log->running, 1) + 1;
  for (gint most = g_atomic_int_get (&log->most); now > most;
      most = g_atomic_int_get (&log->most))
    if (g_atomic_int_compare_and_exchange (&log->most, most, now))
      break;
  g_usleep (3000);
  g_atomic_int_inc (&log->ran[i]);
  if (g_thread_self () != log->caller)
    g_atomic_int_inc (&log->off_caller);
  g_atomic_int_add (&log->running, -1);
}

START_TEST (test_parallel_budget)
{
  static const gint budgets[] = { 0, 1, 2, 5 };
  for (unsigned b = 0; b < G_N_ELEMENTS (budgets); b++) {
    PieceLog log = { .caller = g_thread_self () };
    gint budget = budgets[b];
    vh_parallel_for (40, 16, &budget, logged_piece, &log);
    for (unsigned i = 0; i < 40; i++)
      ck_assert_int_eq (log.ran[i], 1);
    ck_assert_int_eq (budget, budgets[b]);
    ck_assert_int_le (log.most, budgets[b] + 1);
    if (budgets[b] == 0)
      ck_assert_int_eq (log.off_caller, 0);
  }
}

END_TEST

static Suite *
threads_suite (void)
{
  Suite *s = suite_create ("vmafhip-threads");
  TCase *tc = tcase_create ("frames-in-flight");
  tcase_set_timeout (tc, 600);
  tcase_add_loop_test (tc, test_same_scores, 0, 2);
  tcase_add_test (tc, test_reset_mid_stream);
  tcase_add_test (tc, test_worker_error);
  tcase_add_test (tc, test_free_in_flight);
  tcase_add_test (tc, test_cambi_heatmaps);
  tcase_add_test (tc, test_subsample_computes_reported_frames);
  tcase_add_test (tc, test_vif_bands);
  tcase_add_test (tc, test_adm_bands);
  tcase_add_test (tc, test_parallel_budget);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (threads_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
