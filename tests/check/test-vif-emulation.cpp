/* vmafhip — the VIF kernels' per-thread code (kernels/vif-device.h) run on
 * the host, block by block and thread by thread, against the CPU engine's
 * integer sums: the GPU's VIF arithmetic, tiling, mirroring and pyramid
 * checked in CI, without a GPU. The launches' own parameters come from
 * common/gpu/vif-gpu.c (vh_vif_gpu_host_level), host memory standing in for
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
template <int HALF, int NEXT_HALF, typename Pixel>
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
        vertical_pass<HALF, NEXT_HALF, true, Pixel> (p, tile, t, sm);
      else
        vertical_pass<HALF, NEXT_HALF, false, Pixel> (p, tile, t, sm);
    }
    long long total[VH_VIF_SUMS_PER_SCALE] = { 0, 0, 0, 0 };
    for (unsigned t = 0; t < (unsigned) kBlock; t++) {
      if (p.do_stats) {
        const Accum acc = horizontal_stats<HALF> (p, tile, t, sm);
        total[0] += (long long) acc.num_log;
        total[1] += (long long) acc.den_log;
        total[2] += (long long) acc.num_non_log;
        total[3] += (long long) acc.den_non_log;
      }
      if (NEXT_HALF > 0)
        horizontal_subsample<HALF, NEXT_HALF> (p, tile, t, sm);
    }
    for (int q = 0; q < VH_VIF_SUMS_PER_SCALE; q++)
      sums[q] += total[q];
  }
}

static unsigned failures, cases;

static void
check (unsigned w, unsigned h, unsigned bpc, double egl, unsigned first)
{
  VhSynth *synth = vh_synth_new (w, h, bpc, VH_SYNTH_420, w * 3 + h + bpc);
  VhVifWork *work = vh_vif_work_new (w, h);
  GError *error = NULL;
  VhVifGpu *ctx = vh_vif_gpu_new_host (w, h, bpc, &error);
  VhPicture r, d;
  VhVifSums cpu;

  if (!ctx)
    g_error ("%s", error->message);
  vh_synth_render (synth, 1, 4, &r, &d);
  vh_vif_compute_sums_from (work, &r.plane[0], &d.plane[0], bpc, egl, first,
      &cpu);
  for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
    VhVifLevelParams p;
    unsigned n_blocks;
    vh_vif_gpu_host_level (ctx, s, &r.plane[0], &d.plane[0], egl, first, &p,
        &n_blocks);
    if (s == 0 && bpc == 8)
      emulate_level<8, 4, uint8_t> (p, n_blocks);
    else if (s == 0)
      emulate_level<8, 4, uint16_t> (p, n_blocks);
    else if (s == 1)
      emulate_level<4, 2, uint16_t> (p, n_blocks);
    else if (s == 2)
      emulate_level<2, 1, uint16_t> (p, n_blocks);
    else
      emulate_level<1, 0, uint16_t> (p, n_blocks);
  }
  cases++;
  if (std::memcmp (&cpu, vh_vif_gpu_host_sums (ctx), sizeof cpu)) {
    failures++;
    std::printf ("MISMATCH %ux%u %u-bit egl %g first scale %u\n", w, h, bpc,
        egl, first);
  }
  vh_vif_gpu_free (ctx);
  vh_vif_work_free (work);
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
