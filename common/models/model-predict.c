/* vmafhip — VMAF models: per-frame prediction.
 *
 * Reproduces libvmaf 3.2.0 (predict.c, svm.cpp) operation for operation,
 * in double, so that scores agree to the last bit given the same feature
 * values: normalisation, the SVR, v1's chroma correction, the transform
 * and clip, and the bootstrap models' statistics.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model-private.h"
#include "vh-scores.h"

/* ------------------------------------------------------------------------ */
/* Prediction (libvmaf predict.c / svm.cpp, in the same operation order)    */

/* Rescales feature j into the SVM's input range, or back. */
static inline double
normalize (const VhModelSvr *svr, unsigned j, double v)
{
  if (svr->norm == VH_NORM_NONE)
    return v;
  return svr->slopes[j + 1] * v + svr->intercepts[j + 1];
}

static inline double
denormalize (const VhModelSvr *svr, unsigned j, double v)
{
  if (svr->norm == VH_NORM_NONE)
    return v;
  return (v - svr->intercepts[j + 1]) / svr->slopes[j + 1];
}

/* v1 models: where SpEED found no chroma information (speed_chroma == 0,
 * judged after a normalise/denormalise round trip, as libvmaf does), it is
 * replaced by C·(1 − adm3), written as (−C·adm3) + C like libvmaf. */
static void
correct_chroma (const VhModel *m, const VhModelSvr *svr, double *x)
{
  const unsigned guided = (unsigned) m->speed_chroma_feature;
  const unsigned guiding = (unsigned) m->adm3_feature;
  if (denormalize (svr, guided, x[guided]) != 0.0)
    return;
  const double adm3 = denormalize (svr, guiding, x[guiding]);
  const double c = svr->chroma_correction;
  x[guided] = normalize (svr, guided, (-c * adm3) + c);
}

/* nu-SVR decision value: Σ coef·exp(−γ‖x − sv‖²) − ρ. The squared distance
 * is summed in feature order like libsvm's k_function (a dense zero stands
 * for an absent sparse index: (x − 0)² == x·x exactly). */
static double
svr_decision (const VhModelSvr *svr, unsigned n_features, const double *x)
{
  const double *sv = svr->sv;
  double sum = 0.0;
  for (unsigned i = 0; i < svr->n_sv; i++, sv += n_features) {
    double dist2 = 0.0;
    for (unsigned j = 0; j < n_features; j++) {
      const double d = x[j] - sv[j];
      dist2 += d * d;
    }
    sum += svr->sv_coef[i] * exp (-svr->gamma * dist2);
  }
  return sum - svr->rho;
}

/* The member's score before transform and clip. */
static double
predict_raw (const VhModel *m, const VhModelSvr *svr, const double *features)
{
  const unsigned n = m->desc.n_features;
  double x[VH_MODEL_MAX_FEATURES];
  /* No clipping of the rescaled features: libvmaf has none. */
  for (unsigned j = 0; j < n; j++)
    x[j] = normalize (svr, j, features[j]);
  if (svr->has_chroma_correction)
    correct_chroma (m, svr, x);
  double y = svr_decision (svr, n, x);
  if (svr->norm == VH_NORM_LINEAR_RESCALE)
    y = (y - svr->intercepts[0]) / svr->slopes[0];
  return y;
}

/* libvmaf's line through two knots (special case for x1 == 0 kept: it is
 * not always bit-identical to the general formula). */
static void
knot_line (VhModelKnot a, VhModelKnot b, double *slope, double *offset)
{
  if (a.x == 0) {
    *offset = a.y;
    *slope = (b.y - *offset) / b.x;
  } else {
    *slope = (b.y - a.y) / (b.x - a.x);
    *offset = a.y - a.x * *slope;
  }
}

/* Piecewise-linear mapping, extended linearly (or flat) beyond the ends.
 * Every segment is visited in order and a later one wins at a shared knot,
 * as in libvmaf. Knots are validated at load time. */
static double
map_knots (const VhModelTransform *t, double x)
{
  const unsigned n_seg = t->n_knots - 1;
  double y = 0.0;
  for (unsigned s = 0; s < n_seg; s++) {
    const VhModelKnot a = t->knots[s], b = t->knots[s + 1];
    const bool inside = a.x <= x && x <= b.x;
    const bool below = s == 0 && x < a.x;
    const bool above = s == n_seg - 1 && x > b.x;
    if (!(inside || below || above))
      continue;
    if (a.y == b.y) {
      y = a.y;
    } else {
      double slope, offset;
      knot_line (a, b, &slope, &offset);
      y = slope * x + offset;
    }
  }
  return y;
}

static double
transform_score (const VhModelTransform *t, double y_in)
{
  double y = y_in;
  if (t->has_p0 || t->has_p1 || t->has_p2) {
    y = 0.0;
    if (t->has_p0)
      y += t->p0;
    if (t->has_p1)
      y += t->p1 * y_in;
    if (t->has_p2)
      y += t->p2 * y_in * y_in;
  }
  if (t->n_knots)
    y = map_knots (t, y);
  if (t->out_lte_in)
    y = (y > y_in) ? y_in : y;
  if (t->out_gte_in)
    y = (y < y_in) ? y_in : y;
  return y;
}

/* Transform (when enabled in the file or by the flag), then clip (unless
 * disabled): libvmaf's order. */
static double
finish_score (const VhModelSvr *svr, const VhModelFlags *flags, double y)
{
  if (svr->transform.enabled || flags->enable_transform)
    y = transform_score (&svr->transform, y);
  if (svr->has_clip && !flags->disable_clip) {
    y = (y < svr->clip_lo) ? svr->clip_lo : y;
    y = (y > svr->clip_hi) ? svr->clip_hi : y;
  }
  return y;
}

/* libvmaf's bootstrap statistics over the collection (keys "1".."N"):
 * computed on untransformed, unclipped scores, then mapped through the
 * first bootstrap model's transform and clip; the stddev is scaled by the
 * transform's numerical slope at the mean. */
static void
predict_bootstrap (const VhModel *m, const double *features,
    const VhModelFlags *flags, VhModelScore *out)
{
  const VhModelSvr *boot = &m->desc.members[1];
  const unsigned n = m->desc.n_members - 1;
  double raw[VH_MODEL_MAX_BOOTSTRAP];

  for (unsigned i = 0; i < n; i++) {
    raw[i] = predict_raw (m, &boot[i], features);
    out->bootstrap[i] = finish_score (&boot[i], flags, raw[i]);
  }
  out->n_bootstrap = n;

  double sum = 0.0;
  for (unsigned i = 0; i < n; i++)
    sum += raw[i];
  const double mean = sum / n;
  double ssd = 0.0;
  for (unsigned i = 0; i < n; i++)
    ssd += pow (raw[i] - mean, 2);
  const double stddev = sqrt (ssd / n);

  qsort (raw, n, sizeof raw[0], vh_compare_doubles);
  const double lo = vh_percentile (raw, n, 2.5);
  const double hi = vh_percentile (raw, n, 97.5);

  const double delta = 0.01;
  const double plus = finish_score (&boot[0], flags, mean + delta);
  const double minus = finish_score (&boot[0], flags, mean - delta);
  out->bagging = finish_score (&boot[0], flags, mean);
  out->ci_p95_lo = finish_score (&boot[0], flags, lo);
  out->ci_p95_hi = finish_score (&boot[0], flags, hi);
  out->stddev = stddev * ((plus - minus) / (2.0 * delta));
}

void
vh_model_predict (const VhModel *model, const double *features,
    const VhModelFlags *flags, VhModelScore *out)
{
  g_return_if_fail (model && features && out);
  static const VhModelFlags no_flags = { 0 };
  if (!flags)
    flags = &no_flags;

  const VhModelSvr *main_svr = &model->desc.members[0];
  out->score = finish_score (main_svr, flags,
      predict_raw (model, main_svr, features));
  out->n_bootstrap = 0;
  out->bagging = out->stddev = out->ci_p95_lo = out->ci_p95_hi = 0.0;
  if (model->desc.bootstrap)
    predict_bootstrap (model, features, flags, out);
}
