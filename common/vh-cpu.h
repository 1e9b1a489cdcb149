/* vmafhip — which hand-written SIMD the CPU code may use.
 *
 * The CPU's level: AVX-512 where it has F, CD, DQ, VL and BW (the
 * x86-64-v4 set, which VH_MULTIVERSION's clones assume too), else AVX2,
 * else none.  VMAFHIP_CPU_SIMD in the environment caps it for every kernel
 * alike: "0" takes the plain C everywhere, "avx2" at most AVX2 (to test
 * that path on an AVX-512 machine); unset or anything else, no cap.
 * On aarch64 "0" also turns off the NEON kernels. */
#ifndef VH_CPU_H
#define VH_CPU_H

typedef enum {
  VH_CPU_SIMD_NONE = 0,
  VH_CPU_SIMD_AVX2 = 1,
  VH_CPU_SIMD_AVX512 = 2,
} VhCpuSimd;

/* what the CPU runs, not capped (tests run every version it has) */
VhCpuSimd vh_cpu_simd_detected (void);
/* the level the kernels use: detected, capped by VMAFHIP_CPU_SIMD */
VhCpuSimd vh_cpu_simd_level (void);
/* AVX-512 VNNI (vpdpwssd), besides the AVX-512 level */
int vh_cpu_has_avx512_vnni (void);
/* Whether hand-written NEON may run: an aarch64 build (every such CPU
 * has NEON) and VMAFHIP_CPU_SIMD not "0" */
int vh_cpu_neon_allowed (void);

#endif /* VH_CPU_H */
