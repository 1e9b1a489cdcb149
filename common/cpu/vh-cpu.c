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
#elif defined(__aarch64__) && defined(__ARM_NEON)
  return VH_CPU_SIMD_NEON;
#endif
  return VH_CPU_SIMD_NONE;
}

/* no cap until one is set */
static gint simd_cap = VH_CPU_SIMD_AVX512;

void
vh_cpu_set_simd_cap (VhCpuSimd cap)
{
  g_atomic_int_set (&simd_cap, (gint) cap);
}

VhCpuSimd
vh_cpu_simd_level (void)
{
  return MIN ((VhCpuSimd) g_atomic_int_get (&simd_cap),
      vh_cpu_simd_detected ());
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

/* whether version v needs no more than `level` and this CPU runs it */
static int
version_runs (const VhCpuVersion *v, VhCpuSimd level)
{
  return v->level <= level && (!v->vnni || vh_cpu_has_avx512_vnni ());
}

unsigned
vh_cpu_versions_all (const VhCpuVersion *versions, const void **out,
    unsigned max)
{
  unsigned n = 0;
  const VhCpuSimd level = vh_cpu_simd_detected ();
  for (const VhCpuVersion *v = versions; v->impl && n < max; v++)
    if (version_runs (v, level))
      out[n++] = v->impl;
  return n;
}

const void *
vh_cpu_versions_best (const VhCpuVersion *versions)
{
  const VhCpuSimd level = vh_cpu_simd_level ();
  for (const VhCpuVersion *v = versions; v->impl; v++)
    if (version_runs (v, level))
      return v->impl;
  return NULL;
}
