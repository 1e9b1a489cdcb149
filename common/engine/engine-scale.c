/* vmafhip — distorted pictures of another size scaled to the engine's
 * (issue 15: an ABR ladder's rungs scored against the source).  The
 * engine decides at the first push where the scaling runs: on the
 * accelerator when it scores every feature and can scale (the small
 * picture is what gets uploaded), else on the CPU ahead of the features.
 * Both give common/core/scale.c's samples. */
#include "engine-private.h"

gboolean
vh_engine_set_distorted_scaling (VhEngine *e, unsigned width,
    unsigned height, VhScaleFilter filter, GError **error)
{
  g_return_val_if_fail (e != NULL, FALSE);
  if (!e->have_info) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_STATE,
        "distorted scaling needs the picture size: call "
        "vh_engine_set_video_info first");
    return FALSE;
  }
  const gboolean scaled = width != e->info.width || height != e->info.height;
  if (scaled == e->dis_scaled && (!scaled || (width == e->dis_width
              && height == e->dis_height && filter == e->dis_filter)))
    return TRUE;                /* as it is */
  if (e->n_pushed || e->dis_ready) {
    g_set_error (error, VH_ERROR, VH_ERROR_STATE,
        "distorted scaling must be set before the first frame (the "
        "distorted video changed to %ux%u)", width, height);
    return FALSE;
  }
  if (!scaled) {
    e->dis_scaled = FALSE;
    return TRUE;
  }
  /* the sizes and ratio the scaler takes, checked now rather than at the
   * first frame */
  VhScaler *trial = vh_scaler_new (width, height, e->info.width,
      e->info.height, e->info.bpc, filter, error);
  if (!trial) {
    g_prefix_error (error, "cannot scale the distorted %ux%u to %ux%u: ",
        width, height, e->info.width, e->info.height);
    return FALSE;
  }
  vh_scaler_free (trial);
  e->dis_scaled = TRUE;
  e->dis_width = width;
  e->dis_height = height;
  e->dis_filter = filter;
  return TRUE;
}

gboolean
vh_engine_scales_distorted (const VhEngine *e)
{
  g_return_val_if_fail (e != NULL, FALSE);
  return e->dis_scaled;
}

gboolean
vh_engine_scales_on_accelerator (const VhEngine *e)
{
  g_return_val_if_fail (e != NULL, FALSE);
  if (e->dis_ready)
    return e->dis_on_accel;
  /* config.gpu_scale FALSE: on the CPU (benchmarks' baseline) */
  return e->dis_scaled && e->accel && e->accel->scale_distorted
      && vh_engine_all_accelerated (e) && e->config.gpu_scale;
}

gboolean
vh_engine_check_scaled_planes (VhEngine *e, const VhPicture *dis,
    GError **error)
{
  if (dis->plane[0].width != e->dis_width
      || dis->plane[0].height != e->dis_height) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "distorted picture is %ux%u, the engine scales %ux%u to %ux%u",
        dis->plane[0].width, dis->plane[0].height, e->dis_width,
        e->dis_height, e->info.width, e->info.height);
    return FALSE;
  }
  if (!e->dis_ready)
    return TRUE;
  if (dis->nplanes != e->dis_nplanes) {
    g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
        "distorted picture has %u planes, the first had %u", dis->nplanes,
        e->dis_nplanes);
    return FALSE;
  }
  for (unsigned p = 1; p < dis->nplanes; p++) {
    if (dis->plane[p].width != e->dis_plane_w[p]
        || dis->plane[p].height != e->dis_plane_h[p]) {
      g_set_error (error, VH_ERROR, VH_ERROR_SIZE_MISMATCH,
          "distorted chroma plane %u is %ux%u, the first picture's %ux%u",
          p, dis->plane[p].width, dis->plane[p].height, e->dis_plane_w[p],
          e->dis_plane_h[p]);
      return FALSE;
    }
  }
  return TRUE;
}

/* At the first push: the planes' sizes, and the scaler where it runs. */
static gboolean
scale_prepare (VhEngine *e, const VhPicture *ref, const VhPicture *dis,
    GError **error)
{
  unsigned dst_w[3], dst_h[3];
  e->dis_nplanes = dis->nplanes;
  for (unsigned p = 0; p < dis->nplanes; p++) {
    e->dis_plane_w[p] = dis->plane[p].width;
    e->dis_plane_h[p] = dis->plane[p].height;
    dst_w[p] = ref->plane[p].width;
    dst_h[p] = ref->plane[p].height;
  }
  e->dis_on_accel = vh_engine_scales_on_accelerator (e);
  if (e->dis_on_accel) {
    if (!e->accel->scale_distorted (e->accel_backend, dis->nplanes,
            e->dis_plane_w, e->dis_plane_h, e->dis_filter, error))
      return FALSE;
  } else {
    e->dis_scaler = vh_picture_scaler_new (dis->nplanes, e->dis_plane_w,
        e->dis_plane_h, dst_w, dst_h, e->info.bpc, e->dis_filter, error);
    if (!e->dis_scaler)
      return FALSE;
  }
  e->dis_ready = TRUE;
  return TRUE;
}

const VhPicture *
vh_engine_scale_distorted (VhEngine *e, const VhPicture *ref,
    const VhPicture *dis, GError **error)
{
  if (!e->dis_ready && !scale_prepare (e, ref, dis, error))
    return NULL;
  if (e->dis_on_accel)
    return dis;
  if (dis->memory == VH_PICTURE_DEVICE) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "a distorted picture in GPU memory cannot be scaled on the CPU");
    return NULL;
  }
  /* in the pushing thread, ahead of the features: one core scales a 540p
   * rung to 1080p in several milliseconds, so on the engine's threads */
  return vh_picture_scaler_run (e->dis_scaler, dis, MAX (e->n_threads, 1));
}

void
vh_engine_scale_free (VhEngine *e)
{
  g_clear_pointer (&e->dis_scaler, vh_picture_scaler_free);
}
