/* vmafhip — where an extractor puts its values (VhFeatureSink,
 * vh-feature.h): the engine's score table, under the instance's suffix, or
 * a worker's record of the frame, replayed into the table in frame order
 * (engine-workers.c). */
#include "feature-sink.h"

void
vh_feature_sink_put (VhFeatureSink *sink, const char *name, unsigned index,
    double value)
{
  if (sink->record) {
    sink->record_put (sink, FALSE, name, index, value);
    return;
  }
  gpointer v = g_hash_table_lookup (sink->metric_of_name, name);
  unsigned metric;
  if (v) {
    metric = GPOINTER_TO_UINT (v) - 1;
  } else {
    char *full = g_strconcat (name, sink->suffix, NULL);
    metric = vh_score_table_metric (sink->table, full);
    g_free (full);
    g_hash_table_insert (sink->metric_of_name, g_strdup (name),
        GUINT_TO_POINTER (metric + 1));
  }
  vh_score_table_set (sink->table, metric, index, value);
}

void
vh_feature_sink_set_aggregate (VhFeatureSink *sink, const char *name,
    double value)
{
  /* flush() runs on the engine's own instance, whose sink is the table's */
  g_return_if_fail (sink->table != NULL && !sink->record);
  vh_score_table_set_aggregate (sink->table, name, value);
}

void
vh_feature_sink_put_plain (VhFeatureSink *sink, const char *name,
    unsigned index, double value)
{
  if (sink->record) {
    sink->record_put (sink, TRUE, name, index, value);
    return;
  }
  gpointer v = g_hash_table_lookup (sink->metric_of_plain, name);
  unsigned metric;
  if (v) {
    metric = GPOINTER_TO_UINT (v) - 1;
  } else {
    metric = vh_score_table_metric (sink->table, name);
    g_hash_table_insert (sink->metric_of_plain, g_strdup (name),
        GUINT_TO_POINTER (metric + 1));
  }
  vh_score_table_set (sink->table, metric, index, value);
}
