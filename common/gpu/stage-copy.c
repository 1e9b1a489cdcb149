/* vmafhip — packing picture rows into pinned staging memory. */
#include "stage-copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>

void
vh_stream_copy (unsigned char *dst, const unsigned char *src, size_t n)
{
  /* ordinary stores up to the first 16-byte boundary of dst */
  size_t head = (16 - ((uintptr_t) dst & 15)) & 15;
  if (head > n)
    head = n;
  memcpy (dst, src, head);
  dst += head;
  src += head;
  n -= head;
  for (; n >= 64; n -= 64, src += 64, dst += 64) {
    const __m128i a = _mm_loadu_si128 ((const __m128i *) src);
    const __m128i b = _mm_loadu_si128 ((const __m128i *) (src + 16));
    const __m128i c = _mm_loadu_si128 ((const __m128i *) (src + 32));
    const __m128i d = _mm_loadu_si128 ((const __m128i *) (src + 48));
    _mm_stream_si128 ((__m128i *) dst, a);
    _mm_stream_si128 ((__m128i *) (dst + 16), b);
    _mm_stream_si128 ((__m128i *) (dst + 32), c);
    _mm_stream_si128 ((__m128i *) (dst + 48), d);
  }
  for (; n >= 16; n -= 16, src += 16, dst += 16)
    _mm_stream_si128 ((__m128i *) dst,
        _mm_loadu_si128 ((const __m128i *) src));
  memcpy (dst, src, n);
}

void
vh_stream_fence (void)
{
  _mm_sfence ();
}
#else
void
vh_stream_copy (unsigned char *dst, const unsigned char *src, size_t n)
{
  memcpy (dst, src, n);
}

void
vh_stream_fence (void)
{
}
#endif

void
vh_stage_rows (const VhPlane *src, unsigned bytes, unsigned char *dst,
    size_t row, unsigned y0, unsigned y1)
{
  if (y0 >= y1)
    return;
  const unsigned char *base = src->data;
  if (src->step <= 1 && src->stride == (ptrdiff_t) row) {
    /* contiguous rows: one run */
    vh_stream_copy (dst + y0 * row, base + (ptrdiff_t) y0 * src->stride,
        (size_t) (y1 - y0) * row);
  } else {
    for (unsigned y = y0; y < y1; y++) {
      const unsigned char *line = base + (ptrdiff_t) y * src->stride;
      unsigned char *out = dst + y * row;
      if (src->step <= 1) {
        vh_stream_copy (out, line, row);
      } else if (bytes == 1) {
        for (unsigned x = 0; x < src->width; x++)
          out[x] = line[(size_t) x * src->step];
      } else {
        /* by bytes: a 16-bit plane may start at an odd address */
        for (unsigned x = 0; x < src->width; x++)
          memcpy (out + 2 * (size_t) x, line + 2 * (size_t) x * src->step, 2);
      }
    }
  }
  vh_stream_fence ();
}
