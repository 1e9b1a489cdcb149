/* vmafhip — SpEED-chroma (libvmaf 3.2.0's `speed_chroma`): what the CPU
 * extractor (speed-chroma.c) and the GPU kernels (kernels/speed.hip through
 * common/gpu/features/speed-gpu.c) share.
 *
 * The GPU computes, for the four chroma pictures (reference U, distorted U,
 * reference V, distorted V), the 1/16 picture with its local mean taken off
 * and the 25x25 covariance of its 5x5 neighbourhoods: the part that reads
 * every chroma sample, in the CPU's float and double operations.  The
 * extractor's extract_sums takes them (VhSpeedSums) and does the rest as
 * its extract does: eigenvalues, the QR solve, entropies, the score. */
#ifndef VH_SPEED_CHROMA_H
#define VH_SPEED_CHROMA_H

#include <stddef.h>

#include "vh-feature.h"
#include "speed-linalg.h"
#include "speed-params.h"

G_BEGIN_DECLS

enum { VH_SPEED_PRESCALE_NEAREST, VH_SPEED_PRESCALE_BILINEAR,
  VH_SPEED_PRESCALE_BICUBIC, VH_SPEED_PRESCALE_LANCZOS4 };

typedef struct {
  double kernelscale;
  double prescale;
  int prescale_method;              /* VH_SPEED_PRESCALE_* */
  double sigma_nn;
  double nn_floor;
  double max_val;
  int weight_var_mode;
} VhSpeedChromaOptions;

/* the decimation: by 2^4 */
#define VH_SPEED_NUM_SCALES 4

typedef struct {
  unsigned w, h;                    /* chroma plane (libvmaf's w/2 for 4:2:x) */
  unsigned sw, sh;                  /* after the prescale */
  unsigned ow, oh;                  /* 1/16 picture */
  unsigned tw, th;                  /* truncated to whole blocks */
  unsigned nbh, nbv, nblocks;       /* blocks across, down, in all */
  unsigned subw, subh;              /* covariance window */
} VhSpeedDims;

/* The anti-alias and local-mean filters of a kernel scale, as libvmaf
 * builds them (taps in float); widths at most VH_SPEED_MAX_TAPS. */
typedef struct {
  int fa_width, f4_width;
  float fa[VH_SPEED_MAX_TAPS], f4[VH_SPEED_MAX_TAPS];
} VhSpeedFilters;

void vh_speed_dims (VhSpeedDims *d, unsigned w, unsigned h, double prescale);
/* libvmaf's chroma size: the luma size, halved (rounding down) where the
 * chroma plane is subsampled */
void vh_speed_chroma_size (unsigned luma_w, unsigned luma_h,
    unsigned chroma_w, unsigned chroma_h, unsigned *w, unsigned *h);
/* FALSE with an error for a kernel scale libvmaf does not have */
gboolean vh_speed_filters (double kernelscale, VhSpeedFilters *f,
    GError **error);
/* The GPU takes every option but a prescale (FALSE, with the reason) */
gboolean vh_speed_gpu_supported (const VhSpeedChromaOptions *o,
    const char **why);

/* ---- what the GPU gives extract_sums --------------------------------------
 * A header, then for each picture k (0 reference U, 1 distorted U,
 * 2 reference V, 3 distorted V) its covariance (NB x NB floats, row-major),
 * then each picture's centred 1/16 picture cut to whole blocks (th rows of
 * tw floats). */
typedef struct {
  uint32_t w, h;                    /* chroma size (libvmaf's) */
  uint32_t tw, th;
} VhSpeedSums;

static inline size_t
vh_speed_sums_size (unsigned tw, unsigned th)
{
  return sizeof (VhSpeedSums) + VH_SPEED_PICTURES * sizeof (float)
      * ((size_t) VH_SPEED_NB * VH_SPEED_NB + (size_t) tw * th);
}

static inline const float *
vh_speed_sums_cov (const VhSpeedSums *s, unsigned k)
{
  return (const float *) (s + 1) + (size_t) k * VH_SPEED_NB * VH_SPEED_NB;
}

static inline const float *
vh_speed_sums_centred (const VhSpeedSums *s, unsigned k)
{
  return (const float *) (s + 1) + (size_t) VH_SPEED_PICTURES * VH_SPEED_NB
      * VH_SPEED_NB + (size_t) k * s->tw * s->th;
}

/* The GPU's part computed on the CPU (tests, benchmarks): the sums of a
 * picture pair as the kernels leave them (`sums`: vh_speed_sums_size of
 * the chroma's tw x th), on the state of an instance of vh_fex_speed_chroma
 * (init'ed; it is set up for pictures here) */
gboolean vh_speed_chroma_cpu_sums (void *priv, const VhPicture *ref,
    const VhPicture *dis, VhSpeedSums *sums, GError **error);

G_END_DECLS

#endif
