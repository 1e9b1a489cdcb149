/* vmafhip — the GPU backend of the engine (VhAccelOps over HIP / CUDA).
 *
 *   VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, device_id, &error);
 *   VhGpuBackend *b = vh_gpu_backend_new (gpu, 0, &error);   // takes gpu
 *   vh_engine_set_accelerator (engine, &vh_gpu_backend_ops, b, &error);
 *
 * Each frame pair is uploaded on the stream of one of several slots —
 * straight from the caller's planes when they lie in pinned memory from
 * vh_gpu_host_alloc (the element's buffer pool), else through the slot's
 * pinned staging — and every attached feature's kernels are queued on that
 * stream; the accumulators come back into pinned memory. Nothing waits for
 * the device until the engine needs a slot back or a frame's scores (or,
 * on the zero-copy path, until the upload has read the caller's planes), so
 * several frames are in flight.
 */
#ifndef VH_GPU_BACKEND_H
#define VH_GPU_BACKEND_H

#include "vh-accel.h"
#include "vh-gpu.h"

G_BEGIN_DECLS

typedef struct VhGpuBackend VhGpuBackend;

#define VH_GPU_BACKEND_DEFAULT_SLOTS 6

/* Takes ownership of `gpu`. `slots`: frames in flight + motion's reach
 * (0: VH_GPU_BACKEND_DEFAULT_SLOTS; at least 4). */
VhGpuBackend *vh_gpu_backend_new (VhGpu *gpu, unsigned slots, GError **error);
VhGpu *vh_gpu_backend_gpu (VhGpuBackend *backend);
/* Frames uploaded straight from the caller's pinned planes, without the
 * staging copy (the zero-copy path). */
unsigned vh_gpu_backend_n_zero_copy (const VhGpuBackend *backend);
/* Frames whose pictures were in GPU memory (VH_PICTURE_DEVICE), copied
 * device to device. */
unsigned vh_gpu_backend_n_device (const VhGpuBackend *backend);
/* `release (data)` when the backend is freed (its engine's end): the
 * backend choice's count of the engines on each device */
void vh_gpu_backend_set_release (VhGpuBackend *backend,
    GDestroyNotify release, gpointer data);

extern const VhAccelOps vh_gpu_backend_ops;

G_END_DECLS
#endif
