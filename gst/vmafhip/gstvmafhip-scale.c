/* vmafhip — a distorted video smaller than the reference (an ABR
 * ladder's lower rung) scaled up to the reference's size before scoring,
 * with the `scaler` the user picks (common/scale.c: FFmpeg's bilinear,
 * bicubic and lanczos, docs/scaling.md).  On the CPU, plane by plane,
 * into a picture of the reference's plane sizes that the engine then
 * reads as any other. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

static VhScaleFilter
scale_filter (GstVmafHipScaler scaler)
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
  g_clear_pointer (&self->rung_scaler, vh_picture_scaler_free);
}

/* Each component's size in a video of this info: luma, then chroma (none
 * for gray) */
static guint
plane_sizes (const GstVideoInfo * info, guint w[3], guint h[3])
{
  const guint n = GST_VIDEO_INFO_N_COMPONENTS (info) >= 3 ? 3 : 1;
  for (guint c = 0; c < n; c++) {
    w[c] = GST_VIDEO_INFO_COMP_WIDTH (info, c);
    h[c] = GST_VIDEO_INFO_COMP_HEIGHT (info, c);
  }
  return n;
}

gboolean
gst_vmafhip_scale_configure (GstVmafHip * self)
{
  const GstVideoInfo *r = &self->side[REF].info;
  const GstVideoInfo *d = &self->side[DIST].info;
  guint rw[3], rh[3], dw[3], dh[3];
  const guint n = plane_sizes (r, rw, rh);
  GError *error = NULL;

  gst_vmafhip_scale_clear (self);
  if (plane_sizes (d, dw, dh) != n) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The distorted video (dist_sink: %s) has %s chroma, the reference "
            "(ref_sink: %s) %s: it cannot be scaled to the reference.",
            GST_VIDEO_INFO_NAME (d), n == 3 ? "no" : "its own",
            GST_VIDEO_INFO_NAME (r), n == 3 ? "has" : "none"), (NULL));
    return FALSE;
  }
  self->rung_scaler = vh_picture_scaler_new (n, dw, dh, rw, rh,
      GST_VIDEO_INFO_COMP_DEPTH (r, 0), scale_filter (self->cfg.scaler),
      &error);
  if (!self->rung_scaler) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Cannot scale the distorted video (%ux%u) to the reference's size "
            "(%ux%u): %s", dw[0], dh[0], rw[0], rh[0], error->message),
        (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  GST_INFO_OBJECT (self, "dist_sink %ux%u scaled to the reference's %ux%u "
      "(%s)", dw[0], dh[0], rw[0], rh[0],
      vh_scale_filter_name (scale_filter (self->cfg.scaler)));
  return TRUE;
}

const VhPicture *
gst_vmafhip_scale_picture (GstVmafHip * self, const VhPicture * dist)
{
  /* in the streaming thread, ahead of the engine: on the process's free
   * helper threads too (a GPU scores a 1080p frame in well under a
   * millisecond, one core scales a 540p rung to 1080p in several) */
  return vh_picture_scaler_run (self->rung_scaler, dist,
      g_get_num_processors ());
}
