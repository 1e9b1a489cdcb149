/* vmafhip — the motion feature's constants, one source for the CPU engine
 * (common/motion.c) and the GPU kernels (kernels/motion-device.h): plain C,
 * no GPU headers. */
#ifndef VH_MOTION_PARAMS_H
#define VH_MOTION_PARAMS_H

/* The VIF scale-2 Gaussian (sigma = 1) in Q16; symmetric, sums to 65536. */
#define VH_MOTION_TAP_OUTER  3571
#define VH_MOTION_TAP_INNER  16004
#define VH_MOTION_TAP_CENTRE 26386
/* Samples the 5-tap blur reads on each side. */
#define VH_MOTION_RADIUS 2

#endif /* VH_MOTION_PARAMS_H */
