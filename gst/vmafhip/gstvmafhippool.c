/* vmafhip — pinned host memory for upstream's frames (see gstvmafhippool.h). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "gstvmafhippool.h"
#include "vh-error.h"

GST_DEBUG_CATEGORY_STATIC (gst_vmafhip_pool_debug);
#define GST_CAT_DEFAULT gst_vmafhip_pool_debug

struct _GstVmafHipPinnedAllocator
{
  GstAllocator parent;

  VhBackendChoice *backend;     /* owned: the blocks are pinned on its GPU */
  gint warned;                  /* atomic: the fallback was reported */
};

G_DEFINE_TYPE (GstVmafHipPinnedAllocator, gst_vmafhip_pinned_allocator,
    GST_TYPE_ALLOCATOR);

/* One memory: a whole pinned block, or (share) a view of its parent's. */
typedef struct
{
  GstMemory mem;
  guint8 *data;                 /* aligned start; offset counts from here */
  guint8 *block;                /* what vh_backend_host_alloc gave; NULL: a view */
} PinnedMemory;

static GstMemory *
pinned_alloc (GstAllocator * allocator, gsize size,
    GstAllocationParams * params)
{
  GstVmafHipPinnedAllocator *self = GST_VMAFHIP_PINNED_ALLOCATOR (allocator);
  const gsize align = params->align | gst_memory_alignment;
  const gsize maxsize = size + params->prefix + params->padding;
  GError *error = NULL;
  /* align more bytes, to move the start onto the boundary (pinned blocks
   * are page-aligned anyway) */
  guint8 *block = vh_backend_host_alloc (self->backend, maxsize + align,
      &error);

  if (!block) {
    /* Upstream still gets its frame: in system memory, which the GPU
     * backend uploads through its staging copy. */
    if (g_atomic_int_compare_and_exchange (&self->warned, 0, 1))
      GST_WARNING_OBJECT (self, "no pinned memory for a %" G_GSIZE_FORMAT
          "-byte buffer (%s): using system memory, uploaded with a copy",
          maxsize, error->message);
    g_clear_error (&error);
    return gst_allocator_alloc (NULL, size, params);
  }

  PinnedMemory *mem = g_new0 (PinnedMemory, 1);
  const guintptr misaligned = (guintptr) block & align;
  mem->block = block;
  mem->data = block + (misaligned ? align + 1 - misaligned : 0);
  gst_memory_init (GST_MEMORY_CAST (mem), params->flags, allocator, NULL,
      maxsize, align, params->prefix, size);
  if (params->prefix && (params->flags & GST_MEMORY_FLAG_ZERO_PREFIXED))
    memset (mem->data, 0, params->prefix);
  if (params->padding && (params->flags & GST_MEMORY_FLAG_ZERO_PADDED))
    memset (mem->data + params->prefix + size, 0, params->padding);
  return GST_MEMORY_CAST (mem);
}

static void
pinned_free (GstAllocator * allocator, GstMemory * memory)
{
  GstVmafHipPinnedAllocator *self = GST_VMAFHIP_PINNED_ALLOCATOR (allocator);
  PinnedMemory *mem = (PinnedMemory *) memory;

  /* a view's block belongs to its parent, which outlives it */
  if (mem->block)
    vh_backend_host_free (self->backend, mem->block);
  g_free (mem);
}

static gpointer
pinned_map (GstMemory * memory, gsize maxsize, GstMapFlags flags)
{
  (void) maxsize;
  (void) flags;
  /* host memory: always mapped; gst_memory_map adds the offset */
  return ((PinnedMemory *) memory)->data;
}

static void
pinned_unmap (GstMemory * memory)
{
  (void) memory;
}

static GstMemory *
pinned_share (GstMemory * memory, gssize offset, gssize size)
{
  GstMemory *parent = memory->parent ? memory->parent : memory;
  PinnedMemory *view = g_new0 (PinnedMemory, 1);

  if (size == -1)
    size = memory->size - offset;
  view->data = ((PinnedMemory *) memory)->data;
  /* read-only, as every shared GstMemory: writes would show in the parent */
  gst_memory_init (GST_MEMORY_CAST (view),
      GST_MINI_OBJECT_FLAGS (parent) | GST_MINI_OBJECT_FLAG_LOCK_READONLY,
      memory->allocator, parent, memory->maxsize, memory->align,
      memory->offset + offset, size);
  return GST_MEMORY_CAST (view);
}

/* Views of one parent that follow each other merge without a copy. */
static gboolean
pinned_is_span (GstMemory * mem1, GstMemory * mem2, gsize * offset)
{
  const PinnedMemory *a = (const PinnedMemory *) mem1;
  const PinnedMemory *b = (const PinnedMemory *) mem2;

  if (offset)
    *offset = mem1->offset - mem1->parent->offset;
  return a->data + mem1->offset + mem1->size == b->data + mem2->offset;
}

static void
gst_vmafhip_pinned_allocator_finalize (GObject * object)
{
  GstVmafHipPinnedAllocator *self = GST_VMAFHIP_PINNED_ALLOCATOR (object);

  /* every memory held a reference: all blocks are freed by now */
  vh_backend_choice_unref (self->backend);
  G_OBJECT_CLASS (gst_vmafhip_pinned_allocator_parent_class)->finalize
      (object);
}

static void
gst_vmafhip_pinned_allocator_init (GstVmafHipPinnedAllocator * self)
{
  GstAllocator *allocator = GST_ALLOCATOR_CAST (self);

  allocator->mem_type = GST_VMAFHIP_PINNED_MEMORY_TYPE;
  allocator->mem_map = pinned_map;
  allocator->mem_unmap = pinned_unmap;
  allocator->mem_share = pinned_share;
  allocator->mem_is_span = pinned_is_span;
  /* mem_copy: GstAllocator's fallback (a copy in system memory) */
}

static void
gst_vmafhip_pinned_allocator_class_init (GstVmafHipPinnedAllocatorClass *
    klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstAllocatorClass *allocator_class = GST_ALLOCATOR_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_vmafhip_pool_debug, "vmafhippool", 0,
      "vmafhip pinned host memory");
  gobject_class->finalize = gst_vmafhip_pinned_allocator_finalize;
  allocator_class->alloc = pinned_alloc;
  allocator_class->free = pinned_free;
}

GstAllocator *
gst_vmafhip_pinned_allocator_new (VhBackendChoice * backend, GError ** error)
{
  GstVmafHipPinnedAllocator *self;

  if (!backend || !vh_backend_choice_is_gpu (backend)) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_GPU, "no GPU device");
    return NULL;
  }
  self = g_object_new (GST_TYPE_VMAFHIP_PINNED_ALLOCATOR, NULL);
  gst_object_ref_sink (self);
  self->backend = vh_backend_choice_ref (backend);
  GST_DEBUG_OBJECT (self, "pinned memory on %s",
      vh_backend_choice_description (backend));
  return GST_ALLOCATOR_CAST (self);
}

GstBufferPool *
gst_vmafhip_pinned_pool_new (GstAllocator * allocator, GstCaps * caps,
    guint size, guint min_buffers, guint max_buffers)
{
  GstBufferPool *pool;
  GstStructure *config;
  GstAllocationParams params;

  g_return_val_if_fail (GST_IS_VMAFHIP_PINNED_ALLOCATOR (allocator), NULL);
  pool = gst_video_buffer_pool_new ();
  gst_object_set_name (GST_OBJECT (pool), "vmafhip-pinned-pool");
  config = gst_buffer_pool_get_config (pool);
  gst_allocation_params_init (&params);
  gst_buffer_pool_config_set_params (config, caps, size, min_buffers,
      max_buffers);
  gst_buffer_pool_config_set_allocator (config, allocator, &params);
  gst_buffer_pool_config_add_option (config,
      GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    GST_WARNING_OBJECT (allocator, "the video buffer pool refused the "
        "configuration for %" GST_PTR_FORMAT, caps);
    gst_object_unref (pool);
    return NULL;
  }
  return pool;
}
