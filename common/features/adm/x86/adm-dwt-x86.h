/* vmafhip — ADM's scale-0 DWT passes by hand in AVX2 (adm-dwt-x86.c):
 * the same integers as adm.c's loops, with 16-bit multiply-adds of pairs
 * of taps (vpmaddwd) instead of 32-bit multiplies.  x86-64 only; adm.c
 * calls them where the CPU has AVX2 (vh_cpu_simd_level). */
#ifndef VH_ADM_DWT_X86_H
#define VH_ADM_DWT_X86_H

#include <stdint.h>

#if defined(__x86_64__) && defined(__GNUC__)
#define VH_ADM_DWT_X86 1

/* Both tap sets down four rows of samples (8-bit, or 16-bit of at most
 * 15 bits): lo[j], hi[j] for j < n, as dwt_vertical_u8 / _u16 */
void vh_adm_dwt_vertical_u8_avx2 (const uint8_t *r0, const uint8_t *r1,
    const uint8_t *r2, const uint8_t *r3, int n, int32_t add_lo,
    int32_t add_hi, int shift, int32_t *lo, int32_t *hi);
void vh_adm_dwt_vertical_u16_avx2 (const uint16_t *r0, const uint16_t *r1,
    const uint16_t *r2, const uint16_t *r3, int n, int32_t add_lo,
    int32_t add_hi, int shift, int32_t *lo, int32_t *hi);
/* Both tap sets along a padded scale-0 row t[-1 .. 2 half] whose values
 * fit int16, every second output, rounded by 2^15 and shifted by 16: as
 * dwt_horizontal_s0 */
void vh_adm_dwt_horizontal_s0_avx2 (const int32_t *t, int half,
    int32_t *lo, int32_t *hi);
#endif

#endif
