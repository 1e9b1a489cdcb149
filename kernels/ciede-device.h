/* vmafhip — CIEDE2000 per pixel, shared by the CPU extractor
 * (common/features/ciede/ciede.c) and the GPU kernel (kernels/ciede.hip).
 *
 * vh_ciede_*: libvmaf 3.2.0's `ciede`, which mixes float and double in
 * every step (Lab components and most intermediate terms are floats, the
 * colour conversions double); the same mix is written here with explicit
 * casts, so that C (where sqrt (float) is the double sqrt) and C++/CUDA
 * (where it would pick the float overload) compute the same operations.
 * vh_ciedeg_*: the GPU's arithmetic (below), checked against the CPU's on
 * the host by tests/check/test-ciede-emulation.cpp. */
#ifndef VH_CIEDE_DEVICE_H
#define VH_CIEDE_DEVICE_H

#include <math.h>
#include <string.h>

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_CIEDE_FN __host__ __device__ __forceinline__
#else
#define VH_CIEDE_FN static inline
#endif

#define VH_CIEDE_PI 3.14159265358979323846
#define VH_CIEDE_THREADS 256   /* GPU block size */

typedef struct {
  float l, a, b;
} VhLab;

/* The GPU's 8-bit table (kernels/ciede.hip): one entry per (y, u, v), the
 * colour's Lab and its chroma, 16 bytes for one 128-bit load. */
#define VH_CIEDE_TABLE_ENTRIES (1u << 24)
typedef struct {
#if defined(__cplusplus)
  alignas (16)
#else
  _Alignas (16)
#endif
  float l;
  float a, b, c;
} VhCiedeLabEntry;

/* ------------------------------------------------------------------------
 * libvmaf's arithmetic (the CPU) */

/* sRGB's transfer inverted (values below 10/255 linear) */
VH_CIEDE_FN double
vh_ciede_linear (double c)
{
  if (c > 10. / 255.)
    return pow ((c + 0.055) * (1.0 / 1.055), 2.4);
  return c * (1.0 / 12.92);
}

VH_CIEDE_FN float
vh_ciede_lab_f (double c)
{
  const double kappa = 24389.0 / 27.0, epsilon = 216.0 / 24389.0;
  if (c > epsilon)
    return (float) pow (c, 1.0 / 3.0);
  return (float) ((kappa * c + 16.0) * (1.0 / 116.0));
}

VH_CIEDE_FN float
vh_ciede_hue_difference (float c1, float c2, float h1, float h2)
{
  if (c1 == 0.0 || c2 == 0.0)
    return 0.0f;
  if (fabsf (h1 - h2) <= VH_CIEDE_PI)
    return h2 - h1;
  if (h2 <= h1)
    return (float) (h2 - h1 + 2. * VH_CIEDE_PI);
  return (float) (h2 - h1 - 2. * VH_CIEDE_PI);
}

VH_CIEDE_FN float
vh_ciede_mean_hue (float h1, float h2)
{
  return (float) (fabs ((double) (h1 - h2)) > VH_CIEDE_PI
      ? (h1 + h2 + 2.0 * VH_CIEDE_PI) / 2.0 : (h1 + h2) / 2.0);
}

VH_CIEDE_FN float
vh_ciede_weight_t (float h)
{
  return (float) (1.0 - 0.17 * cos (h - VH_CIEDE_PI / 6.0)
      + 0.24 * cos (2.0 * h) + 0.32 * cos (3.0 * h + VH_CIEDE_PI / 30.0)
      - 0.20 * cos (4.0 * h - 7.0 * VH_CIEDE_PI / 20.0));
}

VH_CIEDE_FN float
vh_ciede_rotation (float c_bar, float h_bar)
{
  const float deg = (float) (h_bar * (180.0 / VH_CIEDE_PI));
  const float d = (float) ((deg - 275.0) * (1.0 / 25.0));
  const float c7 = powf (c_bar, 7.0f);
  const float angle = (float) (60.0 * exp ((double) -(powf (d, 2.0f))));
  const float rad = (float) (angle * (VH_CIEDE_PI / 180.0));
  return (float) (-2.0 * sqrt ((double) (c7 / (c7 + powf (25.0f, 7.0f))))
      * sin ((double) rad));
}

/* Limited-range BT.709 YUV (bpc bits) to CIE Lab, libvmaf's arithmetic
 * (the CPU) */
VH_CIEDE_FN VhLab
vh_ciede_lab (double y, double u, double v, unsigned bpc)
{
  const double scale = (double) (1 << (bpc - 8));
  y = (y - 16. * scale) * (1. / (219. * scale));
  u = (u - 128. * scale) * (1. / (224. * scale));
  v = (v - 128. * scale) * (1. / (224. * scale));
  const double rp = y + 1.28033 * v;
  const double gp = y - 0.21482 * u - 0.38059 * v;
  const double bp = y + 2.12798 * u;
  const double r = vh_ciede_linear (rp);
  const double g = vh_ciede_linear (gp);
  const double b = vh_ciede_linear (bp);
  const double xs = (r * 0.4124564390896921 + g * 0.357576077643909
      + b * 0.18043748326639894) * (1.0 / 0.95047);
  const double ys = r * 0.21267285140562248 + g * 0.715152155287818
      + b * 0.07217499330655958;
  const double zs = (r * 0.019333895582329317 + g * 0.119192025881303
      + b * 0.9503040785363677) * (1.0 / 1.08883);
  const double x = vh_ciede_lab_f (xs);
  const double yy = vh_ciede_lab_f (ys);
  const double z = vh_ciede_lab_f (zs);
  VhLab lab;
  lab.l = (float) ((116.0 * yy) - 16.0);
  lab.a = (float) (500.0 * (x - yy));
  lab.b = (float) (200.0 * (yy - z));
  return lab;
}

/* C (the chroma) of a Lab colour, as libvmaf (double sqrt) */
VH_CIEDE_FN float
vh_ciede_chroma (VhLab p)
{
  const double a = p.a, b = p.b;
  return (float) sqrt (a * a + b * b);
}

VH_CIEDE_FN float
vh_ciede_hue (float x, float y)
{
  if (x == 0.0 && y == 0.0)
    return 0.0f;
  float h = (float) atan2 ((double) x, (double) y);
  if (h < 0.0)
    h = (float) (h + 2. * VH_CIEDE_PI);
  return h;
}

/* CIEDE2000 difference of two Lab colours (kL 0.65, kC 1, kH 4).  Squares
 * of floats are exact in double, so x * x stands for libvmaf's pow (x, 2). */
VH_CIEDE_FN float
vh_ciede_delta_e (VhLab p, VhLab q)
{
  const float kl = 0.65f, kc = 1.0f, kh = 4.0f;
  const float c1 = vh_ciede_chroma (p), c2 = vh_ciede_chroma (q);
  const float dl = q.l - p.l;
  const float l_bar = (p.l + q.l) / 2;
  const double pb = p.b, qb = q.b;
  const float c_bar = (c1 + c2) / 2;
  const double c7 = pow ((double) c_bar, 7.0);
  const double g = 1 - sqrt (c7 / (c7 + pow (25.0, 7.0)));
  const float a1 = (float) (p.a + (p.a / 2) * g);
  const float a2 = (float) (q.a + (q.a / 2) * g);
  const float cp1 = (float) sqrt ((double) a1 * a1 + pb * pb);
  const float cp2 = (float) sqrt ((double) a2 * a2 + qb * qb);
  const float cp_bar = (cp1 + cp2) / 2;
  const float dc = cp2 - cp1;
  const double lm = l_bar - 50;
  const float sl = (float) (1. + ((0.015 * (lm * lm)) / sqrt (20 + lm * lm)));
  const float sc = (float) (1. + 0.045 * cp_bar);
  const float h1 = vh_ciede_hue (p.b, a1);
  const float h2 = vh_ciede_hue (q.b, a2);
  /* libvmaf tests the unprimed chromas here */
  const float dh = vh_ciede_hue_difference (c1, c2, h1, h2);
  const float d_hue = (float) (2.0 * (double) sqrtf (cp1 * cp2)
      * sin (dh / 2.0));
  const float h_bar = vh_ciede_mean_hue (h1, h2);
  const float sh = (float) (1.0 + 0.015 * cp_bar * vh_ciede_weight_t (h_bar));
  const float rt = vh_ciede_rotation (cp_bar, h_bar);
  const float lightness = dl / (kl * sl);
  const float chroma = dc / (kc * sc);
  const float hue = d_hue / (kh * sh);
  const double ld = lightness, cd = chroma, hd = hue;
  return (float) sqrt (ld * ld + cd * cd + hd * hd + rt * chroma * hue);
}

/* ------------------------------------------------------------------------
 * The GPU's arithmetic (vh_ciedeg_*).  libvmaf's per-pixel double pow,
 * atan2, sin and cos are long software sequences on GPUs, and its
 * float/double mix costs a conversion at each change, which runs on the
 * GPUs' slowest pipe (an H100 converts 16 values a cycle per SM against 64
 * double fused multiply-adds).  So:
 *  - Lab, equal to the CPU's (no difference in 60 million random 8/10/12-
 *    bit colours on the host): x^2.4 and the cube roots from a float seed
 *    (the hardware's log2 / exp2) and one third-order correction in double;
 *    the cube roots rounded to float's 24 bits in double (Veltkamp's
 *    split) instead of converted there and back.  Lab cannot be float: the
 *    Lab differences are what dE measures (float Lab moved the dark clip's
 *    score by 1.5e-5);
 *  - C' in double, as libvmaf rounds it (a shorter sqrt: a seed and one
 *    Goldschmidt step);
 *  - float for the rest: G from float C1, C2 (it scales both a' alike),
 *    the hue angles (a float atan2, an angle below 0 moved up by 2 pi and
 *    rounded exactly as libvmaf's double does), the hue difference and
 *    mean, S_L, S_C, S_H, T and R_T, the three quotients and dE, with the
 *    hardware's approximate rsqrt and exp where a term enters scaled down.
 * tests/check/test-ciede-emulation.cpp runs these on the host (glibc's
 * functions for the hardware's approximations) against the CPU: worst
 * 2.8e-7 on the frame score, within the 1e-5 the GPU is held to.
 *
 * The kernels build with --fmad=false / -ffp-contract=off (results equal
 * to the CPU's); the arithmetic below, which the CPU does not have, asks
 * for fused multiply-adds explicitly. */
#if defined(__CUDA_ARCH__)
/* the seeds' arguments are normal floats: the approximate instructions
 * without the subnormal fix-ups exp2f / __log2f add around them */
__device__ __forceinline__ float
vh_ciedeg_log2f (float x)
{
  float r;
  asm ("lg2.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" (x));
  return r;
}

__device__ __forceinline__ float
vh_ciedeg_exp2f (float x)
{
  float r;
  asm ("ex2.approx.ftz.f32 %0, %1;" : "=f" (r) : "f" (x));
  return r;
}

__device__ __forceinline__ double
vh_ciedeg_rsqrt_seed (double x)
{
  double r;
  asm ("rsqrt.approx.ftz.f64 %0, %1;" : "=d" (r) : "d" (x));
  return r;
}
#define VH_CIEDEG_LOG2F(x) vh_ciedeg_log2f (x)
#define VH_CIEDEG_EXP2F(x) vh_ciedeg_exp2f (x)
#else
#define VH_CIEDEG_LOG2F(x) log2f (x)
#define VH_CIEDEG_EXP2F(x) exp2f (x)

VH_CIEDE_FN double
vh_ciedeg_rsqrt_seed (double x)
{
  return (double) (1.0f / sqrtf ((float) x));
}
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_CIEDEG_RSQRTF(x) rsqrtf (x)
#define VH_CIEDEG_EXPF(x) __expf (x)
#else
#define VH_CIEDEG_RSQRTF(x) (1.0f / sqrtf (x))
#define VH_CIEDEG_EXPF(x) expf (x)
#endif

/* The double constants.  On NVIDIA an immediate double costs two moves
 * where it is used, an operand from the constant bank nothing (the moves
 * were one instruction in eight), so the kernel reads them from
 * __constant__ memory; the host from a table of the same values. */
#define VH_CIEDEG_CONSTANTS(X) \
  X (POW24_E2, 0.12) X (POW24_E1, 0.2) \
  X (CBRT_E2, 2.0 / 9.0) X (CBRT_E1, 1.0 / 3.0) \
  X (SRGB_KNEE, 10. / 255.) X (SRGB_SCALE, 1.0 / 1.055) \
  X (SRGB_OFFSET, 0.055 / 1.055) X (SRGB_SLOPE, 1.0 / 12.92) \
  X (LAB_KNEE, 216.0 / 24389.0) X (LAB_SLOPE, 24389.0 / 27.0 / 116.0) \
  X (LAB_OFFSET, 16.0 / 116.0) \
  X (XR, 0.4124564390896921 / 0.95047) X (XG, 0.357576077643909 / 0.95047) \
  X (XB, 0.18043748326639894 / 0.95047) \
  X (YR, 0.21267285140562248) X (YG, 0.715152155287818) \
  X (YB, 0.07217499330655958) \
  X (ZR, 0.019333895582329317 / 1.08883) \
  X (ZG, 0.119192025881303 / 1.08883) X (ZB, 0.9503040785363677 / 1.08883)
#define VH_CIEDEG_ENUM(name, value) VH_CIEDEG_##name,
#define VH_CIEDEG_VALUE(name, value) value,
enum { VH_CIEDEG_CONSTANTS (VH_CIEDEG_ENUM) VH_CIEDEG_N_CONSTANTS };
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
__constant__ double vh_ciedeg_constants_device[VH_CIEDEG_N_CONSTANTS] = {
  VH_CIEDEG_CONSTANTS (VH_CIEDEG_VALUE)
};
#define VH_CIEDEG_K(name) (vh_ciedeg_constants_device[VH_CIEDEG_##name])
#else
static const double vh_ciedeg_constants_host[VH_CIEDEG_N_CONSTANTS] = {
  VH_CIEDEG_CONSTANTS (VH_CIEDEG_VALUE)
};
#define VH_CIEDEG_K(name) (vh_ciedeg_constants_host[VH_CIEDEG_##name])
#endif

/* a float near a positive double in float's normal range, and back, by
 * the bits (truncating the mantissa): seeds without conversions */
VH_CIEDE_FN float
vh_ciedeg_to_float (double x)
{
  unsigned long long b;
  memcpy (&b, &x, sizeof b);
  const unsigned int f = (unsigned int) ((b >> 29) - (896ULL << 23));
  float r;
  memcpy (&r, &f, sizeof r);
  return r;
}

VH_CIEDE_FN double
vh_ciedeg_to_double (float x)
{
  unsigned int f;
  memcpy (&f, &x, sizeof f);
  const unsigned long long b = ((unsigned long long) f + (896ULL << 23)) << 29;
  double r;
  memcpy (&r, &b, sizeof r);
  return r;
}

/* sqrt x for x >= 0 in float's range, to about an ulp: one Goldschmidt
 * step from the seed (the hardware's on NVIDIA, a float's elsewhere), then
 * a Newton correction of the root; x = 0 gives 0 (the seed is taken of 1
 * there).  The vendor's adds range checks and a slow path. */
VH_CIEDE_FN double
vh_ciedeg_sqrt (double x)
{
  const double y = vh_ciedeg_rsqrt_seed (x > 0.0 ? x : 1.0);
  double s = x * y, h = 0.5 * y;
  const double r = fma (-s, h, 0.5);
  s = fma (s, r, s);
  h = fma (h, r, h);
  return fma (fma (-s, s, x), h, s);
}

/* x^2.4 for x in [0.08, 4]: u = (x^2)^(-1/5) from a float seed, then
 * u (1 + e/5 + 3e^2/25) with e = 1 - x^2 u^5 (the series of (1-e)^(-1/5),
 * third order: error ~e^3), x^2.4 = (x^2)^2 u^4 */
VH_CIEDE_FN double
vh_ciedeg_pow24 (double x)
{
  const double a = x * x;
  double u = vh_ciedeg_to_double (VH_CIEDEG_EXP2F (-0.4f
          * VH_CIEDEG_LOG2F (vh_ciedeg_to_float (x))));
  const double u2 = u * u;
  const double e = fma (-a, u2 * u2 * u, 1.0);
  u = fma (u, e * fma (VH_CIEDEG_K (POW24_E2), e, VH_CIEDEG_K (POW24_E1)), u);
  const double v = u * u;
  return (a * a) * (v * v);
}

/* x^(1/3) for x in [0.008, 4]: v = x^(-1/3) from a float seed, then
 * v (1 + e/3 + 2e^2/9) with e = 1 - x v^3; x^(1/3) = x v^2 */
VH_CIEDE_FN double
vh_ciedeg_cbrt (double x)
{
  double v = vh_ciedeg_to_double (VH_CIEDEG_EXP2F ((-1.0f / 3.0f)
          * VH_CIEDEG_LOG2F (vh_ciedeg_to_float (x))));
  const double e = fma (-x, v * v * v, 1.0);
  v = fma (v, e * fma (VH_CIEDEG_K (CBRT_E2), e, VH_CIEDEG_K (CBRT_E1)), v);
  return x * (v * v);
}

/* x rounded to a float's 24 bits, kept a double: Veltkamp's split, three
 * double operations in place of two conversions; the same as (double)
 * (float) x in float's normal range but for exact ties */
VH_CIEDE_FN double
vh_ciedeg_round_float (double x)
{
  const double t = x * 536870913.0;     /* 2^29 + 1 */
  return t - (t - x);
}

/* libvmaf's float cube root (or line) as a double; both sides computed
 * and one selected (nearly every pixel takes the root), the root's
 * argument kept in its range */
VH_CIEDE_FN double
vh_ciedeg_lab_f (double c)
{
  const double knee = VH_CIEDEG_K (LAB_KNEE);
  const double root = vh_ciedeg_cbrt (c > knee ? c : knee);
  const double line = fma (VH_CIEDEG_K (LAB_SLOPE), c,
      VH_CIEDEG_K (LAB_OFFSET));
  return vh_ciedeg_round_float (c > knee ? root : line);
}

VH_CIEDE_FN double
vh_ciedeg_linear (double c)
{
  const double knee = VH_CIEDEG_K (SRGB_KNEE);
  const double curve = vh_ciedeg_pow24 (fma (c > knee ? c : knee,
          VH_CIEDEG_K (SRGB_SCALE), VH_CIEDEG_K (SRGB_OFFSET)));
  return c > knee ? curve : c * VH_CIEDEG_K (SRGB_SLOPE);
}

/* Limited-range BT.709 YUV to CIE Lab, the GPU's: libvmaf's steps with
 * x^2.4 and cbrt as above, each linear combination folded into fused
 * multiply-adds (the doubles differ from the CPU's in the last bits, far
 * below the float Lab values' rounding) */
VH_CIEDE_FN VhLab
vh_ciedeg_lab (double y, double u, double v, unsigned bpc)
{
  const double scale = (double) (1 << (bpc - 8));
  const double ky = 1. / (219. * scale), kc = 1. / (224. * scale);
  /* each channel's offset: y's and its chroma weights' times -128/224 */
  const double y0 = -16. / 219., c0 = -128. / 224.;
  const double rp = fma (v, 1.28033 * kc, fma (y, ky, y0 + 1.28033 * c0));
  const double gp = fma (u, -0.21482 * kc, fma (v, -0.38059 * kc,
          fma (y, ky, y0 - (0.21482 + 0.38059) * c0)));
  const double bp = fma (u, 2.12798 * kc, fma (y, ky, y0 + 2.12798 * c0));
  const double r = vh_ciedeg_linear (rp);
  const double g = vh_ciedeg_linear (gp);
  const double b = vh_ciedeg_linear (bp);
  /* sRGB to XYZ (D65), X and Z scaled by the white point */
  const double xs = fma (r, VH_CIEDEG_K (XR), fma (g, VH_CIEDEG_K (XG),
          b * VH_CIEDEG_K (XB)));
  const double ys = fma (r, VH_CIEDEG_K (YR), fma (g, VH_CIEDEG_K (YG),
          b * VH_CIEDEG_K (YB)));
  const double zs = fma (r, VH_CIEDEG_K (ZR), fma (g, VH_CIEDEG_K (ZG),
          b * VH_CIEDEG_K (ZB)));
  const double x = vh_ciedeg_lab_f (xs);
  const double yy = vh_ciedeg_lab_f (ys);
  const double z = vh_ciedeg_lab_f (zs);
  VhLab lab;
  lab.l = (float) (116.0 * yy - 16.0);
  lab.a = (float) (500.0 * (x - yy));
  lab.b = (float) (200.0 * (yy - z));
  return lab;
}

/* atan2 (y, x) in float for (x, y) not both zero: the angle of the
 * smaller over the larger coordinate less the nearest multiple of pi/8
 * (tan (k pi/8) folded into one division), whose atan is a short series
 * (|u| <= tan (pi/16)); then the octant.  A few float ulps. */
VH_CIEDE_FN float
vh_ciedeg_atan2f (float y, float x)
{
  const float ax = fabsf (x), ay = fabsf (y);
  const int swap = ay > ax;
  const float hi = swap ? ay : ax, lo = swap ? ax : ay;
  /* k by lo / hi against tan (pi/16) and tan (3 pi/16) */
  const int k = (lo > 0.19891237f * hi) + (lo > 0.66817864f * hi);
  const float c = k == 0 ? 0.0f : k == 1 ? 0.41421356f : 1.0f;
  const float base = k == 0 ? 0.0f : k == 1 ? 0.39269908f : 0.78539816f;
  const float u = fmaf (-c, hi, lo) / fmaf (c, lo, hi);
  const float z = u * u;
  float p = fmaf (fmaf (fmaf (-1.0f / 11, z, 1.0f / 9), z, -1.0f / 7), z,
      1.0f / 5);
  p = fmaf (p, z, -1.0f / 3);
  float t = base + fmaf (u * z, p, u);
  if (swap)
    t = 1.57079633f - t;
  if (x < 0.0f)
    t = 3.14159265f - t;
  return copysignf (t, y);
}

/* (float) (x + 2 pi) or (float) (x - 2 pi) with 2 pi a double, as
 * libvmaf's wraps of hue angles compute it, in float: x + 2 pi's float, its
 * rounding error (Knuth's two-sum), then the rest of 2 pi.  Equal to the
 * double's rounding on every float in (-2 pi, 4 pi) but +-4.1e-7 (checked
 * exhaustively), which no wrap adds to. */
VH_CIEDE_FN float
vh_ciedeg_wrap (float x, int up)
{
  const float two_pi = 6.28318548f;
  const float h = up ? x : -x;
  const float t = h + two_pi, bv = t - h, av = t - bv;
  const float e = (h - av) + (two_pi - bv);
  const float r = t + (e - 1.74845553e-7f);
  return up ? r : -r;
}

/* hue angle for the GPU: the float atan2 above; as libvmaf, an angle
 * below 0 is moved up by 2 pi */
VH_CIEDE_FN float
vh_ciedeg_hue (float x, float y)
{
  if (x == 0.0f && y == 0.0f)
    return 0.0f;
  const float h = vh_ciedeg_atan2f (x, y);
  return h >= 0.0f ? h : vh_ciedeg_wrap (h, 1);
}

/* sine and cosine of |x| <= pi/2 in float: Taylor to x^13 / x^14 (error
 * < 1e-9), plain float arithmetic: no slow reduction path, and the same
 * on the host (the emulation test) as on the GPU */
VH_CIEDE_FN float
vh_ciedeg_sinf (float x)
{
  const float z = x * x;
  float p = fmaf (z, 1.6059044e-10f, -2.5052108e-08f);
  p = fmaf (z, p, 2.7557319e-06f);
  p = fmaf (z, p, -1.9841270e-04f);
  p = fmaf (z, p, 8.3333333e-03f);
  p = fmaf (z, p, -1.6666667e-01f);
  return fmaf (x * z, p, x);
}

VH_CIEDE_FN float
vh_ciedeg_cosf (float x)
{
  const float z = x * x;
  float p = fmaf (z, -1.1470746e-11f, 2.0876757e-09f);
  p = fmaf (z, p, -2.7557319e-07f);
  p = fmaf (z, p, 2.4801587e-05f);
  p = fmaf (z, p, -1.3888889e-03f);
  p = fmaf (z, p, 4.1666667e-02f);
  p = fmaf (z, p, -0.5f);
  return fmaf (z, p, 1.0f);
}

/* weight T(h) in float: h (a float, up to 3 pi) folded into [-pi, pi],
 * sine and cosine of the half angle, then the multiples by the angle-sum
 * formulas */
VH_CIEDE_FN float
vh_ciedeg_weight_t (float h)
{
  /* h - 2 pi for h >= pi (h is below 3 pi) */
  const float w = (h >= 3.14159274f ? vh_ciedeg_wrap (h, 0) : h) * 0.5f;
  const float hs = vh_ciedeg_sinf (w), hc = vh_ciedeg_cosf (w);
  const float c1 = fmaf (hc, hc, -hs * hs), s1 = 2.0f * hs * hc;
  const float c2 = fmaf (2.0f * c1, c1, -1.0f), s2 = 2.0f * s1 * c1;
  const float c3 = fmaf (c2, c1, -s2 * s1), s3 = fmaf (s2, c1, c2 * s1);
  const float c4 = fmaf (2.0f * c2, c2, -1.0f), s4 = 2.0f * s2 * c2;
  /* 1 - 0.17 cos (h - pi/6) + 0.24 cos 2h + 0.32 cos (3h + pi/30)
   * - 0.20 cos (4h - 7pi/20), each cosine of a sum expanded */
  float t = fmaf (c1, (float) (-0.17 * 0.8660254037844386), 1.0f);
  t = fmaf (s1, -0.17f * 0.5f, t);
  t = fmaf (c2, 0.24f, t);
  t = fmaf (c3, (float) (0.32 * 0.9945218953682733), t);
  t = fmaf (s3, (float) (-0.32 * 0.10452846326765347), t);
  t = fmaf (c4, (float) (-0.20 * 0.45399049973954675), t);
  return fmaf (s4, (float) (-0.20 * 0.8910065241883679), t);
}

/* R_T in float (libvmaf: float powf, double exp / sqrt / sin); the angle
 * is in [0, pi/3]; d = (h in degrees - 275) / 25 */
VH_CIEDE_FN float
vh_ciedeg_rotation (float c_bar, float h_bar)
{
  const float d = fmaf (h_bar, (float) (180.0 / VH_CIEDE_PI / 25.0), -11.0f);
  const float c2 = c_bar * c_bar;
  const float c7 = (c2 * c2) * (c2 * c_bar);
  const float angle = 60.0f * VH_CIEDEG_EXPF (-(d * d));
  const float rad = angle * (float) (VH_CIEDE_PI / 180.0);
  /* sqrt (c7 / (c7 + 25^7)); 0 for c7 = 0 */
  const float root = c7 * VH_CIEDEG_RSQRTF (fmaxf (c7 * (c7 + 6103515625.0f),
          1e-30f));
  return -2.0f * root * vh_ciedeg_sinf (rad);
}

/* C of a Lab colour in float: C1 and C2 only set G */
VH_CIEDE_FN float
vh_ciedeg_chroma (VhLab p)
{
  return sqrtf (p.a * p.a + p.b * p.b);
}

/* The largest float below pi: for a float x, x <= pi (a double, as
 * libvmaf compares) exactly when x <= VH_CIEDE_PI_BELOW. */
#define VH_CIEDE_PI_BELOW 3.14159250f

/* CIEDE2000 difference of two Lab colours whose chromas (vh_ciedeg_chroma)
 * are known */
VH_CIEDE_FN float
vh_ciedeg_delta_e_chroma (VhLab p, VhLab q, float c1, float c2)
{
  const float dl = q.l - p.l;
  const float l_bar = (p.l + q.l) / 2;
  const float c_bar = (c1 + c2) / 2;
  /* G in float (it scales a1 and a2 alike); a' rounded once, as libvmaf's
   * double is */
  const float cb2 = c_bar * c_bar;
  const float cb7 = (cb2 * cb2) * (cb2 * c_bar);
  const float g = 1.0f - cb7 * VH_CIEDEG_RSQRTF (fmaxf (cb7 * (cb7
              + 6103515625.0f), 1e-30f));
  const double pb = p.b, qb = q.b;
  const float a1 = fmaf (0.5f * p.a, g, p.a);
  const float a2 = fmaf (0.5f * q.a, g, q.a);
  const float cp1 = (float) vh_ciedeg_sqrt ((double) a1 * a1 + pb * pb);
  const float cp2 = (float) vh_ciedeg_sqrt ((double) a2 * a2 + qb * qb);
  const float cp_bar = (cp1 + cp2) / 2;
  const float dc = cp2 - cp1;
  const float lf = l_bar - 50;
  const float lf2 = lf * lf;
  const float sl = fmaf (0.015f * lf2, VH_CIEDEG_RSQRTF (20.0f + lf2), 1.0f);
  const float sc = fmaf (0.045f, cp_bar, 1.0f);
  const float h1 = vh_ciedeg_hue (p.b, a1);
  const float h2 = vh_ciedeg_hue (q.b, a2);
  /* libvmaf's hue difference and mean, in float (its tests against pi,
   * its wraps by 2 pi) */
  float dh = 0.0f;
  if (c1 != 0.0f && c2 != 0.0f) {
    dh = h2 - h1;
    if (fabsf (dh) > VH_CIEDE_PI_BELOW)
      dh = vh_ciedeg_wrap (dh, h2 <= h1);
  }
  const float d_hue = 2.0f * sqrtf (cp1 * cp2) * vh_ciedeg_sinf (dh * 0.5f);
  float h_bar = h1 + h2;
  if (fabsf (h1 - h2) > VH_CIEDE_PI_BELOW)
    h_bar = vh_ciedeg_wrap (h_bar, 1);
  h_bar *= 0.5f;
  const float sh = fmaf (0.015f * cp_bar, vh_ciedeg_weight_t (h_bar), 1.0f);
  const float rt = vh_ciedeg_rotation (cp_bar, h_bar);
  const float lightness = dl / (0.65f * sl);
  const float chroma = dc / sc;
  const float hue = d_hue / (4.0f * sh);
  return sqrtf (fmaf (lightness, lightness, fmaf (chroma, chroma,
              fmaf (hue, hue, rt * chroma * hue))));
}

VH_CIEDE_FN float
vh_ciedeg_delta_e (VhLab p, VhLab q)
{
  return vh_ciedeg_delta_e_chroma (p, q, vh_ciedeg_chroma (p),
      vh_ciedeg_chroma (q));
}

#endif /* VH_CIEDE_DEVICE_H */
