/* vmafhip — for the tests that run the GPU host code against the mock HIP
 * runtime (mock-hip.c, loaded through VMAFHIP_HIP_LIBRARY): its device,
 * and whether this build has the AMD kernel images the mock's "gfx90a"
 * device loads. */
#ifndef VH_MOCK_GPU_H
#define VH_MOCK_GPU_H

#include <check.h>
#include <dlfcn.h>
#include <stdio.h>

#include "vh-gpu.h"
#include "vh-kernel-images.h"

/* The mock's one AMD device (the process's shared handle) */
static inline VhGpu *
vh_mock_gpu_open (void)
{
  GError *error = NULL;
  VhGpu *gpu = vh_gpu_acquire (VH_GPU_VENDOR_AMD, 0, &error);
  ck_assert_msg (gpu != NULL, "mock AMD device: %s",
      error ? error->message : "?");
  return gpu;
}

/* TRUE, after saying so loudly on behalf of `test`, where the build has no
 * AMD image of `set` (no hipcc, no clang-19, as a sanitizer build may be
 * configured): the mock has no module of it to load. */
static inline gboolean
vh_mock_gpu_lacks_images (const VhGpuImageSet *set, const char *test)
{
  for (unsigned i = 0; i < set->n_images; i++)
    if (set->images[i].vendor == VH_GPU_VENDOR_AMD)
      return FALSE;
  fprintf (stderr, "%s: SKIPPED: this build has no AMD kernel images "
      "(configured without hipcc and clang-19)\n", test);
  return TRUE;
}

/* A function of the mock runtime itself (its counters), by name; NULL
 * after saying why on behalf of `test` where VMAFHIP_HIP_LIBRARY does not
 * name it */
static inline void *
vh_mock_gpu_symbol (const char *name, const char *test)
{
  const char *library = g_getenv ("VMAFHIP_HIP_LIBRARY");
  void *mock = library ? dlopen (library, RTLD_NOW) : NULL;
  void *symbol = mock ? dlsym (mock, name) : NULL;
  if (!symbol)
    fprintf (stderr, "%s: VMAFHIP_HIP_LIBRARY must name the mock HIP "
        "runtime (%s)\n", test, library ? dlerror () : "not set");
  return symbol;
}

#endif /* VH_MOCK_GPU_H */
