/* vmafhip — a distorted video smaller than the reference (an ABR
 * ladder's lower rung) scaled up to the reference's size before scoring,
 * with the `scaler` the user picks (common/scale.c: FFmpeg's bilinear,
 * bicubic and lanczos, docs/scaling.md).  The engine scales
 * (vh_engine_set_distorted_scaling): on the GPU where it scores every
 * feature there, else on the CPU; the samples are the same. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

VhScaleFilter
gst_vmafhip_scale_filter (GstVmafHipScaler scaler)
{
  switch (scaler) {
    case GST_VMAFHIP_SCALER_BILINEAR:
      return VH_SCALE_BILINEAR;
    case GST_VMAFHIP_SCALER_LANCZOS:
      return VH_SCALE_LANCZOS;
    default:
      return VH_SCALE_BICUBIC;
  }
}

void
gst_vmafhip_scale_clear (GstVmafHip * self)
{
  self->rung_scaled = FALSE;
}

gboolean
gst_vmafhip_scale_configure (GstVmafHip * self)
{
  const GstVideoInfo *r = &self->side[REF].info;
  const GstVideoInfo *d = &self->side[DIST].info;
  const gboolean r_chroma = GST_VIDEO_INFO_N_COMPONENTS (r) >= 3;
  const gboolean d_chroma = GST_VIDEO_INFO_N_COMPONENTS (d) >= 3;

  gst_vmafhip_scale_clear (self);
  if (r_chroma != d_chroma) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The distorted video (dist_sink: %s) has %s chroma, the reference "
            "(ref_sink: %s) %s: it cannot be scaled to the reference.",
            GST_VIDEO_INFO_NAME (d), r_chroma ? "no" : "its own",
            GST_VIDEO_INFO_NAME (r), r_chroma ? "has" : "none"), (NULL));
    return FALSE;
  }
  self->rung_scaled = TRUE;
  return TRUE;
}

gboolean
gst_vmafhip_scale_apply (GstVmafHip * self, GError ** error)
{
  const GstVideoInfo *r = &self->side[self->rung_scaled ? DIST : REF].info;
  const VhScaleFilter filter = gst_vmafhip_scale_filter (self->cfg.scaler);

  if (!vh_engine_set_distorted_scaling (self->engine,
          (unsigned) GST_VIDEO_INFO_WIDTH (r),
          (unsigned) GST_VIDEO_INFO_HEIGHT (r), filter, error))
    return FALSE;
  if (self->rung_scaled)
    GST_INFO_OBJECT (self, "dist_sink %dx%d scaled to the reference's %dx%d "
        "(%s) on the %s", GST_VIDEO_INFO_WIDTH (r), GST_VIDEO_INFO_HEIGHT (r),
        GST_VIDEO_INFO_WIDTH (&self->side[REF].info),
        GST_VIDEO_INFO_HEIGHT (&self->side[REF].info),
        vh_scale_filter_name (filter),
        vh_engine_scales_on_accelerator (self->engine) ? "GPU" : "CPU");
  return TRUE;
}
