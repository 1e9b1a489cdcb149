/* vmafhip — integer ADM's constants, one source for the CPU engine
 * (common/features/adm/adm.c, common/features/adm/adm-dwt.c and their x86 SIMD code in
 * common/features/adm/x86/adm-dwt-x86.c and common/features/adm/x86/adm-rows-template.h) and the GPU kernels
 * (kernels/adm-device.h): plain C, no GPU headers. */
#ifndef VH_ADM_PARAMS_H
#define VH_ADM_PARAMS_H

/* The db2 analysis filters in Q15 by the magnitudes of their taps, signs
 * in the formulas below: low pass (h0, h1, h2, −h3), high pass (−h3, −h2,
 * h1, −h0) (libvmaf's dwt2_db2_coeffs_lo and dwt2_db2_coeffs_hi,
 * integer_adm.h). */
#define VH_ADM_DB2_H0 15826
#define VH_ADM_DB2_H1 27411
#define VH_ADM_DB2_H2 7345
#define VH_ADM_DB2_H3 4240
/* Sum of the low-pass taps, 46342 ≈ √2·2^15 (libvmaf's
 * dwt2_db2_coeffs_lo_sum; the high-pass taps sum to 0). */
#define VH_ADM_DWT_LO_SUM \
  (VH_ADM_DB2_H0 + VH_ADM_DB2_H1 + VH_ADM_DB2_H2 - VH_ADM_DB2_H3)

/* Both filters on four samples s0..s3, in the type of the samples (int at
 * least): the sums before libvmaf's rounding and shift. */
#define VH_ADM_DWT_LO(s0, s1, s2, s3) (VH_ADM_DB2_H0 * (s0) \
    + VH_ADM_DB2_H1 * (s1) + VH_ADM_DB2_H2 * (s2) - VH_ADM_DB2_H3 * (s3))
#define VH_ADM_DWT_HI(s0, s1, s2, s3) (-VH_ADM_DB2_H3 * (s0) \
    - VH_ADM_DB2_H2 * (s1) + VH_ADM_DB2_H1 * (s2) - VH_ADM_DB2_H0 * (s3))

/* Rounding of scale 0's CSF, weight·value in Q21/Q23 (libvmaf's
 * i_shiftsadd and i_shifts of adm_csf): (x + add) >> shift, 16384 and 15
 * for the h and v bands, 65535 and 17 for d (QUIRK: not 2^16). */
#define VH_ADM_CSF_S0_ADD_HV 16384
#define VH_ADM_CSF_S0_SHIFT_HV 15
#define VH_ADM_CSF_S0_ADD_D 65535
#define VH_ADM_CSF_S0_SHIFT_D 17

/* The CM filter's 1/15 (centre) and 1/30 (neighbours) at scale 0, in Q17
 * with (k·|c| + 2048) >> 12 (libvmaf's ONE_BY_15, integer_adm.h, and
 * FIX_ONE_BY_30 of adm_csf). */
#define VH_ADM_ONE_BY_15 8738
#define VH_ADM_ONE_BY_30 4369
/* The same at scales 1-3, in Q32 (libvmaf's I4_ONE_BY_15, integer_adm.h,
 * and FIX_ONE_BY_30 of i4_adm_csf). */
#define VH_ADM_I4_ONE_BY_15 286331153
#define VH_ADM_I4_ONE_BY_30 143165577

#endif /* VH_ADM_PARAMS_H */
