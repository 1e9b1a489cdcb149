/* vmafhip — score table and pooling. */
#include <math.h>
#include <string.h>

#include "vh-scores.h"

typedef struct {
  char *name;
  GArray *values;    /* double */
  GArray *written;   /* gboolean-ish uint8 */
} Metric;

struct VhScoreTable {
  GPtrArray *metrics;      /* Metric* */
  GHashTable *index;       /* name -> index+1 */
  unsigned n_frames;
};

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
  return t;
}

void
vh_score_table_free (VhScoreTable *t)
{
  if (!t)
    return;
  g_hash_table_unref (t->index);
  g_ptr_array_unref (t->metrics);
  g_free (t);
}

void
vh_score_table_clear (VhScoreTable *t)
{
  g_hash_table_remove_all (t->index);
  g_ptr_array_set_size (t->metrics, 0);
  t->n_frames = 0;
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
  Metric *m = g_ptr_array_index (t->metrics, metric);
  if (frame >= m->values->len) {
    g_array_set_size (m->values, frame + 1);
    g_array_set_size (m->written, frame + 1);
  }
  g_array_index (m->values, double, frame) = value;
  g_array_index (m->written, guint8, frame) = 1;
  if (frame + 1 > t->n_frames)
    t->n_frames = frame + 1;
}

bool
vh_score_table_get (const VhScoreTable *t, unsigned metric, unsigned frame,
    double *value)
{
  if (metric >= t->metrics->len)
    return false;
  Metric *m = g_ptr_array_index (t->metrics, metric);
  if (frame >= m->written->len || !g_array_index (m->written, guint8, frame))
    return false;
  if (value)
    *value = g_array_index (m->values, double, frame);
  return true;
}

bool
vh_score_table_pool (const VhScoreTable *t, unsigned metric, unsigned first,
    unsigned last, unsigned subsample, VhPooled *p)
{
  double sum = 0.0, inv_sum = 0.0, lo = INFINITY, hi = -INFINITY;
  unsigned n = 0;

  if (subsample < 1)
    subsample = 1;
  for (unsigned i = first; i <= last; i++) {
    double v;
    if (subsample > 1 && i % subsample)
      continue;
    if (!vh_score_table_get (t, metric, i, &v))
      continue;
    sum += v;
    inv_sum += 1.0 / (v + 1.0);
    lo = MIN (lo, v);
    hi = MAX (hi, v);
    n++;
  }
  if (!n)
    return false;
  p->n_frames = n;
  p->min = lo;
  p->max = hi;
  p->mean = sum / n;
  p->harmonic_mean = n / inv_sum - 1.0;
  return true;
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
