/* vmafhip — the CPU scoring engine: features, pictures, frames, the
 * accelerator, finality. Models are in engine-models.c, frames in flight
 * on worker threads in engine-workers.c, the features' sinks in
 * feature-sink.c. */
#include <string.h>

#include "engine-private.h"

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
  e->instances = g_ptr_array_new_with_free_func (vh_engine_instance_free);
  e->models = g_ptr_array_new_with_free_func (vh_engine_bound_model_free);
  e->warnings = g_ptr_array_new_with_free_func (g_free);
  e->table = vh_score_table_new ();
  e->metric_kind = g_array_new (FALSE, TRUE, sizeof (guint8));
  e->n_threads = 1;
  e->subsample = 1;
  vh_config_init (&e->config);
  return e;
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
    if (inst->accel_handle || inst->on_workers
        || !vh_engine_computes (e, inst, e->n_pushed))
      continue;
    if (!inst->fex->extract (inst->priv, ref, dis, e->n_pushed, &inst->sink,
            error))
      return FALSE;
  }
  return TRUE;
}

void
vh_engine_free (VhEngine *e)
{
  if (!e)
    return;
  vh_engine_workers_free (e);
  vh_engine_sums_free (e);
  if (e->accel)
    e->accel->free (e->accel_backend);
  vh_engine_scale_free (e);
  g_clear_error (&e->deliver_error);
  g_clear_error (&e->refused);
  g_ptr_array_unref (e->models);
  g_ptr_array_unref (e->instances);
  g_ptr_array_unref (e->warnings);
  vh_score_table_free (e->table);
  g_array_unref (e->metric_kind);
  vh_config_clear (&e->config);
  g_free (e);
}

gboolean
vh_engine_set_config (VhEngine *e, const VhConfig *config, GError **error)
{
  g_return_val_if_fail (e != NULL && config != NULL, FALSE);
  if (e->n_pushed || e->n_accelerated || e->workers) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "the engine's settings must be set before its accelerator, threads "
        "and first frame");
    return FALSE;
  }
  vh_config_copy (&e->config, config);
  if (e->accel && e->accel->set_config)
    e->accel->set_config (e->accel_backend, &e->config);
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
  if (ops->set_config)
    ops->set_config (backend, &e->config);
  if (ops->set_subsample)
    ops->set_subsample (backend, e->subsample);
  for (guint i = 0; i < e->instances->len; i++)
    if (!vh_engine_instance_attach (e, g_ptr_array_index (e->instances, i),
            error))
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
    if (!vh_engine_instance_init (e, inst, error)
        || !vh_engine_instance_attach (e, inst, error)) {
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

/* Why `opts` is not added beside `kept`, and how to get that variant */
char **
vh_engine_take_warnings (VhEngine *e)
{
  if (!e->warnings->len)
    return NULL;
  GPtrArray *w = e->warnings;
  e->warnings = g_ptr_array_new_with_free_func (g_free);
  g_ptr_array_set_free_func (w, NULL);
  g_ptr_array_add (w, NULL);
  return (char **) g_ptr_array_free (w, FALSE);
}

gboolean
vh_engine_add_feature_from (VhEngine *e, const char *model,
    const char *name, const VhModelOpt *mopts, unsigned n_opts,
    GError **error)
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
  if (ok) {
    char *owner = model ? g_strdup_printf ("model '%s'", model)
        : g_strdup_printf ("feature '%s'", name);
    ok = vh_engine_get_instance (e, fex, opts, owner, model != NULL,
        error) != NULL;
    g_free (owner);
  }
  g_free (opts);
  return ok;
}

gboolean
vh_engine_add_feature_with_options (VhEngine *e, const char *name,
    const VhModelOpt *mopts, unsigned n_opts, GError **error)
{
  return vh_engine_add_feature_from (e, NULL, name, mopts, n_opts, error);
}

gboolean
vh_engine_add_feature (VhEngine *e, const char *name, GError **error)
{
  return vh_engine_add_feature_with_options (e, name, NULL, 0, error);
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

/* Every sample of a picture deeper than 8 bits within its depth: the
 * extractors' integer arithmetic, and the tables they index by sample
 * value, hold only for those (a 10-bit stream carrying 16-bit values is
 * refused, not scored). */
static gboolean
check_depth (const VhPicture *pic, const char *which, unsigned frame,
    GError **error)
{
  if (pic->bpc <= 8 || pic->bpc >= 16)
    return TRUE;
  for (unsigned i = 0; i < pic->nplanes; i++) {
    const VhPlane *p = &pic->plane[i];
    if (!(vh_plane_or16 (p, 0, p->height) >> pic->bpc))
      continue;
    /* the row, for the message */
    for (unsigned y = 0; y < p->height; y++) {
      if (vh_plane_or16 (p, y, y + 1) >> pic->bpc) {
        g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
            "frame %u: %s picture plane %u row %u has a sample above %u "
            "bits (the data does not match its declared depth)", frame,
            which, i, y, pic->bpc);
        return FALSE;
      }
    }
  }
  return TRUE;
}

static gboolean
check_picture (const VhEngine *e, const VhPicture *pic, const char *which,
    gboolean check_size, GError **error)
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
  if (check_size && (pic->plane[0].width != e->info.width
          || pic->plane[0].height != e->info.height)) {
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

/* The accelerator's sums of one instance and frame, into its extractor. */
static void
deliver_sums (gpointer data, gpointer handle, unsigned index,
    const void *sums)
{
  VhEngine *e = data;
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->accel_handle != handle)
      continue;
    if (e->deliver_error)
      return;
    if (vh_engine_sums_independent (inst))
      vh_engine_sums_queue (e, i, index, sums, &e->deliver_error);
    else
      inst->fex->extract_sums (inst->priv, sums, index, &inst->sink,
          &e->deliver_error);
    return;
  }
}

/* Takes finished frames from the accelerator until at most `max_pending`
 * are left in flight, and the helpers' extractions of their sums that are
 * done (all of them with max_pending 0). */
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
  return vh_engine_sums_drain (e, max_pending == 0, error);
}

/* Frames whose every feature is in: the pushed ones, less those the
 * accelerator or the workers still have. */
static unsigned
frames_complete (const VhEngine *e)
{
  unsigned done = e->n_pushed;
  if (vh_engine_is_accelerated (e))
    done = MIN (MIN (done, e->n_delivered), vh_engine_sums_first_pending (e));
  if (e->frames)
    done = MIN (done, vh_frame_pool_n_finished (e->frames));
  return done;
}

static void
update_final (VhEngine *e)
{
  const unsigned done = frames_complete (e);
  if (e->flushed)
    vh_engine_predict_final_frames (e, done);
  else if (done > e->lookahead)
    vh_engine_predict_final_frames (e, done - e->lookahead);
}

gboolean
vh_engine_push (VhEngine *e, const VhPicture *ref, const VhPicture *dis,
    GError **error)
{
  g_return_val_if_fail (e != NULL, FALSE);
  if (e->refused) {
    g_propagate_error (error, g_error_copy (e->refused));
    return FALSE;
  }
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
  /* a distorted picture to scale has its own size (checked below) */
  if (!check_picture (e, ref, "reference", TRUE, error)
      || !check_picture (e, dis, "distorted", !e->dis_scaled, error))
    return FALSE;
  if (ref->nplanes != dis->nplanes) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "reference has %u planes, distorted %u", ref->nplanes, dis->nplanes);
    return FALSE;
  }
  if (e->dis_scaled && !vh_engine_check_scaled_planes (e, dis, error))
    return FALSE;
  for (unsigned i = 1; i < ref->nplanes && !e->dis_scaled; i++) {
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
  /* either picture may be in GPU memory (a reference uploaded once for
   * several renditions beside distorted pictures in host memory) */
  const gboolean any_device = ref->memory == VH_PICTURE_DEVICE
      || dis->memory == VH_PICTURE_DEVICE;
  if (any_device && e->n_accelerated < e->instances->len) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "pictures in GPU memory need every feature on the GPU (%u of %u are)",
        e->n_accelerated, e->instances->len);
    return FALSE;
  }
  /* what the CPU reads (the GPU backend's staging is not checked here) */
  if (!any_device && e->n_accelerated < e->instances->len
      && (!check_depth (ref, "reference", e->n_pushed, &e->refused)
          || !check_depth (dis, "distorted", e->n_pushed, &e->refused))) {
    g_propagate_error (error, g_error_copy (e->refused));
    return FALSE;
  }
  if (e->dis_scaled && !(dis = vh_engine_scale_distorted (e, ref, dis,
              error)))
    return FALSE;
  if (e->n_pushed == 0 && e->n_threads > 1 && !e->frames
      && !vh_engine_workers_start (e, ref, error))
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
vh_engine_wait_accelerator (VhEngine *e, GError **error)
{
  g_return_val_if_fail (e != NULL, FALSE);
  if (!vh_engine_is_accelerated (e) || e->flushed)
    return TRUE;
  if (!collect_accelerated (e, 0, error))
    return FALSE;
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
  vh_engine_sums_reset (e);
  e->n_delivered = 0;
  g_clear_error (&e->deliver_error);
  g_clear_error (&e->refused);
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    /* only extractors that carry frames over have anything to forget; the
     * others keep their state (and what it holds open: CAMBI's heatmap
     * files, written again from frame 0) */
    if (!inst->fex->sequential)
      continue;
    if (inst->initialised && inst->fex->close)
      inst->fex->close (inst->priv);
    inst->initialised = FALSE;
    /* Same options and size as before: init cannot fail now (and does
     * nothing before the size is known). */
    if (!vh_engine_instance_init (e, inst, NULL))
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
vh_engine_set_subsample (VhEngine *e, unsigned subsample, GError **error)
{
  if (e->n_pushed) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "the subsample must be set before the first frame");
    return FALSE;
  }
  if (!subsample) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "the subsample must be at least 1");
    return FALSE;
  }
  e->subsample = subsample;
  if (e->accel && e->accel->set_subsample)
    e->accel->set_subsample (e->accel_backend, subsample);
  return TRUE;
}

gboolean
vh_engine_release_frames (VhEngine *e, unsigned upto, GError **error)
{
  if (upto > e->n_final) {
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "cannot release frames below %u: only %u are final", upto,
        e->n_final);
    return FALSE;
  }
  vh_score_table_retire (e->table, upto, e->subsample);
  return TRUE;
}

unsigned
vh_engine_subsample (const VhEngine *e)
{
  return e->subsample;
}

gboolean
vh_engine_scores_frame (const VhEngine *e, unsigned index)
{
  return vh_subsample_computes (FALSE, e->subsample, index);
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

