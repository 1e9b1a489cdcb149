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
#include "vh-element-fixture.h"

#define N_FRAMES 5
#define MAX_RUNGS 3

typedef struct {
  Fixture *f;
  GstHarness *rung[MAX_RUNGS];
  GstVideoInfo info[MAX_RUNGS];
  guint n_rungs;
} Ladder;

static void
ladder_add (Ladder * l, int w, int h, int fps)
{
  const guint k = l->n_rungs++;
  l->rung[k] = gst_harness_new_with_element (l->f->element, "dist_sink_%u",
      NULL);
  fail_unless (l->rung[k] != NULL);
  video_info_init (&l->info[k], "I420", w, h);
  GST_VIDEO_INFO_FPS_N (&l->info[k]) = fps;
  gst_harness_set_src_caps (l->rung[k], gst_video_info_to_caps (&l->info[k]));
}

static Ladder *
ladder_new (const char *props)
{
  Ladder *l = g_new0 (Ladder, 1);
  l->f = fixture_new (props, FALSE);
  video_info_init (&l->f->ref_info, "I420", W, H);
  video_info_init (&l->f->dist_info, "I420", W, H);
  content_init (&l->f->content, &l->f->ref_info, 23);
  gst_harness_set_src_caps (l->f->ref,
      gst_video_info_to_caps (&l->f->ref_info));
  gst_harness_set_src_caps (l->f->dist,
      gst_video_info_to_caps (&l->f->dist_info));
  return l;
}

/* Frame i on ref_sink, dist_sink and every rung still in `live` (NULL:
 * all) */
static void
ladder_push (Ladder * l, guint i, const gboolean * live)
{
  fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
  fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
  for (guint k = 0; k < l->n_rungs; k++)
    if (l->rung[k] && (!live || live[k]))
      fail_unless_equals_int (gst_harness_push (l->rung[k],
              rung_buffer (l->f, i, &l->info[k])), GST_FLOW_OK);
}

static void
ladder_end (Ladder * l)
{
  for (guint k = 0; k < l->n_rungs; k++)
    if (l->rung[k])
      gst_harness_push_event (l->rung[k], gst_event_new_eos ());
  push_eos_both (l->f);
  wait_eos (l->f);
}

static void
ladder_free (Ladder * l)
{
  for (guint k = 0; k < l->n_rungs; k++)
    if (l->rung[k])
      gst_harness_teardown (l->rung[k]);
  fixture_free (l->f);
  g_free (l);
}

/* The VMAF messages of one pad (frame messages copied, in order); its
 * pooled message's n-frames in *n_pooled_frames (-1: no pooled message) */
static GPtrArray *
pad_frames (GList * msgs, const char *pad, gint * n_pooled_frames)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  *n_pooled_frames = -1;
  for (GList * m = msgs; m; m = m->next) {
    const GstStructure *s = vmaf_structure (m->data);
    if (!s || g_strcmp0 (gst_structure_get_string (s, "pad"), pad))
      continue;
    if (!g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
      g_ptr_array_add (frames, gst_structure_copy (s));
    } else if (!g_strcmp0 (gst_structure_get_string (s, "type"), "pooled")) {
      guint n;
      fail_unless (*n_pooled_frames < 0, "%s: two pooled messages", pad);
      fail_unless (gst_structure_get_uint (s, "n-frames", &n));
      *n_pooled_frames = (gint) n;
    }
  }
  return frames;
}

/* The pad's frame messages and its pooled message's n-frames (-1: none)
 * are as expected */
static void
check_pad (GList * msgs, const char *pad, gint pooled, guint frames)
{
  gint n;
  GPtrArray *got = pad_frames (msgs, pad, &n);
  fail_unless_equals_int (n, pooled);
  fail_unless_equals_int (got->len, frames);
  g_ptr_array_unref (got);
}

/* check_pad for dist_sink_k, k = 0..n-1 */
static void
check_rungs (GList * msgs, guint n, const gint * pooled,
    const guint * frames)
{
  for (guint k = 0; k < n; k++) {
    gchar *pad = g_strdup_printf ("dist_sink_%u", k);
    check_pad (msgs, pad, pooled[k], frames[k]);
    g_free (pad);
  }
}

/* The ended ladder's messages: every rung's pooled count and frame
 * messages (check_rungs), and dist_sink's N_FRAMES of each where
 * with_dist_sink; then the messages and the ladder freed */
static void
ladder_check_free (Ladder * l, const gint * pooled, const guint * frames,
    gboolean with_dist_sink)
{
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  check_rungs (msgs, l->n_rungs, pooled, frames);
  if (with_dist_sink)
    check_pad (msgs, "dist_sink", N_FRAMES, N_FRAMES);
  free_messages (msgs);
  ladder_free (l);
}

static gboolean
field_equal (GQuark field, const GValue * value, gpointer user_data)
{
  const GstStructure *other = user_data;
  const GValue *v = gst_structure_id_get_value (other, field);
  if (field == g_quark_from_static_string ("pad"))
    return TRUE;
  fail_unless (v != NULL, "%s missing", g_quark_to_string (field));
  fail_unless (gst_value_compare (value, v) == GST_VALUE_EQUAL,
      "%s: %s against %s in the single run", g_quark_to_string (field),
      gst_value_serialize (value), gst_value_serialize (v));
  return TRUE;
}

/* The frame messages of a run of frames first..first+n-1 with that rung
 * on dist_sink alone, the reference (the content) at ref_w x ref_h */
static GPtrArray *
single_run_from (const char *props, int ref_w, int ref_h, int w, int h,
    guint first, guint n)
{
  Ladder *l = ladder_new (props);
  if (ref_w != W || ref_h != H) {
    video_info_init (&l->f->ref_info, "I420", ref_w, ref_h);
    gst_harness_set_src_caps (l->f->ref,
        gst_video_info_to_caps (&l->f->ref_info));
    content_clear (&l->f->content);
    content_init (&l->f->content, &l->f->ref_info, 23);
  }
  video_info_init (&l->f->dist_info, "I420", w, h);
  gst_harness_set_src_caps (l->f->dist,
      gst_video_info_to_caps (&l->f->dist_info));
  for (guint i = first; i < first + n; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (l->f->dist,
            rung_buffer (l->f, i, &l->f->dist_info)), GST_FLOW_OK);
  }
  push_eos_both (l->f);
  wait_eos (l->f);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  gint pooled;
  GPtrArray *frames = pad_frames (msgs, "dist_sink", &pooled);
  fail_unless_equals_int (pooled, n);
  free_messages (msgs);
  ladder_free (l);
  return frames;
}

/* The frame messages of a run with that rung on dist_sink alone */
static GPtrArray *
single_run (const char *props, int w, int h)
{
  return single_run_from (props, W, H, w, h, 0, N_FRAMES);
}

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
      fail_unless (gst_structure_get_double (s, "vmaf_v0.6.1", &v));
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

/* Stopped without EOS (the pipeline to NULL while playing): every pad's
 * paired frames are reported, each pad's pooled message says "stopped",
 * and every results file parses with its frames and pooled section */
GST_START_TEST (test_ladder_stopped_without_eos)
{
  gchar *dir, *path;
  results_dir_new (&dir, &path);
  gchar *props = g_strdup_printf ("results-format=json results-filename=%s",
      path);
  gchar *rung_path[2];
  Ladder *l = ladder_new (props);

  for (guint k = 0; k < 2; k++) {
    ladder_add (l, k ? W / 2 : W, k ? H / 2 : H, FPS);
    rung_path[k] = g_strdup_printf ("%s/scores.dist_sink_%u.json", dir, k);
  }
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  wait_taken (l->f->element, "dist_sink_0");
  wait_taken (l->f->element, "dist_sink_1");
  wait_taken (l->f->element, "ref_sink");
  fail_unless_equals_int (gst_element_set_state (l->f->element,
          GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);

  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  static const char *const pads[] = { "dist_sink", "dist_sink_0",
    "dist_sink_1"
  };
  for (guint p = 0; p < G_N_ELEMENTS (pads); p++) {
    check_pad (msgs, pads[p], N_FRAMES, N_FRAMES);
    for (GList * m = msgs; m; m = m->next) {
      const GstStructure *st = vmaf_structure (m->data);
      if (st && !g_strcmp0 (gst_structure_get_string (st, "pad"), pads[p])
          && !g_strcmp0 (gst_structure_get_string (st, "type"), "pooled"))
        fail_unless_equals_string (gst_structure_get_string (st, "end"),
            "stopped");
    }
  }
  free_messages (msgs);
  ladder_free (l);
  json_node_unref (check_results_json (path, N_FRAMES));
  for (guint k = 0; k < 2; k++) {
    json_node_unref (check_results_json (rung_path[k], N_FRAMES));
    g_unlink (rung_path[k]);
    g_free (rung_path[k]);
  }
  g_free (props);
  results_dir_free (dir, path);
}

GST_END_TEST;

/* A rung's results file that cannot be written (a folder where the file
 * should be) fails the run by default, naming the pad */
GST_START_TEST (test_rung_write_failure)
{
  gchar *dir, *path;
  results_dir_new (&dir, &path);
  gchar *blocker = g_build_filename (dir, "scores.dist_sink_0.json", NULL);
  gchar *props = g_strdup_printf ("results-format=json results-filename=%s",
      path);
  const gchar *needles[] = { "dist_sink_0", "write-failure=warn", NULL };
  Ladder *l = ladder_new (props);

  fail_unless (g_mkdir (blocker, 0700) == 0);
  ladder_add (l, W / 2, H / 2, FPS);
  /* (the pushes after the error are refused: not checked) */
  for (guint i = 0; i < N_FRAMES; i++) {
    push_ref (l->f, i);
    push_dist (l->f, i);
    gst_harness_push (l->rung[0], rung_buffer (l->f, i, &l->info[0]));
  }
  expect_message (l->f->bus, &l->f->seen, GST_MESSAGE_ERROR, needles);
  gst_element_set_state (l->f->element, GST_STATE_NULL);
  ladder_free (l);
  g_rmdir (blocker);
  g_free (blocker);
  g_free (props);
  results_dir_free (dir, path);
}

GST_END_TEST;

/* The frames of `pad` from `first` on equal those of a separate run
 * (`alone`), but for their number in the stream */
static void
check_after_change (GList * msgs, const char *pad, guint total, guint first,
    GPtrArray * alone)
{
  gint n_pooled;
  GPtrArray *got = pad_frames (msgs, pad, &n_pooled);
  fail_unless_equals_int (n_pooled, total);
  fail_unless_equals_int (got->len, total);
  for (guint i = 0; i < total; i++) {
    gint index;
    fail_unless (gst_structure_get_int (g_ptr_array_index (got, i), "index",
            &index));
    fail_unless_equals_int (index, i);
  }
  for (guint i = 0; i < alone->len; i++) {
    GstStructure *s = gst_structure_copy (g_ptr_array_index (got, first + i));
    const GstStructure *a = g_ptr_array_index (alone, i);
    gint index;
    guint64 ref_index;
    /* numbered on in the stream; the separate run numbers from 0 */
    fail_unless (gst_structure_get_int (a, "index", &index)
        && gst_structure_get_uint64 (a, "ref-index", &ref_index));
    gst_structure_set (s, "index", G_TYPE_INT, index, "ref-index",
        G_TYPE_UINT64, ref_index, NULL);
    gst_structure_foreach (s, field_equal, g_ptr_array_index (alone, i));
    gst_structure_free (s);
  }
  g_ptr_array_unref (got);
}

/* The 'vmafhip-segment' message of `pad`, which says `changed` changed */
static void
check_segment_message (GList * msgs, const char *pad, const char *changed,
    guint n_frames)
{
  guint found = 0, n;
  for (GList * m = msgs; m; m = m->next) {
    const GstStructure *s = gst_message_get_structure (m->data);
    if (!s || !gst_structure_has_name (s, "vmafhip-segment")
        || g_strcmp0 (gst_structure_get_string (s, "pad"), pad))
      continue;
    found++;
    fail_unless_equals_string (gst_structure_get_string (s, "changed-pad"),
        changed);
    fail_unless (gst_structure_get_uint (s, "n-frames", &n));
    fail_unless_equals_int (n, n_frames);
  }
  fail_unless_equals_int (found, 1);
}

/* A rung switches to a smaller size in the middle of the stream: it goes
 * on in a new segment (the other pads unaffected), its frames after the
 * switch as a run of that size alone */
GST_START_TEST (test_rung_resolution_change)
{
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Ladder *l = ladder_new ("frame-message=true");
  ladder_add (l, W / 2, H / 2, FPS);
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  video_info_init (&l->info[0], "I420", W / 5, H / 5);
  gst_harness_set_src_caps (l->rung[0], gst_video_info_to_caps (&l->info[0]));
  for (guint i = N_FRAMES; i < 2 * N_FRAMES; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  check_pad (msgs, "dist_sink", 2 * N_FRAMES, 2 * N_FRAMES);
  check_segment_message (msgs, "dist_sink_0", "dist_sink_0", N_FRAMES);
  GPtrArray *alone = scored ? single_run_from (NULL, W, H, W / 5, H / 5,
      N_FRAMES, N_FRAMES) : g_ptr_array_new ();
  check_after_change (msgs, "dist_sink_0", 2 * N_FRAMES, N_FRAMES, alone);
  g_ptr_array_unref (alone);
  free_messages (msgs);
  ladder_free (l);
}

GST_END_TEST;

static GAsyncQueue *rung_queue;

/* Pushes the buffers of rung_queue into the harness until an empty one,
 * then EOS */
static gpointer
push_rung (gpointer data)
{
  GstHarness *h = data;
  for (;;) {
    GstBuffer *b = g_async_queue_pop (rung_queue);
    if (gst_buffer_get_size (b) == 0) {
      gst_buffer_unref (b);
      break;
    }
    gst_harness_push (h, b);
  }
  gst_harness_push_event (h, gst_event_new_eos ());
  return NULL;
}

/* A rung that drops frames (as a live encoder does): every frame it
 * reports equals the frame of an aligned run of that rung for the same
 * reference frame, motion included */
GST_START_TEST (test_rung_drops_frames)
{
  enum { N = 12 };
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Ladder *l = ladder_new ("frame-message=true");
  ladder_add (l, W / 2, H / 2, FPS);
  rung_queue = g_async_queue_new ();
  guint n_kept = 0;
  /* the rung from a thread of its own, as a branch delivers it (a
   * dropped frame is seen missing when its successor arrives) */
  GstBuffer *rung[N + 1] = { NULL };
  for (guint i = 0; i < N; i++)
    if (i != 3 && i != 6 && i != 7)
      rung[n_kept++] = rung_buffer (l->f, i, &l->info[0]);
  GThread *pusher = g_thread_new ("rung", push_rung, (gpointer) l->rung[0]);
  for (guint i = 0; rung[i]; i++)
    g_async_queue_push (rung_queue, rung[i]);
  g_async_queue_push (rung_queue, gst_buffer_new ());   /* the end */
  for (guint i = 0; i < N; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
  }
  g_thread_join (pusher);
  push_eos_both (l->f);
  wait_eos (l->f);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  gint n_pooled;
  GPtrArray *got = pad_frames (msgs, "dist_sink_0", &n_pooled);
  fail_unless_equals_int (n_pooled, n_kept);
  fail_unless_equals_int (got->len, n_kept);
  GPtrArray *aligned = scored ? single_run_from (NULL, W, H, W / 2, H / 2, 0,
      N) : NULL;
  for (guint k = 0; k < got->len; k++) {
    GstStructure *s = gst_structure_copy (g_ptr_array_index (got, k));
    guint64 ref_index;
    fail_unless (gst_structure_get_uint64 (s, "ref-index", &ref_index));
    fail_if (ref_index == 3 || ref_index == 6 || ref_index == 7);
    if (aligned) {
      gint index;
      const GstStructure *a = g_ptr_array_index (aligned, ref_index);
      fail_unless (gst_structure_get_int (a, "index", &index));
      gst_structure_set (s, "index", G_TYPE_INT, index, NULL);
      gst_structure_foreach (s, field_equal, (gpointer) a);
    }
    gst_structure_free (s);
  }
  if (aligned)
    g_ptr_array_unref (aligned);
  g_ptr_array_unref (got);
  free_messages (msgs);
  ladder_free (l);
  g_async_queue_unref (rung_queue);
}

GST_END_TEST;

/* The reference switches resolution (with dist_sink and the rung): every
 * pad goes on in a new segment, the rung scored against the new
 * reference's size */
GST_START_TEST (test_reference_change_retargets_rungs)
{
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Ladder *l = ladder_new ("frame-message=true");
  ladder_add (l, W / 2, H / 2, FPS);
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  video_info_init (&l->f->ref_info, "I420", 96, 54);
  video_info_init (&l->f->dist_info, "I420", 96, 54);
  video_info_init (&l->info[0], "I420", 48, 27);
  content_clear (&l->f->content);
  content_init (&l->f->content, &l->f->ref_info, 23);
  gst_harness_set_src_caps (l->f->ref,
      gst_video_info_to_caps (&l->f->ref_info));
  gst_harness_set_src_caps (l->f->dist,
      gst_video_info_to_caps (&l->f->dist_info));
  gst_harness_set_src_caps (l->rung[0], gst_video_info_to_caps (&l->info[0]));
  for (guint i = N_FRAMES; i < 2 * N_FRAMES; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  check_segment_message (msgs, "dist_sink", "ref_sink", N_FRAMES);
  check_segment_message (msgs, "dist_sink_0", "ref_sink", N_FRAMES);
  GPtrArray *alone = scored ? single_run_from (NULL, 96, 54, 48, 27,
      N_FRAMES, N_FRAMES) : g_ptr_array_new ();
  check_after_change (msgs, "dist_sink_0", 2 * N_FRAMES, N_FRAMES, alone);
  g_ptr_array_unref (alone);
  alone = scored ? single_run_from (NULL, 96, 54, 96, 54, N_FRAMES, N_FRAMES)
      : g_ptr_array_new ();
  check_after_change (msgs, "dist_sink", 2 * N_FRAMES, N_FRAMES, alone);
  g_ptr_array_unref (alone);
  free_messages (msgs);
  ladder_free (l);
}

GST_END_TEST;

/* The monitor on a rendition as on dist_sink: each pad's intervals
 * (two frames each) pool that pad's frames, in messages naming the pad;
 * a window and an alarm likewise */
GST_START_TEST (test_rung_monitor)
{
  gchar *props = g_strdup_printf ("frame-message=true interval=%"
      G_GUINT64_FORMAT " window=%" G_GUINT64_FORMAT " window-interval=0 "
      "alarm-threshold=200 alarm-duration=0", 2 * FRAME_DUR, 2 * FRAME_DUR);
  Ladder *l = ladder_new (props);
  g_free (props);
  ladder_add (l, W / 2, H / 2, FPS);
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  static const char *const pads[] = { "dist_sink", "dist_sink_0" };
  for (guint p = 0; p < G_N_ELEMENTS (pads); p++) {
    gint n;
    GPtrArray *frames = pad_frames (msgs, pads[p], &n);
    guint n_intervals = 0, n_windows = 0, n_alarms = 0;
    for (GList * m = msgs; m; m = m->next) {
      const GstStructure *st = gst_message_get_structure (m->data);
      if (!st || g_strcmp0 (gst_structure_get_string (st, "pad"), pads[p]))
        continue;
      if (gst_structure_has_name (st, "vmafhip-alarm")) {
        n_alarms++;
        continue;
      }
      const gchar *type = gst_structure_get_string (st, "type");
      if (!g_strcmp0 (type, "window")) {
        n_windows++;
        continue;
      }
      if (g_strcmp0 (type, "interval"))
        continue;
      guint64 start;
      guint nf;
      gdouble mean, sum = 0.0;
      fail_unless (gst_structure_get_uint64 (st, "running-time", &start)
          && gst_structure_get_uint (st, "n-frames", &nf)
          && gst_structure_get_double (st, "score", &mean));
      const guint first = (guint) (start / FRAME_DUR);
      fail_unless (nf >= 1 && first + nf <= frames->len);
      for (guint k = first; k < first + nf; k++) {
        gdouble v;
        fail_unless (gst_structure_get_double (g_ptr_array_index (frames, k),
                "score", &v));
        sum += v;
      }
      fail_unless (fabs (mean - sum / nf) < 1e-9, "%s interval at %u: %.9f "
          "against the frames' %.9f", pads[p], first, mean, sum / nf);
      n_intervals++;
    }
    fail_unless_equals_int (n_intervals, 3);
    fail_unless (n_windows >= 1, "%s: no window message", pads[p]);
    fail_unless (n_alarms >= 1, "%s: no alarm", pads[p]);
    g_ptr_array_unref (frames);
  }
  free_messages (msgs);
  ladder_free (l);
}

GST_END_TEST;

/* align=offset applies to every rendition: a ladder whose rungs (and
 * dist_sink) lag the reference by 3 frames is scored as an aligned one */
GST_START_TEST (test_rung_offset)
{
  enum { LAG = 3 };
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Ladder *l = ladder_new ("frame-message=true align=offset offset=3");
  ladder_add (l, W / 2, H / 2, FPS);
  l->f->dist_offset = LAG * FRAME_DUR;
  for (guint i = 0; i < N_FRAMES; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
    GstBuffer *b = rung_buffer (l->f, i, &l->info[0]);
    GST_BUFFER_PTS (b) += LAG * FRAME_DUR;
    fail_unless_equals_int (gst_harness_push (l->rung[0], b), GST_FLOW_OK);
  }
  /* the lagging streams end LAG frames later on the reference's clock */
  gst_harness_push_event (l->rung[0], gst_event_new_eos ());
  push_eos_both (l->f);
  wait_eos (l->f);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  gint n;
  GPtrArray *got = pad_frames (msgs, "dist_sink_0", &n);
  fail_unless_equals_int (n, N_FRAMES);
  fail_unless_equals_int (got->len, N_FRAMES);
  if (scored) {
    GPtrArray *aligned = single_run (NULL, W / 2, H / 2);
    for (guint k = 0; k < N_FRAMES; k++)
      gst_structure_foreach (g_ptr_array_index (got, k), field_equal,
          g_ptr_array_index (aligned, k));
    g_ptr_array_unref (aligned);
  }
  g_ptr_array_unref (got);
  free_messages (msgs);
  ladder_free (l);
}

GST_END_TEST;

/* A rung's timeline jumps 1 s ahead (its source restarted): a warning
 * names the rung and the jump; the other pads are scored to the end */
GST_START_TEST (test_rung_timeline_jump)
{
  const gchar *needles[] = { "dist_sink_0 jumped by +0:00:01.0", NULL };
  Ladder *l = ladder_new ("frame-message=true");
  ladder_add (l, W / 2, H / 2, FPS);
  rung_queue = g_async_queue_new ();
  /* its frames 0..4 in time, then 30..34 (frames 5..29 never come) */
  for (guint i = 0; i < N_FRAMES; i++)
    g_async_queue_push (rung_queue, rung_buffer (l->f, i, &l->info[0]));
  for (guint i = 0; i < N_FRAMES; i++) {
    GstBuffer *b = rung_buffer (l->f, N_FRAMES + i, &l->info[0]);
    GST_BUFFER_PTS (b) += 25 * FRAME_DUR;
    if (i == 0)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    g_async_queue_push (rung_queue, b);
  }
  g_async_queue_push (rung_queue, gst_buffer_new ());
  GThread *pusher = g_thread_new ("rung", push_rung, (gpointer) l->rung[0]);
  /* the reference and dist_sink go on past the rung's last frame */
  const guint n = 2 * N_FRAMES + 25;
  for (guint i = 0; i < n; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
  }
  g_thread_join (pusher);
  push_eos_both (l->f);
  wait_eos (l->f);
  expect_message (l->f->bus, &l->f->seen, GST_MESSAGE_WARNING, needles);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  check_pad (msgs, "dist_sink", n, n);
  /* the rung: its frames before and after the jump, each once */
  check_pad (msgs, "dist_sink_0", 2 * N_FRAMES, 2 * N_FRAMES);
  free_messages (msgs);
  ladder_free (l);
  g_async_queue_unref (rung_queue);
}

GST_END_TEST;

/* rate-mismatch=follow-reference on a rendition as on dist_sink: a rung
 * at twice the reference's rate (each content shown twice) is scored, for
 * each reference frame, against its frame on screen then (the aligned
 * run's frames), the others skipped and counted; a rung at half the rate
 * has each frame scored twice */
GST_START_TEST (test_rung_follow_reference)
{
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Ladder *l = ladder_new ("frame-message=true "
      "rate-mismatch=follow-reference");
  ladder_add (l, W / 2, H / 2, 2 * FPS);
  rung_queue = g_async_queue_new ();
  for (guint j = 0; j < 2 * N_FRAMES; j++) {
    GstBuffer *b = rung_buffer (l->f, j / 2, &l->info[0]);
    GST_BUFFER_PTS (b) = j * FRAME_DUR / 2;
    GST_BUFFER_DURATION (b) = FRAME_DUR / 2;
    g_async_queue_push (rung_queue, b);
  }
  g_async_queue_push (rung_queue, gst_buffer_new ());
  GThread *pusher = g_thread_new ("rung", push_rung, (gpointer) l->rung[0]);
  for (guint i = 0; i < N_FRAMES; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
  }
  push_eos_both (l->f);
  g_thread_join (pusher);
  wait_eos (l->f);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  gint n;
  GPtrArray *got = pad_frames (msgs, "dist_sink_0", &n);
  fail_unless_equals_int (n, N_FRAMES);
  fail_unless_equals_int (got->len, N_FRAMES);
  if (scored) {
    GPtrArray *aligned = single_run (NULL, W / 2, H / 2);
    for (guint k = 0; k < N_FRAMES; k++)
      gst_structure_foreach (g_ptr_array_index (got, k), field_equal,
          g_ptr_array_index (aligned, k));
    g_ptr_array_unref (aligned);
  }
  guint64 unpaired = 0;
  for (GList * m = msgs; m; m = m->next) {
    const GstStructure *st = vmaf_structure (m->data);
    if (st && !g_strcmp0 (gst_structure_get_string (st, "pad"),
            "dist_sink_0")
        && !g_strcmp0 (gst_structure_get_string (st, "type"), "pooled"))
      fail_unless (gst_structure_get_uint64 (st, "unpaired-dist", &unpaired));
  }
  /* every second frame skipped (the last one never replaced: not counted) */
  fail_unless_equals_uint64 (unpaired, N_FRAMES - 1);
  g_ptr_array_unref (got);
  free_messages (msgs);
  ladder_free (l);
  g_async_queue_unref (rung_queue);

  /* half the rate: each frame scored twice */
  l = ladder_new ("frame-message=true rate-mismatch=follow-reference");
  ladder_add (l, W / 2, H / 2, FPS / 2);
  rung_queue = g_async_queue_new ();
  for (guint j = 0; j < (N_FRAMES + 1) / 2; j++) {
    GstBuffer *b = rung_buffer (l->f, 2 * j, &l->info[0]);
    GST_BUFFER_DURATION (b) = 2 * FRAME_DUR;
    g_async_queue_push (rung_queue, b);
  }
  g_async_queue_push (rung_queue, gst_buffer_new ());
  pusher = g_thread_new ("rung", push_rung, (gpointer) l->rung[0]);
  for (guint i = 0; i < N_FRAMES; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
  }
  push_eos_both (l->f);
  g_thread_join (pusher);
  wait_eos (l->f);
  msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  check_pad (msgs, "dist_sink_0", N_FRAMES, N_FRAMES);
  free_messages (msgs);
  ladder_free (l);
  g_async_queue_unref (rung_queue);
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
  tcase_add_test (tc, test_ladder_stopped_without_eos);
  tcase_add_test (tc, test_rung_write_failure);
  tcase_add_test (tc, test_rung_resolution_change);
  tcase_add_test (tc, test_rung_drops_frames);
  tcase_add_test (tc, test_rung_monitor);
  tcase_add_test (tc, test_rung_offset);
  tcase_add_test (tc, test_rung_timeline_jump);
  tcase_add_test (tc, test_rung_follow_reference);
  tcase_add_test (tc, test_reference_change_retargets_rungs);
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
