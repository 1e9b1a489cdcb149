/* vmafhip — the ADM kernels' per-thread code (kernels/adm-device.h) run on
 * the host, block by block and thread by thread, against the CPU engine's
 * integer sums: the GPU's ADM arithmetic, its tiling, edges and AVX-512
 * columns checked in CI, without a GPU.  Each case also computes the
 * reference's share once and scores two distorted pictures (two strengths)
 * against it: the same sums again, or, where libvmaf's AVX-512 tail would
 * reach scored columns (narrow pictures), a refusal that says so. */
#include <stdio.h>
#include <string.h>

#include "adm-gpu.h"
#include "vh-synth.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

static unsigned failures, cases, refused;

static void
expect_equal (const VhAdmSums *cpu, const VhAdmSums *gpu, const char *what,
    unsigned w, unsigned h, unsigned bpc, VhAdmReference reference,
    int csf_mode, int skip)
{
  cases++;
  if (memcmp (cpu, gpu, sizeof *cpu)) {
    failures++;
    printf ("MISMATCH (%s) %ux%u %u-bit %s csf %d skip %d\n", what, w, h,
        bpc, reference == VH_ADM_LIBVMAF_AVX512 ? "avx512" : "c", csf_mode,
        skip);
  }
}

/* skip: 1 skips scale 0, 2 the AIM sums (libvmaf's options) */
static void
check_skip (unsigned w, unsigned h, unsigned bpc, VhAdmReference reference,
    int csf_mode, int skip)
{
  VhSynth *synth = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 7 + h + bpc);
  VhSynth *synth2 = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 7 + h + bpc);
  VhAdmWork *work = vh_adm_work_new (w, h);
  VhAdmOptions opts;
  VhAdmParams params;
  VhAdmSums cpu[2], gpu, shared[2];
  VhPicture r, d, r2, d2;
  GError *error = NULL;

  vh_adm_options_default (&opts);
  opts.csf_mode = csf_mode;
  if (!vh_adm_params_init (&params, &opts, &error))
    g_error ("params: %s", error->message);
  params.reference = reference;
  params.skip_scale0 = skip == 1;
  params.skip_aim = skip == 2;
  vh_synth_render (synth, 2, 5, &r, &d);
  vh_adm_compute_sums (work, &r.plane[0], &d.plane[0], bpc, &params, &cpu[0]);
  memset (&gpu, 0x77, sizeof gpu);
  if (!vh_adm_gpu_emulate (&r.plane[0], &d.plane[0], bpc, &params, &gpu,
          &error))
    g_error ("emulate: %s", error->message);
  expect_equal (&cpu[0], &gpu, "pair", w, h, bpc, reference, csf_mode, skip);

  /* the same frame at another strength: the same reference */
  vh_synth_render (synth2, 2, 8, &r2, &d2);
  if (memcmp (r.plane[0].data, r2.plane[0].data,
          (size_t) r.plane[0].stride * h))
    g_error ("the synthetic reference depends on the strength");
  vh_adm_compute_sums (work, &r.plane[0], &d2.plane[0], bpc, &params,
      &cpu[1]);
  const VhPlane *dis[2] = { &d.plane[0], &d2.plane[0] };
  memset (shared, 0x77, sizeof shared);
  if (vh_adm_gpu_emulate_shared (&r.plane[0], dis, 2, bpc, &params, shared,
          &error)) {
    expect_equal (&cpu[0], &shared[0], "shared reference, first", w, h, bpc,
        reference, csf_mode, skip);
    expect_equal (&cpu[1], &shared[1], "shared reference, second", w, h,
        bpc, reference, csf_mode, skip);
  } else if (reference == VH_ADM_LIBVMAF_AVX512
      && strstr (error->message, "too narrow")) {
    refused++;
    g_clear_error (&error);
  } else {
    g_error ("emulate shared: %s", error->message);
  }
  vh_adm_work_free (work);
  vh_synth_free (synth2);
  vh_synth_free (synth);
}

static void
check (unsigned w, unsigned h, unsigned bpc, VhAdmReference reference,
    int csf_mode)
{
  check_skip (w, h, bpc, reference, csf_mode, 0);
}

int
main (void)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  /* the minimum, odd, the AVX-512 tail widths (33-36, 65-68), a few tiles */
  static const unsigned sizes[][2] = {
    {33, 33}, {35, 41}, {65, 47}, {97, 70}, {160, 90}, {321, 181},
  };
  static const unsigned depths[] = { 8, 10, 12 };

  for (gsize i = 0; i < G_N_ELEMENTS (sizes); i++)
    for (gsize k = 0; k < G_N_ELEMENTS (depths); k++) {
      check (sizes[i][0], sizes[i][1], depths[k], VH_ADM_LIBVMAF_AVX512,
          VH_ADM_CSF_WATSON97);
      check (sizes[i][0], sizes[i][1], depths[k], VH_ADM_LIBVMAF_C,
          VH_ADM_CSF_WATSON97);
    }
  /* libvmaf's other CSF (v1 models); its options: scale 0 skipped, no AIM */
  check (160, 90, 8, VH_ADM_LIBVMAF_AVX512, 2);
  check_skip (160, 90, 8, VH_ADM_LIBVMAF_AVX512, VH_ADM_CSF_WATSON97, 1);
  check_skip (97, 70, 10, VH_ADM_LIBVMAF_AVX512, VH_ADM_CSF_WATSON97, 2);
  printf ("%u cases, %u shares refused as too narrow: %s\n", cases, refused,
      failures ? "MISMATCH" :
      "the ADM kernels' arithmetic equals the CPU engine's, shared or not");
  /* the refusal is for narrow pictures only: most sizes share */
  return failures || refused > 12 ? 1 : 0;
}
