/* vmafhip — integer VIF (libvmaf 3.2.0 `vif`, bit-exact).
 *
 * The integer core is exposed apart from the extractor so that the GPU path
 * can be compared with it accumulator for accumulator.
 */
#ifndef VH_VIF_H
#define VH_VIF_H

#include <stdbool.h>
#include <stdint.h>
#include "vh-picture.h"

#define VH_VIF_SCALES 4
/* Scale 3 is w/8 x h/8 and its 3-tap filter needs 2 samples: below this
 * libvmaf mirrors into rows it never wrote (the CPU and GPU limit). */
#define VH_VIF_MIN_SIZE 16
/* The largest: keeps every index and size comfortably within int. */
#define VH_VIF_MAX_SIZE (1u << 20)

/* The four int64 accumulators libvmaf keeps per scale. */
typedef struct VhVifScaleSums {
  int64_t num_log;      /* Σ (L64(g²σ₁²+n1) − L64(n1)) over log-branch pixels */
  int64_t den_log;      /* Σ (L32(σ_nsq+σ₁²) − 17·2048) */
  int64_t num_non_log;  /* Σ σ₂² over non-log pixels */
  int64_t den_non_log;  /* count of non-log pixels */
} VhVifScaleSums;

typedef struct VhVifSums {
  VhVifScaleSums scale[VH_VIF_SCALES];
} VhVifSums;

/* The extractor's options (libvmaf's names: vif_enhn_gain_limit,
 * vif_skip_scale0, debug); an accelerator reads them to compute the same
 * sums (debug acts on the host only, on the sums). */
typedef struct VhVifOptions {
  double enhn_gain_limit;
  bool skip_scale0;
  bool debug;                  /* also emit num/den per scale and in all */
} VhVifOptions;

typedef struct VhVifWork VhVifWork;

/* Scratch for one picture size; NULL if the size is unsupported (below
 * 16x16, above 2^20 either way) or memory runs out. */
VhVifWork *vh_vif_work_new (unsigned width, unsigned height);
void vh_vif_work_free (VhVifWork *work);

/* Lets one picture's passes run in row bands on up to max_threads threads
 * (1: all in the calling thread, the default; at most 16), through
 * vh_parallel_for: helpers join only where they are free and, with a
 * budget (int *; NULL: none), only as many as it has left, so a picture
 * goes faster where CPUs are idle (one stream, few frames in flight) and
 * costs little more where they are not.  Allocates each band's scratch;
 * false if memory runs out (the work is left as it was).  The sums are
 * the same integers however the rows are split. */
bool vh_vif_work_set_threads (VhVifWork *work, unsigned max_threads,
    int *budget);

/* Integer part of VIF for one luma pair (bpc 8..12; 9..16 also match
 * libvmaf). Planes as set up in the work, step 1, any stride sign. */
void vh_vif_compute_sums (VhVifWork *work, const VhPlane *ref,
    const VhPlane *dis, unsigned bpc, double enhn_gain_limit, VhVifSums *sums);

/* The same, computing the statistics of scales first_scale.. only (the
 * sums of the scales below are zero): libvmaf's vif_skip_scale0 is
 * first_scale = 1. */
void vh_vif_compute_sums_from (VhVifWork *work, const VhPlane *ref,
    const VhPlane *dis, unsigned bpc, double enhn_gain_limit,
    unsigned first_scale, VhVifSums *sums);

/* libvmaf's per-scale num, den and score from the accumulators (output
 * arrays may be NULL; a skipped scale, den 0, scores 0). */
void vh_vif_sums_to_scores (const VhVifSums *sums, double num[VH_VIF_SCALES],
    double den[VH_VIF_SCALES], double score[VH_VIF_SCALES]);

/* The Q11 log2 table, T[i] for i in [32767, 65535] (shared with the GPU).
 * 65536 entries; those below 32767 are 0. In common/features/vif/vif-tables.c. */
const uint16_t *vh_vif_log2_table (void);

#endif /* VH_VIF_H */
