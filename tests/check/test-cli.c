/* vmafhip — vmafhip-score as libvmaf's `vmaf` CLI: y4m and raw input give
 * the same scores, the frame options select the right frames, and every
 * bad option fails before any frame is scored, naming the problem (a
 * smaller distorted video: test-cli-scale.c).
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
#include "vh-cli-test-util.h"
#include "scale.h"

#define W CLI_TEST_W
#define H CLI_TEST_H
#define N 6

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

/* --raw_chroma libvmaf reads an odd-size raw file as libvmaf 3.2.0's CLI
 * does: chroma planes w/2 wide and h/2 tall (4:2:2: h tall), packed.  A
 * pair written that way (OW x OH, three frames, each its own content)
 * scores as the standard-layout pair ((w+1)/2 x (h+1)/2 chroma) that
 * holds the same samples plus a last chroma column and row equal in
 * reference and distorted: luma metrics and VMAF the same, and PSNR's
 * chroma over a plane of the same squared error and fewer samples, so
 * psnr_cb/cr (libvmaf layout) = psnr_cb/cr (standard) - 10 log10
 * (n_standard / n_libvmaf).  Without the option the file is not a whole
 * number of standard frames and the run fails naming it. */
#define OW 67
#define OH 45
#define ON 3

static void
write_odd_pair (const char *ref_path, const char *dis_path, gboolean dist,
    unsigned sub_y, gboolean libvmaf_layout, guint32 seed)
{
  FILE *f = fopen (dist ? dis_path : ref_path, "wb");
  GRand *rand = g_rand_new_with_seed (seed);
  GRand *noise = g_rand_new_with_seed (seed + 1);
  const unsigned cw = (OW + 1) / 2, ch = sub_y ? (OH + 1) / 2 : OH;
  const unsigned fw = OW / 2, fh = sub_y ? OH / 2 : OH;

  ck_assert (f != NULL);
  for (guint k = 0; k < ON; k++) {
    guint8 luma[OW * OH], chroma[2][(OW + 1) / 2 * OH];
    /* the same content in both files; the distorted adds noise */
    for (guint i = 0; i < OW * OH; i++)
      luma[i] = (guint8) g_rand_int_range (rand, 16, 236);
    for (guint p = 0; p < 2; p++)
      for (guint i = 0; i < cw * ch; i++)
        chroma[p][i] = (guint8) g_rand_int_range (rand, 16, 240);
    if (dist) {
      for (guint i = 0; i < OW * OH; i++)
        luma[i] = (guint8) CLAMP ((int) luma[i] + g_rand_int_range (noise,
                -6, 7), 0, 255);
      /* the last column and row stay equal to the reference's */
      for (guint p = 0; p < 2; p++)
        for (guint y = 0; y < fh; y++)
          for (guint x = 0; x < fw; x++)
            chroma[p][y * cw + x] = (guint8) CLAMP ((int) chroma[p][y * cw
                    + x] + g_rand_int_range (noise, -9, 10), 0, 255);
    }
    ck_assert_uint_eq (fwrite (luma, 1, OW * OH, f), OW * OH);
    for (guint p = 0; p < 2; p++) {
      if (!libvmaf_layout) {
        ck_assert_uint_eq (fwrite (chroma[p], 1, cw * ch, f), cw * ch);
        continue;
      }
      for (guint y = 0; y < fh; y++)
        ck_assert_uint_eq (fwrite (chroma[p] + y * cw, 1, fw, f), fw);
    }
  }
  fclose (f);
  g_rand_free (rand);
  g_rand_free (noise);
}

START_TEST (test_raw_chroma_libvmaf)
{
  static const struct {
    const char *p;
    unsigned sub_y;
  } layouts[] = { {"420", 1}, {"422", 0} };

  for (guint l = 0; l < G_N_ELEMENTS (layouts); l++) {
    const unsigned sub_y = layouts[l].sub_y;
    gchar *path[2][2], *log[2], *err = NULL;
    JsonParser *parser[2];
    JsonArray *frames[2];
    const double n_std = (double) ((OW + 1) / 2) * (sub_y ? (OH + 1) / 2 :
        OH), n_lib = (double) (OW / 2) * (sub_y ? OH / 2 : OH);

    for (guint k = 0; k < 2; k++) {
      for (guint d = 0; d < 2; d++)
        path[k][d] = g_strdup_printf ("%s/odd-%s-%s-%s.yuv", dir,
            layouts[l].p, k ? "libvmaf" : "standard", d ? "dis" : "ref");
      for (guint d = 0; d < 2; d++)
        write_odd_pair (path[k][0], path[k][1], d, sub_y, k, 70 + l);
      log[k] = g_strdup_printf ("%s/odd-%s-%u.json", dir, layouts[l].p, k);
    }
    ck_assert_int_eq (run_cli (&err, "-r", path[0][0], "-d", path[0][1],
            "-w", "67", "-h", "45", "-p", layouts[l].p, "-b", "8",
            "--feature", "psnr", "--json", "-o", log[0], "-q", NULL), 0);
    g_free (err);
    ck_assert_int_eq (run_cli (&err, "-r", path[1][0], "-d", path[1][1],
            "-w", "67", "-h", "45", "-p", layouts[l].p, "-b", "8",
            "--raw_chroma", "libvmaf", "--feature", "psnr", "--json", "-o",
            log[1], "-q", NULL), 0);
    g_free (err);
    for (guint k = 0; k < 2; k++) {
      frames[k] = frames_of (load_json (log[k], &parser[k]));
      ck_assert_uint_eq (json_array_get_length (frames[k]), ON);
    }
    for (guint i = 0; i < ON; i++) {
      ck_assert (metric (frames[0], i, "vmaf") == metric (frames[1], i,
              "vmaf"));
      ck_assert (metric (frames[0], i, "psnr_y") == metric (frames[1], i,
              "psnr_y"));
      ck_assert (metric (frames[0], i, "psnr_y") < 60.0);
      for (guint p = 0; p < 2; p++) {
        const char *name = p ? "psnr_cr" : "psnr_cb";
        const double std = metric (frames[0], i, name);
        const double lib = metric (frames[1], i, name);
        ck_assert_msg (std < 60.0, "%s frame %u: no error to compare", name,
            i);
        /* both printed with 6 decimals */
        ck_assert_msg (fabs (lib - (std - 10. * log10 (n_std / n_lib)))
            <= 1.1e-6, "%s %s frame %u: %.6f in libvmaf's layout, %.6f in "
            "the standard one", layouts[l].p, name, i, lib, std);
      }
    }
    /* the default is the standard layout: libvmaf's file is shorter */
    ck_assert_int_eq (run_cli (&err, "-r", path[1][0], "-d", path[1][1],
            "-w", "67", "-h", "45", "-p", layouts[l].p, "-b", "8", "-q",
            NULL), 1);
    ck_assert_msg (strstr (err, "partial") != NULL, "%s", err);
    g_free (err);
    /* a bad value, and the option without a raw input */
    ck_assert_int_eq (run_cli (&err, "-r", path[1][0], "-d", path[1][1],
            "-w", "67", "-h", "45", "-p", layouts[l].p, "-b", "8",
            "--raw_chroma", "floor", NULL), 1);
    ck_assert_msg (strstr (err, "standard or libvmaf") != NULL, "%s", err);
    g_free (err);
    for (guint k = 0; k < 2; k++) {
      g_object_unref (parser[k]);
      for (guint d = 0; d < 2; d++) {
        g_unlink (path[k][d]);
        g_free (path[k][d]);
      }
      g_unlink (log[k]);
      g_free (log[k]);
    }
  }
  {
    gchar *ry = write_video ("rc.y4m", FALSE, 0, 2, TRUE);
    gchar *dy = write_video ("dc.y4m", TRUE, 0, 2, TRUE);
    gchar *err = NULL;
    ck_assert_int_eq (run_cli (&err, "-r", ry, "-d", dy, "--raw_chroma",
            "libvmaf", NULL), 1);
    ck_assert_msg (strstr (err, "raw") != NULL, "%s", err);
    g_free (err);
    g_free (ry);
    g_free (dy);
  }
}

END_TEST;

/* psnr=enable_apsnr=true: the log's aggregate_metrics hold libvmaf's
 * apsnr_y/cb/cr, from the squared errors summed over every frame (read
 * here from the files) with libvmaf's formula and cap; every frame counts
 * with --subsample 2 too (libvmaf's psnr is temporal), with threads alike;
 * with enable_chroma=false the chroma aggregates are -inf (JSON null). */
START_TEST (test_apsnr)
{
  gchar *rr = write_video ("ar.yuv", FALSE, 0, N, FALSE);
  gchar *dr = write_video ("ad.yuv", TRUE, 0, N, FALSE);
  gchar *log = g_build_filename (dir, "apsnr.json", NULL);
  gchar *ref = NULL, *dis = NULL, *err = NULL;
  gsize len, dlen;
  const size_t luma = W * H, chroma = (W / 2) * (H / 2);
  const size_t offset[3] = { 0, luma, luma + chroma };
  const size_t count[3] = { luma, chroma, chroma };
  guint64 sse[3] = { 0 };
  static const char *const names[3] = { "apsnr_y", "apsnr_cb", "apsnr_cr" };
  static const char *const runs[][4] = {
    {"--threads", "1", "--subsample", "1"},
    {"--threads", "3", "--subsample", "2"},
  };

  ck_assert (g_file_get_contents (rr, &ref, &len, NULL));
  ck_assert (g_file_get_contents (dr, &dis, &dlen, NULL));
  ck_assert_uint_eq (len, N * (luma + 2 * chroma));
  for (guint f = 0; f < N; f++)
    for (guint p = 0; p < 3; p++)
      for (size_t i = 0; i < count[p]; i++) {
        const size_t at = f * (luma + 2 * chroma) + offset[p] + i;
        const int e = (guint8) ref[at] - (guint8) dis[at];
        sse[p] += (guint64) (e * e);
      }
  for (guint r = 0; r < G_N_ELEMENTS (runs); r++) {
    JsonParser *parser;
    ck_assert_int_eq (run_cli (&err, "-r", rr, "-d", dr, "-w", "96", "-h",
            "64", "-p", "420", "-b", "8", runs[r][0], runs[r][1], runs[r][2],
            runs[r][3], "--feature", "psnr=enable_apsnr=true", "--json",
            "-o", log, "-q", NULL), 0);
    g_free (err);
    JsonObject *agg = json_object_get_object_member (load_json (log,
            &parser), "aggregate_metrics");
    for (guint p = 0; p < 3; p++) {
      const double n = (double) (N * count[p]);
      ck_assert (sse[p] > 0);
      double want = 10 * (log10 (255.0 * 255.0) + log10 (n)
          - log10 ((double) sse[p]));
      want = MIN (want, ceil (10 * log10 (255.0 * 255.0 * n * 2)));
      ck_assert_msg (json_object_has_member (agg, names[p]), "no %s",
          names[p]);
      ck_assert_msg (fabs (json_object_get_double_member (agg, names[p])
              - want) <= 5e-7 + 1e-12, "%s: %.6f, the files' %.9f", names[p],
          json_object_get_double_member (agg, names[p]), want);
    }
    g_object_unref (parser);
  }
  /* chroma off: libvmaf writes the chroma aggregates all the same, -inf */
  {
    JsonParser *parser;
    ck_assert_int_eq (run_cli (&err, "-r", rr, "-d", dr, "-w", "96", "-h",
            "64", "-p", "420", "-b", "8", "--feature",
            "psnr=enable_apsnr=true:enable_chroma=false", "--json", "-o", log,
            "-q", NULL), 0);
    g_free (err);
    JsonObject *agg = json_object_get_object_member (load_json (log,
            &parser), "aggregate_metrics");
    ck_assert_uint_eq (json_object_get_size (agg), 3);
    ck_assert (!json_node_is_null (json_object_get_member (agg, "apsnr_y")));
    ck_assert (json_node_is_null (json_object_get_member (agg, "apsnr_cb")));
    g_object_unref (parser);
  }
  g_free (ref);
  g_free (dis);
  g_free (rr);
  g_free (dr);
  g_free (log);
}

END_TEST;

/* On the test vectors: libvmaf 3.2.0's own aggregates (its CLI, `--threads
 * 1 --no_prediction --feature psnr=enable_apsnr=true --json`, printed with
 * 6 decimals), equal at every printed digit; skips loudly without them. */
START_TEST (test_apsnr_vectors)
{
  static const struct
  {
    const char *name;
    const char *w, *h, *fmt, *bits;
    double apsnr[3];            /* libvmaf 3.2.0: y, cb, cr */
  } clips[] = {
    { "src01_160x90", "160", "90", "420", "8",
        { 37.298282, 43.389881, 45.494265 } },
    { "src01_576x324_10b", "576", "324", "420", "10",
        { 32.298023, 39.035447, 41.279903 } },
    { "hall_352x288", "352", "288", "420", "8",
        { 36.479772, 39.479098, 41.164954 } },
    { "dark_1920x1080", "1920", "1080", "420", "8",
        { 49.462113, 49.969811, 53.676191 } },
    { "bsds_481x321_444", "481", "321", "444", "8",
        { 21.711232, 21.677629, 21.696035 } },
  };
  static const char *const names[3] = { "apsnr_y", "apsnr_cb", "apsnr_cr" };
  const char *data = vh_test_testdata_dir ();
  if (!data) {
    fprintf (stderr, "test-cli: SKIPPED test_apsnr_vectors: no test vectors "
        "(../shared/testdata)\n");
    return;
  }
  gchar *log = g_build_filename (dir, "apsnr-vectors.json", NULL);
  for (guint c = 0; c < G_N_ELEMENTS (clips); c++) {
    gchar *rn = g_strdup_printf ("%s_ref.yuv", clips[c].name);
    gchar *dn = g_strdup_printf ("%s_dis.yuv", clips[c].name);
    gchar *ref = g_build_filename (data, "clips", rn, NULL);
    gchar *dis = g_build_filename (data, "clips", dn, NULL);
    gchar *err = NULL;
    JsonParser *parser;
    ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", dis, "-w", clips[c].w,
            "-h", clips[c].h, "-p", clips[c].fmt, "-b", clips[c].bits, "-n",
            "--feature", "psnr=enable_apsnr=true", "--json", "-o", log, "-q",
            NULL), 0);
    g_free (err);
    JsonObject *agg = json_object_get_object_member (load_json (log,
            &parser), "aggregate_metrics");
    for (guint p = 0; p < 3; p++)
      ck_assert_msg (fabs (json_object_get_double_member (agg, names[p])
              - clips[c].apsnr[p]) < 5e-7, "%s %s: %.6f, libvmaf %.6f",
          clips[c].name, names[p], json_object_get_double_member (agg,
              names[p]), clips[c].apsnr[p]);
    g_object_unref (parser);
    g_free (rn);
    g_free (dn);
    g_free (ref);
    g_free (dis);
  }
  g_free (log);
}

END_TEST;

/* The log's keys are libvmaf's: every metric of the first frame and of the
 * pooled section, both ways, against the golden logs of libvmaf 3.2.0's
 * runs (the same models under the same names, the same extra features),
 * and their values within 1e-4; skips loudly without the vectors. */
static void
check_golden_keys (const char *clip, const char *log, const char *golden)
{
  JsonParser *pg, *po;
  JsonObject *groot = load_json (golden, &pg), *oroot = load_json (log, &po);
  JsonObject *g[2] = {
    json_object_get_object_member (json_array_get_object_element
        (frames_of (groot), 0), "metrics"),
    json_object_get_object_member (groot, "pooled_metrics"),
  };
  JsonObject *o[2] = {
    json_object_get_object_member (json_array_get_object_element
        (frames_of (oroot), 0), "metrics"),
    json_object_get_object_member (oroot, "pooled_metrics"),
  };
  for (guint k = 0; k < 2; k++) {
    const char *section = k ? "pooled" : "frame 0";
    ck_assert_uint_eq (json_object_get_size (o[k]),
        json_object_get_size (g[k]));
    GList *names = json_object_get_members (g[k]);
    for (GList * l = names; l; l = l->next) {
      const char *key = l->data;
      ck_assert_msg (json_object_has_member (o[k], key),
          "%s %s: libvmaf's key '%s' is not in the log", clip, section, key);
      if (k == 0)
        ck_assert_msg (fabs (json_object_get_double_member (o[k], key)
                - json_object_get_double_member (g[k], key)) <= 1e-4,
            "%s: %s %.6f, libvmaf %.6f", clip, key,
            json_object_get_double_member (o[k], key),
            json_object_get_double_member (g[k], key));
    }
    g_list_free (names);
  }
  g_object_unref (pg);
  g_object_unref (po);
}

START_TEST (test_golden_keys_vectors)
{
  static const struct
  {
    const char *name;
    const char *w, *h, *fmt, *bits;
  } clips[] = {
    { "src01_160x90", "160", "90", "420", "8" },
    { "src01_576x324_10b", "576", "324", "420", "10" },
    { "hall_352x288", "352", "288", "420", "8" },
    { "dark_1920x1080", "1920", "1080", "420", "8" },
    { "bsds_481x321_444", "481", "321", "444", "8" },
  };
  const char *data = vh_test_testdata_dir ();
  if (!data) {
    fprintf (stderr, "test-cli: SKIPPED test_golden_keys_vectors: no test "
        "vectors (../shared/testdata)\n");
    return;
  }
  gchar *log = g_build_filename (dir, "golden-keys.json", NULL);
  for (guint c = 0; c < G_N_ELEMENTS (clips); c++) {
    gchar *rn = g_strdup_printf ("%s_ref.yuv", clips[c].name);
    gchar *dn = g_strdup_printf ("%s_dis.yuv", clips[c].name);
    gchar *gn0 = g_strdup_printf ("%s.v0.json", clips[c].name);
    gchar *gn1 = g_strdup_printf ("%s.v1.json", clips[c].name);
    gchar *ref = g_build_filename (data, "clips", rn, NULL);
    gchar *dis = g_build_filename (data, "clips", dn, NULL);
    gchar *golden0 = g_build_filename (data, "golden", gn0, NULL);
    gchar *golden1 = g_build_filename (data, "golden", gn1, NULL);
    gchar *err = NULL;
    /* libvmaf logs MS-SSIM only where its five scales fit */
    const gboolean ms_ssim = atoi (clips[c].w) >= 176
        && atoi (clips[c].h) >= 176;
    ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", dis, "-w", clips[c].w,
            "-h", clips[c].h, "-p", clips[c].fmt, "-b", clips[c].bits,
            "-m", "version=vmaf_v0.6.1",
            "-m", "version=vmaf_v0.6.1neg:name=vmaf_neg",
            "-m", "version=vmaf_4k_v0.6.1:name=vmaf_4k",
            "-m", "version=vmaf_b_v0.6.3:name=vmaf_b",
            "-m", "version=vmaf_v0.6.1:name=vmaf_phone:enable_transform",
            "--feature", "psnr", "--feature", "float_ssim", "--feature",
            "ciede", "--feature", "psnr_hvs", "--json", "-o", log, "-q",
            /* (the list ends here without MS-SSIM) */
            ms_ssim ? "--feature" : NULL, "float_ms_ssim", NULL), 0);
    g_free (err);
    check_golden_keys (clips[c].name, log, golden0);
    if (g_file_test (golden1, G_FILE_TEST_EXISTS)) {
      ck_assert_int_eq (run_cli (&err, "-r", ref, "-d", dis, "-w",
              clips[c].w, "-h", clips[c].h, "-p", clips[c].fmt, "-b",
              clips[c].bits, "-m", "version=vmaf_v1.0.16_3d0h:name=vmaf_v1",
              "-m", "version=vmaf_v1.0.16_1d5h_2160:name=vmaf_v1_4k",
              "-m", "version=vmaf_v1.0.16_hfr_3d0h:name=vmaf_v1_hfr",
              "--feature", "cambi", "--json", "-o", log, "-q", NULL), 0);
      g_free (err);
      check_golden_keys (clips[c].name, log, golden1);
    }
    g_free (rn);
    g_free (dn);
    g_free (gn0);
    g_free (gn1);
    g_free (ref);
    g_free (dis);
    g_free (golden0);
    g_free (golden1);
  }
  g_free (log);
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
  gchar *out = NULL;
  ck_assert_int_eq (run_cli_out (&out, &err, "-r", r, "-d", d, "--subsample",
          "2", "--json", "-o", o3, "-q", NULL), 0);
  /* the summary counts the frames pooled, not those read */
  ck_assert_msg (strstr (out, "pooled over 3 frames (every 2. of 6 read;")
      != NULL, "%s", out);
  g_free (out);
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

/* vif=debug=true, adm=debug=true, motion=debug=true: libvmaf 3.2.0's extra
 * keys, in its order (vif's checked against the order of its write_scores),
 * and its relations at the log's 6 decimals: every VIF scale num/den, the
 * totals the sums of the scales', integer_vif their quotient,
 * integer_adm = integer_adm2, integer_motion = the SAD score. The scale
 * scores equal the model's run. */
START_TEST (test_feature_debug)
{
  static const char *const vif_order[] = {
    "integer_vif_scale0", "integer_vif_scale1", "integer_vif_scale2",
    "integer_vif_scale3", "integer_vif", "integer_vif_num",
    "integer_vif_den", "integer_vif_num_scale0", "integer_vif_den_scale0",
    "integer_vif_num_scale1", "integer_vif_den_scale1",
    "integer_vif_num_scale2", "integer_vif_den_scale2",
    "integer_vif_num_scale3", "integer_vif_den_scale3",
  };
  gchar *r = write_video ("r.y4m", FALSE, 0, 3, TRUE);
  gchar *d = write_video ("d.y4m", TRUE, 0, 3, TRUE);
  gchar *od = g_build_filename (dir, "debug.json", NULL);
  gchar *om = g_build_filename (dir, "model.json", NULL);
  gchar *err = NULL;
  JsonParser *pd, *pm;
  JsonArray *fd, *fm;

  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "-n", "--feature",
          "vif=debug=true", "--feature", "adm=debug=true", "--feature",
          "motion=debug=true", "--json", "-o", od, "-q", NULL), 0);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "--json", "-o", om,
          "-q", NULL), 0);
  g_free (err);
  fd = frames_of (load_json (od, &pd));
  fm = frames_of (load_json (om, &pm));
  ck_assert_uint_eq (json_array_get_length (fd), 3);
  for (guint i = 0; i < 3; i++) {
    JsonObject *m = json_object_get_object_member
        (json_array_get_object_element (fd, i), "metrics");
    GList *names = json_object_get_members (m);
    guint next = 0;
    for (GList *l = names; l; l = l->next)
      if (next < G_N_ELEMENTS (vif_order) && g_str_has_prefix (l->data,
              "integer_vif"))
        ck_assert_str_eq (l->data, vif_order[next++]);
    g_list_free (names);
    ck_assert_uint_eq (next, G_N_ELEMENTS (vif_order));

    double num = 0, den = 0;
    for (guint k = 0; k < 4; k++) {
      char key[64];
      g_snprintf (key, sizeof key, "integer_vif_num_scale%u", k);
      const double nk = metric (fd, i, key);
      g_snprintf (key, sizeof key, "integer_vif_den_scale%u", k);
      const double dk = metric (fd, i, key);
      g_snprintf (key, sizeof key, "integer_vif_scale%u", k);
      ck_assert (metric (fd, i, key) == metric (fm, i, key));
      /* num and den to 5e-7 each: the quotient to about 1e-6 relative */
      ck_assert_msg (fabs (metric (fd, i, key) - nk / dk) <= 1e-6 * nk / dk
          + 6e-7, "%s frame %u: %.6f, num/den %.9f", key, i,
          metric (fd, i, key), nk / dk);
      num += nk;
      den += dk;
    }
    ck_assert (fabs (metric (fd, i, "integer_vif_num") - num) <= 3e-6);
    ck_assert (fabs (metric (fd, i, "integer_vif_den") - den) <= 3e-6);
    ck_assert (fabs (metric (fd, i, "integer_vif") - num / den) <= 1e-6);
    ck_assert (metric (fd, i, "integer_adm") == metric (fm, i,
            "integer_adm2"));
    ck_assert (metric (fd, i, "integer_adm2") == metric (fd, i,
            "integer_adm"));
    ck_assert (fabs (metric (fd, i, "integer_adm") - metric (fd, i,
                "integer_adm_num") / metric (fd, i, "integer_adm_den"))
        <= 1e-6);
    ck_assert (metric (fd, i, "integer_motion") == metric (fd, i,
            "VMAF_integer_feature_motion_sad_score"));
  }
  g_object_unref (pd);
  g_object_unref (pm);
  g_free (r);
  g_free (d);
  g_free (od);
  g_free (om);
}

END_TEST;

/* A --feature beside the model, as libvmaf 3.2.0's CLI registers
 * extractors (the model's first, an extractor alike by name and
 * non-default feature parameters added once): adm=adm_skip_aim=true and
 * vif=debug=true are dropped with a warning naming them and the model,
 * the model's keys keep the values of the run without them (before, the
 * second adm wrote integer_aim and integer_adm3 over the model's: 0 for
 * aim) and no debug key appears; adm=adm_enhn_gain_limit=1.2 differs by a
 * feature parameter and is added under keys of its own (_egl_1.2); with
 * -n (no model) vif=debug=true gives its debug keys. */
START_TEST (test_feature_beside_model)
{
  static const char *const kept[] = { "vmaf", "integer_aim", "integer_adm3",
    "integer_adm2", "integer_adm_scale0", "integer_vif_scale0",
    "integer_vif_scale3", "integer_motion2" };
  static const char *const debug_keys[] = { "integer_vif",
    "integer_vif_num", "integer_vif_den_scale3", "integer_adm",
    "integer_adm_num" };
  gchar *r = write_video ("r.y4m", FALSE, 0, 3, TRUE);
  gchar *d = write_video ("d.y4m", TRUE, 0, 3, TRUE);
  gchar *om = g_build_filename (dir, "model.json", NULL);
  gchar *of = g_build_filename (dir, "beside.json", NULL);
  gchar *on = g_build_filename (dir, "nomodel.json", NULL);
  gchar *err = NULL;
  JsonParser *pm, *pf, *pn;
  JsonArray *fm, *ff, *fn;

  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "--json", "-o", om,
          "-q", NULL), 0);
  ck_assert_msg (!strstr (err, "is not added"), "%s", err);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "--feature",
          "adm=adm_skip_aim=true", "--feature", "vif=debug=true",
          "--feature", "adm=adm_enhn_gain_limit=1.2", "--json", "-o", of,
          "-q", NULL), 0);
  ck_assert_msg (strstr (err, "warning: feature 'adm': "
          "'adm=adm_skip_aim=true' is not added: model 'vmaf_v0.6.1' "
          "computes 'adm'") != NULL, "%s", err);
  ck_assert_msg (strstr (err, "warning: feature 'vif': 'vif=debug=true' "
          "is not added: model 'vmaf_v0.6.1' computes 'vif'") != NULL, "%s",
      err);
  ck_assert_msg (strstr (err, "-n") && strstr (err, ":vif.debug=true"),
      "%s", err);
  ck_assert_msg (!strstr (err, "adm_enhn_gain_limit=1.2' is not added"),
      "%s", err);
  g_free (err);
  ck_assert_int_eq (run_cli (&err, "-r", r, "-d", d, "-n", "--feature",
          "vif=debug=true", "--json", "-o", on, "-q", NULL), 0);
  ck_assert_msg (!strstr (err, "is not added"), "%s", err);
  g_free (err);

  fm = frames_of (load_json (om, &pm));
  ff = frames_of (load_json (of, &pf));
  fn = frames_of (load_json (on, &pn));
  ck_assert_uint_eq (json_array_get_length (ff), 3);
  for (guint i = 0; i < 3; i++) {
    JsonObject *m = json_object_get_object_member
        (json_array_get_object_element (ff, i), "metrics");
    JsonObject *n = json_object_get_object_member
        (json_array_get_object_element (fn, i), "metrics");
    for (guint k = 0; k < G_N_ELEMENTS (kept); k++)
      ck_assert_msg (metric (ff, i, kept[k]) == metric (fm, i, kept[k]),
          "frame %u %s: %.6f, without the features %.6f", i, kept[k],
          metric (ff, i, kept[k]), metric (fm, i, kept[k]));
    for (guint k = 0; k < G_N_ELEMENTS (debug_keys); k++)
      ck_assert_msg (!json_object_has_member (m, debug_keys[k]),
          "frame %u: %s beside the model", i, debug_keys[k]);
    ck_assert (json_object_has_member (m, "integer_adm2_egl_1.2"));
    ck_assert (json_object_has_member (m, "integer_aim_egl_1.2"));
    /* the model's keys, the egl variant's, nothing else */
    ck_assert_uint_eq (json_object_get_size (m), json_object_get_size
        (json_object_get_object_member (json_array_get_object_element (fm,
                    i), "metrics")) + 7);
    /* without a model the debug keys are there */
    ck_assert (json_object_has_member (n, "integer_vif_num_scale0"));
    ck_assert (json_object_has_member (n, "integer_vif"));
    ck_assert (metric (fn, i, "integer_vif_scale0") == metric (fm, i,
            "integer_vif_scale0"));
  }
  g_object_unref (pm);
  g_object_unref (pf);
  g_object_unref (pn);
  g_free (r);
  g_free (d);
  g_free (om);
  g_free (of);
  g_free (on);
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

/* ------------------------------------------------ --repair, -o /dev/full */

int
main (int argc, char **argv)
{
  Suite *s = suite_create ("cli");
  TCase *tc = tcase_create ("vmafhip-score");

  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_y4m_equals_raw);
  tcase_add_test (tc, test_raw_chroma_libvmaf);
  tcase_add_test (tc, test_apsnr);
  tcase_add_test (tc, test_apsnr_vectors);
  tcase_add_test (tc, test_golden_keys_vectors);
  tcase_add_test (tc, test_frame_options);
  tcase_add_test (tc, test_bad_options_fail_first);
  tcase_add_test (tc, test_no_prediction);
  tcase_add_test (tc, test_feature_debug);
  tcase_add_test (tc, test_feature_beside_model);
  tcase_add_test (tc, test_backend_hip);
  suite_add_tcase (s, tc);
  return cli_test_main (argc, argv, "test-cli", s);
}
