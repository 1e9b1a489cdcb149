/* vmafhip — ADM's DWT (libvmaf's db2 analysis, bit-exact), one band row
 * at a time: the vertical pass down four rows, then the horizontal pass
 * along the padded row (adm-dwt.h).  Scale 0 by hand in AVX2 where the
 * CPU has it (adm-dwt-x86.c), the rest plain C built per x86-64 level. */
#include "adm-dwt.h"
#include "adm-dwt-x86.h"
#include "vh-multiversion.h"
#include "adm-params.h"   /* the db2 taps, VH_ADM_DWT_LO/_HI */

/* Both tap sets down four rows. Scale 0 fits int32 (8-12 bit input, so
 * 16x16-bit products), the coarser scales need int64 like libvmaf. */
#define DEF_DWT_VERTICAL(name, src_t, mul_t, acc_t)                           \
  VH_MULTIVERSION static void name (const src_t *r0, const src_t *r1,       \
      const src_t *r2, const src_t *r3, int n, acc_t add_lo, acc_t add_hi,    \
      int shift,                                                              \
      int32_t *restrict lo, int32_t *restrict hi)                             \
  {                                                                           \
    FOR_COLUMNS (j, 0, n, {                                                   \
      const mul_t s0 = r0[j], s1 = r1[j], s2 = r2[j], s3 = r3[j];             \
      lo[j] = (int32_t) ((VH_ADM_DWT_LO (s0, s1, s2, s3) + add_lo) >> shift); \
      hi[j] = (int32_t) ((VH_ADM_DWT_HI (s0, s1, s2, s3) + add_hi) >> shift); \
    });                                                                       \
  }

DEF_DWT_VERTICAL (dwt_vertical_u8, uint8_t, int16_t, int32_t)
DEF_DWT_VERTICAL (dwt_vertical_u16, uint16_t, int16_t, int32_t)
/* Scale 1 reads the scale-0 low band, within ±23000 (as all scale-0 bands
 * for 8-12 bit input), and does not shift: int32 suffices. */
DEF_DWT_VERTICAL (dwt_vertical_s1, int32_t, int16_t, int32_t)
DEF_DWT_VERTICAL (dwt_vertical_i32, int32_t, int64_t, int64_t)

/* Both tap sets along a padded row, keeping every second output. At scale
 * 0 the vertical outputs fit int16 (|v| < 27500). */
#define DEF_DWT_HORIZONTAL(name, mul_t, acc_t)                                \
  VH_MULTIVERSION static void name (const int32_t *t, int half, acc_t add,  \
      int shift,                                                              \
      int32_t *restrict lo, int32_t *restrict hi)                             \
  {                                                                           \
    FOR_COLUMNS (j, 0, half, {                                                \
      const mul_t s0 = t[2 * j - 1], s1 = t[2 * j], s2 = t[2 * j + 1],        \
          s3 = t[2 * j + 2];                                                  \
      lo[j] = (int32_t) ((VH_ADM_DWT_LO (s0, s1, s2, s3) + add) >> shift);    \
      hi[j] = (int32_t) ((VH_ADM_DWT_HI (s0, s1, s2, s3) + add) >> shift);    \
    });                                                                       \
  }

DEF_DWT_HORIZONTAL (dwt_horizontal_s0, int16_t, int32_t)
DEF_DWT_HORIZONTAL (dwt_horizontal_s123, int64_t, int64_t)

/* QUIRK: libvmaf's DWT mirrors asymmetrically: index −1 reads 1 (whole-
 * sample symmetry), index n + k reads n − 1 − k (half-sample symmetry). */
static int
dwt_mirror (int i, int n)
{
  if (i < 0)
    return -i;
  if (i >= n)
    return 2 * n - 1 - i;
  return i;
}

VH_MULTIVERSION static void
pad_row (int32_t *t, int n)
{
  t[-1] = t[1];
  t[n] = t[n - 1];
  t[n + 1] = t[n - 2];
}



/* Vertical pass of band row y into `lo` and `hi`, padded. Scale 0 also
 * recentres the pixels: the low-pass filter subtracts its gain times half
 * the range. */
void
vh_adm_dwt_vertical (const VhAdmSource *src, int y, int scale, unsigned bpc,
    bool avx2, int32_t *lo, int32_t *hi)
{
  const int n = src->w;
  const uint8_t *r[4];
  for (int k = 0; k < 4; k++)
    r[k] = src->data + dwt_mirror (2 * y - 1 + k, src->h) * src->stride;
#ifndef VH_ADM_DWT_X86
  (void) avx2;                  /* the C everywhere but x86-64 */
#endif

  if (scale == 0) {
    const int32_t half = 1 << (bpc - 1);
    const int32_t add_lo = half - VH_ADM_DWT_LO_SUM * half;
#ifdef VH_ADM_DWT_X86
    if (avx2 && src->kind == VH_ADM_SRC_U8)
      vh_adm_dwt_vertical_u8_avx2 (r[0], r[1], r[2], r[3], n, add_lo, half,
          (int) bpc, lo, hi);
    else if (avx2)
      vh_adm_dwt_vertical_u16_avx2 ((const uint16_t *) r[0],
          (const uint16_t *) r[1], (const uint16_t *) r[2],
          (const uint16_t *) r[3], n, add_lo, half, (int) bpc, lo, hi);
    else
#endif
    if (src->kind == VH_ADM_SRC_U8)
      dwt_vertical_u8 (r[0], r[1], r[2], r[3], n, add_lo, half, bpc, lo, hi);
    else
      dwt_vertical_u16 ((const uint16_t *) r[0], (const uint16_t *) r[1],
          (const uint16_t *) r[2], (const uint16_t *) r[3], n, add_lo, half,
          bpc, lo, hi);
  } else if (scale == 1) {
    dwt_vertical_s1 ((const int32_t *) r[0], (const int32_t *) r[1],
        (const int32_t *) r[2], (const int32_t *) r[3], n, 0, 0, 0, lo, hi);
  } else {
    dwt_vertical_i32 ((const int32_t *) r[0], (const int32_t *) r[1],
        (const int32_t *) r[2], (const int32_t *) r[3], n, 1 << 15, 1 << 15,
        16, lo, hi);
  }
  pad_row (lo, n);
  pad_row (hi, n);
}

void
vh_adm_dwt_horizontal (const int32_t *t, int half, int scale, bool avx2,
    int32_t *lo, int32_t *hi)
{
  static const int shift[4] = { 16, 15, 16, 15 };
#ifdef VH_ADM_DWT_X86
  if (scale == 0 && avx2) {
    vh_adm_dwt_horizontal_s0_avx2 (t, half, lo, hi);
    return;
  }
#else
  (void) avx2;
#endif
  if (scale == 0)
    dwt_horizontal_s0 (t, half, 1 << 15, 16, lo, hi);
  else
    dwt_horizontal_s123 (t, half, vh_adm_half_of (shift[scale]), shift[scale], lo,
        hi);
}
