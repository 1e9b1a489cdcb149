/* vmafhip — ADM's scale-0 DWT passes in AVX2 (adm-dwt-x86.h).
 *
 * Each output is the db2 low-pass or high-pass sum (VH_ADM_DWT_LO, _HI of
 * kernels/adm-params.h) of four samples that fit int16, an int32 sum that
 * cannot overflow: vpmaddwd forms it from the pairs (s0, s1) and (s2, s3)
 * exactly, and the rounding and shift follow as in adm-dwt.c.  The tails
 * take its formula column by column. */
#include "adm-dwt-x86.h"

#ifdef VH_ADM_DWT_X86

#include <immintrin.h>

#include "adm-params.h"

#define AVX2 __attribute__ ((target ("avx2")))

/* Taps a (of the even sample) and b (of the odd one) as the int16 pair
 * vpmaddwd multiplies a sample pair with. */
#define TAP_PAIR(a, b) _mm256_set1_epi32 ((int32_t) ((uint32_t) (uint16_t) (b) \
        << 16 | (uint16_t) (a)))
#define TAP_LO_01 TAP_PAIR (VH_ADM_DB2_H0, VH_ADM_DB2_H1)
#define TAP_LO_23 TAP_PAIR (VH_ADM_DB2_H2, -VH_ADM_DB2_H3)
#define TAP_HI_01 TAP_PAIR (-VH_ADM_DB2_H3, -VH_ADM_DB2_H2)
#define TAP_HI_23 TAP_PAIR (VH_ADM_DB2_H1, -VH_ADM_DB2_H0)

/* The samples as the vector lanes read them, int16 (the same for every
 * sample within 15 bits): the sums then cannot overflow, whatever a
 * picture holds beyond its declared depth. */
static inline int32_t
dwt_lo (int16_t s0, int16_t s1, int16_t s2, int16_t s3)
{
  return VH_ADM_DWT_LO (s0, s1, s2, s3);
}

static inline int32_t
dwt_hi (int16_t s0, int16_t s1, int16_t s2, int16_t s3)
{
  return VH_ADM_DWT_HI (s0, s1, s2, s3);
}

/* one pass's tap sums of the sample pairs (s0, s1) and (s2, s3), plus
 * `add`, shifted */
AVX2 static inline __m256i
tap_sum (__m256i p01, __m256i p23, __m256i t01, __m256i t23, __m256i add,
    __m128i shift)
{
  return _mm256_sra_epi32 (_mm256_add_epi32 (_mm256_add_epi32
          (_mm256_madd_epi16 (p01, t01), _mm256_madd_epi16 (p23, t23)), add),
      shift);
}

/* 8 int32 sums of each half (columns 0-3, 8-11 in a; 4-7, 12-15 in b)
 * stored in column order: 0-7, then 8-15 */
AVX2 static inline void
store_columns (int32_t *out, __m256i a, __m256i b)
{
  _mm256_storeu_si256 ((__m256i *) out, _mm256_permute2x128_si256 (a, b,
          0x20));
  _mm256_storeu_si256 ((__m256i *) (out + 8), _mm256_permute2x128_si256 (a,
          b, 0x31));
}

/* 16 columns of four rows of int16 samples: their low- and high-pass sums,
 * rounded and shifted, stored in column order */
AVX2 static inline void
vertical_16 (__m256i s0, __m256i s1, __m256i s2, __m256i s3, __m256i add_lo,
    __m256i add_hi, __m128i shift, int32_t *lo, int32_t *hi)
{
  /* pairs of columns 0-3, 8-11 (a) and 4-7, 12-15 (b) */
  const __m256i p01a = _mm256_unpacklo_epi16 (s0, s1);
  const __m256i p01b = _mm256_unpackhi_epi16 (s0, s1);
  const __m256i p23a = _mm256_unpacklo_epi16 (s2, s3);
  const __m256i p23b = _mm256_unpackhi_epi16 (s2, s3);
  store_columns (lo, tap_sum (p01a, p23a, TAP_LO_01, TAP_LO_23, add_lo, shift),
      tap_sum (p01b, p23b, TAP_LO_01, TAP_LO_23, add_lo, shift));
  store_columns (hi, tap_sum (p01a, p23a, TAP_HI_01, TAP_HI_23, add_hi, shift),
      tap_sum (p01b, p23b, TAP_HI_01, TAP_HI_23, add_hi, shift));
}

/* 16 samples of row r from column j, as int16 */
#define LOAD16_U8(r, j) \
  _mm256_cvtepu8_epi16 (_mm_loadu_si128 ((const __m128i *) ((r) + (j))))
#define LOAD16_U16(r, j) _mm256_loadu_si256 ((const __m256i *) ((r) + (j)))

/* The vertical pass for one sample type: 16 columns a step, the tail by
 * adm.c's formula */
#define DEF_VERTICAL(name, pixel_t, LOAD16)                                   \
  AVX2 void                                                                   \
  name (const pixel_t *r0, const pixel_t *r1, const pixel_t *r2,              \
      const pixel_t *r3, int n, int32_t add_lo, int32_t add_hi, int shift,    \
      int32_t *lo, int32_t *hi)                                               \
  {                                                                           \
    const __m256i vlo = _mm256_set1_epi32 (add_lo);                           \
    const __m256i vhi = _mm256_set1_epi32 (add_hi);                           \
    const __m128i sh = _mm_cvtsi32_si128 (shift);                             \
    int j = 0;                                                                \
    for (; j + 16 <= n; j += 16)                                              \
      vertical_16 (LOAD16 (r0, j), LOAD16 (r1, j), LOAD16 (r2, j),            \
          LOAD16 (r3, j), vlo, vhi, sh, lo + j, hi + j);                      \
    for (; j < n; j++) {                                                      \
      lo[j] = (dwt_lo (r0[j], r1[j], r2[j], r3[j]) + add_lo) >> shift;        \
      hi[j] = (dwt_hi (r0[j], r1[j], r2[j], r3[j]) + add_hi) >> shift;        \
    }                                                                         \
  }

DEF_VERTICAL (vh_adm_dwt_vertical_u8_avx2, uint8_t, LOAD16_U8)
DEF_VERTICAL (vh_adm_dwt_vertical_u16_avx2, uint16_t, LOAD16_U16)

/* 16 int32 values from t (which fit int16) as int16, in order */
AVX2 static inline __m256i
pack16 (const int32_t *t)
{
  const __m256i a = _mm256_loadu_si256 ((const __m256i *) t);
  const __m256i b = _mm256_loadu_si256 ((const __m256i *) (t + 8));
  return _mm256_permute4x64_epi64 (_mm256_packs_epi32 (a, b), 0xd8);
}

AVX2 void
vh_adm_dwt_horizontal_s0_avx2 (const int32_t *t, int half, int32_t *lo,
    int32_t *hi)
{
  const __m256i add = _mm256_set1_epi32 (1 << 15);
  const __m128i shift = _mm_cvtsi32_si128 (16);
  int j = 0;
  /* outputs j .. j+7 read t[2j - 1 .. 2j + 16] */
  for (; j + 8 <= half; j += 8) {
    const __m256i p01 = pack16 (t + 2 * j - 1);   /* (s0, s1) per output */
    const __m256i p23 = pack16 (t + 2 * j + 1);   /* (s2, s3) */
    _mm256_storeu_si256 ((__m256i *) (lo + j), tap_sum (p01, p23, TAP_LO_01,
            TAP_LO_23, add, shift));
    _mm256_storeu_si256 ((__m256i *) (hi + j), tap_sum (p01, p23, TAP_HI_01,
            TAP_HI_23, add, shift));
  }
  for (; j < half; j++) {
    const int16_t s0 = (int16_t) t[2 * j - 1], s1 = (int16_t) t[2 * j];
    const int16_t s2 = (int16_t) t[2 * j + 1], s3 = (int16_t) t[2 * j + 2];
    lo[j] = (dwt_lo (s0, s1, s2, s3) + (1 << 15)) >> 16;
    hi[j] = (dwt_hi (s0, s1, s2, s3) + (1 << 15)) >> 16;
  }
}

#else
/* not x86-64: nothing here (ISO C wants a declaration in every file) */
typedef int vh_adm_dwt_x86_unused;
#endif
