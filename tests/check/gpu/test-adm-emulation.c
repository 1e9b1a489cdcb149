/* vmafhip — the ADM kernels' per-thread code (kernels/adm-device.h) run on
 * the host, block by block and thread by thread, against the CPU engine's
 * integer sums: the GPU's ADM arithmetic, its tiling, edges and AVX-512
 * columns checked in CI, without a GPU. */
#include <stdio.h>
#include <string.h>

#include "adm-gpu.h"
#include "vh-synth.h"

static unsigned failures, cases;

static void
check (unsigned w, unsigned h, unsigned bpc, VhAdmReference reference,
    int csf_mode)
{
  VhSynth *synth = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 7 + h + bpc);
  VhAdmWork *work = vh_adm_work_new (w, h);
  VhAdmOptions opts;
  VhAdmParams params;
  VhAdmSums cpu, gpu;
  VhPicture r, d;
  GError *error = NULL;

  vh_adm_options_default (&opts);
  opts.csf_mode = csf_mode;
  if (!vh_adm_params_init (&params, &opts, &error))
    g_error ("params: %s", error->message);
  params.reference = reference;
  vh_synth_render (synth, 2, 5, &r, &d);
  vh_adm_compute_sums (work, &r.plane[0], &d.plane[0], bpc, &params, &cpu);
  memset (&gpu, 0x77, sizeof gpu);
  if (!vh_adm_gpu_emulate (&r.plane[0], &d.plane[0], bpc, &params, &gpu,
          &error))
    g_error ("emulate: %s", error->message);
  cases++;
  if (memcmp (&cpu, &gpu, sizeof cpu)) {
    failures++;
    printf ("MISMATCH %ux%u %u-bit %s csf %d\n", w, h, bpc,
        reference == VH_ADM_LIBVMAF_AVX512 ? "avx512" : "c", csf_mode);
  }
  vh_adm_work_free (work);
  vh_synth_free (synth);
}

int
main (void)
{
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
  /* libvmaf's other CSF (v1 models) */
  check (160, 90, 8, VH_ADM_LIBVMAF_AVX512, 2);
  printf ("%u cases: %s\n", cases, failures ? "MISMATCH" :
      "the ADM kernels' arithmetic equals the CPU engine's");
  return failures ? 1 : 0;
}
