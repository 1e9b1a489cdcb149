/* vmafhip — VIF's filter passes in x86-64 AVX2 and AVX-512: the Gaussian of a
 * run of columns over 16-bit samples, and the whole 8-bit vertical pass of
 * scale 0 (μ and the three square sums of both pictures at once).
 *
 * vif.c keeps the plain C (the reference, and what other CPUs run); these
 * give the same integers.  Both are 16x16 -> 32-bit multiply-adds of a
 * pair of taps (vpmaddwd), which multiplies signed 16-bit values: samples
 * up to 65535 are biased by -32768 and the bias added back once, as
 * 32768 Σ f; every sum is taken modulo 2^32, and the true sums fit 32 bits,
 * so the results are exact.  Taps must be below 2^15 (VIF's scales 0-2;
 * scale 3 has a tap of 43728 and stays in C).  Results come in column
 * order.  test-vif-filters compares them with the plain C. */
#ifndef VH_VIF_FILTERS_H
#define VH_VIF_FILTERS_H

#include <stdint.h>

/* out[j] = Σ_k taps[k] · x[k][j] for j < n; n a multiple of 32, x[k][j]
 * readable up to n, ntaps ≤ 17. */
typedef void (*VhVifFilter16Func) (uint32_t *out, const uint16_t *const *x,
    const uint16_t *taps, unsigned ntaps, unsigned n);

/* The same over one row whose samples are stored biased, x[i] ^ 0x8000,
 * as the vertical passes below write them: out[j] = Σ_k taps[k] ·
 * (x[j + k] ^ 0x8000), x readable up to n + ntaps + 1. */
typedef void (*VhVifHFilter16Func) (uint32_t *out, const uint16_t *x,
    const uint16_t *taps, unsigned ntaps, unsigned n);

/* Scale 0 of 8-bit pictures over a run of n columns (a multiple of 32):
 * rows r[k], d[k] (k < ntaps ≤ 17); out[0], out[1]: μ of r and d,
 * (Σ f·p + 128) >> 8; out[2..7]: Σ f·r², Σ f·d², Σ f·r·d as 32-bit sums
 * split into 16-bit halves (hi, lo).  Every value is stored biased
 * (^ 0x8000) for the one-row filter. */
typedef void (*VhVifVertical8Func) (uint16_t *const out[8],
    const uint8_t *const *r, const uint8_t *const *d, const uint16_t *taps,
    unsigned ntaps, unsigned n);

/* The vertical pass of 16-bit samples (scale 0 above 8 bits, scales 1
 * and 2): out[0], out[1]: (Σ f·p + 2^(m−1)) >> m with m = mu_shift;
 * out[2..7]: Σ f·r², Σ f·d², Σ f·r·d of the 32-bit products, their high
 * and low 16 bits summed apart and recombined as (hi << (16 − s)) +
 * ((lo + 2^(s−1)) >> s), s = sq_shift (1..16), split into halves.  Stored
 * biased (^ 0x8000), as the 8-bit pass. */
typedef void (*VhVifVertical16Func) (uint16_t *const out[8],
    const uint16_t *const *r, const uint16_t *const *d, const uint16_t *taps,
    unsigned ntaps, unsigned mu_shift, unsigned sq_shift, unsigned n);

/* The vertical half of a subsample of 8-bit rows: out[j] =
 * (Σ f·x[k][j] + 2^(shift−1)) >> shift (shift ≥ 1). */
typedef void (*VhVifSubsample8Func) (uint16_t *out, const uint8_t *const *x,
    const uint16_t *taps, unsigned ntaps, unsigned shift, unsigned n);

/* The statistics of a run of n columns (a multiple of 16) from the
 * horizontal sums of the eight row arrays (μ1, μ2, then Σx², Σy², Σxy as
 * halves hi, lo): with μ products rounded to 32 bits (+ 2^31 >> 32) and
 * the square sums recombined as hi + (lo + 2^15 >> 16), σ₁² = xx − μ1²,
 * σ₂² = max (yy − μ2², 0), σ₁₂ = xy − μ1μ2, in int32 (differences wrap
 * as in libvmaf). */
typedef void (*VhVifSigmasFunc) (const uint32_t *const acc[8],
    int32_t *sigma1_sq, int32_t *sigma2_sq, int32_t *sigma12, unsigned n);

/* One instruction set's kernels. */
typedef struct {
  VhVifFilter16Func filter16;
  VhVifHFilter16Func hfilter16;
  VhVifVertical8Func vertical8;
  VhVifVertical16Func vertical16;
  VhVifSubsample8Func subsample8;
  VhVifSigmasFunc sigmas;
} VhVifFilters;

/* The best this CPU runs (AVX-512 with VNNI, AVX-512, AVX2), or NULL: no
 * x86-64 build, an older CPU, or a SIMD cap of none
 * (vh_cpu_set_simd_cap; a cap of AVX2 takes AVX2 even where AVX-512 is
 * there). */
const VhVifFilters *vh_vif_filters_best (void);

/* Every version this CPU runs, best first, up to max (tests). */
unsigned vh_vif_filters_all (const VhVifFilters **out, unsigned max);

#endif /* VH_VIF_FILTERS_H */
