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

/* 32 sums of even columns and 32 of odd ones, interleaved back */
AVX512 static inline void
store_interleaved (uint32_t *out, __m512i even, __m512i odd)
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
store_16 (uint16_t *out, __m512i v, uint16_t flip)
{
  _mm256_storeu_si256 ((__m256i *) out, _mm256_xor_si256
      (_mm512_cvtepi32_epi16 (v), _mm256_set1_epi16 ((short) flip)));
}

/* 32 consecutive uint32 in column order, (v + round) >> shift, to uint16 */
AVX512 static inline void
store_u16 (uint16_t *out, const uint32_t *sums, unsigned shift,
    uint32_t round, uint16_t flip)
{
  const __m512i r = _mm512_set1_epi32 ((int) round);
  for (int h = 0; h < 2; h++)
    store_16 (out + 16 * h, _mm512_srli_epi32 (_mm512_add_epi32
            (_mm512_loadu_si512 (sums + 16 * h), r), shift), flip);
}

/* The kernels, once with vpmaddwd + vpaddd and once with AVX512-VNNI's
 * vpdpwssd, which does both (the same modular sums): DP (acc, a, b) is
 * acc + a0 b0 + a1 b1 per 32-bit lane. */
#define DP_MADD(acc, a, b) _mm512_add_epi32 (acc, _mm512_madd_epi16 (a, b))
#define DP_VNNI(acc, a, b) _mm512_dpwssd_epi32 (acc, a, b)

#define DEFINE_KERNELS(sfx, isa, DP)                                     \
__attribute__ ((target (isa))) static void                               \
filter16_##sfx (uint32_t *out, const uint16_t *const *x,                    \
    const uint16_t *taps, unsigned ntaps, unsigned n)                       \
{                                                                           \
  uint32_t pairs[MAX_PAIRS], tap_sum;                                       \
  const unsigned npairs = tap_pairs (taps, ntaps, pairs, &tap_sum);         \
  __m512i f[MAX_PAIRS];                                                     \
  for (unsigned p = 0; p < npairs; p++)                                     \
    f[p] = _mm512_set1_epi32 ((int) pairs[p]);                              \
  const __m512i bias = _mm512_set1_epi16 ((short) 0x8000);                  \
  /* Σ f (x − 32768) + 32768 Σ f, modulo 2^32 */                            \
  const __m512i offset = _mm512_set1_epi32 ((int) (32768u * tap_sum));      \
                                                                            \
  for (unsigned j = 0; j < n; j += 32) {                                    \
    __m512i lo = offset, hi = offset;                                       \
    for (unsigned p = 0; p < npairs; p++) {                                 \
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;         \
      const __m512i a = _mm512_xor_si512 (_mm512_loadu_si512 (x[k0] + j),   \
          bias);                                                            \
      const __m512i b = k1 == k0 ? a : _mm512_xor_si512                     \
          (_mm512_loadu_si512 (x[k1] + j), bias);                           \
      lo = DP (lo, _mm512_unpacklo_epi16 (a, b), f[p]);                     \
      hi = DP (hi, _mm512_unpackhi_epi16 (a, b), f[p]);                     \
    }                                                                       \
    store_in_order (out + j, lo, hi);                                       \
  }                                                                         \
}                                                                           \
                                                                            \
/* one row, its samples stored biased (x ^ 0x8000, as the vertical passes \
 * here write them): a pair of taps multiplies adjacent samples, so a load \
 * at the pair's offset gives the even columns' terms and one a sample     \
 * further the odd columns' (no unpacking) */                               \
__attribute__ ((target (isa))) static void                               \
hfilter16_##sfx (uint32_t *out, const uint16_t *x, const uint16_t *taps,    \
    unsigned ntaps, unsigned n)                                             \
{                                                                           \
  uint32_t pairs[MAX_PAIRS], tap_sum;                                       \
  const unsigned npairs = tap_pairs (taps, ntaps, pairs, &tap_sum);         \
  __m512i f[MAX_PAIRS];                                                     \
  for (unsigned p = 0; p < npairs; p++)                                     \
    f[p] = _mm512_set1_epi32 ((int) pairs[p]);                              \
  const __m512i offset = _mm512_set1_epi32 ((int) (32768u * tap_sum));      \
                                                                            \
  for (unsigned j = 0; j < n; j += 32) {                                    \
    __m512i even = offset, odd = offset;                                    \
    for (unsigned p = 0; p < npairs; p++) {                                 \
      const uint16_t *at = x + j + 2 * p;                                   \
      even = DP (even, _mm512_loadu_si512 (at), f[p]);                      \
      odd = DP (odd, _mm512_loadu_si512 (at + 1), f[p]);                    \
    }                                                                       \
    store_interleaved (out + j, even, odd);                                 \
  }                                                                         \
}                                                                           \
                                                                            \
__attribute__ ((target (isa))) static void                               \
vertical8_##sfx (uint16_t *const out[8], const uint8_t *const *r,           \
    const uint8_t *const *d, const uint16_t *taps, unsigned ntaps,          \
    unsigned n)                                                             \
{                                                                           \
  uint32_t pairs[MAX_PAIRS], tap_sum;                                       \
  const unsigned npairs = tap_pairs (taps, ntaps, pairs, &tap_sum);         \
  __m512i f[MAX_PAIRS];                                                     \
  for (unsigned p = 0; p < npairs; p++)                                     \
    f[p] = _mm512_set1_epi32 ((int) pairs[p]);                              \
  const __m512i bias = _mm512_set1_epi16 ((short) 0x8000);                  \
  /* the squares (up to 65025) are biased, the samples (up to 255) not */   \
  const __m512i offset = _mm512_set1_epi32 ((int) (32768u * tap_sum));      \
  const __m512i zero = _mm512_setzero_si512 ();                             \
  uint32_t sums[5][32] __attribute__ ((aligned (64)));                      \
                                                                            \
  for (unsigned j = 0; j < n; j += 32) {                                    \
    __m512i lo[5] = { zero, zero, offset, offset, offset };                 \
    __m512i hi[5] = { zero, zero, offset, offset, offset };                 \
    for (unsigned p = 0; p < npairs; p++) {                                 \
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;         \
      const __m512i r0 = _mm512_cvtepu8_epi16 (_mm256_loadu_si256           \
          ((const __m256i *) (r[k0] + j)));                                 \
      const __m512i d0 = _mm512_cvtepu8_epi16 (_mm256_loadu_si256           \
          ((const __m256i *) (d[k0] + j)));                                 \
      const __m512i r1 = _mm512_cvtepu8_epi16 (_mm256_loadu_si256           \
          ((const __m256i *) (r[k1] + j)));                                 \
      const __m512i d1 = _mm512_cvtepu8_epi16 (_mm256_loadu_si256           \
          ((const __m256i *) (d[k1] + j)));                                 \
      const __m512i q[5][2] = {                                             \
        { r0, r1 }, { d0, d1 },                                             \
        { _mm512_xor_si512 (_mm512_mullo_epi16 (r0, r0), bias),             \
          _mm512_xor_si512 (_mm512_mullo_epi16 (r1, r1), bias) },           \
        { _mm512_xor_si512 (_mm512_mullo_epi16 (d0, d0), bias),             \
          _mm512_xor_si512 (_mm512_mullo_epi16 (d1, d1), bias) },           \
        { _mm512_xor_si512 (_mm512_mullo_epi16 (r0, d0), bias),             \
          _mm512_xor_si512 (_mm512_mullo_epi16 (r1, d1), bias) },           \
      };                                                                    \
      for (int v = 0; v < 5; v++) {                                         \
        lo[v] = DP (lo[v], _mm512_unpacklo_epi16 (q[v][0], q[v][1]), f[p]); \
        hi[v] = DP (hi[v], _mm512_unpackhi_epi16 (q[v][0], q[v][1]), f[p]); \
      }                                                                     \
    }                                                                       \
    for (int v = 0; v < 5; v++)                                             \
      store_in_order (sums[v], lo[v], hi[v]);                               \
    /* μ: (Σ + 128) >> 8; the square sums split into halves */              \
    store_u16 (out[0] + j, sums[0], 8, 128, 0x8000);                        \
    store_u16 (out[1] + j, sums[1], 8, 128, 0x8000);                        \
    for (int v = 2; v < 5; v++) {                                           \
      store_u16 (out[2 * v - 2] + j, sums[v], 16, 0, 0x8000);               \
      store_u16 (out[2 * v - 1] + j, sums[v], 0, 0, 0x8000);                \
    }                                                                       \
  }                                                                         \
}                                                                            \
__attribute__ ((target (isa))) static void                                  \
vertical16_##sfx (uint16_t *const out[8], const uint16_t *const *r,         \
    const uint16_t *const *d, const uint16_t *taps, unsigned ntaps,         \
    unsigned mu_shift, unsigned sq_shift, unsigned n)                       \
{                                                                           \
  uint32_t pairs[MAX_PAIRS], tap_sum;                                       \
  const unsigned npairs = tap_pairs (taps, ntaps, pairs, &tap_sum);         \
  __m512i f[MAX_PAIRS];                                                     \
  for (unsigned p = 0; p < npairs; p++)                                     \
    f[p] = _mm512_set1_epi32 ((int) pairs[p]);                              \
  const __m512i bias = _mm512_set1_epi16 ((short) 0x8000);                  \
  const __m512i offset = _mm512_set1_epi32 ((int) (32768u * tap_sum));      \
  uint32_t sums[8][32] __attribute__ ((aligned (64)));                      \
                                                                            \
  for (unsigned j = 0; j < n; j += 32) {                                    \
    __m512i lo[8], hi[8];                                                   \
    for (int v = 0; v < 8; v++)                                             \
      lo[v] = hi[v] = offset;                                               \
    for (unsigned p = 0; p < npairs; p++) {                                 \
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;         \
      const __m512i r0 = _mm512_loadu_si512 (r[k0] + j);                    \
      const __m512i d0 = _mm512_loadu_si512 (d[k0] + j);                    \
      const __m512i r1 = _mm512_loadu_si512 (r[k1] + j);                    \
      const __m512i d1 = _mm512_loadu_si512 (d[k1] + j);                    \
      /* μ, then each 32-bit product's high and low 16 bits */              \
      const __m512i q[8][2] = {                                             \
        { _mm512_xor_si512 (r0, bias), _mm512_xor_si512 (r1, bias) },       \
        { _mm512_xor_si512 (d0, bias), _mm512_xor_si512 (d1, bias) },       \
        { _mm512_xor_si512 (_mm512_mulhi_epu16 (r0, r0), bias),             \
          _mm512_xor_si512 (_mm512_mulhi_epu16 (r1, r1), bias) },           \
        { _mm512_xor_si512 (_mm512_mullo_epi16 (r0, r0), bias),             \
          _mm512_xor_si512 (_mm512_mullo_epi16 (r1, r1), bias) },           \
        { _mm512_xor_si512 (_mm512_mulhi_epu16 (d0, d0), bias),             \
          _mm512_xor_si512 (_mm512_mulhi_epu16 (d1, d1), bias) },           \
        { _mm512_xor_si512 (_mm512_mullo_epi16 (d0, d0), bias),             \
          _mm512_xor_si512 (_mm512_mullo_epi16 (d1, d1), bias) },           \
        { _mm512_xor_si512 (_mm512_mulhi_epu16 (r0, d0), bias),             \
          _mm512_xor_si512 (_mm512_mulhi_epu16 (r1, d1), bias) },           \
        { _mm512_xor_si512 (_mm512_mullo_epi16 (r0, d0), bias),             \
          _mm512_xor_si512 (_mm512_mullo_epi16 (r1, d1), bias) },           \
      };                                                                    \
      for (int v = 0; v < 8; v++) {                                         \
        lo[v] = DP (lo[v], _mm512_unpacklo_epi16 (q[v][0], q[v][1]), f[p]); \
        hi[v] = DP (hi[v], _mm512_unpackhi_epi16 (q[v][0], q[v][1]), f[p]); \
      }                                                                     \
    }                                                                       \
    for (int v = 0; v < 8; v++)                                             \
      store_in_order (sums[v], lo[v], hi[v]);                               \
    store_u16 (out[0] + j, sums[0], mu_shift, 1u << (mu_shift - 1),         \
        0x8000);                                                            \
    store_u16 (out[1] + j, sums[1], mu_shift, 1u << (mu_shift - 1),         \
        0x8000);                                                            \
    /* (hi << (16 − s)) + ((lo + 2^(s−1)) >> s), split into halves */       \
    for (int v = 2; v < 8; v += 2) {                                        \
      for (int h = 0; h < 2; h++) {                                         \
        const __m512i sh = _mm512_loadu_si512 (sums[v] + 16 * h);           \
        const __m512i sl = _mm512_loadu_si512 (sums[v + 1] + 16 * h);       \
        const __m512i c = _mm512_add_epi32 (_mm512_sll_epi32 (sh,           \
                _mm_cvtsi32_si128 ((int) (16 - sq_shift))),                 \
            _mm512_srl_epi32 (_mm512_add_epi32 (sl, _mm512_set1_epi32       \
                    ((int) (1u << (sq_shift - 1)))),                        \
                _mm_cvtsi32_si128 ((int) sq_shift)));                       \
        store_16 (out[v] + j + 16 * h, _mm512_srli_epi32 (c, 16), 0x8000);  \
        store_16 (out[v + 1] + j + 16 * h, c, 0x8000);                      \
      }                                                                     \
    }                                                                       \
  }                                                                         \
}                                                                           \
                                                                            \
__attribute__ ((target (isa))) static void                                  \
subsample8_##sfx (uint16_t *out, const uint8_t *const *x,                   \
    const uint16_t *taps, unsigned ntaps, unsigned shift, unsigned n)       \
{                                                                           \
  uint32_t pairs[MAX_PAIRS], tap_sum;                                       \
  const unsigned npairs = tap_pairs (taps, ntaps, pairs, &tap_sum);         \
  __m512i f[MAX_PAIRS];                                                     \
  for (unsigned p = 0; p < npairs; p++)                                     \
    f[p] = _mm512_set1_epi32 ((int) pairs[p]);                              \
  uint32_t sums[32] __attribute__ ((aligned (64)));                         \
                                                                            \
  for (unsigned j = 0; j < n; j += 32) {                                    \
    __m512i lo = _mm512_setzero_si512 (), hi = lo;                          \
    for (unsigned p = 0; p < npairs; p++) {                                 \
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;         \
      const __m512i a = _mm512_cvtepu8_epi16 (_mm256_loadu_si256            \
          ((const __m256i *) (x[k0] + j)));                                 \
      const __m512i b = _mm512_cvtepu8_epi16 (_mm256_loadu_si256            \
          ((const __m256i *) (x[k1] + j)));                                 \
      lo = DP (lo, _mm512_unpacklo_epi16 (a, b), f[p]);                     \
      hi = DP (hi, _mm512_unpackhi_epi16 (a, b), f[p]);                     \
    }                                                                       \
    store_in_order (sums, lo, hi);                                          \
    store_u16 (out + j, sums, shift, 1u << (shift - 1), 0);                 \
  }                                                                         \
}

DEFINE_KERNELS (avx512, "avx512f,avx512bw", DP_MADD)
DEFINE_KERNELS (vnni, "avx512f,avx512bw,avx512vnni", DP_VNNI)

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

/* 0: none (or VMAFHIP_CPU_SIMD=0), 1: AVX-512 BW, 2: and VNNI */
static int
level (void)
{
  const char *simd = g_getenv ("VMAFHIP_CPU_SIMD");
  if (simd && !g_strcmp0 (simd, "0"))
    return 0;
  __builtin_cpu_init ();
  if (!__builtin_cpu_supports ("avx512f")
      || !__builtin_cpu_supports ("avx512bw"))
    return 0;
  return __builtin_cpu_supports ("avx512vnni") ? 2 : 1;
}

static gboolean
have_avx512bw (void)
{
  return level () > 0;
}

VhVifFilter16Func
vh_vif_filter16_best (void)
{
  const int l = level ();
  return l == 2 ? filter16_vnni : l == 1 ? filter16_avx512 : NULL;
}

VhVifHFilter16Func
vh_vif_hfilter16_best (void)
{
  const int l = level ();
  return l == 2 ? hfilter16_vnni : l == 1 ? hfilter16_avx512 : NULL;
}

VhVifVertical8Func
vh_vif_vertical8_best (void)
{
  const int l = level ();
  return l == 2 ? vertical8_vnni : l == 1 ? vertical8_avx512 : NULL;
}

VhVifVertical16Func
vh_vif_vertical16_best (void)
{
  const int l = level ();
  return l == 2 ? vertical16_vnni : l == 1 ? vertical16_avx512 : NULL;
}

VhVifSubsample8Func
vh_vif_subsample8_best (void)
{
  const int l = level ();
  return l == 2 ? subsample8_vnni : l == 1 ? subsample8_avx512 : NULL;
}

VhVifFilter16Func
vh_vif_filter16_avx512_only (void)
{
  return level () > 0 ? filter16_avx512 : NULL;
}

VhVifHFilter16Func
vh_vif_hfilter16_avx512_only (void)
{
  return level () > 0 ? hfilter16_avx512 : NULL;
}

VhVifVertical8Func
vh_vif_vertical8_avx512_only (void)
{
  return level () > 0 ? vertical8_avx512 : NULL;
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

VhVifVertical16Func
vh_vif_vertical16_best (void)
{
  return NULL;
}

VhVifSubsample8Func
vh_vif_subsample8_best (void)
{
  return NULL;
}

VhVifHFilter16Func
vh_vif_hfilter16_best (void)
{
  return NULL;
}

VhVifFilter16Func
vh_vif_filter16_avx512_only (void)
{
  return NULL;
}

VhVifHFilter16Func
vh_vif_hfilter16_avx512_only (void)
{
  return NULL;
}

VhVifVertical8Func
vh_vif_vertical8_avx512_only (void)
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
