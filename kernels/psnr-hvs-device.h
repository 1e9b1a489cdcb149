/* vmafhip — PSNR-HVS per 8x8 block and its exact float sum, shared by the
 * CPU extractor (common/features/psnr-hvs/psnr-hvs.c), the GPU kernels (kernels/psnr-hvs.hip)
 * and their host emulation (tests/check/test-psnr-hvs-emulation.cpp).
 *
 * Per block: libvmaf 3.2.0's operations (Daala's integer DCT, float
 * statistics and masking, the double sqrt), so every weighted error is the
 * CPU's bit for bit.  libvmaf adds those errors one by one into a single
 * float, block after block; any other order changes the score by more than
 * 1e-5, so the GPU reproduces that sequential sum exactly:
 *
 * While the accumulator s stays in one binade [2^(E-127), 2^(E-126)), each
 * float addition s + v is exact integer arithmetic in units of s's ulp: it
 * adds q = v / ulp rounded to nearest; where v / ulp lies exactly halfway
 * (a tie) it adds q or q + 1, whichever makes the mantissa even.  So what a
 * run of errors adds depends only on the accumulator's last bit before it:
 * two integer sums, one for an even and one for an odd mantissa (a tie
 * inside the run decided by the parity of the sum so far), as long as the
 * accumulator's mantissa stays below 2^24 (no new binade).  Runs compose in
 * order (VhPsnrHvsStep).  The kernels give every block (64 errors) and
 * chunk (VH_PSNR_HVS_CHUNK blocks) those sums for three candidate binades,
 * guessed from an approximate running sum; a walker then jumps over whole
 * chunks and blocks whose sums apply, and adds the rest one error at a time
 * in float, as the CPU does.  The guess only decides the speed, never the
 * result. */
#ifndef VH_PSNR_HVS_DEVICE_H
#define VH_PSNR_HVS_DEVICE_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_PHVS_FN __host__ __device__ __forceinline__
#define VH_PHVS_METHOD __host__ __device__ __forceinline__
#else
#define VH_PHVS_FN static inline
#define VH_PHVS_METHOD inline
#endif

#define VH_PSNR_HVS_CHUNK 64    /* blocks per chunk: one quantize thread each */
#define VH_PSNR_HVS_CAP (1u << 25)      /* a quantized error this big crosses */
#define VH_PSNR_HVS_MANT_MAX ((1u << 24) - 1)   /* mantissa below a new binade */

/* VhPsnrHvsSpan.info: candidate d unusable (a tie, or out of range) in bit
 * d, all errors zero in bit 3, the guessed exponent in bits 8-15 */
#define VH_PSNR_HVS_ZERO 8u

/* Contrast sensitivity per DCT coefficient (Y, and Cb/Cr as for 4:2:0,
 * which libvmaf uses for every layout); double literals rounded to float,
 * as libvmaf's tables are */
#define VH_PSNR_HVS_CSF_Y { \
  1.6193873005, 2.2901594831, 2.08509755623, 1.48366094411, 1.00227514334, 0.678296995242, 0.466224900598, 0.3265091542, \
  2.2901594831, 1.94321815382, 2.04793073064, 1.68731108984, 1.2305666963, 0.868920337363, 0.61280991668, 0.436405793551, \
  2.08509755623, 2.04793073064, 1.34329019223, 1.09205635862, 0.875748795257, 0.670882927016, 0.501731932449, 0.372504254596, \
  1.48366094411, 1.68731108984, 1.09205635862, 0.772819797575, 0.605636379554, 0.48309405692, 0.380429446972, 0.295774038565, \
  1.00227514334, 1.2305666963, 0.875748795257, 0.605636379554, 0.448996256676, 0.352889268808, 0.283006984131, 0.226951348204, \
  0.678296995242, 0.868920337363, 0.670882927016, 0.48309405692, 0.352889268808, 0.27032073436, 0.215017739696, 0.17408067321, \
  0.466224900598, 0.61280991668, 0.501731932449, 0.380429446972, 0.283006984131, 0.215017739696, 0.168869545842, 0.136153931001, \
  0.3265091542, 0.436405793551, 0.372504254596, 0.295774038565, 0.226951348204, 0.17408067321, 0.136153931001, 0.109083846276, \
}
#define VH_PSNR_HVS_CSF_CB { \
  1.91113096927, 2.46074210438, 1.18284184739, 1.14982565193, 1.05017074788, 0.898018824055, 0.74725392039, 0.615105596242, \
  2.46074210438, 1.58529308355, 1.21363250036, 1.38190029285, 1.33100189972, 1.17428548929, 0.996404342439, 0.830890433625, \
  1.18284184739, 1.21363250036, 0.978712413627, 1.02624506078, 1.03145147362, 0.960060382087, 0.849823426169, 0.731221236837, \
  1.14982565193, 1.38190029285, 1.02624506078, 0.861317501629, 0.801821139099, 0.751437590932, 0.685398513368, 0.608694761374, \
  1.05017074788, 1.33100189972, 1.03145147362, 0.801821139099, 0.676555426187, 0.605503172737, 0.55002013668, 0.495804539034, \
  0.898018824055, 1.17428548929, 0.960060382087, 0.751437590932, 0.605503172737, 0.514674450957, 0.454353482512, 0.407050308965, \
  0.74725392039, 0.996404342439, 0.849823426169, 0.685398513368, 0.55002013668, 0.454353482512, 0.389234902883, 0.342353999733, \
  0.615105596242, 0.830890433625, 0.731221236837, 0.608694761374, 0.495804539034, 0.407050308965, 0.342353999733, 0.295530605237, \
}
#define VH_PSNR_HVS_CSF_CR { \
  2.03871978502, 2.62502345193, 1.26180942886, 1.11019789803, 1.01397751469, 0.867069376285, 0.721500455585, 0.593906509971, \
  2.62502345193, 1.69112867013, 1.17180569821, 1.3342742857, 1.28513006198, 1.13381474809, 0.962064122248, 0.802254508198, \
  1.26180942886, 1.17180569821, 0.944981930573, 0.990876405848, 0.995903384143, 0.926972725286, 0.820534991409, 0.706020324706, \
  1.11019789803, 1.3342742857, 0.990876405848, 0.831632933426, 0.77418706195, 0.725539939514, 0.661776842059, 0.587716619023, \
  1.01397751469, 1.28513006198, 0.995903384143, 0.77418706195, 0.653238524286, 0.584635025748, 0.531064164893, 0.478717061273, \
  0.867069376285, 1.13381474809, 0.926972725286, 0.725539939514, 0.584635025748, 0.496936637883, 0.438694579826, 0.393021669543, \
  0.721500455585, 0.962064122248, 0.820534991409, 0.661776842059, 0.531064164893, 0.438694579826, 0.375820256136, 0.330555063063, \
  0.593906509971, 0.802254508198, 0.706020324706, 0.587716619023, 0.478717061273, 0.393021669543, 0.330555063063, 0.285345396658, \
}

/* A block's (64 errors) or a chunk's sums of quantized errors for three
 * candidate binades (the guessed exponent - 1, itself and + 1), each for
 * an even and an odd accumulator mantissa before it. */
typedef struct {
  uint32_t q[3][2];
  uint32_t info;
  uint32_t pad;
} VhPsnrHvsBlockSpan;

typedef struct {
  uint64_t q[3][2];
  uint32_t info;
  uint32_t pad;
} VhPsnrHvsChunkSpan;

/* What a run of errors adds to the accumulator's mantissa (in its ulps),
 * t[p] for a mantissa of parity p before it */
typedef struct {
  uint64_t t[2];
} VhPsnrHvsStep;

/* ---- one block ------------------------------------------------------ */

/* The contrast-masking weight of a CSF entry: scaled and squared (double) */
VH_PHVS_FN float
vh_psnr_hvs_mask_weight (float csf)
{
  return (float) ((csf * 0.3885746225901003) * (csf * 0.3885746225901003));
}

/* a / 2^b rounded toward zero (Daala's unbiased shift) */
VH_PHVS_FN int32_t
vh_psnr_hvs_half_shift (int32_t a, int b)
{
  return (int32_t) (((uint32_t) a >> (32 - b)) + (uint32_t) a) >> b;
}

/* a * num / 2^shift, rounded (one lifting step) */
VH_PHVS_FN int32_t
vh_psnr_hvs_lift (int32_t a, int32_t num, int shift)
{
  return (a * num + (1 << (shift - 1))) >> shift;
}

/* Daala's 8-point integer DCT-II (lifting), x read with a stride */
VH_PHVS_FN void
vh_psnr_hvs_dct8 (int32_t y[8], const int32_t *x, int stride)
{
  int32_t t0 = x[0], t4 = x[stride], t2 = x[2 * stride], t6 = x[3 * stride];
  int32_t t7 = x[4 * stride], t3 = x[5 * stride], t5 = x[6 * stride];
  int32_t t1 = x[7 * stride];
  t1 = t0 - t1;
  const int32_t t1h = vh_psnr_hvs_half_shift (t1, 1);
  t0 -= t1h;
  t4 += t5;
  const int32_t t4h = vh_psnr_hvs_half_shift (t4, 1);
  t5 -= t4h;
  t3 = t2 - t3;
  t2 -= vh_psnr_hvs_half_shift (t3, 1);
  t6 += t7;
  const int32_t t6h = vh_psnr_hvs_half_shift (t6, 1);
  t7 = t6h - t7;
  /* 4-point DCT-II */
  t0 += t6h;
  t6 = t0 - t6;
  t2 = t4h - t2;
  t4 = t2 - t4;
  /* 2-point DCT-II: sqrt(2) - 1, sqrt(1/2), sqrt(2) - 1 */
  t0 -= vh_psnr_hvs_lift (t4, 13573, 15);
  t4 += vh_psnr_hvs_lift (t0, 11585, 14);
  t0 -= vh_psnr_hvs_lift (t4, 13573, 15);
  /* 2-point DST-IV (3 pi / 8) */
  t6 -= vh_psnr_hvs_lift (t2, 21895, 15);
  t2 += vh_psnr_hvs_lift (t6, 15137, 14);
  t6 -= vh_psnr_hvs_lift (t2, 21895, 15);
  /* 4-point DST-IV */
  t3 += vh_psnr_hvs_lift (t5, 19195, 15);
  t5 += vh_psnr_hvs_lift (t3, 11585, 14);
  t3 -= vh_psnr_hvs_lift (t5, 7489, 13);
  t7 = vh_psnr_hvs_half_shift (t5, 1) - t7;
  t5 -= t7;
  t3 = t1h - t3;
  t1 -= t3;
  /* pi / 16 */
  t7 += vh_psnr_hvs_lift (t1, 3227, 15);
  t1 -= vh_psnr_hvs_lift (t7, 6393, 15);
  t7 += vh_psnr_hvs_lift (t1, 3227, 15);
  /* 3 pi / 16 */
  t5 += vh_psnr_hvs_lift (t3, 2485, 13);
  t3 -= vh_psnr_hvs_lift (t5, 18205, 15);
  t5 += vh_psnr_hvs_lift (t3, 2485, 13);
  y[0] = t0; y[1] = t1; y[2] = t2; y[3] = t3;
  y[4] = t4; y[5] = t5; y[6] = t6; y[7] = t7;
}

/* In place: columns into a scratch block, then rows */
VH_PHVS_FN void
vh_psnr_hvs_dct8x8 (int32_t *block)
{
  int32_t z[64];
  for (int i = 0; i < 8; i++)
    vh_psnr_hvs_dct8 (z + 8 * i, block + i, 8);
  for (int i = 0; i < 8; i++)
    vh_psnr_hvs_dct8 (block + 8 * i, z + i, 8);
}

/* The variance ratio of a block of samples: its four 4x4 quadrants'
 * variances over the whole block's (the block's as is when that is 0) */
VH_PHVS_FN float
vh_psnr_hvs_ratio (const int32_t blk[64])
{
  float means[4] = { 0, 0, 0, 0 }, vars[4] = { 0, 0, 0, 0 };
  float gmean = 0, gvar = 0;
  for (int i = 0; i < 8; i++) {
    for (int j = 0; j < 8; j++) {
      const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
      gmean += blk[i * 8 + j];
      means[sub] += blk[i * 8 + j];
    }
  }
  gmean /= 64.f;
  for (int i = 0; i < 4; i++)
    means[i] /= 16.f;
  for (int i = 0; i < 8; i++) {
    for (int j = 0; j < 8; j++) {
      const int sub = ((i & 12) >> 2) + ((j & 12) >> 1);
      gvar += (blk[i * 8 + j] - gmean) * (blk[i * 8 + j] - gmean);
      vars[sub] += (blk[i * 8 + j] - means[sub])
          * (blk[i * 8 + j] - means[sub]);
    }
  }
  gvar *= 1 / 63.f * 64;
  for (int i = 0; i < 4; i++)
    vars[i] *= 1 / 15.f * 16;
  if (gvar > 0)
    gvar = (vars[0] + vars[1] + vars[2] + vars[3]) / gvar;
  return gvar;
}

/* The masking threshold of a transformed block: its weighted AC energy
 * (libvmaf's 32-bit int product, wrapping) times the variance ratio; the
 * sqrt in double, as C's sqrt of a float is */
VH_PHVS_FN float
vh_psnr_hvs_block_mask (const int32_t dct[64], const float mask[64],
    float ratio)
{
  float m = 0;
  for (int k = 1; k < 64; k++)
    m += (int32_t) ((uint32_t) dct[k] * (uint32_t) dct[k]) * mask[k];
  return (float) (sqrt ((double) (m * ratio)) / 32.0);
}

/* The 64 CSF-weighted errors above the masking threshold of one block pair
 * (samples in s and d, transformed in place), in libvmaf's order */
VH_PHVS_FN void
vh_psnr_hvs_block_errors (int32_t s[64], int32_t d[64], const float csf[64],
    const float mask[64], float out[64])
{
  const float s_ratio = vh_psnr_hvs_ratio (s);
  const float d_ratio = vh_psnr_hvs_ratio (d);
  vh_psnr_hvs_dct8x8 (s);
  vh_psnr_hvs_dct8x8 (d);
  float s_mask = vh_psnr_hvs_block_mask (s, mask, s_ratio);
  const float d_mask = vh_psnr_hvs_block_mask (d, mask, d_ratio);
  if (d_mask > s_mask)
    s_mask = d_mask;
  for (int k = 0; k < 64; k++) {
    const int32_t diff = s[k] - d[k];
    float err = (float) (diff < 0 ? -diff : diff);
    if (k != 0)
      err = err < s_mask / mask[k] ? 0 : err - s_mask / mask[k];
    out[k] = (err * csf[k]) * (err * csf[k]);
  }
}

/* ---- the exact float sum ---------------------------------------------- */

VH_PHVS_FN uint32_t
vh_psnr_hvs_bits (float f)
{
  union {
    float f;
    uint32_t u;
  } c;
  c.f = f;
  return c.u;
}

VH_PHVS_FN float
vh_psnr_hvs_float (uint32_t u)
{
  union {
    float f;
    uint32_t u;
  } c;
  c.u = u;
  return c.f;
}

/* The biased exponent a running sum near `approx` is guessed to have */
VH_PHVS_FN uint32_t
vh_psnr_hvs_guess (double approx)
{
  return (vh_psnr_hvs_bits ((float) approx) >> 23) & 255;
}

/* v (>= 0) in units of the ulp of binade e (biased exponent, 1-254),
 * rounded to nearest; *tie set when v lies exactly halfway.  At least
 * VH_PSNR_HVS_CAP means "crosses into another binade" (so capped there). */
VH_PHVS_FN uint32_t
vh_psnr_hvs_quantize (float v, int e, int *tie)
{
  const uint32_t u = vh_psnr_hvs_bits (v);
  int ev = (int) (u >> 23);
  uint32_t m = u & 0x7fffff;
  if (ev == 0) {
    if (m == 0)
      return 0;
    ev = 1;
  } else {
    m |= 0x800000;
  }
  const int sh = e - ev;
  if (sh <= 0)
    return sh < -1 ? VH_PSNR_HVS_CAP : m << -sh;
  if (sh >= 25)
    return 0;
  const uint32_t half = 1u << (sh - 1), rem = m & ((half << 1) - 1);
  if (rem == half)
    *tie = 1;
  return (m >> sh) + (rem > half);
}

/* Run a, then run b */
VH_PHVS_FN VhPsnrHvsStep
vh_psnr_hvs_step_then (VhPsnrHvsStep a, VhPsnrHvsStep b)
{
  /* selects, not indexing: a register array indexed at run time would
   * live in local memory */
  VhPsnrHvsStep r;
  r.t[0] = a.t[0] + ((a.t[0] & 1) ? b.t[1] : b.t[0]);
  r.t[1] = a.t[1] + ((a.t[1] & 1) ? b.t[0] : b.t[1]);
  return r;
}

/* A quantize thread's running sums over one block's errors, for the three
 * candidates: s[k] for an even accumulator mantissa before them, and d[k]
 * what an odd one adds more: 0 until the first tie, then +1 or -1 (a tie
 * leaves both mantissas even, and from there both add alike) */
typedef struct {
  uint64_t s[3];
  int32_t d[3];
} VhPsnrHvsRun;

#define VH_PSNR_HVS_RUN_EMPTY { { 0, 0, 0 }, { 0, 0, 0 } }

/* Adds the quantized v to a run for the candidates around guessed
 * exponent g (an unusable candidate, out of range, is marked): a tie adds
 * the even neighbour */
VH_PHVS_FN void
vh_psnr_hvs_span_add (VhPsnrHvsRun *run, uint32_t *info, float v, uint32_t g)
{
  if (v != 0)
    *info &= ~VH_PSNR_HVS_ZERO;
  for (int k = 0; k < 3; k++) {
    const int e = (int) g - 1 + k;
    int tie = 0;
    if (e < 1 || e > 254) {
      *info |= 1u << k;
      continue;
    }
    const uint64_t r = vh_psnr_hvs_quantize (v, e, &tie);
    if (tie) {
      const uint64_t odd = (run->s[k] + r) & 1;
      if (run->d[k] == 0)
        run->d[k] = odd ? -1 : 1;
      run->s[k] += r + odd;
    } else {
      run->s[k] += r;
    }
  }
}

/* A run's sums for an even and for an odd mantissa before it */
VH_PHVS_FN void
vh_psnr_hvs_run_sums (const VhPsnrHvsRun *run, uint64_t q[3][2])
{
  for (int k = 0; k < 3; k++) {
    q[k][0] = run->s[k];
    q[k][1] = run->s[k] + (uint64_t) (int64_t) run->d[k];
  }
}

/* One error of a quantize thread: into block b's spans around its own
 * guess g_block and, when the chunk's guess g_chunk differs, into its part
 * of the chunk's sums (equal guesses: vh_psnr_hvs_quantize_end adds the
 * block's sums to the chunk's instead, the same integers at half the
 * work). */
VH_PHVS_FN void
vh_psnr_hvs_quantize_value (float v, uint32_t g_block, uint32_t g_chunk,
    VhPsnrHvsRun *qb, uint32_t *ib, VhPsnrHvsRun *qc, uint32_t *ic)
{
  vh_psnr_hvs_span_add (qb, ib, v, g_block);
  if (g_chunk != g_block)
    vh_psnr_hvs_span_add (qc, ic, v, g_chunk);
}

/* Two consecutive parts of a chunk joined: unusable candidates of either,
 * zero if both */
VH_PHVS_FN uint32_t
vh_psnr_hvs_info_join (uint32_t a, uint32_t b)
{
  return ((a | b) & 7) | (a & b & VH_PSNR_HVS_ZERO);
}

/* Two consecutive parts of a chunk's sums joined, in their order: a's
 * sums become a then b */
VH_PHVS_FN void
vh_psnr_hvs_chunk_join (uint64_t a[3][2], uint32_t *ia, uint64_t b[3][2],
    uint32_t ib)
{
  for (int k = 0; k < 3; k++) {
    VhPsnrHvsStep x, y;
    x.t[0] = a[k][0];
    x.t[1] = a[k][1];
    y.t[0] = b[k][0];
    y.t[1] = b[k][1];
    const VhPsnrHvsStep r = vh_psnr_hvs_step_then (x, y);
    a[k][0] = r.t[0];
    a[k][1] = r.t[1];
  }
  *ia = vh_psnr_hvs_info_join (*ia, ib);
}

/* After a block's 64 errors: its span, and the chunk's part completed (a
 * thread's chunk part is its one block's errors: when the guesses are the
 * same, the block's run) */
VH_PHVS_FN void
vh_psnr_hvs_quantize_end (const VhPsnrHvsRun *qb, uint32_t ib,
    uint32_t g_block, uint32_t g_chunk, VhPsnrHvsBlockSpan *block,
    VhPsnrHvsRun *qc, uint32_t *ic)
{
  if (g_chunk == g_block) {
    *qc = *qb;
    *ic = vh_psnr_hvs_info_join (*ic, ib);
  }
  uint64_t q[3][2];
  vh_psnr_hvs_run_sums (qb, q);
  for (int k = 0; k < 3; k++)
    for (int p = 0; p < 2; p++)
      block->q[k][p] = (uint32_t) q[k][p];
  block->info = ib;
  block->pad = 0;
}

/* One quantize thread: block b's spans around its own guess g_block, and
 * its part of the chunk's sums around the chunk's guess g_chunk */
VH_PHVS_FN void
vh_psnr_hvs_quantize_block (const float v[64], uint32_t g_block,
    uint32_t g_chunk, VhPsnrHvsBlockSpan *block, VhPsnrHvsRun *qc,
    uint32_t *ic)
{
  VhPsnrHvsRun qb = VH_PSNR_HVS_RUN_EMPTY;
  uint32_t ib = VH_PSNR_HVS_ZERO | g_block << 8;
  for (int k = 0; k < 64; k++)
    vh_psnr_hvs_quantize_value (v[k], g_block, g_chunk, &qb, &ib, qc, ic);
  vh_psnr_hvs_quantize_end (&qb, ib, g_block, g_chunk, block, qc, ic);
}

/* The walker's state: the running sum, and its mantissa and exponent */
typedef struct {
  float s;
  uint32_t mant, exp;
} VhPsnrHvsAcc;

VH_PHVS_FN VhPsnrHvsAcc
vh_psnr_hvs_acc (float s)
{
  VhPsnrHvsAcc a;
  const uint32_t u = vh_psnr_hvs_bits (s);
  a.s = s;
  a.exp = u >> 23;
  a.mant = a.exp ? (u & 0x7fffff) | 0x800000 : 0;
  return a;
}

/* What a span adds to the accumulator, in its ulps, for either parity;
 * more than VH_PSNR_HVS_MANT_MAX when its sums do not apply (it then goes
 * one level finer).  Zero spans apply always; otherwise the accumulator
 * must be a normal float in a usable candidate binade (the accumulator at
 * the start of the walker's round: the spans that fit keep its binade). */
VH_PHVS_FN VhPsnrHvsStep
vh_psnr_hvs_span_step (const VhPsnrHvsAcc *a, const uint64_t (*q)[2],
    uint32_t info)
{
  const uint64_t no = (uint64_t) 1 << 40;
  VhPsnrHvsStep r;
  r.t[0] = r.t[1] = 0;
  if (info & VH_PSNR_HVS_ZERO)
    return r;
  const int k = (int) a->exp - (int) ((info >> 8) & 255) + 1;
  if (a->exp == 0 || k < 0 || k > 2 || (info & (1u << k))) {
    r.t[0] = r.t[1] = no;
    return r;
  }
  r.t[0] = q[k][0];
  r.t[1] = q[k][1];
  return r;
}

/* The accumulator after adding `step` ulps (mant + step < 2^24 checked) */
VH_PHVS_FN VhPsnrHvsAcc
vh_psnr_hvs_acc_add (VhPsnrHvsAcc a, uint64_t step)
{
  if (step == 0)
    return a;
  a.mant += (uint32_t) step;
  a.s = vh_psnr_hvs_float ((a.exp << 23) | (a.mant & 0x7fffff));
  return a;
}

/* One block's 64 errors added one at a time, in float, as libvmaf does */
VH_PHVS_FN VhPsnrHvsAcc
vh_psnr_hvs_acc_block (VhPsnrHvsAcc a, const float *v)
{
  float s = a.s;
  for (int k = 0; k < 64; k++)
    s = s + v[k];
  return vh_psnr_hvs_acc (s);
}

/* The geometry of one plane's blocks (every 7 samples while 8 fit) */
VH_PHVS_FN unsigned
vh_psnr_hvs_blocks_across (unsigned width)
{
  return width >= 8 ? (width - 8) / 7 + 1 : 0;
}

#ifdef __cplusplus
#include "vh-lanes.h"

/* The walker's team: the lanes of one wavefront (kernels/vh-lanes.h), a
 * round taking up to its width of spans, one a lane.  The running totals
 * are an inclusive scan by lane shuffles, the spans that fit a ballot's
 * prefix, the total a broadcast: no barriers, and all lanes return the
 * same values.  The walk is a chain of such rounds, so their latency is
 * its time.  vals: 64 floats the lanes share (the GPU's shared memory). */
template <class Wave>
struct VhPsnrHvsWaveTeam {
  Wave wave;
  float *vals;

  VH_PHVS_METHOD unsigned
  width ()
  {
    return wave.width ();
  }

  template <class Step>
  VH_PHVS_METHOD unsigned
  round (unsigned n, uint32_t mant, uint64_t *total, Step step)
  {
    typedef typename Wave::Mask Mask;
    typedef typename Wave::template Of<unsigned long long> Sums;
    const typename Wave::template Of<Mask> all = wave.full ();
    const VhPsnrHvsStep none = { { 0, 0 } };
    typename Wave::template Of<VhPsnrHvsStep> scan = wave.each (
        [&] (unsigned t) { return t < n ? step (t) : none; });
    /* the spans joined in order: an inclusive scan (offsets up to the
     * widest wavefront, so that the GPU's loop unrolls, ending at this
     * one's width) */
    VH_LANES_UNROLL
    for (unsigned off = 1; off < VH_LANES_MAX; off *= 2) {
      if (off >= wave.width ())
        break;
      const Sums even = wave.shfl_up (all, wave.each ([&] (unsigned t) {
            return (unsigned long long) scan[t].t[0];
          }), off);
      const Sums odd = wave.shfl_up (all, wave.each ([&] (unsigned t) {
            return (unsigned long long) scan[t].t[1];
          }), off);
      scan = wave.each ([&] (unsigned t) {
        const VhPsnrHvsStep before = { { even[t], odd[t] } };
        return t >= off ? vh_psnr_hvs_step_then (before, scan[t]) : scan[t];
      });
    }
    const Sums own = wave.each ([&] (unsigned t) {
      return (unsigned long long) ((mant & 1) ? scan[t].t[1] : scan[t].t[0]);
    });
    /* the totals only grow: the spans that fit are a prefix */
    const typename Wave::template Of<Mask> fits = wave.ballot (all,
        wave.each ([&] (unsigned t) {
          return t < n && mant + own[t] <= VH_PSNR_HVS_MANT_MAX;
        }));
    const typename Wave::template Of<unsigned> lo = wave.each (
        [&] (unsigned t) { return vh_lanes::popc (fits[t]); });
    const Sums at = wave.shfl (all, own, wave.each ([&] (unsigned t) {
          return lo[t] ? lo[t] - 1 : 0u;
        }));
    *total = wave.uniform (wave.each ([&] (unsigned t) {
          return lo[t] ? at[t] : 0ull;
        }));
    return wave.uniform (lo);
  }

  /* the block's errors loaded by all lanes at once, added by lane 0 */
  VH_PHVS_METHOD VhPsnrHvsAcc
  block (VhPsnrHvsAcc a, const float *v)
  {
    const unsigned lanes = wave.width ();
    wave.run ([&] (unsigned t) {
      for (unsigned k = t; k < 64; k += lanes)
        vals[k] = v[k];
    });
    wave.sync ();
    const typename Wave::template Of<float> s = wave.each ([&] (unsigned t) {
      return t == 0 ? vh_psnr_hvs_acc_block (a, vals).s : 0.f;
    });
    const float sum = wave.uniform (wave.shfl (wave.full (), s,
            wave.each ([] (unsigned) { return 0u; })));
    wave.sync ();
    return vh_psnr_hvs_acc (sum);
  }
};

/* The walk over one plane's chunks, then blocks, then errors.  Team runs
 * one round: given n (<= team.width ()) spans' steps (step (i), i < n,
 * each a VhPsnrHvsStep), it returns the first i whose running total
 * (vh_psnr_hvs_step_then in order, taken for the mantissa's parity) no
 * longer fits the mantissa (n if all fit) and in *total what the spans
 * before it add; team.block adds one block's errors one at a time.  On
 * the GPU the team is VhPsnrHvsWaveTeam, every lane of one wavefront
 * running this with the same values; the host emulation runs the same
 * team on its model of a 32- and a 64-lane wavefront. */
template <class Team>
VH_PHVS_FN float
vh_psnr_hvs_walk (Team &team, const VhPsnrHvsChunkSpan *chunks,
    const VhPsnrHvsBlockSpan *blocks, const float *values, unsigned n_blocks)
{
  VhPsnrHvsAcc a = vh_psnr_hvs_acc (0.f);
  const unsigned n_chunks = (n_blocks + VH_PSNR_HVS_CHUNK - 1)
      / VH_PSNR_HVS_CHUNK;
  const unsigned lanes = team.width ();
  unsigned c = 0;
  while (c < n_chunks) {
    const unsigned n = n_chunks - c < lanes ? n_chunks - c : lanes;
    uint64_t total = 0;
    const unsigned first = team.round (n, a.mant, &total,
        [&] (unsigned i) {
          return vh_psnr_hvs_span_step (&a, chunks[c + i].q,
              chunks[c + i].info);
        });
    a = vh_psnr_hvs_acc_add (a, total);
    c += first;
    if (first == n)
      continue;
    /* chunk c block by block */
    unsigned b = c * VH_PSNR_HVS_CHUNK;
    const unsigned end = b + VH_PSNR_HVS_CHUNK < n_blocks
        ? b + VH_PSNR_HVS_CHUNK : n_blocks;
    while (b < end) {
      const unsigned nb = end - b < lanes ? end - b : lanes;
      uint64_t t = 0;
      const unsigned fb = team.round (nb, a.mant, &t,
          [&] (unsigned i) {
            const VhPsnrHvsBlockSpan *sp = &blocks[b + i];
            const uint64_t q[3][2] = { { sp->q[0][0], sp->q[0][1] },
              { sp->q[1][0], sp->q[1][1] }, { sp->q[2][0], sp->q[2][1] } };
            return vh_psnr_hvs_span_step (&a, q, sp->info);
          });
      a = vh_psnr_hvs_acc_add (a, t);
      b += fb;
      if (fb < nb) {
        a = team.block (a, values + (size_t) b * 64);
        b++;
      }
    }
    c++;
  }
  return a.s;
}
#endif

#endif /* VH_PSNR_HVS_DEVICE_H */
