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

/* Limited-range BT.709 YUV (bpc bits) to CIE Lab */
VH_CIEDE_FN VhLab
vh_ciede_lab (double y, double u, double v, unsigned bpc)
{
  const double scale = (double) (1 << (bpc - 8));
  y = (y - 16. * scale) * (1. / (219. * scale));
  u = (u - 128. * scale) * (1. / (224. * scale));
  v = (v - 128. * scale) * (1. / (224. * scale));
  const double r = vh_ciede_linear (y + 1.28033 * v);
  const double g = vh_ciede_linear (y - 0.21482 * u - 0.38059 * v);
  const double b = vh_ciede_linear (y + 2.12798 * u);
  const double x = vh_ciede_lab_f ((r * 0.4124564390896921
          + g * 0.357576077643909 + b * 0.18043748326639894)
      * (1.0 / 0.95047));
  const double yy = vh_ciede_lab_f (r * 0.21267285140562248
      + g * 0.715152155287818 + b * 0.07217499330655958);
  const double z = vh_ciede_lab_f ((r * 0.019333895582329317
          + g * 0.119192025881303 + b * 0.9503040785363677)
      * (1.0 / 1.08883));
  VhLab lab;
  lab.l = (float) ((116.0 * yy) - 16.0);
  lab.a = (float) (500.0 * (x - yy));
  lab.b = (float) (200.0 * (yy - z));
  return lab;
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

/* CIEDE2000 difference of two Lab colours (kL 0.65, kC 1, kH 4) */
VH_CIEDE_FN float
vh_ciede_delta_e (VhLab p, VhLab q)
{
  const float kl = 0.65f, kc = 1.0f, kh = 4.0f;
  const float dl = q.l - p.l;
  const float l_bar = (p.l + q.l) / 2;
  const float c1 = (float) sqrt (pow ((double) p.a, 2.0)
      + pow ((double) p.b, 2.0));
  const float c2 = (float) sqrt (pow ((double) q.a, 2.0)
      + pow ((double) q.b, 2.0));
  const float c_bar = (c1 + c2) / 2;
  const double g = 1 - sqrt (pow ((double) c_bar, 7.0)
      / (pow ((double) c_bar, 7.0) + pow (25.0, 7.0)));
  const float a1 = (float) (p.a + (p.a / 2) * g);
  const float a2 = (float) (q.a + (q.a / 2) * g);
  const float cp1 = (float) sqrt (pow ((double) a1, 2.0)
      + pow ((double) p.b, 2.0));
  const float cp2 = (float) sqrt (pow ((double) a2, 2.0)
      + pow ((double) q.b, 2.0));
  const float cp_bar = (cp1 + cp2) / 2;
  const float dc = cp2 - cp1;
  const double lm = (double) (l_bar - 50);
  const float sl = (float) (1. + ((0.015 * pow (lm, 2.0))
          / sqrt (20 + pow (lm, 2.0))));
  const float sc = (float) (1. + 0.045 * cp_bar);
  const float h1 = vh_ciede_hue (p.b, a1);
  const float h2 = vh_ciede_hue (q.b, a2);
  /* libvmaf tests the unprimed chromas here */
  const float dh = vh_ciede_hue_difference (c1, c2, h1, h2);
  const float d_hue = (float) (2.0 * sqrt ((double) (cp1 * cp2))
      * sin (dh / 2.0));
  const float h_bar = vh_ciede_mean_hue (h1, h2);
  const float sh = (float) (1.0 + 0.015 * cp_bar * vh_ciede_weight_t (h_bar));
  const float rt = vh_ciede_rotation (cp_bar, h_bar);
  const float lightness = dl / (kl * sl);
  const float chroma = dc / (kc * sc);
  const float hue = d_hue / (kh * sh);
  return (float) sqrt (pow ((double) lightness, 2.0)
      + pow ((double) chroma, 2.0) + pow ((double) hue, 2.0)
      + rt * chroma * hue);
}

#endif /* VH_CIEDE_DEVICE_H */
