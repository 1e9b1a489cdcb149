/* vmafhip — the engine's settings, and their one reader of the
 * environment (vh-config.h). */
#include "vh-config.h"

void
vh_config_init (VhConfig *config)
{
  *config = (VhConfig) {
    .simd_cap = VH_CPU_SIMD_AVX512,
    .cpu_row_bands = TRUE,
    .gpu_scale = TRUE,
    .ciede_lab_table = TRUE,
    .ms_ssim_gpu_fast = FALSE,
  };
}

/* "0" turns a default-on switch off; anything else (or unset) leaves it */
static gboolean
switch_on (const char *name, gboolean value)
{
  const char *v = g_getenv (name);
  return v ? g_strcmp0 (v, "0") != 0 : value;
}

static void
take_path (gchar **slot, const char *name)
{
  const char *v = g_getenv (name);
  if (v && *v) {
    g_free (*slot);
    *slot = g_strdup (v);
  }
}

void
vh_config_load_environment (VhConfig *config)
{
  take_path (&config->hip_library, "VMAFHIP_HIP_LIBRARY");
  take_path (&config->cuda_library, "VMAFHIP_CUDA_LIBRARY");
  const char *simd = g_getenv ("VMAFHIP_CPU_SIMD");
  if (simd && !g_strcmp0 (simd, "0"))
    config->simd_cap = VH_CPU_SIMD_NONE;
  else if (simd && !g_ascii_strcasecmp (simd, "avx2"))
    config->simd_cap = VH_CPU_SIMD_AVX2;
  config->cpu_row_bands = switch_on ("VMAFHIP_CPU_BANDS",
      config->cpu_row_bands);
  config->gpu_scale = switch_on ("VMAFHIP_GPU_SCALE", config->gpu_scale);
  config->ciede_lab_table = switch_on ("VMAFHIP_CIEDE_TABLE",
      config->ciede_lab_table);
  const char *fast = g_getenv ("VMAFHIP_MS_SSIM_FAST");
  if (fast)
    config->ms_ssim_gpu_fast = g_strcmp0 (fast, "0") && *fast;
  const char *stagers = g_getenv ("VMAFHIP_GPU_STAGERS");
  if (stagers && *stagers)
    config->gpu_stagers = (unsigned) MIN (g_ascii_strtoull (stagers, NULL,
            10), 64);
  const char *shared = g_getenv ("VMAFHIP_SHARED_REFERENCE");
  if (shared)
    config->share_reference = !g_strcmp0 (shared, "1");
}

void
vh_config_copy (VhConfig *dest, const VhConfig *src)
{
  if (dest == src)
    return;
  vh_config_clear (dest);
  *dest = *src;
  dest->hip_library = g_strdup (src->hip_library);
  dest->cuda_library = g_strdup (src->cuda_library);
}

void
vh_config_clear (VhConfig *config)
{
  g_clear_pointer (&config->hip_library, g_free);
  g_clear_pointer (&config->cuda_library, g_free);
}

void
vh_config_apply_cpu (const VhConfig *config)
{
  vh_cpu_set_simd_cap (config->simd_cap);
}
