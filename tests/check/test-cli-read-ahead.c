/* vmafhip — vmafhip-score's inputs read ahead (tools/frame-reader.c) on
 * the GPU path, against the mock HIP runtime (no GPU needed; it runs no
 * kernel, so the frames are counted, not their scores): the inputs'
 * buffers pinned and held until their frame is final, more frames than the
 * ring holds, skipped frames, raw and y4m input, a partial last frame;
 * --gpu auto|N on two mock GPUs.
 * The CPU path's scores are checked against y4m input in test-cli.
 *
 * Run as: test-cli-read-ahead PATH-TO-vmafhip-score (with
 * VMAFHIP_HIP_LIBRARY naming the mock runtime)
 */
#include <string.h>

#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "vh-cli-test-util.h"
#include "vh-kernel-images.h"
#include "vh-test-util.h"

/* more than the ring's buffers (lookahead + the GPU's slots + 4) */
#define N 40

static guint
n_frames (const char *out)
{
  JsonParser *parser;
  JsonObject *root = load_json (out, &parser);
  const guint n = json_array_get_length (frames_of (root));
  g_object_unref (parser);
  return n;
}

START_TEST (test_raw_on_the_gpu)
{
  gchar *r = write_video ("r.yuv", FALSE, 0, N, FALSE);
  gchar *d = write_video ("d.yuv", TRUE, 0, N, FALSE);
  gchar *out = g_build_filename (dir, "raw.json", NULL);
  gchar *err = NULL;

  ck_assert_msg (run_cli (&err, "-r", r, "-d", d, "-w", "96", "-h", "64",
          "-p", "420", "-b", "8", "--backend", "hip", "--json", "-o", out,
          NULL) == 0, "%s", err);
  ck_assert_msg (strstr (err, "scoring on the GPU") != NULL, "%s", err);
  ck_assert_uint_eq (n_frames (out), N);
  g_free (err);
  /* frames skipped on both sides (by their offset, before the readers) */
  ck_assert_msg (run_cli (&err, "-r", r, "-d", d, "-w", "96", "-h", "64",
          "-p", "420", "-b", "8", "--backend", "hip", "--frame_skip_ref", "3", "--frame_skip_dist",
          "3", "--json", "-o", out, NULL) == 0, "%s", err);
  ck_assert_uint_eq (n_frames (out), N - 3);
  g_free (err);
  g_free (out);
  g_free (r);
  g_free (d);
}
END_TEST

START_TEST (test_y4m_on_the_gpu)
{
  gchar *r = write_video ("r.y4m", FALSE, 0, N, TRUE);
  gchar *d = write_video ("d.y4m", TRUE, 0, N, TRUE);
  gchar *out = g_build_filename (dir, "y4m.json", NULL);
  gchar *err = NULL;

  ck_assert_msg (run_cli (&err, "-r", r, "-d", d, "--backend", "hip",
          "--json", "-o", out, NULL) == 0, "%s", err);
  ck_assert_uint_eq (n_frames (out), N);
  g_free (err);
  g_free (out);
  g_free (r);
  g_free (d);
}
END_TEST

/* A raw file that ends with part of a frame: the frames before it are
 * scored, then the run fails naming the file and the sizes */
START_TEST (test_partial_frame_on_the_gpu)
{
  gchar *r = write_video ("pr.yuv", FALSE, 0, N, FALSE);
  gchar *d = write_video ("pd.yuv", TRUE, 0, N, FALSE);
  gchar *out = g_build_filename (dir, "partial.json", NULL);
  gchar *err = NULL;
  FILE *f = fopen (d, "ab");

  ck_assert (f != NULL);
  fputs ("half a frame", f);
  fclose (f);
  /* the reference has one frame more: the distorted file's tail is read */
  gchar *r_more = write_video ("pr2.yuv", FALSE, 0, N + 1, FALSE);
  ck_assert_int_eq (run_cli (&err, "-r", r_more, "-d", d, "-w", "96", "-h",
          "64", "-p", "420", "-b", "8", "--backend", "hip", "--json", "-o",
          out, NULL), 1);
  ck_assert_msg (strstr (err, "ends with a partial frame") != NULL, "%s",
      err);
  ck_assert_msg (strstr (err, "pd.yuv") != NULL, "%s", err);
  g_free (err);
  g_free (out);
  g_free (r);
  g_free (r_more);
  g_free (d);
}
END_TEST

/* ---- --gpu auto|N on two mock GPUs (VH_MOCK_HIP_DEVICES=2) ---- */

/* The log's frames and pooled scores (the mock runs no kernel: what the
 * GPU path gives, whichever GPU) */
static void
assert_same_scores (const char *a, const char *b)
{
  JsonParser *pa, *pb;
  JsonObject *ra = load_json (a, &pa), *rb = load_json (b, &pb);
  ck_assert_uint_eq (json_array_get_length (frames_of (ra)), N);
  ck_assert_msg (json_node_equal (json_object_get_member (ra, "frames"),
          json_object_get_member (rb, "frames")), "%s and %s: frames differ",
      a, b);
  ck_assert_msg (json_node_equal (json_object_get_member (ra,
              "pooled_metrics"), json_object_get_member (rb,
              "pooled_metrics")), "%s and %s: pooled scores differ", a, b);
  g_object_unref (pa);
  g_object_unref (pb);
}

/* --gpu 1 scores on the second GPU, --gpu auto on the least loaded (the
 * first: nothing else runs in the process), --gpu_device 1 as --gpu 1;
 * the logs alike; a title's chunks on two GPUs merge into its log */
START_TEST (test_gpu_index)
{
  g_setenv ("VH_MOCK_HIP_DEVICES", "2", TRUE);
  gchar *r = write_video ("gr.y4m", FALSE, 0, N, TRUE);
  gchar *d = write_video ("gd.y4m", TRUE, 0, N, TRUE);
  const char *runs[][2] = {
    { "--gpu", "0" }, { "--gpu", "1" }, { "--gpu", "auto" },
    { "--gpu_device", "1" },
  };
  const char *where[] = { "device 0;", "device 1;",
    "device 0 (auto: the least loaded of 2 GPUs);", "device 1;" };
  gchar *out[G_N_ELEMENTS (runs)];

  for (guint i = 0; i < G_N_ELEMENTS (runs); i++) {
    gchar *err = NULL, *name = g_strdup_printf ("gpu%u.json", i);
    out[i] = g_build_filename (dir, name, NULL);
    ck_assert_msg (run_cli (&err, "-r", r, "-d", d, "--backend", "hip",
            runs[i][0], runs[i][1], "--json", "-o", out[i], NULL) == 0,
        "%s %s: %s", runs[i][0], runs[i][1], err);
    ck_assert_msg (strstr (err, where[i]) != NULL, "%s %s: '%s' not in %s",
        runs[i][0], runs[i][1], where[i], err);
    if (i)
      assert_same_scores (out[0], out[i]);
    g_free (name);
    g_free (err);
  }

  /* chunk 1 on GPU 0, chunk 2 on GPU 1: the merge is the whole log */
  gchar *part[2], *merged = g_build_filename (dir, "gpu-merged.json", NULL);
  for (guint i = 0; i < 2; i++) {
    gchar *err = NULL, *name = g_strdup_printf ("gpu-part%u", i + 1);
    gchar *chunk = g_strdup_printf ("%u/2", i + 1), *gpu = g_strdup_printf
        ("%u", i);
    part[i] = g_build_filename (dir, name, NULL);
    ck_assert_msg (run_cli (&err, "-r", r, "-d", d, "--backend", "hip",
            "--gpu", gpu, "--chunk", chunk, "-o", part[i], NULL) == 0,
        "chunk %s: %s", chunk, err);
    g_free (err);
    g_free (name);
    g_free (chunk);
    g_free (gpu);
  }
  gchar *err = NULL;
  ck_assert_msg (run_cli (&err, "--merge", part[0], part[1], "--json", "-o",
          merged, NULL) == 0, "%s", err);
  assert_same_scores (out[0], merged);
  g_free (err);
  for (guint i = 0; i < 2; i++)
    g_free (part[i]);
  g_free (merged);
  for (guint i = 0; i < G_N_ELEMENTS (runs); i++)
    g_free (out[i]);
  g_free (r);
  g_free (d);
}
END_TEST

/* A GPU that is not there, a value that is no GPU: refused, saying what
 * --gpu takes (with --backend auto too: no falling back to the CPU) */
START_TEST (test_gpu_refused)
{
  g_setenv ("VH_MOCK_HIP_DEVICES", "2", TRUE);
  gchar *r = write_video ("er.y4m", FALSE, 0, 4, TRUE);
  gchar *d = write_video ("ed.y4m", TRUE, 0, 4, TRUE);
  gchar *out = g_build_filename (dir, "refused.json", NULL);
  const struct {
    const char *backend, *option, *value, *message;
    int rc;
  } cases[] = {
    { "hip", "--gpu", "5", "--gpu 5: there are 2 GPUs (give auto or 0 to 1)",
      1 },
    { "auto", "--gpu", "2", "--gpu 2: there are 2 GPUs (give auto or 0 to "
          "1)", 1 },
    { "hip", "--gpu", "bogus", "--gpu 'bogus': give auto (each stream on "
          "the least-loaded GPU) or a GPU index (0, 1, ...)", 2 },
    { "hip", "--gpu", "-1", "--gpu '-1': give auto", 2 },
    { "hip", "--gpu", "1x", "--gpu '1x': give auto", 2 },
    { "hip", "--gpu_device", "-2", "--gpu_device -2: give -1 (auto) or a "
          "GPU index", 2 },
  };
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++) {
    gchar *err = NULL;
    ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "--backend",
            cases[i].backend, cases[i].option, cases[i].value, "--json", "-o",
            out, NULL), cases[i].rc);
    ck_assert_msg (strstr (err, cases[i].message) != NULL, "%s %s: %s",
        cases[i].option, cases[i].value, err);
    g_free (err);
  }
  gchar *err = NULL;
  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "--gpu", "1",
          "--gpu_device", "1", "-o", out, NULL), 2);
  ck_assert_msg (strstr (err, "--gpu and --gpu_device both given"), "%s",
      err);
  g_free (err);
  g_free (out);
  g_free (r);
  g_free (d);
}
END_TEST

static Suite *
read_ahead_suite (void)
{
  Suite *s = suite_create ("cli-read-ahead");
  TCase *tc = tcase_create ("gpu-mock");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_raw_on_the_gpu);
  tcase_add_test (tc, test_y4m_on_the_gpu);
  tcase_add_test (tc, test_partial_frame_on_the_gpu);
  tcase_add_test (tc, test_gpu_index);
  tcase_add_test (tc, test_gpu_refused);
  suite_add_tcase (s, tc);
  return s;
}

/* Whether this build carries kernels the mock's AMD device loads: the
 * CLI probes the GPU with one, and takes none without */
static gboolean
has_amd_images (void)
{
  for (unsigned i = 0; i < vh_kernel_motion.n_images; i++)
    if (vh_kernel_motion.images[i].vendor == VH_GPU_VENDOR_AMD)
      return TRUE;
  return FALSE;
}

int
main (int argc, char **argv)
{
  if (!has_amd_images ())
    return vh_test_may_skip ("test-cli-read-ahead", "this build has no AMD "
        "kernel images (configured without hipcc and clang-19): the mock "
        "GPU cannot load the CLI's probe") ? VH_TEST_SKIP : 1;
  return cli_test_main (argc, argv, "test-cli-read-ahead", read_ahead_suite ());
}
