/* vmafhip — the engine's frames in flight (vh_engine_set_threads): each
 * CPU extractor gets a state per worker, frames go to common/core/frame-pool.c,
 * and what the workers compute reaches the score table in the pushing
 * thread, in frame order (the table has no lock). */
#include <string.h>

#include "engine-private.h"

/* A put made by a worker: kept with its frame until the frame is done. */
typedef struct {
  unsigned instance, index;
  gboolean plain;
  const char *name;             /* in the frame's names (interned) */
  double value;
} RecordedPut;

/* What a frame in flight carries besides its pictures. */
struct PoolFrame {
  guint8 *sums;                 /* compute_sums' outputs */
  GArray *record;               /* RecordedPut */
  /* the put names, interned: the same few each frame, so no allocation
   * once the first frames have been through the slot */
  GStringChunk *names;
};
typedef struct PoolFrame PoolFrame;

/* On the workers: not accelerated, and either free of earlier frames or
 * able to hand its dependent part to compute_sums. */
static gboolean
runs_on_workers (const Instance *inst)
{
  return !inst->accel_handle
      && (!inst->fex->sequential || inst->fex->compute_sums);
}

static void
record_put (VhFeatureSink *sink, gboolean plain, const char *name,
    unsigned index, double value)
{
  PoolFrame *f = sink->record;
  const RecordedPut r = { sink->record_instance, index, plain,
    g_string_chunk_insert_const (f->names, name), value };
  g_array_append_val (f->record, r);
}

void
vh_engine_workers_free (VhEngine *e)
{
  vh_frame_pool_free (e->frames);
  e->frames = NULL;
  for (unsigned w = 0; e->workers && w < e->n_threads; w++) {
    for (guint i = 0; i < e->instances->len; i++) {
      const Instance *inst = g_ptr_array_index (e->instances, i);
      void *priv = e->workers[w].priv[i];
      if (priv && inst->fex->close)
        inst->fex->close (priv);
      g_free (priv);
    }
    g_free (e->workers[w].priv);
    g_free (e->workers[w].sink);
  }
  g_clear_pointer (&e->workers, g_free);
  for (guint i = 0; i < e->instances->len; i++)
    ((Instance *) g_ptr_array_index (e->instances, i))->on_workers = FALSE;
}

gboolean
vh_engine_set_threads (VhEngine *e, unsigned n_threads, GError **error)
{
  if (e->n_pushed) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "threads must be set before the first frame");
    return FALSE;
  }
  vh_engine_workers_free (e);
  /* more workers than CPUs only add frames in flight */
  const unsigned cpus = (unsigned) g_get_num_processors ();
  e->n_threads = n_threads ? MIN (n_threads, cpus) : cpus;
  return TRUE;
}

static gpointer
pool_frame_new (gpointer user)
{
  const VhEngine *e = user;
  PoolFrame *f = g_new0 (PoolFrame, 1);
  f->sums = g_malloc0 (MAX (e->pool_sums_size, 1));
  f->record = g_array_new (FALSE, FALSE, sizeof (RecordedPut));
  f->names = g_string_chunk_new (256);
  return f;
}

static void
pool_frame_free (gpointer p)
{
  PoolFrame *f = p;
  g_free (f->sums);
  g_array_unref (f->record);
  g_string_chunk_free (f->names);
  g_free (f);
}

/* In a worker: every instance it runs, on its own states. */
static gboolean
pool_work (gpointer user, unsigned worker, const VhPicture *ref,
    const VhPicture *dis, const VhPicture *const *earlier, unsigned index,
    gpointer frame_data, GError **error)
{
  VhEngine *e = user;
  PoolFrame *f = frame_data;
  WorkerState *w = &e->workers[worker];

  gboolean ok = TRUE;
  g_array_set_size (f->record, 0);
  g_atomic_int_add (&e->idle_threads, -1);
  for (guint i = 0; ok && i < e->instances->len; i++) {
    const Instance *inst = g_ptr_array_index (e->instances, i);
    if (!w->priv[i] || !vh_engine_computes (e, inst, index))
      continue;
    w->sink[i].record = f;
    ok = inst->fex->compute_sums
        ? inst->fex->compute_sums (w->priv[i], ref, dis, earlier, index,
        f->sums + inst->sums_offset, error)
        : inst->fex->extract (w->priv[i], ref, dis, index, &w->sink[i],
        error);
  }
  g_atomic_int_add (&e->idle_threads, 1);
  return ok;
}

/* In the pushing thread, in frame order: the workers' puts into the
 * table, and the sequential extractors' sums into them. */
static gboolean
pool_finish (gpointer user, unsigned index, gpointer frame_data,
    GError **error)
{
  VhEngine *e = user;
  PoolFrame *f = frame_data;

  for (guint k = 0; k < f->record->len; k++) {
    const RecordedPut *r = &g_array_index (f->record, RecordedPut, k);
    Instance *inst = g_ptr_array_index (e->instances, r->instance);
    if (r->plain)
      vh_feature_sink_put_plain (&inst->sink, r->name, r->index, r->value);
    else
      vh_feature_sink_put (&inst->sink, r->name, r->index, r->value);
  }
  g_array_set_size (f->record, 0);
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->on_workers && inst->fex->compute_sums
        && !inst->fex->extract_sums (inst->priv, f->sums + inst->sums_offset,
            index, &inst->sink, error))
      return FALSE;
  }
  return TRUE;
}

/* At the first push with n_threads > 1: the CPU extractors that can run
 * with frames in flight get a state per worker, and the pool starts. */
gboolean
vh_engine_workers_start (VhEngine *e, const VhPicture *ref, GError **error)
{
  static const VhFramePoolOps ops = {
    pool_work, pool_finish, pool_frame_new, pool_frame_free,
  };
  unsigned lookback = 0, n_on_workers = 0;
  gboolean chroma = FALSE;

  e->pool_sums_size = 0;
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    const VhFeatureExtractor *fex = inst->fex;
    inst->on_workers = runs_on_workers (inst);
    if (!inst->on_workers)
      continue;
    n_on_workers++;
    chroma |= fex->needs_chroma;
    if (fex->compute_sums) {
      inst->sums_offset = e->pool_sums_size;
      e->pool_sums_size += (fex->sums_size + 15) & ~(size_t) 15;
      if (fex->lookback)
        lookback = MAX (lookback, fex->lookback (inst->opts));
    }
  }
  if (!n_on_workers)
    return TRUE;

  /* Row bands where an extractor has them (the config turns them off, to
   * measure what they bring) */
  const gboolean bands = e->config.cpu_row_bands;
  e->idle_threads = (gint) e->n_threads;
  e->workers = g_new0 (WorkerState, e->n_threads);
  for (unsigned w = 0; w < e->n_threads; w++) {
    e->workers[w].priv = g_new0 (void *, e->instances->len);
    e->workers[w].sink = g_new0 (VhFeatureSink, e->instances->len);
    for (guint i = 0; i < e->instances->len; i++) {
      const Instance *inst = g_ptr_array_index (e->instances, i);
      if (!inst->on_workers)
        continue;
      void *priv = g_malloc0 (MAX (inst->fex->priv_size, 1));
      if (inst->fex->init && !inst->fex->init (priv, inst->opts, &e->info,
              error)) {
        g_free (priv);
        goto failed;
      }
      if (inst->fex->set_threads && bands)
        inst->fex->set_threads (priv, e->n_threads, &e->idle_threads);
      e->workers[w].priv[i] = priv;
      e->workers[w].sink[i] = (VhFeatureSink) {
        .suffix = inst->suffix, .record_instance = i,
        .record_put = record_put,
      };
    }
  }
  e->frames = vh_frame_pool_new (e->n_threads, lookback,
      chroma ? ref->nplanes : 1, &ops, e, error);
  if (e->frames)
    return TRUE;

failed:
  vh_engine_workers_free (e);
  return FALSE;
}

unsigned
vh_engine_frames_in_flight (const VhEngine *e)
{
  if (e->n_threads < 2)
    return 0;
  for (guint i = 0; i < e->instances->len; i++) {
    const Instance *inst = g_ptr_array_index (e->instances, i);
    if (runs_on_workers (inst))
      return vh_frame_pool_max_unfinished (e->n_threads);
  }
  return 0;
}

unsigned
vh_engine_threads (const VhEngine *e)
{
  return e->n_threads;
}

