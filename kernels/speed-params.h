/* vmafhip — SpEED-chroma's constants, one source for the CPU engine
 * (common/features/speed/speed-chroma.c, common/features/speed/speed-linalg.c, through their headers)
 * and the GPU kernels (kernels/speed-device.h): plain C, no GPU headers. */
#ifndef VH_SPEED_PARAMS_H
#define VH_SPEED_PARAMS_H

/* Side of the blocks whose 5x5 neighbourhoods SpEED takes the covariance
 * of (libvmaf's DEFAULT_BLOCK_SIZE, speed.c), and that covariance's size. */
#define VH_SPEED_BLOCK 5
#define VH_SPEED_NB (VH_SPEED_BLOCK * VH_SPEED_BLOCK)
/* The pictures of a frame: reference U, distorted U, reference V,
 * distorted V. */
#define VH_SPEED_PICTURES 4
/* Room for the longest filter libvmaf's kernel scales give (scale 1,
 * 360/97: 35 taps). */
#define VH_SPEED_MAX_TAPS 40

#endif /* VH_SPEED_PARAMS_H */
