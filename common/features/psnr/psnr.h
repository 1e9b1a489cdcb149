/* vmafhip — integer PSNR per plane (libvmaf 3.2.0 `psnr`). */
#ifndef VH_PSNR_H
#define VH_PSNR_H

#include <stdint.h>
#include "vh-picture.h"

/* What the accelerated path hands the extractor for one frame. */
typedef struct VhPsnrSums {
  uint64_t sse[3];          /* per plane: Y, Cb, Cr */
  unsigned width[3], height[3];
  unsigned nplanes;
} VhPsnrSums;

/* Sum of squared errors of one plane pair. Both planes must have the same
 * width and height; each may be planar (step 1) or interleaved (step 2).
 * bpc 8 reads bytes, 10 and 12 read 16-bit words (2-byte aligned). Returns
 * 0 after a g_critical on invalid arguments. */
uint64_t vh_psnr_sse (const VhPlane *ref, const VhPlane *dis, unsigned bpc);

/* libvmaf's PSNR in dB from the SSE, capped at the bit depth's maximum:
 * vh_psnr_db (sse / n, 2^bpc − 1, 6·bpc + 12), libvmaf's defaults. */
double vh_psnr_from_sse (uint64_t sse, uint64_t n_samples, unsigned bpc);

/* The general form: min (10·log10 (peak² / max (mse, 1e-16)), psnr_max),
 * peak² computed in uint32 as libvmaf does. */
double vh_psnr_db (double mse, uint32_t peak, double psnr_max);

/* libvmaf's aggregate PSNR (enable_apsnr) of `sse` summed over
 * `n_samples` samples: 10·(log10 (peak²) + log10 (n) − log10 (sse)),
 * capped at ceil (10·log10 (peak²·n·2)); +inf-free (sse 0 gives the cap),
 * −inf for n = 0. */
double vh_apsnr_db (uint64_t sse, uint64_t n_samples, uint32_t peak);

#endif /* VH_PSNR_H */
