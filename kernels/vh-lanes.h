/* vmafhip — the lane model: how kernel code exchanges values between the
 * lanes of one wavefront (shuffles, ballots, lane masks), written once for
 * the GPU and for the host's emulation of a wavefront of either width.
 *
 * A wavefront (NVIDIA: a warp) has W lanes: 32 on NVIDIA and on RDNA
 * (gfx10xx-gfx12xx, wave32), 64 on GCN and CDNA (gfx9xx, MI300's gfx942).
 * Lane-level code is written against a Wave and never names a width: the
 * width, the lane masks and the ballots' width come from the wave.  The
 * kernels (the .hip files and their -device.h headers) call lane
 * intrinsics only through this header (tests/check/test-lanes-source.py
 * checks it).
 *
 * A Wave provides
 *   Mask               a ballot or a set of lanes: lane l is bit l
 *   Of<T>              a value each lane holds; x[l] is lane l's (on the
 *                      GPU a lane sees only its own, whatever l)
 *   width ()           W
 *   full ()            Of<Mask>: all W lanes
 *   group (n)          Of<Mask>: the n adjacent lanes holding the lane (n a
 *                      power of two up to W, the groups aligned to n)
 *   each (f)           Of<R>: f (l) in every lane l (R: f's type)
 *   run (f)            f (l) in every lane l, for its side effects
 *   shfl (m, x, src)   Of<T>: lane l gets lane src[l]'s x
 *   shfl_up (m, x, d)  Of<T>: lane l gets lane l - d's x (below d its own)
 *   shfl_xor (m, x, b) Of<T>: lane l gets lane l ^ b's x
 *   ballot (m, p)      Of<Mask>: bit j set where lane j of m holds p
 *   uniform (x)        the value that every lane holds
 *   sync ()            the lanes' shared-memory writes seen by all of them
 * and vh_lanes::popc (mask).  m names the lanes taking part, as CUDA's
 * *_sync intrinsics require: every one of them active, the lane itself and
 * the lane it reads among them.  (HIP 5.2, Debian's, has no *_sync
 * intrinsics and no masks: on AMD the active lanes take part.)
 *
 * GpuWave is the GPU's: the vendor's intrinsics, Of<T> a plain T, the lane
 * threadIdx.x % warpSize (1-D blocks).  HostWave<W> models a W-lane
 * wavefront on the host for the emulation tests (tests/check, the
 * test-NAME-emulation.cpp files): every Of<T> holds W values and every operation
 * runs over the active lanes in lockstep, as the hardware does.  What CUDA
 * leaves undefined (a lane outside its mask, a read of a lane outside it or
 * inactive, lanes that disagree on a uniform value) gives a poison value
 * and is counted in `faults`, which the tests require to stay 0.
 *
 * VH_LANES_PLANT_MASK32 (tests only, tests/check/meson.build) plants the
 * assumption this model exists to catch: masks of 32 bits whatever the
 * width, as a kernel written for 32-lane warps has.  The emulation tests
 * built with it must find it at W = 64 and not at W = 32. */
#ifndef VH_LANES_H
#define VH_LANES_H

/* the narrowest and the widest wavefront of any GPU: a group of lanes that
 * must fit one wavefront is at most VH_LANES_MIN; a block sized for one
 * wavefront of any GPU has VH_LANES_MAX threads */
#define VH_LANES_MIN 32
#define VH_LANES_MAX 64

#ifdef __cplusplus

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_LANES_FN __host__ __device__ __forceinline__
#else
#include <cstdint>
#include <cstring>
#include <type_traits>
#define VH_LANES_FN inline
#endif

/* a loop over the lanes' offsets (1, 2, 4, ... up to VH_LANES_MAX, ending
 * at the width) unrolled on the GPU, so that its shuffles need no loop */
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_LANES_UNROLL _Pragma ("unroll")
#else
#define VH_LANES_UNROLL
#endif

namespace vh_lanes {

/* The lowest n bits of a mask of type M (all of them from n = its width) */
template <class M>
VH_LANES_FN M
low_bits (unsigned n)
{
  return n >= 8 * sizeof (M) ? (M) ~(M) 0 : (M) (((M) 1 << n) - 1);
}

#if defined(__CUDACC__) || defined(__HIP__)

__device__ __forceinline__ unsigned
popc (unsigned m)
{
  return __popc (m);
}

__device__ __forceinline__ unsigned
popc (unsigned long long m)
{
  return __popcll (m);
}

struct GpuWave {
#if defined(__HIP__)
  /* HIP's __ballot: 64 bits at either width (wave32: the upper half 0) */
  typedef unsigned long long Mask;
#else
  /* CUDA's __ballot_sync and lane masks: 32 bits, a warp's 32 lanes */
  typedef unsigned Mask;
#endif

  template <class T>
  struct Of {
    T v;
    __device__ __forceinline__ T &operator[] (unsigned) { return v; }
    __device__ __forceinline__ const T &
    operator[] (unsigned) const
    {
      return v;
    }
  };

#if defined(__HIP__)
  __device__ __forceinline__ unsigned
  width () const
  {
    return warpSize;
  }
#else
  /* CUDA's intrinsics take and give a warp's lanes as 32-bit masks: its
   * width is the mask's, a constant the compiler unrolls loops with
   * (CUDA's warpSize is a run-time value to it) */
  __device__ __forceinline__ unsigned
  width () const
  {
    return 8 * sizeof (Mask);
  }
#endif

  __device__ __forceinline__ unsigned
  lane () const
  {
    return threadIdx.x % width ();
  }

  __device__ __forceinline__ Of<Mask>
  full () const
  {
    const Of<Mask> m = { low_bits<Mask> (width ()) };
    return m;
  }

  /* n <= W lanes, so the shift stays within the mask */
  __device__ __forceinline__ Of<Mask>
  group (unsigned n) const
  {
    const Of<Mask> m = { low_bits<Mask> (n) << (lane () & ~(n - 1)) };
    return m;
  }

  template <class F>
  __device__ __forceinline__ auto
  each (F f) const -> Of<decltype (f (0u))>
  {
    const Of<decltype (f (0u))> r = { f (lane ()) };
    return r;
  }

  template <class F>
  __device__ __forceinline__ void
  run (F f) const
  {
    f (lane ());
  }

  template <class T>
  __device__ __forceinline__ Of<T>
  shfl (Of<Mask> m, Of<T> x, Of<unsigned> src) const
  {
#if defined(__HIP__)
    (void) m;
    const Of<T> r = { __shfl (x.v, (int) src.v) };
#else
    const Of<T> r = { __shfl_sync (m.v, x.v, (int) src.v) };
#endif
    return r;
  }

  template <class T>
  __device__ __forceinline__ Of<T>
  shfl_up (Of<Mask> m, Of<T> x, unsigned d) const
  {
#if defined(__HIP__)
    (void) m;
    const Of<T> r = { __shfl_up (x.v, d) };
#else
    const Of<T> r = { __shfl_up_sync (m.v, x.v, d) };
#endif
    return r;
  }

  template <class T>
  __device__ __forceinline__ Of<T>
  shfl_xor (Of<Mask> m, Of<T> x, unsigned b) const
  {
#if defined(__HIP__)
    (void) m;
    const Of<T> r = { __shfl_xor (x.v, (int) b) };
#else
    const Of<T> r = { __shfl_xor_sync (m.v, x.v, (int) b) };
#endif
    return r;
  }

  __device__ __forceinline__ Of<Mask>
  ballot (Of<Mask> m, Of<bool> p) const
  {
#if defined(__HIP__)
    (void) m;
    const Of<Mask> r = { __ballot (p.v) };
#else
    const Of<Mask> r = { __ballot_sync (m.v, p.v) };
#endif
    return r;
  }

  template <class T>
  __device__ __forceinline__ T
  uniform (Of<T> x) const
  {
    return x.v;
  }

  __device__ __forceinline__ void
  sync () const
  {
#if defined(__HIP__)
    /* what ROCm's __syncwarp does (HIP 5.2 has none) */
    __builtin_amdgcn_fence (__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier ();
    __builtin_amdgcn_fence (__ATOMIC_ACQUIRE, "wavefront");
#else
    __syncwarp ();
#endif
  }
};

#else /* the host's model */

template <class M>
inline unsigned
popc (M m)
{
  return (unsigned) __builtin_popcountll ((unsigned long long) m);
}

template <unsigned W>
struct HostWave {
  static_assert (W == 32 || W == 64, "a wavefront has 32 or 64 lanes");
#if defined(VH_LANES_PLANT_MASK32)
  typedef uint32_t Mask;        /* planted: the 32-lane assumption */
#else
  typedef typename std::conditional<W == 64, uint64_t, uint32_t>::type Mask;
#endif
  static constexpr unsigned kBits = 8 * sizeof (Mask);

  template <class T>
  struct Of {
    T v[W];
    T &operator[] (unsigned l) { return v[l]; }
    const T &operator[] (unsigned l) const { return v[l]; }
  };

  /* the active lanes: first .. first + count - 1 (all by default; one
   * diverged group of lanes for a column of CAMBI's) */
  unsigned first = 0, count = W;
  /* undefined reads and disagreeing uniform values so far */
  unsigned long faults = 0;

  HostWave () = default;
  HostWave (unsigned first_lane, unsigned n) : first (first_lane), count (n)
  {
  }

  unsigned width () const { return W; }
  bool active (unsigned l) const { return l - first < count; }
  /* past the last active lane (never past the wavefront) */
  unsigned end () const { return first + count < W ? first + count : W; }

  /* m shifted left by s, the bits past its width lost (as the GPU's
   * shifts of a register lose them) */
  static Mask
  shifted (Mask m, unsigned s)
  {
    return s >= kBits ? 0 : (Mask) (m << s);
  }

  static bool has (Mask m, unsigned l) { return l < kBits && (m >> l & 1); }

  Of<Mask>
  full () const
  {
    return each ([] (unsigned) { return low_bits<Mask> (W); });
  }

  Of<Mask>
  group (unsigned n) const
  {
    return each ([n] (unsigned l) {
      return shifted (low_bits<Mask> (n), l & ~(n - 1));
    });
  }

  template <class F>
  auto
  each (F f) const -> Of<decltype (f (0u))>
  {
    Of<decltype (f (0u))> r;
    poison (r);
    for (unsigned l = first; l < end (); l++)
      r[l] = f (l);
    return r;
  }

  template <class F>
  void
  run (F f) const
  {
    for (unsigned l = first; l < end (); l++)
      f (l);
  }

  template <class T>
  Of<T>
  shfl (const Of<Mask> &m, const Of<T> &x, const Of<unsigned> &src)
  {
    Of<T> r;
    poison (r);
    for (unsigned l = first; l < end (); l++) {
      if (takes_part (m[l], l) && src[l] < W && has (m[l], src[l]))
        r[l] = x[src[l]];
      else
        faults++;
    }
    return r;
  }

  template <class T>
  Of<T>
  shfl_up (const Of<Mask> &m, const Of<T> &x, unsigned d)
  {
    return shfl (m, x, each ([d] (unsigned l) { return l >= d ? l - d : l; }));
  }

  template <class T>
  Of<T>
  shfl_xor (const Of<Mask> &m, const Of<T> &x, unsigned b)
  {
    return shfl (m, x, each ([b] (unsigned l) { return l ^ b; }));
  }

  Of<Mask>
  ballot (const Of<Mask> &m, const Of<bool> &p)
  {
    Of<Mask> r;
    poison (r);
    for (unsigned l = first; l < end (); l++) {
      if (!takes_part (m[l], l)) {
        faults++;
        continue;
      }
      Mask bits = 0;
      for (unsigned j = first; j < end (); j++)
        if (has (m[l], j) && p[j])
          bits |= shifted (1, j);
      r[l] = bits;
    }
    return r;
  }

  template <class T>
  T
  uniform (const Of<T> &x)
  {
    for (unsigned l = first + 1; l < end (); l++)
      if (std::memcmp (&x[l], &x[first], sizeof (T)))
        faults++;
    return x[first];
  }

  void sync () const {}

private:
  /* a lane in its own mask, every lane of which is active */
  bool
  takes_part (Mask m, unsigned l) const
  {
    const Mask active_lanes = shifted (low_bits<Mask> (count), first);
    return has (m, l) && !(m & ~active_lanes);
  }

  /* what an inactive lane holds: garbage (never a bool: any byte but 0
   * or 1 is no bool) */
  template <class T>
  static void
  poison (Of<T> &x)
  {
    if (!std::is_same<T, bool>::value)
      std::memset ((void *) &x, 0xa5, sizeof x);
    else
      std::memset ((void *) &x, 0, sizeof x);
  }
};

#endif

}  /* namespace vh_lanes */

#endif /* __cplusplus */
#endif /* VH_LANES_H */
