/* vmafhip — a few independent pieces of work at once (vh-parallel.h). */
#include "vh-parallel.h"

#define MAX_HELPERS 7

typedef struct {
  void (*fn) (void *data, unsigned i);
  void *data;
  GMutex lock;
  GCond done;
  unsigned left;                /* pieces on the helpers, not yet done */
} Run;

typedef struct {
  Run *run;
  unsigned i;
} Piece;

static void
run_piece (gpointer data, gpointer user_data)
{
  Piece *piece = data;
  Run *run = piece->run;
  (void) user_data;
  run->fn (run->data, piece->i);
  g_mutex_lock (&run->lock);
  if (--run->left == 0)
    g_cond_signal (&run->done);
  g_mutex_unlock (&run->lock);
}

static GThreadPool *
helpers (void)
{
  static gsize once;
  static GThreadPool *pool;
  if (g_once_init_enter (&once)) {
    const unsigned cpus = g_get_num_processors ();
    if (cpus > 1)
      pool = g_thread_pool_new (run_piece, NULL, (gint) MIN (cpus - 1,
              MAX_HELPERS), FALSE, NULL);
    g_once_init_leave (&once, 1);
  }
  return pool;
}

void
vh_parallel_run (unsigned n, void (*fn) (void *data, unsigned i), void *data)
{
  GThreadPool *pool = n > 1 ? helpers () : NULL;
  if (!pool) {
    for (unsigned i = 0; i < n; i++)
      fn (data, i);
    return;
  }
  Run run = { fn, data, { 0 }, { 0 }, n - 1 };
  Piece *pieces = g_newa (Piece, n);
  g_mutex_init (&run.lock);
  g_cond_init (&run.done);
  for (unsigned i = 1; i < n; i++) {
    pieces[i] = (Piece) { &run, i };
    g_thread_pool_push (pool, &pieces[i], NULL);
  }
  fn (data, 0);
  g_mutex_lock (&run.lock);
  while (run.left)
    g_cond_wait (&run.done, &run.lock);
  g_mutex_unlock (&run.lock);
  g_mutex_clear (&run.lock);
  g_cond_clear (&run.done);
}
