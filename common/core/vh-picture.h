/* vmafhip — picture views handed to the engine.
 *
 * The engine never owns pixels: callers describe their planes (GStreamer
 * video frames, mapped files, GPU staging buffers) with these views.
 */
#ifndef VH_PICTURE_H
#define VH_PICTURE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One plane. Samples above 8 bits are 16-bit little-endian words.
 * `step` is the distance in samples between horizontally adjacent samples:
 * 1 for planar data, 2 for the interleaved U or V of NV12/P010. */
typedef struct VhPlane {
  const void *data;
  ptrdiff_t stride;   /* bytes between rows */
  unsigned width;     /* samples */
  unsigned height;    /* rows */
  unsigned step;      /* 1 planar, 2 interleaved chroma */
} VhPlane;

/* Where a picture's samples lie. */
typedef enum VhPictureMemory {
  VH_PICTURE_HOST = 0,   /* host memory (the default) */
  /* GPU memory: each plane's data is a device address (VhGpuPtr) on the
   * engine's GPU; only an engine whose every feature runs on the GPU
   * takes such pictures, and planes must be planar (step 1). */
  VH_PICTURE_DEVICE,
} VhPictureMemory;

/* A picture: plane 0 is luma; planes 1, 2 are Cb, Cr (absent for GRAY). */
typedef struct VhPicture {
  VhPlane plane[3];
  unsigned nplanes;   /* 1 (luma only) or 3 */
  unsigned bpc;       /* 8, 10, 12 */
  VhPictureMemory memory;
  /* VH_PICTURE_DEVICE: the vendor context the addresses belong to (a CUDA
   * CUcontext of another user of the GPU, e.g. an upstream decoder's);
   * NULL when it is the engine's own. */
  void *device_context;
  /* VH_PICTURE_DEVICE references only: work on this picture already done
   * on the GPU, which the GPU backend reads instead of redoing (a
   * VhGpuRefShare, common/gpu/backend/gpu-picture.h); NULL: none. Pictures in GPU
   * memory must therefore be zero-initialised before their fields are
   * set (as every picture should: fields get added). */
  const void *device_share;
  /* VH_PICTURE_HOST: nonzero where the caller keeps the planes alive and
   * unchanged until this frame's sums are delivered (the element holds
   * its pinned buffers until the frame's scores are final), so that the
   * GPU backend, reading pinned planes in place, need not wait in submit
   * for their upload; 0: the caller owns them again once push returns. */
  int held;
} VhPicture;

/* Sample accessors for code that is not performance-critical. */
static inline unsigned
vh_plane_sample (const VhPlane *p, unsigned bpc, unsigned x, unsigned y)
{
  const uint8_t *row = (const uint8_t *) p->data + (ptrdiff_t) y * p->stride;
  if (bpc == 8)
    return row[(size_t) x * p->step];
  return ((const uint16_t *) row)[(size_t) x * p->step];
}

/* The OR of n 16-bit samples at `samples` (any alignment), and of rows
 * y0..y1-1 of a 16-bit plane (any stride and step): a bit above the
 * picture's depth shows a sample out of its range (picture.c). */
unsigned vh_or16 (const void *samples, size_t n);
unsigned vh_plane_or16 (const VhPlane *p, unsigned y0, unsigned y1);

#ifdef __cplusplus
}
#endif
#endif /* VH_PICTURE_H */
