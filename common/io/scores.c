/* vmafhip — score table and pooling. */
#include <math.h>
#include <string.h>

#include "vh-scores.h"

typedef struct {
  char *name;
  GArray *values;    /* double, frames first_frame.. */
  GArray *written;   /* gboolean-ish uint8, same frames */
  VhPoolAccum retired;     /* pooled frames below first_frame */
} Metric;

typedef struct {
  char *name;
  double value;
} Aggregate;

struct VhScoreTable {
  GArray *aggregates;      /* Aggregate, in first-set order */
  GPtrArray *metrics;      /* Metric* */
  GHashTable *index;       /* name -> index+1 */
  unsigned n_frames;
  unsigned first_frame;    /* frames below were retired */
};

void
vh_pool_accum_init (VhPoolAccum *a)
{
  a->sum = a->inv_sum = 0.0;
  a->min = INFINITY;
  a->max = -INFINITY;
  a->n = 0;
}

/* Same operations in the same order as pooling a whole range, so a running
 * pool gives the same doubles. */
void
vh_pool_accum_add (VhPoolAccum *a, double v)
{
  a->sum += v;
  a->inv_sum += 1.0 / (v + 1.0);
  a->min = MIN (a->min, v);
  a->max = MAX (a->max, v);
  a->n++;
}

bool
vh_pool_accum_get (const VhPoolAccum *a, VhPooled *p)
{
  if (!a->n)
    return false;
  p->n_frames = a->n;
  p->min = a->min;
  p->max = a->max;
  p->mean = a->sum / a->n;
  p->harmonic_mean = a->n / a->inv_sum - 1.0;
  return true;
}

static void
metric_free (gpointer p)
{
  Metric *m = p;
  g_free (m->name);
  g_array_unref (m->values);
  g_array_unref (m->written);
  g_free (m);
}

VhScoreTable *
vh_score_table_new (void)
{
  VhScoreTable *t = g_new0 (VhScoreTable, 1);
  t->metrics = g_ptr_array_new_with_free_func (metric_free);
  t->index = g_hash_table_new (g_str_hash, g_str_equal);
  t->aggregates = g_array_new (FALSE, TRUE, sizeof (Aggregate));
  return t;
}

void
vh_score_table_free (VhScoreTable *t)
{
  if (!t)
    return;
  g_hash_table_unref (t->index);
  g_ptr_array_unref (t->metrics);
  vh_score_table_clear_aggregates (t);
  g_array_unref (t->aggregates);
  g_free (t);
}

void
vh_score_table_set_aggregate (VhScoreTable *t, const char *name, double value)
{
  for (guint i = 0; i < t->aggregates->len; i++) {
    Aggregate *a = &g_array_index (t->aggregates, Aggregate, i);
    if (!strcmp (a->name, name)) {
      a->value = value;
      return;
    }
  }
  Aggregate a = { g_strdup (name), value };
  g_array_append_val (t->aggregates, a);
}

unsigned
vh_score_table_n_aggregates (const VhScoreTable *t)
{
  return t->aggregates->len;
}

const char *
vh_score_table_aggregate (const VhScoreTable *t, unsigned i, double *value)
{
  g_return_val_if_fail (i < t->aggregates->len, NULL);
  const Aggregate *a = &g_array_index (t->aggregates, Aggregate, i);
  if (value)
    *value = a->value;
  return a->name;
}

void
vh_score_table_clear_aggregates (VhScoreTable *t)
{
  for (guint i = 0; i < t->aggregates->len; i++)
    g_free (g_array_index (t->aggregates, Aggregate, i).name);
  g_array_set_size (t->aggregates, 0);
}

/* Drops every metric, and with them their running pools. */
void
vh_score_table_clear (VhScoreTable *t)
{
  g_hash_table_remove_all (t->index);
  g_ptr_array_set_size (t->metrics, 0);
  vh_score_table_clear_aggregates (t);
  t->n_frames = 0;
  t->first_frame = 0;
}

unsigned
vh_score_table_metric (VhScoreTable *t, const char *name)
{
  gpointer v = g_hash_table_lookup (t->index, name);
  if (v)
    return GPOINTER_TO_UINT (v) - 1;
  Metric *m = g_new0 (Metric, 1);
  m->name = g_strdup (name);
  m->values = g_array_new (FALSE, TRUE, sizeof (double));
  m->written = g_array_new (FALSE, TRUE, sizeof (guint8));
  vh_pool_accum_init (&m->retired);
  g_ptr_array_add (t->metrics, m);
  g_hash_table_insert (t->index, m->name, GUINT_TO_POINTER (t->metrics->len));
  return t->metrics->len - 1;
}

int
vh_score_table_find (const VhScoreTable *t, const char *name)
{
  gpointer v = g_hash_table_lookup (t->index, name);
  return v ? (int) GPOINTER_TO_UINT (v) - 1 : -1;
}

unsigned
vh_score_table_n_metrics (const VhScoreTable *t)
{
  return t->metrics->len;
}

const char *
vh_score_table_metric_name (const VhScoreTable *t, unsigned metric)
{
  g_return_val_if_fail (metric < t->metrics->len, NULL);
  return ((Metric *) g_ptr_array_index (t->metrics, metric))->name;
}

unsigned
vh_score_table_n_frames (const VhScoreTable *t)
{
  return t->n_frames;
}

void
vh_score_table_set (VhScoreTable *t, unsigned metric, unsigned frame,
    double value)
{
  g_return_if_fail (metric < t->metrics->len);
  g_return_if_fail (frame >= t->first_frame);
  Metric *m = g_ptr_array_index (t->metrics, metric);
  const unsigned slot = frame - t->first_frame;
  if (slot >= m->values->len) {
    g_array_set_size (m->values, slot + 1);
    g_array_set_size (m->written, slot + 1);
  }
  g_array_index (m->values, double, slot) = value;
  g_array_index (m->written, guint8, slot) = 1;
  if (frame + 1 > t->n_frames)
    t->n_frames = frame + 1;
}

bool
vh_score_table_get (const VhScoreTable *t, unsigned metric, unsigned frame,
    double *value)
{
  if (metric >= t->metrics->len || frame < t->first_frame)
    return false;
  Metric *m = g_ptr_array_index (t->metrics, metric);
  const unsigned slot = frame - t->first_frame;
  if (slot >= m->written->len || !g_array_index (m->written, guint8, slot))
    return false;
  if (value)
    *value = g_array_index (m->values, double, slot);
  return true;
}

/* Adds the stored frames [first, last] that `subsample` selects. */
static void
accumulate (const VhScoreTable *t, unsigned metric, unsigned first,
    unsigned last, unsigned subsample, VhPoolAccum *a)
{
  if (subsample < 1)
    subsample = 1;
  for (unsigned i = first; i <= last; i++) {
    double v;
    if (subsample > 1 && i % subsample)
      continue;
    if (vh_score_table_get (t, metric, i, &v))
      vh_pool_accum_add (a, v);
  }
}

bool
vh_score_table_pool (const VhScoreTable *t, unsigned metric, unsigned first,
    unsigned last, unsigned subsample, VhPooled *p)
{
  VhPoolAccum a;

  vh_pool_accum_init (&a);
  accumulate (t, metric, first, last, subsample, &a);
  return vh_pool_accum_get (&a, p);
}

void
vh_score_table_retire (VhScoreTable *t, unsigned upto, unsigned subsample)
{
  if (upto <= t->first_frame)
    return;
  for (unsigned m = 0; m < t->metrics->len; m++) {
    Metric *metric = g_ptr_array_index (t->metrics, m);
    const unsigned drop = MIN (upto - t->first_frame, metric->values->len);
    accumulate (t, m, t->first_frame, upto - 1, subsample, &metric->retired);
    g_array_remove_range (metric->values, 0, drop);
    g_array_remove_range (metric->written, 0, drop);
  }
  /* n_frames stays one past the highest frame written, even if `upto`
   * goes beyond it */
  t->first_frame = upto;
}

unsigned
vh_score_table_first_frame (const VhScoreTable *t)
{
  return t->first_frame;
}

bool
vh_score_table_pool_all (const VhScoreTable *t, unsigned metric,
    unsigned subsample, VhPooled *p)
{
  VhPoolAccum a;

  if (metric >= t->metrics->len)
    return false;
  a = ((Metric *) g_ptr_array_index (t->metrics, metric))->retired;
  if (t->n_frames > t->first_frame)
    accumulate (t, metric, t->first_frame, t->n_frames - 1, subsample, &a);
  return vh_pool_accum_get (&a, p);
}

double
vh_pooled_get (const VhPooled *p, VhPoolMethod method)
{
  switch (method) {
    case VH_POOL_HARMONIC_MEAN:
      return p->harmonic_mean;
    case VH_POOL_MIN:
      return p->min;
    case VH_POOL_MAX:
      return p->max;
    case VH_POOL_MEAN:
    default:
      return p->mean;
  }
}

int
vh_compare_doubles (const void *a, const void *b)
{
  const double x = *(const double *) a, y = *(const double *) b;
  return (x > y) - (x < y);
}

double
vh_percentile (const double *sorted, unsigned n, double perc)
{
  const double p = perc * (n - 1) / 100.;
  const int lo = (int) floor (p);
  const int hi = (int) ceil (p);
  if (lo == hi)
    return sorted[lo];
  return sorted[lo] * (hi - p) + sorted[hi] * (p - lo);
}
