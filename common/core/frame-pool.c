/* vmafhip — frames in flight on a pool of worker threads (frame-pool.h). */
#include "frame-pool.h"

#include <string.h>

#include "vh-error.h"

/* the most earlier frames a frame's work may read (motion: 2) */
#define MAX_LOOKBACK 4

#define ROUND_UP_64(x) (((x) + 63) & ~(gsize) 63)

enum { SLOT_FREE, SLOT_QUEUED, SLOT_DONE };

typedef struct {
  unsigned index;
  int state;                    /* under the pool's lock */
  VhPicture ref, dis;           /* copies, in store */
  guint8 *store;
  gsize store_size;
  gpointer data;                /* the caller's, per slot */
  GError *error;                /* from work */
} Slot;

struct VhFramePool {
  VhFramePoolOps ops;
  gpointer user;
  unsigned n_workers, lookback, copy_planes, capacity;
  Slot *slots;
  GThreadPool *threads;
  GMutex lock;
  GCond done;                   /* a slot became SLOT_DONE */
  unsigned *free_workers;       /* worker numbers not in use */
  unsigned n_free_workers;
  unsigned n_running;           /* queued, not done */
  unsigned n_submitted, n_finished;
  GError *failure;              /* the first error: later calls fail too */
};

static void
run_slot (gpointer data, gpointer user_data)
{
  Slot *slot = data;
  VhFramePool *pool = user_data;
  const VhPicture *earlier[MAX_LOOKBACK] = { NULL };
  GError *error = NULL;

  g_mutex_lock (&pool->lock);
  const unsigned worker = pool->free_workers[--pool->n_free_workers];
  g_mutex_unlock (&pool->lock);

  /* the slots of earlier frames are not reused before this one is done */
  for (unsigned k = 0; k < pool->lookback; k++)
    if (slot->index >= k + 1)
      earlier[k] = &pool->slots[(slot->index - 1 - k) % pool->capacity].ref;
  pool->ops.work (pool->user, worker, &slot->ref, &slot->dis, earlier,
      slot->index, slot->data, &error);

  g_mutex_lock (&pool->lock);
  pool->free_workers[pool->n_free_workers++] = worker;
  slot->error = error;
  slot->state = SLOT_DONE;
  pool->n_running--;
  g_cond_broadcast (&pool->done);
  g_mutex_unlock (&pool->lock);
}

VhFramePool *
vh_frame_pool_new (unsigned n_workers, unsigned lookback,
    unsigned copy_planes, const VhFramePoolOps *ops, gpointer user,
    GError **error)
{
  if (!n_workers || lookback > MAX_LOOKBACK || !copy_planes
      || copy_planes > 3) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "frame pool: %u workers, %u frames of lookback (at most %d), %u "
        "planes", n_workers, lookback, MAX_LOOKBACK, copy_planes);
    return NULL;
  }
  VhFramePool *pool = g_new0 (VhFramePool, 1);
  pool->ops = *ops;
  pool->user = user;
  pool->n_workers = n_workers;
  pool->lookback = lookback;
  pool->copy_planes = copy_planes;
  /* the unfinished frames and the references the oldest may read */
  pool->capacity = vh_frame_pool_max_unfinished (n_workers) + lookback;
  pool->slots = g_new0 (Slot, pool->capacity);
  for (unsigned i = 0; i < pool->capacity; i++)
    pool->slots[i].data = ops->new_frame_data (user);
  pool->free_workers = g_new (unsigned, n_workers);
  for (unsigned i = 0; i < n_workers; i++)
    pool->free_workers[i] = i;
  pool->n_free_workers = n_workers;
  g_mutex_init (&pool->lock);
  g_cond_init (&pool->done);
  pool->threads = g_thread_pool_new (run_slot, pool, (gint) n_workers, FALSE,
      error);
  if (!pool->threads) {
    vh_frame_pool_free (pool);
    return NULL;
  }
  return pool;
}

void
vh_frame_pool_free (VhFramePool *pool)
{
  if (!pool)
    return;
  if (pool->threads)
    g_thread_pool_free (pool->threads, FALSE, TRUE);  /* runs what is queued */
  for (unsigned i = 0; i < pool->capacity; i++) {
    g_free (pool->slots[i].store);
    g_clear_error (&pool->slots[i].error);
    if (pool->ops.free_frame_data)
      pool->ops.free_frame_data (pool->slots[i].data);
  }
  g_free (pool->slots);
  g_free (pool->free_workers);
  g_clear_error (&pool->failure);
  g_mutex_clear (&pool->lock);
  g_cond_clear (&pool->done);
  g_free (pool);
}

/* Row bytes of plane p as the extractors read it (interleaved chroma:
 * every `step`-th sample of the row). */
static gsize
plane_row_bytes (const VhPlane *p, unsigned bpc)
{
  const gsize bytes = bpc > 8 ? 2 : 1;
  return ((gsize) (p->width - 1) * MAX (p->step, 1u) + 1) * bytes;
}

/* The first copy_planes planes of src into the slot's store, rows
 * packed. */
static void
copy_pictures (VhFramePool *pool, Slot *slot, const VhPicture *ref,
    const VhPicture *dis)
{
  const VhPicture *src[2] = { ref, dis };
  VhPicture *dst[2] = { &slot->ref, &slot->dis };
  const unsigned n = MIN (pool->copy_planes, ref->nplanes);
  gsize need = 0;

  for (int k = 0; k < 2; k++)
    for (unsigned p = 0; p < n; p++)
      need += ROUND_UP_64 (plane_row_bytes (&src[k]->plane[p],
              src[k]->bpc) * src[k]->plane[p].height);
  if (slot->store_size < need) {
    g_free (slot->store);
    slot->store = g_malloc (need);
    slot->store_size = need;
  }
  guint8 *cursor = slot->store;
  for (int k = 0; k < 2; k++) {
    *dst[k] = *src[k];
    dst[k]->nplanes = n;
    for (unsigned p = 0; p < n; p++) {
      const VhPlane *sp = &src[k]->plane[p];
      VhPlane *dp = &dst[k]->plane[p];
      const gsize row = plane_row_bytes (sp, src[k]->bpc);
      for (unsigned y = 0; y < sp->height; y++)
        memcpy (cursor + y * row, (const guint8 *) sp->data
            + (ptrdiff_t) y * sp->stride, row);
      dp->data = cursor;
      dp->stride = (ptrdiff_t) row;
      cursor += ROUND_UP_64 (row * sp->height);
    }
  }
}

static gboolean
failed (VhFramePool *pool, GError **error)
{
  if (!pool->failure)
    return FALSE;
  if (error)
    *error = g_error_copy (pool->failure);
  return TRUE;
}

gboolean
vh_frame_pool_drain (VhFramePool *pool, gboolean wait, GError **error)
{
  if (failed (pool, error))
    return FALSE;
  while (pool->n_finished < pool->n_submitted) {
    Slot *slot = &pool->slots[pool->n_finished % pool->capacity];
    g_mutex_lock (&pool->lock);
    while (wait && slot->state != SLOT_DONE)
      g_cond_wait (&pool->done, &pool->lock);
    const gboolean done = slot->state == SLOT_DONE;
    g_mutex_unlock (&pool->lock);
    if (!done)
      return TRUE;
    GError *err = slot->error;
    slot->error = NULL;
    if (!err)
      pool->ops.finish (pool->user, slot->index, slot->data, &err);
    pool->n_finished++;
    if (err) {
      pool->failure = g_error_copy (err);
      g_propagate_error (error, err);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
vh_frame_pool_submit (VhFramePool *pool, const VhPicture *ref,
    const VhPicture *dis, GError **error)
{
  if (failed (pool, error))
    return FALSE;
  const unsigned index = pool->n_submitted;
  /* the slot's frame and the earlier ones the next frames read: finished */
  const unsigned need = index + pool->lookback + 1 >= pool->capacity
      ? index + pool->lookback + 1 - pool->capacity : 0;
  while (pool->n_finished < need) {
    if (!vh_frame_pool_drain (pool, FALSE, error))
      return FALSE;
    if (pool->n_finished >= need)
      break;
    Slot *oldest = &pool->slots[pool->n_finished % pool->capacity];
    g_mutex_lock (&pool->lock);
    while (oldest->state != SLOT_DONE)
      g_cond_wait (&pool->done, &pool->lock);
    g_mutex_unlock (&pool->lock);
  }

  Slot *slot = &pool->slots[index % pool->capacity];
  copy_pictures (pool, slot, ref, dis);
  slot->index = index;
  g_mutex_lock (&pool->lock);
  slot->state = SLOT_QUEUED;
  pool->n_running++;
  g_mutex_unlock (&pool->lock);
  pool->n_submitted++;
  GError *err = NULL;
  if (!g_thread_pool_push (pool->threads, slot, &err)) {
    /* no thread for it: the frame fails when drained, like a work error */
    g_mutex_lock (&pool->lock);
    slot->error = err;
    slot->state = SLOT_DONE;
    pool->n_running--;
    g_mutex_unlock (&pool->lock);
  }
  return TRUE;
}

void
vh_frame_pool_reset (VhFramePool *pool)
{
  g_mutex_lock (&pool->lock);
  while (pool->n_running)
    g_cond_wait (&pool->done, &pool->lock);
  g_mutex_unlock (&pool->lock);
  for (unsigned i = 0; i < pool->capacity; i++) {
    pool->slots[i].state = SLOT_FREE;
    g_clear_error (&pool->slots[i].error);
  }
  g_clear_error (&pool->failure);
  pool->n_submitted = pool->n_finished = 0;
}

unsigned
vh_frame_pool_n_submitted (const VhFramePool *pool)
{
  return pool->n_submitted;
}

unsigned
vh_frame_pool_n_finished (const VhFramePool *pool)
{
  return pool->n_finished;
}

unsigned
vh_frame_pool_max_unfinished (unsigned n_workers)
{
  return n_workers + 2;
}

unsigned
vh_frame_pool_capacity (const VhFramePool *pool)
{
  return pool->capacity;
}
