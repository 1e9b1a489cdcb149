/* vmafhip — a stand-in for AMD's HIP runtime (libamdhip64), for tests on
 * machines without an AMD GPU: one "gfx90a" device (VH_MOCK_HIP_DEVICES=N:
 * N alike ones, hipSetDevice and the device queries taking 0 to N-1, every
 * device's memory the same host heap) whose memory is host memory.  Copies and memsets are done at once; kernels do nothing (their
 * results are not to be read).  dmabuf imports mmap the descriptor, so an
 * imported buffer reads back what its producer wrote.
 *
 * Loaded by the HIP loader through VMAFHIP_HIP_LIBRARY.  Tests read its
 * counters with vh_mock_hip_counters (), vh_mock_hip_host_allocs (),
 * vh_mock_hip_host_refused (), vh_mock_hip_copy_bytes (),
 * vh_mock_hip_event_syncs (), vh_mock_hip_launches (name) and
 * vh_mock_hip_device_launches (device), and make
 * imports fail with VH_MOCK_HIP_REFUSE_IMPORT=1, pinned host allocations
 * after the first N fail with VH_MOCK_HIP_HOST_MALLOC_AFTER=N, device
 * allocations above N bytes run out of memory with
 * VH_MOCK_HIP_MALLOC_LIMIT=N, and kernel launches fail with
 * VH_MOCK_HIP_FAIL_LAUNCH=1, or after the first N of the process with
 * VH_MOCK_HIP_FAIL_LAUNCH_AFTER=N; copies fail after the first N with
 * VH_MOCK_HIP_FAIL_COPY_AFTER=N; with VH_MOCK_HIP_LOST_AFTER=N the device
 * disappears after the first N launches: every call after fails with
 * hipErrorNoDevice, the frees and destroys too (their memory is released
 * all the same); device N loads no module with VH_MOCK_HIP_BAD_DEVICE=N
 * (set them before the first call).  VH_MOCK_HIP_ARCH=gfxNNNN makes the
 * devices that arch, and then a module loads, as HIP's do, only from an
 * offload bundle with a code object for the arch, or for the generic
 * target VH_MOCK_HIP_GENERIC names (what a runtime of ROCm 6.4 or later
 * runs on it; unset: an older runtime), else hipErrorNoBinaryForGpu;
 * vh_mock_hip_last_module_image () is the image last loaded.  Only the
 * symbols the loader resolves. */
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

typedef int hipError_t;

enum {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorInvalidDevice = 101,
  hipErrorNoDevice = 100,
  hipErrorNoBinaryForGpu = 209,
};

typedef struct {
  int type;
  union {
    int fd;
    struct { void *handle; const void *name; } win32;
  } handle;
  unsigned long long size;
  unsigned int flags;
} MockHandleDesc;

typedef struct {
  unsigned long long offset;
  unsigned long long size;
  unsigned int flags;
} MockBufferDesc;

typedef struct {
  void *map;
  size_t size;
  int mapped;               /* mappings handed out and not freed */
} MockExternal;

#define MAX_MAPPINGS 256
static struct {
  int imports_live;
  int imports_total;
  void *mappings[MAX_MAPPINGS];   /* mapped addresses not yet freed */
  int mappings_live;
  unsigned long long launches;  /* VH_MOCK_HIP_FAIL_LAUNCH_AFTER's count */
  unsigned long long copies;    /* VH_MOCK_HIP_FAIL_COPY_AFTER's count */
  /* bytes moved by 2-D copies, host to device and device to device */
  unsigned long long h2d_2d_bytes, d2d_2d_bytes;
  unsigned long long event_syncs;
  int host_allocs;          /* pinned blocks ever asked for */
  int host_refused;         /* of them, refused (HOST_MALLOC_AFTER) */
  size_t device_bytes;          /* hipMalloc's blocks now held */
  unsigned long long lost_launches;     /* VH_MOCK_HIP_LOST_AFTER's count */
  int lost;                     /* the device has gone */
} mock;
/* elements free imports from upstream's threads */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The test's view. */
void
vh_mock_hip_counters (int *imports_live, int *imports_total, int *mappings_live)
{
  pthread_mutex_lock (&lock);
  *imports_live = mock.imports_live;
  *imports_total = mock.imports_total;
  *mappings_live = mock.mappings_live;
  pthread_mutex_unlock (&lock);
}

/* VH_MOCK_HIP_LOST_AFTER=N: counts a launch; TRUE once the device has
 * gone (from the launch after the first N on) */
static int
lost_at_launch (void)
{
  const char *after = getenv ("VH_MOCK_HIP_LOST_AFTER");
  if (!after)
    return 0;
  pthread_mutex_lock (&lock);
  if (++mock.lost_launches > strtoull (after, NULL, 10))
    mock.lost = 1;
  const int lost = mock.lost;
  pthread_mutex_unlock (&lock);
  return lost;
}

static int
lost (void)
{
  pthread_mutex_lock (&lock);
  const int gone = mock.lost;
  pthread_mutex_unlock (&lock);
  return gone;
}

/* after a call that releases what it was given */
#define GONE_OR(status) (lost () ? hipErrorNoDevice : (status))
/* before a call that does something */
#define RETURN_IF_GONE() do { if (lost ()) return hipErrorNoDevice; } while (0)

/* VH_MOCK_HIP_DEVICES=N: N alike devices (default 1) */
static int
device_count (void)
{
  const char *n = getenv ("VH_MOCK_HIP_DEVICES");
  const int count = n ? atoi (n) : 1;
  return count >= 0 ? count : 0;
}

static hipError_t
check_device (int device)
{
  return device >= 0 && device < device_count () ? hipSuccess
      : hipErrorInvalidDevice;
}

hipError_t hipInit (unsigned int flags) { (void) flags; return hipSuccess; }

const char *
hipGetErrorName (hipError_t status)
{
  switch (status) {
    case hipSuccess: return "hipSuccess";
    case hipErrorInvalidValue: return "hipErrorInvalidValue";
    case hipErrorOutOfMemory: return "hipErrorOutOfMemory";
    case hipErrorInvalidDevice: return "hipErrorInvalidDevice";
    case hipErrorNoDevice: return "hipErrorNoDevice";
    case hipErrorNoBinaryForGpu: return "hipErrorNoBinaryForGpu";
    default: return "hipErrorUnknown";
  }
}

const char *
hipGetErrorString (hipError_t status)
{
  return status == hipErrorInvalidValue ? "invalid argument (mock)"
      : status == hipErrorNoDevice ? "no ROCm-capable device is detected "
      "(mock: the device has gone)" : "mock HIP error";
}

hipError_t
hipGetDeviceCount (int *count)
{
  *count = device_count ();
  return *count ? hipSuccess : hipErrorNoDevice;
}

hipError_t
hipDeviceGetName (char *name, int len, int device)
{
  if (len > 0) {
    strncpy (name, "vmafhip mock GPU", (size_t) len - 1);
    name[len - 1] = '\0';
  }
  return check_device (device);
}

hipError_t
hipDeviceGetAttribute (int *value, int attribute, int device)
{
  switch (attribute) {
    case 23: *value = 9; break;          /* compute major */
    case 56: *value = 1024; break;       /* threads per block */
    case 61: *value = 0; break;          /* compute minor */
    case 63: *value = 4; break;          /* multiprocessors */
    case 74: *value = 65536; break;      /* shared memory per block */
    case 87: *value = 64; break;         /* wavefront */
    default: *value = 0; break;
  }
  return check_device (device);
}

/* The name at the start, gcnArchName further on (the loader finds it by
 * content, as it does in either of HIP's layouts). */
hipError_t
hipGetDevicePropertiesR0600 (void *properties, int device)
{
  strcpy (properties, "vmafhip mock GPU");
  const char *arch = getenv ("VH_MOCK_HIP_ARCH");
  strcpy ((char *) properties + 1160, arch ? arch : "gfx90a:sramecc+:xnack-");
  return check_device (device);
}

hipError_t
hipDeviceTotalMem (size_t *bytes, int device)
{
  *bytes = (size_t) 16 << 30;
  return check_device (device);
}

/* hipSetDevice's, per thread as HIP's; the launches per device */
#define MOCK_MAX_DEVICES 16
static __thread int current_device;
static unsigned long long device_launches[MOCK_MAX_DEVICES];

hipError_t
hipSetDevice (int device)
{
  const hipError_t status = check_device (device);
  if (status == hipSuccess)
    current_device = device;
  return status;
}

/* the test's view: kernel launches on `device` (the calling thread's
 * hipSetDevice's at the launch) */
unsigned long long
vh_mock_hip_device_launches (int device)
{
  unsigned long long n = 0;
  pthread_mutex_lock (&lock);
  if (device >= 0 && device < MOCK_MAX_DEVICES)
    n = device_launches[device];
  pthread_mutex_unlock (&lock);
  return n;
}

/* the device allocations: host memory, up to VH_MOCK_HIP_MALLOC_LIMIT */
static hipError_t
device_alloc (void **ptr, size_t size)
{
  if (lost ()) {
    *ptr = NULL;
    return hipErrorNoDevice;
  }
  const char *limit = getenv ("VH_MOCK_HIP_MALLOC_LIMIT");
  if (limit && size > strtoull (limit, NULL, 10)) {
    *ptr = NULL;
    return hipErrorOutOfMemory;
  }
  *ptr = calloc (1, size);
  if (!*ptr)
    return hipErrorOutOfMemory;
  pthread_mutex_lock (&lock);
  mock.device_bytes += malloc_usable_size (*ptr);
  pthread_mutex_unlock (&lock);
  return hipSuccess;
}

/* what hipMalloc holds (the blocks' usable sizes) out of the 16 GiB */
hipError_t
hipMemGetInfo (size_t *free_bytes, size_t *total_bytes)
{
  pthread_mutex_lock (&lock);
  *total_bytes = (size_t) 16 << 30;
  *free_bytes = *total_bytes - (mock.device_bytes < *total_bytes
      ? mock.device_bytes : *total_bytes);
  pthread_mutex_unlock (&lock);
  return hipSuccess;
}

hipError_t
hipMalloc (void **ptr, size_t size)
{
  return device_alloc (ptr, size);
}

hipError_t
hipFree (void *ptr)
{
  pthread_mutex_lock (&lock);
  for (int i = 0; i < MAX_MAPPINGS; i++)
    if (ptr && mock.mappings[i] == ptr) {
      /* a mapping of an import: the import's memory, not ours to free */
      mock.mappings[i] = NULL;
      mock.mappings_live--;
      pthread_mutex_unlock (&lock);
      return hipSuccess;
    }
  if (ptr)
    mock.device_bytes -= malloc_usable_size (ptr);
  pthread_mutex_unlock (&lock);
  free (ptr);
  return GONE_OR (hipSuccess);
}

/* VH_MOCK_HIP_HOST_MALLOC_AFTER=N: the pinned allocations after the
 * first N of the process run out of memory (read at each call) */
hipError_t
hipHostMalloc (void **ptr, size_t size, unsigned int flags)
{
  (void) flags;
  const char *after = getenv ("VH_MOCK_HIP_HOST_MALLOC_AFTER");
  pthread_mutex_lock (&lock);
  const unsigned long long n = (unsigned long long) ++mock.host_allocs;
  const int refuse = after && n > strtoull (after, NULL, 10);
  mock.host_refused += refuse;
  pthread_mutex_unlock (&lock);
  *ptr = refuse ? NULL : calloc (1, size);
  return *ptr ? hipSuccess : hipErrorOutOfMemory;
}

int
vh_mock_hip_host_refused (void)
{
  pthread_mutex_lock (&lock);
  const int n = mock.host_refused;
  pthread_mutex_unlock (&lock);
  return n;
}

int
vh_mock_hip_host_allocs (void)
{
  pthread_mutex_lock (&lock);
  const int n = mock.host_allocs;
  pthread_mutex_unlock (&lock);
  return n;
}

hipError_t hipHostFree (void *ptr) { free (ptr); return GONE_OR (hipSuccess); }

/* Streams, events, modules and functions: tokens. */
static hipError_t
new_token (void **token)
{
  *token = NULL;
  RETURN_IF_GONE ();
  *token = malloc (1);
  return hipSuccess;
}

static hipError_t
free_token (void *token)
{
  free (token);
  return GONE_OR (hipSuccess);
}

hipError_t
hipStreamCreateWithFlags (void **stream, unsigned int flags)
{
  (void) flags;
  return new_token (stream);
}

hipError_t
hipStreamCreateWithPriority (void **stream, unsigned int flags, int priority)
{
  (void) flags;
  (void) priority;
  return new_token (stream);
}

hipError_t
hipDeviceGetStreamPriorityRange (int *least, int *greatest)
{
  *least = 0;
  *greatest = -1;
  return GONE_OR (hipSuccess);
}

hipError_t hipStreamDestroy (void *stream) { return free_token (stream); }
hipError_t hipStreamSynchronize (void *stream) { (void) stream; return GONE_OR (hipSuccess); }
hipError_t hipStreamQuery (void *stream) { (void) stream; return GONE_OR (hipSuccess); }

hipError_t
hipStreamWaitEvent (void *stream, void *event, unsigned int flags)
{
  (void) stream;
  (void) event;
  (void) flags;
  return GONE_OR (hipSuccess);
}

hipError_t
hipEventCreateWithFlags (void **event, unsigned int flags)
{
  (void) flags;
  return new_token (event);
}

hipError_t hipEventDestroy (void *event) { return free_token (event); }

hipError_t
hipEventRecord (void *event, void *stream)
{
  (void) event;
  (void) stream;
  return GONE_OR (hipSuccess);
}

hipError_t
hipEventSynchronize (void *event)
{
  (void) event;
  pthread_mutex_lock (&lock);
  mock.event_syncs++;
  pthread_mutex_unlock (&lock);
  return GONE_OR (hipSuccess);
}

/* the test's view of the host waiting for the device: event waits */
unsigned long long
vh_mock_hip_event_syncs (void)
{
  pthread_mutex_lock (&lock);
  const unsigned long long n = mock.event_syncs;
  pthread_mutex_unlock (&lock);
  return n;
}
hipError_t hipEventQuery (void *event) { (void) event; return GONE_OR (hipSuccess); }

hipError_t
hipEventElapsedTime (float *ms, void *start, void *end)
{
  (void) start;
  (void) end;
  *ms = 0.0f;
  return GONE_OR (hipSuccess);
}

/* VH_MOCK_HIP_FAIL_COPY_AFTER=N: the copies after the first N fail */
static int
copy_fails (void)
{
  if (lost ())
    return 1;
  const char *after = getenv ("VH_MOCK_HIP_FAIL_COPY_AFTER");
  if (!after)
    return 0;
  pthread_mutex_lock (&lock);
  const int failing = ++mock.copies > strtoull (after, NULL, 10);
  pthread_mutex_unlock (&lock);
  return failing;
}

static hipError_t
copy (void *dst, const void *src, size_t size)
{
  if (copy_fails ())
    return GONE_OR (hipErrorInvalidValue);
  memcpy (dst, src, size);
  return hipSuccess;
}

hipError_t
hipMemcpyHtoDAsync (void *dst, const void *src, size_t size, void *stream)
{
  (void) stream;
  return copy (dst, src, size);
}

hipError_t
hipMemcpyDtoHAsync (void *dst, void *src, size_t size, void *stream)
{
  (void) stream;
  return copy (dst, src, size);
}

hipError_t
hipMemcpyDtoDAsync (void *dst, void *src, size_t size, void *stream)
{
  (void) stream;
  return copy (dst, src, size);
}

/* the test's view of the 2-D copies (planes): bytes moved */
void
vh_mock_hip_copy_bytes (unsigned long long *h2d, unsigned long long *d2d)
{
  pthread_mutex_lock (&lock);
  *h2d = mock.h2d_2d_bytes;
  *d2d = mock.d2d_2d_bytes;
  pthread_mutex_unlock (&lock);
}

hipError_t
hipMemcpy2DAsync (void *dst, size_t dst_pitch, const void *src,
    size_t src_pitch, size_t width, size_t height, int kind, void *stream)
{
  (void) stream;
  if (copy_fails ())
    return GONE_OR (hipErrorInvalidValue);
  pthread_mutex_lock (&lock);
  if (kind == 1)                /* hipMemcpyHostToDevice */
    mock.h2d_2d_bytes += (unsigned long long) width * height;
  else if (kind == 3)           /* hipMemcpyDeviceToDevice */
    mock.d2d_2d_bytes += (unsigned long long) width * height;
  pthread_mutex_unlock (&lock);
  for (size_t y = 0; y < height; y++)
    memcpy ((char *) dst + y * dst_pitch, (const char *) src + y * src_pitch,
        width);
  return hipSuccess;
}

hipError_t
hipMemsetD8Async (void *dst, unsigned char value, size_t size, void *stream)
{
  (void) stream;
  RETURN_IF_GONE ();
  memset (dst, value, size);
  return hipSuccess;
}

hipError_t
hipMemsetD32Async (void *dst, int value, size_t count, void *stream)
{
  (void) stream;
  RETURN_IF_GONE ();
  for (size_t i = 0; i < count; i++)
    memcpy ((char *) dst + 4 * i, &value, 4);
  return hipSuccess;
}

/* Whether an offload bundle ("__CLANG_OFFLOAD_BUNDLE__", an entry count,
 * then per entry offset, size, id length and id, "hipv4-amdgcn-amd-amdhsa--
 * gfx1030") has an entry for target.  Test images only: no bounds. */
static int
bundle_has (const unsigned char *image, const char *target)
{
  static const char magic[] = "__CLANG_OFFLOAD_BUNDLE__";
  if (memcmp (image, magic, sizeof magic - 1) != 0)
    return 0;
  unsigned long long count, id_len;
  memcpy (&count, image + sizeof magic - 1, 8);
  const unsigned char *entry = image + sizeof magic - 1 + 8;
  for (unsigned long long i = 0; i < count; i++) {
    memcpy (&id_len, entry + 16, 8);
    const char *id = (const char *) entry + 24;
    const size_t len = strlen (target);
    if (id_len >= len + 2 && memcmp (id + id_len - len - 2, "--", 2) == 0
        && memcmp (id + id_len - len, target, len) == 0)
      return 1;
    entry += 24 + id_len;
  }
  return 0;
}

static const void *last_module_image;

const void *
vh_mock_hip_last_module_image (void)
{
  return last_module_image;
}

/* VH_MOCK_HIP_BAD_DEVICE=N: device N loads no module (a device the
 * build has no kernels for); VH_MOCK_HIP_ARCH: only a bundle for the arch
 * or for VH_MOCK_HIP_GENERIC loads */
hipError_t
hipModuleLoadData (void **module, const void *image)
{
  const char *bad = getenv ("VH_MOCK_HIP_BAD_DEVICE");
  if (bad && atoi (bad) == current_device)
    return hipErrorInvalidValue;
  if (!image)
    return hipErrorInvalidValue;
  const char *arch = getenv ("VH_MOCK_HIP_ARCH");
  const char *generic = getenv ("VH_MOCK_HIP_GENERIC");
  if (arch && !bundle_has (image, arch) && !(generic && bundle_has (image, generic)))
    return hipErrorNoBinaryForGpu;
  last_module_image = image;
  return new_token (module);
}

hipError_t hipModuleUnload (void *module) { return free_token (module); }

/* One function object per kernel name (whatever the module: the loader
 * caches lookups), counting its launches; never freed. */
#define MOCK_MAX_FUNCTIONS 256
typedef struct {
  char *name;
  unsigned long long launches;
} MockFunction;
static MockFunction mock_functions[MOCK_MAX_FUNCTIONS];
static unsigned mock_n_functions;

hipError_t
hipModuleGetFunction (void **function, void *module, const char *name)
{
  (void) module;
  hipError_t result = hipSuccess;
  pthread_mutex_lock (&lock);
  unsigned i = 0;
  while (i < mock_n_functions && strcmp (mock_functions[i].name, name))
    i++;
  if (i == mock_n_functions && i < MOCK_MAX_FUNCTIONS)
    mock_functions[mock_n_functions++].name = strdup (name);
  if (i < MOCK_MAX_FUNCTIONS)
    *function = &mock_functions[i];
  else
    result = hipErrorInvalidValue;
  pthread_mutex_unlock (&lock);
  return result;
}

/* the test's view: launches of the kernel of that name, all modules */
unsigned long long
vh_mock_hip_launches (const char *name)
{
  unsigned long long n = 0;
  pthread_mutex_lock (&lock);
  for (unsigned i = 0; i < mock_n_functions; i++)
    if (!strcmp (mock_functions[i].name, name))
      n = mock_functions[i].launches;
  pthread_mutex_unlock (&lock);
  return n;
}

hipError_t
hipModuleLaunchKernel (void *function, unsigned int gx, unsigned int gy,
    unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz,
    unsigned int shared_bytes, void *stream, void **params, void **extra)
{
  (void) gx; (void) gy; (void) gz;
  (void) bx; (void) by; (void) bz;
  (void) shared_bytes;
  (void) stream;
  (void) params;
  (void) extra;
  if (lost_at_launch ())
    return hipErrorNoDevice;
  const char *fail = getenv ("VH_MOCK_HIP_FAIL_LAUNCH");
  if (fail && strcmp (fail, "1") == 0)
    return hipErrorInvalidValue;
  /* mid-stream: the launches after the first N fail */
  const char *after = getenv ("VH_MOCK_HIP_FAIL_LAUNCH_AFTER");
  if (after) {
    pthread_mutex_lock (&lock);
    const int failing = ++mock.launches > strtoull (after, NULL, 10);
    pthread_mutex_unlock (&lock);
    if (failing)
      return hipErrorInvalidValue;
  }
  pthread_mutex_lock (&lock);
  ((MockFunction *) function)->launches++;
  if (current_device < MOCK_MAX_DEVICES)
    device_launches[current_device]++;
  pthread_mutex_unlock (&lock);
  return hipSuccess;
}

hipError_t
hipImportExternalMemory (void **external, const MockHandleDesc *desc)
{
  struct stat st;
  const char *refuse = getenv ("VH_MOCK_HIP_REFUSE_IMPORT");
  if ((refuse && strcmp (refuse, "1") == 0) || desc->type != 1
      || fstat (desc->handle.fd, &st) != 0 || desc->size == 0
      || (unsigned long long) st.st_size < desc->size)
    return hipErrorInvalidValue;
  void *map = mmap (NULL, desc->size, PROT_READ | PROT_WRITE, MAP_SHARED,
      desc->handle.fd, 0);
  if (map == MAP_FAILED)
    return hipErrorInvalidValue;
  MockExternal *ext = calloc (1, sizeof (MockExternal));
  ext->map = map;
  ext->size = desc->size;
  *external = ext;
  pthread_mutex_lock (&lock);
  mock.imports_live++;
  mock.imports_total++;
  pthread_mutex_unlock (&lock);
  return hipSuccess;
}

hipError_t
hipExternalMemoryGetMappedBuffer (void **ptr, void *external,
    const MockBufferDesc *desc)
{
  MockExternal *ext = external;
  if (desc->offset + desc->size > ext->size)
    return hipErrorInvalidValue;
  hipError_t status = hipErrorOutOfMemory;
  pthread_mutex_lock (&lock);
  for (int i = 0; i < MAX_MAPPINGS; i++)
    if (!mock.mappings[i]) {
      *ptr = mock.mappings[i] = (char *) ext->map + desc->offset;
      mock.mappings_live++;
      status = hipSuccess;
      break;
    }
  pthread_mutex_unlock (&lock);
  return status;
}

hipError_t
hipDestroyExternalMemory (void *external)
{
  MockExternal *ext = external;
  munmap (ext->map, ext->size);
  free (ext);
  pthread_mutex_lock (&lock);
  mock.imports_live--;
  pthread_mutex_unlock (&lock);
  return hipSuccess;
}
