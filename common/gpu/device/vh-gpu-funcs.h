/* vmafhip — the one function table both vendor loaders fill (internal).
 *
 * gpu.c calls the GPU only through a VhGpuFuncs.  gpu-loader-hip.c fills it
 * from libamdhip64 (hip* symbols), gpu-loader-cuda.c from libcuda.so.1 (cu*
 * driver symbols, _v2 variants).  Each entry is a small adapter with a
 * vendor-neutral signature that returns the vendor's own status code (0 is
 * success), so error messages can quote the vendor's name for it. */
#ifndef VH_GPU_FUNCS_H
#define VH_GPU_FUNCS_H

#include "vh-gpu.h"

G_BEGIN_DECLS

/* The calls, to name the vendor symbol in error messages. */
typedef enum {
  VH_GPU_CALL_INIT,
  VH_GPU_CALL_DEVICE_COUNT,
  VH_GPU_CALL_DEVICE_NAME,
  VH_GPU_CALL_DEVICE_ATTRIBUTE,
  VH_GPU_CALL_DEVICE_ARCH,
  VH_GPU_CALL_DEVICE_TOTAL_MEM,
  VH_GPU_CALL_MEM_GET_INFO,
  VH_GPU_CALL_CONTEXT_OPEN,
  VH_GPU_CALL_CONTEXT_CLOSE,
  VH_GPU_CALL_CONTEXT_BIND,
  VH_GPU_CALL_MEM_ALLOC,
  VH_GPU_CALL_MEM_FREE,
  VH_GPU_CALL_HOST_ALLOC,
  VH_GPU_CALL_HOST_FREE,
  VH_GPU_CALL_STREAM_CREATE,
  VH_GPU_CALL_STREAM_DESTROY,
  VH_GPU_CALL_STREAM_SYNC,
  VH_GPU_CALL_STREAM_QUERY,
  VH_GPU_CALL_STREAM_WAIT_EVENT,
  VH_GPU_CALL_EVENT_CREATE,
  VH_GPU_CALL_EVENT_DESTROY,
  VH_GPU_CALL_EVENT_RECORD,
  VH_GPU_CALL_EVENT_SYNC,
  VH_GPU_CALL_EVENT_QUERY,
  VH_GPU_CALL_EVENT_ELAPSED,
  VH_GPU_CALL_COPY_H2D,
  VH_GPU_CALL_COPY_D2H,
  VH_GPU_CALL_COPY_D2D,
  VH_GPU_CALL_COPY_2D,
  VH_GPU_CALL_COPY_2D_PEER,
  VH_GPU_CALL_MEMSET_D8,
  VH_GPU_CALL_MEMSET_D32,
  VH_GPU_CALL_MODULE_LOAD,
  VH_GPU_CALL_MODULE_UNLOAD,
  VH_GPU_CALL_MODULE_GET_FUNCTION,
  VH_GPU_CALL_LAUNCH,
  VH_GPU_CALL_IMPORT_MEMORY,
  VH_GPU_CALL_MAP_IMPORTED,
  VH_GPU_CALL_DESTROY_IMPORTED,
  VH_GPU_N_CALLS
} VhGpuCall;

typedef enum {
  VH_GPU_ATTR_WARP_SIZE,
  VH_GPU_ATTR_MAX_THREADS_PER_BLOCK,
  VH_GPU_ATTR_MULTIPROCESSOR_COUNT,
  VH_GPU_ATTR_MAX_SHARED_PER_BLOCK,
  VH_GPU_ATTR_COMPUTE_MAJOR,
  VH_GPU_ATTR_COMPUTE_MINOR,
} VhGpuAttribute;

/* A 2-D copy; exactly one of the host and device addresses of each side is
 * set (a host pointer that is not NULL, else the device address). */
typedef struct {
  void *dst_host;
  VhGpuPtr dst_device;
  size_t dst_pitch;
  const void *src_host;
  VhGpuPtr src_device;
  size_t src_pitch;
  size_t width_bytes;
  size_t height;
  /* Device memory of another context (CUDA; NULL: the device's own):
   * copied with copy_2d_peer, into dst_context. */
  void *src_context;
  void *dst_context;
} VhGpuCopy2D;

typedef struct {
  VhGpuVendor vendor;
  const char *library;                 /* the file dlopen accepted */
  int init_status;                     /* the vendor init call's result */
  const char *call_names[VH_GPU_N_CALLS];

  /* Codes with a meaning here (equal today in CUDA and HIP; kept per vendor
   * rather than assumed). */
  int status_not_ready;
  int status_no_device;
  int status_out_of_memory;
  int status_no_binary;        /* no code for this GPU in the image */
  int status_invalid_image;
  int status_unsupported_ptx;  /* NVIDIA: PTX newer than the driver; else -1 */

  /* NULL-safe: return NULL when the vendor does not know the code. */
  const char *(*error_name) (int status);
  const char *(*error_string) (int status);

  int (*device_count) (int *count);
  int (*device_name) (int device, char *name, int len);
  int (*device_attribute) (int device, VhGpuAttribute attr, int *value);
  /* The ISA name ("gfx90a", "sm_90") into arch[len]. */
  int (*device_arch) (int device, char *arch, size_t len);
  int (*device_total_mem) (int device, size_t *bytes);
  /* the bound device's free and total memory (every process's use) */
  int (*mem_get_info) (size_t *free_bytes, size_t *total_bytes);

  /* CUDA retains the primary context of device into *context; HIP keeps
   * none (NULL).  bind makes it current on the calling thread. */
  int (*context_open) (int device, void **context);
  int (*context_close) (int device, void *context);
  int (*context_bind) (int device, void *context);

  int (*mem_alloc) (VhGpuPtr *ptr, size_t size);
  int (*mem_free) (VhGpuPtr ptr);
  int (*host_alloc) (void **ptr, size_t size);
  int (*host_free) (void *ptr);

  /* urgent: the device's highest stream priority (work that others wait
   * for), else the default */
  int (*stream_create) (void **stream, int urgent);
  int (*stream_destroy) (void *stream);
  int (*stream_sync) (void *stream);
  int (*stream_query) (void *stream);
  int (*stream_wait_event) (void *stream, void *event);

  int (*event_create) (void **event, gboolean timing);
  int (*event_destroy) (void *event);
  int (*event_record) (void *event, void *stream);
  int (*event_sync) (void *event);
  int (*event_query) (void *event);
  int (*event_elapsed) (float *ms, void *start, void *end);

  int (*copy_h2d) (VhGpuPtr dst, const void *src, size_t size, void *stream);
  int (*copy_d2h) (void *dst, VhGpuPtr src, size_t size, void *stream);
  int (*copy_d2d) (VhGpuPtr dst, VhGpuPtr src, size_t size, void *stream);
  int (*copy_2d) (const VhGpuCopy2D *copy, void *stream);
  /* device to device across contexts (CUDA); NULL where one address space
   * holds every device pointer of the process (HIP) */
  int (*copy_2d_peer) (const VhGpuCopy2D *copy, void *stream);
  int (*memset_d8) (VhGpuPtr dst, guint8 value, size_t size, void *stream);
  int (*memset_d32) (VhGpuPtr dst, guint32 value, size_t count, void *stream);

  int (*module_load) (void **module, const void *image);
  int (*module_unload) (void *module);
  int (*module_get_function) (void **function, void *module, const char *name);
  int (*launch) (void *function, VhGpuDim3 grid, VhGpuDim3 block,
      unsigned int shared_bytes, void *stream, void **args);

  /* External memory: the dmabuf behind fd (size bytes) into the device's
   * address space.  The caller keeps fd: an adapter whose driver takes
   * ownership of the descriptor it is given passes a duplicate. */
  int (*import_dmabuf) (int fd, size_t size, void **external);
  /* [offset, offset + size) of it as a device address */
  int (*map_imported) (void *external, size_t offset, size_t size,
      VhGpuPtr *ptr);
  /* releases the mapping (0: none) and the import */
  int (*destroy_imported) (void *external, VhGpuPtr mapping);
} VhGpuFuncs;

/* Loads the vendor's runtime: the first library that loads wins and stays
 * loaded for the life of the process (it is never unloaded); a failure is
 * retried on the next call.  Returns NULL and appends the reason (the
 * libraries tried, dlerror, a missing symbol) to why. */
const VhGpuFuncs *vh_gpu_load_hip (GString *why);
const VhGpuFuncs *vh_gpu_load_cuda (GString *why);

/* ---- helpers shared by the loaders (gpu-loader.c) ---- */

typedef struct {
  const char *name;
  const char *fallback;  /* an older name to try when name is missing, or NULL */
  void **slot;           /* where to store the address */
} VhGpuSymbol;

/* dlopens the first of candidates that loads, or only the library set for
 * the vendor with vh_gpu_set_runtime_library.  Returns the handle and the
 * name that loaded (a string that lives forever), or NULL with the names
 * tried and the loader's reasons appended to why. */
void *vh_gpu_open_library (VhGpuVendor vendor,
    const char *const *candidates, const char **loaded_name, GString *why);

/* A neutral call and the driver function it uses (its symbol's address
 * slot), or a text where no one function says it. */
typedef struct {
  int call;              /* VH_GPU_CALL_* */
  void **slot;           /* a VhGpuSymbol's slot, or NULL */
  const char *text;      /* used when slot is NULL */
} VhGpuCallName;

/* Names each call after the symbol whose slot it uses, so that a driver
 * function's name is written once, in the symbol list. */
void vh_gpu_name_calls (const char **call_names, const VhGpuCallName *calls,
    size_t n_calls, const VhGpuSymbol *symbols, size_t n_symbols);

/* Resolves every symbol; FALSE (and the first missing name in why) when one
 * is missing. */
gboolean vh_gpu_resolve_symbols (void *handle, const char *library,
    const VhGpuSymbol *symbols, size_t n_symbols, GString *why);

G_END_DECLS
#endif /* VH_GPU_FUNCS_H */
