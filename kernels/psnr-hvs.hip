/* vmafhip — PSNR-HVS per frame on the GPU (libvmaf 3.2.0 `psnr_hvs`; the
 * arithmetic is kernels/psnr-hvs-device.h, the CPU's own).  The planes'
 * blocks are numbered Y, then Cb, then Cr, each plane's in libvmaf's order,
 * and cut into chunks of VH_PSNR_HVS_CHUNK blocks (each plane's last one
 * partial).
 *
 * vh_psnr_hvs_errors_{8,16}bit: one block per chunk, one thread per 8x8
 *   block: its 64 weighted errors, their sum and the chunk's (double, only
 *   guesses of the running sum).
 * vh_psnr_hvs_quantize: one block per chunk, one thread per 8x8 block: the
 *   running sum before the chunk (its plane's earlier chunks' sums) and
 *   before each block, then the quantized sums of each block and chunk for
 *   three candidate binades.  (A separate prefix pass over every block cost
 *   more than all the rest: serial, strided.)
 * vh_psnr_hvs_walk: one wavefront per plane (the GPU's warp size of
 *   threads, 32 or 64; kernels/vh-lanes.h): the float sum in libvmaf's
 *   order, exactly, into result[plane].
 * Host side: common/gpu/features/psnr-hvs-gpu.c. */
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
  double *approx;                /* per block: its sum */
  double *chunk_sums;            /* per chunk: its sum */
  VhPsnrHvsBlockSpan *blocks;
  VhPsnrHvsChunkSpan *chunks;
  float *result;                 /* 3 */
};
static_assert (sizeof (VhPsnrHvsParams) == 176,
    "VhPsnrHvsParams layout is shared with common/gpu/features/psnr-hvs-gpu.c");

/* The errors kernel keeps its ~240 registers: capping them (2 or more
 * blocks of 64 threads per SM more) spilled and measured slower on an H100. */
#define THREADS VH_PSNR_HVS_CHUNK

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

/* The plane of global chunk gc */
__device__ __forceinline__ int
chunk_plane (const VhPsnrHvsParams &p, unsigned int gc)
{
  return gc >= p.first_chunk[2] ? 2 : gc >= p.first_chunk[1] ? 1 : 0;
}

/* part[0] += ... += part[THREADS - 1] as a tree (any order: a guess) */
__device__ __forceinline__ double
tree_sum (double *part)
{
  const unsigned int t = threadIdx.x;
  for (unsigned int s = THREADS / 2; s > 0; s /= 2) {
    __syncthreads ();
    if (t < s)
      part[t] += part[t + s];
  }
  __syncthreads ();
  return part[0];
}

template <typename pixel_t>
__device__ __forceinline__ void
errors (const VhPsnrHvsParams &p)
{
  __shared__ float csf[3][64], mask[3][64];
  __shared__ double part[THREADS];
  for (unsigned int k = threadIdx.x; k < 3 * 64; k += THREADS) {
    csf[k / 64][k % 64] = c_csf[k / 64][k % 64];
    mask[k / 64][k % 64] = vh_psnr_hvs_mask_weight (c_csf[k / 64][k % 64]);
  }
  __syncthreads ();
  const unsigned int gc = blockIdx.x;
  const int pl = chunk_plane (p, gc);
  const unsigned int local = (gc - p.first_chunk[pl]) * VH_PSNR_HVS_CHUNK
      + threadIdx.x;
  double sum = 0;
  if (local < p.n_blocks[pl]) {
    const unsigned int g = p.first_block[pl] + local;
    const unsigned int x = local % p.across[pl] * 7;
    const unsigned int y = local / p.across[pl] * 7;
    int32_t s[64], d[64];
    float v[64];
    load_block<pixel_t> (p.ref[pl], p.pitch[pl], x, y, s);
    load_block<pixel_t> (p.dis[pl], p.pitch[pl], x, y, d);
    vh_psnr_hvs_block_errors (s, d, csf[pl], mask[pl], v);
    float4 *out = (float4 *) (p.values + (size_t) g * 64);
    for (int k = 0; k < 64; k += 4) {
      out[k / 4] = make_float4 (v[k], v[k + 1], v[k + 2], v[k + 3]);
      sum += (double) v[k] + v[k + 1] + v[k + 2] + v[k + 3];
    }
    p.approx[g] = sum;
  }
  part[threadIdx.x] = sum;
  const double chunk = tree_sum (part);
  if (threadIdx.x == 0)
    p.chunk_sums[gc] = chunk;
}

VH_KERNEL void __launch_bounds__ (THREADS)
vh_psnr_hvs_errors_8bit (const VhPsnrHvsParams p)
{
  errors<unsigned char> (p);
}

VH_KERNEL void __launch_bounds__ (THREADS)
vh_psnr_hvs_errors_16bit (const VhPsnrHvsParams p)
{
  errors<unsigned short> (p);
}

VH_KERNEL void __launch_bounds__ (THREADS)
vh_psnr_hvs_quantize (const VhPsnrHvsParams p)
{
  __shared__ uint64_t q[THREADS][3][2];
  __shared__ unsigned int info[THREADS];
  __shared__ double part[THREADS], before[THREADS];
  const unsigned int gc = blockIdx.x, t = threadIdx.x;
  const int pl = chunk_plane (p, gc);
  const unsigned int first = (gc - p.first_chunk[pl]) * VH_PSNR_HVS_CHUNK;
  const unsigned int local = first + t;
  const unsigned int b = p.first_block[pl] + local;
  /* the running sum before the chunk: its plane's earlier chunks */
  double sum = 0;
  for (unsigned int c = p.first_chunk[pl] + t; c < gc; c += THREADS)
    sum += p.chunk_sums[c];
  part[t] = sum;
  before[t] = local < p.n_blocks[pl] ? p.approx[b] : 0;
  const double pre = tree_sum (part);
  /* and before each of its blocks */
  if (t == 0) {
    double run = pre;
    for (unsigned int i = 0; i < THREADS; i++) {
      const double x = before[i];
      before[i] = run;
      run += x;
    }
  }
  __syncthreads ();
  const uint32_t g_chunk = vh_psnr_hvs_guess (pre);
  VhPsnrHvsRun qc = VH_PSNR_HVS_RUN_EMPTY;
  uint32_t ic = VH_PSNR_HVS_ZERO;
  if (local < p.n_blocks[pl]) {
    const uint32_t g_block = vh_psnr_hvs_guess (before[t]);
    VhPsnrHvsRun qb = VH_PSNR_HVS_RUN_EMPTY;
    uint32_t ib = VH_PSNR_HVS_ZERO | g_block << 8;
    /* streamed: no copy of the 64 errors in local memory */
    const float4 *in = (const float4 *) (p.values + (size_t) b * 64);
    for (int k = 0; k < 16; k++) {
      const float4 f = in[k];
      vh_psnr_hvs_quantize_value (f.x, g_block, g_chunk, &qb, &ib, &qc, &ic);
      vh_psnr_hvs_quantize_value (f.y, g_block, g_chunk, &qb, &ib, &qc, &ic);
      vh_psnr_hvs_quantize_value (f.z, g_block, g_chunk, &qb, &ib, &qc, &ic);
      vh_psnr_hvs_quantize_value (f.w, g_block, g_chunk, &qb, &ib, &qc, &ic);
    }
    vh_psnr_hvs_quantize_end (&qb, ib, g_block, g_chunk, &p.blocks[b], &qc,
        &ic);
  }
  vh_psnr_hvs_run_sums (&qc, q[t]);
  info[t] = ic;
  __syncthreads ();
  /* the blocks' parts joined in their order (the sums depend on it) */
  for (unsigned int s = 1; s < VH_PSNR_HVS_CHUNK; s *= 2) {
    if (t % (2 * s) == 0)
      vh_psnr_hvs_chunk_join (q[t], &info[t], q[t + s], info[t + s]);
    __syncthreads ();
  }
  if (t == 0) {
    VhPsnrHvsChunkSpan span;
    for (int k = 0; k < 3; k++)
      for (int r = 0; r < 2; r++)
        span.q[k][r] = q[0][k][r];
    span.info = info[0] | g_chunk << 8;
    span.pad = 0;
    p.chunks[gc] = span;
  }
}

/* One wavefront a plane: the host launches the GPU's warp size of threads
 * (32 or 64, VH_LANES_MAX at most), its lanes the walker's team */
VH_KERNEL void __launch_bounds__ (VH_LANES_MAX)
vh_psnr_hvs_walk (const VhPsnrHvsParams p)
{
  __shared__ float vals[64];
  const int pl = blockIdx.x;
  VhPsnrHvsWaveTeam<vh_lanes::GpuWave> team = { vh_lanes::GpuWave (), vals };
  const float s = vh_psnr_hvs_walk (team, p.chunks + p.first_chunk[pl],
      p.blocks + p.first_block[pl],
      p.values + (size_t) p.first_block[pl] * 64, p.n_blocks[pl]);
  if (threadIdx.x == 0)
    p.result[pl] = s;
}
