/* vmafhip — build hot CPU loops for several x86-64 levels.
 *
 * The DSP loops are plain C that GCC vectorises; AVX2 and AVX-512 make them
 * 1.5-2.5x faster than the baseline SSE2. target_clones builds each variant
 * and picks one at load time. Integer results are identical; floating-point
 * code stays exact because the project builds with -ffp-contract=off (no
 * FMA contraction in any variant).
 */
#ifndef VH_MULTIVERSION_H
#define VH_MULTIVERSION_H

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) \
    && defined(__ELF__)
#define VH_MULTIVERSION \
  __attribute__ ((target_clones ("default", "arch=x86-64-v3", "arch=x86-64-v4")))
#else
#define VH_MULTIVERSION
#endif

#endif
