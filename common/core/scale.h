/* vmafhip — resampling one plane to another size (issue 15: renditions of
 * an ABR ladder scaled to the reference's size before scoring).
 *
 * A separable scaler with FFmpeg libswscale's definitions and defaults, so
 * that its output tracks `ffmpeg -vf scale=W:H:flags=bilinear|bicubic|
 * lanczos` (close, not bit-exact: docs/scaling.md gives the measured
 * difference):
 *
 *   bilinear  triangle, 1 − |d| for |d| < 1
 *   bicubic   Mitchell–Netravali cubic with swscale's B = 0, C = 0.6
 *   lanczos   sinc (d) · sinc (d / 3) for |d| < 3 (swscale's 3 lobes)
 *
 * d is the distance in source samples; when downscaling the kernel is
 * stretched by src / dst (it low-passes). Sample centres are aligned as in
 * swscale: output i sits at source position (i + ½) · step − ½ with
 * step = src / dst rounded to 16.16 fixed point; its window of taps starts
 * where swscale's does. Samples past an edge repeat the edge sample.
 * Coefficients are 14-bit integers (each output's taps sum to exactly
 * 1 << 14), computed once per scaler without libm's sin, so the output is
 * the same on every CPU. A horizontal pass (its overshoot capped just
 * below 2^bpc, as swscale's) then a vertical pass, both rounding to
 * nearest, the result clipped to [0, 2^bpc − 1].
 */
#ifndef VH_SCALE_H
#define VH_SCALE_H

#include <stdint.h>

#include <glib.h>

#include "vh-picture.h"

G_BEGIN_DECLS

typedef enum {
  VH_SCALE_BILINEAR,
  VH_SCALE_BICUBIC,           /* the default, as swscale's */
  VH_SCALE_LANCZOS,
} VhScaleFilter;

#define VH_SCALE_DEFAULT VH_SCALE_BICUBIC

/* Coefficients are fixed point with this many fraction bits. */
#define VH_SCALE_COEF_BITS 14
/* Largest width or height, and largest ratio between source and
 * destination in either direction (a 64x downscale is a 385-tap lanczos). */
#define VH_SCALE_MAX_SIZE 32768u
#define VH_SCALE_MAX_RATIO 64u

typedef struct VhScaler VhScaler;

/* A scaler from src_w x src_h to dst_w x dst_h samples of bpc bits (8..16;
 * 8 is one byte a sample, 9..16 one uint16). NULL with a VH_ERROR on a zero
 * or too large size, a depth out of range, a ratio beyond
 * VH_SCALE_MAX_RATIO or an unknown filter. Immutable once made. */
VhScaler *vh_scaler_new (unsigned src_w, unsigned src_h, unsigned dst_w,
    unsigned dst_h, unsigned bpc, VhScaleFilter filter, GError **error);
void vh_scaler_free (VhScaler *s);

/* Scales src (src_w x src_h, any stride, any step) into dst (dst_w x
 * dst_h, step 1; its data is written). Several threads may run one scaler
 * at once: the scratch rows are the call's own. */
void vh_scaler_run (const VhScaler *s, const VhPlane *src, const VhPlane *dst);
/* The same for output rows [y0, y1) only (the rest of dst untouched): each
 * output row reads only source rows, so rows split between threads give
 * the same samples as one whole run. */
void vh_scaler_run_rows (const VhScaler *s, const VhPlane *src,
    const VhPlane *dst, unsigned y0, unsigned y1);

/* The coefficients of one direction, to show or test them: dst_size rows
 * of *n_taps int16 each (summing to 1 << VH_SCALE_COEF_BITS); row i weighs
 * source samples first[i] .. first[i] + *n_taps − 1 (all inside the
 * source: the edge repetition is folded into the coefficients). first and
 * the table belong to the scaler. */
const int16_t *vh_scaler_taps (const VhScaler *s, gboolean horizontal,
    unsigned *n_taps, const unsigned **first);

/* The sizes and the passes' fixed point, exactly as vh_scaler_run uses
 * them, for other implementations of the same integer arithmetic (the
 * GPU's: common/gpu/features/scale-gpu.c). With c the 14-bit coefficients:
 *   horizontal  t = MIN ((Σ s·c + ((1 << h_shift) >> 1)) >> h_shift, top)
 *               in int32 (arithmetic shift: t may be negative);
 *   vertical    out = CLAMP ((Σ t·c + (1 << (v_shift − 1))) >> v_shift,
 *               0, max), summed in int64 when wide, else in int32. */
typedef struct VhScalerInfo {
  unsigned src_w, src_h, dst_w, dst_h, bpc;
  VhScaleFilter filter;
  unsigned frac_bits;         /* fraction bits of t */
  unsigned h_shift, v_shift;
  int32_t top;                /* the cap on t, just below 2^bpc */
  int32_t max;                /* the largest sample, 2^bpc − 1 */
  gboolean wide;              /* vertical sums in int64 (above 12 bits) */
} VhScalerInfo;

void vh_scaler_get_info (const VhScaler *s, VhScalerInfo *info);

/* A picture's planes scaled to other sizes (a rendition brought to the
 * reference's size): one scaler per plane and the output picture, step 1
 * planes of the given sizes, owned.  nplanes 1 (luma) or 3. */
typedef struct VhPictureScaler VhPictureScaler;

VhPictureScaler *vh_picture_scaler_new (unsigned nplanes,
    const unsigned src_w[], const unsigned src_h[], const unsigned dst_w[],
    const unsigned dst_h[], unsigned bpc, VhScaleFilter filter,
    GError **error);
void vh_picture_scaler_free (VhPictureScaler *ps);
/* Scales src's planes (as many as it has, up to the scaler's) into the
 * owned picture and returns it (valid until the next run or the free).
 * The luma goes in bands of rows and each chroma plane whole, on up to
 * max_threads threads (vh_parallel_for; 1: the caller only). */
const VhPicture *vh_picture_scaler_run (VhPictureScaler *ps,
    const VhPicture *src, unsigned max_threads);

/* "bilinear", "bicubic", "lanczos" (swscale's flag names). */
const char *vh_scale_filter_name (VhScaleFilter filter);
/* The filter with that name (ASCII case ignored); FALSE if none. */
gboolean vh_scale_filter_from_string (const char *name, VhScaleFilter *filter);

G_END_DECLS
#endif /* VH_SCALE_H */
