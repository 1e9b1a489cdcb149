/* vmafhip-score --merge PART... -o LOG: the part files of one title's
 * chunks (score-chunk.h), checked to belong together, joined into the log
 * a whole-title run writes, byte for byte but for the measured fps of JSON
 * and XML (here: the title's frames over the parts' summed scoring time).
 *
 * The parts carry every value of their frames as the doubles the engine
 * computed, so the per-frame values, the pooled ones (mean, harmonic mean,
 * min, max, summed in frame order as the whole run sums them) and the
 * models' outputs, bootstrap ones included, are the whole run's. */
#ifndef VH_SCORE_MERGE_H
#define VH_SCORE_MERGE_H

#include <glib.h>

#include "vh-scores.h"

/* What a merge gives, for the pooled scores on stdout */
typedef struct {
  VhScoreTable *table;          /* every frame retired: pools only */
  char **models;                /* the models' report names */
  unsigned n_parts, n_frames, subsample;
  double seconds;               /* the parts' scoring time, summed */
} ScoreMerged;

/* Reads and checks every part (a part file, complete, of the same run as
 * the others: version, chunk count, title length, video, inputs, frame
 * options and models and features; every chunk 1..N once), before the
 * log is created; then writes the log in `format` to `output`.  Errors
 * name the part and what to do; a log left half written is removed. */
gboolean score_merge (const char *const *parts, const char *output,
    VhLogFormat format, ScoreMerged *merged, GError **error);
void score_merged_clear (ScoreMerged *merged);

#endif /* VH_SCORE_MERGE_H */
