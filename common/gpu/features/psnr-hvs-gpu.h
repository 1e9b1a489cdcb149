/* vmafhip — PSNR-HVS on the GPU (kernels/psnr-hvs.hip): per plane, the
 * float sum of the weighted errors, equal to the CPU's bit for bit (the
 * same per-block arithmetic, the sum in libvmaf's order reproduced
 * exactly; see kernels/psnr-hvs-device.h).
 *
 *   VhPsnrHvsGpu *ctx = vh_psnr_hvs_gpu_new (gpu, module, width, height, bpc, &error);
 *   vh_psnr_hvs_gpu_enqueue (ctx, stream, ref, dis, pitch, width, height,
 *       sums, pixels, &error);
 *
 * ref / dis: device planes Y, Cb, Cr (planar, any subsampling, each at
 * least 8x8); pitch: bytes per row of each plane, the same for both
 * pictures; width / height: each plane's; sums: 3 floats of host memory
 * (pinned) the sums are copied to; pixels: set now to each plane's count of
 * errors (64 per block).  The scratch is sized at the first frame.  One context per
 * frame in flight. */
#ifndef VH_PSNR_HVS_GPU_H
#define VH_PSNR_HVS_GPU_H

#include <glib.h>

#include "vh-gpu.h"

G_BEGIN_DECLS

typedef struct VhPsnrHvsGpu VhPsnrHvsGpu;

VhPsnrHvsGpu *vh_psnr_hvs_gpu_new (VhGpu *gpu, VhGpuModule *module,
    unsigned width, unsigned height, unsigned bpc, GError **error);
void vh_psnr_hvs_gpu_free (VhPsnrHvsGpu *ctx);
gboolean vh_psnr_hvs_gpu_enqueue (VhPsnrHvsGpu *ctx, VhGpuStream *stream,
    const VhGpuPtr ref[3], const VhGpuPtr dis[3], const size_t pitch[3],
    const unsigned width[3], const unsigned height[3], float *sums,
    guint32 *pixels, GError **error);

G_END_DECLS
#endif
