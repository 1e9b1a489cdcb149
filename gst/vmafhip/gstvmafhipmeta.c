/* vmafhip — the GstVmafHipMeta custom meta: registration and attaching. */
#include "gstvmafhipmeta.h"

void
gst_vmafhip_meta_register (void)
{
  /* No tags: the scores describe the frame's content, so filters that keep
   * the picture (GstBaseTransform's default) keep the meta too. Copies of
   * the buffer copy the structure (GstCustomMeta's default transform). */
  static const gchar *tags[] = { NULL };
  static gsize registered = 0;

  if (g_once_init_enter (&registered)) {
    gst_meta_register_custom (GST_VMAFHIP_META_NAME, tags, NULL, NULL, NULL);
    g_once_init_leave (&registered, 1);
  }
}

static gboolean
copy_field (GQuark field, const GValue * value, gpointer user_data)
{
  gst_structure_id_set_value (user_data, field, value);
  return TRUE;
}

GstVmafHipMeta *
gst_buffer_add_vmafhip_meta (GstBuffer * buffer, gint index,
    GstStructure * scores)
{
  GstCustomMeta *meta;
  GstStructure *s;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  gst_vmafhip_meta_register ();
  meta = gst_buffer_add_custom_meta (buffer, GST_VMAFHIP_META_NAME);
  if (meta) {
    s = gst_custom_meta_get_structure (meta);
    gst_structure_set (s, "index", G_TYPE_INT, index, NULL);
    if (scores)
      gst_structure_foreach (scores, copy_field, s);
  }
  if (scores)
    gst_structure_free (scores);
  return meta;
}
