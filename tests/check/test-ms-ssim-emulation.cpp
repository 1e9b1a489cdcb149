/* vmafhip — the MS-SSIM kernels' per-thread code (kernels/ms-ssim-device.h)
 * run on the host, block by block and thread by thread (each step over
 * every thread, as the kernel's barriers order them), against the CPU
 * extractor's outputs: the GPU's arithmetic, tiling, decimation and
 * reductions checked in CI without a GPU.  The launches' parameters come
 * from common/gpu/ms-ssim-gpu.c, host memory standing in for the device's;
 * the scores then go through the extractor's own extract_sums, as the
 * backend's do. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <glib.h>

#include "../../kernels/ms-ssim-device.h"

extern "C" {
#include "ms-ssim-gpu.h"
#include "ssim.h"
#include "vh-feature-internal.h"
#include "vh-synth.h"
}

using namespace vh_ms_ssim;

#define TOLERANCE 1e-5

/* One scale's launch: its tile blocks, then its decimation blocks. */
template <typename Pixel>
static void
emulate_scale (const VhMsSsimParams &p, unsigned n_blocks)
{
  std::vector<Shared> shared (1);
  Shared &sm = shared[0];
  double (*acc)[3] = new double[kBlock][3];

  for (unsigned block = 0; block < n_blocks; block++) {
    if (block >= p.n_tiles) {
      for (unsigned t = 0; t < (unsigned) kBlock; t++)
        decimate<Pixel> (p, block - p.n_tiles, t);
      continue;
    }
    std::memset (&sm, 0xa5, sizeof sm);     /* shared memory starts as garbage */
    for (unsigned t = 0; t < (unsigned) kBlock; t++)
      tile_load<Pixel> (p, block, t, sm);
    for (unsigned t = 0; t < (unsigned) kBlock; t++)
      tile_rows<sizeof (Pixel) != sizeof (float)> (t, sm);
    for (unsigned t = 0; t < (unsigned) kBlock; t++)
      tile_columns<sizeof (Pixel) != sizeof (float)> (p, block, t, sm,
          acc[t]);
    for (unsigned t = 0; t < (unsigned) kBlock; t++)
      for (int k = 0; k < 3; k++)
        sm.u.red[k][t] = acc[t][k];
    for (unsigned step = kBlock / 2; step > 0; step /= 2)
      for (unsigned t = 0; t < (unsigned) kBlock; t++)
        tree_level (t, step, sm.u.red);
    for (int k = 0; k < 3; k++)
      ((double *) (uintptr_t) p.partial)[3 * block + k] = sm.u.red[k][0];
  }
  delete[] acc;
}

static void
emulate_reduce (const VhMsSsimReduce &r)
{
  double red[3][kBlock];
  for (unsigned k = 0; k < VH_MS_SSIM_SCALES; k++) {
    for (unsigned t = 0; t < (unsigned) kBlock; t++) {
      double acc[3];
      reduce_thread (r, k, t, acc);
      for (int q = 0; q < 3; q++)
        red[q][t] = acc[q];
    }
    for (unsigned step = kBlock / 2; step > 0; step /= 2)
      for (unsigned t = 0; t < (unsigned) kBlock; t++)
        tree_level (t, step, red);
    for (int q = 0; q < 3; q++)
      ((double *) (uintptr_t) r.sums)[3 * k + q] = red[q][0];
  }
}

/* Collects the outputs of one extract / extract_sums call. */
struct Outputs {
  std::vector<std::pair<std::string, double>> values;
};

struct VhFeatureSink {
  Outputs *out;
};

extern "C" void
vh_feature_sink_put (VhFeatureSink *sink, const char *name, unsigned index,
    double value)
{
  (void) index;
  sink->out->values.emplace_back (name, value);
}

static unsigned failures, cases;
static double worst;

static void
check (unsigned w, unsigned h, unsigned bpc, unsigned strength, bool lcs)
{
  const VhFeatureExtractor *fex = &vh_fex_float_ms_ssim;
  VhSynth *synth = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 7 + h + bpc);
  GError *error = NULL;
  VhMsSsimGpu *ctx = vh_ms_ssim_gpu_new_host (w, h, bpc, &error);
  if (!ctx)
    g_error ("%s", error->message);

  /* the extractor with enable_lcs as asked (options struct: three bools) */
  std::vector<unsigned char> opts (fex->opts_size, 0);
  for (const VhOptionDesc *o = fex->options; o->name; o++)
    if (lcs && !std::strcmp (o->name, "enable_lcs"))
      *(bool *) (opts.data () + o->offset) = true;
  std::vector<unsigned char> priv (fex->priv_size, 0);
  const VhVideoInfo info = { w, h, bpc };
  if (!fex->init (priv.data (), opts.data (), &info, &error))
    g_error ("%s", error->message);

  for (unsigned frame = 0; frame < 2; frame++) {
    VhPicture r, d;
    vh_synth_render (synth, frame * 3 + 1, strength, &r, &d);

    VhMsSsimParams p[VH_MS_SSIM_SCALES];
    VhMsSsimReduce red;
    unsigned n_blocks[VH_MS_SSIM_SCALES];
    vh_ms_ssim_gpu_host_params (ctx, &r.plane[0], &d.plane[0], p, &red,
        n_blocks);
    if (bpc == 8)
      emulate_scale<uint8_t> (p[0], n_blocks[0]);
    else
      emulate_scale<uint16_t> (p[0], n_blocks[0]);
    for (unsigned k = 1; k < VH_MS_SSIM_SCALES; k++)
      emulate_scale<float> (p[k], n_blocks[k]);
    emulate_reduce (red);

    Outputs cpu, gpu;
    VhFeatureSink cpu_sink = { &cpu }, gpu_sink = { &gpu };
    VhMsSsimSums sums;
    std::memcpy (&sums, vh_ms_ssim_gpu_host_sums (ctx), sizeof sums);
    if (!fex->extract (priv.data (), &r, &d, frame, &cpu_sink, &error)
        || !fex->extract_sums (priv.data (), &sums, frame, &gpu_sink,
            &error))
      g_error ("%s", error->message);

    cases++;
    bool bad = cpu.values.size () != gpu.values.size ()
        || cpu.values.size () != (lcs ? 16u : 1u);
    for (size_t i = 0; !bad && i < cpu.values.size (); i++) {
      const double diff = std::fabs (cpu.values[i].second
          - gpu.values[i].second);
      worst = std::max (worst, diff);
      if (cpu.values[i].first != gpu.values[i].first || !(diff <= TOLERANCE)) {
        std::printf ("MISMATCH %ux%u %u-bit frame %u %s: cpu %.17g gpu "
            "%.17g\n", w, h, bpc, frame, cpu.values[i].first.c_str (),
            cpu.values[i].second, gpu.values[i].second);
        bad = true;
      }
    }
    if (bad)
      failures++;
  }
  fex->close (priv.data ());
  vh_ms_ssim_gpu_free (ctx);
  vh_synth_free (synth);
}

int
main ()
{
  /* the minimum, odd sizes (every scale odd somewhere), a few tiles */
  static const unsigned sizes[][2] = {
    {176, 176}, {177, 191}, {233, 179}, {351, 287},
  };
  static const unsigned depths[] = { 8, 10, 12 };

  for (const auto &s : sizes)
    for (unsigned bpc : depths)
      check (s[0], s[1], bpc, 4, false);
  /* libvmaf's enable_lcs: every scale's l, c, s; identical pictures */
  check (233, 179, 8, 4, true);
  check (199, 201, 10, 0, true);

  /* below the minimum: refused, no parameters to run */
  GError *error = NULL;
  if (vh_ms_ssim_gpu_new_host (175, 300, 8, &error)
      || !g_error_matches (error, VH_ERROR, VH_ERROR_TOO_SMALL)) {
    std::printf ("175x300 was not refused\n");
    failures++;
  }
  g_clear_error (&error);

  std::printf ("%u cases, worst |cpu - gpu| %.3g (tolerance %g): %s\n",
      cases, worst, TOLERANCE, failures ? "MISMATCH"
      : "the MS-SSIM kernels' arithmetic matches the CPU extractor");
  return failures ? 1 : 0;
}
