/* vmafhip — dlopen helpers shared by the AMD and NVIDIA loaders. */
#include "vh-gpu-funcs.h"
#include "vh-config.h"

#include <dlfcn.h>
#include <string.h>

/* vh_gpu_set_runtime_library's, per vendor (interned strings) */
static const char *runtime_library[2], *runtime_origin[2];
G_LOCK_DEFINE_STATIC (runtime);

static unsigned
vendor_slot (VhGpuVendor vendor)
{
  return vendor == VH_GPU_VENDOR_NVIDIA ? 1 : 0;
}

void
vh_gpu_set_runtime_library (VhGpuVendor vendor, const char *library,
    const char *origin)
{
  G_LOCK (runtime);
  runtime_library[vendor_slot (vendor)] = library && *library
      ? g_intern_string (library) : NULL;
  runtime_origin[vendor_slot (vendor)] = g_intern_string (origin);
  G_UNLOCK (runtime);
}

void
vh_gpu_use_config (const VhConfig *config)
{
  vh_gpu_set_runtime_library (VH_GPU_VENDOR_AMD, config->hip_library,
      "VhConfig hip_library (VMAFHIP_HIP_LIBRARY)");
  vh_gpu_set_runtime_library (VH_GPU_VENDOR_NVIDIA, config->cuda_library,
      "VhConfig cuda_library (VMAFHIP_CUDA_LIBRARY)");
}

void *
vh_gpu_open_library (VhGpuVendor vendor, const char *const *candidates,
    const char **loaded_name, GString *why)
{
  G_LOCK (runtime);
  const char *override = runtime_library[vendor_slot (vendor)];
  const char *origin = runtime_origin[vendor_slot (vendor)];
  G_UNLOCK (runtime);
  const char *only[2] = { override, NULL };
  const char *const *names = (override && *override) ? only : candidates;
  GString *reasons = g_string_new (NULL);
  GString *tried = g_string_new (NULL);

  for (unsigned int i = 0; names[i]; i++) {
    /* RTLD_LOCAL: the vendor's symbols must not leak into the process
     * namespace (another plugin may load a different version). */
    void *handle = dlopen (names[i], RTLD_NOW | RTLD_LOCAL);
    if (handle) {
      *loaded_name = g_intern_string (names[i]);
      g_string_free (reasons, TRUE);
      g_string_free (tried, TRUE);
      return handle;
    }
    const char *err = dlerror ();
    g_string_append_printf (tried, "%s%s", tried->len ? ", " : "", names[i]);
    /* "not found" is the expected case; anything else (a missing dependency,
     * a wrong architecture) is worth quoting. */
    if (err && !strstr (err, "No such file or directory"))
      g_string_append_printf (reasons, "; %s", err);
  }

  g_string_append_printf (why, "no library loaded (tried %s%s%s)%s", tried->str,
      override && origin ? ", from " : "", override && origin ? origin : "",
      reasons->str);
  g_string_free (reasons, TRUE);
  g_string_free (tried, TRUE);
  return NULL;
}

gboolean
vh_gpu_resolve_symbols (void *handle, const char *library,
    const VhGpuSymbol *symbols, size_t n_symbols, GString *why)
{
  for (size_t i = 0; i < n_symbols; i++) {
    void *address = dlsym (handle, symbols[i].name);
    if (!address && symbols[i].fallback)
      address = dlsym (handle, symbols[i].fallback);
    if (!address) {
      g_string_append_printf (why, "%s has no symbol %s (too old?)", library,
          symbols[i].name);
      return FALSE;
    }
    *symbols[i].slot = address;
  }
  return TRUE;
}

void
vh_gpu_name_calls (const char **call_names, const VhGpuCallName *calls,
    size_t n_calls, const VhGpuSymbol *symbols, size_t n_symbols)
{
  for (size_t i = 0; i < n_calls; i++) {
    const char *name = calls[i].text;
    for (size_t k = 0; calls[i].slot && k < n_symbols; k++)
      if (symbols[k].slot == calls[i].slot)
        name = symbols[k].name;
    call_names[calls[i].call] = name ? name : "(unknown)";
  }
}
