/* vmafhip — the CPU scoring engine. */
#include <string.h>

#include "vh-engine.h"
#include "frame-pool.h"
#include "vh-accel.h"
#include "vh-feature-internal.h"

/* A put made by a worker: kept with its frame, written to the table in the
 * pushing thread, in frame order (the table has no lock). */
typedef struct {
  unsigned instance, index;
  gboolean plain;
  char *name;
  double value;
} RecordedPut;

struct VhFeatureSink {
  VhScoreTable *table;
  const char *suffix;
  GHashTable *metric_of_name;   /* base name -> metric index + 1 */
  GArray *record;               /* a worker's: RecordedPut, not the table */
  unsigned record_instance;
};

typedef struct {
  const VhFeatureExtractor *fex;
  void *opts;
  void *priv;
  char *suffix;
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

/* What a frame in flight carries besides its pictures. */
typedef struct {
  guint8 *sums;
  GArray *record;               /* RecordedPut */
} PoolFrame;

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
  VhScoreTable *table;
  GArray *metric_kind;    /* guint8 VhMetricKind per model output metric */
  unsigned n_pushed;
  unsigned n_final;
  unsigned lookahead;     /* frames a score waits for (max of extractors') */
  gboolean flushed;

  /* Accelerator (GPU backend), if any: frames it has handed back. */
  const VhAccelOps *accel;
  gpointer accel_backend;
  unsigned n_delivered;
  unsigned n_accelerated;       /* instances the accelerator took */
  GError *deliver_error;

  /* Frames in flight on worker threads (frame-pool.c), from the first
   * push when n_threads > 1. */
  unsigned n_threads;
  VhFramePool *frames;
  WorkerState *workers;   /* n_threads */
  size_t pool_sums_size;
};

static void
record_put (VhFeatureSink *sink, gboolean plain, const char *name,
    unsigned index, double value)
{
  const RecordedPut r = { sink->record_instance, index, plain,
    g_strdup (name), value };
  g_array_append_val (sink->record, r);
}

void
vh_feature_sink_put (VhFeatureSink *sink, const char *name, unsigned index,
    double value)
{
  if (sink->record) {
    record_put (sink, FALSE, name, index, value);
    return;
  }
  gpointer v = g_hash_table_lookup (sink->metric_of_name, name);
  unsigned metric;
  if (v) {
    metric = GPOINTER_TO_UINT (v) - 1;
  } else {
    char *full = g_strconcat (name, sink->suffix, NULL);
    metric = vh_score_table_metric (sink->table, full);
    g_free (full);
    g_hash_table_insert (sink->metric_of_name, g_strdup (name),
        GUINT_TO_POINTER (metric + 1));
  }
  vh_score_table_set (sink->table, metric, index, value);
}

void
vh_feature_sink_put_plain (VhFeatureSink *sink, const char *name,
    unsigned index, double value)
{
  if (sink->record) {
    record_put (sink, TRUE, name, index, value);
    return;
  }
  /* cached under "/name", apart from the suffixed names */
  char *key = g_strconcat ("/", name, NULL);
  gpointer v = g_hash_table_lookup (sink->metric_of_name, key);
  unsigned metric;
  if (v) {
    metric = GPOINTER_TO_UINT (v) - 1;
    g_free (key);
  } else {
    metric = vh_score_table_metric (sink->table, name);
    g_hash_table_insert (sink->metric_of_name, key,
        GUINT_TO_POINTER (metric + 1));
  }
  vh_score_table_set (sink->table, metric, index, value);
}

static void
instance_free (gpointer p)
{
  Instance *inst = p;
  if (inst->initialised && inst->fex->close)
    inst->fex->close (inst->priv);
  g_free (inst->priv);
  g_free (inst->opts);
  g_free (inst->suffix);
  g_hash_table_unref (inst->sink.metric_of_name);
  g_free (inst);
}

static void
bound_model_free (gpointer p)
{
  BoundModel *bm = p;
  vh_model_free (bm->model);
  g_free (bm->report_name);
  g_array_unref (bm->feature_metric);
  g_free (bm);
}

static gboolean
check_video_info (const VhVideoInfo *info, GError **error)
{
  if (!info) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "no video info given");
    return FALSE;
  }
  if (!info->width || !info->height) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "picture size %ux%u is empty", info->width, info->height);
    return FALSE;
  }
  if (info->bpc != 8 && info->bpc != 10 && info->bpc != 12) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "bit depth %u is not supported (8, 10 or 12)", info->bpc);
    return FALSE;
  }
  return TRUE;
}

VhEngine *
vh_engine_new (const VhVideoInfo *info, GError **error)
{
  if (!check_video_info (info, error))
    return NULL;
  VhEngine *e = vh_engine_new_unsized ();
  e->info = *info;
  e->have_info = TRUE;
  return e;
}

VhEngine *
vh_engine_new_unsized (void)
{
  VhEngine *e = g_new0 (VhEngine, 1);
  e->instances = g_ptr_array_new_with_free_func (instance_free);
  e->models = g_ptr_array_new_with_free_func (bound_model_free);
  e->table = vh_score_table_new ();
  e->metric_kind = g_array_new (FALSE, TRUE, sizeof (guint8));
  e->n_threads = 1;
  return e;
}

static void
workers_free (VhEngine *e)
{
  vh_frame_pool_free (e->frames);
  e->frames = NULL;
  for (unsigned w = 0; e->workers && w < e->n_threads; w++) {
    for (guint i = 0; i < e->instances->len; i++) {
      const Instance *inst = g_ptr_array_index (e->instances, i);
      void *priv = e->workers[w].priv[i];
      if (priv && inst->fex->close)
        inst->fex->close (priv);
      g_free (priv);
    }
    g_free (e->workers[w].priv);
    g_free (e->workers[w].sink);
  }
  g_clear_pointer (&e->workers, g_free);
  for (guint i = 0; i < e->instances->len; i++)
    ((Instance *) g_ptr_array_index (e->instances, i))->on_workers = FALSE;
}

gboolean
vh_engine_set_threads (VhEngine *e, unsigned n_threads, GError **error)
{
  if (e->n_pushed) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "threads must be set before the first frame");
    return FALSE;
  }
  workers_free (e);
  /* more workers than CPUs only add frames in flight */
  const unsigned cpus = (unsigned) g_get_num_processors ();
  e->n_threads = n_threads ? MIN (n_threads, cpus) : cpus;
  return TRUE;
}

/* The extractors of one frame, one after the other, in this thread: every
 * CPU one without frames in flight, the sequential ones without
 * compute_sums with them. */
static gboolean
extract_here (VhEngine *e, const VhPicture *ref, const VhPicture *dis,
    GError **error)
{
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->accel_handle || inst->on_workers)
      continue;
    if (!inst->fex->extract (inst->priv, ref, dis, e->n_pushed, &inst->sink,
            error))
      return FALSE;
  }
  return TRUE;
}

/* ---- frames in flight --------------------------------------------------- */

static void
recorded_put_clear (gpointer p)
{
  g_free (((RecordedPut *) p)->name);
}

static gpointer
pool_frame_new (gpointer user)
{
  const VhEngine *e = user;
  PoolFrame *f = g_new0 (PoolFrame, 1);
  f->sums = g_malloc0 (MAX (e->pool_sums_size, 1));
  f->record = g_array_new (FALSE, FALSE, sizeof (RecordedPut));
  g_array_set_clear_func (f->record, recorded_put_clear);
  return f;
}

static void
pool_frame_free (gpointer p)
{
  PoolFrame *f = p;
  g_free (f->sums);
  g_array_unref (f->record);
  g_free (f);
}

/* In a worker: every instance it runs, on its own states. */
static gboolean
pool_work (gpointer user, unsigned worker, const VhPicture *ref,
    const VhPicture *dis, const VhPicture *const *earlier, unsigned index,
    gpointer frame_data, GError **error)
{
  VhEngine *e = user;
  PoolFrame *f = frame_data;
  WorkerState *w = &e->workers[worker];

  g_array_set_size (f->record, 0);
  for (guint i = 0; i < e->instances->len; i++) {
    const Instance *inst = g_ptr_array_index (e->instances, i);
    if (!w->priv[i])
      continue;
    w->sink[i].record = f->record;
    const gboolean ok = inst->fex->compute_sums
        ? inst->fex->compute_sums (w->priv[i], ref, dis, earlier, index,
        f->sums + inst->sums_offset, error)
        : inst->fex->extract (w->priv[i], ref, dis, index, &w->sink[i],
        error);
    if (!ok)
      return FALSE;
  }
  return TRUE;
}

/* In the pushing thread, in frame order: the workers' puts into the
 * table, and the sequential extractors' sums into them. */
static gboolean
pool_finish (gpointer user, unsigned index, gpointer frame_data,
    GError **error)
{
  VhEngine *e = user;
  PoolFrame *f = frame_data;

  for (guint k = 0; k < f->record->len; k++) {
    const RecordedPut *r = &g_array_index (f->record, RecordedPut, k);
    Instance *inst = g_ptr_array_index (e->instances, r->instance);
    if (r->plain)
      vh_feature_sink_put_plain (&inst->sink, r->name, r->index, r->value);
    else
      vh_feature_sink_put (&inst->sink, r->name, r->index, r->value);
  }
  g_array_set_size (f->record, 0);
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->on_workers && inst->fex->compute_sums
        && !inst->fex->extract_sums (inst->priv, f->sums + inst->sums_offset,
            index, &inst->sink, error))
      return FALSE;
  }
  return TRUE;
}

/* At the first push with n_threads > 1: the CPU extractors that can run
 * with frames in flight get a state per worker, and the pool starts. */
static gboolean
start_workers (VhEngine *e, const VhPicture *ref, GError **error)
{
  static const VhFramePoolOps ops = {
    pool_work, pool_finish, pool_frame_new, pool_frame_free,
  };
  unsigned lookback = 0, n_on_workers = 0;
  gboolean chroma = FALSE;

  e->pool_sums_size = 0;
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    const VhFeatureExtractor *fex = inst->fex;
    inst->on_workers = !inst->accel_handle
        && (!fex->sequential || fex->compute_sums);
    if (!inst->on_workers)
      continue;
    n_on_workers++;
    chroma |= fex->needs_chroma;
    if (fex->compute_sums) {
      inst->sums_offset = e->pool_sums_size;
      e->pool_sums_size += (fex->sums_size + 15) & ~(size_t) 15;
      if (fex->lookback)
        lookback = MAX (lookback, fex->lookback (inst->opts));
    }
  }
  if (!n_on_workers)
    return TRUE;

  e->workers = g_new0 (WorkerState, e->n_threads);
  for (unsigned w = 0; w < e->n_threads; w++) {
    e->workers[w].priv = g_new0 (void *, e->instances->len);
    e->workers[w].sink = g_new0 (VhFeatureSink, e->instances->len);
    for (guint i = 0; i < e->instances->len; i++) {
      const Instance *inst = g_ptr_array_index (e->instances, i);
      if (!inst->on_workers)
        continue;
      void *priv = g_malloc0 (MAX (inst->fex->priv_size, 1));
      if (inst->fex->init && !inst->fex->init (priv, inst->opts, &e->info,
              error)) {
        g_free (priv);
        goto failed;
      }
      e->workers[w].priv[i] = priv;
      e->workers[w].sink[i] = (VhFeatureSink) {
        .suffix = inst->suffix, .record_instance = i,
      };
    }
  }
  e->frames = vh_frame_pool_new (e->n_threads, lookback,
      chroma ? ref->nplanes : 1, &ops, e, error);
  if (e->frames)
    return TRUE;

failed:
  workers_free (e);
  return FALSE;
}

void
vh_engine_free (VhEngine *e)
{
  if (!e)
    return;
  workers_free (e);
  if (e->accel)
    e->accel->free (e->accel_backend);
  g_clear_error (&e->deliver_error);
  g_ptr_array_unref (e->models);
  g_ptr_array_unref (e->instances);
  vh_score_table_free (e->table);
  g_array_unref (e->metric_kind);
  g_free (e);
}

static gboolean
instance_init (VhEngine *e, Instance *inst, GError **error)
{
  if (!e->have_info)
    return TRUE;              /* at vh_engine_set_video_info */
  memset (inst->priv, 0, inst->fex->priv_size);
  if (inst->fex->init && !inst->fex->init (inst->priv, inst->opts, &e->info,
          error))
    return FALSE;
  inst->initialised = TRUE;
  return TRUE;
}

/* Offers the instance to the accelerator, if there is one. */
static gboolean
instance_attach (VhEngine *e, Instance *inst, GError **error)
{
  inst->accel_handle = NULL;
  if (!e->accel || !inst->fex->extract_sums || !e->have_info)
    return TRUE;
  if (!e->accel->attach (e->accel_backend, inst->fex, inst->opts, &e->info,
          &inst->accel_handle, error))
    return FALSE;
  if (inst->accel_handle)
    e->n_accelerated++;
  return TRUE;
}

gboolean
vh_engine_set_accelerator (VhEngine *e, const VhAccelOps *ops,
    gpointer backend, GError **error)
{
  if (e->n_pushed) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "the accelerator must be set before the first frame");
    return FALSE;
  }
  if (e->accel)
    e->accel->free (e->accel_backend);
  e->accel = ops;
  e->accel_backend = backend;
  e->n_accelerated = 0;
  for (guint i = 0; i < e->instances->len; i++)
    if (!instance_attach (e, g_ptr_array_index (e->instances, i), error))
      return FALSE;
  return TRUE;
}

gboolean
vh_engine_set_video_info (VhEngine *e, const VhVideoInfo *info,
    GError **error)
{
  if (!check_video_info (info, error))
    return FALSE;
  if (e->n_pushed) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "the picture size must be set before the first frame");
    return FALSE;
  }
  if (e->have_info) {
    if (!memcmp (info, &e->info, sizeof *info))
      return TRUE;
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "the engine is set up for %ux%u %u-bit already", e->info.width,
        e->info.height, e->info.bpc);
    return FALSE;
  }
  e->info = *info;
  e->have_info = TRUE;
  e->n_accelerated = 0;
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (!instance_init (e, inst, error) || !instance_attach (e, inst, error)) {
      g_prefix_error (error, "feature '%s': ", inst->fex->name);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
vh_engine_is_accelerated (const VhEngine *e)
{
  return e->n_accelerated > 0;
}

gboolean
vh_engine_check_layout (const VhEngine *e, const VhPicture *layout,
    GError **error)
{
  for (guint i = 0; i < e->instances->len; i++) {
    const Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->fex->check_layout && !inst->fex->check_layout (layout, error))
      return FALSE;
  }
  return TRUE;
}

gboolean
vh_engine_needs_chroma (const VhEngine *e)
{
  for (guint i = 0; i < e->instances->len; i++)
    if (((Instance *) g_ptr_array_index (e->instances, i))->fex->needs_chroma)
      return TRUE;
  return FALSE;
}

gboolean
vh_engine_all_accelerated (const VhEngine *e)
{
  return e->instances->len > 0 && e->n_accelerated == e->instances->len;
}

unsigned
vh_engine_n_accelerated (const VhEngine *e)
{
  return e->n_accelerated;
}

unsigned
vh_engine_n_accelerable (const VhEngine *e)
{
  unsigned n = 0;
  for (guint i = 0; i < e->instances->len; i++)
    n += ((Instance *) g_ptr_array_index (e->instances, i))->fex->extract_sums
        != NULL;
  return n;
}

/* Finds the instance of `fex` with exactly these options, or makes one. */
static Instance *
get_instance (VhEngine *e, const VhFeatureExtractor *fex, const void *opts,
    GError **error)
{
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->fex == fex && !memcmp (inst->opts, opts, fex->opts_size))
      return inst;
  }
  if (e->n_pushed) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "models and features must be added before the first frame");
    return NULL;
  }
  Instance *inst = g_new0 (Instance, 1);
  inst->fex = fex;
  inst->opts = g_memdup2 (opts, fex->opts_size);
  inst->priv = g_malloc0 (MAX (fex->priv_size, 1));
  inst->suffix = vh_feature_opts_suffix (fex, opts);
  inst->sink.table = e->table;
  inst->sink.suffix = inst->suffix;
  inst->sink.metric_of_name = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL);
  if (!instance_init (e, inst, error) || !instance_attach (e, inst, error)) {
    instance_free (inst);
    return NULL;
  }
  g_ptr_array_add (e->instances, inst);
  if (fex->lookahead)
    e->lookahead = MAX (e->lookahead, fex->lookahead (opts));
  return inst;
}

gboolean
vh_engine_add_feature_with_options (VhEngine *e, const char *name,
    const VhModelOpt *mopts, unsigned n_opts, GError **error)
{
  const VhFeatureExtractor *fex = name ? vh_feature_extractor_lookup (name) :
      NULL;
  if (!fex) {
    char *known = vh_feature_extractor_names ();
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "unknown feature '%s' (vmafhip has %s)", name ? name : "(null)",
        known);
    g_free (known);
    return FALSE;
  }
  void *opts = g_malloc0 (MAX (fex->opts_size, 1));
  vh_feature_opts_init_defaults (fex, opts);
  gboolean ok = TRUE;
  for (unsigned k = 0; ok && k < n_opts; k++)
    ok = vh_feature_opts_set (fex, opts, &mopts[k], error);
  if (ok)
    ok = get_instance (e, fex, opts, error) != NULL;
  g_free (opts);
  return ok;
}

gboolean
vh_engine_add_feature (VhEngine *e, const char *name, GError **error)
{
  return vh_engine_add_feature_with_options (e, name, NULL, 0, error);
}

gboolean
vh_engine_add_model (VhEngine *e, const char *name_or_path,
    const char *report_name, const VhModelFlags *flags, GError **error)
{
  VhModel *model = vh_model_load (name_or_path, error);
  if (!model)
    return FALSE;
  return vh_engine_add_loaded_model (e, model, report_name, flags, error);
}

char *
vh_model_extractor_names (const VhModel *model)
{
  GString *names = g_string_new (NULL);
  for (unsigned i = 0; i < vh_model_n_features (model); i++) {
    const VhFeatureName *fn =
        vh_feature_name_lookup (vh_model_feature_name (model, i));
    const char *name = fn && fn->fex ? fn->fex->name : NULL;
    if (!name)
      continue;
    /* once each, in first-use order */
    gboolean seen = FALSE;
    for (unsigned k = 0; k < i && !seen; k++) {
      const VhFeatureName *other =
          vh_feature_name_lookup (vh_model_feature_name (model, k));
      seen = other && other->fex && !strcmp (other->fex->name, name);
    }
    if (!seen)
      g_string_append_printf (names, "%s%s", names->len ? ", " : "", name);
  }
  return g_string_free (names, FALSE);
}

gboolean
vh_model_check_overrides (const VhModel *model,
    const VhFeatureOverride *overrides, unsigned n_overrides, GError **error)
{
  const char *mname = vh_model_name (model);

  /* every feature is one vmafhip computes (a v1.0.16 model fails here) */
  for (unsigned i = 0; i < vh_model_n_features (model); i++) {
    const char *fname = vh_model_feature_name (model, i);
    const VhFeatureName *fn = vh_feature_name_lookup (fname);
    if (!fn || !fn->fex) {
      g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
          "model '%s' needs feature '%s' (%s), which vmafhip does not "
          "implement yet", mname, fn ? fn->alias : fname, fname);
      return FALSE;
    }
  }
  for (unsigned k = 0; k < n_overrides; k++) {
    const VhFeatureOverride *ov = &overrides[k];
    const VhFeatureExtractor *fex = NULL;
    for (unsigned i = 0; i < vh_model_n_features (model) && !fex; i++) {
      const VhFeatureName *fn =
          vh_feature_name_lookup (vh_model_feature_name (model, i));
      if (!strcmp (fn->fex->name, ov->feature))
        fex = fn->fex;
    }
    if (!fex) {
      char *names = vh_model_extractor_names (model);
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "model '%s': override '%s.%s' names '%s', which this model does "
          "not use (its features come from: %s)", mname, ov->feature,
          ov->opt.key, ov->feature, names);
      g_free (names);
      return FALSE;
    }
    /* the option and its value, on a scratch option set */
    void *opts = g_malloc0 (MAX (fex->opts_size, 1));
    vh_feature_opts_init_defaults (fex, opts);
    gboolean ok = vh_feature_opts_set (fex, opts, &ov->opt, error);
    g_free (opts);
    if (!ok) {
      g_prefix_error (error, "model '%s', override '%s.%s': ", mname,
          ov->feature, ov->opt.key);
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
vh_engine_add_loaded_model (VhEngine *e, VhModel *model,
    const char *report_name, const VhModelFlags *flags, GError **error)
{
  return vh_engine_add_loaded_model_with_overrides (e, model, report_name,
      flags, NULL, 0, error);
}

gboolean
vh_engine_add_loaded_model_with_overrides (VhEngine *e, VhModel *model,
    const char *report_name, const VhModelFlags *flags,
    const VhFeatureOverride *overrides, unsigned n_overrides, GError **error)
{
  const char *mname = vh_model_name (model);
  BoundModel *bm = g_new0 (BoundModel, 1);
  bm->model = model;
  bm->report_name = g_strdup (report_name ? report_name : mname);
  if (flags)
    bm->flags = *flags;
  bm->feature_metric = g_array_new (FALSE, FALSE, sizeof (unsigned));
  if (!vh_model_check_overrides (model, overrides, n_overrides, error))
    goto fail;

  for (unsigned i = 0; i < vh_model_n_features (model); i++) {
    const char *fname = vh_model_feature_name (model, i);
    /* known and implemented: checked above */
    const VhFeatureName *fn = vh_feature_name_lookup (fname);
    unsigned n_opts = 0;
    const VhModelOpt *mopts = vh_model_feature_opts (model, i, &n_opts);
    void *opts = g_malloc0 (MAX (fn->fex->opts_size, 1));
    vh_feature_opts_init_defaults (fn->fex, opts);
    for (unsigned k = 0; k < n_opts; k++) {
      if (!vh_feature_opts_set (fn->fex, opts, &mopts[k], error)) {
        g_prefix_error (error, "model '%s': ", mname);
        g_free (opts);
        goto fail;
      }
    }
    /* the user's overrides win over the model's options */
    for (unsigned k = 0; k < n_overrides; k++) {
      if (strcmp (overrides[k].feature, fn->fex->name))
        continue;
      if (!vh_feature_opts_set (fn->fex, opts, &overrides[k].opt, error)) {
        g_prefix_error (error, "model '%s', override '%s.%s': ", mname,
            overrides[k].feature, overrides[k].opt.key);
        g_free (opts);
        goto fail;
      }
    }
    Instance *inst = get_instance (e, fn->fex, opts, error);
    g_free (opts);
    if (!inst) {
      g_prefix_error (error, "model '%s': ", mname);
      goto fail;
    }
    char *metric_name = g_strconcat (fn->alias, inst->suffix, NULL);
    unsigned metric = vh_score_table_metric (e->table, metric_name);
    g_free (metric_name);
    g_array_append_val (bm->feature_metric, metric);
  }
  g_ptr_array_add (e->models, bm);
  return TRUE;

fail:
  bound_model_free (bm);
  return FALSE;
}

unsigned
vh_engine_lookahead (const VhEngine *e)
{
  return e->lookahead;
}

static gboolean
check_plane (const VhPlane *p, unsigned bpc, const char *what, GError **error)
{
  const unsigned bytes = bpc > 8 ? 2 : 1;
  if (!p->data || !p->width || !p->height) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "%s has no data or an empty size", what);
    return FALSE;
  }
  const unsigned step = p->step ? p->step : 1;
  if ((guint64) ABS (p->stride) < (guint64) ((p->width - 1) * step + 1) * bytes) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "%s stride %td is shorter than a row of %u samples", what, p->stride,
        p->width);
    return FALSE;
  }
  return TRUE;
}

static gboolean
check_picture (const VhEngine *e, const VhPicture *pic, const char *which,
    GError **error)
{
  char what[64];
  if (!pic) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "no %s picture given", which);
    return FALSE;
  }
  if (pic->bpc != e->info.bpc) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "%s picture has bit depth %u, the engine was set up for %u", which,
        pic->bpc, e->info.bpc);
    return FALSE;
  }
  if (pic->nplanes != 1 && pic->nplanes != 3) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "%s picture has %u planes (1 or 3 expected)", which, pic->nplanes);
    return FALSE;
  }
  if (pic->plane[0].width != e->info.width
      || pic->plane[0].height != e->info.height) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "%s picture is %ux%u, the engine was set up for %ux%u", which,
        pic->plane[0].width, pic->plane[0].height, e->info.width,
        e->info.height);
    return FALSE;
  }
  for (unsigned i = 0; i < pic->nplanes; i++) {
    g_snprintf (what, sizeof what, "%s picture plane %u", which, i);
    if (!check_plane (&pic->plane[i], pic->bpc, what, error))
      return FALSE;
  }
  return TRUE;
}

/* Runs the models on frames that just became final. */
/* A model output's metric, marked with its kind (the engine names them, so
 * it knows, and callers need not parse names). */
static unsigned
model_metric (VhEngine *e, const char *name, VhMetricKind kind)
{
  const unsigned metric = vh_score_table_metric (e->table, name);
  if (e->metric_kind->len <= metric)
    g_array_set_size (e->metric_kind, metric + 1);
  g_array_index (e->metric_kind, guint8, metric) = (guint8) kind;
  return metric;
}

VhMetricKind
vh_engine_metric_kind (const VhEngine *e, unsigned metric)
{
  return metric < e->metric_kind->len
      ? (VhMetricKind) g_array_index (e->metric_kind, guint8, metric)
      : VH_METRIC_FEATURE;
}

static void
predict_final_frames (VhEngine *e, unsigned new_final)
{
  unsigned max_features = 1;
  for (guint m = 0; m < e->models->len; m++)
    max_features = MAX (max_features, ((BoundModel *)
            g_ptr_array_index (e->models, m))->feature_metric->len);
  /* one buffer for the whole call: stack use must not grow with the number
   * of frames that become final at once (a flush after many in flight) */
  double *x = g_newa (double, max_features);

  for (; e->n_final < new_final; e->n_final++) {
    const unsigned frame = e->n_final;
    for (guint m = 0; m < e->models->len; m++) {
      BoundModel *bm = g_ptr_array_index (e->models, m);
      const unsigned nf = bm->feature_metric->len;
      VhModelScore s;
      gboolean complete = TRUE;

      for (unsigned i = 0; i < nf; i++)
        complete &= vh_score_table_get (e->table,
            g_array_index (bm->feature_metric, unsigned, i), frame, &x[i]);
      /* An extractor broke its contract; never report a score from
       * partial inputs. */
      g_return_if_fail (complete);

      vh_model_predict (bm->model, x, &bm->flags, &s);
      vh_score_table_set (e->table,
          model_metric (e, bm->report_name, VH_METRIC_MODEL), frame, s.score);
      if (!s.n_bootstrap)
        continue;
      static const char *const ci_suffix[] =
          { "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi" };
      const double ci[] = { s.bagging, s.stddev, s.ci_p95_lo, s.ci_p95_hi };
      char name[256];
      for (unsigned k = 0; k < s.n_bootstrap; k++) {
        g_snprintf (name, sizeof name, "%s_%04u", bm->report_name, k + 1);
        vh_score_table_set (e->table, model_metric (e, name,
                VH_METRIC_MODEL_BOOTSTRAP), frame, s.bootstrap[k]);
      }
      for (unsigned k = 0; k < G_N_ELEMENTS (ci); k++) {
        g_snprintf (name, sizeof name, "%s%s", bm->report_name, ci_suffix[k]);
        vh_score_table_set (e->table, model_metric (e, name,
                VH_METRIC_MODEL_BOOTSTRAP), frame, ci[k]);
      }
    }
  }
}

static void
deliver_sums (gpointer data, gpointer handle, unsigned index,
    const void *sums)
{
  VhEngine *e = data;
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->accel_handle != handle)
      continue;
    if (!e->deliver_error)
      inst->fex->extract_sums (inst->priv, sums, index, &inst->sink,
          &e->deliver_error);
    return;
  }
}

/* Takes finished frames from the accelerator until at most `max_pending`
 * are left in flight. */
static gboolean
collect_accelerated (VhEngine *e, unsigned max_pending, GError **error)
{
  unsigned delivered = 0;
  if (!e->accel)
    return TRUE;
  if (!e->accel->collect (e->accel_backend, max_pending, deliver_sums, e,
          &delivered, error))
    return FALSE;
  e->n_delivered += delivered;
  if (e->deliver_error) {
    g_propagate_error (error, e->deliver_error);
    e->deliver_error = NULL;
    return FALSE;
  }
  return TRUE;
}

/* Frames whose every feature is in: the pushed ones, less those the
 * accelerator or the workers still have. */
static unsigned
frames_complete (const VhEngine *e)
{
  unsigned done = e->n_pushed;
  if (vh_engine_is_accelerated (e))
    done = MIN (done, e->n_delivered);
  if (e->frames)
    done = MIN (done, vh_frame_pool_n_finished (e->frames));
  return done;
}

static void
update_final (VhEngine *e)
{
  const unsigned done = frames_complete (e);
  if (e->flushed)
    predict_final_frames (e, done);
  else if (done > e->lookahead)
    predict_final_frames (e, done - e->lookahead);
}

gboolean
vh_engine_push (VhEngine *e, const VhPicture *ref, const VhPicture *dis,
    GError **error)
{
  g_return_val_if_fail (e != NULL, FALSE);
  if (e->flushed) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "frame pushed after the end of the stream");
    return FALSE;
  }
  if (!e->instances->len) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "no model or feature to compute: add one first");
    return FALSE;
  }
  if (!e->have_info) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "the picture size is not set: call vh_engine_set_video_info first");
    return FALSE;
  }
  if (!check_picture (e, ref, "reference", error)
      || !check_picture (e, dis, "distorted", error))
    return FALSE;
  if (ref->nplanes != dis->nplanes) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "reference has %u planes, distorted %u", ref->nplanes, dis->nplanes);
    return FALSE;
  }
  for (unsigned i = 1; i < ref->nplanes; i++) {
    if (ref->plane[i].width != dis->plane[i].width
        || ref->plane[i].height != dis->plane[i].height) {
      g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
          "chroma plane %u is %ux%u in the reference, %ux%u in the distorted",
          i, ref->plane[i].width, ref->plane[i].height, dis->plane[i].width,
          dis->plane[i].height);
      return FALSE;
    }
  }

  if (e->n_pushed == 0 && !vh_engine_check_layout (e, ref, error))
    return FALSE;
  if (ref->memory != dis->memory) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "one picture is in GPU memory, the other in host memory");
    return FALSE;
  }
  if (ref->memory == VH_PICTURE_DEVICE
      && e->n_accelerated < e->instances->len) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "pictures in GPU memory need every feature on the GPU (%u of %u are)",
        e->n_accelerated, e->instances->len);
    return FALSE;
  }
  if (e->n_pushed == 0 && e->n_threads > 1 && !e->frames
      && !start_workers (e, ref, error))
    return FALSE;
  if (!extract_here (e, ref, dis, error))
    return FALSE;
  if (e->frames && (!vh_frame_pool_submit (e->frames, ref, dis, error)
          || !vh_frame_pool_drain (e->frames, FALSE, error)))
    return FALSE;
  if (vh_engine_is_accelerated (e)) {
    /* keep a slot free, then queue this frame and take what is done */
    const unsigned slots = e->accel->max_in_flight (e->accel_backend);
    if (!collect_accelerated (e, slots ? slots - 1 : 0, error)
        || !e->accel->submit (e->accel_backend, ref, dis, e->n_pushed, error))
      return FALSE;
    e->n_pushed++;
    if (!collect_accelerated (e, G_MAXUINT, error))
      return FALSE;
  } else {
    e->n_pushed++;
  }
  update_final (e);
  return TRUE;
}

gboolean
vh_engine_flush (VhEngine *e, GError **error)
{
  g_return_val_if_fail (e != NULL, FALSE);
  if (e->flushed)
    return TRUE;
  if (!collect_accelerated (e, 0, error))
    return FALSE;
  if (e->frames && !vh_frame_pool_drain (e->frames, TRUE, error))
    return FALSE;
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->fex->flush && e->n_pushed
        && !inst->fex->flush (inst->priv, &inst->sink, error))
      return FALSE;
  }
  e->flushed = TRUE;
  update_final (e);
  return TRUE;
}

void
vh_engine_reset (VhEngine *e)
{
  if (e->accel)
    e->accel->reset (e->accel_backend);
  if (e->frames)
    vh_frame_pool_reset (e->frames);
  e->n_delivered = 0;
  g_clear_error (&e->deliver_error);
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->initialised && inst->fex->close)
      inst->fex->close (inst->priv);
    inst->initialised = FALSE;
    /* Same options and size as before: init cannot fail now (and does
     * nothing before the size is known). */
    if (!instance_init (e, inst, NULL))
      g_warning ("vmafhip: re-initialising feature '%s' failed",
          inst->fex->name);
  }
  /* Keep the metric order (models' feature bindings refer to it). */
  const unsigned n = vh_score_table_n_metrics (e->table);
  char **names = g_new0 (char *, n + 1);
  for (unsigned i = 0; i < n; i++)
    names[i] = g_strdup (vh_score_table_metric_name (e->table, i));
  vh_score_table_clear (e->table);
  for (unsigned i = 0; i < n; i++)
    vh_score_table_metric (e->table, names[i]);
  g_strfreev (names);
  e->n_pushed = e->n_final = 0;
  e->flushed = FALSE;
}

gboolean
vh_engine_release_frames (VhEngine *e, unsigned upto, unsigned subsample,
    GError **error)
{
  if (upto > e->n_final) {
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "cannot release frames below %u: only %u are final", upto,
        e->n_final);
    return FALSE;
  }
  vh_score_table_retire (e->table, upto, subsample);
  return TRUE;
}

unsigned
vh_engine_frames_in_flight (const VhEngine *e)
{
  if (e->n_threads < 2)
    return 0;
  for (guint i = 0; i < e->instances->len; i++) {
    const Instance *inst = g_ptr_array_index (e->instances, i);
    if (!inst->accel_handle && (!inst->fex->sequential
            || inst->fex->compute_sums))
      return e->n_threads + 2;
  }
  return 0;
}

unsigned
vh_engine_threads (const VhEngine *e)
{
  return e->n_threads;
}

unsigned
vh_engine_n_pushed (const VhEngine *e)
{
  return e->n_pushed;
}

unsigned
vh_engine_n_final (const VhEngine *e)
{
  return e->n_final;
}

gboolean
vh_engine_is_flushed (const VhEngine *e)
{
  return e->flushed;
}

const VhScoreTable *
vh_engine_scores (const VhEngine *e)
{
  return e->table;
}

unsigned
vh_engine_n_models (const VhEngine *e)
{
  return e->models->len;
}

const char *
vh_engine_model_report_name (const VhEngine *e, unsigned i)
{
  g_return_val_if_fail (i < e->models->len, NULL);
  return ((BoundModel *) g_ptr_array_index (e->models, i))->report_name;
}

gboolean
vh_engine_model_is_bootstrap (const VhEngine *e, unsigned i)
{
  g_return_val_if_fail (i < e->models->len, FALSE);
  return vh_model_is_bootstrap (((BoundModel *)
          g_ptr_array_index (e->models, i))->model);
}
