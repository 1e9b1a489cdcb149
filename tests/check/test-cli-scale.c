/* vmafhip — vmafhip-score with a distorted video smaller than the
 * reference: it is scaled up to the reference's size (--scaler), and,
 * where ffmpeg is installed, scores as FFmpeg's scale filter's output
 * does.  Content: a synthetic pair the project makes itself
 * (tools/vh-synth.h), and the test vectors of ../shared/testdata.
 *
 * Run as: test-cli-scale PATH-TO-vmafhip-score
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include <check.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "vh-engine.h"
#include "vh-synth.h"
#include "vh-test-util.h"
#include "vh-cli-test-util.h"
#include "scale.h"

/* Frames 0..n-1 of one side of a SW x SH synthetic pair, each scaled to
 * w x h with `filter` (none when the size is the same), as raw I420 */
#define SW 352
#define SH 288
static gchar *
write_scaled (const char *name, gboolean dist, guint n, unsigned w,
    unsigned h, VhScaleFilter filter, const char *from_file)
{
  gchar *path = g_build_filename (dir, name, NULL);
  FILE *f = fopen (path, "wb");
  VhSynth *s = vh_synth_new (SW, SH, 8, VH_SYNTH_420, 9);
  const unsigned in_w = from_file ? w / 2 : SW, in_h = from_file ? h / 2 : SH;
  guint8 *in = g_malloc (in_w * in_h * 3 / 2), *out = g_malloc (w * h * 3 / 2);
  FILE *src = from_file ? fopen (from_file, "rb") : NULL;
  ck_assert (f != NULL && (!from_file || src != NULL));
  for (guint i = 0; i < n; i++) {
    VhPicture r, d, o = { .nplanes = 3, .bpc = 8 }, from = o;
    if (src) {
      ck_assert (fread (in, 1, in_w * in_h * 3 / 2, src)
          == in_w * in_h * 3 / 2);
      from.plane[0] = (VhPlane) { in, in_w, in_w, in_h, 1 };
      from.plane[1] = (VhPlane) { in + in_w * in_h, in_w / 2, in_w / 2,
        in_h / 2, 1 };
      from.plane[2] = (VhPlane) { in + in_w * in_h * 5 / 4, in_w / 2,
        in_w / 2, in_h / 2, 1 };
    } else {
      vh_synth_render (s, i, 4, &r, &d);
      from = dist ? d : r;
    }
    if (from.plane[0].width == w) {
      write_picture (f, &from);
      continue;
    }
    o.plane[0] = (VhPlane) { out, w, w, h, 1 };
    o.plane[1] = (VhPlane) { out + w * h, w / 2, w / 2, h / 2, 1 };
    o.plane[2] = (VhPlane) { out + w * h * 5 / 4, w / 2, w / 2, h / 2, 1 };
    for (unsigned c = 0; c < 3; c++) {
      GError *error = NULL;
      VhScaler *sc = vh_scaler_new (from.plane[c].width,
          from.plane[c].height, o.plane[c].width, o.plane[c].height, 8,
          filter, &error);
      ck_assert_msg (sc != NULL, "%s", error ? error->message : "");
      vh_scaler_run (sc, &from.plane[c], &o.plane[c]);
      vh_scaler_free (sc);
    }
    write_picture (f, &o);
  }
  if (src)
    fclose (src);
  fclose (f);
  g_free (in);
  g_free (out);
  vh_synth_free (s);
  return path;
}

static double
pooled_mean (const char *json)
{
  JsonParser *parser;
  JsonObject *root = load_json (json, &parser);
  const double v = json_object_get_double_member
      (json_object_get_object_member (json_object_get_object_member (root,
              "pooled_metrics"), "vmaf"), "mean");
  g_object_unref (parser);
  return v;
}

/* A distorted video at half the reference's size, given with --dis_width
 * and --dis_height: scaled up with the chosen scaler, it scores exactly
 * as the same upscale written out at full size; bad sizes and scalers
 * fail, naming the problem */
START_TEST (test_scaled_distorted)
{
  const guint n = 4;
  gchar *err = NULL;
  gchar *ref = write_scaled ("s-ref.yuv", FALSE, n, SW, SH, 0, NULL);
  gchar *small = write_scaled ("s-small.yuv", TRUE, n, SW / 2, SH / 2,
      VH_SCALE_BILINEAR, NULL);
  gchar *up = write_scaled ("s-up.yuv", TRUE, n, SW, SH, VH_SCALE_LANCZOS,
      small);
  gchar *a = g_build_filename (dir, "s-a.json", NULL);
  gchar *b = g_build_filename (dir, "s-b.json", NULL);
  ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", small, "-w", "352", "-h",
          "288", "-p", "420", "-b", "8", "--dis_width", "176", "--dis_height",
          "144", "--scaler", "lanczos", "--json", "-o", a, "-q", NULL), 0);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", up, "-w", "352", "-h",
          "288", "-p", "420", "-b", "8", "--json", "-o", b, "-q", NULL), 0);
  g_free (err);
  JsonParser *pa, *pb;
  JsonArray *fa = frames_of (load_json (a, &pa));
  JsonArray *fb = frames_of (load_json (b, &pb));
  ck_assert_uint_eq (json_array_get_length (fa), n);
  ck_assert_uint_eq (json_array_get_length (fb), n);
  for (guint i = 0; i < n; i++) {
    ck_assert_double_eq (metric (fa, i, "vmaf"), metric (fb, i, "vmaf"));
    ck_assert_double_lt (metric (fa, i, "vmaf"), 99.0);
  }
  g_object_unref (pa);
  g_object_unref (pb);

  /* bad input: a larger distorted video, one size alone, an unknown
   * scaler, --scaler with nothing to scale */
  ck_assert_int_eq (run_cli (&err, "-r", small, "-d", ref, "-w", "176", "-h",
          "144", "-p", "420", "-b", "8", "--dis_width", "352",
          "--dis_height", "288", NULL), 1);
  ck_assert_msg (strstr (err, "larger than the reference"), "%s", err);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", small, "-w", "352", "-h",
          "288", "-p", "420", "-b", "8", "--dis_width", "176", NULL), 1);
  ck_assert_msg (strstr (err, "--dis_height"), "%s", err);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", small, "-w", "352", "-h",
          "288", "-p", "420", "-b", "8", "--dis_width", "176",
          "--dis_height", "144", "--scaler", "nearest", NULL), 1);
  ck_assert_msg (strstr (err, "unknown --scaler 'nearest'"), "%s", err);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", ref, "-w", "352", "-h",
          "288", "-p", "420", "-b", "8", "--scaler", "bicubic", NULL), 1);
  ck_assert_msg (strstr (err, "nothing to scale"), "%s", err);
  g_free (err);
  g_free (ref);
  g_free (small);
  g_free (up);
  g_free (a);
  g_free (b);
}

END_TEST;

/* Issue 15's check against FFmpeg: `dis` (w x h, every frame) made a
 * rendition of half the size by ffmpeg, scored with vmafhip's upscale by
 * `filter`, against the same rendition upscaled by ffmpeg's scale filter
 * with that filter and scored at full size; returns the worst frame's
 * distance in VMAF (printed with the pooled means). */
static double
scaled_as_ffmpeg (const gchar * ffmpeg, const gchar * label,
    const gchar * ref, const gchar * dis, unsigned w, unsigned h,
    unsigned bits, const gchar * filter)
{
  const gchar *pix_fmt = bits > 8 ? "yuv420p10le" : "yuv420p";
  gchar *size = g_strdup_printf ("%ux%u", w, h);
  gchar *half = g_strdup_printf ("%ux%u", w / 2, h / 2);
  gchar *down_vf = g_strdup_printf ("scale=%u:%u:flags=%s+accurate_rnd+"
      "full_chroma_int", w / 2, h / 2, filter);
  gchar *up_vf = g_strdup_printf ("scale=%u:%u:flags=%s+accurate_rnd+"
      "full_chroma_int", w, h, filter);
  gchar *ws = g_strdup_printf ("%u", w), *hs = g_strdup_printf ("%u", h);
  gchar *hws = g_strdup_printf ("%u", w / 2);
  gchar *hhs = g_strdup_printf ("%u", h / 2);
  gchar *bs = g_strdup_printf ("%u", bits);
  gchar *small = g_build_filename (dir, "f-small.yuv", NULL);
  gchar *up = g_build_filename (dir, "f-up.yuv", NULL);
  gchar *a = g_build_filename (dir, "f-a.json", NULL);
  gchar *b = g_build_filename (dir, "f-b.json", NULL);
  gchar *err = NULL;
  const gchar *const down[] = { ffmpeg, "-loglevel", "error", "-y", "-f",
    "rawvideo", "-pix_fmt", pix_fmt, "-s", size, "-i", dis, "-vf", down_vf,
    "-f", "rawvideo", "-pix_fmt", pix_fmt, small, NULL };
  const gchar *const upc[] = { ffmpeg, "-loglevel", "error", "-y", "-f",
    "rawvideo", "-pix_fmt", pix_fmt, "-s", half, "-i", small, "-vf", up_vf,
    "-f", "rawvideo", "-pix_fmt", pix_fmt, up, NULL };
  for (int k = 0; k < 2; k++) {
    gint status = -1;
    ck_assert (g_spawn_sync (NULL, (gchar **) (k ? upc : down), NULL,
            G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status,
            NULL));
    ck_assert_msg (g_spawn_check_wait_status (status, NULL), "ffmpeg %d", k);
  }
  ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", small, "-w", ws, "-h",
          hs, "-p", "420", "-b", bs, "--dis_width", hws, "--dis_height", hhs,
          "--scaler", filter, "--json", "-o", a, "-q", NULL), 0);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", up, "-w", ws, "-h", hs,
          "-p", "420", "-b", bs, "--json", "-o", b, "-q", NULL), 0);
  g_free (err);
  JsonParser *pa, *pb;
  JsonArray *fa = frames_of (load_json (a, &pa));
  JsonArray *fb = frames_of (load_json (b, &pb));
  ck_assert_uint_eq (json_array_get_length (fa), json_array_get_length (fb));
  ck_assert_uint_gt (json_array_get_length (fa), 0);
  double worst = 0;
  for (guint i = 0; i < json_array_get_length (fa); i++)
    worst = MAX (worst, fabs (metric (fa, i, "vmaf") - metric (fb, i,
                "vmaf")));
  fprintf (stderr, "test-cli: %s, %s, vmafhip's upscale against ffmpeg's: "
      "worst frame %.4f VMAF, pooled means %.4f / %.4f\n", label, filter,
      worst, pooled_mean (a), pooled_mean (b));
  g_object_unref (pa);
  g_object_unref (pb);
  g_free (size);
  g_free (half);
  g_free (down_vf);
  g_free (up_vf);
  g_free (ws);
  g_free (hs);
  g_free (hws);
  g_free (hhs);
  g_free (bs);
  g_free (small);
  g_free (up);
  g_free (a);
  g_free (b);
  return worst;
}

static const gchar *const scalers[] = { "bicubic", "lanczos", "bilinear" };

/* Synthetic content (made here, any clone), every scaler: within 0.1 VMAF
 * on every frame.  Skips loudly without ffmpeg (fails with
 * strict-tests). */
START_TEST (test_scaler_as_ffmpeg)
{
  gchar *ffmpeg = g_find_program_in_path ("ffmpeg");
  if (!ffmpeg) {
    ck_assert_msg (vh_test_may_skip ("test-cli test_scaler_as_ffmpeg",
            "ffmpeg not found (apt-get install ffmpeg)"),
        "ffmpeg not found, and strict-tests requires it");
    return;
  }
  gchar *ref = write_scaled ("f-ref.yuv", FALSE, 6, SW, SH, 0, NULL);
  gchar *dis = write_scaled ("f-dis.yuv", TRUE, 6, SW, SH, 0, NULL);
  for (guint f = 0; f < G_N_ELEMENTS (scalers); f++) {
    const double worst = scaled_as_ffmpeg (ffmpeg, "synthetic 352x288", ref,
        dis, SW, SH, 8, scalers[f]);
    ck_assert_msg (worst < 0.1, "%s: %.4f VMAF apart", scalers[f], worst);
  }
  g_free (ffmpeg);
  g_free (ref);
  g_free (dis);
}

END_TEST;

/* The same on the test vectors of ../shared/testdata (real content, 8
 * and 10 bits); skips loudly where they or ffmpeg are absent. */
START_TEST (test_scaler_as_ffmpeg_vectors)
{
  static const struct
  {
    const char *name;
    unsigned w, h, bits;
  } clips[] = {
    { "hall_352x288", 352, 288, 8 },
    { "dark_1920x1080", 1920, 1080, 8 },
    { "src01_576x324_10b", 576, 324, 10 },
  };
  gchar *ffmpeg = g_find_program_in_path ("ffmpeg");
  const char *data = vh_test_testdata_dir ();
  if (!ffmpeg) {
    ck_assert_msg (vh_test_may_skip ("test-cli test_scaler_as_ffmpeg_vectors",
            "ffmpeg not found (apt-get install ffmpeg)"),
        "ffmpeg not found, and strict-tests requires it");
    return;
  }
  if (!data) {
    /* the vectors are not the project's: their absence is a loud skip */
    fprintf (stderr, "test-cli: SKIPPED test_scaler_as_ffmpeg_vectors: no "
        "test vectors\n");
    g_free (ffmpeg);
    return;
  }
  for (guint c = 0; c < G_N_ELEMENTS (clips); c++) {
    gchar *rn = g_strdup_printf ("%s_ref.yuv", clips[c].name);
    gchar *dn = g_strdup_printf ("%s_dis.yuv", clips[c].name);
    gchar *ref = g_build_filename (data, "clips", rn, NULL);
    gchar *dis = g_build_filename (data, "clips", dn, NULL);
    ck_assert_msg (g_file_test (ref, G_FILE_TEST_EXISTS)
        && g_file_test (dis, G_FILE_TEST_EXISTS), "%s: missing", ref);
    for (guint f = 0; f < G_N_ELEMENTS (scalers); f++) {
      const double worst = scaled_as_ffmpeg (ffmpeg, clips[c].name, ref, dis,
          clips[c].w, clips[c].h, clips[c].bits, scalers[f]);
      ck_assert_msg (worst < 0.1, "%s, %s: %.4f VMAF apart", clips[c].name,
          scalers[f], worst);
    }
    g_free (rn);
    g_free (dn);
    g_free (ref);
    g_free (dis);
  }
  g_free (ffmpeg);
}

END_TEST;

int
main (int argc, char **argv)
{
  Suite *s = suite_create ("cli-scale");
  TCase *tc = tcase_create ("vmafhip-score-scaled");

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_scaled_distorted);
  tcase_add_test (tc, test_scaler_as_ffmpeg);
  tcase_add_test (tc, test_scaler_as_ffmpeg_vectors);
  suite_add_tcase (s, tc);
  return cli_test_main (argc, argv, "test-cli-scale", s);
}
