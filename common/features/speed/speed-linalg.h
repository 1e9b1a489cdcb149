/* vmafhip — SpEED's dense linear algebra on its 25x25 covariance (float,
 * in libvmaf's order of operations): eigenvalues (GSL's symmetric
 * tridiagonal QR, as libvmaf vendors it) and a Householder QR with explicit
 * matrices for the linear solve.  Used by speed-chroma.c. */
#ifndef VH_SPEED_LINALG_H
#define VH_SPEED_LINALG_H

#include "speed-params.h"   /* VH_SPEED_BLOCK, VH_SPEED_NB */

/* libvmaf's threshold: off-diagonals chopped, pivots and eigenvalues
 * treated as zero below it */
#define VH_SPEED_EPS (1e-6)
/* floats of scratch vh_speed_eigenvalues needs */
#define VH_SPEED_EIG_WORK (VH_SPEED_NB * VH_SPEED_NB + 4 * VH_SPEED_NB)

/* The NB eigenvalues of the symmetric NB x NB matrix cov, unsorted. */
void vh_speed_eigenvalues (const float *cov, float *eig, float *work);
/* dst (n x m) = x (n x n) y (n x m); dst must not overlap x or y */
void vh_speed_mat_mul (float *dst, const float *x, const float *y, int n,
    int m);
void vh_speed_transpose (float *m, int n);
/* A = Q R (NB x NB); H and Z: NB x NB scratch. */
void vh_speed_qr_decompose (const float *A, float *Q, float *R, float *H,
    float *Z);

#endif
