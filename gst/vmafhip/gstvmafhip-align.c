/* vmafhip — align=auto: finding how many frames a delayed distorted feed
 * lags behind the reference (issue 14).
 *
 * While searching, every frame of both pads is taken off its pad as it
 * comes (earlier running time first) and kept as a thumbnail: 32x18
 * blocks of its luma, each the mean of 2x2 samples at its centre.
 * Reference frames go downstream unscored, distorted ones are dropped.  Once both pads have covered the search
 * window, each offset of -window..+window frames is tried: the mean
 * absolute difference of the thumbnails it pairs.  A clear minimum (at
 * most LOCK_RATIO of the median offset's) locks that offset: pairing then
 * goes on as with align=offset, and a "vmafhip-sync" message says so.
 * Frames before the lock are not scored.  Once locked, every
 * WATCH_EVERY-th pair at the locked lag is sampled (from host memory):
 * a sudden rise of the pairs' difference (DROP_FRAMES samples in a row far
 * above its running mean: a delay that changed, or a feed that no longer
 * matches) starts a re-check, every frame sampled again for a search
 * window: a clearly better lag than the locked one is locked instead
 * ("changed"), and where no lag matches any more the element says "lost"
 * and searches again, scoring nothing until the next lock.  Every
 * PERIODIC_WINDOWS search windows a re-check runs without a rise (it may
 * change the lag, not lose it: still content matches every lag alike). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gstvmafhip-private.h"
#include "gstvmafhippool.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* thumbnails of at most GRID_W x GRID_H block means, whatever the size:
 * the search's cost does not grow with the picture */
#define GRID_W 32
#define GRID_H 18
/* the search is tried every TRY_EVERY frames taken, or every eighth of
 * the window where that is more (each try compares every lag) */
#define TRY_EVERY 4
/* the best offset's difference against the median offset's */
#define LOCK_RATIO 0.6
/* a sudden rise: DROP_FRAMES locked pairs in a row differing more than
 * DROP_FACTOR times their running mean plus DROP_MARGIN (8-bit units) */
#define DROP_FRAMES 3
#define DROP_FACTOR 3.0
#define DROP_MARGIN 2.0
/* once locked, the pairs sampled: one in WATCH_EVERY (a thumbnail reads
 * about a thousand cache lines of a 1080p frame) */
#define WATCH_EVERY 8
/* and every PERIODIC_WINDOWS search windows a re-check all the same (one
 * window of every frame sampled), for changes no rise announced */
#define PERIODIC_WINDOWS 10

typedef struct
{
  GstClockTime rt;
  float *pix;
  guint size;                   /* floats in pix */
} Thumb;

static void
thumb_free (gpointer p)
{
  Thumb *t = p;
  g_free (t->pix);
  g_free (t);
}

/* A thumbnail, reused from those that left the window when there is one
 * (no allocation per frame once the window is full). */
static Thumb *
thumb_take (GstVmafHip * self)
{
  if (self->align_spare && self->align_spare->len)
    return g_ptr_array_steal_index_fast (self->align_spare,
        self->align_spare->len - 1);
  return g_new0 (Thumb, 1);
}

static void
thumb_give_back (GstVmafHip * self, Thumb * t)
{
  if (!self->align_spare)
    self->align_spare = g_ptr_array_new_with_free_func (thumb_free);
  g_ptr_array_add (self->align_spare, t);
}

/* the frames the search window spans, at the reference's rate */
static gint
window_frames (GstVmafHip * self)
{
  return (gint) MAX (1, self->cfg.search_window / self->frame_duration);
}

/* A new thumbnail of a side; the oldest leave for the spares beyond a
 * window's worth more than the search needs, whether or not the search
 * could run (one side may have no frames), so memory stays bounded. */
static void
thumb_add (GstVmafHip * self, GPtrArray * a, Thumb * t)
{
  g_ptr_array_add (a, t);
  while (a->len > (guint) (4 * window_frames (self) + 2))
    thumb_give_back (self, g_ptr_array_steal_index (a, 0));
}

gboolean
gst_vmafhip_align_searching (GstVmafHip * self)
{
  return self->cfg.align == GST_VMAFHIP_ALIGN_AUTO && !self->align_locked;
}

void
gst_vmafhip_align_reset (GstVmafHip * self)
{
  for (int i = 0; i < 2; i++)
    if (self->align_thumbs[i])
      g_ptr_array_set_size (self->align_thumbs[i], 0);
  self->align_locked = FALSE;
  self->align_shift = 0;
  self->align_taken = 0;
  self->align_reported_no_lock = FALSE;
  self->align_pair_diff = -1;
  self->align_drop_run = 0;
  self->align_forced = FALSE;
  self->align_after_drop = FALSE;
  self->align_periodic_at = GST_CLOCK_TIME_NONE;
}

static void restart_thumbs (GstVmafHip * self);
static void post_sync (GstVmafHip * self, const char *state, gint frames,
    double diff);

void
gst_vmafhip_align_restart (GstVmafHip * self)
{
  if (!self->align_thumbs[REF])
    return;
  if (self->align_locked) {
    const gint locked = GST_CLOCK_TIME_IS_VALID (self->frame_duration)
        && self->frame_duration ? (gint) (self->align_shift
        / (GstClockTimeDiff) self->frame_duration) : 0;
    post_sync (self, "lost", locked, -1.0);
  }
  self->align_locked = FALSE;
  self->align_shift = 0;
  self->align_taken = 0;
  self->align_reported_no_lock = FALSE;
  self->align_forced = self->align_after_drop = FALSE;
  self->align_periodic_at = GST_CLOCK_TIME_NONE;
  restart_thumbs (self);
}

void
gst_vmafhip_align_clear (GstVmafHip * self)
{
  for (int i = 0; i < 2; i++)
    g_clear_pointer (&self->align_thumbs[i], g_ptr_array_unref);
  g_clear_pointer (&self->align_spare, g_ptr_array_unref);
  g_clear_pointer (&self->align_diff, g_free);
  self->align_n_lags = 0;
}

/* block means of the luma, in 8-bit units */
static gboolean
make_thumb (GstVmafHip * self, int which, GstBuffer * buf, Thumb * t)
{
  GstVideoFrame f;
  const GstVideoInfo *info = &self->side[which].info;

  if (!gst_video_frame_map (&f, info, buf, GST_MAP_READ))
    return FALSE;
  const guint w = GST_VIDEO_FRAME_COMP_WIDTH (&f, 0);
  const guint h = GST_VIDEO_FRAME_COMP_HEIGHT (&f, 0);
  const guint tw = MIN (w, GRID_W), th = MIN (h, GRID_H);
  const guint bw = w / tw, bh = h / th;
  const guint depth = GST_VIDEO_FRAME_COMP_DEPTH (&f, 0);
  const guint shift = GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, 0);
  const guint8 *data = GST_VIDEO_FRAME_COMP_DATA (&f, 0);
  const gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&f, 0);
  const gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&f, 0);

  if (t->size != tw * th) {
    g_free (t->pix);
    t->pix = g_new0 (float, tw * th);
    t->size = tw * th;
  }
  for (guint by = 0; by < th; by++)
    for (guint bx = 0; bx < tw; bx++) {
      double sum = 0;
      guint n = 0;
      /* 2x2 samples at the block's centre: a few thousand reads a frame,
       * whatever the size */
      const guint cy = by * bh + bh / 2, cx = bx * bw + bw / 2;
      for (guint y = cy; y < MIN (cy + 2, h); y++) {
        const guint8 *row = data + (gsize) y * stride;
        for (guint x = cx; x < MIN (cx + 2, w); x++) {
          const guint8 *p = row + (gsize) x * pstride;
          const guint v = depth > 8 ? (guint) (*(const guint16 *) p >> shift)
              >> (depth - 8) : *p;
          sum += v;
          n++;
        }
      }
      t->pix[by * tw + bx] = (float) (n ? sum / n : 0);
    }
  gst_video_frame_unmap (&f);
  return TRUE;
}

static void
post_sync (GstVmafHip * self, const char *state, gint frames, double diff)
{
  GstStructure *s = gst_structure_new ("vmafhip-sync",
      "state", G_TYPE_STRING, state,
      "offset-frames", G_TYPE_INT, frames,
      "offset", G_TYPE_INT64, (gint64) frames * (gint64) self->frame_duration,
      "difference", G_TYPE_DOUBLE, diff, NULL);
  GST_INFO_OBJECT (self, "%" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* Every lag's mean absolute difference over the kept thumbnails: the best
 * lag, its difference, the median lag's, and the difference at `probe`
 * frames (INFINITY where too few frames pair).  FALSE while either side
 * has not covered the window, or too few lags could be compared. */
static gboolean
compare_lags (GstVmafHip * self, gint probe, gint * best_lag,
    double *best_diff, double *median_diff, double *probe_diff)
{
  GPtrArray *ref = self->align_thumbs[REF], *dist = self->align_thumbs[DIST];
  const GstClockTime fd = self->frame_duration;
  const gint wf = window_frames (self);

  if (ref->len == 0 || dist->len == 0)
    return FALSE;
  const Thumb *r0 = g_ptr_array_index (ref, 0), *d0 = g_ptr_array_index (dist,
      0);
  /* both pads' caps give one thumbnail size (a size change restarts) */
  const guint size = MIN (r0->size, d0->size);
  const Thumb *rl = g_ptr_array_index (ref, ref->len - 1);
  const Thumb *dl = g_ptr_array_index (dist, dist->len - 1);
  /* both pads must have covered the window (the lagging one's frames at
   * the far offsets included) */
  if (rl->rt < r0->rt + self->cfg.search_window
      || dl->rt < d0->rt + self->cfg.search_window)
    return FALSE;

  const gint n_off = 2 * wf + 1;
  if (self->align_n_lags < (guint) n_off) {
    g_free (self->align_diff);
    self->align_diff = g_new (double, 2 * (gsize) n_off);
    self->align_n_lags = (guint) n_off;
  }
  double *diff = self->align_diff, *sorted = diff + n_off;
  gint best = 0;
  guint counted = 0;
  for (gint k = 0; k < n_off; k++) {
    const gint off = k - wf;
    double sum = 0;
    guint n = 0, j = 0;
    /* both in time order: the distorted frame within half a frame of
     * each reference frame's time plus the offset, walking along */
    for (guint i = 0; i < ref->len; i++) {
      const Thumb *r = g_ptr_array_index (ref, i);
      const gint64 want = (gint64) r->rt + (gint64) off * (gint64) fd;
      while (j < dist->len && ((gint64) ((const Thumb *)
                  g_ptr_array_index (dist, j))->rt - want) * 2
          <= -(gint64) fd)
        j++;
      if (j == dist->len)
        break;
      const Thumb *d = g_ptr_array_index (dist, j);
      if (llabs ((gint64) d->rt - want) * 2 < (gint64) fd) {
        for (guint p = 0; p < size; p++)
          sum += fabsf (r->pix[p] - d->pix[p]);
        n++;
      }
    }
    /* an offset pairing too few frames is no evidence */
    diff[k] = n >= (guint) MAX (wf / 2, 3) ? sum / ((double) n * size)
        : INFINITY;
    if (isfinite (diff[k]))
      sorted[counted++] = diff[k];
    if (diff[k] < diff[best])
      best = k;
  }
  gboolean ok = counted >= 3;
  if (ok) {
    qsort (sorted, counted, sizeof *sorted, vh_compare_doubles);
    *median_diff = sorted[counted / 2];
    *best_lag = best - wf;
    *best_diff = diff[best];
    *probe_diff = probe >= -wf && probe <= wf ? diff[probe + wf] : INFINITY;
  }
  return ok;
}

/* Locks a clear best lag. */
static void
try_lock (GstVmafHip * self)
{
  gint best;
  double best_diff, median, unused;

  if (!compare_lags (self, 0, &best, &best_diff, &median, &unused))
    return;
  if (best_diff <= LOCK_RATIO * median) {
    self->align_locked = TRUE;
    self->align_shift = (GstClockTimeDiff) best
        * (GstClockTimeDiff) self->frame_duration;
    self->align_pair_diff = -1;
    self->align_drop_run = 0;
    self->align_forced = FALSE;
    self->align_periodic_at = GST_CLOCK_TIME_NONE;
    post_sync (self, "locked", best, best_diff);
    GST_INFO_OBJECT (self, "align=auto locked at %d frames (difference "
        "%.3f, median %.3f)", best, best_diff, median);
    for (int i = 0; i < 2; i++)
      g_ptr_array_set_size (self->align_thumbs[i], 0);
    return;
  }
  /* a window went by without a clear match: say so, once */
  if (!self->align_reported_no_lock) {
    self->align_reported_no_lock = TRUE;
    post_sync (self, "searching", best, best_diff);
  }
}

/* Forgets the thumbnails and the locked pairs' statistics: what follows
 * is compared on its own */
static void
restart_thumbs (GstVmafHip * self)
{
  for (int i = 0; i < 2; i++)
    g_ptr_array_set_size (self->align_thumbs[i], 0);
  self->align_pair_diff = -1;
  self->align_drop_run = 0;
}

/* A re-check, as soon as the frames since it started cover a search
 * window: a clearly better lag than the locked one (the delay changed) is
 * locked instead; after a sudden rise, a locked lag no better than the
 * rest is lost. */
static void
recheck (GstVmafHip * self)
{
  const gint locked = (gint) (self->align_shift
      / (GstClockTimeDiff) self->frame_duration);
  gint best;
  double best_diff, median, at_locked;

  if (!self->align_forced
      || !compare_lags (self, locked, &best, &best_diff, &median, &at_locked))
    return;
  const gboolean after_drop = self->align_after_drop;
  self->align_forced = self->align_after_drop = FALSE;
  self->align_periodic_at = GST_CLOCK_TIME_NONE;
  if (best != locked && best_diff <= LOCK_RATIO * median
      && !(at_locked <= 2 * best_diff)) {
    GST_INFO_OBJECT (self, "align=auto: the lag changed from %d to %d "
        "frames (difference %.3f there, %.3f at %d)", locked, best,
        best_diff, at_locked, locked);
    self->align_shift = (GstClockTimeDiff) best
        * (GstClockTimeDiff) self->frame_duration;
    post_sync (self, "changed", best, best_diff);
    restart_thumbs (self);
  } else if (after_drop && !(at_locked <= LOCK_RATIO * median)) {
    GST_INFO_OBJECT (self, "align=auto: lost (difference %.3f at %d frames, "
        "median %.3f)", at_locked, locked, median);
    post_sync (self, "lost", locked, at_locked);
    self->align_locked = FALSE;
    self->align_shift = 0;
    self->align_taken = 0;
    self->align_reported_no_lock = FALSE;
    restart_thumbs (self);
  }
}

/* The locked pair a new distorted thumbnail makes (the reference's
 * thumbnail at its time less the lag): a sudden rise of their difference
 * asks for a re-check on the frames from now on. */
static void
watch_locked_pair (GstVmafHip * self, const Thumb * d)
{
  GPtrArray *ref = self->align_thumbs[REF];
  const gint64 fd = (gint64) self->frame_duration;
  const gint64 want = (gint64) d->rt - self->align_shift;
  const Thumb *r = NULL;
  for (guint i = ref->len; i-- > 0;) {
    const Thumb *t = g_ptr_array_index (ref, i);
    const gint64 delta = (gint64) t->rt - want;
    if (llabs (delta) * 2 < fd) {
      r = t;
      break;
    }
    if (delta * 2 <= -fd)
      break;
  }
  if (!r || self->align_forced)
    return;
  const guint size = MIN (r->size, d->size);
  double sum = 0;
  for (guint p = 0; p < size; p++)
    sum += fabsf (r->pix[p] - d->pix[p]);
  const double diff = size ? sum / size : 0;
  if (self->align_pair_diff < 0) {
    self->align_pair_diff = diff;
    return;
  }
  if (diff <= DROP_FACTOR * self->align_pair_diff + DROP_MARGIN) {
    self->align_drop_run = 0;
    self->align_pair_diff = 0.9 * self->align_pair_diff + 0.1 * diff;
    return;
  }
  if (++self->align_drop_run < DROP_FRAMES)
    return;
  GST_INFO_OBJECT (self, "align=auto: the locked pairs' difference rose "
      "from %.3f to %.3f: re-checking", self->align_pair_diff, diff);
  restart_thumbs (self);
  self->align_forced = self->align_after_drop = TRUE;
}

void
gst_vmafhip_align_observe (GstVmafHip * self, int which, GstBuffer * buf)
{
  /* a gap has no picture */
  if (self->cfg.align != GST_VMAFHIP_ALIGN_AUTO || !self->align_locked
      || !GST_CLOCK_TIME_IS_VALID (self->frame_duration)
      || !self->align_thumbs[which]
      || GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return;
  const GstClockTime rt =
      gst_vmafhip_buffer_running_time (self->side[which].pad, buf);
  /* thumbnails from host memory only (system or the pinned pool's): a
   * frame in GPU memory would be copied whole for a few thousand samples */
  GstMemory *mem = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf,
      0) : NULL;
  if (!GST_CLOCK_TIME_IS_VALID (rt) || !mem
      || !(gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM)
          || gst_memory_is_type (mem, GST_VMAFHIP_PINNED_MEMORY_TYPE)))
    return;
  /* the periodic re-check's turn */
  if (!self->align_forced && which == REF) {
    if (!GST_CLOCK_TIME_IS_VALID (self->align_periodic_at))
      self->align_periodic_at = rt + PERIODIC_WINDOWS
          * self->cfg.search_window;
    else if (rt >= self->align_periodic_at) {
      GST_DEBUG_OBJECT (self, "align=auto: periodic re-check");
      restart_thumbs (self);
      self->align_forced = TRUE;
    }
  }
  /* between re-checks, the pairs of every WATCH_EVERY-th reference frame
   * (the distorted one by its partner's time) */
  if (!self->align_forced) {
    const gint64 fd = (gint64) self->frame_duration;
    const gint64 at = (gint64) rt - (which == DIST ? self->align_shift : 0);
    if (at < 0 || ((at + fd / 2) / fd) % WATCH_EVERY != 0)
      return;
  }
  Thumb *t = thumb_take (self);
  t->rt = rt;
  if (!make_thumb (self, which, buf, t)) {
    thumb_give_back (self, t);
    return;
  }
  thumb_add (self, self->align_thumbs[which], t);
  if (which == REF)
    recheck (self);
  else
    watch_locked_pair (self, t);
}

GstFlowReturn
gst_vmafhip_align_take (GstVmafHip * self, int which, GstBuffer * buf,
    GstClockTime rt)
{
  if (!GST_CLOCK_TIME_IS_VALID (self->frame_duration)) {
    GST_ELEMENT_ERROR (self, STREAM, FORMAT,
        ("align=auto needs the reference's frame rate in its caps"), (NULL));
    gst_buffer_unref (buf);
    return GST_FLOW_ERROR;
  }
  for (int i = 0; i < 2; i++)
    if (!self->align_thumbs[i])
      self->align_thumbs[i] = g_ptr_array_new_with_free_func (thumb_free);
  Thumb *t = thumb_take (self);
  t->rt = rt;
  if (GST_CLOCK_TIME_IS_VALID (rt) && make_thumb (self, which, buf, t))
    thumb_add (self, self->align_thumbs[which], t);
  else
    thumb_give_back (self, t);
  GstFlowReturn ret = GST_FLOW_OK;
  if (which == REF) {
    /* pushed on without scores (its motion kept), not counted as
     * unpaired */
    ret = gst_vmafhip_pass_reference (self, buf);
  } else {
    gst_buffer_unref (buf);
  }
  if (++self->align_taken % (guint) MAX (TRY_EVERY, window_frames (self) / 8)
      == 0)
    try_lock (self);
  return ret;
}
