/* vmafhip — the accelerator's sums of frame-independent extractors,
 * extracted on helper threads (engine-private.h, VhSumsHelpers).
 *
 * Some extractors still have a large host share after the GPU's part
 * (SpEED-chroma: eigenvalues, a QR solve and entropies per block, about
 * 0.3 ms a 1080p frame and 1 ms a 2160p one on one core).  In the pushing
 * thread that share delays the next frame's upload and launches; here it
 * runs beside them.  Each frame's sums are copied (the accelerator reuses
 * its slot once the frame is delivered), extract_sums runs on a state of
 * its own (init'ed as the instance's), its puts are recorded and replayed
 * into the table in the pushing thread, in frame order, as the workers'
 * are (engine-workers.c).  The scores are the same: the same function on
 * the same sums. */
#include <string.h>

#include "engine-private.h"

/* A put made on a helper, kept with its job until replayed */
typedef struct {
  gboolean plain;
  const char *name;             /* in the job's names (interned) */
  double value;
} SumsPut;

typedef struct {
  unsigned instance, index;
  guint8 *sums;
  size_t sums_capacity;
  GArray *puts;                 /* SumsPut */
  GStringChunk *names;
  GError *error;
  gboolean done;                /* under the helpers' lock */
} SumsJob;

/* One helper's own state of every instance it may run (NULL for the
 * others), taken for one job at a time */
typedef struct {
  void **priv;
} SumsState;

struct VhSumsHelpers {
  GThreadPool *pool;
  GAsyncQueue *free_states;     /* SumsState* */
  SumsState *states;
  unsigned n_states;
  GQueue pending;               /* SumsJob*, in frame order (pushing thread) */
  GQueue spare;                 /* SumsJob* to reuse */
  unsigned max_pending;
  GMutex lock;
  GCond job_done;
};

gboolean
vh_engine_sums_independent (const Instance *inst)
{
  return inst->accel_handle && inst->fex->independent_sums_size;
}

static void
record_sums_put (VhFeatureSink *sink, gboolean plain, const char *name,
    unsigned index, double value)
{
  SumsJob *job = sink->record;
  (void) index;                 /* the job's */
  const SumsPut p = { plain, g_string_chunk_insert_const (job->names, name),
    value };
  g_array_append_val (job->puts, p);
}

static void
run_job (gpointer data, gpointer user_data)
{
  SumsJob *job = data;
  VhEngine *e = user_data;
  VhSumsHelpers *h = e->sums_helpers;
  const Instance *inst = g_ptr_array_index (e->instances, job->instance);
  SumsState *state = g_async_queue_pop (h->free_states);
  VhFeatureSink sink = {
    .suffix = inst->suffix, .record = job,
    .record_put = record_sums_put,
  };
  GError *error = NULL;
  if (!inst->fex->extract_sums (state->priv[job->instance], job->sums,
          job->index, &sink, &error))
    job->error = error;
  g_async_queue_push (h->free_states, state);
  g_mutex_lock (&h->lock);
  job->done = TRUE;
  g_cond_broadcast (&h->job_done);
  g_mutex_unlock (&h->lock);
}

static void
job_free (gpointer p)
{
  SumsJob *job = p;
  g_free (job->sums);
  g_array_unref (job->puts);
  g_string_chunk_free (job->names);
  g_clear_error (&job->error);
  g_free (job);
}

static void
states_free (VhEngine *e, VhSumsHelpers *h)
{
  for (unsigned k = 0; h->states && k < h->n_states; k++) {
    for (guint i = 0; i < e->instances->len; i++) {
      const Instance *inst = g_ptr_array_index (e->instances, i);
      void *priv = h->states[k].priv[i];
      if (priv && inst->fex->close)
        inst->fex->close (priv);
      g_free (priv);
    }
    g_free (h->states[k].priv);
  }
  g_free (h->states);
}

/* Helpers for the engine's independent instances, at the first frame
 * delivered (the instances are attached by then); TRUE without any */
static gboolean
helpers_start (VhEngine *e, GError **error)
{
  gboolean any = FALSE;
  for (guint i = 0; i < e->instances->len; i++)
    any |= vh_engine_sums_independent (g_ptr_array_index (e->instances, i));
  if (!any)
    return TRUE;

  /* beside the pushing thread at least one, so that the host share runs
   * while the next frame is uploaded; with more workers, frames side by
   * side (each extract_sums may split its own work further) */
  VhSumsHelpers *h = g_new0 (VhSumsHelpers, 1);
  h->n_states = CLAMP (e->n_threads, 2, 4);
  h->max_pending = 2 * h->n_states + 2;
  g_mutex_init (&h->lock);
  g_cond_init (&h->job_done);
  g_queue_init (&h->pending);
  g_queue_init (&h->spare);
  h->free_states = g_async_queue_new ();
  h->states = g_new0 (SumsState, h->n_states);
  e->sums_helpers = h;
  for (unsigned k = 0; k < h->n_states; k++) {
    h->states[k].priv = g_new0 (void *, e->instances->len);
    for (guint i = 0; i < e->instances->len; i++) {
      const Instance *inst = g_ptr_array_index (e->instances, i);
      if (!vh_engine_sums_independent (inst))
        continue;
      void *priv = g_malloc0 (MAX (inst->fex->priv_size, 1));
      if (inst->fex->init && !inst->fex->init (priv, inst->opts, &e->info,
              error)) {
        g_free (priv);
        g_prefix_error (error, "feature '%s': ", inst->fex->name);
        vh_engine_sums_free (e);
        return FALSE;
      }
      h->states[k].priv[i] = priv;
    }
    g_async_queue_push (h->free_states, &h->states[k]);
  }
  h->pool = g_thread_pool_new (run_job, e, (gint) h->n_states, FALSE, error);
  if (!h->pool) {
    vh_engine_sums_free (e);
    return FALSE;
  }
  return TRUE;
}

gboolean
vh_engine_sums_queue (VhEngine *e, unsigned instance, unsigned index,
    const void *sums, GError **error)
{
  if (!e->sums_helpers && !helpers_start (e, error))
    return FALSE;
  VhSumsHelpers *h = e->sums_helpers;
  const Instance *inst = g_ptr_array_index (e->instances, instance);
  const size_t size = inst->fex->independent_sums_size (sums);

  SumsJob *job = g_queue_pop_head (&h->spare);
  if (!job) {
    job = g_new0 (SumsJob, 1);
    job->puts = g_array_new (FALSE, FALSE, sizeof (SumsPut));
    job->names = g_string_chunk_new (256);
  }
  if (job->sums_capacity < size) {
    g_free (job->sums);
    job->sums = g_malloc (size);
    job->sums_capacity = size;
  }
  memcpy (job->sums, sums, size);
  job->instance = instance;
  job->index = index;
  job->done = FALSE;
  g_array_set_size (job->puts, 0);
  g_queue_push_tail (&h->pending, job);
  if (g_thread_pool_push (h->pool, job, error))
    return TRUE;
  /* never run: done now, so that nothing waits for it */
  job->done = TRUE;
  return FALSE;
}

/* The oldest job's puts into the table; FALSE with its error */
static gboolean
replay (VhEngine *e, SumsJob *job, GError **error)
{
  Instance *inst = g_ptr_array_index (e->instances, job->instance);
  if (job->error) {
    g_propagate_error (error, job->error);
    job->error = NULL;
    return FALSE;
  }
  for (guint k = 0; k < job->puts->len; k++) {
    const SumsPut *p = &g_array_index (job->puts, SumsPut, k);
    if (p->plain)
      vh_feature_sink_put_plain (&inst->sink, p->name, job->index, p->value);
    else
      vh_feature_sink_put (&inst->sink, p->name, job->index, p->value);
  }
  return TRUE;
}

gboolean
vh_engine_sums_drain (VhEngine *e, gboolean wait_all, GError **error)
{
  VhSumsHelpers *h = e->sums_helpers;
  if (!h)
    return TRUE;
  for (;;) {
    SumsJob *job = g_queue_peek_head (&h->pending);
    if (!job)
      return TRUE;
    const gboolean must_wait = wait_all
        || g_queue_get_length (&h->pending) > h->max_pending;
    g_mutex_lock (&h->lock);
    while (must_wait && !job->done)
      g_cond_wait (&h->job_done, &h->lock);
    const gboolean done = job->done;
    g_mutex_unlock (&h->lock);
    if (!done)
      return TRUE;
    g_queue_pop_head (&h->pending);
    const gboolean ok = replay (e, job, error);
    g_queue_push_tail (&h->spare, job);
    if (!ok)
      return FALSE;
  }
}

unsigned
vh_engine_sums_first_pending (const VhEngine *e)
{
  VhSumsHelpers *h = e->sums_helpers;
  const SumsJob *job = h ? g_queue_peek_head (&h->pending) : NULL;
  return job ? job->index : G_MAXUINT;
}

/* Waits for every job and forgets them (their puts and errors) */
static void
discard_pending (VhSumsHelpers *h)
{
  SumsJob *job;
  while ((job = g_queue_pop_head (&h->pending))) {
    g_mutex_lock (&h->lock);
    while (!job->done)
      g_cond_wait (&h->job_done, &h->lock);
    g_mutex_unlock (&h->lock);
    g_clear_error (&job->error);
    g_queue_push_tail (&h->spare, job);
  }
}

void
vh_engine_sums_reset (VhEngine *e)
{
  if (e->sums_helpers)
    discard_pending (e->sums_helpers);
}

void
vh_engine_sums_free (VhEngine *e)
{
  VhSumsHelpers *h = e->sums_helpers;
  if (!h)
    return;
  if (h->pool) {
    discard_pending (h);
    g_thread_pool_free (h->pool, FALSE, TRUE);
  }
  g_queue_clear_full (&h->pending, job_free);
  g_queue_clear_full (&h->spare, job_free);
  states_free (e, h);
  g_async_queue_unref (h->free_states);
  g_mutex_clear (&h->lock);
  g_cond_clear (&h->job_done);
  g_free (h);
  e->sums_helpers = NULL;
}
