/* vmafhip — GstVmafHipMeta registration. */
#include "gstvmafhipmeta.h"

GType
gst_vmafhip_meta_api_get_type (void)
{
  static GType type = 0;
  /* No tags: the scores describe the frame's content, so filters that keep
   * the picture (GstBaseTransform's default) keep the meta too. */
  static const gchar *tags[] = { NULL };

  if (g_once_init_enter (&type)) {
    GType t = gst_meta_api_type_register (GST_VMAFHIP_META_API_NAME, tags);
    g_once_init_leave (&type, t);
  }
  return type;
}

static gboolean
vmafhip_meta_init (GstMeta * meta, gpointer params, GstBuffer * buffer)
{
  GstVmafHipMeta *m = (GstVmafHipMeta *) meta;

  (void) params;
  (void) buffer;
  m->index = -1;
  m->scores = NULL;
  return TRUE;
}

static void
vmafhip_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstVmafHipMeta *m = (GstVmafHipMeta *) meta;

  (void) buffer;
  if (m->scores)
    gst_structure_free (m->scores);
  m->scores = NULL;
}

/* Copied along with the buffer (gst_buffer_copy, make_writable, and
 * transforms that keep the whole frame); dropped on any other transform,
 * whose output is no longer the scored picture. */
static gboolean
vmafhip_meta_transform (GstBuffer * dest, GstMeta * meta, GstBuffer * buffer,
    GQuark type, gpointer data)
{
  GstVmafHipMeta *m = (GstVmafHipMeta *) meta;

  (void) buffer;
  (void) data;
  if (!GST_META_TRANSFORM_IS_COPY (type))
    return FALSE;
  return gst_buffer_add_vmafhip_meta (dest, m->index,
      m->scores ? gst_structure_copy (m->scores) : NULL) != NULL;
}

const GstMetaInfo *
gst_vmafhip_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *mi = gst_meta_register (GST_VMAFHIP_META_API_TYPE,
        GST_VMAFHIP_META_IMPL_NAME, sizeof (GstVmafHipMeta),
        vmafhip_meta_init, vmafhip_meta_free, vmafhip_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) mi);
  }
  return info;
}

GstVmafHipMeta *
gst_buffer_add_vmafhip_meta (GstBuffer * buffer, gint index,
    GstStructure * scores)
{
  GstVmafHipMeta *m;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  m = (GstVmafHipMeta *) gst_buffer_add_meta (buffer,
      GST_VMAFHIP_META_INFO, NULL);
  if (!m) {
    if (scores)
      gst_structure_free (scores);
    return NULL;
  }
  m->index = index;
  m->scores = scores;
  return m;
}
