/* vmafhip — CAMBI (libvmaf 3.2.0's `cambi`): what the CPU extractor
 * (cambi.c) and the GPU kernels (kernels/cambi.hip through
 * common/gpu/features/cambi-gpu.c) share.
 *
 * vh_cambi_plan () checks the options against the picture and derives
 * everything the algorithm needs (window, threshold-versus-intensity
 * limits, the histograms' value band); the GPU's per-frame result is
 * VhCambiSums, which the extractor's extract_sums turns into the score. */
#ifndef VH_CAMBI_H
#define VH_CAMBI_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

#include "vh-feature.h"
#include "cambi-params.h"   /* VH_CAMBI_MASK_FILTER */

G_BEGIN_DECLS

#define VH_CAMBI_SCALES 5
#define VH_CAMBI_MAX_DIFFS 32
/* libvmaf's reciprocal table: 1/i for i < 4226 (windows up to 65x65) */
#define VH_CAMBI_RECIPROCAL_SIZE 4226

enum { VH_CAMBI_EOTF_BT1886, VH_CAMBI_EOTF_PQ };

typedef struct {
  double cambi_max_val;
  int enc_width, enc_height, enc_bitdepth;
  int src_width, src_height;
  int window_size;
  double topk, cambi_topk;
  double tvi_threshold;
  double cambi_vis_lum_threshold;
  int max_log_contrast;
  bool full_ref;
  int eotf, cambi_eotf;
  int cambi_high_res_speedup;
  char heatmaps_path[VH_OPT_STRING_SIZE];
} VhCambiOptions;

/* Everything derived from the options and the picture. */
typedef struct {
  unsigned bpc;                 /* input */
  unsigned width, height;       /* input picture */
  unsigned enc_w, enc_h, src_w, src_h, enc_bitdepth;
  unsigned window, src_window;  /* adjusted window sizes (odd) */
  bool speedup;                 /* halve before the first scale */
  bool full_ref;
  bool heatmaps;                /* heatmaps_path given */
  double topk, max_val;
  int num_diffs;
  uint16_t tvi[VH_CAMBI_MAX_DIFFS]; /* per step: highest value (+num_diffs) */
  uint16_t vlt_luma;
  uint16_t band_base, band_size; /* the values the histograms keep */
} VhCambiPlan;

/* The GPU's result for one picture: per scale, the sum of the top-k
 * contrast values as an exact fixed-point number (units of 2^-24: every
 * non-zero contrast value is a float of at least 0.5), and the number of
 * luma samples above the bit depth (libvmaf refuses them). */
typedef struct {
  uint64_t topk_sum[VH_CAMBI_SCALES];
  uint32_t bad_samples;
  uint32_t pad;
} VhCambiPass;

/* A frame's: the distorted picture's, and with full_ref the reference's */
typedef struct {
  VhCambiPass dis, src;
} VhCambiSums;

extern const VhOptionDesc vh_cambi_options[];
const char *const *vh_cambi_enum_names (const char *option);

gboolean vh_cambi_plan (const VhCambiOptions *o, const VhVideoInfo *info,
    VhCambiPlan *plan, GError **error);
/* libvmaf's table (entry 0 is 0), built on first use */
const float *vh_cambi_reciprocal (void);
/* suprathreshold contrast response of luma step d + 1 */
int vh_cambi_contrast_weight (int d);
/* the 7x7 count a pixel's mask needs to exceed, for a w x h picture */
uint32_t vh_cambi_mask_index (unsigned w, unsigned h);
/* Each scale's size for a w x h picture: halved, (n + 1) / 2, before every
 * scale but the first, and before the first too with the high-resolution
 * speed-up. */
void vh_cambi_scale_sizes (unsigned w, unsigned h, bool speedup,
    unsigned sw[VH_CAMBI_SCALES], unsigned sh[VH_CAMBI_SCALES]);
/* the k of the top-k pooling of n contrast values */
int vh_cambi_topk_count (double topk, int n);
/* The score from each scale's pooled value (the top-k mean), not yet
 * clipped to cambi_max_val. */
double vh_cambi_combine (const double per_scale[VH_CAMBI_SCALES],
    unsigned window);

G_END_DECLS
#endif
