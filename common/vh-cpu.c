/* vmafhip — which hand-written SIMD the CPU code may use (vh-cpu.h). */
#include "vh-cpu.h"

#include <glib.h>

VhCpuSimd
vh_cpu_simd_allowed (void)
{
  const char *simd = g_getenv ("VMAFHIP_CPU_SIMD");
  if (simd && !g_strcmp0 (simd, "0"))
    return VH_CPU_SIMD_NONE;
  if (simd && !g_ascii_strcasecmp (simd, "avx2"))
    return VH_CPU_SIMD_AVX2;
  return VH_CPU_SIMD_AVX512;
}
