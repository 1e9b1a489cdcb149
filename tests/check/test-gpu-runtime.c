/* vmafhip — GPU device layer tests (common/gpu) and the embedded kernels.
 *
 * One binary for every machine; what runs is decided at run time:
 *   host suite    (always) opening with AUTO / AMD / NVIDIA fails cleanly
 *                 where there is no runtime or no device, bad arguments give
 *                 errors not crashes, image parsing survives damaged input,
 *                 and the embedded images carry the configured targets;
 *   device suite  (where a GPU opens) the probe kernel's exact int64 sum,
 *                 pinned memory, 1-D/2-D copies, memsets, streams, events,
 *                 use from another thread, and the error paths that need a
 *                 device (out of memory, image not loadable, bad launch).
 *
 * usage: test-gpu-runtime [--host | --device]   (default: both)
 * With --device and no GPU it exits 77, which meson reports as skipped.
 *
 * The device suite runs in this process (no fork): a CUDA context does not
 * survive fork(), so the GPU is opened only after the forking host suite. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vh-error.h"
#include "vh-gpu.h"
#include "vh-kernel-images.h"

#define SKIP_STATUS 77

static void
note (const char *format, ...) G_GNUC_PRINTF (1, 2);

static void
note (const char *format, ...)
{
  va_list args;
  va_start (args, format);
  printf ("test-gpu-runtime: ");
  vprintf (format, args);
  printf ("\n");
  fflush (stdout);
  va_end (args);
}

static gboolean
running_forked (void)
{
  const char *fork_mode = g_getenv ("CK_FORK");
  return !(fork_mode && strcmp (fork_mode, "no") == 0);
}

#define assert_error(error, code_, fragment) \
  do { \
    ck_assert_msg ((error) != NULL, "an error was expected"); \
    ck_assert_msg ((error)->domain == VH_ERROR, "wrong domain: %s", (error)->message); \
    ck_assert_msg ((error)->code == (code_), "code %d, expected %d: %s", \
        (error)->code, (code_), (error)->message); \
    ck_assert_msg (strstr ((error)->message, (fragment)) != NULL, \
        "\"%s\" not in: %s", (fragment), (error)->message); \
  } while (0)

/* ======================================================================
 * host suite
 * ====================================================================== */

/* A failed open must say which runtime or device was missing, per vendor. */
static void
check_open_failure (VhGpuVendor vendor, const GError *error)
{
  ck_assert_ptr_nonnull (error);
  ck_assert_int_eq (error->domain, VH_ERROR);
  ck_assert_int_eq (error->code, VH_ERROR_GPU);
  ck_assert_msg (g_str_has_prefix (error->message, "no GPU runtime found")
      || g_str_has_prefix (error->message, "no GPU device found"),
      "unexpected message: %s", error->message);
  /* Each vendor part says the runtime is missing (naming the libraries
   * tried) or that it has no device.  Without an override, the AMD list
   * starts with the newest HIP soname. */
  if (vendor != VH_GPU_VENDOR_NVIDIA) {
    ck_assert_msg (strstr (error->message, "AMD: no HIP runtime found: no library loaded (tried ")
        || strstr (error->message, "AMD: no device ("), "%s", error->message);
    if (!g_getenv ("VMAFHIP_HIP_LIBRARY") && strstr (error->message, "no HIP runtime"))
      ck_assert_msg (strstr (error->message, "tried libamdhip64.so.7, libamdhip64.so.6, "
              "libamdhip64.so.5"), "%s", error->message);
  }
  if (vendor != VH_GPU_VENDOR_AMD) {
    ck_assert_msg (strstr (error->message, "NVIDIA: no CUDA driver found: no library loaded (tried ")
        || strstr (error->message, "NVIDIA: no device ("), "%s", error->message);
    if (!g_getenv ("VMAFHIP_CUDA_LIBRARY") && strstr (error->message, "no CUDA driver"))
      ck_assert_msg (strstr (error->message, "tried libcuda.so.1"), "%s", error->message);
  }
}

static void
check_open (VhGpuVendor vendor)
{
  GError *error = NULL;
  VhGpu *gpu = vh_gpu_open (vendor, -1, &error);
  if (gpu) {
    note ("open(%s): %s %s (%s) through %s", vh_gpu_vendor_to_string (vendor),
        vh_gpu_vendor_name (gpu), vh_gpu_device_name (gpu), vh_gpu_arch (gpu),
        vh_gpu_library (gpu));
    ck_assert_ptr_null (error);
    ck_assert (vendor == VH_GPU_VENDOR_AUTO || vh_gpu_vendor (gpu) == vendor);
    ck_assert_int_eq (vh_gpu_device_id (gpu), 0);
    vh_gpu_close (gpu);
    return;
  }
  note ("open(%s) failed as expected here: %s", vh_gpu_vendor_to_string (vendor),
      error->message);
  check_open_failure (vendor, error);
  g_error_free (error);
}

START_TEST (host_open_auto)
{
  check_open (VH_GPU_VENDOR_AUTO);
}
END_TEST

/* The shared handle fails like vh_gpu_open where there is no GPU. */
START_TEST (host_acquire_without_gpu)
{
  GError *error = NULL;
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, -1, NULL);
  VhGpu *shared;

  if (gpu) {
    /* a machine with a GPU: the device suite checks sharing */
    vh_gpu_close (gpu);
    return;
  }
  shared = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, -1, &error);
  ck_assert_ptr_null (shared);
  check_open_failure (VH_GPU_VENDOR_AUTO, error);
  g_error_free (error);
}
END_TEST

START_TEST (host_open_amd)
{
  check_open (VH_GPU_VENDOR_AMD);
}
END_TEST

START_TEST (host_open_nvidia)
{
  check_open (VH_GPU_VENDOR_NVIDIA);
}
END_TEST

START_TEST (host_bad_arguments)
{
  GError *error = NULL;

  ck_assert_ptr_null (vh_gpu_open ((VhGpuVendor) 42, 0, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "unknown GPU vendor 42");
  g_clear_error (&error);

  ck_assert_ptr_null (vh_gpu_open (VH_GPU_VENDOR_AUTO, -5, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "device-id -5 is invalid");
  g_clear_error (&error);

  ck_assert_int_eq (vh_gpu_device_count ((VhGpuVendor) -1, &error), 0);
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "unknown GPU vendor");
  g_clear_error (&error);

  /* NULL error pointers are allowed everywhere. */
  ck_assert_ptr_null (vh_gpu_open ((VhGpuVendor) 42, 0, NULL));
}
END_TEST

START_TEST (host_device_id_out_of_range)
{
  GError *error = NULL;
  int count = vh_gpu_device_count (VH_GPU_VENDOR_AUTO, &error);

  if (count == 0) {
    /* No device: any id fails with the no-runtime / no-device message. */
    note ("no device, so device-id 3 must fail like any other: %s", error->message);
    check_open_failure (VH_GPU_VENDOR_AUTO, error);
    g_clear_error (&error);
    ck_assert_ptr_null (vh_gpu_open (VH_GPU_VENDOR_AUTO, 3, &error));
    check_open_failure (VH_GPU_VENDOR_AUTO, error);
    g_clear_error (&error);
    return;
  }

  ck_assert_ptr_null (vh_gpu_open (VH_GPU_VENDOR_AUTO, count, &error));
  char *expected = g_strdup_printf ("device-id %d but %d ", count, count);
  assert_error (error, VH_ERROR_GPU, expected);
  note ("out of range: %s", error->message);
  g_free (expected);
  g_clear_error (&error);
}
END_TEST

START_TEST (host_null_safety)
{
  GError *error = NULL;
  gboolean flag = TRUE;
  float ms = 0;
  char byte = 0;

  /* Release functions accept NULL silently. */
  vh_gpu_close (NULL);
  ck_assert_ptr_null (vh_gpu_ref (NULL));
  ck_assert_int_eq (vh_gpu_refcount (NULL), 0);
  vh_gpu_mem_free (NULL, 0);
  vh_gpu_host_free (NULL, NULL);
  vh_gpu_stream_free (NULL);
  vh_gpu_event_free (NULL);
  vh_gpu_module_free (NULL);

  ck_assert_ptr_null (vh_gpu_device_name (NULL));
  ck_assert_ptr_null (vh_gpu_vendor_name (NULL));
  ck_assert_int_eq (vh_gpu_warp_size (NULL), 0);
  ck_assert_int_eq (vh_gpu_device_id (NULL), -1);

  ck_assert (!vh_gpu_bind (NULL, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "NULL");
  g_clear_error (&error);

  ck_assert (vh_gpu_mem_alloc (NULL, 16, &error) == 0);
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "NULL");
  g_clear_error (&error);
  ck_assert_ptr_null (vh_gpu_host_alloc (NULL, 16, &error));
  g_clear_error (&error);
  ck_assert_ptr_null (vh_gpu_stream_new (NULL, &error));
  g_clear_error (&error);
  ck_assert_ptr_null (vh_gpu_event_new (NULL, TRUE, &error));
  g_clear_error (&error);

  ck_assert (!vh_gpu_stream_sync (NULL, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "stream");
  g_clear_error (&error);
  ck_assert (!vh_gpu_stream_query (NULL, &flag, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_stream_query (NULL, NULL, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_stream_wait_event (NULL, NULL, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_event_record (NULL, NULL, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_event_sync (NULL, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_event_query (NULL, &flag, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_event_elapsed_ms (NULL, NULL, &ms, &error));
  g_clear_error (&error);

  ck_assert (!vh_gpu_copy_h2d_async (NULL, 0x1000, &byte, 1, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_copy_h2d_async (NULL, 0, NULL, 1, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "NULL address");
  g_clear_error (&error);
  ck_assert (!vh_gpu_copy_d2h_async (NULL, &byte, 0x1000, 1, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_copy_d2d_async (NULL, 0x1000, 0x2000, 1, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_copy2d_h2d_async (NULL, 0x1000, 64, &byte, 64, 128, 2, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_copy2d_d2h_async (NULL, &byte, 64, 0x1000, 64, 16, 2, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_memset_async (NULL, 0x1000, 0, 4, &error));
  g_clear_error (&error);
  ck_assert (!vh_gpu_memset32_async (NULL, 0x1002, 0, 4, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "aligned");
  g_clear_error (&error);
  /* Empty work is done, whatever the stream. */
  ck_assert (vh_gpu_copy_h2d_async (NULL, 0, NULL, 0, &error));
  ck_assert (vh_gpu_memset_async (NULL, 0, 0, 0, &error));

  ck_assert_ptr_null (vh_gpu_module_load_embedded (NULL, &vh_kernel_probe, &error));
  g_clear_error (&error);
  ck_assert_ptr_null (vh_gpu_module_load_data (NULL, "x", &error));
  g_clear_error (&error);
  ck_assert_ptr_null (vh_gpu_function (NULL, "vh_probe_sum_i64", &error));
  g_clear_error (&error);
  VhGpuDim3 one = { 1, 1, 1 };
  ck_assert (!vh_gpu_launch (NULL, one, one, 0, NULL, NULL, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "NULL kernel");
  g_clear_error (&error);

  ck_assert_ptr_null (vh_gpu_image_set_find (NULL, VH_GPU_VENDOR_AMD));
  ck_assert_ptr_null (vh_gpu_image_read_targets (NULL, &error));
  assert_error (error, VH_ERROR_INVALID_ARGUMENT, "no kernel image");
  g_clear_error (&error);
}
END_TEST

/* Sets the runtime library overrides to names that do not exist.  Only
 * meaningful in a fresh process (a loaded runtime stays loaded), so only
 * where Check forks each test. */
START_TEST (host_missing_runtime)
{
  GError *error = NULL;

  if (!running_forked ()) {
    note ("SKIP host_missing_runtime: needs a fresh process (CK_FORK=no)");
    return;
  }
  g_setenv ("VMAFHIP_HIP_LIBRARY", "libvmafhip-test-missing-hip.so.0", TRUE);
  g_setenv ("VMAFHIP_CUDA_LIBRARY", "libvmafhip-test-missing-cuda.so.0", TRUE);
  ck_assert_ptr_null (vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error));
  note ("no runtime at all: %s", error->message);
  assert_error (error, VH_ERROR_GPU, "no GPU runtime found (AMD or NVIDIA)");
  assert_error (error, VH_ERROR_GPU, "AMD: no HIP runtime found");
  assert_error (error, VH_ERROR_GPU, "libvmafhip-test-missing-hip.so.0");
  assert_error (error, VH_ERROR_GPU, "NVIDIA: no CUDA driver found");
  assert_error (error, VH_ERROR_GPU, "VMAFHIP_CUDA_LIBRARY");
  g_clear_error (&error);

  ck_assert_int_eq (vh_gpu_device_count (VH_GPU_VENDOR_NVIDIA, &error), 0);
  assert_error (error, VH_ERROR_GPU, "no GPU runtime found (NVIDIA)");
  g_clear_error (&error);
}
END_TEST

/* The CUDA toolkit's stub libcuda.so exports every driver symbol and fails
 * every call: loading it proves the CUDA table resolves against the real
 * ABI, and that an init failure is reported, on a machine without a GPU. */
START_TEST (host_cuda_stub_library)
{
  GError *error = NULL;
  const char *stub = g_getenv ("VMAFHIP_TEST_CUDA_STUB");
#ifdef VH_TEST_CUDA_STUB
  if (!stub)
    stub = VH_TEST_CUDA_STUB;
#endif
  if (!stub || !*stub || !g_file_test (stub, G_FILE_TEST_EXISTS)) {
    note ("SKIP host_cuda_stub_library: no CUDA stub libcuda.so here");
    return;
  }
  if (!running_forked ()) {
    note ("SKIP host_cuda_stub_library: needs a fresh process (CK_FORK=no)");
    return;
  }
  g_setenv ("VMAFHIP_CUDA_LIBRARY", stub, TRUE);
  ck_assert_ptr_null (vh_gpu_open (VH_GPU_VENDOR_NVIDIA, 0, &error));
  note ("CUDA stub library: %s", error->message);
  assert_error (error, VH_ERROR_GPU, "no GPU device found (NVIDIA)");
  assert_error (error, VH_ERROR_GPU, "cuInit returned");
  assert_error (error, VH_ERROR_GPU, stub);
  g_clear_error (&error);
}
END_TEST

/* ---- images ---- */

static void
append_le (GByteArray *bytes, guint64 value, unsigned int n)
{
  for (unsigned int i = 0; i < n; i++) {
    guint8 byte = (guint8) (value >> (8 * i));
    g_byte_array_append (bytes, &byte, 1);
  }
}

/* A bundle with a host entry and device entries (bodies left empty). */
static GByteArray *
make_bundle (const char *const *ids)
{
  GByteArray *bytes = g_byte_array_new ();
  guint n = g_strv_length ((gchar **) ids);
  g_byte_array_append (bytes, (const guint8 *) "__CLANG_OFFLOAD_BUNDLE__", 24);
  append_le (bytes, n, 8);
  for (guint i = 0; i < n; i++) {
    append_le (bytes, 0, 8);
    append_le (bytes, 0, 8);
    append_le (bytes, strlen (ids[i]), 8);
    g_byte_array_append (bytes, (const guint8 *) ids[i], strlen (ids[i]));
  }
  return bytes;
}

static gchar *
read_targets_joined (const guint8 *data, size_t size, GError **error)
{
  VhGpuImage image = { VH_GPU_VENDOR_AMD, "", data, size };
  gchar **targets = vh_gpu_image_read_targets (&image, error);
  if (!targets)
    return NULL;
  gchar *joined = g_strjoinv (",", targets);
  g_strfreev (targets);
  return joined;
}

START_TEST (host_image_parsing)
{
  GError *error = NULL;
  static const char *const ids[] = {
    "host-x86_64-unknown-linux", "hipv4-amdgcn-amd-amdhsa--gfx900",
    "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", NULL
  };
  GByteArray *bundle = make_bundle (ids);
  gchar *joined = read_targets_joined (bundle->data, bundle->len, &error);
  ck_assert_msg (joined, "%s", error ? error->message : "?");
  ck_assert_str_eq (joined, "gfx900,gfx90a:xnack-");
  g_free (joined);

  /* Every truncation is an error, never a read past the end (ASan). */
  for (guint len = 0; len < bundle->len; len++) {
    joined = read_targets_joined (bundle->data, len, &error);
    ck_assert_msg (joined == NULL, "truncated at %u parsed: %s", len, joined);
    ck_assert_ptr_nonnull (error);
    g_clear_error (&error);
  }
  /* An entry count that promises more than the bytes hold. */
  bundle->data[24] = 0xff;
  ck_assert_ptr_null (read_targets_joined (bundle->data, bundle->len, &error));
  assert_error (error, VH_ERROR_GPU, "truncated or damaged");
  g_clear_error (&error);
  g_byte_array_free (bundle, TRUE);

  /* A fatbin with one cubin and one PTX entry (no payload). */
  GByteArray *fatbin = g_byte_array_new ();
  append_le (fatbin, 0xBA55ED50u, 4);
  append_le (fatbin, 1, 2);
  append_le (fatbin, 16, 2);
  append_le (fatbin, 2 * 64, 8);
  for (int entry = 0; entry < 2; entry++) {
    guint8 header[64] = { 0 };
    header[0] = entry == 0 ? 2 : 1;       /* kind: cubin, then PTX */
    header[4] = 64;                       /* header size */
    header[28] = entry == 0 ? 86 : 90;    /* arch */
    g_byte_array_append (fatbin, header, sizeof header);
  }
  joined = read_targets_joined (fatbin->data, fatbin->len, &error);
  ck_assert_msg (joined, "%s", error ? error->message : "?");
  ck_assert_str_eq (joined, "sm_86,compute_90");
  g_free (joined);
  for (guint len = 0; len < fatbin->len; len++) {
    joined = read_targets_joined (fatbin->data, len, &error);
    ck_assert_msg (joined == NULL, "truncated at %u parsed: %s", len, joined);
    g_clear_error (&error);
  }
  g_byte_array_free (fatbin, TRUE);

  ck_assert_ptr_null (read_targets_joined ((const guint8 *) "not an image", 12, &error));
  assert_error (error, VH_ERROR_GPU, "neither an offload bundle");
  g_clear_error (&error);
}
END_TEST

/* The same for the real embedded images: every prefix is refused or read,
 * and no byte beyond the prefix is touched (run under ASan/valgrind). */
START_TEST (host_image_truncation_real)
{
  for (unsigned int i = 0; i < vh_kernel_probe.n_images; i++) {
    const VhGpuImage *image = &vh_kernel_probe.images[i];
    const size_t step = MAX (image->size / 2048, 1);
    for (size_t len = 0; len < image->size; len += (len < 512 ? 1 : step)) {
      guint8 *copy = g_memdup2 (image->data, len ? len : 1);
      VhGpuImage cut = { image->vendor, image->targets, copy, len };
      GError *error = NULL;
      gchar **targets = vh_gpu_image_read_targets (&cut, &error);
      ck_assert (targets != NULL || error != NULL);
      g_strfreev (targets);
      g_clear_error (&error);
      g_free (copy);
    }
  }
}
END_TEST

static void
check_image_targets (VhGpuVendor vendor, const char *configured)
{
  const VhGpuImage *image = vh_gpu_image_set_find (&vh_kernel_probe, vendor);
  const char *name = vh_gpu_vendor_to_string (vendor);

  if (!*configured) {
    note ("%s kernels not compiled in this build", name);
    ck_assert_msg (image == NULL, "an %s image although none was configured", name);
    return;
  }
  ck_assert_msg (image != NULL, "no %s image; configured: %s", name, configured);
  ck_assert_str_eq (image->targets, configured);

  GError *error = NULL;
  gchar **found = vh_gpu_image_read_targets (image, &error);
  ck_assert_msg (found, "%s", error ? error->message : "?");
  gchar **wanted = g_strsplit (configured, ",", -1);
  gchar *found_list = g_strjoinv (",", found);
  note ("%s image: %zu bytes, carries %s (configured %s)", name, image->size,
      found_list, configured);
  ck_assert_uint_eq (g_strv_length (found), g_strv_length (wanted));
  for (guint i = 0; wanted[i]; i++)
    ck_assert_msg (g_strv_contains ((const gchar *const *) found, wanted[i]),
        "%s image lacks %s (has %s)", name, wanted[i], found_list);
  g_free (found_list);
  g_strfreev (wanted);
  g_strfreev (found);
}

START_TEST (host_embedded_targets)
{
  ck_assert_str_eq (vh_kernel_probe.name, "probe");
  if (vh_kernel_probe.n_images == 0)
    note ("CPU-only build: no GPU kernels embedded");
  check_image_targets (VH_GPU_VENDOR_AMD, VH_KERNELS_AMD_TARGETS);
  check_image_targets (VH_GPU_VENDOR_NVIDIA, VH_KERNELS_NVIDIA_TARGETS);
}
END_TEST

static Suite *
host_suite (void)
{
  Suite *s = suite_create ("gpu-host");
  TCase *tc = tcase_create ("host");
  tcase_set_timeout (tc, 60);
  tcase_add_test (tc, host_open_auto);
  tcase_add_test (tc, host_open_amd);
  tcase_add_test (tc, host_open_nvidia);
  tcase_add_test (tc, host_bad_arguments);
  tcase_add_test (tc, host_device_id_out_of_range);
  tcase_add_test (tc, host_null_safety);
  tcase_add_test (tc, host_acquire_without_gpu);
  tcase_add_test (tc, host_missing_runtime);
  tcase_add_test (tc, host_cuda_stub_library);
  tcase_add_test (tc, host_image_parsing);
  tcase_add_test (tc, host_image_truncation_real);
  tcase_add_test (tc, host_embedded_targets);
  suite_add_tcase (s, tc);
  return s;
}

/* ======================================================================
 * device suite (a GPU opened in this process)
 * ====================================================================== */

static VhGpu *gpu;

/* The last error of a device test: err() clears it and hands out its
 * address, err_text() quotes it in an assertion message. */
static GError *last_error;

static GError **
err (void)
{
  g_clear_error (&last_error);
  return &last_error;
}

static const char *
err_text (void)
{
  return last_error ? last_error->message : "(no error message)";
}

START_TEST (device_info)
{
  note ("%s device %d: %s, arch %s, warp %d, %d multiprocessors, %d threads "
      "and %zu shared bytes per block, %.1f GiB, library %s",
      vh_gpu_vendor_name (gpu), vh_gpu_device_id (gpu), vh_gpu_device_name (gpu),
      vh_gpu_arch (gpu), vh_gpu_warp_size (gpu), vh_gpu_multiprocessor_count (gpu),
      vh_gpu_max_threads_per_block (gpu), vh_gpu_max_shared_per_block (gpu),
      vh_gpu_total_memory (gpu) / (1024.0 * 1024 * 1024), vh_gpu_library (gpu));
  ck_assert (vh_gpu_warp_size (gpu) == 32 || vh_gpu_warp_size (gpu) == 64);
  ck_assert_int_gt (vh_gpu_max_threads_per_block (gpu), 0);
  ck_assert_int_gt (vh_gpu_multiprocessor_count (gpu), 0);
  ck_assert_uint_gt (vh_gpu_total_memory (gpu), 0);
  ck_assert (strlen (vh_gpu_device_name (gpu)) > 0);
  ck_assert (g_str_has_prefix (vh_gpu_arch (gpu), "gfx")
      || g_str_has_prefix (vh_gpu_arch (gpu), "sm_")
      || strcmp (vh_gpu_arch (gpu), "unknown") == 0);
  ck_assert_msg (vh_gpu_bind (gpu, err ()), "%s", err_text ());
}
END_TEST

/* One handle per device and process: acquire twice gives the same one with
 * two references; vh_gpu_open gives a handle of its own; the last close
 * ends the shared one, and the next acquire opens it afresh. */
START_TEST (device_shared_handle)
{
  VhGpu *a = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, vh_gpu_device_id (gpu),
      err ());
  VhGpu *b = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, vh_gpu_device_id (gpu),
      err ());
  VhGpu *own = vh_gpu_open (VH_GPU_VENDOR_AUTO, vh_gpu_device_id (gpu),
      err ());

  ck_assert_msg (a && b && own, "%s", err_text ());
  ck_assert_ptr_eq (a, b);
  ck_assert_ptr_ne (a, own);
  ck_assert_int_eq (vh_gpu_refcount (a), 2);
  ck_assert_int_eq (vh_gpu_refcount (own), 1);
  ck_assert_ptr_eq (vh_gpu_ref (a), a);
  ck_assert_int_eq (vh_gpu_refcount (a), 3);
  vh_gpu_close (a);
  vh_gpu_close (a);
  ck_assert_int_eq (vh_gpu_refcount (b), 1);
  /* still usable through the last reference */
  VhGpuPtr p = vh_gpu_mem_alloc (b, 4096, err ());
  ck_assert_msg (p != 0, "%s", err_text ());
  vh_gpu_mem_free (b, p);
  vh_gpu_close (b);
  a = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, vh_gpu_device_id (gpu), err ());
  ck_assert_msg (a != NULL, "%s", err_text ());
  ck_assert_int_eq (vh_gpu_refcount (a), 1);
  vh_gpu_close (a);
  vh_gpu_close (own);
}
END_TEST

/* Values whose partial sums overflow 64 bits: the exact result is the
 * two's-complement sum modulo 2^64, which the CPU computes unsigned. */
static void
fill_values (gint64 *values, size_t n, guint32 seed, guint64 *sum)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint64 total = 0;
  for (size_t i = 0; i < n; i++) {
    guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
    /* Mostly moderate values, a few near the int64 limits. */
    if (i % 97 != 0)
      bits = (guint64) ((gint64) (bits >> 20) - ((gint64) 1 << 43));
    values[i] = (gint64) bits;
    total += bits;
  }
  *sum = total;
  g_rand_free (rand);
}

START_TEST (device_probe_kernel)
{
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_probe, err ());
  ck_assert_msg (module, "%s", err_text ());
  VhGpuFunction *fn = vh_gpu_function (module, "vh_probe_sum_i64", err ());
  ck_assert_msg (fn, "%s", err_text ());
  ck_assert_ptr_eq (vh_gpu_function (module, "vh_probe_sum_i64", NULL), fn);

  const unsigned int n = (1u << 20) + 12345;
  gint64 *values = vh_gpu_host_alloc (gpu, n * sizeof (gint64), err ());
  ck_assert_msg (values, "%s", err_text ());
  guint64 *result = vh_gpu_host_alloc (gpu, 2 * sizeof (guint64), err ());
  ck_assert_msg (result, "%s", err_text ());
  guint64 expected;
  fill_values (values, n, 1234, &expected);

  VhGpuStream *stream = vh_gpu_stream_new (gpu, err ());
  ck_assert_msg (stream, "%s", err_text ());
  VhGpuPtr d_values = vh_gpu_mem_alloc (gpu, n * sizeof (gint64), err ());
  ck_assert_msg (d_values, "%s", err_text ());
  VhGpuPtr d_out = vh_gpu_mem_alloc (gpu, 2 * sizeof (guint64), err ());
  ck_assert_msg (d_out, "%s", err_text ());
  VhGpuPtr d_total = d_out, d_warp = d_out + sizeof (guint64);
  ck_assert_msg (vh_gpu_copy_h2d_async (stream, d_values, values, n * sizeof (gint64), err ()),
      "%s", err_text ());

  const int max_block = vh_gpu_max_threads_per_block (gpu);
  const unsigned int blocks[] = { 1, 31, 64, 96, 256, 1000, (unsigned int) max_block };
  const unsigned int grids[] = { 1, 7, 2 * (unsigned int) vh_gpu_multiprocessor_count (gpu) };
  unsigned int launches = 0;
  for (unsigned int b = 0; b < G_N_ELEMENTS (blocks); b++) {
    if (blocks[b] > (unsigned int) max_block)
      continue;
    for (unsigned int g = 0; g < G_N_ELEMENTS (grids); g++) {
      unsigned int count = n;
      void *args[] = { &d_values, &count, &d_total, &d_warp };
      VhGpuDim3 grid = { grids[g], 1, 1 }, block = { blocks[b], 1, 1 };
      ck_assert_msg (vh_gpu_memset_async (stream, d_out, 0, 2 * sizeof (guint64), err ()),
          "%s", err_text ());
      ck_assert_msg (vh_gpu_launch (fn, grid, block, blocks[b] * sizeof (guint64),
              stream, args, err ()), "%s", err_text ());
      ck_assert_msg (vh_gpu_copy_d2h_async (stream, result, d_out, 2 * sizeof (guint64), err ()),
          "%s", err_text ());
      ck_assert_msg (vh_gpu_stream_sync (stream, err ()), "%s", err_text ());
      ck_assert_msg (result[0] == expected,
          "grid %u x block %u: sum 0x%016" G_GINT64_MODIFIER "x, expected 0x%016"
          G_GINT64_MODIFIER "x", grids[g], blocks[b], result[0], expected);
      int warp_width;
      memcpy (&warp_width, &result[1], sizeof warp_width);
      ck_assert_int_eq (warp_width, vh_gpu_warp_size (gpu));
      launches++;
    }
  }
  note ("probe kernel: %u launches, exact int64 sum 0x%016" G_GINT64_MODIFIER
      "x of %u values, device warp width %d", launches, expected, n,
      vh_gpu_warp_size (gpu));

  vh_gpu_mem_free (gpu, d_values);
  vh_gpu_mem_free (gpu, d_out);
  vh_gpu_stream_free (stream);
  vh_gpu_host_free (gpu, values);
  vh_gpu_host_free (gpu, result);
  vh_gpu_module_free (module);
}
END_TEST

START_TEST (device_copies)
{
  const size_t width = 1000, height = 37;
  const size_t host_pitch = 1024, device_pitch = 1280, back_pitch = 1100;
  guint8 *src = vh_gpu_host_alloc (gpu, host_pitch * height, err ());
  ck_assert_msg (src, "%s", err_text ());
  guint8 *back = vh_gpu_host_alloc (gpu, back_pitch * height, err ());
  ck_assert_msg (back, "%s", err_text ());
  for (size_t i = 0; i < host_pitch * height; i++)
    src[i] = (guint8) (i * 7 + i / 251);
  memset (back, 0xab, back_pitch * height);

  VhGpuStream *stream = vh_gpu_stream_new (gpu, err ());
  ck_assert_msg (stream, "%s", err_text ());
  VhGpuPtr plane = vh_gpu_mem_alloc (gpu, device_pitch * height, err ());
  ck_assert_msg (plane, "%s", err_text ());
  VhGpuPtr other = vh_gpu_mem_alloc (gpu, device_pitch * height, err ());
  ck_assert_msg (other, "%s", err_text ());

  /* 2-D up, 1-D device-to-device, 2-D down: three different pitches. */
  ck_assert_msg (vh_gpu_memset_async (stream, plane, 0x5a, device_pitch * height, err ()),
      "%s", err_text ());
  ck_assert_msg (vh_gpu_copy2d_h2d_async (stream, plane, device_pitch, src, host_pitch,
          width, height, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_d2d_async (stream, other, plane, device_pitch * height, err ()),
      "%s", err_text ());
  ck_assert_msg (vh_gpu_copy2d_d2h_async (stream, back, back_pitch, other, device_pitch,
          width, height, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_sync (stream, err ()), "%s", err_text ());
  for (size_t y = 0; y < height; y++) {
    ck_assert_msg (memcmp (back + y * back_pitch, src + y * host_pitch, width) == 0,
        "row %zu differs", y);
    for (size_t x = width; x < back_pitch; x++)
      ck_assert_msg (back[y * back_pitch + x] == 0xab, "padding of row %zu written", y);
  }

  /* The device padding kept the memset value: read one whole padded row. */
  guint8 *row = vh_gpu_host_alloc (gpu, device_pitch, err ());
  ck_assert_msg (row, "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_d2h_async (stream, row, other + 5 * device_pitch,
          device_pitch, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_sync (stream, err ()), "%s", err_text ());
  ck_assert (memcmp (row, src + 5 * host_pitch, width) == 0);
  for (size_t x = width; x < device_pitch; x++)
    ck_assert_int_eq (row[x], 0x5a);

  /* 32-bit memset. */
  ck_assert_msg (vh_gpu_memset32_async (stream, other, 0xdeadbeefu, device_pitch / 4, err ()),
      "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_d2h_async (stream, row, other, device_pitch, err ()),
      "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_sync (stream, err ()), "%s", err_text ());
  for (size_t x = 0; x < device_pitch / 4; x++) {
    guint32 word;
    memcpy (&word, row + 4 * x, 4);
    ck_assert_uint_eq (word, 0xdeadbeefu);
  }

  /* A row wider than a pitch is refused before the vendor sees it. */
  ck_assert (!vh_gpu_copy2d_h2d_async (stream, plane, 512, src, host_pitch, width, 2, err ()));
  ck_assert_int_eq (last_error->code, VH_ERROR_INVALID_ARGUMENT);
  note ("2-D copy round trip (pitches %zu -> %zu -> %zu), d2d, memsets: exact",
      host_pitch, device_pitch, back_pitch);

  vh_gpu_host_free (gpu, row);
  vh_gpu_mem_free (gpu, plane);
  vh_gpu_mem_free (gpu, other);
  vh_gpu_stream_free (stream);
  vh_gpu_host_free (gpu, src);
  vh_gpu_host_free (gpu, back);
}
END_TEST

START_TEST (device_streams_events)
{
  const size_t size = 64u << 20;
  guint8 *host = vh_gpu_host_alloc (gpu, size, err ());
  ck_assert_msg (host, "%s", err_text ());
  guint8 *back = vh_gpu_host_alloc (gpu, size, err ());
  ck_assert_msg (back, "%s", err_text ());
  for (size_t i = 0; i < size; i++)
    host[i] = (guint8) (i * 131 + (i >> 12));
  memset (back, 0, size);

  VhGpuStream *upload = vh_gpu_stream_new (gpu, err ());
  ck_assert_msg (upload, "%s", err_text ());
  VhGpuStream *download = vh_gpu_stream_new (gpu, err ());
  ck_assert_msg (download, "%s", err_text ());
  VhGpuEvent *start = vh_gpu_event_new (gpu, TRUE, err ());
  ck_assert_msg (start, "%s", err_text ());
  VhGpuEvent *uploaded = vh_gpu_event_new (gpu, TRUE, err ());
  ck_assert_msg (uploaded, "%s", err_text ());
  VhGpuEvent *sync_only = vh_gpu_event_new (gpu, FALSE, err ());
  ck_assert_msg (sync_only, "%s", err_text ());
  VhGpuPtr buffer = vh_gpu_mem_alloc (gpu, size, err ());
  ck_assert_msg (buffer, "%s", err_text ());

  /* The download stream waits for the upload stream's event: the copy back
   * must see the whole upload although the streams are independent. */
  ck_assert_msg (vh_gpu_event_record (start, upload, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_h2d_async (upload, buffer, host, size, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_event_record (uploaded, upload, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_wait_event (download, uploaded, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_d2h_async (download, back, buffer, size, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_event_record (sync_only, download, err ()), "%s", err_text ());

  gboolean done = TRUE;
  ck_assert_msg (vh_gpu_event_query (sync_only, &done, err ()), "%s", err_text ());
  note ("event query right after queuing 2 x 64 MiB: %s", done ? "done" : "not ready");
  ck_assert_msg (vh_gpu_event_sync (sync_only, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_event_query (sync_only, &done, err ()), "%s", err_text ());
  ck_assert (done);
  gboolean idle = FALSE;
  ck_assert_msg (vh_gpu_stream_sync (upload, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_query (download, &idle, err ()), "%s", err_text ());
  ck_assert (idle);
  ck_assert (memcmp (host, back, size) == 0);

  float ms = -1;
  ck_assert_msg (vh_gpu_event_elapsed_ms (start, uploaded, &ms, err ()), "%s", err_text ());
  ck_assert (ms >= 0);
  note ("64 MiB pinned host-to-device copy: %.3f ms (%.1f GB/s)", ms,
      ms > 0 ? size / (ms * 1e6) : 0.0);
  /* Timing needs timing events. */
  ck_assert (!vh_gpu_event_elapsed_ms (start, sync_only, &ms, err ()));
  ck_assert_int_eq (last_error->code, VH_ERROR_INVALID_ARGUMENT);

  /* Recording on the default stream (NULL) works too. */
  ck_assert_msg (vh_gpu_event_record (sync_only, NULL, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_event_sync (sync_only, err ()), "%s", err_text ());

  vh_gpu_mem_free (gpu, buffer);
  vh_gpu_event_free (start);
  vh_gpu_event_free (uploaded);
  vh_gpu_event_free (sync_only);
  vh_gpu_stream_free (upload);
  vh_gpu_stream_free (download);
  vh_gpu_host_free (gpu, host);
  vh_gpu_host_free (gpu, back);
}
END_TEST

/* A thread that never opened the device uses it: the layer must make the
 * context current there by itself. */
static gpointer
other_thread_work (gpointer data)
{
  VhGpu *device = data;
  GError *error = NULL;
  guint32 *host = vh_gpu_host_alloc (device, 4096, &error);
  VhGpuStream *stream = host ? vh_gpu_stream_new (device, &error) : NULL;
  VhGpuPtr buffer = stream ? vh_gpu_mem_alloc (device, 4096, &error) : 0;
  gboolean ok = buffer
      && vh_gpu_memset32_async (stream, buffer, 0x01020304u, 1024, &error)
      && vh_gpu_copy_d2h_async (stream, host, buffer, 4096, &error)
      && vh_gpu_stream_sync (stream, &error);
  for (unsigned int i = 0; ok && i < 1024; i++)
    ok = host[i] == 0x01020304u;
  vh_gpu_mem_free (device, buffer);
  vh_gpu_stream_free (stream);
  vh_gpu_host_free (device, host);
  if (error) {
    note ("other thread: %s", error->message);
    g_error_free (error);
  }
  return GINT_TO_POINTER (ok);
}

START_TEST (device_other_threads)
{
  GThread *threads[4];
  for (unsigned int i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("vh-gpu-test", other_thread_work, gpu);
  for (unsigned int i = 0; i < G_N_ELEMENTS (threads); i++)
    ck_assert_msg (g_thread_join (threads[i]), "thread %u failed", i);
  note ("4 threads used the device without opening it: OK");
}
END_TEST

START_TEST (device_error_paths)
{
  /* Out of memory names the size. */
  const size_t huge = (size_t) vh_gpu_total_memory (gpu) * 4;
  ck_assert (vh_gpu_mem_alloc (gpu, huge, err ()) == 0);
  char *bytes = g_strdup_printf ("(%zu bytes)", huge);
  assert_error (last_error, VH_ERROR_GPU, "out of GPU memory");
  assert_error (last_error, VH_ERROR_GPU, bytes);
  note ("%s", last_error->message);
  g_free (bytes);
  ck_assert (vh_gpu_mem_alloc (gpu, 0, err ()) == 0);
  assert_error (last_error, VH_ERROR_INVALID_ARGUMENT, "0 bytes");

  /* A build without this vendor's code (and a CPU-only one). */
  const VhGpuImage *own = vh_gpu_image_set_find (&vh_kernel_probe, vh_gpu_vendor (gpu));
  ck_assert_msg (own, "this build has no %s code for the probe", vh_gpu_vendor_name (gpu));
  const VhGpuImage foreign = {
    vh_gpu_vendor (gpu) == VH_GPU_VENDOR_AMD ? VH_GPU_VENDOR_NVIDIA : VH_GPU_VENDOR_AMD,
    "sm_80", own->data, own->size
  };
  const VhGpuImageSet foreign_only = { "probe", &foreign, 1 };
  ck_assert_ptr_null (vh_gpu_module_load_embedded (gpu, &foreign_only, err ()));
  assert_error (last_error, VH_ERROR_GPU, "kernel image not loadable for this GPU");
  assert_error (last_error, VH_ERROR_GPU, "only");
  note ("%s", last_error->message);
  const VhGpuImageSet empty = { "probe", NULL, 0 };
  ck_assert_ptr_null (vh_gpu_module_load_embedded (gpu, &empty, err ()));
  assert_error (last_error, VH_ERROR_GPU, "CPU-only build");

  /* An image for other archs only: refused before the vendor sees it. */
  guint8 *patched = g_memdup2 (own->data, own->size);
  if (vh_gpu_vendor (gpu) == VH_GPU_VENDOR_NVIDIA) {
    /* Fatbin entries' arch field -> 250 (no such GPU). */
    size_t pos = 16;
    while (pos + 32 <= own->size) {
      guint32 header, arch = 250;
      guint64 payload;
      memcpy (&header, patched + pos + 4, 4);
      memcpy (&payload, patched + pos + 8, 8);
      memcpy (patched + pos + 28, &arch, 4);
      pos += header + payload;
    }
  } else {
    /* Bundle ids "...--gfx9xx" -> "...--gfx000"-like names. */
    for (size_t i = 0; i + 5 < own->size; i++)
      if (memcmp (patched + i, "--gfx", 5) == 0)
        memset (patched + i + 5, '0', 3);
  }
  const VhGpuImage wrong_arch = { vh_gpu_vendor (gpu), own->targets, patched, own->size };
  const VhGpuImageSet wrong_set = { "probe", &wrong_arch, 1 };
  ck_assert_ptr_null (vh_gpu_module_load_embedded (gpu, &wrong_set, err ()));
  assert_error (last_error, VH_ERROR_GPU, "kernel image not loadable for this GPU (");
  assert_error (last_error, VH_ERROR_GPU, vh_gpu_arch (gpu));
  note ("%s", last_error->message);
  g_free (patched);

  /* Bytes that are no image at all, through the vendor loader. */
  ck_assert_ptr_null (vh_gpu_module_load_data (gpu, "this is not a kernel image", err ()));
  assert_error (last_error, VH_ERROR_GPU, "ModuleLoadData failed");
  note ("%s", last_error->message);

  /* Unknown kernel name, impossible launches. */
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_probe, err ());
  ck_assert_msg (module, "%s", err_text ());
  ck_assert_ptr_null (vh_gpu_function (module, "vh_no_such_kernel", err ()));
  assert_error (last_error, VH_ERROR_GPU, "vh_no_such_kernel");
  assert_error (last_error, VH_ERROR_GPU, "GetFunction failed");
  note ("%s", last_error->message);
  VhGpuFunction *fn = vh_gpu_function (module, "vh_probe_sum_i64", err ());
  ck_assert_msg (fn, "%s", err_text ());
  VhGpuDim3 one = { 1, 1, 1 }, too_big = { 4096, 1, 1 }, empty_grid = { 0, 1, 1 };
  ck_assert (!vh_gpu_launch (fn, one, too_big, 0, NULL, NULL, err ()));
  assert_error (last_error, VH_ERROR_INVALID_ARGUMENT, "threads exceeds");
  ck_assert (!vh_gpu_launch (fn, empty_grid, one, 0, NULL, NULL, err ()));
  assert_error (last_error, VH_ERROR_INVALID_ARGUMENT, "empty launch");
  ck_assert (!vh_gpu_launch (fn, one, one, 1u << 30, NULL, NULL, err ()));
  assert_error (last_error, VH_ERROR_INVALID_ARGUMENT, "shared memory");
  vh_gpu_module_free (module);

  /* Device id out of range, for the vendor that opened. */
  int count = vh_gpu_device_count (vh_gpu_vendor (gpu), err ());
  ck_assert_int_gt (count, 0);
  ck_assert_ptr_null (vh_gpu_open (vh_gpu_vendor (gpu), count + 2, err ()));
  char *expected = g_strdup_printf ("device-id %d but %d %s device", count + 2, count,
      vh_gpu_vendor_name (gpu));
  assert_error (last_error, VH_ERROR_GPU, expected);
  note ("%s", last_error->message);
  g_free (expected);
  g_clear_error (&last_error);
}
END_TEST

static Suite *
device_suite (void)
{
  Suite *s = suite_create ("gpu-device");
  TCase *tc = tcase_create ("device");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, device_info);
  tcase_add_test (tc, device_shared_handle);
  tcase_add_test (tc, device_probe_kernel);
  tcase_add_test (tc, device_copies);
  tcase_add_test (tc, device_streams_events);
  tcase_add_test (tc, device_other_threads);
  tcase_add_test (tc, device_error_paths);
  suite_add_tcase (s, tc);
  return s;
}

static int
run_suite (Suite *suite, enum fork_status fork_mode)
{
  SRunner *runner = srunner_create (suite);
  if (fork_mode == CK_NOFORK)
    srunner_set_fork_status (runner, CK_NOFORK);
  srunner_run_all (runner, CK_NORMAL);
  int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed;
}

int
main (int argc, char **argv)
{
  gboolean host = TRUE, device = TRUE;
  if (argc > 1 && strcmp (argv[1], "--host") == 0)
    device = FALSE;
  else if (argc > 1 && strcmp (argv[1], "--device") == 0)
    host = FALSE;
  else if (argc > 1) {
    fprintf (stderr, "usage: %s [--host | --device]\n", argv[0]);
    return 2;
  }

  note ("build: AMD kernels %s, NVIDIA kernels %s",
      *VH_KERNELS_AMD_TARGETS ? VH_KERNELS_AMD_TARGETS : "not compiled",
      *VH_KERNELS_NVIDIA_TARGETS ? VH_KERNELS_NVIDIA_TARGETS : "not compiled");

  int failed = 0;
  if (host) {
    note ("host suite: RUN");
    failed += run_suite (host_suite (), CK_FORK);
  }
  if (!device)
    return failed ? 1 : 0;

  /* Only now, after the forking suite, may this process touch the GPU. */
  GError *error = NULL;
  gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, -1, &error);
  if (!gpu) {
    note ("device suite: SKIPPED (%s)", error->message);
    g_error_free (error);
    return failed ? 1 : (host ? 0 : SKIP_STATUS);
  }
  note ("device suite: RUN on %s %s (%s)", vh_gpu_vendor_name (gpu),
      vh_gpu_device_name (gpu), vh_gpu_arch (gpu));
  failed += run_suite (device_suite (), CK_NOFORK);
  g_clear_error (&last_error);
  vh_gpu_close (gpu);
  return failed ? 1 : 0;
}
