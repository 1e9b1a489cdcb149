/* vmafhip — the GPU backend against the CPU engine.
 *
 * Every clip of ../shared/testdata and synthetic 1080p/2160p content (8-,
 * 10- and 12-bit, odd sizes) scored twice: on the CPU and with the GPU
 * backend. The GPU computes the same integer accumulators, so every score
 * (VIF, ADM, motion, PSNR, models) must be equal as a double, not merely
 * close.  CIEDE2000 is the GPU's own float and double arithmetic
 * (kernels/ciede-device.h) and a different order of summation: within
 * 1e-5 (the worst difference is printed).  Runs where a GPU is present; exits 77 (skip) with a
 * message elsewhere. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "vh-engine.h"
#include "vh-gpu-backend.h"
#include "vh-rawvideo.h"
#include "vh-synth.h"
#include "vh-test-util.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

static unsigned failures, comparisons;
/* The float metrics: every pixel computed as on the CPU (CIEDE2000 with
 * the GPU's arithmetic), the sums in another order: within 1e-5, the
 * largest difference seen printed. */
#define FLOAT_TOLERANCE 1e-5
/* MS-SSIM's exact kernels (the default): every pixel the CPU's, only the
 * sums over the maps in another order (~1e-15); its fast ones (the
 * config's ms_ssim_gpu_fast) within FLOAT_TOLERANCE */
#define EXACT_TOLERANCE 1e-12

static double
metric_tolerance (const char *name)
{
  return !strcmp (name, "float_ms_ssim") && !test_config.ms_ssim_gpu_fast
      ? EXACT_TOLERANCE : FLOAT_TOLERANCE;
}
static struct {
  const char *name;
  gboolean prefix;                  /* keys carry the options' suffix */
  double worst;                     /* largest |cpu - gpu| */
} float_metrics[] = {
  {"ciede2000", FALSE, 0}, {"float_ssim", FALSE, 0}, {"float_ms_ssim", FALSE, 0},
  /* PSNR-HVS: libvmaf's float sum reproduced exactly, so expected 0 */
  {"psnr_hvs", FALSE, 0}, {"psnr_hvs_y", FALSE, 0}, {"psnr_hvs_cb", FALSE, 0},
  {"psnr_hvs_cr", FALSE, 0},
  /* CAMBI: every contrast value the CPU's, the top-k sum exact (the CPU
   * adds it in double): its keys carry the options' suffix, or are
   * cambi_source and cambi_full_reference */
  {"cambi", TRUE, 0},
  /* SpEED-chroma: every value the CPU's (expected 0), its three keys */
  {"speed_chroma", TRUE, 0},
};

static void
setup (VhEngine *e, const VhVideoInfo *info, GError **error)
{
  const VhModelOpt adm_v1[] = {
    {"adm_csf_mode", VH_OPTVAL_NUMBER, 2, 0, NULL},
    {"adm_dlm_weight", VH_OPTVAL_NUMBER, 0.7, 0, NULL},
    {"adm_enhn_gain_limit", VH_OPTVAL_NUMBER, 1.0, 0, NULL},
    {"adm_noise_weight", VH_OPTVAL_NUMBER, 0.02, 0, NULL},
    {"adm_min_val", VH_OPTVAL_NUMBER, 0.5, 0, NULL},
  };
  const VhModelOpt hfr[] = {
    {"motion_max_val", VH_OPTVAL_NUMBER, 18, 0, NULL},
    {"motion_five_frame_window", VH_OPTVAL_BOOL, 0, true, NULL},
    {"motion_moving_average", VH_OPTVAL_BOOL, 0, true, NULL},
  };
  const VhModelFlags phone = { .enable_transform = true };
  if (!vh_engine_add_model (e, "vmaf_v0.6.1", "vmaf", NULL, error)
      || !vh_engine_add_model (e, "vmaf_v0.6.1neg", "vmaf_neg", NULL, error)
      || !vh_engine_add_model (e, "vmaf_b_v0.6.3", "vmaf_b", NULL, error)
      || !vh_engine_add_model (e, "vmaf_v0.6.1", "vmaf_phone", &phone, error)
      || !vh_engine_add_feature (e, "psnr", error)
      || !vh_engine_add_feature (e, "ciede", error)
      || !vh_engine_add_feature (e, "float_ssim", error)
      || !vh_engine_add_feature (e, "psnr_hvs", error)
      || !vh_engine_add_feature_with_options (e, "adm", adm_v1,
          G_N_ELEMENTS (adm_v1), error)
      || !vh_engine_add_feature_with_options (e, "motion", hfr,
          G_N_ELEMENTS (hfr), error))
    g_error ("engine setup: %s", (*error)->message);
  /* CAMBI with vmaf_v1.0.16's options: 216 pixels wide or high */
  const VhModelOpt cambi_v1[] = {
    {"cambi_high_res_speedup", VH_OPTVAL_NUMBER, 1080, 0, NULL},
    {"cambi_vis_lum_threshold", VH_OPTVAL_NUMBER, 0.06, 0, NULL},
    {"cambi_max_val", VH_OPTVAL_NUMBER, 17, 0, NULL},
  };
  /* and the full-reference form (the reference's pass too) */
  const VhModelOpt cambi_fr[] = {
    {"full_ref", VH_OPTVAL_BOOL, 0, true, NULL},
  };
  if ((info->width >= 216 || info->height >= 216)
      && (!vh_engine_add_feature_with_options (e, "cambi", cambi_v1,
              G_N_ELEMENTS (cambi_v1), error)
          || !vh_engine_add_feature_with_options (e, "cambi", cambi_fr,
              G_N_ELEMENTS (cambi_fr), error)))
    g_error ("engine setup: %s", (*error)->message);
  /* SpEED-chroma with vmaf_v1.0.16's options: chroma of 80x80 */
  const VhModelOpt speed_v1[] = {
    {"speed_kernelscale", VH_OPTVAL_NUMBER, 1.0, 0, NULL},
    {"speed_nn_floor", VH_OPTVAL_NUMBER, 0.1, 0, NULL},
    {"speed_sigma_nn", VH_OPTVAL_NUMBER, 0.19, 0, NULL},
    {"speed_weight_var_mode", VH_OPTVAL_NUMBER, 5, 0, NULL},
    {"speed_max_val", VH_OPTVAL_NUMBER, 45, 0, NULL},
  };
  if (info->width >= 160 && info->height >= 160
      && !vh_engine_add_feature_with_options (e, "speed_chroma", speed_v1,
          G_N_ELEMENTS (speed_v1), error))
    g_error ("engine setup: %s", (*error)->message);
  /* MS-SSIM's five scales need 176x176 (the CPU refuses less) */
  if (info->width >= 176 && info->height >= 176
      && !vh_engine_add_feature (e, "float_ms_ssim", error))
    g_error ("engine setup: %s", (*error)->message);
}

typedef void (*FrameFunc) (gpointer data, unsigned i, VhPicture *ref,
    VhPicture *dis);

/* Scores n frames on both paths and compares every value. */
/* Frames the last compare ()'s backend uploaded without the staging copy. */
static unsigned last_zero_copy_frames;
/* vh_engine_set_subsample for both engines of the next compare () */
static unsigned compare_subsample = 1;

static void
compare (const char *what, const VhVideoInfo *info, unsigned n,
    FrameFunc frame, gpointer data)
{
  GError *error = NULL;
  VhEngine *cpu = vh_engine_new (info, &error);
  VhEngine *gpu = vh_engine_new (info, &error);
  /* (VMAFHIP_CIEDE_TABLE=0, VMAFHIP_MS_SSIM_FAST=1: the other kernels) */
  if (!vh_engine_set_config (cpu, &test_config, &error)
      || !vh_engine_set_config (gpu, &test_config, &error))
    g_error ("%s: config: %s", what, error->message);
  VhGpu *dev = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
  VhGpuBackend *backend = dev ? vh_gpu_backend_new (dev, 0, &error) : NULL;
  if (!backend)
    g_error ("%s: GPU backend: %s", what, error->message);
  setup (cpu, info, &error);
  if (!vh_engine_set_accelerator (gpu, &vh_gpu_backend_ops, backend, &error)
      || !vh_engine_set_subsample (cpu, compare_subsample, &error)
      || !vh_engine_set_subsample (gpu, compare_subsample, &error))
    g_error ("%s: %s", what, error->message);
  setup (gpu, info, &error);
  /* every feature here has a GPU path: a backend declining one would
   * otherwise pass by comparing the CPU with itself */
  if (vh_engine_n_accelerated (gpu) == 0
      || vh_engine_n_accelerated (gpu) != vh_engine_n_accelerable (gpu))
    g_error ("%s: the GPU took %u of %u features", what,
        vh_engine_n_accelerated (gpu), vh_engine_n_accelerable (gpu));

  for (unsigned i = 0; i < n; i++) {
    VhPicture ref, dis;
    frame (data, i, &ref, &dis);
    if (!vh_engine_push (cpu, &ref, &dis, &error)
        || !vh_engine_push (gpu, &ref, &dis, &error))
      g_error ("%s frame %u: %s", what, i, error->message);
  }
  if (!vh_engine_flush (cpu, &error) || !vh_engine_flush (gpu, &error))
    g_error ("%s: flush: %s", what, error->message);
  /* the engine owns the backend: read its counter while it lives */
  last_zero_copy_frames = vh_gpu_backend_n_zero_copy (backend);

  const VhScoreTable *tc = vh_engine_scores (cpu), *tg = vh_engine_scores (gpu);
  unsigned bad = 0, values = 0;
  for (unsigned m = 0; m < vh_score_table_n_metrics (tc); m++) {
    const char *name = vh_score_table_metric_name (tc, m);
    int mg = vh_score_table_find (tg, name);
    for (unsigned i = 0; i < n; i++) {
      double vc, vg;
      if (!vh_score_table_get (tc, m, i, &vc)) {
        /* off the subsample: the GPU must not have computed it either */
        if (mg >= 0 && vh_score_table_get (tg, mg, i, &vg) && bad++ < 12)
          fprintf (stderr, "  %s frame %u %s: computed on the GPU only\n",
              what, i, name);
        continue;
      }
      values++;
      const gboolean have = mg >= 0 && vh_score_table_get (tg, mg, i, &vg);
      gboolean within = FALSE;
      for (gsize f = 0; have && f < G_N_ELEMENTS (float_metrics); f++) {
        if (float_metrics[f].prefix
            ? !g_str_has_prefix (name, float_metrics[f].name)
            : strcmp (name, float_metrics[f].name) != 0)
          continue;
        float_metrics[f].worst = MAX (float_metrics[f].worst, fabs (vc - vg));
        within = fabs (vc - vg) <= metric_tolerance (float_metrics[f].name);
      }
      if (within)
        continue;
      if (!have || vc != vg) {
        if (bad++ < 12)
          fprintf (stderr, "  MISMATCH %s frame %u %s: cpu %.17g gpu %.17g\n",
              what, i, name, vc, mg < 0 ? -1.0 : vg);
      }
    }
  }
  printf ("%-34s %3u frames: %6u values, %s\n", what, n, values,
      bad ? "MISMATCH" : "all equal to the CPU engine");
  fflush (stdout);
  comparisons++;
  failures += bad ? 1 : 0;
  vh_engine_free (cpu);
  vh_engine_free (gpu);
}

typedef struct {
  const VhRawFormat *fmt;
  unsigned w, h;
  const guint8 *ref, *dis;
  size_t fsize;
} RawClip;

static void
raw_frame (gpointer data, unsigned i, VhPicture *ref, VhPicture *dis)
{
  RawClip *c = data;
  vh_raw_picture (c->fmt, c->ref + i * c->fsize, c->w, c->h, ref);
  vh_raw_picture (c->fmt, c->dis + i * c->fsize, c->w, c->h, dis);
}

static void
synth_frame (gpointer data, unsigned i, VhPicture *ref, VhPicture *dis)
{
  vh_synth_render (data, i, 1 + i % 6, ref, dis);
}

static void
clip (const char *testdata, const char *name, const char *format, unsigned w,
    unsigned h, const char *ref_file, const char *dis_file)
{
  RawClip c = { vh_raw_format_lookup (format), w, h, NULL, NULL, 0 };
  char *paths[2];
  const char *files[2] = { ref_file, dis_file };
  gchar *bytes[2];
  gsize len[2];
  for (int k = 0; k < 2; k++) {
    char *p = g_build_filename (testdata, "clips", files[k], NULL);
    GError *error = NULL;
    /* a machine without an H.264 decoder may carry decoded frames instead */
    if (g_str_has_suffix (p, ".mp4") && !g_file_test (p, G_FILE_TEST_EXISTS)) {
      char *raw = g_strdup (p);
      strcpy (raw + strlen (raw) - 3, "yuv");
      g_free (p);
      p = raw;
    }
    paths[k] = g_str_has_suffix (p, ".mp4") ? vh_test_decode_mp4 (p, &error)
        : g_strdup (p);
    if (!paths[k] || !g_file_get_contents (paths[k], &bytes[k], &len[k], NULL))
      g_error ("%s: cannot read %s: %s", name, p, error ? error->message : "");
    if (g_str_has_suffix (p, ".mp4"))
      unlink (paths[k]);
    g_free (p);
  }
  c.ref = (const guint8 *) bytes[0];
  c.dis = (const guint8 *) bytes[1];
  c.fsize = vh_raw_frame_size (c.fmt, w, h);
  const VhVideoInfo info = { w, h, c.fmt->bpc };
  compare (name, &info, len[0] / c.fsize, raw_frame, &c);
  for (int k = 0; k < 2; k++) {
    g_free (bytes[k]);
    g_free (paths[k]);
  }
}

/* ---- pictures in pinned memory: the zero-copy upload ------------------- */

/* One frame pair in vh_gpu_host_alloc blocks, laid out as a GStreamer
 * pool's buffer (the planes one after the other, rows padded), rewritten
 * for every frame: the backend must have read a frame before submit
 * returns, or the next frame's pixels would end up in its upload. */
typedef struct {
  VhSynth *synth;
  gboolean pin[2];              /* ref, dis: in pinned memory */
  guint8 *block[2];
  size_t offset[3], stride[3];
} PinnedFrames;

static void
pin_picture (PinnedFrames *pf, int k, const VhPicture *src, VhPicture *dst)
{
  *dst = *src;
  if (!pf->pin[k])
    return;
  const unsigned bytes = src->bpc > 8 ? 2 : 1;
  for (unsigned p = 0; p < src->nplanes; p++) {
    const VhPlane *sp = &src->plane[p];
    guint8 *out = pf->block[k] + pf->offset[p];
    for (unsigned y = 0; y < sp->height; y++)
      memcpy (out + y * pf->stride[p], (const guint8 *) sp->data
          + (ptrdiff_t) y * sp->stride, (size_t) sp->width * bytes);
    dst->plane[p].data = out;
    dst->plane[p].stride = (ptrdiff_t) pf->stride[p];
  }
}

static void
pinned_frame (gpointer data, unsigned i, VhPicture *ref, VhPicture *dis)
{
  PinnedFrames *pf = data;
  VhPicture r, d;
  vh_synth_render (pf->synth, i, 1 + i % 6, &r, &d);
  pin_picture (pf, 0, &r, ref);
  pin_picture (pf, 1, &d, dis);
}

/* pin_dis FALSE: the reference alone is pinned, so the backend must take
 * the staging path (every plane or none). */
static void
synthetic_pinned (unsigned w, unsigned h, unsigned bpc, unsigned n,
    gboolean pin_dis)
{
  GError *error = NULL;
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
  if (!gpu)
    g_error ("pinned: %s", error->message);
  PinnedFrames pf = { vh_synth_new (w, h, bpc, VH_SYNTH_420, w ^ h ^ bpc),
    { TRUE, pin_dis }, { NULL, NULL }, { 0 }, { 0 } };
  VhPicture r, d;
  vh_synth_render (pf.synth, 0, 1, &r, &d);
  const unsigned bytes = bpc > 8 ? 2 : 1;
  size_t size = 0;
  for (unsigned p = 0; p < r.nplanes; p++) {
    /* rows padded to 64 bytes and one 64-byte unit more */
    pf.stride[p] = (((size_t) r.plane[p].width * bytes + 63) & ~(size_t) 63)
        + 64;
    pf.offset[p] = size;
    size += pf.stride[p] * r.plane[p].height;
  }
  for (int k = 0; k < 2; k++)
    if (pf.pin[k] && !(pf.block[k] = vh_gpu_host_alloc (gpu, size, &error)))
      g_error ("pinned: %s", error->message);
  if (!vh_gpu_host_contains (pf.block[0], size)
      || vh_gpu_host_contains (pf.block[0], size + 1)
      || vh_gpu_host_contains (r.plane[0].data, 1))
    g_error ("pinned: vh_gpu_host_contains is wrong");

  char what[64];
  g_snprintf (what, sizeof what, "pinned%s %ux%u %u-bit",
      pin_dis ? "" : " ref only", w, h, bpc);
  const VhVideoInfo info = { w, h, bpc };
  compare (what, &info, n, pinned_frame, &pf);
  /* pinned pair: every frame without the staging copy; reference only:
   * none (every plane or none) */
  if (last_zero_copy_frames != (pin_dis ? n : 0)) {
    printf ("  %s: %u of %u frames skipped the staging copy, expected %u\n",
        what, last_zero_copy_frames, n, pin_dis ? n : 0);
    failures++;
  }
  for (int k = 0; k < 2; k++)
    vh_gpu_host_free (gpu, pf.block[k]);
  vh_synth_free (pf.synth);
  vh_gpu_close (gpu);
}

static void
synthetic (unsigned w, unsigned h, unsigned bpc, unsigned n)
{
  char what[64];
  VhSynth *s = vh_synth_new (w, h, bpc, VH_SYNTH_420, w ^ h ^ bpc);
  const VhVideoInfo info = { w, h, bpc };
  g_snprintf (what, sizeof what, "synthetic %ux%u %u-bit%s", w, h, bpc,
      compare_subsample > 1 ? ", subsample" : "");
  compare (what, &info, n, synth_frame, s);
  vh_synth_free (s);
}

/* A 10-bit stream whose pictures are in GPU memory, frame 2 carrying a
 * 16-bit value: the backend's depth check on the device refuses frame 2
 * (as the CPU engine and the staging copy refuse such host pictures),
 * after frames 0 and 1 were scored */
static void
device_beyond_depth (void)
{
  enum { W = 256, H = 144, BPC = 10, N = 4 };
  GError *error = NULL;
  const VhVideoInfo info = { W, H, BPC };
  VhGpu *dev = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
  VhGpuBackend *backend = dev ? vh_gpu_backend_new (dev, 0, &error) : NULL;
  VhEngine *e = vh_engine_new (&info, &error);
  if (!backend || !e || !vh_engine_set_config (e, &test_config, &error)
      || !vh_engine_set_accelerator (e, &vh_gpu_backend_ops, backend, &error)
      || !vh_engine_add_model (e, "vmaf_v0.6.1", "vmaf", NULL, &error))
    g_error ("device beyond depth: %s", error->message);
  VhGpu *mem = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
  VhGpuStream *stream = mem ? vh_gpu_stream_new (mem, &error) : NULL;
  if (!stream)
    g_error ("device beyond depth: %s", error->message);
  VhSynth *synth = vh_synth_new (W, H, BPC, VH_SYNTH_420, 33);
  VhGpuPtr planes[2][3] = { { 0 } };
  gboolean refused = FALSE;
  unsigned pushed = 0;
  for (unsigned i = 0; i < N && !refused; i++) {
    VhPicture pic[2];
    vh_synth_render (synth, i, 3, &pic[0], &pic[1]);
    if (i == 2)
      ((guint16 *) pic[1].plane[0].data)[W * 7 + 11] = 0xffff;
    for (int k = 0; k < 2; k++) {
      for (unsigned p = 0; p < pic[k].nplanes; p++) {
        VhPlane *pl = &pic[k].plane[p];
        const size_t row = (size_t) pl->width * 2;
        if (!planes[k][p]
            && !(planes[k][p] = vh_gpu_mem_alloc (mem, row * pl->height,
                    &error)))
          g_error ("device beyond depth: %s", error->message);
        if (!vh_gpu_copy2d_h2d_async (stream, planes[k][p], row, pl->data,
                (size_t) pl->stride, row, pl->height, &error)
            || !vh_gpu_stream_sync (stream, &error))
          g_error ("device beyond depth: %s", error->message);
        pl->data = (void *) (uintptr_t) planes[k][p];
        pl->stride = (ptrdiff_t) row;
      }
      pic[k].memory = VH_PICTURE_DEVICE;
      pic[k].device_context = NULL;
    }
    if (!vh_engine_push (e, &pic[0], &pic[1], &error))
      refused = TRUE;
    else
      pushed++;
  }
  if (!refused && !vh_engine_flush (e, &error))
    refused = TRUE;
  const gboolean ok = refused && error
      && strstr (error->message, "frame 2: a sample above 10 bits")
      && vh_engine_n_final (e) >= 1;
  printf ("%-34s %3u frames: %s (%s)\n", "device memory, sample > 10 bits",
      pushed, ok ? "frame 2 refused" : "NOT REFUSED AS EXPECTED",
      error ? error->message : "no error");
  comparisons++;
  failures += ok ? 0 : 1;
  g_clear_error (&error);
  vh_engine_free (e);
  for (int k = 0; k < 2; k++)
    for (unsigned p = 0; p < 3; p++)
      vh_gpu_mem_free (mem, planes[k][p]);
  vh_gpu_stream_free (stream);
  vh_gpu_close (mem);
  vh_synth_free (synth);
}

int
main (int argc, char **argv)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  GError *error = NULL;
  gboolean quick = argc > 1 && !strcmp (argv[1], "--quick");
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
  if (!gpu) {
    printf ("SKIP: no usable GPU here (%s)\n", error->message);
    return VH_TEST_SKIP;
  }
  printf ("GPU: %s %s (%s)\n", vh_gpu_vendor_name (gpu),
      vh_gpu_device_name (gpu), vh_gpu_arch (gpu));
  vh_gpu_close (gpu);

  const char *testdata = vh_test_testdata_dir ();
  if (testdata) {
    clip (testdata, "src01_160x90", "I420", 160, 90, "src01_160x90_ref.yuv",
        "src01_160x90_dis.yuv");
    clip (testdata, "src01_576x324_10b", "I420_10LE", 576, 324,
        "src01_576x324_10b_ref.yuv", "src01_576x324_10b_dis.yuv");
    clip (testdata, "hall_352x288", "I420", 352, 288, "hall_352x288_ref.yuv",
        "hall_352x288_dis.yuv");
    clip (testdata, "dark_1920x1080", "I420", 1920, 1080,
        "dark_1920x1080_ref.yuv", "dark_1920x1080_dis.yuv");
    clip (testdata, "bsds_481x321_444", "Y444", 481, 321,
        "bsds_481x321_444_ref.yuv", "bsds_481x321_444_dis.yuv");
    if (!quick)
      clip (testdata, "seeking_720x480", "I420", 720, 480,
          "seeking_720x480_ref.mp4", "seeking_720x480_dis_crf40.mp4");
  }
  synthetic (1920, 1080, 8, quick ? 3 : 8);
  synthetic (3840, 2160, 8, 3);
  synthetic (1920, 1080, 10, 4);
  synthetic (1281, 721, 10, 4);
  synthetic (1023, 577, 12, 3);
  synthetic (65, 47, 8, 5);
  /* subsample=3: frames 0, 3, 6 only (motion every frame), on both */
  compare_subsample = 3;
  synthetic (1281, 721, 10, 8);
  compare_subsample = 1;
  /* zero-copy: pictures already in pinned memory (as from the element's
   * buffer pool) are uploaded without the staging copy */
  synthetic_pinned (1920, 1080, 8, 8, TRUE);
  synthetic_pinned (3840, 2160, 8, 3, TRUE);
  synthetic_pinned (1281, 721, 10, 4, TRUE);
  synthetic_pinned (1023, 577, 12, 3, TRUE);
  synthetic_pinned (1920, 1080, 8, 3, FALSE);
  device_beyond_depth ();
  for (gsize f = 0; f < G_N_ELEMENTS (float_metrics); f++)
    printf ("%s: worst |cpu - gpu| %.3g (tolerance %g)\n",
        float_metrics[f].name, float_metrics[f].worst,
        metric_tolerance (float_metrics[f].name));
  printf ("%u passed, %u failed\n", comparisons - failures, failures);
  return failures ? 1 : 0;
}
