/* vmafhip — the VIF kernels' per-thread code (kernels/vif-device.h) run on
 * the host, block by block and thread by thread, against the CPU engine's
 * integer sums: the GPU's VIF arithmetic, tiling, mirroring and pyramid
 * checked in CI, without a GPU. The launches' own parameters come from
 * common/gpu/features/vif-gpu.c (vh_vif_gpu_host_level), host memory standing in for
 * the device's. */
#include <cstdio>
#include <cstring>
#include <vector>

#include <glib.h>

#include "../../kernels/vif-device.h"

extern "C" {
#include "vif-gpu.h"
#include "vh-synth.h"
}

using namespace vh_vif;

/* One block: the kernel's steps in order, each over every thread (the
 * kernel's __syncthreads () between them), and its reduction as a plain
 * sum (integer: any order gives the same). */
template <int HALF, int NEXT_HALF, typename Pixel, int PART>
static void
emulate_level (const VhVifLevelParams &p, unsigned n_blocks)
{
  std::vector<TileShared> shared (1);
  TileShared &sm = shared[0];
  long long *sums = (long long *) (uintptr_t) p.sums;

  for (unsigned block = 0; block < n_blocks; block++) {
    const Tile tile = tile_of (p, block);
    std::memset (&sm, 0xa5, sizeof sm);     /* shared memory starts as garbage */
    for (unsigned t = 0; t < (unsigned) kBlock; t++)
      row_offsets<HALF> (p, tile, t, sm);
    for (unsigned t = 0; t < (unsigned) kBlock; t++) {
      if (p.do_stats)
        vertical_pass<HALF, NEXT_HALF, true, Pixel, PART> (p, tile, t, sm);
      else
        vertical_pass<HALF, NEXT_HALF, false, Pixel, PART> (p, tile, t, sm);
    }
    long long total[VH_VIF_SUMS_PER_SCALE] = { 0, 0, 0, 0 };
    for (unsigned t = 0; t < (unsigned) kBlock; t++) {
      if (p.do_stats) {
        const Accum acc = horizontal_stats<HALF, PART> (p, tile, t, sm);
        total[0] += (long long) acc.num_log;
        total[1] += (long long) acc.den_log;
        total[2] += (long long) acc.num_non_log;
        total[3] += (long long) acc.den_non_log;
      }
      if (NEXT_HALF > 0)
        horizontal_subsample<HALF, NEXT_HALF, PART> (p, tile, t, sm);
    }
    if (PART == VH_VIF_PART_REF)
      continue;                 /* no sums: the kernel returns before */
    for (int q = 0; q < VH_VIF_SUMS_PER_SCALE; q++)
      sums[q] += total[q];
  }
}

template <int PART>
static void
emulate_scale (const VhVifLevelParams &p, unsigned n_blocks, unsigned s,
    unsigned bpc)
{
  if (s == 0 && bpc == 8)
    emulate_level<VH_VIF_HALF_S0, VH_VIF_HALF_S1, uint8_t, PART> (p, n_blocks);
  else if (s == 0)
    emulate_level<VH_VIF_HALF_S0, VH_VIF_HALF_S1, uint16_t, PART> (p, n_blocks);
  else if (s == 1)
    emulate_level<VH_VIF_HALF_S1, VH_VIF_HALF_S2, uint16_t, PART> (p, n_blocks);
  else if (s == 2)
    emulate_level<VH_VIF_HALF_S2, VH_VIF_HALF_S3, uint16_t, PART> (p, n_blocks);
  else
    emulate_level<VH_VIF_HALF_S3, 0, uint16_t, PART> (p, n_blocks);
}

/* The four scales of one part (VH_VIF_PART_*). */
static void
emulate_part (VhVifGpu *ctx, VhVifGpuReference *share, unsigned part,
    const VhPlane *ref, const VhPlane *dis, unsigned bpc, double egl,
    unsigned first)
{
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    VhVifLevelParams p;
    unsigned n_blocks;
    vh_vif_gpu_host_level_part (ctx, share, part, s, ref, dis, egl, first,
        &p, &n_blocks);
    if (part == VH_VIF_PART_PAIR)
      emulate_scale<VH_VIF_PART_PAIR> (p, n_blocks, s, bpc);
    else if (part == VH_VIF_PART_REF)
      emulate_scale<VH_VIF_PART_REF> (p, n_blocks, s, bpc);
    else
      emulate_scale<VH_VIF_PART_DIS> (p, n_blocks, s, bpc);
  }
}

static unsigned failures, cases;

static void
expect_equal (const VhVifSums *cpu, const VhVifGpu *ctx, const char *what,
    unsigned w, unsigned h, unsigned bpc, double egl, unsigned first)
{
  cases++;
  if (std::memcmp (cpu, vh_vif_gpu_host_sums (ctx), sizeof *cpu)) {
    failures++;
    std::printf ("MISMATCH (%s) %ux%u %u-bit egl %g first scale %u\n", what,
        w, h, bpc, egl, first);
  }
}

/* One pair through the pair kernels; then the reference's share computed
 * once and two distorted pictures (of two strengths) scored against it:
 * every sum equal to the CPU's for that pair. */
static void
check (unsigned w, unsigned h, unsigned bpc, double egl, unsigned first)
{
  VhSynth *synth = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 3 + h + bpc);
  VhVifWork *work = vh_vif_work_new (w, h);
  GError *error = NULL;
  VhVifGpu *ctx = vh_vif_gpu_new_host (w, h, bpc, &error);
  VhVifGpuReference *share = ctx ? vh_vif_gpu_reference_new_host (w, h, bpc,
      &error) : NULL;
  VhPicture r, d, r2, d2;
  VhVifSums cpu, cpu2;

  if (!share)
    g_error ("%s", error->message);
  vh_synth_render (synth, 1, 4, &r, &d);
  vh_vif_compute_sums_from (work, &r.plane[0], &d.plane[0], bpc, egl, first,
      &cpu);
  emulate_part (ctx, NULL, VH_VIF_PART_PAIR, &r.plane[0], &d.plane[0], bpc,
      egl, first);
  expect_equal (&cpu, ctx, "pair", w, h, bpc, egl, first);

  /* the same frame at another strength: the same reference */
  VhSynth *synth2 = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 3 + h + bpc);
  vh_synth_render (synth2, 1, 7, &r2, &d2);
  if (std::memcmp (r.plane[0].data, r2.plane[0].data,
          (size_t) r.plane[0].stride * h))
    g_error ("the synthetic reference depends on the strength");
  vh_vif_compute_sums_from (work, &r.plane[0], &d2.plane[0], bpc, egl, first,
      &cpu2);
  emulate_part (ctx, share, VH_VIF_PART_REF, &r.plane[0], NULL, bpc, egl,
      first);
  emulate_part (ctx, share, VH_VIF_PART_DIS, NULL, &d.plane[0], bpc, egl,
      first);
  expect_equal (&cpu, ctx, "shared reference, first", w, h, bpc, egl, first);
  emulate_part (ctx, share, VH_VIF_PART_DIS, NULL, &d2.plane[0], bpc, egl,
      first);
  expect_equal (&cpu2, ctx, "shared reference, second", w, h, bpc, egl,
      first);

  vh_vif_gpu_reference_free (share);
  vh_vif_gpu_free (ctx);
  vh_vif_work_free (work);
  vh_synth_free (synth2);
  vh_synth_free (synth);
}

int
main ()
{
  /* the minimum, odd, tile edges, a few tiles */
  static const unsigned sizes[][2] = {
    {16, 16}, {33, 21}, {65, 47}, {160, 90}, {321, 181},
  };
  static const unsigned depths[] = { 8, 10, 12 };

  for (const auto &s : sizes)
    for (unsigned bpc : depths)
      check (s[0], s[1], bpc, 100.0, 0);
  /* libvmaf's options: enhancement gain limit 1, skipped scale 0 */
  check (160, 90, 8, 1.0, 0);
  check (160, 90, 10, 100.0, 1);
  std::printf ("%u cases: %s\n", cases, failures ? "MISMATCH" :
      "the VIF kernels' arithmetic equals the CPU engine's");
  return failures ? 1 : 0;
}
