/* vmafhip — the GPU kernels' per-thread arithmetic, run on the host.
 *
 * kernels/motion-device.h holds everything a motion or PSNR thread
 * computes; compiled here as plain C++, a loop over blocks and threads
 * plays the GPU's part (a block's threads one after another, with the
 * vertical pass finished before the horizontal one, as __syncthreads ()
 * orders them) and the integer sums must equal the CPU engine's exactly.
 * So the kernels' indexing, edges and tiling are checked in CI, on a
 * machine without a GPU, on odd sizes and every bit depth.  The probe
 * kernel's fold (kernels/probe-device.h), which groups its threads by the
 * wavefront's width, runs at 32 and 64 lanes on blocks of any size. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <glib.h>

#include "../../kernels/motion-device.h"
#include "../../kernels/probe-device.h"

extern "C" {
#include "motion.h"
#include "psnr.h"
#include "vh-synth.h"
}

static int failures;

#define CHECK_EQ(what, got, want)                                            \
  do {                                                                       \
    if ((got) != (want)) {                                                   \
      std::fprintf (stderr, "FAIL %s: %llu, CPU %llu\n", what,               \
          (unsigned long long) (got), (unsigned long long) (want));          \
      failures++;                                                            \
    }                                                                        \
  } while (0)

/* Every block of the motion kernel, every thread of it. */
template <typename pixel_t>
static uint64_t
emulate_motion_sad (const VhPlane &prev, const VhPlane &cur, int bpc)
{
  const int w = (int) cur.width, h = (int) cur.height;
  std::vector<int32_t> vtile (VH_MOTION_VTILE_W * VH_MOTION_TILE_H);
  uint64_t total = 0;

  for (int y0 = 0; y0 < h; y0 += VH_MOTION_TILE_H) {
    for (int x0 = 0; x0 < w; x0 += VH_MOTION_TILE_W) {
      std::fill (vtile.begin (), vtile.end (), 0x5a5a5a5a);  /* stale */
      for (int tid = 0; tid < VH_MOTION_THREADS; tid++)
        vh_motion_thread_vertical<pixel_t> (
            (const unsigned char *) prev.data, (size_t) prev.stride,
            (const unsigned char *) cur.data, (size_t) cur.stride, w, h, bpc,
            x0, y0, tid, vtile.data ());
      uint32_t block = 0;
      for (int tid = 0; tid < VH_MOTION_THREADS; tid++)
        block += vh_motion_thread_horizontal (vtile.data (), w, h, x0, y0,
            tid);
      total += block;
    }
  }
  return total;
}

/* Every block and thread of the PSNR kernel for one plane pair. */
template <typename pixel_t>
static uint64_t
emulate_psnr_sse (const VhPlane &ref, const VhPlane &dis)
{
  VhPsnrPlaneJob job;
  job.ref = (uint64_t) (uintptr_t) ref.data;
  job.dis = (uint64_t) (uintptr_t) dis.data;
  job.ref_pitch = (uint64_t) ref.stride;
  job.dis_pitch = (uint64_t) dis.stride;
  job.width = ref.width;
  job.height = ref.height;
  job.ref_step = ref.step ? ref.step : 1;
  job.dis_step = dis.step ? dis.step : 1;
  uint64_t total = 0;
  const uint32_t blocks = (job.height + VH_PSNR_ROWS - 1) / VH_PSNR_ROWS;
  for (uint32_t b = 0; b < blocks; b++)
    for (uint32_t tid = 0; tid < VH_PSNR_THREADS; tid++)
      total += vh_psnr_thread_sse<pixel_t> (&job, b, tid, VH_PSNR_THREADS);
  return total;
}

static void
check_size (unsigned w, unsigned h, unsigned bpc)
{
  VhSynth *synth = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 31 + h + bpc);
  VhMotionWork *work = vh_motion_work_new (w, h);
  char what[96];

  for (unsigned i = 0; i < 3; i++) {
    VhPicture r0, d0, r1, d1;
    vh_synth_render (synth, i, 4, &r0, &d0);
    void *kept = vh_synth_keep (&r0, &d0);
    vh_synth_render (synth, i + 1, 4, &r1, &d1);

    const uint64_t cpu_sad = vh_motion_sad (work, &r0.plane[0], &r1.plane[0],
        bpc);
    const uint64_t gpu_sad = bpc > 8
        ? emulate_motion_sad<uint16_t> (r0.plane[0], r1.plane[0], (int) bpc)
        : emulate_motion_sad<uint8_t> (r0.plane[0], r1.plane[0], (int) bpc);
    std::snprintf (what, sizeof what, "motion SAD %ux%u %u-bit frame %u", w,
        h, bpc, i);
    CHECK_EQ (what, gpu_sad, cpu_sad);

    for (unsigned p = 0; p < r1.nplanes; p++) {
      const uint64_t cpu_sse = vh_psnr_sse (&r1.plane[p], &d1.plane[p], bpc);
      const uint64_t gpu_sse = bpc > 8
          ? emulate_psnr_sse<uint16_t> (r1.plane[p], d1.plane[p])
          : emulate_psnr_sse<uint8_t> (r1.plane[p], d1.plane[p]);
      std::snprintf (what, sizeof what, "PSNR SSE %ux%u %u-bit plane %u", w,
          h, bpc, p);
      CHECK_EQ (what, gpu_sse, cpu_sse);
    }
    g_free (kept);
  }
  vh_motion_work_free (work);
  vh_synth_free (synth);
}

/* The probe kernel's block at a wavefront width: every thread's partial
 * sum, the fold step by step (each over every thread, as its barriers
 * order them), then the block's sum: the plain sum (mod 2^64) at either
 * width, for full and partly populated last wavefronts alike */
static void
check_probe (unsigned block, unsigned width)
{
  std::vector<unsigned long long> partial (block);
  unsigned long long want = 0;
  for (unsigned t = 0; t < block; t++) {
    partial[t] = 0x9e3779b97f4a7c15ull * (t + 1);   /* sums that wrap */
    want += partial[t];
  }
  for (unsigned step = width / 2; step > 0; step /= 2)
    for (unsigned t = 0; t < block; t++)
      vh_probe_fold_step (partial.data (), t, block, width, step);
  char what[64];
  std::snprintf (what, sizeof what, "probe block of %u, %u lanes", block,
      width);
  CHECK_EQ (what, vh_probe_block_sum (partial.data (), block, width), want);
}

int
main ()
{
  /* tile edges: one tile, exactly one, one more, odd, tall, the minimum */
  static const unsigned sizes[][2] = {
    {3, 3}, {17, 5}, {124, 16}, {125, 17}, {248, 32}, {321, 241},
    {640, 360}, {1281, 33}, {64, 513},
  };
  static const unsigned depths[] = { 8, 10, 12 };
  unsigned cases = 0;

  for (const auto &s : sizes)
    for (unsigned bpc : depths) {
      check_size (s[0], s[1], bpc);
      cases++;
    }
  for (unsigned width : { 32u, 64u })
    for (unsigned block : { 1u, 2u, 31u, 32u, 33u, 63u, 64u, 65u, 100u,
             256u, 1000u, 1024u })
      check_probe (block, width);
  std::printf ("%u sizes x depths, the probe's fold at 32 and 64 lanes: %s\n",
      cases, failures ? "MISMATCH" :
      "the kernels' arithmetic equals the CPU engine's");
  return failures ? 1 : 0;
}
