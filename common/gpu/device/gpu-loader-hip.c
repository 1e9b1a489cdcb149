/* vmafhip — fills the GPU function table from AMD's HIP runtime
 * (libamdhip64.so.7/.6/.5, loaded with dlopen; no ROCm SDK needed to build).
 *
 * The types and constants below are HIP's ABI: handles are pointers,
 * hipDevice_t an int, hipDeviceptr_t a void *.  The device-attribute numbers
 * are the same in HIP 5.x, 6.x and 7.x (checked against both headers; the
 * enum was renumbered in 5.0, which is older than any library tried here). */
#include "vh-gpu-funcs.h"

#include <stdint.h>
#include <string.h>

typedef int hipError_t;
typedef void *hipStream_t;
typedef void *hipEvent_t;
typedef void *hipModule_t;
typedef void *hipFunction_t;

enum {
  hipSuccess = 0,
  hipErrorOutOfMemory = 2,
  hipErrorNoDevice = 100,
  hipErrorInvalidImage = 200,
  hipErrorNoBinaryForGpu = 209,
  hipErrorNotReady = 600,
};

enum {
  hipDeviceAttributeComputeCapabilityMajor = 23,
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeComputeCapabilityMinor = 61,
  hipDeviceAttributeMultiprocessorCount = 63,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeWarpSize = 87,
};

enum {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
};

#define hipStreamNonBlocking 0x1
#define hipEventDefault 0x0
#define hipEventDisableTiming 0x2
#define hipEventBlockingSync 0x1
#define hipHostMallocPortable 0x1

/* hipExternalMemoryHandleDesc and _BufferDesc; ROCm 6 appended reserved
 * words, which older runtimes do not read (zeroed here for newer ones). */
#define hipExternalMemoryHandleTypeOpaqueFd 1
typedef struct {
  int type;
  union {
    int fd;
    struct { void *handle; const void *name; } win32;
  } handle;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
} HipExternalMemoryHandleDesc;

typedef struct {
  unsigned long long offset;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
} HipExternalMemoryBufferDesc;

/* Every driver function vmafhip calls, once: the type, the field, the
 * symbol loaded and a fallback symbol for older or newer runtimes. The
 * function table and the list the loader fills both come from it. */
#define HIP_SYMBOLS(X) \
  X (hipError_t, hipInit, (unsigned int flags), "hipInit", NULL) \
  X (const char *, hipGetErrorName, (hipError_t status), "hipGetErrorName", NULL) \
  X (const char *, hipGetErrorString, (hipError_t status), "hipGetErrorString", NULL) \
  X (hipError_t, hipGetDeviceCount, (int *count), "hipGetDeviceCount", NULL) \
  X (hipError_t, hipDeviceGetName, (char *name, int len, int device), "hipDeviceGetName", NULL) \
  X (hipError_t, hipDeviceGetAttribute, (int *value, int attribute, int device), "hipDeviceGetAttribute", NULL) \
  /* ROCm 6 changed hipDeviceProp_t and exports the new layout as hipGetDevicePropertiesR0600; hip_device_arch() reads either layout */ \
  X (hipError_t, hipGetDeviceProperties, (void *properties, int device), "hipGetDevicePropertiesR0600", "hipGetDeviceProperties") \
  X (hipError_t, hipDeviceTotalMem, (size_t *bytes, int device), "hipDeviceTotalMem", NULL) \
  X (hipError_t, hipMemGetInfo, (size_t *free_bytes, size_t *total_bytes), "hipMemGetInfo", NULL) \
  X (hipError_t, hipSetDevice, (int device), "hipSetDevice", NULL) \
  X (hipError_t, hipMalloc, (void **ptr, size_t size), "hipMalloc", NULL) \
  X (hipError_t, hipFree, (void *ptr), "hipFree", NULL) \
  /* hipHostMalloc is deprecated for hipHostAlloc in recent ROCm (same call) */ \
  X (hipError_t, hipHostMalloc, (void **ptr, size_t size, unsigned int flags), "hipHostMalloc", "hipHostAlloc") \
  X (hipError_t, hipHostFree, (void *ptr), "hipHostFree", NULL) \
  X (hipError_t, hipStreamCreateWithFlags, (hipStream_t *stream, unsigned int flags), "hipStreamCreateWithFlags", NULL) \
  X (hipError_t, hipStreamCreateWithPriority, (hipStream_t *stream, unsigned int flags, int priority), "hipStreamCreateWithPriority", NULL) \
  X (hipError_t, hipDeviceGetStreamPriorityRange, (int *least, int *greatest), "hipDeviceGetStreamPriorityRange", NULL) \
  X (hipError_t, hipStreamDestroy, (hipStream_t stream), "hipStreamDestroy", NULL) \
  X (hipError_t, hipStreamSynchronize, (hipStream_t stream), "hipStreamSynchronize", NULL) \
  X (hipError_t, hipStreamQuery, (hipStream_t stream), "hipStreamQuery", NULL) \
  X (hipError_t, hipStreamWaitEvent, (hipStream_t stream, hipEvent_t event, unsigned int flags), "hipStreamWaitEvent", NULL) \
  X (hipError_t, hipEventCreateWithFlags, (hipEvent_t *event, unsigned int flags), "hipEventCreateWithFlags", NULL) \
  X (hipError_t, hipEventDestroy, (hipEvent_t event), "hipEventDestroy", NULL) \
  X (hipError_t, hipEventRecord, (hipEvent_t event, hipStream_t stream), "hipEventRecord", NULL) \
  X (hipError_t, hipEventSynchronize, (hipEvent_t event), "hipEventSynchronize", NULL) \
  X (hipError_t, hipEventQuery, (hipEvent_t event), "hipEventQuery", NULL) \
  X (hipError_t, hipEventElapsedTime, (float *ms, hipEvent_t start, hipEvent_t end), "hipEventElapsedTime", NULL) \
  X (hipError_t, hipMemcpyHtoDAsync, (void *dst, const void *src, size_t size, hipStream_t stream), "hipMemcpyHtoDAsync", NULL) \
  X (hipError_t, hipMemcpyDtoHAsync, (void *dst, void *src, size_t size, hipStream_t stream), "hipMemcpyDtoHAsync", NULL) \
  X (hipError_t, hipMemcpyDtoDAsync, (void *dst, void *src, size_t size, hipStream_t stream), "hipMemcpyDtoDAsync", NULL) \
  X (hipError_t, hipMemcpy2DAsync, (void *dst, size_t dst_pitch, const void *src, size_t src_pitch, size_t width, size_t height, int kind, hipStream_t stream), "hipMemcpy2DAsync", NULL) \
  X (hipError_t, hipMemsetD8Async, (void *dst, unsigned char value, size_t size, hipStream_t stream), "hipMemsetD8Async", NULL) \
  X (hipError_t, hipMemsetD32Async, (void *dst, int value, size_t count, hipStream_t stream), "hipMemsetD32Async", NULL) \
  X (hipError_t, hipModuleLoadData, (hipModule_t *module, const void *image), "hipModuleLoadData", NULL) \
  X (hipError_t, hipModuleUnload, (hipModule_t module), "hipModuleUnload", NULL) \
  X (hipError_t, hipModuleGetFunction, (hipFunction_t *function, hipModule_t module, const char *name), "hipModuleGetFunction", NULL) \
  X (hipError_t, hipModuleLaunchKernel, (hipFunction_t function, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared_bytes, hipStream_t stream, void **params, void **extra), "hipModuleLaunchKernel", NULL) \
  X (hipError_t, hipImportExternalMemory, (void **external, const HipExternalMemoryHandleDesc *desc), "hipImportExternalMemory", NULL) \
  X (hipError_t, hipExternalMemoryGetMappedBuffer, (void **ptr, void *external, const HipExternalMemoryBufferDesc *desc), "hipExternalMemoryGetMappedBuffer", NULL) \
  X (hipError_t, hipDestroyExternalMemory, (void *external), "hipDestroyExternalMemory", NULL)

static struct {
#define DECLARE(ret, field, params, symbol, fallback) ret (*field) params;
  HIP_SYMBOLS (DECLARE)
#undef DECLARE
} hip;

static const VhGpuSymbol hip_symbols[] = {
#define SYM(ret, field, params, symbol, fallback) \
  { symbol, fallback, (void **) &hip.field },
  HIP_SYMBOLS (SYM)
};
#undef SYM

static inline void *
device_address (VhGpuPtr ptr)
{
  return (void *) (uintptr_t) ptr;
}

/* ---- adapters: neutral signature -> HIP call ---------------------------- */

static const char *
hip_error_name (int status)
{
  return hip.hipGetErrorName (status);
}

static const char *
hip_error_string (int status)
{
  return hip.hipGetErrorString (status);
}

static int
hip_device_count (int *count)
{
  return hip.hipGetDeviceCount (count);
}

static int
hip_device_name (int device, char *name, int len)
{
  return hip.hipDeviceGetName (name, len, device);
}

static int
hip_device_attribute (int device, VhGpuAttribute attr, int *value)
{
  static const int attribute_ids[] = {
    [VH_GPU_ATTR_WARP_SIZE] = hipDeviceAttributeWarpSize,
    [VH_GPU_ATTR_MAX_THREADS_PER_BLOCK] = hipDeviceAttributeMaxThreadsPerBlock,
    [VH_GPU_ATTR_MULTIPROCESSOR_COUNT] = hipDeviceAttributeMultiprocessorCount,
    [VH_GPU_ATTR_MAX_SHARED_PER_BLOCK] = hipDeviceAttributeMaxSharedMemoryPerBlock,
    [VH_GPU_ATTR_COMPUTE_MAJOR] = hipDeviceAttributeComputeCapabilityMajor,
    [VH_GPU_ATTR_COMPUTE_MINOR] = hipDeviceAttributeComputeCapabilityMinor,
  };
  return hip.hipDeviceGetAttribute (value, attribute_ids[attr], device);
}

/* The gfx name lives only in hipDeviceProp_t.gcnArchName, and that struct
 * has two layouts (before and after ROCm 6), each several hundred bytes
 * long.  Rather than carry both, the struct is read into a generous zeroed
 * buffer and gcnArchName found by content: the one NUL-preceded "gfx" name
 * after the 256-byte device name ("gfx90a:sramecc+:xnack-"; the target
 * features after ':' are dropped).  The fields in between are integers that
 * cannot spell "gfx". */
static int
hip_device_arch (int device, char *arch, size_t len)
{
  enum { PROPS_BYTES = 16384, NAME_BYTES = 256 };
  unsigned char *props = g_malloc0 (PROPS_BYTES);
  hipError_t status = hip.hipGetDeviceProperties (props, device);

  g_strlcpy (arch, "unknown", len);
  for (size_t i = NAME_BYTES; status == hipSuccess && i + 4 < PROPS_BYTES; i++) {
    if (props[i - 1] != 0 || memcmp (props + i, "gfx", 3) != 0)
      continue;
    size_t end = i + 3;
    while (end < PROPS_BYTES && g_ascii_isalnum (props[end]))
      end++;
    if (end > i + 3 && end < PROPS_BYTES && (props[end] == 0 || props[end] == ':')) {
      size_t n = MIN (end - i, len - 1);
      memcpy (arch, props + i, n);
      arch[n] = '\0';
      break;
    }
  }
  g_free (props);
  return status;
}

static int
hip_device_total_mem (int device, size_t *bytes)
{
  return hip.hipDeviceTotalMem (bytes, device);
}

static int
hip_mem_get_info (size_t *free_bytes, size_t *total_bytes)
{
  return hip.hipMemGetInfo (free_bytes, total_bytes);
}

/* HIP has no context to hold: the device is per thread (hipSetDevice). */
static int
hip_context_open (int device, void **context)
{
  *context = NULL;
  return hip.hipSetDevice (device);
}

static int
hip_context_close (int device, void *context)
{
  (void) device;
  (void) context;
  return hipSuccess;
}

static int
hip_context_bind (int device, void *context)
{
  (void) context;
  return hip.hipSetDevice (device);
}

static int
hip_mem_alloc (VhGpuPtr *ptr, size_t size)
{
  void *address = NULL;
  hipError_t status = hip.hipMalloc (&address, size);
  *ptr = (VhGpuPtr) (uintptr_t) address;
  return status;
}

static int
hip_mem_free (VhGpuPtr ptr)
{
  return hip.hipFree (device_address (ptr));
}

static int
hip_host_alloc (void **ptr, size_t size)
{
  return hip.hipHostMalloc (ptr, size, hipHostMallocPortable);
}

static int
hip_host_free (void *ptr)
{
  return hip.hipHostFree (ptr);
}

static int
hip_stream_create (void **stream, int urgent)
{
  int least = 0, greatest = 0;
  if (!urgent)
    return hip.hipStreamCreateWithFlags (stream, hipStreamNonBlocking);
  const hipError_t status = hip.hipDeviceGetStreamPriorityRange (&least,
      &greatest);
  if (status != hipSuccess)
    return status;
  return hip.hipStreamCreateWithPriority (stream, hipStreamNonBlocking,
      greatest);
}

static int
hip_stream_destroy (void *stream)
{
  return hip.hipStreamDestroy (stream);
}

static int
hip_stream_sync (void *stream)
{
  return hip.hipStreamSynchronize (stream);
}

static int
hip_stream_query (void *stream)
{
  return hip.hipStreamQuery (stream);
}

static int
hip_stream_wait_event (void *stream, void *event)
{
  return hip.hipStreamWaitEvent (stream, event, 0);
}

static int
hip_event_create (void **event, gboolean timing)
{
  /* as with CUDA: waiting on a synchronisation event sleeps */
  return hip.hipEventCreateWithFlags (event, timing ? hipEventDefault
      : hipEventDisableTiming | hipEventBlockingSync);
}

static int
hip_event_destroy (void *event)
{
  return hip.hipEventDestroy (event);
}

static int
hip_event_record (void *event, void *stream)
{
  return hip.hipEventRecord (event, stream);
}

static int
hip_event_sync (void *event)
{
  return hip.hipEventSynchronize (event);
}

static int
hip_event_query (void *event)
{
  return hip.hipEventQuery (event);
}

static int
hip_event_elapsed (float *ms, void *start, void *end)
{
  return hip.hipEventElapsedTime (ms, start, end);
}

static int
hip_copy_h2d (VhGpuPtr dst, const void *src, size_t size, void *stream)
{
  return hip.hipMemcpyHtoDAsync (device_address (dst), src, size, stream);
}

static int
hip_copy_d2h (void *dst, VhGpuPtr src, size_t size, void *stream)
{
  return hip.hipMemcpyDtoHAsync (dst, device_address (src), size, stream);
}

static int
hip_copy_d2d (VhGpuPtr dst, VhGpuPtr src, size_t size, void *stream)
{
  return hip.hipMemcpyDtoDAsync (device_address (dst), device_address (src), size, stream);
}

static int
hip_copy_2d (const VhGpuCopy2D *copy, void *stream)
{
  void *dst = copy->dst_host ? copy->dst_host : device_address (copy->dst_device);
  const void *src = copy->src_host ? copy->src_host : device_address (copy->src_device);
  int kind;
  if (copy->src_host)
    kind = copy->dst_host ? hipMemcpyHostToHost : hipMemcpyHostToDevice;
  else
    kind = copy->dst_host ? hipMemcpyDeviceToHost : hipMemcpyDeviceToDevice;
  return hip.hipMemcpy2DAsync (dst, copy->dst_pitch, src, copy->src_pitch,
      copy->width_bytes, copy->height, kind, stream);
}

static int
hip_memset_d8 (VhGpuPtr dst, guint8 value, size_t size, void *stream)
{
  return hip.hipMemsetD8Async (device_address (dst), value, size, stream);
}

static int
hip_memset_d32 (VhGpuPtr dst, guint32 value, size_t count, void *stream)
{
  return hip.hipMemsetD32Async (device_address (dst), (int) value, count, stream);
}

static int
hip_module_load (void **module, const void *image)
{
  return hip.hipModuleLoadData (module, image);
}

static int
hip_module_unload (void *module)
{
  return hip.hipModuleUnload (module);
}

static int
hip_module_get_function (void **function, void *module, const char *name)
{
  return hip.hipModuleGetFunction (function, module, name);
}

static int
hip_launch (void *function, VhGpuDim3 grid, VhGpuDim3 block,
    unsigned int shared_bytes, void *stream, void **args)
{
  return hip.hipModuleLaunchKernel (function, grid.x, grid.y, grid.z, block.x,
      block.y, block.z, shared_bytes, stream, args, NULL);
}

/* A dmabuf is an "opaque fd" to HIP on Linux (ROCclr maps it with
 * hsa_amd_interop_map_buffer).  HIP, unlike CUDA, leaves the descriptor
 * to the caller. */
static int
hip_import_dmabuf (int fd, size_t size, void **external)
{
  HipExternalMemoryHandleDesc desc = {
    .type = hipExternalMemoryHandleTypeOpaqueFd,
    .size = size,
  };
  desc.handle.fd = fd;
  return hip.hipImportExternalMemory (external, &desc);
}

static int
hip_map_imported (void *external, size_t offset, size_t size, VhGpuPtr *ptr)
{
  HipExternalMemoryBufferDesc desc = { .offset = offset, .size = size };
  void *address = NULL;
  hipError_t status = hip.hipExternalMemoryGetMappedBuffer (&address,
      external, &desc);
  *ptr = (VhGpuPtr) (uintptr_t) address;
  return status;
}

static int
hip_destroy_imported (void *external, VhGpuPtr mapping)
{
  /* as in CUDA, the mapping is released like an allocation first */
  hipError_t status = mapping ? hip.hipFree (device_address (mapping))
      : hipSuccess;
  hipError_t destroyed = hip.hipDestroyExternalMemory (external);
  return status != hipSuccess ? status : destroyed;
}

/* Which driver function each neutral call uses, for error messages: the
 * names come from the symbol list above (written once). */
static const VhGpuCallName hip_calls[] = {
  {VH_GPU_CALL_INIT, (void **) &hip.hipInit, NULL},
  {VH_GPU_CALL_DEVICE_COUNT, (void **) &hip.hipGetDeviceCount, NULL},
  {VH_GPU_CALL_DEVICE_NAME, (void **) &hip.hipDeviceGetName, NULL},
  {VH_GPU_CALL_DEVICE_ATTRIBUTE, (void **) &hip.hipDeviceGetAttribute, NULL},
  {VH_GPU_CALL_DEVICE_ARCH, (void **) &hip.hipGetDeviceProperties, NULL},
  {VH_GPU_CALL_DEVICE_TOTAL_MEM, (void **) &hip.hipDeviceTotalMem, NULL},
  {VH_GPU_CALL_MEM_GET_INFO, (void **) &hip.hipMemGetInfo, NULL},
  {VH_GPU_CALL_CONTEXT_OPEN, (void **) &hip.hipSetDevice, NULL},
  {VH_GPU_CALL_CONTEXT_CLOSE, NULL, "(none)"},
  {VH_GPU_CALL_CONTEXT_BIND, (void **) &hip.hipSetDevice, NULL},
  {VH_GPU_CALL_MEM_ALLOC, (void **) &hip.hipMalloc, NULL},
  {VH_GPU_CALL_MEM_FREE, (void **) &hip.hipFree, NULL},
  {VH_GPU_CALL_HOST_ALLOC, (void **) &hip.hipHostMalloc, NULL},
  {VH_GPU_CALL_HOST_FREE, (void **) &hip.hipHostFree, NULL},
  {VH_GPU_CALL_STREAM_CREATE, (void **) &hip.hipStreamCreateWithFlags, NULL},
  {VH_GPU_CALL_STREAM_DESTROY, (void **) &hip.hipStreamDestroy, NULL},
  {VH_GPU_CALL_STREAM_SYNC, (void **) &hip.hipStreamSynchronize, NULL},
  {VH_GPU_CALL_STREAM_QUERY, (void **) &hip.hipStreamQuery, NULL},
  {VH_GPU_CALL_STREAM_WAIT_EVENT, (void **) &hip.hipStreamWaitEvent, NULL},
  {VH_GPU_CALL_EVENT_CREATE, (void **) &hip.hipEventCreateWithFlags, NULL},
  {VH_GPU_CALL_EVENT_DESTROY, (void **) &hip.hipEventDestroy, NULL},
  {VH_GPU_CALL_EVENT_RECORD, (void **) &hip.hipEventRecord, NULL},
  {VH_GPU_CALL_EVENT_SYNC, (void **) &hip.hipEventSynchronize, NULL},
  {VH_GPU_CALL_EVENT_QUERY, (void **) &hip.hipEventQuery, NULL},
  {VH_GPU_CALL_EVENT_ELAPSED, (void **) &hip.hipEventElapsedTime, NULL},
  {VH_GPU_CALL_COPY_H2D, (void **) &hip.hipMemcpyHtoDAsync, NULL},
  {VH_GPU_CALL_COPY_D2H, (void **) &hip.hipMemcpyDtoHAsync, NULL},
  {VH_GPU_CALL_COPY_D2D, (void **) &hip.hipMemcpyDtoDAsync, NULL},
  {VH_GPU_CALL_COPY_2D, (void **) &hip.hipMemcpy2DAsync, NULL},
  {VH_GPU_CALL_MEMSET_D8, (void **) &hip.hipMemsetD8Async, NULL},
  {VH_GPU_CALL_MEMSET_D32, (void **) &hip.hipMemsetD32Async, NULL},
  {VH_GPU_CALL_MODULE_LOAD, (void **) &hip.hipModuleLoadData, NULL},
  {VH_GPU_CALL_MODULE_UNLOAD, (void **) &hip.hipModuleUnload, NULL},
  {VH_GPU_CALL_MODULE_GET_FUNCTION, (void **) &hip.hipModuleGetFunction, NULL},
  {VH_GPU_CALL_LAUNCH, (void **) &hip.hipModuleLaunchKernel, NULL},
  {VH_GPU_CALL_IMPORT_MEMORY, (void **) &hip.hipImportExternalMemory, NULL},
  {VH_GPU_CALL_MAP_IMPORTED, (void **) &hip.hipExternalMemoryGetMappedBuffer, NULL},
  {VH_GPU_CALL_DESTROY_IMPORTED, (void **) &hip.hipDestroyExternalMemory, NULL},
};

static VhGpuFuncs hip_funcs = {
  .vendor = VH_GPU_VENDOR_AMD,
  .status_not_ready = hipErrorNotReady,
  .status_no_device = hipErrorNoDevice,
  .status_out_of_memory = hipErrorOutOfMemory,
  .status_no_binary = hipErrorNoBinaryForGpu,
  .status_invalid_image = hipErrorInvalidImage,
  .status_unsupported_ptx = -1,
  .error_name = hip_error_name,
  .error_string = hip_error_string,
  .device_count = hip_device_count,
  .device_name = hip_device_name,
  .device_attribute = hip_device_attribute,
  .device_arch = hip_device_arch,
  .device_total_mem = hip_device_total_mem,
  .mem_get_info = hip_mem_get_info,
  .context_open = hip_context_open,
  .context_close = hip_context_close,
  .context_bind = hip_context_bind,
  .mem_alloc = hip_mem_alloc,
  .mem_free = hip_mem_free,
  .host_alloc = hip_host_alloc,
  .host_free = hip_host_free,
  .stream_create = hip_stream_create,
  .stream_destroy = hip_stream_destroy,
  .stream_sync = hip_stream_sync,
  .stream_query = hip_stream_query,
  .stream_wait_event = hip_stream_wait_event,
  .event_create = hip_event_create,
  .event_destroy = hip_event_destroy,
  .event_record = hip_event_record,
  .event_sync = hip_event_sync,
  .event_query = hip_event_query,
  .event_elapsed = hip_event_elapsed,
  .copy_h2d = hip_copy_h2d,
  .copy_d2h = hip_copy_d2h,
  .copy_d2d = hip_copy_d2d,
  .copy_2d = hip_copy_2d,
  .memset_d8 = hip_memset_d8,
  .memset_d32 = hip_memset_d32,
  .module_load = hip_module_load,
  .module_unload = hip_module_unload,
  .module_get_function = hip_module_get_function,
  .launch = hip_launch,
  .import_dmabuf = hip_import_dmabuf,
  .map_imported = hip_map_imported,
  .destroy_imported = hip_destroy_imported,
};

/* The sonames first (ldconfig paths, LD_LIBRARY_PATH), then ROCm's default
 * install folder, which is not always in the loader's path. */
static const char *const hip_libraries[] = {
  "libamdhip64.so.7",
  "libamdhip64.so.6",
  "libamdhip64.so.5",
  "/opt/rocm/lib/libamdhip64.so.7",
  "/opt/rocm/lib/libamdhip64.so.6",
  "/opt/rocm/lib/libamdhip64.so.5",
  NULL
};

const VhGpuFuncs *
vh_gpu_load_hip (GString *why)
{
  static GMutex lock;
  static gboolean loaded;
  const VhGpuFuncs *result = NULL;

  g_mutex_lock (&lock);
  if (!loaded) {
    const char *library = NULL;
    void *handle = vh_gpu_open_library (VH_GPU_VENDOR_AMD, hip_libraries,
        &library, why);
    if (handle && vh_gpu_resolve_symbols (handle, library, hip_symbols,
            G_N_ELEMENTS (hip_symbols), why)) {
      hip_funcs.library = library;
      vh_gpu_name_calls (hip_funcs.call_names, hip_calls,
          G_N_ELEMENTS (hip_calls), hip_symbols, G_N_ELEMENTS (hip_symbols));
      hip_funcs.init_status = hip.hipInit (0);
      loaded = TRUE;
    }
    /* A library without the symbols we need stays open (closing a GPU
     * runtime is not always safe); a retry gets the same handle back. */
  }
  if (loaded)
    result = &hip_funcs;
  g_mutex_unlock (&lock);
  return result;
}
