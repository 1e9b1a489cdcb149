/* vmafhip — VIF's per-pixel statistic, plain C and AVX-512 (vif-pixels.h). */
#include "vif-pixels.h"

#include "vh-cpu.h"

#include <glib.h>

/* Q11 log2 of x >= 2^17: the top 16 bits through the table, the shift
 * (truncating, as libvmaf) in whole units of 2048. */
static inline int32_t
log2_q11_32 (const uint16_t *table, uint32_t x)
{
  const int k = 16 - __builtin_clz (x);
  return table[x >> k] + 2048 * k;
}

static inline int32_t
log2_q11_64 (const uint16_t *table, uint64_t x)
{
  const int k = 48 - __builtin_clzll (x);
  return table[x >> k] + 2048 * k;
}

void
vh_vif_pixels_scalar (const int32_t *sigma1_sq, const int32_t *sigma2_sq,
    const int32_t *sigma12, unsigned n, double enhn_gain_limit,
    const uint16_t *log2, VhVifScaleSums *acc)
{
  for (unsigned j = 0; j < n; j++) {
    const int32_t s1 = sigma1_sq[j], s2 = sigma2_sq[j], s12 = sigma12[j];
    if (s1 < VH_VIF_SIGMA_NSQ) {
      acc->num_non_log += s2;
      acc->den_non_log++;
      continue;
    }
    /* log2(1 + σ₁²/σ_n²) as L(σ_n² + σ₁²) − L(σ_n²), L(2^17) = 17·2048. */
    acc->den_log += log2_q11_32 (log2, VH_VIF_SIGMA_NSQ + s1)
        - VH_VIF_LOG2_SIGMA_NSQ;
    if (s12 > 0 && s2 > 0) {
      /* The epsilon is libvmaf's, kept for bit-exactness. */
      double g = s12 / (s1 + VH_VIF_EPS);
      /* libvmaf rounds g·σ₁₂ before subtracting (no FMA). The volatile
       * keeps it so whatever the compiler's contraction setting. */
      volatile double g_sigma12 = g * s12;
      /* libvmaf truncates to int32 then clamps at 0; the double is at most
       * σ₂², and a very negative one (out of int32) also ends at 0. */
      const double sv_sq_d = s2 - g_sigma12;
      const int32_t sv_sq = sv_sq_d > 0 ? (int32_t) sv_sq_d : 0;
      /* The gain limit applies after sv² (libvmaf's order). */
      if (!(g < enhn_gain_limit))
        g = enhn_gain_limit;
      const uint32_t n1 = (uint32_t) sv_sq + VH_VIF_SIGMA_NSQ;
      const int64_t n2 = (int64_t) (g * g * s1) + n1;
      acc->num_log += log2_q11_64 (log2, n2) - log2_q11_64 (log2, n1);
    }
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

#define AVX512 __attribute__ ((target ("avx512f,avx512cd,avx512dq,avx512vl,avx512bw")))
#define ROUND (_MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)

/* table[x] for 8 uint32 indices (lanes in `m`; the table has a spare
 * entry at its end, as gathers read 32 bits) */
AVX512 static inline __m256i
gather_log2_32 (const uint16_t *table, __m256i idx, __mmask8 m)
{
  const __m256i v = _mm256_mmask_i32gather_epi32 (_mm256_setzero_si256 (), m,
      idx, (const int *) table, 2);
  return _mm256_and_si256 (v, _mm256_set1_epi32 (0xffff));
}

/* log2_q11_64 of 8 uint64 values (lanes in `m`) */
AVX512 static inline __m512i
log2_q11_64x8 (const uint16_t *table, __m512i x, __mmask8 m)
{
  const __m512i k = _mm512_sub_epi64 (_mm512_set1_epi64 (48),
      _mm512_lzcnt_epi64 (x));
  const __m512i idx = _mm512_srlv_epi64 (x, k);
  const __m256i t = _mm512_mask_i64gather_epi32 (_mm256_setzero_si256 (), m,
      idx, (const int *) table, 2);
  const __m512i t64 = _mm512_cvtepu32_epi64 (_mm256_and_si256 (t,
          _mm256_set1_epi32 (0xffff)));
  return _mm512_add_epi64 (t64, _mm512_slli_epi64 (k, 11));
}

/* Eight pixels at a time, every operation the scalar one's: the same
 * double division, products and truncations, the same table lookups. */
AVX512 static void
pixels_avx512 (const int32_t *sigma1_sq, const int32_t *sigma2_sq,
    const int32_t *sigma12, unsigned n, double enhn_gain_limit,
    const uint16_t *log2, VhVifScaleSums *acc)
{
  const __m256i nsq = _mm256_set1_epi32 (VH_VIF_SIGMA_NSQ);
  const __m256i zero = _mm256_setzero_si256 ();
  const __m512d eps = _mm512_set1_pd (VH_VIF_EPS);
  const __m512d limit = _mm512_set1_pd (enhn_gain_limit);
  __m512i num_non_log = _mm512_setzero_si512 ();
  __m512i den_log = _mm512_setzero_si512 ();
  __m512i num_log = _mm512_setzero_si512 ();
  int64_t den_non_log = 0;

  for (unsigned j = 0; j < n; j += 8) {
    const __mmask8 live = n - j >= 8 ? 0xff
        : (__mmask8) ((1u << (n - j)) - 1);
    const __m256i s1 = _mm256_maskz_loadu_epi32 (live, sigma1_sq + j);
    const __m256i s2 = _mm256_maskz_loadu_epi32 (live, sigma2_sq + j);
    const __m256i s12 = _mm256_maskz_loadu_epi32 (live, sigma12 + j);

    /* σ₁² < σ_n²: σ₂² and a count */
    const __mmask8 small = _mm256_mask_cmplt_epi32_mask (live, s1, nsq);
    num_non_log = _mm512_mask_add_epi64 (num_non_log, small, num_non_log,
        _mm512_cvtepi32_epi64 (s2));
    den_non_log += __builtin_popcount (small);
    const __mmask8 big = live & (__mmask8) ~small;
    if (!big)
      continue;

    /* L32(σ_n² + σ₁²) − 17·2048 */
    const __m256i x = _mm256_add_epi32 (s1, nsq);
    const __m256i k = _mm256_sub_epi32 (_mm256_set1_epi32 (16),
        _mm256_lzcnt_epi32 (x));
    const __m256i l = _mm256_add_epi32 (gather_log2_32 (log2,
            _mm256_srlv_epi32 (x, k), big), _mm256_slli_epi32 (k, 11));
    den_log = _mm512_mask_add_epi64 (den_log, big, den_log,
        _mm512_cvtepi32_epi64 (_mm256_sub_epi32 (l,
                _mm256_set1_epi32 (VH_VIF_LOG2_SIGMA_NSQ))));

    const __mmask8 pos = big & _mm256_cmpgt_epi32_mask (s12, zero)
        & _mm256_cmpgt_epi32_mask (s2, zero);
    if (!pos)
      continue;
    const __m512d d1 = _mm512_cvtepi32_pd (s1);
    const __m512d d12 = _mm512_cvtepi32_pd (s12);
    __m512d g = _mm512_div_pd (d12, _mm512_add_pd (d1, eps));
    /* the _round forms are never fused into an FMA, whatever the build's
     * contraction setting (g·σ₁₂ is rounded before the subtraction) */
    const __m512d sv_d = _mm512_sub_round_pd (_mm512_cvtepi32_pd (s2),
        _mm512_mul_round_pd (g, d12, ROUND), ROUND);
    const __m256i sv = _mm256_maskz_mov_epi32 (_mm512_cmp_pd_mask (sv_d,
            _mm512_setzero_pd (), _CMP_GT_OQ), _mm512_cvttpd_epi32 (sv_d));
    g = _mm512_mask_blend_pd (_mm512_cmp_pd_mask (g, limit, _CMP_LT_OQ),
        limit, g);
    const __m512i n1 = _mm512_cvtepu32_epi64 (_mm256_add_epi32 (sv, nsq));
    const __m512i n2 = _mm512_add_epi64 (_mm512_cvttpd_epi64
        (_mm512_mul_round_pd (_mm512_mul_round_pd (g, g, ROUND), d1, ROUND)),
        n1);
    num_log = _mm512_mask_add_epi64 (num_log, pos, num_log,
        _mm512_sub_epi64 (log2_q11_64x8 (log2, n2, pos),
            log2_q11_64x8 (log2, n1, pos)));
  }
  acc->num_non_log += _mm512_reduce_add_epi64 (num_non_log);
  acc->den_non_log += den_non_log;
  acc->den_log += _mm512_reduce_add_epi64 (den_log);
  acc->num_log += _mm512_reduce_add_epi64 (num_log);
}

/* ---- AVX2: four pixels at a time (the doubles' width) ------------------- */

#define AVX2 __attribute__ ((target ("avx2")))

/* uint32 lanes as exact doubles (the signed conversion, shifted by 2^31) */
AVX2 static inline __m256d
u32_to_pd (__m128i x)
{
  return _mm256_add_pd (_mm256_cvtepi32_pd (_mm_xor_si128 (x,
              _mm_set1_epi32 ((int) 0x80000000u))), _mm256_set1_pd
      (2147483648.0));
}

/* Q11 log2 of integers x (exact doubles, 2^17 <= x < 2^53) in the lanes
 * of `live` (int32 lanes, all ones): the shift k = floor (log2 x) − 15
 * from the double's exponent, the table at the top 16 bits (x · 2^−k,
 * exact, truncated), as int64 lanes.  Other lanes may hold anything: the
 * gather skips them. */
AVX2 static inline __m256i
log2_q11_pd (const uint16_t *table, __m256d x, __m128i live)
{
  const __m256i bits = _mm256_castpd_si256 (x);
  const __m256i k = _mm256_sub_epi64 (_mm256_srli_epi64 (bits, 52),
      _mm256_set1_epi64x (1023 + 15));
  const __m256d scale = _mm256_castsi256_pd (_mm256_slli_epi64
      (_mm256_sub_epi64 (_mm256_set1_epi64x (1023), k), 52));
  const __m128i idx = _mm256_cvttpd_epi32 (_mm256_mul_pd (x, scale));
  const __m128i t = _mm_and_si128 (_mm_mask_i32gather_epi32
      (_mm_setzero_si128 (), (const int *) table, idx, live, 2),
      _mm_set1_epi32 (0xffff));
  return _mm256_add_epi64 (_mm256_cvtepi32_epi64 (t), _mm256_slli_epi64 (k,
          11));
}

/* keeps a product from being fused with the operation that follows,
 * whatever the build's contraction setting */
#define UNFUSED(v) __asm__ ("" : "+x" (v))

/* a comparison's 64-bit lanes (all ones or zero) as 32-bit ones */
AVX2 static inline __m128i
mask_pd_to_32 (__m256d m)
{
  return _mm256_castsi256_si128 (_mm256_permutevar8x32_epi32
      (_mm256_castpd_si256 (m), _mm256_setr_epi32 (0, 2, 4, 6, 0, 2, 4, 6)));
}

AVX2 static void
pixels_avx2 (const int32_t *sigma1_sq, const int32_t *sigma2_sq,
    const int32_t *sigma12, unsigned n, double enhn_gain_limit,
    const uint16_t *log2, VhVifScaleSums *acc)
{
  const __m128i nsq = _mm_set1_epi32 (VH_VIF_SIGMA_NSQ);
  const __m256d eps = _mm256_set1_pd (VH_VIF_EPS);
  const __m256d limit = _mm256_set1_pd (enhn_gain_limit);
  const __m256d zero_pd = _mm256_setzero_pd ();
  __m256i num_non_log = _mm256_setzero_si256 ();
  __m256i den_log = _mm256_setzero_si256 ();
  __m256i num_log = _mm256_setzero_si256 ();
  int64_t den_non_log = 0;
  unsigned j = 0;

  for (; j + 4 <= n; j += 4) {
    const __m128i s1 = _mm_loadu_si128 ((const __m128i *) (sigma1_sq + j));
    const __m128i s2 = _mm_loadu_si128 ((const __m128i *) (sigma2_sq + j));
    const __m128i s12 = _mm_loadu_si128 ((const __m128i *) (sigma12 + j));

    /* σ₁² < σ_n²: σ₂² and a count */
    const __m128i small = _mm_cmplt_epi32 (s1, nsq);
    num_non_log = _mm256_add_epi64 (num_non_log, _mm256_cvtepi32_epi64
        (_mm_and_si128 (s2, small)));
    den_non_log += __builtin_popcount (_mm_movemask_ps (_mm_castsi128_ps
            (small)));
    if (_mm_movemask_ps (_mm_castsi128_ps (small)) == 0xf)
      continue;
    const __m256i big = _mm256_cvtepi32_epi64 (_mm_xor_si128 (small,
            _mm_set1_epi32 (-1)));

    /* L(σ_n² + σ₁²) − 17·2048 */
    const __m256i l = log2_q11_pd (log2, u32_to_pd (_mm_add_epi32 (s1, nsq)),
        _mm_xor_si128 (small, _mm_set1_epi32 (-1)));
    den_log = _mm256_add_epi64 (den_log, _mm256_and_si256 (big,
            _mm256_sub_epi64 (l, _mm256_set1_epi64x (VH_VIF_LOG2_SIGMA_NSQ))));

    const __m128i pos32 = _mm_andnot_si128 (small, _mm_and_si128
        (_mm_cmpgt_epi32 (s12, _mm_setzero_si128 ()), _mm_cmpgt_epi32 (s2,
                _mm_setzero_si128 ())));
    if (_mm_movemask_ps (_mm_castsi128_ps (pos32)) == 0)
      continue;
    const __m256d d1 = _mm256_cvtepi32_pd (s1);
    const __m256d d12 = _mm256_cvtepi32_pd (s12);
    __m256d g = _mm256_div_pd (d12, _mm256_add_pd (d1, eps));
    __m256d g_s12 = _mm256_mul_pd (g, d12);
    UNFUSED (g_s12);
    const __m256d sv_d = _mm256_sub_pd (_mm256_cvtepi32_pd (s2), g_s12);
    /* truncated to int32, 0 unless positive */
    const __m128i sv = _mm_and_si128 (_mm256_cvttpd_epi32 (sv_d),
        mask_pd_to_32 (_mm256_cmp_pd (sv_d, zero_pd, _CMP_GT_OQ)));
    g = _mm256_blendv_pd (limit, g, _mm256_cmp_pd (g, limit, _CMP_LT_OQ));
    const __m256d n1 = u32_to_pd (_mm_add_epi32 (sv, nsq));
    __m256d gg = _mm256_mul_pd (g, g);
    UNFUSED (gg);
    __m256d ggs1 = _mm256_mul_pd (gg, d1);
    UNFUSED (ggs1);
    /* (int64) (g² σ₁²) + n1: below 2^53, exact as a double */
    const __m256d n2 = _mm256_add_pd (_mm256_round_pd (ggs1,
            _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), n1);
    num_log = _mm256_add_epi64 (num_log, _mm256_and_si256
        (_mm256_cvtepi32_epi64 (pos32), _mm256_sub_epi64 (log2_q11_pd (log2,
                    n2, pos32), log2_q11_pd (log2, n1, pos32))));
  }
  int64_t lanes[4];
  _mm256_storeu_si256 ((__m256i *) lanes, num_non_log);
  acc->num_non_log += lanes[0] + lanes[1] + lanes[2] + lanes[3];
  _mm256_storeu_si256 ((__m256i *) lanes, den_log);
  acc->den_log += lanes[0] + lanes[1] + lanes[2] + lanes[3];
  _mm256_storeu_si256 ((__m256i *) lanes, num_log);
  acc->num_log += lanes[0] + lanes[1] + lanes[2] + lanes[3];
  acc->den_non_log += den_non_log;
  vh_vif_pixels_scalar (sigma1_sq + j, sigma2_sq + j, sigma12 + j, n - j,
      enhn_gain_limit, log2, acc);
}

VhVifPixelsFunc
vh_vif_pixels_avx2 (void)
{
  return vh_cpu_simd_detected () >= VH_CPU_SIMD_AVX2 ? pixels_avx2 : NULL;
}

VhVifPixelsFunc
vh_vif_pixels_avx512 (void)
{
  return vh_cpu_simd_detected () >= VH_CPU_SIMD_AVX512 ? pixels_avx512
      : NULL;
}
#else
VhVifPixelsFunc
vh_vif_pixels_avx512 (void)
{
  return NULL;
}

VhVifPixelsFunc
vh_vif_pixels_avx2 (void)
{
  return NULL;
}
#endif

VhVifPixelsFunc
vh_vif_pixels_best (void)
{
  const VhCpuSimd level = vh_cpu_simd_level ();
  VhVifPixelsFunc f = level >= VH_CPU_SIMD_AVX512 ? vh_vif_pixels_avx512 ()
      : level >= VH_CPU_SIMD_AVX2 ? vh_vif_pixels_avx2 () : NULL;
  return f ? f : vh_vif_pixels_scalar;
}
