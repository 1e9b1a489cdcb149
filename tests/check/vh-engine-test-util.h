/* vmafhip — what the engine tests (test-engine.c, test-engine-logs.c)
 * share: synthetic pairs scored, a frame's score, a pooled mean, an
 * error's domain, code and words checked (check's assertions). */
#ifndef VH_ENGINE_TEST_UTIL_H
#define VH_ENGINE_TEST_UTIL_H

#include "vh-engine.h"

/* n synthetic frame pairs (seeded; frame i distorted with strength
 * strength + i * step) pushed into e, then flushed */
void push_synthetic (VhEngine *e, unsigned w, unsigned h, unsigned bpc,
    unsigned seed, unsigned n, unsigned strength, unsigned step);
/* A new engine with `model` and/or `feature` that has scored n synthetic
 * frames (seed 42), flushed */
VhEngine *score_synthetic (unsigned w, unsigned h, unsigned bpc, unsigned n,
    unsigned strength, const char *model, const char *feature);
double score_of (VhEngine *e, const char *metric, unsigned frame);
/* the mean of `metric` over the final frames */
double pooled_mean (VhEngine *e, const char *metric);
void assert_error (GError *error, int code, const char *fragment);

#endif
