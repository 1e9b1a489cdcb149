/* vmafhip — integer PSNR's sums of squared errors on the GPU
 * (kernels/psnr.hip).
 *
 * Gives, integer for integer, what vh_psnr_sse() (common/features/psnr/psnr.c) gives for
 * each plane pair: the uint64 SSE.  The dB values (vh_psnr_db, with the
 * extractor's peak, caps and min_sse) stay on the host.
 *
 * Use:
 *   // once per VhGpu (vh-kernel-images.h, from the kernels build):
 *   VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_psnr, &error);
 *   // once per in-flight frame slot:
 *   VhPsnrGpu *ctx = vh_psnr_gpu_new (gpu, module, width, height, bpc, &error);
 *   uint64_t *sse = vh_gpu_host_alloc (gpu, 3 * sizeof (uint64_t), &error);
 *   // per frame, nothing waits:
 *   VhPsnrGpuPlane ref[3] = {...}, dis[3] = {...};
 *   vh_psnr_gpu_enqueue (ctx, stream, ref, dis, 3, sse, &error);
 *   // ... once the stream has passed that point:
 *   mse_y = (double) sse[0] / (unsigned) (width * height); ...
 *
 * Interleaved chroma (NV12, P010) is read in place: describe U and V as two
 * planes of step 2 over the same rows, V's address one sample (1 or 2
 * bytes) after U's.  Planar pairs whose addresses and pitches are multiples
 * of 4 samples (4 bytes at 8 bits, 8 bytes above) are read a whole 4-sample
 * chunk per load; others sample by sample.  Both give the same integers.
 *
 * Module: the caller loads it (one per VhGpu serves every context of both
 * bit depths) and frees it after the last context.  vh_psnr_gpu_new looks
 * the kernels up in it, which is not thread-safe against other lookups on
 * the same module: create contexts from one thread at a time.
 *
 * A context owns its device accumulators: one context per frame in
 * flight; enqueue the same context again only on the same stream, or after
 * the previous result has arrived.  Contexts may be used from any thread.
 */
#ifndef VH_PSNR_GPU_H
#define VH_PSNR_GPU_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "vh-gpu.h"

G_BEGIN_DECLS

/* Largest plane width and height: with it the CPU's 32-bit row sums (8-bit
 * samples) cannot wrap, so any order of summation gives the CPU's total. */
#define VH_PSNR_GPU_MAX_DIM 65535

/* One device plane, as VhPlane describes a host one. */
typedef struct {
  VhGpuPtr data;      /* device address of the first sample */
  size_t pitch;       /* bytes between rows */
  unsigned width;     /* samples */
  unsigned height;    /* rows */
  unsigned step;      /* samples between horizontal neighbours: 1 planar,
                       * 2 interleaved chroma */
} VhPsnrGpuPlane;

typedef struct VhPsnrGpu VhPsnrGpu;

/* A context for pictures whose luma is width x height (1 ..
 * VH_PSNR_GPU_MAX_DIM each) at bpc 8, 10 or 12; chroma planes may have any
 * size up to the same maximum.  Allocates the 3 device accumulators.  NULL
 * with an error in VH_ERROR otherwise: INVALID_ARGUMENT (NULL gpu or
 * module, empty size), UNSUPPORTED (bpc, a side over the maximum), GPU
 * (lookup, allocation). */
VhPsnrGpu *vh_psnr_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error);

/* Queues on stream: zeroing the accumulators, one kernel for all planes,
 * and the copy of n_planes uint64 SSEs into sse[0 .. n_planes − 1] (pinned
 * host memory from vh_gpu_host_alloc; the caller's, valid once the stream
 * has passed this point).  Never waits.
 *
 * ref[p], dis[p] for p < n_planes (1 to 3; 1 for luma only): plane 0 is the
 * luma of the context's size; each pair has one size; steps 1 or 2; pitches
 * at least a row ((width − 1)·step + 1 samples).  bpc 8: uint8 samples;
 * bpc 10/12: uint16 little-endian, addresses and pitches even.  FALSE with
 * an error in VH_ERROR (INVALID_ARGUMENT, SIZE_MISMATCH, UNSUPPORTED, GPU)
 * when an argument is wrong (nothing queued) or a queue call fails (the
 * stream may then hold part of the work: treat the frame as failed). */
gboolean vh_psnr_gpu_enqueue (VhPsnrGpu *ctx, VhGpuStream *stream,
    const VhPsnrGpuPlane *ref, const VhPsnrGpuPlane *dis, unsigned n_planes,
    uint64_t *sse, GError **error);

/* Frees the accumulators.  Work queued with ctx must have finished. */
void vh_psnr_gpu_free (VhPsnrGpu *ctx);

G_END_DECLS
#endif /* VH_PSNR_GPU_H */
