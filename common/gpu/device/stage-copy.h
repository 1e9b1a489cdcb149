/* vmafhip — packing picture rows into pinned staging memory (internal).
 *
 * The staging buffer is only ever read by the GPU's copy engine, so it is
 * written with non-temporal (streaming) stores where the CPU has them: no
 * read-for-ownership of the destination and no cache lines evicted from
 * under the pipeline's other threads.  With many instances on one host the
 * staging copy is bound by memory traffic, and this is a third less of it.
 */
#ifndef VH_STAGE_COPY_H
#define VH_STAGE_COPY_H

#include <stddef.h>
#include "vh-picture.h"

/* Copies rows y0..y1-1 of src (bytes per sample: 1 or 2) into dst, packed
 * at `row` bytes per row; interleaved chroma (step 2) takes every other
 * sample.  Ends with a store fence: the rows are visible to the device
 * copy queued after it.  Returns the OR of the 16-bit samples copied (0
 * for 8-bit ones): a bit above the depth shows a sample out of range. */
unsigned vh_stage_rows (const VhPlane *src, unsigned bytes,
    unsigned char *dst, size_t row, unsigned y0, unsigned y1);


/* n bytes from src to dst with streaming stores (memcpy where there are
 * none); no fence. */
void vh_stream_copy (unsigned char *dst, const unsigned char *src, size_t n);
/* Orders the streaming stores before what follows (a device copy). */
void vh_stream_fence (void);

#endif
