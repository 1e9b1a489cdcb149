/* vmafhip — which backend scores (vh-backend.h). */
#include "vh-backend.h"

#include <string.h>

#include "vh-gpu-backend.h"
#include "gpu-picture.h"
#include "vh-kernel-images.h"

struct VhBackendChoice {
  gint refs;
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

/* The choice's description and summary, from its device */
static void
describe_gpu (VhBackendChoice *c)
{
  const char *vendor = vh_gpu_vendor_name (c->gpu);
  const char *name = vh_gpu_device_name (c->gpu);
  const gboolean named = g_str_has_prefix (name, vendor);
  c->description = g_strdup_printf ("hip: %s %s (%s), device %d", vendor,
      name, vh_gpu_arch (c->gpu), vh_gpu_device_id (c->gpu));
  c->summary = g_strdup_printf ("Scoring on the GPU (HIP, device %d: "
      "%s%s%s, %s)", vh_gpu_device_id (c->gpu), named ? "" : vendor,
      named ? "" : " ", name, vh_gpu_arch (c->gpu));
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
  c->refs = 1;
  c->kind = kind;
  c->gpu = gpu;
  if (gpu) {
    describe_gpu (c);
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

VhBackendChoice *
vh_backend_choice_ref (VhBackendChoice *c)
{
  g_atomic_int_inc (&c->refs);
  return c;
}

void
vh_backend_choice_unref (VhBackendChoice *c)
{
  if (!c || !g_atomic_int_dec_and_test (&c->refs))
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

/* ---- the front ends' GPU buffers ---- */

gboolean
vh_backend_choice_is_nvidia (const VhBackendChoice *c)
{
  return c->gpu && vh_gpu_vendor (c->gpu) == VH_GPU_VENDOR_NVIDIA;
}

int
vh_backend_choice_device_id (const VhBackendChoice *c)
{
  return c->gpu ? vh_gpu_device_id (c->gpu) : -1;
}

void *
vh_backend_choice_native_context (const VhBackendChoice *c)
{
  return c->gpu ? vh_gpu_native_context (c->gpu) : NULL;
}

VhBackendChoice *
vh_backend_open_nvidia (int device_id, const VhConfig *config,
    GError **error)
{
  if (config)
    vh_gpu_use_config (config);
  VhGpu *gpu = vh_gpu_acquire (VH_GPU_VENDOR_NVIDIA, MAX (device_id, 0),
      error);
  if (!gpu)
    return NULL;
  VhBackendChoice *c = g_new0 (VhBackendChoice, 1);
  c->refs = 1;
  c->kind = VH_BACKEND_HIP;
  c->gpu = gpu;
  describe_gpu (c);
  return c;
}

int
vh_backend_count_gpus (const VhConfig *config)
{
  if (config)
    vh_gpu_use_config (config);
  return MAX (vh_gpu_device_count (VH_GPU_VENDOR_AUTO, NULL), 0);
}

static gboolean
need_gpu (const VhBackendChoice *c, GError **error)
{
  if (c && c->gpu)
    return TRUE;
  g_set_error_literal (error, VH_ERROR, VH_ERROR_GPU,
      "no GPU chosen (the CPU scores)");
  return FALSE;
}

void *
vh_backend_host_alloc (const VhBackendChoice *c, size_t size, GError **error)
{
  return need_gpu (c, error) ? vh_gpu_host_alloc (c->gpu, size, error) : NULL;
}

void
vh_backend_host_free (const VhBackendChoice *c, void *block)
{
  if (c && c->gpu)
    vh_gpu_host_free (c->gpu, block);
}

VhBackendImport *
vh_backend_import_dmabuf (const VhBackendChoice *c, int fd, size_t size,
    GError **error)
{
  return need_gpu (c, error) ? vh_gpu_import_dmabuf (c->gpu, fd, size, error)
      : NULL;
}

void
vh_backend_import_free (VhBackendImport *import)
{
  vh_gpu_import_free (import);
}

gboolean
vh_backend_import_is_on (const VhBackendImport *import,
    const VhBackendChoice *c)
{
  return import && c && c->gpu && vh_gpu_import_device (import) == c->gpu;
}

uint64_t
vh_backend_import_address (const VhBackendImport *import)
{
  return vh_gpu_import_address (import);
}

VhBackendPicture *
vh_backend_picture_new (const VhBackendChoice *c)
{
  return c && c->gpu ? vh_gpu_picture_new (c->gpu) : NULL;
}

void
vh_backend_picture_free (VhBackendPicture *picture)
{
  vh_gpu_picture_free (picture);
}

VhBackendSharer *
vh_backend_sharer_new (const VhBackendChoice *c)
{
  return c && c->gpu ? vh_gpu_sharer_new (c->gpu) : NULL;
}

void
vh_backend_sharer_free (VhBackendSharer *sharer)
{
  vh_gpu_sharer_free (sharer);
}

void
vh_backend_picture_set_shared (VhBackendPicture *picture,
    VhBackendSharer *sharer)
{
  vh_gpu_picture_set_shared (picture, sharer);
}

gboolean
vh_backend_picture_upload (VhBackendPicture *picture,
    const VhBackendPicture *prev, const VhPicture *host, unsigned nplanes,
    VhPicture *out, GError **error)
{
  return vh_gpu_picture_upload_after (picture, prev, host, nplanes, out,
      error);
}
