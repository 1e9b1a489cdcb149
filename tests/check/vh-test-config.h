/* vmafhip — tests take the engine's settings from the environment as the
 * tools do (vh_config_load_environment, the one reader): the SIMD cap
 * (VMAFHIP_CPU_SIMD, applied here), the GPU runtime (VMAFHIP_HIP_LIBRARY
 * naming the mock; a GPU test hands the config to vh_gpu_use_config), the
 * kernels' choices (vh_engine_set_config). */
#ifndef VH_TEST_CONFIG_H
#define VH_TEST_CONFIG_H

#include "vh-config.h"

static inline void
vh_test_config_load (VhConfig *config)
{
  vh_config_init (config);
  vh_config_load_environment (config);
  vh_config_apply_cpu (config);
}

/* VMAFHIP_CPU_SIMD set to `value` (NULL: unset, no cap), read through the
 * config loader and applied as the process's SIMD cap: the whole chain a
 * tool or the plugin takes */
static inline void
vh_test_set_simd_env (const char *value)
{
  VhConfig config;
  if (value)
    g_setenv ("VMAFHIP_CPU_SIMD", value, TRUE);
  else
    g_unsetenv ("VMAFHIP_CPU_SIMD");
  vh_test_config_load (&config);
  vh_config_clear (&config);
}

#endif /* VH_TEST_CONFIG_H */
