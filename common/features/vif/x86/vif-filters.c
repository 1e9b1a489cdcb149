/* vmafhip — VIF's filter passes in AVX2 and AVX-512 (vif-filters.h): the
 * kernels are written once (vif-filters-template.h) and built here for
 * each instruction set. */
#include "vif-filters.h"

#include "vh-cpu.h"

#include <glib.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

#define HAVE_X86_KERNELS 1
#define MAX_PAIRS 9             /* (17 + 1) / 2 */

/* the pairs of taps as 32-bit lanes (f0 | f1 << 16), the odd one out
 * paired with 0 */
static unsigned
tap_pairs (const uint16_t *taps, unsigned ntaps, uint32_t *pairs,
    uint32_t *sum)
{
  *sum = 0;
  for (unsigned k = 0; k < ntaps; k++)
    *sum += taps[k];
  const unsigned npairs = (ntaps + 1) / 2;
  for (unsigned p = 0; p < npairs; p++)
    pairs[p] = taps[2 * p] | (2 * p + 1 < ntaps ? (uint32_t) taps[2 * p + 1]
        << 16 : 0);
  return npairs;
}

/* ---- AVX-512 (BW) --------------------------------------------------------- */

#define AVX512 __attribute__ ((target ("avx512f,avx512bw")))

/* vpunpck{l,h}wd pair the samples of columns 8L + 0..3 and 8L + 4..7 of
 * each 128-bit lane L; this puts the 32-bit sums back in column order */
AVX512 static inline void
store_in_order_512 (uint32_t *out, __m512i lo, __m512i hi)
{
  const __m512i first = _mm512_setr_epi32 (0, 1, 2, 3, 16, 17, 18, 19,
      4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i second = _mm512_setr_epi32 (8, 9, 10, 11, 24, 25, 26, 27,
      12, 13, 14, 15, 28, 29, 30, 31);
  _mm512_storeu_si512 (out, _mm512_permutex2var_epi32 (lo, first, hi));
  _mm512_storeu_si512 (out + 16, _mm512_permutex2var_epi32 (lo, second,
          hi));
}

/* 16 sums of even columns and 16 of odd ones, interleaved back */
AVX512 static inline void
store_interleaved_512 (uint32_t *out, __m512i even, __m512i odd)
{
  const __m512i first = _mm512_setr_epi32 (0, 16, 1, 17, 2, 18, 3, 19,
      4, 20, 5, 21, 6, 22, 7, 23);
  const __m512i second = _mm512_setr_epi32 (8, 24, 9, 25, 10, 26, 11, 27,
      12, 28, 13, 29, 14, 30, 15, 31);
  _mm512_storeu_si512 (out, _mm512_permutex2var_epi32 (even, first, odd));
  _mm512_storeu_si512 (out + 16, _mm512_permutex2var_epi32 (even, second,
          odd));
}

/* 16 uint32 to uint16 (truncating), xor flip (0x8000: stored biased, as
 * the one-row filter reads the row arrays) */
AVX512 static inline void
store_16_512 (uint16_t *out, __m512i v, uint16_t flip)
{
  _mm256_storeu_si256 ((__m256i *) out, _mm256_xor_si256
      (_mm512_cvtepi32_epi16 (v), _mm256_set1_epi16 ((short) flip)));
}

/* (a·b + 2^31) >> 32 of 16 uint32 lanes */
AVX512 static inline __m512i
mul_round_hi_512 (__m512i a, __m512i b)
{
  const __m512i round = _mm512_set1_epi64 (0x80000000LL);
  const __m512i even = _mm512_srli_epi64 (_mm512_add_epi64
      (_mm512_mul_epu32 (a, b), round), 32);
  const __m512i odd = _mm512_add_epi64 (_mm512_mul_epu32
      (_mm512_srli_epi64 (a, 32), _mm512_srli_epi64 (b, 32)), round);
  /* the even lanes' results in the low halves, the odd ones' in the high */
  return _mm512_mask_blend_epi32 ((__mmask16) 0xaaaa, even, odd);
}

#define V __m512i
#define W 32
#define LOADV(p) _mm512_loadu_si512 (p)
#define LOAD8(p) _mm512_cvtepu8_epi16 (_mm256_loadu_si256 \
    ((const __m256i *) (p)))
#define STORE32(p, v) _mm512_storeu_si512 (p, v)
#define ZERO _mm512_setzero_si512 ()
#define SET1_16(x) _mm512_set1_epi16 (x)
#define SET1_32(x) _mm512_set1_epi32 (x)
#define XOR(a, b) _mm512_xor_si512 (a, b)
#define ADD32(a, b) _mm512_add_epi32 (a, b)
#define SUB32(a, b) _mm512_sub_epi32 (a, b)
#define MAX32(a, b) _mm512_max_epi32 (a, b)
#define MULLO16(a, b) _mm512_mullo_epi16 (a, b)
#define MULHI16U(a, b) _mm512_mulhi_epu16 (a, b)
#define UNPACKLO16(a, b) _mm512_unpacklo_epi16 (a, b)
#define UNPACKHI16(a, b) _mm512_unpackhi_epi16 (a, b)
#define SRL32(v, n) _mm512_srl_epi32 (v, _mm_cvtsi32_si128 ((int) (n)))
#define SLL32(v, n) _mm512_sll_epi32 (v, _mm_cvtsi32_si128 ((int) (n)))
#define SRLI32(v, i) _mm512_srli_epi32 (v, i)
#define MUL_ROUND_HI(a, b) mul_round_hi_512 (a, b)
#define BITS 512

#define SFX avx512
#define ISA "avx512f,avx512bw"
#define DP(acc, a, b) _mm512_add_epi32 (acc, _mm512_madd_epi16 (a, b))
#include "vif-filters-template.h"
#undef SFX
#undef ISA
#undef DP

/* AVX512-VNNI's vpdpwssd: the multiply-add and the addition in one */
#define SFX vnni
#define ISA "avx512f,avx512bw,avx512vnni"
#define DP(acc, a, b) _mm512_dpwssd_epi32 (acc, a, b)
#include "vif-filters-template.h"
#undef SFX
#undef ISA
#undef DP

#undef BITS
#undef V
#undef W
#undef LOADV
#undef LOAD8
#undef STORE32
#undef ZERO
#undef SET1_16
#undef SET1_32
#undef XOR
#undef ADD32
#undef SUB32
#undef MAX32
#undef MULLO16
#undef MULHI16U
#undef UNPACKLO16
#undef UNPACKHI16
#undef SRL32
#undef SLL32
#undef SRLI32
#undef MUL_ROUND_HI

/* ---- AVX2 ------------------------------------------------------------------ */

#define AVX2 __attribute__ ((target ("avx2")))

/* per 128-bit lane as above: lo holds columns 0-3 and 8-11, hi 4-7 and
 * 12-15 (unpacked pairs), or even and odd columns interleaved per lane */
AVX2 static inline void
store_in_order_256 (uint32_t *out, __m256i lo, __m256i hi)
{
  _mm256_storeu_si256 ((__m256i *) out, _mm256_permute2x128_si256 (lo, hi,
          0x20));
  _mm256_storeu_si256 ((__m256i *) (out + 8), _mm256_permute2x128_si256 (lo,
          hi, 0x31));
}

AVX2 static inline void
store_interleaved_256 (uint32_t *out, __m256i even, __m256i odd)
{
  store_in_order_256 (out, _mm256_unpacklo_epi32 (even, odd),
      _mm256_unpackhi_epi32 (even, odd));
}

/* 8 uint32 to uint16 (truncating: masked, then packed without
 * saturation), xor flip */
AVX2 static inline void
store_16_256 (uint16_t *out, __m256i v, uint16_t flip)
{
  const __m256i low = _mm256_and_si256 (v, _mm256_set1_epi32 (0xffff));
  const __m256i packed = _mm256_permute4x64_epi64 (_mm256_packus_epi32 (low,
          low), 0x08);
  _mm_storeu_si128 ((__m128i *) out, _mm_xor_si128 (_mm256_castsi256_si128
          (packed), _mm_set1_epi16 ((short) flip)));
}

AVX2 static inline __m256i
mul_round_hi_256 (__m256i a, __m256i b)
{
  const __m256i round = _mm256_set1_epi64x (0x80000000LL);
  const __m256i even = _mm256_srli_epi64 (_mm256_add_epi64
      (_mm256_mul_epu32 (a, b), round), 32);
  const __m256i odd = _mm256_add_epi64 (_mm256_mul_epu32
      (_mm256_srli_epi64 (a, 32), _mm256_srli_epi64 (b, 32)), round);
  return _mm256_blend_epi32 (even, odd, 0xaa);
}

#define V __m256i
#define W 16
#define LOADV(p) _mm256_loadu_si256 ((const __m256i *) (p))
#define LOAD8(p) _mm256_cvtepu8_epi16 (_mm_loadu_si128 \
    ((const __m128i *) (p)))
#define STORE32(p, v) _mm256_storeu_si256 ((__m256i *) (p), v)
#define ZERO _mm256_setzero_si256 ()
#define SET1_16(x) _mm256_set1_epi16 (x)
#define SET1_32(x) _mm256_set1_epi32 (x)
#define XOR(a, b) _mm256_xor_si256 (a, b)
#define ADD32(a, b) _mm256_add_epi32 (a, b)
#define SUB32(a, b) _mm256_sub_epi32 (a, b)
#define MAX32(a, b) _mm256_max_epi32 (a, b)
#define MULLO16(a, b) _mm256_mullo_epi16 (a, b)
#define MULHI16U(a, b) _mm256_mulhi_epu16 (a, b)
#define UNPACKLO16(a, b) _mm256_unpacklo_epi16 (a, b)
#define UNPACKHI16(a, b) _mm256_unpackhi_epi16 (a, b)
#define SRL32(v, n) _mm256_srl_epi32 (v, _mm_cvtsi32_si128 ((int) (n)))
#define SLL32(v, n) _mm256_sll_epi32 (v, _mm_cvtsi32_si128 ((int) (n)))
#define SRLI32(v, i) _mm256_srli_epi32 (v, i)
#define MUL_ROUND_HI(a, b) mul_round_hi_256 (a, b)

#define BITS 256
#define SFX avx2
#define ISA "avx2"
#define DP(acc, a, b) _mm256_add_epi32 (acc, _mm256_madd_epi16 (a, b))
#include "vif-filters-template.h"

/* ---- selection ------------------------------------------------------------ */

/* every version, best first, with what it needs of the CPU (vh-cpu.h) */
static const VhCpuVersion versions[] = {
  {&filters_vnni, VH_CPU_SIMD_AVX512, 1},
  {&filters_avx512, VH_CPU_SIMD_AVX512, 0},
  {&filters_avx2, VH_CPU_SIMD_AVX2, 0},
  {NULL, 0, 0},
};
#else
/* nothing by hand: vif.c's loops */
static const VhCpuVersion versions[] = {
  {NULL, 0, 0},
};
#endif

unsigned
vh_vif_filters_all (const VhVifFilters **out, unsigned max)
{
  return vh_cpu_versions_all (versions, (const void **) out, max);
}

const VhVifFilters *
vh_vif_filters_best (void)
{
  return vh_cpu_versions_best (versions);
}
