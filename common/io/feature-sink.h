/* vmafhip — a feature instance's sink (VhFeatureSink of vh-feature.h):
 * what the engine and its workers set up, feature-sink.c puts through. */
#ifndef VH_FEATURE_SINK_H
#define VH_FEATURE_SINK_H

#include <glib.h>

#include "vh-feature.h"
#include "vh-scores.h"

G_BEGIN_DECLS

struct VhFeatureSink {
  VhScoreTable *table;
  const char *suffix;
  GHashTable *metric_of_name;   /* base name -> metric index + 1 */
  GHashTable *metric_of_plain;  /* unsuffixed name -> metric index + 1 */
  /* a worker's or a sums helper's sink: puts go to its record (a frame in
   * flight, a job), not the table, by record_put (engine-workers.c,
   * engine-sums.c) */
  gpointer record;
  unsigned record_instance;
  void (*record_put) (VhFeatureSink *sink, gboolean plain, const char *name,
      unsigned index, double value);
};

G_END_DECLS

#endif /* VH_FEATURE_SINK_H */
