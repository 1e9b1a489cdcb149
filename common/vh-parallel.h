/* vmafhip — a few independent pieces of work at once, for the engine's
 * serial steps (the pushing thread's share of an accelerated feature):
 * vh_parallel_run () calls fn (data, i) for i < n, i = 0 in the calling
 * thread and the rest on a process-wide pool of helper threads (one less
 * than the CPUs, at most 7), and returns when all are done.  On one CPU,
 * or where the pool cannot start, everything runs in the caller. */
#ifndef VH_PARALLEL_H
#define VH_PARALLEL_H

#include <glib.h>

G_BEGIN_DECLS

void vh_parallel_run (unsigned n, void (*fn) (void *data, unsigned i),
    void *data);

G_END_DECLS
#endif
