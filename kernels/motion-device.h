/* vmafhip — per-thread arithmetic of the motion and PSNR kernels.
 *
 * Included by kernels/motion.hip and kernels/psnr.hip (after vh-hip-compat.h)
 * and, as plain C++, by host tests: there a loop over blocks and threads
 * calls the same functions as the kernels, so the integers a GPU must give
 * can be checked on a machine without one.  Everything here is integer
 * arithmetic that reproduces common/features/motion/motion.c and common/features/psnr/psnr.c exactly; the
 * kernels add only shared-memory staging, a block reduction and one 64-bit
 * atomicAdd per block (exact in any order).
 *
 * Limit shared by both features: width and height at most VH_MP_MAX_DIM.
 * Then the CPU's 32-bit row sums (motion: |blur| <= 65520 per sample; PSNR
 * 8-bit: e² <= 65025) cannot wrap, so the total is the plain sum of the
 * per-sample terms and the GPU may add them in any grouping. */
#ifndef VH_MOTION_DEVICE_H
#define VH_MOTION_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_MP_FN __host__ __device__ __forceinline__
#else
#define VH_MP_FN static inline
#endif
/* Device passes only: the host pass of nvcc (and g++) would warn. */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_MP_UNROLL _Pragma ("unroll")
#define VH_MP_GPU 1
#else
#define VH_MP_UNROLL
#endif

#define VH_MP_MAX_DIM 65535

/* ---- motion ------------------------------------------------------------ */

/* The 5-tap Q16 blur of common/features/motion/motion.c: its taps and radius. */
#include "motion-params.h"

/* One block of THREADS threads blurs a tile of TILE_W x TILE_H output
 * samples.  Vertical pass: thread j takes column j of the tile's VTILE_W =
 * TILE_W + 2·RADIUS columns (the outputs and their halo: exactly one column
 * per thread, so no thread loops and the compiler keeps no row addresses
 * alive across columns), sliding down TILE_H + 2·RADIUS rows held in
 * registers, into a shared int32 tile.  Horizontal pass: one thread per 4
 * adjacent outputs (two aligned 16-byte shared loads); a tile row has
 * QUAD_SLOTS slots of 4 and its last slot is idle. */
#define VH_MOTION_THREADS 128
#define VH_MOTION_VTILE_W VH_MOTION_THREADS
#define VH_MOTION_TILE_W (VH_MOTION_VTILE_W - 2 * VH_MOTION_RADIUS)
#define VH_MOTION_TILE_H 16
#define VH_MOTION_QUAD_SLOTS (VH_MOTION_VTILE_W / 4)

/* |blur| <= 65520 (12-bit, the largest), so a block's sum fits uint32. */
#if VH_MOTION_TILE_W * VH_MOTION_TILE_H > 65535
#error "motion tile too large for a 32-bit block sum"
#endif
#if VH_MOTION_VTILE_W % 4 != 0 || VH_MOTION_TILE_W % 4 != 0
#error "motion tiles must keep 16-byte aligned quads"
#endif
#if VH_MOTION_TILE_H % (VH_MOTION_THREADS / VH_MOTION_QUAD_SLOTS) != 0
#error "the horizontal pass covers the tile rows in whole steps"
#endif

/* Reflect-101 (-k -> k, n-1+k -> n-1-k), exact for -RADIUS <= i <=
 * n-1+RADIUS when n >= 3.  Indices further out only feed outputs outside
 * the picture (the last tile's spare rows); they are clamped to stay in
 * bounds. */
VH_MP_FN int
vh_motion_reflect (int i, int n)
{
  if (i < 0)
    i = -i;
  if (i >= n)
    i = 2 * n - 2 - i;
  return i < 0 ? 0 : i;
}

/* Vertical pass of tile column j (0 <= j < VTILE_W), i.e. of picture column
 * reflect(x0 − RADIUS + j): writes vtile[i·VTILE_W + j] for the TILE_H rows
 * y0 .. y0 + TILE_H − 1.  As in common/features/motion/motion.c: d = prev − cur, v = (Σ
 * tap·d + 2^(bpc−1)) >> bpc in int32 (|Σ| <= 65536·4095), arithmetic shift.
 * Blurring the reflected column is the horizontal reflect-101 of the CPU's
 * vertical-pass row (its out[-2] = out[2], ...), so the horizontal pass
 * needs no edge cases. */
template <typename pixel_t>
VH_MP_FN void
vh_motion_vertical_column (const unsigned char *prev, size_t prev_pitch,
    const unsigned char *cur, size_t cur_pitch, int width, int height,
    int bpc, int x0, int y0, int j, int32_t *vtile)
{
  const int x = vh_motion_reflect (x0 - VH_MOTION_RADIUS + j, width);
  int32_t d[VH_MOTION_TILE_H + 2 * VH_MOTION_RADIUS];

  VH_MP_UNROLL
  for (int i = 0; i < VH_MOTION_TILE_H + 2 * VH_MOTION_RADIUS; i++) {
    const size_t y = (size_t) vh_motion_reflect (y0 - VH_MOTION_RADIUS + i,
        height);
    const pixel_t p = ((const pixel_t *) (prev + y * prev_pitch))[x];
    const pixel_t c = ((const pixel_t *) (cur + y * cur_pitch))[x];
    d[i] = (int32_t) p - (int32_t) c;
  }

  const int32_t rounding = (int32_t) 1 << (bpc - 1);
  VH_MP_UNROLL
  for (int i = 0; i < VH_MOTION_TILE_H; i++) {
    const int32_t outer = d[i] + d[i + 4];
    const int32_t inner = d[i + 1] + d[i + 3];
    const int32_t centre = d[i + 2];
    vtile[i * VH_MOTION_VTILE_W + j] = (VH_MOTION_TAP_OUTER * outer
        + VH_MOTION_TAP_INNER * inner + VH_MOTION_TAP_CENTRE * centre
        + rounding) >> bpc;
  }
}

/* Tile columns whose vertical pass some output of the tile reads: up to
 * picture column width − 1 + RADIUS. */
VH_MP_FN int
vh_motion_tile_columns (int width, int x0)
{
  const int needed = width - x0 + 2 * VH_MOTION_RADIUS;
  return needed < VH_MOTION_VTILE_W ? needed : VH_MOTION_VTILE_W;
}

/* |horizontal blur| of one output from its 5 vertical-pass neighbours, as
 * common/features/motion/motion.c: each symmetric pair times its tap in int32 (|pair| <=
 * 131040, 16004·131040 < 2^31), the sum in int64, rounded to Q0. */
VH_MP_FN uint32_t
vh_motion_abs_hblur (int32_t v0, int32_t v1, int32_t v2, int32_t v3,
    int32_t v4)
{
  const int64_t acc = (int64_t) (VH_MOTION_TAP_OUTER * (v0 + v4))
      + (int64_t) (VH_MOTION_TAP_INNER * (v1 + v3))
      + (int64_t) (VH_MOTION_TAP_CENTRE * v2);
  const int32_t val = (int32_t) ((acc + (1 << 15)) >> 16);
  return (uint32_t) (val < 0 ? -val : val);
}

/* Σ|blur| of the up to 4 outputs (row, 4·quad .. 4·quad + 3) of the tile at
 * (x0, y0) that lie inside the tile and the picture.  They read vtile
 * columns 4·quad .. 4·quad + 7 of that row: two 16-byte aligned loads on
 * the GPU. */
VH_MP_FN uint32_t
vh_motion_quad_abs_sum (const int32_t *vtile, int row, int quad, int x0,
    int y0, int width, int height)
{
  const int c = 4 * quad;
  const int in_picture = width - x0 - c;
  const int valid = in_picture < VH_MOTION_TILE_W - c
      ? in_picture : VH_MOTION_TILE_W - c;
  if (y0 + row >= height || valid <= 0)
    return 0;

  const int32_t *src = vtile + row * VH_MOTION_VTILE_W + c;
  int32_t v[8];
#ifdef VH_MP_GPU
  const int4 lo = ((const int4 *) src)[0];
  const int4 hi = ((const int4 *) src)[1];
  v[0] = lo.x; v[1] = lo.y; v[2] = lo.z; v[3] = lo.w;
  v[4] = hi.x; v[5] = hi.y; v[6] = hi.z; v[7] = hi.w;
#else
  for (int k = 0; k < 8; k++)
    v[k] = src[k];
#endif

  uint32_t sum = 0;
  VH_MP_UNROLL
  for (int k = 0; k < 4; k++) {
    if (k < valid)
      sum += vh_motion_abs_hblur (v[k], v[k + 1], v[k + 2], v[k + 3],
          v[k + 4]);
  }
  return sum;
}

/* What thread tid of the block at tile (x0, y0) does in each pass; the
 * kernel puts a __syncthreads () between them. */
template <typename pixel_t>
VH_MP_FN void
vh_motion_thread_vertical (const unsigned char *prev, size_t prev_pitch,
    const unsigned char *cur, size_t cur_pitch, int width, int height,
    int bpc, int x0, int y0, int tid, int32_t *vtile)
{
  if (tid < vh_motion_tile_columns (width, x0))
    vh_motion_vertical_column<pixel_t> (prev, prev_pitch, cur, cur_pitch,
        width, height, bpc, x0, y0, tid, vtile);
}

VH_MP_FN uint32_t
vh_motion_thread_horizontal (const int32_t *vtile, int width, int height,
    int x0, int y0, int tid)
{
  const int rows_per_step = VH_MOTION_THREADS / VH_MOTION_QUAD_SLOTS;
  uint32_t sum = 0;
  VH_MP_UNROLL
  for (int k = 0; k < VH_MOTION_TILE_H / rows_per_step; k++)
    sum += vh_motion_quad_abs_sum (vtile, tid / VH_MOTION_QUAD_SLOTS
        + k * rows_per_step, tid % VH_MOTION_QUAD_SLOTS, x0, y0, width,
        height);
  return sum;
}

/* ---- PSNR -------------------------------------------------------------- */

/* One plane pair, passed by value in the kernel's parameters.  Layout (48
 * bytes, no padding) mirrored by common/gpu/features/psnr-gpu.c. */
struct VhPsnrPlaneJob {
  uint64_t ref, dis;              /* device addresses of the first sample */
  uint64_t ref_pitch, dis_pitch;  /* bytes between rows */
  uint32_t width, height;         /* samples, rows */
  uint32_t ref_step, dis_step;    /* 1 planar, 2 interleaved (NV12 / P010) */
};

struct VhPsnrJobs {
  struct VhPsnrPlaneJob plane[3];
};

/* A block of PSNR_THREADS threads sums PSNR_ROWS rows of one plane
 * (blockIdx.y); each thread takes chunks of PSNR_CHUNK adjacent samples. */
#define VH_PSNR_THREADS 256
#define VH_PSNR_ROWS 4
#define VH_PSNR_CHUNK 4

/* Whether a plane pair can be read one chunk per load (4 bytes for 8-bit,
 * 8 bytes for 16-bit): planar, every row start aligned to a chunk. */
template <typename pixel_t>
VH_MP_FN bool
vh_psnr_packed (const struct VhPsnrPlaneJob *job)
{
  const uint64_t align = VH_PSNR_CHUNK * sizeof (pixel_t);
  return job->ref_step == 1 && job->dis_step == 1
      && ((job->ref | job->dis | job->ref_pitch | job->dis_pitch)
          & (align - 1)) == 0;
}

/* e² as common/features/psnr/psnr.c: difference in int32, square in uint32 (exact, |e| <
 * 2^12).  A chunk's 4 squares stay below 2^26. */
VH_MP_FN uint32_t
vh_psnr_sq (uint32_t a, uint32_t b)
{
  const int32_t e = (int32_t) a - (int32_t) b;
  return (uint32_t) e * (uint32_t) e;
}

/* SSE of samples x .. x + n − 1 (1 <= n <= CHUNK) of one row pair. */
template <typename pixel_t>
VH_MP_FN uint32_t
vh_psnr_chunk_sse (const unsigned char *ref_row, const unsigned char *dis_row,
    uint32_t ref_step, uint32_t dis_step, uint32_t x, uint32_t n, bool packed)
{
  uint32_t sum = 0;
  if (packed && n == VH_PSNR_CHUNK) {
    /* Little-endian lanes (every GPU and the x86 host). */
    if (sizeof (pixel_t) == 1) {
      const uint32_t a = *(const uint32_t *) (ref_row + x);
      const uint32_t b = *(const uint32_t *) (dis_row + x);
      VH_MP_UNROLL
      for (int k = 0; k < 4; k++)
        sum += vh_psnr_sq ((a >> (8 * k)) & 0xff, (b >> (8 * k)) & 0xff);
    } else {
      const uint64_t a = *(const uint64_t *) (ref_row + 2 * (size_t) x);
      const uint64_t b = *(const uint64_t *) (dis_row + 2 * (size_t) x);
      VH_MP_UNROLL
      for (int k = 0; k < 4; k++)
        sum += vh_psnr_sq ((uint32_t) (a >> (16 * k)) & 0xffff,
            (uint32_t) (b >> (16 * k)) & 0xffff);
    }
    return sum;
  }
  const pixel_t *r = (const pixel_t *) ref_row;
  const pixel_t *d = (const pixel_t *) dis_row;
  for (uint32_t k = 0; k < n; k++)
    sum += vh_psnr_sq (r[(size_t) (x + k) * ref_step],
        d[(size_t) (x + k) * dis_step]);
  return sum;
}

/* Everything thread tid (of n_threads) of block block_x adds for one plane:
 * rows block_x·ROWS .. +ROWS − 1, chunks tid, tid + n_threads, ... of each.
 * uint64: a thread's sum of 12-bit squares can pass 2^32 on wide rows. */
template <typename pixel_t>
VH_MP_FN uint64_t
vh_psnr_thread_sse (const struct VhPsnrPlaneJob *job, uint32_t block_x,
    uint32_t tid, uint32_t n_threads)
{
  const uint32_t y0 = block_x * VH_PSNR_ROWS;
  if (y0 >= job->height)
    return 0;
  const uint32_t rows = job->height - y0 < VH_PSNR_ROWS
      ? job->height - y0 : VH_PSNR_ROWS;
  const uint32_t chunks = (job->width + VH_PSNR_CHUNK - 1) / VH_PSNR_CHUNK;
  const bool packed = vh_psnr_packed<pixel_t> (job);
  const unsigned char *ref = (const unsigned char *) (uintptr_t) job->ref;
  const unsigned char *dis = (const unsigned char *) (uintptr_t) job->dis;

  uint64_t sum = 0;
  for (uint32_t r = 0; r < rows; r++) {
    const unsigned char *ref_row = ref + (size_t) (y0 + r) * job->ref_pitch;
    const unsigned char *dis_row = dis + (size_t) (y0 + r) * job->dis_pitch;
    for (uint32_t c = tid; c < chunks; c += n_threads) {
      const uint32_t x = c * VH_PSNR_CHUNK;
      const uint32_t n = job->width - x < VH_PSNR_CHUNK
          ? job->width - x : VH_PSNR_CHUNK;
      sum += vh_psnr_chunk_sse<pixel_t> (ref_row, dis_row, job->ref_step,
          job->dis_step, x, n, packed);
    }
  }
  return sum;
}

#endif /* VH_MOTION_DEVICE_H */
