/* vmafhip — one input's frames read ahead by threads of their own (see
 * vh-frame-reader.h).
 *
 * Frame i goes into slot i % n_slots, read by thread i % n_threads once
 * the caller has released frame i - n_slots (the slot is free); the slot
 * then says which frame it holds.  The caller takes frames in order.  The
 * end and an error are the lowest frame index they happened at: frames
 * before it are returned first.  One lock and one condition for every
 * direction: the waits are a frame long. */
#include "vh-frame-reader.h"

#include "vh-error.h"

struct VhFrameReader {
  VhFrameReadFunc read;
  void *source;
  size_t frame_size;
  unsigned n_slots, n_threads;
  VhFrameMemory memory;
  guint8 **slots;
  GThread **threads;

  GMutex lock;
  GCond cond;
  /* under the lock */
  guint64 *slot_frame;          /* the frame each slot holds, + 1 (0: none) */
  guint64 n_released;           /* frames the caller is done with */
  guint64 end_at;               /* the first frame past the end (or MAX) */
  guint64 error_at;             /* the first frame that failed (or MAX) */
  GError *error;                /* error_at's */
  gboolean stop;                /* the caller is leaving */
  unsigned next_thread;         /* each thread's number, as it starts */
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
  const unsigned t = r->next_thread++;
  for (guint64 i = t;; i += r->n_threads) {
    /* frame i into its slot, once the frame there is released */
    while (!r->stop && i >= r->n_released + r->n_slots)
      g_cond_wait (&r->cond, &r->lock);
    if (r->stop || i >= r->end_at || i >= r->error_at)
      break;
    const unsigned slot = (unsigned) (i % r->n_slots);
    GError *error = NULL;
    g_mutex_unlock (&r->lock);
    const int got = r->read (r->source, i, r->slots[slot], &error);
    g_mutex_lock (&r->lock);
    if (got == 1) {
      r->slot_frame[slot] = i + 1;
    } else if (got == 0) {
      r->end_at = MIN (r->end_at, i);
    } else if (i < r->error_at) {
      r->error_at = i;
      g_clear_error (&r->error);
      r->error = error;
      error = NULL;
    }
    g_clear_error (&error);
    g_cond_broadcast (&r->cond);
    if (got != 1)
      break;
  }
  g_mutex_unlock (&r->lock);
  return NULL;
}

VhFrameReader *
vh_frame_reader_new (VhFrameReadFunc read, void *source, size_t frame_size,
    unsigned n_slots, unsigned n_threads, const VhFrameMemory *memory,
    GError **error)
{
  VhFrameReader *r = g_new0 (VhFrameReader, 1);

  r->read = read;
  r->source = source;
  r->frame_size = frame_size;
  r->n_slots = MAX (n_slots, 2);
  r->n_threads = CLAMP (n_threads, 1, r->n_slots);
  r->memory = memory ? *memory
      : (VhFrameMemory) { default_alloc, default_free, NULL };
  r->slots = g_new0 (guint8 *, r->n_slots);
  r->slot_frame = g_new0 (guint64, r->n_slots);
  r->threads = g_new0 (GThread *, r->n_threads);
  r->end_at = r->error_at = G_MAXUINT64;
  g_mutex_init (&r->lock);
  g_cond_init (&r->cond);
  for (unsigned i = 0; i < r->n_slots; i++)
    if (!(r->slots[i] = r->memory.alloc (r->memory.ctx, frame_size, error)))
      goto failed;
  for (unsigned t = 0; t < r->n_threads; t++)
    if (!(r->threads[t] = g_thread_try_new ("vh-reader", reader_thread, r,
                error)))
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
  const unsigned slot = (unsigned) (r->n_taken % r->n_slots);
  while (r->slot_frame[slot] != r->n_taken + 1 && r->n_taken < r->end_at
      && r->n_taken < r->error_at)
    g_cond_wait (&r->cond, &r->lock);
  if (r->slot_frame[slot] == r->n_taken + 1) {
    *buf = r->slots[slot];
    r->n_taken++;
    got = 1;
  } else if (r->error_at <= r->end_at) {
    g_propagate_error (error, r->error);
    r->error = NULL;
    /* said once: the end from here */
    r->error_at = G_MAXUINT64;
    r->end_at = r->n_taken;
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
  g_mutex_lock (&r->lock);
  r->stop = TRUE;
  g_cond_broadcast (&r->cond);
  g_mutex_unlock (&r->lock);
  for (unsigned t = 0; t < r->n_threads; t++)
    if (r->threads[t])
      g_thread_join (r->threads[t]);
  for (unsigned i = 0; i < r->n_slots; i++)
    if (r->slots[i])
      r->memory.free (r->memory.ctx, r->slots[i]);
  g_free (r->slots);
  g_free (r->slot_frame);
  g_free (r->threads);
  g_clear_error (&r->error);
  g_mutex_clear (&r->lock);
  g_cond_clear (&r->cond);
  g_free (r);
}
