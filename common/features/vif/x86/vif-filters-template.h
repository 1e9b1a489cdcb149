/* vmafhip — VIF's filter kernels, written once for any vector width and
 * included by vif-filters.c once per instruction set, which defines first:
 *   SFX           the functions' suffix (avx512, vnni, avx2)
 *   BITS          the vector width (512, 256), the width helpers' suffix
 *   ISA           their target attribute string
 *   V, W          the vector type and its 16-bit lanes (32 or 16)
 *   LOADV (p)    W uint16 samples      LOAD8 (p)  W bytes as uint16
 *   STORE32 (p, v)                      ZERO, SET1_16 (x), SET1_32 (x)
 *   XOR ADD32 SUB32 MAX32 MULLO16 MULHI16U UNPACKLO16 UNPACKHI16
 *   SRL32 (v, n) SLL32 (v, n) (count in a register), SRLI32 (v, imm)
 *   DP (acc, a, b)     acc + a0 b0 + a1 b1 per 32-bit lane (vpmaddwd +
 *                      vpaddd, or VNNI's vpdpwssd)
 *   MUL_ROUND_HI (a, b)            (a·b + 2^31) >> 32 per uint32 lane
 * and the width's helpers, suffixed BITS: store_in_order_BITS (the
 * unpacked pairs' sums back in column order), store_interleaved_BITS (even
 * and odd columns' sums), store_16_BITS (W/2 uint32 to uint16, xor flip).
 * vif-filters.h says what each kernel computes. */

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_ (a, b)
#define FN(name) CAT (name, SFX)
#define WFN(name) CAT (name, BITS)

/* W consecutive uint32 in column order, (v + round) >> shift, to uint16 */
__attribute__ ((target (ISA))) static inline void
FN (store_u16) (uint16_t *out, const uint32_t *sums, unsigned shift,
    uint32_t round, uint16_t flip)
{
  const V r = SET1_32 ((int) round);
  for (int h = 0; h < 2; h++)
    WFN (store_16) (out + W / 2 * h, SRL32 (ADD32 (LOADV (sums + W / 2 * h),
                r), shift), flip);
}

/* the pairs of taps (f0 | f1 << 16) in every 32-bit lane; their count,
 * and Σ taps in *tap_sum (the bias's correction) */
__attribute__ ((target (ISA))) static inline unsigned
FN (broadcast_taps) (const uint16_t *taps, unsigned ntaps, V f[MAX_PAIRS],
    uint32_t *tap_sum)
{
  uint32_t pairs[MAX_PAIRS];
  const unsigned npairs = tap_pairs (taps, ntaps, pairs, tap_sum);
  for (unsigned p = 0; p < npairs; p++)
    f[p] = SET1_32 ((int) pairs[p]);
  return npairs;
}

__attribute__ ((target (ISA))) static void
FN (filter16) (uint32_t *out, const uint16_t *const *x, const uint16_t *taps,
    unsigned ntaps, unsigned n)
{
  uint32_t tap_sum;
  V f[MAX_PAIRS];
  const unsigned npairs = FN (broadcast_taps) (taps, ntaps, f, &tap_sum);
  const V bias = SET1_16 ((short) 0x8000);
  /* Σ f (x − 32768) + 32768 Σ f, modulo 2^32 */
  const V offset = SET1_32 ((int) (32768u * tap_sum));

  for (unsigned j = 0; j < n; j += W) {
    V lo = offset, hi = offset;
    for (unsigned p = 0; p < npairs; p++) {
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;
      const V a = XOR (LOADV (x[k0] + j), bias);
      const V b = k1 == k0 ? a : XOR (LOADV (x[k1] + j), bias);
      lo = DP (lo, UNPACKLO16 (a, b), f[p]);
      hi = DP (hi, UNPACKHI16 (a, b), f[p]);
    }
    WFN (store_in_order) (out + j, lo, hi);
  }
}

/* one row, its samples stored biased (x ^ 0x8000, as the vertical passes
 * here write them): a pair of taps multiplies adjacent samples, so a load
 * at the pair's offset gives the even columns' terms and one a sample
 * further the odd columns' (no unpacking) */
__attribute__ ((target (ISA))) static void
FN (hfilter16) (uint32_t *out, const uint16_t *x, const uint16_t *taps,
    unsigned ntaps, unsigned n)
{
  uint32_t tap_sum;
  V f[MAX_PAIRS];
  const unsigned npairs = FN (broadcast_taps) (taps, ntaps, f, &tap_sum);
  const V offset = SET1_32 ((int) (32768u * tap_sum));

  for (unsigned j = 0; j < n; j += W) {
    V even = offset, odd = offset;
    for (unsigned p = 0; p < npairs; p++) {
      const uint16_t *at = x + j + 2 * p;
      even = DP (even, LOADV (at), f[p]);
      odd = DP (odd, LOADV (at + 1), f[p]);
    }
    WFN (store_interleaved) (out + j, even, odd);
  }
}

__attribute__ ((target (ISA))) static void
FN (vertical8) (uint16_t *const out[8], const uint8_t *const *r,
    const uint8_t *const *d, const uint16_t *taps, unsigned ntaps,
    unsigned n)
{
  uint32_t tap_sum;
  V f[MAX_PAIRS];
  const unsigned npairs = FN (broadcast_taps) (taps, ntaps, f, &tap_sum);
  const V bias = SET1_16 ((short) 0x8000);
  /* the squares (up to 65025) are biased, the samples (up to 255) not */
  const V offset = SET1_32 ((int) (32768u * tap_sum));
  uint32_t sums[5][W] __attribute__ ((aligned (64)));

  for (unsigned j = 0; j < n; j += W) {
    V lo[5] = { ZERO, ZERO, offset, offset, offset };
    V hi[5] = { ZERO, ZERO, offset, offset, offset };
    for (unsigned p = 0; p < npairs; p++) {
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;
      const V r0 = LOAD8 (r[k0] + j), d0 = LOAD8 (d[k0] + j);
      const V r1 = LOAD8 (r[k1] + j), d1 = LOAD8 (d[k1] + j);
      const V q[5][2] = {
        { r0, r1 }, { d0, d1 },
        { XOR (MULLO16 (r0, r0), bias), XOR (MULLO16 (r1, r1), bias) },
        { XOR (MULLO16 (d0, d0), bias), XOR (MULLO16 (d1, d1), bias) },
        { XOR (MULLO16 (r0, d0), bias), XOR (MULLO16 (r1, d1), bias) },
      };
      for (int v = 0; v < 5; v++) {
        lo[v] = DP (lo[v], UNPACKLO16 (q[v][0], q[v][1]), f[p]);
        hi[v] = DP (hi[v], UNPACKHI16 (q[v][0], q[v][1]), f[p]);
      }
    }
    for (int v = 0; v < 5; v++)
      WFN (store_in_order) (sums[v], lo[v], hi[v]);
    /* μ: (Σ + 128) >> 8; the square sums split into halves; all biased */
    FN (store_u16) (out[0] + j, sums[0], 8, 128, 0x8000);
    FN (store_u16) (out[1] + j, sums[1], 8, 128, 0x8000);
    for (int v = 2; v < 5; v++) {
      FN (store_u16) (out[2 * v - 2] + j, sums[v], 16, 0, 0x8000);
      FN (store_u16) (out[2 * v - 1] + j, sums[v], 0, 0, 0x8000);
    }
  }
}

__attribute__ ((target (ISA))) static void
FN (vertical16) (uint16_t *const out[8], const uint16_t *const *r,
    const uint16_t *const *d, const uint16_t *taps, unsigned ntaps,
    unsigned mu_shift, unsigned sq_shift, unsigned n)
{
  uint32_t tap_sum;
  V f[MAX_PAIRS];
  const unsigned npairs = FN (broadcast_taps) (taps, ntaps, f, &tap_sum);
  const V bias = SET1_16 ((short) 0x8000);
  const V offset = SET1_32 ((int) (32768u * tap_sum));
  const V sq_round = SET1_32 ((int) (1u << (sq_shift - 1)));
  uint32_t sums[8][W] __attribute__ ((aligned (64)));

  for (unsigned j = 0; j < n; j += W) {
    V lo[8], hi[8];
    for (int v = 0; v < 8; v++)
      lo[v] = hi[v] = offset;
    for (unsigned p = 0; p < npairs; p++) {
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;
      const V r0 = LOADV (r[k0] + j), d0 = LOADV (d[k0] + j);
      const V r1 = LOADV (r[k1] + j), d1 = LOADV (d[k1] + j);
      /* μ, then each 32-bit product's high and low 16 bits */
      const V q[8][2] = {
        { XOR (r0, bias), XOR (r1, bias) },
        { XOR (d0, bias), XOR (d1, bias) },
        { XOR (MULHI16U (r0, r0), bias), XOR (MULHI16U (r1, r1), bias) },
        { XOR (MULLO16 (r0, r0), bias), XOR (MULLO16 (r1, r1), bias) },
        { XOR (MULHI16U (d0, d0), bias), XOR (MULHI16U (d1, d1), bias) },
        { XOR (MULLO16 (d0, d0), bias), XOR (MULLO16 (d1, d1), bias) },
        { XOR (MULHI16U (r0, d0), bias), XOR (MULHI16U (r1, d1), bias) },
        { XOR (MULLO16 (r0, d0), bias), XOR (MULLO16 (r1, d1), bias) },
      };
      for (int v = 0; v < 8; v++) {
        lo[v] = DP (lo[v], UNPACKLO16 (q[v][0], q[v][1]), f[p]);
        hi[v] = DP (hi[v], UNPACKHI16 (q[v][0], q[v][1]), f[p]);
      }
    }
    for (int v = 0; v < 8; v++)
      WFN (store_in_order) (sums[v], lo[v], hi[v]);
    FN (store_u16) (out[0] + j, sums[0], mu_shift, 1u << (mu_shift - 1),
        0x8000);
    FN (store_u16) (out[1] + j, sums[1], mu_shift, 1u << (mu_shift - 1),
        0x8000);
    /* (hi << (16 − s)) + ((lo + 2^(s−1)) >> s), split into halves */
    for (int v = 2; v < 8; v += 2) {
      for (int h = 0; h < 2; h++) {
        const V sh = LOADV (sums[v] + W / 2 * h);
        const V sl = LOADV (sums[v + 1] + W / 2 * h);
        const V c = ADD32 (SLL32 (sh, 16 - sq_shift), SRL32 (ADD32 (sl,
                    sq_round), sq_shift));
        WFN (store_16) (out[v] + j + W / 2 * h, SRLI32 (c, 16), 0x8000);
        WFN (store_16) (out[v + 1] + j + W / 2 * h, c, 0x8000);
      }
    }
  }
}

__attribute__ ((target (ISA))) static void
FN (subsample8) (uint16_t *out, const uint8_t *const *x,
    const uint16_t *taps, unsigned ntaps, unsigned shift, unsigned n)
{
  uint32_t tap_sum;
  V f[MAX_PAIRS];
  const unsigned npairs = FN (broadcast_taps) (taps, ntaps, f, &tap_sum);
  uint32_t sums[W] __attribute__ ((aligned (64)));

  for (unsigned j = 0; j < n; j += W) {
    V lo = ZERO, hi = ZERO;
    for (unsigned p = 0; p < npairs; p++) {
      const unsigned k0 = 2 * p, k1 = k0 + 1 < ntaps ? k0 + 1 : k0;
      const V a = LOAD8 (x[k0] + j), b = LOAD8 (x[k1] + j);
      lo = DP (lo, UNPACKLO16 (a, b), f[p]);
      hi = DP (hi, UNPACKHI16 (a, b), f[p]);
    }
    WFN (store_in_order) (sums, lo, hi);
    FN (store_u16) (out + j, sums, shift, 1u << (shift - 1), 0);
  }
}

__attribute__ ((target (ISA))) static inline V
FN (recombine) (const uint32_t *hi, const uint32_t *lo, unsigned j)
{
  return ADD32 (LOADV (hi + j), SRLI32 (ADD32 (LOADV (lo + j), SET1_32
              (32768)), 16));
}

__attribute__ ((target (ISA))) static void
FN (sigmas) (const uint32_t *const acc[8], int32_t *sigma1_sq,
    int32_t *sigma2_sq, int32_t *sigma12, unsigned n)
{
  for (unsigned j = 0; j < n; j += W / 2) {
    const V mu1 = LOADV (acc[0] + j), mu2 = LOADV (acc[1] + j);
    const V xx = FN (recombine) (acc[2], acc[3], j);
    const V yy = FN (recombine) (acc[4], acc[5], j);
    const V xy = FN (recombine) (acc[6], acc[7], j);
    STORE32 (sigma1_sq + j, SUB32 (xx, MUL_ROUND_HI (mu1, mu1)));
    STORE32 (sigma2_sq + j, MAX32 (SUB32 (yy, MUL_ROUND_HI (mu2, mu2)),
            ZERO));
    STORE32 (sigma12 + j, SUB32 (xy, MUL_ROUND_HI (mu1, mu2)));
  }
}

static const VhVifFilters FN (filters) = {
  .filter16 = FN (filter16),
  .hfilter16 = FN (hfilter16),
  .vertical8 = FN (vertical8),
  .vertical16 = FN (vertical16),
  .subsample8 = FN (subsample8),
  .sigmas = FN (sigmas),
};

#undef CAT_
#undef CAT
#undef FN
#undef WFN
