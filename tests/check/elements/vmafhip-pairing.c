/* vmafhip — which frames the element scores together.
 *
 * Frames are paired by running time: dropping, repeating or delaying a
 * frame on either pad must leave every reported score equal to the score
 * of the right (aligned) pair in a run over every reference frame,
 * computed by the engine directly (motion is the reference's: a reference
 * frame without a partner still counts for its neighbours' motion), and
 * count the frames that had no partner. Each stream is pushed from a thread of
 * its own, as two branches deliver them: a non-live aggregator pad holds
 * one frame at a time.
 */
#include <string.h>

#include "gstvmafhipmeta.h"
#include "vh-element-fixture.h"

/* One frame on a pad: the synthetic content it shows (its index) and its
 * timestamp. */
typedef struct {
  guint content;
  GstClockTime pts;
} Frame;

/* the distorted frame with this timestamp is flagged DISCONT (a jump in
 * its timeline starts there); NONE: none */
static GstClockTime dist_discont_pts = GST_CLOCK_TIME_NONE;

/* Which content the reference and distorted frames of a scored pair show. */
typedef struct {
  guint ref, dist;
} Pair;

static GstBuffer *
frame_buffer (Fixture * f, gboolean is_ref, const Frame * fr,
    GstClockTime duration)
{
  VhPicture r, d;
  GstBuffer *buf;

  render (f, fr->content, &r, &d);
  buf = make_buffer (is_ref ? &f->ref_info : &f->dist_info, is_ref ? &r : &d,
      0, 0);
  GST_BUFFER_PTS (buf) = fr->pts;
  GST_BUFFER_DURATION (buf) = duration;
  if (!is_ref && fr->pts == dist_discont_pts)
    GST_BUFFER_FLAG_SET (buf, GST_BUFFER_FLAG_DISCONT);
  return buf;
}

typedef struct {
  GstHarness *harness;
  GstBuffer **buffers;
  guint n;
  GstFlowReturn ret;
} PushJob;

static gpointer
push_job (gpointer data)
{
  PushJob *job = data;

  job->ret = GST_FLOW_OK;
  for (guint i = 0; i < job->n; i++) {
    GstFlowReturn ret = gst_harness_push (job->harness, job->buffers[i]);
    if (ret != GST_FLOW_OK && job->ret == GST_FLOW_OK)
      job->ret = ret;
  }
  gst_harness_push_event (job->harness, gst_event_new_eos ());
  return NULL;
}

/* Pushes each stream from a thread of its own, as two branches would,
 * then EOS on both, and waits for EOS on the output. */
static void
push_streams (Fixture * f, const Frame * ref, guint n_ref,
    GstClockTime ref_dur, const Frame * dist, guint n_dist,
    GstClockTime dist_dur)
{
  PushJob jobs[2] = {
    {f->ref, g_new (GstBuffer *, n_ref), n_ref, GST_FLOW_OK},
    {f->dist, g_new (GstBuffer *, n_dist), n_dist, GST_FLOW_OK},
  };
  GThread *threads[2];

  /* rendered here: the synth is not shared between threads */
  for (guint i = 0; i < n_ref; i++)
    jobs[0].buffers[i] = frame_buffer (f, TRUE, &ref[i], ref_dur);
  for (guint i = 0; i < n_dist; i++)
    jobs[1].buffers[i] = frame_buffer (f, FALSE, &dist[i], dist_dur);
  for (guint k = 0; k < 2; k++)
    threads[k] = g_thread_new ("push", push_job, &jobs[k]);
  for (guint k = 0; k < 2; k++) {
    g_thread_join (threads[k]);
    g_free (jobs[k].buffers);
  }
  wait_eos (f);
  /* a pad that ended the measurement refuses the rest with EOS */
  for (guint k = 0; k < 2; k++)
    fail_unless (jobs[k].ret == GST_FLOW_OK || jobs[k].ret == GST_FLOW_EOS,
        "push: %s", gst_flow_get_name (jobs[k].ret));
}

/* The engine on exactly these pairs, in order: vmaf_v0.6.1 and PSNR, or
 * PSNR alone (psnr_only) */
static void
expected_pairs (Expected * x, const Content * c, const Pair * pairs, guint n,
    gboolean psnr_only)
{
  const VhVideoInfo vi = { W, H, c->bpc };
  VhSynth *synth = vh_synth_new (W, H, c->bpc, c->chroma, c->seed);
  GError *error = NULL;

  x->engine = vh_engine_new (&vi, &error);
  fail_unless (x->engine != NULL);
  x->first_model = "vmaf";
  x->psnr = TRUE;
  fail_unless (psnr_only || vh_engine_add_model (x->engine, "vmaf_v0.6.1",
          "vmaf", NULL, &error));
  fail_unless (vh_engine_add_feature (x->engine, "psnr", &error));
  for (guint i = 0; i < n; i++) {
    VhPicture r, d, r2, d2;
    void *kept;
    vh_synth_render (synth, pairs[i].ref, 3, &r, &d);
    kept = vh_synth_keep (&r, &d);
    vh_synth_render (synth, pairs[i].dist, 3, &r2, &d2);
    fail_unless (vh_engine_push (x->engine, &r, &d2, &error), "%s",
        error ? error->message : "");
    g_free (kept);
  }
  fail_unless (vh_engine_flush (x->engine, &error));
  vh_synth_free (synth);
}

/* The engine on every reference frame in order (its index: the frame's
 * ref-index), each with the distorted content of its pair, or its own
 * where it has none: what an aligned run scores */
static void
expected_slots (Expected * x, const Content * c, const Frame * ref,
    guint n_ref, const gint * pair_of_ref, const Pair * pairs)
{
  Pair *slots = g_new (Pair, n_ref);
  for (guint i = 0; i < n_ref; i++)
    slots[i] = (Pair) { ref[i].content, pair_of_ref[i] >= 0
          ? pairs[pair_of_ref[i]].dist : ref[i].content };
  expected_pairs (x, c, slots, n_ref, FALSE);
  g_free (slots);
}

/* The pooled message pools the engine's frames `at` (n of them) */
static void
check_pooled_at (const GstStructure * pooled, const Expected * x,
    const guint * at, guint n)
{
  const VhScoreTable *t = vh_engine_scores (x->engine);
  guint n_frames;

  fail_unless (gst_structure_get_uint (pooled, "n-frames", &n_frames));
  fail_unless_equals_int (n_frames, n);
  for (guint m = 0; m < vh_score_table_n_metrics (t); m++) {
    const char *name = vh_score_table_metric_name (t, m);
    VhPoolAccum a;
    VhPooled p;
    gdouble v;
    gchar *field;
    if (is_bootstrap_extra (name))
      continue;
    vh_pool_accum_init (&a);
    for (guint k = 0; k < n; k++) {
      fail_unless (vh_score_table_get (t, m, at[k], &v));
      vh_pool_accum_add (&a, v);
    }
    fail_unless (vh_pool_accum_get (&a, &p));
    field = g_strdup_printf ("%s-mean", name);
    fail_unless (gst_structure_get_double (pooled, field, &v)
        && v == p.mean, "pooled %s", field);
    g_free (field);
    field = g_strdup_printf ("%s-min", name);
    fail_unless (gst_structure_get_double (pooled, field, &v)
        && v == p.min, "pooled %s", field);
    g_free (field);
    field = g_strdup_printf ("%s-harmonic-mean", name);
    fail_unless (gst_structure_get_double (pooled, field, &v)
        && v == p.harmonic_mean, "pooled %s", field);
    g_free (field);
  }
}

/* Frame messages of consecutive reference frames (their ref-index), each
 * equal to the frame of an aligned run of n_frames (content i on both
 * sides) for its reference frame, motion included */
static void
check_aligned (const Content * c, guint n_frames, GPtrArray * frames)
{
  Pair *pairs = g_new (Pair, n_frames);
  Expected x = { 0 };

  for (guint i = 0; i < n_frames; i++)
    pairs[i] = (Pair) { i, i };
  expected_pairs (&x, c, pairs, n_frames, FALSE);
  for (guint k = 0; k < frames->len; k++) {
    const GstStructure *s = g_ptr_array_index (frames, k);
    guint64 pts, ref_index, before;
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &pts)
        && gst_structure_get_uint64 (s, "ref-index", &ref_index));
    fail_unless_equals_uint64 (ref_index, pts / FRAME_DUR);
    if (k > 0) {
      fail_unless (gst_structure_get_uint64 (g_ptr_array_index (frames,
                  k - 1), "ref-index", &before));
      fail_unless_equals_uint64 (ref_index, before + 1);
    }
    check_frame_scores (s, &x, ref_index);
  }
  vh_engine_free (x.engine);
  g_free (pairs);
}

/* Every output buffer (all reference frames, in order) carries the scores
 * of its pair or none; the frame messages (with the reference frame's
 * index) and the pooled message agree with the engine on every reference
 * frame (expected_slots). */
static void
check_outputs (Fixture * f, const Frame * ref, guint n_ref,
    const gint * pair_of_ref, const Pair * pairs, guint n_pairs,
    guint64 want_unpaired_ref, guint64 want_unpaired_dist)
{
  Expected x = { 0 };
  GList *msgs;
  GPtrArray *frames;
  const GstStructure *pooled;
  guint n_pooled;
  guint64 u;

  guint *at = g_new (guint, n_pairs + 1);
  expected_slots (&x, &f->content, ref, n_ref, pair_of_ref, pairs);
  msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, n_pairs);
  fail_unless_equals_int (n_pooled, 1);

  fail_unless_equals_int (gst_harness_buffers_in_queue (f->ref), n_ref);
  for (guint i = 0; i < n_ref; i++) {
    GstBuffer *b = gst_harness_pull (f->ref);
    GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (b);
    const gint p = pair_of_ref[i];

    fail_unless (meta != NULL, "reference frame %u has no meta", i);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (b), ref[i].pts);
    fail_unless_equals_int (gst_vmafhip_meta_get_index (meta), p);
    if (p < 0) {
      fail_unless (gst_vmafhip_meta_get_scores (meta) == NULL
          || !gst_structure_has_field (gst_vmafhip_meta_get_scores (meta),
              "vmaf"), "reference frame %u was scored", i);
    } else {
      check_frame_scores (gst_vmafhip_meta_get_scores (meta), &x, i);
      check_frame_scores (g_ptr_array_index (frames, p), &x, i);
      fail_unless (gst_structure_get_uint64 (g_ptr_array_index (frames, p),
              "timestamp", &u));
      fail_unless_equals_uint64 (u, ref[i].pts);
      fail_unless (gst_structure_get_uint64 (g_ptr_array_index (frames, p),
              "ref-index", &u));
      fail_unless_equals_uint64 (u, i);
      at[p] = i;
    }
    gst_buffer_unref (b);
  }
  check_pooled_at (pooled, &x, at, n_pairs);
  g_free (at);
  fail_unless (gst_structure_get_uint64 (pooled, "unpaired-ref", &u));
  fail_unless_equals_uint64 (u, want_unpaired_ref);
  fail_unless (gst_structure_get_uint64 (pooled, "unpaired-dist", &u));
  fail_unless_equals_uint64 (u, want_unpaired_dist);
  g_object_get (f->element, "unpaired-ref-frames", &u, NULL);
  fail_unless_equals_uint64 (u, want_unpaired_ref);
  g_object_get (f->element, "unpaired-dist-frames", &u, NULL);
  fail_unless_equals_uint64 (u, want_unpaired_dist);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  vh_engine_free (x.engine);
}

/* Non-live: the distorted stream loses its first frame and frame 4, shows
 * frame 6 twice and frame 8 a third of a frame late; the reference stream
 * loses frame 10 and shows frame 12 twice. */
GST_START_TEST (test_drop_repeat_delay)
{
  Fixture *f = fixture_new ("psnr=true", FALSE);
  const gchar *needles[] = { "no partner", NULL };
  Frame ref[16], dist[16];
  gint pair_of_ref[16];
  Pair pairs[16];
  guint n_ref = 0, n_dist = 0, n_pairs = 0;

  fixture_set_caps (f, "I420", "I420", 31);
  for (guint i = 0; i < 14; i++) {
    if (i != 10)
      ref[n_ref++] = (Frame) { i, i * FRAME_DUR };
    if (i == 12)
      ref[n_ref++] = (Frame) { i, i * FRAME_DUR };
    if (i != 0 && i != 4)
      dist[n_dist++] = (Frame) { i, i * FRAME_DUR + (i == 8 ? FRAME_DUR / 3 :
                0) };
    if (i == 6)
      dist[n_dist++] = (Frame) { i, i * FRAME_DUR };
  }
  /* what must be scored: each reference frame with the distorted frame of
   * the same time, once */
  for (guint i = 0; i < n_ref; i++) {
    const guint c = ref[i].content;
    const gboolean repeated = i > 0 && ref[i - 1].content == c;
    if (c == 0 || c == 4 || repeated) {
      pair_of_ref[i] = -1;
    } else {
      pair_of_ref[i] = (gint) n_pairs;
      pairs[n_pairs++] = (Pair) { c, c };
    }
  }
  push_streams (f, ref, n_ref, FRAME_DUR, dist, n_dist, FRAME_DUR);
  expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);
  /* unpaired: reference 0, 4 and the second 12; distorted the second 6
   * and 10 */
  check_outputs (f, ref, n_ref, pair_of_ref, pairs, n_pairs, 3, 2);
  fixture_free (f);
}

GST_END_TEST;

/* A live encoder drops 40 % of the distorted frames: every frame reported
 * equals the aligned run's frame of its reference frame, motion included
 * (the reference frames without a partner still count for motion) */
GST_START_TEST (test_drop_40_percent)
{
  enum { N = 60 };
  Fixture *f = fixture_new ("psnr=true", FALSE);
  Frame ref[N], dist[N];
  gint pair_of_ref[N];
  Pair pairs[N];
  guint n_dist = 0, n_pairs = 0;

  fixture_set_caps (f, "I420", "I420", 33);
  for (guint i = 0; i < N; i++) {
    /* a fixed pattern, 4 in 10 dropped, runs of up to 3 */
    const gboolean dropped = (i * 7 + 3) % 10 < 4 && i != N - 1;
    ref[i] = (Frame) { i, i * FRAME_DUR };
    pair_of_ref[i] = dropped ? -1 : (gint) n_pairs;
    if (!dropped) {
      dist[n_dist++] = (Frame) { i, i * FRAME_DUR };
      pairs[n_pairs++] = (Pair) { i, i };
    }
  }
  fail_unless (n_pairs <= N * 62 / 100 && n_pairs >= N * 58 / 100);
  push_streams (f, ref, N, FRAME_DUR, dist, n_dist, FRAME_DUR);
  check_outputs (f, ref, N, pair_of_ref, pairs, n_pairs, N - n_pairs, 0);
  fixture_free (f);
}

GST_END_TEST;

/* A constant offset larger than half a frame pairs nothing: every frame is
 * counted, no score is made up from neighbours. */
GST_START_TEST (test_offset_pairs_nothing)
{
  Fixture *f = fixture_new (NULL, FALSE);
  const gchar *unpaired[] = { "no partner", NULL };
  const gchar *needles[] = { "No frame pair was scored", NULL };
  Frame ref[4], dist[4];
  guint64 u;

  fixture_set_caps (f, "I420", "I420", 32);
  for (guint i = 0; i < 4; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { i, (i + 10) * FRAME_DUR };
  }
  push_streams (f, ref, 4, FRAME_DUR, dist, 4, FRAME_DUR);
  expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, unpaired);
  expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);
  fail_unless_equals_int (gst_harness_buffers_in_queue (f->ref), 4);
  g_object_get (f->element, "unpaired-ref-frames", &u, NULL);
  fail_unless_equals_uint64 (u, 4);
  fixture_free (f);
}

GST_END_TEST;

/* align=offset: a distorted stream that lags (or leads) by `lag` frames
 * is scored against the right reference frames, equal to the engine on
 * the aligned pairs; frames without a partner are counted */
static void
check_align_offset (gint lag)
{
  enum { N = 40 };
  gchar *props = g_strdup_printf ("align=offset offset=%d psnr=true", lag);
  Fixture *f = fixture_new (props, FALSE);
  Frame ref[N], dist[N];
  Pair pairs[N];
  gint pair_of_ref[N];
  guint n_dist = 0, n_pairs = 0;
  const guint lead = lag < 0 ? (guint) -lag : 0;

  g_free (props);
  fixture_set_caps (f, "I420", "I420", 41);
  for (guint i = 0; i < N; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    /* content i shown lag frames later (leading: none before time 0) */
    if (i >= lead)
      dist[n_dist++] = (Frame) { i, (GstClockTime) ((gint) i + lag)
          * FRAME_DUR };
    pair_of_ref[i] = i >= lead ? (gint) n_pairs : -1;
    if (i >= lead)
      pairs[n_pairs++] = (Pair) { i, i };
  }
  push_streams (f, ref, N, FRAME_DUR, dist, n_dist, FRAME_DUR);
  check_outputs (f, ref, N, pair_of_ref, pairs, n_pairs, lead, 0);
  fixture_free (f);
}

GST_START_TEST (test_align_offset)
{
  static const gint lags[] = { 0, 3, 25, -2 };
  check_align_offset (lags[__i__]);
}

GST_END_TEST;

/* align=auto: the lag is found (a vmafhip-sync message locks it) and
 * every frame scored after the lock equals the engine on the aligned
 * pairs; nothing is scored before the lock */
static void
check_align_auto_with (guint lag, const char *props, guint n_frames)
{
  enum { N = 240 };
  Fixture *f = fixture_new (props, FALSE);
  Frame ref[N], dist[N];
  gint locked = -1000;

  fail_unless (n_frames <= N);
  fixture_set_caps (f, "I420", "I420", 52);
  for (guint i = 0; i < n_frames; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { i, (i + lag) * FRAME_DUR };
  }
  push_streams (f, ref, n_frames, FRAME_DUR, dist, n_frames, FRAME_DUR);

  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  GPtrArray *frames = g_ptr_array_new ();
  for (GList * l = msgs; l; l = l->next) {
    const GstStructure *s = gst_message_get_structure (l->data);
    if (s && gst_structure_has_name (s, "vmafhip-sync")) {
      fail_unless_equals_string (gst_structure_get_string (s, "state"),
          "locked");
      fail_unless (gst_structure_get_int (s, "offset-frames", &locked));
    } else if (s && gst_structure_has_name (s, "VMAF")
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
      g_ptr_array_add (frames, (gpointer) s);
    }
  }
  fail_unless_equals_int (locked, (gint) lag);
  /* scored after the lock: consecutive reference frames, each with its
   * own content on the distorted side, equal to the aligned run's frame
   * of the same reference frame (motion included) */
  fail_unless (frames->len >= n_frames / 4, "%u frames scored", frames->len);
  check_aligned (&f->content, n_frames, frames);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  fixture_free (f);
}

static void
check_align_auto (guint lag)
{
  check_align_auto_with (lag, "align=auto psnr=true", 120);
}

GST_START_TEST (test_align_auto)
{
  static const guint lags[] = { 0, 3, 25 };
  check_align_auto (lags[__i__]);
}

GST_END_TEST;

/* A 0.2 s search window over 240 frames: the periodic re-checks (every
 * ten windows) come and go without a message, and every frame scored is
 * aligned */
GST_START_TEST (test_align_auto_periodic_recheck)
{
  check_align_auto_with (3, "align=auto search-window=200000000 psnr=true",
      240);
}

GST_END_TEST;

/* PSNR (luma) of contents c and c - lag, for every c from lag to n - 1
 * (psnr[c]), by the engine alone */
static void
lagged_psnr (const Content * c, guint n, guint lag, gdouble * psnr)
{
  Pair *pairs = g_new (Pair, n);
  Expected x = { 0 };
  for (guint k = lag; k < n; k++)
    pairs[k - lag] = (Pair) { k, k - lag };
  expected_pairs (&x, c, pairs, n - lag, TRUE);
  const VhScoreTable *t = vh_engine_scores (x.engine);
  const int m = vh_score_table_find (t, "psnr_y");
  for (guint k = lag; k < n; k++)
    fail_unless (m >= 0 && vh_score_table_get (t, (unsigned) m, k - lag,
            &psnr[k]));
  vh_engine_free (x.engine);
  g_free (pairs);
}

/* align=auto when the delay changes after the lock (the distorted feed
 * loses 5 frames at frame 100: lag 3, then 8): locked at 3, then a
 * "changed" message for 8; meanwhile frames are paired 5 frames apart
 * (what a re-check period costs), and from the change on aligned again */
GST_START_TEST (test_align_auto_delay_changes)
{
  enum { N = 260, JUMP = 100 };
  Fixture *f = fixture_new ("align=auto psnr=true", FALSE);
  Frame ref[N], dist[N];
  gint lags[2] = { -1, -1 };
  guint n_sync = 0;

  fixture_set_caps (f, "I420", "I420", 54);
  for (guint i = 0; i < N; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { i, (i + (i < JUMP ? 3 : 8)) * FRAME_DUR };
  }
  push_streams (f, ref, N, FRAME_DUR, dist, N, FRAME_DUR);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  GPtrArray *frames = g_ptr_array_new ();
  for (GList * l = msgs; l; l = l->next) {
    const GstStructure *s = gst_message_get_structure (l->data);
    if (s && gst_structure_has_name (s, "vmafhip-sync")) {
      fail_unless (n_sync < 2);
      fail_unless_equals_string (gst_structure_get_string (s, "state"),
          n_sync == 0 ? "locked" : "changed");
      fail_unless (gst_structure_get_int (s, "offset-frames",
              &lags[n_sync++]));
    } else if (s && gst_structure_has_name (s, "VMAF")
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
      g_ptr_array_add (frames, (gpointer) s);
    }
  }
  fail_unless_equals_int (lags[0], 3);
  fail_unless_equals_int (lags[1], 8);
  gdouble own_psnr[N], stale_psnr[N];
  lagged_psnr (&f->content, N, 0, own_psnr);
  lagged_psnr (&f->content, N, 5, stale_psnr);
  /* each scored frame shows its own content, or (between the jump and
   * the re-check) the content 5 frames earlier; the last 40 their own */
  guint aligned = 0, stale = 0;
  for (guint k = 0; k < frames->len; k++) {
    const GstStructure *s = g_ptr_array_index (frames, k);
    guint64 pts;
    gdouble psnr;
    fail_unless (gst_structure_get_uint64 (s, "timestamp", &pts));
    fail_unless (gst_structure_get_double (s, "psnr_y", &psnr));
    const guint c = (guint) (pts / FRAME_DUR);
    fail_unless (c < N);
    const gboolean own = psnr == own_psnr[c];
    if (own)
      aligned++;
    else {
      fail_unless (c >= JUMP + 5 && psnr == stale_psnr[c],
          "frame of content %u scored against neither its own content nor "
          "the one 5 frames earlier", c);
      stale++;
    }
    if (k + 40 >= frames->len)
      fail_unless (own, "frame of content %u after the re-lock is not "
          "aligned", c);
  }
  fail_unless (stale > 0 && aligned > N / 3, "%u aligned, %u stale",
      aligned, stale);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

/* align=auto when the feed stops matching after the lock (from frame
 * SCRAMBLE on, the distorted frames come in another order): locked at 3,
 * then the locked pairs' difference rises and the re-check on the frames
 * after the rise finds no lag: "lost", searching again, and nothing scored
 * from the rise (three watched pairs) and one search window (50 frames)
 * after the change on;
 * every frame scored before the change shows its own content */
GST_START_TEST (test_align_auto_lost)
{
  enum { N = 260, SCRAMBLE = 100, LAG = 3 };
  Fixture *f = fixture_new ("align=auto psnr=true", FALSE);
  Frame ref[N], dist[N];
  const char *states[4] = { NULL };
  guint n_sync = 0;

  fixture_set_caps (f, "I420", "I420", 55);
  for (guint i = 0; i < N; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { i < SCRAMBLE ? i : SCRAMBLE + (i * 37) % (N -
          SCRAMBLE), (i + LAG) * FRAME_DUR };
  }
  push_streams (f, ref, N, FRAME_DUR, dist, N, FRAME_DUR);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  gdouble own_psnr[N];
  lagged_psnr (&f->content, N, 0, own_psnr);
  guint last_scored = 0, scored = 0;
  for (GList * l = msgs; l; l = l->next) {
    const GstStructure *s = gst_message_get_structure (l->data);
    if (s && gst_structure_has_name (s, "vmafhip-sync")) {
      fail_unless (n_sync < G_N_ELEMENTS (states));
      states[n_sync++] = gst_structure_get_string (s, "state");
    } else if (s && gst_structure_has_name (s, "VMAF")
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
      guint64 pts;
      gdouble psnr;
      fail_unless (gst_structure_get_uint64 (s, "timestamp", &pts));
      fail_unless (gst_structure_get_double (s, "psnr_y", &psnr));
      const guint c = (guint) (pts / FRAME_DUR);
      if (c + LAG < SCRAMBLE)
        fail_unless (psnr == own_psnr[c], "frame of content %u before the "
            "change not aligned", c);
      last_scored = MAX (last_scored, c);
      scored++;
    }
  }
  fail_unless (n_sync >= 2, "%u sync messages", n_sync);
  fail_unless_equals_string (states[0], "locked");
  fail_unless_equals_string (states[1], "lost");
  /* then at most a "searching" (the scrambled feed never locks) */
  for (guint k = 2; k < n_sync; k++)
    fail_unless_equals_string (states[k], "searching");
  fail_unless (scored > 0);
  /* the rise seen within three watched pairs (one frame in 8), then a
   * search window (50 frames) of every frame */
  fail_unless (last_scored < SCRAMBLE + 3 * 8 + 8 + 50 + 10, "frame of "
      "content %u scored after the feed stopped matching", last_scored);
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

/* align=auto on a feed that never matches (frames in another order):
 * no lock, a vmafhip-sync message saying it is still searching, nothing
 * scored */
GST_START_TEST (test_align_auto_no_match)
{
  enum { N = 150 };
  Fixture *f = fixture_new ("align=auto", FALSE);
  Frame ref[N], dist[N];
  guint searching = 0, scored = 0;

  fixture_set_caps (f, "I420", "I420", 53);
  for (guint i = 0; i < N; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { (i * 37) % N, i * FRAME_DUR };
  }
  push_streams (f, ref, N, FRAME_DUR, dist, N, FRAME_DUR);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  for (GList * l = msgs; l; l = l->next) {
    const GstStructure *s = gst_message_get_structure (l->data);
    if (s && gst_structure_has_name (s, "vmafhip-sync")) {
      fail_unless_equals_string (gst_structure_get_string (s, "state"),
          "searching");
      searching++;
    } else if (s && gst_structure_has_name (s, "VMAF")) {
      scored++;
    }
  }
  fail_unless_equals_int (searching, 1);
  fail_unless_equals_int (scored, 0);
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

/* Live: a partner |offset| frames later is waited for, so the latency
 * grows by that many frames (one frame of it for the motion feature) */
GST_START_TEST (test_align_offset_latency)
{
  static const gint offsets[] = { 3, -5 };
  gchar *props = g_strdup_printf ("align=offset offset=%d",
      offsets[__i__]);
  Fixture *f = fixture_new (props, TRUE);
  GstQuery *q = gst_query_new_latency ();
  GstPad *src = gst_element_get_static_pad (f->element, "src");
  gboolean live;
  GstClockTime min, max;

  g_free (props);
  fixture_set_caps (f, "I420", "I420", 5);
  /* the caps are taken in the aggregator's thread: wait for them */
  for (guint tries = 0;; tries++) {
    fail_unless (gst_pad_query (src, q));
    gst_query_parse_latency (q, &live, &min, &max);
    if (min > 0 || tries == 500)
      break;
    g_usleep (10000);
  }
  fail_unless (live);
  fail_unless_equals_uint64 (min, (1 + ABS (offsets[__i__])) * FRAME_DUR);
  gst_query_unref (q);
  gst_object_unref (src);
  fixture_free (f);
}

GST_END_TEST;

/* Without align=offset the same lagging stream is paired by time: every
 * reference frame against the wrong content (what align fixes) */
GST_START_TEST (test_lag_without_align)
{
  enum { N = 12, LAG = 3 };
  Fixture *f = fixture_new ("psnr=true", FALSE);
  Frame ref[N], dist[N];
  Pair pairs[N];
  gint pair_of_ref[N];

  fixture_set_caps (f, "I420", "I420", 41);
  for (guint i = 0; i < N; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { i, (i + LAG) * FRAME_DUR };
    pair_of_ref[i] = i < LAG ? -1 : (gint) (i - LAG);
    pairs[i] = (Pair) { i + LAG, i };
  }
  push_streams (f, ref, N, FRAME_DUR, dist, N, FRAME_DUR);
  check_outputs (f, ref, N, pair_of_ref, pairs, N - LAG, LAG, 0);
  fixture_free (f);
}

GST_END_TEST;

static void
set_caps_with_rates (Fixture * f, gint ref_fps, gint dist_fps, uint32_t seed)
{
  video_info_init (&f->ref_info, "I420", W, H);
  video_info_init (&f->dist_info, "I420", W, H);
  GST_VIDEO_INFO_FPS_N (&f->ref_info) = ref_fps;
  GST_VIDEO_INFO_FPS_N (&f->dist_info) = dist_fps;
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  content_init (&f->content, &f->ref_info, seed);
}

GST_START_TEST (test_rate_mismatch_error)
{
  Fixture *f = fixture_new (NULL, FALSE);
  const gchar *needles[] = { "different frame rates", "25/1", "50/1",
    "rate-mismatch=follow-reference", NULL
  };

  set_caps_with_rates (f, 25, 50, 33);
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  fixture_free (f);
}

GST_END_TEST;

/* follow-reference, distorted at twice the reference's rate: each
 * reference frame is scored against the distorted frame of its own time;
 * the ones in between are skipped and counted. */
GST_START_TEST (test_follow_reference_faster_dist)
{
  Fixture *f = fixture_new ("psnr=true rate-mismatch=follow-reference",
      FALSE);
  const GstClockTime half = FRAME_DUR / 2;
  Frame ref[6], dist[12];
  gint pair_of_ref[6];
  Pair pairs[6];

  set_caps_with_rates (f, FPS, 2 * FPS, 34);
  for (guint i = 0; i < 6; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    pair_of_ref[i] = (gint) i;
    pairs[i] = (Pair) { i, i };
  }
  /* distorted frame 2k shows content k; 2k+1 content k+20 (never scored) */
  for (guint k = 0; k < 12; k++)
    dist[k] = (Frame) { k % 2 ? k / 2 + 20 : k / 2, k * half };
  push_streams (f, ref, 6, FRAME_DUR, dist, 12, half);
  /* the last distorted frame is still waiting for a later reference frame
   * when the reference ends: 5 skipped, not 6 */
  check_outputs (f, ref, 6, pair_of_ref, pairs, 6, 0, 5);
  fixture_free (f);
}

GST_END_TEST;

/* follow-reference, distorted at half the reference's rate: each distorted
 * frame is scored against both reference frames it is on screen for. */
GST_START_TEST (test_follow_reference_slower_dist)
{
  Fixture *f = fixture_new ("psnr=true rate-mismatch=follow-reference",
      FALSE);
  const GstClockTime half = FRAME_DUR / 2;
  Frame ref[8], dist[4];
  gint pair_of_ref[8];
  Pair pairs[8];

  set_caps_with_rates (f, 2 * FPS, FPS, 35);
  for (guint i = 0; i < 8; i++) {
    ref[i] = (Frame) { i, i * half };
    pair_of_ref[i] = (gint) i;
    pairs[i] = (Pair) { i, i / 2 };
  }
  for (guint k = 0; k < 4; k++)
    dist[k] = (Frame) { k, k * FRAME_DUR };
  push_streams (f, ref, 8, half, dist, 4, FRAME_DUR);
  check_outputs (f, ref, 8, pair_of_ref, pairs, 8, 0, 0);
  fixture_free (f);
}

GST_END_TEST;

/* Without timestamps nothing can be matched in time: pairs in arrival
 * order, with a warning naming the pad. */
GST_START_TEST (test_no_timestamps)
{
  Fixture *f = fixture_new ("psnr=true", FALSE);
  const gchar *needles[] = { "dist_sink", "without timestamps", NULL };
  Frame ref[4], dist[4];
  gint pair_of_ref[4];
  Pair pairs[4];

  fixture_set_caps (f, "I420", "I420", 36);
  for (guint i = 0; i < 4; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { i, GST_CLOCK_TIME_NONE };
    pair_of_ref[i] = (gint) i;
    pairs[i] = (Pair) { i, i };
  }
  /* one pair at a time: without timestamps there is no merge order */
  for (guint i = 0; i < 4; i++) {
    fail_unless_equals_int (gst_harness_push (f->ref, frame_buffer (f, TRUE,
                &ref[i], FRAME_DUR)), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (f->dist, frame_buffer (f,
                FALSE, &dist[i], GST_CLOCK_TIME_NONE)), GST_FLOW_OK);
  }
  push_eos_both (f);
  wait_eos (f);
  expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);
  check_outputs (f, ref, 4, pair_of_ref, pairs, 4, 0, 0);
  fixture_free (f);
}

GST_END_TEST;

/* dist_sink's timeline jumps 2 s ahead at frame 10 (a restarted source):
 * a warning names the pad and the jump; the frames before it are scored,
 * the reference frames after it have no partner and are counted */
GST_START_TEST (test_timeline_jump_warns)
{
  enum { N = 20, JUMP = 10 };
  Fixture *f = fixture_new (NULL, FALSE);
  const gchar *needles[] = { "dist_sink jumped by +0:00:02.0", "align=auto",
    NULL
  };
  Frame ref[N], dist[N];
  guint64 u;

  fixture_set_caps (f, "I420", "I420", 35);
  for (guint i = 0; i < N; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { i, (i + (i >= JUMP ? 50 : 0)) * FRAME_DUR };
  }
  dist_discont_pts = dist[JUMP].pts;
  push_streams (f, ref, N, FRAME_DUR, dist, N, FRAME_DUR);
  expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  const GstStructure *pooled;
  guint n_pooled;
  GPtrArray *frames = frame_messages (msgs, &pooled, &n_pooled);
  fail_unless_equals_int (frames->len, JUMP);
  g_object_get (f->element, "unpaired-ref-frames", &u, NULL);
  fail_unless_equals_uint64 (u, N - JUMP);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

/* align=auto, and dist_sink's timestamps restart 14 frames back at frame
 * 40 (its content goes on): the lock is lost at the jump, the new lag
 * found, and every frame scored after the new lock equals the aligned
 * run's frame of its reference frame */
GST_START_TEST (test_timeline_jump_searches_again)
{
  enum { N = 100, JUMP = 40, BACK = 14 };
  Fixture *f = fixture_new ("align=auto search-window=600000000 psnr=true",
      FALSE);
  Frame ref[N], dist[N];
  gint offsets[3];
  const char *states[3];
  guint n_sync = 0;

  fixture_set_caps (f, "I420", "I420", 36);
  for (guint i = 0; i < N; i++) {
    ref[i] = (Frame) { i, i * FRAME_DUR };
    dist[i] = (Frame) { i, (i - (i >= JUMP ? BACK : 0)) * FRAME_DUR };
  }
  dist_discont_pts = dist[JUMP].pts;
  push_streams (f, ref, N, FRAME_DUR, dist, N, FRAME_DUR);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  GPtrArray *frames = g_ptr_array_new ();
  for (GList * l = msgs; l; l = l->next) {
    const GstStructure *s = gst_message_get_structure (l->data);
    if (s && gst_structure_has_name (s, "vmafhip-sync")) {
      fail_unless (n_sync < 3, "more than 3 sync messages");
      states[n_sync] = gst_structure_get_string (s, "state");
      fail_unless (gst_structure_get_int (s, "offset-frames",
              &offsets[n_sync++]));
    } else if (s && gst_structure_has_name (s, "VMAF")
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")
        && n_sync == 3) {
      g_ptr_array_add (frames, (gpointer) s);
    }
  }
  fail_unless_equals_int (n_sync, 3);
  fail_unless_equals_string (states[0], "locked");
  fail_unless_equals_int (offsets[0], 0);
  fail_unless_equals_string (states[1], "lost");
  fail_unless_equals_string (states[2], "locked");
  fail_unless_equals_int (offsets[2], -BACK);
  fail_unless (frames->len >= 20, "%u frames after the new lock",
      frames->len);
  check_aligned (&f->content, N, frames);
  g_ptr_array_unref (frames);
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

static Suite *
vmafhip_pairing_suite (void)
{
  Suite *s = suite_create ("vmafhip-pairing");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_drop_repeat_delay);
  tcase_add_test (tc, test_drop_40_percent);
  tcase_add_test (tc, test_offset_pairs_nothing);
  tcase_add_loop_test (tc, test_align_offset, 0, 4);
  tcase_add_test (tc, test_lag_without_align);
  tcase_add_loop_test (tc, test_align_offset_latency, 0, 2);
  tcase_add_loop_test (tc, test_align_auto, 0, 3);
  tcase_add_test (tc, test_align_auto_no_match);
  tcase_add_test (tc, test_align_auto_delay_changes);
  tcase_add_test (tc, test_align_auto_lost);
  tcase_add_test (tc, test_align_auto_periodic_recheck);
  tcase_add_test (tc, test_rate_mismatch_error);
  tcase_add_test (tc, test_follow_reference_faster_dist);
  tcase_add_test (tc, test_follow_reference_slower_dist);
  tcase_add_test (tc, test_no_timestamps);
  tcase_add_test (tc, test_timeline_jump_warns);
  tcase_add_test (tc, test_timeline_jump_searches_again);
  return s;
}

GST_CHECK_MAIN (vmafhip_pairing);
