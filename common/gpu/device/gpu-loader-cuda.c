/* vmafhip — fills the GPU function table from the NVIDIA CUDA driver API
 * (libcuda.so.1, loaded with dlopen; no CUDA SDK needed to build).
 *
 * The types and constants below are the driver's stable ABI (cuda.h): the
 * handles are pointers, CUdevice an int, CUdeviceptr 64 bits.  Where cuda.h
 * maps a name to a _v2 symbol (cuMemAlloc -> cuMemAlloc_v2, ...), the _v2
 * symbol is the one loaded, as a program built with cuda.h would call. */
#include "vh-gpu-funcs.h"

#include <stdio.h>
#include <unistd.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef void *CUcontext;
typedef void *CUstream;
typedef void *CUevent;
typedef void *CUmodule;
typedef void *CUfunction;

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_IMAGE = 200,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_NOT_READY = 600,
};

enum {
  CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
  CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
};

#define CU_STREAM_NON_BLOCKING 0x1
#define CU_EVENT_DEFAULT 0x0
#define CU_EVENT_BLOCKING_SYNC 0x1
#define CU_EVENT_DISABLE_TIMING 0x2
#define CU_MEMHOSTALLOC_PORTABLE 0x1  /* pinned for every context */
#define CU_MEMORYTYPE_HOST 0x1
#define CU_MEMORYTYPE_DEVICE 0x2

/* CUDA_MEMCPY2D_v2 (size_t fields; the one cuMemcpy2DAsync_v2 takes). */
typedef struct {
  size_t srcXInBytes, srcY;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  size_t srcPitch;
  size_t dstXInBytes, dstY;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  size_t dstPitch;
  size_t WidthInBytes;
  size_t Height;
} CudaMemcpy2D;

/* CUDA_MEMCPY3D_PEER: a copy between two contexts (here one 2-D slice). */
typedef struct {
  size_t srcXInBytes, srcY, srcZ, srcLOD;
  int srcMemoryType;
  const void *srcHost;
  CUdeviceptr srcDevice;
  void *srcArray;
  CUcontext srcContext;
  size_t srcPitch, srcHeight;
  size_t dstXInBytes, dstY, dstZ, dstLOD;
  int dstMemoryType;
  void *dstHost;
  CUdeviceptr dstDevice;
  void *dstArray;
  CUcontext dstContext;
  size_t dstPitch, dstHeight;
  size_t WidthInBytes, Height, Depth;
} CudaMemcpy3DPeer;

/* CUDA_EXTERNAL_MEMORY_HANDLE_DESC and _BUFFER_DESC (CUDA 10 on). */
#define CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD 9
typedef struct {
  int type;
  union {
    int fd;
    struct { void *handle; const void *name; } win32;
    const void *nvSciBufObject;
  } handle;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
} CudaExternalMemoryHandleDesc;

typedef struct {
  unsigned long long offset;
  unsigned long long size;
  unsigned int flags;
  unsigned int reserved[16];
} CudaExternalMemoryBufferDesc;

/* Every driver function vmafhip calls, once: the type, the field, the
 * symbol loaded and a fallback symbol for older or newer runtimes. The
 * function table and the list the loader fills both come from it. */
#define CU_SYMBOLS(X) \
  X (CUresult, cuInit, (unsigned int flags), "cuInit", NULL) \
  X (CUresult, cuGetErrorName, (CUresult status, const char **name), "cuGetErrorName", NULL) \
  X (CUresult, cuGetErrorString, (CUresult status, const char **text), "cuGetErrorString", NULL) \
  X (CUresult, cuDeviceGetCount, (int *count), "cuDeviceGetCount", NULL) \
  X (CUresult, cuDeviceGet, (CUdevice *device, int ordinal), "cuDeviceGet", NULL) \
  X (CUresult, cuDeviceGetName, (char *name, int len, CUdevice device), "cuDeviceGetName", NULL) \
  X (CUresult, cuDeviceGetAttribute, (int *value, int attribute, CUdevice device), "cuDeviceGetAttribute", NULL) \
  X (CUresult, cuDeviceTotalMem, (size_t *bytes, CUdevice device), "cuDeviceTotalMem_v2", NULL) \
  X (CUresult, cuMemGetInfo, (size_t *free_bytes, size_t *total_bytes), "cuMemGetInfo_v2", NULL) \
  X (CUresult, cuDevicePrimaryCtxRetain, (CUcontext *context, CUdevice device), "cuDevicePrimaryCtxRetain", NULL) \
  X (CUresult, cuDevicePrimaryCtxRelease, (CUdevice device), "cuDevicePrimaryCtxRelease_v2", NULL) \
  X (CUresult, cuCtxSetCurrent, (CUcontext context), "cuCtxSetCurrent", NULL) \
  X (CUresult, cuMemAlloc, (CUdeviceptr *ptr, size_t size), "cuMemAlloc_v2", NULL) \
  X (CUresult, cuMemFree, (CUdeviceptr ptr), "cuMemFree_v2", NULL) \
  X (CUresult, cuMemHostAlloc, (void **ptr, size_t size, unsigned int flags), "cuMemHostAlloc", NULL) \
  X (CUresult, cuMemFreeHost, (void *ptr), "cuMemFreeHost", NULL) \
  X (CUresult, cuStreamCreate, (CUstream *stream, unsigned int flags), "cuStreamCreate", NULL) \
  X (CUresult, cuStreamCreateWithPriority, (CUstream *stream, unsigned int flags, int priority), "cuStreamCreateWithPriority", NULL) \
  X (CUresult, cuCtxGetStreamPriorityRange, (int *least, int *greatest), "cuCtxGetStreamPriorityRange", NULL) \
  X (CUresult, cuStreamDestroy, (CUstream stream), "cuStreamDestroy_v2", NULL) \
  X (CUresult, cuStreamSynchronize, (CUstream stream), "cuStreamSynchronize", NULL) \
  X (CUresult, cuStreamQuery, (CUstream stream), "cuStreamQuery", NULL) \
  X (CUresult, cuStreamWaitEvent, (CUstream stream, CUevent event, unsigned int flags), "cuStreamWaitEvent", NULL) \
  X (CUresult, cuEventCreate, (CUevent *event, unsigned int flags), "cuEventCreate", NULL) \
  X (CUresult, cuEventDestroy, (CUevent event), "cuEventDestroy_v2", NULL) \
  X (CUresult, cuEventRecord, (CUevent event, CUstream stream), "cuEventRecord", NULL) \
  X (CUresult, cuEventSynchronize, (CUevent event), "cuEventSynchronize", NULL) \
  X (CUresult, cuEventQuery, (CUevent event), "cuEventQuery", NULL) \
  /* _v2 since CUDA 12.8 (what cuda.h 13 calls); older drivers have only the first version, same signature */ \
  X (CUresult, cuEventElapsedTime, (float *ms, CUevent start, CUevent end), "cuEventElapsedTime_v2", "cuEventElapsedTime") \
  X (CUresult, cuMemcpyHtoDAsync, (CUdeviceptr dst, const void *src, size_t size, CUstream stream), "cuMemcpyHtoDAsync_v2", NULL) \
  X (CUresult, cuMemcpyDtoHAsync, (void *dst, CUdeviceptr src, size_t size, CUstream stream), "cuMemcpyDtoHAsync_v2", NULL) \
  X (CUresult, cuMemcpyDtoDAsync, (CUdeviceptr dst, CUdeviceptr src, size_t size, CUstream stream), "cuMemcpyDtoDAsync_v2", NULL) \
  X (CUresult, cuMemcpy2DAsync, (const CudaMemcpy2D *copy, CUstream stream), "cuMemcpy2DAsync_v2", NULL) \
  X (CUresult, cuMemcpy3DPeerAsync, (const CudaMemcpy3DPeer *copy, CUstream stream), "cuMemcpy3DPeerAsync", NULL) \
  X (CUresult, cuMemsetD8Async, (CUdeviceptr dst, unsigned char value, size_t size, CUstream stream), "cuMemsetD8Async", NULL) \
  X (CUresult, cuMemsetD32Async, (CUdeviceptr dst, unsigned int value, size_t count, CUstream stream), "cuMemsetD32Async", NULL) \
  X (CUresult, cuModuleLoadData, (CUmodule *module, const void *image), "cuModuleLoadData", NULL) \
  X (CUresult, cuModuleUnload, (CUmodule module), "cuModuleUnload", NULL) \
  X (CUresult, cuModuleGetFunction, (CUfunction *function, CUmodule module, const char *name), "cuModuleGetFunction", NULL) \
  X (CUresult, cuLaunchKernel, (CUfunction function, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared_bytes, CUstream stream, void **params, void **extra), "cuLaunchKernel", NULL) \
  X (CUresult, cuImportExternalMemory, (void **external, const CudaExternalMemoryHandleDesc *desc), "cuImportExternalMemory", NULL) \
  X (CUresult, cuExternalMemoryGetMappedBuffer, (CUdeviceptr *ptr, void *external, const CudaExternalMemoryBufferDesc *desc), "cuExternalMemoryGetMappedBuffer", NULL) \
  X (CUresult, cuDestroyExternalMemory, (void *external), "cuDestroyExternalMemory", NULL)

static struct {
#define DECLARE(ret, field, params, symbol, fallback) ret (*field) params;
  CU_SYMBOLS (DECLARE)
#undef DECLARE
} cu;

static const VhGpuSymbol cuda_symbols[] = {
#define SYM(ret, field, params, symbol, fallback) \
  { symbol, fallback, (void **) &cu.field },
  CU_SYMBOLS (SYM)
};
#undef SYM

/* ---- adapters: neutral signature -> driver call ------------------------- */

static const char *
cuda_error_name (int status)
{
  const char *name = NULL;
  if (cu.cuGetErrorName (status, &name) != CUDA_SUCCESS)
    return NULL;
  return name;
}

static const char *
cuda_error_string (int status)
{
  const char *text = NULL;
  if (cu.cuGetErrorString (status, &text) != CUDA_SUCCESS)
    return NULL;
  return text;
}

static int
cuda_device_count (int *count)
{
  return cu.cuDeviceGetCount (count);
}

static int
cuda_device_name (int ordinal, char *name, int len)
{
  CUdevice device;
  CUresult status = cu.cuDeviceGet (&device, ordinal);
  return status != CUDA_SUCCESS ? status : cu.cuDeviceGetName (name, len, device);
}

static int
cuda_device_attribute (int ordinal, VhGpuAttribute attr, int *value)
{
  static const int attribute_ids[] = {
    [VH_GPU_ATTR_WARP_SIZE] = CU_DEVICE_ATTRIBUTE_WARP_SIZE,
    [VH_GPU_ATTR_MAX_THREADS_PER_BLOCK] = CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
    [VH_GPU_ATTR_MULTIPROCESSOR_COUNT] = CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
    [VH_GPU_ATTR_MAX_SHARED_PER_BLOCK] = CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
    [VH_GPU_ATTR_COMPUTE_MAJOR] = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
    [VH_GPU_ATTR_COMPUTE_MINOR] = CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
  };
  CUdevice device;
  CUresult status = cu.cuDeviceGet (&device, ordinal);
  if (status != CUDA_SUCCESS)
    return status;
  return cu.cuDeviceGetAttribute (value, attribute_ids[attr], device);
}

static int
cuda_device_arch (int ordinal, char *arch, size_t len)
{
  int major = 0, minor = 0;
  CUresult status = cuda_device_attribute (ordinal, VH_GPU_ATTR_COMPUTE_MAJOR, &major);
  if (status == CUDA_SUCCESS)
    status = cuda_device_attribute (ordinal, VH_GPU_ATTR_COMPUTE_MINOR, &minor);
  if (status == CUDA_SUCCESS)
    snprintf (arch, len, "sm_%d%d", major, minor);
  return status;
}

static int
cuda_device_total_mem (int ordinal, size_t *bytes)
{
  CUdevice device;
  CUresult status = cu.cuDeviceGet (&device, ordinal);
  return status != CUDA_SUCCESS ? status : cu.cuDeviceTotalMem (bytes, device);
}

static int
cuda_mem_get_info (size_t *free_bytes, size_t *total_bytes)
{
  return cu.cuMemGetInfo (free_bytes, total_bytes);
}

/* The primary context is the device's one shared context (the one the CUDA
 * runtime and other libraries in the process use too): retaining it instead
 * of creating our own avoids a second context's memory and switching. */
static int
cuda_context_open (int ordinal, void **context)
{
  CUdevice device;
  CUresult status = cu.cuDeviceGet (&device, ordinal);
  return status != CUDA_SUCCESS ? status : cu.cuDevicePrimaryCtxRetain (context, device);
}

static int
cuda_context_close (int ordinal, void *context)
{
  CUdevice device;
  CUresult status;
  (void) context;
  status = cu.cuDeviceGet (&device, ordinal);
  return status != CUDA_SUCCESS ? status : cu.cuDevicePrimaryCtxRelease (device);
}

static int
cuda_context_bind (int ordinal, void *context)
{
  (void) ordinal;
  return cu.cuCtxSetCurrent (context);
}

static int
cuda_mem_alloc (VhGpuPtr *ptr, size_t size)
{
  CUdeviceptr address = 0;
  CUresult status = cu.cuMemAlloc (&address, size);
  *ptr = address;
  return status;
}

static int
cuda_mem_free (VhGpuPtr ptr)
{
  return cu.cuMemFree (ptr);
}

static int
cuda_host_alloc (void **ptr, size_t size)
{
  return cu.cuMemHostAlloc (ptr, size, CU_MEMHOSTALLOC_PORTABLE);
}

static int
cuda_host_free (void *ptr)
{
  return cu.cuMemFreeHost (ptr);
}

static int
cuda_stream_create (void **stream, int urgent)
{
  int least = 0, greatest = 0;
  if (!urgent)
    return cu.cuStreamCreate (stream, CU_STREAM_NON_BLOCKING);
  const CUresult status = cu.cuCtxGetStreamPriorityRange (&least, &greatest);
  if (status != CUDA_SUCCESS)
    return status;
  return cu.cuStreamCreateWithPriority (stream, CU_STREAM_NON_BLOCKING,
      greatest);
}

static int
cuda_stream_destroy (void *stream)
{
  return cu.cuStreamDestroy (stream);
}

static int
cuda_stream_sync (void *stream)
{
  return cu.cuStreamSynchronize (stream);
}

static int
cuda_stream_query (void *stream)
{
  return cu.cuStreamQuery (stream);
}

static int
cuda_stream_wait_event (void *stream, void *event)
{
  return cu.cuStreamWaitEvent (stream, event, 0);
}

static int
cuda_event_create (void **event, gboolean timing)
{
  /* Waiting on a synchronisation event sleeps instead of spinning (the
   * primary context's default): many instances would otherwise take
   * cores from the pipeline's sources. */
  return cu.cuEventCreate (event, timing ? CU_EVENT_DEFAULT
      : CU_EVENT_DISABLE_TIMING | CU_EVENT_BLOCKING_SYNC);
}

static int
cuda_event_destroy (void *event)
{
  return cu.cuEventDestroy (event);
}

static int
cuda_event_record (void *event, void *stream)
{
  return cu.cuEventRecord (event, stream);
}

static int
cuda_event_sync (void *event)
{
  return cu.cuEventSynchronize (event);
}

static int
cuda_event_query (void *event)
{
  return cu.cuEventQuery (event);
}

static int
cuda_event_elapsed (float *ms, void *start, void *end)
{
  return cu.cuEventElapsedTime (ms, start, end);
}

static int
cuda_copy_h2d (VhGpuPtr dst, const void *src, size_t size, void *stream)
{
  return cu.cuMemcpyHtoDAsync (dst, src, size, stream);
}

static int
cuda_copy_d2h (void *dst, VhGpuPtr src, size_t size, void *stream)
{
  return cu.cuMemcpyDtoHAsync (dst, src, size, stream);
}

static int
cuda_copy_d2d (VhGpuPtr dst, VhGpuPtr src, size_t size, void *stream)
{
  return cu.cuMemcpyDtoDAsync (dst, src, size, stream);
}

static int
cuda_copy_2d (const VhGpuCopy2D *copy, void *stream)
{
  CudaMemcpy2D params = {
    .srcMemoryType = copy->src_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE,
    .srcHost = copy->src_host,
    .srcDevice = copy->src_host ? 0 : copy->src_device,
    .srcPitch = copy->src_pitch,
    .dstMemoryType = copy->dst_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE,
    .dstHost = copy->dst_host,
    .dstDevice = copy->dst_host ? 0 : copy->dst_device,
    .dstPitch = copy->dst_pitch,
    .WidthInBytes = copy->width_bytes,
    .Height = copy->height,
  };
  return cu.cuMemcpy2DAsync (&params, stream);
}

/* From device memory of another context (another element's, or another
 * GPU's) into ours. */
static int
cuda_copy_2d_peer (const VhGpuCopy2D *copy, void *stream)
{
  CudaMemcpy3DPeer params = {
    .srcMemoryType = CU_MEMORYTYPE_DEVICE,
    .srcDevice = copy->src_device,
    .srcContext = copy->src_context,
    .srcPitch = copy->src_pitch,
    .srcHeight = copy->height,
    .dstMemoryType = CU_MEMORYTYPE_DEVICE,
    .dstDevice = copy->dst_device,
    .dstContext = copy->dst_context,
    .dstPitch = copy->dst_pitch,
    .dstHeight = copy->height,
    .WidthInBytes = copy->width_bytes,
    .Height = copy->height,
    .Depth = 1,
  };
  return cu.cuMemcpy3DPeerAsync (&params, stream);
}

static int
cuda_memset_d8 (VhGpuPtr dst, guint8 value, size_t size, void *stream)
{
  return cu.cuMemsetD8Async (dst, value, size, stream);
}

static int
cuda_memset_d32 (VhGpuPtr dst, guint32 value, size_t count, void *stream)
{
  return cu.cuMemsetD32Async (dst, value, count, stream);
}

static int
cuda_module_load (void **module, const void *image)
{
  return cu.cuModuleLoadData (module, image);
}

static int
cuda_module_unload (void *module)
{
  return cu.cuModuleUnload (module);
}

static int
cuda_module_get_function (void **function, void *module, const char *name)
{
  return cu.cuModuleGetFunction (function, module, name);
}

static int
cuda_launch (void *function, VhGpuDim3 grid, VhGpuDim3 block,
    unsigned int shared_bytes, void *stream, void **args)
{
  return cu.cuLaunchKernel (function, grid.x, grid.y, grid.z, block.x, block.y,
      block.z, shared_bytes, stream, args, NULL);
}

/* dmabuf fds are taken only by Tegra's driver (CUDA 13); elsewhere the
 * import fails and the element copies through host memory.  The driver
 * owns the descriptor of a successful import: it gets a duplicate. */
static int
cuda_import_dmabuf (int fd, size_t size, void **external)
{
  CudaExternalMemoryHandleDesc desc = {
    .type = CU_EXTERNAL_MEMORY_HANDLE_TYPE_DMABUF_FD,
    .size = size,
  };
  desc.handle.fd = dup (fd);
  if (desc.handle.fd < 0)
    return CUDA_ERROR_INVALID_VALUE;
  CUresult status = cu.cuImportExternalMemory (external, &desc);
  if (status != CUDA_SUCCESS)
    close (desc.handle.fd);
  return status;
}

static int
cuda_map_imported (void *external, size_t offset, size_t size, VhGpuPtr *ptr)
{
  CudaExternalMemoryBufferDesc desc = { .offset = offset, .size = size };
  CUdeviceptr address = 0;
  CUresult status = cu.cuExternalMemoryGetMappedBuffer (&address, external,
      &desc);
  *ptr = address;
  return status;
}

static int
cuda_destroy_imported (void *external, VhGpuPtr mapping)
{
  /* the mapping is freed like any allocation, before its memory object */
  CUresult status = mapping ? cu.cuMemFree (mapping) : CUDA_SUCCESS;
  CUresult destroyed = cu.cuDestroyExternalMemory (external);
  return status != CUDA_SUCCESS ? status : destroyed;
}

/* Which driver function each neutral call uses, for error messages: the
 * names come from the symbol list above (written once). */
static const VhGpuCallName cu_calls[] = {
  {VH_GPU_CALL_INIT, (void **) &cu.cuInit, NULL},
  {VH_GPU_CALL_DEVICE_COUNT, (void **) &cu.cuDeviceGetCount, NULL},
  {VH_GPU_CALL_DEVICE_NAME, (void **) &cu.cuDeviceGetName, NULL},
  {VH_GPU_CALL_DEVICE_ATTRIBUTE, (void **) &cu.cuDeviceGetAttribute, NULL},
  {VH_GPU_CALL_DEVICE_ARCH, NULL, "cuDeviceGetAttribute(compute capability)"},
  {VH_GPU_CALL_DEVICE_TOTAL_MEM, (void **) &cu.cuDeviceTotalMem, NULL},
  {VH_GPU_CALL_MEM_GET_INFO, (void **) &cu.cuMemGetInfo, NULL},
  {VH_GPU_CALL_CONTEXT_OPEN, (void **) &cu.cuDevicePrimaryCtxRetain, NULL},
  {VH_GPU_CALL_CONTEXT_CLOSE, (void **) &cu.cuDevicePrimaryCtxRelease, NULL},
  {VH_GPU_CALL_CONTEXT_BIND, (void **) &cu.cuCtxSetCurrent, NULL},
  {VH_GPU_CALL_MEM_ALLOC, (void **) &cu.cuMemAlloc, NULL},
  {VH_GPU_CALL_MEM_FREE, (void **) &cu.cuMemFree, NULL},
  {VH_GPU_CALL_HOST_ALLOC, (void **) &cu.cuMemHostAlloc, NULL},
  {VH_GPU_CALL_HOST_FREE, (void **) &cu.cuMemFreeHost, NULL},
  {VH_GPU_CALL_STREAM_CREATE, (void **) &cu.cuStreamCreate, NULL},
  {VH_GPU_CALL_STREAM_DESTROY, (void **) &cu.cuStreamDestroy, NULL},
  {VH_GPU_CALL_STREAM_SYNC, (void **) &cu.cuStreamSynchronize, NULL},
  {VH_GPU_CALL_STREAM_QUERY, (void **) &cu.cuStreamQuery, NULL},
  {VH_GPU_CALL_STREAM_WAIT_EVENT, (void **) &cu.cuStreamWaitEvent, NULL},
  {VH_GPU_CALL_EVENT_CREATE, (void **) &cu.cuEventCreate, NULL},
  {VH_GPU_CALL_EVENT_DESTROY, (void **) &cu.cuEventDestroy, NULL},
  {VH_GPU_CALL_EVENT_RECORD, (void **) &cu.cuEventRecord, NULL},
  {VH_GPU_CALL_EVENT_SYNC, (void **) &cu.cuEventSynchronize, NULL},
  {VH_GPU_CALL_EVENT_QUERY, (void **) &cu.cuEventQuery, NULL},
  {VH_GPU_CALL_EVENT_ELAPSED, (void **) &cu.cuEventElapsedTime, NULL},
  {VH_GPU_CALL_COPY_H2D, (void **) &cu.cuMemcpyHtoDAsync, NULL},
  {VH_GPU_CALL_COPY_D2H, (void **) &cu.cuMemcpyDtoHAsync, NULL},
  {VH_GPU_CALL_COPY_D2D, (void **) &cu.cuMemcpyDtoDAsync, NULL},
  {VH_GPU_CALL_COPY_2D, (void **) &cu.cuMemcpy2DAsync, NULL},
  {VH_GPU_CALL_COPY_2D_PEER, (void **) &cu.cuMemcpy3DPeerAsync, NULL},
  {VH_GPU_CALL_MEMSET_D8, (void **) &cu.cuMemsetD8Async, NULL},
  {VH_GPU_CALL_MEMSET_D32, (void **) &cu.cuMemsetD32Async, NULL},
  {VH_GPU_CALL_MODULE_LOAD, (void **) &cu.cuModuleLoadData, NULL},
  {VH_GPU_CALL_MODULE_UNLOAD, (void **) &cu.cuModuleUnload, NULL},
  {VH_GPU_CALL_MODULE_GET_FUNCTION, (void **) &cu.cuModuleGetFunction, NULL},
  {VH_GPU_CALL_LAUNCH, (void **) &cu.cuLaunchKernel, NULL},
  {VH_GPU_CALL_IMPORT_MEMORY, (void **) &cu.cuImportExternalMemory, NULL},
  {VH_GPU_CALL_MAP_IMPORTED, (void **) &cu.cuExternalMemoryGetMappedBuffer, NULL},
  {VH_GPU_CALL_DESTROY_IMPORTED, (void **) &cu.cuDestroyExternalMemory, NULL},
};

static VhGpuFuncs cuda_funcs = {
  .vendor = VH_GPU_VENDOR_NVIDIA,
  .status_not_ready = CUDA_ERROR_NOT_READY,
  .status_no_device = CUDA_ERROR_NO_DEVICE,
  .status_out_of_memory = CUDA_ERROR_OUT_OF_MEMORY,
  .status_no_binary = CUDA_ERROR_NO_BINARY_FOR_GPU,
  .status_invalid_image = CUDA_ERROR_INVALID_IMAGE,
  .status_unsupported_ptx = CUDA_ERROR_UNSUPPORTED_PTX_VERSION,
  .error_name = cuda_error_name,
  .error_string = cuda_error_string,
  .device_count = cuda_device_count,
  .device_name = cuda_device_name,
  .device_attribute = cuda_device_attribute,
  .device_arch = cuda_device_arch,
  .device_total_mem = cuda_device_total_mem,
  .mem_get_info = cuda_mem_get_info,
  .context_open = cuda_context_open,
  .context_close = cuda_context_close,
  .context_bind = cuda_context_bind,
  .mem_alloc = cuda_mem_alloc,
  .mem_free = cuda_mem_free,
  .host_alloc = cuda_host_alloc,
  .host_free = cuda_host_free,
  .stream_create = cuda_stream_create,
  .stream_destroy = cuda_stream_destroy,
  .stream_sync = cuda_stream_sync,
  .stream_query = cuda_stream_query,
  .stream_wait_event = cuda_stream_wait_event,
  .event_create = cuda_event_create,
  .event_destroy = cuda_event_destroy,
  .event_record = cuda_event_record,
  .event_sync = cuda_event_sync,
  .event_query = cuda_event_query,
  .event_elapsed = cuda_event_elapsed,
  .copy_h2d = cuda_copy_h2d,
  .copy_d2h = cuda_copy_d2h,
  .copy_d2d = cuda_copy_d2d,
  .copy_2d = cuda_copy_2d,
  .copy_2d_peer = cuda_copy_2d_peer,
  .memset_d8 = cuda_memset_d8,
  .memset_d32 = cuda_memset_d32,
  .module_load = cuda_module_load,
  .module_unload = cuda_module_unload,
  .module_get_function = cuda_module_get_function,
  .launch = cuda_launch,
  .import_dmabuf = cuda_import_dmabuf,
  .map_imported = cuda_map_imported,
  .destroy_imported = cuda_destroy_imported,
};

static const char *const cuda_libraries[] = {
  "libcuda.so.1",
  NULL
};

const VhGpuFuncs *
vh_gpu_load_cuda (GString *why)
{
  static GMutex lock;
  static gboolean loaded;
  const VhGpuFuncs *result = NULL;

  g_mutex_lock (&lock);
  if (!loaded) {
    const char *library = NULL;
    void *handle = vh_gpu_open_library (VH_GPU_VENDOR_NVIDIA, cuda_libraries,
        &library, why);
    if (handle && vh_gpu_resolve_symbols (handle, library, cuda_symbols,
            G_N_ELEMENTS (cuda_symbols), why)) {
      cuda_funcs.library = library;
      vh_gpu_name_calls (cuda_funcs.call_names, cu_calls,
          G_N_ELEMENTS (cu_calls), cuda_symbols, G_N_ELEMENTS (cuda_symbols));
      cuda_funcs.init_status = cu.cuInit (0);
      loaded = TRUE;
    }
    /* A library without the symbols we need stays open (closing a GPU
     * driver is not always safe); a retry gets the same handle back. */
  }
  if (loaded)
    result = &cuda_funcs;
  g_mutex_unlock (&lock);
  return result;
}
