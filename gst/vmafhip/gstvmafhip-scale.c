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
#include "vh-parallel.h"

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
  for (int p = 0; p < 3; p++)
    g_clear_pointer (&self->scale_plane[p], vh_scaler_free);
  g_clear_pointer (&self->scaled, g_free);
  self->scaling = FALSE;
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
  const guint bpc = GST_VIDEO_INFO_COMP_DEPTH (r, 0);
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
  gsize offset[3], size = 0;
  for (guint p = 0; p < n; p++) {
    self->scale_plane[p] = vh_scaler_new (dw[p], dh[p], rw[p], rh[p], bpc,
        scale_filter (self->cfg.scaler), &error);
    if (!self->scale_plane[p]) {
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
          ("Cannot scale the distorted video (%ux%u) to the reference's "
              "size (%ux%u): %s", dw[0], dh[0], rw[0], rh[0],
              error->message), (NULL));
      g_clear_error (&error);
      gst_vmafhip_scale_clear (self);
      return FALSE;
    }
    offset[p] = size;
    size += (gsize) rw[p] * rh[p] * (bpc > 8 ? 2 : 1);
  }
  self->scaled = g_malloc (size);
  self->scaled_pic = (VhPicture) { .nplanes = n, .bpc = bpc,
    .memory = VH_PICTURE_HOST };
  for (guint p = 0; p < n; p++)
    self->scaled_pic.plane[p] = (VhPlane) { self->scaled + offset[p],
      (ptrdiff_t) rw[p] * (bpc > 8 ? 2 : 1), rw[p], rh[p], 1 };
  self->scale_planes = n;
  self->scaling = TRUE;
  GST_INFO_OBJECT (self, "dist_sink %ux%u scaled to the reference's %ux%u "
      "(%s)", dw[0], dh[0], rw[0], rh[0],
      vh_scale_filter_name (scale_filter (self->cfg.scaler)));
  return TRUE;
}

/* Pieces of a frame's scaling: luma in SCALE_BANDS bands of rows, then
 * each chroma plane whole (a quarter of the work or less each) */
#define SCALE_BANDS 4

typedef struct {
  GstVmafHip *self;
  const VhPicture *dist;
} ScaleJob;

static void
scale_piece (void *data, unsigned i)
{
  const ScaleJob *job = data;
  GstVmafHip *self = job->self;
  const guint p = i < SCALE_BANDS ? 0 : i - SCALE_BANDS + 1;
  const guint h = self->scaled_pic.plane[p].height;
  const guint y0 = p ? 0 : h * i / SCALE_BANDS;
  const guint y1 = p ? h : h * (i + 1) / SCALE_BANDS;
  vh_scaler_run_rows (self->scale_plane[p], &job->dist->plane[p],
      &self->scaled_pic.plane[p], y0, y1);
}

const VhPicture *
gst_vmafhip_scale_picture (GstVmafHip * self, const VhPicture * dist)
{
  /* the planes the frame was mapped with: luma only where no feature
   * reads chroma */
  self->scaled_pic.nplanes = MIN (dist->nplanes, self->scale_planes);
  const ScaleJob job = { self, dist };
  /* on the process's helper threads where they are free: the scaling is
   * in the streaming thread, ahead of the engine (a GPU scores a 1080p
   * frame in well under a millisecond; one core scales it in several) */
  vh_parallel_for (SCALE_BANDS + self->scaled_pic.nplanes - 1,
      g_get_num_processors (), NULL, scale_piece, (void *) &job);
  return &self->scaled_pic;
}
