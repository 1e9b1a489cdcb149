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
#define MAX_HANDLES 8

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
  (void) error;
  a->submits++;
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

static void
accel_free (gpointer backend)
{
  CpuAccel *a = backend;
  accel_reset (a);
  for (unsigned k = 0; k < a->n_handles; k++) {
    vh_vif_work_free (a->handles[k].vif);
    vh_adm_work_free (a->handles[k].adm);
    vh_motion_work_free (a->handles[k].motion);
    g_free (a->handles[k].history[0]);
    g_free (a->handles[k].history[1]);
  }
  g_free (a);
}

static const VhAccelOps cpu_accel_ops = {
  accel_attach, accel_submit, accel_collect, accel_max_in_flight,
  accel_reset, accel_free, NULL,    /* every frame computed */
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
  /* vif ×2, adm ×3, motion ×2, psnr: instances shared by models once */
  ck_assert_uint_eq (backend->n_handles, 8);
  ck_assert_uint_eq (vh_engine_n_accelerated (acc), 8);
  ck_assert_uint_eq (vh_engine_n_accelerable (acc), 8);
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

static Suite *
accel_suite (void)
{
  Suite *s = suite_create ("accel");
  TCase *tc = tcase_create ("cpu-accelerator");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, test_accel_8bit);
  tcase_add_test (tc, test_accel_10bit_odd);
  tcase_add_test (tc, test_accel_after_push_refused);
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
