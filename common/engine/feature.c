/* vmafhip — feature registry, option handling and output naming.
 *
 * libvmaf names an extractor instance's outputs after its non-default
 * "feature parameter" options, sorted by option name and printed as
 * `_<alias>_<%g value>` (bools: `_<alias>`). We reproduce that so log files
 * and messages use the same keys as libvmaf's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "vh-feature-internal.h"

static const VhFeatureName feature_names[] = {
  {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0", &vh_fex_vif},
  {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1", &vh_fex_vif},
  {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2", &vh_fex_vif},
  {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3", &vh_fex_vif},
  {"VMAF_integer_feature_adm2_score", "integer_adm2", &vh_fex_adm},
  {"VMAF_integer_feature_aim_score", "integer_aim", &vh_fex_adm},
  {"VMAF_integer_feature_adm3_score", "integer_adm3", &vh_fex_adm},
  {"VMAF_integer_feature_adm_scale0_score", "integer_adm_scale0", &vh_fex_adm},
  {"VMAF_integer_feature_adm_scale1_score", "integer_adm_scale1", &vh_fex_adm},
  {"VMAF_integer_feature_adm_scale2_score", "integer_adm_scale2", &vh_fex_adm},
  {"VMAF_integer_feature_adm_scale3_score", "integer_adm_scale3", &vh_fex_adm},
  {"VMAF_integer_feature_motion_sad_score",
      "VMAF_integer_feature_motion_sad_score", &vh_fex_motion},
  {"VMAF_integer_feature_motion2_score", "integer_motion2", &vh_fex_motion},
  {"VMAF_integer_feature_motion3_score", "integer_motion3", &vh_fex_motion},
  {"psnr_y", "psnr_y", &vh_fex_psnr},
  {"psnr_cb", "psnr_cb", &vh_fex_psnr},
  {"psnr_cr", "psnr_cr", &vh_fex_psnr},
  {"Cambi_feature_cambi_score", "cambi", &vh_fex_cambi},
  {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv",
      &vh_fex_speed_chroma},
  {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u",
      &vh_fex_speed_chroma},
  {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v",
      &vh_fex_speed_chroma},
  {"float_ssim", "float_ssim", &vh_fex_float_ssim},
  {"float_ms_ssim", "float_ms_ssim", &vh_fex_float_ms_ssim},
  {"ciede2000", "ciede2000", &vh_fex_ciede},
  {"psnr_hvs", "psnr_hvs", &vh_fex_psnr_hvs},
  {"psnr_hvs_y", "psnr_hvs_y", &vh_fex_psnr_hvs},
  {"psnr_hvs_cb", "psnr_hvs_cb", &vh_fex_psnr_hvs},
  {"psnr_hvs_cr", "psnr_hvs_cr", &vh_fex_psnr_hvs},
  /* Known to libvmaf, not implemented: named so errors can say so. */
  {"VMAF_feature_vif_scale0_score", "vif_scale0", NULL},
  {"VMAF_feature_adm2_score", "adm2", NULL},
  {"VMAF_feature_motion2_score", "motion2", NULL},
};

static const VhFeatureExtractor *const extractors[] = {
  &vh_fex_vif, &vh_fex_adm, &vh_fex_motion, &vh_fex_psnr, &vh_fex_float_ssim,
  &vh_fex_float_ms_ssim, &vh_fex_ciede, &vh_fex_psnr_hvs,
  &vh_fex_cambi, &vh_fex_speed_chroma,
};

const VhFeatureName *
vh_feature_name_lookup (const char *internal)
{
  if (!internal)
    return NULL;
  for (gsize i = 0; i < G_N_ELEMENTS (feature_names); i++)
    if (!strcmp (feature_names[i].internal, internal))
      return &feature_names[i];
  return NULL;
}

char *
vh_feature_extractor_names (void)
{
  GString *s = g_string_new (NULL);
  for (gsize i = 0; i < G_N_ELEMENTS (extractors); i++)
    g_string_append_printf (s, "%s%s", i ? ", " : "", extractors[i]->name);
  return g_string_free (s, FALSE);
}

const VhFeatureExtractor *
vh_feature_extractor_lookup (const char *name)
{
  for (gsize i = 0; i < G_N_ELEMENTS (extractors); i++)
    if (!strcmp (extractors[i]->name, name))
      return extractors[i];
  return NULL;
}

static const VhOptionDesc *
find_option (const VhFeatureExtractor *fex, const char *name)
{
  for (const VhOptionDesc *o = fex->options; o && o->name; o++)
    if (!strcmp (o->name, name))
      return o;
  return NULL;
}

static double
option_get (const VhOptionDesc *o, const void *opts)
{
  const char *p = (const char *) opts + o->offset;
  switch (o->type) {
    case VH_OPT_BOOL:
      return *(const bool *) p;
    case VH_OPT_INT:
    case VH_OPT_ENUM:
      return *(const int *) p;
    case VH_OPT_STRING:
      return 0;               /* not a number: compared as text */
    case VH_OPT_DOUBLE:
    default:
      return *(const double *) p;
  }
}

static void
option_put (const VhOptionDesc *o, void *opts, double v)
{
  char *p = (char *) opts + o->offset;
  switch (o->type) {
    case VH_OPT_BOOL:
      *(bool *) p = v != 0.0;
      break;
    case VH_OPT_INT:
    case VH_OPT_ENUM:
      *(int *) p = (int) v;
      break;
    case VH_OPT_DOUBLE:
      *(double *) p = v;
      break;
    case VH_OPT_STRING:
      break;                  /* empty by default (zeroed) */
  }
}

void
vh_feature_opts_init_defaults (const VhFeatureExtractor *fex, void *opts)
{
  memset (opts, 0, fex->opts_size);
  for (const VhOptionDesc *o = fex->options; o && o->name; o++)
    option_put (o, opts, o->default_val);
}

/* The index of `value` among an enum option's names, or -1 */
static int
enum_index (const VhFeatureExtractor *fex, const VhOptionDesc *o,
    const char *value)
{
  const char *const *names = fex->enum_names (o->name);
  for (int i = 0; names[i]; i++)
    if (!strcmp (names[i], value))
      return i;
  return -1;
}

gboolean
vh_feature_opts_set (const VhFeatureExtractor *fex, void *opts,
    const VhModelOpt *mopt, GError **error)
{
  const VhOptionDesc *o = find_option (fex, mopt->key);
  double v;

  if (!o) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "feature '%s' has no option '%s'", fex->name, mopt->key);
    return FALSE;
  }
  if (o->type == VH_OPT_STRING) {
    if (mopt->kind != VH_OPTVAL_STRING)
      goto wrong_type;
    if (strlen (mopt->string) >= VH_OPT_STRING_SIZE) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "option '%s' of feature '%s' is longer than %d characters",
          o->name, fex->name, VH_OPT_STRING_SIZE - 1);
      return FALSE;
    }
    char *dst = (char *) opts + o->offset;
    memset (dst, 0, VH_OPT_STRING_SIZE);
    strcpy (dst, mopt->string);
    return TRUE;
  }
  switch (mopt->kind) {
    case VH_OPTVAL_BOOL:
      if (o->type != VH_OPT_BOOL)
        goto wrong_type;
      v = mopt->boolean;
      break;
    case VH_OPTVAL_NUMBER:
      if (o->type == VH_OPT_BOOL || o->type == VH_OPT_ENUM)
        goto wrong_type;
      v = mopt->number;
      if (o->type == VH_OPT_INT && v != floor (v))
        goto wrong_type;
      break;
    case VH_OPTVAL_STRING:
      if (o->type != VH_OPT_ENUM)
        goto wrong_type;
      v = enum_index (fex, o, mopt->string);
      if (v < 0)
        goto wrong_type;
      break;
    default:
      goto wrong_type;
  }
  if (o->type != VH_OPT_BOOL && (v < o->min || v > o->max || isnan (v))) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "option '%s' of feature '%s' is %g, outside its range [%g, %g]",
        o->name, fex->name, v, o->min, o->max);
    return FALSE;
  }
  option_put (o, opts, v);
  return TRUE;

wrong_type:
  if (o->type == VH_OPT_ENUM) {
    char *names = g_strjoinv (", ", (char **) fex->enum_names (o->name));
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "option '%s' of feature '%s' wants one of %s", o->name, fex->name,
        names);
    g_free (names);
    return FALSE;
  }
  g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
      "option '%s' of feature '%s' wants %s", o->name, fex->name,
      o->type == VH_OPT_BOOL ? "a boolean" :
      o->type == VH_OPT_INT ? "an integer" :
      o->type == VH_OPT_STRING ? "text (a path)" : "a number");
  return FALSE;
}

static int
compare_option_names (gconstpointer a, gconstpointer b)
{
  const VhOptionDesc *const *oa = a, *const *ob = b;
  return strcmp ((*oa)->name, (*ob)->name);
}

char *
vh_feature_opts_suffix (const VhFeatureExtractor *fex, const void *opts)
{
  GPtrArray *set = g_ptr_array_new ();
  GString *s = g_string_new (NULL);

  for (const VhOptionDesc *o = fex->options; o && o->name; o++)
    if (o->feature_param && option_get (o, opts) != o->default_val)
      g_ptr_array_add (set, (gpointer) o);
  g_ptr_array_sort (set, compare_option_names);

  for (guint i = 0; i < set->len; i++) {
    const VhOptionDesc *o = g_ptr_array_index (set, i);
    const char *key = o->alias ? o->alias : o->name;
    char num[64];
    switch (o->type) {
      case VH_OPT_BOOL:
        g_string_append_printf (s, "_%s", key);
        break;
      case VH_OPT_INT:
        g_string_append_printf (s, "_%s_%d", key, (int) option_get (o, opts));
        break;
      case VH_OPT_ENUM:
        g_string_append_printf (s, "_%s_%s", key,
            fex->enum_names (o->name)[(int) option_get (o, opts)]);
        break;
      case VH_OPT_STRING:
        break;                /* never a feature parameter */
      case VH_OPT_DOUBLE:
        /* libvmaf prints with %g in the C locale */
        g_ascii_formatd (num, sizeof num, "%g", option_get (o, opts));
        g_string_append_printf (s, "_%s_%s", key, num);
        break;
    }
  }
  g_ptr_array_unref (set);
  return g_string_free (s, FALSE);
}

/* One option's value as libvmaf's option syntax writes it */
static char *
option_text (const VhFeatureExtractor *fex, const VhOptionDesc *o,
    const void *opts)
{
  char num[64];
  switch (o->type) {
    case VH_OPT_BOOL:
      return g_strdup (option_get (o, opts) != 0.0 ? "true" : "false");
    case VH_OPT_INT:
      return g_strdup_printf ("%d", (int) option_get (o, opts));
    case VH_OPT_ENUM:
      return g_strdup (fex->enum_names (o->name)[(int) option_get (o, opts)]);
    case VH_OPT_STRING:
      return g_strdup ((const char *) opts + o->offset);
    case VH_OPT_DOUBLE:
    default:
      g_ascii_formatd (num, sizeof num, "%g", option_get (o, opts));
      return g_strdup (num);
  }
}

static gboolean
option_equal (const VhOptionDesc *o, const void *a, const void *b)
{
  if (o->type == VH_OPT_STRING)
    return !strcmp ((const char *) a + o->offset, (const char *) b + o->offset);
  return option_get (o, a) == option_get (o, b);
}

char **
vh_feature_opts_differences (const VhFeatureExtractor *fex, const void *a,
    const void *b)
{
  GPtrArray *out = g_ptr_array_new ();
  for (const VhOptionDesc *o = fex->options; o && o->name; o++) {
    if (option_equal (o, a, b))
      continue;
    char *v = option_text (fex, o, b);
    g_ptr_array_add (out, g_strdup_printf ("%s=%s", o->name, v));
    g_free (v);
  }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}
