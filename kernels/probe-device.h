/* vmafhip — the probe kernel's fold of a block's partial sums
 * (kernels/probe.hip), shared with its host emulation at 32 and 64 lanes
 * (tests/check/test-kernel-emulation.cpp).  The only arithmetic on the
 * wavefront's width in the kernels outside kernels/vh-lanes.h: the lanes
 * exchange their sums through shared memory and barriers, grouped by the
 * width, so the sum must be the same at either width. */
#ifndef VH_PROBE_DEVICE_H
#define VH_PROBE_DEVICE_H

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_PROBE_FN __host__ __device__ __forceinline__
#else
#define VH_PROBE_FN static inline
#endif

/* One step of the fold of each wavefront's partial sums onto its first
 * lane (steps width / 2, ..., 1, a barrier after each): thread tid of a
 * block of `block` threads.  lane + step < width, so a step never crosses
 * into the next wavefront; the bound on block covers a last wavefront
 * that is only partly populated. */
VH_PROBE_FN void
vh_probe_fold_step (unsigned long long *partial, unsigned tid,
    unsigned block, unsigned width, unsigned step)
{
  const unsigned lane = tid % width;
  if (lane < step && tid + step < block)
    partial[tid] += partial[tid + step];
}

/* After the fold: the block's sum, the wavefronts' first lanes added */
VH_PROBE_FN unsigned long long
vh_probe_block_sum (const unsigned long long *partial, unsigned block,
    unsigned width)
{
  unsigned long long sum = 0;
  for (unsigned w = 0; w < block; w += width)
    sum += partial[w];
  return sum;
}

#endif /* VH_PROBE_DEVICE_H */
