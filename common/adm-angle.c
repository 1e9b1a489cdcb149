/* vmafhip — ADM's decouple angle test (adm-angle.h). */
#include "adm-angle.h"

#include "vh-cpu.h"

#include <glib.h>

/* QUIRK: libvmaf rounds the int64 products to float, then scales and
 * compares in double. */
static inline uint8_t
angle_within_1deg (int32_t oh, int32_t ov, int32_t th, int32_t tv,
    float cos_sq)
{
  const int64_t dp = (int64_t) oh * th + (int64_t) ov * tv;
  const int64_t o2 = (int64_t) oh * oh + (int64_t) ov * ov;
  const int64_t t2 = (int64_t) th * th + (int64_t) tv * tv;
  const double dpf = (float) dp / 4096.0;
  return (dpf >= 0.0f)
      & (dpf * dpf >= cos_sq * ((float) o2 / 4096.0) * ((float) t2 / 4096.0));
}

void
vh_adm_angle_flags_c (const int32_t *oh, const int32_t *ov,
    const int32_t *th, const int32_t *tv, int l, int r, float cos_sq,
    uint8_t *flags)
{
  for (int j = l; j < r; j++)
    flags[j] = angle_within_1deg (oh[j], ov[j], th[j], tv[j], cos_sq);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

#define AVX512 __attribute__ ((target ("avx512f,avx512dq,avx512vl,avx512bw")))
#define ROUND (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* an int64 sum of two products, rounded to float, widened to double and
 * scaled by 1/4096 (exact) */
AVX512 static inline __m512d
scaled (__m512i a, __m512i b, __m512i c, __m512i d)
{
  const __m512i s = _mm512_add_epi64 (_mm512_mullo_epi64 (a, b),
      _mm512_mullo_epi64 (c, d));
  return _mm512_mul_round_pd (_mm512_cvtps_pd (_mm512_cvtepi64_ps (s)),
      _mm512_set1_pd (1.0 / 4096.0), ROUND);
}

AVX512 static void
angle_flags_avx512 (const int32_t *oh, const int32_t *ov, const int32_t *th,
    const int32_t *tv, int l, int r, float cos_sq, uint8_t *flags)
{
  const __m512d cos_d = _mm512_set1_pd (cos_sq);
  int j = l;
  for (; j + 8 <= r; j += 8) {
    const __m512i a = _mm512_cvtepi32_epi64 (_mm256_loadu_si256
        ((const __m256i *) (oh + j)));
    const __m512i b = _mm512_cvtepi32_epi64 (_mm256_loadu_si256
        ((const __m256i *) (ov + j)));
    const __m512i c = _mm512_cvtepi32_epi64 (_mm256_loadu_si256
        ((const __m256i *) (th + j)));
    const __m512i d = _mm512_cvtepi32_epi64 (_mm256_loadu_si256
        ((const __m256i *) (tv + j)));
    const __m512d dpf = scaled (a, c, b, d);
    const __m512d o2 = scaled (a, a, b, b);
    const __m512d t2 = scaled (c, c, d, d);
    /* (cos² · o2) · t2, each product rounded (never fused) */
    const __m512d rhs = _mm512_mul_round_pd (_mm512_mul_round_pd (cos_d, o2,
            ROUND), t2, ROUND);
    const __mmask8 m = _mm512_cmp_pd_mask (dpf, _mm512_setzero_pd (),
        _CMP_GE_OQ) & _mm512_cmp_pd_mask (_mm512_mul_round_pd (dpf, dpf,
            ROUND), rhs, _CMP_GE_OQ);
    _mm_storel_epi64 ((__m128i *) (flags + j), _mm_maskz_set1_epi8 (m, 1));
  }
  vh_adm_angle_flags_c (oh, ov, th, tv, j, r, cos_sq, flags);
}

VhAdmAngleFunc
vh_adm_angle_flags_best (void)
{
  if (vh_cpu_simd_allowed () < VH_CPU_SIMD_AVX512)
    return vh_adm_angle_flags_c;
  __builtin_cpu_init ();
  if (__builtin_cpu_supports ("avx512f") && __builtin_cpu_supports ("avx512dq")
      && __builtin_cpu_supports ("avx512vl")
      && __builtin_cpu_supports ("avx512bw"))
    return angle_flags_avx512;
  return vh_adm_angle_flags_c;
}
#else
VhAdmAngleFunc
vh_adm_angle_flags_best (void)
{
  return vh_adm_angle_flags_c;
}
#endif
