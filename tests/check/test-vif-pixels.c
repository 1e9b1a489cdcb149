/* vmafhip — VIF's per-pixel statistic: the AVX-512 and AVX2 versions against the
 * plain C one (libvmaf's order of operations) on every branch: σ₁² below
 * and above σ_n², σ₁₂ and σ₂² zero, negative and positive, sv² clamped,
 * the gain limit reached or not, run lengths that are not multiples of 8.
 * Skips loudly the versions the CPU has not. */
#include <check.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>

#include <glib.h>

#include "vif.h"
#include "vif-pixels.h"
#include "vh-test-config.h"

#define N 4099

static int32_t
pick (GRand *r, int kind)
{
  switch (kind) {
    case 0:                     /* around σ_n² */
      return g_rand_int_range (r, VH_VIF_SIGMA_NSQ - 4000,
          VH_VIF_SIGMA_NSQ + 4000);
    case 1:                     /* small, either sign */
      return g_rand_int_range (r, -70000, 70000);
    case 2:                     /* the range of real statistics */
      return g_rand_int_range (r, 0, 1 << 30);
    default:
      return kind - 3;          /* 0 */
  }
}

static void
fill (GRand *r, int32_t *s1, int32_t *s2, int32_t *s12, unsigned n)
{
  for (unsigned j = 0; j < n; j++) {
    s1[j] = pick (r, g_rand_int_range (r, 0, 4));
    s2[j] = ABS (pick (r, g_rand_int_range (r, 0, 4)));
    /* σ₁₂ often near √(σ₁²σ₂²): g near 1, sv² near 0, either side */
    if (g_rand_boolean (r) && s1[j] > 0 && s2[j] > 0)
      s12[j] = (int32_t) (sqrt ((double) s1[j] * s2[j])
          * g_rand_double_range (r, 0.9, 1.1));
    else
      s12[j] = pick (r, g_rand_int_range (r, 0, 4));
  }
}

/* _i: 0 AVX-512, 1 AVX2 */
START_TEST (test_simd_equals_c)
{
  static const char *const names[] = { "AVX-512", "AVX2" };
  VhVifPixelsFunc simd = _i ? vh_vif_pixels_avx2 ()
      : vh_vif_pixels_avx512 ();
  if (!simd) {
    fprintf (stderr, "test-vif-pixels: SKIPPED: this CPU has no %s; that "
        "version of the statistic does not run here\n", names[_i]);
    return;
  }
  const uint16_t *log2 = vh_vif_log2_table ();
  static const double limits[] = { 100.0, 1.0, 1.5 };
  GRand *r = g_rand_new_with_seed (20261125);
  int32_t *s1 = g_new (int32_t, N), *s2 = g_new (int32_t, N);
  int32_t *s12 = g_new (int32_t, N);
  unsigned branches[3] = { 0 };

  for (int round = 0; round < 40; round++) {
    fill (r, s1, s2, s12, N);
    for (unsigned j = 0; j < N; j++)
      branches[s1[j] < VH_VIF_SIGMA_NSQ ? 0 : s12[j] > 0 && s2[j] > 0 ? 2
          : 1]++;
    for (unsigned l = 0; l < G_N_ELEMENTS (limits); l++) {
      /* every run length 1..40, then the whole array */
      for (unsigned n = 1; n <= 41; n++) {
        const unsigned len = n == 41 ? N : n;
        VhVifScaleSums a = { 1, 2, 3, 4 }, b = { 1, 2, 3, 4 };
        vh_vif_pixels_scalar (s1, s2, s12, len, limits[l], log2, &a);
        simd (s1, s2, s12, len, limits[l], log2, &b);
        ck_assert_msg (a.num_log == b.num_log && a.den_log == b.den_log
            && a.num_non_log == b.num_non_log
            && a.den_non_log == b.den_non_log,
            "round %d, limit %g, %u pixels: C %lld %lld %lld %lld, %s "
            "%lld %lld %lld %lld", round, limits[l], len,
            (long long) a.num_log, (long long) a.den_log,
            (long long) a.num_non_log, (long long) a.den_non_log, names[_i],
            (long long) b.num_log, (long long) b.den_log,
            (long long) b.num_non_log, (long long) b.den_non_log);
      }
    }
  }
  /* every branch was taken, many times */
  for (int k = 0; k < 3; k++)
    ck_assert_uint_gt (branches[k], 1000);
  g_free (s1);
  g_free (s2);
  g_free (s12);
  g_rand_free (r);
}
END_TEST

/* VMAFHIP_CPU_SIMD=0 selects the plain C version. */
START_TEST (test_env_selects_c)
{
  vh_test_set_simd_env ("0");
  ck_assert (vh_vif_pixels_best () == vh_vif_pixels_scalar);
  vh_test_set_simd_env (NULL);
  VhVifPixelsFunc simd = vh_vif_pixels_avx512 ();
  if (!simd)
    simd = vh_vif_pixels_avx2 ();
  ck_assert (vh_vif_pixels_best () == (simd ? simd : vh_vif_pixels_scalar));
  /* =avx2 takes AVX2 where it runs */
  vh_test_set_simd_env ("avx2");
  if (vh_vif_pixels_avx2 ())
    ck_assert (vh_vif_pixels_best () == vh_vif_pixels_avx2 ());
  vh_test_set_simd_env (NULL);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("vmafhip-vif-pixels");
  TCase *tc = tcase_create ("pixels");
  tcase_add_loop_test (tc, test_simd_equals_c, 0, 2);
  tcase_add_test (tc, test_env_selects_c);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  const int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
