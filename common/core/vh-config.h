/* vmafhip — the engine's settings that are not a feature's options.
 *
 * Which GPU runtime to load, how far the CPU code may go, and which GPU
 * kernels a feature takes.  Library code takes these as arguments (a
 * VhConfig handed to vh_engine_set_config, the process-wide setters named
 * below); vh_config_load_environment is the one place that reads them from
 * the environment, for the tools, the tests and the plugin (docs/engine.md,
 * *Environment*).  None of them changes a score: every choice gives the
 * CPU's results. */
#ifndef VH_CONFIG_H
#define VH_CONFIG_H

#include <glib.h>

#include "vh-cpu.h"

G_BEGIN_DECLS

typedef struct VhConfig {
  /* the GPU runtime to load instead of the system's (NULL: search the
   * usual names; vh_gpu_set_runtime_library) */
  gchar *hip_library;
  gchar *cuda_library;
  /* the highest hand-written SIMD the CPU code uses (vh_cpu_set_simd_cap);
   * VH_CPU_SIMD_AVX512: all the CPU has */
  VhCpuSimd simd_cap;
  /* extractors with row bands split a frame's rows over the engine's
   * threads (FALSE: one thread a feature, to measure what bands bring) */
  gboolean cpu_row_bands;
  /* distorted pictures of another size are scaled on the GPU where every
   * feature runs there (FALSE: on the CPU, the benchmarks' baseline) */
  gboolean gpu_scale;
  /* GPU CIEDE2000 converts 8-bit samples through a Lab table (FALSE:
   * every pixel converted; the same results) */
  gboolean ciede_lab_table;
  /* GPU MS-SSIM's faster kernels, within 2e-6 of the CPU instead of
   * equal to it (FALSE, the default: equal) */
  gboolean ms_ssim_gpu_fast;
  /* the element shares a reference between its renditions on the GPU
   * whatever its share-reference property says (the test suites' switch) */
  gboolean share_reference;
  /* threads that copy host pictures into the GPU backend's pinned staging,
   * the pushing thread included (0: one a CPU, at most 4) */
  unsigned gpu_stagers;
} VhConfig;

/* The defaults: the system's runtimes, all the CPU has, row bands, GPU
 * scaling, the CIEDE2000 table, the exact MS-SSIM kernels. */
void vh_config_init (VhConfig *config);
/* Reads VMAFHIP_HIP_LIBRARY, VMAFHIP_CUDA_LIBRARY, VMAFHIP_CPU_SIMD ("0":
 * plain C, "avx2": at most AVX2), VMAFHIP_CPU_BANDS=0, VMAFHIP_GPU_SCALE=0,
 * VMAFHIP_CIEDE_TABLE=0, VMAFHIP_MS_SSIM_FAST=1 and
 * VMAFHIP_SHARED_REFERENCE=1 over the defaults.  The only reader of the
 * environment in the engine and the plugin. */
void vh_config_load_environment (VhConfig *config);
void vh_config_copy (VhConfig *dest, const VhConfig *src);
void vh_config_clear (VhConfig *config);
/* Applies the process-wide CPU setting (vh_cpu_set_simd_cap). */
void vh_config_apply_cpu (const VhConfig *config);

G_END_DECLS

#endif /* VH_CONFIG_H */
