/* vmafhip — runs of any length: retired frames, running pools and logs
 * written frame by frame give exactly what the whole table gives. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "vh-engine.h"
#include "vh-synth.h"

#define W 96
#define H 64
#define N_FRAMES 13

/* Scores `n_frames` synthetic pairs with vmaf_v0.6.1 and PSNR; releases
 * each final frame (and streams it to `writer`) if asked. */
static VhEngine *
run_engine_n (unsigned n_frames, gboolean release, unsigned subsample,
    VhLogWriter * writer, unsigned *max_stored)
{
  const VhVideoInfo vi = { W, H, 8 };
  VhSynth *synth = vh_synth_new (W, H, 8, VH_SYNTH_420, 7);
  GError *error = NULL;
  VhEngine *e = vh_engine_new (&vi, &error);
  unsigned done = 0;

  ck_assert (e != NULL);
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  ck_assert (vh_engine_add_feature (e, "psnr", &error));
  ck_assert (vh_engine_set_subsample (e, subsample, &error));
  *max_stored = 0;
  for (unsigned i = 0; i <= n_frames; i++) {
    const VhScoreTable *t = vh_engine_scores (e);
    if (i < n_frames) {
      VhPicture r, d;
      vh_synth_render (synth, i, 3, &r, &d);
      ck_assert_msg (vh_engine_push (e, &r, &d, &error), "%s",
          error ? error->message : "");
    } else {
      ck_assert (vh_engine_flush (e, &error));
    }
    for (; release && done < vh_engine_n_final (e); done++) {
      if (writer)
        ck_assert_msg (vh_log_writer_add_frame (writer, t, done, &error),
            "%s", error ? error->message : "");
      ck_assert (vh_engine_release_frames (e, done + 1, &error));
      ck_assert_uint_eq (vh_score_table_first_frame (t), done + 1);
    }
    *max_stored = MAX (*max_stored, vh_score_table_n_frames (t)
        - vh_score_table_first_frame (t));
  }
  vh_synth_free (synth);
  return e;
}

static VhEngine *
run_engine (gboolean release, unsigned subsample, VhLogWriter * writer,
    unsigned *max_stored)
{
  return run_engine_n (N_FRAMES, release, subsample, writer, max_stored);
}

/* Values of every magnitude, so that any change in summation order would
 * change the low bits of the sums. */
static double
test_value (GRand * rand)
{
  return g_rand_double_range (rand, 0.0, 100.0) * pow (10.0,
      g_rand_int_range (rand, -9, 4));
}

/* Two tables with the same values (some frames missing per metric); one
 * retired in uneven steps, the other kept whole. */
START_TEST (test_retire_table)
{
  const unsigned subsamples[] = { 1, 3 };
  const unsigned n_frames = 200, n_metrics = 3;
  const unsigned steps[] = { 1, 7, 2, 30, 1, 64 };

  for (guint k = 0; k < G_N_ELEMENTS (subsamples); k++) {
    const unsigned sub = subsamples[k];
    VhScoreTable *whole = vh_score_table_new ();
    VhScoreTable *retired = vh_score_table_new ();
    GRand *rand = g_rand_new_with_seed (11 + k);
    unsigned upto = 0, step = 0;

    for (unsigned m = 0; m < n_metrics; m++) {
      gchar *name = g_strdup_printf ("metric%u", m);
      ck_assert_uint_eq (vh_score_table_metric (whole, name), m);
      ck_assert_uint_eq (vh_score_table_metric (retired, name), m);
      g_free (name);
    }
    for (unsigned i = 0; i < n_frames; i++) {
      for (unsigned m = 0; m < n_metrics; m++) {
        const double v = test_value (rand);
        if (m == 2 && i % 5 == 1)
          continue;             /* a metric that skips frames */
        vh_score_table_set (whole, m, i, v);
        vh_score_table_set (retired, m, i, v);
      }
      /* retire behind the writer, as a stream does */
      if (i >= upto + steps[step % G_N_ELEMENTS (steps)]) {
        upto += steps[step++ % G_N_ELEMENTS (steps)];
        vh_score_table_retire (retired, upto, sub);
        ck_assert_uint_eq (vh_score_table_first_frame (retired), upto);
      }
    }
    ck_assert_uint_gt (upto, n_frames / 2);
    ck_assert_uint_lt (upto, n_frames);
    ck_assert_uint_eq (vh_score_table_n_frames (retired), n_frames);
    ck_assert_uint_eq (vh_score_table_first_frame (whole), 0);

    for (unsigned m = 0; m < n_metrics; m++) {
      VhPooled a, b, c;
      ck_assert (vh_score_table_pool (whole, m, 0, n_frames - 1, sub, &a));
      ck_assert (vh_score_table_pool_all (retired, m, sub, &b));
      ck_assert (vh_score_table_pool_all (whole, m, sub, &c));
      /* exact: the same doubles */
      ck_assert (a.mean == b.mean && a.harmonic_mean == b.harmonic_mean);
      ck_assert (a.min == b.min && a.max == b.max);
      ck_assert_uint_eq (a.n_frames, b.n_frames);
      ck_assert (a.mean == c.mean && a.harmonic_mean == c.harmonic_mean);
      ck_assert (a.min == c.min && a.max == c.max);
      ck_assert_uint_eq (a.n_frames, c.n_frames);
      /* retired frames are gone, later ones still there */
      for (unsigned i = 0; i < n_frames; i++) {
        double w = NAN, r = NAN;
        const bool in_whole = vh_score_table_get (whole, m, i, &w);
        const bool in_retired = vh_score_table_get (retired, m, i, &r);
        ck_assert (in_retired == (in_whole && i >= upto));
        ck_assert (!in_retired || r == w);
      }
    }
    /* retiring past the last frame written keeps n_frames, and the pools */
    vh_score_table_retire (retired, n_frames + 5, sub);
    ck_assert_uint_eq (vh_score_table_first_frame (retired), n_frames + 5);
    ck_assert_uint_eq (vh_score_table_n_frames (retired), n_frames);
    for (unsigned m = 0; m < n_metrics; m++) {
      VhPooled a, b;
      ck_assert (vh_score_table_pool (whole, m, 0, n_frames - 1, sub, &a));
      ck_assert (vh_score_table_pool_all (retired, m, sub, &b));
      ck_assert (a.mean == b.mean && a.harmonic_mean == b.harmonic_mean);
      ck_assert_uint_eq (a.n_frames, b.n_frames);
    }
    /* clear forgets the retired frames' pools too */
    vh_score_table_clear (retired);
    ck_assert_uint_eq (vh_score_table_first_frame (retired), 0);
    ck_assert_uint_eq (vh_score_table_n_frames (retired), 0);
    {
      const unsigned m = vh_score_table_metric (retired, "metric0");
      VhPooled p;
      ck_assert (!vh_score_table_pool_all (retired, m, sub, &p));
      vh_score_table_set (retired, m, 0, 4.0);
      ck_assert (vh_score_table_pool_all (retired, m, sub, &p));
      ck_assert_uint_eq (p.n_frames, 1);
      ck_assert (p.mean == 4.0);
    }
    g_rand_free (rand);
    vh_score_table_free (whole);
    vh_score_table_free (retired);
  }
}

END_TEST;

/* The running pool on its own: the same doubles as the table's. */
START_TEST (test_pool_accum)
{
  VhScoreTable *t = vh_score_table_new ();
  const unsigned m = vh_score_table_metric (t, "x");
  GRand *rand = g_rand_new_with_seed (5);
  VhPoolAccum accum;
  VhPooled a, b;

  vh_pool_accum_init (&accum);
  ck_assert (!vh_pool_accum_get (&accum, &a));
  for (unsigned i = 0; i < 1000; i++) {
    const double v = test_value (rand);
    vh_score_table_set (t, m, i, v);
    vh_pool_accum_add (&accum, v);
  }
  ck_assert (vh_pool_accum_get (&accum, &a));
  ck_assert (vh_score_table_pool (t, m, 0, 999, 1, &b));
  ck_assert (a.mean == b.mean && a.harmonic_mean == b.harmonic_mean);
  ck_assert (a.min == b.min && a.max == b.max);
  ck_assert_uint_eq (a.n_frames, 1000);
  ck_assert_uint_eq (b.n_frames, 1000);
  g_rand_free (rand);
  vh_score_table_free (t);
}

END_TEST;

START_TEST (test_pool_all_equals_pool)
{
  const unsigned subsamples[] = { 1, 3 };

  for (guint k = 0; k < G_N_ELEMENTS (subsamples); k++) {
    const unsigned sub = subsamples[k];
    unsigned stored;
    VhEngine *whole = run_engine (FALSE, sub, NULL, &stored);
    VhEngine *released = run_engine (TRUE, sub, NULL, &stored);
    const VhScoreTable *tw = vh_engine_scores (whole);
    const VhScoreTable *tr = vh_engine_scores (released);

    ck_assert_uint_eq (vh_score_table_n_metrics (tw),
        vh_score_table_n_metrics (tr));
    ck_assert_uint_eq (vh_score_table_first_frame (tr), N_FRAMES);
    ck_assert (!vh_score_table_get (tr, 0, 0, NULL));
    for (unsigned m = 0; m < vh_score_table_n_metrics (tw); m++) {
      VhPooled a, b;
      ck_assert_str_eq (vh_score_table_metric_name (tw, m),
          vh_score_table_metric_name (tr, m));
      ck_assert (vh_score_table_pool (tw, m, 0, N_FRAMES - 1, sub, &a));
      ck_assert (vh_score_table_pool_all (tr, m, sub, &b));
      /* the same doubles, not just close ones */
      ck_assert (a.mean == b.mean && a.harmonic_mean == b.harmonic_mean);
      ck_assert (a.min == b.min && a.max == b.max);
      ck_assert_uint_eq (a.n_frames, b.n_frames);
      ck_assert (vh_score_table_pool_all (tw, m, sub, &b));
      ck_assert (a.mean == b.mean && a.harmonic_mean == b.harmonic_mean);
    }
    vh_engine_free (whole);
    vh_engine_free (released);
  }
}

END_TEST;

START_TEST (test_release_bounds_memory)
{
  unsigned stored;
  GError *error = NULL;
  VhEngine *e = run_engine_n (400, TRUE, 1, NULL, &stored);

  ck_assert_uint_eq (vh_score_table_n_frames (vh_engine_scores (e)), 400);
  /* vmaf_v0.6.1's lookahead is one frame (motion waits for the next);
   * never more than lookahead + 2 frames stored */
  ck_assert_uint_le (stored, 1 + 2);
  vh_engine_free (e);

  e = run_engine (FALSE, 1, NULL, &stored);
  ck_assert_uint_eq (stored, N_FRAMES);
  vh_engine_reset (e);
  ck_assert (!vh_engine_release_frames (e, 1, &error));
  ck_assert (strstr (error->message, "final") != NULL);
  g_error_free (error);
  vh_engine_free (e);
}

END_TEST;

/* A flushing seek after frames were released starts over cleanly: the
 * same scores and pools as a fresh engine. */
START_TEST (test_reset_after_release)
{
  VhSynth *synth = vh_synth_new (W, H, 8, VH_SYNTH_420, 7);
  GError *error = NULL;
  unsigned stored;
  VhEngine *e = run_engine (TRUE, 1, NULL, &stored);
  VhEngine *fresh = run_engine (FALSE, 1, NULL, &stored);
  const VhScoreTable *t = vh_engine_scores (e);
  const VhScoreTable *tf = vh_engine_scores (fresh);

  ck_assert_uint_eq (vh_score_table_first_frame (t), N_FRAMES);
  vh_engine_reset (e);
  ck_assert_uint_eq (vh_score_table_first_frame (t), 0);
  ck_assert_uint_eq (vh_score_table_n_frames (t), 0);
  for (unsigned i = 0; i < N_FRAMES; i++) {
    VhPicture r, d;
    vh_synth_render (synth, i, 3, &r, &d);
    ck_assert (vh_engine_push (e, &r, &d, &error));
  }
  ck_assert (vh_engine_flush (e, &error));
  ck_assert_uint_eq (vh_score_table_n_metrics (t),
      vh_score_table_n_metrics (tf));
  for (unsigned m = 0; m < vh_score_table_n_metrics (tf); m++) {
    VhPooled a, b;
    for (unsigned i = 0; i < N_FRAMES; i++) {
      double x, y;
      ck_assert (vh_score_table_get (t, m, i, &x));
      ck_assert (vh_score_table_get (tf, m, i, &y));
      ck_assert (x == y);
    }
    /* nothing from before the reset is left in the running pools */
    ck_assert (vh_score_table_pool_all (t, m, 1, &a));
    ck_assert (vh_score_table_pool_all (tf, m, 1, &b));
    ck_assert_uint_eq (a.n_frames, N_FRAMES);
    ck_assert (a.mean == b.mean && a.min == b.min && a.max == b.max);
  }
  /* frames not final yet cannot be released */
  ck_assert (!vh_engine_release_frames (fresh, N_FRAMES + 1, &error));
  ck_assert_msg (g_error_matches (error, VH_ERROR, VH_ERROR_STATE)
      && strstr (error->message, "final"), "%s", error->message);
  g_clear_error (&error);
  ck_assert (vh_engine_release_frames (fresh, N_FRAMES, &error));
  ck_assert_uint_eq (vh_score_table_first_frame (tf), N_FRAMES);
  vh_synth_free (synth);
  vh_engine_free (e);
  vh_engine_free (fresh);
}

END_TEST;

static gchar *
read_file (const char *path)
{
  gchar *text = NULL;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

/* JSON: same members and values; the streamed fps field may be padded. */
static void
check_json_equal (const gchar * a, const gchar * b)
{
  JsonParser *pa = json_parser_new (), *pb = json_parser_new ();
  gchar *sa, *sb;
  JsonObject *oa, *ob;

  ck_assert (json_parser_load_from_data (pa, a, -1, NULL));
  ck_assert (json_parser_load_from_data (pb, b, -1, NULL));
  oa = json_node_get_object (json_parser_get_root (pa));
  ob = json_node_get_object (json_parser_get_root (pb));
  /* the fps is measured, so it differs: compare everything else */
  json_object_remove_member (oa, "fps");
  json_object_remove_member (ob, "fps");
  sa = json_to_string (json_parser_get_root (pa), TRUE);
  sb = json_to_string (json_parser_get_root (pb), TRUE);
  ck_assert_str_eq (sa, sb);
  g_free (sa);
  g_free (sb);
  g_object_unref (pa);
  g_object_unref (pb);
}

/* XML: the same text once the fps attribute's padding is taken out. */
static gchar *
xml_without_fps (const gchar * text)
{
  GRegex *re = g_regex_new ("<fyi fps=\"[0-9.]*\" *", 0, 0, NULL);
  gchar *out = g_regex_replace_literal (re, text, -1, 0, "<fyi ", 0, NULL);
  g_regex_unref (re);
  return out;
}

START_TEST (test_streamed_log_equals_whole)
{
  const VhLogFormat formats[] =
      { VH_LOG_JSON, VH_LOG_XML, VH_LOG_CSV, VH_LOG_SUB };
  const unsigned subsamples[] = { 1, 2 };
  gchar *dir = g_dir_make_tmp ("vmafhip-stream-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "log", NULL);

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    for (guint k = 0; k < G_N_ELEMENTS (subsamples); k++) {
      const VhLogInfo li = { W, H, 25.0, subsamples[k] };
      GError *error = NULL;
      unsigned stored;
      VhLogWriter *w = vh_log_writer_open (path, formats[f], &li, NULL,
          &error);
      VhEngine *released, *whole;
      GString *expected = g_string_new (NULL);
      gchar *streamed;

      ck_assert (w != NULL);
      released = run_engine (TRUE, subsamples[k], w, &stored);
      /* every frame was on disk before the end */
      streamed = read_file (path);
      ck_assert (strstr (streamed, formats[f] == VH_LOG_CSV ? "\n12," :
              formats[f] == VH_LOG_XML ? "frameNum=\"12\"" :
              formats[f] == VH_LOG_SUB ? "\n{12}{13}frame: 12|" :
              "\"frameNum\": 12") != NULL || subsamples[k] != 1);
      g_free (streamed);
      ck_assert (vh_log_writer_finish (w, vh_engine_scores (released), 25.0,
              &error));
      vh_log_writer_free (w);
      streamed = read_file (path);

      whole = run_engine (FALSE, subsamples[k], NULL, &stored);
      vh_log_write (vh_engine_scores (whole), formats[f], &li, expected);
      if (formats[f] == VH_LOG_JSON) {
        check_json_equal (streamed, expected->str);
        ck_assert (strstr (streamed, "\"fps\": 25.00") != NULL);
      } else if (formats[f] == VH_LOG_XML) {
        gchar *a = xml_without_fps (streamed);
        gchar *b = xml_without_fps (expected->str);
        ck_assert_str_eq (a, b);
        ck_assert (strstr (streamed, "fps=\"25.00\"") != NULL);
        g_free (a);
        g_free (b);
      } else {
        ck_assert_str_eq (streamed, expected->str);
      }
      g_free (streamed);
      g_string_free (expected, TRUE);
      vh_engine_free (released);
      vh_engine_free (whole);
    }
  }
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

END_TEST;

/* libvmaf's "sub" layout: a MicroDVD line per frame that has values,
 * "{i}{i+1}frame: i|name: value|...", no head or pooled section. */
START_TEST (test_sub_layout)
{
  VhScoreTable *t = vh_score_table_new ();
  const unsigned a = vh_score_table_metric (t, "a");
  const unsigned b = vh_score_table_metric (t, "b");
  VhLogInfo li = { W, H, 30.0, 1 };
  GString *out = g_string_new (NULL);

  vh_score_table_set (t, a, 0, 1.5);
  vh_score_table_set (t, b, 0, 1e-8);   /* 7 leading zeros: %.16f */
  vh_score_table_set (t, a, 1, 2.0);
  vh_score_table_set (t, b, 3, 3.0);    /* frame 2 has no value: no line */
  vh_log_write (t, VH_LOG_SUB, &li, out);
  ck_assert_str_eq (out->str,
      "{0}{1}frame: 0|a: 1.500000|b: 0.0000000100000000|\n"
      "{1}{2}frame: 1|a: 2.000000|\n" "{3}{4}frame: 3|b: 3.000000|\n");
  g_string_truncate (out, 0);
  li.subsample = 2;
  vh_log_write (t, VH_LOG_SUB, &li, out);
  ck_assert_str_eq (out->str,
      "{0}{1}frame: 0|a: 1.500000|b: 0.0000000100000000|\n");
  g_string_free (out, TRUE);
  vh_score_table_free (t);
}

END_TEST;

static gpointer
read_whole_fifo (gpointer path)
{
  gchar *text = NULL;
  /* blocks until the writer opens, reads until it closes */
  if (!g_file_get_contents (path, &text, NULL, NULL))
    return NULL;
  return text;
}

/* A file that cannot seek (a pipe) gets the whole log, the fps left
 * unknown: null in JSON, 0.00 in XML. */
START_TEST (test_writer_not_seekable)
{
  const VhLogFormat formats[] = { VH_LOG_JSON, VH_LOG_XML };
  gchar *dir = g_dir_make_tmp ("vmafhip-fifo-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "log", NULL);

  ck_assert_msg (mkfifo (path, 0600) == 0, "mkfifo: %s", g_strerror (errno));
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    const VhLogInfo li = { W, H, NAN, 1 };
    GThread *reader = g_thread_new ("fifo-reader", read_whole_fifo, path);
    GError *error = NULL;
    unsigned stored;
    VhLogWriter *w = vh_log_writer_open (path, formats[f], &li, NULL, &error);
    VhEngine *released, *whole;
    GString *expected = g_string_new (NULL);
    gchar *streamed;

    ck_assert_msg (w != NULL, "%s", error ? error->message : "");
    ck_assert_str_eq (vh_log_writer_path (w), path);
    released = run_engine (TRUE, 1, w, &stored);
    ck_assert_msg (vh_log_writer_finish (w, vh_engine_scores (released),
            25.0, &error), "%s", error ? error->message : "");
    vh_log_writer_free (w);
    streamed = g_thread_join (reader);
    ck_assert (streamed != NULL);

    /* what vh_log_write gives for an unknown fps */
    whole = run_engine (FALSE, 1, NULL, &stored);
    vh_log_write (vh_engine_scores (whole), formats[f], &li, expected);
    if (formats[f] == VH_LOG_JSON) {
      check_json_equal (streamed, expected->str);
      ck_assert (g_regex_match_simple ("\"fps\": null *,", streamed, 0, 0));
    } else {
      gchar *a = xml_without_fps (streamed);
      gchar *b = xml_without_fps (expected->str);
      ck_assert_str_eq (a, b);
      ck_assert (strstr (streamed, "<fyi fps=\"0.00\"") != NULL);
      g_free (a);
      g_free (b);
    }
    g_free (streamed);
    g_string_free (expected, TRUE);
    vh_engine_free (released);
    vh_engine_free (whole);
  }
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
}

END_TEST;

/* Finishing twice, or adding after the end, is a state error. */
START_TEST (test_writer_finished)
{
  const VhLogInfo li = { W, H, NAN, 1 };
  gchar *dir = g_dir_make_tmp ("vmafhip-fin-XXXXXX", NULL);
  gchar *path = g_build_filename (dir, "log.csv", NULL);
  GError *error = NULL;
  unsigned stored;
  VhEngine *e = run_engine (FALSE, 1, NULL, &stored);
  VhLogWriter *w = vh_log_writer_open (path, VH_LOG_CSV, &li, NULL, &error);

  ck_assert (w != NULL);
  ck_assert (vh_log_writer_add_frame (w, vh_engine_scores (e), 0, &error));
  ck_assert (vh_log_writer_finish (w, vh_engine_scores (e), 1.0, &error));
  ck_assert (!vh_log_writer_add_frame (w, vh_engine_scores (e), 1, &error));
  ck_assert (g_error_matches (error, VH_ERROR, VH_ERROR_STATE));
  g_clear_error (&error);
  ck_assert (!vh_log_writer_finish (w, vh_engine_scores (e), 1.0, &error));
  ck_assert (g_error_matches (error, VH_ERROR, VH_ERROR_STATE));
  ck_assert (strstr (error->message, path) != NULL);
  g_clear_error (&error);
  vh_log_writer_free (w);
  vh_log_writer_free (NULL);
  g_unlink (path);
  g_rmdir (dir);
  g_free (path);
  g_free (dir);
  vh_engine_free (e);
}

END_TEST;

/* A full disk (here /dev/full) is an error naming the file and the cause. */
START_TEST (test_writer_disk_full)
{
  const VhLogInfo li = { W, H, NAN, 1 };
  GError *error = NULL;
  VhLogWriter *w;
  unsigned stored;
  VhEngine *e;

  /* Linux always has it; its absence is a broken test machine */
  ck_assert_msg (access ("/dev/full", W_OK) == 0, "no writable /dev/full");
  e = run_engine (FALSE, 1, NULL, &stored);
  w = vh_log_writer_open ("/dev/full", VH_LOG_JSON, &li, NULL, &error);
  ck_assert (w != NULL);
  ck_assert (!vh_log_writer_add_frame (w, vh_engine_scores (e), 0, &error));
  ck_assert_msg (strstr (error->message, "/dev/full")
      && strstr (error->message, g_strerror (ENOSPC)), "%s", error->message);
  g_clear_error (&error);
  /* later calls repeat the first cause */
  ck_assert (!vh_log_writer_finish (w, vh_engine_scores (e), 25.0, &error));
  ck_assert_msg (strstr (error->message, "/dev/full")
      && strstr (error->message, g_strerror (ENOSPC)), "%s", error->message);
  g_clear_error (&error);
  vh_log_writer_free (w);

  /* a log with no frame fails at finish (sub has nothing to write then) */
  const VhLogFormat formats[] = { VH_LOG_JSON, VH_LOG_XML, VH_LOG_CSV };
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    w = vh_log_writer_open ("/dev/full", formats[f], &li, NULL, &error);
    ck_assert (w != NULL);
    ck_assert (!vh_log_writer_finish (w, vh_engine_scores (e), 25.0, &error));
    ck_assert_msg (g_error_matches (error, VH_ERROR, VH_ERROR_IO)
        && strstr (error->message, "'/dev/full'")
        && strstr (error->message, g_strerror (ENOSPC)), "%s",
        error->message);
    g_clear_error (&error);
    vh_log_writer_free (w);
  }
  vh_engine_free (e);

  w = vh_log_writer_open ("/nonexistent-dir/log.json", VH_LOG_JSON, &li,
      NULL, &error);
  ck_assert (w == NULL);
  ck_assert (strstr (error->message, "/nonexistent-dir/log.json") != NULL);
  g_error_free (error);
}

END_TEST;

static Suite *
streaming_suite (void)
{
  Suite *s = suite_create ("streaming");
  TCase *tc = tcase_create ("streaming");

  tcase_add_test (tc, test_retire_table);
  tcase_add_test (tc, test_pool_accum);
  tcase_add_test (tc, test_pool_all_equals_pool);
  tcase_add_test (tc, test_release_bounds_memory);
  tcase_add_test (tc, test_reset_after_release);
  tcase_add_test (tc, test_streamed_log_equals_whole);
  tcase_add_test (tc, test_sub_layout);
  tcase_add_test (tc, test_writer_disk_full);
  tcase_add_test (tc, test_writer_not_seekable);
  tcase_add_test (tc, test_writer_finished);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (streaming_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
