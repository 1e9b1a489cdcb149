/* vmafhip — integer ADM (libvmaf 3.2.0 `adm`, bit-exact).
 *
 * ADM is the detail-loss metric (DLM) of Li et al. 2011 on a four-level db2
 * wavelet pyramid, plus the additive-impairment measure (AIM) and their
 * blend adm3. As for VIF, the integer core is exposed apart from the
 * extractor so that the GPU path can be compared with it accumulator for
 * accumulator: everything per pixel ends in the int64 sums of VhAdmSums,
 * everything after them is the scalar float/double tail of
 * vh_adm_sums_to_scores().
 */
#ifndef VH_ADM_H
#define VH_ADM_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "vh-picture.h"

G_BEGIN_DECLS

#define VH_ADM_SCALES 4
#define VH_ADM_BANDS 3      /* orientations, always in the order h, v, d */
enum { VH_ADM_ORIENT_H, VH_ADM_ORIENT_V, VH_ADM_ORIENT_D };

/* Smallest picture side: the DWT of the fourth level needs an input of at
 * least 5 samples (libvmaf reads outside its buffers below that). */
#define VH_ADM_MIN_SIZE 33

typedef enum {
  VH_ADM_CSF_WATSON97 = 0,    /* Watson et al. 1997 quantisation noise model */
  VH_ADM_CSF_BARTEN = 1,      /* Barten's CSF as in HDR-VDP-2 */
  VH_ADM_CSF_BLEND = 2,       /* Barten–Watson blend tables (vmaf v1.0.16) */
  VH_ADM_CSF_BLEND_MAE = 3,   /* the same, tables with the v1.0.17 fix */
} VhAdmCsfMode;

/* Which of libvmaf's code paths to reproduce. They differ at a few edges
 * (adm.c, "AVX-512 flavour"); the golden scores come from the AVX-512 one,
 * which is what an x86 CPU with AVX-512 runs. */
typedef enum {
  VH_ADM_LIBVMAF_AVX512 = 0,  /* default: libvmaf's x86 AVX-512 functions */
  VH_ADM_LIBVMAF_C = 1,       /* libvmaf's portable C functions */
} VhAdmReference;

/* The extractor's options, with libvmaf's meaning and defaults. */
typedef struct VhAdmOptions {
  bool debug;                  /* also emit num/den per scale */
  double csf_scale;            /* adm_csf_scale (scf), Barten only */
  double csf_diag_scale;       /* adm_csf_diag_scale (scfd), Barten only */
  double dlm_weight;           /* adm_dlm_weight (dlmw) */
  double enhn_gain_limit;      /* adm_enhn_gain_limit (egl) */
  double norm_view_dist;       /* adm_norm_view_dist (nvd) */
  int ref_display_height;      /* adm_ref_display_height (rdh) */
  int csf_mode;                /* adm_csf_mode (csf), a VhAdmCsfMode */
  double noise_weight;         /* adm_noise_weight (nw) */
  bool skip_aim;               /* adm_skip_aim */
  bool skip_scale0;            /* adm_skip_scale0 (ssz) */
  double min_val;              /* adm_min_val (min) */
} VhAdmOptions;

void vh_adm_options_default (VhAdmOptions *opts);

/* What the pipeline derives from the options, once. */
typedef struct VhAdmParams {
  double enhn_gain_limit;
  double noise_weight;
  double dlm_weight;
  double min_val;
  bool skip_aim;
  bool skip_scale0;
  /* CSF weight per scale and band, as the float libvmaf computes. */
  float rfactor[VH_ADM_SCALES][VH_ADM_BANDS];
  /* Its fixed-point forms: scale 0 in Q21 (h, v) and Q23 (d) ... */
  uint16_t rfactor_s0[VH_ADM_BANDS];
  /* ... scales 1-3 in Q32 (row 0 unused). */
  uint32_t rfactor_q32[VH_ADM_SCALES][VH_ADM_BANDS];
  /* VH_ADM_LIBVMAF_AVX512 unless changed after vh_adm_params_init (). */
  VhAdmReference reference;
} VhAdmParams;

/* Checks the options as libvmaf would (plus what libvmaf leaves undefined)
 * and derives the CSF weights. Fails for nvd·rdh < 3·1080, for a blend CSF
 * mode with an (rdh, nvd) pair libvmaf has no table for, and for weights
 * that do not fit the fixed-point pipeline. */
gboolean vh_adm_params_init (VhAdmParams *params, const VhAdmOptions *opts,
    GError **error);

/* CSF weight of one band of one scale (float, as libvmaf). False, with NaN,
 * for a blend mode and an (rdh, nvd) pair without a table. */
bool vh_adm_csf_weight (int csf_mode, int scale, int band,
    double norm_view_dist, int ref_display_height, double csf_scale,
    double csf_diag_scale, float *weight);

/* ⌊2^30 / i⌋ for i in [0, 32768] (entry 0 is 0): the reciprocal table of the
 * decouple step, shared with the GPU. */
const int32_t *vh_adm_div_table (void);

/* The integer accumulators of one scale, per band (h, v, d). Each is a sum
 * over the rows of the score region of libvmaf's rounded row sums (scale 0
 * stays zero with skip_scale0, aim with skip_aim). */
typedef struct VhAdmScaleSums {
  int64_t dlm[VH_ADM_BANDS];   /* CM of the restored signal, masked by the impairment */
  int64_t aim[VH_ADM_BANDS];   /* CM of the impairment, masked by the restored signal */
  uint64_t den[VH_ADM_BANDS];  /* CSF denominator: Σ |ref|³ */
} VhAdmScaleSums;

typedef struct VhAdmSums {
  VhAdmScaleSums scale[VH_ADM_SCALES];
} VhAdmSums;

/* libvmaf's float and double results. */
typedef struct VhAdmScores {
  float num[VH_ADM_SCALES];        /* DLM numerator per scale */
  float den[VH_ADM_SCALES];        /* DLM denominator per scale */
  float aim_num[VH_ADM_SCALES];    /* AIM numerator per scale */
  double num_total, den_total, aim_total;
  double adm2, aim, adm3;
  double scale[VH_ADM_SCALES];     /* num / den per scale */
} VhAdmScores;

typedef struct VhAdmWork VhAdmWork;

/* The geometry of one scale: the one source for the CPU code and the GPU
 * host (common/gpu/features/adm-gpu.c), so the two cannot drift apart. */
typedef struct VhAdmPlan {
  int scale;
  int w, h;                 /* band size */
  int sl, sr, st, sb;       /* score region [sl, sr) x [st, sb) */
  int nl, nr, nt, nb;       /* what the 3x3 CM window reads: score +- 1 */

  /* CM: x' = max(|x| - (thr << sub), 0), then x'^3 in two rounded steps. */
  int cm_sub[VH_ADM_BANDS];
  int cm_sq_shift[VH_ADM_BANDS];
  int cm_cube_shift[VH_ADM_BANDS];
  int cm_row_shift;         /* row sums are rounded by this before adding */

  /* Denominator: sum |o|^3 (scale 0) or sum (((o^2 + 2^sq) >> sq)|o|). */
  int den_sq_shift;
  int den_cube_shift;
  int den_row_shift;

  /* AVX-512 flavour (adm.c, "AVX-512 flavour"); all empty for C. */
  bool dwt_tail;            /* last DWT column read past the row */
  int vec_l, vec_r;         /* decouple/CSF columns of the 16-wide loops */
  int cm_vec_r;             /* scale-0 CM columns [sl, cm_vec_r) of the 14-wide loop */
} VhAdmPlan;

/* Band sizes of the four scales of a width x height picture. */
void vh_adm_band_sizes (unsigned width, unsigned height,
    int bw[VH_ADM_SCALES], int bh[VH_ADM_SCALES]);
/* Scale `scale` of bands w x h; `avx512`: libvmaf's AVX-512 columns. */
void vh_adm_plan (VhAdmPlan *plan, int scale, int w, int h, bool avx512,
    unsigned bpc);

/* Scratch for one picture size; NULL below VH_ADM_MIN_SIZE or above 65536. */
VhAdmWork *vh_adm_work_new (unsigned width, unsigned height);
void vh_adm_work_free (VhAdmWork *work);
/* Lets each scale run in row bands on up to max_threads threads (1: the
 * calling thread only, the default; at most 16), through vh_parallel_for
 * (helpers join where they are free, as many as budget has left; NULL:
 * no budget).  Allocates each band's row
 * scratch; FALSE if memory runs out (the work stays on fewer threads).
 * The sums are the same integers however the rows are split. */
gboolean vh_adm_work_set_threads (VhAdmWork *work, unsigned max_threads,
    gint *budget);

/* Integer part of ADM for one luma pair. Unchecked preconditions (the
 * extractor checks them): bpc 8, 10 or 12, planes of the size given to
 * vh_adm_work_new () with step 1. Not thread-safe per work; no allocation. */
void vh_adm_compute_sums (VhAdmWork *work, const VhPlane *ref,
    const VhPlane *dis, unsigned bpc, const VhAdmParams *params,
    VhAdmSums *sums);

/* libvmaf's per-scale and pooled scores from the accumulators. */
void vh_adm_sums_to_scores (const VhAdmSums *sums, unsigned width,
    unsigned height, const VhAdmParams *params, VhAdmScores *scores);

G_END_DECLS
#endif /* VH_ADM_H */
