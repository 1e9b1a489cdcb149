/* vmafhip — integer VIF on the GPU (kernels/vif.hip), bit-exact with the
 * CPU core of common/features/vif/vif.h: for the same planes, bit depth, gain limit and
 * first scale, the VhVifSums are identical, integer for integer.
 *
 * Usage (the module is loaded by the caller, once per VhGpu, and may serve
 * any number of contexts; vh_kernel_vif comes from the generated
 * vh-kernel-images.h of kernels/):
 *
 *   VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_vif, &error);
 *   VhVifGpu *vif = vh_vif_gpu_new (gpu, module, width, height, bpc, &error);
 *   VhVifSums *sums = vh_gpu_host_alloc (gpu, sizeof *sums, &error);   // pinned
 *   vh_vif_gpu_enqueue (vif, stream, ref, ref_pitch, dis, dis_pitch,
 *       100.0, 0, sums, &error);
 *   ... vh_gpu_stream_sync (stream, &error) or an event ...
 *   vh_vif_sums_to_scores (sums, NULL, NULL, scores);    // common/features/vif/vif.h
 *   vh_vif_gpu_free (vif);  vh_gpu_host_free (gpu, sums);  vh_gpu_module_free (module);
 *
 * A context holds the device scratch of one frame in flight (the pyramid
 * of scales 1-3, the accumulators, the log2 table): give each concurrently
 * running frame its own context. Successive frames on one stream may share
 * one, since the stream orders them.
 */
#ifndef VH_VIF_GPU_H
#define VH_VIF_GPU_H

#include <glib.h>
#include <stddef.h>

#include "vh-gpu.h"
#include "vif.h"

G_BEGIN_DECLS

typedef struct VhVifGpu VhVifGpu;

/* A context for width x height luma planes of bpc bits (8..16, as the CPU
 * core; the vif extractor itself accepts 8, 10, 12). `module` is the
 * loaded vif module (vh_kernel_vif); it must outlive the context. Allocates
 * all device memory (one block, about 0.7 x the size of one 16-bit luma
 * plane) and uploads the log2 table (synchronously, on a stream of its
 * own). NULL and an error: VH_ERROR_INVALID_ARGUMENT (NULL gpu or module),
 * VH_ERROR_TOO_SMALL (below 16x16, as on the CPU), VH_ERROR_UNSUPPORTED
 * (bpc, above 2^20 either way, a device with too little shared memory),
 * VH_ERROR_GPU (a module without the vif kernels, out of memory, ...). */
VhVifGpu *vh_vif_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error);

/* Queues the VIF of one frame on `stream` and returns at once: zeroes the
 * accumulators, runs the four scale kernels, and copies the result into
 * `out` (sizeof (VhVifSums) bytes of host memory, pinned for a truly
 * asynchronous copy: vh_gpu_host_alloc). `out` is valid once the stream
 * has passed this point (vh_gpu_stream_sync, or an event recorded after
 * this call). The planes must stay untouched until then.
 *
 * ref, dis: device luma planes of the context's size, `*_pitch` bytes
 * between rows; 8-bit samples as uint8, wider ones as uint16 (little
 * endian, as VhPlane), 2-byte aligned. enhn_gain_limit: [1, 100] (libvmaf's
 * vif_enhn_gain_limit, default 100). first_scale: 0, or 1 for libvmaf's
 * vif_skip_scale0 (the sums of the scales below it are zero), up to 3.
 * FALSE and an error (nothing queued, or, for a failure of the GPU calls,
 * possibly part of it) on a bad argument or a GPU error. */
gboolean vh_vif_gpu_enqueue (VhVifGpu *ctx, VhGpuStream *stream,
    VhGpuPtr ref, size_t ref_pitch, VhGpuPtr dis, size_t dis_pitch,
    double enhn_gain_limit, unsigned first_scale, VhVifSums *out,
    GError **error);

/* Frees the device memory. No work using the context may be pending. */
void vh_vif_gpu_free (VhVifGpu *ctx);

/* The reference's share of one frame, for several distorted pictures
 * scored against one reference (the renditions of a ladder): the
 * reference's filtered statistics (μ₁, σ₁² per pixel) and its pyramid,
 * computed once, then read by each distorted picture's kernels, which
 * skip the reference's filtering. The sums equal vh_vif_gpu_enqueue's.
 *
 *   VhVifGpuReference *share = vh_vif_gpu_reference_new (gpu, w, h, bpc, &e);
 *   vh_vif_gpu_enqueue_reference (ctx, share, stream, ref, pitch, 0, &e);
 *   for each distorted picture (after `stream` passed the above: the same
 *   stream, or one waiting on an event recorded after it):
 *     vh_vif_gpu_enqueue_distorted (ctx_i, stream_i, share, dis_i, pitch_i,
 *         100.0, 0, sums_i, &e);
 *
 * The share is about 1.4 x 8 bytes per luma sample of GPU memory. It
 * keeps the reference plane's address: the plane, like the share, must
 * stay untouched until every distorted part reading it is done. */
typedef struct VhVifGpuReference VhVifGpuReference;

VhVifGpuReference *vh_vif_gpu_reference_new (VhGpu *gpu, unsigned width,
    unsigned height, unsigned bpc, GError **error);
void vh_vif_gpu_reference_free (VhVifGpuReference *share);
/* Queues the reference's share of `ref` (as vh_vif_gpu_enqueue's) into
 * `share`, with `ctx`'s kernels: any context of the share's size and
 * depth. Scales below first_scale only build the pyramid. */
gboolean vh_vif_gpu_enqueue_reference (VhVifGpu *ctx,
    VhVifGpuReference *share, VhGpuStream *stream, VhGpuPtr ref,
    size_t ref_pitch, unsigned first_scale, GError **error);
/* vh_vif_gpu_enqueue with the reference's share in place of the
 * reference: refused where the share is of another size or depth, was
 * never computed, or computed from a later first scale. */
/* Whether vh_vif_gpu_enqueue_distorted takes this share for ctx. */
gboolean vh_vif_gpu_reference_fits (const VhVifGpu *ctx,
    const VhVifGpuReference *share, unsigned first_scale);
gboolean vh_vif_gpu_enqueue_distorted (VhVifGpu *ctx, VhGpuStream *stream,
    const VhVifGpuReference *share, VhGpuPtr dis, size_t dis_pitch,
    double enhn_gain_limit, unsigned first_scale, VhVifSums *out,
    GError **error);

/* Host emulation (tests run the kernels' own code, kernels/vif-device.h,
 * on the host): a context in host memory, the launch parameters of scale s
 * with host pictures (s == 0 zeroes the sums; `p` points at a
 * VhVifLevelParams), and the sums the emulated blocks added up. */
VhVifGpu *vh_vif_gpu_new_host (unsigned width, unsigned height, unsigned bpc,
    GError **error);
void vh_vif_gpu_host_level (VhVifGpu *ctx, unsigned s, const VhPlane *ref,
    const VhPlane *dis, double enhn_gain_limit, unsigned first_scale,
    void *p, unsigned *n_blocks);
const VhVifSums *vh_vif_gpu_host_sums (const VhVifGpu *ctx);
/* The same per part (VH_VIF_PART_*, kernels/vif-device.h) with a share in
 * host memory: the reference part takes `ref` (dis may be NULL) and fills
 * the share, the distorted part takes `dis` (ref may be NULL) and reads it. */
VhVifGpuReference *vh_vif_gpu_reference_new_host (unsigned width,
    unsigned height, unsigned bpc, GError **error);
void vh_vif_gpu_host_level_part (VhVifGpu *ctx, VhVifGpuReference *share,
    unsigned part, unsigned s, const VhPlane *ref, const VhPlane *dis,
    double enhn_gain_limit, unsigned first_scale, void *p,
    unsigned *n_blocks);

G_END_DECLS
#endif /* VH_VIF_GPU_H */
