/* vmafhip — CIEDE2000: what the GPU hands the extractor. */
#ifndef VH_CIEDE_H
#define VH_CIEDE_H

/* The frame's sum of CIEDE2000 differences over all pixels (the score is
 * 45 - 20 log10 (sum / pixels)). */
typedef struct {
  double sum;
} VhCiedeSums;

#endif
