/* vmafhip — one input's frames read ahead in a thread of its own (see
 * vh-frame-reader.h).
 *
 * Frame i goes into slot i % n_slots.  The thread reads frame i once the
 * caller has released frame i - n_slots (the slot is free) and tells the
 * caller once it is read; the caller takes frames in order.  One lock and
 * one condition for both directions: the waits are a frame long. */
#include "vh-frame-reader.h"

#include "vh-error.h"

struct VhFrameReader {
  VhFrameReadFunc read;
  void *source;
  size_t frame_size;
  unsigned n_slots;
  VhFrameMemory memory;
  guint8 **slots;

  GThread *thread;
  GMutex lock;
  GCond cond;
  /* under the lock */
  guint64 n_read;               /* frames read (the thread's next) */
  guint64 n_released;           /* frames the caller is done with */
  gboolean ended;               /* the source ended, or failed (error) */
  gboolean stop;                /* the caller is leaving */
  GError *error;
  /* the caller's */
  guint64 n_taken;
};

static void *
default_alloc (void *ctx, size_t size, GError **error)
{
  (void) ctx;
  (void) error;
  return g_malloc (size);
}

static void
default_free (void *ctx, void *ptr)
{
  (void) ctx;
  g_free (ptr);
}

static gpointer
reader_thread (gpointer data)
{
  VhFrameReader *r = data;

  g_mutex_lock (&r->lock);
  for (;;) {
    /* frame n_read into its slot, once the frame there is released */
    while (!r->stop && r->n_read >= r->n_released + r->n_slots)
      g_cond_wait (&r->cond, &r->lock);
    if (r->stop)
      break;
    guint8 *slot = r->slots[r->n_read % r->n_slots];
    GError *error = NULL;
    g_mutex_unlock (&r->lock);
    const int got = r->read (r->source, slot, &error);
    g_mutex_lock (&r->lock);
    if (got == 1) {
      r->n_read++;
    } else {
      r->ended = TRUE;
      r->error = error;         /* NULL at the end */
    }
    g_cond_broadcast (&r->cond);
    if (r->ended)
      break;
  }
  g_mutex_unlock (&r->lock);
  return NULL;
}

VhFrameReader *
vh_frame_reader_new (VhFrameReadFunc read, void *source, size_t frame_size,
    unsigned n_slots, const VhFrameMemory *memory, GError **error)
{
  VhFrameReader *r = g_new0 (VhFrameReader, 1);

  r->read = read;
  r->source = source;
  r->frame_size = frame_size;
  r->n_slots = MAX (n_slots, 2);
  r->memory = memory ? *memory
      : (VhFrameMemory) { default_alloc, default_free, NULL };
  r->slots = g_new0 (guint8 *, r->n_slots);
  g_mutex_init (&r->lock);
  g_cond_init (&r->cond);
  for (unsigned i = 0; i < r->n_slots; i++)
    if (!(r->slots[i] = r->memory.alloc (r->memory.ctx, frame_size, error)))
      goto failed;
  r->thread = g_thread_try_new ("vh-reader", reader_thread, r, error);
  if (!r->thread)
    goto failed;
  return r;

failed:
  g_prefix_error (error, "reading ahead: ");
  vh_frame_reader_free (r);
  return NULL;
}

int
vh_frame_reader_next (VhFrameReader *r, guint8 **buf, GError **error)
{
  int got;

  g_mutex_lock (&r->lock);
  if (r->n_taken >= r->n_released + r->n_slots) {
    g_mutex_unlock (&r->lock);
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "reading ahead: all %u buffers hold frames still in use (frames "
        "%" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT ")", r->n_slots,
        r->n_released, r->n_taken - 1);
    return -1;
  }
  while (r->n_read <= r->n_taken && !r->ended)
    g_cond_wait (&r->cond, &r->lock);
  if (r->n_read > r->n_taken) {
    *buf = r->slots[r->n_taken % r->n_slots];
    r->n_taken++;
    got = 1;
  } else if (r->error) {
    g_propagate_error (error, r->error);
    r->error = NULL;
    got = -1;
  } else {
    got = 0;
  }
  g_mutex_unlock (&r->lock);
  return got;
}

void
vh_frame_reader_release (VhFrameReader *r, guint64 n)
{
  g_mutex_lock (&r->lock);
  n = MIN (n, r->n_taken);
  if (n > r->n_released) {
    r->n_released = n;
    g_cond_broadcast (&r->cond);
  }
  g_mutex_unlock (&r->lock);
}

guint64
vh_frame_reader_n_taken (const VhFrameReader *r)
{
  return r->n_taken;
}

void
vh_frame_reader_free (VhFrameReader *r)
{
  if (!r)
    return;
  if (r->thread) {
    g_mutex_lock (&r->lock);
    r->stop = TRUE;
    g_cond_broadcast (&r->cond);
    g_mutex_unlock (&r->lock);
    g_thread_join (r->thread);
  }
  for (unsigned i = 0; i < r->n_slots; i++)
    if (r->slots[i])
      r->memory.free (r->memory.ctx, r->slots[i]);
  g_free (r->slots);
  g_clear_error (&r->error);
  g_mutex_clear (&r->lock);
  g_cond_clear (&r->cond);
  g_free (r);
}
