/* vmafhip — renditions in live operation (issue 33), each as on
 * dist_sink: a ladder stopped without EOS, a rung's write failure, a
 * rung's resolution change and the reference's (every rung re-targeted),
 * a rung that drops frames (motion from the whole reference), the monitor
 * per pad, align=offset and a rung's timeline jump, a flushing seek,
 * align=auto finding a rung's own lag, rate-mismatch=follow-reference on a
 * half-rate rung.  Against the mock HIP runtime too
 * (counts only: the mock runs no kernel). */
#include <math.h>
#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "vh-ladder.h"

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

/* A rung that drops frames (as a live encoder does): every frame it
 * reports equals the frame of an aligned run of that rung for the same
 * reference frame, motion included */
GST_START_TEST (test_rung_drops_frames)
{
  enum { N = 12 };
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Ladder *l = ladder_new ("frame-message=true");
  ladder_add (l, W / 2, H / 2, FPS);
  guint n_kept = 0;
  /* the rung from a thread of its own, as a branch delivers it (a
   * dropped frame is seen missing when its successor arrives) */
  GPtrArray *bufs = g_ptr_array_new ();
  for (guint i = 0; i < N; i++)
    if (i != 3 && i != 6 && i != 7)
      g_ptr_array_add (bufs, rung_buffer (l->f, i, &l->info[0]));
  n_kept = bufs->len;
  GThread *pusher = ladder_push_rung_async (l, 0, bufs);
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
  /* no frame of a dropped one's reference frame */
  for (guint k = 0; k < got->len; k++) {
    guint64 ref_index;
    fail_unless (gst_structure_get_uint64 (g_ptr_array_index (got, k),
            "ref-index", &ref_index));
    fail_if (ref_index == 3 || ref_index == 6 || ref_index == 7);
  }
  check_frames_aligned (got, aligned, FALSE);
  if (aligned)
    g_ptr_array_unref (aligned);
  g_ptr_array_unref (got);
  free_messages (msgs);
  ladder_free (l);
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
  GPtrArray *bufs = g_ptr_array_new ();
  /* its frames 0..4 in time, then 30..34 (frames 5..29 never come) */
  for (guint i = 0; i < N_FRAMES; i++)
    g_ptr_array_add (bufs, rung_buffer (l->f, i, &l->info[0]));
  for (guint i = 0; i < N_FRAMES; i++) {
    GstBuffer *b = rung_buffer (l->f, N_FRAMES + i, &l->info[0]);
    GST_BUFFER_PTS (b) += 25 * FRAME_DUR;
    if (i == 0)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    g_ptr_array_add (bufs, b);
  }
  /* the reference and dist_sink go on past the rung's last frame */
  const guint n = 2 * N_FRAMES + 25;
  GThread *pusher = ladder_push_rung_async (l, 0, bufs);
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
}

GST_END_TEST;

/* A flushing seek with a ladder: every pad's pooled message says
 * "flushing-seek", the rung's results file is finished with the frames
 * before it; the measurement then starts again on every pad */
GST_START_TEST (test_ladder_flushing_seek)
{
  gchar *dir, *path;
  results_dir_new (&dir, &path);
  gchar *props = g_strdup_printf ("results-format=json results-filename=%s",
      path);
  gchar *rung_path = g_strdup_printf ("%s/scores.dist_sink_0.json", dir);
  Ladder *l = ladder_new (props);

  ladder_add (l, W / 2, H / 2, FPS);
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  wait_taken (l->f->element, "dist_sink_0");
  wait_taken (l->f->element, "ref_sink");
  /* a flushing seek's events on every sink pad, one seqnum */
  const guint32 seqnum = gst_util_seqnum_next ();
  GstHarness *pads[3] = { l->f->ref, l->f->dist, l->rung[0] };
  for (guint stop = 0; stop < 2; stop++)
    for (guint k = 0; k < 3; k++) {
      GstEvent *ev = stop ? gst_event_new_flush_stop (TRUE)
          : gst_event_new_flush_start ();
      gst_event_set_seqnum (ev, seqnum);
      fail_unless (gst_harness_push_event (pads[k], ev));
    }
  /* the pooled messages come with the flush, on the element's thread */
  guint n_pooled = 0;
  for (int t = 0; t < 10000 && n_pooled < 2; t++) {
    drain_bus (l->f->bus, &l->f->seen);
    n_pooled = 0;
    for (GList * m = l->f->seen; m; m = m->next) {
      const GstStructure *st = vmaf_structure (m->data);
      if (st && !g_strcmp0 (gst_structure_get_string (st, "type"), "pooled")) {
        fail_unless_equals_string (gst_structure_get_string (st, "end"),
            "flushing-seek");
        n_pooled++;
      }
    }
    g_usleep (1000);
  }
  fail_unless_equals_int (n_pooled, 2);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  check_pad (msgs, "dist_sink", N_FRAMES, N_FRAMES);
  check_pad (msgs, "dist_sink_0", N_FRAMES, N_FRAMES);
  free_messages (msgs);
  json_node_unref (check_results_json (rung_path, N_FRAMES));
  /* after the seek: a new measurement on every pad, to its EOS */
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  for (guint k = 0; k < 3; k++)
    fail_unless (gst_harness_push_event (pads[k],
            gst_event_new_segment (&seg)));
  for (guint i = 0; i < N_FRAMES; i++)
    ladder_push (l, i, NULL);
  ladder_end (l);
  msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  check_pad (msgs, "dist_sink", N_FRAMES, N_FRAMES);
  check_pad (msgs, "dist_sink_0", N_FRAMES, N_FRAMES);
  free_messages (msgs);
  ladder_free (l);
  json_node_unref (check_results_json (rung_path, N_FRAMES));
  g_unlink (rung_path);
  g_free (rung_path);
  g_free (props);
  results_dir_free (dir, path);
}

GST_END_TEST;

/* The locked lag of each pad's vmafhip-sync messages (-1000: none); no
 * message says the lock was lost or changed */
static gint
locked_lag (GList * msgs, const char *pad)
{
  gint locked = -1000;
  for (GList * m = msgs; m; m = m->next) {
    const GstStructure *s = gst_message_get_structure (m->data);
    if (!s || !gst_structure_has_name (s, "vmafhip-sync")
        || g_strcmp0 (gst_structure_get_string (s, "pad"), pad))
      continue;
    const gchar *state = gst_structure_get_string (s, "state");
    fail_if (!g_strcmp0 (state, "lost") || !g_strcmp0 (state, "changed"),
        "%s: %s", pad, state);
    if (!g_strcmp0 (state, "locked"))
      fail_unless (gst_structure_get_int (s, "offset-frames", &locked));
  }
  return locked;
}

/* align=auto on a rendition: its own search finds its own lag (the rung 5
 * frames late, dist_sink on time), each vmafhip-sync message naming its
 * pad; every frame the rung reports after its lock is the next reference
 * frame's and equals the frame of an aligned run of that rung for the same
 * reference frame, motion included */
GST_START_TEST (test_rung_align_auto)
{
  enum { N = 120, LAG = 5 };
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Ladder *l = ladder_new ("frame-message=true align=auto");
  ladder_add (l, W / 2, H / 2, FPS);
  GPtrArray *bufs = g_ptr_array_new ();
  for (guint i = 0; i < N; i++) {
    GstBuffer *b = rung_buffer (l->f, i, &l->info[0]);
    GST_BUFFER_PTS (b) += LAG * FRAME_DUR;
    g_ptr_array_add (bufs, b);
  }
  GThread *pusher = ladder_push_rung_async (l, 0, bufs);
  for (guint i = 0; i < N; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
  }
  push_eos_both (l->f);
  wait_eos (l->f);
  g_thread_join (pusher);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  fail_unless_equals_int (locked_lag (msgs, "dist_sink"), 0);
  fail_unless_equals_int (locked_lag (msgs, "dist_sink_0"), LAG);
  gint n_pooled;
  GPtrArray *got = pad_frames (msgs, "dist_sink_0", &n_pooled);
  fail_unless (got->len >= N / 4, "%u frames scored", got->len);
  fail_unless_equals_int (n_pooled, got->len);
  GPtrArray *aligned = scored ? single_run_from (NULL, W, H, W / 2, H / 2, 0,
      N) : NULL;
  check_frames_aligned (got, aligned, TRUE);
  if (aligned)
    g_ptr_array_unref (aligned);
  g_ptr_array_unref (got);
  free_messages (msgs);
  ladder_free (l);
}

GST_END_TEST;

/* align=auto and a rung whose timestamps restart 14 frames back (its
 * source restarted): its search locks, loses the lag at the jump and locks
 * the new one, its vmafhip-sync messages naming it; dist_sink's lock holds;
 * every rung frame after the new lock is the next reference frame's and
 * equals the aligned run's, motion included */
GST_START_TEST (test_rung_jump_searches_again)
{
  enum { N = 100, JUMP = 40, BACK = 14 };
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Ladder *l = ladder_new ("frame-message=true align=auto "
      "search-window=600000000");
  ladder_add (l, W / 2, H / 2, FPS);
  GPtrArray *bufs = g_ptr_array_new ();
  for (guint i = 0; i < N; i++) {
    GstBuffer *b = rung_buffer (l->f, i, &l->info[0]);
    GST_BUFFER_PTS (b) = (i - (i >= JUMP ? BACK : 0)) * FRAME_DUR;
    if (i == JUMP)
      GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DISCONT);
    g_ptr_array_add (bufs, b);
  }
  GThread *pusher = ladder_push_rung_async (l, 0, bufs);
  for (guint i = 0; i < N; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
  }
  push_eos_both (l->f);
  wait_eos (l->f);
  g_thread_join (pusher);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  const char *states[4];
  gint offsets[4];
  guint n_sync = 0;
  GPtrArray *after = g_ptr_array_new ();
  for (GList * m = msgs; m; m = m->next) {
    const GstStructure *s = gst_message_get_structure (m->data);
    if (s && gst_structure_has_name (s, "vmafhip-sync")
        && !g_strcmp0 (gst_structure_get_string (s, "pad"), "dist_sink_0")) {
      fail_unless (n_sync < 4, "more than 4 sync messages");
      states[n_sync] = gst_structure_get_string (s, "state");
      fail_unless (gst_structure_get_int (s, "offset-frames",
              &offsets[n_sync++]));
    } else if (s && gst_structure_has_name (s, "VMAF")
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")
        && !g_strcmp0 (gst_structure_get_string (s, "pad"), "dist_sink_0")
        && n_sync >= 3) {
      g_ptr_array_add (after, (gpointer) s);
    }
  }
  /* (a "searching" message may come between: at most once a search) */
  guint k = 0;
  fail_unless (n_sync >= 3);
  fail_unless_equals_string (states[k], "locked");
  fail_unless_equals_int (offsets[k++], 0);
  fail_unless_equals_string (states[k++], "lost");
  if (!g_strcmp0 (states[k], "searching"))
    k++;
  fail_unless (k < n_sync);
  fail_unless_equals_string (states[k], "locked");
  fail_unless_equals_int (offsets[k], -BACK);
  fail_unless_equals_int (locked_lag (msgs, "dist_sink"), 0);
  fail_unless (after->len >= 20, "%u rung frames after the new lock",
      after->len);
  GPtrArray *aligned = scored ? single_run_from (NULL, W, H, W / 2, H / 2, 0,
      N) : NULL;
  check_frames_aligned (after, aligned, TRUE);
  if (aligned)
    g_ptr_array_unref (aligned);
  g_ptr_array_unref (after);
  free_messages (msgs);
  ladder_free (l);
}

GST_END_TEST;

/* A rung at half the reference's rate (25/2): frame k shows the content of
 * reference frame 2k and is on screen for two reference frames */
static GPtrArray *
half_rate_frames (Ladder * l, const GstVideoInfo * info, guint n_ref)
{
  GPtrArray *bufs = g_ptr_array_new ();
  for (guint k = 0; 2 * k < n_ref; k++) {
    GstBuffer *b = rung_buffer (l->f, 2 * k, info);
    GST_BUFFER_PTS (b) = 2 * k * FRAME_DUR;
    GST_BUFFER_DURATION (b) = 2 * FRAME_DUR;
    g_ptr_array_add (bufs, b);
  }
  return bufs;
}

static void
set_half_rate (GstHarness * h, GstVideoInfo * info)
{
  GST_VIDEO_INFO_FPS_N (info) = FPS;
  GST_VIDEO_INFO_FPS_D (info) = 2;
  gst_harness_set_src_caps (h, gst_video_info_to_caps (info));
}

/* rate-mismatch=follow-reference on a rendition at half the reference's
 * rate: every reference frame is scored against the rung frame on screen
 * at its time, and the rung's frames equal dist_sink's in a run with the
 * same feed on dist_sink */
GST_START_TEST (test_rung_follow_reference)
{
  enum { N = 12 };
  const char *props = "frame-message=true rate-mismatch=follow-reference";
  Ladder *l = ladder_new (props);
  ladder_add (l, W / 2, H / 2, FPS);
  set_half_rate (l->rung[0], &l->info[0]);
  GThread *pusher = ladder_push_rung_async (l, 0,
      half_rate_frames (l, &l->info[0], N));
  /* following the reference, a pad's frame is paired once its successor
   * (or EOS) shows how long it stays on screen: each pad from its own
   * thread, as in a pipeline */
  GPtrArray *dist_frames = g_ptr_array_new ();
  for (guint i = 0; i < N; i++)
    g_ptr_array_add (dist_frames, dist_buffer (l->f, i));
  GThread *dist_pusher = push_async (l->f->dist, dist_frames);
  for (guint i = 0; i < N; i++)
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
  gst_harness_push_event (l->f->ref, gst_event_new_eos ());
  wait_eos (l->f);
  g_thread_join (pusher);
  g_thread_join (dist_pusher);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  gint n_pooled;
  GPtrArray *got = pad_frames (msgs, "dist_sink_0", &n_pooled);
  fail_unless_equals_int (n_pooled, N);
  fail_unless_equals_int (got->len, N);
  for (guint k = 0; k < N; k++) {
    guint64 ref_index;
    fail_unless (gst_structure_get_uint64 (g_ptr_array_index (got, k),
            "ref-index", &ref_index));
    fail_unless_equals_uint64 (ref_index, k);
  }
  free_messages (msgs);
  ladder_free (l);

  /* the same feed on dist_sink */
  Ladder *m = ladder_new (props);
  video_info_init (&m->f->dist_info, "I420", W / 2, H / 2);
  set_half_rate (m->f->dist, &m->f->dist_info);
  pusher = push_async (m->f->dist, half_rate_frames (m, &m->f->dist_info, N));
  for (guint i = 0; i < N; i++)
    fail_unless_equals_int (push_ref (m->f, i), GST_FLOW_OK);
  gst_harness_push_event (m->f->ref, gst_event_new_eos ());
  wait_eos (m->f);
  g_thread_join (pusher);
  msgs = take_messages (m->f->bus, &m->f->seen, GST_MESSAGE_ELEMENT);
  GPtrArray *on_dist_sink = pad_frames (msgs, "dist_sink", &n_pooled);
  fail_unless_equals_int (on_dist_sink->len, N);
  for (guint k = 0; k < N; k++)
    gst_structure_foreach (g_ptr_array_index (got, k), field_equal,
        g_ptr_array_index (on_dist_sink, k));
  g_ptr_array_unref (on_dist_sink);
  g_ptr_array_unref (got);
  free_messages (msgs);
  ladder_free (m);
}

GST_END_TEST;


static Suite *
vmafhip_renditions_live_suite (void)
{
  Suite *s = suite_create ("vmafhip-renditions-live");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_ladder_stopped_without_eos);
  tcase_add_test (tc, test_rung_write_failure);
  tcase_add_test (tc, test_rung_resolution_change);
  tcase_add_test (tc, test_rung_drops_frames);
  tcase_add_test (tc, test_reference_change_retargets_rungs);
  tcase_add_test (tc, test_rung_monitor);
  tcase_add_test (tc, test_rung_offset);
  tcase_add_test (tc, test_rung_timeline_jump);
  tcase_add_test (tc, test_ladder_flushing_seek);
  tcase_add_test (tc, test_rung_align_auto);
  tcase_add_test (tc, test_rung_follow_reference);
  tcase_add_test (tc, test_rung_jump_searches_again);
  return s;
}

GST_CHECK_MAIN (vmafhip_renditions_live);
