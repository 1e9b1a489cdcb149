/* vmafhip — float MS-SSIM on the GPU (kernels/ms-ssim.hip): the sums of l,
 * c and s over the SSIM map of each of the five scales (VhMsSsimSums).
 * The exact kernels (the default) compute every pixel with the CPU's
 * operations, only the sums over the map in another (fixed) order: the
 * scores equal the CPU's at libvmaf's printed precision.  The fast ones
 * (VhConfig's ms_ssim_gpu_fast) filter with float sums, at about half the
 * cost: the scores within 2e-6 of the CPU's
 * (tests/check/test-ms-ssim-emulation.cpp).  The options (enable_lcs, enable_db, clip_db) act on the host, on
 * these sums, exactly as on the CPU's.
 *
 *   VhMsSsimGpu *ctx = vh_ms_ssim_gpu_new (gpu, module, width, height, bpc,
 *       &error);
 *   vh_ms_ssim_gpu_enqueue (ctx, stream, ref, dis, pitch, sums, &error);
 *
 * ref / dis: device luma planes with `pitch` bytes per row; sums: a
 * VhMsSsimSums of host memory (pinned).  One context per frame in flight;
 * pictures under 176x176 (the CPU extractor refuses them) are refused. */
#ifndef VH_MS_SSIM_GPU_H
#define VH_MS_SSIM_GPU_H

#include <glib.h>

#include "vh-gpu.h"
#include "vh-picture.h"

G_BEGIN_DECLS

typedef struct VhMsSsimGpu VhMsSsimGpu;

VhMsSsimGpu *vh_ms_ssim_gpu_new (VhGpu *gpu, VhGpuModule *module,
    unsigned width, unsigned height, unsigned bpc, GError **error);
void vh_ms_ssim_gpu_free (VhMsSsimGpu *ctx);
/* _new with the family named: the exact kernels (what _new takes), or the
 * fast ones */
VhMsSsimGpu *vh_ms_ssim_gpu_new_family (VhGpu *gpu, VhGpuModule *module,
    unsigned width, unsigned height, unsigned bpc, gboolean exact,
    GError **error);
gboolean vh_ms_ssim_gpu_enqueue (VhMsSsimGpu *ctx, VhGpuStream *stream,
    VhGpuPtr ref, VhGpuPtr dis, size_t pitch, double *sums, GError **error);

/* Host emulation (tests): the same layout in host memory, and the launches'
 * parameters for planes in host memory (p: VhMsSsimParams [5], r: a
 * VhMsSsimReduce, n_blocks [5]: each scale's grid). */
VhMsSsimGpu *vh_ms_ssim_gpu_new_host (unsigned width, unsigned height,
    unsigned bpc, GError **error);
void vh_ms_ssim_gpu_host_params (VhMsSsimGpu *ctx, const VhPlane *ref,
    const VhPlane *dis, void *p, void *r, unsigned *n_blocks);
const double *vh_ms_ssim_gpu_host_sums (const VhMsSsimGpu *ctx);

G_END_DECLS
#endif
