/* vmafhip — float MS-SSIM kernels (libvmaf 3.2.0 `float_ms_ssim`; the exact
 * ones compute every pixel as common/features/ssim/ms-ssim.c does).
 *
 * Five launches, one per scale, in order (each reads the pictures the one
 * before wrote), then one reduction:
 *   vh_ms_ssim_[fast_]scale0_8bit or _16bit   planes -> scale 1
 *   vh_ms_ssim_[fast_]scale   (scales 1..4; at 4 no decimation blocks)
 *   vh_ms_ssim_reduce  (5 blocks: each scale's partials -> 3 sums)
 * The exact kernels compute every pixel as the CPU does; the fast ones
 * (the default, float sums) run in about a third of the instructions.
 * One block of VH_MS_SSIM_BLOCK threads per tile, no dynamic shared memory, one
 * argument by value; kernels/ms-ssim-device.h holds the arithmetic and
 * explains the passes.  Host side: common/gpu/features/ms-ssim-gpu.c. */
#include "vh-hip-compat.h"
#include "ms-ssim-device.h"

using namespace vh_ms_ssim;

/* One tile: its input, its share of the next scale, its SSIM sums. */
template <bool kFast, typename Pixel>
static __device__ __forceinline__ void
ms_ssim_scale (const VhMsSsimParams &p, Shared &sm)
{
  constexpr bool kPos = sizeof (Pixel) != sizeof (float);
  const unsigned t = threadIdx.x;
  tile_load<Pixel> (p, blockIdx.x, t, sm);
  __syncthreads ();
  if (p.next_ref)
    tile_decimate<kFast, kPos> (p, blockIdx.x, t, sm);
  tile_rows<kFast, kPos> (t, sm);
  __syncthreads ();
  double acc[3];
  tile_columns<kFast, kPos> (p, blockIdx.x, t, sm, acc);
  __syncthreads ();
#pragma unroll
  for (int k = 0; k < 3; k++)
    sm.u.red[k][t] = acc[k];
  __syncthreads ();
  for (unsigned step = kBlock / 2; step > 0; step /= 2) {
    tree_level (t, step, sm.u.red);
    __syncthreads ();
  }
  if (t < 3)
    ((double *) (uintptr_t) p.partial)[3 * blockIdx.x + t] = sm.u.red[t][0];
}

/* The exact kernels (every pixel's value the CPU's)... */
VH_KERNEL void __launch_bounds__ (VH_MS_SSIM_BLOCK)
vh_ms_ssim_scale0_8bit (const VhMsSsimParams p)
{
  __shared__ Shared sm;
  ms_ssim_scale<false, unsigned char> (p, sm);
}

VH_KERNEL void __launch_bounds__ (VH_MS_SSIM_BLOCK)
vh_ms_ssim_scale0_16bit (const VhMsSsimParams p)
{
  __shared__ Shared sm;
  ms_ssim_scale<false, unsigned short> (p, sm);
}

VH_KERNEL void __launch_bounds__ (VH_MS_SSIM_BLOCK)
vh_ms_ssim_scale (const VhMsSsimParams p)
{
  __shared__ Shared sm;
  ms_ssim_scale<false, float> (p, sm);
}

/* ...and the fast ones (float sums, see tile_rows) */
VH_KERNEL void __launch_bounds__ (VH_MS_SSIM_BLOCK)
vh_ms_ssim_fast_scale0_8bit (const VhMsSsimParams p)
{
  __shared__ Shared sm;
  ms_ssim_scale<true, unsigned char> (p, sm);
}

VH_KERNEL void __launch_bounds__ (VH_MS_SSIM_BLOCK)
vh_ms_ssim_fast_scale0_16bit (const VhMsSsimParams p)
{
  __shared__ Shared sm;
  ms_ssim_scale<true, unsigned short> (p, sm);
}

VH_KERNEL void __launch_bounds__ (VH_MS_SSIM_BLOCK)
vh_ms_ssim_fast_scale (const VhMsSsimParams p)
{
  __shared__ Shared sm;
  ms_ssim_scale<true, float> (p, sm);
}

/* Block k: scale k's partials, each thread's share in order, then the
 * same tree as the tiles. */
VH_KERNEL void __launch_bounds__ (VH_MS_SSIM_BLOCK)
vh_ms_ssim_reduce (const VhMsSsimReduce r)
{
  __shared__ double red[3][VH_MS_SSIM_BLOCK];
  const unsigned t = threadIdx.x, k = blockIdx.x;
  double acc[3];
  reduce_thread (r, k, t, acc);
#pragma unroll
  for (int q = 0; q < 3; q++)
    red[q][t] = acc[q];
  __syncthreads ();
  for (unsigned step = kBlock / 2; step > 0; step /= 2) {
    tree_level (t, step, red);
    __syncthreads ();
  }
  if (t < 3)
    ((double *) (uintptr_t) r.sums)[3 * k + t] = red[t][0];
}
