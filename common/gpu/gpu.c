/* vmafhip — GPU device layer: the public API over the vendor function table
 * (vh-gpu-funcs.h).  Vendor-neutral: every GPU call goes through gpu->f. */
#include "vh-gpu-funcs.h"
#include "vh-error.h"

#include <string.h>

struct VhGpu {
  const VhGpuFuncs *f;
  int refcount;             /* under shared_lock */
  gboolean shared;          /* in shared_devices (vh_gpu_acquire) */
  int device_id;
  void *context;            /* CUDA primary context; NULL with HIP */
  gboolean context_open;
  char name[256];
  char arch[64];
  int warp_size;
  int max_threads_per_block;
  int multiprocessor_count;
  int max_shared_per_block;
  size_t total_memory;
};

struct VhGpuStream {
  VhGpu *gpu;
  void *handle;
};

struct VhGpuEvent {
  VhGpu *gpu;
  void *handle;
  gboolean timing;
};

struct VhGpuModule {
  VhGpu *gpu;
  void *handle;
  GPtrArray *functions;     /* VhGpuFunction *, owned */
};

struct VhGpuFunction {
  VhGpuModule *module;
  void *handle;
  char *name;
};

/* ---- errors ------------------------------------------------------------- */

/* "CUDA_ERROR_OUT_OF_MEMORY: out of memory", or the bare number when the
 * vendor does not know the code. */
static char *
describe_status (const VhGpuFuncs *f, int status)
{
  const char *name = f->error_name ? f->error_name (status) : NULL;
  const char *text = f->error_string ? f->error_string (status) : NULL;

  if (name && text && strcmp (name, text) != 0)
    return g_strdup_printf ("%s: %s", name, text);
  if (name)
    return g_strdup (name);
  return g_strdup_printf ("error %d", status);
}

static gboolean
call_ok (const VhGpuFuncs *f, int status, VhGpuCall call, GError **error)
{
  if (status == 0)
    return TRUE;
  char *what = describe_status (f, status);
  g_set_error (error, VH_ERROR, VH_ERROR_GPU, "%s failed: %s",
      f->call_names[call], what);
  g_free (what);
  return FALSE;
}

/* For the release functions, which return nothing: a failure there is a
 * symptom (usually of an earlier kernel fault), worth a warning only. */
static void
warn_if_failed (const VhGpuFuncs *f, int status, VhGpuCall call)
{
  GError *error = NULL;
  if (!call_ok (f, status, call, &error)) {
    g_warning ("vmafhip GPU: %s", error->message);
    g_error_free (error);
  }
}

static gboolean
invalid (GError **error, const char *message)
{
  g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT, message);
  return FALSE;
}

const char *
vh_gpu_vendor_to_string (VhGpuVendor vendor)
{
  switch (vendor) {
    case VH_GPU_VENDOR_AUTO: return "auto";
    case VH_GPU_VENDOR_AMD: return "AMD";
    case VH_GPU_VENDOR_NVIDIA: return "NVIDIA";
  }
  return "unknown";
}

/* ---- device ------------------------------------------------------------- */

static gboolean
make_current (VhGpu *gpu, GError **error)
{
  return call_ok (gpu->f, gpu->f->context_bind (gpu->device_id, gpu->context),
      VH_GPU_CALL_CONTEXT_BIND, error);
}

/* For the release functions: they cannot report, so they warn. */
static gboolean
make_current_or_warn (VhGpu *gpu)
{
  GError *error = NULL;
  if (make_current (gpu, &error))
    return TRUE;
  g_warning ("vmafhip GPU: cannot release a resource: %s", error->message);
  g_error_free (error);
  return FALSE;
}

gboolean
vh_gpu_bind (VhGpu *gpu, GError **error)
{
  if (!gpu)
    return invalid (error, "no GPU (NULL)");
  return make_current (gpu, error);
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

  if (!call_ok (f, f->context_open (id, &gpu->context), VH_GPU_CALL_CONTEXT_OPEN, error))
    return FALSE;
  gpu->context_open = TRUE;
  if (!make_current (gpu, error))
    return FALSE;
  if (!call_ok (f, f->device_name (id, gpu->name, sizeof gpu->name),
          VH_GPU_CALL_DEVICE_NAME, error))
    return FALSE;
  gpu->name[sizeof gpu->name - 1] = '\0';
  if (!call_ok (f, f->device_arch (id, gpu->arch, sizeof gpu->arch),
          VH_GPU_CALL_DEVICE_ARCH, error))
    return FALSE;
  for (unsigned int i = 0; i < G_N_ELEMENTS (attributes); i++) {
    int *value = G_STRUCT_MEMBER_P (gpu, attributes[i].offset);
    if (!call_ok (f, f->device_attribute (id, attributes[i].attr, value),
            VH_GPU_CALL_DEVICE_ATTRIBUTE, error))
      return FALSE;
  }
  if (!call_ok (f, f->device_total_mem (id, &gpu->total_memory),
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
    char *what = describe_status (f, status);
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
  if (gpu->context_open)
    warn_if_failed (gpu->f, gpu->f->context_close (gpu->device_id, gpu->context),
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

/* ---- memory ------------------------------------------------------------- */

static void
set_out_of_memory (VhGpu *gpu, const char *what, size_t size, int status,
    VhGpuCall call, GError **error)
{
  char *human = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
  char *vendor_text = describe_status (gpu->f, status);
  g_set_error (error, VH_ERROR, VH_ERROR_GPU,
      "out of %s: cannot allocate %s (%zu bytes) on %s (%s: %s)", what, human,
      size, gpu->name, gpu->f->call_names[call], vendor_text);
  g_free (vendor_text);
  g_free (human);
}

VhGpuPtr
vh_gpu_mem_alloc (VhGpu *gpu, size_t size, GError **error)
{
  VhGpuPtr ptr = 0;
  if (!gpu)
    return invalid (error, "no GPU (NULL)"), 0;
  if (size == 0)
    return invalid (error, "cannot allocate 0 bytes of GPU memory"), 0;
  if (!make_current (gpu, error))
    return 0;
  int status = gpu->f->mem_alloc (&ptr, size);
  if (status == gpu->f->status_out_of_memory) {
    set_out_of_memory (gpu, "GPU memory", size, status, VH_GPU_CALL_MEM_ALLOC, error);
    return 0;
  }
  if (!call_ok (gpu->f, status, VH_GPU_CALL_MEM_ALLOC, error))
    return 0;
  return ptr;
}

void
vh_gpu_mem_free (VhGpu *gpu, VhGpuPtr ptr)
{
  if (!gpu || !ptr || !make_current_or_warn (gpu))
    return;
  warn_if_failed (gpu->f, gpu->f->mem_free (ptr), VH_GPU_CALL_MEM_FREE);
}

/* ---- pinned-memory registry --------------------------------------------
 * Every live block of vh_gpu_host_alloc, sorted by address (blocks never
 * overlap), so vh_gpu_host_contains is a binary search.  A handful of
 * blocks per pipeline (staging, buffer pools): the O(n) insert is nothing
 * next to the vendor's pinning call it follows. */

typedef struct {
  guintptr start;
  size_t size;
} PinnedBlock;

static GMutex pinned_lock;
static GArray *pinned_blocks;   /* PinnedBlock; NULL while empty */

/* Index of the first block that starts above addr (lock held). */
static guint
pinned_upper_bound (guintptr addr)
{
  guint lo = 0, hi = pinned_blocks ? pinned_blocks->len : 0;
  while (lo < hi) {
    const guint mid = lo + (hi - lo) / 2;
    if (g_array_index (pinned_blocks, PinnedBlock, mid).start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void
pinned_register (void *ptr, size_t size)
{
  const PinnedBlock block = { (guintptr) ptr, size };
  g_mutex_lock (&pinned_lock);
  if (!pinned_blocks)
    pinned_blocks = g_array_new (FALSE, FALSE, sizeof (PinnedBlock));
  g_array_insert_val (pinned_blocks, pinned_upper_bound (block.start), block);
  g_mutex_unlock (&pinned_lock);
}

static void
pinned_unregister (void *ptr)
{
  const guintptr addr = (guintptr) ptr;
  g_mutex_lock (&pinned_lock);
  const guint i = pinned_upper_bound (addr);
  if (i > 0 && g_array_index (pinned_blocks, PinnedBlock, i - 1).start == addr)
    g_array_remove_index (pinned_blocks, i - 1);
  /* freed when empty: nothing outlives the last block (leak checkers) */
  if (pinned_blocks && pinned_blocks->len == 0)
    g_clear_pointer (&pinned_blocks, g_array_unref);
  g_mutex_unlock (&pinned_lock);
}

gboolean
vh_gpu_host_contains (const void *ptr, size_t size)
{
  const guintptr addr = (guintptr) ptr;
  gboolean inside = FALSE;
  if (!ptr || addr + size < addr)
    return FALSE;
  g_mutex_lock (&pinned_lock);
  const guint i = pinned_upper_bound (addr);
  if (i > 0) {
    const PinnedBlock *b = &g_array_index (pinned_blocks, PinnedBlock, i - 1);
    /* addr >= b->start here; the block's end cannot wrap (it was mapped) */
    inside = addr - b->start < b->size && size <= b->size - (addr - b->start);
  }
  g_mutex_unlock (&pinned_lock);
  return inside;
}

void *
vh_gpu_host_alloc (VhGpu *gpu, size_t size, GError **error)
{
  void *ptr = NULL;
  if (!gpu)
    return invalid (error, "no GPU (NULL)"), NULL;
  if (size == 0)
    return invalid (error, "cannot allocate 0 bytes of pinned host memory"), NULL;
  if (!make_current (gpu, error))
    return NULL;
  int status = gpu->f->host_alloc (&ptr, size);
  if (status == gpu->f->status_out_of_memory) {
    set_out_of_memory (gpu, "pinned host memory", size, status,
        VH_GPU_CALL_HOST_ALLOC, error);
    return NULL;
  }
  if (!call_ok (gpu->f, status, VH_GPU_CALL_HOST_ALLOC, error))
    return NULL;
  pinned_register (ptr, size);
  return ptr;
}

void
vh_gpu_host_free (VhGpu *gpu, void *ptr)
{
  if (!gpu || !ptr)
    return;
  /* out of the registry first: once freed, the address may be handed out
   * again (by malloc too) and must not look pinned */
  pinned_unregister (ptr);
  if (!make_current_or_warn (gpu))
    return;
  warn_if_failed (gpu->f, gpu->f->host_free (ptr), VH_GPU_CALL_HOST_FREE);
}

/* ---- streams ------------------------------------------------------------ */

VhGpuStream *
vh_gpu_stream_new (VhGpu *gpu, GError **error)
{
  void *handle = NULL;
  if (!gpu)
    return invalid (error, "no GPU (NULL)"), NULL;
  if (!make_current (gpu, error)
      || !call_ok (gpu->f, gpu->f->stream_create (&handle), VH_GPU_CALL_STREAM_CREATE, error))
    return NULL;
  VhGpuStream *stream = g_new0 (VhGpuStream, 1);
  stream->gpu = gpu;
  stream->handle = handle;
  return stream;
}

void
vh_gpu_stream_free (VhGpuStream *stream)
{
  if (!stream)
    return;
  if (make_current_or_warn (stream->gpu))
    warn_if_failed (stream->gpu->f, stream->gpu->f->stream_destroy (stream->handle),
        VH_GPU_CALL_STREAM_DESTROY);
  g_free (stream);
}

/* Binds the stream's device; FALSE and an error for a NULL stream. */
static gboolean
bind_stream (VhGpuStream *stream, GError **error)
{
  if (!stream)
    return invalid (error, "no GPU stream (NULL)");
  return make_current (stream->gpu, error);
}

gboolean
vh_gpu_stream_sync (VhGpuStream *stream, GError **error)
{
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return call_ok (f, f->stream_sync (stream->handle), VH_GPU_CALL_STREAM_SYNC, error);
}

/* Shared by the stream and event queries: "not ready" is an answer. */
static gboolean
query_result (const VhGpuFuncs *f, int status, VhGpuCall call, gboolean *done,
    GError **error)
{
  if (status == f->status_not_ready) {
    *done = FALSE;
    return TRUE;
  }
  *done = status == 0;
  return call_ok (f, status, call, error);
}

gboolean
vh_gpu_stream_query (VhGpuStream *stream, gboolean *idle, GError **error)
{
  if (!idle)
    return invalid (error, "no result pointer (NULL)");
  *idle = FALSE;
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return query_result (f, f->stream_query (stream->handle), VH_GPU_CALL_STREAM_QUERY,
      idle, error);
}

gboolean
vh_gpu_stream_wait_event (VhGpuStream *stream, VhGpuEvent *event, GError **error)
{
  if (!event)
    return invalid (error, "no GPU event (NULL)");
  if (!bind_stream (stream, error))
    return FALSE;
  if (event->gpu->f != stream->gpu->f)
    return invalid (error, "stream and event belong to different GPU vendors");
  const VhGpuFuncs *f = stream->gpu->f;
  return call_ok (f, f->stream_wait_event (stream->handle, event->handle),
      VH_GPU_CALL_STREAM_WAIT_EVENT, error);
}

/* ---- events ------------------------------------------------------------- */

VhGpuEvent *
vh_gpu_event_new (VhGpu *gpu, gboolean timing, GError **error)
{
  void *handle = NULL;
  if (!gpu)
    return invalid (error, "no GPU (NULL)"), NULL;
  if (!make_current (gpu, error)
      || !call_ok (gpu->f, gpu->f->event_create (&handle, timing),
          VH_GPU_CALL_EVENT_CREATE, error))
    return NULL;
  VhGpuEvent *event = g_new0 (VhGpuEvent, 1);
  event->gpu = gpu;
  event->handle = handle;
  event->timing = timing;
  return event;
}

void
vh_gpu_event_free (VhGpuEvent *event)
{
  if (!event)
    return;
  if (make_current_or_warn (event->gpu))
    warn_if_failed (event->gpu->f, event->gpu->f->event_destroy (event->handle),
        VH_GPU_CALL_EVENT_DESTROY);
  g_free (event);
}

static gboolean
bind_event (VhGpuEvent *event, GError **error)
{
  if (!event)
    return invalid (error, "no GPU event (NULL)");
  return make_current (event->gpu, error);
}

gboolean
vh_gpu_event_record (VhGpuEvent *event, VhGpuStream *stream, GError **error)
{
  if (!bind_event (event, error))
    return FALSE;
  const VhGpuFuncs *f = event->gpu->f;
  return call_ok (f, f->event_record (event->handle, stream ? stream->handle : NULL),
      VH_GPU_CALL_EVENT_RECORD, error);
}

gboolean
vh_gpu_event_sync (VhGpuEvent *event, GError **error)
{
  if (!bind_event (event, error))
    return FALSE;
  const VhGpuFuncs *f = event->gpu->f;
  return call_ok (f, f->event_sync (event->handle), VH_GPU_CALL_EVENT_SYNC, error);
}

gboolean
vh_gpu_event_query (VhGpuEvent *event, gboolean *done, GError **error)
{
  if (!done)
    return invalid (error, "no result pointer (NULL)");
  *done = FALSE;
  if (!bind_event (event, error))
    return FALSE;
  const VhGpuFuncs *f = event->gpu->f;
  return query_result (f, f->event_query (event->handle), VH_GPU_CALL_EVENT_QUERY,
      done, error);
}

gboolean
vh_gpu_event_elapsed_ms (VhGpuEvent *start, VhGpuEvent *end, float *ms,
    GError **error)
{
  if (!start || !end || !ms)
    return invalid (error, "elapsed time needs two events and a result pointer");
  if (!start->timing || !end->timing)
    return invalid (error, "elapsed time needs events made with timing = TRUE");
  if (!bind_event (start, error))
    return FALSE;
  const VhGpuFuncs *f = start->gpu->f;
  return call_ok (f, f->event_elapsed (ms, start->handle, end->handle),
      VH_GPU_CALL_EVENT_ELAPSED, error);
}

/* ---- copies ------------------------------------------------------------- */

gboolean
vh_gpu_copy_h2d_async (VhGpuStream *stream, VhGpuPtr dst, const void *src,
    size_t size, GError **error)
{
  if (size == 0)
    return TRUE;
  if (!dst || !src)
    return invalid (error, "host-to-device copy with a NULL address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return call_ok (f, f->copy_h2d (dst, src, size, stream->handle),
      VH_GPU_CALL_COPY_H2D, error);
}

gboolean
vh_gpu_copy_d2h_async (VhGpuStream *stream, void *dst, VhGpuPtr src,
    size_t size, GError **error)
{
  if (size == 0)
    return TRUE;
  if (!dst || !src)
    return invalid (error, "device-to-host copy with a NULL address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return call_ok (f, f->copy_d2h (dst, src, size, stream->handle),
      VH_GPU_CALL_COPY_D2H, error);
}

gboolean
vh_gpu_copy_d2d_async (VhGpuStream *stream, VhGpuPtr dst, VhGpuPtr src,
    size_t size, GError **error)
{
  if (size == 0)
    return TRUE;
  if (!dst || !src)
    return invalid (error, "device-to-device copy with a NULL address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return call_ok (f, f->copy_d2d (dst, src, size, stream->handle),
      VH_GPU_CALL_COPY_D2D, error);
}

static gboolean
copy_2d (VhGpuStream *stream, const VhGpuCopy2D *copy, GError **error)
{
  if (copy->width_bytes == 0 || copy->height == 0)
    return TRUE;
  if (copy->width_bytes > copy->src_pitch || copy->width_bytes > copy->dst_pitch) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "2-D copy rows of %zu bytes are wider than a pitch (source %zu, "
        "destination %zu)", copy->width_bytes, copy->src_pitch, copy->dst_pitch);
    return FALSE;
  }
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return call_ok (f, f->copy_2d (copy, stream->handle), VH_GPU_CALL_COPY_2D, error);
}

gboolean
vh_gpu_copy2d_h2d_async (VhGpuStream *stream, VhGpuPtr dst, size_t dst_pitch,
    const void *src, size_t src_pitch, size_t width_bytes, size_t height,
    GError **error)
{
  if (!dst || !src)
    return invalid (error, "host-to-device 2-D copy with a NULL address");
  const VhGpuCopy2D copy = {
    .dst_device = dst, .dst_pitch = dst_pitch,
    .src_host = src, .src_pitch = src_pitch,
    .width_bytes = width_bytes, .height = height,
  };
  return copy_2d (stream, &copy, error);
}

gboolean
vh_gpu_copy2d_d2h_async (VhGpuStream *stream, void *dst, size_t dst_pitch,
    VhGpuPtr src, size_t src_pitch, size_t width_bytes, size_t height,
    GError **error)
{
  if (!dst || !src)
    return invalid (error, "device-to-host 2-D copy with a NULL address");
  const VhGpuCopy2D copy = {
    .dst_host = dst, .dst_pitch = dst_pitch,
    .src_device = src, .src_pitch = src_pitch,
    .width_bytes = width_bytes, .height = height,
  };
  return copy_2d (stream, &copy, error);
}

gboolean
vh_gpu_memset_async (VhGpuStream *stream, VhGpuPtr dst, guint8 value,
    size_t size, GError **error)
{
  if (size == 0)
    return TRUE;
  if (!dst)
    return invalid (error, "memset of a NULL device address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return call_ok (f, f->memset_d8 (dst, value, size, stream->handle),
      VH_GPU_CALL_MEMSET_D8, error);
}

gboolean
vh_gpu_memset32_async (VhGpuStream *stream, VhGpuPtr dst, guint32 value,
    size_t count, GError **error)
{
  if (count == 0)
    return TRUE;
  if (!dst || dst % 4 != 0)
    return invalid (error, "32-bit memset needs a 4-byte aligned, non-NULL device address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return call_ok (f, f->memset_d32 (dst, value, count, stream->handle),
      VH_GPU_CALL_MEMSET_D32, error);
}

/* ---- modules ------------------------------------------------------------ */

/* *status is the vendor's result of the load call (0 when it was not
 * reached). */
static VhGpuModule *
load_module (VhGpu *gpu, const void *image, int *status, GError **error)
{
  void *handle = NULL;
  *status = 0;
  if (!make_current (gpu, error))
    return NULL;
  *status = gpu->f->module_load (&handle, image);
  if (!call_ok (gpu->f, *status, VH_GPU_CALL_MODULE_LOAD, error))
    return NULL;
  VhGpuModule *module = g_new0 (VhGpuModule, 1);
  module->gpu = gpu;
  module->handle = handle;
  module->functions = g_ptr_array_new ();
  return module;
}

VhGpuModule *
vh_gpu_module_load_data (VhGpu *gpu, const void *image, GError **error)
{
  int status;
  if (!gpu || !image)
    return invalid (error, "module load needs a GPU and an image (NULL given)"), NULL;
  return load_module (gpu, image, &status, error);
}

/* Parses "sm_86" / "compute_90" into 86 / 90; 0 when it is neither. */
static unsigned int
nvidia_arch_number (const char *target, const char *prefix)
{
  if (!g_str_has_prefix (target, prefix))
    return 0;
  return (unsigned int) g_ascii_strtoull (target + strlen (prefix), NULL, 10);
}

/* Whether the driver can run one of the targets on this device: a cubin of
 * the same major version and a minor no higher (binary compatibility), or
 * PTX of a version no higher (the driver compiles it). */
static gboolean
nvidia_can_run (const char *device_arch, gchar **targets)
{
  const unsigned int device = nvidia_arch_number (device_arch, "sm_");
  if (device == 0)
    return TRUE;  /* unknown: let the driver decide */
  for (unsigned int i = 0; targets[i]; i++) {
    unsigned int cubin = nvidia_arch_number (targets[i], "sm_");
    unsigned int ptx = nvidia_arch_number (targets[i], "compute_");
    if (cubin && cubin / 10 == device / 10 && cubin % 10 <= device % 10)
      return TRUE;
    if (ptx && ptx <= device)
      return TRUE;
  }
  return FALSE;
}

/* AMD code objects run only on their own gfx arch; the bundle's ids may
 * carry target features ("gfx90a:xnack-"), which HIP's loader matches. */
static gboolean
amd_can_run (const char *device_arch, gchar **targets)
{
  if (strcmp (device_arch, "unknown") == 0)
    return TRUE;  /* let the runtime decide */
  for (unsigned int i = 0; targets[i]; i++) {
    size_t base = strcspn (targets[i], ":");
    if (strlen (device_arch) == base && strncmp (targets[i], device_arch, base) == 0)
      return TRUE;
  }
  return FALSE;
}

/* detail: the vendor's refusal, or NULL when we refused before asking. */
static void
set_not_loadable (VhGpu *gpu, const VhGpuImageSet *set, const char *built_for,
    const char *detail, GError **error)
{
  g_set_error (error, VH_ERROR, VH_ERROR_GPU,
      "kernel image not loadable for this GPU (%s; built for %s): kernels \"%s\" "
      "on %s %s%s%s%s", gpu->arch, built_for, set->name, vh_gpu_vendor_name (gpu),
      gpu->name, detail ? " (" : "", detail ? detail : "", detail ? ")" : "");
}

VhGpuModule *
vh_gpu_module_load_embedded (VhGpu *gpu, const VhGpuImageSet *set,
    GError **error)
{
  if (!gpu || !set)
    return invalid (error, "module load needs a GPU and an image set (NULL given)"), NULL;

  const VhGpuImage *image = vh_gpu_image_set_find (set, gpu->f->vendor);
  if (!image) {
    GString *built_for = g_string_new (NULL);
    for (unsigned int i = 0; i < set->n_images; i++)
      g_string_append_printf (built_for, "%s%s %s", built_for->len ? "; " : "",
          vh_gpu_vendor_to_string (set->images[i].vendor), set->images[i].targets);
    if (built_for->len)
      g_string_append_printf (built_for, " only");
    else
      g_string_assign (built_for,
          "no GPU: a CPU-only build, configured without hipcc and nvcc");
    set_not_loadable (gpu, set, built_for->str, NULL, error);
    g_string_free (built_for, TRUE);
    return NULL;
  }

  /* The targets the bytes really hold; the build's list if unreadable. */
  gchar **targets = vh_gpu_image_read_targets (image, NULL);
  if (!targets)
    targets = g_strsplit (image->targets, ",", -1);
  char *built_for = g_strjoinv (", ", targets);
  gboolean can_run = gpu->f->vendor == VH_GPU_VENDOR_AMD
      ? amd_can_run (gpu->arch, targets) : nvidia_can_run (gpu->arch, targets);
  g_strfreev (targets);

  VhGpuModule *module = NULL;
  if (!can_run) {
    set_not_loadable (gpu, set, built_for, NULL, error);
  } else {
    GError *load_error = NULL;
    int status;
    module = load_module (gpu, image->data, &status, &load_error);
    /* The vendor's "no code for this GPU" family gets the same clear
     * message, with the vendor's words after it. */
    if (!module && status != 0
        && (status == gpu->f->status_no_binary || status == gpu->f->status_invalid_image
            || status == gpu->f->status_unsupported_ptx)) {
      set_not_loadable (gpu, set, built_for, load_error->message, error);
      g_error_free (load_error);
    } else if (!module) {
      g_propagate_error (error, load_error);
    }
  }
  g_free (built_for);
  return module;
}

void
vh_gpu_module_free (VhGpuModule *module)
{
  if (!module)
    return;
  for (unsigned int i = 0; i < module->functions->len; i++) {
    VhGpuFunction *fn = module->functions->pdata[i];
    g_free (fn->name);
    g_free (fn);
  }
  g_ptr_array_free (module->functions, TRUE);
  if (make_current_or_warn (module->gpu))
    warn_if_failed (module->gpu->f, module->gpu->f->module_unload (module->handle),
        VH_GPU_CALL_MODULE_UNLOAD);
  g_free (module);
}

VhGpuFunction *
vh_gpu_function (VhGpuModule *module, const char *name, GError **error)
{
  if (!module || !name || !*name)
    return invalid (error, "kernel lookup needs a module and a name"), NULL;
  for (unsigned int i = 0; i < module->functions->len; i++) {
    VhGpuFunction *fn = module->functions->pdata[i];
    if (strcmp (fn->name, name) == 0)
      return fn;
  }

  void *handle = NULL;
  const VhGpuFuncs *f = module->gpu->f;
  if (!make_current (module->gpu, error))
    return NULL;
  if (!call_ok (f, f->module_get_function (&handle, module->handle, name),
          VH_GPU_CALL_MODULE_GET_FUNCTION, error)) {
    g_prefix_error (error, "kernel \"%s\": ", name);
    return NULL;
  }
  VhGpuFunction *fn = g_new0 (VhGpuFunction, 1);
  fn->module = module;
  fn->handle = handle;
  fn->name = g_strdup (name);
  g_ptr_array_add (module->functions, fn);
  return fn;
}

gboolean
vh_gpu_launch (VhGpuFunction *fn, VhGpuDim3 grid, VhGpuDim3 block,
    unsigned int shared_bytes, VhGpuStream *stream, void **args, GError **error)
{
  if (!fn)
    return invalid (error, "launch of a NULL kernel");
  VhGpu *gpu = fn->module->gpu;
  const guint64 threads = (guint64) block.x * block.y * block.z;

  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "kernel \"%s\": empty launch (grid %ux%ux%u, block %ux%ux%u)", fn->name,
        grid.x, grid.y, grid.z, block.x, block.y, block.z);
    return FALSE;
  }
  if (threads > (guint64) gpu->max_threads_per_block) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "kernel \"%s\": a block of %" G_GUINT64_FORMAT " threads exceeds %s's %d",
        fn->name, threads, gpu->name, gpu->max_threads_per_block);
    return FALSE;
  }
  if (shared_bytes > (unsigned int) gpu->max_shared_per_block) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "kernel \"%s\": %u bytes of shared memory exceed %s's %d per block",
        fn->name, shared_bytes, gpu->name, gpu->max_shared_per_block);
    return FALSE;
  }
  if (stream && stream->gpu->f != gpu->f)
    return invalid (error, "kernel and stream belong to different GPU vendors");
  if (!make_current (gpu, error))
    return FALSE;
  if (!call_ok (gpu->f, gpu->f->launch (fn->handle, grid, block, shared_bytes,
              stream ? stream->handle : NULL, args), VH_GPU_CALL_LAUNCH, error)) {
    g_prefix_error (error, "kernel \"%s\": ", fn->name);
    return FALSE;
  }
  return TRUE;
}
