/* The GPU backend's staging copy (common/gpu/device/stage-copy.c) against a
 * sample-by-sample reference: every alignment of source and destination,
 * widths around the 16- and 64-byte blocks of the streaming stores, padded
 * and contiguous rows, 8 and 16-bit samples, planar and interleaved (step
 * 2) chroma, row ranges.  Runs everywhere, no GPU. */
#include <check.h>
#include <glib.h>
#include <string.h>

#include "stage-copy.h"

START_TEST (test_stream_copy_every_alignment)
{
  guint8 src[1200], dst[1200];
  for (guint i = 0; i < sizeof src; i++)
    src[i] = (guint8) (i * 7 + 3);
  for (guint so = 0; so < 16; so++)
    for (guint d0 = 0; d0 < 16; d0++)
      for (gsize n = 0; n < 300; n += (n < 140 ? 1 : 37)) {
        memset (dst, 0xAA, sizeof dst);
        vh_stream_copy (dst + d0, src + so, n);
        ck_assert_msg (memcmp (dst + d0, src + so, n) == 0,
            "src +%u dst +%u n %zu", so, d0, n);
        guint8 guard[sizeof dst];
        memset (guard, 0xAA, sizeof guard);
        ck_assert_msg (memcmp (dst, guard, d0) == 0
            && memcmp (dst + d0 + n, guard, sizeof dst - d0 - n) == 0,
            "wrote outside: src +%u dst +%u n %zu", so, d0, n);
      }
}
END_TEST

START_TEST (test_stage_rows_layouts)
{
  static const unsigned widths[] = { 1, 7, 15, 16, 17, 63, 64, 65, 321, 1920 };
  for (guint wi = 0; wi < G_N_ELEMENTS (widths); wi++)
    for (unsigned bytes = 1; bytes <= 2; bytes++)
      for (unsigned step = 1; step <= 2; step++)
        for (unsigned pad = 0; pad <= 40; pad += 40)
          for (unsigned offset = 0; offset < 3; offset++) {
            const unsigned w = widths[wi], h = 9;
            const size_t row = (size_t) w * bytes;
            const ptrdiff_t stride = (ptrdiff_t) (row * step + pad);
            const size_t size = (size_t) stride * h + offset + 8;
            guint8 *buf = g_malloc (size);
            for (size_t i = 0; i < size; i++)
              buf[i] = (guint8) g_random_int ();
            /* 16-bit samples within 10 bits, but for the last one where
             * there is padding; what lies between samples stays random
             * (the OR must not see it) */
            unsigned want_bits = 0;
            if (bytes == 2)
              for (unsigned y = 0; y < h; y++)
                for (unsigned x = 0; x < w; x++) {
                  guint8 *hi = buf + offset + y * stride + (size_t) x * step
                      * 2 + 1;
                  *hi &= 0x03;
                  if (pad && x == w - 1 && y == h - 1)
                    *hi |= 0x04;
                  want_bits |= (unsigned) hi[-1] | (unsigned) *hi << 8;
                }
            const VhPlane plane = { buf + offset, stride, w, h, step };
            guint8 *got = g_malloc0 (row * h + 1);
            got[row * h] = 0x5A;
            /* in three parts, as the staging threads do */
            unsigned bits = vh_stage_rows (&plane, bytes, got, row, 0, 3);
            bits |= vh_stage_rows (&plane, bytes, got, row, 3, 4);
            bits |= vh_stage_rows (&plane, bytes, got, row, 4, h);
            bits |= vh_stage_rows (&plane, bytes, got, row, 5, 5); /* empty */
            ck_assert_msg (bits == want_bits, "width %u, %u bytes, step %u, "
                "pad %u, offset %u: OR %#x, want %#x", w, bytes, step, pad,
                offset, bits, want_bits);
            for (unsigned y = 0; y < h; y++)
              for (unsigned x = 0; x < w; x++)
                for (unsigned k = 0; k < bytes; k++) {
                  const guint8 want = buf[offset + y * stride
                      + (size_t) x * step * bytes + k];
                  if (got[y * row + x * bytes + k] != want)
                    ck_abort_msg ("width %u, %u bytes, step %u, pad %u, "
                        "offset %u: sample %u,%u", w, bytes, step, pad,
                        offset, x, y);
                }
            ck_assert_int_eq (got[row * h], 0x5A);
            g_free (got);
            g_free (buf);
          }
}
END_TEST

static Suite *
stage_copy_suite (void)
{
  Suite *s = suite_create ("stage-copy");
  TCase *tc = tcase_create ("general");
  tcase_add_test (tc, test_stream_copy_every_alignment);
  tcase_add_test (tc, test_stage_rows_layouts);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (stage_copy_suite ());
  srunner_run_all (sr, CK_NORMAL);
  const int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? 1 : 0;
}
