/* vmafhip — float SSIM on the GPU (libvmaf 3.2.0 `float_ssim`, the same
 * operations as common/features/ssim/ssim.c, pixel for pixel).
 *
 * vh_ssim_load_{8,16}bit: luma to float (10/12-bit scaled to 8 bits), down-
 *   sampled by `scale` with IQA's box filter and mirrored edges (scale 1:
 *   a copy) -> ref, cmp (w x h floats, w = out width).
 * vh_ssim_rows: the 11-tap Gaussian along the rows of the five products
 *   (ref, cmp, ref^2, cmp^2, ref*cmp) -> five w x h caches (the valid
 *   columns only).
 * vh_ssim_map: the Gaussian along the columns, SSIM's l, c, s per pixel of
 *   the valid region, and each block's sums (double) -> partial[4 * block].
 * vh_ssim_reduce: the partials added up in a fixed order -> sums[4].
 * Host side: common/gpu/features/ssim-gpu.c. */
#include "vh-hip-compat.h"
#include "ssim-params.h"

#define SSIM_THREADS 256
#define SSIM_WINDOW VH_SSIM_WINDOW

__constant__ float vh_ssim_gauss[SSIM_WINDOW] = { VH_SSIM_GAUSSIAN };

struct VhSsimLoad {
  const void *ref, *dis;
  unsigned long long pitch;      /* bytes per source row */
  unsigned int src_w, src_h;     /* source size */
  unsigned int w, h;             /* output size */
  unsigned int scale;            /* down-sampling factor, 1..10 */
  float scaler;                  /* 1, 4, 16: to the 8-bit range */
  float *out_ref, *out_dis;
};
static_assert (sizeof (VhSsimLoad) == 64,
    "VhSsimLoad layout is shared with common/gpu/features/ssim-gpu.c");

template <typename pixel_t>
__device__ __forceinline__ float
load (const void *plane, unsigned long long pitch, int x, int y, float scaler)
{
  const float v = (float) ((const pixel_t *) ((const char *) plane
          + (unsigned long long) y * pitch))[x];
  return scaler == 1.0f ? v : v / scaler;
}

__device__ __forceinline__ int
mirror (int i, int n)
{
  return i < 0 ? -1 - i : i >= n ? n - (i - n) - 1 : i;
}

template <typename pixel_t>
__device__ __forceinline__ void
ssim_load (const VhSsimLoad &p)
{
  const unsigned int n = p.w * p.h;
  const int f = (int) p.scale, c = f / 2, last = c - (f % 2 ? 0 : 1);
  const float tap = 1.0f / (float) (f * f);
  for (unsigned int i = blockIdx.x * SSIM_THREADS + threadIdx.x; i < n;
      i += gridDim.x * SSIM_THREADS) {
    const int x = (int) (i % p.w), y = (int) (i / p.w);
    if (f == 1) {
      p.out_ref[i] = load<pixel_t> (p.ref, p.pitch, x, y, p.scaler);
      p.out_dis[i] = load<pixel_t> (p.dis, p.pitch, x, y, p.scaler);
      continue;
    }
    const int cx = x * f, cy = y * f, w = (int) p.src_w, h = (int) p.src_h;
    double sr = 0.0, sd = 0.0;
    for (int v = -c; v <= last; v++) {
      for (int u = -c; u <= last; u++) {
        const int sx = mirror (cx + u, w), sy = mirror (cy + v, h);
        sr += load<pixel_t> (p.ref, p.pitch, sx, sy, p.scaler) * tap;
        sd += load<pixel_t> (p.dis, p.pitch, sx, sy, p.scaler) * tap;
      }
    }
    p.out_ref[i] = (float) sr;
    p.out_dis[i] = (float) sd;
  }
}

VH_KERNEL void __launch_bounds__ (SSIM_THREADS)
vh_ssim_load_8bit (const VhSsimLoad p)
{
  ssim_load<unsigned char> (p);
}

VH_KERNEL void __launch_bounds__ (SSIM_THREADS)
vh_ssim_load_16bit (const VhSsimLoad p)
{
  ssim_load<unsigned short> (p);
}

struct VhSsimMaps {
  const float *ref, *cmp;
  float *cache[5];               /* mu_ref, mu_cmp, sq_ref, sq_cmp, both */
  unsigned int w, h;             /* the float pictures */
  double *partial;               /* 4 per block */
};
static_assert (sizeof (VhSsimMaps) == 72,
    "VhSsimMaps layout is shared with common/gpu/features/ssim-gpu.c");

VH_KERNEL void __launch_bounds__ (SSIM_THREADS)
vh_ssim_rows (const VhSsimMaps p)
{
  const int r = SSIM_WINDOW / 2;
  const unsigned int dw = p.w - SSIM_WINDOW + 1;
  const unsigned int n = dw * p.h;
  for (unsigned int i = blockIdx.x * SSIM_THREADS + threadIdx.x; i < n;
      i += gridDim.x * SSIM_THREADS) {
    const unsigned int x = i % dw, y = i / dw;
    const float *a = p.ref + (unsigned long long) y * p.w + x + r;
    const float *b = p.cmp + (unsigned long long) y * p.w + x + r;
    double s[5] = { 0.0, 0.0, 0.0, 0.0, 0.0 };
    for (int u = -r; u <= r; u++) {
      const float g = vh_ssim_gauss[u + r];
      s[0] += a[u] * g;
      s[1] += b[u] * g;
      s[2] += (a[u] * a[u]) * g;
      s[3] += (b[u] * b[u]) * g;
      s[4] += (a[u] * b[u]) * g;
    }
    const unsigned long long o = (unsigned long long) y * p.w + x + r;
    for (int k = 0; k < 5; k++)
      p.cache[k][o] = (float) s[k];
  }
}

VH_KERNEL void __launch_bounds__ (SSIM_THREADS)
vh_ssim_map (const VhSsimMaps p)
{
  __shared__ double part[4][SSIM_THREADS];
  const int r = SSIM_WINDOW / 2;
  const unsigned int dw = p.w - SSIM_WINDOW + 1, dh = p.h - SSIM_WINDOW + 1;
  const unsigned int n = dw * dh;
  const float c1 = VH_SSIM_C1, c2 = VH_SSIM_C2, c3 = VH_SSIM_C3;
  double acc[4] = { 0.0, 0.0, 0.0, 0.0 };
  for (unsigned int i = blockIdx.x * SSIM_THREADS + threadIdx.x; i < n;
      i += gridDim.x * SSIM_THREADS) {
    const unsigned int x = i % dw, y = i / dw;
    float v[5];
    for (int k = 0; k < 5; k++) {
      const float *in = p.cache[k] + (unsigned long long) (y + r) * p.w + x + r;
      double s = 0.0;
      for (int t = -r; t <= r; t++)
        s += in[(long long) t * p.w] * vh_ssim_gauss[t + r];
      v[k] = (float) s;
    }
    const float mr = v[0], mc = v[1];
    float sr = v[2] - mr * mr;
    float sc = v[3] - mc * mc;
    sr = sr < 0.0f ? 0.0f : sr;
    sc = sc < 0.0f ? 0.0f : sc;
    const float sb = v[4] - mr * mc;
    const float sigma_rc = (float) sqrt ((double) (sr * sc));
    const double l = (2.0 * mr * mc + c1) / (mr * mr + mc * mc + c1);
    const double c = (2.0 * sigma_rc + c2) / (sr + sc + c2);
    const float sb_clamped = sb < 0.0f && sigma_rc <= 0.0f ? 0.0f : sb;
    const double s = (sb_clamped + c3) / (sigma_rc + c3);
    acc[0] += l * c * s;
    acc[1] += l;
    acc[2] += c;
    acc[3] += s;
  }
  for (int k = 0; k < 4; k++)
    part[k][threadIdx.x] = acc[k];
  __syncthreads ();
  for (unsigned int s = SSIM_THREADS / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      for (int k = 0; k < 4; k++)
        part[k][threadIdx.x] += part[k][threadIdx.x + s];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    for (int k = 0; k < 4; k++)
      p.partial[4 * blockIdx.x + k] = part[k][0];
}

VH_KERNEL void __launch_bounds__ (SSIM_THREADS)
vh_ssim_reduce (const double *partial, unsigned int n, double *sums)
{
  __shared__ double part[4][SSIM_THREADS];
  double acc[4] = { 0.0, 0.0, 0.0, 0.0 };
  for (unsigned int i = threadIdx.x; i < n; i += SSIM_THREADS)
    for (int k = 0; k < 4; k++)
      acc[k] += partial[4 * i + k];
  for (int k = 0; k < 4; k++)
    part[k][threadIdx.x] = acc[k];
  __syncthreads ();
  for (unsigned int s = SSIM_THREADS / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      for (int k = 0; k < 4; k++)
        part[k][threadIdx.x] += part[k][threadIdx.x + s];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    for (int k = 0; k < 4; k++)
      sums[k] = part[k][0];
}
