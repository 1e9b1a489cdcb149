/* vmafhip — VIF's per-pixel statistic over a run of pixels (libvmaf's
 * log / non-log branches), plain C and x86-64 AVX2 and AVX-512.
 *
 * The accumulators are integers, so the order in which pixels are added
 * does not matter: the vector version gives the same sums as the scalar
 * one, pixel for pixel (test-vif-pixels compares them on every branch).
 */
#ifndef VH_VIF_PIXELS_H
#define VH_VIF_PIXELS_H

#include <stdint.h>

#include "vif.h"
#include "vif-params.h"   /* VH_VIF_SIGMA_NSQ and the rest */

typedef void (*VhVifPixelsFunc) (const int32_t *sigma1_sq,
    const int32_t *sigma2_sq, const int32_t *sigma12, unsigned n,
    double enhn_gain_limit, const uint16_t *log2, VhVifScaleSums *acc);

/* libvmaf's order of operations, one pixel after the other. */
void vh_vif_pixels_scalar (const int32_t *sigma1_sq,
    const int32_t *sigma2_sq, const int32_t *sigma12, unsigned n,
    double enhn_gain_limit, const uint16_t *log2, VhVifScaleSums *acc);

/* The AVX-512 version (F, CD, DQ, VL, BW), or NULL where the CPU or the
 * build lacks it. */
VhVifPixelsFunc vh_vif_pixels_avx512 (void);
/* The AVX2 version, four pixels at a time, or NULL. */
VhVifPixelsFunc vh_vif_pixels_avx2 (void);

/* What VIF uses: AVX-512, else AVX2, else the plain C; a SIMD cap of
 * none (vh_cpu_set_simd_cap) takes the plain C, AVX2 AVX2 where both run. */
VhVifPixelsFunc vh_vif_pixels_best (void);

#endif /* VH_VIF_PIXELS_H */
