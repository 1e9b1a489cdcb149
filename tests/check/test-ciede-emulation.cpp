/* vmafhip — the CIEDE2000 kernel's arithmetic (kernels/ciede-device.h,
 * vh_ciedeg_*: float seeds with double corrections, polynomial sine, float
 * T and R_T) run on the host against the CPU's (vh_ciede_*, libvmaf's
 * steps), frame by frame, on the golden clips and synthetic 8/10-bit
 * content: checked in CI without a GPU.
 *
 * The host's float functions (glibc) stand in for the GPU's, which differ
 * from them by a few ulps; the GPU's result must be within 1e-5 of the
 * CPU's, and this test asks for 1e-6 to leave room for that. */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../kernels/ciede-device.h"
#include "emulation-clips.h"

extern "C" {
#include "vh-synth.h"
}

static unsigned failures, cases;
static double worst;

/* One frame: both arithmetics over every pixel (4:4:4, or 4:2:0 with each
 * chroma sample over 2x2, as the CPU extractor and the kernel read it) */
static void
check_frame (const char *what, const VhPicture *r, const VhPicture *d,
    unsigned bpc)
{
  const unsigned w = r->plane[0].width, h = r->plane[0].height;
  const unsigned shift = r->plane[1].width < w ? 1 : 0;
  double cpu = 0., gpu = 0.;
  for (unsigned y = 0; y < h; y++) {
    for (unsigned x = 0; x < w; x++) {
      const unsigned cx = x >> shift, cy = y >> shift;
      const double ry = vh_plane_sample (&r->plane[0], bpc, x, y);
      const double ru = vh_plane_sample (&r->plane[1], bpc, cx, cy);
      const double rv = vh_plane_sample (&r->plane[2], bpc, cx, cy);
      const double dy = vh_plane_sample (&d->plane[0], bpc, x, y);
      const double du = vh_plane_sample (&d->plane[1], bpc, cx, cy);
      const double dv = vh_plane_sample (&d->plane[2], bpc, cx, cy);
      cpu += vh_ciede_delta_e (vh_ciede_lab (ry, ru, rv, bpc),
          vh_ciede_lab (dy, du, dv, bpc));
      gpu += vh_ciedeg_delta_e (vh_ciedeg_lab (ry, ru, rv, bpc),
          vh_ciedeg_lab (dy, du, dv, bpc));
    }
  }
  const double n = (double) w * h;
  const double s_cpu = 45. - 20. * std::log10 (cpu / n);
  const double s_gpu = 45. - 20. * std::log10 (gpu / n);
  /* identical pictures: both +inf */
  const double diff = s_cpu == s_gpu ? 0. : std::fabs (s_cpu - s_gpu);
  cases++;
  if (diff > worst)
    worst = diff;
  if (!(diff <= 1e-6)) {
    failures++;
    std::printf ("MISMATCH %s: cpu %.10f gpu %.10f (|diff| %.3g)\n", what,
        s_cpu, s_gpu, diff);
  }
}

/* planar 4:2:0 or 4:4:4, 8-bit or 16-bit little-endian samples */
static void
check_clip (const char *name, unsigned w, unsigned h, unsigned bpc,
    bool yuv444, unsigned max_frames)
{
  /* an absent clip (a fresh clone) is skipped: the synthetic content
   * below still runs */
  GoldenClip clip (name, w, h, bpc, yuv444);
  VhPicture r, d;
  for (unsigned i = 0; i < max_frames && clip.next (&r, &d); i++) {
    char what[96];
    std::snprintf (what, sizeof what, "%s frame %u", name, i);
    check_frame (what, &r, &d, bpc);
  }
}

static void
check_synth (unsigned w, unsigned h, unsigned bpc, VhSynthChroma chroma,
    unsigned strength)
{
  VhSynth *synth = vh_synth_new (w, h, bpc, chroma, w * 7 + bpc + strength);
  for (unsigned i = 0; i < 2; i++) {
    VhPicture r, d;
    vh_synth_render (synth, i, strength, &r, &d);
    char what[96];
    std::snprintf (what, sizeof what, "synth %ux%u %u-bit %s strength %u "
        "frame %u", w, h, bpc, chroma == VH_SYNTH_444 ? "4:4:4" : "4:2:0",
        strength, i);
    check_frame (what, &r, &d, bpc);
  }
  vh_synth_free (synth);
}

int
main ()
{
  check_clip ("src01_160x90", 160, 90, 8, false, 48);
  check_clip ("src01_576x324_10b", 576, 324, 10, false, 3);
  check_clip ("hall_352x288", 352, 288, 8, false, 1);
  check_clip ("dark_1920x1080", 1920, 1080, 8, false, 1);
  check_clip ("bsds_481x321_444", 481, 321, 8, true, 1);
  static const unsigned depths[] = { 8, 10, 12 };
  for (unsigned bpc : depths)
    for (unsigned strength : { 0u, 1u, 4u, 8u }) {
      check_synth (320, 180, bpc, VH_SYNTH_420, strength);
      check_synth (161, 97, bpc, VH_SYNTH_444, strength);
    }
  std::printf ("%u frames, worst |cpu - gpu arithmetic| %.3g: %s\n", cases,
      worst, failures ? "MISMATCH" :
      "the CIEDE2000 kernel's arithmetic is within 1e-6 of the CPU's");
  return failures ? 1 : 0;
}
