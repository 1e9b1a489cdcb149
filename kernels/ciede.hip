/* vmafhip — CIEDE2000 per frame on the GPU (libvmaf 3.2.0 `ciede`; the
 * per-pixel arithmetic is kernels/ciede-device.h: the CPU's steps with the
 * GPU's cheaper functions, vh_ciedeg_*, see there).
 *
 * vh_ciede_{8,16}bit: one thread per pixel (grid-stride), each block's
 * sum of differences (double) into partial[blockIdx.x], in a fixed order.
 * vh_ciede_reduce: one block adds the partials up, in a fixed order, into
 * *sum.  Host side: common/gpu/ciede-gpu.c. */
#include "vh-hip-compat.h"
#include "ciede-device.h"

struct VhCiedeParams {
  const void *ref[3];
  const void *dis[3];
  unsigned long long pitch[3];   /* bytes, the same for ref and dis */
  unsigned int width, height;    /* luma */
  unsigned int shift;            /* 1: 4:2:0 chroma, 0: 4:4:4 */
  unsigned int bpc;
  double *partial;
};
static_assert (sizeof (VhCiedeParams) == 96,
    "VhCiedeParams layout is shared with common/gpu/ciede-gpu.c");

/* a sample as a double without a conversion instruction (those run at
 * a quarter of the FP64 rate): 2^52 + v by its bits, less 2^52, exact */
template <typename pixel_t>
__device__ __forceinline__ double
sample (const void *plane, unsigned long long pitch, unsigned int x,
    unsigned int y)
{
  const unsigned int v = ((const pixel_t *) ((const char *) plane
          + y * pitch))[x];
  return __hiloint2double (0x43300000, (int) v) - 4503599627370496.0;
}

template <typename pixel_t>
__device__ __forceinline__ void
ciede_block (const VhCiedeParams &p)
{
  __shared__ double part[VH_CIEDE_THREADS];
  const unsigned int n = p.width * p.height;
  double sum = 0.0;
  for (unsigned int i = blockIdx.x * VH_CIEDE_THREADS + threadIdx.x; i < n;
      i += gridDim.x * VH_CIEDE_THREADS) {
    const unsigned int x = i % p.width, y = i / p.width;
    const unsigned int cx = x >> p.shift, cy = y >> p.shift;
    const VhLab a = vh_ciedeg_lab (sample<pixel_t> (p.ref[0], p.pitch[0], x, y),
        sample<pixel_t> (p.ref[1], p.pitch[1], cx, cy),
        sample<pixel_t> (p.ref[2], p.pitch[2], cx, cy), p.bpc);
    const VhLab b = vh_ciedeg_lab (sample<pixel_t> (p.dis[0], p.pitch[0], x, y),
        sample<pixel_t> (p.dis[1], p.pitch[1], cx, cy),
        sample<pixel_t> (p.dis[2], p.pitch[2], cx, cy), p.bpc);
    sum += vh_ciedeg_delta_e (a, b);
  }
  part[threadIdx.x] = sum;
  __syncthreads ();
  for (unsigned int s = VH_CIEDE_THREADS / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    p.partial[blockIdx.x] = part[0];
}

VH_KERNEL void __launch_bounds__ (VH_CIEDE_THREADS)
vh_ciede_8bit (const VhCiedeParams p)
{
  ciede_block<unsigned char> (p);
}

VH_KERNEL void __launch_bounds__ (VH_CIEDE_THREADS)
vh_ciede_16bit (const VhCiedeParams p)
{
  ciede_block<unsigned short> (p);
}

VH_KERNEL void __launch_bounds__ (VH_CIEDE_THREADS)
vh_ciede_reduce (const double *partial, unsigned int n, double *sum)
{
  __shared__ double part[VH_CIEDE_THREADS];
  double s = 0.0;
  for (unsigned int i = threadIdx.x; i < n; i += VH_CIEDE_THREADS)
    s += partial[i];
  part[threadIdx.x] = s;
  __syncthreads ();
  for (unsigned int k = VH_CIEDE_THREADS / 2; k > 0; k /= 2) {
    if (threadIdx.x < k)
      part[threadIdx.x] += part[threadIdx.x + k];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    *sum = part[0];
}
