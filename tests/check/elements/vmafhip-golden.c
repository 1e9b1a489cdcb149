/* vmafhip — golden test through the element: every public pair of
 * ../shared/testdata runs through a real pipeline (raw files through
 * rawvideoparse, the MP4 pair through qtdemux ! h264parse ! avdec_h264) and
 * the per-frame and pooled scores, read back both from the "VMAF" bus
 * messages and from the results file, must match libvmaf 3.2.0's golden
 * scores: integer features and PSNR within 1e-6, models within 1e-4.
 *
 * Two runs per pair: vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1,
 * vmaf_b_v0.6.3 (conf-interval: bagging, stddev, CI, members) and the
 * phone variant with psnr, named as libvmaf's run named them (the first
 * without name=, so "vmaf" as libvmaf's CLI reports it); then
 * phone-model=true alone (golden "vmaf_phone", reported as "vmaf"). The
 * keys are libvmaf's: the results file of the first run (and of the v1
 * run) holds exactly the golden log's keys but for those of features run
 * elsewhere, and no key the golden log lacks. Skips loudly (exit 77) when
 * the test vectors are absent.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>

#include "vh-test-util.h"

typedef struct {
  const char *name;           /* golden file stem */
  const char *ref, *dis;      /* under clips/ */
  const char *parse;          /* rawvideoparse settings; NULL: MP4 */
  guint n_frames;
} Clip;

static const Clip clips[] = {
  {"src01_160x90", "src01_160x90_ref.yuv", "src01_160x90_dis.yuv",
      "width=160 height=90 format=i420", 48},
  {"src01_576x324_10b", "src01_576x324_10b_ref.yuv",
      "src01_576x324_10b_dis.yuv", "width=576 height=324 format=i420-10le", 3},
  {"hall_352x288", "hall_352x288_ref.yuv", "hall_352x288_dis.yuv",
      "width=352 height=288 format=i420", 1},
  {"dark_1920x1080", "dark_1920x1080_ref.yuv", "dark_1920x1080_dis.yuv",
      "width=1920 height=1080 format=i420", 1},
  /* odd width: rows are packed, GStreamer would pad them to 4 bytes */
  {"bsds_481x321_444", "bsds_481x321_444_ref.yuv", "bsds_481x321_444_dis.yuv",
        "width=481 height=321 format=y444 plane-strides=\"<481,481,481>\" "
      "plane-offsets=\"<0,154401,308802>\"", 1},
  {"seeking_720x480", "seeking_720x480_ref.mp4",
      "seeking_720x480_dis_crf40.mp4", NULL, 150},
};

static const char *testdata;


/* ---------------------------------------------------------- pipelines */

typedef struct {
  GPtrArray *frames;          /* GstStructure*, type=frame, in order */
  GstStructure *pooled;
} Run;

static void
run_clear (Run * r)
{
  if (r->frames)
    g_ptr_array_unref (r->frames);
  if (r->pooled)
    gst_structure_free (r->pooled);
}

static gchar *
source_desc (const Clip * clip, const char *file, const char *pad)
{
  gchar *path = g_build_filename (testdata, "clips", file, NULL);
  gchar *desc;

  if (clip->parse)
    desc = g_strdup_printf ("filesrc location=\"%s\" ! rawvideoparse %s "
        "framerate=25/1 ! v.%s", path, clip->parse, pad);
  else
    desc = g_strdup_printf ("filesrc location=\"%s\" ! qtdemux ! h264parse ! "
        "avdec_h264 ! v.%s", path, pad);
  g_free (path);
  return desc;
}

/* Runs ref + dis through `vmafhip <props>` and collects the messages. */
static void
run_pipeline (const Clip * clip, const char *props, Run * run)
{
  gchar *ref = source_desc (clip, clip->ref, "ref_sink");
  gchar *dis = source_desc (clip, clip->dis, "dist_sink");
  gchar *desc = g_strdup_printf ("%s %s vmafhip name=v backend=%s "
      "frame-message=true %s ! fakesink", ref, dis, vh_test_backend (), props);
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstBus *bus;
  gboolean done = FALSE;

  fail_unless (pipe != NULL, "cannot build '%s': %s", desc,
      error ? error->message : "?");
  g_clear_error (&error);
  run->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  run->pooled = NULL;
  bus = gst_element_get_bus (pipe);
  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE, "cannot start '%s'", desc);
  while (!done) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, 600 * GST_SECOND,
        GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR |
        GST_MESSAGE_WARNING);
    const GstStructure *s;
    GError *err = NULL;
    gchar *dbg = NULL;

    fail_unless (m != NULL, "no EOS from '%s'", desc);
    switch (GST_MESSAGE_TYPE (m)) {
      case GST_MESSAGE_ERROR:
        gst_message_parse_error (m, &err, &dbg);
        fail ("'%s' failed: %s (%s)", desc, err->message, dbg);
        break;
      case GST_MESSAGE_WARNING:
        gst_message_parse_warning (m, &err, &dbg);
        fprintf (stderr, "warning: %s\n", err->message);
        g_clear_error (&err);
        g_free (dbg);
        break;
      case GST_MESSAGE_EOS:
        done = TRUE;
        break;
      default:
        s = gst_message_get_structure (m);
        if (s && gst_structure_has_name (s, "VMAF")) {
          if (!g_strcmp0 (gst_structure_get_string (s, "type"), "frame"))
            g_ptr_array_add (run->frames, gst_structure_copy (s));
          else {
            fail_unless (run->pooled == NULL, "two pooled messages");
            run->pooled = gst_structure_copy (s);
          }
        }
        break;
    }
    gst_message_unref (m);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_free (ref);
  g_free (dis);
  g_free (desc);
}

/* ------------------------------------------------------------- golden */

static JsonParser *
load_json (const char *path)
{
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;

  fail_unless (json_parser_load_from_file (parser, path, &error),
      "cannot read %s: %s", path, error ? error->message : "?");
  return parser;
}

/* Our name for a golden metric of run A, or NULL if not computed there:
 * libvmaf's own, every model named as the golden run named it. */
static gchar *
name_in_run_a (const char *golden)
{
  /* ciede2000, psnr_hvs*: run B */
  if (!strcmp (golden, "ciede2000") || g_str_has_prefix (golden, "psnr_hvs"))
    return NULL;
  return g_strdup (golden);
}

static double
tolerance_of (const char *golden)
{
  /* on the GPU, the float metrics may be 1e-5 from the CPU (the issue's
   * bound; measured 0 to 4.4e-10) */
  if (strcmp (vh_test_backend (), "cpu") != 0 && (!strcmp (golden, "float_ssim")
          || !strcmp (golden, "float_ms_ssim")
          || !strcmp (golden, "ciede2000")
          || g_str_has_prefix (golden, "psnr_hvs")))
    return 1e-5 + 1e-6;
  /* integer features and PSNR: exact up to the 6-decimal print */
  if (g_str_has_prefix (golden, "integer_")
      || g_str_has_prefix (golden, "VMAF_integer_")
      || g_str_has_prefix (golden, "psnr_") || !strcmp (golden, "float_ssim")
      || !strcmp (golden, "float_ms_ssim") || !strcmp (golden, "ciede2000"))
    return 1e-6 + 1e-9;
  /* psnr_hvs* start with "psnr_": exact as above */
  return 1e-4;
}

typedef struct {
  guint compared;
  double worst_int, worst_model;
} Stats;

static void
account (Stats * st, const char *golden, double diff)
{
  st->compared++;
  if (tolerance_of (golden) < 1e-5)
    st->worst_int = MAX (st->worst_int, diff);
  else
    st->worst_model = MAX (st->worst_model, diff);
}

typedef gchar *(*NameMap) (const char *golden);

/* Per-frame golden values against message fields. */
static void
compare_messages (const Clip * clip, JsonArray * golden_frames, Run * run,
    NameMap map, Stats * st)
{
  const guint n = json_array_get_length (golden_frames);
  guint64 ts0 = 0;

  fail_unless_equals_int (run->frames->len, n);
  fail_unless_equals_int (n, clip->n_frames);
  for (guint i = 0; i < n; i++) {
    const GstStructure *s = g_ptr_array_index (run->frames, i);
    JsonObject *metrics = json_object_get_object_member
        (json_array_get_object_element (golden_frames, i), "metrics");
    GList *names = json_object_get_members (metrics);
    gint index;
    guint64 ts;

    fail_unless (gst_structure_get_int (s, "index", &index));
    fail_unless_equals_int (index, i);
    /* 25 fps; the MP4 pair starts at its first presentation time */
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &ts));
    if (i == 0)
      ts0 = ts;
    fail_unless_equals_uint64 (ts - ts0, gst_util_uint64_scale (i,
            GST_SECOND, 25));
    for (GList * l = names; l; l = l->next) {
      const char *g = l->data;
      gchar *ours = map (g);
      double want, got;
      if (!ours)
        continue;
      want = json_object_get_double_member (metrics, g);
      fail_unless (gst_structure_get_double (s, ours, &got),
          "%s frame %u: no '%s' (golden '%s') in the message", clip->name, i,
          ours, g);
      fail_unless (fabs (got - want) <= tolerance_of (g),
          "%s frame %u %s: %.9f, golden %.6f (|diff| %.3g)", clip->name, i,
          ours, got, want, fabs (got - want));
      account (st, g, fabs (got - want));
      g_free (ours);
    }
    g_list_free (names);
  }
}

/* Pooled golden values against the pooled message. */
static void
compare_pooled_message (const Clip * clip, JsonObject * golden_pooled,
    Run * run, NameMap map, Stats * st)
{
  static const struct {
    const char *golden, *suffix;
  } stats[] = {
    {"mean", "-mean"}, {"harmonic_mean", "-harmonic-mean"}, {"min", "-min"},
    {"max", "-max"},
  };
  GList *names = json_object_get_members (golden_pooled);
  guint n;

  fail_unless (run->pooled != NULL, "%s: no pooled message", clip->name);
  fail_unless (gst_structure_get_uint (run->pooled, "n-frames", &n));
  fail_unless_equals_int (n, clip->n_frames);
  for (GList * l = names; l; l = l->next) {
    const char *g = l->data;
    gchar *ours = map (g);
    JsonObject *p;
    if (!ours)
      continue;
    p = json_object_get_object_member (golden_pooled, g);
    for (gsize k = 0; k < G_N_ELEMENTS (stats); k++) {
      gchar *field = g_strconcat (ours, stats[k].suffix, NULL);
      double want = json_object_get_double_member (p, stats[k].golden), got;
      fail_unless (gst_structure_get_double (run->pooled, field, &got),
          "%s: no pooled '%s'", clip->name, field);
      fail_unless (fabs (got - want) <= tolerance_of (g),
          "%s pooled %s: %.9f, golden %.6f", clip->name, field, got, want);
      account (st, g, fabs (got - want));
      g_free (field);
    }
    g_free (ours);
  }
  g_list_free (names);
}

/* The results file (libvmaf JSON written by the element) against golden. */
static void
compare_results_file (const Clip * clip, JsonObject * golden_root,
    const char *path, NameMap map, Stats * st)
{
  JsonParser *parser = load_json (path);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonArray *ours_frames = json_object_get_array_member (root, "frames");
  JsonArray *golden_frames = json_object_get_array_member (golden_root,
      "frames");
  JsonObject *ours_pooled = json_object_get_object_member (root,
      "pooled_metrics");
  JsonObject *golden_pooled = json_object_get_object_member (golden_root,
      "pooled_metrics");
  const guint n = json_array_get_length (golden_frames);
  static const char *const stats[] = { "min", "max", "mean",
    "harmonic_mean"
  };
  GList *names;

  fail_unless_equals_int (json_array_get_length (ours_frames), n);
  for (guint i = 0; i < n; i++) {
    JsonObject *of = json_array_get_object_element (ours_frames, i);
    JsonObject *om = json_object_get_object_member (of, "metrics");
    JsonObject *gm = json_object_get_object_member
        (json_array_get_object_element (golden_frames, i), "metrics");
    GList *gnames = json_object_get_members (gm);

    fail_unless_equals_int (json_object_get_int_member (of, "frameNum"), i);
    for (GList * l = gnames; l; l = l->next) {
      const char *g = l->data;
      gchar *ours = map (g);
      double want, got;
      if (!ours)
        continue;
      fail_unless (json_object_has_member (om, ours),
          "%s: results file frame %u lacks '%s'", clip->name, i, ours);
      want = json_object_get_double_member (gm, g);
      got = json_object_get_double_member (om, ours);
      fail_unless (fabs (got - want) <= tolerance_of (g),
          "%s results file frame %u %s: %.6f, golden %.6f", clip->name, i,
          ours, got, want);
      account (st, g, fabs (got - want));
      g_free (ours);
    }
    g_list_free (gnames);
  }
  names = json_object_get_members (golden_pooled);
  for (GList * l = names; l; l = l->next) {
    const char *g = l->data;
    gchar *ours = map (g);
    JsonObject *gp, *op;
    if (!ours)
      continue;
    fail_unless (json_object_has_member (ours_pooled, ours),
        "%s: results file lacks pooled '%s'", clip->name, ours);
    gp = json_object_get_object_member (golden_pooled, g);
    op = json_object_get_object_member (ours_pooled, ours);
    for (gsize k = 0; k < G_N_ELEMENTS (stats); k++) {
      double want = json_object_get_double_member (gp, stats[k]);
      double got = json_object_get_double_member (op, stats[k]);
      fail_unless (fabs (got - want) <= tolerance_of (g),
          "%s results file pooled %s %s: %.6f, golden %.6f", clip->name,
          ours, stats[k], got, want);
      account (st, g, fabs (got - want));
    }
    g_free (ours);
  }
  g_list_free (names);
  g_object_unref (parser);
}

/* Run B's one model, unnamed (phone-model=true), is reported as "score"
 * and as "vmaf", libvmaf's key for a model without name=. */
static gchar *
name_in_run_b (const char *golden)
{
  if (!strcmp (golden, "vmaf_phone"))
    return g_strdup ("vmaf");
  /* asked for through the features property, with libvmaf's syntax */
  if (!strcmp (golden, "float_ssim") || !strcmp (golden, "ciede2000")
      || g_str_has_prefix (golden, "psnr_hvs"))
    return g_strdup (golden);
  return NULL;
}

/* Run C (clips with a v1 log): the v1.0.16 models built in, named as in
 * the golden run, and CAMBI on its own through `features`: every golden
 * key, libvmaf's. */
static gchar *
name_in_run_c (const char *golden)
{
  return g_strdup (golden);
}

/* The results file's keys are libvmaf's: every metric of its frames and
 * pooled section is a key of the golden log, and every golden key the run
 * computes (map not NULL) is one of the file's, under the same name. */
static void
check_keys (const Clip * clip, JsonObject * golden_root, const char *path,
    NameMap map, const char *run)
{
  JsonParser *parser = load_json (path);
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  JsonObject *golden_pooled = json_object_get_object_member (golden_root,
      "pooled_metrics");
  JsonObject *golden_first = json_object_get_object_member
      (json_array_get_object_element (json_object_get_array_member
          (golden_root, "frames"), 0), "metrics");
  JsonObject *ours[2] = {
    json_object_get_object_member (json_array_get_object_element
        (json_object_get_array_member (root, "frames"), 0), "metrics"),
    json_object_get_object_member (root, "pooled_metrics"),
  };
  GList *names;
  guint n_ours = 0;

  for (guint k = 0; k < 2; k++) {
    names = json_object_get_members (ours[k]);
    for (GList * l = names; l; l = l->next, n_ours++)
      fail_unless (json_object_has_member (k ? golden_pooled : golden_first,
              l->data), "%s run %s: key '%s' is not in libvmaf's log",
          clip->name, run, (const char *) l->data);
    g_list_free (names);
  }
  for (guint k = 0; k < 2; k++) {
    names = json_object_get_members (k ? golden_pooled : golden_first);
    for (GList * l = names; l; l = l->next) {
      gchar *mine = map (l->data);
      if (mine) {
        fail_unless_equals_string (mine, l->data);
        fail_unless (json_object_has_member (ours[k], mine),
            "%s run %s: libvmaf's key '%s' is not in the results file%s",
            clip->name, run, mine, k ? " (pooled)" : "");
      }
      g_free (mine);
    }
    g_list_free (names);
  }
  fail_unless (n_ours > 0);
  g_object_unref (parser);
}

static void
golden_v1_run (const Clip * clip, const char *dir, Stats * st)
{
  gchar *path = g_strdup_printf ("%s/golden/%s.v1.json", testdata,
      clip->name);
  if (!g_file_test (path, G_FILE_TEST_EXISTS)) {
    g_free (path);
    return;
  }
  JsonParser *golden = load_json (path);
  JsonObject *root = json_node_get_object (json_parser_get_root (golden));
  gchar *log_c = g_build_filename (dir, "c.json", NULL);
  gchar *props = g_strdup_printf ("threads=0 "
      "models=version=vmaf_v1.0.16_3d0h:name=vmaf_v1,"
      "version=vmaf_v1.0.16_1d5h_2160:name=vmaf_v1_4k,"
      "version=vmaf_v1.0.16_hfr_3d0h:name=vmaf_v1_hfr features=cambi "
      "results-filename=\"%s\" results-format=json", log_c);
  Run c = { 0 };
  const guint before = st->compared;
  run_pipeline (clip, props, &c);
  compare_messages (clip, json_object_get_array_member (root, "frames"), &c,
      name_in_run_c, st);
  compare_pooled_message (clip, json_object_get_object_member (root,
          "pooled_metrics"), &c, name_in_run_c, st);
  compare_results_file (clip, root, log_c, name_in_run_c, st);
  check_keys (clip, root, log_c, name_in_run_c, "C (v1)");
  /* four metrics a frame at least, in messages and file */
  fail_unless (st->compared - before >= 8 * clip->n_frames, "%s: v1 run "
      "compared %u values", clip->name, st->compared - before);
  run_clear (&c);
  g_unlink (log_c);
  g_free (log_c);
  g_free (props);
  g_object_unref (golden);
  g_free (path);
}

GST_START_TEST (test_golden_clip)
{
  const Clip *clip = &clips[__i__];
  gchar *golden_path, *dir, *log_a, *log_b, *props;
  JsonParser *golden;
  JsonObject *root;
  Run a = { 0 }, b = { 0 };
  Stats st = { 0 };

  golden_path = g_strdup_printf ("%s/golden/%s.v0.json", testdata,
      clip->name);
  golden = load_json (golden_path);
  root = json_node_get_object (json_parser_get_root (golden));
  dir = g_dir_make_tmp ("vmafhip-golden-XXXXXX", NULL);
  log_a = g_build_filename (dir, "a.json", NULL);
  log_b = g_build_filename (dir, "b.json", NULL);

  /* run A: five models with CI, PSNR, named as libvmaf's golden run
   * named them (the first unnamed: "vmaf") */
  props = g_strdup_printf ("threads=0 models=vmaf_v0.6.1,"
      "version=vmaf_v0.6.1neg:name=vmaf_neg,"
      "version=vmaf_4k_v0.6.1:name=vmaf_4k,"
      "version=vmaf_b_v0.6.3:name=vmaf_b,"
      "version=vmaf_v0.6.1:name=vmaf_phone:enable_transform "
      "conf-interval=true psnr=true ssim=true "
      "ms-ssim=%s results-filename=\"%s\" results-format=json",
      /* libvmaf logs MS-SSIM only where its five scales fit */
      json_object_get_object_member (json_array_get_object_element
          (json_object_get_array_member (root, "frames"), 0),
          "metrics") && json_object_has_member (json_object_get_object_member
          (json_array_get_object_element (json_object_get_array_member (root,
                      "frames"), 0), "metrics"), "float_ms_ssim")
      ? "true" : "false", log_a);
  run_pipeline (clip, props, &a);
  g_free (props);
  compare_messages (clip, json_object_get_array_member (root, "frames"), &a,
      name_in_run_a, &st);
  compare_pooled_message (clip, json_object_get_object_member (root,
          "pooled_metrics"), &a, name_in_run_a, &st);
  compare_results_file (clip, root, log_a, name_in_run_a, &st);
  check_keys (clip, root, log_a, name_in_run_a, "A");
  /* the first model is also "score" */
  for (guint i = 0; i < a.frames->len; i++) {
    gdouble s, v;
    fail_unless (gst_structure_get_double (g_ptr_array_index (a.frames, i),
            "score", &s));
    fail_unless (gst_structure_get_double (g_ptr_array_index (a.frames, i),
            "vmaf", &v));
    fail_unless (s == v);
  }

  /* run B: the phone model, as upstream's phone-model property; SSIM
   * through `features` */
  props = g_strdup_printf ("threads=0 phone-model=true "
      "features=float_ssim=scale=0,ciede,psnr_hvs results-filename=\"%s\"",
      log_b);
  run_pipeline (clip, props, &b);
  g_free (props);
  compare_messages (clip, json_object_get_array_member (root, "frames"), &b,
      name_in_run_b, &st);
  compare_pooled_message (clip, json_object_get_object_member (root,
          "pooled_metrics"), &b, name_in_run_b, &st);
  compare_results_file (clip, root, log_b, name_in_run_b, &st);
  for (guint i = 0; i < b.frames->len; i++) {
    gdouble s, v;
    fail_unless (gst_structure_get_double (g_ptr_array_index (b.frames, i),
            "score", &s));
    fail_unless (gst_structure_get_double (g_ptr_array_index (b.frames, i),
            "vmaf", &v));
    fail_unless (s == v);
  }

  golden_v1_run (clip, dir, &st);

  printf ("%-18s %3u frames: %5u values compared, worst |diff| integer "
      "features/PSNR %.3g, models %.3g\n", clip->name, clip->n_frames,
      st.compared, st.worst_int, st.worst_model);
  fail_unless (st.compared > 0);

  run_clear (&a);
  run_clear (&b);
  g_unlink (log_a);
  g_unlink (log_b);
  g_rmdir (dir);
  g_free (log_a);
  g_free (log_b);
  g_free (dir);
  g_object_unref (golden);
  g_free (golden_path);
}

GST_END_TEST;

/* A flushing seek in a real pipeline restarts the statistics: after a
 * seek to frame 10 of src01_160x90 the element scores frames 10..47 as a
 * new stream (index 0..37): the first has no motion yet, every later one
 * equals libvmaf's score of the same frame. */
GST_START_TEST (test_golden_seek)
{
  const Clip *clip = &clips[0];
  const guint seek_frame = 10;
  gchar *golden_path = g_strdup_printf ("%s/golden/%s.v0.json", testdata,
      clip->name);
  JsonParser *golden = load_json (golden_path);
  JsonArray *gframes = json_object_get_array_member (json_node_get_object
      (json_parser_get_root (golden)), "frames");
  gchar *ref = source_desc (clip, clip->ref, "ref_sink");
  gchar *dis = source_desc (clip, clip->dis, "dist_sink");
  gchar *desc = g_strdup_printf ("%s %s vmafhip name=v backend=%s "
      "frame-message=true threads=1 models=vmaf_v0.6.1 psnr=true ! fakesink",
      ref, dis, vh_test_backend ());
  GstElement *pipe = gst_parse_launch (desc, NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  GstStructure *pooled = NULL;
  gboolean done = FALSE;
  guint n_after, compared = 0, n;
  GstMessage *m;

  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_PAUSED),
      GST_STATE_CHANGE_ASYNC);
  m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR);
  fail_unless (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ASYNC_DONE);
  gst_message_unref (m);
  fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
          GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE,
          gst_util_uint64_scale (seek_frame, GST_SECOND, 25)));
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while (!done) {
    const GstStructure *s;
    m = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND, GST_MESSAGE_ELEMENT
        | GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
    fail_unless (m != NULL);
    fail_if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR, "pipeline error");
    done = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    s = gst_message_get_structure (m);
    if (s && gst_structure_has_name (s, "VMAF")) {
      if (!g_strcmp0 (gst_structure_get_string (s, "type"), "frame"))
        g_ptr_array_add (frames, gst_structure_copy (s));
      else {
        /* the measurement the seek ended has its own; the last counts */
        g_clear_pointer (&pooled, gst_structure_free);
        pooled = gst_structure_copy (s);
      }
    }
    gst_message_unref (m);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);

  /* frames scored before the seek (preroll) come first; then a restart */
  n_after = clip->n_frames - seek_frame;
  fail_unless (frames->len >= n_after);
  fail_unless (pooled != NULL);
  fail_unless (gst_structure_get_uint (pooled, "n-frames", &n));
  fail_unless_equals_int (n, n_after);
  for (guint k = 0; k < n_after; k++) {
    const GstStructure *s = g_ptr_array_index (frames,
        frames->len - n_after + k);
    JsonObject *gm = json_object_get_object_member
        (json_array_get_object_element (gframes, seek_frame + k), "metrics");
    GList *names = json_object_get_members (gm);
    gint index;
    guint64 st;
    double v;

    fail_unless (gst_structure_get_int (s, "index", &index));
    fail_unless_equals_int (index, k);
    fail_unless (gst_structure_get_uint64 (s, "stream-time", &st));
    fail_unless_equals_uint64 (st, gst_util_uint64_scale (seek_frame + k,
            GST_SECOND, 25));
    if (k == 0) {
      fail_unless (gst_structure_get_double (s, "integer_motion2", &v));
      fail_unless (v == 0.0, "motion restarts after the seek");
    }
    fail_unless (gst_structure_has_field (s, "vmaf"));
    fail_unless (gst_structure_has_field (s, "integer_adm2"));
    fail_unless (gst_structure_has_field (s, "psnr_cb"));
    for (GList * l = names; l; l = l->next) {
      const char *g = l->data;
      gchar *ours = name_in_run_a (g);
      /* frame 0 after the seek has no previous frame: no motion yet */
      gboolean temporal = strstr (g, "motion") || !strcmp (g, "vmaf");
      /* this run has vmaf_v0.6.1 and PSNR only (no _egl_1 features) */
      if (ours && gst_structure_has_field (s, ours)
          && (k > 0 || !temporal)) {
        double want = json_object_get_double_member (gm, g);
        fail_unless (gst_structure_get_double (s, ours, &v), "no %s", ours);
        fail_unless (fabs (v - want) <= tolerance_of (g),
            "after seek frame %u (%u) %s: %.9f, golden %.6f", k, seek_frame + k,
            ours, v, want);
        compared++;
      }
      g_free (ours);
    }
    g_list_free (names);
  }
  printf ("seek in %s: %u values after the seek match\n", clip->name,
      compared);
  fail_unless (compared > 0);

  gst_structure_free (pooled);
  g_ptr_array_unref (frames);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  g_object_unref (golden);
  g_free (golden_path);
  g_free (desc);
  g_free (ref);
  g_free (dis);
}

GST_END_TEST;

static Suite *
vmafhip_golden_suite (void)
{
  Suite *s = suite_create ("vmafhip-golden");
  TCase *tc = tcase_create ("golden");

  suite_add_tcase (s, tc);
  /* the MP4 pair (last) needs an H.264 decoder (the GPU machine has none
   * that travels: scripts/gpu-run.sh checks those frames by other means) */
  GstElementFactory *avdec = gst_element_factory_find ("avdec_h264");
  const gsize n = G_N_ELEMENTS (clips) - (avdec ? 0 : 1);
  if (!avdec)
    vh_test_skip_case ("test_golden_clip (seeking_720x480)",
        "no avdec_h264 (gstreamer1.0-libav)");
  gst_clear_object (&avdec);
  tcase_add_loop_test (tc, test_golden_clip, 0, (int) n);
  tcase_add_test (tc, test_golden_seek);
  return s;
}

int
main (int argc, char **argv)
{
  /* no test vectors: skip loudly (vh_test_testdata_dir says why) */
  testdata = vh_test_testdata_dir ();
  if (!testdata)
    return VH_TEST_SKIP;
  gst_check_init (&argc, &argv);
  return gst_check_run_suite (vmafhip_golden_suite (), "vmafhip-golden",
      __FILE__);
}
