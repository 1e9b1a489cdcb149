/* vmafhip — the process's resident memory, for the soak benchmarks. */
#ifndef VH_MEMORY_H
#define VH_MEMORY_H

#include <glib.h>

/* VmRSS and VmHWM in kB from /proc/self/status (0 where unknown). */
void vh_process_memory (guint64 *rss_kb, guint64 *hwm_kb);

#endif
