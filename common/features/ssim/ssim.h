/* vmafhip — float SSIM as libvmaf 3.2.0 computes it (IQA), shared by
 * float_ssim and float_ms_ssim. */
#ifndef VH_SSIM_H
#define VH_SSIM_H

#include <stdbool.h>
#include <glib.h>

#include "vh-picture.h"
#include "ssim-params.h"   /* VH_SSIM_WINDOW and the rest */

G_BEGIN_DECLS

/* float_ssim's options (libvmaf's) */
typedef struct {
  bool enable_lcs, enable_db, clip_db;
  int scale;                    /* 0: automatic */
} VhSsimOptions;

/* What the GPU hands float_ssim: the sums over the SSIM map of l*c*s, l,
 * c and s (the means are taken on the host, as the CPU does). */
typedef struct {
  double sum[4];
} VhSsimSums;

/* What the GPU hands float_ms_ssim: per scale, the sums over its SSIM map
 * of l, c and s. */
typedef struct {
  double sum[5][3];
} VhMsSsimSums;

/* Float pictures and the intermediate maps, w x h each. */
typedef struct {
  float *ref, *cmp;
  float *mu_ref, *mu_cmp, *sq_ref, *sq_cmp, *both, *cache;
} VhSsimBuffers;

typedef struct {
  float ssim, l, c, s;          /* means over the map */
} VhSsimResult;

gboolean vh_ssim_buffers_init (VhSsimBuffers *b, unsigned w, unsigned h);
void vh_ssim_buffers_clear (VhSsimBuffers *b);
/* Luma as libvmaf's floats: 8-bit as is, 10/12/16-bit scaled to 8 bits. */
void vh_ssim_load_plane (const VhPlane *p, unsigned bpc, float *dst);
/* Wang's automatic down-sampling factor: round(min(w, h) / 256), >= 1. */
int vh_ssim_auto_scale (unsigned w, unsigned h);
/* IQA's _iqa_decimate: every factor-th pixel of src filtered with a
 * klen x klen kernel (mirrored edges) into dst, (w / factor + (w & 1)) x
 * (h / factor + (h & 1)); dst may be src for a kernel no wider than factor. */
void vh_iqa_decimate (const float *src, float *dst, int w, int h, int factor,
    const float *kernel, int klen, int *out_w, int *out_h);
/* Box-filter down-sampling by factor (<= 10), in place. */
void vh_ssim_decimate (float *img, int w, int h, int factor, int *out_w,
    int *out_h);
/* SSIM of ref against cmp (w x h); b's maps (at least w x h) are used. */
void vh_ssim_compute (VhSsimBuffers *b, const float *ref, const float *cmp,
    int w, int h, VhSsimResult *res);
/* libvmaf's dB form: -10 log10 (1 - score), clipped at max_db. */
double vh_ssim_max_db (bool clip, unsigned bpc, unsigned w, unsigned h);
double vh_ssim_to_db (double score, double max_db);

G_END_DECLS
#endif
