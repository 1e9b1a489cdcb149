/* vmafhip — the engine's feature instances: one per extractor and feature
 * parameters, made, initialised for the video, offered to the
 * accelerator and freed here (engine-private.h). */
#include <string.h>

#include "engine-private.h"

void
vh_engine_instance_free (gpointer p)
{
  Instance *inst = p;
  if (inst->initialised && inst->fex->close)
    inst->fex->close (inst->priv);
  g_free (inst->priv);
  g_free (inst->opts);
  g_free (inst->suffix);
  g_free (inst->owner);
  g_hash_table_unref (inst->sink.metric_of_name);
  g_hash_table_unref (inst->sink.metric_of_plain);
  g_free (inst);
}

gboolean
vh_engine_instance_init (VhEngine *e, Instance *inst, GError **error)
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
gboolean
vh_engine_instance_attach (VhEngine *e, Instance *inst, GError **error)
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
vh_engine_all_accelerated (const VhEngine *e)
{
  return e->instances->len > 0 && e->n_accelerated == e->instances->len;
}

static void
warn_not_added (VhEngine *e, const Instance *kept, const void *opts,
    const char *owner)
{
  const VhFeatureExtractor *fex = kept->fex;
  void *defaults = g_malloc0 (MAX (fex->opts_size, 1));
  vh_feature_opts_init_defaults (fex, defaults);
  /* the dropped entry as it was written (its non-default options), the
   * options it differs by, and the kept one's values of those */
  char **given = vh_feature_opts_differences (fex, defaults, opts);
  char **diff = vh_feature_opts_differences (fex, kept->opts, opts);
  char **kept_vals = vh_feature_opts_differences (fex, opts, kept->opts);
  char *entry = g_strjoinv (":", given);
  char *kept_with = g_strjoinv (", ", kept_vals);
  GString *names = g_string_new (NULL);
  GString *ovr = g_string_new (NULL);
  gboolean has_params = FALSE;
  GString *w = g_string_new (NULL);

  for (guint k = 0; diff[k]; k++) {
    char *eq = strchr (diff[k], '=');
    g_string_append_printf (names, "%s%.*s", k ? ", " : "",
        (int) (eq - diff[k]), diff[k]);
    g_string_append_printf (ovr, ":%s.%s", fex->name, diff[k]);
  }
  for (const VhOptionDesc *o = fex->options; o && o->name; o++)
    has_params |= o->feature_param;

  g_string_printf (w, "%s: '%s%s%s' is not added: %s computes '%s' with "
      "the same feature parameters already (with %s), and as in libvmaf "
      "3.2.0 such an extractor is added once, the first: %s %s no feature "
      "parameter, so %s not make another one, and the keys stay the first "
      "one's. For the variant: ", owner, fex->name, *entry ? "=" : "", entry,
      kept->owner, fex->name, kept_with, names->str,
      diff[0] && diff[1] ? "are" : "is",
      diff[0] && diff[1] ? "they do" : "it does");
  if (kept->owner_is_model)
    g_string_append_printf (w, "score without that model (vmafhip-score -n "
        "without -m), or set it on the model (its -m or models= entry "
        "with '%s')", ovr->str);
  else
    g_string_append_printf (w, "give all the options in %s", kept->owner);
  if (has_params)
    g_string_append_printf (w, "; or with a feature parameter of '%s' "
        "that differs: that is another extractor, whose keys carry their "
        "own suffix", fex->name);
  g_string_append_c (w, '.');

  /* once: a model's features reach it once per feature */
  gboolean seen = FALSE;
  for (guint i = 0; i < e->warnings->len && !seen; i++)
    seen = !strcmp (g_ptr_array_index (e->warnings, i), w->str);
  if (!seen)
    g_ptr_array_add (e->warnings, g_string_free (w, FALSE));
  else
    g_string_free (w, TRUE);
  g_string_free (names, TRUE);
  g_string_free (ovr, TRUE);
  g_free (entry);
  g_free (kept_with);
  g_strfreev (given);
  g_strfreev (diff);
  g_strfreev (kept_vals);
  g_free (defaults);
}

/* Finds the instance of `fex` with the same non-default feature
 * parameters (the same output names), or makes one; one alike with other
 * options is used as it is, with a warning (warn_not_added). */
Instance *
vh_engine_get_instance (VhEngine *e, const VhFeatureExtractor *fex,
    const void *opts, const char *owner, gboolean owner_is_model,
    GError **error)
{
  char *suffix = vh_feature_opts_suffix (fex, opts);

  /* libvmaf compares the extractor's name with its non-default feature
   * parameters (vmaf_feature_name_from_options): those give the output
   * names, so two instances alike there would write the same keys */
  for (guint i = 0; i < e->instances->len; i++) {
    Instance *inst = g_ptr_array_index (e->instances, i);
    if (inst->fex != fex || strcmp (inst->suffix, suffix))
      continue;
    if (memcmp (inst->opts, opts, fex->opts_size))
      warn_not_added (e, inst, opts, owner ? owner : fex->name);
    g_free (suffix);
    return inst;
  }
  if (e->n_pushed) {
    g_free (suffix);
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "models and features must be added before the first frame");
    return NULL;
  }
  Instance *inst = g_new0 (Instance, 1);
  inst->fex = fex;
  inst->opts = g_memdup2 (opts, fex->opts_size);
  inst->priv = g_malloc0 (MAX (fex->priv_size, 1));
  inst->suffix = suffix;
  inst->owner = owner ? g_strdup (owner)
      : g_strdup_printf ("feature '%s'", fex->name);
  inst->owner_is_model = owner_is_model;
  inst->sink.table = e->table;
  inst->sink.suffix = inst->suffix;
  inst->sink.metric_of_name = g_hash_table_new_full (g_str_hash, g_str_equal,
      g_free, NULL);
  inst->sink.metric_of_plain = g_hash_table_new_full (g_str_hash,
      g_str_equal, g_free, NULL);
  if (!vh_engine_instance_init (e, inst, error)
      || !vh_engine_instance_attach (e, inst, error)) {
    vh_engine_instance_free (inst);
    return NULL;
  }
  g_ptr_array_add (e->instances, inst);
  if (fex->lookahead)
    e->lookahead = MAX (e->lookahead, fex->lookahead (opts));
  return inst;
}
