/* vmafhip-gpu-bench — GPU throughput of the vmafhip kernels and backend.
 *
 *   vmafhip-gpu-bench [--frames N] [--sizes 1920x1080,3840x2160]
 *                     [--depth 8|10|12] [--strength 0..8]
 *
 * Per size (4:2:0 synthetic content, 8-bit unless --depth, rendered before
 * timing):
 *   kernels  VIF + ADM + motion of vmaf_v0.6.1 on frames already on the
 *            device, several frames in flight on their own streams;
 *   feature  GPU time per frame of each feature alone: on one stream
 *            (device events) and with 4 frames in flight on 4 streams;
 *   ladder   a ladder of --rungs distorted pictures (6) of one reference:
 *            every rung a pair on 4 slots' contexts, with the reference's
 *            VIF and ADM shares once, and each rung an engine of its own with 4 and
 *            6 slots (as the element scores its renditions);
 *   engine   the engine with the GPU backend from system memory
 *            (staging copy, upload, kernels, read-back, scores, model),
 *            and the same engine on the CPU for the baseline.
 * First, the ceiling of every path from host memory: what the bus carries
 * from pinned host memory to the device (--upload-seconds; with
 * --upload-only nothing else, e.g. beside another program to see what
 * the two share).
 * A benchmark program, not a test. Exits 77 without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adm-gpu.h"
#include "cambi-gpu.h"
#include "speed-gpu.h"
#include "vh-feature-internal.h"
#include "vh-model.h"
#include "motion-gpu.h"
#include "ciede-gpu.h"
#include "ms-ssim-gpu.h"
#include "psnr-hvs-gpu.h"
#include "psnr-hvs.h"
#include "ssim-gpu.h"
#include "ssim.h"
#include "vh-engine.h"
#include "vh-gpu-backend.h"
#include "vh-kernel-images.h"
#include "vh-synth.h"
#include "vif-gpu.h"
#include "vh-tool-config.h"

#define DISTINCT 8
#define SLOTS 4

static void
die (const char *what, GError *error)
{
  fprintf (stderr, "vmafhip-gpu-bench: %s: %s\n", what,
      error ? error->message : "failed");
  exit (1);
}

static double now_s (void);

/* Host-to-device bandwidth from pinned memory, GB/s: 32 MiB copies kept
 * queued on two streams (the copy engines busy all the time) for about
 * `seconds` */
static double
upload_gbps (VhGpu *gpu, double seconds)
{
  const size_t block = 32u << 20;
  GError *error = NULL;
  void *host = vh_gpu_host_alloc (gpu, 2 * block, &error);
  VhGpuPtr dev = host ? vh_gpu_mem_alloc (gpu, 2 * block, &error) : 0;
  if (!dev)
    die ("upload bandwidth", error);
  memset (host, 1, 2 * block);  /* touched: no first-use cost in the timing */
  VhGpuStream *streams[2];
  for (int i = 0; i < 2; i++)
    if (!(streams[i] = vh_gpu_stream_new (gpu, &error)))
      die ("upload bandwidth", error);
  /* 4 copies a stream per round, then a wait: never idle for long */
  size_t copies = 0;
  const double t0 = now_s ();
  double t = t0;
  do {
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < 2; i++) {
        if (!vh_gpu_copy_h2d_async (streams[i], dev + (size_t) i * block,
                (char *) host + (size_t) i * block, block, &error))
          die ("upload bandwidth", error);
        copies++;
      }
    for (int i = 0; i < 2; i++)
      if (!vh_gpu_stream_sync (streams[i], &error))
        die ("upload bandwidth", error);
    t = now_s ();
  } while (t - t0 < seconds);
  for (int i = 0; i < 2; i++)
    vh_gpu_stream_free (streams[i]);
  vh_gpu_mem_free (gpu, dev);
  vh_gpu_host_free (gpu, host);
  return (double) copies * (double) block / (t - t0) / 1e9;
}

typedef struct {
  VhVifGpu *vif;
  VhAdmGpu *adm;
  VhMotionGpu *motion;
  VhGpuStream *stream;
  VhGpuEvent *done;
  VhVifSums *vif_sums;
  VhAdmSums *adm_sums;
  uint64_t *sad;
} BenchSlot;

static double
now_s (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* A slot: the contexts, stream and results of one frame in flight */
static void
bench_slot_init (BenchSlot *s, VhGpu *gpu, VhGpuModule *vif_module,
    VhGpuModule *adm_module, VhGpuModule *motion_module, unsigned w,
    unsigned h, unsigned bpc)
{
  GError *error = NULL;
  if (!(s->vif = vh_vif_gpu_new (gpu, vif_module, w, h, bpc, &error))
      || !(s->adm = vh_adm_gpu_new (gpu, adm_module, w, h, bpc, &error))
      || !(s->motion = vh_motion_gpu_new (gpu, motion_module, w, h, bpc,
              &error))
      || !(s->stream = vh_gpu_stream_new (gpu, &error))
      || !(s->done = vh_gpu_event_new (gpu, FALSE, &error))
      || !(s->vif_sums = vh_gpu_host_alloc (gpu, sizeof (VhVifSums), &error))
      || !(s->adm_sums = vh_gpu_host_alloc (gpu, sizeof (VhAdmSums), &error))
      || !(s->sad = vh_gpu_host_alloc (gpu, sizeof (uint64_t), &error)))
    die ("setup", error);
}

static void
bench_slot_clear (BenchSlot *s, VhGpu *gpu)
{
  vh_gpu_stream_sync (s->stream, NULL);
  vh_vif_gpu_free (s->vif);
  vh_adm_gpu_free (s->adm);
  vh_motion_gpu_free (s->motion);
  vh_gpu_host_free (gpu, s->vif_sums);
  vh_gpu_host_free (gpu, s->adm_sums);
  vh_gpu_host_free (gpu, s->sad);
  vh_gpu_event_free (s->done);
  vh_gpu_stream_free (s->stream);
}

/* The ladder as the element scores it, kernels only: each rung an engine
 * of its own, with `per_rung` slots (contexts, streams) of its own, every
 * rung a pair (vmaf_v0.6.1's three features); GPU ms per ladder frame.
 * Against ladder_ms (every rung on its slot's one set of contexts): what
 * the element's many frames in flight cost or gain on the GPU. */
static double
ladder_engines_ms (BenchSlot *slots, const VhAdmParams *adm_params,
    const VhGpuPtr *dref, const VhGpuPtr *ddis, size_t pitch, int rungs,
    int per_rung, int n_frames)
{
  GError *error = NULL;
  double t0 = 0;
  for (int f = -per_rung; f < n_frames; f++) {
    if (f == 0) {
      for (int i = 0; i < rungs * per_rung; i++)
        if (!vh_gpu_stream_sync (slots[i].stream, &error))
          die ("sync", error);
      t0 = now_s ();
    }
    const unsigned fi = (unsigned) (f + per_rung);
    const unsigned cur = fi % DISTINCT, prev = (fi + DISTINCT - 1) % DISTINCT;
    for (int r = 0; r < rungs; r++) {
      BenchSlot *s = &slots[r * per_rung + (int) (fi % (unsigned) per_rung)];
      const VhGpuPtr dis = ddis[(cur + (unsigned) r) % DISTINCT];
      if ((fi >= (unsigned) per_rung && !vh_gpu_event_sync (s->done, &error))
          || !vh_vif_gpu_enqueue (s->vif, s->stream, dref[cur], pitch, dis,
              pitch, 100.0, 0, s->vif_sums, &error)
          || !vh_adm_gpu_enqueue (s->adm, s->stream, dref[cur], pitch, dis,
              pitch, adm_params, s->adm_sums, &error)
          || !vh_motion_gpu_enqueue (s->motion, s->stream, dref[prev], pitch,
              dref[cur], pitch, s->sad, &error)
          || !vh_gpu_event_record (s->done, s->stream, &error))
        die ("ladder of engines", error);
    }
  }
  for (int i = 0; i < rungs * per_rung; i++)
    if (!vh_gpu_stream_sync (slots[i].stream, &error))
      die ("sync", error);
  return (now_s () - t0) * 1e3 / n_frames;
}

/* A ladder of `rungs` distorted pictures of one reference, kernels only,
 * SLOTS ladder frames in flight: GPU ms per ladder frame for VIF alone and
 * for vmaf_v0.6.1's three features, each rung scored as a pair
 * (shared = FALSE) or against the reference's VIF and ADM shares
 * computed once, with motion (the reference's alone) once a ladder frame
 * (TRUE). */
static double
ladder_ms (BenchSlot *slots, VhVifGpuReference **shares,
    VhAdmGpuReference **adm_shares, const VhAdmParams *adm_params,
    const VhGpuPtr *dref,
    const VhGpuPtr *ddis, size_t pitch, int rungs, gboolean shared,
    gboolean vif_only, int n_frames)
{
  GError *error = NULL;
  double t0 = 0;
  for (int f = -SLOTS; f < n_frames; f++) {
    if (f == 0) {
      for (unsigned i = 0; i < SLOTS; i++)
        if (!vh_gpu_stream_sync (slots[i].stream, &error))
          die ("sync", error);
      t0 = now_s ();
    }
    const unsigned fi = (unsigned) (f + SLOTS), si = fi % SLOTS;
    BenchSlot *s = &slots[si];
    const unsigned cur = fi % DISTINCT, prev = (fi + DISTINCT - 1) % DISTINCT;
    gboolean ok = !shared || (vh_vif_gpu_enqueue_reference (s->vif,
            shares[si], s->stream, dref[cur], pitch, 0, &error)
        && (vif_only || vh_adm_gpu_enqueue_reference (s->adm,
                adm_shares[si], s->stream, dref[cur], pitch, adm_params,
                &error)));
    for (int r = 0; ok && r < rungs; r++) {
      /* each rung a distorted picture of its own */
      const VhGpuPtr dis = ddis[(cur + (unsigned) r) % DISTINCT];
      ok = shared ? vh_vif_gpu_enqueue_distorted (s->vif, s->stream,
          shares[si], dis, pitch, 100.0, 0, s->vif_sums, &error)
          : vh_vif_gpu_enqueue (s->vif, s->stream, dref[cur], pitch, dis,
          pitch, 100.0, 0, s->vif_sums, &error);
      if (ok && !vif_only)
        ok = (shared ? vh_adm_gpu_enqueue_distorted (s->adm, s->stream,
                adm_shares[si], dis, pitch, adm_params, s->adm_sums, &error)
            : vh_adm_gpu_enqueue (s->adm, s->stream, dref[cur], pitch, dis,
                pitch, adm_params, s->adm_sums, &error))
            && ((shared && r > 0) || vh_motion_gpu_enqueue (s->motion,
                s->stream, dref[prev], pitch, dref[cur], pitch, s->sad,
                &error));
    }
    if (!ok)
      die ("ladder", error);
  }
  for (unsigned i = 0; i < SLOTS; i++)
    if (!vh_gpu_stream_sync (slots[i].stream, &error))
      die ("sync", error);
  return (now_s () - t0) * 1e3 / n_frames;
}

int
main (int argc, char **argv)
{
  int n_frames = 600, depth = 8, strength = 3, rungs = 6;
  char *sizes = NULL, *engine_model = NULL;
  double upload_seconds = 1.0;
  gboolean upload_only = FALSE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &n_frames, "Frames per run (600)", "N"},
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes,
        "Comma-separated sizes (1920x1080,3840x2160)", "LIST"},
    {"depth", 0, 0, G_OPTION_ARG_INT, &depth,
        "Bits per sample: 8, 10 or 12 (8; CAMBI is timed at 8 only)", "N"},
    {"rungs", 0, 0, G_OPTION_ARG_INT, &rungs,
        "Distorted pictures of one reference in the ladder timing (6)", "N"},
    {"strength", 0, 0, G_OPTION_ARG_INT, &strength,
        "Distortion of the synthetic pictures, 0 (none) to 8 (heavy) (3)",
        "N"},
    {"engine-model", 0, 0, G_OPTION_ARG_STRING, &engine_model,
        "The model of the engine's timing, built in (vmaf_v0.6.1)", "NAME"},
    {"upload-seconds", 0, 0, G_OPTION_ARG_DOUBLE, &upload_seconds,
        "How long the host-to-device bandwidth is measured (1)", "S"},
    {"upload-only", 0, 0, G_OPTION_ARG_NONE, &upload_only,
        "Measure the host-to-device bandwidth alone", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- vmafhip GPU benchmark");
  GError *error = NULL;
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error))
    die ("options", error);
  g_option_context_free (ctx);
  if (depth != 8 && depth != 10 && depth != 12) {
    fprintf (stderr, "vmafhip-gpu-bench: --depth %d: 8, 10 or 12\n", depth);
    return 2;
  }
  if (rungs < 1 || rungs > 64) {
    fprintf (stderr, "vmafhip-gpu-bench: --rungs %d: 1 to 64\n", rungs);
    return 2;
  }
  if (strength < 0 || strength > 8) {
    fprintf (stderr, "vmafhip-gpu-bench: --strength %d: 0 to 8\n", strength);
    return 2;
  }
  if (!(upload_seconds > 0.0 && upload_seconds <= 3600.0)) {
    fprintf (stderr, "vmafhip-gpu-bench: --upload-seconds %g: above 0, at "
        "most 3600\n", upload_seconds);
    return 2;
  }
  const unsigned bpc = (unsigned) depth, bytes = bpc > 8 ? 2 : 1;

  vh_gpu_use_config (vh_tool_config ());
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
  if (!gpu) {
    printf ("no usable GPU: %s\n", error->message);
    return 77;
  }
  printf ("# %s %s (%s); %u-bit 4:2:0 synthetic content, distortion %d; %d "
      "frames per run\n", vh_gpu_vendor_name (gpu), vh_gpu_device_name (gpu),
      vh_gpu_arch (gpu), bpc, strength, n_frames);
  printf ("upload: %.1f GB/s host to device from pinned memory (%.1f s)\n",
      upload_gbps (gpu, upload_seconds), upload_seconds);
  fflush (stdout);
  if (upload_only) {
    vh_gpu_close (gpu);
    return 0;
  }
  VhGpuModule *motion_module = vh_gpu_module_load_embedded (gpu,
      &vh_kernel_motion, &error);
  /* CIEDE2000 (timed alone below): NULL where this build has no kernels
   * for the GPU */
  VhGpuModule *ciede_module = vh_gpu_module_load_embedded (gpu,
      &vh_kernel_ciede, NULL);
  VhGpuModule *ssim_module = vh_gpu_module_load_embedded (gpu,
      &vh_kernel_ssim, NULL);
  VhGpuModule *ms_ssim_module = vh_gpu_module_load_embedded (gpu,
      &vh_kernel_ms_ssim, NULL);
  VhGpuModule *psnr_hvs_module = vh_gpu_module_load_embedded (gpu,
      &vh_kernel_psnr_hvs, NULL);
  VhGpuModule *cambi_module = vh_gpu_module_load_embedded (gpu,
      &vh_kernel_cambi, NULL);
  VhGpuModule *speed_module = vh_gpu_module_load_embedded (gpu,
      &vh_kernel_speed, NULL);
  VhGpuModule *vif_module = vh_gpu_module_load_embedded (gpu, &vh_kernel_vif,
      &error);
  VhGpuModule *adm_module = vh_gpu_module_load_embedded (gpu, &vh_kernel_adm,
      &error);
  if (!motion_module || !vif_module || !adm_module)
    die ("modules", error);

  char **list = g_strsplit (sizes ? sizes : "1920x1080,3840x2160", ",", -1);
  for (guint si = 0; list[si]; si++) {
    unsigned w, h;
    if (sscanf (list[si], "%ux%u", &w, &h) != 2)
      die ("size", NULL);
    const size_t pitch = (w * bytes + 255) & ~(size_t) 255;

    /* distinct frames on the device, and on the host for the engine */
    VhSynth *synth = vh_synth_new (w, h, bpc, VH_SYNTH_420, 5);
    VhGpuPtr dref[DISTINCT], ddis[DISTINCT];
    VhPicture href[DISTINCT], hdis[DISTINCT];
    void *host_store[DISTINCT];
    VhGpuStream *upload = vh_gpu_stream_new (gpu, &error);
    for (unsigned i = 0; i < DISTINCT; i++) {
      VhPicture r, d;
      vh_synth_render (synth, i, (unsigned) strength, &r, &d);
      /* luma, then Cb and Cr (half size, the same pitch) */
      const size_t chroma_at[3] = { 0, pitch * h, pitch * h
            + pitch * (h / 2) };
      /* row widths in bytes */
      const unsigned pw[3] = { w * bytes, w / 2 * bytes, w / 2 * bytes };
      const unsigned ph[3] = { h, h / 2, h / 2 };
      if (!(dref[i] = vh_gpu_mem_alloc (gpu, pitch * h * 2, &error))
          || !(ddis[i] = vh_gpu_mem_alloc (gpu, pitch * h * 2, &error)))
        die ("upload", error);
      for (int p = 0; p < 3; p++)
        if (!vh_gpu_copy2d_h2d_async (upload, dref[i] + chroma_at[p], pitch,
                r.plane[p].data, r.plane[p].stride, pw[p], ph[p], &error)
            || !vh_gpu_copy2d_h2d_async (upload, ddis[i] + chroma_at[p],
                pitch, d.plane[p].data, d.plane[p].stride, pw[p], ph[p],
                &error))
          die ("upload", error);
      if (!vh_gpu_stream_sync (upload, &error))
        die ("upload", error);
      /* keep host copies (the synth reuses its buffers) */
      href[i] = r;
      hdis[i] = d;
      host_store[i] = vh_synth_keep (&href[i], &hdis[i]);
    }
    vh_synth_free (synth);

    BenchSlot slots[SLOTS];
    VhAdmParams adm_params;
    VhAdmOptions adm_opts;
    vh_adm_options_default (&adm_opts);
    if (!vh_adm_params_init (&adm_params, &adm_opts, &error))
      die ("adm params", error);
    for (unsigned i = 0; i < SLOTS; i++)
      bench_slot_init (&slots[i], gpu, vif_module, adm_module, motion_module,
          w, h, bpc);

    /* (a) kernels only: every feature of vmaf_v0.6.1, frames in flight */
    double t0 = 0;
    const int warm = 30;
    for (int f = -warm; f < n_frames; f++) {
      if (f == 0) {
        for (unsigned i = 0; i < SLOTS; i++)
          if (!vh_gpu_stream_sync (slots[i].stream, &error))
            die ("sync", error);
        t0 = now_s ();
      }
      const unsigned fi = (unsigned) (f + warm);
      BenchSlot *s = &slots[fi % SLOTS];
      const unsigned cur = fi % DISTINCT, prev = (fi + DISTINCT - 1) % DISTINCT;
      if (fi >= SLOTS && !vh_gpu_event_sync (s->done, &error))
        die ("event", error);
      if (!vh_vif_gpu_enqueue (s->vif, s->stream, dref[cur], pitch, ddis[cur],
              pitch, 100.0, 0, s->vif_sums, &error)
          || !vh_adm_gpu_enqueue (s->adm, s->stream, dref[cur], pitch,
              ddis[cur], pitch, &adm_params, s->adm_sums, &error)
          || !vh_motion_gpu_enqueue (s->motion, s->stream, dref[prev], pitch,
              dref[cur], pitch, s->sad, &error)
          || !vh_gpu_event_record (s->done, s->stream, &error))
        die ("enqueue", error);
    }
    for (unsigned i = 0; i < SLOTS; i++)
      if (!vh_gpu_stream_sync (slots[i].stream, &error))
        die ("sync", error);
    const double kernels_fps = n_frames / (now_s () - t0);

    /* (a') a ladder: every rung as a pair, or the reference's share once */
    VhVifGpuReference *shares[SLOTS];
    VhAdmGpuReference *adm_shares[SLOTS];
    for (unsigned i = 0; i < SLOTS; i++)
      if (!(shares[i] = vh_vif_gpu_reference_new (gpu, w, h, bpc, &error))
          || !(adm_shares[i] = vh_adm_gpu_reference_new (gpu, w, h, bpc,
                  &error)))
        die ("reference share", error);
    double ladder[2][2];
    for (int vif_only = 1; vif_only >= 0; vif_only--)
      for (int shared = 0; shared <= 1; shared++)
        ladder[vif_only][shared] = ladder_ms (slots, shares, adm_shares,
            &adm_params,
            dref, ddis, pitch, rungs, shared, vif_only,
            MAX (n_frames / rungs, 20));
    for (unsigned i = 0; i < SLOTS; i++) {
      vh_vif_gpu_reference_free (shares[i]);
      vh_adm_gpu_reference_free (adm_shares[i]);
    }
    /* (a'') the same ladder with an engine per rung, as in the element:
     * 4 and the element's 6 slots each */
    double engines[2];
    for (int k = 0; k < 2; k++) {
      const int per_rung = k ? VH_GPU_BACKEND_DEFAULT_SLOTS : SLOTS;
      BenchSlot *eslots = g_new0 (BenchSlot, (gsize) (rungs * per_rung));
      for (int i = 0; i < rungs * per_rung; i++)
        bench_slot_init (&eslots[i], gpu, vif_module, adm_module,
            motion_module, w, h, bpc);
      engines[k] = ladder_engines_ms (eslots, &adm_params, dref, ddis, pitch,
          rungs, per_rung, MAX (n_frames / rungs, 20));
      for (int i = 0; i < rungs * per_rung; i++)
        bench_slot_clear (&eslots[i], gpu);
      g_free (eslots);
    }

    /* per feature: GPU time per frame on one stream (device events:
     * latency, every launch waiting for the one before), and the cost per
     * frame with SLOTS frames in flight on their own streams (wall time:
     * what a frame takes of the GPU when kernels of several frames
     * overlap, as in the element). CIEDE2000 and PSNR-HVS on the 4:2:0
     * pictures; CIEDE2000 also without its 8-bit Lab table (every pixel
     * converted, as deeper pictures are); -1: no kernels for this GPU in
     * the build */
    enum { VIF, ADM, MOTION, CIEDE, SSIM, MS_SSIM, PSNR_HVS, CIEDE_CONVERT,
      CAMBI, SPEED, MS_SSIM_EXACT, N_TIMED };
    float ms[N_TIMED], ms_flight[N_TIMED];
    VhCiedeGpu *ciede[SLOTS] = { NULL }, *ciede_convert[SLOTS] = { NULL };
    VhSsimGpu *ssim[SLOTS] = { NULL };
    VhMsSsimGpu *ms_ssim[SLOTS] = { NULL }, *ms_ssim_exact[SLOTS] = { NULL };
    VhPsnrHvsGpu *psnr_hvs[SLOTS] = { NULL };
    VhCambiGpu *cambi[SLOTS] = { NULL };
    VhSpeedGpu *speed[SLOTS] = { NULL };
    double *sums[SLOTS];
    /* SpEED-chroma: the default kernel scale, vmaf_v1.0.16's (its other
     * options act on the host) */
    VhSpeedChromaOptions speed_opts;
    vh_feature_opts_init_defaults (&vh_fex_speed_chroma, &speed_opts);
    /* CAMBI with vmaf_v1.0.16's options, on a staircase ramp (every pixel
     * flat, so every window counted: its slowest content) */
    VhCambiPlan cambi_plan;
    gboolean have_cambi = FALSE;
    VhGpuPtr dband = 0;
    if (cambi_module && bpc == 8) {
      const VhModelOpt v1[] = {
        {"cambi_high_res_speedup", VH_OPTVAL_NUMBER, 1080, 0, NULL},
        {"cambi_vis_lum_threshold", VH_OPTVAL_NUMBER, 0.06, 0, NULL},
        {"cambi_max_val", VH_OPTVAL_NUMBER, 17, 0, NULL},
      };
      VhCambiOptions co;
      vh_feature_opts_init_defaults (&vh_fex_cambi, &co);
      for (gsize k = 0; k < G_N_ELEMENTS (v1); k++)
        if (!vh_feature_opts_set (&vh_fex_cambi, &co, &v1[k], &error))
          die ("cambi options", error);
      const VhVideoInfo ci = { w, h, 8 };
      have_cambi = vh_cambi_plan (&co, &ci, &cambi_plan, &error);
      if (!have_cambi)
        g_clear_error (&error);
      guint8 *band = g_malloc ((size_t) pitch * h);
      for (unsigned y = 0; y < h; y++)
        for (unsigned x = 0; x < pitch; x++)
          band[(size_t) y * pitch + x] = (guint8) (60 + (x * 4 + y) * 40
              / (w * 4 + h));
      if (!(dband = vh_gpu_mem_alloc (gpu, pitch * h, &error))
          || !vh_gpu_copy_h2d_async (upload, dband, band, pitch * h, &error)
          || !vh_gpu_stream_sync (upload, &error))
        die ("upload", error);
      g_free (band);
    }
    for (unsigned i = 0; i < SLOTS; i++) {
      ciede[i] = ciede_module ? vh_ciede_gpu_new (gpu, ciede_module, w, h,
          bpc, NULL) : NULL;
      /* (deeper pictures convert every pixel already) */
      ciede_convert[i] = ciede_module && bpc == 8 ? vh_ciede_gpu_new_table
          (gpu, ciede_module, w, h, 8, FALSE, NULL) : NULL;
      ssim[i] = ssim_module ? vh_ssim_gpu_new (gpu, ssim_module, w, h, bpc,
          NULL) : NULL;
      ms_ssim[i] = ms_ssim_module ? vh_ms_ssim_gpu_new_family (gpu,
          ms_ssim_module, w, h, bpc, FALSE, NULL) : NULL;
      ms_ssim_exact[i] = ms_ssim_module ? vh_ms_ssim_gpu_new_family (gpu,
          ms_ssim_module, w, h, bpc, TRUE, NULL) : NULL;
      psnr_hvs[i] = psnr_hvs_module ? vh_psnr_hvs_gpu_new (gpu,
          psnr_hvs_module, w, h, bpc, NULL) : NULL;
      cambi[i] = have_cambi ? vh_cambi_gpu_new (gpu, cambi_module,
          &cambi_plan, NULL) : NULL;
      speed[i] = speed_module ? vh_speed_gpu_new (gpu, speed_module,
          &speed_opts, bpc, NULL) : NULL;
      /* room for any feature's results */
      if (!(sums[i] = vh_gpu_host_alloc (gpu, MAX (sizeof (VhMsSsimSums)
                      + sizeof (VhPsnrHvsSums), vh_speed_gpu_sums_size (w,
                          h)), &error)))
        die ("sums", error);
    }
    const gboolean present[N_TIMED] = { TRUE, TRUE, TRUE, ciede[0] != NULL,
      ssim[0] != NULL, ms_ssim[0] != NULL, psnr_hvs[0] != NULL,
      ciede_convert[0] != NULL, cambi[0] != NULL, speed[0] != NULL,
      ms_ssim_exact[0] != NULL };
    if (ciede[0] && bpc == 8 && !vh_ciede_gpu_uses_table (ciede[0]))
      printf ("# CIEDE2000: no Lab table (no room for it?)\n");
    for (int feat = 0; feat < N_TIMED; feat++) {
      ms[feat] = ms_flight[feat] = -1;
      if (!present[feat])
        continue;
      for (int in_flight = 0; in_flight <= 1; in_flight++) {
        VhGpuEvent *a = vh_gpu_event_new (gpu, TRUE, &error);
        VhGpuEvent *b = vh_gpu_event_new (gpu, TRUE, &error);
        const int reps = 200;
        double t_start = 0;
        for (int r = -10; r < reps; r++) {
          const unsigned si = in_flight ? (unsigned) (r + 10) % SLOTS : 0;
          BenchSlot *s = &slots[si];
          if (r == 0) {
            if (in_flight) {
              for (unsigned i = 0; i < SLOTS; i++)
                if (!vh_gpu_stream_sync (slots[i].stream, &error))
                  die ("sync", error);
              t_start = now_s ();
            } else if (!vh_gpu_event_record (a, s->stream, &error))
              die ("event", error);
          }
          const unsigned cur = (unsigned) (r + 10) % DISTINCT;
          const unsigned prev = (cur + DISTINCT - 1) % DISTINCT;
          const VhGpuPtr r3[3] = { dref[cur], dref[cur] + pitch * h,
            dref[cur] + pitch * h + pitch * (h / 2) };
          const VhGpuPtr d3[3] = { ddis[cur], ddis[cur] + pitch * h,
            ddis[cur] + pitch * h + pitch * (h / 2) };
          const size_t p3[3] = { pitch, pitch, pitch };
          const unsigned w3[3] = { w, w / 2, w / 2 };
          const unsigned h3[3] = { h, h / 2, h / 2 };
          VhPsnrHvsSums *hvs = (VhPsnrHvsSums *) (sums[si] + 15);
          gboolean ok = FALSE;
          switch (feat) {
            case VIF:
              ok = vh_vif_gpu_enqueue (s->vif, s->stream, dref[cur], pitch,
                  ddis[cur], pitch, 100.0, 0, s->vif_sums, &error);
              break;
            case ADM:
              ok = vh_adm_gpu_enqueue (s->adm, s->stream, dref[cur], pitch,
                  ddis[cur], pitch, &adm_params, s->adm_sums, &error);
              break;
            case MOTION:
              ok = vh_motion_gpu_enqueue (s->motion, s->stream, dref[prev],
                  pitch, dref[cur], pitch, s->sad, &error);
              break;
            case CIEDE:
            case CIEDE_CONVERT:
              ok = vh_ciede_gpu_enqueue (feat == CIEDE ? ciede[si]
                  : ciede_convert[si], s->stream, r3, d3, p3, 1, sums[si],
                  &error);
              break;
            case SSIM:
              ok = vh_ssim_gpu_enqueue (ssim[si], s->stream, dref[cur],
                  ddis[cur], pitch, (unsigned) vh_ssim_auto_scale (w, h),
                  sums[si], &error);
              break;
            case MS_SSIM:
            case MS_SSIM_EXACT:
              ok = vh_ms_ssim_gpu_enqueue (feat == MS_SSIM ? ms_ssim[si]
                  : ms_ssim_exact[si], s->stream, dref[cur], ddis[cur], pitch,
                  sums[si], &error);
              break;
            case PSNR_HVS:
              ok = vh_psnr_hvs_gpu_enqueue (psnr_hvs[si], s->stream, r3, d3,
                  p3, w3, h3, hvs->sum, hvs->pixels, &error);
              break;
            case CAMBI:
              ok = vh_cambi_gpu_enqueue (cambi[si], s->stream, dband, 0,
                  pitch, (VhCambiSums *) sums[si], &error);
              break;
            case SPEED:
              ok = vh_speed_gpu_enqueue (speed[si], s->stream, r3, d3, p3, w3,
                  h3, (VhSpeedSums *) sums[si], &error);
              break;
          }
          if (!ok)
            die ("enqueue", error);
        }
        if (in_flight) {
          for (unsigned i = 0; i < SLOTS; i++)
            if (!vh_gpu_stream_sync (slots[i].stream, &error))
              die ("sync", error);
          ms_flight[feat] = (float) ((now_s () - t_start) * 1e3 / reps);
        } else {
          if (!vh_gpu_event_record (b, slots[0].stream, &error)
              || !vh_gpu_event_sync (b, &error)
              || !vh_gpu_event_elapsed_ms (a, b, &ms[feat], &error))
            die ("timing", error);
          ms[feat] /= reps;
        }
        vh_gpu_event_free (a);
        vh_gpu_event_free (b);
      }
    }
    /* CAMBI's stages, one frame at a time (device events between the
     * launches: where its time goes), with the contrast grid as chosen and
     * with 4 or 16 threads a column on every scale */
    for (int grid = 0; cambi[0] && grid < 3; grid++) {
      static const char *const grid_name[3] = { "as chosen",
        "4 threads a column", "16 threads a column" };
      const unsigned wide_below[3] = { VH_CAMBI_GPU_WIDE_BELOW, 0,
        G_MAXUINT };
      VhGpuEvent *marks[VH_CAMBI_GPU_MARKS];
      double stage_ms[VH_CAMBI_GPU_MARKS] = { 0 };
      const int warm = 5, timed = 20;
      for (int e = 0; e < VH_CAMBI_GPU_MARKS; e++)
        if (!(marks[e] = vh_gpu_event_new (gpu, TRUE, &error)))
          die ("event", error);
      vh_cambi_gpu_set_wide_below (cambi[0], wide_below[grid]);
      vh_cambi_gpu_set_marks (cambi[0], marks);
      for (int r = 0; r < warm + timed; r++) {
        if (!vh_cambi_gpu_enqueue (cambi[0], slots[0].stream, dband, 0,
                pitch, (VhCambiSums *) sums[0], &error)
            || !vh_gpu_stream_sync (slots[0].stream, &error))
          die ("cambi", error);
        for (int e = 1; e < VH_CAMBI_GPU_MARKS && r >= warm; e++) {
          float stage = 0;
          if (!vh_gpu_event_elapsed_ms (marks[e - 1], marks[e], &stage,
                  &error))
            die ("timing", error);
          stage_ms[e] += stage / timed;
        }
      }
      vh_cambi_gpu_set_marks (cambi[0], NULL);
      vh_cambi_gpu_set_wide_below (cambi[0], VH_CAMBI_GPU_WIDE_BELOW);
      for (int e = 0; e < VH_CAMBI_GPU_MARKS; e++)
        vh_gpu_event_free (marks[e]);
      printf ("%ux%u  CAMBI stages (%s), GPU ms, one frame at a time: "
          "preprocessing %.3f", w, h, grid_name[grid], stage_ms[1]);
      for (int sc = 0; sc < VH_CAMBI_SCALES; sc++)
        printf (" | scale %d: decimate %.3f contrast %.3f", sc,
            stage_ms[2 + 2 * sc], stage_ms[3 + 2 * sc]);
      const int sel = 2 + 2 * VH_CAMBI_SCALES;
      printf (" | every scale: level2 %.3f level3 %.3f select %.3f\n",
          stage_ms[sel], stage_ms[sel + 1], stage_ms[sel + 2]);
    }
    for (unsigned i = 0; i < SLOTS; i++) {
      vh_gpu_host_free (gpu, sums[i]);
      vh_ciede_gpu_free (ciede[i]);
      vh_ciede_gpu_free (ciede_convert[i]);
      vh_ssim_gpu_free (ssim[i]);
      vh_ms_ssim_gpu_free (ms_ssim[i]);
      vh_ms_ssim_gpu_free (ms_ssim_exact[i]);
      vh_psnr_hvs_gpu_free (psnr_hvs[i]);
      vh_cambi_gpu_free (cambi[i]);
      vh_speed_gpu_free (speed[i]);
    }
    vh_gpu_mem_free (gpu, dband);

    /* (b) engine from system memory, GPU backend vs CPU */
    double engine_fps[2];
    for (int use_gpu = 1; use_gpu >= 0; use_gpu--) {
      const VhVideoInfo info = { w, h, bpc };
      VhEngine *e = vh_engine_new (&info, &error);
      if (!e || !vh_engine_set_config (e, vh_tool_config (), &error))
        die ("engine", error);
      if (use_gpu) {
        VhGpu *g2 = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
        VhGpuBackend *backend = g2 ? vh_gpu_backend_new (g2, 0, &error) : NULL;
        if (!backend || !vh_engine_set_accelerator (e, &vh_gpu_backend_ops,
                backend, &error))
          die ("backend", error);
      }
      if (!vh_engine_add_model (e, engine_model ? engine_model
              : "vmaf_v0.6.1", "vmaf", NULL, &error))
        die ("model", error);
      const int n = use_gpu ? n_frames : MIN (n_frames, 24);
      const double t = now_s ();
      for (int f = 0; f < n; f++)
        if (!vh_engine_push (e, &href[f % DISTINCT], &hdis[f % DISTINCT],
                &error))
          die ("push", error);
      if (!vh_engine_flush (e, &error))
        die ("flush", error);
      engine_fps[use_gpu] = n / (now_s () - t);
      vh_engine_free (e);
    }

    printf ("%-10s kernels-only %8.0f fps | engine+GPU from host (%s) %7.0f fps | "
        "CPU engine (1 thread) %5.1f fps | GPU ms/frame: VIF %.3f ADM %.3f "
        "motion %.3f CIEDE2000 %.3f (no table %.3f) SSIM %.3f MS-SSIM %.3f "
        "(exact %.3f) PSNR-HVS %.3f CAMBI %.3f SpEED-chroma %.3f | GPU "
        "ms/frame, %d frames in flight: VIF %.3f ADM %.3f motion %.3f "
        "CIEDE2000 %.3f (no table %.3f) SSIM %.3f MS-SSIM %.3f (exact %.3f) "
        "PSNR-HVS %.3f CAMBI %.3f SpEED-chroma %.3f\n",
        list[si], kernels_fps, engine_model ? engine_model : "vmaf_v0.6.1",
        engine_fps[1], engine_fps[0], ms[VIF],
        ms[ADM], ms[MOTION], ms[CIEDE], ms[CIEDE_CONVERT], ms[SSIM],
        ms[MS_SSIM], ms[MS_SSIM_EXACT], ms[PSNR_HVS], ms[CAMBI], ms[SPEED],
        SLOTS, ms_flight[VIF],
        ms_flight[ADM], ms_flight[MOTION], ms_flight[CIEDE],
        ms_flight[CIEDE_CONVERT], ms_flight[SSIM], ms_flight[MS_SSIM],
        ms_flight[MS_SSIM_EXACT], ms_flight[PSNR_HVS], ms_flight[CAMBI],
        ms_flight[SPEED]);
    printf ("%-10s ladder of %d rungs, GPU ms per ladder frame, %d in flight: "
        "VIF %.3f as pairs, %.3f with the reference's share once (%.2fx); "
        "VIF+ADM+motion %.3f as pairs, %.3f with VIF's and ADM's shares "
        "(%.2fx)\n", list[si],
        rungs, SLOTS, ladder[1][0], ladder[1][1],
        ladder[1][0] / ladder[1][1], ladder[0][0], ladder[0][1],
        ladder[0][0] / ladder[0][1]);
    printf ("%-10s ladder of %d rungs as %d engines (as the element scores "
        "it), VIF+ADM+motion as pairs, GPU ms per ladder frame: %.3f with %d "
        "slots each, %.3f with %d\n", list[si], rungs, rungs, engines[0],
        SLOTS, engines[1], VH_GPU_BACKEND_DEFAULT_SLOTS);
    fflush (stdout);

    for (unsigned i = 0; i < SLOTS; i++)
      bench_slot_clear (&slots[i], gpu);
    for (unsigned i = 0; i < DISTINCT; i++) {
      vh_gpu_mem_free (gpu, dref[i]);
      vh_gpu_mem_free (gpu, ddis[i]);
    }
    vh_gpu_stream_free (upload);
    for (unsigned i = 0; i < DISTINCT; i++)
      g_free (host_store[i]);
  }
  g_strfreev (list);
  g_free (sizes);
  g_free (engine_model);
  vh_gpu_module_free (motion_module);
  vh_gpu_module_free (ciede_module);
  vh_gpu_module_free (ms_ssim_module);
  vh_gpu_module_free (psnr_hvs_module);
  vh_gpu_module_free (cambi_module);
  vh_gpu_module_free (ssim_module);
  vh_gpu_module_free (vif_module);
  vh_gpu_module_free (adm_module);
  vh_gpu_close (gpu);
  return 0;
}
