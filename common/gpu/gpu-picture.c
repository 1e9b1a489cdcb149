/* vmafhip — a picture uploaded into GPU memory once (see gpu-picture.h). */
#include "gpu-picture.h"

#include <string.h>

#include "stage-copy.h"
#include "vh-error.h"

#define MAX_PLANES 3
#define PITCH_ALIGN 256

struct VhGpuPicture {
  VhGpu *gpu;
  VhGpuStream *stream;
  /* the layout the memory was made for */
  unsigned nplanes, bytes;
  unsigned width[MAX_PLANES], height[MAX_PLANES];
  size_t row[MAX_PLANES], pitch[MAX_PLANES];
  VhGpuPtr plane[MAX_PLANES];
  guint8 *staging;              /* pinned: the packed planes */
};

VhGpuPicture *
vh_gpu_picture_new (VhGpu *gpu)
{
  VhGpuPicture *gp = g_new0 (VhGpuPicture, 1);
  gp->gpu = vh_gpu_ref (gpu);
  return gp;
}

static void
release_memory (VhGpuPicture *gp)
{
  for (unsigned p = 0; p < MAX_PLANES; p++) {
    vh_gpu_mem_free (gp->gpu, gp->plane[p]);
    gp->plane[p] = 0;
  }
  if (gp->staging)
    vh_gpu_host_free (gp->gpu, gp->staging);
  gp->staging = NULL;
  gp->nplanes = 0;
}

void
vh_gpu_picture_free (VhGpuPicture *gp)
{
  if (!gp)
    return;
  if (gp->stream)
    vh_gpu_stream_sync (gp->stream, NULL);
  release_memory (gp);
  vh_gpu_stream_free (gp->stream);
  vh_gpu_close (gp->gpu);
  g_free (gp);
}

static gboolean
same_layout (const VhGpuPicture *gp, const VhPicture *host, unsigned nplanes)
{
  if (gp->nplanes != nplanes || gp->bytes != (host->bpc > 8 ? 2u : 1u))
    return FALSE;
  for (unsigned p = 0; p < nplanes; p++)
    if (gp->width[p] != host->plane[p].width
        || gp->height[p] != host->plane[p].height)
      return FALSE;
  return TRUE;
}

static gboolean
allocate (VhGpuPicture *gp, const VhPicture *host, unsigned nplanes,
    GError **error)
{
  release_memory (gp);
  gp->bytes = host->bpc > 8 ? 2 : 1;
  size_t staging = 0;
  for (unsigned p = 0; p < nplanes; p++) {
    gp->width[p] = host->plane[p].width;
    gp->height[p] = host->plane[p].height;
    gp->row[p] = (size_t) gp->width[p] * gp->bytes;
    gp->pitch[p] = (gp->row[p] + PITCH_ALIGN - 1) & ~(size_t) (PITCH_ALIGN - 1);
    staging += gp->row[p] * gp->height[p];
    if (!(gp->plane[p] = vh_gpu_mem_alloc (gp->gpu,
                gp->pitch[p] * gp->height[p], error)))
      return FALSE;
  }
  if (!(gp->staging = vh_gpu_host_alloc (gp->gpu, staging, error)))
    return FALSE;
  gp->nplanes = nplanes;
  return TRUE;
}

gboolean
vh_gpu_picture_upload (VhGpuPicture *gp, const VhPicture *host,
    unsigned nplanes, VhPicture *out, GError **error)
{
  if (host->memory != VH_PICTURE_HOST || nplanes == 0
      || nplanes > host->nplanes || nplanes > MAX_PLANES) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "GPU picture: %u planes of a %s picture of %u cannot be uploaded",
        nplanes, host->memory == VH_PICTURE_HOST ? "host" : "GPU",
        host->nplanes);
    return FALSE;
  }
  if (!gp->stream && !(gp->stream = vh_gpu_stream_new (gp->gpu, error)))
    return FALSE;
  if (!same_layout (gp, host, nplanes) && !allocate (gp, host, nplanes,
          error))
    return FALSE;
  guint8 *stage = gp->staging;
  for (unsigned p = 0; p < nplanes; p++) {
    const VhPlane *src = &host->plane[p];
    /* planar rows in pinned memory go as they are, others through staging */
    const gboolean pinned = src->step == 1 && src->stride > 0
        && (size_t) src->stride >= gp->row[p] && vh_gpu_host_contains
        (src->data, (size_t) src->stride * (gp->height[p] - 1) + gp->row[p]);
    if (!pinned)
      vh_stage_rows (src, gp->bytes, stage, gp->row[p], 0, gp->height[p]);
    if (!vh_gpu_copy2d_h2d_async (gp->stream, gp->plane[p], gp->pitch[p],
            pinned ? src->data : stage, pinned ? (size_t) src->stride
            : gp->row[p], gp->row[p], gp->height[p], error))
      return FALSE;
    stage += gp->row[p] * gp->height[p];
  }
  if (!vh_gpu_stream_sync (gp->stream, error))
    return FALSE;
  memset (out, 0, sizeof *out);
  out->nplanes = nplanes;
  out->bpc = host->bpc;
  out->memory = VH_PICTURE_DEVICE;
  for (unsigned p = 0; p < nplanes; p++)
    out->plane[p] = (VhPlane) { (const void *) (uintptr_t) gp->plane[p],
      (ptrdiff_t) gp->pitch[p], gp->width[p], gp->height[p], 1 };
  return TRUE;
}
