/* vmafhip — GPU integer accumulators against the CPU cores, directly.
 *
 * For every frame of every test vector and of synthetic content (8/10/12
 * bits, odd sizes): VhVifSums (egl 100 and 1, skip-scale0), VhAdmSums (v0,
 * NEG and the v1.0.16 options), the motion SAD and the PSNR SSEs from the
 * GPU kernels must equal the CPU cores' byte for byte. Exits 77 without a
 * GPU. */
#include <stdio.h>
#include <string.h>

#include "adm-gpu.h"
#include "motion-gpu.h"
#include "psnr-gpu.h"
#include "vh-kernel-images.h"
#include "vh-rawvideo.h"
#include "vh-synth.h"
#include "vh-test-util.h"
#include "vif-gpu.h"

#include "adm.h"
#include "motion.h"
#include "psnr.h"
#include "vif.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

typedef struct {
  VhGpu *gpu;
  VhGpuModule *vif_m, *adm_m, *motion_m, *psnr_m;
  VhGpuStream *stream;
  unsigned compared, mismatched;
} Ctx;

static void
check (GError *error, const char *what)
{
  if (error)
    g_error ("%s: %s", what, error->message);
}

static VhGpuPtr
upload (Ctx *c, const VhPlane *p, unsigned bpc, size_t *pitch)
{
  GError *error = NULL;
  const size_t row = (size_t) p->width * (bpc > 8 ? 2 : 1);
  *pitch = (row + 255) & ~(size_t) 255;
  VhGpuPtr d = vh_gpu_mem_alloc (c->gpu, *pitch * p->height, &error);
  check (error, "alloc");
  vh_gpu_copy2d_h2d_async (c->stream, d, *pitch, p->data, p->stride, row,
      p->height, &error);
  check (error, "upload");
  return d;
}

static void
verdict (Ctx *c, const char *what, unsigned frame, const char *feature,
    const void *cpu, const void *gpu, size_t size)
{
  c->compared++;
  if (memcmp (cpu, gpu, size)) {
    if (c->mismatched++ < 20)
      fprintf (stderr, "  MISMATCH %s frame %u: %s accumulators differ\n",
          what, frame, feature);
  }
}

/* Compares one frame pair (and motion against the previous reference). */
static void
frame_pair (Ctx *c, const char *what, unsigned i, const VhPicture *ref,
    const VhPicture *dis, const VhPicture *prev)
{
  GError *error = NULL;
  const unsigned w = ref->plane[0].width, h = ref->plane[0].height;
  const unsigned bpc = ref->bpc;
  size_t rp, dp, pp = 0;
  VhGpuPtr dref = upload (c, &ref->plane[0], bpc, &rp);
  VhGpuPtr ddis = upload (c, &dis->plane[0], bpc, &dp);
  VhGpuPtr dprev = prev ? upload (c, &prev->plane[0], bpc, &pp) : 0;

  /* VIF */
  VhVifWork *vw = vh_vif_work_new (w, h);
  VhVifGpu *vg = vh_vif_gpu_new (c->gpu, c->vif_m, w, h, bpc, &error);
  check (error, "vif");
  VhVifSums *vgs = vh_gpu_host_alloc (c->gpu, sizeof *vgs, &error);
  const struct { double egl; unsigned first; } vifo[] = { {100, 0}, {1, 0},
    {100, 1} };
  for (gsize k = 0; k < G_N_ELEMENTS (vifo); k++) {
    VhVifSums cpu;
    vh_vif_compute_sums_from (vw, &ref->plane[0], &dis->plane[0], bpc,
        vifo[k].egl, vifo[k].first, &cpu);
    vh_vif_gpu_enqueue (vg, c->stream, dref, rp, ddis, dp, vifo[k].egl,
        vifo[k].first, vgs, &error);
    vh_gpu_stream_sync (c->stream, &error);
    check (error, "vif run");
    verdict (c, what, i, "VIF", &cpu, vgs, sizeof cpu);
    /* the reference's share computed first (as for a ladder's renditions),
     * then the distorted picture's part reading it: the same sums */
    VhVifGpuReference *share = vh_vif_gpu_reference_new (c->gpu, w, h, bpc,
        &error);
    check (error, "vif share");
    memset (vgs, 0xa5, sizeof *vgs);
    vh_vif_gpu_enqueue_reference (vg, share, c->stream, dref, rp,
        vifo[k].first, &error);
    check (error, "vif share run");
    vh_vif_gpu_enqueue_distorted (vg, c->stream, share, ddis, dp,
        vifo[k].egl, vifo[k].first, vgs, &error);
    vh_gpu_stream_sync (c->stream, &error);
    check (error, "vif distorted part");
    verdict (c, what, i, "VIF, shared reference", &cpu, vgs, sizeof cpu);
    vh_vif_gpu_reference_free (share);
  }
  vh_vif_gpu_free (vg);
  vh_vif_work_free (vw);
  vh_gpu_host_free (c->gpu, vgs);

  /* ADM */
  VhAdmWork *aw = vh_adm_work_new (w, h);
  VhAdmGpu *ag = vh_adm_gpu_new (c->gpu, c->adm_m, w, h, bpc, &error);
  check (error, "adm");
  VhAdmSums *ags = vh_gpu_host_alloc (c->gpu, sizeof *ags, &error);
  for (int k = 0; k < 3; k++) {
    VhAdmOptions o;
    VhAdmParams params;
    vh_adm_options_default (&o);
    if (k >= 1)
      o.enhn_gain_limit = 1.0;
    if (k == 2) {
      o.csf_mode = 2;
      o.dlm_weight = 0.7;
      o.noise_weight = 0.02;
      o.min_val = 0.5;
    }
    vh_adm_params_init (&params, &o, &error);
    check (error, "adm params");
    VhAdmSums cpu;
    vh_adm_compute_sums (aw, &ref->plane[0], &dis->plane[0], bpc, &params,
        &cpu);
    vh_adm_gpu_enqueue (ag, c->stream, dref, rp, ddis, dp, &params, ags,
        &error);
    vh_gpu_stream_sync (c->stream, &error);
    check (error, "adm run");
    verdict (c, what, i, "ADM", &cpu, ags, sizeof cpu);
    /* the reference's share first, then the distorted picture's part:
     * the same sums, where the share fits (not on narrow pictures) */
    VhAdmGpuReference *share = vh_adm_gpu_reference_new (c->gpu, w, h, bpc,
        &error);
    check (error, "adm share");
    memset (ags, 0xa5, sizeof *ags);
    vh_adm_gpu_enqueue_reference (ag, share, c->stream, dref, rp, &params,
        &error);
    check (error, "adm share run");
    if (vh_adm_gpu_reference_fits (ag, share, &params, NULL)) {
      vh_adm_gpu_enqueue_distorted (ag, c->stream, share, ddis, dp, &params,
          ags, &error);
      vh_gpu_stream_sync (c->stream, &error);
      check (error, "adm distorted part");
      verdict (c, what, i, "ADM, shared reference", &cpu, ags, sizeof cpu);
    }
    vh_gpu_stream_sync (c->stream, &error);
    vh_adm_gpu_reference_free (share);
  }
  vh_adm_gpu_free (ag);
  vh_adm_work_free (aw);
  vh_gpu_host_free (c->gpu, ags);

  /* motion */
  if (prev) {
    VhMotionWork *mw = vh_motion_work_new (w, h);
    VhMotionGpu *mg = vh_motion_gpu_new (c->gpu, c->motion_m, w, h, bpc,
        &error);
    check (error, "motion");
    uint64_t *sad = vh_gpu_host_alloc (c->gpu, sizeof *sad, &error);
    uint64_t cpu = vh_motion_sad (mw, &prev->plane[0], &ref->plane[0], bpc);
    vh_motion_gpu_enqueue (mg, c->stream, dprev, pp, dref, rp, sad, &error);
    vh_gpu_stream_sync (c->stream, &error);
    check (error, "motion run");
    verdict (c, what, i, "motion", &cpu, sad, sizeof cpu);
    vh_motion_gpu_free (mg);
    vh_motion_work_free (mw);
    vh_gpu_host_free (c->gpu, sad);
  }

  /* PSNR over every plane */
  {
    VhPsnrGpu *pg = vh_psnr_gpu_new (c->gpu, c->psnr_m, w, h, bpc, &error);
    check (error, "psnr");
    uint64_t *sse = vh_gpu_host_alloc (c->gpu, 3 * sizeof *sse, &error);
    VhPsnrGpuPlane r[3], d[3];
    VhGpuPtr mem[6];
    uint64_t cpu[3] = { 0, 0, 0 };
    for (unsigned p = 0; p < ref->nplanes; p++) {
      size_t a, b;
      mem[2 * p] = upload (c, &ref->plane[p], bpc, &a);
      mem[2 * p + 1] = upload (c, &dis->plane[p], bpc, &b);
      r[p] = (VhPsnrGpuPlane) { mem[2 * p], a, ref->plane[p].width,
        ref->plane[p].height, 1 };
      d[p] = (VhPsnrGpuPlane) { mem[2 * p + 1], b, dis->plane[p].width,
        dis->plane[p].height, 1 };
      cpu[p] = vh_psnr_sse (&ref->plane[p], &dis->plane[p], bpc);
    }
    memset (sse, 0, 3 * sizeof *sse);
    vh_psnr_gpu_enqueue (pg, c->stream, r, d, ref->nplanes, sse, &error);
    vh_gpu_stream_sync (c->stream, &error);
    check (error, "psnr run");
    verdict (c, what, i, "PSNR", cpu, sse, sizeof cpu);
    for (unsigned p = 0; p < 2 * ref->nplanes; p++)
      vh_gpu_mem_free (c->gpu, mem[p]);
    vh_psnr_gpu_free (pg);
    vh_gpu_host_free (c->gpu, sse);
  }
  vh_gpu_mem_free (c->gpu, dref);
  vh_gpu_mem_free (c->gpu, ddis);
  vh_gpu_mem_free (c->gpu, dprev);
}

static void
raw_clip (Ctx *c, const char *testdata, const char *name, const char *format,
    unsigned w, unsigned h, const char *ref_file, const char *dis_file)
{
  const VhRawFormat *fmt = vh_raw_format_lookup (format);
  char *rp = g_build_filename (testdata, "clips", ref_file, NULL);
  char *dp = g_build_filename (testdata, "clips", dis_file, NULL);
  gchar *rb, *db;
  gsize rl, dl;
  if (!g_file_get_contents (rp, &rb, &rl, NULL)
      || !g_file_get_contents (dp, &db, &dl, NULL)) {
    printf ("%-24s not present, skipped\n", name);
    g_free (rp);
    g_free (dp);
    return;
  }
  const size_t fs = vh_raw_frame_size (fmt, w, h);
  const unsigned before = c->mismatched, n = rl / fs;
  VhPicture prev;
  for (unsigned i = 0; i < n; i++) {
    VhPicture ref, dis;
    vh_raw_picture (fmt, rb + i * fs, w, h, &ref);
    vh_raw_picture (fmt, db + i * fs, w, h, &dis);
    frame_pair (c, name, i, &ref, &dis, i ? &prev : NULL);
    prev = ref;
  }
  printf ("%-24s %3u frames: %s\n", name, n, c->mismatched == before ?
      "accumulators equal" : "MISMATCH");
  g_free (rb);
  g_free (db);
  g_free (rp);
  g_free (dp);
}

static void
synthetic (Ctx *c, unsigned w, unsigned h, unsigned bpc, unsigned n)
{
  char what[64];
  VhSynth *s = vh_synth_new (w, h, bpc, VH_SYNTH_420, 17 + bpc);
  VhSynth *s_prev = vh_synth_new (w, h, bpc, VH_SYNTH_420, 17 + bpc);
  const unsigned before = c->mismatched;
  g_snprintf (what, sizeof what, "synthetic %ux%u %u-bit", w, h, bpc);
  for (unsigned i = 0; i < n; i++) {
    VhPicture ref, dis, pref, pdis;
    vh_synth_render (s, i, 1 + i % 7, &ref, &dis);
    if (i)
      vh_synth_render (s_prev, i - 1, 1 + (i - 1) % 7, &pref, &pdis);
    frame_pair (c, what, i, &ref, &dis, i ? &pref : NULL);
  }
  printf ("%-24s %3u frames: %s\n", what, n, c->mismatched == before ?
      "accumulators equal" : "MISMATCH");
  vh_synth_free (s);
  vh_synth_free (s_prev);
}

int
main (void)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  GError *error = NULL;
  Ctx c = { 0 };
  c.gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
  if (!c.gpu) {
    printf ("SKIP: no usable GPU here (%s)\n", error->message);
    return VH_TEST_SKIP;
  }
  c.vif_m = vh_gpu_module_load_embedded (c.gpu, &vh_kernel_vif, &error);
  c.adm_m = vh_gpu_module_load_embedded (c.gpu, &vh_kernel_adm, &error);
  c.motion_m = vh_gpu_module_load_embedded (c.gpu, &vh_kernel_motion, &error);
  c.psnr_m = vh_gpu_module_load_embedded (c.gpu, &vh_kernel_psnr, &error);
  c.stream = vh_gpu_stream_new (c.gpu, &error);
  check (error, "modules");
  printf ("GPU: %s %s (%s)\n", vh_gpu_vendor_name (c.gpu),
      vh_gpu_device_name (c.gpu), vh_gpu_arch (c.gpu));

  const char *testdata = vh_test_testdata_dir ();
  if (testdata) {
    raw_clip (&c, testdata, "src01_160x90", "I420", 160, 90,
        "src01_160x90_ref.yuv", "src01_160x90_dis.yuv");
    raw_clip (&c, testdata, "src01_576x324_10b", "I420_10LE", 576, 324,
        "src01_576x324_10b_ref.yuv", "src01_576x324_10b_dis.yuv");
    raw_clip (&c, testdata, "hall_352x288", "I420", 352, 288,
        "hall_352x288_ref.yuv", "hall_352x288_dis.yuv");
    raw_clip (&c, testdata, "dark_1920x1080", "I420", 1920, 1080,
        "dark_1920x1080_ref.yuv", "dark_1920x1080_dis.yuv");
    raw_clip (&c, testdata, "bsds_481x321_444", "Y444", 481, 321,
        "bsds_481x321_444_ref.yuv", "bsds_481x321_444_dis.yuv");
    /* decoded frames where the GPU run carries them (scripts/gpu-run.sh) */
    raw_clip (&c, testdata, "seeking_720x480", "I420", 720, 480,
        "seeking_720x480_ref.yuv", "seeking_720x480_dis_crf40.yuv");
  }
  synthetic (&c, 1920, 1080, 8, 4);
  synthetic (&c, 3840, 2160, 8, 2);
  synthetic (&c, 1920, 1080, 10, 3);
  synthetic (&c, 3840, 2160, 10, 2);
  synthetic (&c, 1281, 721, 10, 3);
  synthetic (&c, 1023, 577, 12, 3);
  synthetic (&c, 33, 33, 8, 3);
  synthetic (&c, 67, 41, 12, 3);
  printf ("%u passed, %u failed\n", c.compared - c.mismatched, c.mismatched);
  vh_gpu_stream_free (c.stream);
  vh_gpu_module_free (c.vif_m);
  vh_gpu_module_free (c.adm_m);
  vh_gpu_module_free (c.motion_m);
  vh_gpu_module_free (c.psnr_m);
  vh_gpu_close (c.gpu);
  return c.mismatched ? 1 : 0;
}
