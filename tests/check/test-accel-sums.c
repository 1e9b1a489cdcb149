/* vmafhip — an accelerated extractor with independent sums
 * (VhFeatureExtractor.independent_sums_size, common/engine/engine-sums.c):
 * its extract_sums runs on helper threads, out of order, and its puts must
 * still reach the table in frame order, be there whenever a frame is
 * final, carry a failed frame's error, and be forgotten by a reset.
 *
 * A test extractor sums the pictures' luma; a CPU accelerator computes
 * those sums at submit and hands them back late.  extract_sums sleeps a
 * different time each frame, so that the helpers finish out of order.
 * SpEED-chroma, the extractor that has independent sums, goes the same
 * way with the sums its kernels leave computed on the CPU
 * (vh_speed_chroma_cpu_sums): its scores equal the CPU engine's. */
#include <check.h>
#include <string.h>

#include "engine-private.h"
#include "speed-chroma.h"
#include "vh-accel.h"
#include "vh-engine.h"
#include "vh-synth.h"

#define IN_FLIGHT 3
#define FRAMES 24

typedef struct {
  int fail_at;                  /* a frame whose extraction fails; -1 none */
} LumaOptions;

typedef struct {
  guint64 ref, dis;
  guint32 index;
} LumaSums;

typedef struct {
  int fail_at;
} LumaState;

static gint n_inits;
static GThread *pushing_thread;
static gint n_off_thread;

static guint64
plane_sum (const VhPlane *p, unsigned bpc)
{
  guint64 sum = 0;
  for (unsigned y = 0; y < p->height; y++) {
    const guint8 *row = (const guint8 *) p->data + (ptrdiff_t) y * p->stride;
    for (unsigned x = 0; x < p->width; x++)
      sum += bpc > 8 ? ((const guint16 *) row)[x] : row[x];
  }
  return sum;
}

static gboolean
luma_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  (void) info;
  (void) error;
  ((LumaState *) priv)->fail_at = ((const LumaOptions *) opts)->fail_at;
  g_atomic_int_inc (&n_inits);
  return TRUE;
}

static gboolean
luma_put (const LumaState *s, guint64 ref, guint64 dis, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  if ((int) index == s->fail_at) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "test_luma: frame %u fails", index);
    return FALSE;
  }
  vh_feature_sink_put (sink, "test_luma_ref", index, (double) ref);
  vh_feature_sink_put (sink, "test_luma_dis", index, (double) dis);
  vh_feature_sink_put_plain (sink, "test_luma_index", index, index);
  return TRUE;
}

static gboolean
luma_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  return luma_put (priv, plane_sum (&ref->plane[0], ref->bpc),
      plane_sum (&dis->plane[0], dis->bpc), index, sink, error);
}

static gboolean
luma_extract_sums (void *priv, const void *data, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  const LumaSums *sums = data;
  ck_assert_uint_eq (sums->index, index);
  if (g_thread_self () != pushing_thread)
    g_atomic_int_inc (&n_off_thread);
  /* later frames often finish first */
  g_usleep (200 * ((index * 7) % 5));
  return luma_put (priv, sums->ref, sums->dis, index, sink, error);
}

static size_t
luma_sums_size (const void *sums)
{
  (void) sums;
  return sizeof (LumaSums);
}

static const VhOptionDesc luma_options[] = {
  { "fail_at", NULL, VH_OPT_INT, -1, -1, 1000, offsetof (LumaOptions,
          fail_at), false },
  { NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false },
};

static const VhFeatureExtractor luma_fex = {
  .name = "test_luma",
  .options = luma_options,
  .opts_size = sizeof (LumaOptions),
  .priv_size = sizeof (LumaState),
  .init = luma_init,
  .extract = luma_extract,
  .extract_sums = luma_extract_sums,
  .independent_sums_size = luma_sums_size,
};

/* ---- a CPU accelerator that hands the sums back late -------------------- */

typedef struct {
  LumaSums luma;
  VhSpeedSums *speed;           /* NULL: no SpEED handle */
} LateFrame;

typedef struct {
  GQueue pending;               /* LateFrame* */
  int handle;
  gboolean handle_attached;
  int speed_handle;
  void *speed_state;            /* an instance of vh_fex_speed_chroma */
  size_t speed_size;
} LateAccel;

static void
late_frame_free (gpointer p)
{
  LateFrame *f = p;
  g_free (f->speed);
  g_free (f);
}

static gboolean
late_attach (gpointer backend, const VhFeatureExtractor *fex,
    const void *opts, const VhVideoInfo *info, gpointer *handle,
    GError **error)
{
  LateAccel *a = backend;
  *handle = fex == &luma_fex ? &a->handle : NULL;
  a->handle_attached |= fex == &luma_fex;
  if (fex != &vh_fex_speed_chroma)
    return TRUE;
  a->speed_state = g_malloc0 (fex->priv_size);
  if (!fex->init (a->speed_state, opts, info, error))
    return FALSE;
  unsigned w, h;
  VhSpeedDims d;
  vh_speed_chroma_size (info->width, info->height, (info->width + 1) / 2,
      (info->height + 1) / 2, &w, &h);
  vh_speed_dims (&d, w, h, 1.0);
  a->speed_size = vh_speed_sums_size (d.tw, d.th);
  *handle = &a->speed_handle;
  return TRUE;
}

static gboolean
late_submit (gpointer backend, const VhPicture *ref, const VhPicture *dis,
    unsigned index, GError **error)
{
  LateAccel *a = backend;
  LateFrame *f = g_new0 (LateFrame, 1);
  f->luma.ref = plane_sum (&ref->plane[0], ref->bpc);
  f->luma.dis = plane_sum (&dis->plane[0], dis->bpc);
  f->luma.index = index;
  g_queue_push_tail (&a->pending, f);
  if (a->speed_state) {
    f->speed = g_malloc0 (a->speed_size);
    return vh_speed_chroma_cpu_sums (a->speed_state, ref, dis, f->speed,
        error);
  }
  return TRUE;
}

static gboolean
late_collect (gpointer backend, unsigned max_pending,
    VhAccelDeliverFunc deliver, gpointer engine_data, unsigned *delivered,
    GError **error)
{
  LateAccel *a = backend;
  (void) error;
  *delivered = 0;
  while (a->pending.length > max_pending) {
    LateFrame *f = g_queue_pop_head (&a->pending);
    if (a->handle_attached)
      deliver (engine_data, &a->handle, f->luma.index, &f->luma);
    if (f->speed)
      deliver (engine_data, &a->speed_handle, f->luma.index, f->speed);
    /* the slot is reused at once: the engine must have copied the sums */
    memset (&f->luma, 0xa5, sizeof f->luma);
    if (f->speed)
      memset (f->speed, 0xa5, a->speed_size);
    late_frame_free (f);
    (*delivered)++;
  }
  return TRUE;
}

static unsigned
late_max_in_flight (gpointer backend)
{
  (void) backend;
  return IN_FLIGHT;
}

static void
late_reset (gpointer backend)
{
  g_queue_clear_full (&((LateAccel *) backend)->pending, late_frame_free);
}

static void
late_free (gpointer backend)
{
  LateAccel *a = backend;
  late_reset (a);
  if (a->speed_state)
    vh_fex_speed_chroma.close (a->speed_state);
  g_free (a->speed_state);
  g_free (a);
}

static const VhAccelOps late_ops = {
  .attach = late_attach, .submit = late_submit, .collect = late_collect,
  .max_in_flight = late_max_in_flight, .reset = late_reset,
  .free = late_free,
};

/* An engine with the test extractor, on the late accelerator or not */
static VhEngine *
luma_engine (gboolean accelerated, unsigned threads, int fail_at)
{
  const VhVideoInfo info = { 64, 48, 8 };
  GError *error = NULL;
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (e);
  ck_assert (vh_engine_set_threads (e, threads, &error));
  if (accelerated) {
    LateAccel *a = g_new0 (LateAccel, 1);
    g_queue_init (&a->pending);
    ck_assert (vh_engine_set_accelerator (e, &late_ops, a, &error));
  }
  const LumaOptions opts = { fail_at };
  ck_assert (vh_engine_get_instance (e, &luma_fex, &opts, NULL, FALSE,
          &error));
  ck_assert_uint_eq (vh_engine_n_accelerated (e), accelerated ? 1 : 0);
  return e;
}

static double
value_of (const VhEngine *e, const char *name, unsigned index)
{
  const VhScoreTable *t = vh_engine_scores (e);
  const int metric = vh_score_table_find (t, name);
  double v = -1;
  ck_assert_msg (metric >= 0, "%s", name);
  ck_assert_msg (vh_score_table_get (t, metric, index, &v), "%s frame %u",
      name, index);
  return v;
}

/* Pushes FRAMES pairs into both; every frame final on the accelerated
 * engine has its values, equal to the CPU engine's */
static void
compare_runs (unsigned threads)
{
  GError *error = NULL;
  VhSynth *synth = vh_synth_new (64, 48, 8, VH_SYNTH_420, 7);
  ck_assert (synth);
  VhEngine *acc = luma_engine (TRUE, threads, -1);
  VhEngine *cpu = luma_engine (FALSE, 1, -1);
  pushing_thread = g_thread_self ();
  g_atomic_int_set (&n_off_thread, 0);

  for (unsigned i = 0; i < FRAMES; i++) {
    VhPicture ref, dis;
    vh_synth_render (synth, i, 1, &ref, &dis);
    ck_assert (vh_engine_push (acc, &ref, &dis, &error));
    ck_assert (vh_engine_push (cpu, &ref, &dis, &error));
    for (unsigned k = 0; k < vh_engine_n_final (acc); k++)
      ck_assert (value_of (acc, "test_luma_index", k) == k);
    /* live: waiting makes every pushed frame final */
    if (i == FRAMES / 2) {
      ck_assert (vh_engine_wait_accelerator (acc, &error));
      ck_assert_uint_eq (vh_engine_n_final (acc), i + 1);
    }
  }
  ck_assert_uint_lt (vh_engine_n_final (acc), FRAMES);
  ck_assert (vh_engine_flush (acc, &error));
  ck_assert (vh_engine_flush (cpu, &error));
  ck_assert_uint_eq (vh_engine_n_final (acc), FRAMES);
  for (unsigned k = 0; k < FRAMES; k++) {
    ck_assert (value_of (acc, "test_luma_ref", k)
        == value_of (cpu, "test_luma_ref", k));
    ck_assert (value_of (acc, "test_luma_dis", k)
        == value_of (cpu, "test_luma_dis", k));
  }
  /* every extraction ran on a helper */
  ck_assert_int_eq (g_atomic_int_get (&n_off_thread), FRAMES);
  vh_engine_free (acc);
  vh_engine_free (cpu);
  vh_synth_free (synth);
}

START_TEST (test_sums_in_order_one_thread)
{
  compare_runs (1);
}
END_TEST

START_TEST (test_sums_in_order_four_threads)
{
  g_atomic_int_set (&n_inits, 0);
  compare_runs (4);
  /* the instance of each engine, and one state per helper of the
   * accelerated one (threads, at least 2, at most 4; threads at most the
   * CPUs) */
  const unsigned helpers = CLAMP (MIN (4, g_get_num_processors ()), 2, 4);
  ck_assert_int_eq (g_atomic_int_get (&n_inits), 2 + helpers);
}
END_TEST

START_TEST (test_sums_error_reaches_caller)
{
  GError *error = NULL;
  VhSynth *synth = vh_synth_new (64, 48, 8, VH_SYNTH_420, 7);
  VhEngine *e = luma_engine (TRUE, 2, 5);
  pushing_thread = g_thread_self ();
  gboolean ok = TRUE;
  for (unsigned i = 0; ok && i < FRAMES; i++) {
    VhPicture ref, dis;
    vh_synth_render (synth, i, 1, &ref, &dis);
    ok = vh_engine_push (e, &ref, &dis, &error);
  }
  if (ok)
    ok = vh_engine_flush (e, &error);
  ck_assert (!ok);
  ck_assert_msg (error && strstr (error->message, "test_luma: frame 5 fails"),
      "%s", error ? error->message : "no error");
  g_clear_error (&error);
  /* the frames before it are final, with their values; frame 5 is not */
  ck_assert_uint_le (vh_engine_n_final (e), 5);
  for (unsigned k = 0; k < vh_engine_n_final (e); k++)
    ck_assert (value_of (e, "test_luma_index", k) == k);
  vh_engine_free (e);
  vh_synth_free (synth);
}
END_TEST

START_TEST (test_sums_reset_forgets)
{
  GError *error = NULL;
  VhSynth *synth = vh_synth_new (64, 48, 8, VH_SYNTH_420, 7);
  VhSynth *other = vh_synth_new (64, 48, 8, VH_SYNTH_420, 99);
  VhEngine *e = luma_engine (TRUE, 4, -1);
  VhEngine *cpu = luma_engine (FALSE, 1, -1);
  pushing_thread = g_thread_self ();
  /* frames in flight at the reset: their late puts must not land in the
   * new stream's frames 0.. */
  for (unsigned i = 0; i < 8; i++) {
    VhPicture ref, dis;
    vh_synth_render (other, i, 6, &ref, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
  }
  vh_engine_reset (e);
  ck_assert_uint_eq (vh_engine_n_final (e), 0);
  for (unsigned i = 0; i < 6; i++) {
    VhPicture ref, dis;
    vh_synth_render (synth, i, 1, &ref, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
    ck_assert (vh_engine_push (cpu, &ref, &dis, &error));
  }
  ck_assert (vh_engine_flush (e, &error));
  ck_assert (vh_engine_flush (cpu, &error));
  ck_assert_uint_eq (vh_engine_n_final (e), 6);
  for (unsigned k = 0; k < 6; k++)
    ck_assert (value_of (e, "test_luma_ref", k)
        == value_of (cpu, "test_luma_ref", k));
  /* and a frame never pushed after the reset has no value */
  const VhScoreTable *t = vh_engine_scores (e);
  double v;
  ck_assert (!vh_score_table_get (t, vh_score_table_find (t,
              "test_luma_ref"), 7, &v));
  vh_engine_free (e);
  vh_engine_free (cpu);
  vh_synth_free (synth);
  vh_synth_free (other);
}
END_TEST

/* Freed with extractions still queued: they are waited for, nothing leaks
 * (the sanitizer pass) */
START_TEST (test_sums_free_in_flight)
{
  GError *error = NULL;
  VhSynth *synth = vh_synth_new (64, 48, 8, VH_SYNTH_420, 7);
  VhEngine *e = luma_engine (TRUE, 4, -1);
  pushing_thread = g_thread_self ();
  for (unsigned i = 0; i < 10; i++) {
    VhPicture ref, dis;
    vh_synth_render (synth, i, 1, &ref, &dis);
    ck_assert (vh_engine_push (e, &ref, &dis, &error));
  }
  vh_engine_free (e);
  vh_synth_free (synth);
}
END_TEST

/* SpEED-chroma with its sums extracted on the helpers: every frame's
 * speed_chroma_u, _v and _uv equal to the CPU engine's */
START_TEST (test_speed_chroma_sums)
{
  /* 12 blocks of 5x5 at 1/16 of the 320x180 chroma */
  const VhVideoInfo info = { 640, 360, _i % 2 ? 10 : 8 };
  GError *error = NULL;
  VhEngine *e[2];
  for (int k = 0; k < 2; k++) {
    e[k] = vh_engine_new (&info, &error);
    ck_assert (vh_engine_set_threads (e[k], 3, &error));
    if (k == 0) {
      LateAccel *a = g_new0 (LateAccel, 1);
      g_queue_init (&a->pending);
      ck_assert (vh_engine_set_accelerator (e[k], &late_ops, a, &error));
    }
    ck_assert_msg (vh_engine_add_feature (e[k], "speed_chroma", &error), "%s",
        error ? error->message : "?");
  }
  ck_assert_uint_eq (vh_engine_n_accelerated (e[0]), 1);
  VhSynth *synth = vh_synth_new (info.width, info.height, info.bpc,
      VH_SYNTH_420, 5);
  for (unsigned i = 0; i < 10; i++) {
    VhPicture ref, dis;
    vh_synth_render (synth, i, 2 + i % 6, &ref, &dis);
    for (int k = 0; k < 2; k++)
      ck_assert_msg (vh_engine_push (e[k], &ref, &dis, &error), "%s",
          error ? error->message : "?");
  }
  for (int k = 0; k < 2; k++)
    ck_assert (vh_engine_flush (e[k], &error));
  static const char *const keys[] = { "speed_chroma_u", "speed_chroma_v",
    "speed_chroma_uv" };
  for (unsigned i = 0; i < 10; i++)
    for (unsigned n = 0; n < G_N_ELEMENTS (keys); n++) {
      const double acc = value_of (e[0], keys[n], i);
      ck_assert_msg (acc == value_of (e[1], keys[n], i), "%s frame %u: %.17g",
          keys[n], i, acc);
      /* content that gives scores (singular covariances give 0) */
      ck_assert_msg (acc > 0.1, "%s frame %u: %.17g", keys[n], i, acc);
    }
  vh_engine_free (e[0]);
  vh_engine_free (e[1]);
  vh_synth_free (synth);
}
END_TEST

static Suite *
accel_sums_suite (void)
{
  Suite *s = suite_create ("accel-sums");
  TCase *tc = tcase_create ("independent-sums");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_sums_in_order_one_thread);
  tcase_add_test (tc, test_sums_in_order_four_threads);
  tcase_add_test (tc, test_sums_error_reaches_caller);
  tcase_add_test (tc, test_sums_reset_forgets);
  tcase_add_test (tc, test_sums_free_in_flight);
  tcase_add_loop_test (tc, test_speed_chroma_sums, 0, 2);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (accel_sums_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
