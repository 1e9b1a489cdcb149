/* vmafhip — SpEED-chroma kernels (libvmaf 3.2.0 `speed_chroma`: the part
 * that reads every chroma sample, as common/features/speed/speed-chroma.c computes it).
 *
 * In order on one stream (kernels/speed-device.h explains each step):
 *   vh_speed_small_8bit or _16bit, vh_speed_centre, vh_speed_means,
 *   vh_speed_cov.
 * Host side: common/gpu/features/speed-gpu.c. */
#include "vh-hip-compat.h"
#include "speed-device.h"

using namespace vh_speed;

template <typename Pixel>
static __device__ __forceinline__ void
small (const VhSpeedParams &p)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.ow * p.oh)
    small_pixel<Pixel> (p, blockIdx.y, i);
}

VH_KERNEL void __launch_bounds__ (VH_SPEED_THREADS)
vh_speed_small_8bit (const VhSpeedParams p)
{
  small<unsigned char> (p);
}

VH_KERNEL void __launch_bounds__ (VH_SPEED_THREADS)
vh_speed_small_16bit (const VhSpeedParams p)
{
  small<unsigned short> (p);
}

VH_KERNEL void __launch_bounds__ (VH_SPEED_THREADS)
vh_speed_centre (const VhSpeedParams p)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.tw * p.th)
    centre_pixel (p, blockIdx.y, i);
}

VH_KERNEL void __launch_bounds__ (VH_SPEED_MEANS_THREADS)
vh_speed_means (const VhSpeedParams p)
{
  if (threadIdx.x < kNB)
    window_mean (p, blockIdx.x, threadIdx.x);
}

VH_KERNEL void __launch_bounds__ (VH_SPEED_THREADS)
vh_speed_cov (const VhSpeedParams p)
{
  __shared__ double lanes[VH_SPEED_PAIRS_PER_BLOCK][VH_SPEED_LANES];
  __shared__ double tails[VH_SPEED_PAIRS_PER_BLOCK];
  const unsigned slot = threadIdx.x / VH_SPEED_LANES;
  const unsigned lane = threadIdx.x % VH_SPEED_LANES;
  const unsigned q = blockIdx.x * VH_SPEED_PAIRS_PER_BLOCK + slot;
  unsigned a = 0, b = 0;
  if (q < VH_SPEED_PAIRS) {
    pair_of (q, &a, &b);
    double tail;
    lanes[slot][lane] = cov_lane (p, blockIdx.y, a, b, lane, &tail);
    if (lane == 0)
      tails[slot] = tail;
  }
  __syncthreads ();
  if (q < VH_SPEED_PAIRS && lane == 0)
    cov_store (p, blockIdx.y, a, b, lanes[slot], tails[slot]);
}
