/* vmafhip — the CIEDE2000 kernel's arithmetic (kernels/ciede-device.h,
 * vh_ciedeg_*: Lab in double from float seeds, the rest of the difference
 * mostly in float) run on the host against the CPU's (vh_ciede_*,
 * libvmaf's steps), frame by frame, on the golden clips and synthetic
 * 8/10/12-bit content: checked in CI without a GPU.
 *
 * The host's accurate functions (glibc) stand in for the GPU's
 * approximate log2, exp2, rsqrt and exp, which differ from them by a few
 * ulps; the GPU's result must be within 1e-5 of the CPU's, and this test
 * asks for 1e-6 to leave room for that. */
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
/* colours whose GPU Lab differs from the CPU's, of all converted */
static unsigned long long lab_differ, lab_total;

static VhLab
lab_both (double y, double u, double v, unsigned bpc, VhLab *gpu)
{
  const VhLab cpu = vh_ciede_lab (y, u, v, bpc);
  *gpu = vh_ciedeg_lab (y, u, v, bpc);
  lab_total++;
  if (cpu.l != gpu->l || cpu.a != gpu->a || cpu.b != gpu->b)
    lab_differ++;
  return cpu;
}

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
      VhLab rg, dg;
      const VhLab rc = lab_both (ry, ru, rv, bpc, &rg);
      const VhLab dc = lab_both (dy, du, dv, bpc, &dg);
      cpu += vh_ciede_delta_e (rc, dc);
      gpu += vh_ciedeg_delta_e (rg, dg);
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

/* Random colours over the whole range of each depth (a quarter of them
 * near grey, a quarter dark): the GPU's Lab must be the CPU's */
static void
check_random_colours (unsigned bpc, unsigned n)
{
  unsigned long long state = 0x9e3779b97f4a7c15ULL * bpc;
  const unsigned max = (1u << bpc) - 1, mid = 1u << (bpc - 1);
  for (unsigned i = 0; i < n; i++) {
    unsigned s[3];
    for (unsigned k = 0; k < 3; k++) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      s[k] = (unsigned) (state >> 33) & max;
    }
    if (i % 4 == 1) {
      s[1] = mid + (s[1] - mid) / 16;
      s[2] = mid + (s[2] - mid) / 16;
    } else if (i % 4 == 2) {
      s[0] /= 8;
    }
    VhLab g;
    lab_both (s[0], s[1], s[2], bpc, &g);
  }
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
  for (unsigned bpc : depths)
    check_random_colours (bpc, 1000000);
  /* the Lab values are the CPU's: the roots' corrections leave ~1e-16,
   * so only an exact tie could round a float the other way */
  const bool lab_ok = lab_differ == 0;
  std::printf ("Lab: %llu of %llu colours differ from the CPU's%s\n",
      lab_differ, lab_total, lab_ok ? "" : " (MISMATCH)");
  std::printf ("%u frames, worst |cpu - gpu arithmetic| %.3g: %s\n", cases,
      worst, failures ? "MISMATCH" :
      "the CIEDE2000 kernel's arithmetic is within 1e-6 of the CPU's");
  return failures || !lab_ok ? 1 : 0;
}
