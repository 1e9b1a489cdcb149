/* vmafhip — motion's SAD and PSNR's planar SSE in every hand-written
 * version this CPU runs (motion-simd.c, psnr-simd.c: x86-64 AVX-512 and
 * AVX2, or aarch64 NEON) against the plain C, on random planes of 8, 10
 * and 12 bits: every width from 1 (PSNR) or 3 (motion) to 70 and a few
 * large ones, heights from 1 or 3 (where motion's reflection folds rows
 * back) up, random strides with padding, negative strides, extreme
 * samples (0 and the maximum), small differences (the roundings), rows
 * whose vertical pass is zero, and rows wide enough that their uint32
 * sums wrap.  Skips loudly the versions the CPU cannot run. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "motion-simd.h"
#include "psnr-simd.h"
#include "vh-test-config.h"

#define MAX_VERSIONS 4

/* how the samples are drawn */
enum {
  MODE_RANDOM,          /* uniform over the depth */
  MODE_EXTREMES,        /* 0 or the maximum */
  MODE_OPPOSITE,        /* one picture all maximum, the other all 0 */
  MODE_NEAR,            /* the second picture within ±2 of the first */
  MODE_BANDS,           /* equal pictures but for a few rows */
  N_MODES
};

/* A pair of planes of one size with strides of their own. */
typedef struct {
  VhPlane a, b;
  void *buf_a, *buf_b;
} PlanePair;

/* one sample's value for mode `mode` (b: of the second picture, given
 * the first's a) */
static unsigned
pick (GRand *r, int mode, unsigned max, gboolean second, unsigned a,
    unsigned row)
{
  switch (mode) {
    case MODE_RANDOM:
      return (unsigned) g_rand_int_range (r, 0, max + 1);
    case MODE_EXTREMES:
      return g_rand_boolean (r) ? max : 0;
    case MODE_OPPOSITE:
      return second ? 0 : max;
    case MODE_NEAR:{
      if (!second)
        return (unsigned) g_rand_int_range (r, 0, max + 1);
      const int v = (int) a + g_rand_int_range (r, -2, 3);
      return (unsigned) CLAMP (v, 0, (int) max);
    }
    default:
      if (!second)
        return (unsigned) g_rand_int_range (r, 0, max + 1);
      return row % 7 == 3 ? (unsigned) g_rand_int_range (r, 0, max + 1) : a;
  }
}

/* a random plane pair; stride padding up to 40 samples, and a negative
 * stride (bottom-up rows) one time in four */
static void
plane_pair_init (PlanePair *pp, GRand *r, unsigned width, unsigned height,
    unsigned bpc, int mode)
{
  const size_t bytes = bpc > 8 ? 2 : 1;
  const unsigned max = (1u << bpc) - 1;
  VhPlane *planes[2] = { &pp->a, &pp->b };
  void **bufs[2] = { &pp->buf_a, &pp->buf_b };
  for (int i = 0; i < 2; i++) {
    const size_t stride = (width + g_rand_int_range (r, 0, 41)) * bytes;
    uint8_t *buf = g_malloc (stride * height);
    memset (buf, 0xa5, stride * height);      /* padding: garbage */
    const gboolean flip = g_rand_int_range (r, 0, 4) == 0;
    *bufs[i] = buf;
    planes[i]->data = flip ? buf + stride * (height - 1) : buf;
    planes[i]->stride = flip ? -(ptrdiff_t) stride : (ptrdiff_t) stride;
    planes[i]->width = width;
    planes[i]->height = height;
    planes[i]->step = 1;
  }
  for (unsigned y = 0; y < height; y++) {
    uint8_t *ra = (uint8_t *) pp->a.data + (ptrdiff_t) y * pp->a.stride;
    uint8_t *rb = (uint8_t *) pp->b.data + (ptrdiff_t) y * pp->b.stride;
    for (unsigned x = 0; x < width; x++) {
      const unsigned va = pick (r, mode, max, FALSE, 0, y);
      const unsigned vb = pick (r, mode, max, TRUE, va, y);
      if (bytes == 2) {
        ((uint16_t *) ra)[x] = (uint16_t) va;
        ((uint16_t *) rb)[x] = (uint16_t) vb;
      } else {
        ra[x] = (uint8_t) va;
        rb[x] = (uint8_t) vb;
      }
    }
  }
}

static void
plane_pair_clear (PlanePair *pp)
{
  g_free (pp->buf_a);
  g_free (pp->buf_b);
}

static const unsigned large_widths[] = { 127, 128, 129, 255, 1000, 1921 };
static const unsigned heights[] = { 1, 2, 3, 4, 5, 6, 7, 11 };
static const unsigned depths[] = { 8, 10, 12 };

/* version i of motion's SAD this CPU runs, or NULL, said loudly */
static const VhMotionSadVersion *
motion_version (int i)
{
  const VhMotionSadVersion *all[MAX_VERSIONS];
  const unsigned n = vh_motion_sad_all (all, MAX_VERSIONS);
  if ((unsigned) i < n)
    return all[i];
  fprintf (stderr, "test-motion-psnr-simd: SKIPPED: motion version %d: "
      "this CPU runs %u hand-written versions\n", i, n);
  return NULL;
}

static const VhPsnrSseVersion *
psnr_version (int i)
{
  const VhPsnrSseVersion *all[MAX_VERSIONS];
  const unsigned n = vh_psnr_sse_all (all, MAX_VERSIONS);
  if ((unsigned) i < n)
    return all[i];
  fprintf (stderr, "test-motion-psnr-simd: SKIPPED: PSNR version %d: this "
      "CPU runs %u hand-written versions\n", i, n);
  return NULL;
}

static void
check_motion (const VhMotionSadVersion *v, GRand *r, unsigned width,
    unsigned height, unsigned bpc, int mode)
{
  PlanePair pp;
  plane_pair_init (&pp, r, width, height, bpc, mode);
  void *scratch = g_malloc0 (VH_MOTION_SAD_SCRATCH_BYTES (width));
  const uint64_t want = vh_motion_sad_c (&pp.a, &pp.b, bpc, scratch);
  /* the scratch as another caller may leave it */
  memset (scratch, 0x5a, VH_MOTION_SAD_SCRATCH_BYTES (width));
  const uint64_t got = v->sad (&pp.a, &pp.b, bpc, scratch);
  ck_assert_msg (got == want, "motion %s: %ux%u, %u bits, mode %d: SAD %"
      G_GUINT64_FORMAT ", the C %" G_GUINT64_FORMAT, v->name, width, height,
      bpc, mode, got, want);
  g_free (scratch);
  plane_pair_clear (&pp);
}

static void
check_psnr (const VhPsnrSseVersion *v, GRand *r, unsigned width,
    unsigned height, unsigned bpc, int mode)
{
  PlanePair pp;
  plane_pair_init (&pp, r, width, height, bpc, mode);
  const uint64_t want = vh_psnr_sse_planar_c (&pp.a, &pp.b, bpc);
  const uint64_t got = v->sse (&pp.a, &pp.b, bpc);
  ck_assert_msg (got == want, "psnr %s: %ux%u, %u bits, mode %d: SSE %"
      G_GUINT64_FORMAT ", the C %" G_GUINT64_FORMAT, v->name, width, height,
      bpc, mode, got, want);
  plane_pair_clear (&pp);
}

/* _i: the version */
START_TEST (test_motion_sad)
{
  const VhMotionSadVersion *v = motion_version (_i);
  if (!v)
    return;
  GRand *r = g_rand_new_with_seed (7001 + _i);
  for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++)
    for (int mode = 0; mode < N_MODES; mode++) {
      for (unsigned w = 3; w <= 70; w++)
        for (unsigned h = 0; h < G_N_ELEMENTS (heights); h++)
          if (heights[h] >= 3)
            check_motion (v, r, w, heights[h], depths[d], mode);
      for (unsigned w = 0; w < G_N_ELEMENTS (large_widths); w++)
        for (unsigned h = 3; h <= 6; h++)
          check_motion (v, r, large_widths[w], h, depths[d], mode);
      check_motion (v, r, 67, 40, depths[d], mode);
    }
  g_rand_free (r);
}
END_TEST

/* rows whose Σ|·| passes 2^32 (uint32 row sums wrap, as libvmaf's) */
START_TEST (test_motion_sad_wrapping_rows)
{
  const VhMotionSadVersion *v = motion_version (_i);
  if (!v)
    return;
  GRand *r = g_rand_new_with_seed (7101);
  for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++)
    check_motion (v, r, 70001, 3, depths[d], MODE_OPPOSITE);
  g_rand_free (r);
}
END_TEST

START_TEST (test_psnr_sse)
{
  const VhPsnrSseVersion *v = psnr_version (_i);
  if (!v)
    return;
  GRand *r = g_rand_new_with_seed (8001 + _i);
  for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++)
    for (int mode = 0; mode < N_MODES; mode++) {
      for (unsigned w = 1; w <= 70; w++)
        for (unsigned h = 0; h < G_N_ELEMENTS (heights); h++)
          check_psnr (v, r, w, heights[h], depths[d], mode);
      for (unsigned w = 0; w < G_N_ELEMENTS (large_widths); w++)
        for (unsigned h = 1; h <= 3; h++)
          check_psnr (v, r, large_widths[w], h, depths[d], mode);
    }
  g_rand_free (r);
}
END_TEST

START_TEST (test_psnr_sse_wrapping_rows)
{
  const VhPsnrSseVersion *v = psnr_version (_i);
  if (!v)
    return;
  GRand *r = g_rand_new_with_seed (8101);
  for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++)
    check_psnr (v, r, 70001, 2, depths[d], MODE_OPPOSITE);
  g_rand_free (r);
}
END_TEST

/* VMAFHIP_CPU_SIMD=0 selects the plain C, =avx2 at most AVX2, unset the
 * best version */
START_TEST (test_selection)
{
  const VhMotionSadVersion *motion[MAX_VERSIONS];
  const VhPsnrSseVersion *psnr[MAX_VERSIONS];
  const unsigned n_motion = vh_motion_sad_all (motion, MAX_VERSIONS);
  const unsigned n_psnr = vh_psnr_sse_all (psnr, MAX_VERSIONS);

  vh_test_set_simd_env ("0");
  ck_assert (vh_motion_sad_best () == vh_motion_sad_c);
  ck_assert (vh_psnr_sse_best () == vh_psnr_sse_planar_c);
  vh_test_set_simd_env ("avx2");
  for (unsigned i = 0; i < n_motion; i++)
    if (!strcmp (motion[i]->name, "avx2"))
      ck_assert (vh_motion_sad_best () == motion[i]->sad);
  for (unsigned i = 0; i < n_psnr; i++)
    if (!strcmp (psnr[i]->name, "avx2"))
      ck_assert (vh_psnr_sse_best () == psnr[i]->sse);
  vh_test_set_simd_env (NULL);
  ck_assert (vh_motion_sad_best () == (n_motion ? motion[0]->sad
          : vh_motion_sad_c));
  ck_assert (vh_psnr_sse_best () == (n_psnr ? psnr[0]->sse
          : vh_psnr_sse_planar_c));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("motion-psnr-simd");
  TCase *tc = tcase_create ("versions");
  tcase_add_loop_test (tc, test_motion_sad, 0, 2);
  tcase_add_loop_test (tc, test_motion_sad_wrapping_rows, 0, 2);
  tcase_add_loop_test (tc, test_psnr_sse, 0, 2);
  tcase_add_loop_test (tc, test_psnr_sse_wrapping_rows, 0, 2);
  tcase_add_test (tc, test_selection);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
