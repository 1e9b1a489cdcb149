/* vmafhip — the CAMBI kernels' per-thread code (kernels/cambi-device.h)
 * run on the host, block by block and thread by thread (each step over
 * every thread, as the kernels' barriers order them), against the CPU
 * extractor (common/features/cambi/cambi.c): the GPU's preprocessing, mask, scales,
 * contrast values and top-k selection checked in CI without a GPU.  The
 * launches' parameters come from common/gpu/features/cambi-gpu.c, host memory
 * standing in for the device's; the scores go through the extractor's own
 * extract_sums, as the backend's do.
 *
 * The contrast kernel's lanes exchange counts (a column's shares added by
 * lane shuffles): every picture runs on the lane model's 32- and 64-lane
 * wavefronts (kernels/vh-lanes.h), each equal to the CPU.  Built with
 * VH_LANES_PLANT_MASK32 (a 32-lane assumption planted), it passes only if
 * the 64-lane run finds the plant and the 32-lane run does not. */
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <glib.h>

#include "../../kernels/cambi-device.h"

extern "C" {
#include "cambi-gpu.h"
#include "vh-synth.h"
}
#include "emulation-extractor.h"

using namespace vh_cambi;

/* the top-k sums are exact on the GPU, in double on the CPU: they differ
 * by the CPU's rounding only */
#define TOLERANCE 1e-9

static const unsigned kWidths[] = { 32, 64 };

/* per wavefront width: undefined lane reads (or impossible windows), and
 * a column's lanes left with different sums */
struct LaneStats {
  unsigned long faults, differ;
};
static LaneStats lane_stats[2];

/* A column's lanes on the host.  Each runs cv_column with its own share,
 * the writer (part 0) last; every total () call of a lane records its
 * packed counts, and the writer's k-th call adds the k-th counts of all
 * of them with the kernel's column_add on the lane model: a W-lane
 * wavefront with the column's lanes active at their place (thread t is
 * lane t % W), as a diverged group of the kernel's runs. */
struct ColumnLanes {
  unsigned split, first, span;
  unsigned calls[VH_CAMBI_CV_SPLIT_WIDE];
  uint32_t words[VH_CAMBI_CV_SPLIT_WIDE][kTileRows][5];
};

template <unsigned W, int Split>
static void
column_total (ColumnLanes &col, unsigned k, uint32_t out[9], LaneStats &st)
{
  typedef vh_lanes::HostWave<W> Wave;
  Wave wave (col.first, (unsigned) Split);
  typename Wave::template Of<uint32_t> w[5];
  for (int i = 0; i < 5; i++) {
    w[i] = wave.each ([&] (unsigned l) { return col.words[l - col.first][k][i]; });
  }
  column_add<Split> (wave, w);
  uint32_t words[5];
  for (int i = 0; i < 5; i++) {
    words[i] = w[i][col.first];
    for (unsigned q = 1; q < (unsigned) Split; q++)
      st.differ += w[i][col.first + q] != words[i];
  }
  unpack_counts (words, out);
  /* a window holds span^2 values: more came from undefined lanes (kept
   * from indexing the tables out of bounds, and counted) */
  uint32_t all = 0;
  for (int e = 0; e < 9; e++)
    all += out[e];
  if (wave.faults || all > col.span * col.span) {
    st.faults += wave.faults ? wave.faults : 1;
    if (all > col.span * col.span)
      std::memset (out, 0, 9 * sizeof *out);
  }
}

template <unsigned W>
struct HostLane : LaneShare {
  ColumnLanes *col;
  unsigned part;
  LaneStats *stats;

  void
  total (const uint32_t counts[9], uint32_t out[9]) const
  {
    const unsigned k = col->calls[part]++;
    if (k >= (unsigned) kTileRows)
      g_error ("a column's lane totals more than once a row");
    pack_counts (counts, col->words[part][k]);
    if (part != 0) {
      /* not the writer: its contrast values are not kept */
      std::memcpy (out, counts, 9 * sizeof *out);
      return;
    }
    /* the other lanes ran first, through the same rows */
    for (unsigned q = 1; q < col->split; q++)
      if (col->calls[q] <= k)
        g_error ("a column's lanes took different paths");
    if (col->split == VH_CAMBI_CV_SPLIT)
      column_total<W, VH_CAMBI_CV_SPLIT> (*col, k, out, *stats);
    else if (col->split == VH_CAMBI_CV_SPLIT_WIDE)
      column_total<W, VH_CAMBI_CV_SPLIT_WIDE> (*col, k, out, *stats);
    else
      g_error ("%u threads a column", col->split);
  }
};

/* the kernel's parallel bin search, thread by thread and step by step;
 * checked against the serial find_bin on the same counts */
static unsigned
emulate_find_bin (SelShared &sm)
{
  uint32_t need = sm.need;
  unsigned serial;
  find_bin (sm.count, VH_CAMBI_BINS, &need, &serial);
  for (unsigned t = 0; t < VH_CAMBI_BINS; t++)
    select_scan_init (t, sm);
  unsigned src = 0;
  for (unsigned step = 1; step < VH_CAMBI_BINS; step *= 2, src ^= 1)
    for (unsigned t = 0; t < VH_CAMBI_BINS; t++)
      select_scan_step (t, step, src, sm);
  sm.found_bin = ~0u;
  for (unsigned t = 0; t < VH_CAMBI_BINS; t++)
    select_scan_pick (t, src, sm);
  if (sm.found_bin != serial || sm.found_need != need)
    g_error ("parallel bin search: bin %u rank %u, serial bin %u rank %u",
        sm.found_bin, sm.found_need, serial, need);
  sm.need = sm.found_need;
  return sm.found_bin;
}

/* One pass (0: the distorted picture, 1: the reference with full_ref) of
 * the enqueue's launches on `luma`, on W-lane wavefronts */
template <typename Pixel, unsigned W>
static void
emulate (VhCambiGpu *ctx, const VhPlane *luma, int pass, unsigned width,
    unsigned height)
{
  LaneStats &stats = lane_stats[W == 64];
  VhCambiPre pre;
  VhCambiScale sc[VH_CAMBI_SCALES];
  unsigned n_tiles[VH_CAMBI_SCALES];
  vh_cambi_gpu_host_params (ctx, luma, pass, &pre, sc, n_tiles);
  /* the enqueue's memsets: everything first, the histograms between */
  vh_cambi_gpu_host_clear (ctx, pass == 0);
  const unsigned full = width * height;
  for (unsigned i = 0; i < full; i++) {
    bool bad;
    ((uint16_t *) (uintptr_t) pre.img)[i] = preprocess_pixel<Pixel> (pre, i,
        &bad);
    if (bad)
      atomic_add32 ((uint32_t *) (uintptr_t) pre.bad, 1);
  }
  for (unsigned i = 0; i < full; i++)
    ((uint8_t *) (uintptr_t) pre.deriv)[i] = deriv_column_pixel (pre, i);
  for (unsigned i = 0; i < full; i++)
    ((uint8_t *) (uintptr_t) pre.mask)[i] = mask_pixel (pre, i);

  std::vector<CvShared> cv (1);
  std::vector<SelShared> sel (1);
  for (int s = 0; s < VH_CAMBI_SCALES; s++) {
    const VhCambiScale &p = sc[s];
    for (unsigned i = 0; i < p.w * p.h; i++)
      scale_pixel (p, i);
    for (unsigned tile = 0; tile < n_tiles[s]; tile++) {
      CvShared &sm = cv[0];
      std::memset (&sm, 0xa5, sizeof sm);   /* shared memory: garbage */
      for (unsigned t = 0; t < VH_CAMBI_CV_THREADS; t++)
        cv_load (p, tile, t, VH_CAMBI_CV_THREADS, sm);
      /* a column's threads, lane by lane */
      ColumnLanes lanes;
      lanes.split = p.split;
      lanes.span = 2 * p.pad + 1;
      for (unsigned col = 0; col < VH_CAMBI_CV_THREADS / p.split; col++) {
        lanes.first = col * p.split % W;
        std::memset (lanes.calls, 0, sizeof lanes.calls);
        for (unsigned part = p.split; part-- > 0;) {
          HostLane<W> lane;
          static_cast<LaneShare &> (lane) = lane_share ((int) lanes.span,
              (int) p.split, (int) part);
          lane.col = &lanes;
          lane.part = part;
          lane.stats = &stats;
          cv_column (p, tile, col, part == 0, sm, lane);
        }
        for (unsigned q = 1; q < p.split; q++)
          if (lanes.calls[q] != lanes.calls[0])
            g_error ("a column's lanes took different paths");
      }
      for (unsigned t = 0; t < VH_CAMBI_CV_THREADS; t++)
        cv_flush (p, t, VH_CAMBI_CV_THREADS, sm);
    }
  }
  /* the selection, after every scale's contrast values (the kernels take
   * every scale at once, blockIdx.y the scale, their parameters from
   * device memory: here the last first, each
   * scale's values still where its contrast kernel left them): level 2
   * and level 3 over the grid, block by block (in reverse order: the
   * kernels may run them in any), then the one block */
  const VhCambiScale *uploaded = (const VhCambiScale *)
      vh_cambi_gpu_host_select_params (ctx, pass);
  for (int s = VH_CAMBI_SCALES; s-- > 0;) {
    /* the parameters as the kernels read them: uploaded with the context */
    const VhCambiScale &p = uploaded[s];
    const unsigned n = VH_CAMBI_SELECT_BLOCK;
    const unsigned blocks = p.select_blocks;
    if (blocks != vh_cambi_select_blocks (p.w * p.h))
      g_error ("scale %d: %u selection blocks, not %u", s, blocks,
          vh_cambi_select_blocks (p.w * p.h));
    SelShared &sm = sel[0];
    for (unsigned blk = blocks; blk-- > 0;) {
      std::memset (&sm, 0xa5, sizeof sm);
      for (unsigned t = 0; t < n; t++)
        select_first_load (p, t, n, sm);
      select_first (p, sm);
      for (unsigned t = 0; t < n; t++)
        select_clear (t, n, sm);
      if (sm.done)
        continue;
      for (unsigned t = 0; t < n; t++)
        select_level2 (p, blk * n + t, blocks * n, sm);
      for (unsigned t = 0; t < n; t++)
        select_flush (p, t, n, VH_CAMBI_HIST_COUNT2, sm);
    }
    for (unsigned blk = blocks; blk-- > 0;) {
      std::memset (&sm, 0xa5, sizeof sm);
      for (unsigned t = 0; t < n; t++)
        select_first_load (p, t, n, sm);
      select_first (p, sm);
      for (unsigned t = 0; t < n; t++)
        select_load (p, t, n, VH_CAMBI_HIST_COUNT2, sm);
      if (sm.done)
        continue;
      sm.b2 = emulate_find_bin (sm);
      for (unsigned t = 0; t < n; t++)
        select_clear (t, n, sm);
      for (unsigned t = 0; t < n; t++)
        select_level3 (p, t, blk * n + t, blocks * n, sm);
      for (unsigned t = 0; t < n; t++)
        select_flush (p, t, n, VH_CAMBI_HIST_COUNT3, sm);
      for (unsigned step = n / 2; step > 0; step /= 2)
        for (unsigned t = 0; t < n; t++)
          select_tree (t, step, sm);
      select_part_flush (p, sm);
    }
    std::memset (&sm, 0xa5, sizeof sm);
    for (unsigned t = 0; t < n; t++)
      select_first_load (p, t, n, sm);
    select_first (p, sm);
    for (unsigned t = 0; t < n; t++)
      select_load (p, t, n, VH_CAMBI_HIST_COUNT2, sm);
    if (!sm.done) {
      sm.b2 = emulate_find_bin (sm);
      for (unsigned t = 0; t < n; t++)
        select_load (p, t, n, VH_CAMBI_HIST_COUNT3, sm);
      sm.b3 = emulate_find_bin (sm);
      for (unsigned t = 0; t < n; t++)
        select_above (t, n, sm);
      for (unsigned step = n / 2; step > 0; step /= 2)
        for (unsigned t = 0; t < n; t++)
          select_tree (t, step, sm);
    }
    *(uint64_t *) (uintptr_t) p.result = select_result (p, sm);
  }
}

/* Banding the project draws itself: a staircase ramp (wide flat steps one
 * code value apart), a dark ramp, flat areas with sparse specks and a
 * noisy area that the mask leaves out; moving with the frame. */
static std::vector<uint16_t>
banded (unsigned w, unsigned h, unsigned bpc, unsigned frame)
{
  std::vector<uint16_t> px ((size_t) w * h);
  const unsigned shift = bpc - 8;
  guint32 seed = 12345 + frame;
  for (unsigned y = 0; y < h; y++)
    for (unsigned x = 0; x < w; x++) {
      seed = seed * 1664525u + 1013904223u;
      unsigned v;
      if (x < w / 3)              /* mid-grey staircase */
        v = (100u << shift) + (((x + frame * 3) * 4 + y) << shift) / 97;
      else if (x < w / 2)         /* dark staircase */
        v = (17u << shift) + ((x + y + frame) << shift) / 61;
      else if (x < 3 * w / 4)     /* flat, sparse specks */
        v = ((seed >> 24) < 3 ? 140u : 128u) << shift;
      else                        /* noise */
        v = (60u << shift) + (seed >> (24 - shift)) % (120u << shift);
      px[(size_t) y * w + x] = (uint16_t) std::min (v, (1u << bpc) - 1);
    }
  return px;
}

static void
set_options (std::vector<unsigned char> &o, const char *opts)
{
  set_extractor_options (&vh_fex_cambi, o, opts);
}

static unsigned failures, cases;
static unsigned failures_at[2];         /* the pictures' per width */
static double worst;

/* opts: "name=value:..." (libvmaf's syntax) or "" */
static void
check (unsigned w, unsigned h, unsigned bpc, const char *opts, bool synth,
    unsigned frames = 2)
{
  const VhFeatureExtractor *fex = &vh_fex_cambi;
  GError *error = NULL;
  std::vector<unsigned char> o;
  set_options (o, opts);
  const VhVideoInfo info = { w, h, bpc };
  std::vector<unsigned char> priv (fex->priv_size, 0);
  if (!fex->init (priv.data (), o.data (), &info, &error))
    g_error ("%ux%u %s: %s", w, h, opts, error->message);
  VhCambiPlan plan;
  if (!vh_cambi_plan ((const VhCambiOptions *) o.data (), &info, &plan,
          &error))
    g_error ("%s", error->message);
  VhCambiGpu *ctx = vh_cambi_gpu_new_host (&plan, &error);
  if (!ctx)
    g_error ("%ux%u %s: %s", w, h, opts, error->message);
  VhSynth *syn = synth ? vh_synth_new (w, h, bpc, VH_SYNTH_420, w + h) : NULL;

  for (unsigned frame = 0; frame < frames; frame++) {
    VhPicture r, d;
    std::vector<uint16_t> px, pxr;
    std::vector<uint8_t> px8, pxr8;
    if (syn) {
      vh_synth_render (syn, frame * 2, 6, &r, &d);
    } else {
      /* the reference: the staircases moved on (full_ref reads it) */
      px = banded (w, h, bpc, frame);
      pxr = banded (w, h, bpc, frame + 7);
      VhPicture *pics[2] = { &d, &r };
      std::vector<uint16_t> *src[2] = { &px, &pxr };
      std::vector<uint8_t> *src8[2] = { &px8, &pxr8 };
      for (int k = 0; k < 2; k++) {
        std::memset (pics[k], 0, sizeof *pics[k]);
        pics[k]->nplanes = 1;
        pics[k]->bpc = bpc;
        VhPlane &pl = pics[k]->plane[0];
        pl.width = w;
        pl.height = h;
        pl.step = 1;
        if (bpc == 8) {
          src8[k]->assign (src[k]->begin (), src[k]->end ());
          pl.data = src8[k]->data ();
          pl.stride = (ptrdiff_t) w;
        } else {
          pl.data = (uint8_t *) src[k]->data ();
          pl.stride = (ptrdiff_t) (w * 2);
        }
      }
    }
    FeatureOutputs cpu;
    VhFeatureSink cpu_sink = { &cpu };
    if (!fex->extract (priv.data (), &r, &d, frame, &cpu_sink, &error))
      g_error ("%s", error->message);
    std::printf ("%ux%u %u-bit %s%s frame %u:", w, h, bpc,
        synth ? "synth " : "banded ", opts, frame);
    for (size_t i = 0; i < cpu.size (); i++)
      std::printf (" %s cpu %.9f", cpu[i].first.c_str (), cpu[i].second);
    std::printf ("\n");
    for (int wi = 0; wi < 2; wi++) {
      const LaneStats before = lane_stats[wi];
      /* the contrast grid both ways (4 threads a column on every scale,
       * then 16): the same sums */
      VhCambiSums sums, wide_sums;
      for (int wide = 0; wide < 2; wide++) {
        vh_cambi_gpu_set_wide_below (ctx, wide ? G_MAXUINT : 0);
        for (int pass = 0; pass < (plan.full_ref ? 2 : 1); pass++) {
          const VhPlane *luma = pass ? &r.plane[0] : &d.plane[0];
          if (bpc == 8 && wi == 0)
            emulate<uint8_t, 32> (ctx, luma, pass, w, h);
          else if (bpc == 8)
            emulate<uint8_t, 64> (ctx, luma, pass, w, h);
          else if (wi == 0)
            emulate<uint16_t, 32> (ctx, luma, pass, w, h);
          else
            emulate<uint16_t, 64> (ctx, luma, pass, w, h);
        }
        std::memcpy (wide ? &wide_sums : &sums, vh_cambi_gpu_host_sums (ctx),
            sizeof sums);
      }
      bool bad = false;
      if (std::memcmp (&sums, &wide_sums, sizeof sums)) {
        std::printf ("  %u lanes: 16 threads a column give other sums than "
            "4\n", kWidths[wi]);
        bad = true;
      }
      const unsigned long faults = lane_stats[wi].faults - before.faults;
      const unsigned long differ = lane_stats[wi].differ - before.differ;
      if (faults || differ) {
        std::printf ("  %u lanes: %lu undefined lane reads, %lu lanes left "
            "with other sums than their column's\n", kWidths[wi], faults,
            differ);
        bad = true;
      }

      FeatureOutputs gpu;
      VhFeatureSink gpu_sink = { &gpu };
      double diff = INFINITY;
      if (fex->extract_sums (priv.data (), &sums, frame, &gpu_sink, &error)) {
        /* every key (cambi; with full_ref cambi_source and
         * cambi_full_reference too), in the same order */
        diff = cpu.size () == gpu.size () && !cpu.empty () ? 0 : INFINITY;
        for (size_t i = 0; i < cpu.size () && i < gpu.size (); i++)
          diff = std::max (diff, cpu[i].first == gpu[i].first
              ? std::fabs (cpu[i].second - gpu[i].second) : INFINITY);
      } else {
        std::printf ("  %u lanes: %s\n", kWidths[wi], error->message);
        g_clear_error (&error);
      }
      worst = std::max (worst, diff);
      std::printf ("  %u lanes:", kWidths[wi]);
      for (size_t i = 0; i < gpu.size (); i++)
        std::printf (" %s gpu %.9f", gpu[i].first.c_str (), gpu[i].second);
      std::printf ("%s\n", diff <= TOLERANCE ? "" : " MISMATCH");
      cases++;
      if (bad || !(diff <= TOLERANCE))
        failures_at[wi]++;
    }
  }
  fex->close (priv.data ());
  vh_cambi_gpu_free (ctx);
  if (syn)
    vh_synth_free (syn);
}

/* Options the kernels do not take are left to the CPU, with the reason. */
[[maybe_unused]] static void
check_declined (const char *opts)
{
  std::vector<unsigned char> o;
  set_options (o, opts);
  GError *error = NULL;
  const VhVideoInfo info = { 640, 360, 8 };
  VhCambiPlan plan;
  const char *why = NULL;
  cases++;
  if (!vh_cambi_plan ((const VhCambiOptions *) o.data (), &info, &plan,
          &error) || vh_cambi_gpu_supported (&plan, &why) || !why) {
    std::printf ("%s: not declined\n", opts);
    failures++;
    return;
  }
  VhCambiGpu *ctx = vh_cambi_gpu_new_host (&plan, &error);
  if (ctx || !error || !strstr (error->message, why)) {
    std::printf ("%s: context made, or no reason given\n", opts);
    failures++;
  }
  std::printf ("%s: on the CPU (%s)\n", opts, error ? error->message : "");
  g_clear_error (&error);
  vh_cambi_gpu_free (ctx);
}

/* A 10-bit sample above 1023: counted, and extract_sums refuses the frame
 * as the CPU's extract does. */
[[maybe_unused]] static void
check_bad_samples (void)
{
  const VhFeatureExtractor *fex = &vh_fex_cambi;
  std::vector<unsigned char> o (fex->opts_size);
  vh_feature_opts_init_defaults (fex, o.data ());
  const unsigned w = 256, h = 216;
  const VhVideoInfo info = { w, h, 10 };
  GError *error = NULL;
  VhCambiPlan plan;
  std::vector<unsigned char> priv (fex->priv_size, 0);
  if (!vh_cambi_plan ((const VhCambiOptions *) o.data (), &info, &plan,
          &error) || !fex->init (priv.data (), o.data (), &info, &error))
    g_error ("%s", error->message);
  VhCambiGpu *ctx = vh_cambi_gpu_new_host (&plan, &error);
  std::vector<uint16_t> px = banded (w, h, 10, 0);
  px[w * 7 + 9] = 1500;
  VhPicture d;
  std::memset (&d, 0, sizeof d);
  d.nplanes = 1;
  d.bpc = 10;
  d.plane[0] = VhPlane { (uint8_t *) px.data (), (ptrdiff_t) (w * 2), w, h, 1 };
  emulate<uint16_t, 64> (ctx, &d.plane[0], 0, w, h);
  VhCambiSums sums;
  std::memcpy (&sums, vh_cambi_gpu_host_sums (ctx), sizeof sums);
  FeatureOutputs out;
  VhFeatureSink sink = { &out };
  cases++;
  if (sums.dis.bad_samples != 1 || fex->extract_sums (priv.data (), &sums, 0,
          &sink, &error) || !error || !strstr (error->message, "above 10")) {
    std::printf ("a sample above 10 bits was not refused (%u)\n",
        sums.dis.bad_samples);
    failures++;
  } else {
    std::printf ("a sample above 10 bits: %s\n", error->message);
  }
  g_clear_error (&error);
  fex->close (priv.data ());
  vh_cambi_gpu_free (ctx);
}

int
main ()
{
#if defined(VH_LANES_PLANT_MASK32)
  /* 32-bit lane masks planted: at 64 lanes, every tile's columns in lanes
   * 32-63 must come out wrong; at 32 lanes nothing changes */
  check (256, 216, 8, "", false, 1);
  check (640, 360, 10, "topk=0.2", false, 1);
  const unsigned pictures = cases / 2;
  const bool caught = failures_at[0] == 0 && failures_at[1] == pictures;
  std::printf ("planted 32-lane masks: %u of %u pictures differ at 32 lanes "
      "(0 expected), %u at 64 lanes (all expected): %s\n", failures_at[0],
      pictures, failures_at[1], caught ? "found" : "NOT FOUND");
  return caught ? 0 : 1;
#else
  /* the minimum, odd sizes, partial tiles; every depth */
  check (256, 216, 8, "", false);
  check (333, 217, 10, "", false);
  check (401, 233, 12, "", false);
  check (640, 360, 8, "", true);
  check (640, 360, 10, "topk=0.2", false);
  check (640, 360, 8, "enc_bitdepth=10", false);
  /* max_log_contrast 0 and 1 (one and two luma steps), a larger window,
   * the PQ curve, a visibility threshold, all values pooled */
  check (480, 272, 8, "max_log_contrast=0", false);
  check (480, 272, 10, "max_log_contrast=1:window_size=95", false);
  check (480, 272, 10, "eotf=pq:cambi_vis_lum_threshold=0.5", false);
  check (480, 272, 8, "topk=1.0", false);
  /* v1.0.16's options at 1080p: the high-resolution speed-up */
  check (1920, 1080, 8, "cambi_high_res_speedup=1080:"
      "cambi_vis_lum_threshold=0.06:cambi_max_val=17", false, 1);
  check (1920, 1080, 10, "cambi_high_res_speedup=1080", true, 1);

  /* the full-reference form: the reference's pass too */
  check (640, 360, 8, "full_ref=true", false);
  check (333, 217, 10, "full_ref=true", false);
  check (1920, 1080, 8, "full_ref=true:cambi_high_res_speedup=1080", false, 1);
  check_declined ("full_ref=true:src_width=480:src_height=270");
  check_declined ("max_log_contrast=3");
  check_declined ("enc_width=320:enc_height=180");
  check_declined ("heatmaps_path=unused");
  check_bad_samples ();

  failures += failures_at[0] + failures_at[1];
  std::printf ("%u cases (pictures at 32 and 64 lanes), worst |cpu - gpu| %.3g (tolerance %g): %s\n",
      cases, worst, TOLERANCE, failures ? "MISMATCH"
      : "the CAMBI kernels' arithmetic matches the CPU extractor");
  return failures ? 1 : 0;
#endif
}
