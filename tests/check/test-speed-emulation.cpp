/* vmafhip — the SpEED-chroma kernels' per-thread code
 * (kernels/speed-device.h) run on the host, thread by thread, against the
 * CPU extractor (common/features/speed/speed-chroma.c): the GPU's 1/16 pictures, local
 * means, window means and covariances checked in CI without a GPU.  The
 * launches' parameters come from common/gpu/features/speed-gpu.c, host memory
 * standing in for the device's; the scores go through the extractor's own
 * extract_sums, as the backend's do, and must equal extract's exactly. */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <glib.h>

#include "../../kernels/speed-device.h"

extern "C" {
#include "speed-gpu.h"
#include "vh-synth.h"
}
#include "emulation-extractor.h"

using namespace vh_speed;

/* every launch of one frame, each over every thread in turn (no kernel
 * reads what another thread of the same launch writes, but cov's
 * reduction, which follows its lanes) */
template <typename Pixel>
static void
emulate (const VhSpeedParams &p)
{
  for (unsigned k = 0; k < VH_SPEED_PICTURES; k++)
    for (unsigned i = 0; i < p.ow * p.oh; i++)
      small_pixel<Pixel> (p, k, i);
  for (unsigned k = 0; k < VH_SPEED_PICTURES; k++)
    for (unsigned i = 0; i < p.tw * p.th; i++)
      centre_pixel (p, k, i);
  for (unsigned k = 0; k < VH_SPEED_PICTURES; k++)
    for (unsigned rc = 0; rc < (unsigned) kNB; rc++)
      window_mean (p, k, rc);
  for (unsigned k = 0; k < VH_SPEED_PICTURES; k++)
    for (unsigned q = 0; q < VH_SPEED_PAIRS; q++) {
      unsigned a, b;
      pair_of (q, &a, &b);
      if (b > a || a >= (unsigned) kNB)
        g_error ("pair %u: (%u, %u)", q, a, b);
      double lanes[VH_SPEED_LANES], tail = 0;
      for (unsigned lane = 0; lane < VH_SPEED_LANES; lane++) {
        double t;
        lanes[lane] = cov_lane (p, k, a, b, lane, &t);
        if (lane == 0)
          tail = t;
      }
      cov_store (p, k, a, b, lanes, tail);
    }
}

static unsigned failures, cases;

/* Flat chroma in one picture (a singular covariance): the distorted U
 * and V set to 128 << (bpc - 8) */
static void
flatten (VhPicture *pic, std::vector<uint16_t> &store)
{
  const size_t n = (size_t) pic->plane[1].stride * pic->plane[1].height;
  store.assign (n, 0);          /* 2n bytes: both planes */
  for (int c = 1; c < 3; c++) {
    VhPlane &pl = pic->plane[c];
    uint8_t *base = (uint8_t *) store.data () + (c - 1) * n;
    for (unsigned y = 0; y < pl.height; y++)
      for (unsigned x = 0; x < pl.width; x++) {
        if (pic->bpc == 8)
          base[(size_t) y * pl.stride + x] = 128;
        else
          ((uint16_t *) (base + (size_t) y * pl.stride))[x] =
              (uint16_t) (128u << (pic->bpc - 8));
      }
    pl.data = base;
  }
}

/* opts: "name=value:..." (libvmaf's syntax) or "" */
static void
check (unsigned w, unsigned h, unsigned bpc, VhSynthChroma chroma,
    const char *opts, bool flat_dis = false, unsigned frames = 2)
{
  const VhFeatureExtractor *fex = &vh_fex_speed_chroma;
  GError *error = NULL;
  std::vector<unsigned char> o;
  set_extractor_options (fex, o, opts);
  const VhVideoInfo info = { w, h, bpc };
  std::vector<unsigned char> priv (fex->priv_size, 0);
  if (!fex->init (priv.data (), o.data (), &info, &error))
    g_error ("%ux%u %s: %s", w, h, opts, error->message);
  VhSpeedGpu *ctx = vh_speed_gpu_new_host ((const VhSpeedChromaOptions *)
      o.data (), bpc, &error);
  if (!ctx)
    g_error ("%ux%u %s: %s", w, h, opts, error->message);
  VhSynth *syn = vh_synth_new (w, h, bpc, chroma, w * 3 + h + bpc);
  static const char *const layouts[] = { "4:2:0", "4:2:2", "4:4:4" };

  for (unsigned frame = 0; frame < frames; frame++) {
    VhPicture r, d;
    std::vector<uint16_t> flat;
    vh_synth_render (syn, frame * 3, 2 + frame, &r, &d);
    if (flat_dis)
      flatten (&d, flat);
    VhSpeedParams p;
    if (!vh_speed_gpu_host_params (ctx, &r, &d, &p, &error))
      g_error ("%s", error->message);
    if (bpc == 8)
      emulate<uint8_t> (p);
    else
      emulate<uint16_t> (p);

    FeatureOutputs cpu, gpu;
    VhFeatureSink cpu_sink = { &cpu }, gpu_sink = { &gpu };
    if (!fex->extract (priv.data (), &r, &d, frame, &cpu_sink, &error)
        || !fex->extract_sums (priv.data (), vh_speed_gpu_host_sums (ctx),
            frame, &gpu_sink, &error))
      g_error ("%s", error->message);
    cases++;
    bool equal = cpu.size () == 3 && gpu.size () == 3;
    for (size_t i = 0; equal && i < 3; i++)
      equal = cpu[i].first == gpu[i].first && cpu[i].second == gpu[i].second;
    std::printf ("%ux%u %u-bit %s %s%s frame %u: u %.9f v %.9f uv %.9f "
        "%s\n", w, h, bpc, layouts[chroma], opts, flat_dis ? " flat" : "",
        frame, cpu.size () > 0 ? cpu[0].second : NAN,
        cpu.size () > 1 ? cpu[1].second : NAN,
        cpu.size () > 2 ? cpu[2].second : NAN, equal ? "equal" : "MISMATCH");
    if (!equal) {
      for (size_t i = 0; i < gpu.size (); i++)
        std::printf ("  gpu %s %.17g\n", gpu[i].first.c_str (),
            gpu[i].second);
      failures++;
    }
  }
  fex->close (priv.data ());
  vh_speed_gpu_free (ctx);
  vh_synth_free (syn);
}

/* A prescale is left to the CPU, with the reason. */
static void
check_declined (void)
{
  std::vector<unsigned char> o;
  set_extractor_options (&vh_fex_speed_chroma, o, "speed_prescale=1.5");
  const VhSpeedChromaOptions *opts = (const VhSpeedChromaOptions *) o.data ();
  const char *why = NULL;
  GError *error = NULL;
  cases++;
  VhSpeedGpu *ctx = vh_speed_gpu_new_host (opts, 8, &error);
  if (vh_speed_gpu_supported (opts, &why) || !why || ctx || !error
      || !strstr (error->message, why)) {
    std::printf ("speed_prescale=1.5: not declined, or no reason given\n");
    failures++;
  } else {
    std::printf ("speed_prescale=1.5: on the CPU (%s)\n", error->message);
  }
  g_clear_error (&error);
  vh_speed_gpu_free (ctx);
}

int
main (void)
{
  /* v1.0.16's options */
  const char *v1 = "speed_kernelscale=1.0:speed_nn_floor=0.1:"
      "speed_sigma_nn=0.19:speed_weight_var_mode=5:speed_max_val=45";
  check (1920, 1080, 8, VH_SYNTH_420, v1);
  check (1920, 1080, 8, VH_SYNTH_420, "");
  check (1280, 720, 10, VH_SYNTH_420, v1);
  check (1001, 563, 12, VH_SYNTH_422, v1);
  check (480, 272, 8, VH_SYNTH_444, "speed_weight_var_mode=3");
  check (641, 359, 10, VH_SYNTH_444, "speed_kernelscale=1.5");
  check (960, 540, 8, VH_SYNTH_420, "speed_kernelscale=0.5");
  /* 360/97: the widest anti-alias filter (35 taps) */
  check (1280, 720, 8, VH_SYNTH_420, "speed_kernelscale=3.7113402");
  /* the smallest picture with one block: 160x160 (80x80 chroma) */
  check (160, 160, 8, VH_SYNTH_420, v1);
  /* one picture singular: the channel's score is 0, uv the other's */
  check (640, 360, 8, VH_SYNTH_420, v1, true, 1);
  check_declined ();
  std::printf ("%u cases, %u failed\n", cases, failures);
  return failures ? 1 : 0;
}
