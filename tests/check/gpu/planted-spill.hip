/* A kernel that must spill: test-gpu-resources.py compiles it with the
 * build's clang-19 flags and requires tools/gpu-resources.py to fail the
 * way the build would, naming the kernel.  amdgpu_num_vgpr caps it at 8
 * VGPRs; the 32 values live across the loop need more. */
#include "vh-hip-compat.h"

VH_KERNEL void __launch_bounds__ (256) __attribute__ ((amdgpu_num_vgpr (8)))
vh_planted_spill (const float *in, float *out, unsigned int n)
{
  float v[32];
  for (unsigned int i = 0; i < 32; i++)
    v[i] = in[threadIdx.x * 32 + i];
  for (unsigned int k = 0; k < n; k++)
    for (unsigned int i = 0; i < 32; i++)
      v[i] = v[i] * v[(i + k) & 31] + 1.0f;
  float sum = 0.0f;
  for (unsigned int i = 0; i < 32; i++)
    sum += v[i];
  out[threadIdx.x] = sum;
}
