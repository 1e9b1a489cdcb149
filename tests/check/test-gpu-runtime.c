/* vmafhip — GPU device layer tests (common/gpu/device) and the embedded kernels.
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
#include "vh-gpu-runtime-test.h"
#include "vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

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
  vh_config_load_environment (&test_config);
  vh_gpu_use_config (&test_config);
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
  vh_config_load_environment (&test_config);
  vh_gpu_use_config (&test_config);
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

/* Every configured target of a vendor is in exactly one of its images
 * (AMD may have two: hipcc's and clang-19's), as declared and as the bytes
 * say. */
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

  GPtrArray *declared = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *found = g_ptr_array_new_with_free_func (g_free);
  for (unsigned int i = 0; i < vh_kernel_probe.n_images; i++) {
    image = &vh_kernel_probe.images[i];
    if (image->vendor != vendor)
      continue;
    GError *error = NULL;
    gchar **read = vh_gpu_image_read_targets (image, &error);
    ck_assert_msg (read, "%s", error ? error->message : "?");
    gchar **decl = g_strsplit (image->targets, ",", -1);
    gchar *read_list = g_strjoinv (",", read);
    note ("%s image %u: %zu bytes, carries %s (declared %s)", name, i,
        image->size, read_list, image->targets);
    ck_assert_uint_eq (g_strv_length (read), g_strv_length (decl));
    for (guint k = 0; decl[k]; k++) {
      ck_assert_msg (g_strv_contains ((const gchar *const *) read, decl[k]),
          "%s image %u lacks %s (has %s)", name, i, decl[k], read_list);
      g_ptr_array_add (declared, g_strdup (decl[k]));
    }
    for (guint k = 0; read[k]; k++)
      g_ptr_array_add (found, g_strdup (read[k]));
    g_free (read_list);
    g_strfreev (decl);
    g_strfreev (read);
  }
  gchar **wanted = g_strsplit (configured, ",", -1);
  ck_assert_uint_eq (declared->len, g_strv_length (wanted));
  ck_assert_uint_eq (found->len, g_strv_length (wanted));
  for (guint k = 0; wanted[k]; k++) {
    guint times = 0;
    for (guint j = 0; j < found->len; j++)
      times += strcmp (g_ptr_array_index (found, j), wanted[k]) == 0;
    ck_assert_msg (times == 1, "%s target %s is in %u images", name,
        wanted[k], times);
  }
  g_strfreev (wanted);
  g_ptr_array_unref (declared);
  g_ptr_array_unref (found);
}

/* Chips of every generic family (LLVM's AMDGPUUsage), some released after
 * clang-19 (gfx1152, gfx1153) or made up (gfx1154, gfx1202): the family
 * decides, the table need not know the chip. */
static const char *const generic_family_members[] = {
  "gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c",
  "gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036",
  "gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152",
  "gfx1153", "gfx1154", "gfx1200", "gfx1201", "gfx1202",
};

/* The loader's choice of image for a device's arch (what
 * vh_gpu_module_load_embedded uses): every configured target finds the
 * image that holds it; a chip the build has no code object of finds the
 * image of its family's generic target, read from the real bundles; archs
 * the build lacks find none, and the message's list names what there is. */
static void
check_choice (VhGpuVendor vendor, const char *configured)
{
  gchar **wanted = g_strsplit (configured, ",", -1);
  for (guint i = 0; vendor == VH_GPU_VENDOR_AMD && i < G_N_ELEMENTS (generic_family_members); i++) {
    const char *arch = generic_family_members[i];
    const char *generic = vh_gpu_amd_generic_target (arch);
    ck_assert_ptr_nonnull (generic);
    if (g_strv_contains ((const gchar *const *) wanted, arch)
        || !g_strv_contains ((const gchar *const *) wanted, generic))
      continue;
    const VhGpuImage *image = vh_gpu_image_set_choose (&vh_kernel_probe,
        vendor, arch, NULL);
    ck_assert_msg (image != NULL, "no image chosen for %s (%s is built)", arch, generic);
    gchar **read = vh_gpu_image_read_targets (image, NULL);
    ck_assert_msg (read && g_strv_contains ((const gchar *const *) read, generic),
        "the image chosen for %s holds %s, not %s", arch, image->targets, generic);
    ck_assert_int_eq (vh_gpu_amd_fit (arch, read), VH_GPU_IMAGE_FIT_GENERIC);
    note ("%s: no code object of its own, runs %s", arch, generic);
    g_strfreev (read);
  }
  for (guint k = 0; wanted[k] && *wanted[k]; k++) {
    if (g_str_has_prefix (wanted[k], "compute_"))
      continue;
    char *built_for = NULL;
    const VhGpuImage *image = vh_gpu_image_set_choose (&vh_kernel_probe,
        vendor, wanted[k], &built_for);
    ck_assert_msg (image != NULL, "no image chosen for %s", wanted[k]);
    gchar **read = vh_gpu_image_read_targets (image, NULL);
    ck_assert (read != NULL);
    ck_assert_msg (g_strv_contains ((const gchar *const *) read, wanted[k]),
        "the image chosen for %s holds %s", wanted[k], image->targets);
    ck_assert (built_for != NULL && strstr (built_for, wanted[k]));
    g_strfreev (read);
    g_free (built_for);
  }
  g_strfreev (wanted);
}

START_TEST (host_image_choice_embedded)
{
  char *built_for = NULL;
  check_choice (VH_GPU_VENDOR_AMD, VH_KERNELS_AMD_TARGETS);
  check_choice (VH_GPU_VENDOR_NVIDIA, VH_KERNELS_NVIDIA_TARGETS);
  if (*VH_KERNELS_AMD_TARGETS) {
    /* an arch no build carries, in no generic family: none, and the list
     * names the targets */
    ck_assert_ptr_null (vh_gpu_image_set_choose (&vh_kernel_probe,
            VH_GPU_VENDOR_AMD, "gfx803", &built_for));
    ck_assert_msg (built_for && strstr (built_for, "gfx"), "%s", built_for);
    g_clear_pointer (&built_for, g_free);
  }
  if (*VH_KERNELS_NVIDIA_TARGETS) {
    /* older than every cubin and the PTX: none */
    ck_assert_ptr_null (vh_gpu_image_set_choose (&vh_kernel_probe,
            VH_GPU_VENDOR_NVIDIA, "sm_60", &built_for));
    g_clear_pointer (&built_for, g_free);
    /* newer than every cubin: the PTX */
    ck_assert_ptr_nonnull (vh_gpu_image_set_choose (&vh_kernel_probe,
            VH_GPU_VENDOR_NVIDIA, "sm_200", NULL));
  }
}
END_TEST

/* The choice among several images of one vendor, on made-up sets (bytes
 * that are no image: the declared targets count). */
START_TEST (host_image_choice_rules)
{
  static const unsigned char junk[] = "not an image";
  const VhGpuImage images[] = {
    { VH_GPU_VENDOR_NVIDIA, "sm_80,sm_90,compute_80", junk, sizeof junk },
    { VH_GPU_VENDOR_AMD, "gfx900,gfx90a:xnack-", junk, sizeof junk },
    { VH_GPU_VENDOR_AMD, "gfx1100,gfx1201", junk, sizeof junk },
  };
  const VhGpuImageSet set = { "made-up", images, G_N_ELEMENTS (images) };
  char *built_for = NULL;

  ck_assert_ptr_eq (vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_AMD, "gfx90a",
          NULL), &images[1]);
  ck_assert_ptr_eq (vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_AMD,
          "gfx1201", NULL), &images[2]);
  ck_assert_ptr_eq (vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_AMD,
          "unknown", NULL), &images[1]);
  ck_assert_ptr_null (vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_AMD,
          "gfx1030", &built_for));
  ck_assert_str_eq (built_for, "gfx900, gfx90a:xnack-, gfx1100, gfx1201");
  g_clear_pointer (&built_for, g_free);
  /* cubins: same major, minor no higher; PTX: any later GPU */
  ck_assert_ptr_eq (vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_NVIDIA,
          "sm_86", NULL), &images[0]);
  ck_assert_ptr_eq (vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_NVIDIA,
          "sm_120", NULL), &images[0]);
  ck_assert_ptr_null (vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_NVIDIA,
          "sm_75", &built_for));
  ck_assert_str_eq (built_for, "sm_80, sm_90, compute_80");
  g_clear_pointer (&built_for, g_free);
  /* no image of the vendor: the message says what the set holds */
  const VhGpuImageSet amd_only = { "amd-only", &images[1], 1 };
  ck_assert_ptr_null (vh_gpu_image_set_choose (&amd_only,
          VH_GPU_VENDOR_NVIDIA, "sm_90", &built_for));
  ck_assert_str_eq (built_for, "AMD gfx900,gfx90a:xnack- only");
  g_free (built_for);
}
END_TEST

/* Generic images on a made-up device list: each GPU takes an image with a
 * code object for its own arch first, whatever the order of the images,
 * the generic one of its family second, and none when neither is built. */
START_TEST (host_image_choice_generic)
{
  static const unsigned char junk[] = "not an image";
  const VhGpuImage images[] = {
    /* first, so that order alone cannot make the specific ones win */
    { VH_GPU_VENDOR_AMD, "gfx9-generic,gfx10-3-generic,gfx11-generic,gfx12-generic",
      junk, sizeof junk },
    { VH_GPU_VENDOR_AMD, "gfx900,gfx906,gfx908,gfx90a,gfx1030", junk, sizeof junk },
    { VH_GPU_VENDOR_AMD, "gfx942,gfx1100,gfx1101,gfx1102,gfx1103,gfx1150,gfx1151,"
      "gfx1200,gfx1201", junk, sizeof junk },
    { VH_GPU_VENDOR_NVIDIA, "sm_80,compute_80", junk, sizeof junk },
  };
  const VhGpuImageSet set = { "made-up", images, G_N_ELEMENTS (images) };
  static const struct {
    const char *arch;
    int image;          /* index into images, -1 for none */
  } devices[] = {
    /* their own code objects, though a generic one covers them too */
    { "gfx900", 1 }, { "gfx906", 1 }, { "gfx1030", 1 }, { "gfx1100", 2 },
    { "gfx1151", 2 }, { "gfx1201", 2 }, { "gfx942", 2 },
    /* in no generic family: their own or nothing */
    { "gfx908", 1 }, { "gfx90a", 1 }, { "gfx90a:sramecc+:xnack-", 1 },
    /* the family's generic code object */
    { "gfx902", 0 }, { "gfx909", 0 }, { "gfx90c", 0 }, { "gfx1031", 0 },
    { "gfx1036", 0 }, { "gfx1152", 0 }, { "gfx1153", 0 }, { "gfx1154", 0 },
    { "gfx1202", 0 }, { "gfx1036:xnack-", 0 },
    /* families not built (gfx10-1-generic, gfx9-4-generic) or none */
    { "gfx1010", -1 }, { "gfx1013", -1 }, { "gfx940", -1 }, { "gfx950", -1 },
    { "gfx1250", -1 }, { "gfx803", -1 }, { "gfx11", -1 }, { "gfx11000", -1 },
  };
  for (unsigned int i = 0; i < G_N_ELEMENTS (devices); i++) {
    const VhGpuImage *chosen = vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_AMD,
        devices[i].arch, NULL);
    const VhGpuImage *expected = devices[i].image < 0 ? NULL
        : &images[devices[i].image];
    ck_assert_msg (chosen == expected, "%s: image %d chosen, %d expected",
        devices[i].arch, chosen ? (int) (chosen - images) : -1, devices[i].image);
  }

  /* the families, as LLVM's table of generic processors has them */
  ck_assert_str_eq (vh_gpu_amd_generic_target ("gfx90c"), "gfx9-generic");
  ck_assert_str_eq (vh_gpu_amd_generic_target ("gfx942"), "gfx9-4-generic");
  ck_assert_str_eq (vh_gpu_amd_generic_target ("gfx1013"), "gfx10-1-generic");
  ck_assert_str_eq (vh_gpu_amd_generic_target ("gfx1034"), "gfx10-3-generic");
  ck_assert_str_eq (vh_gpu_amd_generic_target ("gfx1150:xnack-"), "gfx11-generic");
  ck_assert_str_eq (vh_gpu_amd_generic_target ("gfx1201"), "gfx12-generic");
  ck_assert_ptr_null (vh_gpu_amd_generic_target ("gfx908"));
  ck_assert_ptr_null (vh_gpu_amd_generic_target ("gfx90a"));
  ck_assert_ptr_null (vh_gpu_amd_generic_target ("gfx1250"));
  ck_assert_ptr_null (vh_gpu_amd_generic_target ("gfx10-3-generic"));
  ck_assert_ptr_null (vh_gpu_amd_generic_target (""));
  ck_assert_ptr_null (vh_gpu_amd_generic_target (NULL));

  /* the message of a failed choice names the generic targets too */
  char *built_for = NULL;
  ck_assert_ptr_null (vh_gpu_image_set_choose (&set, VH_GPU_VENDOR_AMD, "gfx1010",
          &built_for));
  ck_assert_msg (strstr (built_for, "gfx10-3-generic") && strstr (built_for, "gfx1030"),
      "%s", built_for);
  g_free (built_for);
}
END_TEST

/* The resource table the build embedded (tools/gpu-resources.py): every
 * configured target has its facts and every module's kernels; no kernel
 * spills but those kernels/spills-accepted.txt accepts (the build refuses
 * the others); AMD code objects are v4 (hipcc), v5
 * (clang-19) or v6 (generic targets), for any xnack and sramecc mode. */
START_TEST (host_resource_table)
{
  const VhGpuResourceTable *table = &vh_kernel_resources;
  gchar **amd = g_strsplit (VH_KERNELS_AMD_TARGETS, ",", -1);
  gchar **nvidia = g_strsplit (VH_KERNELS_NVIDIA_TARGETS, ",", -1);
  guint configured = 0;
  for (guint i = 0; amd[i]; i++)
    configured += *amd[i] != 0;
  for (guint i = 0; nvidia[i]; i++)
    configured += *nvidia[i] && !g_str_has_prefix (nvidia[i], "compute_");
  note ("resource table: %u targets, %u kernel rows (%u targets configured)",
      table->n_targets, table->n_kernels, configured);
  ck_assert_uint_eq (table->n_targets, configured);

  for (guint t = 0; t < table->n_targets; t++) {
    const VhGpuTargetFacts *facts = &table->targets[t];
    const gboolean is_amd = facts->vendor == VH_GPU_VENDOR_AMD;
    ck_assert_msg (g_strv_contains ((const gchar *const *) (is_amd ? amd : nvidia),
            facts->target), "%s is not configured", facts->target);
    if (is_amd) {
      /* the generic targets need v6; the build checked each compiler's */
      ck_assert_msg (g_str_has_suffix (facts->target, "-generic")
          ? facts->code_object_version == 6
          : facts->code_object_version == 4 || facts->code_object_version == 5,
          "%s: code object v%u", facts->target, facts->code_object_version);
      ck_assert_msg (!strcmp (facts->xnack, "any") || !strcmp (facts->xnack, "unsupported"),
          "%s: xnack %s", facts->target, facts->xnack);
      ck_assert_msg (!strcmp (facts->sramecc, "any") || !strcmp (facts->sramecc, "unsupported"),
          "%s: sramecc %s", facts->target, facts->sramecc);
      ck_assert_msg (*facts->first_rocm, "%s: no ROCm release loads it", facts->target);
    }
    /* every module has kernels there, none spilling, all with an occupancy */
    static const char *const modules[] = { "probe", "motion", "psnr", "adm",
      "vif", "ciede", "ssim", "ms-ssim", "psnr-hvs", "cambi", "speed", "scale" };
    for (guint k = 0; k < G_N_ELEMENTS (modules); k++) {
      guint rows = 0;
      for (guint r = 0; r < table->n_kernels; r++) {
        const VhGpuKernelResources *row = &table->kernels[r];
        if (row->vendor != facts->vendor || strcmp (row->target, facts->target)
            || strcmp (row->module, modules[k]))
          continue;
        rows++;
        ck_assert_msg (row->spills == 0 || row->spill_accepted, "%s %s spills",
            facts->target, row->kernel);
        ck_assert_msg (row->occupancy >= 1 && row->occupancy <= row->occupancy_max,
            "%s %s: occupancy %u of %u", facts->target, row->kernel,
            row->occupancy, row->occupancy_max);
        ck_assert_uint_gt (row->max_threads, 0);
      }
      ck_assert_msg (rows > 0, "no %s kernels on %s", modules[k], facts->target);
    }
  }
  g_strfreev (amd);
  g_strfreev (nvidia);
}
END_TEST

START_TEST (host_embedded_targets)
{
  ck_assert_str_eq (vh_kernel_probe.name, "probe");
  if (vh_kernel_probe.n_images == 0)
    note ("CPU-only build: no GPU kernels embedded");
  check_image_targets (VH_GPU_VENDOR_AMD, VH_KERNELS_AMD_TARGETS);
  check_image_targets (VH_GPU_VENDOR_NVIDIA, VH_KERNELS_NVIDIA_TARGETS);
}
END_TEST

Suite *
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
  tcase_add_test (tc, host_image_choice_embedded);
  tcase_add_test (tc, host_image_choice_rules);
  tcase_add_test (tc, host_image_choice_generic);
  tcase_add_test (tc, host_resource_table);
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
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
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
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, -1, &error);
  if (!gpu) {
    note ("device suite: SKIPPED (%s)", error->message);
    g_error_free (error);
    return failed ? 1 : (host ? 0 : SKIP_STATUS);
  }
  note ("device suite: RUN on %s %s (%s)", vh_gpu_vendor_name (gpu),
      vh_gpu_device_name (gpu), vh_gpu_arch (gpu));
  failed += run_suite (device_suite (gpu), CK_NOFORK);
  device_suite_done ();
  vh_gpu_close (gpu);
  return failed ? 1 : 0;
}
