/* vmafhip — dmabuf import (vh_gpu_import_dmabuf) against the mock HIP
 * runtime (mock-hip.c, loaded through VMAFHIP_HIP_LIBRARY): what is
 * imported reads back as the producer wrote it, the caller's descriptor
 * stays open, every import and mapping is released, the device stays
 * referenced while an import lives, and refused imports name the driver
 * call and its reason.  Runs everywhere (no GPU). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* memfd_create */
#endif
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vh-error.h"
#include "vh-gpu.h"
#include "vh-mock-gpu.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

typedef void (*CountersFunc) (int *imports_live, int *imports_total,
    int *mappings_live);
static CountersFunc mock_counters;
static int imports_before;      /* the mock's total at the test's start */

/* imports_total: those made by this test */
static void
expect_counters (int imports_live, int imports_total, int mappings_live)
{
  int live, total, mappings;
  mock_counters (&live, &total, &mappings);
  ck_assert_int_eq (live, imports_live);
  ck_assert_int_eq (total - imports_before, imports_total);
  ck_assert_int_eq (mappings, mappings_live);
}

static VhGpu *
open_mock (void)
{
  GError *error = NULL;
  VhGpu *gpu = vh_gpu_acquire (VH_GPU_VENDOR_AMD, 0, &error);
  ck_assert_msg (gpu != NULL, "mock AMD device: %s",
      error ? error->message : "?");
  ck_assert_str_eq (vh_gpu_arch (gpu), "gfx90a");
  int live, mappings;
  mock_counters (&live, &imports_before, &mappings);
  return gpu;
}

/* A memfd with a pattern: a dmabuf stand-in (any mappable fd is one to
 * GStreamer's dmabuf allocator, and to the mock). */
static int
pattern_fd (size_t size)
{
  int fd = memfd_create ("vmafhip-import", MFD_CLOEXEC);
  ck_assert_int_ge (fd, 0);
  ck_assert_int_eq (ftruncate (fd, (off_t) size), 0);
  guint8 *map = mmap (NULL, size, PROT_WRITE, MAP_SHARED, fd, 0);
  ck_assert (map != MAP_FAILED);
  for (size_t i = 0; i < size; i++)
    map[i] = (guint8) (i * 7 + 3);
  munmap (map, size);
  return fd;
}

START_TEST (test_import_reads_back)
{
  const size_t size = 64 * 1024 + 17;
  VhGpu *gpu = open_mock ();
  const int refs = vh_gpu_refcount (gpu);
  int fd = pattern_fd (size);
  GError *error = NULL;

  VhGpuImport *import = vh_gpu_import_dmabuf (gpu, fd, size, &error);
  ck_assert_msg (import != NULL, "%s", error ? error->message : "?");
  expect_counters (1, 1, 1);
  ck_assert_uint_eq (vh_gpu_import_size (import), size);
  ck_assert_ptr_eq (vh_gpu_import_device (import), gpu);
  ck_assert_int_eq (vh_gpu_refcount (gpu), refs + 1);

  /* through the device layer's own copy, at an odd offset */
  VhGpuStream *stream = vh_gpu_stream_new (gpu, &error);
  ck_assert_ptr_nonnull (stream);
  guint8 *back = g_malloc (size);
  ck_assert (vh_gpu_copy_d2h_async (stream, back,
          vh_gpu_import_address (import) + 5, size - 5, &error));
  ck_assert (vh_gpu_stream_sync (stream, &error));
  for (size_t i = 5; i < size; i++)
    ck_assert_uint_eq (back[i - 5], (guint8) (i * 7 + 3));
  g_free (back);
  vh_gpu_stream_free (stream);

  vh_gpu_import_free (import);
  expect_counters (0, 1, 0);
  ck_assert_int_eq (vh_gpu_refcount (gpu), refs);
  /* the descriptor is still the caller's */
  ck_assert_int_ge (fcntl (fd, F_GETFD), 0);
  close (fd);
  vh_gpu_close (gpu);
}
END_TEST

START_TEST (test_import_refused)
{
  VhGpu *gpu = open_mock ();
  GError *error = NULL;
  int pipe_fds[2];

  /* the driver's refusal, by name (a pipe cannot be mapped) */
  ck_assert_int_eq (pipe (pipe_fds), 0);
  ck_assert_ptr_null (vh_gpu_import_dmabuf (gpu, pipe_fds[0], 4096, &error));
  ck_assert_int_eq (error->code, VH_ERROR_GPU);
  ck_assert_msg (strstr (error->message, "hipImportExternalMemory failed")
      && strstr (error->message, "hipErrorInvalidValue"), "%s",
      error->message);
  g_clear_error (&error);
  ck_assert_int_ge (fcntl (pipe_fds[0], F_GETFD), 0);
  close (pipe_fds[0]);
  close (pipe_fds[1]);

  /* larger than the buffer */
  int fd = pattern_fd (4096);
  ck_assert_ptr_null (vh_gpu_import_dmabuf (gpu, fd, 8192, &error));
  ck_assert_int_eq (error->code, VH_ERROR_GPU);
  g_clear_error (&error);

  /* arguments checked before the driver is asked */
  ck_assert_ptr_null (vh_gpu_import_dmabuf (gpu, fd, 0, &error));
  ck_assert_int_eq (error->code, VH_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  close (fd);
  ck_assert_ptr_null (vh_gpu_import_dmabuf (gpu, fd, 4096, &error));
  ck_assert_int_eq (error->code, VH_ERROR_INVALID_ARGUMENT);
  ck_assert_msg (strstr (error->message, "file descriptor"), "%s",
      error->message);
  g_clear_error (&error);
  ck_assert_ptr_null (vh_gpu_import_dmabuf (NULL, 0, 4096, &error));
  g_clear_error (&error);
  vh_gpu_import_free (NULL);

  expect_counters (0, 0, 0);
  vh_gpu_close (gpu);
}
END_TEST

/* Imports outlive the handle they were made with, and are freed from
 * another thread. */
static gpointer
free_in_thread (gpointer import)
{
  vh_gpu_import_free (import);
  return NULL;
}

START_TEST (test_import_outlives_handle)
{
  VhGpu *gpu = open_mock ();
  int fd = pattern_fd (8192);
  GError *error = NULL;
  VhGpuImport *a = vh_gpu_import_dmabuf (gpu, fd, 8192, &error);
  VhGpuImport *b = vh_gpu_import_dmabuf (gpu, fd, 4096, &error);
  ck_assert (a && b);
  close (fd);
  vh_gpu_close (gpu);
  expect_counters (2, 2, 2);
  ck_assert_int_ge (vh_gpu_refcount (vh_gpu_import_device (a)), 2);
  g_thread_join (g_thread_new ("import-free", free_in_thread, a));
  vh_gpu_import_free (b);
  expect_counters (0, 2, 0);
}
END_TEST

int
main (void)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  mock_counters = (CountersFunc) vh_mock_gpu_symbol ("vh_mock_hip_counters",
      "test-gpu-import");
  if (!mock_counters)
    return 1;
  Suite *s = suite_create ("gpu-import");
  TCase *tc = tcase_create ("mock");
  tcase_add_test (tc, test_import_reads_back);
  tcase_add_test (tc, test_import_refused);
  tcase_add_test (tc, test_import_outlives_handle);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  /* one process: the counters are the mock's, across tests */
  srunner_set_fork_status (runner, CK_NOFORK);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
