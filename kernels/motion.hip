/* vmafhip — integer motion SAD (libvmaf 3.2.0 `motion`, bit-exact).
 *
 * Σ|blur(prev − cur)| over a luma plane, as vh_motion_sad() in
 * common/features/motion/motion.c computes it: the difference is blurred (vertical pass to
 * the 16-bit scale, horizontal pass to Q0, reflect-101 edges) and |result|
 * summed.  Not libvmaf's CUDA kernel, which still blurs each frame and takes
 * the SAD of the blurred frames (the v3.0 algorithm, other edges).
 *
 * Launch (host side: common/gpu/features/motion-gpu.c):
 *   grid  ceil(width / VH_MOTION_TILE_W) x ceil(height / VH_MOTION_TILE_H)
 *   block VH_MOTION_THREADS x 1 x 1 (exactly), no dynamic shared memory;
 *   *sad zeroed before the launch (the blocks add into it).
 * width, height in [3, VH_MP_MAX_DIM]; pitches in bytes; samples uint8
 * (vh_motion_sad_8, bpc 8) or uint16 (vh_motion_sad_16, bpc 10 or 12,
 * 2-byte aligned). */
#include "vh-hip-compat.h"
#include "motion-device.h"

template <typename pixel_t>
__device__ __forceinline__ void
motion_sad_block (const unsigned char *VH_RESTRICT prev,
    unsigned long long prev_pitch, const unsigned char *VH_RESTRICT cur,
    unsigned long long cur_pitch, int width, int height, int bpc,
    unsigned long long *VH_RESTRICT sad)
{
  /* 16-byte alignment: the horizontal pass reads it as int4. */
  __shared__ __align__ (16)
      int32_t vtile[VH_MOTION_TILE_H * VH_MOTION_VTILE_W];
  __shared__ uint32_t partial[VH_MOTION_THREADS];

  const int tid = (int) threadIdx.x;
  const int x0 = (int) blockIdx.x * VH_MOTION_TILE_W;
  const int y0 = (int) blockIdx.y * VH_MOTION_TILE_H;

  vh_motion_thread_vertical<pixel_t> (prev, (size_t) prev_pitch, cur,
      (size_t) cur_pitch, width, height, bpc, x0, y0, tid, vtile);
  __syncthreads ();
  partial[tid] = vh_motion_thread_horizontal (vtile, width, height, x0, y0,
      tid);
  __syncthreads ();

  /* Tree over the block in shared memory: no assumption on the warp width
   * (32 on NVIDIA, 64 on CDNA).  uint32 is exact: a tile's sum is at most
   * TILE_W·TILE_H·65520 < 2^32 (checked in motion-device.h). */
  VH_MP_UNROLL
  for (int step = VH_MOTION_THREADS / 2; step > 0; step /= 2) {
    if (tid < step)
      partial[tid] += partial[tid + step];
    __syncthreads ();
  }
  if (tid == 0 && partial[0] != 0)
    atomicAdd (sad, (unsigned long long) partial[0]);
}

VH_KERNEL void __launch_bounds__ (VH_MOTION_THREADS)
vh_motion_sad_8 (const unsigned char *VH_RESTRICT prev,
    unsigned long long prev_pitch, const unsigned char *VH_RESTRICT cur,
    unsigned long long cur_pitch, int width, int height, int bpc,
    unsigned long long *VH_RESTRICT sad)
{
  motion_sad_block<uint8_t> (prev, prev_pitch, cur, cur_pitch, width, height,
      bpc, sad);
}

VH_KERNEL void __launch_bounds__ (VH_MOTION_THREADS)
vh_motion_sad_16 (const unsigned char *VH_RESTRICT prev,
    unsigned long long prev_pitch, const unsigned char *VH_RESTRICT cur,
    unsigned long long cur_pitch, int width, int height, int bpc,
    unsigned long long *VH_RESTRICT sad)
{
  motion_sad_block<uint16_t> (prev, prev_pitch, cur, cur_pitch, width,
      height, bpc, sad);
}
