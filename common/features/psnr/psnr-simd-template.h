/* vmafhip — PSNR's planar SSE (psnr-simd.h) written once for any x86
 * vector width and included by psnr-simd.c once per instruction set,
 * which defines first:
 *   SFX, ISA        the functions' suffix and their target attribute
 *   V, W            the vector type and its int16 lanes (16, 32)
 *   LOAD16 (p)      W uint16     LOAD8 (p)  W bytes as uint16
 *   ZERO  SET1_16 (x)  SET1_64 (x)  SUB16 AND ADD64 SRLI64 (v, imm)
 *   DP (acc, a, b)  acc + a0 b0 + a1 b1 per 32-bit lane (vpmaddwd)
 *   KEEP_FROM16 (v, from)   int16 lanes from `from` on, the others 0
 *   REDUCE32 (v)  REDUCE64 (v)   Σ of the lanes (modulo 2^32, 2^64)
 *
 * ref − dis in int16 squared and summed in pairs by vpmaddwd: each pair
 * is below 2^31.  8-bit rows sum in 32-bit lanes, as the C's uint32 row
 * sum; 16-bit ones widen every pair sum to 64-bit lanes. */

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_ (a, b)
#define FN(name) CAT (name, SFX)
#define TARGET __attribute__ ((target (ISA)))
#define INLINE TARGET static inline __attribute__ ((always_inline))

/* W differences ref − dis at column x */
INLINE V
FN (psnr_difference) (const void *ref, const void *dis, unsigned x, int wide)
{
  if (wide)
    return SUB16 (LOAD16 ((const uint16_t *) ref + x),
        LOAD16 ((const uint16_t *) dis + x));
  return SUB16 (LOAD8 ((const uint8_t *) ref + x),
      LOAD8 ((const uint8_t *) dis + x));
}

/* the squares of W differences summed in pairs, added to acc: in 32-bit
 * lanes, or widened to 64-bit ones (wide) */
INLINE V
FN (psnr_add_squares) (V acc, V e, int wide)
{
  if (!wide)
    return DP (acc, e, e);
  const V pairs = DP (ZERO, e, e);
  return ADD64 (ADD64 (acc, AND (pairs, SET1_64 (0xffffffff))),
      SRLI64 (pairs, 32));
}

INLINE uint64_t
FN (psnr_sse) (const VhPlane *ref, const VhPlane *dis, int wide)
{
  const unsigned width = ref->width;
  uint64_t sse = 0;
  V acc = ZERO;
  for (unsigned y = 0; y < ref->height; y++) {
    const void *r = (const uint8_t *) ref->data + (ptrdiff_t) y * ref->stride;
    const void *d = (const uint8_t *) dis->data + (ptrdiff_t) y * dis->stride;
    unsigned x = 0;
    for (; x + W <= width; x += W)
      acc = FN (psnr_add_squares) (acc, FN (psnr_difference) (r, d, x, wide),
          wide);
    if (x < width) {        /* the last W columns, those done dropped */
      const V e = FN (psnr_difference) (r, d, width - W, wide);
      acc = FN (psnr_add_squares) (acc, KEEP_FROM16 (e, x - (width - W)),
          wide);
    }
    if (!wide) {            /* the row's uint32 sum */
      sse += (uint32_t) REDUCE32 (acc);
      acc = ZERO;
    }
  }
  return wide ? (uint64_t) REDUCE64 (acc) : sse;
}

TARGET static uint64_t
FN (psnr_sse_simd) (const VhPlane *ref, const VhPlane *dis, unsigned bpc)
{
  if (ref->width < W)       /* narrower than one vector */
    return vh_psnr_sse_planar_c (ref, dis, bpc);
  if (bpc == 8)
    return FN (psnr_sse) (ref, dis, 0);
  return FN (psnr_sse) (ref, dis, 1);
}

#undef CAT_
#undef CAT
#undef FN
#undef TARGET
#undef INLINE
