/* vmafhip — sample checks on picture views (vh-picture.h). */
#include "vh-picture.h"

#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

unsigned
vh_or16 (const void *samples, size_t n)
{
  const unsigned char *src = samples;
  size_t i = 0;
  unsigned bits = 0;
#if defined(__SSE2__)
  __m128i acc = _mm_setzero_si128 ();
  for (; i + 8 <= n; i += 8)
    acc = _mm_or_si128 (acc, _mm_loadu_si128 ((const __m128i *) (src + 2
                * i)));
  acc = _mm_or_si128 (acc, _mm_srli_si128 (acc, 8));
  acc = _mm_or_si128 (acc, _mm_srli_si128 (acc, 4));
  acc = _mm_or_si128 (acc, _mm_srli_si128 (acc, 2));
  bits = (unsigned) _mm_cvtsi128_si32 (acc) & 0xffffu;
#endif
  for (; i < n; i++) {
    uint16_t v;
    memcpy (&v, src + 2 * i, 2);
    bits |= v;
  }
  return bits;
}

unsigned
vh_plane_or16 (const VhPlane *p, unsigned y0, unsigned y1)
{
  unsigned bits = 0;
  for (unsigned y = y0; y < y1; y++) {
    const unsigned char *row = (const unsigned char *) p->data
        + (ptrdiff_t) y * p->stride;
    if (p->step <= 1) {
      bits |= vh_or16 (row, p->width);
    } else {
      for (unsigned x = 0; x < p->width; x++) {
        uint16_t v;
        memcpy (&v, row + 2 * (size_t) x * p->step, 2);
        bits |= v;
      }
    }
  }
  return bits;
}
