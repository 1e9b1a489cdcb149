/* vmafhip — PSNR-HVS per frame on the GPU (libvmaf 3.2.0 `psnr_hvs`; the
 * arithmetic is kernels/psnr-hvs-device.h, the CPU's own).  The planes'
 * blocks are numbered Y, then Cb, then Cr, each plane's in libvmaf's order.
 *
 * vh_psnr_hvs_errors_{8,16}bit: one thread per 8x8 block: its 64 weighted
 *   errors, and their sum (double, only a guess of the running sum).
 * vh_psnr_hvs_prefix: one block per plane: those sums into the running sum
 *   before each block.
 * vh_psnr_hvs_quantize: one block per chunk, one thread per 8x8 block: the
 *   quantized sums of each block and chunk for three candidate binades.
 * vh_psnr_hvs_walk: one block of VH_PSNR_HVS_LANES threads per plane: the
 *   float sum in libvmaf's order, exactly, into result[plane].
 * Host side: common/gpu/psnr-hvs-gpu.c. */
#include "vh-hip-compat.h"
#include "psnr-hvs-device.h"

struct VhPsnrHvsParams {
  const void *ref[3];
  const void *dis[3];
  unsigned long long pitch[3];   /* bytes, the same for ref and dis */
  unsigned int across[3];        /* blocks per row of blocks */
  unsigned int n_blocks[3];
  unsigned int first_block[3];   /* each plane's first block */
  unsigned int first_chunk[3];
  unsigned int total_blocks, total_chunks;
  float *values;                 /* 64 per block */
  double *approx;                /* per block: its sum, then the sum before */
  VhPsnrHvsBlockSpan *blocks;
  VhPsnrHvsChunkSpan *chunks;
  float *result;                 /* 3 */
};
static_assert (sizeof (VhPsnrHvsParams) == 168,
    "VhPsnrHvsParams layout is shared with common/gpu/psnr-hvs-gpu.c");

#define ERR_THREADS 64
#define PREFIX_THREADS 256

__constant__ float c_csf[3][64] = {
  VH_PSNR_HVS_CSF_Y, VH_PSNR_HVS_CSF_CB, VH_PSNR_HVS_CSF_CR,
};

template <typename pixel_t>
__device__ __forceinline__ void
load_block (const void *plane, unsigned long long pitch, unsigned int x,
    unsigned int y, int32_t blk[64])
{
  for (int i = 0; i < 8; i++) {
    const pixel_t *row = (const pixel_t *) ((const char *) plane
        + (y + i) * pitch) + x;
    for (int j = 0; j < 8; j++)
      blk[i * 8 + j] = row[j];
  }
}

template <typename pixel_t>
__device__ __forceinline__ void
errors (const VhPsnrHvsParams &p)
{
  __shared__ float csf[3][64], mask[3][64];
  for (unsigned int k = threadIdx.x; k < 3 * 64; k += ERR_THREADS) {
    csf[k / 64][k % 64] = c_csf[k / 64][k % 64];
    mask[k / 64][k % 64] = vh_psnr_hvs_mask_weight (c_csf[k / 64][k % 64]);
  }
  __syncthreads ();
  const unsigned int g = blockIdx.x * ERR_THREADS + threadIdx.x;
  if (g >= p.total_blocks)
    return;
  const int pl = g >= p.first_block[2] ? 2 : g >= p.first_block[1] ? 1 : 0;
  const unsigned int local = g - p.first_block[pl];
  const unsigned int x = local % p.across[pl] * 7, y = local / p.across[pl] * 7;
  int32_t s[64], d[64];
  float v[64];
  load_block<pixel_t> (p.ref[pl], p.pitch[pl], x, y, s);
  load_block<pixel_t> (p.dis[pl], p.pitch[pl], x, y, d);
  vh_psnr_hvs_block_errors (s, d, csf[pl], mask[pl], v);
  double sum = 0;
  float4 *out = (float4 *) (p.values + (size_t) g * 64);
  for (int k = 0; k < 64; k += 4) {
    out[k / 4] = make_float4 (v[k], v[k + 1], v[k + 2], v[k + 3]);
    sum += (double) v[k] + v[k + 1] + v[k + 2] + v[k + 3];
  }
  p.approx[g] = sum;
}

VH_KERNEL void __launch_bounds__ (ERR_THREADS)
vh_psnr_hvs_errors_8bit (const VhPsnrHvsParams p)
{
  errors<unsigned char> (p);
}

VH_KERNEL void __launch_bounds__ (ERR_THREADS)
vh_psnr_hvs_errors_16bit (const VhPsnrHvsParams p)
{
  errors<unsigned short> (p);
}

/* The running sums are guesses: any order will do */
VH_KERNEL void __launch_bounds__ (PREFIX_THREADS)
vh_psnr_hvs_prefix (const VhPsnrHvsParams p)
{
  __shared__ double part[PREFIX_THREADS];
  const unsigned int n = p.n_blocks[blockIdx.x];
  double *a = p.approx + p.first_block[blockIdx.x];
  const unsigned int per = (n + PREFIX_THREADS - 1) / PREFIX_THREADS;
  const unsigned int lo = threadIdx.x * per < n ? threadIdx.x * per : n;
  const unsigned int hi = lo + per < n ? lo + per : n;
  double sum = 0;
  for (unsigned int i = lo; i < hi; i++)
    sum += a[i];
  part[threadIdx.x] = sum;
  __syncthreads ();
  if (threadIdx.x == 0) {
    double run = 0;
    for (unsigned int t = 0; t < PREFIX_THREADS; t++) {
      const double x = part[t];
      part[t] = run;
      run += x;
    }
  }
  __syncthreads ();
  double run = part[threadIdx.x];
  for (unsigned int i = lo; i < hi; i++) {
    const double x = a[i];
    a[i] = run;
    run += x;
  }
}

VH_KERNEL void __launch_bounds__ (VH_PSNR_HVS_CHUNK)
vh_psnr_hvs_quantize (const VhPsnrHvsParams p)
{
  __shared__ unsigned long long q[3][VH_PSNR_HVS_CHUNK];
  __shared__ unsigned int info[VH_PSNR_HVS_CHUNK];
  const unsigned int gc = blockIdx.x, t = threadIdx.x;
  const int pl = gc >= p.first_chunk[2] ? 2 : gc >= p.first_chunk[1] ? 1 : 0;
  const unsigned int first = (gc - p.first_chunk[pl]) * VH_PSNR_HVS_CHUNK;
  const unsigned int local = first + t;
  const uint32_t g_chunk = vh_psnr_hvs_guess (p.approx[p.first_block[pl]
          + first]);
  uint64_t qc[3] = { 0, 0, 0 };
  uint32_t ic = VH_PSNR_HVS_ZERO;
  if (local < p.n_blocks[pl]) {
    const unsigned int b = p.first_block[pl] + local;
    float v[64];
    const float4 *in = (const float4 *) (p.values + (size_t) b * 64);
    for (int k = 0; k < 16; k++) {
      const float4 f = in[k];
      v[4 * k] = f.x;
      v[4 * k + 1] = f.y;
      v[4 * k + 2] = f.z;
      v[4 * k + 3] = f.w;
    }
    vh_psnr_hvs_quantize_block (v, vh_psnr_hvs_guess (p.approx[b]), g_chunk,
        &p.blocks[b], qc, &ic);
  }
  for (int k = 0; k < 3; k++)
    q[k][t] = qc[k];
  info[t] = ic;
  __syncthreads ();
  for (unsigned int s = VH_PSNR_HVS_CHUNK / 2; s > 0; s /= 2) {
    if (t < s) {
      for (int k = 0; k < 3; k++)
        q[k][t] += q[k][t + s];
      info[t] = vh_psnr_hvs_info_join (info[t], info[t + s]);
    }
    __syncthreads ();
  }
  if (t == 0) {
    VhPsnrHvsChunkSpan span;
    for (int k = 0; k < 3; k++)
      span.q[k] = q[k][0];
    span.info = info[0] | g_chunk << 8;
    span.pad = 0;
    p.chunks[gc] = span;
  }
}

/* The walker's threads as vh_psnr_hvs_walk's team: every thread evaluates
 * one span, the running totals are a shared scan, and all threads return
 * the same values. */
struct Team {
  unsigned long long *scan;
  VhPsnrHvsAcc *acc;

  template <class Step>
  __device__ unsigned int
  round (unsigned int n, uint32_t mant, uint64_t *total, Step step)
  {
    const unsigned int t = threadIdx.x;
    scan[t] = t < n ? step (t) : 0;
    __syncthreads ();
    for (unsigned int off = 1; off < VH_PSNR_HVS_LANES; off *= 2) {
      const unsigned long long add = t >= off ? scan[t - off] : 0;
      __syncthreads ();
      scan[t] += add;
      __syncthreads ();
    }
    /* the totals only grow: the spans that fit are a prefix */
    unsigned int lo = 0, hi = n;
    while (lo < hi) {
      const unsigned int mid = (lo + hi) / 2;
      if (mant + scan[mid] <= VH_PSNR_HVS_MANT_MAX)
        lo = mid + 1;
      else
        hi = mid;
    }
    *total = lo ? scan[lo - 1] : 0;
    __syncthreads ();
    return lo;
  }

  __device__ VhPsnrHvsAcc
  block (VhPsnrHvsAcc a, const float *v)
  {
    if (threadIdx.x == 0)
      *acc = vh_psnr_hvs_acc_block (a, v);
    __syncthreads ();
    a = *acc;
    __syncthreads ();
    return a;
  }
};

VH_KERNEL void __launch_bounds__ (VH_PSNR_HVS_LANES)
vh_psnr_hvs_walk (const VhPsnrHvsParams p)
{
  __shared__ unsigned long long scan[VH_PSNR_HVS_LANES];
  __shared__ VhPsnrHvsAcc acc;
  const int pl = blockIdx.x;
  Team team = { scan, &acc };
  const float s = vh_psnr_hvs_walk (team, p.chunks + p.first_chunk[pl],
      p.blocks + p.first_block[pl],
      p.values + (size_t) p.first_block[pl] * 64, p.n_blocks[pl]);
  if (threadIdx.x == 0)
    p.result[pl] = s;
}
