/* vmafhip — motion's SAD (motion-simd.h) written once for any x86 vector
 * width and included by motion-simd.c once per instruction set, which
 * defines first:
 *   SFX, ISA        the functions' suffix and their target attribute
 *   V, W            the vector type and its int16 lanes (16, 32)
 *   LOAD16 (p)      W uint16     LOAD8 (p)  W bytes as uint16
 *   LOAD32 (p), STORE (p, v)     ZERO  SET1_16 (x)  SET1_32 (x)
 *   ADD16 SUB16 ADD32 MULLO32 OR ABS32 UNPACKLO16 UNPACKHI16
 *   SRA32 (v, count)  (count in an __m128i), SRAI32 (v, imm)
 *   DP (acc, a, b)  acc + a0 b0 + a1 b1 per 32-bit lane (vpmaddwd)
 *   STORE_UNPACKED32 (p, lo, hi)  the 32-bit results of UNPACKLO16 and
 *                   UNPACKHI16 pairs stored back in column order
 *   KEEP_FROM32 (v, from)   32-bit lanes from `from` on, the others 0
 *   IS_ZERO (v)     REDUCE32 (v)  (Σ of the 32-bit lanes, modulo 2^32)
 *
 * The vertical pass's input, prev − cur, fits int16: it takes 16x16 ->
 * 32-bit multiply-adds of pairs of taps (vpmaddwd) instead of the C's
 * 32-bit multiplies.  Its output v (|v| <= 65520) needs int32, as in the
 * C.  The horizontal sum S = 3571 A + 16004 B + 26386 C (A = v0 + v4,
 * B = v1 + v3, C = v2) can pass 2^31, the C splits each term at bit 16;
 * here, the even taps halved, S = 2 (8002 B + 13193 C) + 3571 A, so
 * (S + 2^15) >> 16 = (8002 B + 13193 C + (3571 A >> 1) + 2^14) >> 15
 * (S + 2^15 and S + 2^15 − (3571 A & 1) lie in one even pair, which no
 * multiple of 2^16 splits), and that sum is S / 2 + 2^14 at most, within
 * int32 for |v| <= 65520: three 32-bit multiplies and no split. */

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_ (a, b)
#define FN(name) CAT (name, SFX)
#define TARGET __attribute__ ((target (ISA)))
#define INLINE TARGET static inline __attribute__ ((always_inline))

/* prev − cur of one row pair, as int16 (W columns at a time, the last W
 * again where the width is no multiple) */
INLINE void
FN (motion_differences) (const void *prev, const void *cur, unsigned width,
    int wide, int16_t *d)
{
  for (unsigned x = 0;; x += W) {
    if (x + W > width)
      x = width - W;
    const V diff = wide ? SUB16 (LOAD16 ((const uint16_t *) prev + x),
        LOAD16 ((const uint16_t *) cur + x))
        : SUB16 (LOAD8 ((const uint8_t *) prev + x),
        LOAD8 ((const uint8_t *) cur + x));
    STORE (d + x, diff);
    if (x + W == width)
      break;
  }
}

/* The vertical pass of W columns from x over the difference rows d[k]:
 * the pairs (outer, inner) and (centre, 1) times (3571, 16004) and
 * (26386, rounding), stored at out[x]; returns them OR-ed. */
INLINE V
FN (motion_vertical) (const int16_t *const d[5], unsigned x,
    V outer_inner_taps, V centre_taps, __m128i shift, int32_t *out)
{
  const V outer = ADD16 (LOAD16 (d[0] + x), LOAD16 (d[4] + x));
  const V inner = ADD16 (LOAD16 (d[1] + x), LOAD16 (d[3] + x));
  const V centre = LOAD16 (d[2] + x);
  const V one = SET1_16 (1);
  const V lo = SRA32 (DP (DP (ZERO, UNPACKLO16 (outer, inner),
              outer_inner_taps), UNPACKLO16 (centre, one), centre_taps),
      shift);
  const V hi = SRA32 (DP (DP (ZERO, UNPACKHI16 (outer, inner),
              outer_inner_taps), UNPACKHI16 (centre, one), centre_taps),
      shift);
  STORE_UNPACKED32 (out + x, lo, hi);
  return OR (lo, hi);
}

/* |horizontal pass| of the W / 2 columns from x of the row v, whose
 * index 0 is column −2 */
INLINE V
FN (motion_horizontal) (const int32_t *v, unsigned x)
{
  const V a = ADD32 (LOAD32 (v + x), LOAD32 (v + x + 4));
  const V b = ADD32 (LOAD32 (v + x + 1), LOAD32 (v + x + 3));
  const V c = LOAD32 (v + x + 2);
  const V half_sum = ADD32 (ADD32 (MULLO32 (b, SET1_32 (VH_MOTION_TAP_INNER
                  / 2)), MULLO32 (c, SET1_32 (VH_MOTION_TAP_CENTRE / 2))),
      ADD32 (SRAI32 (MULLO32 (a, SET1_32 (VH_MOTION_TAP_OUTER)), 1),
          SET1_32 (1 << 14)));
  return ABS32 (SRAI32 (half_sum, 15));
}

INLINE uint64_t
FN (motion_sad) (const VhPlane *prev, const VhPlane *cur, unsigned bpc,
    void *scratch, int wide)
{
  const unsigned width = prev->width, height = prev->height;
  /* the vertical pass's row, column 0 on a cache line (aligned stores) */
  int32_t *out = (int32_t *) motion_align64 (scratch) + 16;
  int32_t *vrow = out - VH_MOTION_RADIUS;
  /* prev − cur of the last five source rows, row r in slot r % 5 (any
   * row's five reflected neighbours lie within five consecutive rows),
   * every row on a cache line */
  int16_t *diff_rows = motion_align64 (out + width + VH_MOTION_RADIUS);
  const size_t diff_stride = (width + 31) & ~31u;
  const V outer_inner_taps = SET1_32 (VH_MOTION_TAP_OUTER
      | VH_MOTION_TAP_INNER << 16);
  const V centre_taps = SET1_32 (VH_MOTION_TAP_CENTRE
      | 1 << (bpc - 1) << 16);
  const __m128i shift = _mm_cvtsi32_si128 ((int) bpc);
  unsigned rows_done = 0;
  uint64_t sad = 0;

  for (unsigned y = 0; y < height; y++) {
    for (; rows_done < height && rows_done <= y + VH_MOTION_RADIUS;
        rows_done++)
      FN (motion_differences) ((const uint8_t *) prev->data
          + (ptrdiff_t) rows_done * prev->stride, (const uint8_t *) cur->data
          + (ptrdiff_t) rows_done * cur->stride, width, wide,
          diff_rows + (rows_done % 5) * diff_stride);
    const int16_t *d[5];
    for (int k = 0; k < 5; k++) {
      const int r = motion_reflect101 ((int) y - VH_MOTION_RADIUS + k,
          (int) height);
      d[k] = diff_rows + (size_t) (r % 5) * diff_stride;
    }
    V any = ZERO;
    unsigned x = 0;
    for (; x + W <= width; x += W)
      any = OR (any, FN (motion_vertical) (d, x, outer_inner_taps,
              centre_taps, shift, out));
    if (x < width)          /* the last W columns again, overlapping */
      any = OR (any, FN (motion_vertical) (d, width - W, outer_inner_taps,
              centre_taps, shift, out));
    if (IS_ZERO (any))
      continue;             /* adds nothing */

    out[-2] = out[2];
    out[-1] = out[1];
    out[width] = out[width - 2];
    out[width + 1] = out[width - 3];
    V sum = ZERO;
    for (x = 0; x + W / 2 <= width; x += W / 2)
      sum = ADD32 (sum, FN (motion_horizontal) (vrow, x));
    if (x < width)          /* the last columns, those done dropped */
      sum = ADD32 (sum, KEEP_FROM32 (FN (motion_horizontal) (vrow,
                  width - W / 2), x - (width - W / 2)));
    sad += (uint32_t) REDUCE32 (sum);
  }
  return sad;
}

TARGET static uint64_t
FN (motion_sad_simd) (const VhPlane *prev, const VhPlane *cur, unsigned bpc,
    void *scratch)
{
  if (prev->width < W)      /* narrower than one vector */
    return vh_motion_sad_c (prev, cur, bpc, scratch);
  if (bpc == 8)
    return FN (motion_sad) (prev, cur, bpc, scratch, 0);
  return FN (motion_sad) (prev, cur, bpc, scratch, 1);
}

#undef CAT_
#undef CAT
#undef FN
#undef TARGET
#undef INLINE
