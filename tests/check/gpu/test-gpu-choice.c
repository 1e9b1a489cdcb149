/* vmafhip — the engine's backend choice (vh_backend_choose), which the
 * element, the CLI and the benchmarks share, against the mock HIP runtime
 * (mock-hip.c, named by VMAFHIP_HIP_LIBRARY): cpu, hip and auto; the
 * kernel probe; auto falling back where no runtime loads; device-id auto
 * placing streams on two mock GPUs by load. */
#include <check.h>
#include <string.h>

#include "vh-backend.h"
#include "vh-mock-gpu.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

static VhEngine *
engine_with_model (void)
{
  GError *error = NULL;
  const VhVideoInfo info = { 64, 48, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert_msg (e != NULL, "%s", error ? error->message : "?");
  return e;
}

START_TEST (test_kind_names)
{
  VhBackendKind kind;
  ck_assert (vh_backend_kind_from_string ("auto", &kind)
      && kind == VH_BACKEND_AUTO);
  ck_assert (vh_backend_kind_from_string ("cpu", &kind)
      && kind == VH_BACKEND_CPU);
  ck_assert (vh_backend_kind_from_string ("hip", &kind)
      && kind == VH_BACKEND_HIP);
  ck_assert (!vh_backend_kind_from_string ("cuda", &kind));
  ck_assert (!vh_backend_kind_from_string (NULL, &kind));
}
END_TEST

START_TEST (test_cpu)
{
  GError *error = NULL;
  VhBackendChoice *c = vh_backend_choose (VH_BACKEND_CPU, 0, &test_config,
      &error);
  ck_assert (c != NULL);
  ck_assert (!vh_backend_choice_is_gpu (c));
  ck_assert_ptr_null (vh_backend_choice_gpu (c));
  ck_assert_ptr_null (vh_backend_choice_fallback (c));
  ck_assert_str_eq (vh_backend_choice_description (c), "cpu");
  ck_assert (strstr (vh_backend_choice_summary (c), "backend=cpu"));
  VhEngine *e = engine_with_model ();
  ck_assert (vh_backend_choice_attach (c, e, 0, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  ck_assert (!vh_engine_is_accelerated (e));
  vh_engine_free (e);
  vh_backend_choice_unref (c);
}
END_TEST

/* The mock's device, where this build has its kernels: hip and auto take
 * it and the engine's features run there; without them the probe finds
 * out at once (hip fails, auto takes the CPU, saying why) */
START_TEST (test_hip_and_auto)
{
  GError *error = NULL;
  const gboolean runs = !vh_mock_gpu_lacks_images (&vh_kernel_motion,
      "test_hip_and_auto (the probe's failure is checked instead)");
  VhBackendChoice *hip = vh_backend_choose (VH_BACKEND_HIP, 0, &test_config,
      &error);
  VhBackendChoice *automatic = vh_backend_choose (VH_BACKEND_AUTO, 0,
      &test_config, NULL);
  ck_assert (automatic != NULL);
  if (!runs) {
    ck_assert_ptr_null (hip);
    ck_assert (error != NULL);
    ck_assert (!vh_backend_choice_is_gpu (automatic));
    ck_assert (vh_backend_choice_fallback (automatic) != NULL);
    g_clear_error (&error);
    vh_backend_choice_unref (automatic);
    return;
  }
  ck_assert_msg (hip != NULL, "%s", error ? error->message : "?");
  ck_assert (vh_backend_choice_is_gpu (hip));
  ck_assert (g_str_has_prefix (vh_backend_choice_description (hip),
          "hip: AMD"));
  ck_assert (strstr (vh_backend_choice_description (hip), "device 0"));
  ck_assert (strstr (vh_backend_choice_summary (hip), "Scoring on the GPU"));
  ck_assert_ptr_null (vh_backend_choice_fallback (hip));
  /* the process's one handle on the device */
  ck_assert (vh_backend_choice_gpu (hip) == vh_backend_choice_gpu (automatic));
  ck_assert_ptr_null (vh_backend_choice_fallback (automatic));

  VhEngine *e = engine_with_model ();
  ck_assert (vh_backend_choice_attach (hip, e, 0, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  ck_assert (vh_engine_is_accelerated (e));
  vh_engine_free (e);
  /* the engine's backend held its own reference: the choice still works */
  VhEngine *e2 = engine_with_model ();
  ck_assert (vh_backend_choice_attach (hip, e2, 0, &error));
  vh_engine_free (e2);
  vh_backend_choice_unref (hip);
  vh_backend_choice_unref (automatic);
}
END_TEST

/* hip on GPU device_id (VH_DEVICE_AUTO: by load), which must work */
static VhBackendChoice *
choose_hip (int device_id)
{
  GError *error = NULL;
  VhBackendChoice *c = vh_backend_choose (VH_BACKEND_HIP, device_id,
      &test_config, &error);
  ck_assert_msg (c != NULL, "device %d: %s", device_id,
      error ? error->message : "?");
  return c;
}

/* An engine with its accelerator on the choice's device */
static VhEngine *
attached_engine (const VhBackendChoice *c)
{
  GError *error = NULL;
  VhEngine *e = engine_with_model ();
  ck_assert_msg (vh_backend_choice_attach (c, e, 0, &error), "%s",
      error ? error->message : "?");
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  ck_assert (vh_engine_is_accelerated (e));
  return e;
}

/* Two mock GPUs: auto places each stream on the least-loaded one (the
 * lower index on a tie); a stream weighs while its choice or an engine
 * attached through it lives; an index is taken as given */
START_TEST (test_auto_places_by_load)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_motion,
          "test_auto_places_by_load"))
    return;
  g_setenv ("VH_MOCK_HIP_DEVICES", "2", TRUE);
  ck_assert_int_eq (vh_backend_count_gpus (&test_config), 2);

  VhBackendChoice *c[4];
  VhEngine *e[4];
  const int expected[] = { 0, 1, 0, 1 };
  for (int i = 0; i < 4; i++) {
    c[i] = choose_hip (VH_DEVICE_AUTO);
    ck_assert_int_eq (vh_backend_choice_device_id (c[i]), expected[i]);
    ck_assert_msg (strstr (vh_backend_choice_description (c[i]),
            "(auto: the least loaded of 2 GPUs)"), "%s",
        vh_backend_choice_description (c[i]));
    e[i] = attached_engine (c[i]);
  }
  /* one handle per GPU, shared */
  ck_assert (vh_backend_choice_gpu (c[0]) == vh_backend_choice_gpu (c[2]));
  ck_assert (vh_backend_choice_gpu (c[0]) != vh_backend_choice_gpu (c[1]));
  ck_assert_int_eq (vh_backend_device_load (0), 2);
  ck_assert_int_eq (vh_backend_device_load (1), 2);

  /* the engine keeps its stream's weight after the choice has gone */
  vh_backend_choice_unref (c[0]);
  ck_assert_int_eq (vh_backend_device_load (0), 2);
  /* a second engine through one choice (a rendition) weighs too */
  VhEngine *extra = attached_engine (c[2]);
  ck_assert_int_eq (vh_backend_device_load (0), 3);

  /* a stream on device 1 ends: the next goes there */
  vh_engine_free (e[1]);
  vh_backend_choice_unref (c[1]);
  ck_assert_int_eq (vh_backend_device_load (1), 1);
  VhBackendChoice *next = choose_hip (VH_DEVICE_AUTO);
  ck_assert_int_eq (vh_backend_choice_device_id (next), 1);
  ck_assert_int_eq (vh_backend_device_load (1), 2);

  /* an index is honoured whatever the load, and counts */
  VhBackendChoice *zero = choose_hip (0);
  ck_assert_int_eq (vh_backend_choice_device_id (zero), 0);
  ck_assert (!strstr (vh_backend_choice_description (zero), "auto"));
  ck_assert_int_eq (vh_backend_device_load (0), 4);

  /* everything freed: no load left */
  vh_backend_choice_unref (zero);
  vh_backend_choice_unref (next);
  vh_engine_free (extra);
  vh_engine_free (e[0]);
  for (int i = 2; i < 4; i++) {
    vh_engine_free (e[i]);
    vh_backend_choice_unref (c[i]);
  }
  ck_assert_int_eq (vh_backend_device_load (0), 0);
  ck_assert_int_eq (vh_backend_device_load (1), 0);
  /* and the lowest index again */
  next = choose_hip (VH_DEVICE_AUTO);
  ck_assert_int_eq (vh_backend_choice_device_id (next), 0);
  vh_backend_choice_unref (next);
}
END_TEST

/* An index beyond the GPUs, or below auto: an error that says so; with
 * auto, the CPU and the reason */
START_TEST (test_device_out_of_range)
{
  GError *error = NULL;
  g_setenv ("VH_MOCK_HIP_DEVICES", "2", TRUE);
  ck_assert_ptr_null (vh_backend_choose (VH_BACKEND_HIP, 5, &test_config,
          &error));
  ck_assert_msg (error && strstr (error->message, "device-id 5 but 2 AMD "
          "devices"), "%s", error ? error->message : "(no error)");
  g_clear_error (&error);
  ck_assert_ptr_null (vh_backend_choose (VH_BACKEND_HIP, -2, &test_config,
          &error));
  ck_assert (g_error_matches (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT));
  ck_assert (strstr (error->message, "device -2"));
  g_clear_error (&error);
  VhBackendChoice *automatic = vh_backend_choose (VH_BACKEND_AUTO, 5,
      &test_config, &error);
  ck_assert (automatic && !vh_backend_choice_is_gpu (automatic));
  ck_assert (strstr (vh_backend_choice_fallback (automatic), "device-id 5"));
  vh_backend_choice_unref (automatic);
}
END_TEST

/* A GPU that fails the kernel probe is passed over by auto */
START_TEST (test_auto_skips_unusable)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_motion,
          "test_auto_skips_unusable"))
    return;
  g_setenv ("VH_MOCK_HIP_DEVICES", "2", TRUE);
  g_setenv ("VH_MOCK_HIP_BAD_DEVICE", "0", TRUE);
  VhBackendChoice *a = choose_hip (VH_DEVICE_AUTO);
  VhBackendChoice *b = choose_hip (VH_DEVICE_AUTO);
  ck_assert_int_eq (vh_backend_choice_device_id (a), 1);
  ck_assert_int_eq (vh_backend_choice_device_id (b), 1);
  vh_backend_choice_unref (a);
  vh_backend_choice_unref (b);
  /* none works: the reasons of each */
  g_setenv ("VH_MOCK_HIP_DEVICES", "1", TRUE);
  GError *error = NULL;
  ck_assert_ptr_null (vh_backend_choose (VH_BACKEND_HIP, VH_DEVICE_AUTO,
          &test_config, &error));
  ck_assert_msg (error && strstr (error->message, "none of the 1 GPU works"),
      "%s", error ? error->message : "(no error)");
  g_clear_error (&error);
}
END_TEST

/* No runtime loads (a fresh process: the runtime is opened once) */
START_TEST (test_no_runtime)
{
  GError *error = NULL;
  VhConfig config = { 0 };
  vh_config_copy (&config, &test_config);
  g_free (config.hip_library);
  g_free (config.cuda_library);
  config.hip_library = g_strdup ("libvmafhip-test-missing-hip.so.0");
  config.cuda_library = g_strdup ("libvmafhip-test-missing-cuda.so.0");
  VhBackendChoice *automatic = vh_backend_choose (VH_BACKEND_AUTO, 0,
      &config, &error);
  ck_assert (automatic != NULL && !vh_backend_choice_is_gpu (automatic));
  const char *why = vh_backend_choice_fallback (automatic);
  ck_assert_msg (why && strstr (why, "libvmafhip-test-missing-hip.so.0"),
      "fallback: %s", why ? why : "(none)");
  ck_assert (strstr (vh_backend_choice_summary (automatic),
          "no usable GPU"));
  ck_assert (vh_backend_choose (VH_BACKEND_HIP, 0, &config, &error) == NULL);
  ck_assert (error && strstr (error->message, "no GPU runtime found"));
  g_clear_error (&error);
  vh_backend_choice_unref (automatic);
  vh_config_clear (&config);
}
END_TEST

int
main (void)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  Suite *s = suite_create ("gpu-choice");
  TCase *tc = tcase_create ("choice");
  tcase_add_test (tc, test_kind_names);
  tcase_add_test (tc, test_cpu);
  tcase_add_test (tc, test_hip_and_auto);
  tcase_add_test (tc, test_no_runtime);
  tcase_add_test (tc, test_auto_places_by_load);
  tcase_add_test (tc, test_device_out_of_range);
  tcase_add_test (tc, test_auto_skips_unusable);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  /* each test in a fresh process: the runtime is opened once a process */
  srunner_set_fork_status (runner, CK_FORK);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  vh_config_clear (&test_config);
  return failed ? 1 : 0;
}
