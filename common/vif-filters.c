/* vmafhip — VIF's filter passes in AVX-512 (vif-filters.h). */
#include "vif-filters.h"

#include <glib.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

#define AVX512 __attribute__ ((target ("avx512f,avx512bw")))
#define MAX_PAIRS 9             /* (17 + 1) / 2 */

/* vpunpck{l,h}wd pair the samples of columns 8L + 0..3 and 8L + 4..7 of
 * each 128-bit lane L; these put the 32-bit sums back in column order */
AVX512 static inline void
store_in_order (uint32_t *out, __m512i lo, __m512i hi)
{
  const __m512i first = _mm512_setr_epi32 (0, 1, 2, 3, 16, 17, 18, 19,
      4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i second = _mm512_setr_epi32 (8, 9, 10, 11, 24, 25, 26, 27,
      12, 13, 14, 15, 28, 29, 30, 31);
  _mm512_storeu_si512 (out, _mm512_permutex2var_epi32 (lo, first, hi));
  _mm512_storeu_si512 (out + 16, _mm512_permutex2var_epi32 (lo, second,
          hi));
}

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

AVX512 static void
filter16_avx512 (uint32_t *out, const uint16_t *const *x,
    const uint16_t *taps, unsigned ntaps, unsigned n)
{
  uint32_t pairs[MAX_PAIRS], tap_sum;
  const unsigned npairs = tap_pairs (taps, ntaps, pairs, &tap_sum);
  __m512i f[MAX_PAIRS];
  for (unsigned p = 0; p < npairs; p++)
    f[p] = _mm512_set1_epi32 ((int) pairs[p]);
  const __m512i bias = _mm512_set1_epi16 ((short) 0x8000);
  /* Σ f (x − 32768) + 32768 Σ f, modulo 2^32 */
  const __m512i offset = _mm512_set1_epi32 ((int) (32768u * tap_sum));

  for (unsigned j = 0; j < n; j += 32) {
    __m512i lo = offset, hi = offset;
    for (unsigned p = 0; p < npairs; p++) {
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;
      const __m512i a = _mm512_xor_si512 (_mm512_loadu_si512 (x[k0] + j),
          bias);
      const __m512i b = k1 == k0 ? a : _mm512_xor_si512
          (_mm512_loadu_si512 (x[k1] + j), bias);
      lo = _mm512_add_epi32 (lo, _mm512_madd_epi16 (_mm512_unpacklo_epi16
              (a, b), f[p]));
      hi = _mm512_add_epi32 (hi, _mm512_madd_epi16 (_mm512_unpackhi_epi16
              (a, b), f[p]));
    }
    store_in_order (out + j, lo, hi);
  }
}

/* one quantity's pair of rows into its two sums */
AVX512 static inline void
madd_pair (__m512i *lo, __m512i *hi, __m512i a, __m512i b, __m512i f)
{
  *lo = _mm512_add_epi32 (*lo, _mm512_madd_epi16 (_mm512_unpacklo_epi16 (a,
              b), f));
  *hi = _mm512_add_epi32 (*hi, _mm512_madd_epi16 (_mm512_unpackhi_epi16 (a,
              b), f));
}

/* 32 consecutive uint32 in column order to uint16 (truncating) */
AVX512 static inline void
store_u16 (uint16_t *out, const uint32_t *sums, unsigned shift,
    uint32_t round)
{
  const __m512i r = _mm512_set1_epi32 ((int) round);
  for (int h = 0; h < 2; h++) {
    const __m512i v = _mm512_srli_epi32 (_mm512_add_epi32 (_mm512_loadu_si512
            (sums + 16 * h), r), shift);
    _mm256_storeu_si256 ((__m256i *) (out + 16 * h), _mm512_cvtepi32_epi16
        (v));
  }
}

AVX512 static void
vertical8_avx512 (uint16_t *const out[8], const uint8_t *const *r,
    const uint8_t *const *d, const uint16_t *taps, unsigned ntaps,
    unsigned n)
{
  uint32_t pairs[MAX_PAIRS], tap_sum;
  const unsigned npairs = tap_pairs (taps, ntaps, pairs, &tap_sum);
  __m512i f[MAX_PAIRS];
  for (unsigned p = 0; p < npairs; p++)
    f[p] = _mm512_set1_epi32 ((int) pairs[p]);
  const __m512i bias = _mm512_set1_epi16 ((short) 0x8000);
  /* the squares (up to 65025) are biased, the samples (up to 255) not */
  const __m512i offset = _mm512_set1_epi32 ((int) (32768u * tap_sum));
  const __m512i zero = _mm512_setzero_si512 ();
  uint32_t sums[5][32] __attribute__ ((aligned (64)));

  for (unsigned j = 0; j < n; j += 32) {
    __m512i lo[5] = { zero, zero, offset, offset, offset };
    __m512i hi[5] = { zero, zero, offset, offset, offset };
    for (unsigned p = 0; p < npairs; p++) {
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;
      const __m512i r0 = _mm512_cvtepu8_epi16 (_mm256_loadu_si256
          ((const __m256i *) (r[k0] + j)));
      const __m512i d0 = _mm512_cvtepu8_epi16 (_mm256_loadu_si256
          ((const __m256i *) (d[k0] + j)));
      const __m512i r1 = _mm512_cvtepu8_epi16 (_mm256_loadu_si256
          ((const __m256i *) (r[k1] + j)));
      const __m512i d1 = _mm512_cvtepu8_epi16 (_mm256_loadu_si256
          ((const __m256i *) (d[k1] + j)));
      madd_pair (&lo[0], &hi[0], r0, r1, f[p]);
      madd_pair (&lo[1], &hi[1], d0, d1, f[p]);
      madd_pair (&lo[2], &hi[2], _mm512_xor_si512 (_mm512_mullo_epi16 (r0,
                  r0), bias), _mm512_xor_si512 (_mm512_mullo_epi16 (r1, r1),
              bias), f[p]);
      madd_pair (&lo[3], &hi[3], _mm512_xor_si512 (_mm512_mullo_epi16 (d0,
                  d0), bias), _mm512_xor_si512 (_mm512_mullo_epi16 (d1, d1),
              bias), f[p]);
      madd_pair (&lo[4], &hi[4], _mm512_xor_si512 (_mm512_mullo_epi16 (r0,
                  d0), bias), _mm512_xor_si512 (_mm512_mullo_epi16 (r1, d1),
              bias), f[p]);
    }
    for (int q = 0; q < 5; q++)
      store_in_order (sums[q], lo[q], hi[q]);
    /* μ: (Σ + 128) >> 8; the square sums split into halves */
    store_u16 (out[0] + j, sums[0], 8, 128);
    store_u16 (out[1] + j, sums[1], 8, 128);
    for (int q = 2; q < 5; q++) {
      store_u16 (out[2 * q - 2] + j, sums[q], 16, 0);
      store_u16 (out[2 * q - 1] + j, sums[q], 0, 0);
    }
  }
}

/* (a·b + 2^31) >> 32 of 16 uint32 lanes */
AVX512 static inline __m512i
mul_round_hi (__m512i a, __m512i b)
{
  const __m512i round = _mm512_set1_epi64 (0x80000000LL);
  const __m512i even = _mm512_srli_epi64 (_mm512_add_epi64
      (_mm512_mul_epu32 (a, b), round), 32);
  const __m512i odd = _mm512_add_epi64 (_mm512_mul_epu32
      (_mm512_srli_epi64 (a, 32), _mm512_srli_epi64 (b, 32)), round);
  /* the even lanes' results in the low halves, the odd ones' in the high */
  return _mm512_mask_blend_epi32 ((__mmask16) 0xaaaa, even, odd);
}

AVX512 static inline __m512i
recombine (const uint32_t *hi, const uint32_t *lo, unsigned j)
{
  return _mm512_add_epi32 (_mm512_loadu_si512 (hi + j), _mm512_srli_epi32
      (_mm512_add_epi32 (_mm512_loadu_si512 (lo + j), _mm512_set1_epi32
              (32768)), 16));
}

AVX512 static void
sigmas_avx512 (const uint32_t *const acc[8], int32_t *sigma1_sq,
    int32_t *sigma2_sq, int32_t *sigma12, unsigned n)
{
  for (unsigned j = 0; j < n; j += 16) {
    const __m512i mu1 = _mm512_loadu_si512 (acc[0] + j);
    const __m512i mu2 = _mm512_loadu_si512 (acc[1] + j);
    const __m512i xx = recombine (acc[2], acc[3], j);
    const __m512i yy = recombine (acc[4], acc[5], j);
    const __m512i xy = recombine (acc[6], acc[7], j);
    _mm512_storeu_si512 (sigma1_sq + j, _mm512_sub_epi32 (xx,
            mul_round_hi (mu1, mu1)));
    _mm512_storeu_si512 (sigma2_sq + j, _mm512_max_epi32 (_mm512_sub_epi32
            (yy, mul_round_hi (mu2, mu2)), _mm512_setzero_si512 ()));
    _mm512_storeu_si512 (sigma12 + j, _mm512_sub_epi32 (xy,
            mul_round_hi (mu1, mu2)));
  }
}

static gboolean
have_avx512bw (void)
{
  const char *simd = g_getenv ("VMAFHIP_CPU_SIMD");
  if (simd && !g_strcmp0 (simd, "0"))
    return FALSE;
  __builtin_cpu_init ();
  return __builtin_cpu_supports ("avx512f")
      && __builtin_cpu_supports ("avx512bw");
}

VhVifFilter16Func
vh_vif_filter16_best (void)
{
  return have_avx512bw () ? filter16_avx512 : NULL;
}

VhVifVertical8Func
vh_vif_vertical8_best (void)
{
  return have_avx512bw () ? vertical8_avx512 : NULL;
}

VhVifSigmasFunc
vh_vif_sigmas_best (void)
{
  return have_avx512bw () ? sigmas_avx512 : NULL;
}
#else
VhVifFilter16Func
vh_vif_filter16_best (void)
{
  return NULL;
}

VhVifVertical8Func
vh_vif_vertical8_best (void)
{
  return NULL;
}

VhVifSigmasFunc
vh_vif_sigmas_best (void)
{
  return NULL;
}
#endif
