/* vmafhip — ADM's decouple angle test: the AVX-512 version against the
 * plain C (libvmaf's arithmetic) on vectors near 1 degree apart (both
 * sides of the threshold), opposite and orthogonal ones, zero vectors, the
 * largest magnitudes, and runs that do not fill a vector.  Skips loudly
 * where the CPU has no AVX-512. */
#include <check.h>
#include <math.h>
#include <stdio.h>

#include <glib.h>

#include "adm-angle.h"

#define N 4099

START_TEST (test_avx512_equals_c)
{
  VhAdmAngleFunc simd = vh_adm_angle_flags_best ();
  if (simd == vh_adm_angle_flags_c) {
    fprintf (stderr, "test-adm-angle: SKIPPED: no AVX-512 here (or "
        "VMAFHIP_CPU_SIMD=0): only the plain C runs\n");
    return;
  }
  const float cos_sq = (float) (cos (M_PI / 180.0) * cos (M_PI / 180.0));
  GRand *r = g_rand_new_with_seed (251125);
  int32_t *v[4];
  for (int k = 0; k < 4; k++)
    v[k] = g_new (int32_t, N);
  uint8_t *want = g_new (uint8_t, N), *got = g_new (uint8_t, N);
  int near = 0, within = 0;
  for (int round = 0; round < 40; round++) {
    for (int j = 0; j < N; j++) {
      const int kind = g_rand_int_range (r, 0, 5);
      const double mag = kind == 4 ? 2147483647.0 / 1.5
          : g_rand_double_range (r, 0, 70000);
      const double a = g_rand_double_range (r, -M_PI, M_PI);
      /* the distorted vector at an angle around 1 degree, or anywhere */
      const double da = kind == 0 ? 0 : kind == 1
          ? g_rand_double_range (r, 0.95, 1.05) * M_PI / 180.0
          * (g_rand_boolean (r) ? 1 : -1) : kind == 2 ? M_PI
          : g_rand_double_range (r, -M_PI, M_PI);
      const double dm = kind == 4 ? mag : g_rand_double_range (r, 0, 70000);
      v[0][j] = (int32_t) (mag * cos (a));
      v[1][j] = (int32_t) (mag * sin (a));
      v[2][j] = kind == 3 ? 0 : (int32_t) (dm * cos (a + da));
      v[3][j] = kind == 3 ? 0 : (int32_t) (dm * sin (a + da));
      near += kind == 1;
    }
    const int l = g_rand_int_range (r, 0, 9), rr = N - g_rand_int_range (r,
        0, 9);
    memset (want, 7, N);
    memset (got, 7, N);
    vh_adm_angle_flags_c (v[0], v[1], v[2], v[3], l, rr, cos_sq, want);
    simd (v[0], v[1], v[2], v[3], l, rr, cos_sq, got);
    for (int j = 0; j < N; j++) {
      ck_assert_msg (got[j] == want[j], "column %d (run %d..%d): %u, want "
          "%u for (%d, %d) (%d, %d)", j, l, rr, got[j], want[j], v[0][j],
          v[1][j], v[2][j], v[3][j]);
      within += j >= l && j < rr && want[j] == 1;
    }
  }
  /* the data reached both outcomes */
  ck_assert_int_gt (within, 1000);
  ck_assert_int_gt (near, 1000);
  for (int k = 0; k < 4; k++)
    g_free (v[k]);
  g_free (want);
  g_free (got);
  g_rand_free (r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("adm-angle");
  TCase *tc = tcase_create ("avx512");
  tcase_add_test (tc, test_avx512_equals_c);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
