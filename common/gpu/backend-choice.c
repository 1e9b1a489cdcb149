/* vmafhip — which backend scores (vh-backend.h). */
#include "vh-backend.h"

#include <string.h>

#include "vh-gpu-backend.h"
#include "vh-kernel-images.h"

struct VhBackendChoice {
  VhBackendKind kind;           /* what was asked */
  VhGpu *gpu;                   /* a reference on the shared handle */
  gchar *description, *summary, *fallback;
};

gboolean
vh_backend_kind_from_string (const char *name, VhBackendKind *kind)
{
  static const char *const names[] = { "auto", "cpu", "hip" };
  for (unsigned i = 0; name && i < G_N_ELEMENTS (names); i++)
    if (!strcmp (name, names[i])) {
      *kind = (VhBackendKind) i;
      return TRUE;
    }
  return FALSE;
}

/* The process's shared handle on the device, proven to run this build's
 * kernels by loading one module. */
static VhGpu *
open_working_gpu (int device_id, GError **error)
{
  VhGpu *gpu = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, MAX (device_id, 0),
      error);
  if (!gpu)
    return NULL;
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_motion,
      error);
  if (!module) {
    vh_gpu_close (gpu);
    return NULL;
  }
  vh_gpu_module_free (module);
  return gpu;
}

VhBackendChoice *
vh_backend_choose (VhBackendKind kind, int device_id, const VhConfig *config,
    GError **error)
{
  GError *gpu_error = NULL;
  VhGpu *gpu = NULL;

  if (kind > VH_BACKEND_HIP) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "backend %d: not auto, cpu or hip", (int) kind);
    return NULL;
  }
  if (config)
    vh_gpu_use_config (config);
  if (kind != VH_BACKEND_CPU)
    gpu = open_working_gpu (device_id, &gpu_error);
  if (!gpu && kind == VH_BACKEND_HIP) {
    /* why there is none; the caller names its own option in the fix */
    g_propagate_error (error, gpu_error);
    return NULL;
  }

  VhBackendChoice *c = g_new0 (VhBackendChoice, 1);
  c->kind = kind;
  c->gpu = gpu;
  if (gpu) {
    const char *vendor = vh_gpu_vendor_name (gpu);
    const char *name = vh_gpu_device_name (gpu);
    const gboolean named = g_str_has_prefix (name, vendor);
    c->description = g_strdup_printf ("hip: %s %s (%s), device %d", vendor,
        name, vh_gpu_arch (gpu), vh_gpu_device_id (gpu));
    c->summary = g_strdup_printf ("Scoring on the GPU (HIP, device %d: "
        "%s%s%s, %s)", vh_gpu_device_id (gpu), named ? "" : vendor,
        named ? "" : " ", name, vh_gpu_arch (gpu));
  } else {
    c->description = g_strdup ("cpu");
    c->summary = g_strdup (kind == VH_BACKEND_CPU
        ? "Scoring on the CPU (backend=cpu)"
        : "Scoring on the CPU (backend=auto, no usable GPU)");
    if (gpu_error)
      c->fallback = g_strdup (gpu_error->message);
  }
  g_clear_error (&gpu_error);
  return c;
}

void
vh_backend_choice_free (VhBackendChoice *c)
{
  if (!c)
    return;
  g_clear_pointer (&c->gpu, vh_gpu_close);
  g_free (c->description);
  g_free (c->summary);
  g_free (c->fallback);
  g_free (c);
}

gboolean
vh_backend_choice_is_gpu (const VhBackendChoice *c)
{
  return c->gpu != NULL;
}

const char *
vh_backend_choice_description (const VhBackendChoice *c)
{
  return c->description;
}

const char *
vh_backend_choice_summary (const VhBackendChoice *c)
{
  return c->summary;
}

const char *
vh_backend_choice_fallback (const VhBackendChoice *c)
{
  return c->fallback;
}

VhGpu *
vh_backend_choice_gpu (const VhBackendChoice *c)
{
  return c->gpu;
}

gboolean
vh_backend_choice_attach (const VhBackendChoice *c, VhEngine *engine,
    unsigned slots, GError **error)
{
  if (!c->gpu)
    return TRUE;
  /* the backend holds its own reference on the shared device */
  VhGpuBackend *backend = vh_gpu_backend_new (vh_gpu_ref (c->gpu), slots,
      error);
  return backend && vh_engine_set_accelerator (engine, &vh_gpu_backend_ops,
      backend, error);
}
