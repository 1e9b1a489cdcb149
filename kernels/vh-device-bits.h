/* vmafhip — bit casts and atomics shared by the kernels' *-device.h
 * headers, compiled both as device code (the vendor's intrinsics) and as
 * plain host C++ (the emulation tests: memcpy, and plain additions, the
 * emulation running one thread at a time).  C++ only, namespace vh_bits. */
#ifndef VH_DEVICE_BITS_H
#define VH_DEVICE_BITS_H

#ifdef __cplusplus

#include <stdint.h>

#if defined(__CUDACC__) || defined(__HIP__)
#define VH_BITS_FN __host__ __device__ __forceinline__
#else
#include <math.h>
#include <string.h>
#define VH_BITS_FN inline
#endif
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define VH_BITS_DEVICE 1
#endif

namespace vh_bits {

VH_BITS_FN uint32_t
float_bits (float f)
{
#ifdef VH_BITS_DEVICE
  return __float_as_uint (f);
#else
  uint32_t u;
  memcpy (&u, &f, sizeof u);
  return u;
#endif
}

VH_BITS_FN float
bits_float (uint32_t u)
{
#ifdef VH_BITS_DEVICE
  return __uint_as_float (u);
#else
  float f;
  memcpy (&f, &u, sizeof f);
  return f;
#endif
}

/* the double whose high and low words are hi and lo */
VH_BITS_FN double
hilo_double (uint32_t hi, uint32_t lo)
{
#ifdef VH_BITS_DEVICE
  return __hiloint2double ((int) hi, (int) lo);
#else
  const uint64_t b = (uint64_t) hi << 32 | lo;
  double d;
  memcpy (&d, &b, sizeof d);
  return d;
#endif
}

VH_BITS_FN void
atomic_add32 (uint32_t *at, uint32_t v)
{
#ifdef VH_BITS_DEVICE
  atomicAdd ((unsigned *) at, (unsigned) v);
#else
  *at += v;
#endif
}

VH_BITS_FN void
atomic_add64 (uint64_t *at, uint64_t v)
{
#ifdef VH_BITS_DEVICE
  atomicAdd ((unsigned long long *) at, (unsigned long long) v);
#else
  *at += v;
#endif
}

/* a * b + c rounded once, in double (libm's fma on the host) */
VH_BITS_FN double
fma_double (double a, double b, double c)
{
#if defined(__CUDA_ARCH__)
  return __fma_rn (a, b, c);
#elif defined(VH_BITS_DEVICE)
  return __builtin_fma (a, b, c);
#else
  return fma (a, b, c);
#endif
}

}  /* namespace vh_bits */

#endif /* __cplusplus */
#endif /* VH_DEVICE_BITS_H */
