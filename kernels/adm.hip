/* vmafhip — integer ADM kernels (bit-exact with the CPU engine, common/adm.c).
 *
 * One launch per scale, each a grid of tiles; what a block does, phase by
 * phase, is in adm-device.h, shared with the host code that checks it.
 * The four kernels differ only in what they read:
 *   vh_adm_scale0_u8    scale 0, 8-bit luma
 *   vh_adm_scale0_u16   scale 0, 10-12 bit luma (16-bit words)
 *   vh_adm_scale1       scale 1, the int32 low band of scale 0
 *   vh_adm_scale23      scales 2 and 3, the int32 low band of the scale before
 * Launch each with blockDim (VH_ADM_THREADS, 1, 1), no dynamic shared
 * memory, and one VhAdmGpuScale by value; common/gpu/adm-gpu.c does.
 */
#include "vh-hip-compat.h"
#include "adm-device.h"

static __device__ __forceinline__ void
adm_block (const VhAdmGpuScale *p, int kind)
{
  __shared__ VhAdmTile tile;
  VhAdmThread own;
  const int bx = p->tile_x0 + (int) blockIdx.x;
  const int by = p->tile_y0 + (int) blockIdx.y;
  const int t = (int) threadIdx.x;

  /* Every thread of a block leaves the loop at the same phase (the return
   * value is block-uniform), so the barriers stay matched.  Unrolled by
   * nvcc; AMD's compilers decide for themselves (clang-19 cannot unroll
   * this loop for every kernel and says so). */
#if defined(VH_GPU_NVIDIA)
#pragma unroll
#endif
  for (int phase = 0; phase < VH_ADM_PHASES; phase++) {
    if (!vh_adm_phase (p, kind, phase, bx, by, t, &tile, &own))
      break;
    __syncthreads ();
  }
}

VH_KERNEL void __launch_bounds__ (VH_ADM_THREADS)
vh_adm_scale0_u8 (const VhAdmGpuScale p)
{
  adm_block (&p, VH_ADM_SRC_U8);
}

VH_KERNEL void __launch_bounds__ (VH_ADM_THREADS)
vh_adm_scale0_u16 (const VhAdmGpuScale p)
{
  adm_block (&p, VH_ADM_SRC_U16);
}

VH_KERNEL void __launch_bounds__ (VH_ADM_THREADS)
vh_adm_scale1 (const VhAdmGpuScale p)
{
  adm_block (&p, VH_ADM_SRC_S1);
}

VH_KERNEL void __launch_bounds__ (VH_ADM_THREADS)
vh_adm_scale23 (const VhAdmGpuScale p)
{
  adm_block (&p, VH_ADM_SRC_S23);
}
