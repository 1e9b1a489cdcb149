/* vmafhip — the scoring engine: frame pairs in, per-frame and pooled
 * feature and model scores out. CPU implementation, bit-exact with
 * libvmaf 3.2.0; no GStreamer, no GPU code.
 *
 * Use: vh_engine_new() → vh_engine_add_model() / vh_engine_add_feature()
 * → vh_engine_push() per frame pair → vh_engine_flush() at the end.
 * A frame's scores are final once vh_engine_n_final() exceeds its index:
 * motion needs the next frame, so frame i is final when frame i+1 has been
 * pushed or the stream is flushed.
 */
#ifndef VH_ENGINE_H
#define VH_ENGINE_H

#include <glib.h>

#include "vh-config.h"
#include "vh-error.h"
#include "vh-feature.h"
#include "vh-model.h"
#include "scale.h"
#include "vh-picture.h"
#include "vh-scores.h"

G_BEGIN_DECLS

typedef struct VhEngine VhEngine;

/* Creates an engine for pictures of this luma size and bit depth. */
VhEngine *vh_engine_new (const VhVideoInfo *info, GError **error);
/* An engine whose picture size comes later: models and features can be
 * added (their options checked, vh_engine_lookahead known) before it, as a
 * GStreamer element knows them at start and the size at negotiation. */
VhEngine *vh_engine_new_unsized (void);
/* Sets the size of an unsized engine, before the first frame: sets every
 * feature up (the size checks they make, e.g. ADM's minimum, fail here) and
 * offers them to the accelerator. Setting the same size again is a no-op;
 * another size is an error. */
gboolean vh_engine_set_video_info (VhEngine *engine, const VhVideoInfo *info,
    GError **error);
void vh_engine_free (VhEngine *engine);

/* Adds a model (built-in name or file path) reported under `report_name`
 * (NULL: the model's own name). Fails if the model cannot be loaded, uses a
 * feature vmafhip lacks, or the pictures are too small for its features. */
gboolean vh_engine_add_model (VhEngine *engine, const char *name_or_path,
    const char *report_name, const VhModelFlags *flags, GError **error);
/* Same with an already loaded model; the engine takes ownership. */
gboolean vh_engine_add_loaded_model (VhEngine *engine, VhModel *model,
    const char *report_name, const VhModelFlags *flags, GError **error);

/* An option for the features of a model computed by one extractor, as
 * libvmaf's vmaf_model_feature_overload: `feature` is the extractor's name
 * ("vif"), `opt` the option, applied over the model's own options. */
typedef struct VhFeatureOverride {
  const char *feature;
  VhModelOpt opt;
} VhFeatureOverride;

/* Whether the model can run with these overrides: vmafhip computes every
 * feature it needs, and each override names an extractor the model uses
 * and an option of it with a valid value. */
gboolean vh_model_check_overrides (const VhModel *model,
    const VhFeatureOverride *overrides, unsigned n_overrides, GError **error);

/* vh_engine_add_loaded_model with overrides; an override naming an
 * extractor the model does not use, or a bad option, is an error. */
gboolean vh_engine_add_loaded_model_with_overrides (VhEngine *engine,
    VhModel *model, const char *report_name, const VhModelFlags *flags,
    const VhFeatureOverride *overrides, unsigned n_overrides, GError **error);

/* The extractors a model's features need, ", "-joined ("vif, adm,
 * motion"): the FEATURE part overrides may name. g_free it. */
char *vh_model_extractor_names (const VhModel *model);

/* Frames a frame's scores wait for (1 with motion, 2 with the five-frame
 * window), for the element's latency. */
unsigned vh_engine_lookahead (const VhEngine *engine);
/* Frames a push may leave unfinished besides the lookahead: threads + 2
 * where CPU extractors run on worker threads, 0 otherwise (known once the
 * features, the size and the accelerator are). */
unsigned vh_engine_frames_in_flight (const VhEngine *engine);
/* The worker threads set_threads chose (capped at the number of CPUs). */
unsigned vh_engine_threads (const VhEngine *engine);
/* Adds a feature extractor with default options ("psnr", "vif", ...). */
gboolean vh_engine_add_feature (VhEngine *engine, const char *name,
    GError **error);
/* Same with options, given like a model's feature_opts_dicts entry
 * ({"adm_csf_mode", 2}, ...); outputs carry libvmaf's option suffix. */
gboolean vh_engine_add_feature_with_options (VhEngine *engine,
    const char *name, const VhModelOpt *opts, unsigned n_opts,
    GError **error);
/* Same, for model `model`'s features without the model (vmafhip-score
 * -n); `model` NULL: vh_engine_add_feature_with_options. */
gboolean vh_engine_add_feature_from (VhEngine *engine, const char *model,
    const char *name, const VhModelOpt *opts, unsigned n_opts,
    GError **error);
/* Models and features are added as libvmaf 3.2.0 registers extractors
 * (feature_extractor_vector_append): an extractor whose name and
 * non-default feature parameters (the suffix of its output names) equal
 * one added before is not added again, whatever its other options
 * (`debug`, `adm_skip_aim` ...), so no two extractors write the same keys
 * and the first one's keys are kept.  Where the other options differ, the
 * dropped one is lost: each such case leaves a warning that names it, who
 * computes it already, and how to get the variant.  Returns them
 * (NULL-terminated, g_strfreev; NULL if none) and forgets them. */
char **vh_engine_take_warnings (VhEngine *engine);

/* Worker threads (0: one per CPU; 1: none, the default). With more than
 * one, frames are scored in parallel, each on one worker (frames in
 * flight, common/core/frame-pool.h): a push copies the pictures and returns, and
 * a frame becomes final once its worker is done and every earlier frame is
 * (scores are the same, frame by frame). At most n_threads + 2 frames are
 * in flight, besides the lookahead (vh_engine_frames_in_flight). More
 * threads than CPUs are capped (vh_engine_threads). Call before the first
 * push. */
gboolean vh_engine_set_threads (VhEngine *engine, unsigned n_threads,
    GError **error);

/* Computes every n-th frame only (libvmaf's n_subsample): frames 0, n,
 * 2n ... get every feature and model score; the others only the
 * sequential extractors' (motion, whose later frames need them), as
 * libvmaf runs its temporal and previous-reference extractors on every
 * frame.  1 (the default): every frame.  Call before the first push. */
gboolean vh_engine_set_subsample (VhEngine *engine, unsigned subsample,
    GError **error);

/* Hands the work of the extractors it can take to an accelerator (the GPU
 * backend, common/gpu/backend/vh-gpu-backend.h: VIF, ADM, motion, PSNR, CIEDE2000,
 * SSIM, MS-SSIM, PSNR-HVS, CAMBI and SpEED-chroma, its table in
 * common/gpu/backend/gpu-backend-features.c; an instance whose options its kernels
 * decline stays on the CPU);
 * the engine owns `backend` from then on. Scores are the same; frames
 * become final when the accelerator hands them back. Call before the first
 * push. */
/* The settings that are not a feature's options (vh-config.h: row bands,
 * GPU scaling, which GPU kernels a feature takes), copied; before the
 * accelerator, the threads and the first frame.  Without it, the
 * defaults (vh_config_init). */
gboolean vh_engine_set_config (VhEngine *engine, const VhConfig *config,
    GError **error);

struct VhAccelOps;
gboolean vh_engine_set_accelerator (VhEngine *engine,
    const struct VhAccelOps *ops, gpointer backend, GError **error);
/* Whether any feature runs on the accelerator. */
gboolean vh_engine_is_accelerated (const VhEngine *engine);
/* How many feature instances run on the accelerator, and how many could
 * (their extractor has an accelerated path): a backend that declines a
 * feature it should take shows here. */
unsigned vh_engine_n_accelerated (const VhEngine *engine);
unsigned vh_engine_n_accelerable (const VhEngine *engine);
/* Whether every feature instance runs on the accelerator: then the engine
 * takes pictures in GPU memory (VH_PICTURE_DEVICE). */
gboolean vh_engine_all_accelerated (const VhEngine *engine);
/* Whether a feature reads the chroma planes (PSNR, CIEDE2000, PSNR-HVS). */
gboolean vh_engine_needs_chroma (const VhEngine *engine);

/* Whether every feature can read pictures of this layout (planes and
 * their sizes; the data is not read): an error naming the feature and the
 * reason otherwise.  vh_engine_push asks it of the first frame. */
gboolean vh_engine_check_layout (const VhEngine *engine,
    const VhPicture *layout, GError **error);

/* Distorted pictures of another size (an ABR ladder's rung) scaled to the
 * engine's size before scoring, with `filter` (common/core/scale.h: FFmpeg's
 * bilinear, bicubic, lanczos).  width x height is the distorted luma; its
 * chroma planes are taken from the first pushed picture and must keep
 * their sizes.  The scaling runs on the accelerator where every feature
 * does (the small picture is uploaded, the scaled one never leaves the
 * GPU), else on the CPU in vh_engine_push; the samples are the same.  The
 * engine's own size turns scaling off.  After vh_engine_set_video_info
 * (and the accelerator, if any), before the first push (later, only the
 * same settings again are accepted).  Errors:
 * VH_ERROR_STATE (order), or the scaler's (sizes, ratio over 64x). */
gboolean vh_engine_set_distorted_scaling (VhEngine *engine, unsigned width,
    unsigned height, VhScaleFilter filter, GError **error);
/* Whether distorted pictures are scaled, and whether on the accelerator
 * (known before the first push: the features and the accelerator are). */
gboolean vh_engine_scales_distorted (const VhEngine *engine);
gboolean vh_engine_scales_on_accelerator (const VhEngine *engine);

/* Scores one frame pair (frames in order). Both pictures must match the
 * engine's size and bit depth (the distorted one the size given to
 * vh_engine_set_distorted_scaling, if any). */
gboolean vh_engine_push (VhEngine *engine, const VhPicture *ref,
    const VhPicture *dis, GError **error);
/* Waits for the frames the accelerator has in flight (well under a
 * millisecond each), so that every pushed frame the lookahead does not
 * hold is final: for a caller with no next frame at hand (a live source
 * between frames, a stalled input), whose results would otherwise wait
 * for the next push.  Nothing to do without an accelerator. */
gboolean vh_engine_wait_accelerator (VhEngine *engine, GError **error);
/* End of stream: finalises the last frame. No push afterwards. */
gboolean vh_engine_flush (VhEngine *engine, GError **error);
/* Forgets every frame and score (a flushing seek); models stay. */
void vh_engine_reset (VhEngine *engine);

/* vh_engine_set_subsample's n, and whether frame `index` is one it scores
 * (the frames to report: the others carry the sequential extractors'
 * values only) */
unsigned vh_engine_subsample (const VhEngine *engine);
gboolean vh_engine_scores_frame (const VhEngine *engine, unsigned index);

/* For runs of any length: the caller is done with frames below `upto`
 * (all final). Their values leave the score table and are kept only as
 * running pooled statistics per metric (of the frames the engine scores;
 * see vh_score_table_retire), read with vh_score_table_pool_all(). */
gboolean vh_engine_release_frames (VhEngine *engine, unsigned upto,
    GError **error);

unsigned vh_engine_n_pushed (const VhEngine *engine);
unsigned vh_engine_n_final (const VhEngine *engine);
gboolean vh_engine_is_flushed (const VhEngine *engine);

/* All scores so far: features under libvmaf's names, models under their
 * report names (bootstrap models add _bagging, _stddev, _ci_p95_lo,
 * _ci_p95_hi and _0001.. members). */
const VhScoreTable *vh_engine_scores (const VhEngine *engine);

/* What a score-table metric is: a feature, a model's score, or one of a
 * bootstrap model's extra outputs (_bagging, _stddev, _ci_p95_lo/hi and
 * the members _0001..), which libvmaf reports only when asked. */
typedef enum {
  VH_METRIC_FEATURE,
  VH_METRIC_MODEL,
  VH_METRIC_MODEL_BOOTSTRAP,
} VhMetricKind;
VhMetricKind vh_engine_metric_kind (const VhEngine *engine, unsigned metric);

unsigned vh_engine_n_models (const VhEngine *engine);
const char *vh_engine_model_report_name (const VhEngine *engine, unsigned i);
gboolean vh_engine_model_is_bootstrap (const VhEngine *engine, unsigned i);

G_END_DECLS
#endif /* VH_ENGINE_H */
