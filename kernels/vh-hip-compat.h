/* vmafhip — the one header every kernel source (.hip) includes.
 *
 * The same .hip file is compiled by two compilers:
 *   - Debian's hipcc (HIP-Clang, AMD code objects): it defines __HIP__ and the
 *     file must include <hip/hip_runtime.h> itself; clang-19 compiles the
 *     same for the AMD targets Debian's device libraries lack, with
 *     vh-amd-device-shim.h standing in for those libraries;
 *   - nvcc -x cu (NVIDIA fatbin): CUDA's own built-ins are used, and the HIP
 *     headers must stay out of sight (Debian's HIP 5.2 NVIDIA headers do not
 *     compile against CUDA 13).
 * threadIdx, blockIdx, blockDim, gridDim, __syncthreads, atomicAdd and
 * warpSize have the same names and meaning in both.  warpSize is a device
 * built-in (32 on NVIDIA, 64 on CDNA/GCN, 32 or 64 on RDNA): never write 32. */
#ifndef VH_HIP_COMPAT_H
#define VH_HIP_COMPAT_H

#if defined(__HIP__)
#include <hip/hip_runtime.h>
#include "vh-amd-device-shim.h"
#define VH_GPU_AMD 1
#elif defined(__CUDACC__)
#define VH_GPU_NVIDIA 1
#else
#error "vh-hip-compat.h: compile kernels with hipcc (AMD) or nvcc -x cu (NVIDIA)"
#endif

/* Kernels are looked up by name at run time (module get-function), so they
 * need C linkage: no C++ name mangling, same name for both vendors. */
#define VH_KERNEL extern "C" __global__

#define VH_RESTRICT __restrict__

#endif /* VH_HIP_COMPAT_H */
