/* vmafhip — the motion feature's constants, one source for the CPU engine
 * (common/features/motion/motion.c) and the GPU kernels (kernels/motion-device.h): plain C,
 * no GPU headers. */
#ifndef VH_MOTION_PARAMS_H
#define VH_MOTION_PARAMS_H

#include "vif-params.h"

/* The 5-tap blur in Q16 (libvmaf's `filter` of integer_motion.h), the same
 * Gaussian (sigma = 1) as VIF's scale 2: symmetric, sums to 65536. */
#define VH_MOTION_TAP_OUTER  VH_VIF_S2_TAP0
#define VH_MOTION_TAP_INNER  VH_VIF_S2_TAP1
#define VH_MOTION_TAP_CENTRE VH_VIF_S2_TAP2
/* Samples the 5-tap blur reads on each side. */
#define VH_MOTION_RADIUS VH_VIF_HALF_S2

#endif /* VH_MOTION_PARAMS_H */
