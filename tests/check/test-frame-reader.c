/* vmafhip — the read-ahead of vmafhip-score's inputs (tools/frame-reader.c):
 * frames come in order whatever the ring's size and however late they are
 * released, the end and a read error come after the frames before them, a
 * caller that holds every buffer is told so instead of waiting forever,
 * freeing a reader whose thread waits for a buffer returns, and several
 * threads reading at once still give every frame in order. */
#include <check.h>
#include <string.h>

#include "vh-error.h"
#include "vh-frame-reader.h"

#define FRAME 64

/* A source of n frames, frame i filled with i; `fail_at`: frame that
 * fails instead (-1: none); `delay_us`: a slow disk */
typedef struct {
  guint n, next;
  gint fail_at;
  gulong delay_us;
  gint reads;                   /* (atomic) read calls */
} Source;

static int
read_frame (void *data, guint64 index, guint8 *buf, GError **error)
{
  Source *src = data;
  (void) index;
  g_atomic_int_inc (&src->reads);
  if (src->delay_us)
    g_usleep (src->delay_us);
  if ((gint) src->next == src->fail_at) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "frame %u: bad", src->next);
    return -1;
  }
  if (src->next == src->n)
    return 0;
  memset (buf, (int) (src->next & 0xff), FRAME);
  src->next++;
  return 1;
}

/* Every frame in order, each with its content, then the end; `lag`: how
 * many frames the caller keeps before releasing (the GPU's frames in
 * flight) */
static void
read_all (guint n, guint n_slots, guint lag, gulong delay_us)
{
  Source src = { n, 0, -1, delay_us, 0 };
  GError *error = NULL;
  VhFrameReader *r = vh_frame_reader_new (read_frame, &src, FRAME, n_slots,
      1, NULL, &error);
  guint8 *buf;

  ck_assert_msg (r != NULL, "%s", error ? error->message : "");
  for (guint i = 0; i < n; i++) {
    ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), 1);
    for (guint b = 0; b < FRAME; b++)
      ck_assert_uint_eq (buf[b], i & 0xff);
    if (i + 1 > lag)
      vh_frame_reader_release (r, i + 1 - lag);
  }
  ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), 0);
  ck_assert (error == NULL);
  ck_assert_uint_eq (vh_frame_reader_n_taken (r), n);
  vh_frame_reader_free (r);
}

START_TEST (test_in_order)
{
  read_all (100, 2, 0, 0);
  read_all (100, 4, 3, 0);
  read_all (300, 16, 12, 0);
  /* a slow source: the caller waits for each frame */
  read_all (20, 4, 2, 2000);
}
END_TEST

/* The reader goes ahead of the caller, but never over a frame not
 * released */
START_TEST (test_reads_ahead_within_the_ring)
{
  Source src = { 50, 0, -1, 0, 0 };
  VhFrameReader *r = vh_frame_reader_new (read_frame, &src, FRAME, 5, 1, NULL,
      NULL);
  guint8 *buf;

  ck_assert_int_eq (vh_frame_reader_next (r, &buf, NULL), 1);
  /* frame 0 held: frames 1..4 are read, not 5 */
  for (int t = 0; t < 2000 && g_atomic_int_get (&src.reads) < 5; t++)
    g_usleep (1000);
  g_usleep (20000);
  ck_assert_int_eq (g_atomic_int_get (&src.reads), 5);
  vh_frame_reader_release (r, 1);
  for (int t = 0; t < 2000 && g_atomic_int_get (&src.reads) < 6; t++)
    g_usleep (1000);
  ck_assert_int_eq (g_atomic_int_get (&src.reads), 6);
  vh_frame_reader_free (r);
}
END_TEST

/* A read error comes after the frames before it, with its message */
START_TEST (test_error_after_frames)
{
  Source src = { 50, 0, 7, 0, 0 };
  GError *error = NULL;
  VhFrameReader *r = vh_frame_reader_new (read_frame, &src, FRAME, 4, 1, NULL,
      NULL);
  guint8 *buf;

  for (guint i = 0; i < 7; i++) {
    ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), 1);
    ck_assert_uint_eq (buf[0], i);
    vh_frame_reader_release (r, i + 1);
  }
  ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), -1);
  ck_assert (error != NULL);
  ck_assert_str_eq (error->message, "frame 7: bad");
  g_clear_error (&error);
  vh_frame_reader_free (r);
}
END_TEST

/* A caller holding every buffer asks for one more: an error naming the
 * frames held, not a wait without end */
START_TEST (test_holding_every_buffer_is_an_error)
{
  Source src = { 50, 0, -1, 0, 0 };
  GError *error = NULL;
  VhFrameReader *r = vh_frame_reader_new (read_frame, &src, FRAME, 3, 1, NULL,
      NULL);
  guint8 *buf;

  for (guint i = 0; i < 3; i++)
    ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), 1);
  ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), -1);
  ck_assert (error != NULL);
  ck_assert_msg (strstr (error->message, "all 3 buffers") != NULL, "%s",
      error->message);
  g_clear_error (&error);
  /* released, it goes on */
  vh_frame_reader_release (r, 2);
  ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), 1);
  ck_assert_uint_eq (buf[0], 3);
  vh_frame_reader_free (r);
}
END_TEST

/* Freed while its thread waits for a buffer, or in a slow read: returns */
START_TEST (test_free_while_waiting)
{
  Source src = { 1000, 0, -1, 0, 0 };
  VhFrameReader *r = vh_frame_reader_new (read_frame, &src, FRAME, 2, 1, NULL,
      NULL);
  for (int t = 0; t < 2000 && g_atomic_int_get (&src.reads) < 2; t++)
    g_usleep (1000);
  vh_frame_reader_free (r);
  Source slow = { 1000, 0, -1, 50000, 0 };
  r = vh_frame_reader_new (read_frame, &slow, FRAME, 4, 1, NULL, NULL);
  g_usleep (10000);
  vh_frame_reader_free (r);
}
END_TEST

/* The buffers come from the caller's allocator (pinned memory) and go back
 * to it; a failing allocator fails the reader with its error */
typedef struct {
  gint allocs, frees, fail_after;
} Counting;

static void *
counting_alloc (void *ctx, size_t size, GError **error)
{
  Counting *c = ctx;
  if (c->fail_after >= 0 && c->allocs >= c->fail_after) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "no pinned memory");
    return NULL;
  }
  c->allocs++;
  return g_malloc (size);
}

static void
counting_free (void *ctx, void *ptr)
{
  ((Counting *) ctx)->frees++;
  g_free (ptr);
}

START_TEST (test_allocator)
{
  Counting c = { 0, 0, -1 };
  const VhFrameMemory mem = { counting_alloc, counting_free, &c };
  Source src = { 10, 0, -1, 0, 0 };
  GError *error = NULL;
  VhFrameReader *r = vh_frame_reader_new (read_frame, &src, FRAME, 6, 1, &mem,
      &error);
  guint8 *buf;

  ck_assert (r != NULL);
  ck_assert_int_eq (c.allocs, 6);
  while (vh_frame_reader_next (r, &buf, NULL) == 1)
    vh_frame_reader_release (r, vh_frame_reader_n_taken (r));
  vh_frame_reader_free (r);
  ck_assert_int_eq (c.frees, 6);

  Counting bad = { 0, 0, 3 };
  const VhFrameMemory bad_mem = { counting_alloc, counting_free, &bad };
  ck_assert (vh_frame_reader_new (read_frame, &src, FRAME, 6, 1, &bad_mem,
          &error) == NULL);
  ck_assert (error != NULL);
  ck_assert_str_eq (error->message, "reading ahead: no pinned memory");
  ck_assert_int_eq (bad.frees, 3);
  g_clear_error (&error);
}
END_TEST

/* A source read at any frame (a raw file's offsets), by several threads:
 * each read takes a while that varies with the frame, so they finish out
 * of order */
typedef struct {
  guint n;
  gint fail_at;
} Indexed;

static int
read_at (void *data, guint64 index, guint8 *buf, GError **error)
{
  const Indexed *src = data;
  g_usleep ((index * 7919) % 5 * 300);
  if ((gint64) index == src->fail_at) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "frame %u: bad",
        (guint) index);
    return -1;
  }
  if (index >= src->n)
    return 0;
  memset (buf, (int) (index & 0xff), FRAME);
  return 1;
}

/* Frames come back in order, each its own, up to the end or the first
 * error (later frames read before it are not returned), whatever the
 * threads' order */
static void
read_parallel (guint n, gint fail_at, guint n_slots, guint n_threads,
    guint lag)
{
  Indexed src = { n, fail_at };
  GError *error = NULL;
  VhFrameReader *r = vh_frame_reader_new (read_at, &src, FRAME, n_slots,
      n_threads, NULL, &error);
  const guint want = fail_at >= 0 ? (guint) fail_at : n;
  guint8 *buf;

  ck_assert (r != NULL);
  for (guint i = 0; i < want; i++) {
    ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), 1);
    for (guint b = 0; b < FRAME; b++)
      ck_assert_uint_eq (buf[b], i & 0xff);
    if (i + 1 > lag)
      vh_frame_reader_release (r, i + 1 - lag);
  }
  if (fail_at >= 0) {
    ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), -1);
    ck_assert (error != NULL);
    gchar *want_msg = g_strdup_printf ("frame %d: bad", fail_at);
    ck_assert_str_eq (error->message, want_msg);
    g_free (want_msg);
    g_clear_error (&error);
  }
  /* (after an error too: the end, said once) */
  ck_assert_int_eq (vh_frame_reader_next (r, &buf, &error), 0);
  ck_assert (error == NULL);
  vh_frame_reader_free (r);
}

START_TEST (test_parallel)
{
  read_parallel (200, -1, 8, 3, 5);
  read_parallel (37, -1, 6, 4, 0);
  read_parallel (100, 50, 8, 4, 2);
  read_parallel (100, 0, 4, 2, 0);
  read_parallel (1, -1, 2, 2, 0);
  read_parallel (0, -1, 3, 3, 0);
}
END_TEST

static Suite *
frame_reader_suite (void)
{
  Suite *s = suite_create ("frame-reader");
  TCase *tc = tcase_create ("reader");
  tcase_add_test (tc, test_in_order);
  tcase_add_test (tc, test_reads_ahead_within_the_ring);
  tcase_add_test (tc, test_error_after_frames);
  tcase_add_test (tc, test_holding_every_buffer_is_an_error);
  tcase_add_test (tc, test_free_while_waiting);
  tcase_add_test (tc, test_allocator);
  tcase_add_test (tc, test_parallel);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (frame_reader_suite ());
  srunner_run_all (sr, CK_NORMAL);
  const int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
