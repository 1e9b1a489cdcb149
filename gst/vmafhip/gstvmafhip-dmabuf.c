/* vmafhip — frames in dmabuf memory (memory:DMABuf: v4l2 decoders,
 * udmabuf, VA-API where it exports linear surfaces).
 *
 * Where the GPU backend scores every feature, each dmabuf is imported into
 * the device's address space (HIP external memory on AMD; NVIDIA's driver
 * takes dmabufs on Tegra only) once, kept on its GstMemory, and frames are
 * copied device to device into the backend's slots, never mapped on the
 * CPU.  Where that is not possible (a feature on the CPU, interleaved
 * chroma, a driver that refuses the import), frames are mapped (mmap of the
 * linear buffer) and go through the staging copy like any host frame, with
 * one warning per stream that says why.  The pads list dmabuf after system
 * memory, so upstream elements that can
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
  if (self->dist_stream.engine)
    return self->use_gpu;
  GST_OBJECT_LOCK (self);
  const GstVmafHipBackend backend = self->props.backend;
  GST_OBJECT_UNLOCK (self);
  if (backend == GST_VMAFHIP_BACKEND_CPU)
    return FALSE;
  if (self->dmabuf.gpu_count < 0)
    self->dmabuf.gpu_count = vh_backend_count_gpus (&self->engine_config);
  return self->dmabuf.gpu_count > 0;
}

GstCaps *
gst_vmafhip_dmabuf_filter_caps (GstVmafHip * self, GstCaps * caps)
{
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

/* The import of a dmabuf memory, kept on the memory itself: a pool's
 * buffers are imported once, and released with them. */
static GQuark
import_quark (void)
{
  static GQuark quark;
  if (!quark)
    quark = g_quark_from_static_string ("GstVmafHipDmabufImport");
  return quark;
}

/* The device address of a memory's byte 0 (its offset included), importing
 * the dmabuf it lies in at the first use; 0 with error. */
static guint64
memory_address (GstVmafHip * self, GstMemory * mem, GError ** error)
{
  GstMemory *root = mem->parent ? mem->parent : mem;
  VhBackendImport *import = gst_mini_object_get_qdata (GST_MINI_OBJECT (root),
      import_quark ());
  if (!vh_backend_import_is_on (import, self->backend)) {
    gsize maxsize;
    gst_memory_get_sizes (root, NULL, &maxsize);
    import = vh_backend_import_dmabuf (self->backend,
        gst_dmabuf_memory_get_fd (root), maxsize, error);
    if (!import)
      return 0;
    GST_DEBUG_OBJECT (self, "imported dmabuf fd %d (%" G_GSIZE_FORMAT
        " bytes)", gst_dmabuf_memory_get_fd (root), maxsize);
    gst_mini_object_set_qdata (GST_MINI_OBJECT (root), import_quark (),
        import, (GDestroyNotify) vh_backend_import_free);
  }
  /* a shared memory's offset counts from its parent's byte 0 */
  return vh_backend_import_address (import) + mem->offset;
}

/* Each plane's device address (planes past the format's count stay 0);
 * FALSE with error where one is not in an importable dmabuf or not all of
 * it lies in one memory. */
static gboolean
plane_addresses (GstVmafHip * self, const GstVideoInfo * info, GstBuffer * buf,
    gsize offsets[GST_VIDEO_MAX_PLANES], gint strides[GST_VIDEO_MAX_PLANES],
    gpointer data[GST_VIDEO_MAX_PLANES], GError ** error)
{
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (info); p++) {
    guint idx, len;
    gsize skip;
    gint comp[GST_VIDEO_MAX_COMPONENTS];
    gst_video_format_info_component (info->finfo, p, comp);
    /* the last row may end before the stride does */
    const gsize bytes = (gsize) (GST_VIDEO_INFO_COMP_HEIGHT (info, comp[0])
        - 1) * (gsize) MAX (strides[p], 0)
        + (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, comp[0])
        * (gsize) GST_VIDEO_INFO_COMP_PSTRIDE (info, comp[0]);
    if (strides[p] <= 0 || !gst_buffer_find_memory (buf, offsets[p], 1, &idx,
            &len, &skip) || len != 1) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "plane %u is not in the buffer", p);
      return FALSE;
    }
    GstMemory *mem = gst_buffer_peek_memory (buf, idx);
    if (!gst_is_dmabuf_memory (mem) || skip + bytes > mem->size) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "plane %u is not whole in one dmabuf", p);
      return FALSE;
    }
    guint64 base = memory_address (self, mem, error);
    if (!base)
      return FALSE;
    data[p] = (gpointer) (guintptr) (base + skip);
  }
  return TRUE;
}

gboolean
gst_vmafhip_dmabuf_import (GstVmafHip * self, int which, GstBuffer * buf,
    VhPicture * pic)
{
  /* (an empty buffer has no memory at all) */
  GstMemory *mem = gst_buffer_n_memory (buf) ? gst_buffer_peek_memory (buf, 0)
      : NULL;
  if (!mem || !gst_is_dmabuf_memory (mem))
    return FALSE;

  gchar *why = NULL;
  if (!self->use_gpu)
    why = g_strdup ("the frames are scored on the CPU");
  else if (!vh_engine_all_accelerated (self->dist_stream.engine))
    why = g_strdup ("a feature runs on the CPU");
  else if (!gst_vmafhip_planes_read_as_is (self, which))
    why = g_strdup ("the GPU reads planar samples only (NV12 or P010 chroma "
        "where chroma is read, P010's shifted samples)");
  else if (!self->dmabuf.import_failed) {
    /* the frame as a GstVideoFrame of device addresses, never mapped */
    GstVideoFrame frame = { 0 };
    GstVideoMeta *meta = gst_buffer_get_video_meta (buf);
    GError *error = NULL;
    frame.info = self->side[which].info;
    frame.buffer = buf;
    if (meta)
      for (guint p = 0; p < meta->n_planes; p++) {
        frame.info.offset[p] = meta->offset[p];
        frame.info.stride[p] = meta->stride[p];
      }
    if (plane_addresses (self, &frame.info, buf, frame.info.offset,
            frame.info.stride, frame.data, &error)) {
      gst_vmafhip_fill_picture (self, which, &frame, pic);
      pic->memory = VH_PICTURE_DEVICE;
      return TRUE;
    }
    why = g_strdup_printf ("the GPU driver cannot import them (%s)",
        error->message);
    g_error_free (error);
    self->dmabuf.import_failed = TRUE;  /* not tried again this stream */
  }
  if (!self->dmabuf.warned_copy) {
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Frames in dmabuf memory are mapped and copied to the GPU through "
            "host memory: %s.", why), ("fd %d; once per stream",
            gst_dmabuf_memory_get_fd (mem)));
    self->dmabuf.warned_copy = TRUE;
  }
  g_free (why);
  return FALSE;
}
