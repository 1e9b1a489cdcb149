/* vmafhip — ADM's CSF, CM and denominator rows in every x86-64 version
 * this CPU runs (adm-rows-x86.c: AVX-512, AVX2) against the plain C
 * (vh_adm_rows_c), on random rows over every column range [l, r) with l
 * up to 36 and r − l up to 72 (empty, tiny, odd, unaligned) and whole
 * rows: each output array compared whole, so a stray write shows.  Values
 * uniform over what each loop accepts, at its extremes (int16 limits at
 * scale 0, ±(2^31 − 1) and wrapping sums at scales 1-3 and in the CM),
 * and in the range real pictures give; every band, scale-0 flavour
 * (vec), weight kind, shift the plan uses (and more).  Skips loudly the
 * versions the CPU cannot run. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "adm-rows.h"

#define COLS 200                /* columns of a test row */
#define PAD 16                  /* readable and checked on each side */
#define ALLOC (COLS + 2 * PAD)
#define MAX_L 36
#define MAX_SPAN 72
#define MODES 3                 /* uniform, extremes, realistic */

static const VhAdmRows *c_rows = &vh_adm_rows_c;

/* Version i of the hand-written rows this CPU runs, or NULL, said loudly */
static const VhAdmRows *
version (int i)
{
  const VhAdmRows *all[4];
  const unsigned n = vh_adm_rows_all (all, 4);
  if ((unsigned) i < n)
    return all[i];
  fprintf (stderr, "test-adm-rows: SKIPPED: version %d: this CPU runs %u of "
      "the x86-64 versions (AVX-512, AVX2)\n", i, n);
  return NULL;
}

/* uniform in [lo, hi] */
static int32_t
uniform (GRand *r, int64_t lo, int64_t hi)
{
  int64_t v = lo + (int64_t) (g_rand_double (r) * (double) (hi - lo + 1));
  return (int32_t) CLAMP (v, lo, hi);
}

/* a value in [lo, hi]: uniform (mode 0), at or next to its ends, 0 or ±1
 * (mode 1), or uniform in [−small, small] (mode 2) */
static int32_t
pick (GRand *r, int mode, int64_t lo, int64_t hi, int64_t small)
{
  if (mode == 1) {
    const int64_t v[] = { lo, hi, lo + 1, hi - 1, 0, -1, 1, lo, hi };
    /* one draw: CLAMP evaluates its argument more than once */
    const int64_t x = v[g_rand_int_range (r, 0, G_N_ELEMENTS (v))];
    return (int32_t) CLAMP (x, lo, hi);
  }
  if (mode == 2)
    return uniform (r, MAX (-small, lo), MIN (small, hi));
  return uniform (r, lo, hi);
}

static void
fill (GRand *r, int32_t *a, int mode, int64_t lo, int64_t hi, int64_t small)
{
  for (int i = 0; i < ALLOC; i++)
    a[i] = pick (r, mode, lo, hi, small);
}

/* every range [l, r) checked: l ≤ MAX_L with r − l ≤ MAX_SPAN, and from l
 * to the end of the row */
#define FOR_RANGES(l, r)                                                      \
  for (int l = 0; l <= MAX_L; l++)                                            \
    for (int r = l; r <= COLS;                                                \
        r = r < l + MAX_SPAN ? r + 1 : r < COLS ? COLS : COLS + 1)

/* the arrays a function writes, C and SIMD copies, from one start */
enum { N_OUT = 8 };
typedef struct {
  int32_t start[N_OUT][ALLOC], c[N_OUT][ALLOC], simd[N_OUT][ALLOC];
} Outputs;

/* copies the start of arrays 0 .. n − 1 over columns [l − PAD, r + PAD),
 * all a call on [l, r) may touch and more */
static void
outputs_reset (Outputs *o, int n, int l, int r)
{
  for (int a = 0; a < n; a++) {
    memcpy (o->c[a] + l, o->start[a] + l, (r - l + 2 * PAD) * sizeof
        (int32_t));
    memcpy (o->simd[a] + l, o->start[a] + l, (r - l + 2 * PAD) * sizeof
        (int32_t));
  }
}

static void
outputs_check (const Outputs *o, int n, const char *what, int l, int r)
{
  for (int a = 0; a < n; a++)
    for (int i = l; i < r + 2 * PAD; i++)
      if (o->c[a][i] != o->simd[a][i])  /* check's asserts are slow */
        ck_abort_msg ("%s, [%d, %d): array %d, "
          "column %d is %d, C has %d", what, l, r, a, i - PAD, o->simd[a][i],
          o->c[a][i]);
}

START_TEST (test_csf_s0)
{
  const VhAdmRows *v = version (_i);
  if (!v)
    return;
  GRand *rnd = g_rand_new_with_seed (4101);
  static int32_t rr[ALLOC], t[ALLOC];
  static Outputs o;
  /* Watson's d weight at 3·1080, the largest, and a random one */
  const int32_t weights[] = { 49417, 65535, 0 };
  unsigned checked = 0;
  for (int mode = 0; mode < MODES; mode++)
    for (unsigned wi = 0; wi < G_N_ELEMENTS (weights); wi++)
      for (int band = 0; band < 3; band++)
        for (int vec = 0; vec <= 1; vec++) {
          const int32_t w = weights[wi] ? weights[wi]
              : uniform (rnd, 0, 65535);
          /* |rr|, |t − rr| ≤ 32767 */
          for (int i = 0; i < ALLOC; i++) {
            rr[i] = pick (rnd, mode, -32767, 32767, 23000);
            t[i] = rr[i] + pick (rnd, mode, -32767, 32767, 23000);
          }
          for (int a = 0; a < N_OUT; a++)   /* accumulators */
            fill (rnd, o.start[a], mode, -(1 << 30), 1 << 30, 1 << 16);
          char what[64];
          g_snprintf (what, sizeof what, "%s mode %d weight %d band %d vec %d",
              v->name, mode, w, band, vec);
          FOR_RANGES (l, r) {
            outputs_reset (&o, N_OUT, l, r);
            int32_t (*c)[ALLOC] = o.c, (*s)[ALLOC] = o.simd;
            c_rows->csf_s0 (rr + PAD, t + PAD, l, r, w, band, vec, c[0] + PAD,
                c[1] + PAD, c[2] + PAD, c[3] + PAD, c[4] + PAD, c[5] + PAD,
                c[6] + PAD, c[7] + PAD);
            v->csf_s0 (rr + PAD, t + PAD, l, r, w, band, vec, s[0] + PAD,
                s[1] + PAD, s[2] + PAD, s[3] + PAD, s[4] + PAD, s[5] + PAD,
                s[6] + PAD, s[7] + PAD);
            outputs_check (&o, N_OUT, what, l, r);
            checked += r - l;
          }
        }
  ck_assert_uint_gt (checked, 100000);
  g_rand_free (rnd);
}
END_TEST

START_TEST (test_csf_s123)
{
  const VhAdmRows *v = version (_i);
  if (!v)
    return;
  GRand *rnd = g_rand_new_with_seed (4102);
  static int32_t rr[ALLOC], t[ALLOC];
  static Outputs o;
  /* Q32 weights below 2^28 (adm-params.c): the largest, 0, random */
  const uint32_t weights[] = { (1u << 28) - 1, 0, 1 };
  for (int mode = 0; mode < MODES; mode++)
    for (unsigned wi = 0; wi < G_N_ELEMENTS (weights); wi++) {
      const uint32_t w = weights[wi] == 1 ? (uint32_t) uniform (rnd, 0,
          (1 << 28) - 1) : weights[wi];
      /* rr, t and t − rr within int32, INT32_MIN left out (|csf|) */
      for (int i = 0; i < ALLOC; i++) {
        rr[i] = pick (rnd, mode, -INT32_MAX, INT32_MAX, 1 << 24);
        const int64_t lo = MAX ((int64_t) -INT32_MAX - rr[i], -INT32_MAX);
        const int64_t hi = MIN ((int64_t) INT32_MAX - rr[i], INT32_MAX);
        t[i] = rr[i] + pick (rnd, mode, lo, hi, 1 << 24);
      }
      for (int a = 0; a < 6; a++)     /* sums wrap modulo 2^32 */
        fill (rnd, o.start[a], mode, INT32_MIN, INT32_MAX, INT32_MAX);
      char what[64];
      g_snprintf (what, sizeof what, "%s mode %d weight %u", v->name, mode,
          w);
      FOR_RANGES (l, r) {
        outputs_reset (&o, 6, l, r);
        int32_t (*c)[ALLOC] = o.c, (*s)[ALLOC] = o.simd;
        c_rows->csf_s123 (rr + PAD, t + PAD, l, r, w, c[0] + PAD, c[1] + PAD,
            c[2] + PAD, c[3] + PAD, c[4] + PAD, c[5] + PAD);
        v->csf_s123 (rr + PAD, t + PAD, l, r, w, s[0] + PAD, s[1] + PAD,
            s[2] + PAD, s[3] + PAD, s[4] + PAD, s[5] + PAD);
        outputs_check (&o, 6, what, l, r);
      }
    }
  g_rand_free (rnd);
}
END_TEST

START_TEST (test_cm_threshold)
{
  const VhAdmRows *v = version (_i);
  if (!v)
    return;
  GRand *rnd = g_rand_new_with_seed (4103);
  static int32_t in[4][ALLOC];
  static Outputs o;
  for (int mode = 0; mode < MODES; mode++) {
    /* any int32: the sums wrap */
    for (int a = 0; a < 4; a++)
      fill (rnd, in[a], mode, INT32_MIN, INT32_MAX, 1 << 20);
    fill (rnd, o.start[0], mode, INT32_MIN, INT32_MAX, 1 << 20);
    char what[64];
    g_snprintf (what, sizeof what, "%s mode %d", v->name, mode);
    FOR_RANGES (l, r) {
      outputs_reset (&o, 1, l, r);
      c_rows->cm_threshold (in[0] + PAD, in[1] + PAD, in[2] + PAD,
          in[3] + PAD, l, r, o.c[0] + PAD);
      v->cm_threshold (in[0] + PAD, in[1] + PAD, in[2] + PAD, in[3] + PAD, l,
          r, o.simd[0] + PAD);
      outputs_check (&o, 1, what, l, r);
    }
  }
  g_rand_free (rnd);
}
END_TEST

START_TEST (test_cm_row)
{
  const VhAdmRows *v = version (_i);
  if (!v)
    return;
  GRand *rnd = g_rand_new_with_seed (4104);
  static int32_t x[ALLOC], thr[ALLOC];
  /* (sub, sq_shift): scale 0's h/v and d bands, scales 1-3 */
  static const int shifts[][2] = { { 10, 29 }, { 12, 30 }, { 0, 30 } };
  /* cube shifts: at least log2 COLS where the cubes are large, so that
   * the row's int64 sum cannot overflow (as the plan sizes them) */
  static const int cubes[2][3] = { { 8, 12, 20 }, { 1, 4, 8 } };
  for (int mode = 0; mode < MODES; mode++) {
    for (unsigned sh = 0; sh < G_N_ELEMENTS (shifts); sh++) {
      /* any x but INT32_MIN (|x|), any threshold (wraps) */
      fill (rnd, x, mode, -INT32_MAX, INT32_MAX, 1 << 24);
      fill (rnd, thr, mode, INT32_MIN, INT32_MAX, 1 << 14);
      if (mode == 2)            /* a threshold from Σ |csf|/30 */
        for (int i = 0; i < ALLOC; i++)
          thr[i] = ABS (thr[i]);
      for (int cu = 0; cu < 3; cu++) {
        const int sub = shifts[sh][0], sq = shifts[sh][1];
        const int cube = cubes[mode == 2][cu];
        FOR_RANGES (l, r) {
          const int64_t want = c_rows->cm_row (x + PAD, thr + PAD, l, r, sub,
              sq, cube);
          const int64_t got = v->cm_row (x + PAD, thr + PAD, l, r, sub, sq,
              cube);
          if (got != want)
            ck_abort_msg ("%s mode %d, shifts %d/%d/%d, [%d, %d):"
              " %" G_GINT64_FORMAT ", C has %" G_GINT64_FORMAT, v->name, mode,
              sub, sq, cube, l, r, got, want);
        }
      }
    }
  }
  g_rand_free (rnd);
}
END_TEST

START_TEST (test_den)
{
  const VhAdmRows *v = version (_i);
  if (!v)
    return;
  GRand *rnd = g_rand_new_with_seed (4105);
  static int32_t o[ALLOC];
  /* (sq_shift, cube_shift): scales 1-3's and others; large cubes with
   * shifts of log2 COLS at least, as for cm_row */
  static const int shifts[2][4][2] = {
    { { 31, 8 }, { 30, 8 }, { 31, 12 }, { 30, 20 } },
    { { 31, 1 }, { 30, 1 }, { 30, 4 }, { 31, 8 } },
  };
  for (int mode = 0; mode < MODES; mode++) {
    /* any o but INT32_MIN (|o|); realistic: scale-0 bands within ±23000 */
    fill (rnd, o, mode, -INT32_MAX, INT32_MAX, 23000);
    FOR_RANGES (l, r) {
      const uint64_t want = c_rows->den_s0 (o + PAD, l, r);
      const uint64_t got = v->den_s0 (o + PAD, l, r);
      if (got != want)
        ck_abort_msg ("%s den_s0 mode %d, [%d, %d): %"
          G_GUINT64_FORMAT ", C has %" G_GUINT64_FORMAT, v->name, mode, l, r,
          got, want);
    }
    fill (rnd, o, mode, -INT32_MAX, INT32_MAX, 1 << 28);
    for (int sh = 0; sh < 4; sh++) {
      const int sq = shifts[mode == 2][sh][0], cube = shifts[mode == 2][sh][1];
      FOR_RANGES (l, r) {
        const uint64_t want = c_rows->den_s123 (o + PAD, l, r, sq, cube);
        const uint64_t got = v->den_s123 (o + PAD, l, r, sq, cube);
        if (got != want)
          ck_abort_msg ("%s den_s123 mode %d, shifts %d/%d, [%d, "
            "%d): %" G_GUINT64_FORMAT ", C has %" G_GUINT64_FORMAT, v->name,
            mode, sq, cube, l, r, got, want);
      }
    }
  }
  g_rand_free (rnd);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("adm-rows");
  TCase *tc = tcase_create ("x86");
  tcase_add_loop_test (tc, test_csf_s0, 0, 2);
  tcase_add_loop_test (tc, test_csf_s123, 0, 2);
  tcase_add_loop_test (tc, test_cm_threshold, 0, 2);
  tcase_add_loop_test (tc, test_cm_row, 0, 2);
  tcase_add_loop_test (tc, test_den, 0, 2);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
