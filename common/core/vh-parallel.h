/* vmafhip — a few independent pieces of work at once, for the engine's
 * serial steps and a picture's row bands: the caller and a process-wide
 * pool of helper threads (one less than the CPUs, at most 63) take the
 * pieces in order as each is free.  On one CPU, or where the pool cannot
 * start, everything runs in the caller. */
#ifndef VH_PARALLEL_H
#define VH_PARALLEL_H

#include <glib.h>

G_BEGIN_DECLS

/* fn (data, i) for every i < n, on up to n threads; returns when all are
 * done. */
void vh_parallel_run (unsigned n, void (*fn) (void *data, unsigned i),
    void *data);

/* The same for pieces that are worth splitting only where CPUs are idle
 * (a picture's row bands): the caller and up to max_threads - 1 helpers
 * take pieces in order as each is free, so where the helpers are busy
 * with other work the caller runs the pieces itself rather than waiting
 * for them.  budget (NULL: none): threads its owner may still start (an
 * engine's idle workers); a helper is asked for only while it is above
 * 0, is counted off it and given back when the pieces are done, so the
 * owner never runs more threads than it was allowed.  fn (data, i) runs
 * exactly once for each i < n; returns when all are done. */
void vh_parallel_for (unsigned n, unsigned max_threads, gint *budget,
    void (*fn) (void *data, unsigned i), void *data);

/* Row bands (VIF's and ADM's): rows / min_rows bands, between 1 and
 * max_bands; band i's first row (i = bands: the end) */
#define VH_BAND_MIN_ROWS 32

static inline unsigned
vh_band_count (unsigned rows, unsigned max_bands)
{
  return CLAMP (rows / VH_BAND_MIN_ROWS, 1, MAX (max_bands, 1));
}

static inline unsigned
vh_band_row (unsigned rows, unsigned bands, unsigned i)
{
  return (unsigned) ((guint64) rows * i / bands);
}

G_END_DECLS
#endif
