/* vmafhip — the scores of one frame, attached by the `vmafhip` element to
 * every buffer it pushes, as a GstCustomMeta named "GstVmafHipMeta".
 *
 * A custom meta holds a GstStructure, so any language with GStreamer
 * bindings reads it without this header. Python:
 *
 *   meta = buffer.get_custom_meta("GstVmafHipMeta")
 *   s = meta.get_structure()
 *   index = s.get_value("index")          # -1: frame not scored
 *   vmaf = s.get_value("vmaf_v0.6.1")     # absent when not scored
 *
 * (docs/examples/vmafhip-meta.py is a complete program.) From C, include
 * this header-only file and use the inline accessors below; nothing needs
 * to be linked. The meta exists once the vmafhip plugin is loaded.
 *
 * The structure's fields: "index" (gint), the frame's index among the
 * scored frames (0, 1, 2 ... since the start or the last flushing seek), -1
 * if the frame was not scored (its distorted partner was missing); and, for
 * a scored frame, one double per metric named as in the element's "VMAF"
 * frame messages: every model's score under its report name
 * ("vmaf_v0.6.1"), "score" (the first model), the features
 * ("integer_vif_scale0", "integer_motion2", "psnr_y" ...) and, with
 * conf-interval, the bootstrap fields ("vmaf_b_v0.6.3_ci_p95_lo" ...).
 *
 *   GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (buffer);
 *   gdouble vmaf;
 *   if (meta && gst_vmafhip_meta_get_score (meta, "vmaf_v0.6.1", &vmaf))
 *     g_print ("frame %d: %f\n", gst_vmafhip_meta_get_index (meta), vmaf);
 */
#ifndef __GST_VMAFHIP_META_H__
#define __GST_VMAFHIP_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The name the plugin registers the custom meta under (also the name of
 * its structure). */
#define GST_VMAFHIP_META_NAME "GstVmafHipMeta"

typedef GstCustomMeta GstVmafHipMeta;

/* The meta's API type, or 0 if the vmafhip plugin is not loaded. */
static inline GType
gst_vmafhip_meta_api_type_lookup (void)
{
  const GstMetaInfo *info = gst_meta_get_info (GST_VMAFHIP_META_NAME);
  return info ? info->api : 0;
}

/* The buffer's vmafhip meta, or NULL. */
static inline GstVmafHipMeta *
gst_buffer_get_vmafhip_meta (GstBuffer * buffer)
{
  if (buffer == NULL || gst_vmafhip_meta_api_type_lookup () == 0)
    return NULL;
  return gst_buffer_get_custom_meta (buffer, GST_VMAFHIP_META_NAME);
}

/* All of the frame's fields ("index" and the scores). */
static inline const GstStructure *
gst_vmafhip_meta_get_scores (GstVmafHipMeta * meta)
{
  return gst_custom_meta_get_structure (meta);
}

/* The frame index, -1 if the frame has no score. */
static inline gint
gst_vmafhip_meta_get_index (GstVmafHipMeta * meta)
{
  gint index = -1;
  gst_structure_get_int (gst_custom_meta_get_structure (meta), "index",
      &index);
  return index;
}

/* Reads one score by name; FALSE if the meta has no such metric. */
static inline gboolean
gst_vmafhip_meta_get_score (GstVmafHipMeta * meta, const gchar * name,
    gdouble * value)
{
  return gst_structure_get_double (gst_custom_meta_get_structure (meta),
      name, value);
}

#ifdef GST_VMAFHIP_COMPILATION
/* Plugin side: registration and attaching (not exported to applications). */
void gst_vmafhip_meta_register (void);

/* Attaches a meta holding the frame's index; the caller adds the scores
 * to its structure (gst_custom_meta_get_structure). */
GstVmafHipMeta *gst_buffer_add_vmafhip_meta (GstBuffer * buffer, gint index);
#endif

G_END_DECLS

#endif /* __GST_VMAFHIP_META_H__ */
