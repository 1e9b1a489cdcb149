/* vmafhip — GstVmafHipMeta: the scores of one frame, attached by the
 * `vmafhip` element to every buffer it pushes.
 *
 * This header is public and header-only for applications: include it, and
 * read a buffer's meta with the inline accessors below. Nothing needs to be
 * linked; the meta's API type is looked up by name (it exists once the
 * vmafhip plugin is loaded, i.e. once a `vmafhip` element was created).
 *
 *   GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (buffer);
 *   gdouble vmaf;
 *   if (meta && gst_vmafhip_meta_get_index (meta) >= 0
 *       && gst_vmafhip_meta_get_score (meta, "vmaf_v0.6.1", &vmaf))
 *     g_print ("frame %d: %f\n", gst_vmafhip_meta_get_index (meta), vmaf);
 */
#ifndef __GST_VMAFHIP_META_H__
#define __GST_VMAFHIP_META_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* Names under which the plugin registers the meta. */
#define GST_VMAFHIP_META_API_NAME "GstVmafHipMetaAPI"
#define GST_VMAFHIP_META_IMPL_NAME "GstVmafHipMeta"
/* Name of the score structure held by the meta. */
#define GST_VMAFHIP_META_SCORES_NAME "vmafhip-scores"

/**
 * GstVmafHipMeta:
 * @meta: parent #GstMeta
 * @index: index of the frame among the scored frames (0, 1, 2 ... since the
 *     start or the last flushing seek); -1 if the frame was not scored (live
 *     mode: its distorted partner never arrived)
 * @scores: (nullable): one double per metric, named as in the element's
 *     "VMAF" bus messages: every model's score under its report name
 *     ("vmaf_v0.6.1"), "score" (the first model), the features
 *     ("integer_vif_scale0", "integer_motion2", "psnr_y" ...) and, with
 *     conf-interval, the bootstrap fields ("vmaf_b_v0.6.3_ci_p95_lo" ...).
 *     NULL when @index is -1.
 */
typedef struct _GstVmafHipMeta {
  GstMeta meta;
  gint index;
  GstStructure *scores;
} GstVmafHipMeta;

/* The meta's API type, or 0 if the vmafhip plugin is not loaded. */
static inline GType
gst_vmafhip_meta_api_type_lookup (void)
{
  return g_type_from_name (GST_VMAFHIP_META_API_NAME);
}

/* The buffer's vmafhip meta, or NULL. */
static inline GstVmafHipMeta *
gst_buffer_get_vmafhip_meta (GstBuffer * buffer)
{
  GType api = gst_vmafhip_meta_api_type_lookup ();
  if (api == 0 || buffer == NULL)
    return NULL;
  return (GstVmafHipMeta *) gst_buffer_get_meta (buffer, api);
}

/* The frame index, -1 if the frame has no score. */
static inline gint
gst_vmafhip_meta_get_index (const GstVmafHipMeta * meta)
{
  return meta->index;
}

/* Reads one score by name; FALSE if the meta has no such metric. */
static inline gboolean
gst_vmafhip_meta_get_score (const GstVmafHipMeta * meta, const gchar * name,
    gdouble * value)
{
  return meta->scores != NULL
      && gst_structure_get_double (meta->scores, name, value);
}

/* All scores (iterate with gst_structure_foreach); NULL if not scored. */
static inline const GstStructure *
gst_vmafhip_meta_get_scores (const GstVmafHipMeta * meta)
{
  return meta->scores;
}

#ifdef GST_VMAFHIP_COMPILATION
/* Plugin side: registration and attaching (not exported to applications). */
GType gst_vmafhip_meta_api_get_type (void);
#define GST_VMAFHIP_META_API_TYPE (gst_vmafhip_meta_api_get_type ())
const GstMetaInfo *gst_vmafhip_meta_get_info (void);
#define GST_VMAFHIP_META_INFO (gst_vmafhip_meta_get_info ())

/* Attaches a meta; takes ownership of @scores (may be NULL). */
GstVmafHipMeta *gst_buffer_add_vmafhip_meta (GstBuffer * buffer, gint index,
    GstStructure * scores);
#endif

G_END_DECLS

#endif /* __GST_VMAFHIP_META_H__ */
