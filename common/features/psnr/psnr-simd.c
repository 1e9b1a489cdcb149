/* vmafhip — PSNR's planar SSE by hand (psnr-simd.h): x86-64 AVX2 and
 * AVX-512 from one template (psnr-simd-template.h), aarch64 NEON below. */
#include "psnr-simd.h"

#include "vh-cpu.h"

#include <glib.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>

#include "vh-x86-reduce.h"


/* ---- AVX-512 (BW) --------------------------------------------------------- */

#define V __m512i
#define W 32
#define LOAD16(p) _mm512_loadu_si512 (p)
#define LOAD8(p) _mm512_cvtepu8_epi16 (_mm256_loadu_si256 \
    ((const __m256i *) (p)))
#define ZERO _mm512_setzero_si512 ()
#define SET1_16(x) _mm512_set1_epi16 (x)
#define SET1_64(x) _mm512_set1_epi64 (x)
#define SUB16(a, b) _mm512_sub_epi16 (a, b)
#define AND(a, b) _mm512_and_si512 (a, b)
#define ADD64(a, b) _mm512_add_epi64 (a, b)
#define SRLI64(v, i) _mm512_srli_epi64 (v, i)
#define KEEP_FROM16(v, from) _mm512_maskz_mov_epi16 \
  ((__mmask32) (0xffffffffu << (from)), v)
#define REDUCE32(v) vh_reduce_add32_512 (v)
#define REDUCE64(v) _mm512_reduce_add_epi64 (v)

#define SFX avx512
#define ISA "avx512f,avx512bw"
#define DP(acc, a, b) _mm512_add_epi32 (acc, _mm512_madd_epi16 (a, b))
#include "psnr-simd-template.h"
#undef SFX
#undef ISA
#undef DP

#undef V
#undef W
#undef LOAD16
#undef LOAD8
#undef ZERO
#undef SET1_16
#undef SET1_64
#undef SUB16
#undef AND
#undef ADD64
#undef SRLI64
#undef KEEP_FROM16
#undef REDUCE32
#undef REDUCE64

/* ---- AVX2 ------------------------------------------------------------------ */

__attribute__ ((target ("avx2"))) static inline uint64_t
reduce_add64_256 (__m256i v)
{
  const __m128i s = _mm_add_epi64 (_mm256_castsi256_si128 (v),
      _mm256_extracti128_si256 (v, 1));
  return (uint64_t) _mm_cvtsi128_si64 (_mm_add_epi64 (s,
          _mm_unpackhi_epi64 (s, s)));
}

/* int16 lanes from `from` (0..16) on */
__attribute__ ((target ("avx2"))) static inline __m256i
keep_from16_256 (__m256i v, unsigned from)
{
  static const int16_t lanes[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15 };
  const __m256i keep = _mm256_cmpgt_epi16 (_mm256_loadu_si256
      ((const __m256i *) lanes), _mm256_set1_epi16 ((short) from - 1));
  return _mm256_and_si256 (v, keep);
}

#define V __m256i
#define W 16
#define LOAD16(p) _mm256_loadu_si256 ((const __m256i *) (p))
#define LOAD8(p) _mm256_cvtepu8_epi16 (_mm_loadu_si128 \
    ((const __m128i *) (p)))
#define ZERO _mm256_setzero_si256 ()
#define SET1_16(x) _mm256_set1_epi16 (x)
#define SET1_64(x) _mm256_set1_epi64x (x)
#define SUB16(a, b) _mm256_sub_epi16 (a, b)
#define AND(a, b) _mm256_and_si256 (a, b)
#define ADD64(a, b) _mm256_add_epi64 (a, b)
#define SRLI64(v, i) _mm256_srli_epi64 (v, i)
#define KEEP_FROM16(v, from) keep_from16_256 (v, from)
#define REDUCE32(v) vh_reduce_add32_256 (v)
#define REDUCE64(v) reduce_add64_256 (v)

#define SFX avx2
#define ISA "avx2"
#define DP(acc, a, b) _mm256_add_epi32 (acc, _mm256_madd_epi16 (a, b))
#include "psnr-simd-template.h"

/* every version, best first, with the level it needs (vh-cpu.h) */
static const VhPsnrSseVersion sse_avx512 = { "avx512", psnr_sse_simd_avx512 };
static const VhPsnrSseVersion sse_avx2 = { "avx2", psnr_sse_simd_avx2 };
static const VhCpuVersion versions[] = {
  {&sse_avx512, VH_CPU_SIMD_AVX512, 0},
  {&sse_avx2, VH_CPU_SIMD_AVX2, 0},
  {NULL, 0, 0},
};

#elif defined(__aarch64__) && defined(__ARM_NEON)
#include <arm_neon.h>


/* |ref − dis| unsigned (vabd), squared by widening multiplies and summed
 * pairwise into the next width up: exact for any samples.  The last
 * vector of a row overlaps the one before; its lanes already counted are
 * zeroed. */
static uint64_t
psnr_sse_neon_8 (const VhPlane *ref, const VhPlane *dis)
{
  static const uint8_t lanes[16] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    12, 13, 14, 15 };
  const unsigned width = ref->width;
  uint64_t sse = 0;
  for (unsigned y = 0; y < ref->height; y++) {
    const uint8_t *r = (const uint8_t *) ref->data
        + (ptrdiff_t) y * ref->stride;
    const uint8_t *d = (const uint8_t *) dis->data
        + (ptrdiff_t) y * dis->stride;
    uint32x4_t acc = vdupq_n_u32 (0);
    unsigned x = 0;
    for (; x + 16 <= width; x += 16) {
      const uint8x16_t e = vabdq_u8 (vld1q_u8 (r + x), vld1q_u8 (d + x));
      acc = vpadalq_u16 (acc, vmull_u8 (vget_low_u8 (e), vget_low_u8 (e)));
      acc = vpadalq_u16 (acc, vmull_high_u8 (e, e));
    }
    if (x < width) {
      const unsigned x0 = width - 16;
      const uint8x16_t keep = vcgeq_u8 (vld1q_u8 (lanes),
          vdupq_n_u8 ((uint8_t) (x - x0)));
      const uint8x16_t e = vandq_u8 (keep, vabdq_u8 (vld1q_u8 (r + x0),
              vld1q_u8 (d + x0)));
      acc = vpadalq_u16 (acc, vmull_u8 (vget_low_u8 (e), vget_low_u8 (e)));
      acc = vpadalq_u16 (acc, vmull_high_u8 (e, e));
    }
    sse += vaddvq_u32 (acc);        /* modulo 2^32, as the C's row sum */
  }
  return sse;
}

static uint64_t
psnr_sse_neon_16 (const VhPlane *ref, const VhPlane *dis)
{
  static const uint16_t lanes[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
  const unsigned width = ref->width;
  uint64x2_t acc = vdupq_n_u64 (0);
  for (unsigned y = 0; y < ref->height; y++) {
    const uint16_t *r = (const uint16_t *) ((const uint8_t *) ref->data
        + (ptrdiff_t) y * ref->stride);
    const uint16_t *d = (const uint16_t *) ((const uint8_t *) dis->data
        + (ptrdiff_t) y * dis->stride);
    unsigned x = 0;
    for (; x + 8 <= width; x += 8) {
      const uint16x8_t e = vabdq_u16 (vld1q_u16 (r + x), vld1q_u16 (d + x));
      acc = vpadalq_u32 (acc, vmull_u16 (vget_low_u16 (e),
              vget_low_u16 (e)));
      acc = vpadalq_u32 (acc, vmull_high_u16 (e, e));
    }
    if (x < width) {
      const unsigned x0 = width - 8;
      const uint16x8_t keep = vcgeq_u16 (vld1q_u16 (lanes),
          vdupq_n_u16 ((uint16_t) (x - x0)));
      const uint16x8_t e = vandq_u16 (keep, vabdq_u16 (vld1q_u16 (r + x0),
              vld1q_u16 (d + x0)));
      acc = vpadalq_u32 (acc, vmull_u16 (vget_low_u16 (e),
              vget_low_u16 (e)));
      acc = vpadalq_u32 (acc, vmull_high_u16 (e, e));
    }
  }
  return vaddvq_u64 (acc);
}

static uint64_t
psnr_sse_neon (const VhPlane *ref, const VhPlane *dis, unsigned bpc)
{
  if (ref->width < 16)      /* narrower than one vector */
    return vh_psnr_sse_planar_c (ref, dis, bpc);
  return bpc == 8 ? psnr_sse_neon_8 (ref, dis) : psnr_sse_neon_16 (ref, dis);
}

/* NEON is part of every aarch64 CPU; a SIMD cap of none still turns it
 * off (vh_cpu_simd_level) */
static const VhPsnrSseVersion sse_neon = { "neon", psnr_sse_neon };
static const VhCpuVersion versions[] = {
  {&sse_neon, VH_CPU_SIMD_NEON, 0},
  {NULL, 0, 0},
};
#else
/* nothing by hand: the plain C */
static const VhCpuVersion versions[] = {
  {NULL, 0, 0},
};
#endif

unsigned
vh_psnr_sse_all (const VhPsnrSseVersion **out, unsigned max)
{
  return vh_cpu_versions_all (versions, (const void **) out, max);
}

VhPsnrSseFunc
vh_psnr_sse_best (void)
{
  const VhPsnrSseVersion *best = vh_cpu_versions_best (versions);
  return best ? best->sse : vh_psnr_sse_planar_c;
}
