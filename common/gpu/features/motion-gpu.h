/* vmafhip — integer motion SAD on the GPU (kernels/motion.hip).
 *
 * Gives, integer for integer, what vh_motion_sad() (common/features/motion/motion.c) gives
 * for the same two luma planes: Σ|blur(prev − cur)| of libvmaf 3.2.0's
 * integer motion (not libvmaf's CUDA algorithm).  Only the SAD runs on the
 * GPU; the score (vh_motion_sad_score), motion2/motion3 and the blend stay
 * on the host, in the motion extractor's logic.
 *
 * Use:
 *   // once per VhGpu (vh-kernel-images.h, from the kernels build):
 *   VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_motion, &error);
 *   // once per in-flight frame slot:
 *   VhMotionGpu *ctx = vh_motion_gpu_new (gpu, module, width, height, bpc, &error);
 *   uint64_t *sad = vh_gpu_host_alloc (gpu, sizeof (uint64_t), &error);
 *   // per frame (frame i against frame i − lag), nothing waits:
 *   vh_motion_gpu_enqueue (ctx, stream, prev_luma, prev_pitch, cur_luma, cur_pitch, sad, &error);
 *   // ... once the stream has passed that point (event / stream sync):
 *   score = vh_motion_sad_score (*sad, width, height);
 *
 * Module: the caller loads it (one per VhGpu serves every context of both
 * bit depths) and frees it after the last context.  vh_motion_gpu_new looks
 * the kernels up in it, which is not thread-safe against other lookups on
 * the same module: create contexts from one thread at a time.
 *
 * A context owns its device accumulator: one context per frame in flight;
 * enqueue the same context again only on the same stream, or after the
 * previous result has arrived.  Contexts may be used from any thread.
 */
#ifndef VH_MOTION_GPU_H
#define VH_MOTION_GPU_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "vh-gpu.h"

G_BEGIN_DECLS

/* Largest width and height: with it the CPU's 32-bit row sums cannot wrap,
 * so any order of summation gives the CPU's total.  (The CPU path itself
 * accepts larger sizes; no video format comes near.) */
#define VH_MOTION_GPU_MAX_DIM 65535

typedef struct VhMotionGpu VhMotionGpu;

/* A context for luma planes of width x height (3 .. VH_MOTION_GPU_MAX_DIM
 * each, the blur's reflect-101 needs 3) at bpc 8, 10 or 12.  Allocates the
 * 8-byte device accumulator.  NULL with an error in VH_ERROR otherwise:
 * INVALID_ARGUMENT (NULL gpu or module, empty size), UNSUPPORTED (bpc, a
 * side over the maximum), TOO_SMALL, GPU (lookup, allocation). */
VhMotionGpu *vh_motion_gpu_new (VhGpu *gpu, VhGpuModule *module,
    unsigned width, unsigned height, unsigned bpc, GError **error);

/* Queues on stream: zeroing the accumulator, the kernel, and the copy of
 * the uint64 SAD into *sad (pinned host memory from vh_gpu_host_alloc; the
 * caller's, valid once the stream has passed this point).  Never waits.
 *
 * prev, cur: device addresses of the first luma sample of the two
 * pictures (previous = frame i − lag, current = frame i, as in
 * vh_motion_sad); pitches in bytes, at least width samples.  bpc 8: uint8
 * samples; bpc 10/12: uint16 little-endian, addresses and pitches even.
 * FALSE with an error in VH_ERROR (INVALID_ARGUMENT, GPU) when an argument
 * is wrong (nothing queued) or a queue call fails (the stream may then hold
 * part of the work: treat the frame as failed). */
gboolean vh_motion_gpu_enqueue (VhMotionGpu *ctx, VhGpuStream *stream,
    VhGpuPtr prev, size_t prev_pitch, VhGpuPtr cur, size_t cur_pitch,
    uint64_t *sad, GError **error);

/* Frees the accumulator.  Work queued with ctx must have finished. */
void vh_motion_gpu_free (VhMotionGpu *ctx);

G_END_DECLS
#endif /* VH_MOTION_GPU_H */
