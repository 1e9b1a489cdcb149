/* vmafhip — views of raw video frames (see vh-rawvideo.h). */
#include <string.h>
#include <strings.h>

#include "vh-rawvideo.h"

static const VhRawFormat formats[] = {
  {"I420", 8, 1, 1, false, false, false},
  {"YV12", 8, 1, 1, false, false, true},
  {"NV12", 8, 1, 1, true, false, false},
  {"Y42B", 8, 1, 0, false, false, false},
  {"Y444", 8, 0, 0, false, false, false},
  {"I420_10LE", 10, 1, 1, false, false, false},
  {"I422_10LE", 10, 1, 0, false, false, false},
  {"Y444_10LE", 10, 0, 0, false, false, false},
  {"P010_10LE", 10, 1, 1, true, false, false},
  {"I420_12LE", 12, 1, 1, false, false, false},
  {"I422_12LE", 12, 1, 0, false, false, false},
  {"Y444_12LE", 12, 0, 0, false, false, false},
  {"GRAY8", 8, 0, 0, false, true, false},
};

const VhRawFormat *
vh_raw_format_lookup (const char *name)
{
  for (size_t i = 0; name && i < sizeof formats / sizeof formats[0]; i++)
    if (!strcasecmp (formats[i].name, name))
      return &formats[i];
  return NULL;
}

const char *
vh_raw_format_names (void)
{
  return "I420, YV12, NV12, Y42B, Y444, I420_10LE, I422_10LE, Y444_10LE, "
      "P010_10LE, I420_12LE, I422_12LE, Y444_12LE, GRAY8";
}

bool
vh_raw_chroma_from_string (const char *s, VhRawChroma *chroma)
{
  if (s && !strcasecmp (s, "standard"))
    *chroma = VH_RAW_CHROMA_STANDARD;
  else if (s && !strcasecmp (s, "libvmaf"))
    *chroma = VH_RAW_CHROMA_LIBVMAF;
  else
    return false;
  return true;
}

/* The chroma plane's size: rounded up (standard) or down (libvmaf's CLI) */
static void
chroma_size (const VhRawFormat *f, unsigned w, unsigned h, VhRawChroma chroma,
    unsigned *cw, unsigned *ch)
{
  if (chroma == VH_RAW_CHROMA_LIBVMAF) {
    *cw = w >> f->sub_x;
    *ch = h >> f->sub_y;
    return;
  }
  *cw = (w + (1u << f->sub_x) - 1) >> f->sub_x;
  *ch = (h + (1u << f->sub_y) - 1) >> f->sub_y;
}

size_t
vh_raw_frame_size_chroma (const VhRawFormat *f, unsigned w, unsigned h,
    VhRawChroma chroma)
{
  const size_t bytes = f->bpc > 8 ? 2 : 1;
  unsigned cw, ch;
  if (f->gray)
    return (size_t) w * h * bytes;
  chroma_size (f, w, h, chroma, &cw, &ch);
  return ((size_t) w * h + 2 * (size_t) cw * ch) * bytes;
}

size_t
vh_raw_frame_size (const VhRawFormat *f, unsigned w, unsigned h)
{
  return vh_raw_frame_size_chroma (f, w, h, VH_RAW_CHROMA_STANDARD);
}

void
vh_raw_picture_chroma (const VhRawFormat *f, const void *data, unsigned w,
    unsigned h, VhRawChroma chroma, VhPicture *pic)
{
  const size_t bytes = f->bpc > 8 ? 2 : 1;
  const uint8_t *p = data;
  unsigned cw, ch;
  memset (pic, 0, sizeof *pic);
  pic->bpc = f->bpc;
  pic->memory = VH_PICTURE_HOST;
  pic->plane[0] = (VhPlane) { p, (ptrdiff_t) (w * bytes), w, h, 1 };
  if (f->gray) {
    pic->nplanes = 1;
    return;
  }
  pic->nplanes = 3;
  chroma_size (f, w, h, chroma, &cw, &ch);
  p += (size_t) w * h * bytes;
  if (f->semi_planar) {
    const ptrdiff_t stride = (ptrdiff_t) (2 * cw * bytes);
    pic->plane[1] = (VhPlane) { p, stride, cw, ch, 2 };
    pic->plane[2] = (VhPlane) { p + bytes, stride, cw, ch, 2 };
    return;
  }
  const size_t csize = (size_t) cw * ch * bytes;
  const int u = f->swap_uv ? 2 : 1, v = f->swap_uv ? 1 : 2;
  pic->plane[u] = (VhPlane) { p, (ptrdiff_t) (cw * bytes), cw, ch, 1 };
  pic->plane[v] = (VhPlane) { p + csize, (ptrdiff_t) (cw * bytes), cw, ch, 1 };
}

void
vh_raw_picture (const VhRawFormat *f, const void *data, unsigned w,
    unsigned h, VhPicture *pic)
{
  vh_raw_picture_chroma (f, data, w, h, VH_RAW_CHROMA_STANDARD, pic);
}
