/* vmafhip — integer PSNR: sum of squared errors per plane (libvmaf 3.2.0
 * `psnr`, bit-exact with vh_psnr_sse() in common/features/psnr/psnr.c).
 *
 * One launch covers up to 3 plane pairs (luma, Cb, Cr) of any sizes and
 * sample steps (2 for the interleaved chroma of NV12 / P010).
 *
 * Launch (host side: common/gpu/features/psnr-gpu.c):
 *   grid  ceil(max plane height / VH_PSNR_ROWS) x n_planes
 *   block VH_PSNR_THREADS x 1 x 1, no dynamic shared memory;
 *   sse[0 .. n_planes − 1] zeroed before the launch (the blocks add into it).
 * Plane widths and heights in [1, VH_MP_MAX_DIM]; samples uint8
 * (vh_psnr_sse_8) or uint16 (vh_psnr_sse_16, 2-byte aligned). */
#include "vh-hip-compat.h"
#include "motion-device.h"

static_assert (sizeof (struct VhPsnrPlaneJob) == 48,
    "VhPsnrPlaneJob layout is shared with common/gpu/features/psnr-gpu.c");
static_assert (sizeof (struct VhPsnrJobs) == 144,
    "VhPsnrJobs layout is shared with common/gpu/features/psnr-gpu.c");

template <typename pixel_t>
__device__ __forceinline__ void
psnr_sse_block (const struct VhPsnrJobs &jobs, unsigned int n_planes,
    unsigned long long *VH_RESTRICT sse)
{
  __shared__ unsigned long long partial[VH_PSNR_THREADS];
  const unsigned int plane = blockIdx.y;
  if (plane >= n_planes)
    return;
  /* Copy one plane's job out of the parameters: a uniform select, not a
   * dynamically indexed (local-memory) array. */
  const struct VhPsnrPlaneJob job = plane == 0 ? jobs.plane[0]
      : plane == 1 ? jobs.plane[1] : jobs.plane[2];
  /* A block past this plane's last row (chroma is shorter than the grid):
   * the whole block leaves before any barrier. */
  if (blockIdx.x * VH_PSNR_ROWS >= job.height)
    return;

  const unsigned int tid = threadIdx.x;
  partial[tid] = vh_psnr_thread_sse<pixel_t> (&job, blockIdx.x, tid,
      VH_PSNR_THREADS);
  __syncthreads ();

  /* Tree over the block in shared memory: no assumption on the warp width
   * (32 on NVIDIA, 64 on CDNA).  Integer sums: exact in any order. */
  VH_MP_UNROLL
  for (unsigned int step = VH_PSNR_THREADS / 2; step > 0; step /= 2) {
    if (tid < step)
      partial[tid] += partial[tid + step];
    __syncthreads ();
  }
  if (tid == 0 && partial[0] != 0)
    atomicAdd (&sse[plane], partial[0]);
}

VH_KERNEL void __launch_bounds__ (VH_PSNR_THREADS)
vh_psnr_sse_8 (struct VhPsnrJobs jobs, unsigned int n_planes,
    unsigned long long *VH_RESTRICT sse)
{
  psnr_sse_block<uint8_t> (jobs, n_planes, sse);
}

VH_KERNEL void __launch_bounds__ (VH_PSNR_THREADS)
vh_psnr_sse_16 (struct VhPsnrJobs jobs, unsigned int n_planes,
    unsigned long long *VH_RESTRICT sse)
{
  psnr_sse_block<uint16_t> (jobs, n_planes, sse);
}

/* Not PSNR: the depth check of 16-bit planes already in GPU memory (the
 * host checks the planes it stages or reads).  One block per row of the
 * backend's own copy of the plane: any sample with a bit above `mask` is
 * ORed into *bits, for the host to refuse the frame with, and masked in
 * place, so that no feature kernel queued after this one reads beyond its
 * tables.  Host side: common/gpu/backend/gpu-backend.c. */
VH_KERNEL void __launch_bounds__ (256)
vh_depth_check_16 (unsigned long long plane, unsigned int pitch,
    unsigned int width, unsigned int mask, unsigned int *VH_RESTRICT bits)
{
  uint16_t *row = (uint16_t *) (plane + (unsigned long long) blockIdx.x
      * pitch);
  unsigned int beyond = 0;
  for (unsigned int x = threadIdx.x; x < width; x += blockDim.x) {
    const unsigned int v = row[x];
    if (v & ~mask) {
      beyond |= v;
      row[x] = (uint16_t) (v & mask);
    }
  }
  if (beyond)
    atomicOr (bits, beyond);
}
