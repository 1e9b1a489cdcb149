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
 * pictures from GPU memory on the device.
 *
 * With vh_gpu_picture_set_shared (gp, sharer), each upload also computes
 * the reference's share of VIF (vif-gpu.h: its filtered statistics and
 * pyramid) and of ADM (adm-gpu.h: its wavelet decomposition) and motion's
 * SAD against the frame before (upload_after) on
 * the GPU, and hands them to the engines in the view's
 * device_share (a VhGpuRefShare): their GPU backends then compute only the
 * distorted picture's share, reading the plane and the share in place,
 * and mark on their stream where they are done with it
 * (vh_gpu_ref_share_read_on); the next upload waits there, on the GPU,
 * before it overwrites them. */
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
 * nplanes planes.  The memory is (re)allocated when the layout changes.
 * host may be in GPU memory too (a decoder's frame: planar rows, in its
 * device_context where that is set): then copied on the device. */
gboolean vh_gpu_picture_upload (VhGpuPicture *gp, const VhPicture *host,
    unsigned nplanes, VhPicture *out, GError **error);
/* The same, `prev` being the picture that holds the reference frame
 * before this one (uploaded last, by the same thread): with shares, the
 * upload then also computes motion's SAD between the two (motion reads
 * the reference alone). prev's upload must stay untouched meanwhile. */
gboolean vh_gpu_picture_upload_after (VhGpuPicture *gp,
    const VhGpuPicture *prev, const VhPicture *host, unsigned nplanes,
    VhPicture *out, GError **error);
/* The kernels that compute the shares (see above), loaded and set up once
 * for all the pictures given it, which must upload one after the other
 * (one thread), as a ring of reference frames does. */
typedef struct VhGpuSharer VhGpuSharer;
VhGpuSharer *vh_gpu_sharer_new (VhGpu *gpu);
/* After the pictures that use it. */
void vh_gpu_sharer_free (VhGpuSharer *sharer);
/* Whether the uploads compute the reference's shares, with `sharer`'s
 * kernels (NULL: not, the default); the views then always carry a
 * VhGpuRefShare. Where a part cannot be computed (a picture VIF does not
 * take, no frame before of its size, no kernels for the GPU), the share
 * lacks it and the engines do that work, as without. */
void vh_gpu_picture_set_shared (VhGpuPicture *gp, VhGpuSharer *sharer);

/* For the GPU backend: a reference's shares, from VhPicture.device_share */
typedef struct VhGpuRefShare VhGpuRefShare;
struct VhVifGpuReference;
/* The VIF share, or NULL */
const struct VhVifGpuReference *vh_gpu_ref_share_vif (
    const VhGpuRefShare *share);
struct VhAdmGpuReference;
/* The ADM share (the reference's wavelet decomposition), or NULL */
const struct VhAdmGpuReference *vh_gpu_ref_share_adm (
    const VhGpuRefShare *share);
/* The upload's identity (unique in the process; 0: none), and motion's
 * SAD against the upload `after` when the share has it (then TRUE): an
 * engine whose previous frame was that upload takes it instead of running
 * motion's kernel. */
guint64 vh_gpu_ref_share_id (const VhGpuRefShare *share);
gboolean vh_gpu_ref_share_motion (const VhGpuRefShare *share, guint64 after,
    guint64 *sad);
/* `stream` reads the share and the picture until the point reached now:
 * the next upload waits for it. FALSE: no event could be recorded (the
 * caller must then wait for its stream before it returns the picture). */
gboolean vh_gpu_ref_share_read_on (const VhGpuRefShare *share,
    VhGpuStream *stream, GError **error);

G_END_DECLS
#endif
