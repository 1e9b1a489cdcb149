/* vmafhip — frames in dmabuf memory (memory:DMABuf: v4l2 decoders,
 * udmabuf, VA-API where it exports linear surfaces).
 *
 * The GPU backend does not import dmabuf file descriptors into device
 * memory yet (HIP's external memory on AMD; NVIDIA's driver does not take
 * dmabufs): frames are mapped (mmap of the linear buffer) and go through
 * the staging copy like any host frame, with one warning per stream.  The
 * pads list dmabuf after system memory, so upstream elements that can
 * produce either keep to system memory, and offer it only while a GPU
 * backend scores (as CUDA memory): an element on the CPU gains nothing
 * from it and refuses it at negotiation.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/allocators/allocators.h>

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* A GPU backend scores (after start), or could (before: backend is not
 * cpu and a GPU is there). */
static gboolean
dmabuf_usable (GstVmafHip * self)
{
  if (self->engine)
    return self->use_gpu;
  GST_OBJECT_LOCK (self);
  const GstVmafHipBackend backend = self->props.backend;
  GST_OBJECT_UNLOCK (self);
  if (backend == GST_VMAFHIP_BACKEND_CPU)
    return FALSE;
  if (self->gpu_count < 0)
    self->gpu_count = vh_gpu_device_count (VH_GPU_VENDOR_AUTO, NULL);
  return self->gpu_count > 0;
}

GstCaps *
gst_vmafhip_caps_drop_feature (GstCaps * caps, const char *feature)
{
  caps = gst_caps_make_writable (caps);
  for (guint i = gst_caps_get_size (caps); i-- > 0;) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    if (f && gst_caps_features_contains (f, feature))
      gst_caps_remove_structure (caps, i);
  }
  return caps;
}

GstCaps *
gst_vmafhip_filter_memory_caps (GstVmafHip * self, GstCaps * caps)
{
  caps = gst_vmafhip_cuda_filter_caps (self, caps);
  if (gst_caps_is_any (caps) || dmabuf_usable (self))
    return caps;
  return gst_vmafhip_caps_drop_feature (caps, GST_CAPS_FEATURE_MEMORY_DMABUF);
}

gboolean
gst_vmafhip_caps_are_dmabuf (GstCaps * caps)
{
  GstCapsFeatures *f = caps && gst_caps_get_size (caps) ?
      gst_caps_get_features (caps, 0) : NULL;
  return f && gst_caps_features_contains (f, GST_CAPS_FEATURE_MEMORY_DMABUF);
}

void
gst_vmafhip_dmabuf_check (GstVmafHip * self, GstBuffer * buf)
{
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  if (self->warned_dmabuf_copy || !mem || !gst_is_dmabuf_memory (mem))
    return;
  GST_ELEMENT_WARNING (self, STREAM, FORMAT,
      ("Frames in dmabuf memory are mapped and copied to the GPU through "
          "host memory (vmafhip does not import dmabufs yet)."),
      ("fd %d; once per stream", gst_dmabuf_memory_get_fd (mem)));
  self->warned_dmabuf_copy = TRUE;
}
