/* vmafhip — the GPU device layer's private parts, shared by gpu.c (errors,
 * devices) and gpu-work.c (memory, streams, events, copies, modules,
 * launches). */
#ifndef VH_GPU_PRIVATE_H
#define VH_GPU_PRIVATE_H

#include <string.h>

#include "vh-error.h"
#include "vh-gpu-funcs.h"

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
  GMutex tables_lock;
  GHashTable *tables;       /* name -> VhGpuTable *: vh_gpu_table_acquire */
  /* frees the tables still held at the last close: set with the first
   * table (gpu-work.c), called by gpu.c */
  void (*tables_clear) (VhGpu *gpu);
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

/* Error helpers (gpu.c): a status as text, a failed call as a GError, a
 * failed release as a warning, an invalid argument. */
char *vh_gpu_describe_status (const VhGpuFuncs *f, int status);
gboolean vh_gpu_call_ok (const VhGpuFuncs *f, int status, VhGpuCall call,
    GError **error);
void vh_gpu_warn_if_failed (const VhGpuFuncs *f, int status, VhGpuCall call);
gboolean vh_gpu_invalid (GError **error, const char *message);
/* Makes the device current on this thread (gpu.c). */
gboolean vh_gpu_make_current_or_warn (VhGpu *gpu);
gboolean vh_gpu_make_current (VhGpu *gpu, GError **error);


#endif /* VH_GPU_PRIVATE_H */
