/* vmafhip — a distorted video smaller than the reference (an ABR
 * ladder's lower rung) scaled up to the reference's size before scoring,
 * with the `scaler` the user picks (common/core/scale.c: FFmpeg's bilinear,
 * bicubic and lanczos, docs/scaling.md).  The engine scales
 * (vh_engine_set_distorted_scaling): on the GPU where it scores every
 * feature there, else on the CPU; the samples are the same.
 *
 * Scaling is said, not guessed: by default only a plausible rendition
 * (the reference's display aspect ratio) is scaled, since a wrong size in
 * the caps (a raw file declared 640x352 instead of 640x360) would
 * otherwise be scaled and score nonsense with no hint; a `scaler` the
 * user sets scales any smaller picture.  Each scaled pad is announced (an
 * INFO message) and its pooled message says so (scaled-from, scaler). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

/* how far a rendition's display aspect ratio may be from the reference's
 * (a ladder's sizes are rounded to even samples) */
#define ASPECT_TOLERANCE 0.01

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

static const gchar *
scaler_nick (GstVmafHipScaler scaler)
{
  GEnumClass *klass = g_type_class_ref (GST_TYPE_VMAFHIP_SCALER);
  GEnumValue *v = g_enum_get_value (klass, scaler);
  const gchar *nick = v ? v->value_nick : "?";
  g_type_class_unref (klass);   /* (static type: the nick stays valid) */
  return nick;
}

/* width / height as shown, pixel-aspect-ratio applied (1/1 if unset) */
static gdouble
display_aspect (const GstVideoInfo * info)
{
  const gint n = GST_VIDEO_INFO_PAR_N (info), d = GST_VIDEO_INFO_PAR_D (info);
  return (gdouble) GST_VIDEO_INFO_WIDTH (info) * (n > 0 && d > 0 ? n : 1)
      / ((gdouble) GST_VIDEO_INFO_HEIGHT (info) * (n > 0 && d > 0 ? d : 1));
}

/* (ASPECT_TOLERANCE, or one sample: a small rendition, 40x22 of 160x90,
 * is half a sample off the exact 40x22.5) */
gboolean
gst_vmafhip_scale_plausible (const GstVideoInfo * d, const GstVideoInfo * r)
{
  const gdouble da = display_aspect (d), ra = display_aspect (r);
  /* d's height, or width, at r's aspect ratio */
  const gdouble exact_h = GST_VIDEO_INFO_HEIGHT (d) * da / ra;
  const gdouble exact_w = GST_VIDEO_INFO_WIDTH (d) * ra / da;

  return fabs (da / ra - 1.0) <= ASPECT_TOLERANCE
      || fabs (exact_h - GST_VIDEO_INFO_HEIGHT (d)) <= 1.0 + 1e-9
      || fabs (exact_w - GST_VIDEO_INFO_WIDTH (d)) <= 1.0 + 1e-9;
}

gchar *
gst_vmafhip_scale_refusal (GstVmafHip * self, const GstVideoInfo * d,
    const GstVideoInfo * r)
{
  const gint dw = GST_VIDEO_INFO_WIDTH (d), dh = GST_VIDEO_INFO_HEIGHT (d);
  const gint rw = GST_VIDEO_INFO_WIDTH (r), rh = GST_VIDEO_INFO_HEIGHT (r);

  if ((dw == rw && dh == rh) || dw > rw || dh > rh
      || self->cfg.scaler == GST_VMAFHIP_SCALER_NONE || self->cfg.scaler_set
      || gst_vmafhip_scale_plausible (d, r))
    return NULL;
  return g_strdup_printf ("it is %dx%d (display aspect ratio %.4g) and the "
      "reference %dx%d (%.4g), %.1f %% apart: not the reference scaled "
      "down, so it is not scaled up to it (a wrong size in the caps would "
      "score nonsense). Fix its caps or scale it upstream, or set "
      "scaler=%s explicitly to score it scaled anyway", dw, dh,
      display_aspect (d), rw, rh, display_aspect (r),
      100.0 * fabs (display_aspect (d) / display_aspect (r) - 1.0),
      scaler_nick (self->cfg.scaler));
}

void
gst_vmafhip_scale_announce (GstVmafHip * self, const gchar * pad,
    const VhEngine * engine, const GstVideoInfo * d, const GstVideoInfo * r)
{
  if (!engine || !vh_engine_scales_distorted (engine))
    return;
  gchar *text = g_strdup_printf ("%s: %dx%d scaled up to the reference's "
      "%dx%d with %s on the %s (%s)", pad, GST_VIDEO_INFO_WIDTH (d),
      GST_VIDEO_INFO_HEIGHT (d), GST_VIDEO_INFO_WIDTH (r),
      GST_VIDEO_INFO_HEIGHT (r), scaler_nick (self->cfg.scaler),
      vh_engine_scales_on_accelerator (engine) ? "GPU" : "CPU",
      self->cfg.scaler_set ? "scaler set by the user" : "the default "
      "scaler, for a rendition of the reference's aspect ratio");
  /* the text again as the detail: gst-launch-1.0 prints only that */
  GST_ELEMENT_INFO (self, CORE, NEGOTIATION, ("%s", text), ("%s", text));
  g_free (text);
}

void
gst_vmafhip_scale_add_fields (GstVmafHip * self, const VhEngine * engine,
    const GstVideoInfo * d, GstStructure * s)
{
  if (!engine || !vh_engine_scales_distorted (engine))
    return;
  gchar *from = g_strdup_printf ("%dx%d", GST_VIDEO_INFO_WIDTH (d),
      GST_VIDEO_INFO_HEIGHT (d));
  gst_structure_set (s, "scaled-from", G_TYPE_STRING, from,
      "scaler", G_TYPE_STRING, scaler_nick (self->cfg.scaler), NULL);
  g_free (from);
}

gboolean
gst_vmafhip_scale_configure (GstVmafHip * self)
{
  const GstVideoInfo *r = &self->side[REF].info;
  const GstVideoInfo *d = &self->side[DIST].info;
  const gboolean r_chroma = GST_VIDEO_INFO_N_COMPONENTS (r) >= 3;
  const gboolean d_chroma = GST_VIDEO_INFO_N_COMPONENTS (d) >= 3;

  gchar *why;

  gst_vmafhip_scale_clear (self);
  if ((why = gst_vmafhip_scale_refusal (self, d, r))) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("dist_sink is not scored: %s.", why),
        ("ref_sink: %dx%d, pixel-aspect-ratio %d/%d; dist_sink: %dx%d, "
            "pixel-aspect-ratio %d/%d; scaler not set", GST_VIDEO_INFO_WIDTH
            (r), GST_VIDEO_INFO_HEIGHT (r), GST_VIDEO_INFO_PAR_N (r),
            GST_VIDEO_INFO_PAR_D (r), GST_VIDEO_INFO_WIDTH (d),
            GST_VIDEO_INFO_HEIGHT (d), GST_VIDEO_INFO_PAR_N (d),
            GST_VIDEO_INFO_PAR_D (d)));
    g_free (why);
    return FALSE;
  }
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

  if (!vh_engine_set_distorted_scaling (self->dist_stream.engine,
          (unsigned) GST_VIDEO_INFO_WIDTH (r),
          (unsigned) GST_VIDEO_INFO_HEIGHT (r), filter, error))
    return FALSE;
  gst_vmafhip_scale_announce (self, "dist_sink", self->dist_stream.engine, r,
      &self->side[REF].info);
  return TRUE;
}
