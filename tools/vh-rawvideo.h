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

/* How a raw file of an odd width or height lays out its subsampled chroma
 * planes.  VH_RAW_CHROMA_STANDARD: (w+1)>>1 samples wide, (h+1)>>1 rows
 * for 4:2:0, as GStreamer, FFmpeg and y4m store them (the default).
 * VH_RAW_CHROMA_LIBVMAF: w>>1 wide and h>>1 rows, packed, as libvmaf
 * 3.2.0's `vmaf` CLI reads raw input (tools/yuv_input.c's
 * yuv_fetch_into_vmaf_picture reads each plane of a picture from
 * vmaf_picture_alloc, whose chroma is w >> ss_hor by h >> ss_ver); the
 * picture's chroma planes are then that size.  Even sizes: the same. */
typedef enum {
  VH_RAW_CHROMA_STANDARD,
  VH_RAW_CHROMA_LIBVMAF,
} VhRawChroma;

/* Case-insensitive lookup; NULL if unknown. */
const VhRawFormat *vh_raw_format_lookup (const char *name);
/* The known names, comma-separated (for help and error text). */
const char *vh_raw_format_names (void);
/* "standard" or "libvmaf" (case-insensitive); false if neither. */
bool vh_raw_chroma_from_string (const char *s, VhRawChroma *chroma);
size_t vh_raw_frame_size (const VhRawFormat *fmt, unsigned width,
    unsigned height);
size_t vh_raw_frame_size_chroma (const VhRawFormat *fmt, unsigned width,
    unsigned height, VhRawChroma chroma);
/* Describes a frame stored at `data` (rows packed, planes back to back),
 * chroma in the standard layout. */
void vh_raw_picture (const VhRawFormat *fmt, const void *data, unsigned width,
    unsigned height, VhPicture *pic);
/* The same, chroma laid out as `chroma` says. */
void vh_raw_picture_chroma (const VhRawFormat *fmt, const void *data,
    unsigned width, unsigned height, VhRawChroma chroma, VhPicture *pic);

#endif
