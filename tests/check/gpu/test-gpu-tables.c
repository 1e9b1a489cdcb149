/* vmafhip — shared device tables (vh_gpu_table_acquire) against the mock
 * HIP runtime (mock-hip.c, loaded through VMAFHIP_HIP_LIBRARY): one fill
 * per table however many users and threads ask, the same memory for all,
 * freed with the last user and filled anew after; a failed fill or a size
 * that does not match is an error and leaves nothing behind.  CIEDE2000's
 * GPU contexts share their 8-bit Lab table that way.  Runs everywhere (no
 * GPU). */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "vh-error.h"
#include "vh-gpu.h"
#include "ciede-gpu.h"
#include "vh-kernel-images.h"
#include "vh-mock-gpu.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

#define TABLE_SIZE 4096

typedef struct {
  gint fills;
  guint8 pattern;
  gboolean fail;
} FillCount;

/* writes TABLE_SIZE bytes of the pattern, as a real table's kernel would */
static gboolean
fill_pattern (VhGpu *gpu, VhGpuPtr mem, void *data, GError **error)
{
  FillCount *count = data;
  g_atomic_int_inc (&count->fills);
  if (count->fail) {
    g_set_error (error, VH_ERROR, VH_ERROR_GPU, "the fill failed on purpose");
    return FALSE;
  }
  guint8 bytes[TABLE_SIZE];
  memset (bytes, count->pattern, sizeof bytes);
  VhGpuStream *stream = vh_gpu_stream_new (gpu, error);
  const gboolean ok = stream
      && vh_gpu_copy_h2d_async (stream, mem, bytes, sizeof bytes, error)
      && vh_gpu_stream_sync (stream, error);
  vh_gpu_stream_free (stream);
  return ok;
}

static guint8
first_byte (VhGpu *gpu, VhGpuPtr mem)
{
  guint8 b = 0;
  VhGpuStream *stream = vh_gpu_stream_new (gpu, NULL);
  ck_assert (stream && vh_gpu_copy_d2h_async (stream, &b, mem, 1, NULL)
      && vh_gpu_stream_sync (stream, NULL));
  vh_gpu_stream_free (stream);
  return b;
}

START_TEST (test_one_fill_shared)
{
  VhGpu *gpu = vh_mock_gpu_open ();
  FillCount count = { 0, 0x5a, FALSE };
  GError *error = NULL;
  const VhGpuPtr a = vh_gpu_table_acquire (gpu, "t", TABLE_SIZE, fill_pattern,
      &count, &error);
  const VhGpuPtr b = vh_gpu_table_acquire (gpu, "t", TABLE_SIZE, fill_pattern,
      &count, &error);
  ck_assert_msg (a && b, "%s", error ? error->message : "?");
  ck_assert (a == b);
  ck_assert_int_eq (count.fills, 1);
  ck_assert_int_eq (first_byte (gpu, a), 0x5a);
  /* another name is another table */
  FillCount other = { 0, 0x11, FALSE };
  const VhGpuPtr c = vh_gpu_table_acquire (gpu, "u", TABLE_SIZE, fill_pattern,
      &other, &error);
  ck_assert (c && c != a);
  ck_assert_int_eq (first_byte (gpu, c), 0x11);
  vh_gpu_table_release (gpu, "u");
  /* still held by one user: no new fill */
  vh_gpu_table_release (gpu, "t");
  ck_assert (vh_gpu_table_acquire (gpu, "t", TABLE_SIZE, fill_pattern,
          &count, &error) == a);
  ck_assert_int_eq (count.fills, 1);
  vh_gpu_table_release (gpu, "t");
  vh_gpu_table_release (gpu, "t");
  /* the last release freed it: the next user fills a new one */
  count.pattern = 0x77;
  const VhGpuPtr d = vh_gpu_table_acquire (gpu, "t", TABLE_SIZE, fill_pattern,
      &count, &error);
  ck_assert (d != 0);
  ck_assert_int_eq (count.fills, 2);
  ck_assert_int_eq (first_byte (gpu, d), 0x77);
  vh_gpu_table_release (gpu, "t");
  vh_gpu_close (gpu);
}
END_TEST

START_TEST (test_failures_leave_nothing)
{
  VhGpu *gpu = vh_mock_gpu_open ();
  FillCount count = { 0, 0x33, TRUE };
  GError *error = NULL;
  ck_assert (vh_gpu_table_acquire (gpu, "t", TABLE_SIZE, fill_pattern,
          &count, &error) == 0);
  ck_assert (error && strstr (error->message, "on purpose"));
  g_clear_error (&error);
  /* nothing was kept: the next acquire fills again */
  count.fail = FALSE;
  const VhGpuPtr a = vh_gpu_table_acquire (gpu, "t", TABLE_SIZE, fill_pattern,
      &count, &error);
  ck_assert (a != 0);
  ck_assert_int_eq (count.fills, 2);
  /* the same name with another size */
  ck_assert (vh_gpu_table_acquire (gpu, "t", 2 * TABLE_SIZE, fill_pattern,
          &count, &error) == 0);
  ck_assert_msg (error && strstr (error->message, "shared table t"), "%s",
      error ? error->message : "no error");
  g_clear_error (&error);
  /* bad arguments */
  ck_assert (vh_gpu_table_acquire (gpu, NULL, TABLE_SIZE, fill_pattern,
          &count, &error) == 0);
  g_clear_error (&error);
  ck_assert (vh_gpu_table_acquire (gpu, "v", 0, fill_pattern, &count,
          &error) == 0);
  g_clear_error (&error);
  ck_assert_int_eq (count.fills, 2);
  vh_gpu_table_release (gpu, "t");
  vh_gpu_close (gpu);
}
END_TEST

typedef struct {
  VhGpu *gpu;
  FillCount *count;
  VhGpuPtr got;
} Racer;

static gpointer
acquire_in_thread (gpointer data)
{
  Racer *r = data;
  r->got = vh_gpu_table_acquire (r->gpu, "raced", TABLE_SIZE, fill_pattern,
      r->count, NULL);
  return NULL;
}

START_TEST (test_threads_share_one_fill)
{
  VhGpu *gpu = vh_mock_gpu_open ();
  FillCount count = { 0, 0x42, FALSE };
  Racer racers[8];
  GThread *threads[8];
  for (int i = 0; i < 8; i++) {
    racers[i] = (Racer) { gpu, &count, 0 };
    threads[i] = g_thread_new ("acquire", acquire_in_thread, &racers[i]);
  }
  for (int i = 0; i < 8; i++)
    g_thread_join (threads[i]);
  ck_assert_int_eq (count.fills, 1);
  for (int i = 0; i < 8; i++) {
    ck_assert (racers[i].got != 0 && racers[i].got == racers[0].got);
    vh_gpu_table_release (gpu, "raced");
  }
  vh_gpu_close (gpu);
}
END_TEST

/* CIEDE2000's contexts: 8-bit ones share the Lab table (one 256 MiB
 * allocation, released with the last), deeper ones and
 * asked for none (VhConfig ciede_lab_table FALSE) take none */
START_TEST (test_ciede_contexts_share_the_lab_table)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_ciede, "test-gpu-tables"))
    return;
  VhGpu *gpu = vh_mock_gpu_open ();
  GError *error = NULL;
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_ciede,
      &error);
  ck_assert_msg (module != NULL, "%s", error ? error->message : "?");
  VhCiedeGpu *a = vh_ciede_gpu_new (gpu, module, 64, 32, 8, &error);
  VhCiedeGpu *b = vh_ciede_gpu_new (gpu, module, 64, 32, 8, &error);
  ck_assert_msg (a && b, "%s", error ? error->message : "?");
  ck_assert (vh_ciede_gpu_uses_table (a) && vh_ciede_gpu_uses_table (b));
  VhCiedeGpu *deep = vh_ciede_gpu_new (gpu, module, 64, 32, 10, &error);
  ck_assert (deep && !vh_ciede_gpu_uses_table (deep));
  /* the table is held: asking for it by name with another size fails */
  ck_assert (vh_gpu_table_acquire (gpu, "ciede-lab-8bit", TABLE_SIZE, fill_pattern,
          &(FillCount) { 0, 0, FALSE }, &error) == 0);
  g_clear_error (&error);
  vh_ciede_gpu_free (a);
  vh_ciede_gpu_free (b);
  vh_ciede_gpu_free (deep);
  /* released with the last context: now the name is free again */
  FillCount count = { 0, 1, FALSE };
  ck_assert (vh_gpu_table_acquire (gpu, "ciede-lab-8bit", TABLE_SIZE, fill_pattern,
          &count, &error) != 0);
  ck_assert_int_eq (count.fills, 1);
  vh_gpu_table_release (gpu, "ciede-lab-8bit");
  VhCiedeGpu *plain = vh_ciede_gpu_new_table (gpu, module, 64, 32, 8, FALSE,
      &error);
  ck_assert (plain && !vh_ciede_gpu_uses_table (plain));
  vh_ciede_gpu_free (plain);
  vh_gpu_module_free (module);
  vh_gpu_close (gpu);
}
END_TEST

/* A Lab table the device has no room for: every pixel converted, no
 * error; one allocated but not written (a launch that fails) is a GPU
 * fault: the context is refused with the reason, nothing left held. */
/* the memory in use, as a soak watches it: up by what is allocated, back
 * down when it is freed (the mock counts its hipMalloc blocks) */
START_TEST (test_memory_in_use)
{
  VhGpu *gpu = vh_mock_gpu_open ();
  GError *error = NULL;
  guint64 before = 0, during = 0, after = 0;
  ck_assert_msg (vh_gpu_memory_in_use (gpu, &before, &error), "%s",
      error ? error->message : "?");
  const VhGpuPtr block = vh_gpu_mem_alloc (gpu, 1 << 20, &error);
  ck_assert (block != 0);
  ck_assert (vh_gpu_memory_in_use (gpu, &during, &error));
  ck_assert_uint_ge (during, before + (1 << 20));
  vh_gpu_mem_free (gpu, block);
  ck_assert (vh_gpu_memory_in_use (gpu, &after, &error));
  ck_assert_uint_eq (after, before);
  ck_assert (!vh_gpu_memory_in_use (NULL, &after, &error));
  ck_assert (error != NULL);
  g_clear_error (&error);
  vh_gpu_close (gpu);
}
END_TEST

START_TEST (test_ciede_table_failures)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_ciede, "test-gpu-tables"))
    return;
  VhGpu *gpu = vh_mock_gpu_open ();
  GError *error = NULL;
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_ciede,
      &error);
  ck_assert_msg (module != NULL, "%s", error ? error->message : "?");

  g_setenv ("VH_MOCK_HIP_MALLOC_LIMIT", "1048576", TRUE);
  VhCiedeGpu *no_room = vh_ciede_gpu_new (gpu, module, 64, 32, 8, &error);
  g_unsetenv ("VH_MOCK_HIP_MALLOC_LIMIT");
  ck_assert_msg (no_room != NULL, "%s", error ? error->message : "?");
  ck_assert (!vh_ciede_gpu_uses_table (no_room));
  vh_ciede_gpu_free (no_room);

  g_setenv ("VH_MOCK_HIP_FAIL_LAUNCH", "1", TRUE);
  VhCiedeGpu *fault = vh_ciede_gpu_new (gpu, module, 64, 32, 8, &error);
  g_unsetenv ("VH_MOCK_HIP_FAIL_LAUNCH");
  ck_assert (fault == NULL);
  ck_assert_msg (error && strstr (error->message, "writing the Lab table"),
      "%s", error ? error->message : "no error");
  g_clear_error (&error);

  /* nothing held: the next context writes the table and takes it */
  VhCiedeGpu *ok = vh_ciede_gpu_new (gpu, module, 64, 32, 8, &error);
  ck_assert_msg (ok && vh_ciede_gpu_uses_table (ok), "%s",
      error ? error->message : "no table");
  vh_ciede_gpu_free (ok);
  vh_gpu_module_free (module);
  vh_gpu_close (gpu);
}
END_TEST

int
main (void)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  if (!g_getenv ("VMAFHIP_HIP_LIBRARY")) {
    fprintf (stderr, "test-gpu-tables: VMAFHIP_HIP_LIBRARY must name the "
        "mock HIP runtime\n");
    return 1;
  }
  Suite *s = suite_create ("gpu-tables");
  TCase *tc = tcase_create ("mock");
  /* check's 4 s default: the 256 MiB Lab table filled in host memory took
   * 6.8 s on two loaded cores */
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, test_one_fill_shared);
  tcase_add_test (tc, test_failures_leave_nothing);
  tcase_add_test (tc, test_threads_share_one_fill);
  tcase_add_test (tc, test_ciede_contexts_share_the_lab_table);
  tcase_add_test (tc, test_ciede_table_failures);
  tcase_add_test (tc, test_memory_in_use);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
