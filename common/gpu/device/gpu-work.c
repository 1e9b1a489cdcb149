/* vmafhip — GPU device layer: the work on a device (memory, the pinned
 * registry, streams, events, copies, modules and launches) over the vendor
 * function table.  Devices and errors are in gpu.c. */
#include "gpu-private.h"

/* ---- memory ------------------------------------------------------------- */

static void
set_out_of_memory (VhGpu *gpu, const char *what, size_t size, int status,
    VhGpuCall call, GError **error)
{
  char *human = g_format_size_full (size, G_FORMAT_SIZE_IEC_UNITS);
  char *vendor_text = vh_gpu_describe_status (gpu->f, status);
  g_set_error (error, VH_ERROR, VH_ERROR_GPU,
      "out of %s: cannot allocate %s (%zu bytes) on %s (%s: %s)", what, human,
      size, gpu->name, gpu->f->call_names[call], vendor_text);
  g_free (vendor_text);
  g_free (human);
}

gboolean
vh_gpu_memory_in_use (VhGpu *gpu, guint64 *bytes, GError **error)
{
  size_t free_bytes = 0, total_bytes = 0;
  if (!gpu)
    return vh_gpu_invalid (error, "no GPU (NULL)");
  if (!vh_gpu_make_current (gpu, error)
      || !vh_gpu_call_ok (gpu->f, gpu->f->mem_get_info (&free_bytes,
              &total_bytes), VH_GPU_CALL_MEM_GET_INFO, error))
    return FALSE;
  *bytes = total_bytes - MIN (free_bytes, total_bytes);
  return TRUE;
}

VhGpuPtr
vh_gpu_mem_alloc (VhGpu *gpu, size_t size, GError **error)
{
  VhGpuPtr ptr = 0;
  if (!gpu)
    return vh_gpu_invalid (error, "no GPU (NULL)"), 0;
  if (size == 0)
    return vh_gpu_invalid (error, "cannot allocate 0 bytes of GPU memory"), 0;
  if (!vh_gpu_make_current (gpu, error))
    return 0;
  int status = gpu->f->mem_alloc (&ptr, size);
  if (status == gpu->f->status_out_of_memory) {
    set_out_of_memory (gpu, "GPU memory", size, status, VH_GPU_CALL_MEM_ALLOC, error);
    return 0;
  }
  if (!vh_gpu_call_ok (gpu->f, status, VH_GPU_CALL_MEM_ALLOC, error))
    return 0;
  return ptr;
}

VhGpuPtr
vh_gpu_scratch_alloc (VhGpu *gpu, size_t size, GError **error)
{
  if (gpu)
    return vh_gpu_mem_alloc (gpu, size, error);
  return (VhGpuPtr) (uintptr_t) g_malloc0 (MAX (size, 1));
}

void
vh_gpu_scratch_free (VhGpu *gpu, VhGpuPtr mem)
{
  if (gpu)
    vh_gpu_mem_free (gpu, mem);
  else
    g_free ((void *) (uintptr_t) mem);
}

void
vh_gpu_mem_free (VhGpu *gpu, VhGpuPtr ptr)
{
  if (!gpu || !ptr || !vh_gpu_make_current_or_warn (gpu))
    return;
  vh_gpu_warn_if_failed (gpu->f, gpu->f->mem_free (ptr), VH_GPU_CALL_MEM_FREE);
}

/* ---- shared tables ------------------------------------------------------ */

typedef struct {
  VhGpuPtr mem;
  size_t size;
  int users;
} VhGpuTable;

static void tables_clear (VhGpu *gpu);

VhGpuPtr
vh_gpu_table_acquire (VhGpu *gpu, const char *name, size_t size,
    VhGpuTableFill fill, void *data, GError **error)
{
  if (!gpu || !name || !fill)
    return vh_gpu_invalid (error, "shared table: no GPU, name or fill"), 0;
  /* the lock is held through the fill: a second user of the same table
   * waits for it rather than reading it half written */
  g_mutex_lock (&gpu->tables_lock);
  if (!gpu->tables) {
    gpu->tables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
        g_free);
    gpu->tables_clear = tables_clear;
  }
  VhGpuTable *table = g_hash_table_lookup (gpu->tables, name);
  if (table && table->size != size) {
    g_mutex_unlock (&gpu->tables_lock);
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "shared table %s: asked for %zu bytes, it has %zu", name, size,
        table->size);
    return 0;
  }
  if (!table) {
    const VhGpuPtr mem = vh_gpu_mem_alloc (gpu, size, error);
    if (!mem || !fill (gpu, mem, data, error)) {
      vh_gpu_mem_free (gpu, mem);
      g_mutex_unlock (&gpu->tables_lock);
      return 0;
    }
    table = g_new0 (VhGpuTable, 1);
    table->mem = mem;
    table->size = size;
    g_hash_table_insert (gpu->tables, g_strdup (name), table);
  }
  table->users++;
  const VhGpuPtr mem = table->mem;
  g_mutex_unlock (&gpu->tables_lock);
  return mem;
}

void
vh_gpu_table_release (VhGpu *gpu, const char *name)
{
  if (!gpu || !name)
    return;
  g_mutex_lock (&gpu->tables_lock);
  VhGpuTable *table = gpu->tables ? g_hash_table_lookup (gpu->tables, name)
      : NULL;
  if (table && --table->users == 0) {
    vh_gpu_mem_free (gpu, table->mem);
    g_hash_table_remove (gpu->tables, name);
  }
  g_mutex_unlock (&gpu->tables_lock);
  if (!table)
    g_warning ("vh_gpu_table_release: no shared table %s", name);
}

static void
tables_clear (VhGpu *gpu)
{
  if (gpu->tables) {
    GHashTableIter iter;
    gpointer name, value;
    g_hash_table_iter_init (&iter, gpu->tables);
    while (g_hash_table_iter_next (&iter, &name, &value)) {
      g_warning ("shared GPU table %s still held at close", (char *) name);
      vh_gpu_mem_free (gpu, ((VhGpuTable *) value)->mem);
    }
    g_hash_table_destroy (gpu->tables);
    gpu->tables = NULL;
  }
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
    return vh_gpu_invalid (error, "no GPU (NULL)"), NULL;
  if (size == 0)
    return vh_gpu_invalid (error, "cannot allocate 0 bytes of pinned host memory"), NULL;
  if (!vh_gpu_make_current (gpu, error))
    return NULL;
  int status = gpu->f->host_alloc (&ptr, size);
  if (status == gpu->f->status_out_of_memory) {
    set_out_of_memory (gpu, "pinned host memory", size, status,
        VH_GPU_CALL_HOST_ALLOC, error);
    return NULL;
  }
  if (!vh_gpu_call_ok (gpu->f, status, VH_GPU_CALL_HOST_ALLOC, error))
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
  if (!vh_gpu_make_current_or_warn (gpu))
    return;
  vh_gpu_warn_if_failed (gpu->f, gpu->f->host_free (ptr), VH_GPU_CALL_HOST_FREE);
}

/* ---- streams ------------------------------------------------------------ */

static VhGpuStream *
stream_new (VhGpu *gpu, int urgent, GError **error)
{
  void *handle = NULL;
  if (!gpu)
    return vh_gpu_invalid (error, "no GPU (NULL)"), NULL;
  if (!vh_gpu_make_current (gpu, error)
      || !vh_gpu_call_ok (gpu->f, gpu->f->stream_create (&handle, urgent),
          VH_GPU_CALL_STREAM_CREATE, error))
    return NULL;
  VhGpuStream *stream = g_new0 (VhGpuStream, 1);
  stream->gpu = gpu;
  stream->handle = handle;
  return stream;
}

VhGpuStream *
vh_gpu_stream_new (VhGpu *gpu, GError **error)
{
  return stream_new (gpu, 0, error);
}

VhGpuStream *
vh_gpu_stream_new_urgent (VhGpu *gpu, GError **error)
{
  return stream_new (gpu, 1, error);
}

void
vh_gpu_stream_free (VhGpuStream *stream)
{
  if (!stream)
    return;
  if (vh_gpu_make_current_or_warn (stream->gpu))
    vh_gpu_warn_if_failed (stream->gpu->f, stream->gpu->f->stream_destroy (stream->handle),
        VH_GPU_CALL_STREAM_DESTROY);
  g_free (stream);
}

/* Binds the stream's device; FALSE and an error for a NULL stream. */
static gboolean
bind_stream (VhGpuStream *stream, GError **error)
{
  if (!stream)
    return vh_gpu_invalid (error, "no GPU stream (NULL)");
  return vh_gpu_make_current (stream->gpu, error);
}

gboolean
vh_gpu_stream_sync (VhGpuStream *stream, GError **error)
{
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return vh_gpu_call_ok (f, f->stream_sync (stream->handle), VH_GPU_CALL_STREAM_SYNC, error);
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
  return vh_gpu_call_ok (f, status, call, error);
}

gboolean
vh_gpu_stream_query (VhGpuStream *stream, gboolean *idle, GError **error)
{
  if (!idle)
    return vh_gpu_invalid (error, "no result pointer (NULL)");
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
    return vh_gpu_invalid (error, "no GPU event (NULL)");
  if (!bind_stream (stream, error))
    return FALSE;
  if (event->gpu->f != stream->gpu->f)
    return vh_gpu_invalid (error, "stream and event belong to different GPU vendors");
  const VhGpuFuncs *f = stream->gpu->f;
  return vh_gpu_call_ok (f, f->stream_wait_event (stream->handle, event->handle),
      VH_GPU_CALL_STREAM_WAIT_EVENT, error);
}

/* ---- events ------------------------------------------------------------- */

VhGpuEvent *
vh_gpu_event_new (VhGpu *gpu, gboolean timing, GError **error)
{
  void *handle = NULL;
  if (!gpu)
    return vh_gpu_invalid (error, "no GPU (NULL)"), NULL;
  if (!vh_gpu_make_current (gpu, error)
      || !vh_gpu_call_ok (gpu->f, gpu->f->event_create (&handle, timing),
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
  if (vh_gpu_make_current_or_warn (event->gpu))
    vh_gpu_warn_if_failed (event->gpu->f, event->gpu->f->event_destroy (event->handle),
        VH_GPU_CALL_EVENT_DESTROY);
  g_free (event);
}

static gboolean
bind_event (VhGpuEvent *event, GError **error)
{
  if (!event)
    return vh_gpu_invalid (error, "no GPU event (NULL)");
  return vh_gpu_make_current (event->gpu, error);
}

gboolean
vh_gpu_event_record (VhGpuEvent *event, VhGpuStream *stream, GError **error)
{
  if (!bind_event (event, error))
    return FALSE;
  const VhGpuFuncs *f = event->gpu->f;
  return vh_gpu_call_ok (f, f->event_record (event->handle, stream ? stream->handle : NULL),
      VH_GPU_CALL_EVENT_RECORD, error);
}

gboolean
vh_gpu_event_sync (VhGpuEvent *event, GError **error)
{
  if (!bind_event (event, error))
    return FALSE;
  const VhGpuFuncs *f = event->gpu->f;
  return vh_gpu_call_ok (f, f->event_sync (event->handle), VH_GPU_CALL_EVENT_SYNC, error);
}

gboolean
vh_gpu_event_query (VhGpuEvent *event, gboolean *done, GError **error)
{
  if (!done)
    return vh_gpu_invalid (error, "no result pointer (NULL)");
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
    return vh_gpu_invalid (error, "elapsed time needs two events and a result pointer");
  if (!start->timing || !end->timing)
    return vh_gpu_invalid (error, "elapsed time needs events made with timing = TRUE");
  if (!bind_event (start, error))
    return FALSE;
  const VhGpuFuncs *f = start->gpu->f;
  return vh_gpu_call_ok (f, f->event_elapsed (ms, start->handle, end->handle),
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
    return vh_gpu_invalid (error, "host-to-device copy with a NULL address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return vh_gpu_call_ok (f, f->copy_h2d (dst, src, size, stream->handle),
      VH_GPU_CALL_COPY_H2D, error);
}

gboolean
vh_gpu_copy_d2h_async (VhGpuStream *stream, void *dst, VhGpuPtr src,
    size_t size, GError **error)
{
  if (size == 0)
    return TRUE;
  if (!dst || !src)
    return vh_gpu_invalid (error, "device-to-host copy with a NULL address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return vh_gpu_call_ok (f, f->copy_d2h (dst, src, size, stream->handle),
      VH_GPU_CALL_COPY_D2H, error);
}

gboolean
vh_gpu_copy_d2d_async (VhGpuStream *stream, VhGpuPtr dst, VhGpuPtr src,
    size_t size, GError **error)
{
  if (size == 0)
    return TRUE;
  if (!dst || !src)
    return vh_gpu_invalid (error, "device-to-device copy with a NULL address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return vh_gpu_call_ok (f, f->copy_d2d (dst, src, size, stream->handle),
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
  if (copy->src_context && copy->src_context != stream->gpu->context
      && f->copy_2d_peer) {
    VhGpuCopy2D peer = *copy;
    peer.dst_context = stream->gpu->context;
    return vh_gpu_call_ok (f, f->copy_2d_peer (&peer, stream->handle),
        VH_GPU_CALL_COPY_2D_PEER, error);
  }
  return vh_gpu_call_ok (f, f->copy_2d (copy, stream->handle), VH_GPU_CALL_COPY_2D, error);
}

gboolean
vh_gpu_copy2d_h2d_async (VhGpuStream *stream, VhGpuPtr dst, size_t dst_pitch,
    const void *src, size_t src_pitch, size_t width_bytes, size_t height,
    GError **error)
{
  if (!dst || !src)
    return vh_gpu_invalid (error, "host-to-device 2-D copy with a NULL address");
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
    return vh_gpu_invalid (error, "device-to-host 2-D copy with a NULL address");
  const VhGpuCopy2D copy = {
    .dst_host = dst, .dst_pitch = dst_pitch,
    .src_device = src, .src_pitch = src_pitch,
    .width_bytes = width_bytes, .height = height,
  };
  return copy_2d (stream, &copy, error);
}

gboolean
vh_gpu_copy2d_d2d_async (VhGpuStream *stream, VhGpuPtr dst, size_t dst_pitch,
    void *src_context, VhGpuPtr src, size_t src_pitch, size_t width_bytes,
    size_t height, GError **error)
{
  if (!dst || !src)
    return vh_gpu_invalid (error, "device-to-device 2-D copy with a NULL address");
  const VhGpuCopy2D copy = {
    .dst_device = dst, .dst_pitch = dst_pitch,
    .src_device = src, .src_pitch = src_pitch, .src_context = src_context,
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
    return vh_gpu_invalid (error, "memset of a NULL device address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return vh_gpu_call_ok (f, f->memset_d8 (dst, value, size, stream->handle),
      VH_GPU_CALL_MEMSET_D8, error);
}

gboolean
vh_gpu_memset32_async (VhGpuStream *stream, VhGpuPtr dst, guint32 value,
    size_t count, GError **error)
{
  if (count == 0)
    return TRUE;
  if (!dst || dst % 4 != 0)
    return vh_gpu_invalid (error, "32-bit memset needs a 4-byte aligned, non-NULL device address");
  if (!bind_stream (stream, error))
    return FALSE;
  const VhGpuFuncs *f = stream->gpu->f;
  return vh_gpu_call_ok (f, f->memset_d32 (dst, value, count, stream->handle),
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
  if (!vh_gpu_make_current (gpu, error))
    return NULL;
  *status = gpu->f->module_load (&handle, image);
  if (!vh_gpu_call_ok (gpu->f, *status, VH_GPU_CALL_MODULE_LOAD, error))
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
    return vh_gpu_invalid (error, "module load needs a GPU and an image (NULL given)"), NULL;
  return load_module (gpu, image, &status, error);
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
    return vh_gpu_invalid (error, "module load needs a GPU and an image set (NULL given)"), NULL;

  /* The image that can run on this arch (a build may carry several per
   * vendor: hipcc's and clang-19's AMD bundles). */
  char *built_for = NULL;
  const VhGpuImage *image = vh_gpu_image_set_choose (set, gpu->f->vendor,
      gpu->arch, &built_for);
  if (!built_for)
    built_for = g_strdup ("no GPU: a CPU-only build, configured without "
        "hipcc, clang-19 and nvcc");
  const gboolean can_run = image != NULL;
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
      /* a generic code object was all there was: older runtimes refuse it */
      gchar **targets = gpu->f->vendor == VH_GPU_VENDOR_AMD
          ? vh_gpu_image_read_targets (image, NULL) : NULL;
      gchar *detail = targets && vh_gpu_amd_fit (gpu->arch, targets) == VH_GPU_IMAGE_FIT_GENERIC
          ? g_strdup_printf ("%s; the build has only the generic %s code object "
              "for it, which ROCm runs from 6.4 on: update ROCm, or build "
              "vmafhip with %s in hip-amd-clang-targets", load_error->message,
              vh_gpu_amd_generic_target (gpu->arch), gpu->arch)
          : g_strdup (load_error->message);
      set_not_loadable (gpu, set, built_for, detail, error);
      g_free (detail);
      g_strfreev (targets);
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
  if (vh_gpu_make_current_or_warn (module->gpu))
    vh_gpu_warn_if_failed (module->gpu->f, module->gpu->f->module_unload (module->handle),
        VH_GPU_CALL_MODULE_UNLOAD);
  g_free (module);
}

VhGpuFunction *
vh_gpu_function (VhGpuModule *module, const char *name, GError **error)
{
  if (!module || !name || !*name)
    return vh_gpu_invalid (error, "kernel lookup needs a module and a name"), NULL;
  for (unsigned int i = 0; i < module->functions->len; i++) {
    VhGpuFunction *fn = module->functions->pdata[i];
    if (strcmp (fn->name, name) == 0)
      return fn;
  }

  void *handle = NULL;
  const VhGpuFuncs *f = module->gpu->f;
  if (!vh_gpu_make_current (module->gpu, error))
    return NULL;
  if (!vh_gpu_call_ok (f, f->module_get_function (&handle, module->handle, name),
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
    return vh_gpu_invalid (error, "launch of a NULL kernel");
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
    return vh_gpu_invalid (error, "kernel and stream belong to different GPU vendors");
  if (!vh_gpu_make_current (gpu, error))
    return FALSE;
  if (!vh_gpu_call_ok (gpu->f, gpu->f->launch (fn->handle, grid, block, shared_bytes,
              stream ? stream->handle : NULL, args), VH_GPU_CALL_LAUNCH, error)) {
    g_prefix_error (error, "kernel \"%s\": ", fn->name);
    return FALSE;
  }
  return TRUE;
}
