/* vmafhip — the engine's models: bound to the features' metrics in the
 * score table, and their scores predicted as frames become final. */
#include <string.h>

#include "engine-private.h"

void
vh_engine_bound_model_free (gpointer p)
{
  BoundModel *bm = p;
  vh_model_free (bm->model);
  g_free (bm->report_name);
  g_array_unref (bm->feature_metric);
  g_free (bm);
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
    char *owner = !strcmp (bm->report_name, "vmaf")
        ? g_strdup_printf ("model '%s'", mname)
        : g_strdup_printf ("model '%s' (name=%s)", mname, bm->report_name);
    Instance *inst = vh_engine_get_instance (e, fn->fex, opts, owner, TRUE,
        error);
    g_free (owner);
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
  vh_engine_bound_model_free (bm);
  return FALSE;
}

/* A model output's metric, marked with its kind (the engine names them, so
 * it knows, and callers need not parse names). */
unsigned
vh_engine_model_metric (VhEngine *e, const char *name, VhMetricKind kind)
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

/* Runs the models on frames that just became final. */
void
vh_engine_predict_final_frames (VhEngine *e, unsigned new_final)
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
    /* frames off the subsample have no features but the sequential ones */
    if (!vh_engine_on_grid (e, frame))
      continue;
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
      vh_score_table_set (e->table, vh_engine_model_metric (e,
              bm->report_name, VH_METRIC_MODEL), frame, s.score);
      if (!s.n_bootstrap)
        continue;
      static const char *const ci_suffix[] =
          { "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi" };
      const double ci[] = { s.bagging, s.stddev, s.ci_p95_lo, s.ci_p95_hi };
      char name[256];
      for (unsigned k = 0; k < s.n_bootstrap; k++) {
        g_snprintf (name, sizeof name, "%s_%04u", bm->report_name, k + 1);
        vh_score_table_set (e->table, vh_engine_model_metric (e, name,
                VH_METRIC_MODEL_BOOTSTRAP), frame, s.bootstrap[k]);
      }
      for (unsigned k = 0; k < G_N_ELEMENTS (ci); k++) {
        g_snprintf (name, sizeof name, "%s%s", bm->report_name, ci_suffix[k]);
        vh_score_table_set (e->table, vh_engine_model_metric (e, name,
                VH_METRIC_MODEL_BOOTSTRAP), frame, ci[k]);
      }
    }
  }
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
