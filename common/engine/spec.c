/* vmafhip — model and feature specs in libvmaf's syntax (vh-spec.h). */
#include <string.h>

#include "vh-spec.h"
#include "vh-feature-internal.h"

/* "true"/"false" are booleans, numbers numbers; anything else stays a
 * string, which the option check rejects with the type it wants. */
static void
opt_from_text (VhModelOpt *opt, char *key, char *value)
{
  char *end = NULL;
  double number;

  memset (opt, 0, sizeof *opt);
  opt->key = key;
  if (!strcmp (value, "true") || !strcmp (value, "false")) {
    opt->kind = VH_OPTVAL_BOOL;
    opt->boolean = !strcmp (value, "true");
    return;
  }
  number = g_ascii_strtod (value, &end);
  if (*value && end && !*end) {
    opt->kind = VH_OPTVAL_NUMBER;
    opt->number = number;
    return;
  }
  opt->kind = VH_OPTVAL_STRING;
  opt->string = value;
}

/* libvmaf's flag values: bare, =true or =false. */
static gboolean
parse_flag (const char *text, const char *value, bool *flag, GError **error)
{
  if (!value || !strcmp (value, "true"))
    *flag = true;
  else if (!strcmp (value, "false"))
    *flag = false;
  else {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "model '%s': '%s' wants true or false", text, value);
    return FALSE;
  }
  return TRUE;
}

/* The strings a spec points at live in `storage` (freed with the spec). */
typedef struct {
  VhModelSpec spec;
  GPtrArray *storage;
  GArray *overrides;
} ModelSpecPriv;

VhModelSpec *
vh_model_spec_parse (const char *text, const VhModelFlags *global,
    GError **error)
{
  ModelSpecPriv *p = g_new0 (ModelSpecPriv, 1);
  VhModelSpec *spec = &p->spec;
  char **parts;

  p->storage = g_ptr_array_new_with_free_func (g_free);
  p->overrides = g_array_new (FALSE, TRUE, sizeof (VhFeatureOverride));
  if (global)
    spec->flags = *global;
  if (!text || !text[strspn (text, " \t")]) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "empty model: give version=NAME, path=FILE or a built-in name");
    goto fail;
  }
  parts = g_strsplit (text, ":", -1);
  g_ptr_array_add (p->storage, parts[0]);
  for (guint i = 0; parts[i]; i++) {
    char *part = g_strstrip (parts[i]);
    char *eq = strchr (part, '=');
    char *key = part, *value = NULL;

    if (i > 0)
      g_ptr_array_add (p->storage, part);
    if (eq) {
      *eq = '\0';
      value = eq + 1;
    }
    if (!*key) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "model '%s': empty option", text);
      goto fail_parts;
    }
    if (i == 0 && !value && strcmp (key, "enable_transform")
        && strcmp (key, "disable_clip")) {
      /* vmafhip's short form: a built-in name or a path (which may hold
       * a '.') */
      spec->source = key;
      spec->source_kind = VH_MODEL_SOURCE_ANY;
    } else if (!strcmp (key, "version") || !strcmp (key, "path")) {
      if (!value || !*value || spec->source) {
        g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
            spec->source ? "model '%s': more than one model named" :
            "model '%s': %s= needs a value", text, key);
        goto fail_parts;
      }
      spec->source = value;
      spec->source_kind = key[0] == 'v' ? VH_MODEL_SOURCE_BUILTIN
          : VH_MODEL_SOURCE_PATH;
    } else if (!strcmp (key, "name")) {
      if (!value || !*value) {
        g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
            "model '%s': name= needs a value", text);
        goto fail_parts;
      }
      spec->report_name = value;
    } else if (!strcmp (key, "enable_transform")) {
      if (!parse_flag (text, value, &spec->flags.enable_transform, error))
        goto fail_parts;
    } else if (!strcmp (key, "disable_clip")) {
      if (!parse_flag (text, value, &spec->flags.disable_clip, error))
        goto fail_parts;
    } else if (strchr (key, '.')) {
      /* FEATURE.OPTION=VALUE */
      char *dot = strchr (key, '.');
      VhFeatureOverride ov;
      if (!value || !*value || dot == key || !dot[1]) {
        g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
            "model '%s': '%s%s%s' is not FEATURE.OPTION=VALUE", text, key,
            value ? "=" : "", value ? value : "");
        goto fail_parts;
      }
      *dot = '\0';
      ov.feature = key;
      opt_from_text (&ov.opt, dot + 1, value);
      g_array_append_val (p->overrides, ov);
    } else {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "model '%s': unknown option '%s' (known: version=, path=, name=, "
          "enable_transform, disable_clip, FEATURE.OPTION=VALUE)", text, key);
      goto fail_parts;
    }
  }
  g_free (parts);             /* the strings are in storage */
  if (!spec->source) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "model '%s' names no model: add version=NAME or path=FILE", text);
    goto fail;
  }
  if (spec->report_name && !strcmp (spec->report_name, "score")) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "model '%s': 'score' is reserved for the first model's score; "
        "choose another name", text);
    goto fail;
  }
  spec->overrides = (VhFeatureOverride *) p->overrides->data;
  spec->n_overrides = p->overrides->len;
  return spec;

fail_parts:
  /* parts[0] and the parsed parts are in storage; free the rest */
  for (guint i = p->storage->len; parts[i]; i++)
    g_free (parts[i]);
  g_free (parts);
fail:
  vh_model_spec_free (spec);
  return NULL;
}

VhModelSpec *
vh_model_spec_new_source (const char *name_or_path, const VhModelFlags *flags)
{
  ModelSpecPriv *p = g_new0 (ModelSpecPriv, 1);

  p->storage = g_ptr_array_new_with_free_func (g_free);
  p->overrides = g_array_new (FALSE, TRUE, sizeof (VhFeatureOverride));
  p->spec.source = g_strdup (name_or_path);
  g_ptr_array_add (p->storage, p->spec.source);
  p->spec.source_kind = VH_MODEL_SOURCE_ANY;
  if (flags)
    p->spec.flags = *flags;
  return &p->spec;
}

void
vh_model_spec_free (VhModelSpec *spec)
{
  ModelSpecPriv *p = (ModelSpecPriv *) spec;

  if (!spec)
    return;
  g_ptr_array_unref (p->storage);
  g_array_unref (p->overrides);
  g_free (p);
}

gboolean
vh_model_spec_check (const VhModelSpec *spec, const VhModel *model,
    GError **error)
{
  /* one check, the engine's, for loading and binding alike */
  return vh_model_check_overrides (model, spec->overrides, spec->n_overrides,
      error);
}

VhModel *
vh_model_spec_load (const VhModelSpec *spec, GError **error)
{
  VhModel *model;

  switch (spec->source_kind) {
    case VH_MODEL_SOURCE_BUILTIN:
      model = vh_model_load_builtin (spec->source, error);
      break;
    case VH_MODEL_SOURCE_PATH:
      model = vh_model_load_file (spec->source, error);
      break;
    case VH_MODEL_SOURCE_ANY:
    default:
      model = vh_model_load (spec->source, error);
      break;
  }
  if (model && !vh_model_spec_check (spec, model, error))
    g_clear_pointer (&model, vh_model_free);
  return model;
}

const char *
vh_model_spec_report_name (const VhModelSpec *spec)
{
  g_return_val_if_fail (spec, NULL);
  return spec->report_name ? spec->report_name : VH_MODEL_DEFAULT_REPORT_NAME;
}

gboolean
vh_model_specs_check_report_names (const VhModelSpec *const *specs,
    unsigned n, GError **error)
{
  for (unsigned i = 0; i < n; i++) {
    const char *name = vh_model_spec_report_name (specs[i]);
    for (unsigned k = 0; k < i; k++) {
      if (strcmp (name, vh_model_spec_report_name (specs[k])))
        continue;
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "two models are reported as '%s' (models '%s' and '%s'): give "
          "each its own name with :name=NAME%s", name, specs[k]->source,
          specs[i]->source, specs[i]->report_name ? "" : " (a model "
          "without name= is reported as '" VH_MODEL_DEFAULT_REPORT_NAME
          "', as in libvmaf)");
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
vh_engine_add_model_spec (VhEngine *engine, const VhModelSpec *spec,
    VhModel *model, GError **error)
{
  return vh_engine_add_loaded_model_with_overrides (engine, model,
      vh_model_spec_report_name (spec), &spec->flags, spec->overrides, spec->n_overrides,
      error);
}

/* -------------------------------------------------------------- features */

typedef struct {
  VhFeatureSpec spec;
  char **parts;
} FeatureSpecPriv;

VhFeatureSpec *
vh_feature_spec_parse (const char *text, GError **error)
{
  FeatureSpecPriv *p = g_new0 (FeatureSpecPriv, 1);
  VhFeatureSpec *spec = &p->spec;
  const char *eq = text ? strchr (text, '=') : NULL;
  GArray *opts = g_array_new (FALSE, TRUE, sizeof (VhModelOpt));

  if (!text || !*text || eq == text) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "feature '%s': no feature name", text ? text : "");
    goto fail;
  }
  spec->name = eq ? g_strndup (text, eq - text) : g_strdup (text);
  /* NAME=OPTION=VALUE[:OPTION=VALUE...]; "NAME=" has one empty option,
   * refused below as libvmaf's CLI refuses it */
  p->parts = !eq ? g_new0 (char *, 1) : eq[1] ? g_strsplit (eq + 1, ":", -1)
      : g_strdupv ((char *[]) { (char *) "", NULL });
  for (guint i = 0; p->parts[i]; i++) {
    char *part = p->parts[i];
    char *value = strchr (part, '=');
    VhModelOpt opt;
    if (!value || value == part || !value[1]) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "feature '%s': '%s' is not OPTION=VALUE", text, part);
      goto fail;
    }
    *value++ = '\0';
    opt_from_text (&opt, part, value);
    g_array_append_val (opts, opt);
  }
  spec->n_opts = opts->len;
  spec->opts = (VhModelOpt *) g_array_free (opts, FALSE);
  return spec;

fail:
  g_array_free (opts, TRUE);
  vh_feature_spec_free (spec);
  return NULL;
}

void
vh_feature_spec_free (VhFeatureSpec *spec)
{
  FeatureSpecPriv *p = (FeatureSpecPriv *) spec;

  if (!spec)
    return;
  g_free (spec->name);
  g_free (spec->opts);
  g_strfreev (p->parts);
  g_free (p);
}

gboolean
vh_engine_add_feature_spec (VhEngine *engine, const VhFeatureSpec *spec,
    GError **error)
{
  if (!vh_engine_add_feature_with_options (engine, spec->name, spec->opts,
          spec->n_opts, error)) {
    g_prefix_error (error, "feature '%s': ", spec->name);
    return FALSE;
  }
  return TRUE;
}
