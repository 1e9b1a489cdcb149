/* vmafhip-score --chunk I/N: one of N frame ranges of a title, scored on
 * its own (another process, GPU or machine) and written as a part file
 * that vmafhip-score --merge joins with the others into the whole title's
 * log (score-merge.h; docs/cli.md, *One title in chunks*).
 *
 * The frames are split as evenly as possible, chunk I (from 1) taking
 * frames [(I - 1) T / N, I T / N) of the title's T.  A frame's scores
 * depend on its neighbours through motion only (its SAD reads frame i - 1,
 * or i - 2 with the five-frame window; motion2 the next SAD; motion3's
 * moving average the previous motion2), so the chunk reads frames around
 * its range, scores them like any other, and keeps its own: those have the
 * whole run's values to the bit, while the extra ones, which see the
 * stream start or end where it does not, are dropped. */
#ifndef VH_SCORE_CHUNK_H
#define VH_SCORE_CHUNK_H

#include <glib.h>

#include "score-input.h"
#include "score-options.h"
#include "vh-engine.h"

/* The first line of a part file */
#define SCORE_PART_MAGIC "vmafhip-score part 1"

typedef struct {
  unsigned index, count;        /* chunk I of N, I from 1 */
} ScoreChunk;

/* Parses --chunk's "I/N" (1 <= I <= N). */
gboolean score_chunk_parse (const char *text, ScoreChunk *chunk,
    GError **error);

/* What --chunk cannot take, refused before any work: no -o (the part's
 * path), a log format (given to --merge instead), psnr's enable_apsnr (an
 * aggregate of the whole stream), CAMBI's heatmaps_path (files of every
 * frame of one run).  `features`: the parsed --feature specs
 * (VhFeatureSpec), `models` the model specs (VhModelSpec). */
gboolean score_chunk_check_options (const ScoreOptions *o,
    const GPtrArray *models, const GPtrArray *features, GError **error);

/* The frames of the title the options select: the shorter input's, past
 * --frame_skip_ref/_dist, at most --frame_cnt (a synthetic pair: 24 unless
 * --frame_cnt).  Inputs GStreamer decodes have no frame count short of
 * decoding them whole: --frame_cnt must give it.  `in` NULL: synthetic. */
gboolean score_chunk_title_frames (const ScoreOptions *o, ScoreInput *in,
    unsigned *n_title, GError **error);

typedef struct {
  unsigned n_title;             /* frames of the title */
  unsigned first, last;         /* the chunk's own frames, of the title */
  /* the frames read and scored, [read_first, read_end): the chunk's and
   * those its motion values need around it */
  unsigned read_first, read_end;
} ScoreChunkRange;

/* The chunk's frames of a title of n_title, and those read around them:
 * 2 x `lookahead` before (vh_engine_lookahead: the SAD of the first frame
 * needs the `lag` frames before it, motion3's moving average the SAD of
 * the frame before that), moved back to a multiple of `subsample` (so
 * that the engine's every n-th frame is the title's), and `lookahead`
 * after (motion2 of the last frame needs the next SAD).  An error where
 * the title has fewer frames than chunks. */
gboolean score_chunk_range (const ScoreChunk *chunk, unsigned n_title,
    unsigned lookahead, unsigned subsample, ScoreChunkRange *range,
    GError **error);
/* Frame `frame` of the title is one of the chunk's own */
gboolean score_chunk_owns (const ScoreChunkRange *range, unsigned frame);

/* A part file being written: a header that says which run and chunk it
 * is (what --merge checks the parts against each other with), then the
 * metrics' names and each of the chunk's frames with every value in full
 * precision, then the scoring time and an end line. */
typedef struct ScorePart ScorePart;

/* Creates the part file and writes its header.  `in` NULL: a synthetic
 * pair; `models`: the models' spec strings as given (the default one where
 * none is), NULL-terminated. */
ScorePart *score_part_open (const char *path, const ScoreChunk *chunk,
    const ScoreChunkRange *range, const ScoreOptions *o,
    const char *const *models, const ScoreInput *in,
    const VhVideoInfo *info, const VhEngine *engine, GError **error);
/* Writes the table's frame `frame` as the title's frame `title_frame`
 * (with the names of metrics new since the last one) */
gboolean score_part_add_frame (ScorePart *part, const VhScoreTable *t,
    unsigned frame, unsigned title_frame, GError **error);
/* The scoring time and the end line; closes the file. */
gboolean score_part_finish (ScorePart *part, double seconds, GError **error);
/* Closes (NULL-safe); a part not finished is removed: half a part is of no
 * use, and a merge would refuse it. */
void score_part_free (ScorePart *part);

#endif /* VH_SCORE_CHUNK_H */
