/* vmafhip — the MS-SSIM kernels' per-thread code (kernels/ms-ssim-device.h)
 * run on the host, block by block and thread by thread (each step over
 * every thread, as the kernel's barriers order them), against the CPU
 * extractor's outputs: the GPU's arithmetic, tiling, decimation and
 * reductions checked in CI without a GPU.  The launches' parameters come
 * from common/gpu/features/ms-ssim-gpu.c, host memory standing in for the device's;
 * the scores then go through the extractor's own extract_sums, as the
 * backend's do.  Both kernel families: the exact one (every pixel the
 * CPU's, only the sums over the map in another order) and the fast one
 * (float sums), on synthetic pictures and on the golden clips (skipped
 * loudly where absent); the worst difference of each is printed. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <glib.h>

#include "../../kernels/ms-ssim-device.h"
#include "emulation-clips.h"

extern "C" {
#include "ms-ssim-gpu.h"
#include "ssim.h"
#include "vh-feature-internal.h"
#include "vh-synth.h"
}

using namespace vh_ms_ssim;

/* The bound for the GPU; the exact kernels' sums differ from the
 * CPU's only in their order (~1e-15) */
#define TOLERANCE 1e-5
#define EXACT_TOLERANCE 1e-12

/* One scale's launch, block after block. */
template <bool kFast, typename Pixel>
static void
emulate_scale (const VhMsSsimParams &p, unsigned n_blocks)
{
  constexpr bool kPos = sizeof (Pixel) != sizeof (float);
  std::vector<Shared> shared (1);
  Shared &sm = shared[0];
  double (*acc)[3] = new double[kBlock][3];

  for (unsigned block = 0; block < n_blocks; block++) {
    std::memset (&sm, 0xa5, sizeof sm);     /* shared memory starts as garbage */
    for (unsigned t = 0; t < (unsigned) kBlock; t++)
      tile_load<Pixel> (p, block, t, sm);
    if (p.next_ref)
      for (unsigned t = 0; t < (unsigned) kBlock; t++)
        tile_decimate<kFast, kPos> (p, block, t, sm);
    for (unsigned t = 0; t < (unsigned) kBlock; t++)
      tile_rows<kFast, kPos> (t, sm);
    for (unsigned t = 0; t < (unsigned) kBlock; t++)
      tile_columns<kFast, kPos> (p, block, t, sm, acc[t]);
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
static double worst[2];         /* exact, fast */

/* Both kernel families on frame pairs the caller renders; fails on a
 * difference beyond the family's tolerance. */
class Checker {
public:
  Checker (const char *what, unsigned w, unsigned h, unsigned bpc, bool lcs)
    : what_ (what), w_ (w), h_ (h), bpc_ (bpc), lcs_ (lcs)
  {
    GError *error = NULL;
    ctx_ = vh_ms_ssim_gpu_new_host (w, h, bpc, &error);
    if (!ctx_)
      g_error ("%s", error->message);
    /* the extractor with enable_lcs as asked (options struct: three bools) */
    opts_.assign (fex_->opts_size, 0);
    for (const VhOptionDesc *o = fex_->options; o->name; o++)
      if (lcs && !std::strcmp (o->name, "enable_lcs"))
        *(bool *) (opts_.data () + o->offset) = true;
    priv_.assign (fex_->priv_size, 0);
    const VhVideoInfo info = { w, h, bpc };
    if (!fex_->init (priv_.data (), opts_.data (), &info, &error))
      g_error ("%s", error->message);
  }

  ~Checker ()
  {
    fex_->close (priv_.data ());
    vh_ms_ssim_gpu_free (ctx_);
  }

  void frame (unsigned index, VhPicture *r, VhPicture *d)
  {
    Outputs cpu;
    VhFeatureSink cpu_sink = { &cpu };
    GError *error = NULL;
    if (!fex_->extract (priv_.data (), r, d, index, &cpu_sink, &error))
      g_error ("%s", error->message);
    compare<false> (index, r, d, cpu);
    compare<true> (index, r, d, cpu);
  }

private:
  template <bool kFast>
  void compare (unsigned index, VhPicture *r, VhPicture *d,
      const Outputs &cpu)
  {
    VhMsSsimParams p[VH_MS_SSIM_SCALES];
    VhMsSsimReduce red;
    unsigned n_blocks[VH_MS_SSIM_SCALES];
    vh_ms_ssim_gpu_host_params (ctx_, &r->plane[0], &d->plane[0], p, &red,
        n_blocks);
    if (bpc_ == 8)
      emulate_scale<kFast, uint8_t> (p[0], n_blocks[0]);
    else
      emulate_scale<kFast, uint16_t> (p[0], n_blocks[0]);
    for (unsigned k = 1; k < VH_MS_SSIM_SCALES; k++)
      emulate_scale<kFast, float> (p[k], n_blocks[k]);
    emulate_reduce (red);

    Outputs gpu;
    VhFeatureSink gpu_sink = { &gpu };
    VhMsSsimSums sums;
    std::memcpy (&sums, vh_ms_ssim_gpu_host_sums (ctx_), sizeof sums);
    GError *error = NULL;
    if (!fex_->extract_sums (priv_.data (), &sums, index, &gpu_sink, &error))
      g_error ("%s", error->message);

    cases++;
    const double tolerance = kFast ? TOLERANCE : EXACT_TOLERANCE;
    bool bad = cpu.values.size () != gpu.values.size ()
        || cpu.values.size () != (lcs_ ? 16u : 1u);
    for (size_t i = 0; !bad && i < cpu.values.size (); i++) {
      const double diff = std::fabs (cpu.values[i].second
          - gpu.values[i].second);
      worst[kFast] = std::max (worst[kFast], diff);

      if (cpu.values[i].first != gpu.values[i].first || !(diff <= tolerance)) {
        std::printf ("MISMATCH (%s kernels) %s %ux%u %u-bit frame %u %s: "
            "cpu %.17g gpu %.17g\n", kFast ? "fast" : "exact", what_, w_,
            h_, bpc_, index, cpu.values[i].first.c_str (),
            cpu.values[i].second, gpu.values[i].second);
        bad = true;
      }
    }
    if (bad)
      failures++;
  }

  const VhFeatureExtractor *fex_ = &vh_fex_float_ms_ssim;
  const char *what_;
  unsigned w_, h_, bpc_;
  bool lcs_;
  VhMsSsimGpu *ctx_;
  std::vector<unsigned char> opts_, priv_;
};

static void
check (unsigned w, unsigned h, unsigned bpc, unsigned strength, bool lcs)
{
  VhSynth *synth = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 7 + h + bpc);
  Checker checker ("synthetic", w, h, bpc, lcs);
  for (unsigned frame = 0; frame < 2; frame++) {
    VhPicture r, d;
    vh_synth_render (synth, frame * 3 + 1, strength, &r, &d);
    checker.frame (frame, &r, &d);
  }
  vh_synth_free (synth);
}

/* Every frame of a golden clip (its luma: MS-SSIM reads no chroma). */
static void
check_clip (const char *name, unsigned w, unsigned h, unsigned bpc,
    bool yuv444)
{
  GoldenClip clip (name, w, h, bpc, yuv444);
  Checker checker (name, w, h, bpc, false);
  VhPicture r, d;
  for (unsigned frame = 0; clip.next (&r, &d); frame++) {
    r.nplanes = d.nplanes = 1;
    checker.frame (frame, &r, &d);
  }
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
  /* real pictures: the clips of at least 176x176 */
  check_clip ("src01_576x324_10b", 576, 324, 10, false);
  check_clip ("hall_352x288", 352, 288, 8, false);
  check_clip ("dark_1920x1080", 1920, 1080, 8, false);
  check_clip ("bsds_481x321_444", 481, 321, 8, true);

  /* below the minimum: refused, no parameters to run */
  GError *error = NULL;
  if (vh_ms_ssim_gpu_new_host (175, 300, 8, &error)
      || !g_error_matches (error, VH_ERROR, VH_ERROR_TOO_SMALL)) {
    std::printf ("175x300 was not refused\n");
    failures++;
  }
  g_clear_error (&error);

  std::printf ("%u cases, worst |cpu - gpu|: exact kernels %.3g (tolerance "
      "%g), fast kernels %.3g (tolerance %g): %s\n", cases, worst[0],
      EXACT_TOLERANCE, worst[1], TOLERANCE, failures ? "MISMATCH"
      : "the MS-SSIM kernels' arithmetic matches the CPU extractor");
  return failures ? 1 : 0;
}
