/* vmafhip — renditions on dist_sink_%u request pads (issue 15): every
 * rung's frame scores equal those of a separate run with that rung on
 * dist_sink; each pad's messages carry its name and it gets a pooled
 * message and a results file of its own; a rung that ends early, one
 * released while the others play, one requested after the start, and
 * ones that cannot be scored (larger than the reference, another frame
 * rate) leave the other pads scored.  Against the mock HIP runtime: the
 * reference frame is uploaded once for the renditions scored on the GPU. */
#include <dlfcn.h>
#include <math.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

#include "scale.h"
#include "vh-ladder.h"

static void
check_ladder (const char *props)
{
  static const int sizes[][2] = { {W / 2, H / 2}, {W, H}, {W / 4, H / 4} };
  Ladder *l = ladder_new (props);
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++)
    ladder_add (l, sizes[k][0], sizes[k][1], FPS);
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  gint n;
  check_pad (msgs, "dist_sink", N_FRAMES, N_FRAMES);
  for (guint k = 0; k < G_N_ELEMENTS (sizes); k++) {
    gchar *pad = g_strdup_printf ("dist_sink_%u", k);
    GPtrArray *got = pad_frames (msgs, pad, &n);
    GPtrArray *want = single_run (props, sizes[k][0], sizes[k][1]);
    fail_unless_equals_int (n, N_FRAMES);
    fail_unless_equals_int (got->len, N_FRAMES);
    for (guint i = 0; i < N_FRAMES; i++) {
      const GstStructure *s = g_ptr_array_index (got, i);
      gdouble v;
      fail_unless (gst_structure_get_double (s, "vmaf", &v));
      gst_structure_foreach (s, field_equal, g_ptr_array_index (want, i));
    }
    g_ptr_array_unref (got);
    g_ptr_array_unref (want);
    g_free (pad);
  }
  free_messages (msgs);
  ladder_free (l);
}

GST_START_TEST (test_ladder_as_single_runs)
{
  check_ladder ("frame-message=true");
}

GST_END_TEST;

GST_START_TEST (test_ladder_with_chroma)
{
  check_ladder ("frame-message=true psnr=true scaler=lanczos");
}

GST_END_TEST;

/* One results file per pad: results-filename with the pad's name */
GST_START_TEST (test_ladder_results_files)
{
  gchar *dir, *path;
  results_dir_new (&dir, &path);
  gchar *props = g_strdup_printf ("results-format=json results-filename=%s",
      path);
  Ladder *l = ladder_new (props);
  ladder_add (l, W / 2, H / 2, FPS);
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);
  ladder_free (l);
  gchar *rung = g_build_filename (dir, "scores.dist_sink_0.json", NULL);
  gchar *text = NULL;
  fail_unless (g_file_get_contents (rung, &text, NULL, NULL),
      "no %s", rung);
  fail_unless (strstr (text, "\"frameNum\": 4") != NULL
      || strstr (text, "\"frameNum\":4") != NULL, "%s", text);
  fail_unless (strstr (text, "pooled_metrics") != NULL, "%s", text);
  g_free (text);
  fail_unless (g_file_test (path, G_FILE_TEST_EXISTS));
  g_unlink (rung);
  g_free (rung);
  g_free (props);
  results_dir_free (dir, path);
}

GST_END_TEST;

/* A rung that ends after 2 frames, and one released after 3: their
 * pooled messages count those frames; dist_sink and the third rung go on
 * to the end. */
GST_START_TEST (test_rung_ends_early)
{
  Ladder *l = ladder_new ("frame-message=true");
  gboolean live[3] = { TRUE, TRUE, TRUE };
  for (guint k = 0; k < 3; k++)
    ladder_add (l, W / 2, H / 2, FPS);
  for (guint i = 0; i < N_FRAMES; i++) {
    if (i == 2) {
      gst_harness_push_event (l->rung[0], gst_event_new_eos ());
      live[0] = FALSE;
    }
    if (i == 3) {
      /* its frames 0-2 taken by the element first, then the pad released */
      wait_taken (l->f->element, "dist_sink_1");
      gst_harness_teardown (l->rung[1]);      /* releases dist_sink_1 */
      l->rung[1] = NULL;
      live[1] = FALSE;
    }
    ladder_push (l, i, live);
  }
  ladder_end (l);
  static const gint pooled[] = { 2, 3, N_FRAMES };
  static const guint frames[] = { 2, 3, N_FRAMES };
  ladder_check_free (l, pooled, frames, TRUE);
}

GST_END_TEST;

/* A rung requested after two frames joins at its first frame: three
 * frames, the first with frame 2's timestamp. */
GST_START_TEST (test_rung_joins_late)
{
  Ladder *l = ladder_new ("frame-message=true");
  for (guint i = 0; i < N_FRAMES; i++) {
    if (i == 2) {
      wait_taken (l->f->element, "ref_sink");
      ladder_add (l, W / 2, H / 2, FPS);
    }
    ladder_push (l, i, NULL);
  }
  ladder_end (l);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  gint n;
  GPtrArray *frames = pad_frames (msgs, "dist_sink_0", &n);
  fail_unless_equals_int (n, N_FRAMES - 2);
  fail_unless_equals_int (frames->len, N_FRAMES - 2);
  guint64 pts;
  fail_unless (gst_structure_get_uint64 (g_ptr_array_index (frames, 0),
          "timestamp", &pts));
  fail_unless_equals_uint64 (pts, 2 * FRAME_DUR);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  ladder_free (l);
}

GST_END_TEST;

/* A rung larger than the reference and one at another frame rate: a
 * warning naming each, no scores for them; dist_sink and the good rung
 * are scored. */
GST_START_TEST (test_rungs_refused)
{
  static const gchar *const larger[] = { "dist_sink_0", "larger", NULL };
  static const gchar *const rate[] = { "dist_sink_1", "frame rate", NULL };
  Ladder *l = ladder_new ("frame-message=true");
  ladder_add (l, 2 * W, 2 * H, FPS);
  expect_message (l->f->bus, &l->f->seen, GST_MESSAGE_WARNING, larger);
  ladder_add (l, W, H, 2 * FPS);
  expect_message (l->f->bus, &l->f->seen, GST_MESSAGE_WARNING, rate);
  ladder_add (l, W / 2, H / 2, FPS);
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);
  static const gint pooled[] = { -1, -1, N_FRAMES };
  static const guint frames[] = { 0, 0, N_FRAMES };
  ladder_check_free (l, pooled, frames, TRUE);
}

GST_END_TEST;

/* Sends a flushing seek's events (flush, then a segment from frame 10)
 * down every pad of the ladder */
static void
ladder_flush (Ladder * l)
{
  GstHarness *h[2 + MAX_RUNGS] = { l->f->ref, l->f->dist };
  guint n = 2;
  const guint32 seqnum = gst_util_seqnum_next ();
  GstSegment seg;

  for (guint k = 0; k < l->n_rungs; k++)
    h[n++] = l->rung[k];
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = seg.position = 10 * FRAME_DUR;
  for (guint i = 0; i < n; i++) {
    GstEvent *ev = gst_event_new_flush_start ();
    gst_event_set_seqnum (ev, seqnum);
    fail_unless (gst_harness_push_event (h[i], ev));
  }
  for (guint i = 0; i < n; i++) {
    GstEvent *ev = gst_event_new_flush_stop (TRUE);
    gst_event_set_seqnum (ev, seqnum);
    fail_unless (gst_harness_push_event (h[i], ev));
    fail_unless (gst_harness_push_event (h[i], gst_event_new_segment (&seg)));
  }
}

/* A flushing seek: each rendition posts the pooled message of what it
 * scored before it, then starts again at index 0 with the frames after
 * it, its frames' scores those of the same frames scored from the start
 * (the scores restart, as dist_sink's do). */
GST_START_TEST (test_rung_flushing_seek)
{
  Ladder *l = ladder_new ("frame-message=true");
  for (guint k = 0; k < 2; k++)
    ladder_add (l, k ? W / 2 : W, k ? H / 2 : H, FPS);
  for (guint i = 0; i < 3; i++)
    ladder_push (l, i, NULL);
  /* every rung's 3 frames taken before the seek */
  for (guint k = 0; k < 2; k++) {
    gchar *pad = g_strdup_printf ("dist_sink_%u", k);
    wait_taken (l->f->element, pad);
    g_free (pad);
  }
  wait_taken (l->f->element, "ref_sink");
  ladder_flush (l);
  for (guint i = 10; i < 14; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);

  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  for (guint k = 0; k < 2; k++) {
    gchar *pad = g_strdup_printf ("dist_sink_%u", k);
    guint n_pooled = 0, pooled_frames[2] = { 0, 0 }, n_frames = 0;
    gint index[16];
    for (GList * m = msgs; m; m = m->next) {
      const GstStructure *st = vmaf_structure (m->data);
      if (!st || g_strcmp0 (gst_structure_get_string (st, "pad"), pad))
        continue;
      const gchar *type = gst_structure_get_string (st, "type");
      if (!g_strcmp0 (type, "pooled")) {
        fail_unless (n_pooled < 2, "%s: more than two pooled messages", pad);
        fail_unless (gst_structure_get_uint (st, "n-frames",
                &pooled_frames[n_pooled++]));
      } else if (!g_strcmp0 (type, "frame")) {
        fail_unless (n_frames < G_N_ELEMENTS (index));
        fail_unless (gst_structure_get_int (st, "index",
                &index[n_frames++]));
      }
    }
    /* 3 frames before the seek, 4 after it, each part from index 0 */
    fail_unless_equals_int (n_pooled, 2);
    fail_unless_equals_int (pooled_frames[0], 3);
    fail_unless_equals_int (pooled_frames[1], 4);
    fail_unless_equals_int (n_frames, 7);
    for (guint i = 0; i < n_frames; i++)
      fail_unless_equals_int (index[i], i < 3 ? (gint) i : (gint) i - 3);
    g_free (pad);
  }
  free_messages (msgs);
  ladder_free (l);
}

GST_END_TEST;

/* The mock HIP runtime's counts: the bytes its 2-D copies (the planes)
 * moved, host to device and device to device, and the launches of VIF's
 * and ADM's scale-0 kernels (one pair's, the reference's share, a
 * distorted picture's against it) and of motion's */
typedef void (*MockCopyBytesFunc) (unsigned long long *h2d,
    unsigned long long *d2d);
typedef unsigned long long (*MockLaunchesFunc) (const char *name);

typedef struct
{
  unsigned long long h2d, d2d;
  unsigned long long vif_pair, vif_ref, vif_dis, motion;
  unsigned long long adm_pair, adm_ref, adm_dis;
} MockCounts;

static void
mock_counts (MockCounts * c)
{
  void *mock = dlopen (g_getenv ("VMAFHIP_HIP_LIBRARY"), RTLD_NOW);
  fail_unless (mock != NULL, "the mock HIP runtime: %s", dlerror ());
  MockCopyBytesFunc bytes = (MockCopyBytesFunc) dlsym (mock,
      "vh_mock_hip_copy_bytes");
  MockLaunchesFunc launches = (MockLaunchesFunc) dlsym (mock,
      "vh_mock_hip_launches");
  fail_unless (bytes != NULL && launches != NULL);
  bytes (&c->h2d, &c->d2d);
  c->vif_pair = launches ("vh_vif_scale0_8bit");
  c->vif_ref = launches ("vh_vif_scale0_8bit_ref");
  c->vif_dis = launches ("vh_vif_scale0_8bit_dis");
  c->motion = launches ("vh_motion_sad_8");
  c->adm_pair = launches ("vh_adm_scale0_u8");
  c->adm_ref = launches ("vh_adm_scale0_u8_ref");
  c->adm_dis = launches ("vh_adm_scale0_u8_dis");
  dlclose (mock);
}

/* Three full-size rungs beside dist_sink, luma only (vmaf_v0.6.1): what
 * one run adds to the counts, with the reference shared (share-reference,
 * or VMAFHIP_SHARED_REFERENCE=1 in the environment) and without (the
 * default) */
static void
count_ladder_work (gboolean shared, gboolean by_env, MockCounts * run)
{
  MockCounts before, after;
  if (shared && by_env)
    g_setenv ("VMAFHIP_SHARED_REFERENCE", "1", TRUE);
  mock_counts (&before);
  Ladder *l = ladder_new (shared && !by_env
      ? "frame-message=true share-reference=true" : "frame-message=true");
  for (guint k = 0; k < 3; k++)
    ladder_add (l, W, H, FPS);
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);
  mock_counts (&after);
  static const gint pooled[] = { N_FRAMES, N_FRAMES, N_FRAMES };
  static const guint frames[] = { N_FRAMES, N_FRAMES, N_FRAMES };
  ladder_check_free (l, pooled, frames, TRUE);
  g_unsetenv ("VMAFHIP_SHARED_REFERENCE");
  run->h2d = after.h2d - before.h2d;
  run->d2d = after.d2d - before.d2d;
  run->vif_pair = after.vif_pair - before.vif_pair;
  run->vif_ref = after.vif_ref - before.vif_ref;
  run->vif_dis = after.vif_dis - before.vif_dis;
  run->motion = after.motion - before.motion;
  run->adm_pair = after.adm_pair - before.adm_pair;
  run->adm_ref = after.adm_ref - before.adm_ref;
  run->adm_dis = after.adm_dis - before.adm_dis;
}

GST_START_TEST (test_reference_uploaded_once)
{
  const unsigned long long plane = (unsigned long long) W * H;
  MockCounts run;

  /* the default, each engine its own: dist_sink's pair and each rung's */
  count_ladder_work (FALSE, FALSE, &run);
  fail_unless_equals_uint64 (run.h2d, N_FRAMES * 8 * plane);
  fail_unless_equals_uint64 (run.d2d, 0);
  fail_unless_equals_uint64 (run.vif_pair, N_FRAMES * 4);
  fail_unless_equals_uint64 (run.vif_ref, 0);
  fail_unless_equals_uint64 (run.vif_dis, 0);
  fail_unless_equals_uint64 (run.motion, (N_FRAMES - 1) * 4);
  fail_unless_equals_uint64 (run.adm_pair, N_FRAMES * 4);
  fail_unless_equals_uint64 (run.adm_ref, 0);
  fail_unless_equals_uint64 (run.adm_dis, 0);
  /* share-reference=true (by_env 0) or VMAFHIP_SHARED_REFERENCE=1 (1):
   * the renditions' reference uploaded once, then copied on the device;
   * its share of VIF and ADM and motion's SAD computed once a frame, each
   * rung computing only its own part of VIF and ADM (dist_sink keeps its
   * pairs) */
  for (int by_env = 0; by_env < 2; by_env++) {
    count_ladder_work (TRUE, by_env, &run);
    fail_unless_equals_uint64 (run.h2d, N_FRAMES * 6 * plane);
    fail_unless_equals_uint64 (run.d2d, N_FRAMES * 3 * plane);
    fail_unless_equals_uint64 (run.vif_pair, N_FRAMES);
    fail_unless_equals_uint64 (run.vif_ref, N_FRAMES);
    fail_unless_equals_uint64 (run.vif_dis, N_FRAMES * 3);
    fail_unless_equals_uint64 (run.motion, (N_FRAMES - 1) * 2);
    fail_unless_equals_uint64 (run.adm_pair, N_FRAMES);
    fail_unless_equals_uint64 (run.adm_ref, N_FRAMES);
    fail_unless_equals_uint64 (run.adm_dis, N_FRAMES * 3);
  }
}

GST_END_TEST;

static Suite *
vmafhip_renditions_suite (void)
{
  Suite *s = suite_create ("vmafhip-renditions");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ladder_as_single_runs);
  tcase_add_test (tc, test_ladder_with_chroma);
  tcase_add_test (tc, test_ladder_results_files);
  tcase_add_test (tc, test_rung_ends_early);
  tcase_add_test (tc, test_rung_joins_late);
  tcase_add_test (tc, test_rungs_refused);
  tcase_add_test (tc, test_rung_flushing_seek);
  /* the uploads are counted by the mock HIP runtime */
  if (g_getenv ("VMAFHIP_TEST_MOCK_HIP"))
    tcase_add_test (tc, test_reference_uploaded_once);
  return s;
}

GST_CHECK_MAIN (vmafhip_renditions);
