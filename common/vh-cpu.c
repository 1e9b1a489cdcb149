/* vmafhip — which hand-written SIMD the CPU code may use (vh-cpu.h). */
#include "vh-cpu.h"

#include <glib.h>

VhCpuSimd
vh_cpu_simd_detected (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512cd")
      && __builtin_cpu_supports ("avx512dq")
      && __builtin_cpu_supports ("avx512vl")
      && __builtin_cpu_supports ("avx512bw"))
    return VH_CPU_SIMD_AVX512;
  if (__builtin_cpu_supports ("avx2"))
    return VH_CPU_SIMD_AVX2;
#endif
  return VH_CPU_SIMD_NONE;
}

/* the cap VMAFHIP_CPU_SIMD sets */
static VhCpuSimd
simd_cap (void)
{
  const char *simd = g_getenv ("VMAFHIP_CPU_SIMD");
  if (simd && !g_strcmp0 (simd, "0"))
    return VH_CPU_SIMD_NONE;
  if (simd && !g_ascii_strcasecmp (simd, "avx2"))
    return VH_CPU_SIMD_AVX2;
  return VH_CPU_SIMD_AVX512;
}

VhCpuSimd
vh_cpu_simd_level (void)
{
  return MIN (simd_cap (), vh_cpu_simd_detected ());
}

int
vh_cpu_has_avx512_vnni (void)
{
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init ();
  return vh_cpu_simd_detected () == VH_CPU_SIMD_AVX512
      && __builtin_cpu_supports ("avx512vnni");
#else
  return 0;
#endif
}

int
vh_cpu_neon_allowed (void)
{
#if defined(__aarch64__) && defined(__ARM_NEON)
  return simd_cap () != VH_CPU_SIMD_NONE;
#else
  return 0;
#endif
}
