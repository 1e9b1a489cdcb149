/* vmafhip — ADM's CSF, CM and denominator rows in AVX2 and AVX-512
 * (adm-rows.h): written once (adm-rows-template.h) and built here for
 * each instruction set. */
#include "adm-rows.h"
#include "adm-params.h"   /* for adm-rows-template.h */

#include "vh-cpu.h"

#include <glib.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

/* ---- AVX-512 (F, BW, DQ, VL: the level vh-cpu.h names) -------------------- */

#define AVX512 __attribute__ ((target ("avx512f,avx512bw,avx512dq,avx512vl")))

AVX512 static inline int64_t
hsum64_512 (__m512i v)
{
  return _mm512_reduce_add_epi64 (v);
}

#define V __m512i
#define N 16
#define MASK __mmask16
#define TAIL_MASK(n) ((__mmask16) ((1u << (n)) - 1))
#define LOAD(p) _mm512_loadu_si512 (p)
#define STORE(p, v) _mm512_storeu_si512 (p, v)
#define LOADM(p, m) _mm512_maskz_loadu_epi32 (m, p)
#define STOREM(p, m, v) _mm512_mask_storeu_epi32 (p, m, v)
#define ZERO _mm512_setzero_si512 ()
#define SET1_32(x) _mm512_set1_epi32 (x)
#define SET1_64(x) _mm512_set1_epi64 (x)
#define COUNT(n) _mm_cvtsi32_si128 (n)
#define ADD32(a, b) _mm512_add_epi32 (a, b)
#define SUB32(a, b) _mm512_sub_epi32 (a, b)
#define MULLO32(a, b) _mm512_mullo_epi32 (a, b)
#define ABS32(a) _mm512_abs_epi32 (a)
#define MAX32(a, b) _mm512_max_epi32 (a, b)
#define AND(a, b) _mm512_and_si512 (a, b)
#define SRAI32(v, i) _mm512_srai_epi32 (v, i)
#define SLLI32(v, i) _mm512_slli_epi32 (v, i)
#define SLL32(v, c) _mm512_sll_epi32 (v, c)
#define SRA32(v, c) _mm512_sra_epi32 (v, c)
#define ADD64(a, b) _mm512_add_epi64 (a, b)
#define MUL_EPI32(a, b) _mm512_mul_epi32 (a, b)
#define MUL_EPU32(a, b) _mm512_mul_epu32 (a, b)
#define SRLI64(v, i) _mm512_srli_epi64 (v, i)
#define SLLI64(v, i) _mm512_slli_epi64 (v, i)
#define SRL64(v, c) _mm512_srl_epi64 (v, c)
#define SRA64(v, c) _mm512_sra_epi64 (v, c)
#define BLEND_ODD(e, o) _mm512_mask_blend_epi32 ((__mmask16) 0xaaaa, e, o)
#define HSUM64(v) hsum64_512 (v)

#define SFX avx512
#define ISA "avx512f,avx512bw,avx512dq,avx512vl"
#include "adm-rows-template.h"
#undef SFX
#undef ISA

#undef V
#undef N
#undef MASK
#undef TAIL_MASK
#undef LOAD
#undef STORE
#undef LOADM
#undef STOREM
#undef ZERO
#undef SET1_32
#undef SET1_64
#undef COUNT
#undef ADD32
#undef SUB32
#undef MULLO32
#undef ABS32
#undef MAX32
#undef AND
#undef SRAI32
#undef SLLI32
#undef SLL32
#undef SRA32
#undef ADD64
#undef MUL_EPI32
#undef MUL_EPU32
#undef SRLI64
#undef SLLI64
#undef SRL64
#undef SRA64
#undef BLEND_ODD
#undef HSUM64

/* ---- AVX2 ------------------------------------------------------------------ */

#define AVX2 __attribute__ ((target ("avx2")))

/* the first n lanes */
AVX2 static inline __m256i
tail_mask_256 (int n)
{
  return _mm256_cmpgt_epi32 (_mm256_set1_epi32 (n), _mm256_setr_epi32 (0, 1,
          2, 3, 4, 5, 6, 7));
}

/* AVX2 has no 64-bit arithmetic shift: shift the one's complement of
 * negative lanes logically instead */
AVX2 static inline __m256i
sra64_256 (__m256i v, __m128i count)
{
  const __m256i sign = _mm256_cmpgt_epi64 (_mm256_setzero_si256 (), v);
  return _mm256_xor_si256 (_mm256_srl_epi64 (_mm256_xor_si256 (v, sign),
          count), sign);
}

AVX2 static inline int64_t
hsum64_256 (__m256i v)
{
  const __m128i s = _mm_add_epi64 (_mm256_castsi256_si128 (v),
      _mm256_extracti128_si256 (v, 1));
  return _mm_cvtsi128_si64 (s) + _mm_extract_epi64 (s, 1);
}

#define V __m256i
#define N 8
#define MASK __m256i
#define TAIL_MASK(n) tail_mask_256 (n)
#define LOAD(p) _mm256_loadu_si256 ((const __m256i *) (p))
#define STORE(p, v) _mm256_storeu_si256 ((__m256i *) (p), v)
#define LOADM(p, m) _mm256_maskload_epi32 ((const int *) (p), m)
#define STOREM(p, m, v) _mm256_maskstore_epi32 ((int *) (p), m, v)
#define ZERO _mm256_setzero_si256 ()
#define SET1_32(x) _mm256_set1_epi32 (x)
#define SET1_64(x) _mm256_set1_epi64x (x)
#define COUNT(n) _mm_cvtsi32_si128 (n)
#define ADD32(a, b) _mm256_add_epi32 (a, b)
#define SUB32(a, b) _mm256_sub_epi32 (a, b)
#define MULLO32(a, b) _mm256_mullo_epi32 (a, b)
#define ABS32(a) _mm256_abs_epi32 (a)
#define MAX32(a, b) _mm256_max_epi32 (a, b)
#define AND(a, b) _mm256_and_si256 (a, b)
#define SRAI32(v, i) _mm256_srai_epi32 (v, i)
#define SLLI32(v, i) _mm256_slli_epi32 (v, i)
#define SLL32(v, c) _mm256_sll_epi32 (v, c)
#define SRA32(v, c) _mm256_sra_epi32 (v, c)
#define ADD64(a, b) _mm256_add_epi64 (a, b)
#define MUL_EPI32(a, b) _mm256_mul_epi32 (a, b)
#define MUL_EPU32(a, b) _mm256_mul_epu32 (a, b)
#define SRLI64(v, i) _mm256_srli_epi64 (v, i)
#define SLLI64(v, i) _mm256_slli_epi64 (v, i)
#define SRL64(v, c) _mm256_srl_epi64 (v, c)
#define SRA64(v, c) sra64_256 (v, c)
#define BLEND_ODD(e, o) _mm256_blend_epi32 (e, o, 0xaa)
#define HSUM64(v) hsum64_256 (v)

#define SFX avx2
#define ISA "avx2"
#include "adm-rows-template.h"

/* ---- selection ------------------------------------------------------------ */

/* every version, best first, with the level it needs (vh-cpu.h) */
static const VhCpuVersion versions[] = {
  {&rows_avx512, VH_CPU_SIMD_AVX512, 0},
  {&rows_avx2, VH_CPU_SIMD_AVX2, 0},
  {NULL, 0, 0},
};
#else
/* nothing by hand: the plain C (adm.c) */
static const VhCpuVersion versions[] = {
  {NULL, 0, 0},
};
#endif

unsigned
vh_adm_rows_all (const VhAdmRows **out, unsigned max)
{
  return vh_cpu_versions_all (versions, (const void **) out, max);
}

const VhAdmRows *
vh_adm_rows_best (void)
{
  return vh_cpu_versions_best (versions);
}
