/* vmafhip — the plane scaler on the GPU (issue 15: renditions scaled to
 * the reference's size before scoring), bit-exact with vh_scaler_run
 * (common/core/scale.c); the arithmetic is kernels/scale-device.h.
 *
 * Launch (host side: common/gpu/features/scale-gpu.c), both with one VhScaleParams
 * by value and blocks of VH_SCALE_BLOCK_W x VH_SCALE_BLOCK_H threads:
 *   vh_scale_h_8 / _16            grid ⌈dst_w / W⌉ x ⌈rows / H⌉: the
 *                                 intermediate, one sample a thread;
 *   vh_scale_v_8 / _16 / _16_wide grid ⌈dst_w / W⌉ x ⌈dst_h / H⌉, after
 *                                 it on the same stream: the output.
 * _8: 8-bit samples; _16: uint16 samples (9 to 16 bits), the vertical
 * _16 summing in int32 (up to 12 bits), _16_wide in int64 (13 to 16
 * bits), as the CPU does. */
#include "vh-hip-compat.h"
#include "scale-device.h"

static_assert (sizeof (VhScaleParams) == VH_SCALE_PARAMS_SIZE,
    "VhScaleParams layout is shared with common/gpu/features/scale-gpu.c");

#define THREADS (VH_SCALE_BLOCK_W * VH_SCALE_BLOCK_H)

/* A copy of the parameters in registers: the device functions take a
 * pointer, and a kernel parameter's address would be local memory. */
template <int BYTES>
__device__ __forceinline__ void
h_pass (const VhScaleParams &params)
{
  const VhScaleParams p = params;
  vh_scale_h_thread (&p, BYTES == 1, blockIdx.x * blockDim.x + threadIdx.x,
      blockIdx.y * blockDim.y + threadIdx.y);
}

template <int BYTES, int WIDE>
__device__ __forceinline__ void
v_pass (const VhScaleParams &params)
{
  const VhScaleParams p = params;
  vh_scale_v_thread (&p, BYTES == 1, WIDE, blockIdx.x * blockDim.x
      + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y);
}

VH_KERNEL void __launch_bounds__ (THREADS)
vh_scale_h_8 (VhScaleParams p)
{
  h_pass<1> (p);
}

VH_KERNEL void __launch_bounds__ (THREADS)
vh_scale_h_16 (VhScaleParams p)
{
  h_pass<2> (p);
}

VH_KERNEL void __launch_bounds__ (THREADS)
vh_scale_v_8 (VhScaleParams p)
{
  v_pass<1, 0> (p);
}

VH_KERNEL void __launch_bounds__ (THREADS)
vh_scale_v_16 (VhScaleParams p)
{
  v_pass<2, 0> (p);
}

VH_KERNEL void __launch_bounds__ (THREADS)
vh_scale_v_16_wide (VhScaleParams p)
{
  v_pass<2, 1> (p);
}
