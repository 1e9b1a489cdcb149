/* vmafhip — SpEED's dense linear algebra (speed-linalg.h). */
#include <glib.h>
#include <math.h>
#include <string.h>

#include "speed-linalg.h"
#include "vh-multiversion.h"

#define NB VH_SPEED_NB
#define EIG_MAX_ITERS 500
#define EIG_EPS VH_SPEED_EPS

/* ---- eigenvalues of the symmetric covariance (GSL's symmtd + symm) ------ */

static float
hypot_f (float x, float y)
{
  return sqrt (x * x + y * y);
}

static int
sign_of (float x)
{
  return x >= 0 ? 1 : -1;
}

/* Householder vector annihilating A[start+1:, col]; returns tau. */
static float
householder (float *A, int col, int start, int n)
{
  if (n - start == 1)
    return 0.0f;
  float norm2 = 0;
  for (int i = start + 1; i < n; i++)
    norm2 += A[i * n + col] * A[i * n + col];
  const float xnorm = sqrt (norm2);
  if (xnorm == 0.0f)
    return 0.0f;
  const float alpha = A[start * n + col];
  const float beta = -sign_of (alpha) * hypot_f (alpha, xnorm);
  const float tau = (beta - alpha) / beta;
  const float sc = alpha - beta;
  if (sc != 0.0f) {
    for (int i = start; i < n; i++)
      A[i * n + col] /= sc;
    A[start * n + col] = beta;
  }
  return tau;
}

static void
tridiagonalise (float *A, int n, float *diag, float *sub, float *buf)
{
  float *v = buf, *x = buf + n;
  for (int i = 0; i < n - 2; i++) {
    const float tau = householder (A, i, i + 1, n);
    for (int j = i + 1; j < n; j++)
      v[j] = A[j * n + i];
    if (tau == 0.0f)
      continue;
    v[i + 1] = 1.0f;
    const int b = i + 1;
    /* x = tau A v */
    for (int r = b; r < n; r++) {
      x[r] = 0.0f;
      for (int c = b; c < n; c++)
        x[r] += tau * A[r * n + c] * v[c];
    }
    /* x -= 0.5 tau (x.v) v */
    float xv = 0;
    for (int r = b; r < n; r++)
      xv += x[r] * v[r];
    const float alpha = -0.5 * tau * xv;
    for (int r = b; r < n; r++)
      x[r] += alpha * v[r];
    /* A -= x v' + v x' */
    for (int r = b; r < n; r++)
      for (int c = b; c < n; c++)
        A[r * n + c] -= x[r] * v[c] + v[r] * x[c];
  }
  for (int i = 0; i < n; i++)
    diag[i] = A[i * n + i];
  for (int i = 0; i < n - 1; i++)
    sub[i] = A[(i + 1) * n + i];
}

static void
chop_small (const float *diag, float *sub, int n)
{
  for (int i = 0; i < n - 1; i++)
    if (fabsf (sub[i]) < EIG_EPS * (fabsf (diag[i]) + fabsf (diag[i + 1])))
      sub[i] = 0.0f;
}

static float
trailing_eigenvalue (const float *diag, const float *sub, int n)
{
  const float ta = diag[n - 2], tb = diag[n - 1], tab = sub[n - 2];
  const float dt = (ta - tb) / 2.0;
  if (dt > 0)
    return tb - tab * (tab / (dt + hypot_f (dt, tab)));
  if (dt == 0)
    return tb - fabsf (tab);
  return tb + tab * (tab / (-dt + hypot_f (dt, tab)));
}

static void
givens (float a, float b, float *c, float *s)
{
  if (b == 0) {
    *c = 1;
    *s = 0;
  } else if (fabsf (b) > fabsf (a)) {
    const float t = -a / b;
    const float s1 = 1.0 / sqrt (1 + t * t);
    *s = s1;
    *c = s1 * t;
  } else {
    const float t = -b / a;
    const float c1 = 1.0 / sqrt (1 + t * t);
    *c = c1;
    *s = c1 * t;
  }
}

/* One implicit symmetric QR step with Wilkinson shift on an unreduced
 * block (GSL's qrstep, float). */
static void
qr_step (float *diag, float *sub, int n)
{
  float mu = trailing_eigenvalue (diag, sub, n);
  if (EIG_EPS * fabsf (mu) > fabsf (diag[0]) + fabsf (sub[0]))
    mu = 0;
  float x = diag[0] - mu, z = sub[0];
  float bk = 0, zk = 0;
  float ap = diag[0], bp = sub[0], aq = diag[1];

  if (n == 2) {
    float c, s;
    givens (x, z, &c, &s);
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    diag[0] = ap1;
    sub[0] = bp1;
    diag[1] = aq1;
    return;
  }

  float bq = sub[1];
  for (int k = 0; k < n - 1; k++) {
    float c, s;
    givens (x, z, &c, &s);
    const float bk1 = c * bk - s * zk;
    const float ap1 = c * (c * ap - s * bp) + s * (s * aq - c * bp);
    const float bp1 = c * (s * ap + c * bp) - s * (s * bp + c * aq);
    const float zp1 = -s * bq;
    const float aq1 = s * (s * ap + c * bp) + c * (s * bp + c * aq);
    const float bq1 = c * bq;
    bk = bp1;
    zk = zp1;
    ap = aq1;
    bp = bq1;
    if (k < n - 2)
      aq = diag[k + 2];
    if (k < n - 3)
      bq = sub[k + 2];
    diag[k] = ap1;
    if (k > 0)
      sub[k - 1] = bk1;
    if (k < n - 2)
      sub[k + 1] = bp;
    x = bk;
    z = zk;
  }
  diag[n - 1] = ap;
  sub[n - 2] = bk;
}

void
vh_speed_eigenvalues (const float *cov, float *eig, float *work)
{
  float *A = work, *diag = work + NB * NB, *sub = diag + NB, *buf = sub + NB;
  memcpy (A, cov, sizeof (float) * NB * NB);
  tridiagonalise (A, NB, diag, sub, buf);

  chop_small (diag, sub, NB);
  int b = NB - 1, iter = 0;
  while (b > 0 && iter < EIG_MAX_ITERS) {
    if (sub[b - 1] == 0.0f) {
      b--;
      continue;
    }
    int a = b - 1;
    while (a > 0 && sub[a - 1] != 0.0f)
      a--;
    qr_step (diag + a, sub + a, b - a + 1);
    chop_small (diag + a, sub + a, b - a + 1);
    iter++;
  }
  if (iter == EIG_MAX_ITERS)
    g_warning ("speed_chroma: eigenvalues did not converge in %d steps",
        EIG_MAX_ITERS);
  memcpy (eig, diag, sizeof (float) * NB);
}

/* ---- linear solve: Householder QR with explicit matrices, as libvmaf ---- */

/* dst (n x m) = x (n x n) * y (n x m), each element summed over k in
 * order (multiplies and adds apart: the build does not contract them), a
 * row of dst at a time so that the j loop vectorises */
VH_MULTIVERSION void
vh_speed_mat_mul (float *restrict dst, const float *restrict x,
    const float *restrict y, int n, int m)
{
  for (int i = 0; i < n; i++) {
    float *restrict row = dst + (size_t) i * m;
    for (int j = 0; j < m; j++)
      row[j] = 0;
    for (int k = 0; k < n; k++) {
      const float xik = x[i * n + k];
      const float *restrict yk = y + (size_t) k * m;
      for (int j = 0; j < m; j++)
        row[j] += xik * yk[j];
    }
  }
}

/* The same for NB x NB (the QR decomposition's 48 products a picture):
 * eight columns of five rows at a time, their sums held in registers
 * (GCC's vector types: five independent sums hide the adds' latency),
 * each element's sum still a multiply then an add per k, in k order */
#define ROWS_AT_ONCE 5
#define COLS_AT_ONCE 8
G_STATIC_ASSERT (NB % ROWS_AT_ONCE == 0);
typedef float ColumnGroup __attribute__ ((vector_size (COLS_AT_ONCE
            * sizeof (float))));

VH_MULTIVERSION static void
mat_mul_nb (float *restrict dst, const float *restrict x,
    const float *restrict y)
{
  for (int i = 0; i < NB; i += ROWS_AT_ONCE) {
    int j = 0;
    for (; j + COLS_AT_ONCE <= NB; j += COLS_AT_ONCE) {
      ColumnGroup sums[ROWS_AT_ONCE] = { { 0 } };
      for (int k = 0; k < NB; k++) {
        ColumnGroup yk;
        memcpy (&yk, y + k * NB + j, sizeof yk);
        for (int r = 0; r < ROWS_AT_ONCE; r++)
          sums[r] += x[(i + r) * NB + k] * yk;
      }
      for (int r = 0; r < ROWS_AT_ONCE; r++)
        memcpy (dst + (i + r) * NB + j, &sums[r], sizeof sums[r]);
    }
    for (; j < NB; j++)
      for (int r = 0; r < ROWS_AT_ONCE; r++) {
        float sum = 0;
        for (int k = 0; k < NB; k++)
          sum += x[(i + r) * NB + k] * y[k * NB + j];
        dst[(i + r) * NB + j] = sum;
      }
  }
}

void
vh_speed_transpose (float *m, int n)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      const float t = m[i * n + j];
      m[i * n + j] = m[j * n + i];
      m[j * n + i] = t;
    }
}

static float
norm_f (const float *v, int n)
{
  float sum = 0;
  for (int i = 0; i < n; i++)
    sum += v[i] * v[i];
  return sqrt (sum);
}

/* A = Q R.  R doubles as the product's scratch and the Householder vector,
 * as in libvmaf (the values do not depend on it). */
void
vh_speed_qr_decompose (const float *A, float *Q, float *R, float *H, float *Z)
{
  const int n = NB;
  float *v = R;
  memcpy (Z, A, sizeof (float) * n * n);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      Q[i * n + j] = i == j ? 1 : 0;
  for (int k = 0; k < n - 1; k++) {
    /* the minor: rows and columns before k become the identity's */
    for (int i = 0; i < k; i++)
      for (int j = 0; j < n; j++)
        Z[i * n + j] = i == j ? 1 : 0;
    for (int i = k; i < n; i++)
      for (int j = 0; j < k; j++)
        Z[i * n + j] = 0;
    for (int i = 0; i < n; i++)
      v[i] = Z[i * n + k];
    const float norm = norm_f (v, n);
    v[k] += sign_of (A[k * n + k]) * norm;
    const float vn = norm_f (v, n);
    for (int i = 0; i < n; i++)
      v[i] = v[i] / vn;
    /* H = I - 2 v v' */
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        H[i * n + j] = -2 * v[i] * v[j];
    for (int i = 0; i < n; i++)
      H[i * n + i] += 1;
    mat_mul_nb (R, H, Z);
    memcpy (Z, R, sizeof (float) * n * n);
    mat_mul_nb (R, H, Q);
    memcpy (Q, R, sizeof (float) * n * n);
  }
  mat_mul_nb (R, Q, A);
  vh_speed_transpose (Q, n);
}

