/* vmafhip — VIF's filter passes in every x86-64 version this CPU runs
 * (vif-filters.c: AVX-512 with and without VNNI, AVX2) against the sums
 * written out here one term at a time: 16-bit samples from 0 to 65535
 * (runs of the extremes included), every tap count up to 17, taps up to
 * 2^15 − 1, rows that are shifted views of one row (the horizontal pass)
 * or rows of their own (the vertical one; the one-row filter takes the
 * former), and the 8-bit vertical pass of
 * scale 0 with its rounding and halves, the 16-bit vertical pass with
 * every rounding VIF uses (and others), the subsample's 8-bit vertical
 * half; the statistics from the sums,
 * wrapping differences and the clamp included.  Skips loudly the versions
 * the CPU cannot run. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>

#include <glib.h>

#include "vif-filters.h"
#include "../../kernels/vif-params.h"

#define ROW 600                 /* samples per test row, ≥ 512 + 17 */

/* Version i of the kernels this CPU runs (vnni, avx512, avx2), or NULL,
 * said loudly */
static const VhVifFilters *
version (int i)
{
  const VhVifFilters *all[8];
  const unsigned n = vh_vif_filters_all (all, 8);
  if ((unsigned) i < n)
    return all[i];
  fprintf (stderr, "test-vif-filters: SKIPPED: version %d: this CPU runs "
      "%u of the x86-64 versions (AVX-512 with VNNI, AVX-512, AVX2)\n", i,
      n);
  return NULL;
}

static uint16_t
pick16 (GRand *r, int mode)
{
  switch (mode) {
    case 0:
      return (uint16_t) g_rand_int_range (r, 0, 65536);
    case 1:
      return g_rand_boolean (r) ? 65535 : 0;
    case 2:
      return 65535;
    default:
      return (uint16_t) g_rand_int_range (r, 32760, 32776);  /* the bias */
  }
}

static void
random_taps (GRand *r, uint16_t *taps, unsigned ntaps, int mode)
{
  for (unsigned k = 0; k < ntaps; k++)
    taps[k] = mode == 1 ? 32767 : (uint16_t) g_rand_int_range (r, 0, 32768);
}

/* _i: the version (version ()) */
START_TEST (test_filter16)
{
  const VhVifFilters *v = version (_i);
  if (!v)
    return;
  VhVifFilter16Func simd = v->filter16;
  VhVifHFilter16Func row_simd = v->hfilter16;
  GRand *r = g_rand_new_with_seed (1125);
  uint16_t *rows = g_new (uint16_t, 17 * ROW);
  uint32_t *out = g_new (uint32_t, 512);
  static const unsigned counts[] = { 1, 2, 3, 4, 5, 9, 16, 17 };
  static const unsigned lengths[] = { 32, 64, 512 };
  unsigned checked = 0;
  for (int mode = 0; mode < 4; mode++)
    for (unsigned c = 0; c < G_N_ELEMENTS (counts); c++)
      for (unsigned l = 0; l < G_N_ELEMENTS (lengths); l++)
        for (int shifted = 0; shifted <= 1; shifted++) {
          const unsigned ntaps = counts[c], n = lengths[l];
          uint16_t taps[17];
          random_taps (r, taps, ntaps, mode % 2);
          for (unsigned i = 0; i < 17 * ROW; i++)
            rows[i] = pick16 (r, mode);
          const uint16_t *x[17];
          for (unsigned k = 0; k < ntaps; k++)
            x[k] = shifted ? rows + k : rows + k * ROW;
          if (shifted) {
            /* the one-row filter reads samples stored biased */
            uint16_t *biased = g_new (uint16_t, ROW + 64);
            for (unsigned i = 0; i < ROW + 64; i++)
              biased[i] = rows[i] ^ 0x8000;
            row_simd (out, biased, taps, ntaps, n);
            g_free (biased);
          } else
            simd (out, x, taps, ntaps, n);
          for (unsigned j = 0; j < n; j++) {
            uint32_t want = 0;  /* modulo 2^32, as the C filter */
            for (unsigned k = 0; k < ntaps; k++)
              want += (uint32_t) taps[k] * x[k][j];
            ck_assert_msg (out[j] == want, "mode %d, %u taps, n %u, %s: "
                "column %u is %u, want %u", mode, ntaps, n,
                shifted ? "one row" : "rows", j, out[j], want);
            checked++;
          }
        }
  ck_assert_uint_gt (checked, 10000);
  g_free (rows);
  g_free (out);
  g_rand_free (r);
}
END_TEST

START_TEST (test_vertical8)
{
  const VhVifFilters *v = version (_i);
  if (!v)
    return;
  VhVifVertical8Func simd = v->vertical8;
  GRand *r = g_rand_new_with_seed (2511);
  uint8_t *ref = g_new (uint8_t, 17 * ROW), *dis = g_new (uint8_t, 17 * ROW);
  uint16_t *buf = g_new (uint16_t, 8 * 512);
  /* VIF's scale-0 taps (Σ = 65536, the largest sums) and random ones */
  const uint16_t vif0[17] = { VH_VIF_FILTER_S0 };
  static const unsigned counts[] = { 1, 3, 9, 17 };
  for (int mode = 0; mode < 3; mode++)
    for (unsigned c = 0; c < G_N_ELEMENTS (counts); c++) {
      const unsigned ntaps = counts[c], n = 512;
      uint16_t taps[17];
      if (ntaps == 17 && mode != 1)
        memcpy (taps, vif0, sizeof taps);
      else
        for (unsigned k = 0; k < ntaps; k++)   /* < 2^15, Σ f·255² < 2^32 */
          taps[k] = (uint16_t) g_rand_int_range (r, 0, MIN (32768,
                  65536 / ntaps));
      for (unsigned i = 0; i < 17 * ROW; i++) {
        ref[i] = mode == 2 ? 255 : (uint8_t) g_rand_int_range (r, 0, 256);
        dis[i] = mode == 2 ? (uint8_t) (i % 2 ? 255 : 0)
            : (uint8_t) g_rand_int_range (r, 0, 256);
      }
      const uint8_t *rr[17], *dd[17];
      for (unsigned k = 0; k < ntaps; k++) {
        rr[k] = ref + k * ROW;
        dd[k] = dis + k * ROW;
      }
      uint16_t *const out[8] = { buf, buf + 512, buf + 1024, buf + 1536,
        buf + 2048, buf + 2560, buf + 3072, buf + 3584 };
      simd (out, rr, dd, taps, ntaps, n);
      for (unsigned j = 0; j < n; j++) {
        uint32_t mu1 = 0, mu2 = 0, xx = 0, yy = 0, xy = 0;
        for (unsigned k = 0; k < ntaps; k++) {
          mu1 += (uint32_t) taps[k] * rr[k][j];
          mu2 += (uint32_t) taps[k] * dd[k][j];
          xx += (uint32_t) taps[k] * rr[k][j] * rr[k][j];
          yy += (uint32_t) taps[k] * dd[k][j] * dd[k][j];
          xy += (uint32_t) taps[k] * rr[k][j] * dd[k][j];
        }
        const uint16_t want[8] = { (mu1 + 128) >> 8, (mu2 + 128) >> 8,
          xx >> 16, xx & 0xffff, yy >> 16, yy & 0xffff, xy >> 16,
          xy & 0xffff };
        for (int a = 0; a < 8; a++)   /* stored biased */
          ck_assert_msg ((out[a][j] ^ 0x8000) == want[a], "mode %d, %u taps:"
              " column %u, array %d is %u (biased), want %u", mode, ntaps, j,
              a, out[a][j], want[a]);
      }
    }
  g_free (ref);
  g_free (dis);
  g_free (buf);
  g_rand_free (r);
}
END_TEST

START_TEST (test_vertical16)
{
  const VhVifFilters *v = version (_i);
  if (!v)
    return;
  VhVifVertical16Func simd = v->vertical16;
  VhVifSubsample8Func sub8 = v->subsample8;
  GRand *r = g_rand_new_with_seed (2611);
  uint16_t *ref = g_new (uint16_t, 17 * ROW), *dis = g_new (uint16_t,
      17 * ROW);
  uint8_t *bytes = g_new (uint8_t, 17 * ROW);
  uint16_t *buf = g_new (uint16_t, 8 * 512);
  /* (mu_shift, sq_shift) as VIF uses them: 10-, 12-, 16-bit scale 0, and
   * the later scales; and odd ones */
  static const unsigned shifts[][2] = { { 10, 4 }, { 12, 8 }, { 16, 16 },
    { 16, 16 }, { 1, 1 }, { 7, 13 } };
  static const unsigned counts[] = { 3, 5, 9, 17 };
  for (unsigned sh = 0; sh < G_N_ELEMENTS (shifts); sh++)
    for (unsigned c = 0; c < G_N_ELEMENTS (counts); c++)
      for (int mode = 0; mode < 3; mode++) {
        const unsigned ntaps = counts[c], n = 512;
        const unsigned ms = shifts[sh][0], ss = shifts[sh][1];
        /* Σ f ≤ 65536 keeps the true sums within 32 bits, as VIF's do */
        uint16_t taps[17];
        for (unsigned k = 0; k < ntaps; k++)
          taps[k] = (uint16_t) g_rand_int_range (r, 0, MIN (32768,
                  65536 / ntaps));
        for (unsigned i = 0; i < 17 * ROW; i++) {
          ref[i] = pick16 (r, mode);
          dis[i] = pick16 (r, mode == 2 ? 1 : mode);
          bytes[i] = (uint8_t) g_rand_int_range (r, 0, 256);
        }
        const uint16_t *rr[17], *dd[17];
        const uint8_t *bb[17];
        for (unsigned k = 0; k < ntaps; k++) {
          rr[k] = ref + k * ROW;
          dd[k] = dis + k * ROW;
          bb[k] = bytes + k * ROW;
        }
        uint16_t *const out[8] = { buf, buf + 512, buf + 1024, buf + 1536,
          buf + 2048, buf + 2560, buf + 3072, buf + 3584 };
        simd (out, rr, dd, taps, ntaps, ms, ss, n);
        for (unsigned j = 0; j < n; j++) {
          uint32_t mu1 = 0, mu2 = 0, hl[6] = { 0 };
          for (unsigned k = 0; k < ntaps; k++) {
            const uint32_t a = rr[k][j], b = dd[k][j];
            const uint32_t prod[3] = { a * a, b * b, a * b };
            mu1 += taps[k] * a;
            mu2 += taps[k] * b;
            for (int q = 0; q < 3; q++) {
              hl[2 * q] += taps[k] * (prod[q] >> 16);
              hl[2 * q + 1] += taps[k] * (prod[q] & 0xffff);
            }
          }
          uint16_t want[8] = { (uint16_t) ((mu1 + (1u << (ms - 1))) >> ms),
            (uint16_t) ((mu2 + (1u << (ms - 1))) >> ms) };
          for (int q = 0; q < 3; q++) {
            const uint32_t v = (hl[2 * q] << (16 - ss))
                + ((hl[2 * q + 1] + (1u << (ss - 1))) >> ss);
            want[2 + 2 * q] = v >> 16;
            want[3 + 2 * q] = v & 0xffff;
          }
          for (int a = 0; a < 8; a++)   /* stored biased */
            ck_assert_msg ((out[a][j] ^ 0x8000) == want[a], "shifts %u/%u, %u taps, "
                "mode %d: column %u, array %d is %u, want %u", ms, ss, ntaps,
                mode, j, a, out[a][j], want[a]);
        }
        /* the subsample's vertical half of 8-bit rows */
        sub8 (buf, bb, taps, ntaps, ms, n);
        for (unsigned j = 0; j < n; j++) {
          uint32_t sum = 0;
          for (unsigned k = 0; k < ntaps; k++)
            sum += taps[k] * bb[k][j];
          ck_assert_uint_eq (buf[j], (uint16_t) ((sum + (1u << (ms - 1)))
                  >> ms));
        }
      }
  g_free (ref);
  g_free (dis);
  g_free (bytes);
  g_free (buf);
  g_rand_free (r);
}
END_TEST

START_TEST (test_sigmas)
{
  const VhVifFilters *v = version (_i);
  if (!v)
    return;
  VhVifSigmasFunc simd = v->sigmas;
  GRand *r = g_rand_new_with_seed (1511);
  enum { N = 512 };
  uint32_t *acc[8];
  for (int a = 0; a < 8; a++)
    acc[a] = g_new (uint32_t, N);
  int32_t s1[N], s2[N], s12[N];
  for (int mode = 0; mode < 3; mode++) {
    for (unsigned j = 0; j < N; j++)
      for (int a = 0; a < 8; a++)
        acc[a][j] = mode == 0 ? g_rand_int (r) : mode == 1 ? 0xffffffffu
            : (uint32_t) g_rand_int_range (r, 0, 1 << 24);
    simd ((const uint32_t *const *) acc, s1, s2, s12, N);
    for (unsigned j = 0; j < N; j++) {
      const uint32_t mu1_sq = ((uint64_t) acc[0][j] * acc[0][j]
          + 0x80000000u) >> 32;
      const uint32_t mu2_sq = ((uint64_t) acc[1][j] * acc[1][j]
          + 0x80000000u) >> 32;
      const uint32_t mu12 = ((uint64_t) acc[0][j] * acc[1][j]
          + 0x80000000u) >> 32;
      const uint32_t xx = acc[2][j] + ((acc[3][j] + 32768) >> 16);
      const uint32_t yy = acc[4][j] + ((acc[5][j] + 32768) >> 16);
      const uint32_t xy = acc[6][j] + ((acc[7][j] + 32768) >> 16);
      const int32_t want2 = (int32_t) (yy - mu2_sq);
      ck_assert_int_eq (s1[j], (int32_t) (xx - mu1_sq));
      ck_assert_int_eq (s2[j], want2 < 0 ? 0 : want2);
      ck_assert_int_eq (s12[j], (int32_t) (xy - mu12));
    }
  }
  for (int a = 0; a < 8; a++)
    g_free (acc[a]);
  g_rand_free (r);
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("vif-filters");
  TCase *tc = tcase_create ("x86");
  tcase_add_loop_test (tc, test_filter16, 0, 3);
  tcase_add_loop_test (tc, test_vertical8, 0, 3);
  tcase_add_loop_test (tc, test_vertical16, 0, 3);
  tcase_add_loop_test (tc, test_sigmas, 0, 3);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
