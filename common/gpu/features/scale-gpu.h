/* vmafhip — the plane scaler on the GPU (kernels/scale.hip): the same
 * samples as vh_scaler_run (common/core/scale.h), bit for bit, from a device
 * plane to a device plane (issue 15: renditions scaled to the reference's
 * size on the backend that scores them).
 *
 *   // once per VhGpu (vh-kernel-images.h, from the kernels build):
 *   VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_scale, &error);
 *   // once per scaler and stream (uploads the scaler's tables, waits for it):
 *   VhScaleGpu *ctx = vh_scale_gpu_new (gpu, module, scaler, &error);
 *   // per plane, nothing waits:
 *   VhScaleGpuPlane src = { src_ptr, src_pitch, 960, 540, 1 };
 *   VhScaleGpuPlane dst = { dst_ptr, dst_pitch, 1920, 1080, 1 };
 *   vh_scale_gpu_enqueue (ctx, stream, &src, &dst, &error);
 *   ...
 *   vh_scale_gpu_free (ctx);      // after the stream has passed its work
 *
 * The context copies what it needs from the scaler (the coefficient
 * tables and windows of both directions, the fixed point of
 * vh_scaler_get_info); the scaler may be freed after vh_scale_gpu_new.
 * It owns the intermediate (dst_w x the source rows read, int32): enqueue
 * one context on one stream only, or again only once the previous plane
 * is done.  Contexts may be used from any thread; create them from one
 * thread at a time per module (kernel lookups are not thread-safe).
 *
 * Module: the caller loads it (one per VhGpu serves every context) and
 * frees it after the last context. */
#ifndef VH_SCALE_GPU_H
#define VH_SCALE_GPU_H

#include <glib.h>
#include <stddef.h>

#include "scale.h"
#include "vh-gpu.h"
#include "vh-picture.h"

G_BEGIN_DECLS

/* One device plane, as VhPlane describes a host one. */
typedef struct {
  VhGpuPtr data;      /* device address of the first sample */
  size_t pitch;       /* bytes between rows */
  unsigned width;     /* samples */
  unsigned height;    /* rows */
  unsigned step;      /* samples between horizontal neighbours: 1 planar,
                       * 2 interleaved chroma (the source only; the
                       * destination is planar, step 1) */
} VhScaleGpuPlane;

typedef struct VhScaleGpu VhScaleGpu;

/* A context for scaler's sizes, depth and filter: looks the kernels up,
 * allocates the tables and the intermediate and uploads the tables (on a
 * stream of its own, waited for).  NULL with an error in VH_ERROR
 * otherwise: INVALID_ARGUMENT (no GPU, module or scaler), GPU (lookup,
 * allocation, copy). */
VhScaleGpu *vh_scale_gpu_new (VhGpu *gpu, VhGpuModule *module,
    const VhScaler *scaler, GError **error);

/* Queues on stream the two passes from src (the scaler's source size; any
 * step from 1, any pitch of at least a row) to dst (the destination size,
 * step 1).  Samples: uint8 at 8 bits, else uint16 (addresses and pitches
 * even); src and dst must not overlap.  Never waits.  FALSE with an error
 * in VH_ERROR (INVALID_ARGUMENT, SIZE_MISMATCH, GPU) when an argument is
 * wrong (nothing queued) or a launch fails (dst then holds no defined
 * samples). */
gboolean vh_scale_gpu_enqueue (VhScaleGpu *ctx, VhGpuStream *stream,
    const VhScaleGpuPlane *src, const VhScaleGpuPlane *dst, GError **error);

/* Bytes of device memory the context holds (tables and intermediate). */
size_t vh_scale_gpu_device_bytes (const VhScaleGpu *ctx);

/* Frees the device memory.  Work queued with ctx must have finished. */
void vh_scale_gpu_free (VhScaleGpu *ctx);

/* Host emulation (tests: kernels/scale-device.h run on the host): a
 * context whose tables and intermediate are host memory, and the launches'
 * parameters (a VhScaleParams) for host planes, checked as enqueue checks
 * them.  Then run vh_scale_h_thread over the grid of the horizontal launch
 * and vh_scale_v_thread over that of the vertical one. */
struct VhScaleParams;
VhScaleGpu *vh_scale_gpu_new_host (const VhScaler *scaler, GError **error);
gboolean vh_scale_gpu_host_params (VhScaleGpu *ctx, const VhPlane *src,
    const VhPlane *dst, struct VhScaleParams *params, GError **error);

G_END_DECLS
#endif /* VH_SCALE_GPU_H */
