/* vmafhip — a few independent pieces of work at once (vh-parallel.h). */
#include "vh-parallel.h"

#define MAX_HELPERS 63

/* ---- vh_parallel_for: pieces taken in order by whoever is free --------- */

/* Shared with helpers that may start after the caller has returned (they
 * were queued behind other work and find nothing left): refcounted. */
typedef struct {
  void (*fn) (void *data, unsigned i);
  void *data;
  unsigned n;
  gint next;                    /* the next piece to take */
  gint refs;
  GMutex lock;
  GCond done;
  unsigned finished;            /* pieces done, under lock */
} ForRun;

static void
for_run_unref (ForRun *run)
{
  if (g_atomic_int_dec_and_test (&run->refs)) {
    g_mutex_clear (&run->lock);
    g_cond_clear (&run->done);
    g_free (run);
  }
}

/* takes pieces until none is left, then counts those it ran as done */
static void
for_take (ForRun *run)
{
  unsigned ran = 0;
  for (;;) {
    const unsigned i = (unsigned) g_atomic_int_add (&run->next, 1);
    if (i >= run->n)
      break;
    run->fn (run->data, i);
    ran++;
  }
  if (!ran)
    return;
  g_mutex_lock (&run->lock);
  run->finished += ran;
  if (run->finished == run->n)
    g_cond_signal (&run->done);
  g_mutex_unlock (&run->lock);
}

/* a helper: takes pieces, then lets go of the run */
static void
run_for_helper (gpointer data, gpointer user_data)
{
  ForRun *run = data;
  (void) user_data;
  for_take (run);
  for_run_unref (run);
}

/* ---- the pool ------------------------------------------------------------ */

static GThreadPool *
helpers (void)
{
  static gsize once;
  static GThreadPool *pool;
  if (g_once_init_enter (&once)) {
    const unsigned cpus = g_get_num_processors ();
    if (cpus > 1)
      pool = g_thread_pool_new (run_for_helper, NULL, (gint) MIN (cpus - 1,
              MAX_HELPERS), FALSE, NULL);
    g_once_init_leave (&once, 1);
  }
  return pool;
}

void
vh_parallel_run (unsigned n, void (*fn) (void *data, unsigned i), void *data)
{
  /* as many threads as pieces, where helpers are free */
  vh_parallel_for (n, n, NULL, fn, data);
}

/* one thread off the budget, if it has one left */
static gboolean
budget_take (gint *budget)
{
  for (;;) {
    const gint left = g_atomic_int_get (budget);
    if (left <= 0)
      return FALSE;
    if (g_atomic_int_compare_and_exchange (budget, left, left - 1))
      return TRUE;
  }
}

void
vh_parallel_for (unsigned n, unsigned max_threads, gint *budget,
    void (*fn) (void *data, unsigned i), void *data)
{
  GThreadPool *pool = n > 1 && max_threads > 1 ? helpers () : NULL;
  unsigned n_helpers = 0;
  while (pool && n_helpers + 1 < MIN (n, max_threads)
      && (!budget || budget_take (budget)))
    n_helpers++;
  if (!n_helpers) {
    for (unsigned i = 0; i < n; i++)
      fn (data, i);
    return;
  }
  ForRun *run = g_new0 (ForRun, 1);
  run->fn = fn;
  run->data = data;
  run->n = n;
  run->refs = (gint) n_helpers + 1;
  g_mutex_init (&run->lock);
  g_cond_init (&run->done);
  /* the same task pushed once per helper wanted: each takes pieces */
  for (unsigned h = 0; h < n_helpers; h++)
    g_thread_pool_push (pool, run, NULL);
  for_take (run);
  g_mutex_lock (&run->lock);
  while (run->finished < n)
    g_cond_wait (&run->done, &run->lock);
  g_mutex_unlock (&run->lock);
  /* given back here, not by the helpers: one still queued behind other
   * work finds nothing left and must not touch the owner's budget */
  if (budget)
    g_atomic_int_add (budget, (gint) n_helpers);
  for_run_unref (run);
}
