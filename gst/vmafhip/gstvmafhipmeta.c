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

GstVmafHipMeta *
gst_buffer_add_vmafhip_meta (GstBuffer * buffer, gint index)
{
  GstCustomMeta *meta;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  gst_vmafhip_meta_register ();
  meta = gst_buffer_add_custom_meta (buffer, GST_VMAFHIP_META_NAME);
  if (meta)
    gst_structure_set (gst_custom_meta_get_structure (meta), "index",
        G_TYPE_INT, index, NULL);
  return meta;
}
