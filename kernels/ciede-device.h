/* vmafhip — CIEDE2000 per pixel, shared by the CPU extractor
 * (common/ciede.c) and the GPU kernel (kernels/ciede.hip).
 *
 * libvmaf 3.2.0's `ciede` mixes float and double in every step (Lab
 * components and most intermediate terms are floats, the colour
 * conversions double); the same mix is written here with explicit casts,
 * so that C (where sqrt (float) is the double sqrt) and C++/CUDA (where
 * it would pick the float overload) compute the same operations.  The
 * transcendental functions are each compiler's own (glibc on the host,
 * the vendor's on the GPU): results agree to a few units in the last
 * place of a float, not bit for bit. */
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
vh_ciede_hue (float x, float y)
{
  if (x == 0.0 && y == 0.0)
    return 0.0f;
  float h = (float) atan2 ((double) x, (double) y);
  if (h < 0.0)
    h = (float) (h + 2. * VH_CIEDE_PI);
  return h;
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

/* ------------------------------------------------------------------------
 * The GPU's arithmetic (vh_ciedeg_*): the same steps, float and double
 * where libvmaf has them, but without double pow / sin / cos, which are
 * long software sequences on GPUs (28 double pow per pixel made the kernel
 * FP64-bound: 0.55 ms per 1080p frame on an H100).  The CPU keeps the
 * functions above, unchanged.
 *  - pow (x, 2) of a float is x * x exactly (glibc's pow is correctly
 *    rounded there); pow (x, 7) is a chain of multiplications (~1e-16);
 *  - x^2.4 and cbrt: a float seed (MUFU log2/exp2, ~1e-6) and one
 *    third-order correction in double (error ~1e-16), so the float Lab
 *    values equal the CPU's but for rounding ties (float Lab moves the
 *    score by up to 1.5e-5: the Lab differences are what dE measures);
 *  - sin of |x| <= pi/2 (the hue difference): a Taylor polynomial to x^21
 *    (error < 1e-17);
 *  - atan2 and the sqrt of C', G and dE: the vendor's double functions
 *    (< 1 ulp); C1, C2 (which only set G) and S_L in float;
 *  - the weighting T(h) and the rotation term R_T, which enter the result
 *    scaled down (0.015 C T within S_H, R_T C H), in float with float
 *    polynomials.
 * tests/check/test-ciede-emulation.cpp runs these on the host (glibc's
 * float functions for the seeds, sqrtf and expf) against the CPU: worst
 * 5.3e-8 on the frame score. */
#if defined(__CUDA_ARCH__)
#define VH_CIEDEG_LOG2F(x) __log2f (x)
#else
#define VH_CIEDEG_LOG2F(x) log2f (x)
#endif
#define VH_CIEDEG_EXP2F(x) exp2f (x)
/* the kernels build with --fmad=false / -ffp-contract=off (results equal
 * to the CPU's); the corrections and polynomials below, which the CPU
 * does not have, ask for fused multiply-adds explicitly (one instruction,
 * and no less accurate) */

/* a float near a positive double in float's normal range, and back, by
 * the bits (truncating the mantissa): seeds without conversion
 * instructions, which share the GPU's slow transcendental pipe */
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
  u = fma (u, e * fma (0.12, e, 0.2), u);
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
  v = fma (v, e * fma (2.0 / 9.0, e, 1.0 / 3.0), v);
  return x * (v * v);
}

/* sin x for |x| <= pi/2 (+ a little): Taylor to x^21, error < 1e-17 */
VH_CIEDE_FN double
vh_ciedeg_sin (double x)
{
  const double z = x * x;
  double p = 1.9572941063391263e-20;              /* 1/21! */
  p = fma (p, z, -8.2206352466243295e-18);        /* 1/19! */
  p = fma (p, z, 2.8114572543455206e-15);         /* 1/17! */
  p = fma (p, z, -7.6471637318198164e-13);        /* 1/15! */
  p = fma (p, z, 1.6059043836821613e-10);         /* 1/13! */
  p = fma (p, z, -2.5052108385441720e-08);        /* 1/11! */
  p = fma (p, z, 2.7557319223985893e-06);         /* 1/9! */
  p = fma (p, z, -1.9841269841269841e-04);        /* 1/7! */
  p = fma (p, z, 8.3333333333333333e-03);         /* 1/5! */
  p = fma (p, z, -1.6666666666666667e-01);        /* 1/3! */
  return fma (x, z * p, x);
}

VH_CIEDE_FN float
vh_ciedeg_lab_f (double c)
{
  const double kappa = 24389.0 / 27.0, epsilon = 216.0 / 24389.0;
  if (c > epsilon)
    return (float) vh_ciedeg_cbrt (c);
  return (float) ((kappa * c + 16.0) * (1.0 / 116.0));
}

VH_CIEDE_FN double
vh_ciedeg_linear (double c)
{
  if (c > 10. / 255.)
    return vh_ciedeg_pow24 ((c + 0.055) * (1.0 / 1.055));
  return c * (1.0 / 12.92);
}

/* Limited-range BT.709 YUV (bpc bits) to CIE Lab, one body for both:
 * gpu picks the GPU's x^2.4 and cbrt (vh_ciedeg_*) over libvmaf's pow (a
 * constant at every call, so the other branch is compiled away). */
VH_CIEDE_FN VhLab
vh_ciede_lab_with (double y, double u, double v, unsigned bpc, int gpu)
{
  const double scale = (double) (1 << (bpc - 8));
  y = (y - 16. * scale) * (1. / (219. * scale));
  u = (u - 128. * scale) * (1. / (224. * scale));
  v = (v - 128. * scale) * (1. / (224. * scale));
  const double rp = y + 1.28033 * v;
  const double gp = y - 0.21482 * u - 0.38059 * v;
  const double bp = y + 2.12798 * u;
  const double r = gpu ? vh_ciedeg_linear (rp) : vh_ciede_linear (rp);
  const double g = gpu ? vh_ciedeg_linear (gp) : vh_ciede_linear (gp);
  const double b = gpu ? vh_ciedeg_linear (bp) : vh_ciede_linear (bp);
  const double xs = (r * 0.4124564390896921 + g * 0.357576077643909
      + b * 0.18043748326639894) * (1.0 / 0.95047);
  const double ys = r * 0.21267285140562248 + g * 0.715152155287818
      + b * 0.07217499330655958;
  const double zs = (r * 0.019333895582329317 + g * 0.119192025881303
      + b * 0.9503040785363677) * (1.0 / 1.08883);
  const double x = gpu ? vh_ciedeg_lab_f (xs) : vh_ciede_lab_f (xs);
  const double yy = gpu ? vh_ciedeg_lab_f (ys) : vh_ciede_lab_f (ys);
  const double z = gpu ? vh_ciedeg_lab_f (zs) : vh_ciede_lab_f (zs);
  VhLab lab;
  lab.l = (float) ((116.0 * yy) - 16.0);
  lab.a = (float) (500.0 * (x - yy));
  lab.b = (float) (200.0 * (yy - z));
  return lab;
}

/* libvmaf's arithmetic (the CPU) */
VH_CIEDE_FN VhLab
vh_ciede_lab (double y, double u, double v, unsigned bpc)
{
  return vh_ciede_lab_with (y, u, v, bpc, 0);
}

/* the GPU's */
VH_CIEDE_FN VhLab
vh_ciedeg_lab (double y, double u, double v, unsigned bpc)
{
  return vh_ciede_lab_with (y, u, v, bpc, 1);
}

/* c^7 of a float: c^2 is exact, two more roundings */
VH_CIEDE_FN double
vh_ciedeg_pow7 (float c)
{
  const double c2 = (double) c * (double) c;
  return (c2 * c2) * (c2 * (double) c);
}

/* sine and cosine of |x| <= pi/2 in float: Taylor to x^13 / x^14 (error
 * < 1e-9), plain float arithmetic: no slow reduction path, and the same
 * on the host (the emulation test) as on the GPU */
VH_CIEDE_FN float
vh_ciedeg_sinf (float x)
{
  const float z = x * x;
  return x + x * (z * (-1.6666667e-01f + z * (8.3333333e-03f
                  + z * (-1.9841270e-04f + z * (2.7557319e-06f
                          + z * (-2.5052108e-08f + z * 1.6059044e-10f))))));
}

VH_CIEDE_FN float
vh_ciedeg_cosf (float x)
{
  const float z = x * x;
  return 1.0f + z * (-0.5f + z * (4.1666667e-02f + z * (-1.3888889e-03f
              + z * (2.4801587e-05f + z * (-2.7557319e-07f
                      + z * (2.0876757e-09f + z * -1.1470746e-11f))))));
}

/* weight T(h) in float: h (a float, up to 3 pi) folded into [-pi, pi] in
 * double, sine and cosine of the half angle, then the multiples by the
 * angle-sum formulas */
VH_CIEDE_FN float
vh_ciedeg_weight_t (float h)
{
  const double k = (double) (int) ((h + VH_CIEDE_PI) * (0.5 / VH_CIEDE_PI));
  const float w = (float) (((double) h - k * (2.0 * VH_CIEDE_PI)) * 0.5);
  const float hs = vh_ciedeg_sinf (w), hc = vh_ciedeg_cosf (w);
  const float c1 = hc * hc - hs * hs, s1 = 2.0f * hs * hc;
  const float c2 = 2.0f * c1 * c1 - 1.0f, s2 = 2.0f * s1 * c1;
  const float c3 = c2 * c1 - s2 * s1, s3 = s2 * c1 + c2 * s1;
  const float c4 = 2.0f * c2 * c2 - 1.0f, s4 = 2.0f * s2 * c2;
  /* cos (pi/6), sin (pi/6), cos (pi/30), sin (pi/30), cos (7pi/20),
   * sin (7pi/20) */
  return 1.0f - 0.17f * (c1 * 0.8660254037844386f + s1 * 0.5f)
      + 0.24f * c2
      + 0.32f * (c3 * 0.9945218953682733f - s3 * 0.10452846326765347f)
      - 0.20f * (c4 * 0.45399049973954675f + s4 * 0.8910065241883679f);
}

/* R_T in float (libvmaf: float powf, double exp / sqrt / sin); the angle
 * is in [0, pi/3] */
VH_CIEDE_FN float
vh_ciedeg_rotation (float c_bar, float h_bar)
{
  const float deg = (float) (h_bar * (180.0 / VH_CIEDE_PI));
  const float d = (float) ((deg - 275.0) * (1.0 / 25.0));
  const float c7 = (float) vh_ciedeg_pow7 (c_bar);
  const float angle = 60.0f * expf (-(d * d));
  const float rad = (float) (angle * (VH_CIEDE_PI / 180.0));
  return -2.0f * sqrtf (c7 / (c7 + 6103515625.0f)) * vh_ciedeg_sinf (rad);
}

/* C (the chroma) of a Lab colour, as libvmaf (double sqrt) or as the GPU
 * (float: C1 and C2 only set G, both a' alike, and the zero tests) */
VH_CIEDE_FN float
vh_ciede_chroma_with (VhLab p, int gpu)
{
  const double a = p.a, b = p.b;
  return gpu ? sqrtf (p.a * p.a + p.b * p.b) : (float) sqrt (a * a + b * b);
}

/* CIEDE2000 difference of two Lab colours (kL 0.65, kC 1, kH 4) whose
 * chromas c1, c2 (vh_ciede_chroma_with) are known, one body for both: gpu
 * picks the GPU's functions (a constant at every call).  Squares of floats
 * are exact in double, so x * x stands for libvmaf's pow (x, 2) on both. */
VH_CIEDE_FN float
vh_ciede_delta_e_chroma (VhLab p, VhLab q, float c1, float c2, int gpu)
{
  const float kl = 0.65f, kc = 1.0f, kh = 4.0f;
  const float dl = q.l - p.l;
  const float l_bar = (p.l + q.l) / 2;
  const double pb = p.b, qb = q.b;
  const float c_bar = (c1 + c2) / 2;
  const double c7 = gpu ? vh_ciedeg_pow7 (c_bar) : pow ((double) c_bar, 7.0);
  const double g = 1 - sqrt (c7 / (c7 + (gpu ? 6103515625.0
              : pow (25.0, 7.0))));
  const float a1 = (float) (p.a + (p.a / 2) * g);
  const float a2 = (float) (q.a + (q.a / 2) * g);
  const float cp1 = (float) sqrt ((double) a1 * a1 + pb * pb);
  const float cp2 = (float) sqrt ((double) a2 * a2 + qb * qb);
  const float cp_bar = (cp1 + cp2) / 2;
  const float dc = cp2 - cp1;
  /* GPU: S_L scales the lightness term alone: float */
  const float lf = l_bar - 50;
  const double lm = lf;
  const float sl = gpu ? 1.0f + (0.015f * (lf * lf)) / sqrtf (20.0f + lf * lf)
      : (float) (1. + ((0.015 * (lm * lm)) / sqrt (20 + lm * lm)));
  const float sc = (float) (1. + 0.045 * cp_bar);
  const float h1 = vh_ciede_hue (p.b, a1);
  const float h2 = vh_ciede_hue (q.b, a2);
  /* libvmaf tests the unprimed chromas here */
  const float dh = vh_ciede_hue_difference (c1, c2, h1, h2);
  /* sqrtf of a float is the double sqrt rounded (but for double rounding
   * ties) */
  const float d_hue = (float) (2.0 * (double) sqrtf (cp1 * cp2)
      * (gpu ? vh_ciedeg_sin (dh / 2.0) : sin (dh / 2.0)));
  const float h_bar = vh_ciede_mean_hue (h1, h2);
  const float sh = (float) (1.0 + 0.015 * cp_bar * (gpu
          ? vh_ciedeg_weight_t (h_bar) : vh_ciede_weight_t (h_bar)));
  const float rt = gpu ? vh_ciedeg_rotation (cp_bar, h_bar)
      : vh_ciede_rotation (cp_bar, h_bar);
  const float lightness = dl / (kl * sl);
  const float chroma = dc / (kc * sc);
  const float hue = d_hue / (kh * sh);
  const double ld = lightness, cd = chroma, hd = hue;
  return (float) sqrt (ld * ld + cd * cd + hd * hd + rt * chroma * hue);
}

VH_CIEDE_FN float
vh_ciede_delta_e_with (VhLab p, VhLab q, int gpu)
{
  return vh_ciede_delta_e_chroma (p, q, vh_ciede_chroma_with (p, gpu),
      vh_ciede_chroma_with (q, gpu), gpu);
}

/* libvmaf's arithmetic (the CPU) */
VH_CIEDE_FN float
vh_ciede_delta_e (VhLab p, VhLab q)
{
  return vh_ciede_delta_e_with (p, q, 0);
}

/* the GPU's */
VH_CIEDE_FN float
vh_ciedeg_delta_e (VhLab p, VhLab q)
{
  return vh_ciede_delta_e_with (p, q, 1);
}

#endif /* VH_CIEDE_DEVICE_H */
