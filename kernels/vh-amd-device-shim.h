/* vmafhip — the few ROCm device-library functions that HIP 5.2's headers
 * call, for AMD targets whose device libraries Debian lacks (gfx942,
 * gfx11xx, gfx12xx: compiled with clang-19 -nogpulib).
 *
 * Each is written with the compiler's own AMDGPU builtins, so no device
 * library is linked.  Only the build with clang-19 includes this header
 * (it defines VH_AMD_NO_DEVICE_LIBS); hipcc links the real ones. */
#ifndef VH_AMD_DEVICE_SHIM_H
#define VH_AMD_DEVICE_SHIM_H

#if defined(VH_AMD_NO_DEVICE_LIBS)

/* hsa_kernel_dispatch_packet_t: workgroup sizes (16 bits) at bytes 4, 6, 8;
 * grid sizes in work-items (32 bits) at bytes 12, 16, 20. */
static __device__ __forceinline__ unsigned
vh_dispatch_workgroup_size (unsigned dim)
{
  const unsigned short *p =
      (const unsigned short *) __builtin_amdgcn_dispatch_ptr ();
  return p[2 + dim];
}

static __device__ __forceinline__ unsigned
vh_dispatch_grid_size (unsigned dim)
{
  const unsigned *p = (const unsigned *) ((const char *)
      __builtin_amdgcn_dispatch_ptr () + 12);
  return p[dim];
}

extern "C" __device__ size_t
__ockl_get_local_id (unsigned dim)
{
  switch (dim) {
    case 0: return __builtin_amdgcn_workitem_id_x ();
    case 1: return __builtin_amdgcn_workitem_id_y ();
    case 2: return __builtin_amdgcn_workitem_id_z ();
    default: return 0;
  }
}

extern "C" __device__ size_t
__ockl_get_group_id (unsigned dim)
{
  switch (dim) {
    case 0: return __builtin_amdgcn_workgroup_id_x ();
    case 1: return __builtin_amdgcn_workgroup_id_y ();
    case 2: return __builtin_amdgcn_workgroup_id_z ();
    default: return 0;
  }
}

/* HIP launches whole blocks only: the local size is the workgroup size */
extern "C" __device__ size_t
__ockl_get_local_size (unsigned dim)
{
  return dim < 3 ? vh_dispatch_workgroup_size (dim) : 1;
}

extern "C" __device__ size_t
__ockl_get_num_groups (unsigned dim)
{
  if (dim >= 3)
    return 1;
  const unsigned w = vh_dispatch_workgroup_size (dim);
  return (vh_dispatch_grid_size (dim) + w - 1) / w;
}

extern "C" __device__ unsigned
__ockl_clz_u32 (unsigned x)
{
  return x ? (unsigned) __builtin_clz (x) : 32u;
}

extern "C" __device__ unsigned long
__ockl_clz_u64 (unsigned long x)
{
  return x ? (unsigned long) __builtin_clzll (x) : 64ul;
}

/* OpenCL's fence: the builtin wants its order and scope as constants */
#define VH_FENCE(order) \
  do { \
    switch (scope) { \
      case __memory_scope_work_item: break; \
      case __memory_scope_work_group: \
        __builtin_amdgcn_fence (order, "workgroup"); break; \
      case __memory_scope_sub_group: \
        __builtin_amdgcn_fence (order, "wavefront"); break; \
      case __memory_scope_device: \
        __builtin_amdgcn_fence (order, "agent"); break; \
      default: __builtin_amdgcn_fence (order, ""); break; \
    } \
  } while (0)

extern "C" __device__ void
__atomic_work_item_fence (__cl_mem_fence_flags flags, __memory_order order,
    __memory_scope scope)
{
  (void) flags;
  switch (order) {
    case __memory_order_relaxed: break;
    case __memory_order_acquire: VH_FENCE (__ATOMIC_ACQUIRE); break;
    case __memory_order_release: VH_FENCE (__ATOMIC_RELEASE); break;
    case __memory_order_acq_rel: VH_FENCE (__ATOMIC_ACQ_REL); break;
    default: VH_FENCE (__ATOMIC_SEQ_CST); break;
  }
}
#undef VH_FENCE

/* The single-precision math CIEDE2000's kernel calls (log2f for its
 * roots' seeds, rsqrtf for terms that enter scaled down: normal arguments,
 * a few ulps asked for, kernels/ciede-device.h): the hardware's
 * instructions, as on NVIDIA. */
extern "C" __device__ float
__ocml_log2_f32 (float x)
{
  return __builtin_amdgcn_logf (x);
}

extern "C" __device__ float
__ocml_rsqrt_f32 (float x)
{
  return __builtin_amdgcn_rsqf (x);
}

#endif /* VH_AMD_NO_DEVICE_LIBS */
#endif /* VH_AMD_DEVICE_SHIM_H */
