/* vmafhip — the engine's accelerator path, exercised without a GPU.
 *
 * A "CPU accelerator" computes the integer accumulators with the extractors'
 * own cores but hands frames back late (up to its in-flight limit), the way
 * the GPU backend does. Scores must equal the plain CPU engine's exactly,
 * frame by frame, for every option set, and frames must become final only
 * when their sums are back. */
#include <check.h>
#include <string.h>

#include "adm.h"
#include "motion.h"
#include "psnr.h"
#include "vh-accel.h"
#include "vh-engine.h"
#include "vh-synth.h"
#include "vif.h"

#define IN_FLIGHT 3
#define MAX_HANDLES 12

typedef struct {
  const VhFeatureExtractor *fex;
  const void *opts;
  VhVifWork *vif;
  VhAdmWork *adm;
  VhAdmParams adm_params;
  VhMotionWork *motion;
  guint8 *history[2];        /* previous reference lumas (motion) */
  unsigned lag;
} Handle;

typedef struct {
  VhVideoInfo info;
  Handle handles[MAX_HANDLES];
  unsigned n_handles;
  /* queued frames: sums per handle */
  GQueue pending;            /* PendingFrame* */
  unsigned attach_calls, submits;
  /* scale_distorted: the sizes it was given; the scaler, at the first
   * submit (the reference's planes give the output sizes) */
  unsigned scale_calls, scale_nplanes, scale_w[3], scale_h[3];
  VhScaleFilter scale_filter;
  VhPictureScaler *scaler;
  /* set_config: the calls, and the last config's kernel choices */
  unsigned config_calls;
  gboolean ciede_lab_table, ms_ssim_gpu_fast;
} CpuAccel;

typedef struct {
  unsigned index;
  union {
    VhVifSums vif;
    VhAdmSums adm;
    uint64_t sad;
    VhPsnrSums psnr;
  } sums[MAX_HANDLES];
} PendingFrame;

static gboolean
accel_attach (gpointer backend, const VhFeatureExtractor *fex,
    const void *opts, const VhVideoInfo *info, gpointer *handle,
    GError **error)
{
  CpuAccel *a = backend;
  a->attach_calls++;
  ck_assert_uint_lt (a->n_handles, MAX_HANDLES);
  Handle *h = &a->handles[a->n_handles];
  memset (h, 0, sizeof *h);
  h->fex = fex;
  h->opts = opts;
  a->info = *info;
  if (fex == &vh_fex_vif) {
    h->vif = vh_vif_work_new (info->width, info->height);
  } else if (fex == &vh_fex_adm) {
    h->adm = vh_adm_work_new (info->width, info->height);
    if (!vh_adm_params_init (&h->adm_params, opts, error))
      return FALSE;
  } else if (fex == &vh_fex_motion) {
    const VhMotionOptions *mo = opts;
    h->motion = vh_motion_work_new (info->width, info->height);
    h->lag = mo->five_frame_window ? 2 : 1;
    for (int i = 0; i < 2; i++)
      h->history[i] = g_malloc ((size_t) info->width * info->height * 2);
  } else if (fex != &vh_fex_psnr) {
    *handle = NULL;           /* leave it to the CPU */
    return TRUE;
  }
  a->n_handles++;
  *handle = h;
  return TRUE;
}

static gboolean
accel_submit (gpointer backend, const VhPicture *ref, const VhPicture *dis,
    unsigned index, GError **error)
{
  CpuAccel *a = backend;
  PendingFrame *f = g_new0 (PendingFrame, 1);
  const size_t bytes = ref->bpc > 8 ? 2 : 1;
  a->submits++;
  if (a->scale_calls) {
    if (!a->scaler) {
      unsigned w[3], h[3];
      for (unsigned p = 0; p < ref->nplanes; p++) {
        w[p] = ref->plane[p].width;
        h[p] = ref->plane[p].height;
      }
      a->scaler = vh_picture_scaler_new (a->scale_nplanes, a->scale_w,
          a->scale_h, w, h, ref->bpc, a->scale_filter, error);
      ck_assert (a->scaler);
    }
    ck_assert_uint_eq (dis->plane[0].width, a->scale_w[0]);
    dis = vh_picture_scaler_run (a->scaler, dis, 1);
  }
  f->index = index;
  for (unsigned k = 0; k < a->n_handles; k++) {
    Handle *h = &a->handles[k];
    if (h->vif) {
      const VhVifOptions *o = h->opts;
      vh_vif_compute_sums_from (h->vif, &ref->plane[0], &dis->plane[0],
          ref->bpc, o->enhn_gain_limit, o->skip_scale0 ? 1 : 0, &f->sums[k].vif);
    } else if (h->adm) {
      vh_adm_compute_sums (h->adm, &ref->plane[0], &dis->plane[0], ref->bpc,
          &h->adm_params, &f->sums[k].adm);
    } else if (h->motion) {
      const size_t row = (size_t) a->info.width * bytes;
      guint8 *slot = h->history[index % h->lag];
      if (index >= h->lag) {
        VhPlane prev = { slot, (ptrdiff_t) row, a->info.width,
          a->info.height, 1 };
        f->sums[k].sad = vh_motion_sad (h->motion, &prev, &ref->plane[0],
            ref->bpc);
      } else {
        f->sums[k].sad = 0xdeadbeef;      /* must be ignored */
      }
      for (unsigned y = 0; y < a->info.height; y++)
        memcpy (slot + y * row, (const guint8 *) ref->plane[0].data
            + y * ref->plane[0].stride, row);
    } else {
      VhPsnrSums *p = &f->sums[k].psnr;
      p->nplanes = ref->nplanes;
      for (unsigned i = 0; i < ref->nplanes; i++) {
        p->sse[i] = vh_psnr_sse (&ref->plane[i], &dis->plane[i], ref->bpc);
        p->width[i] = ref->plane[i].width;
        p->height[i] = ref->plane[i].height;
      }
    }
  }
  g_queue_push_tail (&a->pending, f);
  ck_assert_uint_le (a->pending.length, IN_FLIGHT);
  return TRUE;
}

static gboolean
accel_collect (gpointer backend, unsigned max_pending,
    VhAccelDeliverFunc deliver, gpointer engine_data, unsigned *delivered,
    GError **error)
{
  CpuAccel *a = backend;
  (void) error;
  *delivered = 0;
  /* a lazy GPU: nothing is ready before it has to be */
  while (a->pending.length > max_pending) {
    PendingFrame *f = g_queue_pop_head (&a->pending);
    for (unsigned k = 0; k < a->n_handles; k++)
      deliver (engine_data, &a->handles[k], f->index, &f->sums[k]);
    g_free (f);
    (*delivered)++;
  }
  return TRUE;
}

static unsigned
accel_max_in_flight (gpointer backend)
{
  (void) backend;
  return IN_FLIGHT;
}

static void
accel_reset (gpointer backend)
{
  CpuAccel *a = backend;
  g_queue_clear_full (&a->pending, g_free);
}

static gboolean
accel_scale_distorted (gpointer backend, unsigned nplanes,
    const unsigned width[], const unsigned height[], VhScaleFilter filter,
    GError **error)
{
  CpuAccel *a = backend;
  (void) error;
  ck_assert_uint_eq (a->submits, 0);
  a->scale_calls++;
  a->scale_nplanes = nplanes;
  for (unsigned p = 0; p < nplanes; p++) {
    a->scale_w[p] = width[p];
    a->scale_h[p] = height[p];
  }
  a->scale_filter = filter;
  return TRUE;
}

static void
accel_free (gpointer backend)
{
  CpuAccel *a = backend;
  accel_reset (a);
  g_clear_pointer (&a->scaler, vh_picture_scaler_free);
  for (unsigned k = 0; k < a->n_handles; k++) {
    vh_vif_work_free (a->handles[k].vif);
    vh_adm_work_free (a->handles[k].adm);
    vh_motion_work_free (a->handles[k].motion);
    g_free (a->handles[k].history[0]);
    g_free (a->handles[k].history[1]);
  }
  g_free (a);
}

static void
accel_set_config (gpointer backend, const VhConfig *config)
{
  CpuAccel *a = backend;
  a->config_calls++;
  a->ciede_lab_table = config->ciede_lab_table;
  a->ms_ssim_gpu_fast = config->ms_ssim_gpu_fast;
}

static const VhAccelOps cpu_accel_ops = {
  accel_attach, accel_submit, accel_collect, accel_max_in_flight,
  accel_reset, accel_free, NULL,    /* every frame computed */
  accel_scale_distorted, accel_set_config,
};

static void
setup (VhEngine *e)
{
  GError *error = NULL;
  const VhModelOpt hfr[] = {
    {"motion_max_val", VH_OPTVAL_NUMBER, 18, 0, NULL},
    {"motion_five_frame_window", VH_OPTVAL_BOOL, 0, true, NULL},
    {"motion_moving_average", VH_OPTVAL_BOOL, 0, true, NULL},
  };
  const VhModelOpt adm_v1[] = {
    {"adm_csf_mode", VH_OPTVAL_NUMBER, 2, 0, NULL},
    {"adm_enhn_gain_limit", VH_OPTVAL_NUMBER, 1.0, 0, NULL},
    {"adm_noise_weight", VH_OPTVAL_NUMBER, 0.02, 0, NULL},
  };
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", "vmaf", NULL, &error));
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1neg", "neg", NULL, &error));
  ck_assert (vh_engine_add_feature (e, "psnr", &error));
  ck_assert (vh_engine_add_feature_with_options (e, "motion", hfr, 3, &error));
  ck_assert (vh_engine_add_feature_with_options (e, "adm", adm_v1, 3, &error));
  /* debug outputs, computed on the host from the accelerator's sums */
  const VhModelOpt vif_debug[] = {
    {"debug", VH_OPTVAL_BOOL, 0, true, NULL},
    {"vif_skip_scale0", VH_OPTVAL_BOOL, 0, true, NULL},
  };
  const VhModelOpt adm_debug[] = {
    {"debug", VH_OPTVAL_BOOL, 0, true, NULL},
    {"adm_skip_scale0", VH_OPTVAL_BOOL, 0, true, NULL},
  };
  ck_assert (vh_engine_add_feature_with_options (e, "vif", vif_debug, 2,
          &error));
  ck_assert (vh_engine_add_feature_with_options (e, "adm", adm_debug, 2,
          &error));
}

static void
run_pair (unsigned w, unsigned h, unsigned bpc, unsigned n)
{
  GError *error = NULL;
  VhVideoInfo info = { w, h, bpc };
  VhEngine *cpu = vh_engine_new (&info, &error);
  VhEngine *acc = vh_engine_new (&info, &error);
  CpuAccel *backend = g_new0 (CpuAccel, 1);
  g_queue_init (&backend->pending);

  setup (cpu);
  /* half the instances exist before the accelerator, half after */
  ck_assert (vh_engine_add_model (acc, "vmaf_v0.6.1", "vmaf", NULL, &error));
  ck_assert (vh_engine_set_accelerator (acc, &cpu_accel_ops, backend, &error));
  setup (acc);
  ck_assert (vh_engine_is_accelerated (acc));
  ck_assert (!vh_engine_is_accelerated (cpu));
  /* vif ×3, adm ×4, motion ×2, psnr: instances shared by models once */
  ck_assert_uint_eq (backend->n_handles, 10);
  ck_assert_uint_eq (vh_engine_n_accelerated (acc), 10);
  ck_assert_uint_eq (vh_engine_n_accelerable (acc), 10);
  ck_assert_uint_eq (vh_engine_n_accelerated (cpu), 0);

  VhSynth *s = vh_synth_new (w, h, bpc, VH_SYNTH_420, 11);
  for (unsigned i = 0; i < n; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, 1 + i % 5, &ref, &dis);
    ck_assert (vh_engine_push (cpu, &ref, &dis, &error));
    ck_assert_msg (vh_engine_push (acc, &ref, &dis, &error), "%s",
        error ? error->message : "");
    /* the lazy accelerator hands a frame back only when its slot is
     * needed; the five-frame motion window then holds two more */
    const unsigned back = i + 1 > IN_FLIGHT ? i + 1 - IN_FLIGHT : 0;
    const unsigned final = back > 2 ? back - 2 : 0;
    ck_assert_uint_eq (vh_engine_n_final (acc), final);
  }
  ck_assert (vh_engine_flush (cpu, &error));
  ck_assert (vh_engine_flush (acc, &error));
  ck_assert_uint_eq (vh_engine_n_final (acc), n);

  const VhScoreTable *tc = vh_engine_scores (cpu), *ta = vh_engine_scores (acc);
  ck_assert_uint_eq (vh_score_table_n_metrics (tc),
      vh_score_table_n_metrics (ta));
  unsigned compared = 0;
  for (unsigned m = 0; m < vh_score_table_n_metrics (tc); m++) {
    const char *name = vh_score_table_metric_name (tc, m);
    int ma = vh_score_table_find (ta, name);
    ck_assert_msg (ma >= 0, "accelerated engine lacks %s", name);
    for (unsigned i = 0; i < n; i++) {
      double vc, va;
      gboolean hc = vh_score_table_get (tc, m, i, &vc);
      gboolean ha = vh_score_table_get (ta, ma, i, &va);
      ck_assert (hc == ha);
      if (hc) {
        ck_assert_msg (vc == va, "%s frame %u: cpu %.17g accelerated %.17g",
            name, i, vc, va);
        compared++;
      }
    }
  }
  ck_assert_uint_gt (compared, n * 20);
  ck_assert (vh_score_table_find (ta, "integer_vif_den_scale3_ssclz") >= 0);
  ck_assert (vh_score_table_find (ta, "integer_adm_num_ssz") >= 0);

  /* a flushing seek restarts both paths alike */
  vh_engine_reset (acc);
  ck_assert_uint_eq (vh_engine_n_final (acc), 0);
  VhPicture ref, dis;
  vh_synth_render (s, 0, 1, &ref, &dis);
  ck_assert (vh_engine_push (acc, &ref, &dis, &error));
  ck_assert (vh_engine_flush (acc, &error));
  double v0a, v0c;
  ck_assert (vh_score_table_get (ta, vh_score_table_find (ta, "vmaf"), 0, &v0a));
  vh_engine_reset (cpu);
  ck_assert (vh_engine_push (cpu, &ref, &dis, &error));
  ck_assert (vh_engine_flush (cpu, &error));
  ck_assert (vh_score_table_get (tc, vh_score_table_find (tc, "vmaf"), 0, &v0c));
  ck_assert (v0a == v0c);

  vh_synth_free (s);
  vh_engine_free (cpu);
  vh_engine_free (acc);
}

START_TEST (test_accel_8bit)
{
  run_pair (176, 144, 8, 9);
}
END_TEST

START_TEST (test_accel_10bit_odd)
{
  run_pair (203, 101, 10, 7);
}
END_TEST

START_TEST (test_accel_after_push_refused)
{
  GError *error = NULL;
  VhVideoInfo info = { 64, 48, 8 };
  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  VhSynth *s = vh_synth_new (64, 48, 8, VH_SYNTH_420, 1);
  VhPicture ref, dis;
  vh_synth_render (s, 0, 1, &ref, &dis);
  ck_assert (vh_engine_push (e, &ref, &dis, &error));
  CpuAccel *backend = g_new0 (CpuAccel, 1);
  ck_assert (!vh_engine_set_accelerator (e, &cpu_accel_ops, backend, &error));
  ck_assert (error && strstr (error->message, "before the first frame"));
  g_clear_error (&error);
  accel_free (backend);
  vh_synth_free (s);
  vh_engine_free (e);
}
END_TEST

/* The engine's settings reach its accelerator, set before or after it;
 * once frames flow they are refused, naming the order */
START_TEST (test_config_reaches_accelerator)
{
  GError *error = NULL;
  VhVideoInfo info = { 64, 48, 8 };
  VhConfig config;
  vh_config_init (&config);
  ck_assert (config.ciede_lab_table && !config.ms_ssim_gpu_fast
      && config.cpu_row_bands && config.gpu_scale);
  config.ms_ssim_gpu_fast = TRUE;
  config.ciede_lab_table = FALSE;

  VhEngine *e = vh_engine_new (&info, &error);
  ck_assert (vh_engine_set_config (e, &config, &error));
  CpuAccel *backend = g_new0 (CpuAccel, 1);
  ck_assert (vh_engine_set_accelerator (e, &cpu_accel_ops, backend, &error));
  ck_assert_uint_eq (backend->config_calls, 1);
  ck_assert (backend->ms_ssim_gpu_fast && !backend->ciede_lab_table);
  /* set again with the accelerator there: handed on */
  config.ms_ssim_gpu_fast = FALSE;
  ck_assert (vh_engine_set_config (e, &config, &error));
  ck_assert_uint_eq (backend->config_calls, 2);
  ck_assert (!backend->ms_ssim_gpu_fast);

  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  VhSynth *s = vh_synth_new (64, 48, 8, VH_SYNTH_420, 1);
  VhPicture ref, dis;
  vh_synth_render (s, 0, 1, &ref, &dis);
  ck_assert (vh_engine_push (e, &ref, &dis, &error));
  ck_assert (!vh_engine_set_config (e, &config, &error));
  ck_assert (error && strstr (error->message, "before its accelerator"));
  g_clear_error (&error);
  vh_synth_free (s);
  vh_engine_free (e);
  vh_config_clear (&config);
}
END_TEST

/* The one reader of the environment: each variable over the defaults */
START_TEST (test_config_from_environment)
{
  VhConfig config;
  g_setenv ("VMAFHIP_HIP_LIBRARY", "/opt/x/libamdhip64.so.6", TRUE);
  g_setenv ("VMAFHIP_CPU_SIMD", "avx2", TRUE);
  g_setenv ("VMAFHIP_CPU_BANDS", "0", TRUE);
  g_setenv ("VMAFHIP_GPU_SCALE", "0", TRUE);
  g_setenv ("VMAFHIP_CIEDE_TABLE", "0", TRUE);
  g_setenv ("VMAFHIP_MS_SSIM_FAST", "1", TRUE);
  g_setenv ("VMAFHIP_SHARED_REFERENCE", "1", TRUE);
  vh_config_init (&config);
  vh_config_load_environment (&config);
  ck_assert_str_eq (config.hip_library, "/opt/x/libamdhip64.so.6");
  ck_assert_ptr_null (config.cuda_library);
  ck_assert_int_eq (config.simd_cap, VH_CPU_SIMD_AVX2);
  ck_assert (!config.cpu_row_bands && !config.gpu_scale
      && !config.ciede_lab_table && config.ms_ssim_gpu_fast
      && config.share_reference);
  VhConfig copy = { 0 };
  vh_config_copy (&copy, &config);
  ck_assert (copy.hip_library != config.hip_library);
  ck_assert_str_eq (copy.hip_library, config.hip_library);
  vh_config_clear (&copy);
  vh_config_clear (&config);

  g_setenv ("VMAFHIP_CPU_SIMD", "0", TRUE);
  g_setenv ("VMAFHIP_MS_SSIM_FAST", "0", TRUE);
  g_unsetenv ("VMAFHIP_HIP_LIBRARY");
  g_unsetenv ("VMAFHIP_CPU_BANDS");
  vh_config_init (&config);
  vh_config_load_environment (&config);
  ck_assert_int_eq (config.simd_cap, VH_CPU_SIMD_NONE);
  ck_assert (!config.ms_ssim_gpu_fast && config.cpu_row_bands);
  ck_assert_ptr_null (config.hip_library);
  vh_config_apply_cpu (&config);
  ck_assert_int_eq (vh_cpu_simd_level (), VH_CPU_SIMD_NONE);
  vh_config_clear (&config);
}
END_TEST

/* Every score of two engines, frame by frame, equal */
static unsigned
assert_same_scores (const VhEngine *a, const VhEngine *b, unsigned n)
{
  const VhScoreTable *ta = vh_engine_scores (a), *tb = vh_engine_scores (b);
  unsigned compared = 0;
  ck_assert_uint_eq (vh_score_table_n_metrics (ta),
      vh_score_table_n_metrics (tb));
  for (unsigned m = 0; m < vh_score_table_n_metrics (ta); m++) {
    const char *name = vh_score_table_metric_name (ta, m);
    const int mb = vh_score_table_find (tb, name);
    ck_assert_msg (mb >= 0, "no %s", name);
    for (unsigned i = 0; i < n; i++) {
      double va, vb;
      const gboolean ha = vh_score_table_get (ta, m, i, &va);
      ck_assert (ha == vh_score_table_get (tb, mb, i, &vb));
      if (ha) {
        ck_assert_msg (va == vb, "%s frame %u: %.17g against %.17g", name, i,
            va, vb);
        compared++;
      }
    }
  }
  return compared;
}

/* A rendition at half size (4:2:0), scaled by the engine: on the CPU, on
 * the accelerator (which then sees the small picture), and on the CPU
 * again where one feature stays there (float_ssim, which this accelerator
 * declines), all equal to an engine given the same upscale at full size. */
static void
run_scaled (unsigned w, unsigned h, unsigned bpc, VhScaleFilter filter)
{
  GError *error = NULL;
  const VhVideoInfo info = { w, h, bpc };
  const unsigned sw = w / 2, sh = h / 2, n = 5;
  VhEngine *full = vh_engine_new (&info, &error);
  VhEngine *cpu = vh_engine_new (&info, &error);
  VhEngine *acc = vh_engine_new (&info, &error);
  VhEngine *mixed = vh_engine_new (&info, &error);
  CpuAccel *acc_backend = g_new0 (CpuAccel, 1);
  CpuAccel *mixed_backend = g_new0 (CpuAccel, 1);
  g_queue_init (&acc_backend->pending);
  g_queue_init (&mixed_backend->pending);

  /* float_ssim, which this accelerator declines, in every engine but acc
   * (and full_acc, its yardstick): mixed scales on the CPU */
  VhEngine *full_acc = vh_engine_new (&info, &error);
  VhEngine *all[] = { full, cpu, acc, mixed };
  ck_assert (vh_engine_set_accelerator (acc, &cpu_accel_ops, acc_backend,
          &error));
  ck_assert (vh_engine_set_accelerator (mixed, &cpu_accel_ops,
          mixed_backend, &error));
  setup (full_acc);
  for (unsigned k = 0; k < G_N_ELEMENTS (all); k++) {
    setup (all[k]);
    if (all[k] != acc)
      ck_assert (vh_engine_add_feature (all[k], "float_ssim", &error));
  }

  ck_assert (!vh_engine_scales_distorted (full));
  for (unsigned k = 1; k < G_N_ELEMENTS (all); k++)
    ck_assert_msg (vh_engine_set_distorted_scaling (all[k], sw, sh, filter,
            &error), "%s", error ? error->message : "");
  ck_assert (vh_engine_scales_distorted (cpu));
  ck_assert (!vh_engine_scales_on_accelerator (cpu));
  ck_assert (vh_engine_scales_on_accelerator (acc));
  ck_assert (!vh_engine_scales_on_accelerator (mixed));

  const unsigned full_w[3] = { w, (w + 1) / 2, (w + 1) / 2 };
  const unsigned full_h[3] = { h, (h + 1) / 2, (h + 1) / 2 };
  const unsigned small_w[3] = { sw, (sw + 1) / 2, (sw + 1) / 2 };
  const unsigned small_h[3] = { sh, (sh + 1) / 2, (sh + 1) / 2 };
  VhPictureScaler *down = vh_picture_scaler_new (3, full_w, full_h, small_w,
      small_h, bpc, VH_SCALE_BICUBIC, &error);
  VhPictureScaler *up = vh_picture_scaler_new (3, small_w, small_h, full_w,
      full_h, bpc, filter, &error);
  ck_assert (down && up);
  VhSynth *s = vh_synth_new (w, h, bpc, VH_SYNTH_420, 5);
  for (unsigned i = 0; i < n; i++) {
    VhPicture ref, dis;
    vh_synth_render (s, i, 1 + i % 4, &ref, &dis);
    const VhPicture *small = vh_picture_scaler_run (down, &dis, 1);
    const VhPicture *upscaled = vh_picture_scaler_run (up, small, 1);
    ck_assert (vh_engine_push (full, &ref, upscaled, &error));
    ck_assert (vh_engine_push (full_acc, &ref, upscaled, &error));
    for (unsigned k = 1; k < G_N_ELEMENTS (all); k++)
      ck_assert_msg (vh_engine_push (all[k], &ref, small, &error), "%s",
          error ? error->message : "");
    if (i == 0) {
      /* a full-size distorted picture is refused, naming the sizes */
      ck_assert (!vh_engine_push (cpu, &ref, &dis, &error));
      ck_assert_msg (strstr (error->message, "scales"), "%s",
          error->message);
      g_clear_error (&error);
    }
  }
  ck_assert (vh_engine_flush (full, &error));
  ck_assert (vh_engine_flush (full_acc, &error));
  for (unsigned k = 1; k < G_N_ELEMENTS (all); k++)
    ck_assert (vh_engine_flush (all[k], &error));

  ck_assert_uint_eq (acc_backend->scale_calls, 1);
  ck_assert_uint_eq (mixed_backend->scale_calls, 0);
  ck_assert_uint_gt (assert_same_scores (full, cpu, n), n * 20);
  ck_assert_uint_gt (assert_same_scores (full, mixed, n), n * 20);
  ck_assert_uint_gt (assert_same_scores (full_acc, acc, n), n * 20);

  vh_synth_free (s);
  vh_picture_scaler_free (down);
  vh_picture_scaler_free (up);
  vh_engine_free (full_acc);
  for (unsigned k = 0; k < G_N_ELEMENTS (all); k++)
    vh_engine_free (all[k]);
}

START_TEST (test_accel_scaled_8bit)
{
  run_scaled (176, 144, 8, VH_SCALE_BICUBIC);
}
END_TEST

START_TEST (test_accel_scaled_10bit_lanczos)
{
  run_scaled (200, 150, 10, VH_SCALE_LANCZOS);
}
END_TEST

START_TEST (test_scaling_refused)
{
  GError *error = NULL;
  const VhVideoInfo info = { 176, 144, 8 };
  VhEngine *e = vh_engine_new_unsized ();
  ck_assert (vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error));
  /* before the size */
  ck_assert (!vh_engine_set_distorted_scaling (e, 88, 72, VH_SCALE_BICUBIC,
          &error));
  ck_assert_msg (strstr (error->message, "vh_engine_set_video_info"), "%s",
      error->message);
  g_clear_error (&error);
  ck_assert (vh_engine_set_video_info (e, &info, &error));
  /* beyond the scaler's 64x */
  ck_assert (!vh_engine_set_distorted_scaling (e, 2, 2, VH_SCALE_BICUBIC,
          &error));
  ck_assert_msg (strstr (error->message, "2x2 to 176x144"), "%s",
      error->message);
  g_clear_error (&error);
  /* the engine's own size: no scaling */
  ck_assert (vh_engine_set_distorted_scaling (e, 176, 144, VH_SCALE_BICUBIC,
          &error));
  ck_assert (!vh_engine_scales_distorted (e));
  ck_assert (vh_engine_set_distorted_scaling (e, 88, 72, VH_SCALE_BILINEAR,
          &error));
  VhSynth *s = vh_synth_new (176, 144, 8, VH_SYNTH_420, 1);
  VhSynth *small = vh_synth_new (88, 72, 8, VH_SYNTH_420, 1);
  VhSynth *s444 = vh_synth_new (88, 72, 8, VH_SYNTH_444, 1);
  VhPicture ref, dis, sref, sdis;
  vh_synth_render (s, 0, 1, &ref, &dis);
  vh_synth_render (small, 0, 1, &sref, &sdis);
  ck_assert (vh_engine_push (e, &ref, &sdis, &error));
  /* later pictures keep the first one's planes */
  vh_synth_render (s444, 1, 1, &sref, &sdis);
  ck_assert (!vh_engine_push (e, &ref, &sdis, &error));
  ck_assert_msg (strstr (error->message, "chroma plane 1 is 88x72, the first "
          "picture's 44x36"), "%s", error->message);
  g_clear_error (&error);
  /* and after the first frame it cannot change */
  ck_assert (!vh_engine_set_distorted_scaling (e, 44, 36, VH_SCALE_BICUBIC,
          &error));
  ck_assert_msg (strstr (error->message, "before the first frame"), "%s",
      error->message);
  g_clear_error (&error);
  vh_synth_free (s);
  vh_synth_free (small);
  vh_synth_free (s444);
  vh_engine_free (e);
}
END_TEST

static Suite *
accel_suite (void)
{
  Suite *s = suite_create ("accel");
  TCase *tc = tcase_create ("cpu-accelerator");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_accel_8bit);
  tcase_add_test (tc, test_accel_10bit_odd);
  tcase_add_test (tc, test_accel_after_push_refused);
  tcase_add_test (tc, test_config_reaches_accelerator);
  tcase_add_test (tc, test_config_from_environment);
  tcase_add_test (tc, test_accel_scaled_8bit);
  tcase_add_test (tc, test_accel_scaled_10bit_lanczos);
  tcase_add_test (tc, test_scaling_refused);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (accel_suite ());
  srunner_run_all (sr, CK_NORMAL);
  int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
