/* vmafhip — packing picture rows into pinned staging memory. */
#include "stage-copy.h"

#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>

/* The copy, and where `bits` is given the OR of the copied bytes taken as
 * 16-bit samples from the loads the copy makes anyway (dst at an even
 * address: its head to a 16-byte boundary then holds whole samples). */
static void
copy_streaming (unsigned char *dst, const unsigned char *src, size_t n,
    unsigned *bits)
{
  /* ordinary stores up to the first 16-byte boundary of dst */
  size_t head = (16 - ((uintptr_t) dst & 15)) & 15;
  if (head > n)
    head = n;
  memcpy (dst, src, head);
  if (bits)
    *bits |= vh_or16 (src, head / 2);
  dst += head;
  src += head;
  n -= head;
  __m128i acc = _mm_setzero_si128 ();
  for (; n >= 64; n -= 64, src += 64, dst += 64) {
    const __m128i a = _mm_loadu_si128 ((const __m128i *) src);
    const __m128i b = _mm_loadu_si128 ((const __m128i *) (src + 16));
    const __m128i c = _mm_loadu_si128 ((const __m128i *) (src + 32));
    const __m128i d = _mm_loadu_si128 ((const __m128i *) (src + 48));
    _mm_stream_si128 ((__m128i *) dst, a);
    _mm_stream_si128 ((__m128i *) (dst + 16), b);
    _mm_stream_si128 ((__m128i *) (dst + 32), c);
    _mm_stream_si128 ((__m128i *) (dst + 48), d);
    acc = _mm_or_si128 (acc, _mm_or_si128 (_mm_or_si128 (a, b),
            _mm_or_si128 (c, d)));
  }
  for (; n >= 16; n -= 16, src += 16, dst += 16) {
    const __m128i a = _mm_loadu_si128 ((const __m128i *) src);
    _mm_stream_si128 ((__m128i *) dst, a);
    acc = _mm_or_si128 (acc, a);
  }
  memcpy (dst, src, n);
  if (bits) {
    acc = _mm_or_si128 (acc, _mm_srli_si128 (acc, 8));
    acc = _mm_or_si128 (acc, _mm_srli_si128 (acc, 4));
    acc = _mm_or_si128 (acc, _mm_srli_si128 (acc, 2));
    *bits |= ((unsigned) _mm_cvtsi128_si32 (acc) & 0xffffu)
        | vh_or16 (src, n / 2);
  }
}

void
vh_stream_fence (void)
{
  _mm_sfence ();
}
#else
static void
copy_streaming (unsigned char *dst, const unsigned char *src, size_t n,
    unsigned *bits)
{
  memcpy (dst, src, n);
  if (bits)
    *bits |= vh_or16 (src, n / 2);
}

void
vh_stream_fence (void)
{
}
#endif

void
vh_stream_copy (unsigned char *dst, const unsigned char *src, size_t n)
{
  copy_streaming (dst, src, n, NULL);
}

unsigned
vh_stage_rows (const VhPlane *src, unsigned bytes, unsigned char *dst,
    size_t row, unsigned y0, unsigned y1)
{
  unsigned bits = 0;
  if (y0 >= y1)
    return 0;
  const unsigned char *base = src->data;
  if (src->step <= 1 && src->stride == (ptrdiff_t) row) {
    /* contiguous rows: one run */
    copy_streaming (dst + y0 * row, base + (ptrdiff_t) y0 * src->stride,
        (size_t) (y1 - y0) * row, bytes == 2 ? &bits : NULL);
  } else {
    for (unsigned y = y0; y < y1; y++) {
      const unsigned char *line = base + (ptrdiff_t) y * src->stride;
      unsigned char *out = dst + y * row;
      if (src->step <= 1) {
        copy_streaming (out, line, row, bytes == 2 ? &bits : NULL);
      } else if (bytes == 1) {
        for (unsigned x = 0; x < src->width; x++)
          out[x] = line[(size_t) x * src->step];
      } else {
        /* by bytes: a 16-bit plane may start at an odd address */
        for (unsigned x = 0; x < src->width; x++)
          memcpy (out + 2 * (size_t) x, line + 2 * (size_t) x * src->step, 2);
        bits |= vh_or16 (out, src->width);      /* the packed copy */
      }
    }
  }
  vh_stream_fence ();
  return bits;
}
