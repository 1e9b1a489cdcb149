/* vmafhip — probe kernel: checks the GPU toolchain end to end (compile for
 * both vendors, embed, load, launch, copy back) with a result that must be
 * exact.  It is no part of the VMAF computation. */
#include "vh-hip-compat.h"
#include "probe-device.h"

/* Sums n signed 64-bit values into *total and writes the device's warp width
 * into *warp_width.
 *
 * Launch with any grid, any blockDim.x (1-D blocks) and
 * blockDim.x * sizeof (unsigned long long) bytes of dynamic shared memory.
 * *total must be zero before the launch.
 *
 * The arithmetic is unsigned 64-bit: two's-complement addition gives the
 * same bits for signed and unsigned operands, and unsigned wrap-around is
 * defined, so the result is the exact signed sum modulo 2^64 whatever the
 * order blocks finish in (atomicAdd has no signed 64-bit form anyway). */
VH_KERNEL void
vh_probe_sum_i64 (const long long *VH_RESTRICT values, unsigned int n,
    unsigned long long *VH_RESTRICT total, int *VH_RESTRICT warp_width)
{
  extern __shared__ unsigned long long vh_probe_partial[];
  const unsigned int tid = threadIdx.x;
  const unsigned int block = blockDim.x;
  /* The hardware's width (32 or 64), never a constant: the same logic must
   * hold on a 64-lane AMD wavefront and a 32-lane NVIDIA warp. */
  const unsigned int width = warpSize;

  unsigned long long acc = 0;
  const unsigned long long stride = (unsigned long long) gridDim.x * block;
  for (unsigned long long i = (unsigned long long) blockIdx.x * block + tid;
      i < n; i += stride)
    acc += (unsigned long long) values[i];
  vh_probe_partial[tid] = acc;
  __syncthreads ();

  /* Fold each warp's lanes onto its first lane (kernels/probe-device.h) */
  for (unsigned int step = width / 2; step > 0; step /= 2) {
    vh_probe_fold_step (vh_probe_partial, tid, block, width, step);
    __syncthreads ();
  }

  /* One thread adds the warps' partial sums and publishes the block's. */
  if (tid == 0) {
    const unsigned long long block_sum = vh_probe_block_sum (vh_probe_partial,
        block, width);
    atomicAdd (total, block_sum);
    if (blockIdx.x == 0)
      *warp_width = (int) width;
  }
}
