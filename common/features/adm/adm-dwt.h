/* vmafhip — ADM's DWT rows (adm-dwt.c) and the loop helpers ADM's files
 * share.  Internal to the engine. */
#ifndef VH_ADM_DWT_H
#define VH_ADM_DWT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Runs `body` for j in [l, r): in blocks of ADM_VEC columns with a
 * constant trip count, which GCC vectorises even at -O2 (its "very cheap"
 * cost model), then column by column. */
#define ADM_VEC 16
#define FOR_COLUMNS(j, l, r, ...)                                             \
  do {                                                                        \
    const int j##_end = (r);                                                  \
    int j##_blk = (l);                                                        \
    for (; j##_blk + ADM_VEC <= j##_end; j##_blk += ADM_VEC)                  \
      for (int j##_k = 0; j##_k < ADM_VEC; j##_k++) {                         \
        const int j = j##_blk + j##_k;                                        \
        __VA_ARGS__                                                           \
      }                                                                       \
    for (int j = j##_blk; j < j##_end; j++)                                   \
      __VA_ARGS__                                                             \
  } while (0)

/* Round-half-up constant of a right shift, (uint32_t) pow(2, s − 1) in
 * libvmaf; its shifts are ≥ 1 for every size we accept. */
static inline int64_t
vh_adm_half_of (int shift)
{
  return shift > 0 ? (int64_t) 1 << (shift - 1) : 0;
}

/* A DWT input: the picture's luma (8 or 16-bit samples) at scale 0, the
 * scale before's low band (int32) after */
enum { VH_ADM_SRC_U8, VH_ADM_SRC_U16, VH_ADM_SRC_I32 };
typedef struct VhAdmSource {
  const uint8_t *data;
  ptrdiff_t stride;         /* bytes */
  int kind;                 /* VH_ADM_SRC_* */
  int w, h;
} VhAdmSource;

/* Vertical pass of band row y into lo and hi (padded to [−1, n + 1]);
 * avx2: scale 0 by adm-dwt-x86.c */
void vh_adm_dwt_vertical (const VhAdmSource *src, int y, int scale,
    unsigned bpc, bool avx2, int32_t *lo, int32_t *hi);
/* Horizontal pass of a padded row, every second output into lo and hi */
void vh_adm_dwt_horizontal (const int32_t *t, int half, int scale, bool avx2,
    int32_t *lo, int32_t *hi);

#endif /* VH_ADM_DWT_H */
