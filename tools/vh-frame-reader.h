/* vmafhip — one input's frames read ahead, by threads of their own, into
 * a ring of frame buffers.
 *
 * vmafhip-score reads its reference and distorted files this way: both
 * files are read at once, several frames ahead of the scoring (a raw
 * file's frames by several threads at once, each at its own offset),
 * straight into the buffers the engine reads; where the GPU scores, the
 * buffers are pinned host memory (the caller's allocator), so the GPU
 * backend uploads them in place, without a staging copy, while the next
 * frames are read.  A buffer is read into again only once the caller
 * releases its frame (the frame's scores are final: the GPU may read a
 * held picture until then).
 *
 *   VhFrameReader *r = vh_frame_reader_new (read_frame, file, size, 16, 1,
 *       NULL, &error);
 *   while ((got = vh_frame_reader_next (r, &buf, &error)) == 1) {
 *     ... push buf; frames before n_final are final ...
 *     vh_frame_reader_release (r, n_final);
 *   }
 *   vh_frame_reader_free (r);
 */
#ifndef VH_FRAME_READER_H
#define VH_FRAME_READER_H

#include <glib.h>

G_BEGIN_DECLS

/* Reads the source's frame `index` into buf (frame_size bytes): 1 read, 0
 * past the end, -1 on error (error set).  Called from the reader's
 * threads: with one thread, in order (a source that cannot seek may
 * ignore `index`); with several, at once for different frames. */
typedef int (*VhFrameReadFunc) (void *source, guint64 index, guint8 *buf,
    GError **error);

/* Where the ring's buffers come from (NULL: g_malloc): alloc returns NULL
 * with error set on failure */
typedef struct {
  void *(*alloc) (void *ctx, size_t size, GError **error);
  void (*free) (void *ctx, void *ptr);
  void *ctx;
} VhFrameMemory;

typedef struct VhFrameReader VhFrameReader;

/* A reader of `source` with n_slots buffers of frame_size bytes (at least
 * 2) and n_threads threads (at least 1; frame i read by thread i %
 * n_threads), reading from frame 0 at once.  NULL (error set) where the
 * buffers or the threads cannot be had. */
VhFrameReader *vh_frame_reader_new (VhFrameReadFunc read, void *source,
    size_t frame_size, unsigned n_slots, unsigned n_threads,
    const VhFrameMemory *memory, GError **error);

/* The next frame, waited for: 1 and *buf (valid until its frame is
 * released), 0 at the end, -1 on a read error (error set; the frames
 * before it were returned).  Also -1 where every buffer holds a frame not
 * released: the caller holds more frames than the ring has (a program
 * error, said rather than waited on forever). */
int vh_frame_reader_next (VhFrameReader *r, guint8 **buf, GError **error);

/* The frames before frame n (0: the first returned) are no longer read:
 * their buffers may be read into again.  n never goes back. */
void vh_frame_reader_release (VhFrameReader *r, guint64 n);

/* Frames returned by next so far */
guint64 vh_frame_reader_n_taken (const VhFrameReader *r);

/* Stops the threads (reads under way finish) and frees the buffers.
 * NULL is ignored. */
void vh_frame_reader_free (VhFrameReader *r);

G_END_DECLS
#endif /* VH_FRAME_READER_H */
