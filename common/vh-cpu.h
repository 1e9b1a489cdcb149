/* vmafhip — which hand-written SIMD the CPU code may use.
 *
 * VMAFHIP_CPU_SIMD in the environment caps it for every kernel alike:
 * "0" takes the plain C everywhere, "avx2" at most AVX2 (to test that
 * path on an AVX-512 machine); unset or anything else, the best the CPU
 * has.  Each kernel still checks the CPU for its own instructions. */
#ifndef VH_CPU_H
#define VH_CPU_H

typedef enum {
  VH_CPU_SIMD_NONE = 0,
  VH_CPU_SIMD_AVX2 = 1,
  VH_CPU_SIMD_AVX512 = 2,
} VhCpuSimd;

VhCpuSimd vh_cpu_simd_allowed (void);

#endif /* VH_CPU_H */
