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
 * change the lag, not lose it: still content matches every lag alike).
 *
 * Each distorted pad has its own search (a GstVmafHipAligner: dist_sink's
 * and each rendition's), against the same reference frames; its
 * messages name the pad.  The caller takes the frames off their pads and
 * decides what becomes of them: the aligner only keeps thumbnails. */
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
thumb_take (GstVmafHipAligner * a)
{
  if (a->spare && a->spare->len)
    return g_ptr_array_steal_index_fast (a->spare,
        a->spare->len - 1);
  return g_new0 (Thumb, 1);
}

static void
thumb_give_back (GstVmafHipAligner * a, Thumb * t)
{
  if (!a->spare)
    a->spare = g_ptr_array_new_with_free_func (thumb_free);
  g_ptr_array_add (a->spare, t);
}

/* the frames the search window spans, at the reference's rate */
static gint
window_frames (GstVmafHipAligner * a)
{
  return (gint) MAX (1, a->self->cfg.search_window / a->self->frame_duration);
}

/* A new thumbnail of a side; the oldest leave for the spares beyond a
 * window's worth more than the search needs, whether or not the search
 * could run (one side may have no frames), so memory stays bounded. */
static void
thumb_add (GstVmafHipAligner * a, GPtrArray * side, Thumb * t)
{
  g_ptr_array_add (side, t);
  while (side->len > (guint) (4 * window_frames (a) + 2))
    thumb_give_back (a, g_ptr_array_steal_index (side, 0));
}

void
gst_vmafhip_aligner_init (GstVmafHipAligner * a, GstVmafHip * self,
    Side * dist_side)
{
  memset (a, 0, sizeof *a);
  a->self = self;
  a->dist_side = dist_side;
  gst_vmafhip_aligner_reset (a);
}

gboolean
gst_vmafhip_aligner_searching (const GstVmafHipAligner * a)
{
  return a->self->cfg.align == GST_VMAFHIP_ALIGN_AUTO && !a->locked;
}

GstClockTimeDiff
gst_vmafhip_aligner_shift (const GstVmafHipAligner * a)
{
  return a->locked ? a->shift : 0;
}

void
gst_vmafhip_aligner_reset (GstVmafHipAligner * a)
{
  for (int i = 0; i < 2; i++)
    if (a->thumbs[i])
      g_ptr_array_set_size (a->thumbs[i], 0);
  a->locked = FALSE;
  a->shift = 0;
  a->taken = 0;
  a->reported_no_lock = FALSE;
  a->pair_diff = -1;
  a->drop_run = 0;
  a->forced = FALSE;
  a->after_drop = FALSE;
  a->periodic_at = GST_CLOCK_TIME_NONE;
}

static void restart_thumbs (GstVmafHipAligner * a);
static void post_sync (GstVmafHipAligner * a, const char *state, gint frames,
    double diff);

void
gst_vmafhip_aligner_restart (GstVmafHipAligner * a)
{
  if (!a->thumbs[REF])
    return;
  if (a->locked) {
    const gint locked = GST_CLOCK_TIME_IS_VALID (a->self->frame_duration)
        && a->self->frame_duration ? (gint) (a->shift
        / (GstClockTimeDiff) a->self->frame_duration) : 0;
    post_sync (a, "lost", locked, -1.0);
  }
  a->locked = FALSE;
  a->shift = 0;
  a->taken = 0;
  a->reported_no_lock = FALSE;
  a->forced = a->after_drop = FALSE;
  a->periodic_at = GST_CLOCK_TIME_NONE;
  restart_thumbs (a);
}

void
gst_vmafhip_aligner_clear (GstVmafHipAligner * a)
{
  for (int i = 0; i < 2; i++)
    g_clear_pointer (&a->thumbs[i], g_ptr_array_unref);
  g_clear_pointer (&a->spare, g_ptr_array_unref);
  g_clear_pointer (&a->diff, g_free);
  a->n_lags = 0;
}

/* block means of the luma, in 8-bit units */
static gboolean
make_thumb (GstVmafHipAligner * a, int which, GstBuffer * buf, Thumb * t)
{
  GstVideoFrame f;
  const GstVideoInfo *info = which == REF ? &a->self->side[REF].info
      : &a->dist_side->info;

  if (!gst_video_frame_map (&f, info, buf, GST_MAP_READ))
    return FALSE;
  const guint w = GST_VIDEO_FRAME_COMP_WIDTH (&f, 0);
  const guint h = GST_VIDEO_FRAME_COMP_HEIGHT (&f, 0);
  const guint tw = MIN (w, GRID_W), th = MIN (h, GRID_H);
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
      /* (at the same place of the picture whatever its size: a rendition
       * is compared with the reference) */
      const guint cy = (2 * by + 1) * h / (2 * th);
      const guint cx = (2 * bx + 1) * w / (2 * tw);
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
post_sync (GstVmafHipAligner * a, const char *state, gint frames, double diff)
{
  GstStructure *s = gst_structure_new ("vmafhip-sync",
      "pad", G_TYPE_STRING, GST_PAD_NAME (a->dist_side->pad),
      "state", G_TYPE_STRING, state,
      "offset-frames", G_TYPE_INT, frames,
      "offset", G_TYPE_INT64, (gint64) frames * (gint64) a->self->frame_duration,
      "difference", G_TYPE_DOUBLE, diff, NULL);
  GST_INFO_OBJECT (a->self, "%" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (a->self),
      gst_message_new_element (GST_OBJECT (a->self), s));
}

/* Every lag's mean absolute difference over the kept thumbnails: the best
 * lag, its difference, the median lag's, and the difference at `probe`
 * frames (INFINITY where too few frames pair).  FALSE while either side
 * has not covered the window, or too few lags could be compared. */
static gboolean
compare_lags (GstVmafHipAligner * a, gint probe, gint * best_lag,
    double *best_diff, double *median_diff, double *probe_diff)
{
  GPtrArray *ref = a->thumbs[REF], *dist = a->thumbs[DIST];
  const GstClockTime fd = a->self->frame_duration;
  const gint wf = window_frames (a);

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
  if (rl->rt < r0->rt + a->self->cfg.search_window
      || dl->rt < d0->rt + a->self->cfg.search_window)
    return FALSE;

  const gint n_off = 2 * wf + 1;
  if (a->n_lags < (guint) n_off) {
    g_free (a->diff);
    a->diff = g_new (double, 2 * (gsize) n_off);
    a->n_lags = (guint) n_off;
  }
  double *diff = a->diff, *sorted = diff + n_off;
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
try_lock (GstVmafHipAligner * a)
{
  gint best;
  double best_diff, median, unused;

  if (!compare_lags (a, 0, &best, &best_diff, &median, &unused))
    return;
  if (best_diff <= LOCK_RATIO * median) {
    a->locked = TRUE;
    a->shift = (GstClockTimeDiff) best
        * (GstClockTimeDiff) a->self->frame_duration;
    a->pair_diff = -1;
    a->drop_run = 0;
    a->forced = FALSE;
    a->periodic_at = GST_CLOCK_TIME_NONE;
    post_sync (a, "locked", best, best_diff);
    GST_INFO_OBJECT (a->self, "align=auto locked at %d frames (difference "
        "%.3f, median %.3f)", best, best_diff, median);
    for (int i = 0; i < 2; i++)
      g_ptr_array_set_size (a->thumbs[i], 0);
    return;
  }
  /* a window went by without a clear match: say so, once */
  if (!a->reported_no_lock) {
    a->reported_no_lock = TRUE;
    post_sync (a, "searching", best, best_diff);
  }
}

/* Forgets the thumbnails and the locked pairs' statistics: what follows
 * is compared on its own */
static void
restart_thumbs (GstVmafHipAligner * a)
{
  for (int i = 0; i < 2; i++)
    g_ptr_array_set_size (a->thumbs[i], 0);
  a->pair_diff = -1;
  a->drop_run = 0;
}

/* A re-check, as soon as the frames since it started cover a search
 * window: a clearly better lag than the locked one (the delay changed) is
 * locked instead; after a sudden rise, a locked lag no better than the
 * rest is lost. */
static void
recheck (GstVmafHipAligner * a)
{
  const gint locked = (gint) (a->shift
      / (GstClockTimeDiff) a->self->frame_duration);
  gint best;
  double best_diff, median, at_locked;

  if (!a->forced
      || !compare_lags (a, locked, &best, &best_diff, &median, &at_locked))
    return;
  const gboolean after_drop = a->after_drop;
  a->forced = a->after_drop = FALSE;
  a->periodic_at = GST_CLOCK_TIME_NONE;
  if (best != locked && best_diff <= LOCK_RATIO * median
      && !(at_locked <= 2 * best_diff)) {
    GST_INFO_OBJECT (a->self, "align=auto: the lag changed from %d to %d "
        "frames (difference %.3f there, %.3f at %d)", locked, best,
        best_diff, at_locked, locked);
    a->shift = (GstClockTimeDiff) best
        * (GstClockTimeDiff) a->self->frame_duration;
    post_sync (a, "changed", best, best_diff);
    restart_thumbs (a);
  } else if (after_drop && !(at_locked <= LOCK_RATIO * median)) {
    GST_INFO_OBJECT (a->self, "align=auto: lost (difference %.3f at %d frames, "
        "median %.3f)", at_locked, locked, median);
    post_sync (a, "lost", locked, at_locked);
    a->locked = FALSE;
    a->shift = 0;
    a->taken = 0;
    a->reported_no_lock = FALSE;
    restart_thumbs (a);
  }
}

/* The locked pair a new distorted thumbnail makes (the reference's
 * thumbnail at its time less the lag): a sudden rise of their difference
 * asks for a re-check on the frames from now on. */
static void
watch_locked_pair (GstVmafHipAligner * a, const Thumb * d)
{
  GPtrArray *ref = a->thumbs[REF];
  const gint64 fd = (gint64) a->self->frame_duration;
  const gint64 want = (gint64) d->rt - a->shift;
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
  if (!r || a->forced)
    return;
  const guint size = MIN (r->size, d->size);
  double sum = 0;
  for (guint p = 0; p < size; p++)
    sum += fabsf (r->pix[p] - d->pix[p]);
  const double diff = size ? sum / size : 0;
  if (a->pair_diff < 0) {
    a->pair_diff = diff;
    return;
  }
  if (diff <= DROP_FACTOR * a->pair_diff + DROP_MARGIN) {
    a->drop_run = 0;
    a->pair_diff = 0.9 * a->pair_diff + 0.1 * diff;
    return;
  }
  if (++a->drop_run < DROP_FRAMES)
    return;
  GST_INFO_OBJECT (a->self, "align=auto: the locked pairs' difference rose "
      "from %.3f to %.3f: re-checking", a->pair_diff, diff);
  restart_thumbs (a);
  a->forced = a->after_drop = TRUE;
}

void
gst_vmafhip_aligner_observe (GstVmafHipAligner * a, int which,
    GstBuffer * buf, GstClockTime rt)
{
  /* a gap has no picture */
  if (a->self->cfg.align != GST_VMAFHIP_ALIGN_AUTO || !a->locked
      || !GST_CLOCK_TIME_IS_VALID (a->self->frame_duration)
      || !a->thumbs[which]
      || GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP))
    return;
  /* thumbnails from host memory only (system or the pinned pool's): a
   * frame in GPU memory would be copied whole for a few thousand samples */
  GstMemory *mem = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf,
      0) : NULL;
  if (!GST_CLOCK_TIME_IS_VALID (rt) || !mem
      || !(gst_memory_is_type (mem, GST_ALLOCATOR_SYSMEM)
          || gst_memory_is_type (mem, GST_VMAFHIP_PINNED_MEMORY_TYPE)))
    return;
  /* the periodic re-check's turn */
  if (!a->forced && which == REF) {
    if (!GST_CLOCK_TIME_IS_VALID (a->periodic_at))
      a->periodic_at = rt + PERIODIC_WINDOWS
          * a->self->cfg.search_window;
    else if (rt >= a->periodic_at) {
      GST_DEBUG_OBJECT (a->self, "align=auto: periodic re-check");
      restart_thumbs (a);
      a->forced = TRUE;
    }
  }
  /* between re-checks, the pairs of every WATCH_EVERY-th reference frame
   * (the distorted one by its partner's time) */
  if (!a->forced) {
    const gint64 fd = (gint64) a->self->frame_duration;
    const gint64 at = (gint64) rt - (which == DIST ? a->shift : 0);
    if (at < 0 || ((at + fd / 2) / fd) % WATCH_EVERY != 0)
      return;
  }
  Thumb *t = thumb_take (a);
  t->rt = rt;
  if (!make_thumb (a, which, buf, t)) {
    thumb_give_back (a, t);
    return;
  }
  thumb_add (a, a->thumbs[which], t);
  if (which == REF)
    recheck (a);
  else
    watch_locked_pair (a, t);
}

void
gst_vmafhip_aligner_add (GstVmafHipAligner * a, int which, GstBuffer * buf,
    GstClockTime rt)
{
  if (!GST_CLOCK_TIME_IS_VALID (a->self->frame_duration))
    return;
  for (int i = 0; i < 2; i++)
    if (!a->thumbs[i])
      a->thumbs[i] = g_ptr_array_new_with_free_func (thumb_free);
  Thumb *t = thumb_take (a);
  t->rt = rt;
  if (GST_CLOCK_TIME_IS_VALID (rt) && !GST_BUFFER_FLAG_IS_SET (buf,
          GST_BUFFER_FLAG_GAP) && make_thumb (a, which, buf, t))
    thumb_add (a, a->thumbs[which], t);
  else
    thumb_give_back (a, t);
  if (++a->taken % (guint) MAX (TRY_EVERY, window_frames (a) / 8) == 0)
    try_lock (a);
}
