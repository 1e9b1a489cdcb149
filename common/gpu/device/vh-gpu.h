/* vmafhip — GPU device layer: one API over AMD (HIP) and NVIDIA (CUDA driver).
 *
 * Nothing here links against a GPU SDK.  The vendor runtime is opened with
 * dlopen at the first vh_gpu_open():
 *   - AMD:    libamdhip64.so.7, .6, .5 (then the same names in /opt/rocm/lib);
 *   - NVIDIA: libcuda.so.1 (the driver, not the toolkit's libcudart).
 * vh_gpu_set_runtime_library names another (a soname or a path; only that
 * one is tried; VhConfig's hip_library and cuda_library).
 * Both vendors run the same kernel source (the .hip files in kernels/), compiled at build
 * time and embedded in the binary (see vh_gpu_module_load_embedded).
 *
 * Threads: a VhGpu may be used from any thread.  Every call that needs it
 * makes the device current on the calling thread first (CUDA: the device's
 * retained primary context, cuCtxSetCurrent; HIP: hipSetDevice).  Streams,
 * events and modules belong to their VhGpu; free them before closing it.
 *
 * Errors: every failure sets a GError in VH_ERROR, code VH_ERROR_GPU (or
 * VH_ERROR_INVALID_ARGUMENT for a bad argument), whose message names the
 * failed call and the vendor's error name and text. */
#ifndef VH_GPU_H
#define VH_GPU_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

G_BEGIN_DECLS

typedef enum {
  VH_GPU_VENDOR_AUTO = 0,  /* AMD first, then NVIDIA: the first with a device */
  VH_GPU_VENDOR_AMD,
  VH_GPU_VENDOR_NVIDIA,
} VhGpuVendor;

/* A device address.  An integer, not a host pointer: it cannot be
 * dereferenced on the host by mistake, and byte offsets are plain sums. */
typedef uint64_t VhGpuPtr;

typedef struct {
  unsigned int x, y, z;
} VhGpuDim3;

typedef struct VhGpu VhGpu;
typedef struct VhGpuStream VhGpuStream;
typedef struct VhGpuEvent VhGpuEvent;
typedef struct VhGpuModule VhGpuModule;
typedef struct VhGpuFunction VhGpuFunction;

/* ---- embedded kernel images (written by tools/embed-binary.py) ---------- */

/* One compiled form of one kernel source file. */
typedef struct {
  VhGpuVendor vendor;           /* AMD or NVIDIA */
  /* What the build asked for, comma-separated: "gfx900,gfx906,..." (an
   * offload bundle of code objects) or "sm_80,sm_90,compute_90" (a fatbin:
   * cubins, and PTX for newer GPUs). */
  const char *targets;
  const unsigned char *data;
  size_t size;
} VhGpuImage;

/* Every compiled form of one kernel source file (kernels/NAME.hip).  A build
 * without hipcc and nvcc has n_images == 0. */
typedef struct {
  const char *name;
  const VhGpuImage *images;
  unsigned int n_images;
} VhGpuImageSet;

/* ---- device ------------------------------------------------------------- */

/* Number of devices of vendor (AUTO: of the vendor vh_gpu_open would pick).
 * 0 and an error naming what is missing when there is none. */
int vh_gpu_device_count (VhGpuVendor vendor, GError **error);

/* Opens GPU device_id of the preferred vendor; device_id -1 means 0. A
 * handle of its own (reference count 1). */
VhGpu *vh_gpu_open (VhGpuVendor vendor, int device_id, GError **error);
/* The vendor's runtime to load instead of the usual names (NULL: those),
 * and where that name came from (for the error that names it, e.g. the
 * environment variable); for the whole process, before the first open. */
void vh_gpu_set_runtime_library (VhGpuVendor vendor, const char *library,
    const char *origin);
/* Both runtimes from the config's hip_library and cuda_library */
struct VhConfig;
void vh_gpu_use_config (const struct VhConfig *config);
/* The process's one handle on that device, opened at the first call and
 * shared by every caller after (each call adds a reference): every element
 * and pool of a process on one GPU uses one context. */
VhGpu *vh_gpu_acquire (VhGpuVendor vendor, int device_id, GError **error);
VhGpu *vh_gpu_ref (VhGpu *gpu);                    /* NULL-safe */
/* Drops a reference; the last one closes the device (NULL-safe). */
void vh_gpu_close (VhGpu *gpu);
int vh_gpu_refcount (const VhGpu *gpu);            /* 0 for NULL */

VhGpuVendor vh_gpu_vendor (const VhGpu *gpu);
const char *vh_gpu_vendor_name (const VhGpu *gpu);       /* "AMD", "NVIDIA" */
/* "AMD", "NVIDIA", also "auto" */
static inline const char *
vh_gpu_vendor_to_string (VhGpuVendor vendor)
{
  switch (vendor) {
    case VH_GPU_VENDOR_AUTO: return "auto";
    case VH_GPU_VENDOR_AMD: return "AMD";
    case VH_GPU_VENDOR_NVIDIA: return "NVIDIA";
  }
  return "unknown";
}
/* The runtime library that was loaded, e.g. "libcuda.so.1". */
const char *vh_gpu_library (const VhGpu *gpu);
int vh_gpu_device_id (const VhGpu *gpu);
const char *vh_gpu_device_name (const VhGpu *gpu);
/* The device's ISA name: "gfx90a" (AMD, target features dropped) or
 * "sm_90" (NVIDIA, from the compute capability). */
const char *vh_gpu_arch (const VhGpu *gpu);
int vh_gpu_warp_size (const VhGpu *gpu);              /* 32 or 64 */
int vh_gpu_max_threads_per_block (const VhGpu *gpu);
int vh_gpu_multiprocessor_count (const VhGpu *gpu);
size_t vh_gpu_max_shared_per_block (const VhGpu *gpu);
guint64 vh_gpu_total_memory (const VhGpu *gpu);
/* The device's memory in use now, by every process (total − free, as the
 * driver counts it): what a long run watches for growth. */
gboolean vh_gpu_memory_in_use (VhGpu *gpu, guint64 *bytes, GError **error);

/* The vendor's own handle of the device's context: NVIDIA, the CUcontext
 * (the device's primary context) to share with other CUDA users of the
 * process (GStreamer's CUDA elements); AMD, NULL. */
void *vh_gpu_native_context (const VhGpu *gpu);

/* Makes the device current on the calling thread.  Every function below
 * already does it; call this only before mixing in direct vendor calls. */
gboolean vh_gpu_bind (VhGpu *gpu, GError **error);

/* ---- memory ------------------------------------------------------------- */

/* Device memory.  Returns 0 on failure (size 0 is an invalid argument). */
VhGpuPtr vh_gpu_mem_alloc (VhGpu *gpu, size_t size, GError **error);
/* A feature context's scratch: device memory, or with gpu NULL zeroed host
 * memory standing in for it (the kernels' host emulation in the tests);
 * freed alike by vh_gpu_scratch_free (0 is ignored). */
VhGpuPtr vh_gpu_scratch_alloc (VhGpu *gpu, size_t size, GError **error);
void vh_gpu_scratch_free (VhGpu *gpu, VhGpuPtr mem);
void vh_gpu_mem_free (VhGpu *gpu, VhGpuPtr ptr);          /* 0 is ignored */

/* A read-only table in device memory shared by every user of the device
 * in the process (a VhGpu from vh_gpu_acquire is one per device), by name:
 * the first caller allocates size bytes and has fill write them (it
 * returns once they are written); later callers get the same memory.
 * Each successful acquire is paired with one release; the last release
 * frees it.  Returns 0 on failure (fill's error, or out of memory). */
typedef gboolean (*VhGpuTableFill) (VhGpu *gpu, VhGpuPtr mem, void *data,
    GError **error);
VhGpuPtr vh_gpu_table_acquire (VhGpu *gpu, const char *name, size_t size,
    VhGpuTableFill fill, void *data, GError **error);
void vh_gpu_table_release (VhGpu *gpu, const char *name);

/* Page-locked ("pinned") host memory: the only host memory that copies
 * asynchronously at full bus speed.  NULL on failure. */
void *vh_gpu_host_alloc (VhGpu *gpu, size_t size, GError **error);
void vh_gpu_host_free (VhGpu *gpu, void *ptr);            /* NULL is ignored */

/* Whether [ptr, ptr + size) lies inside one block of vh_gpu_host_alloc that
 * is not freed yet (any VhGpu, any thread: the registry is process-wide).
 * Lets a caller that holds mere pointers (a mapped GstBuffer) copy straight
 * from them without a staging copy.  FALSE for NULL, for a range that
 * wraps around, or one that spans two blocks; size 0 asks about ptr. */
gboolean vh_gpu_host_contains (const void *ptr, size_t size);

/* ---- imported memory (dmabuf) -------------------------------------------- */

/* Another driver's buffer (a dmabuf: VA-API, v4l2, udmabuf) read in place.
 * AMD imports it as HIP external memory; NVIDIA's driver takes dmabufs only
 * on Tegra, elsewhere the import fails with the driver's reason.  The whole
 * dmabuf (size bytes) is imported; fd stays the caller's (the drivers hold
 * the buffer itself, not the descriptor).  The import holds a reference on
 * gpu and is freed from any thread. */
typedef struct VhGpuImport VhGpuImport;

VhGpuImport *vh_gpu_import_dmabuf (VhGpu *gpu, int fd, size_t size,
    GError **error);
void vh_gpu_import_free (VhGpuImport *import);           /* NULL is ignored */
VhGpu *vh_gpu_import_device (const VhGpuImport *import);
/* The device address of byte 0 of the dmabuf. */
VhGpuPtr vh_gpu_import_address (const VhGpuImport *import);
size_t vh_gpu_import_size (const VhGpuImport *import);

/* ---- streams and events ------------------------------------------------- */

/* A stream that does not synchronise with the legacy default stream.
 * Copies, memsets and waits need a stream; vh_gpu_launch and
 * vh_gpu_event_record also take NULL, for the device's default stream. */
VhGpuStream *vh_gpu_stream_new (VhGpu *gpu, GError **error);
/* The same at the device's highest priority: where both have work ready,
 * the GPU starts this stream's first (for work that many others wait
 * for, such as the reference's share of a ladder's kernels). */
VhGpuStream *vh_gpu_stream_new_urgent (VhGpu *gpu, GError **error);
void vh_gpu_stream_free (VhGpuStream *stream);
gboolean vh_gpu_stream_sync (VhGpuStream *stream, GError **error);
/* *idle is TRUE when all work queued on the stream has finished. */
gboolean vh_gpu_stream_query (VhGpuStream *stream, gboolean *idle, GError **error);
/* Work queued on stream after this call waits for event. */
gboolean vh_gpu_stream_wait_event (VhGpuStream *stream, VhGpuEvent *event,
    GError **error);

/* timing: FALSE makes a lighter event, for synchronisation only; waiting
 * on it (vh_gpu_event_sync) sleeps instead of spinning a core. */
VhGpuEvent *vh_gpu_event_new (VhGpu *gpu, gboolean timing, GError **error);
void vh_gpu_event_free (VhGpuEvent *event);
gboolean vh_gpu_event_record (VhGpuEvent *event, VhGpuStream *stream, GError **error);
gboolean vh_gpu_event_sync (VhGpuEvent *event, GError **error);
/* *done is TRUE when the work before the last record has finished. */
gboolean vh_gpu_event_query (VhGpuEvent *event, gboolean *done, GError **error);
/* Milliseconds between two recorded, completed timing events. */
gboolean vh_gpu_event_elapsed_ms (VhGpuEvent *start, VhGpuEvent *end, float *ms,
    GError **error);

/* ---- copies (asynchronous on stream; host memory should be pinned) ------ */

gboolean vh_gpu_copy_h2d_async (VhGpuStream *stream, VhGpuPtr dst,
    const void *src, size_t size, GError **error);
gboolean vh_gpu_copy_d2h_async (VhGpuStream *stream, void *dst, VhGpuPtr src,
    size_t size, GError **error);
gboolean vh_gpu_copy_d2d_async (VhGpuStream *stream, VhGpuPtr dst, VhGpuPtr src,
    size_t size, GError **error);
/* Copies height rows of width_bytes each; pitches are the row strides. */
gboolean vh_gpu_copy2d_h2d_async (VhGpuStream *stream, VhGpuPtr dst,
    size_t dst_pitch, const void *src, size_t src_pitch, size_t width_bytes,
    size_t height, GError **error);
gboolean vh_gpu_copy2d_d2h_async (VhGpuStream *stream, void *dst,
    size_t dst_pitch, VhGpuPtr src, size_t src_pitch, size_t width_bytes,
    size_t height, GError **error);
/* From device memory, which may belong to another context of the process
 * (src_context: a CUDA CUcontext, e.g. an upstream element's; NULL or
 * vh_gpu_native_context: this device's own): copied between contexts
 * on the copy engines, never through host memory.  HIP ignores
 * src_context (one address space for the process). */
gboolean vh_gpu_copy2d_d2d_async (VhGpuStream *stream, VhGpuPtr dst,
    size_t dst_pitch, void *src_context, VhGpuPtr src, size_t src_pitch,
    size_t width_bytes, size_t height, GError **error);
/* Sets size bytes to value. */
gboolean vh_gpu_memset_async (VhGpuStream *stream, VhGpuPtr dst, guint8 value,
    size_t size, GError **error);
/* Sets count 32-bit words to value (dst 4-byte aligned). */
gboolean vh_gpu_memset32_async (VhGpuStream *stream, VhGpuPtr dst,
    guint32 value, size_t count, GError **error);

/* ---- kernels ------------------------------------------------------------ */

/* Loads this vendor's image from a set: the NVIDIA fatbin (the driver picks
 * the cubin or JIT-compiles the PTX), or the AMD bundle when it holds a code
 * object for the device's gfx arch.  Otherwise fails with "kernel image not
 * loadable for this GPU (gfx1100; built for gfx900, gfx906, ...)". */
VhGpuModule *vh_gpu_module_load_embedded (VhGpu *gpu, const VhGpuImageSet *set,
    GError **error);
/* Loads one image (code object, bundle, cubin, fatbin or NUL-ended PTX). */
VhGpuModule *vh_gpu_module_load_data (VhGpu *gpu, const void *image,
    GError **error);
void vh_gpu_module_free (VhGpuModule *module);

/* Looks up an extern "C" kernel.  The function belongs to the module (valid
 * until vh_gpu_module_free); asking twice returns the same one. */
VhGpuFunction *vh_gpu_function (VhGpuModule *module, const char *name,
    GError **error);

/* Queues fn on stream.  args[i] points at the value of the kernel's i-th
 * parameter (a VhGpuPtr for a pointer parameter).  shared_bytes is the
 * dynamic shared memory per block. */
gboolean vh_gpu_launch (VhGpuFunction *fn, VhGpuDim3 grid, VhGpuDim3 block,
    unsigned int shared_bytes, VhGpuStream *stream, void **args, GError **error);

/* ---- images ------------------------------------------------------------- */

/* Returns the first image of vendor in set, or NULL. */
const VhGpuImage *vh_gpu_image_set_find (const VhGpuImageSet *set,
    VhGpuVendor vendor);

/* The image of vendor in set that can run on a GPU of this arch ("gfx1100",
 * "sm_75"; "unknown" takes the first): AMD, an image with a code object
 * for exactly that arch, else one with the generic target covering it
 * (vh_gpu_amd_generic_target); NVIDIA, a cubin of the same major version
 * and no higher minor, or PTX of a version no higher.  NULL when none can.
 * *built_for (g_free; NULL for an empty set) lists the targets the
 * vendor's images hold, or, with none of this vendor, what the set holds. */
const VhGpuImage *vh_gpu_image_set_choose (const VhGpuImageSet *set,
    VhGpuVendor vendor, const char *arch, char **built_for);

/* How one list of AMD targets fits a device arch, worst to best. */
typedef enum {
  VH_GPU_IMAGE_FIT_NONE,
  VH_GPU_IMAGE_FIT_GENERIC,     /* the generic target of the arch's family */
  VH_GPU_IMAGE_FIT_EXACT,       /* the arch itself */
} VhGpuImageFit;
VhGpuImageFit vh_gpu_amd_fit (const char *arch, gchar **targets);
/* The generic target whose code objects run on an AMD arch ("gfx1036" ->
 * "gfx10-3-generic"), NULL when it is in no generic family. */
const char *vh_gpu_amd_generic_target (const char *arch);
/* The rules above for one list of targets (AMD: exact or generic). */
gboolean vh_gpu_amd_can_run (const char *arch, gchar **targets);
gboolean vh_gpu_nvidia_can_run (const char *arch, gchar **targets);

/* ---- kernel resources (read from the images at build time) --------------- */

/* One kernel on one target, as tools/gpu-resources.py read it from the
 * compiled image (AMD: the code object's metadata; NVIDIA: ptxas's report
 * of the compilation that wrote the cubin). */
typedef struct {
  VhGpuVendor vendor;
  const char *target;            /* "gfx1100", "sm_90" */
  const char *module;            /* "adm": kernels/adm.hip */
  const char *kernel;
  unsigned int registers;        /* AMD VGPRs (gfx90a/gfx942: with AGPRs);
                                    NVIDIA registers, a thread */
  unsigned int scalar_registers; /* AMD SGPRs; 0 on NVIDIA */
  unsigned int shared_bytes;     /* LDS / static shared memory, a workgroup */
  unsigned int scratch_bytes;    /* AMD private segment / NVIDIA stack frame,
                                    a thread */
  unsigned int spills;           /* AMD VGPRs spilled / NVIDIA spill-store
                                    bytes: 0, or the build fails unless */
  gboolean spill_accepted;       /* kernels/spills-accepted.txt accepts it */
  unsigned int scalar_spills;    /* AMD SGPRs spilled (into VGPR lanes) */
  unsigned int wave_size;
  unsigned int max_threads;      /* the launch bound */
  unsigned int occupancy;        /* AMD waves per SIMD, NVIDIA warps per SM */
  unsigned int occupancy_max;
  const char *limited_by;        /* what sets the occupancy */
} VhGpuKernelResources;

/* One target of one image: the code object's facts (AMD). */
typedef struct {
  VhGpuVendor vendor;
  const char *target;
  const char *image_targets;     /* the image's VhGpuImage.targets */
  unsigned int code_object_version;   /* AMD: 4, 5, 6; 0 on NVIDIA */
  const char *xnack, *sramecc;   /* "any", "unsupported" (AMD) */
  const char *first_rocm;        /* the first ROCm release whose loader reads
                                    it (tools/gpu-resources.py); "" NVIDIA */
} VhGpuTargetFacts;

typedef struct {
  const VhGpuTargetFacts *targets;
  unsigned int n_targets;
  const VhGpuKernelResources *kernels;
  unsigned int n_kernels;
} VhGpuResourceTable;

/* Reads the targets an image really carries, from its bytes: "gfx900", ...
 * for an AMD offload bundle or code object; "sm_80", "sm_90", "compute_90"
 * for an NVIDIA fatbin (cubins as sm_NN, PTX as compute_NN).  NULL-ended;
 * g_strfreev() it.  NULL and an error when the bytes are not recognised. */
gchar **vh_gpu_image_read_targets (const VhGpuImage *image, GError **error);

G_END_DECLS
#endif /* VH_GPU_H */
