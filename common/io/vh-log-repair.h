/* vmafhip — finishing a results file its writer never finished.
 *
 * A log streamed by VhLogWriter (vh-scores.h), or written by libvmaf, that
 * was cut short by SIGKILL, a full disk or a power loss: JSON with its
 * frames array still open, XML without </frames> and what follows, CSV or
 * subtitles ending in a partial line, perhaps zero bytes after the text
 * (what a power loss can leave at a file's end).
 */
#ifndef VH_LOG_REPAIR_H
#define VH_LOG_REPAIR_H

#include <glib.h>

#include "vh-scores.h"

G_BEGIN_DECLS

typedef struct VhLogRepairReport {
  VhLogFormat format;       /* detected from the content */
  /* already complete (JSON and XML: their end written; CSV and sub: a
   * whole last line): the file was not touched */
  gboolean was_complete;
  /* cut inside its header, before any frame: replaced by the log the
   * writer finishes without frames (CSV: a "Frame," line alone) */
  gboolean header_cut;
  unsigned n_frames;        /* complete frames kept, byte for byte */
  /* bytes dropped after the last complete frame: a partial frame, or, with
   * frames_closed, the start of the pooled section; zero bytes counted
   * apart */
  gsize dropped_bytes, zero_bytes;
  gboolean frames_closed;
  /* the kept frames' values, every metric in first-seen order, all frames
   * retired into the pools: vh_score_table_pool_all (pooled, m, 1, &p)
   * gives what the pooled section now says (CSV and sub have none) */
  VhScoreTable *pooled;
} VhLogRepairReport;

/* Finishes the results file at `path` in place: keeps every complete
 * frame, drops a partial last one, and writes the pooled section as
 * vh_log_writer_finish does (the same keys, layout and pooling), computed
 * from the kept frames' printed values; intervals and segments, which the
 * writer keeps in memory until it finishes, are gone. The new content goes
 * to a temporary file in the same folder that is then renamed over the
 * file, so a crash while repairing leaves the file as it was. A complete
 * file is left alone (report->was_complete). FALSE, with the file
 * untouched, for a file that is not a vmafhip or libvmaf results file, one
 * damaged elsewhere than at its end, or an I/O error; the message names
 * the file and the problem. */
gboolean vh_log_repair_file (const char *path, VhLogRepairReport *report,
    GError **error);

/* Frees what the report holds (not the report). */
void vh_log_repair_report_clear (VhLogRepairReport *report);

G_END_DECLS
#endif /* VH_LOG_REPAIR_H */
