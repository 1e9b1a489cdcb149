/* vmafhip — a picture uploaded into GPU memory once, for several engines.
 *
 * The element's renditions (dist_sink_%u) are scored against the same
 * reference frame, each by an engine of its own: uploading the reference
 * once and handing every engine a VH_PICTURE_DEVICE view of it replaces
 * an upload over the bus per rendition with a device-to-device copy.
 *
 *   VhGpuPicture *gp = vh_gpu_picture_new (gpu);
 *   vh_gpu_picture_upload (gp, &host, nplanes, &on_device, &error);
 *   ... vh_engine_push (engine, &on_device, &dis, &error) for each ...
 *   vh_gpu_picture_free (gp);
 *
 * upload returns once the copies are done; the view stays valid until the
 * next upload (engines copy it during their push, which returns after the
 * copy).  Samples above the depth are not checked here: the engines check
 * pictures from GPU memory on the device. */
#ifndef VH_GPU_PICTURE_H
#define VH_GPU_PICTURE_H

#include <glib.h>

#include "vh-gpu.h"
#include "vh-picture.h"

G_BEGIN_DECLS

typedef struct VhGpuPicture VhGpuPicture;

VhGpuPicture *vh_gpu_picture_new (VhGpu *gpu);
void vh_gpu_picture_free (VhGpuPicture *gp);
/* Planes 0..nplanes-1 of host (host memory, any stride; interleaved
 * chroma is made planar) into GPU memory; *out: the device view, planar,
 * nplanes planes.  The memory is (re)allocated when the layout changes. */
gboolean vh_gpu_picture_upload (VhGpuPicture *gp, const VhPicture *host,
    unsigned nplanes, VhPicture *out, GError **error);

G_END_DECLS
#endif
