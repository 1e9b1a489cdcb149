/* vmafhip — integer VIF's constants, one source for the CPU engine
 * (common/features/vif/vif.c, common/features/vif/vif-pixels.c and their SIMD code), the GPU kernels
 * (kernels/vif-device.h, kernels/vif.hip) and motion's blur
 * (kernels/motion-params.h): plain C, no GPU headers. */
#ifndef VH_VIF_PARAMS_H
#define VH_VIF_PARAMS_H

/* Half width of each scale's filter (libvmaf's vif_filter1d_width, 17, 9,
 * 5 and 3 taps, halved). */
#define VH_VIF_HALF_S0 8
#define VH_VIF_HALF_S1 4
#define VH_VIF_HALF_S2 2
#define VH_VIF_HALF_S3 1

/* Q16 Gaussian taps of each scale (libvmaf's vif_filter1d_table,
 * integer_vif.h), tap k of scale s from the outer tap (k = 0) to the
 * centre (k = VH_VIF_HALF_Ss); each filter is symmetric and sums to
 * 65536. */
#define VH_VIF_S0_TAP0 489
#define VH_VIF_S0_TAP1 935
#define VH_VIF_S0_TAP2 1640
#define VH_VIF_S0_TAP3 2640
#define VH_VIF_S0_TAP4 3896
#define VH_VIF_S0_TAP5 5274
#define VH_VIF_S0_TAP6 6547
#define VH_VIF_S0_TAP7 7455
#define VH_VIF_S0_TAP8 7784

#define VH_VIF_S1_TAP0 1244
#define VH_VIF_S1_TAP1 3663
#define VH_VIF_S1_TAP2 7925
#define VH_VIF_S1_TAP3 12590
#define VH_VIF_S1_TAP4 14692

#define VH_VIF_S2_TAP0 3571
#define VH_VIF_S2_TAP1 16004
#define VH_VIF_S2_TAP2 26386

#define VH_VIF_S3_TAP0 10904
#define VH_VIF_S3_TAP1 43728

/* Each scale's whole filter, outer tap to outer tap, as the elements of an
 * array initialiser (libvmaf's vif_filter1d_table[s]). */
#define VH_VIF_FILTER_S0 VH_VIF_S0_TAP0, VH_VIF_S0_TAP1, VH_VIF_S0_TAP2, \
  VH_VIF_S0_TAP3, VH_VIF_S0_TAP4, VH_VIF_S0_TAP5, VH_VIF_S0_TAP6,         \
  VH_VIF_S0_TAP7, VH_VIF_S0_TAP8, VH_VIF_S0_TAP7, VH_VIF_S0_TAP6,         \
  VH_VIF_S0_TAP5, VH_VIF_S0_TAP4, VH_VIF_S0_TAP3, VH_VIF_S0_TAP2,         \
  VH_VIF_S0_TAP1, VH_VIF_S0_TAP0
#define VH_VIF_FILTER_S1 VH_VIF_S1_TAP0, VH_VIF_S1_TAP1, VH_VIF_S1_TAP2, \
  VH_VIF_S1_TAP3, VH_VIF_S1_TAP4, VH_VIF_S1_TAP3, VH_VIF_S1_TAP2,         \
  VH_VIF_S1_TAP1, VH_VIF_S1_TAP0
#define VH_VIF_FILTER_S2 VH_VIF_S2_TAP0, VH_VIF_S2_TAP1, VH_VIF_S2_TAP2, \
  VH_VIF_S2_TAP1, VH_VIF_S2_TAP0
#define VH_VIF_FILTER_S3 VH_VIF_S3_TAP0, VH_VIF_S3_TAP1, VH_VIF_S3_TAP0

/* σ_n² = 2 in the units of the statistics ((8-bit pixel)² · 2^16)
 * (libvmaf's sigma_nsq, 65536 << 1). */
#define VH_VIF_SIGMA_NSQ (2 * 65536)
/* L(σ_n²) = log2(2^17) in the Q11 of the log2 table (libvmaf subtracts it
 * as 2048 * 17). */
#define VH_VIF_LOG2_SIGMA_NSQ (17 * 2048)
/* ε of the gain g = σ₁₂ / (σ₁² + ε) (libvmaf's eps, 65536 * 1.0e-10, a
 * constant the compiler folds to the double nearest the product). */
#define VH_VIF_EPS (65536 * 1.0e-10)

#endif /* VH_VIF_PARAMS_H */
