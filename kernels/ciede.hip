/* vmafhip — CIEDE2000 per frame on the GPU (libvmaf 3.2.0 `ciede`; the
 * per-pixel arithmetic is kernels/ciede-device.h: the CPU's steps with the
 * GPU's cheaper functions, vh_ciedeg_*, see there).
 *
 * vh_ciede_{8,16}bit: one thread per pixel (grid-stride), each block's
 * sum of differences (double) into partial[blockIdx.x], in a fixed order.
 * vh_ciede_reduce: one block adds the partials up, in a fixed order, into
 * *sum.
 * 8-bit pictures take a table instead (VH_CIEDE_TABLE_ENTRIES): every
 * (y, u, v) triple's Lab and chroma, written once per device by
 * vh_ciede_lab_table with the same arithmetic; vh_ciede_8bit_table then
 * looks both colours up and computes only the difference (about half of
 * the per-pixel work was the two Lab conversions).  A pixel whose triple
 * is the same in both pictures differs by exactly 0 and is skipped.
 * Host side: common/gpu/features/ciede-gpu.c. */
#include "vh-hip-compat.h"
#include "ciede-device.h"

/* NVIDIA: at least 4 blocks of 256 an SM: 64 registers, no spills (the
 * compiler would take 84 and fit 3; 4 are 15 % faster on an H100).  AMD:
 * the block size only: HIP reads the second number as waves per SIMD, and
 * 4 would leave gfx900/gfx906 64 VGPRs, which spill to scratch (the build's
 * resource check, tools/gpu-resources.py, refuses that). */
#if defined(VH_GPU_NVIDIA)
#define VH_CIEDE_PIXEL_BOUNDS __launch_bounds__ (VH_CIEDE_THREADS, 4)
#else
#define VH_CIEDE_PIXEL_BOUNDS __launch_bounds__ (VH_CIEDE_THREADS)
#endif

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
    "VhCiedeParams layout is shared with common/gpu/features/ciede-gpu.c");

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

/* the block's sums (double), added in a fixed order into partial[block] */
__device__ __forceinline__ void
block_sum (double sum, double *partial)
{
  __shared__ double part[VH_CIEDE_THREADS];
  part[threadIdx.x] = sum;
  __syncthreads ();
  for (unsigned int s = VH_CIEDE_THREADS / 2; s > 0; s /= 2) {
    if (threadIdx.x < s)
      part[threadIdx.x] += part[threadIdx.x + s];
    __syncthreads ();
  }
  if (threadIdx.x == 0)
    partial[blockIdx.x] = part[0];
}

/* the grid-stride walk over the pixels by (x, y), stepped without a
 * division per pixel (one was ~35 instructions) */
struct PixelWalk {
  unsigned int x, y, step_x, step_y, width;
  __device__ __forceinline__ PixelWalk (unsigned int w)
  {
    const unsigned int i = blockIdx.x * VH_CIEDE_THREADS + threadIdx.x;
    const unsigned int stride = gridDim.x * VH_CIEDE_THREADS;
    width = w;
    x = i % w;
    y = i / w;
    step_x = stride % w;
    step_y = stride / w;
  }
  __device__ __forceinline__ void next ()
  {
    x += step_x;
    y += step_y;
    if (x >= width) {
      x -= width;
      y++;
    }
  }
};

template <typename pixel_t>
__device__ __forceinline__ void
ciede_block (const VhCiedeParams &p)
{
  double sum = 0.0;
  for (PixelWalk w (p.width); w.y < p.height; w.next ()) {
    const unsigned int x = w.x, y = w.y;
    const unsigned int cx = x >> p.shift, cy = y >> p.shift;
    const VhLab a = vh_ciedeg_lab (sample<pixel_t> (p.ref[0], p.pitch[0], x, y),
        sample<pixel_t> (p.ref[1], p.pitch[1], cx, cy),
        sample<pixel_t> (p.ref[2], p.pitch[2], cx, cy), p.bpc);
    const VhLab b = vh_ciedeg_lab (sample<pixel_t> (p.dis[0], p.pitch[0], x, y),
        sample<pixel_t> (p.dis[1], p.pitch[1], cx, cy),
        sample<pixel_t> (p.dis[2], p.pitch[2], cx, cy), p.bpc);
    sum += vh_ciedeg_delta_e (a, b);
  }
  block_sum (sum, p.partial);
}

VH_KERNEL void VH_CIEDE_PIXEL_BOUNDS
vh_ciede_8bit (const VhCiedeParams p)
{
  ciede_block<unsigned char> (p);
}

VH_KERNEL void VH_CIEDE_PIXEL_BOUNDS
vh_ciede_16bit (const VhCiedeParams p)
{
  ciede_block<unsigned short> (p);
}

/* Entry i of the 8-bit table: y = i & 255, v = i >> 8 & 255, u = i >> 16
 * (pixels sharing their chroma, as 4:2:0's do, look up nearby entries). */
VH_KERNEL void __launch_bounds__ (VH_CIEDE_THREADS)
vh_ciede_lab_table (VhCiedeLabEntry *table)
{
  const unsigned int i = blockIdx.x * VH_CIEDE_THREADS + threadIdx.x;
  if (i >= VH_CIEDE_TABLE_ENTRIES)
    return;
  const VhLab lab = vh_ciedeg_lab ((double) (i & 255),
      (double) (i >> 16), (double) (i >> 8 & 255), 8);
  const VhCiedeLabEntry e = { lab.l, lab.a, lab.b,
    vh_ciedeg_chroma (lab) };
  table[i] = e;
}

__device__ __forceinline__ unsigned int
table_index (const void *const plane[3], const unsigned long long pitch[3],
    unsigned int x, unsigned int y, unsigned int cx, unsigned int cy)
{
  const unsigned char *py = (const unsigned char *) plane[0] + y * pitch[0];
  const unsigned char *pu = (const unsigned char *) plane[1] + cy * pitch[1];
  const unsigned char *pv = (const unsigned char *) plane[2] + cy * pitch[2];
  return (unsigned int) pu[cx] << 16 | (unsigned int) pv[cx] << 8 | py[x];
}

VH_KERNEL void __launch_bounds__ (VH_CIEDE_THREADS)
vh_ciede_8bit_table (const VhCiedeParams p,
    const VhCiedeLabEntry *__restrict__ table)
{
  double sum = 0.0;
  for (PixelWalk w (p.width); w.y < p.height; w.next ()) {
    const unsigned int x = w.x, y = w.y;
    const unsigned int cx = x >> p.shift, cy = y >> p.shift;
    const unsigned int ri = table_index (p.ref, p.pitch, x, y, cx, cy);
    const unsigned int di = table_index (p.dis, p.pitch, x, y, cx, cy);
    if (ri == di)
      continue;
    const VhCiedeLabEntry ea = table[ri], eb = table[di];
    const VhLab a = { ea.l, ea.a, ea.b }, b = { eb.l, eb.a, eb.b };
    sum += vh_ciedeg_delta_e_chroma (a, b, ea.c, eb.c);
  }
  block_sum (sum, p.partial);
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
