/* vmafhip — which hand-written SIMD the CPU code may use.
 *
 * The CPU's level: AVX-512 where it has F, CD, DQ, VL and BW (the
 * x86-64-v4 set, which VH_MULTIVERSION's clones assume too), else AVX2,
 * else none.  vh_cpu_set_simd_cap caps it for every kernel alike (the
 * VhConfig's simd_cap, VMAFHIP_CPU_SIMD for the tools and tests):
 * VH_CPU_SIMD_NONE takes the plain C everywhere, VH_CPU_SIMD_AVX2 at most
 * AVX2 (to test that path on an AVX-512 machine).  On aarch64
 * VH_CPU_SIMD_NONE also turns off the NEON kernels. */
#ifndef VH_CPU_H
#define VH_CPU_H

typedef enum {
  VH_CPU_SIMD_NONE = 0,
  VH_CPU_SIMD_AVX2 = 1,
  VH_CPU_SIMD_AVX512 = 2,
  VH_CPU_SIMD_NEON = 1,         /* aarch64: every such CPU has it */
} VhCpuSimd;

/* what the CPU runs, not capped (tests run every version it has) */
VhCpuSimd vh_cpu_simd_detected (void);
/* the level the kernels use: detected, capped by vh_cpu_set_simd_cap */
VhCpuSimd vh_cpu_simd_level (void);
/* Caps the level for the whole process (kernels choose their version when
 * their work is made: set it before).  VH_CPU_SIMD_AVX512: no cap. */
void vh_cpu_set_simd_cap (VhCpuSimd cap);
/* AVX-512 VNNI (vpdpwssd), besides the AVX-512 level */
int vh_cpu_has_avx512_vnni (void);

/* A kernel's hand-written versions, best first, ended by one with impl
 * NULL: impl is the kernel's own description of a version (a table of
 * its functions, or a name and a function), level and vnni what it needs
 * of the CPU.  One rule for every kernel's choice. */
typedef struct {
  const void *impl;
  VhCpuSimd level;
  int vnni;
} VhCpuVersion;

/* The versions this CPU runs, not capped (the tests run each), into out
 * (at most max): their count. */
unsigned vh_cpu_versions_all (const VhCpuVersion *versions,
    const void **out, unsigned max);
/* The first version within vh_cpu_simd_level (), or NULL: the plain C. */
const void *vh_cpu_versions_best (const VhCpuVersion *versions);

#endif /* VH_CPU_H */
