/* vmafhip — float SSIM on the GPU (kernels/ssim.hip): the sums over the
 * SSIM map of l*c*s, l, c and s (VhSsimSums), each pixel computed with the
 * CPU's operations, the sums in a fixed order.
 *
 *   VhSsimGpu *ctx = vh_ssim_gpu_new (gpu, module, width, height, bpc, &error);
 *   vh_ssim_gpu_enqueue (ctx, stream, ref, dis, pitch, scale, sums, &error);
 *
 * ref / dis: device luma planes with `pitch` bytes per row; scale: the
 * down-sampling factor (>= 1; vh_ssim_auto_scale); sums: 4 doubles of host
 * memory (pinned).  One context per frame in flight. */
#ifndef VH_SSIM_GPU_H
#define VH_SSIM_GPU_H

#include <glib.h>

#include "vh-gpu.h"

G_BEGIN_DECLS

typedef struct VhSsimGpu VhSsimGpu;

VhSsimGpu *vh_ssim_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error);
void vh_ssim_gpu_free (VhSsimGpu *ctx);
gboolean vh_ssim_gpu_enqueue (VhSsimGpu *ctx, VhGpuStream *stream,
    VhGpuPtr ref, VhGpuPtr dis, size_t pitch, unsigned scale, double *sums,
    GError **error);

G_END_DECLS
#endif
