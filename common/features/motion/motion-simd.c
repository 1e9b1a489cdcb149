/* vmafhip — motion's SAD by hand (motion-simd.h): x86-64 AVX2 and AVX-512
 * from one template (motion-simd-template.h), aarch64 NEON below. */
#include "motion-simd.h"

#include "vh-cpu.h"
#include "motion-params.h"

#include <glib.h>

/* Reflect-101 for indices at most VH_MOTION_RADIUS outside [0, n), n >= 3
 * (as motion.c). */
static inline int
motion_reflect101 (int i, int n)
{
  if (i < 0)
    return -i;
  if (i >= n)
    return 2 * n - 2 - i;
  return i;
}

/* p rounded up to a multiple of 64 bytes */
static inline void *
motion_align64 (void *p)
{
  return (void *) (((uintptr_t) p + 63) & ~(uintptr_t) 63);
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

#include "vh-x86-reduce.h"


/* ---- AVX-512 (BW) --------------------------------------------------------- */

/* vpunpck{l,h}wd pair the columns 8L + 0..3 and 8L + 4..7 of each 128-bit
 * lane L; this stores the 32-bit results in column order */
__attribute__ ((target ("avx512f,avx512bw"))) static inline void
store_unpacked32_512 (int32_t *out, __m512i lo, __m512i hi)
{
  const __m512i first = _mm512_setr_epi32 (0, 1, 2, 3, 16, 17, 18, 19,
      4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i second = _mm512_setr_epi32 (8, 9, 10, 11, 24, 25, 26, 27,
      12, 13, 14, 15, 28, 29, 30, 31);
  _mm512_storeu_si512 (out, _mm512_permutex2var_epi32 (lo, first, hi));
  _mm512_storeu_si512 (out + 16, _mm512_permutex2var_epi32 (lo, second,
          hi));
}

#define V __m512i
#define W 32
#define LOAD16(p) _mm512_loadu_si512 (p)
#define LOAD8(p) _mm512_cvtepu8_epi16 (_mm256_loadu_si256 \
    ((const __m256i *) (p)))
#define LOAD32(p) _mm512_loadu_si512 (p)
#define STORE(p, v) _mm512_storeu_si512 (p, v)
#define ZERO _mm512_setzero_si512 ()
#define SET1_16(x) _mm512_set1_epi16 (x)
#define SET1_32(x) _mm512_set1_epi32 (x)
#define ADD16(a, b) _mm512_add_epi16 (a, b)
#define SUB16(a, b) _mm512_sub_epi16 (a, b)
#define ADD32(a, b) _mm512_add_epi32 (a, b)
#define MULLO32(a, b) _mm512_mullo_epi32 (a, b)
#define OR(a, b) _mm512_or_si512 (a, b)
#define ABS32(a) _mm512_abs_epi32 (a)
#define UNPACKLO16(a, b) _mm512_unpacklo_epi16 (a, b)
#define UNPACKHI16(a, b) _mm512_unpackhi_epi16 (a, b)
#define STORE_UNPACKED32(p, lo, hi) store_unpacked32_512 (p, lo, hi)
#define SRA32(v, n) _mm512_sra_epi32 (v, n)
#define SRAI32(v, i) _mm512_srai_epi32 (v, i)
#define KEEP_FROM32(v, from) _mm512_maskz_mov_epi32 \
  ((__mmask16) (0xffffu << (from)), v)
#define IS_ZERO(v) (_mm512_test_epi32_mask (v, v) == 0)
#define REDUCE32(v) vh_reduce_add32_512 (v)

#define SFX avx512
#define ISA "avx512f,avx512bw"
#define DP(acc, a, b) _mm512_add_epi32 (acc, _mm512_madd_epi16 (a, b))
#include "motion-simd-template.h"
#undef SFX
#undef ISA
#undef DP

#undef V
#undef W
#undef LOAD16
#undef LOAD8
#undef STORE
#undef LOAD32
#undef MULLO32
#undef STORE_UNPACKED32
#undef KEEP_FROM32
#undef ZERO
#undef SET1_16
#undef SET1_32
#undef ADD16
#undef SUB16
#undef ADD32
#undef OR
#undef ABS32
#undef UNPACKLO16
#undef UNPACKHI16
#undef SRA32
#undef SRAI32
#undef IS_ZERO
#undef REDUCE32

/* ---- AVX2 ------------------------------------------------------------------ */

__attribute__ ((target ("avx2"))) static inline void
store_unpacked32_256 (int32_t *out, __m256i lo, __m256i hi)
{
  _mm256_storeu_si256 ((__m256i *) out, _mm256_permute2x128_si256 (lo, hi,
          0x20));
  _mm256_storeu_si256 ((__m256i *) (out + 8), _mm256_permute2x128_si256 (lo,
          hi, 0x31));
}

/* 32-bit lanes from `from` (0..8) on */
__attribute__ ((target ("avx2"))) static inline __m256i
keep_from32_256 (__m256i v, unsigned from)
{
  const __m256i lanes = _mm256_setr_epi32 (0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_and_si256 (v, _mm256_cmpgt_epi32 (lanes,
          _mm256_set1_epi32 ((int) from - 1)));
}

#define V __m256i
#define W 16
#define LOAD16(p) _mm256_loadu_si256 ((const __m256i *) (p))
#define LOAD8(p) _mm256_cvtepu8_epi16 (_mm_loadu_si128 \
    ((const __m128i *) (p)))
#define LOAD32(p) _mm256_loadu_si256 ((const __m256i *) (p))
#define STORE(p, v) _mm256_storeu_si256 ((__m256i *) (p), v)
#define ZERO _mm256_setzero_si256 ()
#define SET1_16(x) _mm256_set1_epi16 (x)
#define SET1_32(x) _mm256_set1_epi32 (x)
#define ADD16(a, b) _mm256_add_epi16 (a, b)
#define SUB16(a, b) _mm256_sub_epi16 (a, b)
#define ADD32(a, b) _mm256_add_epi32 (a, b)
#define MULLO32(a, b) _mm256_mullo_epi32 (a, b)
#define OR(a, b) _mm256_or_si256 (a, b)
#define ABS32(a) _mm256_abs_epi32 (a)
#define UNPACKLO16(a, b) _mm256_unpacklo_epi16 (a, b)
#define UNPACKHI16(a, b) _mm256_unpackhi_epi16 (a, b)
#define STORE_UNPACKED32(p, lo, hi) store_unpacked32_256 (p, lo, hi)
#define SRA32(v, n) _mm256_sra_epi32 (v, n)
#define SRAI32(v, i) _mm256_srai_epi32 (v, i)
#define KEEP_FROM32(v, from) keep_from32_256 (v, from)
#define IS_ZERO(v) _mm256_testz_si256 (v, v)
#define REDUCE32(v) vh_reduce_add32_256 (v)

#define SFX avx2
#define ISA "avx2"
#define DP(acc, a, b) _mm256_add_epi32 (acc, _mm256_madd_epi16 (a, b))
#include "motion-simd-template.h"

/* every version, best first, with the level it needs (vh-cpu.h) */
static const VhMotionSadVersion sad_avx512 = {
  "avx512", motion_sad_simd_avx512
};
static const VhMotionSadVersion sad_avx2 = { "avx2", motion_sad_simd_avx2 };
static const VhCpuVersion versions[] = {
  {&sad_avx512, VH_CPU_SIMD_AVX512, 0},
  {&sad_avx2, VH_CPU_SIMD_AVX2, 0},
  {NULL, 0, 0},
};

#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>


/* 8 differences prev − cur from column x, as int16 */
static inline int16x8_t
motion_difference_neon (const void *prev, const void *cur, unsigned x,
    int wide)
{
  if (wide)
    return vreinterpretq_s16_u16 (vsubq_u16 (vld1q_u16 ((const uint16_t *)
                prev + x), vld1q_u16 ((const uint16_t *) cur + x)));
  return vreinterpretq_s16_u16 (vsubl_u8 (vld1_u8 ((const uint8_t *) prev
              + x), vld1_u8 ((const uint8_t *) cur + x)));
}

/* The vertical pass of 8 columns from x into out[x] (the C's int32 row):
 * widening multiply-adds of the tap sums; returns the values OR-ed. */
static inline int32x4_t
motion_vertical_neon (const void *const p[5], const void *const c[5],
    unsigned x, int wide, int32x4_t round, int32x4_t shift, int32_t *out)
{
  const int16x8_t outer = vaddq_s16 (motion_difference_neon (p[0], c[0], x,
          wide), motion_difference_neon (p[4], c[4], x, wide));
  const int16x8_t inner = vaddq_s16 (motion_difference_neon (p[1], c[1], x,
          wide), motion_difference_neon (p[3], c[3], x, wide));
  const int16x8_t centre = motion_difference_neon (p[2], c[2], x, wide);
  int32x4_t lo = vmlal_n_s16 (round, vget_low_s16 (outer),
      VH_MOTION_TAP_OUTER);
  lo = vmlal_n_s16 (lo, vget_low_s16 (inner), VH_MOTION_TAP_INNER);
  lo = vmlal_n_s16 (lo, vget_low_s16 (centre), VH_MOTION_TAP_CENTRE);
  int32x4_t hi = vmlal_high_n_s16 (round, outer, VH_MOTION_TAP_OUTER);
  hi = vmlal_high_n_s16 (hi, inner, VH_MOTION_TAP_INNER);
  hi = vmlal_high_n_s16 (hi, centre, VH_MOTION_TAP_CENTRE);
  lo = vshlq_s32 (lo, shift);      /* arithmetic shift right by bpc */
  hi = vshlq_s32 (hi, shift);
  vst1q_s32 (out + x, lo);
  vst1q_s32 (out + x + 4, hi);
  return vorrq_s32 (lo, hi);
}

/* |horizontal pass| of columns x .. x + 3 of the row v (index 0 is column
 * −2): the tap sums in int64, (S + 2^15) >> 16 by a rounding narrow */
static inline uint32x4_t
motion_horizontal_neon (const int32_t *v, unsigned x)
{
  const int32x4_t outer = vaddq_s32 (vld1q_s32 (v + x),
      vld1q_s32 (v + x + 4));
  const int32x4_t inner = vaddq_s32 (vld1q_s32 (v + x + 1),
      vld1q_s32 (v + x + 3));
  const int32x4_t centre = vld1q_s32 (v + x + 2);
  int64x2_t lo = vmull_n_s32 (vget_low_s32 (outer), VH_MOTION_TAP_OUTER);
  lo = vmlal_n_s32 (lo, vget_low_s32 (inner), VH_MOTION_TAP_INNER);
  lo = vmlal_n_s32 (lo, vget_low_s32 (centre), VH_MOTION_TAP_CENTRE);
  int64x2_t hi = vmull_high_n_s32 (outer, VH_MOTION_TAP_OUTER);
  hi = vmlal_high_n_s32 (hi, inner, VH_MOTION_TAP_INNER);
  hi = vmlal_high_n_s32 (hi, centre, VH_MOTION_TAP_CENTRE);
  const int32x4_t val = vcombine_s32 (vrshrn_n_s64 (lo, 16),
      vrshrn_n_s64 (hi, 16));
  return vreinterpretq_u32_s32 (vabsq_s32 (val));
}

static inline __attribute__ ((always_inline)) uint64_t
motion_sad_neon_of (const VhPlane *prev, const VhPlane *cur, unsigned bpc,
    void *scratch, int wide)
{
  const unsigned width = prev->width, height = prev->height;
  int32_t *vrow = scratch, *out = vrow + VH_MOTION_RADIUS;
  const int32x4_t round = vdupq_n_s32 (1 << (bpc - 1));
  const int32x4_t shift = vdupq_n_s32 (-(int) bpc);
  static const uint32_t lanes[4] = { 0, 1, 2, 3 };
  const uint32x4_t lane = vld1q_u32 (lanes);
  uint64_t sad = 0;

  for (unsigned y = 0; y < height; y++) {
    const void *p[5], *c[5];
    for (int k = 0; k < 5; k++) {
      const ptrdiff_t r = motion_reflect101 ((int) y - VH_MOTION_RADIUS + k,
          (int) height);
      p[k] = (const uint8_t *) prev->data + r * prev->stride;
      c[k] = (const uint8_t *) cur->data + r * cur->stride;
    }
    int32x4_t any = vdupq_n_s32 (0);
    unsigned x = 0;
    for (; x + 8 <= width; x += 8)
      any = vorrq_s32 (any, motion_vertical_neon (p, c, x, wide, round,
              shift, out));
    if (x < width)          /* the last 8 columns again, overlapping */
      any = vorrq_s32 (any, motion_vertical_neon (p, c, width - 8, wide,
              round, shift, out));
    if (!vmaxvq_u32 (vreinterpretq_u32_s32 (any)))
      continue;             /* adds nothing */

    out[-2] = out[2];
    out[-1] = out[1];
    out[width] = out[width - 2];
    out[width + 1] = out[width - 3];
    uint32x4_t sum = vdupq_n_u32 (0);
    for (x = 0; x + 4 <= width; x += 4)
      sum = vaddq_u32 (sum, motion_horizontal_neon (vrow, x));
    if (x < width) {        /* the last 4 columns, those done dropped */
      const uint32x4_t keep = vcgeq_u32 (lane, vdupq_n_u32 (x - (width - 4)));
      sum = vaddq_u32 (sum, vandq_u32 (keep,
              motion_horizontal_neon (vrow, width - 4)));
    }
    sad += vaddvq_u32 (sum);        /* modulo 2^32, as the C's row sum */
  }
  return sad;
}

static uint64_t
motion_sad_neon (const VhPlane *prev, const VhPlane *cur, unsigned bpc,
    void *scratch)
{
  if (prev->width < 8)
    return vh_motion_sad_c (prev, cur, bpc, scratch);
  if (bpc == 8)
    return motion_sad_neon_of (prev, cur, bpc, scratch, 0);
  return motion_sad_neon_of (prev, cur, bpc, scratch, 1);
}

/* NEON is part of every aarch64 CPU; a SIMD cap of none still turns it
 * off (vh_cpu_simd_level) */
static const VhMotionSadVersion sad_neon = { "neon", motion_sad_neon };
static const VhCpuVersion versions[] = {
  {&sad_neon, VH_CPU_SIMD_NEON, 0},
  {NULL, 0, 0},
};
#else
/* nothing by hand: the plain C */
static const VhCpuVersion versions[] = {
  {NULL, 0, 0},
};
#endif

unsigned
vh_motion_sad_all (const VhMotionSadVersion **out, unsigned max)
{
  return vh_cpu_versions_all (versions, (const void **) out, max);
}

VhMotionSadFunc
vh_motion_sad_best (void)
{
  const VhMotionSadVersion *best = vh_cpu_versions_best (versions);
  return best ? best->sad : vh_motion_sad_c;
}
