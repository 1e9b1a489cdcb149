/* vmafhip — VIF with the reference's share on the CPU (vif.h,
 * vh_vif_compute_reference / vh_vif_compute_sums_shared) against the pair
 * computed whole: the same integers for two distorted pictures against
 * one share, at 8, 10 and 12 bits, odd and tiny sizes, with and without
 * scale 0, in row bands, through every x86-64 version of the filters and
 * the plain C.  A share of another reference must change the sums (the
 * share is read), and one of another size or depth is refused. */
#include <check.h>
#include <string.h>

#include <glib.h>

#include "vif.h"

typedef struct {
  unsigned w, h, bpc;
  uint16_t *ref, *dis[2];       /* 16-bit words; 8-bit copies below */
  uint8_t *ref8, *dis8[2];
} Content;

/* A smooth gradient with texture (the reference) and two distortions of
 * it: noise of two strengths, one also blurred horizontally. */
static void
content_init (Content *c, unsigned w, unsigned h, unsigned bpc, guint32 seed)
{
  GRand *r = g_rand_new_with_seed (seed);
  const unsigned max = (1u << bpc) - 1;
  const size_t n = (size_t) w * h;
  memset (c, 0, sizeof *c);
  c->w = w;
  c->h = h;
  c->bpc = bpc;
  c->ref = g_new (uint16_t, n);
  for (int k = 0; k < 2; k++)
    c->dis[k] = g_new (uint16_t, n);
  for (unsigned y = 0; y < h; y++)
    for (unsigned x = 0; x < w; x++) {
      const double v = (0.5 + 0.3 * ((x * 7 + y * 3) % 97) / 97.0
          + 0.15 * (((x / 5) + (y / 7)) % 2)) * max;
      const int noise = g_rand_int_range (r, -(int) max / 32,
          (int) max / 32 + 1);
      c->ref[y * w + x] = (uint16_t) CLAMP ((int) v + noise, 0, (int) max);
    }
  for (unsigned y = 0; y < h; y++)
    for (unsigned x = 0; x < w; x++) {
      const size_t i = (size_t) y * w + x;
      const int strong = g_rand_int_range (r, -(int) max / 8,
          (int) max / 8 + 1);
      const int weak = g_rand_int_range (r, -(int) max / 64,
          (int) max / 64 + 1);
      const int blurred = x + 1 < w ? (c->ref[i] + c->ref[i + 1]) / 2
          : c->ref[i];
      c->dis[0][i] = (uint16_t) CLAMP ((int) c->ref[i] + strong, 0,
          (int) max);
      c->dis[1][i] = (uint16_t) CLAMP (blurred + weak, 0, (int) max);
    }
  if (bpc == 8) {
    c->ref8 = g_new (uint8_t, n);
    for (int k = 0; k < 2; k++)
      c->dis8[k] = g_new (uint8_t, n);
    for (size_t i = 0; i < n; i++) {
      c->ref8[i] = (uint8_t) c->ref[i];
      for (int k = 0; k < 2; k++)
        c->dis8[k][i] = (uint8_t) c->dis[k][i];
    }
  }
  g_rand_free (r);
}

static void
content_clear (Content *c)
{
  g_free (c->ref);
  g_free (c->ref8);
  for (int k = 0; k < 2; k++) {
    g_free (c->dis[k]);
    g_free (c->dis8[k]);
  }
}

static VhPlane
plane (const Content *c, const uint16_t *p16, const uint8_t *p8)
{
  const gboolean wide = c->bpc > 8;
  return (VhPlane) { wide ? (const void *) p16 : (const void *) p8,
    (ptrdiff_t) c->w * (wide ? 2 : 1), c->w, c->h, 1 };
}

/* Every distorted picture's sums against one share equal the pair's, for
 * the kernels VMAFHIP_CPU_SIMD selects now; returns the cases checked. */
static unsigned
check_content (const Content *c, unsigned threads)
{
  unsigned checked = 0;
  VhVifWork *ref_work = vh_vif_work_new (c->w, c->h);
  VhVifWork *work = vh_vif_work_new (c->w, c->h);
  VhVifReference *share = vh_vif_reference_new (c->w, c->h);
  ck_assert (ref_work && work && share);
  ck_assert (!vh_vif_reference_fits (work, share, c->bpc));  /* empty */
  ck_assert (vh_vif_work_set_threads (ref_work, threads, NULL));
  ck_assert (vh_vif_work_set_threads (work, threads, NULL));

  const VhPlane ref = plane (c, c->ref, c->ref8);
  vh_vif_compute_reference (ref_work, share, &ref, c->bpc);
  ck_assert (vh_vif_reference_fits (work, share, c->bpc));
  ck_assert (!vh_vif_reference_fits (work, share, c->bpc == 8 ? 10 : 8));

  for (int k = 0; k < 2; k++) {
    const VhPlane dis = plane (c, c->dis[k], c->dis8[k]);
    for (unsigned first = 0; first <= 1; first++) {
      VhVifSums pair, shared;
      memset (&shared, 0x5a, sizeof shared);
      vh_vif_compute_sums_from (work, &ref, &dis, c->bpc, 100.0, first,
          &pair);
      vh_vif_compute_sums_shared (work, share, &ref, &dis, c->bpc, 100.0,
          first, &shared);
      for (unsigned s = 0; s < VH_VIF_SCALES; s++) {
        ck_assert_msg (!memcmp (&pair.scale[s], &shared.scale[s],
                sizeof pair.scale[s]), "%ux%u %u-bit distortion %d, "
            "first scale %u, %u threads: scale %u differs (num_log %"
            G_GINT64_FORMAT " against %" G_GINT64_FORMAT ")", c->w, c->h,
            c->bpc, k, first, threads, s, shared.scale[s].num_log,
            pair.scale[s].num_log);
        /* the content reaches both branches of the statistic */
        if (s >= first)
          ck_assert (pair.scale[s].den_log != 0);
      }
      checked++;
    }
  }
  vh_vif_reference_free (share);
  vh_vif_work_free (work);
  vh_vif_work_free (ref_work);
  return checked;
}

static const char *const simd_settings[] = { NULL, "avx2", "0" };

/* _i: the kernels (best, AVX2 at most, plain C) */
START_TEST (test_share_equals_pair)
{
  static const unsigned sizes[][2] = {
    { 16, 16 }, { 64, 48 }, { 97, 75 }, { 333, 170 }, { 1280, 720 },
  };
  static const unsigned depths[] = { 8, 10, 12 };
  unsigned checked = 0;

  if (simd_settings[_i])
    g_setenv ("VMAFHIP_CPU_SIMD", simd_settings[_i], TRUE);
  else
    g_unsetenv ("VMAFHIP_CPU_SIMD");
  for (unsigned z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++) {
      Content c;
      content_init (&c, sizes[z][0], sizes[z][1], depths[d], 17 + z * 3 + d);
      checked += check_content (&c, 1);
      /* row bands: each band writes its rows of the share */
      if (sizes[z][1] >= 170)
        checked += check_content (&c, 4);
      content_clear (&c);
    }
  g_unsetenv ("VMAFHIP_CPU_SIMD");
  ck_assert_uint_eq (checked, 2 * 2 * 3 * (5 + 2));
}
END_TEST

/* The share is read: one of another reference gives other sums */
START_TEST (test_share_of_another_reference_differs)
{
  Content a, b;
  content_init (&a, 320, 180, 8, 5);
  content_init (&b, 320, 180, 8, 6);
  VhVifWork *work = vh_vif_work_new (a.w, a.h);
  VhVifReference *share = vh_vif_reference_new (a.w, a.h);
  const VhPlane ref_a = plane (&a, a.ref, a.ref8);
  const VhPlane ref_b = plane (&b, b.ref, b.ref8);
  const VhPlane dis = plane (&a, a.dis[0], a.dis8[0]);
  VhVifSums pair, shared;

  vh_vif_compute_reference (work, share, &ref_b, 8);
  vh_vif_compute_sums (work, &ref_a, &dis, 8, 100.0, &pair);
  vh_vif_compute_sums_shared (work, share, &ref_a, &dis, 8, 100.0, 0,
      &shared);
  for (unsigned s = 0; s < VH_VIF_SCALES; s++)
    ck_assert (memcmp (&pair.scale[s], &shared.scale[s],
            sizeof pair.scale[s]) != 0);
  vh_vif_reference_free (share);
  vh_vif_work_free (work);
  content_clear (&a);
  content_clear (&b);
}
END_TEST

/* Sizes VIF refuses have no share; one of another size does not fit */
START_TEST (test_share_sizes)
{
  ck_assert (vh_vif_reference_new (15, 64) == NULL);
  ck_assert (vh_vif_reference_new (64, 15) == NULL);
  ck_assert (vh_vif_reference_new (VH_VIF_MAX_SIZE + 1, 64) == NULL);

  Content c;
  content_init (&c, 64, 64, 8, 9);
  VhVifWork *work = vh_vif_work_new (64, 64);
  VhVifWork *other = vh_vif_work_new (64, 48);
  VhVifReference *share = vh_vif_reference_new (64, 64);
  const VhPlane ref = plane (&c, c.ref, c.ref8);
  vh_vif_compute_reference (work, share, &ref, 8);
  ck_assert (vh_vif_reference_fits (work, share, 8));
  ck_assert (!vh_vif_reference_fits (other, share, 8));
  ck_assert (!vh_vif_reference_fits (work, NULL, 8));
  vh_vif_reference_free (share);
  vh_vif_work_free (other);
  vh_vif_work_free (work);
  content_clear (&c);
}
END_TEST

static Suite *
vif_share_suite (void)
{
  Suite *s = suite_create ("vif-share");
  TCase *tc = tcase_create ("share");
  tcase_set_timeout (tc, 600);
  tcase_add_loop_test (tc, test_share_equals_pair, 0,
      G_N_ELEMENTS (simd_settings));
  tcase_add_test (tc, test_share_of_another_reference_differs);
  tcase_add_test (tc, test_share_sizes);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (vif_share_suite ());
  srunner_run_all (sr, CK_NORMAL);
  const int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
