/* vmafhip — vmafhip-score as libvmaf's `vmaf` CLI: y4m and raw input give
 * the same scores, the frame options select the right frames, and every
 * bad option fails before any frame is scored, naming the problem; a
 * distorted video smaller than the reference is scaled up to it (and,
 * where ffmpeg is installed, scores as FFmpeg's scale filter's output does).
 * Content: a synthetic pair the project makes itself (tools/vh-synth.h).
 *
 * Run as: test-cli PATH-TO-vmafhip-score
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
#include "scale.h"

#define W 96
#define H 64
#define N 6

static const char *score_bin;
static gchar *dir;

/* Writes frames first..first+n-1 of one side of the synthetic pair, as raw
 * I420 or as y4m. */
/* Raw 8-bit I420 of a VhPicture into an open file */
static void
write_picture (FILE * f, const VhPicture * p)
{
  for (unsigned c = 0; c < p->nplanes; c++)
    for (unsigned y = 0; y < p->plane[c].height; y++)
      fwrite ((const guint8 *) p->plane[c].data + y * p->plane[c].stride, 1,
          p->plane[c].width, f);
}

static gchar *
write_video (const char *name, gboolean dist, guint first, guint n,
    gboolean y4m)
{
  gchar *path = g_build_filename (dir, name, NULL);
  FILE *f = fopen (path, "wb");
  VhSynth *s = vh_synth_new (W, H, 8, VH_SYNTH_420, 5);

  ck_assert (f != NULL);
  if (y4m)
    fprintf (f, "YUV4MPEG2 W%u H%u F25:1 Ip A1:1 C420jpeg\n", W, H);
  for (guint i = first; i < first + n; i++) {
    VhPicture r, d;
    vh_synth_render (s, i, 3, &r, &d);
    if (y4m)
      fputs ("FRAME\n", f);
    write_picture (f, dist ? &d : &r);
  }
  fclose (f);
  vh_synth_free (s);
  return path;
}

/* Runs vmafhip-score with the arguments; returns its exit status, stdout
 * in *out (NULL: dropped), stderr in *err. */
static int
run_cli_va (gchar ** out, gchar ** err, va_list ap)
{
  GPtrArray *argv = g_ptr_array_new ();
  const char *a;
  gchar *dropped = NULL;
  int status = 0;
  GError *error = NULL;

  g_ptr_array_add (argv, (gpointer) score_bin);
  while ((a = va_arg (ap, const char *)))
    g_ptr_array_add (argv, (gpointer) a);
  g_ptr_array_add (argv, NULL);
  ck_assert_msg (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, 0, NULL,
          NULL, out ? out : &dropped, err, &status, &error), "%s",
      error ? error->message : "");
  g_free (dropped);
  g_ptr_array_free (argv, TRUE);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* The same with the arguments NULL-terminated, stdout dropped. */
static int
run_cli (gchar ** err, ...)
{
  va_list ap;
  va_start (ap, err);
  const int rc = run_cli_va (NULL, err, ap);
  va_end (ap);
  return rc;
}

/* The same, stdout kept. */
static int
run_cli_out (gchar ** out, gchar ** err, ...)
{
  va_list ap;
  va_start (ap, err);
  const int rc = run_cli_va (out, err, ap);
  va_end (ap);
  return rc;
}

static JsonObject *
load_json (const char *path, JsonParser ** parser)
{
  *parser = json_parser_new ();
  ck_assert_msg (json_parser_load_from_file (*parser, path, NULL), "%s",
      path);
  return json_node_get_object (json_parser_get_root (*parser));
}

static JsonArray *
frames_of (JsonObject * root)
{
  return json_object_get_array_member (root, "frames");
}

static double
metric (JsonArray * frames, guint i, const char *name)
{
  JsonObject *f = json_array_get_object_element (frames, i);
  return json_object_get_double_member (json_object_get_object_member (f,
          "metrics"), name);
}

START_TEST (test_y4m_equals_raw)
{
  gchar *ry = write_video ("r.y4m", FALSE, 0, N, TRUE);
  gchar *dy = write_video ("d.y4m", TRUE, 0, N, TRUE);
  gchar *rr = write_video ("r.yuv", FALSE, 0, N, FALSE);
  gchar *dr = write_video ("d.yuv", TRUE, 0, N, FALSE);
  gchar *oy = g_build_filename (dir, "y.json", NULL);
  gchar *orw = g_build_filename (dir, "r.json", NULL);
  gchar *err = NULL;
  JsonParser *py, *pr;
  JsonArray *fy, *fr;

  ck_assert_int_eq (run_cli (&err, "-r", ry, "-d", dy, "--json", "-o", oy,
          "--feature", "psnr", "-q", NULL), 0);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", rr, "-d", dr, "-w", "96", "-h",
          "64", "-p", "420", "-b", "8", "--json", "-o", orw, "--feature",
          "psnr", "-q", NULL), 0);
  g_free (err);
  fy = frames_of (load_json (oy, &py));
  fr = frames_of (load_json (orw, &pr));
  ck_assert_uint_eq (json_array_get_length (fy), N);
  ck_assert_uint_eq (json_array_get_length (fr), N);
  for (guint i = 0; i < N; i++) {
    /* libvmaf's CLI reports an unnamed model as "vmaf" */
    ck_assert (metric (fy, i, "vmaf") == metric (fr, i, "vmaf"));
    ck_assert (metric (fy, i, "psnr_y") == metric (fr, i, "psnr_y"));
    ck_assert (metric (fy, i, "vmaf") > 0.0);
  }
  g_object_unref (py);
  g_object_unref (pr);
  g_free (ry);
  g_free (dy);
  g_free (rr);
  g_free (dr);
  g_free (oy);
  g_free (orw);
}

END_TEST;

/* --frame_skip_ref/dist 2 and --frame_cnt 3 score frames 2..4, exactly as
 * files that start at frame 2; --subsample 2 keeps frames 0, 2, 4. */
START_TEST (test_frame_options)
{
  gchar *r = write_video ("r.y4m", FALSE, 0, N, TRUE);
  gchar *d = write_video ("d.y4m", TRUE, 0, N, TRUE);
  gchar *r2 = write_video ("r2.y4m", FALSE, 2, 3, TRUE);
  gchar *d2 = write_video ("d2.y4m", TRUE, 2, 3, TRUE);
  gchar *o1 = g_build_filename (dir, "skip.json", NULL);
  gchar *o2 = g_build_filename (dir, "late.json", NULL);
  gchar *o3 = g_build_filename (dir, "sub.json", NULL);
  gchar *err = NULL;
  JsonParser *p1, *p2, *p3;
  JsonArray *f1, *f2, *f3;

  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "--frame_skip_ref", "2",
          "--frame_skip_dist", "2", "--frame_cnt", "3", "--json", "-o", o1,
          "-q", NULL), 0);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", r2, "-d", d2, "--json", "-o", o2,
          "-q", NULL), 0);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "--subsample", "2",
          "--json", "-o", o3, "-q", NULL), 0);
  g_free (err);
  f1 = frames_of (load_json (o1, &p1));
  f2 = frames_of (load_json (o2, &p2));
  f3 = frames_of (load_json (o3, &p3));
  ck_assert_uint_eq (json_array_get_length (f1), 3);
  for (guint i = 0; i < 3; i++)
    ck_assert (metric (f1, i, "vmaf") == metric (f2, i, "vmaf"));
  ck_assert_uint_eq (json_array_get_length (f3), 3);
  for (guint i = 0; i < 3; i++)
    ck_assert_int_eq (json_object_get_int_member
        (json_array_get_object_element (f3, i), "frameNum"), 2 * i);
  /* the shorter input ends the run, with libvmaf's note on stderr */
  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d2, "--json", "-o", o3,
          "-q", NULL), 0);
  ck_assert_msg (strstr (err, "ended before") != NULL, "%s", err);
  g_free (err);
  g_object_unref (p3);
  f3 = frames_of (load_json (o3, &p3));
  ck_assert_uint_eq (json_array_get_length (f3), 3);
  g_object_unref (p1);
  g_object_unref (p2);
  g_object_unref (p3);
  g_free (r);
  g_free (d);
  g_free (r2);
  g_free (d2);
  g_free (o1);
  g_free (o2);
  g_free (o3);
}

END_TEST;

/* Each bad option fails before any work: exit status 1 or 2, a message
 * naming it, and no output file. */
START_TEST (test_bad_options_fail_first)
{
  gchar *r = write_video ("r.y4m", FALSE, 0, 2, TRUE);
  gchar *d = write_video ("d.y4m", TRUE, 0, 2, TRUE);
  gchar *small = g_build_filename (dir, "small.y4m", NULL);
  gchar *out = g_build_filename (dir, "never.json", NULL);
  const struct {
    const char *args[4];
    const char *needle;
  } cases[] = {
    {{"-m", "version=vmaf_v9"}, "vmaf_v9"},
    {{"-m", "version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=x"},
        "wants a number"},
    {{"-m", "version=vmaf_v0.6.1:cambi.window_size=9"}, "does not use"},
    {{"-m", "version=vmaf_v0.6.1:colour=red"}, "unknown option 'colour'"},
    {{"-m", "version=vmaf_v0.6.1", "-m", "version=vmaf_v0.6.1neg"},
        "reported as 'vmaf'"},
    {{"--feature", "ssimulacra"}, "unknown feature 'ssimulacra'"},
    {{"--feature", "psnr=enable_chroma"}, "not OPTION=VALUE"},
    {{"--json", "--csv"}, "one output format"},
    {{"--log-format", "yaml"}, "yaml"},
    {{"--subsample", "0"}, "--subsample"},
    {{"--backend", "opencl"}, "opencl"},
    {{"--feature", "psnr=colour=red"}, "has no option 'colour'"},
    {{"-m", "version=vmaf_v0.6.1:motion.motion_max_val=-1"},
        "outside its range"},
    /* -w/-h/-p/-b must agree with a y4m header; -p/-b take libvmaf's
     * values even then */
    {{"-w", "48"}, "96x64 by its y4m header, not 48x64"},
    {{"-b", "10"}, "8-bit by its y4m header, not 10-bit"},
    {{"-p", "422"}, "4:2:0 by its y4m header, not 422"},
    {{"-p", "411"}, "invalid --pixel_format/-p '411'"},
    {{"-n"}, "nothing to compute"},
  };

  g_file_set_contents (small, "YUV4MPEG2 W48 H32 C420jpeg\n", -1, NULL);
  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
    gchar *err = NULL;
    const char *const *a = cases[k].args;
    int rc = run_cli (&err, "-r", r, "-d", d, "-o", out, a[0], a[1], a[2],
        a[3], NULL);
    ck_assert_msg (rc == 1 || rc == 2, "case %zu: exit %d", k, rc);
    ck_assert_msg (strstr (err, cases[k].needle) != NULL,
        "case %zu: '%s' not in '%s'", k, cases[k].needle, err);
    ck_assert_msg (!g_file_test (out, G_FILE_TEST_EXISTS),
        "case %zu wrote output", k);
    g_free (err);
  }
  {
    gchar *err = NULL;
    /* inputs of different sizes, a missing file, a missing folder, raw
     * input without its geometry */
    ck_assert_int_eq (run_cli (&err, "-r", r, "-d", small, "-o", out, NULL),
        1);
    ck_assert (strstr (err, "96x64") && strstr (err, "48x32"));
    g_free (err);
    ck_assert_int_eq (run_cli (&err, "-r", "/nonexistent/r.y4m", "-d", d,
            NULL), 1);
    ck_assert (strstr (err, "/nonexistent/r.y4m") != NULL);
    g_free (err);
    ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "-o",
            "/nonexistent/out.xml", NULL), 1);
    ck_assert (strstr (err, "/nonexistent/out.xml") != NULL);
    g_free (err);
    ck_assert_int_eq (run_cli (&err, "-r", out, "-d", d, NULL), 1);
    ck_assert (strstr (err, "never.json") != NULL);
    g_free (err);
  }
  {
    /* y4m headers the reader refuses, and a chroma layout that differs
     * from the reference's: all before the first frame */
    const struct {
      const char *header, *needle;
    } headers[] = {
      {"YUV4MPEG2 W96 H64 C444\n", "4:4:4 (Y444)"},
      {"YUV4MPEG2 W96 H64 C411\n", "C411 is not supported"},
      {"YUV4MPEG2 W96 H64 It C420jpeg\n", "interlaced"},
      {"YUV4MPEG2 W96 C420jpeg\n", "no picture size"},
    };
    for (gsize k = 0; k < G_N_ELEMENTS (headers); k++) {
      gchar *err = NULL;
      ck_assert (g_file_set_contents (small, headers[k].header, -1, NULL));
      ck_assert_int_eq (run_cli (&err, "-r", r, "-d", small, "-o", out,
              NULL), 1);
      ck_assert_msg (strstr (err, headers[k].needle) != NULL,
          "'%s' not in '%s'", headers[k].needle, err);
      g_free (err);
    }
  }
  {
    /* raw input: libvmaf's -p and -b values only */
    const char *const bad[][2] = {
      {"-p", "411"}, {"-b", "16"}, {"-f", "RGB"},
    };
    gchar *raw = write_video ("r.yuv", FALSE, 0, 2, FALSE);
    for (gsize k = 0; k < G_N_ELEMENTS (bad); k++) {
      gchar *err = NULL;
      const char *p = k == 0 ? bad[k][1] : "420";
      const char *b = k == 1 ? bad[k][1] : "8";
      int rc = k == 2 ? run_cli (&err, "-r", raw, "-d", raw, "-w", "96",
          "-h", "64", "-f", bad[k][1], "-o", out, NULL) : run_cli (&err,
          "-r", raw, "-d", raw, "-w", "96", "-h", "64", "-p", p, "-b", b,
          "-o", out, NULL);
      ck_assert_int_eq (rc, 1);
      ck_assert_msg (strstr (err, bad[k][0]) && strstr (err, bad[k][1]),
          "'%s %s' not in '%s'", bad[k][0], bad[k][1], err);
      g_free (err);
    }
    g_unlink (raw);
    g_free (raw);
  }
  ck_assert (!g_file_test (out, G_FILE_TEST_EXISTS));
  g_unlink (small);
  g_free (small);
  g_free (out);
  g_free (r);
  g_free (d);
}

END_TEST;

/* -n/--no_prediction: the models' features, overrides included, with the
 * values of a run that predicts, and no model score. */
START_TEST (test_no_prediction)
{
  gchar *r = write_video ("r.y4m", FALSE, 0, 3, TRUE);
  gchar *d = write_video ("d.y4m", TRUE, 0, 3, TRUE);
  gchar *on = g_build_filename (dir, "features.json", NULL);
  gchar *om = g_build_filename (dir, "model.json", NULL);
  const char *model = "version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0";
  gchar *err = NULL;
  JsonParser *pn, *pm;
  JsonArray *fn, *fm;

  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "-m", model, "-n",
          "--json", "-o", on, "-q", NULL), 0);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "-m", model, "--json",
          "-o", om, "-q", NULL), 0);
  g_free (err);
  fn = frames_of (load_json (on, &pn));
  fm = frames_of (load_json (om, &pm));
  ck_assert_uint_eq (json_array_get_length (fn), 3);
  for (guint i = 0; i < 3; i++) {
    JsonObject *m = json_object_get_object_member
        (json_array_get_object_element (fn, i), "metrics");
    ck_assert (!json_object_has_member (m, "vmaf"));
    ck_assert (!json_object_has_member (m, "integer_vif_scale0"));
    ck_assert (metric (fn, i, "integer_vif_scale0_egl_1") ==
        metric (fm, i, "integer_vif_scale0_egl_1"));
    ck_assert (metric (fn, i, "integer_adm2") == metric (fm, i,
            "integer_adm2"));
    ck_assert (metric (fn, i, "integer_motion2") == metric (fm, i,
            "integer_motion2"));
  }
  g_object_unref (pn);
  g_object_unref (pm);
  g_free (r);
  g_free (d);
  g_free (on);
  g_free (om);
}

END_TEST;

/* --backend hip works where a GPU does, and fails cleanly where none is. */
START_TEST (test_backend_hip)
{
  gchar *r = write_video ("r.y4m", FALSE, 0, 2, TRUE);
  gchar *d = write_video ("d.y4m", TRUE, 0, 2, TRUE);
  gchar *err = NULL;
  int rc = run_cli (&err, "-r", r, "-d", d, "--backend", "hip", "-q", NULL);

  if (rc != 0) {
    ck_assert_int_eq (rc, 1);
    ck_assert_msg (strstr (err, "--backend hip: no usable GPU") != NULL,
        "%s", err);
  }
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-v", NULL), 0);
  g_free (err);
  g_free (r);
  g_free (d);
}

END_TEST;

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
 * on every frame.  Skips loudly without ffmpeg. */
START_TEST (test_scaler_as_ffmpeg)
{
  gchar *ffmpeg = g_find_program_in_path ("ffmpeg");
  if (!ffmpeg) {
    fprintf (stderr, "test-cli: SKIPPED test_scaler_as_ffmpeg: ffmpeg not "
        "found (apt-get install ffmpeg)\n");
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
  if (!ffmpeg || !data) {
    fprintf (stderr, "test-cli: SKIPPED test_scaler_as_ffmpeg_vectors: %s\n",
        !ffmpeg ? "ffmpeg not found (apt-get install ffmpeg)"
        : "no test vectors");
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

/* ------------------------------------------------ --repair, -o /dev/full */

#define LOG_FRAMES 24

/* The pooled statistics in the order a log writes them. */
enum { POOL_MIN, POOL_MAX, POOL_MEAN, POOL_HARMONIC_MEAN, N_POOL };
static const char *const pool_keys[N_POOL] = {
  "min", "max", "mean", "harmonic_mean"
};

/* A log's content as the tests compare it: each metric's values in frame
 * order, its pooled statistics where the log has a pooled section. */
typedef struct {
  guint n_frames;
  GPtrArray *names;             /* first-seen order */
  GHashTable *values;           /* name -> GArray of double */
  GHashTable *pooled;           /* name -> double[N_POOL] */
  gboolean has_pooled_section;
  gboolean in_pooled;           /* XML: inside <pooled_metrics> */
  GArray *frame_nums;           /* frameNum of each frame (JSON, XML) */
} Log;

static Log *
log_new (void)
{
  Log *l = g_new0 (Log, 1);
  l->names = g_ptr_array_new_with_free_func (g_free);
  l->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) g_array_unref);
  l->pooled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      g_free);
  l->frame_nums = g_array_new (FALSE, FALSE, sizeof (guint));
  return l;
}

static void
log_free (Log * l)
{
  g_ptr_array_unref (l->names);
  g_hash_table_unref (l->values);
  g_hash_table_unref (l->pooled);
  g_array_unref (l->frame_nums);
  g_free (l);
}

static void
log_add (Log * l, const char *name, double v)
{
  GArray *a = g_hash_table_lookup (l->values, name);
  if (!a) {
    a = g_array_new (FALSE, FALSE, sizeof (double));
    g_hash_table_insert (l->values, g_strdup (name), a);
    g_ptr_array_add (l->names, g_strdup (name));
  }
  g_array_append_val (a, v);
}

static GArray *
log_values (const Log * l, const char *name)
{
  GArray *a = g_hash_table_lookup (l->values, name);
  ck_assert_msg (a != NULL, "no metric '%s'", name);
  return a;
}

static Log *
parse_json_log (const char *path)
{
  JsonParser *parser;
  JsonObject *root = load_json (path, &parser);
  JsonArray *frames = frames_of (root);
  Log *l = log_new ();

  ck_assert (frames != NULL);
  l->n_frames = json_array_get_length (frames);
  for (guint i = 0; i < l->n_frames; i++) {
    JsonObject *f = json_array_get_object_element (frames, i);
    JsonObjectIter it;
    const char *name;
    JsonNode *node;
    guint num = (guint) json_object_get_int_member (f, "frameNum");
    g_array_append_val (l->frame_nums, num);
    json_object_iter_init_ordered (&it, json_object_get_object_member (f,
            "metrics"));
    while (json_object_iter_next_ordered (&it, &name, &node))
      log_add (l, name, json_node_get_double (node));
  }
  l->has_pooled_section = json_object_has_member (root, "pooled_metrics")
      && json_object_has_member (root, "aggregate_metrics");
  if (l->has_pooled_section) {
    JsonObjectIter it;
    const char *name;
    JsonNode *node;
    json_object_iter_init_ordered (&it, json_object_get_object_member (root,
            "pooled_metrics"));
    while (json_object_iter_next_ordered (&it, &name, &node)) {
      double *p = g_new (double, N_POOL);
      for (int k = 0; k < N_POOL; k++)
        p[k] = json_object_get_double_member (json_node_get_object (node),
            pool_keys[k]);
      g_hash_table_insert (l->pooled, g_strdup (name), p);
    }
  }
  g_object_unref (parser);
  return l;
}

static void
xml_log_start (GMarkupParseContext * ctx, const char *element,
    const char **names, const char **values, gpointer data, GError ** error)
{
  Log *l = data;
  (void) ctx;
  (void) error;
  if (!strcmp (element, "frame")) {
    l->n_frames++;
    for (guint k = 0; names[k]; k++) {
      if (!strcmp (names[k], "frameNum")) {
        guint num = (guint) g_ascii_strtoull (values[k], NULL, 10);
        g_array_append_val (l->frame_nums, num);
      } else {
        log_add (l, names[k], g_ascii_strtod (values[k], NULL));
      }
    }
  } else if (!strcmp (element, "pooled_metrics")) {
    l->has_pooled_section = l->in_pooled = TRUE;
  } else if (l->in_pooled && !strcmp (element, "metric")) {
    double *p = g_new (double, N_POOL);
    const char *name = NULL;
    for (guint k = 0; names[k]; k++) {
      if (!strcmp (names[k], "name"))
        name = values[k];
      for (int s = 0; s < N_POOL; s++)
        if (!strcmp (names[k], pool_keys[s]))
          p[s] = g_ascii_strtod (values[k], NULL);
    }
    g_hash_table_insert (l->pooled, g_strdup (name), p);
  }
}

static void
xml_log_end (GMarkupParseContext * ctx, const char *element, gpointer data,
    GError ** error)
{
  Log *l = data;
  (void) ctx;
  (void) error;
  if (!strcmp (element, "pooled_metrics"))
    l->in_pooled = FALSE;
}

/* XML through GMarkup: a log that is not well-formed fails the test. */
static Log *
parse_xml_log (const char *path)
{
  static const GMarkupParser parser = { xml_log_start, xml_log_end, NULL,
    NULL, NULL
  };
  Log *l = log_new ();
  gchar *text;
  gsize len;
  GError *error = NULL;
  ck_assert (g_file_get_contents (path, &text, &len, NULL));
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, l,
      NULL);
  ck_assert_msg (g_markup_parse_context_parse (ctx, text, (gssize) len,
          &error) && g_markup_parse_context_end_parse (ctx, &error),
      "%s: %s", path, error ? error->message : "");
  g_markup_parse_context_free (ctx);
  g_free (text);
  return l;
}

/* CSV ("Frame,name,...,", then "N,value,...,") and subtitles
 * ("{N}{N+1}frame: N|name: value|...|"), a frame a line, every line
 * whole. */
static Log *
parse_line_log (const char *path, gboolean csv)
{
  Log *l = log_new ();
  gchar *text;
  ck_assert (g_file_get_contents (path, &text, NULL, NULL));
  ck_assert_msg (!*text || g_str_has_suffix (text, "\n"),
      "%s ends in a partial line", path);
  gchar **lines = g_strsplit (text, "\n", -1);
  gchar **header = csv ? g_strsplit (lines[0], ",", -1) : NULL;
  if (csv)
    ck_assert_str_eq (header[0], "Frame");
  for (guint i = csv ? 1 : 0; lines[i] && *lines[i]; i++) {
    gchar **f = g_strsplit (lines[i], csv ? "," : "|", -1);
    l->n_frames++;
    for (guint k = 1; f[k] && *f[k]; k++) {
      if (csv) {
        log_add (l, header[k], g_ascii_strtod (f[k], NULL));
      } else {
        gchar **nv = g_strsplit (f[k], ": ", 2);
        log_add (l, nv[0], g_ascii_strtod (nv[1], NULL));
        g_strfreev (nv);
      }
    }
    g_strfreev (f);
  }
  g_strfreev (header);
  g_strfreev (lines);
  g_free (text);
  return l;
}

static Log *
parse_log (const char *format, const char *path)
{
  if (!strcmp (format, "json"))
    return parse_json_log (path);
  if (!strcmp (format, "xml"))
    return parse_xml_log (path);
  return parse_line_log (path, !strcmp (format, "csv"));
}

/* The pooled statistics of values as libvmaf pools them. */
static void
pool_of (const GArray * a, double pooled[N_POOL])
{
  double sum = 0, inv_sum = 0;
  pooled[POOL_MIN] = INFINITY;
  pooled[POOL_MAX] = -INFINITY;
  for (guint i = 0; i < a->len; i++) {
    const double v = g_array_index (a, double, i);
    sum += v;
    inv_sum += 1.0 / (v + 1.0);
    pooled[POOL_MIN] = MIN (pooled[POOL_MIN], v);
    pooled[POOL_MAX] = MAX (pooled[POOL_MAX], v);
  }
  pooled[POOL_MEAN] = sum / a->len;
  pooled[POOL_HARMONIC_MEAN] = a->len / inv_sum - 1.0;
}

/* How far rounding every value by up to `step` can move their harmonic
 * mean: its derivatives, n Σ 1/(x+1)² / (Σ 1/(x+1))², times the step. */
static double
harmonic_mean_spread (const GArray * a, double step)
{
  double s1 = 0, s2 = 0;
  for (guint i = 0; i < a->len; i++) {
    const double inv = 1.0 / (g_array_index (a, double, i) + 1.0);
    s1 += inv;
    s2 += inv * inv;
  }
  return a->len * s2 / (s1 * s1) * step * 1.01;
}

/* A finished log of a synthetic run, PSNR included (metrics of several
 * magnitudes); `extra` an option more (NULL: none). */
static gchar *
write_log (const char *name, const char *format, const char *extra,
    const char *extra_value)
{
  gchar *path = g_build_filename (dir, name, NULL);
  gchar *flag = g_strdup_printf ("--%s", format);
  gchar *frames = g_strdup_printf ("%d", LOG_FRAMES);
  gchar *err = NULL;
  ck_assert_int_eq (run_cli (&err, "--synthetic", "96x64", "--frame_cnt",
          frames, "--feature", "psnr", flag, "-o", path, "-q", extra,
          extra_value, NULL), 0);
  g_free (err);
  g_free (flag);
  g_free (frames);
  return path;
}

/* Where a finished log's head ends, where each frame ends and where its
 * frames' end starts, by the writer's layout (common/log.c): a JSON frame
 * closes with "\n    }", an XML frame is "<frame ... />\n", CSV and
 * subtitles have a frame a line. */
static GArray *
frame_ends (const char *format, const char *text, gsize * head_end,
    gsize * frames_close)
{
  GArray *ends = g_array_new (FALSE, FALSE, sizeof (gsize));
  const char *p, *q;
  if (!strcmp (format, "json")) {
    *head_end = strstr (text, "\"frames\": [") - text + 11;
    *frames_close = strstr (text, "\n  ],\n  \"pooled_metrics\"") - text;
    for (p = text + *head_end; (q = strstr (p, "\n    }"))
        && q < text + *frames_close; p = q + 6) {
      gsize e = q - text + 6;
      g_array_append_val (ends, e);
    }
  } else if (!strcmp (format, "xml")) {
    *head_end = strstr (text, "<frames>\n") - text + 9;
    *frames_close = strstr (text, "  </frames>") - text;
    for (p = text; (q = strstr (p, "<frame frameNum=")); p = q) {
      q = strstr (q, "/>\n") + 3;
      gsize e = q - text;
      g_array_append_val (ends, e);
    }
  } else {
    *head_end = !strcmp (format, "csv") ? strchr (text, '\n') - text + 1 : 0;
    *frames_close = strlen (text);
    for (p = text + *head_end; (q = strchr (p, '\n')); p = q + 1) {
      gsize e = q - text + 1;
      g_array_append_val (ends, e);
    }
  }
  return ends;
}

/* A pooled value against the one expected, within `tolerance`. */
static void
check_close (double got, double want, double tolerance, const char *what,
    const char *label, double *worst)
{
  ck_assert_msg (fabs (got - want) <= tolerance, "%s: %s %.9f, expected "
      "%.9f (within %.1e)", label, what, got, want, tolerance);
  if (worst)
    *worst = MAX (*worst, fabs (got - want));
}

/* Each metric's mean as --repair printed it ("  name: mean X ..."). */
static double
printed_mean (const char *out, const char *name)
{
  gchar *needle = g_strdup_printf ("  %s: mean ", name);
  const char *at = strstr (out, needle);
  ck_assert_msg (at != NULL, "'%s' not in '%s'", needle, out);
  const double v = g_ascii_strtod (at + strlen (needle), NULL);
  g_free (needle);
  return v;
}

/* Cuts the finished log `text` at `cut`, adds `zeros` zero bytes (what a
 * power loss can leave), repairs it and checks that the result parses,
 * holds exactly the first `kept` frames of `orig` (the first `keep` bytes
 * unchanged), and that its pooled values, and those --repair printed, are
 * those of the kept frames' values; a second --repair leaves it as it is.
 * Returns the repaired log. */
static Log *
check_repair (const char *format, const gchar * text, gsize cut, gsize zeros,
    guint kept, gsize keep, const Log * orig, const char *label)
{
  gchar *path = g_strdup_printf ("%s/cut.%s", dir, format);
  GString *data = g_string_new_len (text, (gssize) cut);
  gchar *out = NULL, *err = NULL, *again = NULL, *repaired, *twice;
  gsize repaired_len, twice_len;
  const gboolean line_log = !strcmp (format, "csv")
      || !strcmp (format, "sub");
  const gboolean whole = line_log && !zeros && cut && text[cut - 1] == '\n';

  for (gsize k = 0; k < zeros; k++)
    g_string_append_c (data, '\0');
  ck_assert (g_file_set_contents (path, data->str, (gssize) data->len,
          NULL));
  const int rc = run_cli_out (&out, &err, "--repair", path, NULL);
  ck_assert_msg (rc == 0, "%s: exit %d: %s", label, rc, err);
  if (whole) {
    ck_assert_msg (strstr (out, "is complete") != NULL, "%s: %s", label,
        out);
  } else {
    gchar *said = g_strdup_printf ("%u complete frames kept", kept);
    ck_assert_msg (strstr (out, said) != NULL, "%s: '%s' not in '%s'",
        label, said, out);
    g_free (said);
    if (zeros) {
      gchar *z = g_strdup_printf ("%zu zero bytes dropped", zeros);
      ck_assert_msg (strstr (out, z) != NULL, "%s: %s", label, out);
      g_free (z);
    }
  }
  ck_assert (g_file_get_contents (path, &repaired, &repaired_len, NULL));
  ck_assert_msg (repaired_len >= keep && !memcmp (repaired, text, keep),
      "%s: the kept frames changed", label);

  Log *l = parse_log (format, path);
  ck_assert_msg (l->n_frames == kept, "%s: %u frames, expected %u", label,
      l->n_frames, kept);
  for (guint m = 0; kept && m < orig->names->len; m++) {
    const char *name = g_ptr_array_index (orig->names, m);
    GArray *got = log_values (l, name), *want = log_values (orig, name);
    ck_assert_uint_eq (got->len, kept);
    for (guint i = 0; i < kept; i++)
      ck_assert (g_array_index (got, double, i) == g_array_index (want,
              double, i));
  }
  for (guint i = 0; i < l->frame_nums->len; i++)
    ck_assert_uint_eq (g_array_index (l->frame_nums, guint, i),
        g_array_index (orig->frame_nums, guint, i));

  /* pooled from the kept values: the same doubles, rounded once when
   * printed (%.6f) */
  if (!line_log)
    ck_assert_msg (l->has_pooled_section, "%s: no pooled section", label);
  if (!line_log && !kept)
    ck_assert_uint_eq (g_hash_table_size (l->pooled), 0);
  for (guint m = 0; kept && m < l->names->len; m++) {
    const char *name = g_ptr_array_index (l->names, m);
    double want[N_POOL];
    pool_of (log_values (l, name), want);
    if (!whole)
      check_close (printed_mean (out, name), want[POOL_MEAN], 5e-7 + 1e-9,
          "printed mean", label, NULL);
    if (line_log)
      continue;
    const double *got = g_hash_table_lookup (l->pooled, name);
    ck_assert_msg (got != NULL, "%s: '%s' not pooled", label, name);
    for (int k = 0; k < N_POOL; k++)
      check_close (got[k], want[k], 5e-7 + 1e-9, pool_keys[k], label, NULL);
  }

  /* finished now: a second repair leaves it byte for byte */
  ck_assert_int_eq (run_cli_out (&again, NULL, "--repair", path, NULL), 0);
  ck_assert_msg (strstr (again, "is complete") != NULL, "%s: %s", label,
      again);
  ck_assert (g_file_get_contents (path, &twice, &twice_len, NULL));
  ck_assert (twice_len == repaired_len && !memcmp (twice, repaired,
          repaired_len));

  g_string_free (data, TRUE);
  g_free (twice);
  g_free (again);
  g_free (repaired);
  g_free (out);
  g_free (err);
  g_free (path);
  return l;
}

/* Nothing but the pooled section cut: the pooled values recomputed from
 * the printed frames against the writer's own. Means: within one unit of
 * the last printed digit (each frame's value is off by at most half a
 * unit, so is their mean, and two numbers within half a unit print at
 * most one unit apart); harmonic means: one unit plus what rounding every
 * value can move them; min and max: the same. */
static void
check_against_original (const Log * l, const Log * orig, const char *label)
{
  double worst[N_POOL] = { 0 };
  ck_assert_uint_eq (g_hash_table_size (l->pooled),
      g_hash_table_size (orig->pooled));
  for (guint m = 0; m < orig->names->len; m++) {
    const char *name = g_ptr_array_index (orig->names, m);
    const double *got = g_hash_table_lookup (l->pooled, name);
    const double *want = g_hash_table_lookup (orig->pooled, name);
    ck_assert (got && want);
    check_close (got[POOL_MIN], want[POOL_MIN], 1e-9, "min", label,
        &worst[POOL_MIN]);
    check_close (got[POOL_MAX], want[POOL_MAX], 1e-9, "max", label,
        &worst[POOL_MAX]);
    check_close (got[POOL_MEAN], want[POOL_MEAN], 1e-6 + 1e-9, "mean",
        label, &worst[POOL_MEAN]);
    check_close (got[POOL_HARMONIC_MEAN], want[POOL_HARMONIC_MEAN], 1e-6 +
        harmonic_mean_spread (log_values (l, name), 5e-7) + 1e-9,
        "harmonic_mean", label, &worst[POOL_HARMONIC_MEAN]);
  }
  fprintf (stderr, "test-cli: --repair, %s, %u metrics over %u frames: "
      "pooled from the printed frames against the writer's: mean %.1e, "
      "harmonic_mean %.1e, min %.1e, max %.1e apart at most\n", label,
      orig->names->len, orig->n_frames, worst[POOL_MEAN],
      worst[POOL_HARMONIC_MEAN], worst[POOL_MIN], worst[POOL_MAX]);
}

/* A log of each format cut in its header, right after it, mid-frame,
 * right after a frame, mid-frame with zero bytes after, in its last frame,
 * and (JSON, XML) in its pooled section and in its last line. */
static void
repair_format (const char *format)
{
  gchar *name = g_strdup_printf ("full.%s", format);
  gchar *full = write_log (name, format, NULL, NULL);
  gchar *text;
  gsize len, head_end, frames_close;
  ck_assert (g_file_get_contents (full, &text, &len, NULL));
  Log *orig = parse_log (format, full);
  GArray *ends = frame_ends (format, text, &head_end, &frames_close);
  const gsize *end = (const gsize *) ends->data;
  const guint n = LOG_FRAMES;
  const gboolean pooled = !strcmp (format, "json") || !strcmp (format,
      "xml");
  const struct {
    const char *label;
    gsize cut, zeros;
    guint kept;
    gsize keep;
  } cases[] = {
    {"inside the header", head_end / 2, 0, 0, 0},
    {"right after the header", head_end, 0, 0, head_end},
    {"mid-frame", (end[2] + end[3]) / 2, 0, 3, end[2]},
    {"right after a frame", end[3], 0, 4, end[3]},
    {"mid-frame, zero bytes after", (end[2] + end[3]) / 2, 4096, 3, end[2]},
    {"in the last frame", end[n - 1] - 2, 0, n - 1, end[n - 2]},
    /* XML: the frame's tag whole, its newline not */
    {"before a frame's newline", end[5] - 1, 0, 6, end[5] - 1},
    {"in the pooled section", (frames_close + len) / 2, 0, n, end[n - 1]},
    /* its last character before the final newline */
    {"in its last line", len - 2, 0, n, end[n - 1]},
  };

  ck_assert_uint_eq (orig->n_frames, n);
  ck_assert_uint_eq (ends->len, n);
  for (gsize c = 0; c < G_N_ELEMENTS (cases); c++) {
    if (c >= 6 && !pooled)
      break;
    if (c < 2 && !strcmp (format, "sub"))
      continue;                 /* subtitles have no header */
    if (c == 6 && strcmp (format, "xml"))
      continue;
    gchar *label = g_strdup_printf ("%s cut %s (byte %zu of %zu)", format,
        cases[c].label, cases[c].cut, len);
    Log *l = check_repair (format, text, cases[c].cut, cases[c].zeros,
        cases[c].kept, cases[c].keep, orig, label);
    if (cases[c].kept == n)
      check_against_original (l, orig, label);
    log_free (l);
    g_free (label);
  }
  /* a complete log: left byte for byte, saying so */
  gchar *out = NULL, *after;
  gsize after_len;
  ck_assert_int_eq (run_cli_out (&out, NULL, "--repair", full, NULL), 0);
  ck_assert_msg (strstr (out, "is complete") != NULL, "%s", out);
  ck_assert (g_file_get_contents (full, &after, &after_len, NULL));
  ck_assert (after_len == len && !memcmp (after, text, len));
  g_free (after);
  g_free (out);
  g_array_unref (ends);
  log_free (orig);
  g_free (text);
  g_free (full);
  g_free (name);
}

START_TEST (test_repair_json)
{
  repair_format ("json");
}

END_TEST;

START_TEST (test_repair_xml)
{
  repair_format ("xml");
}

END_TEST;

START_TEST (test_repair_csv)
{
  repair_format ("csv");
}

END_TEST;

START_TEST (test_repair_sub)
{
  repair_format ("sub");
}

END_TEST;

/* --subsample 3: the kept frames are 0, 3, 6, ... and the pooled section
 * pools them alone. */
START_TEST (test_repair_subsample)
{
  gchar *full = write_log ("sub3.json", "json", "--subsample", "3");
  gchar *text;
  gsize head_end, frames_close;
  ck_assert (g_file_get_contents (full, &text, NULL, NULL));
  Log *orig = parse_log ("json", full);
  GArray *ends = frame_ends ("json", text, &head_end, &frames_close);
  const gsize *end = (const gsize *) ends->data;
  ck_assert_uint_eq (orig->n_frames, LOG_FRAMES / 3);
  Log *l = check_repair ("json", text, (end[3] + end[4]) / 2, 0, 4, end[3],
      orig, "json --subsample 3 cut mid-frame");
  ck_assert_uint_eq (g_array_index (l->frame_nums, guint, 3), 9);
  log_free (l);
  l = check_repair ("json", text, (frames_close + strlen (text)) / 2, 0,
      LOG_FRAMES / 3, end[LOG_FRAMES / 3 - 1], orig,
      "json --subsample 3 cut in the pooled section");
  check_against_original (l, orig, "json --subsample 3");
  log_free (l);
  g_array_unref (ends);
  log_free (orig);
  g_free (text);
  g_free (full);
}

END_TEST;

/* What --repair refuses, leaving the file as it was: a file that is not a
 * results file, one damaged in the middle, a missing one, --repair with
 * scoring options; and it leaves no temporary file behind. */
START_TEST (test_repair_refuses)
{
  gchar *full = write_log ("refuse.json", "json", NULL, NULL);
  gchar *video = write_video ("refuse.y4m", FALSE, 0, 1, TRUE);
  gchar *damaged = g_build_filename (dir, "damaged.json", NULL);
  gchar *text = g_build_filename (dir, "notes.txt", NULL);
  gchar *json = g_build_filename (dir, "other.json", NULL);
  gchar *log, *before, *after;
  gsize log_len, before_len, after_len;
  const struct {
    const char *path, *needle;
  } cases[] = {
    {video, "not a vmafhip or libvmaf results file: it starts with "
          "'YUV4MPEG2"},
    {text, "not a vmafhip or libvmaf results file"},
    {json, "its root has the key 'name' where a results file has "
          "\"version\""},
    {damaged, "is damaged at byte 2000"},
  };

  ck_assert (g_file_get_contents (full, &log, &log_len, NULL));
  ck_assert (g_file_set_contents (text, "scores of today\n", -1, NULL));
  ck_assert (g_file_set_contents (json, "{\"name\": \"x\"}\n", -1, NULL));
  /* a log cut short whose middle was overwritten */
  GString *d = g_string_new_len (log, (gssize) log_len / 2);
  d->str[2000] = '\x01';
  ck_assert (g_file_set_contents (damaged, d->str, (gssize) d->len, NULL));
  g_string_free (d, TRUE);
  for (gsize k = 0; k < G_N_ELEMENTS (cases); k++) {
    gchar *err = NULL;
    ck_assert (g_file_get_contents (cases[k].path, &before, &before_len,
            NULL));
    const int rc = run_cli (&err, "--repair", cases[k].path, NULL);
    ck_assert_msg (rc == 1, "%s: exit %d", cases[k].path, rc);
    ck_assert_msg (strstr (err, cases[k].needle) != NULL, "'%s' not in "
        "'%s'", cases[k].needle, err);
    ck_assert_msg (strstr (err, cases[k].path) != NULL, "%s", err);
    ck_assert (g_file_get_contents (cases[k].path, &after, &after_len,
            NULL));
    ck_assert (after_len == before_len && !memcmp (after, before,
            before_len));
    g_free (after);
    g_free (before);
    g_free (err);
  }
  {
    gchar *err = NULL;
    gchar *missing = g_build_filename (dir, "missing.json", NULL);
    ck_assert_int_eq (run_cli (&err, "--repair", missing, NULL), 1);
    ck_assert_msg (strstr (err, missing) != NULL, "%s", err);
    g_free (err);
    ck_assert_int_eq (run_cli (&err, "--repair", full, "--synthetic",
            "96x64", NULL), 1);
    ck_assert_msg (strstr (err, "--repair FILE works on that file alone"),
        "%s", err);
    g_free (err);
    g_free (missing);
  }
  /* no temporary file left in the folder by any repair */
  GDir *listing = g_dir_open (dir, 0, NULL);
  for (const char *n; (n = g_dir_read_name (listing));)
    ck_assert_msg (!strstr (n, ".repair-"), "left behind: %s", n);
  g_dir_close (listing);
  g_free (log);
  g_free (full);
  g_free (video);
  g_free (damaged);
  g_free (text);
  g_free (json);
}

END_TEST;

/* A results file that cannot be written (/dev/full: every write fails
 * with ENOSPC): the scoring goes on, the pooled scores are printed, then
 * the error, and the exit status is 1. */
START_TEST (test_log_unwritable)
{
  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS)) {
    fprintf (stderr, "test-cli: SKIPPED test_log_unwritable: no /dev/full\n");
    return;
  }
  for (int quiet = 0; quiet < 2; quiet++) {
    gchar *out = NULL, *err = NULL;
    const int rc = run_cli_out (&out, &err, "--synthetic", "96x64",
        "--frame_cnt", "6", "--json", "-o", "/dev/full",
        quiet ? "-q" : NULL, NULL);
    ck_assert_int_eq (rc, 1);
    ck_assert_msg (strstr (out, "pooled over 6 frames") != NULL, "%s", out);
    ck_assert_msg (strstr (out, "  vmaf: mean ") != NULL, "%s", out);
    ck_assert_msg (strstr (err, "cannot write results file '/dev/full'")
        != NULL, "%s", err);
    ck_assert_msg (strstr (err, g_strerror (ENOSPC)) != NULL, "%s", err);
    g_free (out);
    g_free (err);
  }
}

END_TEST;

int
main (int argc, char **argv)
{
  Suite *s = suite_create ("cli");
  TCase *tc = tcase_create ("vmafhip-score");
  SRunner *sr;
  int failed;

  if (argc < 2) {
    fprintf (stderr, "usage: test-cli PATH-TO-vmafhip-score\n");
    return 2;
  }
  score_bin = argv[1];
  dir = g_dir_make_tmp ("vmafhip-cli-XXXXXX", NULL);
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_y4m_equals_raw);
  tcase_add_test (tc, test_frame_options);
  tcase_add_test (tc, test_bad_options_fail_first);
  tcase_add_test (tc, test_no_prediction);
  tcase_add_test (tc, test_backend_hip);
  tcase_add_test (tc, test_scaled_distorted);
  tcase_add_test (tc, test_scaler_as_ffmpeg);
  tcase_add_test (tc, test_scaler_as_ffmpeg_vectors);
  tcase_add_test (tc, test_log_unwritable);
  suite_add_tcase (s, tc);
  tc = tcase_create ("repair");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_repair_json);
  tcase_add_test (tc, test_repair_xml);
  tcase_add_test (tc, test_repair_csv);
  tcase_add_test (tc, test_repair_sub);
  tcase_add_test (tc, test_repair_subsample);
  tcase_add_test (tc, test_repair_refuses);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  /* the files are small; remove them */
  GDir *d = g_dir_open (dir, 0, NULL);
  for (const char *n; d && (n = g_dir_read_name (d));) {
    gchar *p = g_build_filename (dir, n, NULL);
    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
  return failed ? 1 : 0;
}
