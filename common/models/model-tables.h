/* vmafhip — the in-memory form of a VMAF model (private to the model code).
 *
 * One layout serves both sources of models: the JSON loader (model.c) fills
 * it from a file, and the generated built-in tables (model-builtin.c, written
 * by tools/gen-builtin-models.py) are constant instances of it. Prediction
 * only ever sees this layout, so both kinds of model go through exactly the
 * same code.
 */
#ifndef VH_MODEL_TABLES_H
#define VH_MODEL_TABLES_H

#include <stdbool.h>

#include "vh-model.h"

/* libvmaf's limits: at most 64 features per model, 10 knots per transform. */
#define VH_MODEL_MAX_FEATURES 64
#define VH_MODEL_MAX_KNOTS 10

typedef enum {
  VH_SVR_PLAIN,               /* "LIBSVMNUSVR" */
  VH_SVR_BOOTSTRAP,           /* "BOOTSTRAP_LIBSVMNUSVR" */
  VH_SVR_RESIDUE_BOOTSTRAP,   /* "RESIDUEBOOTSTRAP_LIBSVMNUSVR" */
} VhSvrKind;

typedef enum {
  VH_NORM_NONE,               /* "none" */
  VH_NORM_LINEAR_RESCALE,     /* "linear_rescale" */
} VhNormType;

typedef struct VhModelKnot {
  double x, y;
} VhModelKnot;

/* "score_transform": polynomial, then knots, then rectification. */
typedef struct VhModelTransform {
  bool enabled;               /* "enabled": true in the file */
  bool has_p0, has_p1, has_p2;
  double p0, p1, p2;
  unsigned n_knots;           /* 0: no piecewise-linear stage */
  const VhModelKnot *knots;
  bool out_lte_in, out_gte_in;
} VhModelTransform;

typedef struct VhModelFeature {
  const char *name;           /* libvmaf internal name */
  unsigned n_opts;
  const VhModelOpt *opts;     /* its feature_opts_dicts entry */
} VhModelFeature;

/* One "model_dict": a nu-SVR with an RBF kernel plus its rescaling. */
typedef struct VhModelSvr {
  VhSvrKind kind;
  VhNormType norm;
  /* [1 + n_features] each, as in the file: element 0 rescales the output,
   * element 1 + j feature j. NULL when norm is VH_NORM_NONE and the file
   * has none. */
  const double *slopes;
  const double *intercepts;
  bool has_clip;
  double clip_lo, clip_hi;
  VhModelTransform transform;
  bool has_chroma_correction;
  double chroma_correction;   /* "chroma_correction_parameter" */
  double gamma, rho;
  unsigned n_sv;
  const double *sv_coef;      /* [n_sv] */
  /* [n_sv][n_features], dense: an index absent from libsvm's sparse line
   * is stored as 0, which gives the same kernel sums bit for bit. */
  const double *sv;
} VhModelSvr;

/* A whole model: one member, or a bootstrap collection where members[0] is
 * the main model (key "0") and members[1..] are the bootstrap models. */
typedef struct VhModelDesc {
  const char *name;
  bool bootstrap;
  unsigned n_features;
  const VhModelFeature *features;  /* the same in every member */
  unsigned n_members;
  const VhModelSvr *members;
} VhModelDesc;

/* model-builtin.c (generated). */
extern const VhModelDesc vh_model_builtin_descs[];
extern const char *const vh_model_builtin_name_list[];  /* NULL-terminated */
extern const unsigned vh_model_builtin_count;

#endif /* VH_MODEL_TABLES_H */
