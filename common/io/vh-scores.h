/* vmafhip — per-frame score table, pooling and libvmaf-format logs. */
#ifndef VH_SCORES_H
#define VH_SCORES_H

#include <stdbool.h>
#include <stdio.h>
#include <glib.h>

#include "vh-error.h"
#include "vh-monitor.h"

G_BEGIN_DECLS

/* Metrics (features and model scores) in first-written order, each with a
 * value per frame; a frame a metric never wrote has no value. */
typedef struct VhScoreTable VhScoreTable;

VhScoreTable *vh_score_table_new (void);
void vh_score_table_free (VhScoreTable *table);
/* Forgets every metric and frame, the retired frames' pools included. */
void vh_score_table_clear (VhScoreTable *table);

/* Index of `name`, created if new. */
unsigned vh_score_table_metric (VhScoreTable *table, const char *name);
/* Index of `name` or -1. */
int vh_score_table_find (const VhScoreTable *table, const char *name);
unsigned vh_score_table_n_metrics (const VhScoreTable *table);
const char *vh_score_table_metric_name (const VhScoreTable *table,
    unsigned metric);
/* One past the highest frame any metric wrote (retired frames count). */
unsigned vh_score_table_n_frames (const VhScoreTable *table);

void vh_score_table_set (VhScoreTable *table, unsigned metric,
    unsigned frame, double value);

/* Aggregate metrics: one value for the whole stream, not per frame
 * (libvmaf's aggregate_metrics: `psnr` with enable_apsnr sets apsnr_y,
 * apsnr_cb, apsnr_cr when the stream ends), in first-set order; setting
 * a name again replaces its value.  Written in the logs'
 * "aggregate_metrics" section; cleared with the table. */
void vh_score_table_set_aggregate (VhScoreTable *table, const char *name,
    double value);
unsigned vh_score_table_n_aggregates (const VhScoreTable *table);
/* The i-th aggregate's name, its value in *value (may be NULL). */
const char *vh_score_table_aggregate (const VhScoreTable *table, unsigned i,
    double *value);
void vh_score_table_clear_aggregates (VhScoreTable *table);
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

/* Running pooled statistics: the same arithmetic, in the same order, as
 * pooling a whole range, so the results are the same doubles. */
typedef struct VhPoolAccum {
  double sum, inv_sum, min, max;
  unsigned n;
} VhPoolAccum;

void vh_pool_accum_init (VhPoolAccum *accum);
void vh_pool_accum_add (VhPoolAccum *accum, double value);
/* FALSE if nothing was added. */
bool vh_pool_accum_get (const VhPoolAccum *accum, VhPooled *pooled);

/* qsort's comparison of doubles, ascending */
int vh_compare_doubles (const void *a, const void *b);
/* The perc-th percentile of n sorted values, libvmaf's (numpy's linear):
 * between the order statistics around perc (n - 1) / 100. */
double vh_percentile (const double *sorted, unsigned n, double perc);

/* Memory independent of stream length: moves frames below `upto` out of
 * the table. Each metric's values on those frames that `subsample` selects
 * are added to the metric's running pool, then the frames are freed;
 * vh_score_table_get() returns FALSE for them, vh_score_table_set() must not
 * write them again. Use the same `subsample` every time and for
 * vh_score_table_pool_all(). */
void vh_score_table_retire (VhScoreTable *table, unsigned upto,
    unsigned subsample);
/* First frame still stored (0 until something is retired). */
unsigned vh_score_table_first_frame (const VhScoreTable *table);
/* Pools `metric` over every frame: the retired ones plus those stored.
 * Without retirement, the same as vh_score_table_pool (t, m, 0,
 * n_frames - 1, subsample). */
bool vh_score_table_pool_all (const VhScoreTable *table, unsigned metric,
    unsigned subsample, VhPooled *pooled);

/* Pools `metric` over frames [first, last], taking every `subsample`-th
 * frame (1: all), as libvmaf does: harmonic mean = n / Σ 1/(x+1) − 1.
 * Sees stored frames only (none that were retired). FALSE if the metric has
 * no value in the range. */
bool vh_score_table_pool (const VhScoreTable *table, unsigned metric,
    unsigned first, unsigned last, unsigned subsample, VhPooled *pooled);
double vh_pooled_get (const VhPooled *pooled, VhPoolMethod method);

typedef enum {
  VH_LOG_JSON,
  VH_LOG_XML,
  VH_LOG_CSV,
  VH_LOG_SUB,   /* MicroDVD subtitles, one line per frame, as libvmaf's */
} VhLogFormat;

/* Parses "json", "xml", "csv", "sub" (case-insensitive). */
bool vh_log_format_from_string (const char *s, VhLogFormat *format);

typedef struct VhLogInfo {
  unsigned width, height;   /* for XML's <params> */
  double fps;               /* measured processing rate; NaN: unknown */
  unsigned subsample;       /* 1: every frame */
} VhLogInfo;

/* Which metrics a log holds (NULL filter or include: all). */
typedef struct VhLogFilter {
  gboolean (*include) (unsigned metric, gpointer data);
  gpointer data;
} VhLogFilter;

/* Writes a libvmaf-compatible log (same structure, keys and number
 * formatting as libvmaf 3.2.0's output.c). */
void vh_log_write (const VhScoreTable *table, VhLogFormat format,
    const VhLogInfo *info, GString *out);
/* Same, with only the metrics `filter` includes. */
void vh_log_write_filtered (const VhScoreTable *table, VhLogFormat format,
    const VhLogInfo *info, const VhLogFilter *filter, GString *out);

/* A log written as the frames come, so memory does not grow with the
 * stream: open, add each frame (in order, while it is still in the table;
 * info->subsample frames are selected as vh_log_write does), finish. The
 * result parses to the same content as vh_log_write's, but for whitespace
 * after the fps, which is only known at the end and written over a
 * fixed-width field (left null / 0.00 if the file cannot seek). Pooled
 * values come from vh_score_table_pool_all (info->subsample). Errors name
 * the file and the OS error. */
typedef struct VhLogWriter VhLogWriter;
VhLogWriter *vh_log_writer_open (const char *path, VhLogFormat format,
    const VhLogInfo *info, const VhLogFilter *filter, GError **error);
gboolean vh_log_writer_add_frame (VhLogWriter *writer,
    const VhScoreTable *table, unsigned frame, GError **error);
/* Which reference frame a logged frame was scored against, for a log
 * whose frames do not follow the reference one for one (a live stream
 * that drops frames, an alignment search): JSON frames get
 * "refFrameNum" and "time" (seconds) after "frameNum", XML frames the
 * attributes of the same names; CSV and sub leave them out. */
typedef struct VhLogFrameSource {
  guint64 ref_frame;
  double time;              /* NaN: unknown (written null) */
} VhLogFrameSource;
gboolean vh_log_writer_add_frame_from (VhLogWriter *writer,
    const VhScoreTable *table, unsigned frame,
    const VhLogFrameSource *source, GError **error);
/* A pooled interval of the live monitor (vh-monitor.h), kept for the end:
 * JSON gets an "intervals" array after "aggregate_metrics" ({"start",
 * "end" (seconds of running time), "frames", "metrics": {model: {"min",
 * "max", "mean", "harmonic_mean", "p5"}}}), XML an <intervals> element;
 * CSV and sub have no pooled section and leave them out. */
void vh_log_writer_add_interval (VhLogWriter *writer, double start,
    double end, unsigned n_frames, unsigned n_models,
    const char *const *names, const VhMonitorStats *stats);
/* A segment of the stream ended (its video changed size or format in the
 * middle): frames [first, last] of the log, `video` describing them, and
 * their pooled values (vh_score_table_pool_all of `table` with
 * `subsample`, the metrics `filter` includes: the segment's own scores),
 * kept for the end: JSON gets a "segments" array after
 * "aggregate_metrics" ({"first_frame", "last_frame", "video",
 * "pooled_metrics": {metric: {"min", "max", "mean", "harmonic_mean"}}}),
 * XML a <segments> element; CSV and sub leave them out. */
void vh_log_writer_add_segment (VhLogWriter *writer, unsigned first,
    unsigned last, const char *video, const VhScoreTable *table,
    unsigned subsample, const VhLogFilter *filter);
/* Pooled section and end; closes the file. */
gboolean vh_log_writer_finish (VhLogWriter *writer, const VhScoreTable *table,
    double fps, GError **error);
const char *vh_log_writer_path (const VhLogWriter *writer);
/* Closes an unfinished log as it is (NULL-safe). */
void vh_log_writer_free (VhLogWriter *writer);

gboolean vh_log_write_file (const VhScoreTable *table, VhLogFormat format,
    const VhLogInfo *info, const char *path, GError **error);

G_END_DECLS
#endif /* VH_SCORES_H */
