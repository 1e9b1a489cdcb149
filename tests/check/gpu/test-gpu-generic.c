/* vmafhip — the AMD generic code objects, loaded through the device layer
 * against the mock HIP runtime (mock-hip.c) posing as GPUs of made-up
 * archs: a chip the build has its own code object for loads that one
 * (though a generic one covers it too), a chip of a generic family with
 * none loads the family's generic code object where the runtime runs it
 * (ROCm 6.4 or later: VH_MOCK_HIP_GENERIC) and, where it does not, fails
 * with a message naming the generic target and the ROCm release; a chip
 * in no family built fails before the runtime is asked.  The bytes handed
 * to the runtime are the embedded bundles themselves. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "vh-error.h"
#include "vh-mock-gpu.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main): the mock's name */
static VhConfig test_config;

typedef const void *(*LastImageFn) (void);
static LastImageFn last_image;

/* The embedded probe image whose targets hold target, or NULL. */
static const VhGpuImage *
image_holding (const char *target)
{
  for (unsigned i = 0; i < vh_kernel_probe.n_images; i++) {
    gchar **targets = vh_gpu_image_read_targets (&vh_kernel_probe.images[i], NULL);
    const gboolean holds = targets
        && g_strv_contains ((const gchar *const *) targets, target);
    g_strfreev (targets);
    if (holds)
      return &vh_kernel_probe.images[i];
  }
  return NULL;
}

/* Loads the probe module on a mock GPU of arch (a runtime that runs
 * generic code objects if generic is set); the module or NULL and *error. */
static VhGpuModule *
load_on (const char *arch, const char *generic, VhGpu **gpu, GError **error)
{
  g_setenv ("VH_MOCK_HIP_ARCH", arch, TRUE);
  if (generic)
    g_setenv ("VH_MOCK_HIP_GENERIC", generic, TRUE);
  else
    g_unsetenv ("VH_MOCK_HIP_GENERIC");
  *gpu = vh_gpu_open (VH_GPU_VENDOR_AMD, 0, error);
  ck_assert_msg (*gpu != NULL, "mock device: %s", (*error)->message);
  ck_assert_str_eq (vh_gpu_arch (*gpu), arch);
  return vh_gpu_module_load_embedded (*gpu, &vh_kernel_probe, error);
}

START_TEST (own_code_object_first)
{
  const VhGpuImage *own = image_holding ("gfx1030");
  if (!own)
    return;   /* hip-amd-targets without gfx1030 */
  VhGpu *gpu;
  GError *error = NULL;
  VhGpuModule *module = load_on ("gfx1030", "gfx10-3-generic", &gpu, &error);
  ck_assert_msg (module != NULL, "%s", error ? error->message : "?");
  ck_assert_ptr_eq (last_image (), own->data);
  vh_gpu_module_free (module);
  vh_gpu_close (gpu);
}
END_TEST

START_TEST (generic_where_the_runtime_runs_it)
{
  /* gfx1036 (a Ryzen 7000 iGPU) and gfx1152, newer than clang-19's
   * specific targets here */
  static const char *const chips[][2] = {
    { "gfx1036", "gfx10-3-generic" }, { "gfx1152", "gfx11-generic" },
    { "gfx909", "gfx9-generic" }, { "gfx1202", "gfx12-generic" },
  };
  for (unsigned i = 0; i < G_N_ELEMENTS (chips); i++) {
    const VhGpuImage *expected = image_holding (chips[i][1]);
    if (!expected || image_holding (chips[i][0]))
      continue;
    VhGpu *gpu;
    GError *error = NULL;
    VhGpuModule *module = load_on (chips[i][0], chips[i][1], &gpu, &error);
    ck_assert_msg (module != NULL, "%s: %s", chips[i][0], error ? error->message : "?");
    ck_assert_msg (last_image () == expected->data, "%s did not load the %s image",
        chips[i][0], chips[i][1]);
    vh_gpu_module_free (module);
    vh_gpu_close (gpu);
  }
}
END_TEST

START_TEST (older_runtime_refuses_generic)
{
  if (image_holding ("gfx1036"))
    return;
  VhGpu *gpu;
  GError *error = NULL;
  VhGpuModule *module = load_on ("gfx1036", NULL, &gpu, &error);
  ck_assert_ptr_null (module);
  ck_assert_msg (g_error_matches (error, VH_ERROR, VH_ERROR_GPU), "%s", error->message);
  ck_assert_msg (strstr (error->message, "kernel image not loadable for this GPU (gfx1036;")
      && strstr (error->message, "hipErrorNoBinaryForGpu")
      && strstr (error->message, "generic gfx10-3-generic code object")
      && strstr (error->message, "ROCm runs from 6.4 on"), "%s", error->message);
  g_error_free (error);
  vh_gpu_close (gpu);
}
END_TEST

START_TEST (no_family_built)
{
  if (image_holding ("gfx10-1-generic") || image_holding ("gfx1010"))
    return;
  VhGpu *gpu;
  GError *error = NULL;
  const void *before = last_image ();
  VhGpuModule *module = load_on ("gfx1010", "gfx10-1-generic", &gpu, &error);
  ck_assert_ptr_null (module);
  ck_assert_msg (strstr (error->message, "(gfx1010; built for ")
      && strstr (error->message, "gfx10-3-generic"), "%s", error->message);
  ck_assert_ptr_eq (last_image (), before);   /* the runtime was not asked */
  g_error_free (error);
  vh_gpu_close (gpu);
}
END_TEST

int
main (void)
{
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  /* said loudly, as the other tests against the mock do */
  if (vh_mock_gpu_lacks_images (&vh_kernel_probe, "gpu-generic"))
    return 0;
  if (!image_holding ("gfx10-3-generic")) {
    fprintf (stderr, "gpu-generic: SKIPPED: this build has no gfx10-3-generic "
        "image (hip-amd-generic-targets without it, or no clang-19)\n");
    return 0;
  }
  last_image = (LastImageFn) vh_mock_gpu_symbol ("vh_mock_hip_last_module_image",
      "gpu-generic");
  if (!last_image)
    return 1;
  Suite *s = suite_create ("gpu-generic");
  TCase *tc = tcase_create ("generic");
  tcase_add_test (tc, own_code_object_first);
  tcase_add_test (tc, generic_where_the_runtime_runs_it);
  tcase_add_test (tc, older_runtime_refuses_generic);
  tcase_add_test (tc, no_family_built);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
