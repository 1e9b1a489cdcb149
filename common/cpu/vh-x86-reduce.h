/* vmafhip — sums of the 32-bit lanes of an x86 vector, modulo 2^32, for
 * the hand-written kernels whose row sums wrap as libvmaf's uint32 ones
 * do.  Not _mm512_reduce_add_epi32: GCC's header adds the lanes as C ints,
 * and a signed overflow there is undefined (UBSan reports it). */
#ifndef VH_X86_REDUCE_H
#define VH_X86_REDUCE_H

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#include <stdint.h>

__attribute__ ((target ("avx2"))) static inline uint32_t
vh_reduce_add32_256 (__m256i v)
{
  __m128i s = _mm_add_epi32 (_mm256_castsi256_si128 (v),
      _mm256_extracti128_si256 (v, 1));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0x4e));
  s = _mm_add_epi32 (s, _mm_shuffle_epi32 (s, 0xb1));
  return (uint32_t) _mm_cvtsi128_si32 (s);
}

__attribute__ ((target ("avx512f"))) static inline uint32_t
vh_reduce_add32_512 (__m512i v)
{
  return vh_reduce_add32_256 (_mm256_add_epi32 (_mm512_castsi512_si256 (v),
          _mm512_extracti64x4_epi64 (v, 1)));
}
#endif

#endif /* VH_X86_REDUCE_H */
