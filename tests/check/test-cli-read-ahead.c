/* vmafhip — vmafhip-score's inputs read ahead (tools/frame-reader.c) on
 * the GPU path, against the mock HIP runtime (no GPU needed; it runs no
 * kernel, so the frames are counted, not their scores): the inputs'
 * buffers pinned and held until their frame is final, more frames than the
 * ring holds, skipped frames, raw and y4m input, a partial last frame.
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

static Suite *
read_ahead_suite (void)
{
  Suite *s = suite_create ("cli-read-ahead");
  TCase *tc = tcase_create ("gpu-mock");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_raw_on_the_gpu);
  tcase_add_test (tc, test_y4m_on_the_gpu);
  tcase_add_test (tc, test_partial_frame_on_the_gpu);
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
