/* vmafhip — pinned (page-locked) host memory for the frames upstream writes.
 *
 * With the GPU backend, the element offers upstream a buffer pool whose
 * memory comes from vh_backend_host_alloc: frames decoded or rendered straight
 * into it are copied to the device by DMA without the backend's staging
 * copy (see common/gpu/backend/gpu-backend.c, "zero-copy").  To everything else
 * the memory is ordinary system memory: mappable, readable and writable,
 * shareable.
 */
#ifndef __GST_VMAFHIP_POOL_H__
#define __GST_VMAFHIP_POOL_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "vh-backend.h"

G_BEGIN_DECLS

/* The memory type of the allocator's memory (GstAllocator.mem_type):
 * gst_memory_is_type (mem, GST_VMAFHIP_PINNED_MEMORY_TYPE). */
#define GST_VMAFHIP_PINNED_MEMORY_TYPE "VmafHipPinned"

#define GST_TYPE_VMAFHIP_PINNED_ALLOCATOR \
    (gst_vmafhip_pinned_allocator_get_type ())
G_DECLARE_FINAL_TYPE (GstVmafHipPinnedAllocator,
    gst_vmafhip_pinned_allocator, GST, VMAFHIP_PINNED_ALLOCATOR, GstAllocator)

/* An allocator of pinned memory on the backend's GPU; it keeps a reference
 * on it until the last memory is gone.  NULL and an error on the CPU. */
GstAllocator *gst_vmafhip_pinned_allocator_new (VhBackendChoice * backend,
    GError ** error);

/* A GstVideoBufferPool for caps whose buffers come from `allocator`, with
 * GstVideoMeta (the GST_BUFFER_POOL_OPTION_VIDEO_META option set) and
 * honouring GST_BUFFER_POOL_OPTION_VIDEO_ALIGNMENT when upstream asks for
 * it.  min / max: buffer counts as gst_buffer_pool_config_set_params. */
GstBufferPool *gst_vmafhip_pinned_pool_new (GstAllocator * allocator,
    GstCaps * caps, guint size, guint min_buffers, guint max_buffers);

G_END_DECLS

#endif /* __GST_VMAFHIP_POOL_H__ */
