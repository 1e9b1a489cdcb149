/* vmafhip — integer ADM on the GPU: the work of one block, thread by thread.
 *
 * Everything the device computes is here, as plain functions of the block
 * and thread index, so that the same code runs in three places:
 *   - kernels/adm.hip: one kernel per input kind, a loop over the phases
 *     below with __syncthreads() between them;
 *   - common/gpu/features/adm-gpu.c: the host side, which fills VhAdmGpuScale (the
 *     one kernel argument) from the CPU's options;
 *   - host tests: a C or C++ compiler runs the phases over every thread of
 *     every block, standing in for the grid, and compares the sums with the
 *     CPU engine's (common/features/adm/adm.c).
 * So it is written in the common subset of C11 and C++ (no templates, no
 * references) and needs no GPU header.
 *
 * The arithmetic is the CPU engine's (common/features/adm/adm.c), pixel for pixel,
 * including its QUIRKs and, where VhAdmParams.reference asks for it (the
 * default), the "AVX-512 flavour" of libvmaf's x86 code.  Where common/features/adm/adm.c
 * computes in int32 and relies on two's-complement wrap-around, this code
 * wraps explicitly (through uint32_t) so that the result is defined and the
 * same on every compiler.
 *
 * Work split.  One launch per scale.  A block owns a tile of
 * VH_ADM_TILE_W × VH_ADM_TILE_H band pixels (one thread each) and computes:
 *   1. the vertical DWT pass of ref and dis for the tile's band rows plus
 *      one above and below, over the input columns these need (shared
 *      memory);
 *   2. per band pixel: the horizontal pass (the low band `a` goes to global
 *      memory, the next scale's input), then decouple and CSF, for the tile
 *      and a one-pixel ring around it (the CM window needs the ring's masks;
 *      the ring is recomputed by the neighbouring tiles, not exchanged);
 *   3. contrast masking and the denominator of the tile's score pixels;
 *   4. the tile's part of every row sum: one thread per tile row and
 *      quantity adds the row's values up in shared memory and atomicAdds
 *      the sum into the per-row accumulators of the scale (integer, so the
 *      order in which blocks add does not matter);
 *   5. the last block to finish (a counter) rounds each complete row sum,
 *      as libvmaf does before adding rows up, and writes the scale's
 *      VhAdmScaleSums.
 * Rounding whole rows (not per block or per warp, as libvmaf's CUDA code
 * does) is what makes the result bit-exact.
 */
#ifndef VH_ADM_DEVICE_H
#define VH_ADM_DEVICE_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "adm-params.h"

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_ADM_FN static __host__ __device__ __forceinline__
#else
#define VH_ADM_FN static inline
#endif

/* True in the device pass of nvcc or hipcc. */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_ADM_ON_DEVICE 1
#endif

/* ---- Geometry of a block --------------------------------------------------- */

#define VH_ADM_TILE_W_LOG2 5
#define VH_ADM_TILE_W (1 << VH_ADM_TILE_W_LOG2)   /* band columns: a power of two */
#define VH_ADM_TILE_H 8                            /* band rows */
#define VH_ADM_THREADS_LOG2 (VH_ADM_TILE_W_LOG2 + 3)
#define VH_ADM_THREADS (VH_ADM_TILE_W * VH_ADM_TILE_H)   /* blockDim.x, exactly */
/* Tile plus the ring the 3×3 CM window reads. */
#define VH_ADM_HALO_W (VH_ADM_TILE_W + 2)
#define VH_ADM_HALO_H (VH_ADM_TILE_H + 2)
#define VH_ADM_RING (2 * VH_ADM_HALO_W + 2 * VH_ADM_TILE_H)
/* Input columns the horizontal pass of the halo tile reads: band column X
 * reads 2X − 1 .. 2X + 2. */
#define VH_ADM_VERT_W (2 * VH_ADM_TILE_W + 6)

/* Row of the per-thread values being summed: one padding slot after each
 * tile row, so that the threads summing different tile rows (one each)
 * read different shared-memory banks. */
#define VH_ADM_RED_INDEX(t) ((t) + (t) / VH_ADM_TILE_W)
#define VH_ADM_RED_STRIDE VH_ADM_RED_INDEX (VH_ADM_THREADS)

#if VH_ADM_THREADS != (1 << VH_ADM_THREADS_LOG2)
#error "VH_ADM_THREADS_LOG2 does not match VH_ADM_TILE_W × VH_ADM_TILE_H"
#endif

#define VH_ADM_NBANDS 3
/* Accumulated quantities, in the order of VhAdmScaleSums (adm.h): DLM h, v,
 * d; AIM h, v, d; denominator h, v, d. */
#define VH_ADM_NQ 9
#define VH_ADM_Q_AIM 3
#define VH_ADM_Q_DEN 6

#define VH_ADM_DIV_TABLE_SIZE 32769   /* vh_adm_div_table (): ⌊2^30 / i⌋, i ≤ 2^15 */

/* What a scale reads: the picture at scale 0, the previous low band after. */
typedef enum {
  VH_ADM_SRC_U8 = 0,    /* scale 0, 8-bit samples */
  VH_ADM_SRC_U16 = 1,   /* scale 0, 10-12 bit samples in 16-bit words */
  VH_ADM_SRC_S1 = 2,    /* scale 1: int32 low band, int32 arithmetic */
  VH_ADM_SRC_S23 = 3,   /* scales 2-3: int32 low band, int64 arithmetic */
} VhAdmSrcKind;

enum { VH_ADM_BAND_H, VH_ADM_BAND_V, VH_ADM_BAND_D };

/* What a launch computes: a whole pair; the reference's share, computed
 * once for several distorted pictures (its DWT: the low band each scale
 * passes on, and its detail bands over the decouple region, into
 * ref_bands); or a distorted picture's part, which reads that share
 * instead of transforming the reference again.  The arithmetic is the
 * pair's, split: the sums are the same, bit for bit. */
enum { VH_ADM_PART_PAIR, VH_ADM_PART_REF, VH_ADM_PART_DIS };
enum { VH_ADM_DLM, VH_ADM_AIM };

/* ---- The kernel argument ---------------------------------------------------
 *
 * One per launch (scale), by value.  Device memory is given as integer
 * addresses (VhGpuPtr on the host).  Filled by adm-gpu.c from the CPU
 * engine's VhAdmParams and the geometry common/features/adm/adm.c derives (adm_plan). */
typedef struct VhAdmGpuScale {
  uint64_t src[2];          /* ref, dis input of this scale */
  uint64_t src_pitch[2];    /* bytes between its rows */
  uint64_t low[2];          /* low band out: int32, pitch w; 0 at scale 3 */
  uint64_t div;             /* int32[VH_ADM_DIV_TABLE_SIZE] */
  uint64_t rows;            /* uint64[VH_ADM_NQ][h]: row sums, zeroed */
  uint64_t counter;         /* uint32: detail blocks done, zeroed */
  uint64_t out;             /* uint64[VH_ADM_NQ]: this scale's VhAdmScaleSums */
  uint64_t stale_in;        /* int32[2]: see AVX-512 flavour 1 (adm.c) */
  uint64_t stale_out;       /* int32[2], or 0 */
  uint64_t ref_bands;       /* parts REF and DIS: int32[3][h][w], the
                             * reference's h, v, d bands (decouple region) */
  double egl;               /* enhancement gain limit */
  float cos_sq;             /* cos²(1°) as the CPU stores it */
  int32_t scale;
  int32_t bpc;              /* scale 0 only */
  int32_t in_w, in_h;       /* input size */
  int32_t w, h;             /* band size */
  int32_t sl, sr, st, sb;   /* score region [sl, sr) × [st, sb) */
  int32_t nl, nr, nt, nb;   /* decouple region: score ± 1, clamped */
  int32_t tile_x0, tile_y0; /* tile of block (0, 0) */
  uint32_t detail_blocks;   /* blocks that meet the score region */
  int32_t want_low;         /* write the low band */
  int32_t want_detail;      /* 0: scale 0 skipped, low band only */
  int32_t want_aim;
  int32_t egl_int;          /* egl when it is an integer, else 0 */
  int32_t dwt_tail;         /* AVX-512 flavour 1 */
  int32_t stale_col;        /* stale_out gets columns stale_col, +1 of the
                             * dis low-pass vertical output, band row h − 1 */
  int32_t vec_l, vec_r;     /* flavours 2, 3: decouple/CSF columns */
  int32_t cm_vec_r;         /* flavour 4: CM columns [sl, cm_vec_r) */
  int32_t cm_sub[VH_ADM_NBANDS];
  int32_t cm_sq_shift[VH_ADM_NBANDS];
  int32_t cm_cube_shift[VH_ADM_NBANDS];
  int32_t cm_row_shift;
  int32_t den_sq_shift, den_cube_shift, den_row_shift;
  int32_t rf_s0[VH_ADM_NBANDS];      /* CSF weights, scale 0 (Q21/Q23) */
  uint32_t rf_q32[VH_ADM_NBANDS];    /* CSF weights, scales 1-3 (Q32) */
} VhAdmGpuScale;

/* Shared memory of a block. */
typedef struct VhAdmTile {
  union {
    /* Vertical pass [image][low, high][halo row][input column]. */
    int32_t vert[2][2][VH_ADM_HALO_H][VH_ADM_VERT_W];
    /* Per-thread values being summed [quantity][RED_INDEX (thread)]. */
    uint64_t red[VH_ADM_NQ][VH_ADM_RED_STRIDE];
  } u;
  /* CM mask row Σ_bands |csf|/30 of the halo tile [DLM, AIM][row][col]. */
  uint32_t mask[2][VH_ADM_HALO_H][VH_ADM_HALO_W];
  int32_t is_last;
} VhAdmTile;

/* What a thread carries from the decouple phase to the CM phase. */
typedef struct VhAdmThread {
  int32_t active;                  /* its pixel is a score pixel */
  int32_t x[2][VH_ADM_NBANDS];     /* CM signal [DLM, AIM][band] */
  uint32_t centre[2];              /* CM centre term [DLM, AIM] */
  uint64_t den[VH_ADM_NBANDS];
} VhAdmThread;

/* ---- Small helpers ------------------------------------------------------- */

VH_ADM_FN int
vh_adm_clz32 (uint32_t v)
{
#if defined(__CUDA_ARCH__)
  return __clz ((int) v);
#else
  return v ? __builtin_clz (v) : 32;
#endif
}

/* Wrapping int32 arithmetic, as the CPU's int32 code on x86. */
VH_ADM_FN int32_t
vh_adm_wadd (int32_t a, int32_t b)
{
  return (int32_t) ((uint32_t) a + (uint32_t) b);
}

VH_ADM_FN int32_t
vh_adm_wsub (int32_t a, int32_t b)
{
  return (int32_t) ((uint32_t) a - (uint32_t) b);
}

VH_ADM_FN int32_t
vh_adm_wmul (int32_t a, int32_t b)
{
  return (int32_t) ((uint32_t) a * (uint32_t) b);
}

/* abs () of C on x86: INT32_MIN stays INT32_MIN. */
VH_ADM_FN int32_t
vh_adm_wabs (int32_t a)
{
  return a < 0 ? (int32_t) (0u - (uint32_t) a) : a;
}

/* Round-half-up constant of a right shift (0 for no shift). */
VH_ADM_FN int64_t
vh_adm_half (int shift)
{
  return shift > 0 ? (int64_t) 1 << (shift - 1) : 0;
}

/* Arithmetic right shift of a signed 64-bit value (what >> does on every
 * compiler we use; spelled out because C leaves it implementation-defined). */
VH_ADM_FN int64_t
vh_adm_sar64 (int64_t v, int s)
{
  return v >> s;
}

VH_ADM_FN double
vh_adm_dmul (double a, double b)
{
#if defined(VH_ADM_ON_DEVICE)
  return __dmul_rn (a, b);   /* never fused with anything */
#else
  return a * b;
#endif
}

/* DWT mirror: −1 reads 1, n + k reads n − 1 − k (QUIRK, asymmetric). */
VH_ADM_FN int
vh_adm_dwt_mirror (int i, int n)
{
  return i < 0 ? -i : i >= n ? 2 * n - 1 - i : i;
}

/* CM neighbour mirror: −1 reads 1, n reads n − 1. */
VH_ADM_FN int
vh_adm_cm_mirror (int i, int n)
{
  return i < 0 ? -i : i >= n ? n - 1 : i;
}

/* ---- DWT ---------------------------------------------------------------- */

/* The db2 filters, VH_ADM_DWT_LO and VH_ADM_DWT_HI, are adm-params.h's. */

/* Vertical pass of input column col (0 ≤ col < in_w) for band row Y of one
 * image: both filters down input rows 2Y − 1 .. 2Y + 2 (mirrored). The
 * types are the CPU's: scale 0 and 1 multiply int16 samples in int32
 * (scale 1 reads the int32 band through an int16, as libvmaf's int16 band
 * is), scales 2-3 in int64. */
VH_ADM_FN void
vh_adm_vertical (const VhAdmGpuScale *p, int kind, int img, int Y, int col,
    int32_t *lo, int32_t *hi)
{
  const unsigned char *base = (const unsigned char *) (uintptr_t) p->src[img];
  const size_t pitch = (size_t) p->src_pitch[img];
  const unsigned char *row[4];
  for (int k = 0; k < 4; k++)
    row[k] = base + (size_t) vh_adm_dwt_mirror (2 * Y - 1 + k, p->in_h) * pitch;

  if (kind == VH_ADM_SRC_S23) {
    int64_t s[4];
    for (int k = 0; k < 4; k++)
      s[k] = ((const int32_t *) row[k])[col];
    *lo = (int32_t) ((VH_ADM_DWT_LO (s[0], s[1], s[2], s[3]) + (1 << 15)) >> 16);
    *hi = (int32_t) ((VH_ADM_DWT_HI (s[0], s[1], s[2], s[3]) + (1 << 15)) >> 16);
    return;
  }
  int32_t s[4];
  for (int k = 0; k < 4; k++) {
    if (kind == VH_ADM_SRC_U8)
      s[k] = (int16_t) row[k][col];
    else if (kind == VH_ADM_SRC_U16)
      s[k] = (int16_t) ((const uint16_t *) row[k])[col];
    else
      s[k] = (int16_t) ((const int32_t *) row[k])[col];
  }
  const int32_t l = VH_ADM_DWT_LO (s[0], s[1], s[2], s[3]);
  const int32_t h = VH_ADM_DWT_HI (s[0], s[1], s[2], s[3]);
  if (kind == VH_ADM_SRC_S1) {
    *lo = l;
    *hi = h;
  } else {
    /* Scale 0 recentres: the low-pass gain times half the range. */
    const int bpc = kind == VH_ADM_SRC_U8 ? 8 : p->bpc;
    const int32_t half = 1 << (bpc - 1);
    const int32_t add_lo = half - VH_ADM_DWT_LO_SUM * half;
    *lo = (l + add_lo) >> bpc;
    *hi = (h + half) >> bpc;
  }
}

/* The vertical pass as the horizontal pass reads it, for both images:
 * column −1 .. in_w + 1 of the padded row (−1 reads 1, n + k reads
 * n − 1 − k), or, with AVX-512 flavour 1, columns n and n + 1 read what
 * follows the row in libvmaf's scratch (adm.c explains). */
/* The images a part transforms: ref (0) and dis (1), from first to last. */
#define VH_ADM_FIRST_IMG(part) ((part) == VH_ADM_PART_DIS ? 1 : 0)
#define VH_ADM_LAST_IMG(part) ((part) == VH_ADM_PART_REF ? 0 : 1)

VH_ADM_FN void
vh_adm_vertical_padded (const VhAdmGpuScale *p, int kind, int part, int Y,
    int col, int32_t lo[2], int32_t hi[2])
{
  const int n = p->in_w;
  const int i0 = VH_ADM_FIRST_IMG (part), i1 = VH_ADM_LAST_IMG (part);
  if (col < n || !p->dwt_tail) {
    const int c = vh_adm_dwt_mirror (col, n);
    for (int i = i0; i <= i1; i++)
      vh_adm_vertical (p, kind, i, Y, c, &lo[i], &hi[i]);
    return;
  }
  const int k = col - n;        /* 0 or 1 */
  int32_t lk[2], hk[2];
  for (int i = i0; i <= i1; i++) {
    vh_adm_vertical (p, kind, i, Y, k, &lk[i], &hk[i]);
    /* Each image's low-pass row is followed by its high-pass row. */
    lo[i] = hk[i];
  }
  if (p->scale > 0) {
    /* ref's high-pass row by dis's low-pass row (the reference's share
     * has no dis: its bands there are never scored, which
     * vh_adm_gpu_reference_fits checks); dis's by what the scale before
     * left there. */
    if (i0 == 0)
      hi[0] = part == VH_ADM_PART_PAIR ? lk[1] : 0;
    if (i1 == 1)
      hi[1] = ((const int32_t *) (uintptr_t) p->stale_in)[k];
  } else {
    /* Scale 0: the mirror is kept for the high-pass rows. */
    const int c = 2 * n - 1 - col;
    int32_t unused;
    for (int i = i0; i <= i1; i++)
      vh_adm_vertical (p, kind, i, Y, c, &unused, &hi[i]);
  }
}

/* Horizontal pass over four vertical-pass values: the low-pass (*lo) and
 * high-pass (*hi) output. Scale 0 multiplies int16 in int32, scales 1-3
 * work in int64 with their own rounding. */
VH_ADM_FN void
vh_adm_horizontal (const VhAdmGpuScale *p, const int32_t *t, int32_t *lo,
    int32_t *hi)
{
  if (p->scale == 0) {
    const int32_t s0 = (int16_t) t[0], s1 = (int16_t) t[1],
        s2 = (int16_t) t[2], s3 = (int16_t) t[3];
    *lo = (VH_ADM_DWT_LO (s0, s1, s2, s3) + (1 << 15)) >> 16;
    *hi = (VH_ADM_DWT_HI (s0, s1, s2, s3) + (1 << 15)) >> 16;
  } else {
    const int shift = p->scale == 2 ? 16 : 15;
    const int64_t add = vh_adm_half (shift);
    const int64_t s0 = t[0], s1 = t[1], s2 = t[2], s3 = t[3];
    *lo = (int32_t) ((VH_ADM_DWT_LO (s0, s1, s2, s3) + add) >> shift);
    *hi = (int32_t) ((VH_ADM_DWT_HI (s0, s1, s2, s3) + add) >> shift);
  }
}

/* The detail bands h, v, d of band pixel (X, Y), at halo row r, whose
 * four vertical-pass inputs start at column vc of the shared tile: of the
 * images the part transforms, and for part DIS the reference's from its
 * share. */
VH_ADM_FN void
vh_adm_detail_bands (const VhAdmGpuScale *p, int part, const VhAdmTile *sm,
    int r, int vc, int X, int Y, int32_t band[2][VH_ADM_NBANDS])
{
  for (int i = VH_ADM_FIRST_IMG (part); i <= VH_ADM_LAST_IMG (part); i++) {
    int32_t unused;
    /* Low-pass vertical, high-pass horizontal: v; high-pass vertical:
     * h (low horizontal) and d (high horizontal). */
    vh_adm_horizontal (p, &sm->u.vert[i][0][r][vc], &unused,
        &band[i][VH_ADM_BAND_V]);
    vh_adm_horizontal (p, &sm->u.vert[i][1][r][vc], &band[i][VH_ADM_BAND_H],
        &band[i][VH_ADM_BAND_D]);
  }
  if (part == VH_ADM_PART_DIS) {
    const int32_t *rb = (const int32_t *) (uintptr_t) p->ref_bands;
    for (int b = 0; b < VH_ADM_NBANDS; b++)
      band[0][b] = rb[((size_t) b * p->h + Y) * p->w + X];
  }
}

/* ---- Decouple ------------------------------------------------------------ */

/* Whether (oh, ov) and (th, tv) are less than 1° apart. QUIRK: int64
 * products rounded to float, then scaled and compared in double. */
VH_ADM_FN int
vh_adm_angle_within_1deg (int32_t oh, int32_t ov, int32_t th, int32_t tv,
    float cos_sq)
{
  const int64_t dp = (int64_t) ((uint64_t) ((int64_t) oh * th)
      + (uint64_t) ((int64_t) ov * tv));
  const int64_t o2 = (int64_t) ((uint64_t) ((int64_t) oh * oh)
      + (uint64_t) ((int64_t) ov * ov));
  const int64_t t2 = (int64_t) ((uint64_t) ((int64_t) th * th)
      + (uint64_t) ((int64_t) tv * tv));
  const double dpf = (double) (float) dp / 4096.0;
  const double o2f = (double) (float) o2 / 4096.0;
  const double t2f = (double) (float) t2 / 4096.0;
  return dpf >= 0.0
      && vh_adm_dmul (dpf, dpf)
          >= vh_adm_dmul (vh_adm_dmul ((double) cos_sq, o2f), t2f);
}

/* k = clamp(t / o, 0, 1) in Q15 (1 where o = 0) through the DIV table;
 * at scales 1-3 a divisor beyond 15 bits is first rounded to 15
 * significant bits. */
VH_ADM_FN int32_t
vh_adm_ratio (const VhAdmGpuScale *p, const int32_t *div, int32_t o,
    int32_t t)
{
  if (o == 0)
    return 32768;
  const int32_t sign = o < 0 ? -1 : 0;
  const uint32_t mag = (uint32_t) (o ^ sign) - (uint32_t) sign;   /* |o| */
  int64_t q;
  if (p->scale == 0) {
    /* |o| < 2^15 for 8-12 bit input; the bound only keeps a broken input
     * inside the table. */
    const int32_t tj = vh_adm_wsub (t ^ sign, sign);
    const uint32_t m = mag < 32768u ? mag : 32768u;
    q = ((int64_t) div[m] * tj + 16384) >> 15;
  } else {
    const int64_t tj = ((int64_t) t ^ sign) - sign;
    const int shift = mag >= 32768u ? 17 - vh_adm_clz32 (mag | 1) : 0;
    const uint32_t m = (mag + ((1u << shift) >> 1)) >> shift;
    q = ((int64_t) div[m] * tj + ((int64_t) 1 << (14 + shift))) >> (15 + shift);
  }
  q = q > 0 ? q : 0;
  q = q < 32768 ? q : 32768;
  return (int32_t) q;
}

/* The restored coefficient r = k·o, allowed to grow by up to egl towards t
 * where the orientation is kept within 1°. Integer egl: exact integer
 * product (int32 at scale 0, where bands stay within ±2^15). Otherwise in
 * double, truncated or (flavour 2, `nearest`) rounded to nearest even. */
VH_ADM_FN int32_t
vh_adm_restore (const VhAdmGpuScale *p, int32_t o, int32_t t, int32_t k,
    int angle, int nearest)
{
  const int keep = angle && k > 0 && o != 0;
  if (p->egl_int > 0 && p->scale == 0) {
    const int32_t v = (k * o + 16384) >> 15;
    const int32_t g = v * p->egl_int;
    const int32_t lim = o > 0 ? (g < t ? g : t) : (g > t ? g : t);
    return keep ? lim : v;
  }
  if (p->egl_int > 0) {
    const int64_t v = ((int64_t) k * o + 16384) >> 15;
    const int64_t g = v * p->egl_int;
    const int64_t lim = o > 0 ? (g < t ? g : t) : (g > t ? g : t);
    return (int32_t) (keep ? lim : v);
  }
  const int32_t v = (int32_t) (((int64_t) k * o + 16384) >> 15);
  double g = vh_adm_dmul ((double) v, p->egl);
  if (nearest)
    g = rint (g);
  const int32_t lo = (int32_t) (o > 0 && g < t ? g : (double) t);
  const int32_t hi = (int32_t) (o < 0 && g > t ? g : (double) t);
  const int32_t lim = o > 0 ? lo : hi;
  return keep ? lim : v;
}

/* ---- CSF ----------------------------------------------------------------- */

/* Scale 0: weight·value >> 15, 15, 17; QUIRK: d rounds with 65535. */
VH_ADM_FN int32_t
vh_adm_csf_s0 (int32_t weighted, int band)
{
  return band == VH_ADM_BAND_D
      ? vh_adm_wadd (weighted, VH_ADM_CSF_S0_ADD_D) >> VH_ADM_CSF_S0_SHIFT_D
      : vh_adm_wadd (weighted, VH_ADM_CSF_S0_ADD_HV) >> VH_ADM_CSF_S0_SHIFT_HV;
}

/* |c|/30 (stored int16 by libvmaf) and |c|/15 at scale 0. */
VH_ADM_FN int32_t
vh_adm_flt_s0 (int32_t c)
{
  return (int16_t) ((VH_ADM_ONE_BY_30 * vh_adm_wabs (c) + 2048) >> 12);
}

VH_ADM_FN int32_t
vh_adm_centre_raw_s0 (int32_t c)
{
  return (VH_ADM_ONE_BY_15 * vh_adm_wabs (c) + 2048) >> 12;
}

VH_ADM_FN int32_t
vh_adm_csf_s123 (int32_t v, uint32_t weight)
{
  return (int32_t) (((int64_t) weight * v + (1 << 27)) >> 28);
}

/* QUIRK: the rounding add is an int32 set from 1u << 31, i.e. −2^31. */
VH_ADM_FN int32_t
vh_adm_flt_s123 (int32_t c)
{
  return (int32_t) (((int64_t) VH_ADM_I4_ONE_BY_30 * vh_adm_wabs (c)
          + INT32_MIN) >> 32);
}

VH_ADM_FN int32_t
vh_adm_centre_s123 (int32_t c)
{
  return (int32_t) (((int64_t) VH_ADM_I4_ONE_BY_15 * vh_adm_wabs (c)
          + INT32_MIN) >> 32);
}

/* Decouple and CSF of one band pixel at band column X, from the ref (o)
 * and dis (t) detail bands: the CM mask terms of DLM and AIM (the DLM
 * masks the restored signal r with the impairment t − r, the AIM the
 * other way round), and, for the centre of the CM window, the CM signals x
 * and the centre terms (with AVX-512 flavour 4 where `raw_centre`). */
VH_ADM_FN void
vh_adm_decouple_csf (const VhAdmGpuScale *p, const int32_t *div, int X,
    int raw_centre, const int32_t o[VH_ADM_NBANDS],
    const int32_t t[VH_ADM_NBANDS], uint32_t mask[2],
    int32_t x[2][VH_ADM_NBANDS], uint32_t centre[2])
{
  const int angle = vh_adm_angle_within_1deg (o[VH_ADM_BAND_H],
      o[VH_ADM_BAND_V], t[VH_ADM_BAND_H], t[VH_ADM_BAND_V], p->cos_sq);
  /* Inside libvmaf's 16-wide AVX-512 loops (flavours 2 and 3). */
  const int vec = X >= p->vec_l && X < p->vec_r;
  uint32_t m_dlm = 0, m_aim = 0, c_dlm = 0, c_aim = 0;
  uint32_t raw_dlm = 0, raw_aim = 0;

  for (int b = 0; b < VH_ADM_NBANDS; b++) {
    const int32_t k = vh_adm_ratio (p, div, o[b], t[b]);
    const int32_t r = vh_adm_restore (p, o[b], t[b], k, angle, vec);
    if (p->scale == 0) {
      /* The CM signal is the unshifted weighted value at scale 0. */
      const int32_t xr = vh_adm_wmul (r, p->rf_s0[b]);
      const int32_t xa = vh_adm_wmul (vh_adm_wsub (t[b], r), p->rf_s0[b]);
      x[VH_ADM_DLM][b] = xr;
      x[VH_ADM_AIM][b] = xa;
      const int32_t csf_r = vh_adm_csf_s0 (xr, b), csf_a = vh_adm_csf_s0 (xa, b);
      const int32_t csf_r16 = (int16_t) csf_r, csf_a16 = (int16_t) csf_a;
      /* Flavour 3: the 16-wide loop takes |csf|/30 before the int16 store. */
      m_dlm += (uint32_t) vh_adm_flt_s0 (vec ? csf_a : csf_a16);
      m_aim += (uint32_t) vh_adm_flt_s0 (vec ? csf_r : csf_r16);
      const int32_t ca = vh_adm_centre_raw_s0 (csf_a16);
      const int32_t cr = vh_adm_centre_raw_s0 (csf_r16);
      c_dlm += (uint32_t) (int32_t) (int16_t) ca;
      c_aim += (uint32_t) (int32_t) (int16_t) cr;
      raw_dlm += (uint32_t) ca;
      raw_aim += (uint32_t) cr;
    } else {
      /* Scales 1-3: the CM signal is the CSF output; sums modulo 2^32. */
      const uint32_t wq = p->rf_q32[b];
      const int32_t csf_r = vh_adm_csf_s123 (r, wq);
      const int32_t csf_a = vh_adm_csf_s123 (vh_adm_wsub (t[b], r), wq);
      x[VH_ADM_DLM][b] = csf_r;
      x[VH_ADM_AIM][b] = csf_a;
      m_dlm += (uint32_t) vh_adm_flt_s123 (csf_a);
      c_dlm += (uint32_t) vh_adm_centre_s123 (csf_a);
      m_aim += (uint32_t) vh_adm_flt_s123 (csf_r);
      c_aim += (uint32_t) vh_adm_centre_s123 (csf_r);
    }
  }
  mask[VH_ADM_DLM] = m_dlm;
  mask[VH_ADM_AIM] = m_aim;
  /* Flavour 4 (scale 0, 14-wide CM loop): the centre not wrapped to int16. */
  centre[VH_ADM_DLM] = raw_centre ? raw_dlm : c_dlm;
  centre[VH_ADM_AIM] = raw_centre ? raw_aim : c_aim;
}

/* ---- Denominator and contrast masking ------------------------------------- */

/* |o|³ (scale 0) or ((o² + 2^sq) >> sq)·|o| rounded (QUIRK: a full 2^sq). */
VH_ADM_FN uint64_t
vh_adm_den (const VhAdmGpuScale *p, int32_t o)
{
  if (p->scale == 0) {
    const uint64_t v = (uint16_t) vh_adm_wabs (o);
    return v * v * v;
  }
  const uint64_t v = (uint32_t) vh_adm_wabs (o);
  const uint64_t sq_add = (uint64_t) 1 << p->den_sq_shift;
  const uint64_t cube_add = (uint64_t) vh_adm_half (p->den_cube_shift);
  return ((((v * v) + sq_add) >> p->den_sq_shift) * v + cube_add)
      >> p->den_cube_shift;
}

/* max(|x| − (thr << sub), 0)³ in two rounded steps; the int32 shift and
 * subtraction modulo 2^32, the square stored as int32, as the CPU does. */
VH_ADM_FN int64_t
vh_adm_cm (int32_t x, uint32_t thr, int sub, int sq_shift, int cube_shift)
{
  const uint32_t t = thr << sub;
  int32_t v = (int32_t) ((uint32_t) vh_adm_wabs (x) - t);
  v = v < 0 ? 0 : v;
  const int32_t sq = (int32_t) (((int64_t) v * v + vh_adm_half (sq_shift))
      >> sq_shift);
  return ((int64_t) sq * v + vh_adm_half (cube_shift)) >> cube_shift;
}

/* ---- Atomics (plain additions where a host stands in for the device) ----- */

VH_ADM_FN void
vh_adm_atomic_add_u64 (uint64_t *addr, uint64_t v)
{
#if defined(VH_ADM_ON_DEVICE)
  atomicAdd ((unsigned long long *) addr, (unsigned long long) v);
#else
  *addr += v;
#endif
}

VH_ADM_FN uint32_t
vh_adm_atomic_inc_u32 (uint32_t *addr)
{
#if defined(VH_ADM_ON_DEVICE)
  return atomicAdd ((unsigned int *) addr, 1u);
#else
  return (*addr)++;
#endif
}

VH_ADM_FN void
vh_adm_fence (void)
{
#if defined(VH_ADM_ON_DEVICE)
  __threadfence ();
#endif
}

/* ---- The block, phase by phase --------------------------------------------
 *
 * vh_adm_phase () runs phase `phase` of thread t of block (bx, by) (tile
 * coordinates, tile_x0/y0 included); the device calls it for every thread
 * with __syncthreads () between phases, a host for every thread in turn.
 * It returns 0, the same for every thread of a block, when the block has
 * nothing more to do. */
enum {
  VH_ADM_PHASE_VERTICAL,
  VH_ADM_PHASE_BANDS,
  VH_ADM_PHASE_CM,
  VH_ADM_PHASE_ROW_ADD,
  VH_ADM_PHASE_COUNT,
  VH_ADM_PHASE_FINAL_ROWS,
  VH_ADM_PHASE_FINAL_REDUCE,                        /* THREADS_LOG2 steps */
  VH_ADM_PHASE_FINAL_STORE = VH_ADM_PHASE_FINAL_REDUCE + VH_ADM_THREADS_LOG2,
  VH_ADM_PHASES
};

/* Whether tile (bx, by) holds score pixels (else it only makes the low
 * band). The same for every thread of the block. */
VH_ADM_FN int
vh_adm_tile_has_detail (const VhAdmGpuScale *p, int bx, int by)
{
  const int x0 = bx * VH_ADM_TILE_W, y0 = by * VH_ADM_TILE_H;
  return p->want_detail && x0 < p->sr && x0 + VH_ADM_TILE_W > p->sl
      && y0 < p->sb && y0 + VH_ADM_TILE_H > p->st;
}

/* Whether tile (bx, by) meets the decouple region, where the reference's
 * share holds its bands. */
VH_ADM_FN int
vh_adm_tile_has_decouple (const VhAdmGpuScale *p, int bx, int by)
{
  const int x0 = bx * VH_ADM_TILE_W, y0 = by * VH_ADM_TILE_H;
  return x0 < p->nr && x0 + VH_ADM_TILE_W > p->nl
      && y0 < p->nb && y0 + VH_ADM_TILE_H > p->nt;
}

/* Phase VERTICAL, item i: the vertical pass at halo row r (band row
 * y0 − 1 + r) and input column 2·x0 − 3 + c. A tile without score pixels
 * needs only the low-pass rows of its own band rows. */
VH_ADM_FN void
vh_adm_vertical_item (const VhAdmGpuScale *p, int kind, int part, int bx,
    int by, int detail, int i, VhAdmTile *sm)
{
  const int r = (detail ? 0 : 1) + i / VH_ADM_VERT_W;
  const int c = i % VH_ADM_VERT_W;
  const int Y = by * VH_ADM_TILE_H - 1 + r;
  const int col = 2 * bx * VH_ADM_TILE_W - 3 + c;
  /* Band rows outside the band and columns beyond the padding are never
   * read. */
  if (Y < 0 || Y >= p->h || col < -1 || col > p->in_w + 1)
    return;
  int32_t lo[2], hi[2];
  vh_adm_vertical_padded (p, kind, part, Y, col, lo, hi);
  for (int img = VH_ADM_FIRST_IMG (part); img <= VH_ADM_LAST_IMG (part);
      img++) {
    sm->u.vert[img][0][r][c] = lo[img];
    sm->u.vert[img][1][r][c] = hi[img];
  }
}

/* Phase BANDS for the thread's own pixel (the low band; in the decouple
 * region also mask, and for a score pixel the CM centre data and the
 * denominator terms into *th) and, for the first VH_ADM_RING threads,
 * one pixel of the ring (mask only). */
VH_ADM_FN void
vh_adm_bands (const VhAdmGpuScale *p, int part, int bx, int by, int detail,
    int t, VhAdmTile *sm, VhAdmThread *th)
{
  const int32_t *div = (const int32_t *) (uintptr_t) p->div;
  const int x0 = bx * VH_ADM_TILE_W, y0 = by * VH_ADM_TILE_H;
  const int tx = t % VH_ADM_TILE_W, ty = t / VH_ADM_TILE_W;
  const int X = x0 + tx, Y = y0 + ty;

  th->active = 0;
  if (X < p->w && Y < p->h) {
    const int r = ty + 1, vc = 2 * tx + 2;
    if (p->want_low) {
      for (int i = VH_ADM_FIRST_IMG (part); i <= VH_ADM_LAST_IMG (part);
          i++) {
        int32_t a, unused;
        vh_adm_horizontal (p, &sm->u.vert[i][0][r][vc], &a, &unused);
        ((int32_t *) (uintptr_t) p->low[i])[(size_t) Y * p->w + X] = a;
      }
    }
    if (detail && X >= p->nl && X < p->nr && Y >= p->nt && Y < p->nb) {
      int32_t band[2][VH_ADM_NBANDS];
      vh_adm_detail_bands (p, part, sm, r, vc, X, Y, band);
      if (part == VH_ADM_PART_REF) {
        /* the share: what the distorted parts read for this pixel */
        int32_t *rb = (int32_t *) (uintptr_t) p->ref_bands;
        for (int b = 0; b < VH_ADM_NBANDS; b++)
          rb[((size_t) b * p->h + Y) * p->w + X] = band[0][b];
        return;
      }
      /* Flavour 4 covers rows 1 .. h − 2. */
      const int raw = X >= p->sl && X < p->cm_vec_r && Y >= 1 && Y < p->h - 1;
      uint32_t mask[2];
      vh_adm_decouple_csf (p, div, X, raw, band[0], band[1], mask, th->x,
          th->centre);
      sm->mask[VH_ADM_DLM][r][tx + 1] = mask[VH_ADM_DLM];
      sm->mask[VH_ADM_AIM][r][tx + 1] = mask[VH_ADM_AIM];
      if (X >= p->sl && X < p->sr && Y >= p->st && Y < p->sb) {
        th->active = 1;
        for (int b = 0; b < VH_ADM_NBANDS; b++)
          th->den[b] = vh_adm_den (p, band[0][b]);
      }
    }
  }

  if (detail && part != VH_ADM_PART_REF && t < VH_ADM_RING) {
    /* Ring: top row, bottom row, left column, right column. */
    int r, c;
    if (t < VH_ADM_HALO_W) {
      r = 0;
      c = t;
    } else if (t < 2 * VH_ADM_HALO_W) {
      r = VH_ADM_HALO_H - 1;
      c = t - VH_ADM_HALO_W;
    } else if (t < 2 * VH_ADM_HALO_W + VH_ADM_TILE_H) {
      r = 1 + t - 2 * VH_ADM_HALO_W;
      c = 0;
    } else {
      r = 1 + t - 2 * VH_ADM_HALO_W - VH_ADM_TILE_H;
      c = VH_ADM_HALO_W - 1;
    }
    const int RY = y0 - 1 + r, RX = x0 - 1 + c;
    /* Outside the band the CM window mirrors onto pixels inside it. */
    if (RX >= p->nl && RX < p->nr && RY >= p->nt && RY < p->nb) {
      int32_t band[2][VH_ADM_NBANDS], x[2][VH_ADM_NBANDS];
      uint32_t mask[2], centre[2];
      vh_adm_detail_bands (p, part, sm, r, 2 * c, RX, RY, band);
      vh_adm_decouple_csf (p, div, RX, 0, band[0], band[1], mask, x, centre);
      sm->mask[VH_ADM_DLM][r][c] = mask[VH_ADM_DLM];
      sm->mask[VH_ADM_AIM][r][c] = mask[VH_ADM_AIM];
    }
  }
}

/* Phase CM: the thread's DLM, AIM and denominator terms into red. */
VH_ADM_FN void
vh_adm_cm_pixel (const VhAdmGpuScale *p, int bx, int by, int t,
    VhAdmTile *sm, const VhAdmThread *th)
{
  uint64_t v[VH_ADM_NQ];
  for (int q = 0; q < VH_ADM_NQ; q++)
    v[q] = 0;
  if (th->active) {
    const int x0 = bx * VH_ADM_TILE_W, y0 = by * VH_ADM_TILE_H;
    const int X = x0 + t % VH_ADM_TILE_W, Y = y0 + t / VH_ADM_TILE_W;
    for (int m = 0; m < (p->want_aim ? 2 : 1); m++) {
      /* Masking threshold: the 3×3 sum of the mask with the centre
       * replaced by the centre term, modulo 2^32. */
      uint32_t thr = th->centre[m];
      for (int dy = -1; dy <= 1; dy++) {
        const int rr = vh_adm_cm_mirror (Y + dy, p->h) - y0 + 1;
        for (int dx = -1; dx <= 1; dx++) {
          if (dy == 0 && dx == 0)
            continue;
          const int cc = vh_adm_cm_mirror (X + dx, p->w) - x0 + 1;
          thr += sm->mask[m][rr][cc];
        }
      }
      for (int b = 0; b < VH_ADM_NBANDS; b++)
        v[3 * m + b] = (uint64_t) vh_adm_cm (th->x[m][b], thr, p->cm_sub[b],
            p->cm_sq_shift[b], p->cm_cube_shift[b]);
    }
    for (int b = 0; b < VH_ADM_NBANDS; b++)
      v[VH_ADM_Q_DEN + b] = th->den[b];
  }
  for (int q = 0; q < VH_ADM_NQ; q++)
    sm->u.red[q][VH_ADM_RED_INDEX (t)] = v[q];
}

/* Phase FINAL_ROWS: thread t's share of the rounded row sums: rows
 * st + t, st + t + THREADS, ... of every quantity. */
VH_ADM_FN void
vh_adm_final_rows (const VhAdmGpuScale *p, int t, VhAdmTile *sm)
{
  const volatile uint64_t *rows =
      (const volatile uint64_t *) (uintptr_t) p->rows;
  const int64_t cm_add = vh_adm_half (p->cm_row_shift);
  const uint64_t den_add = (uint64_t) vh_adm_half (p->den_row_shift);
  for (int q = 0; q < VH_ADM_NQ; q++) {
    uint64_t acc = 0;
    if (q < VH_ADM_Q_AIM || q >= VH_ADM_Q_DEN || p->want_aim) {
      for (int y = p->st + t; y < p->sb; y += VH_ADM_THREADS) {
        const uint64_t s = rows[(size_t) q * p->h + y];
        /* Rows are rounded before they are added up (int64 for the CM
         * sums, uint64 for the denominator). */
        acc += q < VH_ADM_Q_DEN
            ? (uint64_t) vh_adm_sar64 ((int64_t) s + cm_add, p->cm_row_shift)
            : (s + den_add) >> p->den_row_shift;
      }
    }
    sm->u.red[q][VH_ADM_RED_INDEX (t)] = acc;
  }
}

VH_ADM_FN int
vh_adm_phase (const VhAdmGpuScale *p, int kind, int part, int phase, int bx,
    int by, int t, VhAdmTile *sm, VhAdmThread *th)
{
  /* the reference's share: every tile that holds decouple pixels */
  const int detail = part == VH_ADM_PART_REF
      ? vh_adm_tile_has_decouple (p, bx, by)
      : vh_adm_tile_has_detail (p, bx, by);

  if (phase == VH_ADM_PHASE_VERTICAL) {
    /* AVX-512 flavour 1: what the next scale's DWT reads after the dis
     * high-pass row is this scale's dis low-pass row h − 1, columns
     * stale_col and stale_col + 1. */
    if (p->stale_out && part != VH_ADM_PART_REF && bx == p->tile_x0
        && by == p->tile_y0 && t < 2) {
      int32_t lo, hi;
      vh_adm_vertical (p, kind, 1, p->h - 1, p->stale_col + t, &lo, &hi);
      ((int32_t *) (uintptr_t) p->stale_out)[t] = lo;
    }
    const int n = (detail ? VH_ADM_HALO_H : VH_ADM_TILE_H) * VH_ADM_VERT_W;
    for (int i = t; i < n; i += VH_ADM_THREADS)
      vh_adm_vertical_item (p, kind, part, bx, by, detail, i, sm);
    return 1;
  }
  if (phase == VH_ADM_PHASE_BANDS) {
    vh_adm_bands (p, part, bx, by, detail, t, sm, th);
    /* the share is written: nothing is summed */
    return part == VH_ADM_PART_REF ? 0 : detail;
  }
  if (phase == VH_ADM_PHASE_CM) {
    vh_adm_cm_pixel (p, bx, by, t, sm, th);
    return 1;
  }
  if (phase == VH_ADM_PHASE_ROW_ADD) {
    if (t < VH_ADM_NQ * VH_ADM_TILE_H) {
      const int q = t / VH_ADM_TILE_H, row = t % VH_ADM_TILE_H;
      const int Y = by * VH_ADM_TILE_H + row;
      if (Y >= p->st && Y < p->sb
          && (q < VH_ADM_Q_AIM || q >= VH_ADM_Q_DEN || p->want_aim)) {
        const uint64_t *v =
            &sm->u.red[q][VH_ADM_RED_INDEX (row * VH_ADM_TILE_W)];
        uint64_t sum = 0;
        for (int i = 0; i < VH_ADM_TILE_W; i++)
          sum += v[i];
        vh_adm_atomic_add_u64 ((uint64_t *) (uintptr_t) p->rows
            + (size_t) q * p->h + Y, sum);
      }
    }
    /* Our row sums are visible before the counter says we are done. */
    vh_adm_fence ();
    return 1;
  }
  if (phase == VH_ADM_PHASE_COUNT) {
    if (t == 0)
      sm->is_last = vh_adm_atomic_inc_u32 ((uint32_t *) (uintptr_t) p->counter)
          == p->detail_blocks - 1;
    return 1;
  }
  if (phase == VH_ADM_PHASE_FINAL_ROWS) {
    if (!sm->is_last)
      return 0;
    vh_adm_fence ();
    vh_adm_final_rows (p, t, sm);
    return 1;
  }
  if (phase < VH_ADM_PHASE_FINAL_STORE) {
    const int stride =
        VH_ADM_THREADS >> (phase - VH_ADM_PHASE_FINAL_REDUCE + 1);
    if (t < stride)
      for (int q = 0; q < VH_ADM_NQ; q++)
        sm->u.red[q][VH_ADM_RED_INDEX (t)] +=
            sm->u.red[q][VH_ADM_RED_INDEX (t + stride)];
    return 1;
  }
  /* VH_ADM_PHASE_FINAL_STORE */
  if (t < VH_ADM_NQ)
    ((uint64_t *) (uintptr_t) p->out)[t] = sm->u.red[t][0];
  return 0;
}

#endif /* VH_ADM_DEVICE_H */
