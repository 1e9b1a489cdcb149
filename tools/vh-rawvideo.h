/* vmafhip — views of raw (headerless, row-packed) video frames. */
#ifndef VH_RAWVIDEO_H
#define VH_RAWVIDEO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "vh-picture.h"

typedef struct VhRawFormat {
  const char *name;      /* GStreamer-style: "I420", "I420_10LE", "NV12" ... */
  unsigned bpc;
  unsigned sub_x, sub_y; /* chroma subsampling shifts */
  bool semi_planar;      /* NV12 / P010: interleaved UV plane */
  bool gray;             /* luma only */
  bool swap_uv;          /* YV12: V before U */
} VhRawFormat;

/* Case-insensitive lookup; NULL if unknown. */
const VhRawFormat *vh_raw_format_lookup (const char *name);
/* The known names, comma-separated (for help and error text). */
const char *vh_raw_format_names (void);
size_t vh_raw_frame_size (const VhRawFormat *fmt, unsigned width,
    unsigned height);
/* Describes a frame stored at `data` (rows packed, planes back to back). */
void vh_raw_picture (const VhRawFormat *fmt, const void *data, unsigned width,
    unsigned height, VhPicture *pic);

#endif
