/* vmafhip — CAMBI kernels (libvmaf 3.2.0 `cambi`, no-reference form, on
 * the distorted luma; every contrast value as common/features/cambi/cambi.c computes it).
 *
 * In order on one stream (kernels/cambi-device.h explains each step):
 *   vh_cambi_preprocess_8bit or _16bit, vh_cambi_deriv, vh_cambi_mask,
 *   then per scale vh_cambi_scale, vh_cambi_cvalues (or _wide on small
 *   scales), vh_cambi_level2,
 *   vh_cambi_level3, vh_cambi_select.
 * Host side: common/gpu/features/cambi-gpu.c. */
#include "vh-hip-compat.h"
#include "cambi-device.h"

using namespace vh_cambi;

template <typename Pixel>
static __device__ __forceinline__ void
preprocess (const VhCambiPre &p)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= p.width * p.height)
    return;
  bool bad;
  ((uint16_t *) (uintptr_t) p.img)[i] = preprocess_pixel<Pixel> (p, i, &bad);
  if (bad)
    atomic_add32 ((uint32_t *) (uintptr_t) p.bad, 1);
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_BLOCK)
vh_cambi_preprocess_8bit (const VhCambiPre p)
{
  preprocess<unsigned char> (p);
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_BLOCK)
vh_cambi_preprocess_16bit (const VhCambiPre p)
{
  preprocess<unsigned short> (p);
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_BLOCK)
vh_cambi_deriv (const VhCambiPre p)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.width * p.height)
    ((uint8_t *) (uintptr_t) p.deriv)[i] = deriv_column_pixel (p, i);
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_BLOCK)
vh_cambi_mask (const VhCambiPre p)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.width * p.height)
    ((uint8_t *) (uintptr_t) p.mask)[i] = mask_pixel (p, i);
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_BLOCK)
vh_cambi_scale (const VhCambiScale p)
{
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < p.w * p.h)
    scale_pixel (p, i);
}

/* A lane of a column: its share of the window's columns, the shares'
 * counts added over the column's Split lanes (kernels/cambi-device.h's
 * column_add) */
template <int Split>
struct LaneShares : LaneShare {
  __device__ __forceinline__ explicit LaneShares (const LaneShare &s)
      : LaneShare (s)
  {
  }
  __device__ __forceinline__ void
  total (const uint32_t counts[9], uint32_t out[9]) const
  {
    vh_lanes::GpuWave wave;
    uint32_t packed[5];
    vh_lanes::GpuWave::Of<uint32_t> w[5];
    pack_counts (counts, packed);
#pragma unroll
    for (int i = 0; i < 5; i++)
      w[i].v = packed[i];
    column_add<Split> (wave, w);
#pragma unroll
    for (int i = 0; i < 5; i++)
      packed[i] = w[i].v;
    unpack_counts (packed, out);
  }
};

/* One tile per block: its contrast values, and its histogram added into
 * the scale's (integer atomics: the same counts in any order). */
template <int Split>
static __device__ __forceinline__ void
cvalues (const VhCambiScale &p)
{
  static_assert (VH_CAMBI_CV_THREADS % Split == 0,
      "a block's threads: whole columns");
  __shared__ CvShared sm;
  const unsigned t = threadIdx.x, tile = blockIdx.x;
  cv_load (p, tile, t, VH_CAMBI_CV_THREADS, sm);
  __syncthreads ();
  const unsigned part = t % Split;
  const LaneShares<Split> shares (lane_share (2 * (int) p.pad + 1, Split,
          (int) part));
  cv_column (p, tile, t / Split, part == 0, sm, shares);
  __syncthreads ();
  cv_flush (p, t, VH_CAMBI_CV_THREADS, sm);
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_CV_THREADS)
vh_cambi_cvalues (const VhCambiScale p)
{
  cvalues<VH_CAMBI_CV_SPLIT> (p);
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_CV_THREADS)
vh_cambi_cvalues_wide (const VhCambiScale p)
{
  cvalues<VH_CAMBI_CV_SPLIT_WIDE> (p);
}

/* The bin of sm.count holding the sm.need-th largest value into
 * sm.found_bin, sm.need made its rank there (every thread, one per bin) */
static __device__ __forceinline__ void
find_bin_parallel (unsigned t, SelShared &sm)
{
  select_scan_init (t, sm);
  __syncthreads ();
  unsigned src = 0;
  for (unsigned step = 1; step < VH_CAMBI_BINS; step *= 2, src ^= 1) {
    select_scan_step (t, step, src, sm);
    __syncthreads ();
  }
  select_scan_pick (t, src, sm);
  __syncthreads ();
  if (t == 0)
    sm.need = sm.found_need;
}

/* sm.part summed into sm.part[0] */
static __device__ __forceinline__ void
part_tree (unsigned t, SelShared &sm)
{
  for (unsigned step = VH_CAMBI_SELECT_BLOCK / 2; step > 0; step /= 2) {
    select_tree (t, step, sm);
    __syncthreads ();
  }
}

/* Every block finds b1 from the level-1 histogram itself (a few hundred
 * additions), and in level3 b2 from the level-2 counts, so that no block
 * waits for another. */
/* The selection kernels take every scale at once (blockIdx.y the scale,
 * its VhCambiScale from `scales` in device memory; blocks past its
 * select_blocks leave at once), after every scale's contrast values: three
 * launches a picture, not three a scale. */
static __device__ __forceinline__ const VhCambiScale &
select_scale (uint64_t scales)
{
  return ((const VhCambiScale *) (uintptr_t) scales)[blockIdx.y];
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_SELECT_BLOCK)
vh_cambi_level2 (const uint64_t scales)
{
  __shared__ SelShared sm;
  const VhCambiScale &p = select_scale (scales);
  if (blockIdx.x >= p.select_blocks)
    return;
  const unsigned t = threadIdx.x, n = VH_CAMBI_SELECT_BLOCK;
  select_first_load (p, t, n, sm);
  __syncthreads ();
  if (t == 0)
    select_first (p, sm);
  select_clear (t, n, sm);
  __syncthreads ();
  if (sm.done)
    return;
  select_level2 (p, blockIdx.x * n + t, p.select_blocks * n, sm);
  __syncthreads ();
  select_flush (p, t, n, VH_CAMBI_HIST_COUNT2, sm);
}

VH_KERNEL void __launch_bounds__ (VH_CAMBI_SELECT_BLOCK)
vh_cambi_level3 (const uint64_t scales)
{
  __shared__ SelShared sm;
  const VhCambiScale &p = select_scale (scales);
  if (blockIdx.x >= p.select_blocks)
    return;
  const unsigned t = threadIdx.x, n = VH_CAMBI_SELECT_BLOCK;
  select_first_load (p, t, n, sm);
  __syncthreads ();
  if (t == 0)
    select_first (p, sm);
  select_load (p, t, n, VH_CAMBI_HIST_COUNT2, sm);
  __syncthreads ();
  if (sm.done)
    return;
  find_bin_parallel (t, sm);
  if (t == 0)
    sm.b2 = sm.found_bin;
  __syncthreads ();
  select_clear (t, n, sm);
  __syncthreads ();
  select_level3 (p, t, blockIdx.x * n + t, p.select_blocks * n, sm);
  __syncthreads ();
  select_flush (p, t, n, VH_CAMBI_HIST_COUNT3, sm);
  part_tree (t, sm);
  if (t == 0)
    select_part_flush (p, sm);
}

/* One block a scale: the exact sum of its k largest contrast values. */
VH_KERNEL void __launch_bounds__ (VH_CAMBI_SELECT_BLOCK)
vh_cambi_select (const uint64_t scales)
{
  __shared__ SelShared sm;
  const VhCambiScale &p = select_scale (scales);
  const unsigned t = threadIdx.x, n = VH_CAMBI_SELECT_BLOCK;
  select_first_load (p, t, n, sm);
  __syncthreads ();
  if (t == 0)
    select_first (p, sm);
  select_load (p, t, n, VH_CAMBI_HIST_COUNT2, sm);
  __syncthreads ();
  if (!sm.done) {
    find_bin_parallel (t, sm);
    if (t == 0)
      sm.b2 = sm.found_bin;
    select_load (p, t, n, VH_CAMBI_HIST_COUNT3, sm);
    __syncthreads ();
    find_bin_parallel (t, sm);
    if (t == 0)
      sm.b3 = sm.found_bin;
    __syncthreads ();
    select_above (t, n, sm);
    __syncthreads ();
    part_tree (t, sm);
  }
  if (t == 0)
    *(uint64_t *) (uintptr_t) p.result = select_result (p, sm);
}
