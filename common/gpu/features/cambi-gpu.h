/* vmafhip — CAMBI on the GPU (kernels/cambi.hip): per frame, the exact
 * top-k sums of each scale's contrast values (VhCambiSums) of the
 * distorted luma; the extractor's extract_sums makes the score.
 *
 *   if (vh_cambi_gpu_supported (&plan, &why)) ...
 *   VhCambiGpu *ctx = vh_cambi_gpu_new (gpu, module, &plan, &error);
 *   vh_cambi_gpu_enqueue (ctx, stream, dis, ref, pitch, sums, &error);
 *
 * dis, ref: the device luma planes, `pitch` bytes per row (ref is read
 * with full_ref only); sums: a VhCambiSums of host memory (pinned).  One
 * context per frame in flight. */
#ifndef VH_CAMBI_GPU_H
#define VH_CAMBI_GPU_H

#include <glib.h>

#include "cambi.h"
#include "vh-gpu.h"
#include "vh-picture.h"

G_BEGIN_DECLS

typedef struct VhCambiGpu VhCambiGpu;

/* Whether the kernels take this plan; FALSE with the reason (the CPU then
 * computes CAMBI): the full-reference form with a source size other than
 * the picture's, heatmaps, an encode size other than the picture's,
 * max_log_contrast above 2, or a window wider than a scale. */
gboolean vh_cambi_gpu_supported (const VhCambiPlan *plan, const char **why);
VhCambiGpu *vh_cambi_gpu_new (VhGpu *gpu, VhGpuModule *module,
    const VhCambiPlan *plan, GError **error);
void vh_cambi_gpu_free (VhCambiGpu *ctx);
gboolean vh_cambi_gpu_enqueue (VhCambiGpu *ctx, VhGpuStream *stream,
    VhGpuPtr dis, VhGpuPtr ref, size_t pitch, VhCambiSums *sums,
    GError **error);

/* Benchmarks: events recorded on the stream as each pass's stages end:
 * [0] before the preprocessing, [1] after it, per scale s [2 + 2 s] after
 * its scale and [3 + 2 s] after its cvalues launch, then [2 + 2 SCALES ...]
 * after the level2, level3 and select launches (every scale's at once)
 * (VH_CAMBI_GPU_MARKS in all; recorded again for the reference's pass
 * with full_ref).  NULL: none (the default). */
#define VH_CAMBI_GPU_MARKS (5 + 2 * VH_CAMBI_SCALES)
void vh_cambi_gpu_set_marks (VhCambiGpu *ctx, VhGpuEvent *const *marks);
/* The contrast kernel takes a scale with 16 threads a column (8-column
 * tiles) where 4 a column would make fewer than this many 32x32 tiles,
 * VH_CAMBI_GPU_WIDE_BELOW by default (benchmarks: 0 never, G_MAXUINT
 * always).  Either gives the same values. */
#define VH_CAMBI_GPU_WIDE_BELOW 256
void vh_cambi_gpu_set_wide_below (VhCambiGpu *ctx, unsigned tiles);

/* Host emulation (tests): the same layout in host memory, and the
 * launches' parameters for a luma plane in host memory and a pass (0: the
 * distorted picture, 1: the reference; pre: a VhCambiPre, scales:
 * VhCambiScale [5], n_tiles [5]: each scale's contrast grid). */
VhCambiGpu *vh_cambi_gpu_new_host (const VhCambiPlan *plan, GError **error);
void vh_cambi_gpu_host_params (VhCambiGpu *ctx, const VhPlane *luma,
    int pass, void *pre, void *scales, unsigned *n_tiles);
/* clears the histograms, and the results too, as the enqueue's memsets */
void vh_cambi_gpu_host_clear (VhCambiGpu *ctx, gboolean results);
/* the VhCambiScale [VH_CAMBI_SCALES] of `pass` the selection kernels read
 * (uploaded once per context) */
const void *vh_cambi_gpu_host_select_params (const VhCambiGpu *ctx,
    int pass);
const VhCambiSums *vh_cambi_gpu_host_sums (const VhCambiGpu *ctx);

G_END_DECLS
#endif
