/* vmafhip — CAMBI's constants, one source for the CPU engine
 * (common/features/cambi/cambi.c and common/features/cambi/cambi-params.c, through common/features/cambi/cambi.h) and
 * the GPU kernels (kernels/cambi-device.h): plain C, no GPU headers. */
#ifndef VH_CAMBI_PARAMS_H
#define VH_CAMBI_PARAMS_H

/* Side of the square window (7x7) that counts the zero-derivative pixels
 * behind the spatial mask (libvmaf's MASK_FILTER_SIZE, cambi.c). */
#define VH_CAMBI_MASK_FILTER 7

#endif /* VH_CAMBI_PARAMS_H */
