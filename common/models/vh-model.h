/* vmafhip — VMAF models: loading (built-in tables or libvmaf JSON files)
 * and per-frame prediction (nuSVR RBF, rescale, transform, clip, bootstrap).
 *
 * This module knows nothing about extractors: it hands out the features a
 * model needs (libvmaf internal names plus option dictionaries) and predicts
 * from feature values given in that order. The engine does the wiring.
 */
#ifndef VH_MODEL_H
#define VH_MODEL_H

#include <stdbool.h>
#include <glib.h>

#include "vh-error.h"

G_BEGIN_DECLS

typedef struct VhModel VhModel;

typedef enum { VH_OPTVAL_NUMBER, VH_OPTVAL_BOOL, VH_OPTVAL_STRING } VhOptValKind;

/* One entry of a model's feature_opts_dicts. */
typedef struct VhModelOpt {
  const char *key;       /* "vif_enhn_gain_limit" */
  VhOptValKind kind;
  double number;         /* VH_OPTVAL_NUMBER */
  bool boolean;          /* VH_OPTVAL_BOOL */
  const char *string;    /* VH_OPTVAL_STRING */
} VhModelOpt;

#define VH_MODEL_MAX_BOOTSTRAP 64

/* Flags chosen by the user at load time (libvmaf's VMAF_MODEL_FLAG_*). */
typedef struct VhModelFlags {
  bool disable_clip;       /* do not clip to score_clip */
  bool enable_transform;   /* apply score_transform even if not "enabled" */
} VhModelFlags;

typedef struct VhModelScore {
  double score;                       /* transformed, clipped */
  /* bootstrap models only */
  unsigned n_bootstrap;               /* 0 for plain models */
  double bootstrap[VH_MODEL_MAX_BOOTSTRAP]; /* each member, transformed+clipped */
  double bagging, stddev, ci_p95_lo, ci_p95_hi;
} VhModelScore;

/* Built-in names: "vmaf_v0.6.1", "vmaf_v0.6.1neg", "vmaf_4k_v0.6.1",
 * "vmaf_4k_v0.6.1neg", "vmaf_b_v0.6.3". */
VhModel *vh_model_load_builtin (const char *name, GError **error);
/* A libvmaf JSON model file (single model, or a bootstrap collection whose
 * keys are "0".."N"). */
VhModel *vh_model_load_file (const char *path, GError **error);
/* Same, from memory; `origin` names the source in error messages. */
VhModel *vh_model_load_data (const char *data, gsize len, const char *origin,
    GError **error);
/* A built-in name if it is one, else a path. */
VhModel *vh_model_load (const char *name_or_path, GError **error);
void vh_model_free (VhModel *model);

/* The model's own name: the built-in name, or the file's basename without
 * ".json" ("vmaf_v1.0.16_3d0h"). */
const char *vh_model_name (const VhModel *model);
const char *const *vh_model_builtin_names (void);  /* NULL-terminated */

unsigned vh_model_n_features (const VhModel *model);
/* libvmaf internal name, e.g. "VMAF_integer_feature_adm2_score". */
const char *vh_model_feature_name (const VhModel *model, unsigned i);
/* That feature's option dictionary (may be empty). */
const VhModelOpt *vh_model_feature_opts (const VhModel *model, unsigned i,
    unsigned *n_opts);
bool vh_model_is_bootstrap (const VhModel *model);

/* Predict one frame. `features[i]` is the raw value of feature i. */
void vh_model_predict (const VhModel *model, const double *features,
    const VhModelFlags *flags, VhModelScore *out);

G_END_DECLS
#endif /* VH_MODEL_H */
