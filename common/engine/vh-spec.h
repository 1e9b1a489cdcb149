/* vmafhip — model and feature requests in libvmaf's syntax, parsed once for
 * the element (`models=`) and the CLI (`--model`, `--feature`).
 *
 * A model spec is libvmaf 3.2.0's `--model` string, ':'-separated:
 *   version=NAME        a built-in model ("vmaf_v0.6.1")
 *   path=FILE           a libvmaf JSON model file
 *   NAME_OR_PATH        either (vmafhip's short form: a built-in name if it
 *                       is one, else a path)
 *   name=REPORT         the name its scores are reported under (without
 *                       it: "vmaf", as libvmaf's CLI reports a model)
 *   enable_transform[=true|false], disable_clip[=true|false]
 *   FEATURE.OPTION=VALUE  an option for every feature of the model computed
 *                       by extractor FEATURE (vif, adm, motion, psnr), as
 *                       libvmaf's vmaf_model_feature_overload: e.g.
 *                       vif.vif_enhn_gain_limit=1.0. Non-default options
 *                       show in the feature names (integer_vif_scale0_egl_1).
 *
 * A feature spec is libvmaf's `--feature` string: NAME, or
 * NAME=OPTION=VALUE[:OPTION=VALUE...] ("psnr", "adm=adm_csf_mode=2").
 *
 * Every malformed part fails with an error naming it, at parse time, or
 * when checked against the model (an override of a feature the model does
 * not use, an unknown option, a value out of range).
 */
#ifndef VH_SPEC_H
#define VH_SPEC_H

#include <glib.h>

#include "vh-engine.h"

G_BEGIN_DECLS

typedef struct VhModelSpec {
  char *source;              /* built-in name or path */
  enum { VH_MODEL_SOURCE_ANY, VH_MODEL_SOURCE_BUILTIN,
    VH_MODEL_SOURCE_PATH } source_kind;
  char *report_name;         /* name= as given; NULL: none given */
  VhModelFlags flags;
  VhFeatureOverride *overrides;
  unsigned n_overrides;
} VhModelSpec;

/* `global` (may be NULL) gives the flags a spec starts from. */
VhModelSpec *vh_model_spec_parse (const char *text,
    const VhModelFlags *global, GError **error);
/* A spec for one built-in name or path, taken whole (a path may hold ':'),
 * as the element's model-filename. */
VhModelSpec *vh_model_spec_new_source (const char *name_or_path,
    const VhModelFlags *flags);
void vh_model_spec_free (VhModelSpec *spec);
/* Loads the model the spec names and checks its overrides against it. */
VhModel *vh_model_spec_load (const VhModelSpec *spec, GError **error);
/* The model can run: vmafhip computes every feature it needs, and each
 * override names an extractor the model uses and an option of it with a
 * valid value. */
gboolean vh_model_spec_check (const VhModelSpec *spec, const VhModel *model,
    GError **error);
/* The key a model's scores are reported under, in logs, messages and
 * meta, as libvmaf 3.2.0's CLI names them: the spec's name= if it has one,
 * else "vmaf" (VH_MODEL_DEFAULT_REPORT_NAME), whichever model it is. */
#define VH_MODEL_DEFAULT_REPORT_NAME "vmaf"
const char *vh_model_spec_report_name (const VhModelSpec *spec);
/* Checks that the `n` specs are reported under different keys: two models
 * without name= (both "vmaf") or with the same name= are refused with an
 * error naming the key and the fix, as vmafhip-score and the element both
 * refuse them (libvmaf's CLI fails on them too). */
gboolean vh_model_specs_check_report_names (const VhModelSpec *const *specs,
    unsigned n, GError **error);
/* Adds a loaded model (the engine takes it) with the spec's report name
 * (vh_model_spec_report_name), flags and overrides. */
gboolean vh_engine_add_model_spec (VhEngine *engine, const VhModelSpec *spec,
    VhModel *model, GError **error);

typedef struct VhFeatureSpec {
  char *name;
  VhModelOpt *opts;
  unsigned n_opts;
} VhFeatureSpec;

VhFeatureSpec *vh_feature_spec_parse (const char *text, GError **error);
void vh_feature_spec_free (VhFeatureSpec *spec);
gboolean vh_engine_add_feature_spec (VhEngine *engine,
    const VhFeatureSpec *spec, GError **error);

G_END_DECLS
#endif /* VH_SPEC_H */
