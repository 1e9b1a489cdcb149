/* vmafhip — CIEDE2000 on the GPU (kernels/ciede.hip): the frame's sum of
 * per-pixel differences, in double, summed in a fixed order (the same on
 * every run; not the CPU's order, so equal to it within rounding).
 *
 *   VhCiedeGpu *ctx = vh_ciede_gpu_new (gpu, module, width, height, bpc, &error);
 *   vh_ciede_gpu_enqueue (ctx, stream, ref, dis, pitch, shift, &sum, &error);
 *
 * ref / dis: device planes Y, Cb, Cr (planar; chroma at full size, shift 0,
 * or halved both ways, shift 1); pitch: bytes per row of each plane, the
 * same for both pictures; sum: host memory (pinned) the result is copied
 * to.  One context per frame in flight.
 *
 * 8-bit pictures use a table of every (y, u, v) colour's Lab, 256 MiB of
 * device memory shared by the process's contexts on the device (built
 * at the first context, freed with the last).  Where it cannot be
 * allocated, or where the caller asks for none (VhConfig's
 * ciede_lab_table), every pixel is converted instead; the scores are the same either way. */
#ifndef VH_CIEDE_GPU_H
#define VH_CIEDE_GPU_H

#include <glib.h>

#include "vh-gpu.h"

G_BEGIN_DECLS

typedef struct VhCiedeGpu VhCiedeGpu;

VhCiedeGpu *vh_ciede_gpu_new (VhGpu *gpu, VhGpuModule *module,
    unsigned width, unsigned height, unsigned bpc, GError **error);
/* The same, the 8-bit table asked for or not (_new asks for it) */
VhCiedeGpu *vh_ciede_gpu_new_table (VhGpu *gpu, VhGpuModule *module,
    unsigned width, unsigned height, unsigned bpc, gboolean use_table,
    GError **error);
void vh_ciede_gpu_free (VhCiedeGpu *ctx);
/* Whether ctx looks colours up in the shared 8-bit Lab table. */
gboolean vh_ciede_gpu_uses_table (const VhCiedeGpu *ctx);
gboolean vh_ciede_gpu_enqueue (VhCiedeGpu *ctx, VhGpuStream *stream,
    const VhGpuPtr ref[3], const VhGpuPtr dis[3], const size_t pitch[3],
    unsigned shift, double *sum, GError **error);

G_END_DECLS
#endif
