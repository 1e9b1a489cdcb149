/* vmafhip — ADM's per-row CSF, contrast-masking (CM) and denominator
 * loops: one table of them per instruction set.
 *
 * adm.c holds the plain C (vh_adm_rows_c: the reference, and what other
 * CPUs run) and says what each loop computes; adm-rows-x86.c has them by
 * hand in AVX2 and AVX-512, giving the same integers for every input the
 * C defines (int32 sums modulo 2^32 included).  adm.c takes
 * vh_adm_rows_best () once per work; test-adm-rows runs every version
 * against the C. */
#ifndef VH_ADM_ROWS_H
#define VH_ADM_ROWS_H

#include <stdbool.h>
#include <stdint.h>

/* Scale 0's CSF of the restored signal rr and the impairment t − rr of
 * band `band`, columns [l, r): the CM signals x_*, added into the mask
 * (m_*), centre (c_*) and unwrapped centre (craw_*) rows.  `vec`: the
 * columns of libvmaf's AVX-512 16-wide loop (flavour 3).  |rr|, |t − rr|
 * ≤ 32767 (weight · value fits int32). */
typedef void (*VhAdmCsfS0Func) (const int32_t *rr, const int32_t *t, int l,
    int r, int32_t weight, int band, bool vec, int32_t *x_dlm,
    int32_t *x_aim, int32_t *m_dlm, int32_t *c_dlm, int32_t *craw_dlm,
    int32_t *m_aim, int32_t *c_aim, int32_t *craw_aim);
/* The same at scales 1-3 (Q32 weight below 2^28; sums modulo 2^32). */
typedef void (*VhAdmCsfS123Func) (const int32_t *rr, const int32_t *t, int l,
    int r, uint32_t weight, int32_t *x_dlm, int32_t *x_aim, int32_t *m_dlm,
    int32_t *c_dlm, int32_t *m_aim, int32_t *c_aim);
/* The CM threshold of columns [l, r): the 3×3 sum of the mask rows with
 * the centre replaced by centre[j], modulo 2^32 (reads columns l − 1 .. r
 * of up, mid, down). */
typedef void (*VhAdmCmThresholdFunc) (const int32_t *up, const int32_t *mid,
    const int32_t *down, const int32_t *centre, int l, int r,
    int32_t *thr);
/* Σ max(|x| − (thr << sub), 0)³ over [l, r) with libvmaf's roundings
 * (x ≠ INT32_MIN). */
typedef int64_t (*VhAdmCmRowFunc) (const int32_t *x, const int32_t *thr,
    int l, int r, int sub, int sq_shift, int cube_shift);
/* The denominator's row sums of |o|³ (scale 0, |o| as uint16) and of its
 * rounded form at scales 1-3 (o ≠ INT32_MIN). */
typedef uint64_t (*VhAdmDenS0Func) (const int32_t *o, int l, int r);
typedef uint64_t (*VhAdmDenS123Func) (const int32_t *o, int l, int r,
    int sq_shift, int cube_shift);

typedef struct {
  const char *name;
  VhAdmCsfS0Func csf_s0;
  VhAdmCsfS123Func csf_s123;
  VhAdmCmThresholdFunc cm_threshold;
  VhAdmCmRowFunc cm_row;
  VhAdmDenS0Func den_s0;
  VhAdmDenS123Func den_s123;
} VhAdmRows;

/* The plain C (adm.c). */
extern const VhAdmRows vh_adm_rows_c;

/* The best hand-written version for vh_cpu_simd_level () (AVX-512, AVX2),
 * or NULL: no x86-64 build, an older CPU, or a SIMD cap of none. */
const VhAdmRows *vh_adm_rows_best (void);

/* Every hand-written version this CPU runs, best first, up to max
 * (tests). */
unsigned vh_adm_rows_all (const VhAdmRows **out, unsigned max);

#endif /* VH_ADM_ROWS_H */
