/* vmafhip — integer VIF kernels (libvmaf 3.2.0 `vif`, bit-exact).
 *
 * One launch per scale, in order (each reads the pyramid level the one
 * before wrote):
 *   vh_vif_scale0_8bit or vh_vif_scale0_16bit   input planes → level 1
 *   vh_vif_scale1                               level 1 → level 2
 *   vh_vif_scale2                               level 2 → level 3
 *   vh_vif_scale3                               level 3
 * and the same per part with a suffix, for several distorted pictures
 * scored against one reference: _ref (the reference's share: its μ₁, σ₁²
 * and next level) once, then _dis (each distorted picture's, reading
 * them back; VH_VIF_PART_* in kernels/vif-device.h). Each has a 1-D grid
 * of tiles_x · ⌈height / VH_VIF_TILE_H⌉ blocks of VH_VIF_BLOCK threads, no
 * dynamic shared memory, and one argument, a VhVifLevelParams by value
 * (kernels/vif-device.h, which holds the arithmetic and explains the
 * passes). Each but _ref adds its block sums into the scale's four int64
 * accumulators, which must be zero before.
 */
#include "vh-hip-compat.h"
#include "vif-device.h"

using namespace vh_vif;

/* The four block sums: a shared-memory tree over the whole block (no warp
 * width assumed), then one 64-bit atomicAdd each. The arithmetic is
 * unsigned: two's complement gives the exact int64 sums modulo 2^64
 * whatever the order the blocks finish in. */
static __device__ __forceinline__ void
reduce_and_publish (const VhVifLevelParams &p, const Accum &acc,
    TileShared &sm)
{
  const unsigned tid = threadIdx.x;

  sm.u.partial[0][tid] = (unsigned long long) acc.num_log;
  sm.u.partial[1][tid] = (unsigned long long) acc.den_log;
  sm.u.partial[2][tid] = (unsigned long long) acc.num_non_log;
  sm.u.partial[3][tid] = (unsigned long long) acc.den_non_log;
  __syncthreads ();
  for (unsigned step = kBlock / 2; step > 0; step /= 2) {
    if (tid < step) {
      for (int q = 0; q < VH_VIF_SUMS_PER_SCALE; q++)
        sm.u.partial[q][tid] += sm.u.partial[q][tid + step];
    }
    __syncthreads ();
  }
  if (tid < VH_VIF_SUMS_PER_SCALE) {
    unsigned long long *sums = (unsigned long long *) (uintptr_t) p.sums;
    const unsigned long long total = sm.u.partial[tid][0];
    if (total != 0)
      atomicAdd (&sums[tid], total);
  }
}

template <int HALF, int NEXT_HALF, typename Pixel, int PART>
static __device__ __forceinline__ void
vif_level (const VhVifLevelParams &p, TileShared &sm)
{
  const unsigned tid = threadIdx.x;
  const Tile tile = tile_of (p, blockIdx.x);

  row_offsets<HALF> (p, tile, tid, sm);
  __syncthreads ();
  /* do_stats is the same for the whole grid: no divergence at barriers. */
  if (p.do_stats)
    vertical_pass<HALF, NEXT_HALF, true, Pixel, PART> (p, tile, tid, sm);
  else
    vertical_pass<HALF, NEXT_HALF, false, Pixel, PART> (p, tile, tid, sm);
  __syncthreads ();

  Accum acc = { 0, 0, 0, 0 };
  if (p.do_stats)
    acc = horizontal_stats<HALF, PART> (p, tile, tid, sm);
  if (NEXT_HALF > 0)
    horizontal_subsample<HALF, NEXT_HALF, PART> (p, tile, tid, sm);
  /* the reference part has no sums: its share goes to p.ref_stats */
  if (!p.do_stats || PART == VH_VIF_PART_REF)
    return;
  /* The reduction scratch overlays the vertical results. */
  __syncthreads ();
  reduce_and_publish (p, acc, sm);
}

/* Occupancy (NVIDIA, 64 K registers per SM): 41 KB of shared memory allow
 * 5 blocks per SM, registers decide. The 17-tap scale-0 kernels get 3
 * blocks (≤ 80 registers; nvcc 13 for sm_90: no spill at 16-bit, 4 bytes
 * at 8-bit); scales 1-3 fit 64 registers without spilling: 4 blocks. */
#if defined(VH_GPU_NVIDIA)
#define VH_VIF_SCALE0_BOUNDS __launch_bounds__ (VH_VIF_BLOCK, 3)
/* the parts of a shared reference need fewer registers: 4 blocks */
#define VH_VIF_SCALE0_PART_BOUNDS __launch_bounds__ (VH_VIF_BLOCK, 4)
#define VH_VIF_SCALE123_BOUNDS __launch_bounds__ (VH_VIF_BLOCK, 4)
#else
/* AMD: the block size only (the occupancy figures above are NVIDIA's; on
 * gfx942 the shared memory alone allows one block per CU) */
#define VH_VIF_SCALE0_BOUNDS __launch_bounds__ (VH_VIF_BLOCK)
#define VH_VIF_SCALE0_PART_BOUNDS __launch_bounds__ (VH_VIF_BLOCK)
#define VH_VIF_SCALE123_BOUNDS __launch_bounds__ (VH_VIF_BLOCK)
#endif

/* The kernels of each scale, per part: one pair (no suffix), the
 * reference's share (_ref), the distorted picture's against it (_dis). */
#define VH_VIF_KERNELS(suffix, part, scale0_bounds) \
  VH_KERNEL void scale0_bounds \
  vh_vif_scale0_8bit##suffix (VhVifLevelParams p) \
  { \
    __shared__ TileShared sm; \
    vif_level<VH_VIF_HALF_S0, VH_VIF_HALF_S1, uint8_t, part> (p, sm); \
  } \
  VH_KERNEL void scale0_bounds \
  vh_vif_scale0_16bit##suffix (VhVifLevelParams p) \
  { \
    __shared__ TileShared sm; \
    vif_level<VH_VIF_HALF_S0, VH_VIF_HALF_S1, uint16_t, part> (p, sm); \
  } \
  VH_KERNEL void VH_VIF_SCALE123_BOUNDS \
  vh_vif_scale1##suffix (VhVifLevelParams p) \
  { \
    __shared__ TileShared sm; \
    vif_level<VH_VIF_HALF_S1, VH_VIF_HALF_S2, uint16_t, part> (p, sm); \
  } \
  VH_KERNEL void VH_VIF_SCALE123_BOUNDS \
  vh_vif_scale2##suffix (VhVifLevelParams p) \
  { \
    __shared__ TileShared sm; \
    vif_level<VH_VIF_HALF_S2, VH_VIF_HALF_S3, uint16_t, part> (p, sm); \
  } \
  VH_KERNEL void VH_VIF_SCALE123_BOUNDS \
  vh_vif_scale3##suffix (VhVifLevelParams p) \
  { \
    __shared__ TileShared sm; \
    vif_level<VH_VIF_HALF_S3, 0, uint16_t, part> (p, sm); \
  }

VH_VIF_KERNELS (, VH_VIF_PART_PAIR, VH_VIF_SCALE0_BOUNDS)
VH_VIF_KERNELS (_ref, VH_VIF_PART_REF, VH_VIF_SCALE0_PART_BOUNDS)
VH_VIF_KERNELS (_dis, VH_VIF_PART_DIS, VH_VIF_SCALE0_PART_BOUNDS)
