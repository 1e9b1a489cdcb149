/* vmafhip — integer motion, bit-exact with libvmaf 3.2.0 `motion`.
 *
 * Per frame i the SAD score compares the reference luma of frame i with that
 * of frame i − lag (lag 1, or 2 with motion_five_frame_window): the
 * difference prev − cur is blurred with the 5-tap Q16 filter (vertical pass
 * rounded to Q8 of the sample scale, horizontal pass to Q0, reflect-101
 * edges) and |result| is summed. Frames i < lag score 0.
 *
 * Streaming contract. libvmaf derives motion2 and motion3 from all SAD
 * scores in flush(); we emit every value as soon as it is final, with the
 * values flush() would give:
 *   - extract(i) emits frame i's SAD score; for i < lag also its motion2 (0);
 *   - extract(i), i > lag, emits frame i − 1's motion2 and motion3 (they need
 *     frame i's SAD score, and motion3's moving average goes in order);
 *   - extract(lag) emits motion3 of frames 0 .. lag − 1: libvmaf "stamps"
 *     them with the processed SAD score of frame `lag`;
 *   - flush() emits the last frame's motion2/motion3 (motion2 is then its own
 *     SAD score), or, for a stream of at most `lag` frames, motion3 = 0 for
 *     all of them.
 * So with the default lag 1 every frame i is complete by the end of
 * extract(i + 1) or flush(). With the five-frame window, frame 0's motion3
 * waits for extract(2): it is frame 2's score, which nothing earlier knows.
 */
#include <stdlib.h>
#include <string.h>

#include "motion.h"
#include "motion-simd.h"
#include "vh-feature.h"

/* The blur's taps: one source with the GPU kernels. */
#include "motion-params.h"

struct VhMotionWork {
  unsigned width, height;
  /* The version chosen for this CPU (motion-simd.h), and its scratch: for
   * the C, one row of the vertical pass with VH_MOTION_RADIUS mirrored
   * samples on each side so that the horizontal pass needs no edge cases */
  VhMotionSadFunc sad;
  void *scratch;
};

VhMotionWork *
vh_motion_work_new (unsigned width, unsigned height)
{
  if (width < VH_MOTION_MIN_SIZE || height < VH_MOTION_MIN_SIZE)
    return NULL;
  VhMotionWork *work = g_new0 (VhMotionWork, 1);
  work->width = width;
  work->height = height;
  work->sad = vh_motion_sad_best ();
  work->scratch = g_malloc (VH_MOTION_SAD_SCRATCH_BYTES (width));
  return work;
}

void
vh_motion_work_free (VhMotionWork *work)
{
  if (!work)
    return;
  g_free (work->scratch);
  g_free (work);
}

static gboolean
bpc_supported (unsigned bpc)
{
  return bpc == 8 || bpc == 10 || bpc == 12;
}

/* Checks a luma plane against the size; NULL if fine, else what is wrong. */
static const char *
luma_plane_problem (const VhPlane *plane, unsigned width, unsigned height,
    unsigned bpc)
{
  const size_t sample_bytes = bpc > 8 ? 2 : 1;
  if (!plane->data)
    return "has no data";
  if (plane->width != width || plane->height != height)
    return "has the wrong size";
  if (plane->step != 1)
    return "is not planar (step != 1)";
  if ((size_t) ABS (plane->stride) < (size_t) width * sample_bytes)
    return "has a stride shorter than a row";
  if (sample_bytes == 2 && (((uintptr_t) plane->data | (uintptr_t)
              plane->stride) & 1))
    return "has 16-bit samples that are not 2-byte aligned";
  return NULL;
}

uint64_t
vh_motion_sad (VhMotionWork *work, const VhPlane *prev, const VhPlane *cur,
    unsigned bpc)
{
  g_return_val_if_fail (work && prev && cur, 0);
  g_return_val_if_fail (bpc_supported (bpc), 0);
  g_return_val_if_fail (!luma_plane_problem (prev, work->width, work->height,
          bpc), 0);
  g_return_val_if_fail (!luma_plane_problem (cur, work->width, work->height,
          bpc), 0);

  return work->sad (prev, cur, bpc, work->scratch);
}

double
vh_motion_sad_score (uint64_t sad, unsigned width, unsigned height)
{
  /* libvmaf: (double) sad / 256. / (w * h), w * h in unsigned arithmetic */
  return (double) sad / 256. / (unsigned) (width * height);
}

double
vh_motion_blend (double score, double factor, double offset)
{
  const double low = offset < score ? offset : score;
  return score * factor + (1 - factor) * low;
}

/* ---- extractor ---------------------------------------------------------- */


static const VhOptionDesc motion_options[] = {
  {"motion_force_zero", "force_0", VH_OPT_BOOL, 0, 0, 1,
      offsetof (VhMotionOptions, force_zero), true},
  {"motion_blend_factor", "mbf", VH_OPT_DOUBLE, 1.0, 0.0, 1.0,
      offsetof (VhMotionOptions, blend_factor), true},
  {"motion_blend_offset", "mbo", VH_OPT_DOUBLE, 40.0, 0.0, 1000.0,
      offsetof (VhMotionOptions, blend_offset), true},
  {"motion_fps_weight", "mfw", VH_OPT_DOUBLE, 1.0, 0.0, 5.0,
      offsetof (VhMotionOptions, fps_weight), true},
  {"motion_max_val", "mmxv", VH_OPT_DOUBLE, 10000.0, 0.0, 10000.0,
      offsetof (VhMotionOptions, max_val), true},
  {"motion_five_frame_window", "mffw", VH_OPT_BOOL, 0, 0, 1,
      offsetof (VhMotionOptions, five_frame_window), true},
  {"motion_moving_average", "mma", VH_OPT_BOOL, 0, 0, 1,
      offsetof (VhMotionOptions, moving_average), true},
  /* libvmaf's debug also emits the SAD score as integer_motion */
  {"debug", NULL, VH_OPT_BOOL, 0, 0, 1, offsetof (VhMotionOptions, debug),
      false},
  {NULL, NULL, VH_OPT_BOOL, 0, 0, 0, 0, false},
};

#define SAD_RING 3  /* SAD scores of frames i, i − 1, i − 2 */

typedef struct {
  VhMotionOptions opt;
  unsigned width, height, bpc;
  /* Frames between the two pictures compared; also libvmaf's min_idx (first
   * frame with a SAD) and its motion2 window stride. */
  unsigned lag;
  VhMotionWork *work;
  /* `lag` packed copies of the reference luma; frame i lives in slot
   * i % lag until frame i + lag, which compares against it, replaces it. */
  uint8_t *history;
  size_t row_bytes;
  unsigned n_frames;
  double sad_score[SAD_RING];     /* frame i at i % SAD_RING */
  double prev_processed;          /* previous motion3 before averaging */
  bool flushed;
} MotionState;

static const char sad_name[] = "VMAF_integer_feature_motion_sad_score";
static const char motion_name[] = "integer_motion";
static const char motion2_name[] = "integer_motion2";
static const char motion3_name[] = "integer_motion3";

static gboolean
motion_init (void *priv, const void *opts, const VhVideoInfo *info,
    GError **error)
{
  MotionState *s = priv;

  if (!opts || !info) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion: no %s given", opts ? "video info" : "options");
    return FALSE;
  }
  if (!bpc_supported (info->bpc)) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "motion: %u bits per sample is not supported (8, 10 or 12)",
        info->bpc);
    return FALSE;
  }
  if (!info->width || !info->height) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion: picture size %ux%u is empty", info->width, info->height);
    return FALSE;
  }
  if (info->width < VH_MOTION_MIN_SIZE || info->height < VH_MOTION_MIN_SIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_TOO_SMALL,
        "motion: picture %ux%u is smaller than the blur's %ux%u",
        info->width, info->height, VH_MOTION_MIN_SIZE, VH_MOTION_MIN_SIZE);
    return FALSE;
  }

  s->opt = *(const VhMotionOptions *) opts;
  s->width = info->width;
  s->height = info->height;
  s->bpc = info->bpc;
  s->lag = s->opt.five_frame_window ? 2 : 1;
  s->row_bytes = (size_t) s->width * (s->bpc > 8 ? 2 : 1);
  s->work = vh_motion_work_new (s->width, s->height);
  /* the frames kept for the SAD: allocated by the first extract (a
   * worker's copy, which only runs compute_sums, never needs them) */
  s->history = NULL;
  return TRUE;
}

static double
sad_of (const MotionState *s, unsigned frame)
{
  return s->sad_score[frame % SAD_RING];
}

/* libvmaf clips every blended score to motion_max_val. */
static double
processed_score (const MotionState *s, double score)
{
  const double blended = vh_motion_blend (score, s->opt.blend_factor,
      s->opt.blend_offset);
  return blended < s->opt.max_val ? blended : s->opt.max_val;
}

/* Frames before `lag` have motion3 = the stamp, which also seeds the
 * moving average. */
static void
emit_stamp (MotionState *s, double stamp, unsigned n_frames,
    VhFeatureSink *sink)
{
  for (unsigned j = 0; j < n_frames; j++)
    vh_feature_sink_put (sink, motion3_name, j, stamp);
  s->prev_processed = stamp;
}

/* motion2/motion3 of frame j >= lag, as libvmaf's flush() computes them;
 * `has_next` says whether frame j + 1 (and its SAD score) exists. */
static void
emit_motion23 (MotionState *s, unsigned j, bool has_next, VhFeatureSink *sink)
{
  double motion2;

  if (!has_next) {
    motion2 = sad_of (s, j);                /* last frame: its own score */
  } else if (j + 1 >= 2 * s->lag) {
    /* min over the window's ends: frames j + 1 − lag and j + 1 */
    const double lo = sad_of (s, j + 1 - s->lag), hi = sad_of (s, j + 1);
    motion2 = lo < hi ? lo : hi;
  } else {
    motion2 = sad_of (s, j + 1);            /* window starts before lag */
  }
  vh_feature_sink_put (sink, motion2_name, j, motion2);

  const double processed = processed_score (s, motion2);
  const double motion3 = s->opt.moving_average
      ? (processed + s->prev_processed) / 2.0 : processed;
  s->prev_processed = processed;
  vh_feature_sink_put (sink, motion3_name, j, motion3);
}

/* libvmaf: min(sad / 256 / (w·h) · fps_weight, max_val) */
static double
sad_to_score (const MotionState *s, uint64_t sad)
{
  const double weighted = vh_motion_sad_score (sad, s->width, s->height)
      * s->opt.fps_weight;
  return weighted < s->opt.max_val ? weighted : s->opt.max_val;
}

/* Records frame `index`'s SAD score and emits what became final. */
static void
emit_frame (MotionState *s, unsigned index, double score, VhFeatureSink *sink)
{
  s->sad_score[index % SAD_RING] = score;
  s->n_frames++;
  vh_feature_sink_put (sink, sad_name, index, score);
  if (s->opt.debug)
    vh_feature_sink_put (sink, motion_name, index, score);

  if (index < s->lag)
    vh_feature_sink_put (sink, motion2_name, index, 0.);
  else if (index == s->lag)
    emit_stamp (s, processed_score (s, score), s->lag, sink);
  else
    emit_motion23 (s, index - 1, true, sink);
}

/* Frame `index` is the next one, and the stream has not ended */
static gboolean
check_order (const MotionState *s, unsigned index, GError **error)
{
  if (!s->flushed && index == s->n_frames)
    return TRUE;
  g_set_error (error, VH_ERROR, VH_ERROR_STATE,
      "motion: got frame %u, expected %s %u", index,
      s->flushed ? "none after flush, stream ended at" : "frame",
      s->n_frames);
  return FALSE;
}

/* Frame `index`'s reference luma fits the stream */
static gboolean
check_reference (const MotionState *s, const VhPicture *ref, unsigned index,
    GError **error)
{
  if (!ref || ref->nplanes < 1) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion: frame %u has no reference luma", index);
    return FALSE;
  }
  if (ref->bpc != s->bpc) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion: frame %u has %u bits per sample, the stream %u", index,
        ref->bpc, s->bpc);
    return FALSE;
  }
  if (ref->plane[0].width != s->width || ref->plane[0].height != s->height) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "motion: reference luma of frame %u is %ux%u, the stream %ux%u",
        index, ref->plane[0].width, ref->plane[0].height, s->width,
        s->height);
    return FALSE;
  }
  const char *problem = luma_plane_problem (&ref->plane[0], s->width,
      s->height, s->bpc);
  if (problem) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "motion: reference luma of frame %u %s", index, problem);
    return FALSE;
  }
  return TRUE;
}

static gboolean
motion_extract (void *priv, const VhPicture *ref, const VhPicture *dis,
    unsigned index, VhFeatureSink *sink, GError **error)
{
  MotionState *s = priv;
  double score = 0.;

  (void) dis;  /* motion looks at the reference only */

  if (!check_order (s, index, error))
    return FALSE;
  if (!check_reference (s, ref, index, error))
    return FALSE;

  if (!s->opt.force_zero) {
    const VhPlane *cur = &ref->plane[0];
    if (!s->history)
      s->history = g_malloc ((size_t) s->lag * s->row_bytes * s->height);
    uint8_t *slot = s->history
        + (size_t) (index % s->lag) * s->row_bytes * s->height;

    if (index >= s->lag) {
      /* the slot still holds frame index − lag */
      const VhPlane prev = {
        .data = slot, .stride = (ptrdiff_t) s->row_bytes,
        .width = s->width, .height = s->height, .step = 1,
      };
      score = sad_to_score (s, vh_motion_sad (s->work, &prev, cur, s->bpc));
    }
    for (unsigned y = 0; y < s->height; y++)
      memcpy (slot + (size_t) y * s->row_bytes,
          (const uint8_t *) cur->data + (ptrdiff_t) y * cur->stride,
          s->row_bytes);
  }

  emit_frame (s, index, score, sink);
  return TRUE;
}

/* Accelerated path: `sums` is frame `index`'s uint64 SAD against frame
 * index − lag (ignored for the first `lag` frames, which score 0). */
static gboolean
motion_extract_sums (void *priv, const void *sums, unsigned index,
    VhFeatureSink *sink, GError **error)
{
  MotionState *s = priv;
  if (!check_order (s, index, error))
    return FALSE;
  const double score = s->opt.force_zero || index < s->lag ? 0. :
      sad_to_score (s, *(const uint64_t *) sums);
  emit_frame (s, index, score, sink);
  return TRUE;
}

/* Frames in flight: frame `index`'s SAD against frame index − lag, from
 * the pool's pictures, with this instance's scratch only (any thread);
 * motion_extract_sums then takes the SADs in order. */
static gboolean
motion_compute_sums (void *priv, const VhPicture *ref, const VhPicture *dis,
    const VhPicture *const *earlier, unsigned index, void *sums,
    GError **error)
{
  MotionState *s = priv;
  uint64_t sad = 0;

  (void) dis;
  if (!check_reference (s, ref, index, error))
    return FALSE;
  if (!s->opt.force_zero && index >= s->lag)
    sad = vh_motion_sad (s->work, &earlier[s->lag - 1]->plane[0],
        &ref->plane[0], s->bpc);
  memcpy (sums, &sad, sizeof sad);
  return TRUE;
}

static gboolean
motion_flush (void *priv, VhFeatureSink *sink, GError **error)
{
  MotionState *s = priv;

  (void) error;
  if (s->flushed)
    return TRUE;
  s->flushed = true;
  if (!s->n_frames)
    return TRUE;
  if (s->n_frames <= s->lag)
    emit_stamp (s, 0., s->n_frames, sink);  /* no frame `lag`: stamp is 0 */
  else
    emit_motion23 (s, s->n_frames - 1, false, sink);
  return TRUE;
}

static void
motion_close (void *priv)
{
  MotionState *s = priv;
  vh_motion_work_free (s->work);
  g_free (s->history);
  s->work = NULL;
  s->history = NULL;
}

static unsigned
motion_lookahead (const void *opts)
{
  return ((const VhMotionOptions *) opts)->five_frame_window ? 2 : 1;
}

const VhFeatureExtractor vh_fex_motion = {
  .name = "motion",
  .options = motion_options,
  .opts_size = sizeof (VhMotionOptions),
  .priv_size = sizeof (MotionState),
  .needs_chroma = false,
  .init = motion_init,
  .extract = motion_extract,
  .flush = motion_flush,
  .close = motion_close,
  .lookahead = motion_lookahead,
  .extract_sums = motion_extract_sums,
  .sequential = true,
  .compute_sums = motion_compute_sums,
  .sums_size = sizeof (uint64_t),
  .lookback = motion_lookahead,   /* the SAD reads frame index − lag */
};
