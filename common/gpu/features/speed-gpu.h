/* vmafhip — SpEED-chroma on the GPU (kernels/speed.hip): per frame, the
 * four chroma pictures' centred 1/16 pictures and covariances
 * (VhSpeedSums); the extractor's extract_sums makes the scores.
 *
 *   if (vh_speed_gpu_supported (&opts, &why)) ...
 *   VhSpeedGpu *ctx = vh_speed_gpu_new (gpu, module, &opts, bpc, &error);
 *   vh_speed_gpu_enqueue (ctx, stream, ref, dis, pitch, width, height,
 *       sums, &error);
 *
 * ref, dis: the device planes (Y, U, V; `pitch` bytes per row of each,
 * `width` x `height` samples); sums: host memory (pinned) of
 * vh_speed_gpu_sums_size bytes.  One context per frame in flight; its
 * scratch is sized at the first frame. */
#ifndef VH_SPEED_GPU_H
#define VH_SPEED_GPU_H

#include <glib.h>

#include "speed-chroma.h"
#include "vh-gpu.h"
#include "vh-picture.h"

G_BEGIN_DECLS

typedef struct VhSpeedGpu VhSpeedGpu;

/* The most a frame's sums take for this luma size (4:4:4 chroma) */
size_t vh_speed_gpu_sums_size (unsigned luma_w, unsigned luma_h);
VhSpeedGpu *vh_speed_gpu_new (VhGpu *gpu, VhGpuModule *module,
    const VhSpeedChromaOptions *opts, unsigned bpc, GError **error);
void vh_speed_gpu_free (VhSpeedGpu *ctx);
gboolean vh_speed_gpu_enqueue (VhSpeedGpu *ctx, VhGpuStream *stream,
    const VhGpuPtr ref[3], const VhGpuPtr dis[3], const size_t pitch[3],
    const unsigned width[3], const unsigned height[3], VhSpeedSums *sums,
    GError **error);

/* Host emulation (tests): the same layout in host memory; the launches'
 * parameters (a VhSpeedParams) for planar pictures in host memory; then
 * the sums the kernels left (header filled). */
VhSpeedGpu *vh_speed_gpu_new_host (const VhSpeedChromaOptions *opts,
    unsigned bpc, GError **error);
gboolean vh_speed_gpu_host_params (VhSpeedGpu *ctx, const VhPicture *ref,
    const VhPicture *dis, void *params, GError **error);
const VhSpeedSums *vh_speed_gpu_host_sums (const VhSpeedGpu *ctx);

G_END_DECLS
#endif
