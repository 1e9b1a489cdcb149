/* vmafhip — the element's enums, settings and models. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* ---------------------------------------------------------------- enums */

GType
gst_vmafhip_pool_method_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_POOL_MIN, "Minimum value", "min"},
    {GST_VMAFHIP_POOL_MAX, "Maximum value", "max"},
    {GST_VMAFHIP_POOL_MEAN, "Arithmetic mean", "mean"},
    {GST_VMAFHIP_POOL_HARMONIC_MEAN, "Harmonic mean", "harmonic_mean"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipPoolMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_vmafhip_results_format_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_RESULTS_NONE, "None (JSON if results-filename is set)",
        "none"},
    {GST_VMAFHIP_RESULTS_XML, "XML", "xml"},
    {GST_VMAFHIP_RESULTS_JSON, "JSON", "json"},
    {GST_VMAFHIP_RESULTS_CSV, "Comma-separated values (CSV)", "csv"},
    {GST_VMAFHIP_RESULTS_SUB, "MicroDVD subtitles, one line per frame (as libvmaf's)", "sub"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipResultsFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_vmafhip_backend_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_BACKEND_AUTO, "A working GPU if any, else the CPU", "auto"},
    {GST_VMAFHIP_BACKEND_CPU, "CPU", "cpu"},
    {GST_VMAFHIP_BACKEND_HIP, "HIP GPU", "hip"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}


GType
gst_vmafhip_rate_mismatch_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_RATE_MISMATCH_ERROR,
        "Refuse inputs with different frame rates", "error"},
    {GST_VMAFHIP_RATE_MISMATCH_FOLLOW_REFERENCE,
          "Score each reference frame against the distorted frame on screen "
          "at its time", "follow-reference"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipRateMismatch", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_vmafhip_scaler_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_SCALER_NONE,
        "Refuse a distorted video of another size", "none"},
    {GST_VMAFHIP_SCALER_BILINEAR, "Bilinear (FFmpeg's)", "bilinear"},
    {GST_VMAFHIP_SCALER_BICUBIC, "Bicubic, B = 0, C = 0.6 (FFmpeg's)",
        "bicubic"},
    {GST_VMAFHIP_SCALER_LANCZOS, "Lanczos, 3 lobes (FFmpeg's)", "lanczos"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipScaler", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_vmafhip_write_failure_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_WRITE_FAILURE_ERROR,
        "Post an error: the run fails", "error"},
    {GST_VMAFHIP_WRITE_FAILURE_WARN,
        "Post a warning and keep scoring (messages and meta go on)", "warn"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipWriteFailure", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_vmafhip_align_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_ALIGN_OFF, "Pair frames at the same running time", "off"},
    {GST_VMAFHIP_ALIGN_OFFSET,
        "Pair each reference frame with the distorted frame `offset` frames "
          "later", "offset"},
    {GST_VMAFHIP_ALIGN_AUTO,
        "Find the distorted stream's lag within search-window, then pair as "
          "offset", "auto"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipAlign", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_vmafhip_log_level_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_LOG_NONE, "No logging", "none"},
    {GST_VMAFHIP_LOG_ERROR, "Error", "error"},
    {GST_VMAFHIP_LOG_WARNING, "Warning", "warning"},
    {GST_VMAFHIP_LOG_INFO, "Info", "info"},
    {GST_VMAFHIP_LOG_DEBUG, "Debug", "debug"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipLogLevel", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ------------------------------------------------------------- settings */

void
gst_vmafhip_settings_clear (Settings * s)
{
  g_clear_pointer (&s->model_filename, g_free);
  g_clear_pointer (&s->models, g_free);
  g_clear_pointer (&s->features, g_free);
  g_clear_pointer (&s->results_filename, g_free);
}

void
gst_vmafhip_settings_copy (Settings * dst, const Settings * src)
{
  gst_vmafhip_settings_clear (dst);
  *dst = *src;
  dst->model_filename = g_strdup (src->model_filename);
  dst->models = g_strdup (src->models);
  dst->features = g_strdup (src->features);
  dst->results_filename = g_strdup (src->results_filename);
}

void
gst_vmafhip_model_spec_free (gpointer p)
{
  ModelSpec *spec = p;

  vh_model_spec_free (spec->spec);
  g_free (spec->report_name);
  vh_model_free (spec->model);
  g_free (spec);
}

/* --------------------------------------------------------- model setup */

/* One model: libvmaf's --model syntax (common/engine/vh-spec.h), parsed by the
 * engine's parser as vmafhip-score does. */
static ModelSpec *
model_spec_new (const gchar * text, const VhModelFlags * global,
    GError ** error)
{
  VhModelSpec *parsed = vh_model_spec_parse (text, global, error);
  ModelSpec *spec;

  if (!parsed)
    return NULL;
  spec = g_new0 (ModelSpec, 1);
  spec->spec = parsed;
  return spec;
}

/* Resolves model-filename / models into loaded, checked models. */
gboolean
gst_vmafhip_load_models (GstVmafHip * self, GError ** error)
{
  const Settings *cfg = &self->cfg;
  const VhModelFlags global = {
    .disable_clip = cfg->disable_clip,
    .enable_transform = cfg->enable_transform || cfg->phone_model,
  };
  const gboolean use_list = cfg->models && *g_strstrip (cfg->models);
  const char *what = use_list ? "models" : "model-filename";

  g_ptr_array_set_size (self->specs, 0);
  self->lookahead = 1;

  if (use_list) {
    gchar **entries = g_strsplit (cfg->models, ",", -1);
    for (guint i = 0; entries[i]; i++) {
      ModelSpec *spec;
      if (!*g_strstrip (entries[i]))
        continue;
      spec = model_spec_new (entries[i], &global, error);
      if (!spec) {
        g_prefix_error (error, "models: ");
        g_strfreev (entries);
        return FALSE;
      }
      g_ptr_array_add (self->specs, spec);
    }
    g_strfreev (entries);
    if (self->specs->len == 0) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "models is set but lists no model");
      return FALSE;
    }
  } else {
    ModelSpec *spec;
    if (!cfg->model_filename || !*cfg->model_filename) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "model-filename is empty: give a built-in model name "
          "(vmaf_v0.6.1 ...) or the path of a model file");
      return FALSE;
    }
    /* a name or a path, never options: ':' may be part of a path */
    spec = g_new0 (ModelSpec, 1);
    spec->spec = vh_model_spec_new_source (cfg->model_filename, &global);
    g_ptr_array_add (self->specs, spec);
  }

  for (guint i = 0; i < self->specs->len; i++) {
    ModelSpec *spec = g_ptr_array_index (self->specs, i);

    spec->model = vh_model_spec_load (spec->spec, error);
    if (!spec->model) {
      g_prefix_error (error, "%s '%s': ", what, spec->spec->source);
      return FALSE;
    }
    /* libvmaf's CLI's keys, as vmafhip-score's: name= or "vmaf" */
    spec->report_name = g_strdup (vh_model_spec_report_name (spec->spec));
    spec->bootstrap = vh_model_is_bootstrap (spec->model);
  }
  {
    const VhModelSpec **parsed = g_new (const VhModelSpec *,
        self->specs->len);
    gboolean distinct;
    for (guint i = 0; i < self->specs->len; i++)
      parsed[i] = ((ModelSpec *) g_ptr_array_index (self->specs, i))->spec;
    distinct = vh_model_specs_check_report_names (parsed, self->specs->len,
        error);
    g_free (parsed);
    if (!distinct) {
      g_prefix_error (error, "%s: ", what);
      return FALSE;
    }
  }
  return TRUE;
}

/* Early check, so a bad path fails at READY→PAUSED, not after the whole
 * stream has been scored. */
gboolean
gst_vmafhip_check_results_file (const gchar * path, GError ** error)
{
  gchar *dir = g_path_get_dirname (path);
  gboolean ok = FALSE;

  if (!g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "cannot write results file '%s': folder '%s' does not exist", path,
        dir);
  } else if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "cannot write results file '%s': it is a folder", path);
  } else if (access (g_file_test (path, G_FILE_TEST_EXISTS) ? path : dir,
          W_OK) != 0) {
    int e = errno;
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "cannot write results file '%s': %s", path, g_strerror (e));
  } else {
    ok = TRUE;
  }
  g_free (dir);
  return ok;
}


/* `features`: libvmaf --feature specs ("float_ssim", "psnr=enable_chroma=
 * false"), comma-separated; each is checked here, at start. */
gboolean
gst_vmafhip_parse_features (GstVmafHip * self, GError ** error)
{
  g_ptr_array_set_size (self->feature_specs, 0);
  if (!self->cfg.features)
    return TRUE;
  gchar **entries = g_strsplit (self->cfg.features, ",", -1);
  gboolean ok = TRUE;
  for (guint i = 0; ok && entries[i]; i++) {
    const gchar *entry = g_strstrip (entries[i]);
    if (!*entry)
      continue;
    VhFeatureSpec *spec = vh_feature_spec_parse (entry, error);
    if (spec)
      g_ptr_array_add (self->feature_specs, spec);
    else {
      g_prefix_error (error, "features: '%s': ", entry);
      ok = FALSE;
    }
  }
  g_strfreev (entries);
  return ok;
}
