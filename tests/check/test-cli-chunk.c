/* vmafhip — vmafhip-score --chunk I/N and --merge: a title scored in N
 * chunks and merged gives the whole run's log byte for byte (JSON, XML,
 * CSV, subtitles; the JSON and XML fps, a measured rate, aside), with
 * chunk edges at every frame of a 9-frame clip (N = 2..9), for
 * vmaf_v0.6.1, vmaf_v0.6.1neg and the bootstrap vmaf_b_v0.6.3 (its
 * members, bagging, stddev and CI), the v1.0.16 model with CAMBI and its
 * _hfr variant (motion's five-frame window and moving average), with
 * --subsample, --threads and frame skips on raw files; and every way a
 * merge or a chunk is refused.  Content: synthetic pairs the project makes
 * itself (tools/vh-synth.h).
 *
 * Run as: test-cli-chunk PATH-TO-vmafhip-score
 */
#include <string.h>

#include <check.h>
#include <glib/gstdio.h>

#include "vh-cli-test-util.h"

/* the clip's frames: every edge of N = 9 chunks is a frame boundary */
#define N_TITLE 9

static const char *const formats[] = { "--json", "--xml", "--csv", "--sub" };

/* A log's text with the fps of JSON and XML (a rate measured by the run
 * that wrote it, written over a fixed-width field) replaced */
static gchar *
normalised_log (const char *path)
{
  gchar *text = NULL;
  ck_assert_msg (g_file_get_contents (path, &text, NULL, NULL), "%s", path);
  GRegex *fps = g_regex_new ("\"fps\": [^,]*,|fps=\"[^\"]*\" *", 0, 0,
      NULL);
  gchar *out = g_regex_replace_literal (fps, text, -1, 0, "fps", 0, NULL);
  g_regex_unref (fps);
  g_free (text);
  return out;
}

/* NULL where a and b are the same text, else their first line that
 * differs, each (g_free) */
static gchar *
first_difference (const char *a, const char *b)
{
  guint line = 1;
  gsize i = 0;

  for (; a[i] && a[i] == b[i]; i++)
    line += a[i] == '\n';
  if (!a[i] && !b[i])
    return NULL;
  while (i && a[i - 1] != '\n')
    i--;
  return g_strdup_printf ("line %u, merged '%.*s', whole '%.*s'", line,
      (int) strcspn (a + i, "\n"), a + i, (int) strcspn (b + i, "\n"),
      b + i);
}

/* argv of a run: `common` (NULL-terminated) then the NULL-terminated
 * varargs */
static GPtrArray *
args_of (const char *const *common, ...)
{
  GPtrArray *a = g_ptr_array_new_with_free_func (g_free);
  va_list ap;
  const char *s;

  for (guint i = 0; common && common[i]; i++)
    g_ptr_array_add (a, g_strdup (common[i]));
  va_start (ap, common);
  while ((s = va_arg (ap, const char *)))
    g_ptr_array_add (a, g_strdup (s));
  va_end (ap);
  g_ptr_array_add (a, NULL);
  return a;
}

static void
run_ok (GPtrArray *args)
{
  gchar *err = NULL;
  const int rc = run_cli_argv (NULL, &err, (const char *const *)
      args->pdata);
  ck_assert_msg (rc == 0, "rc %d: %s", rc, err);
  g_free (err);
  g_ptr_array_unref (args);
}

/* The part of chunk i of n, scored with `run` */
static gchar *
score_chunk (const char *tag, const char *const *run, guint i, guint n)
{
  gchar *name = g_strdup_printf ("%s-%u-%u.part", tag, n, i);
  gchar *part = g_build_filename (dir, name, NULL);
  gchar *chunk = g_strdup_printf ("%u/%u", i, n);
  run_ok (args_of (run, "--chunk", chunk, "-o", part, "-q", NULL));
  g_free (chunk);
  g_free (name);
  return part;
}

/* The whole run's log in each format, then for each n of `counts` the
 * title in n chunks, merged in each format (the parts given last to first
 * for odd n: the merge orders them): the same bytes.  `keys`: names the
 * whole JSON log must hold (what the case is about is there). */
static void
check_chunked_equals_whole (const char *tag, const char *const *run,
    const guint *counts, guint n_counts, const char *const *keys)
{
  gchar *whole[G_N_ELEMENTS (formats)];

  for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
    gchar *name = g_strdup_printf ("%s-whole.%s", tag, formats[f] + 2);
    gchar *path = g_build_filename (dir, name, NULL);
    run_ok (args_of (run, formats[f], "-o", path, "-q", NULL));
    whole[f] = normalised_log (path);
    g_unlink (path);
    g_free (path);
    g_free (name);
  }
  for (guint k = 0; keys[k]; k++)
    ck_assert_msg (strstr (whole[0], keys[k]), "%s: no '%s' in the log", tag,
        keys[k]);
  for (guint c = 0; c < n_counts; c++) {
    const guint n = counts[c];
    GPtrArray *parts = g_ptr_array_new_with_free_func (g_free);
    for (guint i = 1; i <= n; i++)
      g_ptr_array_add (parts, score_chunk (tag, run, i, n));
    for (guint f = 0; f < G_N_ELEMENTS (formats); f++) {
      gchar *out = g_build_filename (dir, "merged.log", NULL);
      GPtrArray *args = args_of (NULL, "--merge", NULL);
      g_ptr_array_remove_index (args, args->len - 1);
      for (guint i = 0; i < n; i++)
        g_ptr_array_add (args, g_strdup (g_ptr_array_index (parts,
                    n % 2 ? n - 1 - i : i)));
      g_ptr_array_add (args, g_strdup ("-o"));
      g_ptr_array_add (args, g_strdup (out));
      g_ptr_array_add (args, g_strdup (formats[f]));
      g_ptr_array_add (args, NULL);
      run_ok (args);
      gchar *merged = normalised_log (out);
      gchar *where = first_difference (merged, whole[f]);
      ck_assert_msg (!where, "%s: %u chunks, %s: the merged log differs "
          "from the whole run's: %s", tag, n, formats[f], where);
      g_free (merged);
      g_unlink (out);
      g_free (out);
    }
    for (guint i = 0; i < n; i++)
      g_unlink (g_ptr_array_index (parts, i));
    g_ptr_array_unref (parts);
  }
  for (guint f = 0; f < G_N_ELEMENTS (formats); f++)
    g_free (whole[f]);
}

/* v0.6.1, NEG and the bootstrap model, with PSNR, on y4m files: chunk
 * edges at every frame, chunks of every length */
START_TEST (test_v0_models_every_edge)
{
  gchar *r = write_video ("r.y4m", FALSE, 0, N_TITLE, TRUE);
  gchar *d = write_video ("d.y4m", TRUE, 0, N_TITLE, TRUE);
  const char *run[] = { "-r", r, "-d", d, "--backend", "cpu",
    "-m", "version=vmaf_v0.6.1",
    "-m", "version=vmaf_v0.6.1neg:name=vmaf_neg",
    "-m", "version=vmaf_b_v0.6.3:name=vmaf_b", "--feature", "psnr", NULL
  };
  const guint counts[] = { 2, 3, 4, 5, 6, 7, 8, 9 };
  const char *keys[] = { "\"vmaf\"", "\"vmaf_neg\"", "\"vmaf_b_0020\"",
    "\"vmaf_b_bagging\"", "\"vmaf_b_stddev\"", "\"vmaf_b_ci_p95_lo\"",
    "\"vmaf_b_ci_p95_hi\"", "\"integer_motion2\"", "\"integer_motion3\"",
    "\"psnr_cr\"", NULL
  };

  check_chunked_equals_whole ("v0", run, counts, G_N_ELEMENTS (counts),
      keys);
  g_unlink (r);
  g_unlink (d);
  g_free (r);
  g_free (d);
}
END_TEST

/* vmaf_v1.0.16 (CAMBI, SpEED-chroma, adm3, motion3 with motion_max_val)
 * and its _hfr variant (the five-frame window: a SAD reads frame i - 2;
 * the moving average: motion3 reads the frame before's), 10-bit, on a
 * synthetic pair CAMBI takes (216 pixels or more) */
START_TEST (test_v1_cambi_hfr)
{
  const char *run[] = { "--synthetic", "224x160", "-b", "10",
    "--frame_cnt", G_STRINGIFY (N_TITLE), "--backend", "cpu",
    "-m", "version=vmaf_v1.0.16_3d0h",
    "-m", "version=vmaf_v1.0.16_hfr_3d0h:name=vmaf_hfr", NULL
  };
  const guint counts[] = { 2, 4, 9 };
  const char *keys[] = { "\"cambi_hrs_1080_cmxv_17_vlt_0.06\"",
    "\"integer_motion3_mffw_mmxv_18_mma\"", "\"vmaf_hfr\"", NULL
  };

  check_chunked_equals_whole ("v1", run, counts, G_N_ELEMENTS (counts),
      keys);
}
END_TEST

/* --subsample 3 (the logged and pooled frames are the title's every
 * third, whatever frame a chunk starts at), --threads 2 and frames
 * skipped at the start of raw files (found by their offset) */
START_TEST (test_subsample_threads_raw)
{
  gchar *r = write_video ("r.yuv", FALSE, 0, 13, FALSE);
  gchar *d = write_video ("d.yuv", TRUE, 0, 13, FALSE);
  const char *run[] = { "-r", r, "-d", d, "-w", "96", "-h", "64", "-p",
    "420", "-b", "8", "--backend", "cpu", "--frame_skip_ref", "1",
    "--frame_skip_dist", "1", "--frame_cnt", "11", "--subsample", "3",
    "--threads", "2", "--feature", "psnr", NULL
  };
  const guint counts[] = { 2, 3, 5, 11 };
  const char *keys[] = { "\"frameNum\": 9,", NULL };

  check_chunked_equals_whole ("sub", run, counts, G_N_ELEMENTS (counts),
      keys);
  g_unlink (r);
  g_unlink (d);
  g_free (r);
  g_free (d);
}
END_TEST

/* Runs a merge of `parts` into `out` (XML), which must fail naming each
 * of `says` and leave no log */
static void
merge_fails (const char *const *parts, const char *out,
    const char *const *says)
{
  GPtrArray *args = args_of (NULL, "--merge", NULL);
  gchar *err = NULL;

  g_ptr_array_remove_index (args, args->len - 1);
  for (guint i = 0; parts[i]; i++)
    g_ptr_array_add (args, g_strdup (parts[i]));
  g_ptr_array_add (args, g_strdup ("-o"));
  g_ptr_array_add (args, g_strdup (out));
  g_ptr_array_add (args, NULL);
  const int rc = run_cli_argv (NULL, &err, (const char *const *)
      args->pdata);
  ck_assert_msg (rc == 1, "rc %d: %s", rc, err);
  for (guint i = 0; says[i]; i++)
    ck_assert_msg (strstr (err, says[i]), "no '%s' in: %s", says[i], err);
  ck_assert_msg (!g_file_test (out, G_FILE_TEST_EXISTS), "%s left", out);
  g_free (err);
  g_ptr_array_unref (args);
}

/* A part file with its text edited: `from` replaced by `to` (or, with
 * `to` NULL, cut short at `from`) */
static gchar *
edited_part (const char *part, const char *name, const char *from,
    const char *to)
{
  gchar *text = NULL, *path = g_build_filename (dir, name, NULL);
  ck_assert (g_file_get_contents (part, &text, NULL, NULL));
  char *at = strstr (text, from);
  ck_assert_msg (at != NULL, "no '%s' in %s", from, part);
  GString *out = g_string_new_len (text, at - text);
  if (to)
    g_string_append_printf (out, "%s%s", to, at + strlen (from));
  ck_assert (g_file_set_contents (path, out->str, out->len, NULL));
  g_string_free (out, TRUE);
  g_free (text);
  return path;
}

START_TEST (test_merge_refusals)
{
  gchar *r = write_video ("er.y4m", FALSE, 0, N_TITLE, TRUE);
  gchar *d = write_video ("ed.y4m", TRUE, 0, N_TITLE, TRUE);
  /* the same size, other frames */
  gchar *d2 = write_video ("ed2.y4m", TRUE, 1, N_TITLE, TRUE);
  gchar *out = g_build_filename (dir, "refused.xml", NULL);
  const char *run[] = { "-r", r, "-d", d, "--backend", "cpu", NULL };
  const char *run_neg[] = { "-r", r, "-d", d, "--backend", "cpu", "-m",
    "version=vmaf_v0.6.1neg", NULL
  };
  const char *run_d2[] = { "-r", r, "-d", d2, "--backend", "cpu", NULL };
  gchar *p[4], *p2_neg, *p2_d2, *p2_of4;

  for (guint i = 1; i <= 3; i++)
    p[i] = score_chunk ("e", run, i, 3);
  p2_neg = score_chunk ("eneg", run_neg, 2, 3);
  p2_d2 = score_chunk ("ed2", run_d2, 2, 3);
  p2_of4 = score_chunk ("e", run, 2, 4);
  gchar *cut = edited_part (p[2], "cut.part", "frame 4 ", NULL);
  gchar *damaged = edited_part (p[2], "damaged.part", "frame 4 ",
      "frame 4 x");
  gchar *skipped = edited_part (p[2], "skipped.part", "frame 4 ",
      "frame 5 ");

  gchar *missing = g_build_filename (dir, "none.part", NULL);
  /* each refusal: the parts given, and what its message says */
  const struct {
    const char *parts[5];
    const char *says[4];
  } refusals[] = {
    {{p[1], p[3]}, {"chunk 2/3 (frames 3-5) is missing", "--chunk I/3"}},
    {{p[3]}, {"chunks 1/3 (frames 0-2), 2/3 (frames 3-5) are missing"}},
    {{p[1], p[2], p[2], p[3]}, {"chunk 2/3 is given twice"}},
    {{p[1], p2_neg, p[3]}, {"not of one run", "models (-m) differ",
            "vmaf_v0.6.1neg"}},
    {{p[1], p2_d2, p[3]}, {"not of one run", "distorted videos"}},
    {{p[1], p2_of4, p[3]}, {"not of one run", "numbers of chunks",
            "'3' against '4'"}},
    {{p[1], cut, p[3]}, {"cut.part", "cut short", "score that chunk again"}},
    /* found while writing: the log begun is removed */
    {{p[1], damaged, p[3]}, {"damaged.part' (chunk 2/3)", "for a value"}},
    {{p[1], skipped, p[3]}, {"skipped.part' (chunk 2/3)",
            "is not frame 4"}},
    {{p[1], r, p[3]}, {"not a part file"}},
    {{p[1], missing, p[3]}, {"cannot read part", "none.part"}},
  };
  for (guint k = 0; k < G_N_ELEMENTS (refusals); k++)
    merge_fails (refusals[k].parts, out, refusals[k].says);
  g_free (missing);
  /* the three parts of one run merge */
  run_ok (args_of (NULL, "--merge", p[3], p[1], p[2], "-o", out, NULL));
  ck_assert (g_file_test (out, G_FILE_TEST_EXISTS));
  g_unlink (out);

  gchar *err = NULL;
  ck_assert_int_eq (run_cli (&err, "--merge", p[1], p[2], p[3], NULL), 1);
  ck_assert_msg (strstr (err, "-o"), "%s", err);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "--merge", p[1], p[2], p[3], "-r", r,
          "-o", out, NULL), 1);
  ck_assert_msg (strstr (err, "give no -r"), "%s", err);
  g_free (err);

  gchar *all[] = { p[1], p[2], p[3], p2_neg, p2_d2, p2_of4, cut, damaged,
    skipped, r, d, d2, out
  };
  for (guint i = 0; i < G_N_ELEMENTS (all); i++) {
    g_unlink (all[i]);
    g_free (all[i]);
  }
}
END_TEST

/* What --chunk refuses, before any part is written */
START_TEST (test_chunk_refusals)
{
  gchar *r = write_video ("cr.y4m", FALSE, 0, N_TITLE, TRUE);
  gchar *d = write_video ("cd.y4m", TRUE, 0, N_TITLE, TRUE);
  gchar *part = g_build_filename (dir, "refused.part", NULL);
  static const struct {
    const char *option, *value, *says;
  } cases[] = {
    {"--chunk", "0/3", "counted from 1 to 3"},
    {"--chunk", "4/3", "counted from 1 to 3"},
    {"--chunk", "3", "wants I/N"},
    {"--chunk", "1/0", "wants I/N"},
    {"--chunk", "10/10", "the title has 9 frames, so at most 9 chunks"},
    {"--feature", "psnr=enable_apsnr=true", "enable_apsnr"},
    {"--feature", "cambi=heatmaps_path=/tmp", "heatmaps_path"},
    {"--json", NULL, "give the log's format"},
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *err = NULL;
    const gboolean chunk_case = !strcmp (cases[i].option, "--chunk");
    const char *args[] = { "-r", r, "-d", d, "--backend", "cpu", "-o", part,
      "--chunk", chunk_case ? cases[i].value : "1/2", cases[i].option,
      cases[i].value, NULL
    };
    if (chunk_case)
      args[10] = NULL;          /* (its --chunk is the one above) */
    const int rc = run_cli_argv (NULL, &err, args);
    const char *value = cases[i].value ? cases[i].value : "";
    ck_assert_msg (rc == 1, "%s %s: rc %d: %s", cases[i].option, value, rc,
        err);
    ck_assert_msg (strstr (err, cases[i].says), "%s %s: no '%s' in: %s",
        cases[i].option, value, cases[i].says, err);
    ck_assert (!g_file_test (part, G_FILE_TEST_EXISTS));
    g_free (err);
  }
  gchar *err = NULL;
  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "--chunk", "1/2",
          NULL), 1);
  ck_assert_msg (strstr (err, "give its path with -o"), "%s", err);
  g_free (err);
  g_unlink (r);
  g_unlink (d);
  g_free (r);
  g_free (d);
  g_free (part);
}
END_TEST

int
main (int argc, char **argv)
{
  Suite *s = suite_create ("cli-chunk");
  TCase *tc = tcase_create ("vmafhip-score --chunk, --merge");

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_v0_models_every_edge);
  tcase_add_test (tc, test_v1_cambi_hfr);
  tcase_add_test (tc, test_subsample_threads_raw);
  tcase_add_test (tc, test_merge_refusals);
  tcase_add_test (tc, test_chunk_refusals);
  suite_add_tcase (s, tc);
  return cli_test_main (argc, argv, "test-cli-chunk", s);
}
