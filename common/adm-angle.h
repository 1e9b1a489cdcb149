/* vmafhip — ADM's decouple angle test over a run of columns: whether each
 * pair of (horizontal, vertical) detail vectors, reference (oh, ov) and
 * distorted (th, tv), is less than 1 degree apart, with libvmaf's
 * arithmetic (int64 dot products and norms rounded to float, scaled by
 * 1/4096 and compared in double against cos²(1°) stored as float).
 * Plain C, and AVX-512 (F, DQ: 64-bit products and conversions), which
 * gives the same flags (test-adm-angle). */
#ifndef VH_ADM_ANGLE_H
#define VH_ADM_ANGLE_H

#include <stdint.h>

typedef void (*VhAdmAngleFunc) (const int32_t *oh, const int32_t *ov,
    const int32_t *th, const int32_t *tv, int l, int r, float cos_sq,
    uint8_t *flags);

void vh_adm_angle_flags_c (const int32_t *oh, const int32_t *ov,
    const int32_t *th, const int32_t *tv, int l, int r, float cos_sq,
    uint8_t *flags);

/* AVX-512 where the CPU has it and vh_cpu_simd_allowed () allows it, else the
 * plain C. */
VhAdmAngleFunc vh_adm_angle_flags_best (void);

#endif /* VH_ADM_ANGLE_H */
