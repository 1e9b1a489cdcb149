/* vmafhip — what the engine tests share (vh-engine-test-util.h) */
#include <check.h>
#include <math.h>
#include <string.h>

#include "vh-engine-test-util.h"
#include "vh-synth.h"

/* n synthetic frame pairs (seeded; frame i distorted with strength
 * strength + i * step) pushed into e, then flushed */
void
push_synthetic (VhEngine *e, unsigned w, unsigned h, unsigned bpc,
    unsigned seed, unsigned n, unsigned strength, unsigned step)
{
  GError *error = NULL;
  VhSynth *s = vh_synth_new (w, h, bpc, VH_SYNTH_420, seed);
  for (unsigned i = 0; i < n; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, strength + i * step, &ref, &dis);
    ck_assert_msg (vh_engine_push (e, &ref, &dis, &error), "%s",
        error ? error->message : "?");
  }
  ck_assert_msg (vh_engine_flush (e, &error), "%s",
      error ? error->message : "?");
  vh_synth_free (s);
}

VhEngine *
score_synthetic (unsigned w, unsigned h, unsigned bpc, unsigned n,
    unsigned strength, const char *model, const char *feature)
{
  GError *error = NULL;
  VhVideoInfo info = { w, h, bpc };
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert_msg (e, "%s", error ? error->message : "?");
  if (model)
    ck_assert_msg (vh_engine_add_model (e, model, "vmaf", NULL, &error),
        "%s", error ? error->message : "?");
  if (feature)
    ck_assert (vh_engine_add_feature (e, feature, &error));
  push_synthetic (e, w, h, bpc, 42, n, strength, 0);
  return e;
}

double
score_of (VhEngine *e, const char *metric, unsigned frame)
{
  const VhScoreTable *t = vh_engine_scores (e);
  double v = NAN;
  int m = vh_score_table_find (t, metric);
  ck_assert_msg (m >= 0, "no metric %s", metric);
  ck_assert_msg (vh_score_table_get (t, m, frame, &v), "no %s at frame %u",
      metric, frame);
  return v;
}

double
pooled_mean (VhEngine *e, const char *metric)
{
  const VhScoreTable *t = vh_engine_scores (e);
  VhPooled p;
  ck_assert (vh_score_table_pool (t, vh_score_table_find (t, metric), 0,
          vh_engine_n_final (e) - 1, 1, &p));
  return p.mean;
}

void
assert_error (GError *error, int code, const char *fragment)
{
  ck_assert_msg (error != NULL, "expected an error mentioning '%s'", fragment);
  ck_assert_msg (error->domain == VH_ERROR, "wrong domain: %s", error->message);
  ck_assert_msg (error->code == code, "code %d, wanted %d: %s", error->code,
      code, error->message);
  ck_assert_msg (strstr (error->message, fragment), "'%s' lacks '%s'",
      error->message, fragment);
}
