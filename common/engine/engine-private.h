/* vmafhip — the engine's state, shared by its files: engine.c (features,
 * pictures, frames and scores), engine-models.c (models bound to the
 * score table) and engine-workers.c (frames in flight on worker threads).
 * Not installed, not for the element. */
#ifndef VH_ENGINE_PRIVATE_H
#define VH_ENGINE_PRIVATE_H

#include "vh-engine.h"
#include "frame-pool.h"
#include "vh-accel.h"
#include "vh-feature-internal.h"
#include "feature-sink.h"


typedef struct VhSumsHelpers VhSumsHelpers;

typedef struct {
  const VhFeatureExtractor *fex;
  void *opts;
  void *priv;
  char *suffix;
  /* who added it first: "model 'vmaf_v0.6.1'", "feature 'adm'" (warnings) */
  char *owner;
  gboolean owner_is_model;
  VhFeatureSink sink;
  gboolean initialised;
  gpointer accel_handle;        /* non-NULL: the accelerator computes it */
  gboolean on_workers;          /* frames in flight: the workers run it */
  size_t sums_offset;           /* compute_sums' output in a PoolFrame */
} Instance;

/* A worker's own state of each instance it runs (NULL for the others), and
 * sinks that record. */
typedef struct {
  void **priv;
  VhFeatureSink *sink;
} WorkerState;

typedef struct {
  VhModel *model;
  char *report_name;
  VhModelFlags flags;
  GArray *feature_metric;  /* unsigned: table metric of each model feature */
  unsigned score_metric;
} BoundModel;

struct VhEngine {
  VhVideoInfo info;
  gboolean have_info;     /* the picture size is known: instances are set up */
  GPtrArray *instances;   /* Instance* */
  GPtrArray *models;      /* BoundModel* */
  GPtrArray *warnings;    /* char*: extractors not added (get_instance) */
  VhScoreTable *table;
  GArray *metric_kind;    /* guint8 VhMetricKind per model output metric */
  unsigned n_pushed;
  unsigned n_final;
  unsigned lookahead;     /* frames a score waits for (max of extractors') */
  unsigned subsample;     /* frames computed: every n-th (vh_engine_set_subsample) */
  gboolean flushed;

  /* Accelerator (GPU backend), if any: frames it has handed back. */
  const VhAccelOps *accel;
  gpointer accel_backend;
  unsigned n_delivered;
  unsigned n_accelerated;       /* instances the accelerator took */
  GError *deliver_error;
  /* the sums of independent instances, extracted on helper threads
   * (engine-sums.c; NULL until the first such frame is delivered) */
  VhSumsHelpers *sums_helpers;
  /* a picture refused for its content (samples beyond its depth): every
   * later push fails with it, as a worker's error does */
  GError *refused;

  /* Frames in flight on worker threads (frame-pool.c), from the first
   * push when n_threads > 1. */
  unsigned n_threads;
  VhConfig config;              /* vh_engine_set_config's */
  /* of them, those not scoring a frame: the row bands' helpers are taken
   * off it (vh_parallel_for's budget), so that no more than n_threads
   * threads ever score */
  gint idle_threads;
  VhFramePool *frames;
  WorkerState *workers;   /* n_threads */
  size_t pool_sums_size;

  /* Distorted pictures scaled to the engine's size (engine-scale.c):
   * the luma size asked for, the planes' sizes from the first push, and
   * where the scaling runs (decided there) */
  gboolean dis_scaled;
  unsigned dis_width, dis_height;
  VhScaleFilter dis_filter;
  gboolean dis_ready;
  unsigned dis_nplanes, dis_plane_w[3], dis_plane_h[3];
  gboolean dis_on_accel;
  VhPictureScaler *dis_scaler;  /* on the CPU */
};

/* engine.c */
/* Whether frame `index` is one of the subsample's (all are without one) */
static inline gboolean
vh_engine_on_grid (const VhEngine *e, unsigned index)
{
  return vh_subsample_computes (FALSE, e->subsample, index);
}

/* Whether the instance computes frame `index` (vh_subsample_computes) */
static inline gboolean
vh_engine_computes (const VhEngine *e, const Instance *inst, unsigned index)
{
  return vh_subsample_computes (inst->fex->sequential, e->subsample, index);
}

/* engine-instances.c: an instance freed (a GPtrArray free function),
 * initialised for the engine's video, offered to its accelerator */
void vh_engine_instance_free (gpointer instance);
gboolean vh_engine_instance_init (VhEngine *e, Instance *inst, GError **error);
gboolean vh_engine_instance_attach (VhEngine *e, Instance *inst,
    GError **error);

/* The instance of `fex` with `opts`, added if new.  As libvmaf 3.2.0's
 * feature_extractor_vector_append: an instance of the same extractor whose
 * non-default feature parameters are the same (the same output names) is
 * that instance, whatever the other options; where they differ the new
 * option set is dropped with a warning (vh_engine_take_warnings).  `owner`:
 * who asks ("model 'vmaf_v0.6.1'", "feature 'adm'"), for the warnings. */
Instance *vh_engine_get_instance (VhEngine *e, const VhFeatureExtractor *fex,
    const void *opts, const char *owner, gboolean owner_is_model,
    GError **error);

/* engine-models.c */
void vh_engine_bound_model_free (gpointer bound_model);
unsigned vh_engine_model_metric (VhEngine *e, const char *name,
    VhMetricKind kind);
void vh_engine_predict_final_frames (VhEngine *e, unsigned new_final);

/* engine-sums.c: the accelerator's sums of instances whose extractor has
 * independent_sums_size, extracted on helper threads.  Whether an instance
 * is one (accelerated, with the hook) */
gboolean vh_engine_sums_independent (const Instance *inst);
/* Copies frame `index`'s sums of instance number `instance` and queues
 * their extraction (the helpers start at the first) */
gboolean vh_engine_sums_queue (VhEngine *e, unsigned instance,
    unsigned index, const void *sums, GError **error);
/* Replays finished extractions into the table in frame order; waits for
 * the oldest while too many are queued, for all with wait_all.  FALSE
 * with the first failed extraction's error. */
gboolean vh_engine_sums_drain (VhEngine *e, gboolean wait_all,
    GError **error);
/* The frame of the oldest extraction not replayed yet (G_MAXUINT: none) */
unsigned vh_engine_sums_first_pending (const VhEngine *e);
/* Forgets every queued extraction (after waiting for them) */
void vh_engine_sums_reset (VhEngine *e);
void vh_engine_sums_free (VhEngine *e);

/* engine-scale.c */
/* The distorted picture's plane sizes against those scaling expects (the
 * first push records them); FALSE with an error naming the plane. */
gboolean vh_engine_check_scaled_planes (VhEngine *e, const VhPicture *dis,
    GError **error);
/* The picture to score in place of dis: scaled on the CPU, or dis itself
 * where the accelerator scales it (set up at the first push). */
const VhPicture *vh_engine_scale_distorted (VhEngine *e, const VhPicture *ref,
    const VhPicture *dis, GError **error);
void vh_engine_scale_free (VhEngine *e);

/* engine-workers.c */
/* The workers' states and the pool, at the first push with threads > 1
 * (nothing where every extractor is accelerated or sequential). */
gboolean vh_engine_workers_start (VhEngine *e, const VhPicture *ref,
    GError **error);
void vh_engine_workers_free (VhEngine *e);

#endif /* VH_ENGINE_PRIVATE_H */
