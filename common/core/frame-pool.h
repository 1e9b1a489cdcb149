/* vmafhip — frames in flight on a pool of worker threads (the engine's CPU
 * parallelism, issue 13).
 *
 * The caller submits frames in order; each is copied (so the caller may
 * reuse its pictures at once) and handed to a free worker, which runs
 * `work` on it with its own worker number (the engine keeps a state per
 * worker).  A frame's `work` may read the reference pictures of up to
 * `lookback` frames before it, which stay in the ring until no later
 * frame needs them.  `finish` runs in the caller's thread, in frame
 * order, as frames are done (drain), so everything it writes needs no
 * lock.  At most vh_frame_pool_capacity () frames are held; submit blocks
 * (draining) while the ring is full.
 */
#ifndef VH_FRAME_POOL_H
#define VH_FRAME_POOL_H

#include <glib.h>

#include "vh-picture.h"

G_BEGIN_DECLS

typedef struct VhFramePool VhFramePool;

/* earlier[k]: the reference of frame index - 1 - k (k < lookback), NULL
 * before the stream's first frame.  frame_data: the ring slot's own, from
 * new_frame_data. */
typedef gboolean (*VhFramePoolWork) (gpointer user, unsigned worker,
    const VhPicture *ref, const VhPicture *dis,
    const VhPicture *const *earlier, unsigned index, gpointer frame_data,
    GError **error);
typedef gboolean (*VhFramePoolFinish) (gpointer user, unsigned index,
    gpointer frame_data, GError **error);

typedef struct VhFramePoolOps {
  VhFramePoolWork work;
  VhFramePoolFinish finish;
  gpointer (*new_frame_data) (gpointer user);
  GDestroyNotify free_frame_data;
} VhFramePoolOps;

/* n_workers >= 1; copy_planes: 1 (luma) or every plane of the pictures */
VhFramePool *vh_frame_pool_new (unsigned n_workers, unsigned lookback,
    unsigned copy_planes, const VhFramePoolOps *ops, gpointer user,
    GError **error);
/* Waits for the workers, then frees everything (no finish is run). */
void vh_frame_pool_free (VhFramePool *pool);
/* Queues frame vh_frame_pool_n_submitted (); FALSE if a frame's work or
 * finish failed (that error, once). */
gboolean vh_frame_pool_submit (VhFramePool *pool, const VhPicture *ref,
    const VhPicture *dis, GError **error);
/* Runs finish for the frames done, in order; with wait, until every
 * submitted frame is finished. */
gboolean vh_frame_pool_drain (VhFramePool *pool, gboolean wait,
    GError **error);
/* Drops every frame (waits for those being worked on); indices restart
 * at 0. */
void vh_frame_pool_reset (VhFramePool *pool);
unsigned vh_frame_pool_n_submitted (const VhFramePool *pool);
unsigned vh_frame_pool_n_finished (const VhFramePool *pool);
/* Frames held at most (submitted and not yet finished, plus the earlier
 * references kept for lookback). */
unsigned vh_frame_pool_capacity (const VhFramePool *pool);
/* Frames submitted and not yet finished, at most, with n_workers: every
 * worker busy, one frame queued behind them and one being copied. */
unsigned vh_frame_pool_max_unfinished (unsigned n_workers);

G_END_DECLS
#endif /* VH_FRAME_POOL_H */
