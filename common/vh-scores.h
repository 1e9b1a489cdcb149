/* vmafhip — per-frame score table, pooling and libvmaf-format logs. */
#ifndef VH_SCORES_H
#define VH_SCORES_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

#include "vh-error.h"

G_BEGIN_DECLS

/* Metrics (features and model scores) in first-written order, each with a
 * value per frame; a frame a metric never wrote has no value. */
typedef struct VhScoreTable VhScoreTable;

VhScoreTable *vh_score_table_new (void);
void vh_score_table_free (VhScoreTable *table);
void vh_score_table_clear (VhScoreTable *table);

/* Index of `name`, created if new. */
unsigned vh_score_table_metric (VhScoreTable *table, const char *name);
/* Index of `name` or -1. */
int vh_score_table_find (const VhScoreTable *table, const char *name);
unsigned vh_score_table_n_metrics (const VhScoreTable *table);
const char *vh_score_table_metric_name (const VhScoreTable *table,
    unsigned metric);
/* One past the highest frame any metric wrote. */
unsigned vh_score_table_n_frames (const VhScoreTable *table);

void vh_score_table_set (VhScoreTable *table, unsigned metric,
    unsigned frame, double value);
bool vh_score_table_get (const VhScoreTable *table, unsigned metric,
    unsigned frame, double *value);

typedef enum {
  VH_POOL_MEAN,
  VH_POOL_HARMONIC_MEAN,
  VH_POOL_MIN,
  VH_POOL_MAX,
} VhPoolMethod;

typedef struct VhPooled {
  double min, max, mean, harmonic_mean;
  unsigned n_frames;
} VhPooled;

/* Pools `metric` over frames [first, last], taking every `subsample`-th
 * frame (1: all), as libvmaf does: harmonic mean = n / Σ 1/(x+1) − 1.
 * FALSE if the metric has no value in the range. */
bool vh_score_table_pool (const VhScoreTable *table, unsigned metric,
    unsigned first, unsigned last, unsigned subsample, VhPooled *pooled);
double vh_pooled_get (const VhPooled *pooled, VhPoolMethod method);

typedef enum {
  VH_LOG_JSON,
  VH_LOG_XML,
  VH_LOG_CSV,
} VhLogFormat;

/* Parses "json", "xml", "csv" (case-insensitive). */
bool vh_log_format_from_string (const char *s, VhLogFormat *format);

typedef struct VhLogInfo {
  unsigned width, height;   /* for XML's <params> */
  double fps;               /* measured processing rate; NaN: unknown */
  unsigned subsample;       /* 1: every frame */
} VhLogInfo;

/* Writes a libvmaf-compatible log (same structure, keys and number
 * formatting as libvmaf 3.2.0's output.c). */
void vh_log_write (const VhScoreTable *table, VhLogFormat format,
    const VhLogInfo *info, GString *out);
gboolean vh_log_write_file (const VhScoreTable *table, VhLogFormat format,
    const VhLogInfo *info, const char *path, GError **error);

G_END_DECLS
#endif /* VH_SCORES_H */
