/* vmafhip — another driver's buffers (dmabufs) in the device's address
 * space: import, map once, release. */
#include "gpu-private.h"

#include <fcntl.h>
#include <unistd.h>

struct VhGpuImport {
  VhGpu *gpu;               /* a reference */
  void *external;           /* the vendor's imported memory object */
  VhGpuPtr address;         /* the whole buffer, mapped */
  size_t size;
};

VhGpuImport *
vh_gpu_import_dmabuf (VhGpu *gpu, int fd, size_t size, GError **error)
{
  if (!gpu)
    return vh_gpu_invalid (error, "no GPU (NULL)"), NULL;
  if (fd < 0 || fcntl (fd, F_GETFD) < 0)
    return vh_gpu_invalid (error, "not an open file descriptor"), NULL;
  if (size == 0)
    return vh_gpu_invalid (error, "cannot import 0 bytes"), NULL;
  if (!vh_gpu_make_current (gpu, error))
    return NULL;

  void *external = NULL;
  if (!vh_gpu_call_ok (gpu->f, gpu->f->import_dmabuf (fd, size, &external),
          VH_GPU_CALL_IMPORT_MEMORY, error))
    return NULL;
  VhGpuPtr address = 0;
  if (!vh_gpu_call_ok (gpu->f, gpu->f->map_imported (external, 0, size,
              &address), VH_GPU_CALL_MAP_IMPORTED, error)) {
    vh_gpu_warn_if_failed (gpu->f, gpu->f->destroy_imported (external, 0),
        VH_GPU_CALL_DESTROY_IMPORTED);
    return NULL;
  }
  VhGpuImport *import = g_new0 (VhGpuImport, 1);
  import->gpu = vh_gpu_ref (gpu);
  import->external = external;
  import->address = address;
  import->size = size;
  return import;
}

void
vh_gpu_import_free (VhGpuImport *import)
{
  if (!import)
    return;
  if (vh_gpu_make_current_or_warn (import->gpu))
    vh_gpu_warn_if_failed (import->gpu->f,
        import->gpu->f->destroy_imported (import->external, import->address),
        VH_GPU_CALL_DESTROY_IMPORTED);
  vh_gpu_close (import->gpu);
  g_free (import);
}

VhGpu *
vh_gpu_import_device (const VhGpuImport *import)
{
  return import ? import->gpu : NULL;
}

VhGpuPtr
vh_gpu_import_address (const VhGpuImport *import)
{
  return import ? import->address : 0;
}

size_t
vh_gpu_import_size (const VhGpuImport *import)
{
  return import ? import->size : 0;
}
