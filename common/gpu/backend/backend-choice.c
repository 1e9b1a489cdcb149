/* vmafhip — which backend scores (vh-backend.h). */
#include "vh-backend.h"

#include <string.h>

#include "vh-gpu-backend.h"
#include "gpu-picture.h"
#include "vh-kernel-images.h"

typedef struct Placement Placement;

struct VhBackendChoice {
  gint refs;
  VhBackendKind kind;           /* what was asked */
  VhGpu *gpu;                   /* a reference on the shared handle */
  Placement *placement;         /* its share of the device's load */
  gchar *description, *summary, *fallback;
};

/* ---- placement: the load of each device, process-wide ----
 *
 * A choice on a GPU places a stream there: one Placement, held by the
 * choice and by each engine's backend attached through it.  It weighs the
 * number of those engines alive, at least 1 while the choice lives (an
 * element chooses at start, its engines come with the caps): a device's
 * load is the sum over its placements.  device_id VH_DEVICE_AUTO takes the
 * usable device with the least load, the lowest index on a tie. */
struct Placement {
  int refs;                     /* the choice's and its engines' */
  int device;
  int engines;                  /* backends alive */
};

static GMutex placement_lock;
static GPtrArray *placements;   /* live Placement* */

/* placement_lock held */
static Placement *
placement_new (int device)
{
  Placement *p = g_new0 (Placement, 1);
  p->refs = 1;
  p->device = device;
  if (!placements)
    placements = g_ptr_array_new ();
  g_ptr_array_add (placements, p);
  return p;
}

static void
placement_unref (Placement *p)
{
  if (!p)
    return;
  g_mutex_lock (&placement_lock);
  if (--p->refs == 0) {
    g_ptr_array_remove_fast (placements, p);
    g_free (p);
  }
  g_mutex_unlock (&placement_lock);
}

/* an engine's backend freed */
static void
placement_release_engine (gpointer data)
{
  Placement *p = data;
  g_mutex_lock (&placement_lock);
  p->engines--;
  g_mutex_unlock (&placement_lock);
  placement_unref (p);
}

/* placement_lock held */
static int
device_load_locked (int device)
{
  int load = 0;
  for (guint i = 0; placements && i < placements->len; i++) {
    const Placement *p = g_ptr_array_index (placements, i);
    if (p->device == device)
      load += MAX (p->engines, 1);
  }
  return load;
}

int
vh_backend_device_load (int device_id)
{
  g_mutex_lock (&placement_lock);
  const int load = device_load_locked (device_id);
  g_mutex_unlock (&placement_lock);
  return load;
}

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
  VhGpu *gpu = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, device_id, error);
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

/* The devices in the order auto tries them: the least loaded first, the
 * lowest index on a tie (placement_lock held) */
static int *
devices_by_load_locked (int count)
{
  int *order = g_new (int, count), *load = g_new (int, count);
  for (int d = 0; d < count; d++)
    load[d] = device_load_locked (d);
  for (int i = 0; i < count; i++) {
    int k = i;
    order[i] = i;
    /* insertion sort, stable: ties keep the lower index first */
    while (k > 0 && load[order[k - 1]] > load[order[k]]) {
      const int t = order[k - 1];
      order[k - 1] = order[k];
      order[k] = t;
      k--;
    }
  }
  g_free (load);
  return order;
}

/* VH_DEVICE_AUTO: the least-loaded device that works, placed there before
 * the lock is let go (so two choices at once go to two devices); *n_gpus
 * the devices seen */
static VhGpu *
open_least_loaded (Placement **placement, int *n_gpus, GError **error)
{
  GError *count_error = NULL;
  const int count = vh_gpu_device_count (VH_GPU_VENDOR_AUTO, &count_error);
  *n_gpus = count;
  if (count <= 0) {
    if (!count_error)
      g_set_error_literal (&count_error, VH_ERROR, VH_ERROR_GPU,
          "no GPU device found");
    g_propagate_error (error, count_error);
    return NULL;
  }

  VhGpu *gpu = NULL;
  GString *why = g_string_new (NULL);
  g_mutex_lock (&placement_lock);
  int *order = devices_by_load_locked (count);
  for (int i = 0; i < count && !gpu; i++) {
    GError *e = NULL;
    gpu = open_working_gpu (order[i], &e);
    if (gpu)
      *placement = placement_new (order[i]);
    else
      g_string_append_printf (why, "%s%s", why->len ? "; " : "", e->message);
    g_clear_error (&e);
  }
  g_mutex_unlock (&placement_lock);
  g_free (order);
  if (!gpu)
    g_set_error (error, VH_ERROR, VH_ERROR_GPU, "none of the %d GPU%s "
        "works: %s", count, count == 1 ? "" : "s", why->str);
  g_string_free (why, TRUE);
  return gpu;
}

/* The choice's description and summary, from its device (n_gpus > 0: it
 * was placed there by VH_DEVICE_AUTO, the least loaded of n_gpus) */
static void
describe_gpu (VhBackendChoice *c, int n_gpus)
{
  const char *vendor = vh_gpu_vendor_name (c->gpu);
  const char *name = vh_gpu_device_name (c->gpu);
  const gboolean named = g_str_has_prefix (name, vendor);
  gchar *placed = n_gpus > 0 ? g_strdup_printf (" (auto: the least loaded "
      "of %d GPU%s)", n_gpus, n_gpus == 1 ? "" : "s") : g_strdup ("");
  c->description = g_strdup_printf ("hip: %s %s (%s), device %d%s", vendor,
      name, vh_gpu_arch (c->gpu), vh_gpu_device_id (c->gpu), placed);
  c->summary = g_strdup_printf ("Scoring on the GPU (HIP, device %d: "
      "%s%s%s, %s)%s", vh_gpu_device_id (c->gpu), named ? "" : vendor,
      named ? "" : " ", name, vh_gpu_arch (c->gpu), placed);
  g_free (placed);
}

VhBackendChoice *
vh_backend_choose (VhBackendKind kind, int device_id, const VhConfig *config,
    GError **error)
{
  GError *gpu_error = NULL;
  VhGpu *gpu = NULL;
  Placement *placement = NULL;
  int n_gpus = 0;

  if (kind > VH_BACKEND_HIP) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "backend %d: not auto, cpu or hip", (int) kind);
    return NULL;
  }
  if (device_id < VH_DEVICE_AUTO) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "device %d: not a GPU index (0, 1, ...) or auto (-1)", device_id);
    return NULL;
  }
  if (config)
    vh_gpu_use_config (config);
  if (kind != VH_BACKEND_CPU && device_id == VH_DEVICE_AUTO)
    gpu = open_least_loaded (&placement, &n_gpus, &gpu_error);
  else if (kind != VH_BACKEND_CPU) {
    gpu = open_working_gpu (device_id, &gpu_error);
    if (gpu) {
      g_mutex_lock (&placement_lock);
      placement = placement_new (device_id);
      g_mutex_unlock (&placement_lock);
    }
  }
  if (!gpu && kind == VH_BACKEND_HIP) {
    /* why there is none; the caller names its own option in the fix */
    g_propagate_error (error, gpu_error);
    return NULL;
  }

  VhBackendChoice *c = g_new0 (VhBackendChoice, 1);
  c->refs = 1;
  c->kind = kind;
  c->gpu = gpu;
  c->placement = placement;
  if (gpu) {
    describe_gpu (c, n_gpus);
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
  placement_unref (c->placement);
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
  if (!backend)
    return FALSE;
  if (c->placement) {
    /* one more engine on the device, until the backend is freed */
    g_mutex_lock (&placement_lock);
    c->placement->refs++;
    c->placement->engines++;
    g_mutex_unlock (&placement_lock);
    vh_gpu_backend_set_release (backend, placement_release_engine,
        c->placement);
  }
  return vh_engine_set_accelerator (engine, &vh_gpu_backend_ops, backend,
      error);
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
  if (device_id == VH_DEVICE_AUTO) {
    /* the one auto would place a stream on now (no probe, nothing placed) */
    const int count = vh_gpu_device_count (VH_GPU_VENDOR_NVIDIA, NULL);
    g_mutex_lock (&placement_lock);
    int *order = devices_by_load_locked (MAX (count, 1));
    g_mutex_unlock (&placement_lock);
    device_id = order[0];
    g_free (order);
  }
  VhGpu *gpu = vh_gpu_acquire (VH_GPU_VENDOR_NVIDIA, MAX (device_id, 0),
      error);
  if (!gpu)
    return NULL;
  VhBackendChoice *c = g_new0 (VhBackendChoice, 1);
  c->refs = 1;
  c->kind = VH_BACKEND_HIP;
  c->gpu = gpu;
  describe_gpu (c, 0);
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
