/* vmafhip — integer ADM kernels (bit-exact with the CPU engine, common/features/adm/adm.c).
 *
 * One launch per scale, each a grid of tiles; what a block does, phase by
 * phase, is in adm-device.h, shared with the host code that checks it.
 * The four kernels differ only in what they read:
 *   vh_adm_scale0_u8    scale 0, 8-bit luma
 *   vh_adm_scale0_u16   scale 0, 10-12 bit luma (16-bit words)
 *   vh_adm_scale1       scale 1, the int32 low band of scale 0
 *   vh_adm_scale23      scales 2 and 3, the int32 low band of the scale before
 * and each has two more parts: _ref computes the reference's share once
 * for several distorted pictures, _dis a distorted picture's part against
 * it (VH_ADM_PART_*, adm-device.h).
 * Launch each with blockDim (VH_ADM_THREADS, 1, 1), no dynamic shared
 * memory, and one VhAdmGpuScale by value; common/gpu/features/adm-gpu.c does.
 */
#include "vh-hip-compat.h"
#include "adm-device.h"

static __device__ __forceinline__ void
adm_block (const VhAdmGpuScale *p, int kind, int part)
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
    if (!vh_adm_phase (p, kind, part, phase, bx, by, t, &tile, &own))
      break;
    __syncthreads ();
  }
}

/* One kernel per input kind and part: the pair's (no suffix), the
 * reference's share (_ref) and a distorted picture's part (_dis). */
#define VH_ADM_KERNEL(name, kind, part) \
  VH_KERNEL void __launch_bounds__ (VH_ADM_THREADS) \
  name (const VhAdmGpuScale p) \
  { \
    adm_block (&p, kind, part); \
  }

VH_ADM_KERNEL (vh_adm_scale0_u8, VH_ADM_SRC_U8, VH_ADM_PART_PAIR)
VH_ADM_KERNEL (vh_adm_scale0_u16, VH_ADM_SRC_U16, VH_ADM_PART_PAIR)
VH_ADM_KERNEL (vh_adm_scale1, VH_ADM_SRC_S1, VH_ADM_PART_PAIR)
VH_ADM_KERNEL (vh_adm_scale23, VH_ADM_SRC_S23, VH_ADM_PART_PAIR)
VH_ADM_KERNEL (vh_adm_scale0_u8_ref, VH_ADM_SRC_U8, VH_ADM_PART_REF)
VH_ADM_KERNEL (vh_adm_scale0_u16_ref, VH_ADM_SRC_U16, VH_ADM_PART_REF)
VH_ADM_KERNEL (vh_adm_scale1_ref, VH_ADM_SRC_S1, VH_ADM_PART_REF)
VH_ADM_KERNEL (vh_adm_scale23_ref, VH_ADM_SRC_S23, VH_ADM_PART_REF)
VH_ADM_KERNEL (vh_adm_scale0_u8_dis, VH_ADM_SRC_U8, VH_ADM_PART_DIS)
VH_ADM_KERNEL (vh_adm_scale0_u16_dis, VH_ADM_SRC_U16, VH_ADM_PART_DIS)
VH_ADM_KERNEL (vh_adm_scale1_dis, VH_ADM_SRC_S1, VH_ADM_PART_DIS)
VH_ADM_KERNEL (vh_adm_scale23_dis, VH_ADM_SRC_S23, VH_ADM_PART_DIS)
