/* vmafhip — GPU device layer: the public API over the vendor function table
 * (vh-gpu-funcs.h).  Vendor-neutral: every GPU call goes through gpu->f. */
#include "gpu-private.h"

#include <string.h>

/* ---- errors ------------------------------------------------------------- */

/* "CUDA_ERROR_OUT_OF_MEMORY: out of memory", or the bare number when the
 * vendor does not know the code. */
char *
vh_gpu_describe_status (const VhGpuFuncs *f, int status)
{
  const char *name = f->error_name ? f->error_name (status) : NULL;
  const char *text = f->error_string ? f->error_string (status) : NULL;

  if (name && text && strcmp (name, text) != 0)
    return g_strdup_printf ("%s: %s", name, text);
  if (name)
    return g_strdup (name);
  return g_strdup_printf ("error %d", status);
}

gboolean
vh_gpu_call_ok (const VhGpuFuncs *f, int status, VhGpuCall call, GError **error)
{
  if (status == 0)
    return TRUE;
  char *what = vh_gpu_describe_status (f, status);
  g_set_error (error, VH_ERROR, VH_ERROR_GPU, "%s failed: %s",
      f->call_names[call], what);
  g_free (what);
  return FALSE;
}

/* For the release functions, which return nothing: a failure there is a
 * symptom (usually of an earlier kernel fault), worth a warning only. */
void
vh_gpu_warn_if_failed (const VhGpuFuncs *f, int status, VhGpuCall call)
{
  GError *error = NULL;
  if (!vh_gpu_call_ok (f, status, call, &error)) {
    g_warning ("vmafhip GPU: %s", error->message);
    g_error_free (error);
  }
}

gboolean
vh_gpu_invalid (GError **error, const char *message)
{
  g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

/* ---- device ------------------------------------------------------------- */

gboolean
vh_gpu_make_current (VhGpu *gpu, GError **error)
{
  return vh_gpu_call_ok (gpu->f, gpu->f->context_bind (gpu->device_id, gpu->context),
      VH_GPU_CALL_CONTEXT_BIND, error);
}

/* For the release functions: they cannot report, so they warn. */
gboolean
vh_gpu_make_current_or_warn (VhGpu *gpu)
{
  GError *error = NULL;
  if (vh_gpu_make_current (gpu, &error))
    return TRUE;
  g_warning ("vmafhip GPU: cannot release a resource: %s", error->message);
  g_error_free (error);
  return FALSE;
}

gboolean
vh_gpu_bind (VhGpu *gpu, GError **error)
{
  if (!gpu)
    return vh_gpu_invalid (error, "no GPU (NULL)");
  return vh_gpu_make_current (gpu, error);
}

static const VhGpuFuncs *
load_vendor (VhGpuVendor vendor, GString *why)
{
  return vendor == VH_GPU_VENDOR_AMD ? vh_gpu_load_hip (why) : vh_gpu_load_cuda (why);
}

static gboolean
query_device (VhGpu *gpu, GError **error)
{
  const VhGpuFuncs *f = gpu->f;
  const int id = gpu->device_id;
  static const struct { VhGpuAttribute attr; size_t offset; } attributes[] = {
    { VH_GPU_ATTR_WARP_SIZE, G_STRUCT_OFFSET (VhGpu, warp_size) },
    { VH_GPU_ATTR_MAX_THREADS_PER_BLOCK, G_STRUCT_OFFSET (VhGpu, max_threads_per_block) },
    { VH_GPU_ATTR_MULTIPROCESSOR_COUNT, G_STRUCT_OFFSET (VhGpu, multiprocessor_count) },
    { VH_GPU_ATTR_MAX_SHARED_PER_BLOCK, G_STRUCT_OFFSET (VhGpu, max_shared_per_block) },
  };

  if (!vh_gpu_call_ok (f, f->context_open (id, &gpu->context), VH_GPU_CALL_CONTEXT_OPEN, error))
    return FALSE;
  gpu->context_open = TRUE;
  if (!vh_gpu_make_current (gpu, error))
    return FALSE;
  if (!vh_gpu_call_ok (f, f->device_name (id, gpu->name, sizeof gpu->name),
          VH_GPU_CALL_DEVICE_NAME, error))
    return FALSE;
  gpu->name[sizeof gpu->name - 1] = '\0';
  if (!vh_gpu_call_ok (f, f->device_arch (id, gpu->arch, sizeof gpu->arch),
          VH_GPU_CALL_DEVICE_ARCH, error))
    return FALSE;
  for (unsigned int i = 0; i < G_N_ELEMENTS (attributes); i++) {
    int *value = G_STRUCT_MEMBER_P (gpu, attributes[i].offset);
    if (!vh_gpu_call_ok (f, f->device_attribute (id, attributes[i].attr, value),
            VH_GPU_CALL_DEVICE_ATTRIBUTE, error))
      return FALSE;
  }
  if (!vh_gpu_call_ok (f, f->device_total_mem (id, &gpu->total_memory),
          VH_GPU_CALL_DEVICE_TOTAL_MEM, error))
    return FALSE;
  if (gpu->warp_size != 32 && gpu->warp_size != 64) {
    g_set_error (error, VH_ERROR, VH_ERROR_GPU,
        "%s reports a warp size of %d (32 or 64 expected)", gpu->name, gpu->warp_size);
    return FALSE;
  }
  return TRUE;
}

/* Why one vendor gave no device, for the message of a failed open. */
static int
count_devices (const VhGpuFuncs *f, GString *why)
{
  int count = 0;
  int status = f->init_status;
  VhGpuCall call = VH_GPU_CALL_INIT;

  if (status == 0) {
    status = f->device_count (&count);
    call = VH_GPU_CALL_DEVICE_COUNT;
  }
  if (status != 0) {
    char *what = vh_gpu_describe_status (f, status);
    g_string_append_printf (why, "no device (%s loaded, %s returned %s)",
        f->library, f->call_names[call], what);
    g_free (what);
    return 0;
  }
  if (count <= 0)
    g_string_append_printf (why, "no device (%s loaded, %s found none)",
        f->library, f->call_names[VH_GPU_CALL_DEVICE_COUNT]);
  return MAX (count, 0);
}

static gboolean
valid_vendor (VhGpuVendor vendor, GError **error)
{
  if (vendor == VH_GPU_VENDOR_AUTO || vendor == VH_GPU_VENDOR_AMD
      || vendor == VH_GPU_VENDOR_NVIDIA)
    return TRUE;
  g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
      "unknown GPU vendor %d", (int) vendor);
  return FALSE;
}

/* The vendor to use: the one asked for, or with AUTO the first of AMD and
 * NVIDIA that has a device.  Returns its table and *count (> 0), or NULL
 * and an error that says, per vendor, what was missing. */
static const VhGpuFuncs *
find_vendor (VhGpuVendor vendor, int *count, GError **error)
{
  static const VhGpuVendor auto_order[] = { VH_GPU_VENDOR_AMD, VH_GPU_VENDOR_NVIDIA };
  const VhGpuVendor *vendors = auto_order;
  unsigned int n_vendors = G_N_ELEMENTS (auto_order);
  GString *report = g_string_new (NULL);
  gboolean any_runtime = FALSE;

  if (vendor != VH_GPU_VENDOR_AUTO) {
    vendors = &vendor;
    n_vendors = 1;
  }
  for (unsigned int i = 0; i < n_vendors; i++) {
    GString *why = g_string_new (NULL);
    const VhGpuFuncs *f = load_vendor (vendors[i], why);

    *count = 0;
    if (!f)
      g_string_prepend (why, vendors[i] == VH_GPU_VENDOR_AMD
          ? "no HIP runtime found: " : "no CUDA driver found: ");
    else {
      any_runtime = TRUE;
      *count = count_devices (f, why);
    }
    if (*count > 0) {
      g_string_free (why, TRUE);
      g_string_free (report, TRUE);
      return f;
    }
    g_string_append_printf (report, "%s%s: %s", report->len ? "; " : "",
        vh_gpu_vendor_to_string (vendors[i]), why->str);
    g_string_free (why, TRUE);
  }

  g_set_error (error, VH_ERROR, VH_ERROR_GPU, "no GPU %s found (%s): %s",
      any_runtime ? "device" : "runtime",
      vendor == VH_GPU_VENDOR_AUTO ? "AMD or NVIDIA" : vh_gpu_vendor_to_string (vendor),
      report->str);
  g_string_free (report, TRUE);
  return NULL;
}

int
vh_gpu_device_count (VhGpuVendor vendor, GError **error)
{
  int count = 0;
  if (!valid_vendor (vendor, error) || !find_vendor (vendor, &count, error))
    return 0;
  return count;
}

VhGpu *
vh_gpu_open (VhGpuVendor vendor, int device_id, GError **error)
{
  if (!valid_vendor (vendor, error))
    return NULL;
  if (device_id < -1) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "device-id %d is invalid (-1 for the default device, or 0, 1, ...)", device_id);
    return NULL;
  }
  if (device_id == -1)
    device_id = 0;

  int count = 0;
  const VhGpuFuncs *f = find_vendor (vendor, &count, error);
  if (!f)
    return NULL;
  /* With AUTO, the first vendor with a device is the one: a device-id
   * beyond its devices is an error, not a reason to try the other. */
  const char *vendor_name = vh_gpu_vendor_to_string (f->vendor);
  if (device_id >= count) {
    g_set_error (error, VH_ERROR, VH_ERROR_GPU, "device-id %d but %d %s device%s",
        device_id, count, vendor_name, count == 1 ? "" : "s");
    return NULL;
  }

  VhGpu *gpu = g_new0 (VhGpu, 1);
  gpu->f = f;
  gpu->refcount = 1;
  gpu->device_id = device_id;
  g_mutex_init (&gpu->tables_lock);
  if (!query_device (gpu, error)) {
    g_prefix_error (error, "%s device %d: ", vendor_name, device_id);
    vh_gpu_close (gpu);
    return NULL;
  }
  return gpu;
}

/* Devices handed out by vh_gpu_acquire, one per (vendor, id), and every
 * handle's reference count. */
static GMutex shared_lock;
static GPtrArray *shared_devices;

VhGpu *
vh_gpu_acquire (VhGpuVendor vendor, int device_id, GError **error)
{
  VhGpu *gpu = NULL;

  g_mutex_lock (&shared_lock);
  for (guint i = 0; shared_devices && i < shared_devices->len; i++) {
    VhGpu *g = g_ptr_array_index (shared_devices, i);
    if (g->device_id == MAX (device_id, 0)
        && (vendor == VH_GPU_VENDOR_AUTO || vendor == g->f->vendor)) {
      gpu = g;
      gpu->refcount++;
      break;
    }
  }
  if (!gpu) {
    gpu = vh_gpu_open (vendor, device_id, error);
    if (gpu) {
      gpu->shared = TRUE;
      if (!shared_devices)
        shared_devices = g_ptr_array_new ();
      g_ptr_array_add (shared_devices, gpu);
    }
  }
  g_mutex_unlock (&shared_lock);
  return gpu;
}

VhGpu *
vh_gpu_ref (VhGpu *gpu)
{
  if (!gpu)
    return NULL;
  g_mutex_lock (&shared_lock);
  gpu->refcount++;
  g_mutex_unlock (&shared_lock);
  return gpu;
}

int
vh_gpu_refcount (const VhGpu *gpu)
{
  int n;
  if (!gpu)
    return 0;
  g_mutex_lock (&shared_lock);
  n = gpu->refcount;
  g_mutex_unlock (&shared_lock);
  return n;
}

void
vh_gpu_close (VhGpu *gpu)
{
  gboolean last;

  if (!gpu)
    return;
  g_mutex_lock (&shared_lock);
  last = --gpu->refcount <= 0;
  if (last && gpu->shared)
    g_ptr_array_remove_fast (shared_devices, gpu);
  g_mutex_unlock (&shared_lock);
  if (!last)
    return;
  if (gpu->tables_clear)
    gpu->tables_clear (gpu);
  g_mutex_clear (&gpu->tables_lock);
  if (gpu->context_open)
    vh_gpu_warn_if_failed (gpu->f, gpu->f->context_close (gpu->device_id, gpu->context),
        VH_GPU_CALL_CONTEXT_CLOSE);
  g_free (gpu);
}

VhGpuVendor
vh_gpu_vendor (const VhGpu *gpu)
{
  return gpu ? gpu->f->vendor : VH_GPU_VENDOR_AUTO;
}

const char *
vh_gpu_vendor_name (const VhGpu *gpu)
{
  return gpu ? vh_gpu_vendor_to_string (gpu->f->vendor) : NULL;
}

const char *
vh_gpu_library (const VhGpu *gpu)
{
  return gpu ? gpu->f->library : NULL;
}

int
vh_gpu_device_id (const VhGpu *gpu)
{
  return gpu ? gpu->device_id : -1;
}

void *
vh_gpu_native_context (const VhGpu *gpu)
{
  return gpu ? gpu->context : NULL;
}

const char *
vh_gpu_device_name (const VhGpu *gpu)
{
  return gpu ? gpu->name : NULL;
}

const char *
vh_gpu_arch (const VhGpu *gpu)
{
  return gpu ? gpu->arch : NULL;
}

int
vh_gpu_warp_size (const VhGpu *gpu)
{
  return gpu ? gpu->warp_size : 0;
}

int
vh_gpu_max_threads_per_block (const VhGpu *gpu)
{
  return gpu ? gpu->max_threads_per_block : 0;
}

int
vh_gpu_multiprocessor_count (const VhGpu *gpu)
{
  return gpu ? gpu->multiprocessor_count : 0;
}

size_t
vh_gpu_max_shared_per_block (const VhGpu *gpu)
{
  return gpu ? (size_t) gpu->max_shared_per_block : 0;
}

guint64
vh_gpu_total_memory (const VhGpu *gpu)
{
  return gpu ? gpu->total_memory : 0;
}
