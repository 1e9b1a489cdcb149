/* vmafhip — PSNR-HVS: what the GPU hands the extractor. */
#ifndef VH_PSNR_HVS_H
#define VH_PSNR_HVS_H

#include <stdint.h>

/* Per plane (Y, Cb, Cr): the float sum of the weighted errors in libvmaf's
 * order, and how many were added (64 per block). */
typedef struct {
  float sum[3];
  uint32_t pixels[3];
} VhPsnrHvsSums;

#endif
