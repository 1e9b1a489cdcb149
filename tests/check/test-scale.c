/* vmafhip — the plane scaler (common/core/scale.c): identity, constants,
 * coefficient rows, a bilinear ramp, clipping, the two passes against a
 * double-precision sum of the same coefficients, bad arguments, and the
 * output against FFmpeg's `scale` filter when ffmpeg is on PATH (loudly
 * skipped otherwise). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "scale.h"
#include "vh-error.h"
#include "vh-test-util.h"

static const VhScaleFilter all_filters[] = {
  VH_SCALE_BILINEAR, VH_SCALE_BICUBIC, VH_SCALE_LANCZOS,
};

/* A plane of w x h samples of bpc bits with `pad` spare samples a row (so
 * that the stride is not the width). */
typedef struct TestPlane {
  VhPlane plane;
  void *buf;
  unsigned bpc;
} TestPlane;

static void
test_plane_init (TestPlane *t, unsigned w, unsigned h, unsigned bpc,
    unsigned pad)
{
  const size_t bytes = bpc == 8 ? 1 : 2;
  t->bpc = bpc;
  t->plane.width = w;
  t->plane.height = h;
  t->plane.step = 1;
  t->plane.stride = (ptrdiff_t) ((w + pad) * bytes);
  t->buf = g_malloc0 ((size_t) t->plane.stride * h);
  t->plane.data = t->buf;
}

static unsigned
get (const TestPlane *t, unsigned x, unsigned y)
{
  return vh_plane_sample (&t->plane, t->bpc, x, y);
}

static void
set (TestPlane *t, unsigned x, unsigned y, unsigned v)
{
  uint8_t *row = (uint8_t *) t->buf + (ptrdiff_t) y * t->plane.stride;
  if (t->bpc == 8)
    row[x] = (uint8_t) v;
  else
    ((uint16_t *) row)[x] = (uint16_t) v;
}

/* Scales src into a new plane of dst_w x dst_h with that filter. */
static void
scale (const TestPlane *src, unsigned dst_w, unsigned dst_h,
    VhScaleFilter filter, TestPlane *dst)
{
  GError *error = NULL;
  VhScaler *s = vh_scaler_new (src->plane.width, src->plane.height, dst_w,
      dst_h, src->bpc, filter, &error);
  ck_assert_msg (s != NULL, "vh_scaler_new: %s",
      error ? error->message : "?");
  test_plane_init (dst, dst_w, dst_h, src->bpc, 3);
  vh_scaler_run (s, &src->plane, &dst->plane);
  vh_scaler_free (s);
}

static void
fill_random (TestPlane *t, GRand *r)
{
  const unsigned max = (1u << t->bpc) - 1;
  for (unsigned y = 0; y < t->plane.height; y++)
    for (unsigned x = 0; x < t->plane.width; x++)
      set (t, x, y, (unsigned) g_rand_int_range (r, 0, (gint32) max + 1));
}

/* Equal sizes give back the input exactly, with any filter and depth, and
 * a source of step 2 (interleaved chroma) gives back its own samples. */
START_TEST (test_identity)
{
  static const unsigned depths[] = { 8, 10, 12, 16 };
  GRand *r = g_rand_new_with_seed (15);
  for (unsigned f = 0; f < G_N_ELEMENTS (all_filters); f++)
    for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++) {
      TestPlane src, dst;
      test_plane_init (&src, 37, 23, depths[d], 5);
      fill_random (&src, r);
      scale (&src, 37, 23, all_filters[f], &dst);
      for (unsigned y = 0; y < 23; y++)
        for (unsigned x = 0; x < 37; x++)
          ck_assert_uint_eq (get (&dst, x, y), get (&src, x, y));
      /* the same samples at every second position */
      TestPlane wide;
      test_plane_init (&wide, 74, 23, depths[d], 0);
      for (unsigned y = 0; y < 23; y++)
        for (unsigned x = 0; x < 37; x++) {
          set (&wide, 2 * x, y, get (&src, x, y));
          set (&wide, 2 * x + 1, y, 0);
        }
      wide.plane.width = 37;
      wide.plane.step = 2;
      g_free (dst.buf);
      scale (&wide, 37, 23, all_filters[f], &dst);
      for (unsigned y = 0; y < 23; y++)
        for (unsigned x = 0; x < 37; x++)
          ck_assert_uint_eq (get (&dst, x, y), get (&src, x, y));
      g_free (wide.buf);
      g_free (src.buf);
      g_free (dst.buf);
    }
  g_rand_free (r);
}
END_TEST

/* A constant plane stays that constant, up, down, and each direction its
 * own way, at every depth (the rows sum to one exactly, so no rounding
 * drifts). */
START_TEST (test_constant)
{
  static const unsigned depths[] = { 8, 9, 10, 12, 14, 16 };
  static const unsigned sizes[][4] = {
    { 17, 9, 50, 31 }, { 50, 31, 17, 9 }, { 100, 50, 33, 77 },
    { 5, 3, 160, 90 }, { 1, 1, 7, 5 }, { 640, 8, 10, 1 },
  };
  for (unsigned f = 0; f < G_N_ELEMENTS (all_filters); f++)
    for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++)
      for (unsigned z = 0; z < G_N_ELEMENTS (sizes); z++) {
        const unsigned max = (1u << depths[d]) - 1;
        const unsigned values[] = { 0, 1, max / 3, max - 1, max };
        for (unsigned v = 0; v < G_N_ELEMENTS (values); v++) {
          TestPlane src, dst;
          test_plane_init (&src, sizes[z][0], sizes[z][1], depths[d], 1);
          for (unsigned y = 0; y < sizes[z][1]; y++)
            for (unsigned x = 0; x < sizes[z][0]; x++)
              set (&src, x, y, values[v]);
          scale (&src, sizes[z][2], sizes[z][3], all_filters[f], &dst);
          for (unsigned y = 0; y < sizes[z][3]; y++)
            for (unsigned x = 0; x < sizes[z][2]; x++)
              ck_assert_msg (get (&dst, x, y) == values[v],
                  "%s %u-bit %ux%u->%ux%u: %u at %u,%u, not %u",
                  vh_scale_filter_name (all_filters[f]), depths[d],
                  sizes[z][0], sizes[z][1], sizes[z][2], sizes[z][3],
                  get (&dst, x, y), x, y, values[v]);
          g_free (src.buf);
          g_free (dst.buf);
        }
      }
}
END_TEST

/* Every coefficient row sums to 1 << 14 and its window lies inside the
 * source; the window is as wide as the filter says (2·radius + 1 up,
 * stretched down). */
START_TEST (test_coefficient_rows)
{
  static const unsigned sizes[][2] = {
    { 960, 1920 }, { 480, 1920 }, { 1280, 1920 }, { 1920, 1280 },
    { 1920, 640 }, { 3, 190 }, { 1, 9 }, { 7, 6 }, { 100, 100 },
    { 64, 1 }, { 1080, 1079 },
  };
  static const unsigned radius[] = {
    [VH_SCALE_BILINEAR] = 1, [VH_SCALE_BICUBIC] = 2, [VH_SCALE_LANCZOS] = 3,
  };
  for (unsigned f = 0; f < G_N_ELEMENTS (all_filters); f++)
    for (unsigned z = 0; z < G_N_ELEMENTS (sizes); z++) {
      const unsigned src = sizes[z][0], dst = sizes[z][1];
      VhScaler *s = vh_scaler_new (src, 1, dst, 1, 8, all_filters[f], NULL);
      ck_assert (s != NULL);
      unsigned n;
      const unsigned *first;
      const int16_t *c = vh_scaler_taps (s, TRUE, &n, &first);
      unsigned expect = 1;
      if (src < dst)
        expect = 2 * radius[all_filters[f]] + 1;
      else if (src > dst)
        expect = 1 + (2 * radius[all_filters[f]] * src + dst - 1) / dst;
      ck_assert_uint_eq (n, MIN (expect, src));
      for (unsigned i = 0; i < dst; i++) {
        int sum = 0;
        for (unsigned k = 0; k < n; k++)
          sum += c[i * n + k];
        ck_assert_int_eq (sum, 1 << VH_SCALE_COEF_BITS);
        ck_assert_uint_le (first[i] + n, src);
        if (i)
          ck_assert_uint_ge (first[i], first[i - 1]);
      }
      /* the vertical direction: 1 -> 1 copies */
      c = vh_scaler_taps (s, FALSE, &n, &first);
      ck_assert_uint_eq (n, 1);
      ck_assert_int_eq (c[0], 1 << VH_SCALE_COEF_BITS);
      vh_scaler_free (s);
    }
}
END_TEST

/* A linear ramp upscaled by bilinear is the exact linear interpolation at
 * centre-aligned positions (clamped at the edges) within 1, both ways. */
START_TEST (test_bilinear_ramp)
{
  const unsigned src_n = 80, dst_n = 233;
  for (int vertical = 0; vertical < 2; vertical++) {
    TestPlane src, dst;
    const unsigned sw = vertical ? 4 : src_n, sh = vertical ? src_n : 4;
    test_plane_init (&src, sw, sh, 8, 2);
    for (unsigned y = 0; y < sh; y++)
      for (unsigned x = 0; x < sw; x++)
        set (&src, x, y, 10 + 3 * (vertical ? y : x));
    scale (&src, vertical ? 4 : dst_n, vertical ? dst_n : 4,
        VH_SCALE_BILINEAR, &dst);
    for (unsigned i = 0; i < dst_n; i++) {
      double pos = (i + 0.5) * src_n / dst_n - 0.5;
      pos = CLAMP (pos, 0.0, src_n - 1.0);
      const double exact = 10 + 3 * pos;
      for (unsigned j = 0; j < 4; j++) {
        const unsigned got = vertical ? get (&dst, j, i) : get (&dst, i, j);
        ck_assert_msg (fabs (got - exact) <= 1.0,
            "%s ramp: %u at %u, exact %.3f", vertical ? "vertical"
            : "horizontal", got, i, exact);
      }
    }
    g_free (src.buf);
    g_free (dst.buf);
  }
}
END_TEST

/* Hard 0 / max edges make bicubic and lanczos overshoot: the output clips
 * to [0, 2^bpc − 1] (10 bits: 1023), and reaches both ends. */
START_TEST (test_clipping)
{
  static const unsigned depths[] = { 10, 8, 16 };
  for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++)
    for (unsigned f = 1; f < G_N_ELEMENTS (all_filters); f++) {
      const unsigned max = (1u << depths[d]) - 1;
      TestPlane src, dst;
      test_plane_init (&src, 24, 24, depths[d], 0);
      for (unsigned y = 0; y < 24; y++)
        for (unsigned x = 0; x < 24; x++)
          set (&src, x, y, ((x / 4) + (y / 4)) % 2 ? max : 0);
      scale (&src, 101, 97, all_filters[f], &dst);
      unsigned lo = max, hi = 0, at_max = 0;
      for (unsigned y = 0; y < 97; y++)
        for (unsigned x = 0; x < 101; x++) {
          const unsigned v = get (&dst, x, y);
          lo = MIN (lo, v);
          hi = MAX (hi, v);
          at_max += v == max;
        }
      ck_assert_uint_eq (lo, 0);
      ck_assert_uint_eq (hi, max);
      /* the overshoot next to each edge is clipped, not wrapped: many
       * samples sit exactly at the top */
      ck_assert_uint_gt (at_max, 101 * 97 / 8);
      g_free (src.buf);
      g_free (dst.buf);
    }
}
END_TEST

/* The integer passes equal, within 1, the same coefficients applied in
 * double precision without intermediate rounding (only the cap on the
 * horizontal pass's overshoot): on random samples and
 * on a one-sample checkerboard of 0 and 2^bpc − 1 (the largest sums, for
 * the accumulators' range) at every depth path, up and down. */
START_TEST (test_passes_match_reference)
{
  static const unsigned depths[] = { 8, 10, 12, 13, 16 };
  static const unsigned sizes[][4] = {
    { 40, 30, 97, 71 }, { 97, 71, 40, 30 }, { 64, 20, 64, 61 },
    { 300, 9, 7, 29 },
  };
  GRand *r = g_rand_new_with_seed (1015);
  for (unsigned f = 0; f < G_N_ELEMENTS (all_filters); f++)
    for (unsigned d = 0; d < G_N_ELEMENTS (depths); d++)
      for (unsigned z = 0; z < G_N_ELEMENTS (sizes); z++)
        for (int pattern = 0; pattern < 2; pattern++) {
          const unsigned sw = sizes[z][0], sh = sizes[z][1];
          const unsigned dw = sizes[z][2], dh = sizes[z][3];
          const double max = (double) ((1u << depths[d]) - 1);
          TestPlane src, dst;
          test_plane_init (&src, sw, sh, depths[d], 0);
          if (pattern)
            for (unsigned y = 0; y < sh; y++)
              for (unsigned x = 0; x < sw; x++)
                set (&src, x, y, (x + y) % 2 ? (unsigned) max : 0);
          else
            fill_random (&src, r);
          VhScaler *s = vh_scaler_new (sw, sh, dw, dh, depths[d],
              all_filters[f], NULL);
          test_plane_init (&dst, dw, dh, depths[d], 0);
          vh_scaler_run (s, &src.plane, &dst.plane);
          unsigned hn, vn;
          const unsigned *hfirst, *vfirst;
          const int16_t *hc = vh_scaler_taps (s, TRUE, &hn, &hfirst);
          const int16_t *vc = vh_scaler_taps (s, FALSE, &vn, &vfirst);
          double *mid = g_new (double, (size_t) sh * dw);
          for (unsigned y = 0; y < sh; y++)
            for (unsigned x = 0; x < dw; x++) {
              double sum = 0;
              for (unsigned k = 0; k < hn; k++)
                sum += get (&src, hfirst[x] + k, y) * (double) hc[x * hn + k];
              /* the horizontal pass's overshoot is capped just below
               * 2^bpc, as swscale's (within 1 of max + 1) */
              mid[y * dw + x] = MIN (sum / (1 << VH_SCALE_COEF_BITS),
                  max + 1.0);
            }
          for (unsigned y = 0; y < dh; y++)
            for (unsigned x = 0; x < dw; x++) {
              double sum = 0;
              for (unsigned k = 0; k < vn; k++)
                sum += mid[(vfirst[y] + k) * dw + x] * vc[y * vn + k];
              const double ref = CLAMP (sum / (1 << VH_SCALE_COEF_BITS),
                  0.0, max);
              ck_assert_msg (fabs (get (&dst, x, y) - ref) <= 1.0,
                  "%s %u-bit %ux%u->%ux%u pattern %d at %u,%u: %u, "
                  "reference %.3f", vh_scale_filter_name (all_filters[f]),
                  depths[d], sw, sh, dw, dh, pattern, x, y, get (&dst, x, y),
                  ref);
            }
          g_free (mid);
          vh_scaler_free (s);
          g_free (src.buf);
          g_free (dst.buf);
        }
  g_rand_free (r);
}
END_TEST

static void
expect_error (unsigned sw, unsigned sh, unsigned dw, unsigned dh,
    unsigned bpc, VhScaleFilter filter, int code, const char *word)
{
  GError *error = NULL;
  VhScaler *s = vh_scaler_new (sw, sh, dw, dh, bpc, filter, &error);
  ck_assert_msg (s == NULL, "%ux%u->%ux%u %u-bit filter %d accepted",
      sw, sh, dw, dh, bpc, (int) filter);
  ck_assert (error != NULL);
  ck_assert_msg (g_error_matches (error, VH_ERROR, code), "%s",
      error->message);
  ck_assert_msg (strstr (error->message, word) != NULL,
      "\"%s\" does not say \"%s\"", error->message, word);
  g_error_free (error);
}

START_TEST (test_bad_arguments)
{
  expect_error (0, 540, 1920, 1080, 8, VH_SCALE_BICUBIC,
      VH_ERROR_INVALID_ARGUMENT, "zero");
  expect_error (960, 540, 1920, 0, 8, VH_SCALE_BICUBIC,
      VH_ERROR_INVALID_ARGUMENT, "zero");
  expect_error (960, 540, 1920, 1080, 7, VH_SCALE_BICUBIC,
      VH_ERROR_UNSUPPORTED, "8..16");
  expect_error (960, 540, 1920, 1080, 17, VH_SCALE_BICUBIC,
      VH_ERROR_UNSUPPORTED, "8..16");
  expect_error (20, 540, 1920, 1080, 8, VH_SCALE_BICUBIC,
      VH_ERROR_INVALID_ARGUMENT, "64x");
  expect_error (1920, 1080, 1920, 16, 8, VH_SCALE_LANCZOS,
      VH_ERROR_INVALID_ARGUMENT, "64x");
  expect_error (40000, 20, 40000, 20, 8, VH_SCALE_BILINEAR,
      VH_ERROR_INVALID_ARGUMENT, "larger");
  expect_error (960, 540, 1920, 1080, 8, (VhScaleFilter) 7,
      VH_ERROR_INVALID_ARGUMENT, "unknown filter");
  /* the ratio limit itself is accepted */
  VhScaler *s = vh_scaler_new (30, 17, 1920, 1088, 8, VH_SCALE_LANCZOS, NULL);
  ck_assert (s != NULL);
  vh_scaler_free (s);

  VhScaleFilter f = VH_SCALE_BILINEAR;
  ck_assert (vh_scale_filter_from_string ("Lanczos", &f));
  ck_assert_int_eq (f, VH_SCALE_LANCZOS);
  ck_assert (vh_scale_filter_from_string ("bicubic", &f));
  ck_assert_int_eq (f, VH_SCALE_BICUBIC);
  ck_assert (vh_scale_filter_from_string ("bilinear", &f));
  ck_assert_int_eq (f, VH_SCALE_BILINEAR);
  ck_assert (!vh_scale_filter_from_string ("spline", &f));
  ck_assert (!vh_scale_filter_from_string (NULL, &f));
  ck_assert_int_eq (f, VH_SCALE_BILINEAR);
  ck_assert_str_eq (vh_scale_filter_name (VH_SCALE_DEFAULT), "bicubic");
  ck_assert (vh_scale_filter_name ((VhScaleFilter) 3) == NULL);
}
END_TEST

/* ---- against FFmpeg ---------------------------------------------------- */

/* The test picture at w x h: a zone plate (frequency rising to about 0.4
 * cycles a sample at the corners, below Nyquist), a luma ramp, a block of
 * hard-edged squares and fine hashed texture; values in 0..max. Defined
 * per normalised position so each source size shows the same scene. */
static unsigned
test_picture_sample (unsigned x, unsigned y, unsigned w, unsigned h,
    unsigned max)
{
  const double u = (x + 0.5) / w - 0.5, v = (y + 0.5) / h - 0.5;
  /* phase k·r² reaches 0.4 cycles/sample: d/dx (k·x²) = 2k·x = 2π·0.4 */
  const double k = G_PI * 0.4 / (0.5 * w) * w * w;
  double value = 0.5 + 0.3 * cos (k * (u * u + v * v * h * h / (w * w)));
  value += 0.15 * (u + 0.5) - 0.075;
  if (u > 0.2 && v > 0.1 && ((int) floor (u * 40) + (int) floor (v * 40)) % 2)
    value = 0.95;
  guint32 hash = (x * 73856093u) ^ (y * 19349663u);
  hash = (hash ^ (hash >> 13)) * 0x5bd1e995u;
  value += ((hash >> 8) % 1001 / 1000.0 - 0.5) * 0.06;
  return (unsigned) CLAMP (floor (value * max + 0.5), 0.0, (double) max);
}

static gboolean
write_file (const char *path, const void *data, size_t n)
{
  return g_file_set_contents (path, data, (gssize) n, NULL);
}

/* ffmpeg's options for the comparison: the filter plus accurate_rnd (the
 * x86 vertical pass rounds as the C one) and full_chroma_int (no effect
 * on gray, kept so the command reads as full accuracy). */
static const char *const ffmpeg_flags = "+accurate_rnd+full_chroma_int";

typedef struct FfmpegCase {
  unsigned sw, sh, dw, dh, bpc;
  VhScaleFilter filter;
  /* largest and mean |ours − FFmpeg's| allowed */
  unsigned max_diff;
  double mean_diff;
} FfmpegCase;

/* Bounds: FFmpeg 5.1.9 (Debian 12) gave max |diff| 1 in every case and the
 * mean |diff| in the comment (docs/scaling.md); the bounds allow 2 and
 * about twice the mean (at least 0.02), for other FFmpeg versions. */
static const FfmpegCase ffmpeg_cases[] = {
  { 480, 270, 1920, 1080, 8, VH_SCALE_BICUBIC, 2, 0.02 },      /* 0.0048 */
  { 960, 540, 1920, 1080, 8, VH_SCALE_BICUBIC, 2, 0.02 },      /* 0.0050 */
  { 1280, 720, 1920, 1080, 8, VH_SCALE_BICUBIC, 2, 0.02 },     /* 0.0058 */
  { 480, 270, 1920, 1080, 8, VH_SCALE_LANCZOS, 2, 0.12 },      /* 0.0592 */
  { 960, 540, 1920, 1080, 8, VH_SCALE_LANCZOS, 2, 0.02 },      /* 0.0081 */
  { 1280, 720, 1920, 1080, 8, VH_SCALE_LANCZOS, 2, 0.02 },     /* 0.0069 */
  { 480, 270, 1920, 1080, 8, VH_SCALE_BILINEAR, 2, 0.02 },     /* 0 */
  { 960, 540, 1920, 1080, 8, VH_SCALE_BILINEAR, 2, 0.02 },     /* 0 */
  { 1280, 720, 1920, 1080, 8, VH_SCALE_BILINEAR, 2, 0.02 },    /* 0.0046 */
  { 1920, 1080, 640, 360, 8, VH_SCALE_BICUBIC, 2, 0.02 },      /* 0.0048 */
  { 1920, 1080, 1280, 720, 8, VH_SCALE_LANCZOS, 2, 0.02 },     /* 0.0047 */
  { 960, 540, 1920, 1080, 10, VH_SCALE_BICUBIC, 2, 0.05 },     /* 0.0205 */
  { 1280, 720, 1920, 1080, 10, VH_SCALE_LANCZOS, 2, 0.06 },    /* 0.0278 */
};

/* Registered only when ffmpeg is on PATH (main says so loudly if not). */
START_TEST (test_against_ffmpeg)
{
  char *ffmpeg = g_find_program_in_path ("ffmpeg");
  ck_assert (ffmpeg != NULL);
  const FfmpegCase *c = &ffmpeg_cases[_i];
  const char *fmt = c->bpc == 8 ? "gray" : "gray10le";
  const unsigned max = (1u << c->bpc) - 1;
  char *dir = g_dir_make_tmp ("vmafhip-scale-XXXXXX", NULL);
  ck_assert (dir != NULL);
  char *in_path = g_build_filename (dir, "in.raw", NULL);
  char *out_path = g_build_filename (dir, "out.raw", NULL);

  TestPlane src, ours;
  test_plane_init (&src, c->sw, c->sh, c->bpc, 0);
  for (unsigned y = 0; y < c->sh; y++)
    for (unsigned x = 0; x < c->sw; x++)
      set (&src, x, y, test_picture_sample (x, y, c->sw, c->sh, max));
  ck_assert (write_file (in_path, src.buf, (size_t) src.plane.stride * c->sh));

  char *size = g_strdup_printf ("%ux%u", c->sw, c->sh);
  char *vf = g_strdup_printf ("scale=%u:%u:flags=%s%s", c->dw, c->dh,
      vh_scale_filter_name (c->filter), ffmpeg_flags);
  const char *argv[] = { ffmpeg, "-nostdin", "-hide_banner", "-loglevel",
    "error", "-y", "-f", "rawvideo", "-pix_fmt", fmt, "-s", size, "-i",
    in_path, "-vf", vf, "-f", "rawvideo", "-pix_fmt", fmt, out_path, NULL
  };
  char *err = NULL;
  gint status = 0;
  ck_assert (g_spawn_sync (NULL, (char **) argv, NULL,
          G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, &err, &status, NULL));
  ck_assert_msg (g_spawn_check_wait_status (status, NULL), "ffmpeg: %s", err);

  gchar *theirs = NULL;
  gsize theirs_len = 0;
  ck_assert (g_file_get_contents (out_path, &theirs, &theirs_len, NULL));
  const size_t bytes = c->bpc == 8 ? 1 : 2;
  ck_assert_uint_eq (theirs_len, (size_t) c->dw * c->dh * bytes);

  scale (&src, c->dw, c->dh, c->filter, &ours);
  const TestPlane ff = {
    .plane = { theirs, (ptrdiff_t) (c->dw * bytes), c->dw, c->dh, 1 },
    .buf = theirs, .bpc = c->bpc,
  };
  unsigned max_diff = 0;
  guint64 total = 0, differ = 0;
  for (unsigned y = 0; y < c->dh; y++)
    for (unsigned x = 0; x < c->dw; x++) {
      const unsigned a = get (&ours, x, y), b = get (&ff, x, y);
      const unsigned e = a > b ? a - b : b - a;
      max_diff = MAX (max_diff, e);
      total += e;
      differ += e != 0;
    }
  const double mean = (double) total / ((double) c->dw * c->dh);
  fprintf (stderr, "test-scale: %-8s %4ux%-4u -> %4ux%-4u %2u-bit vs "
      "ffmpeg (%s%s): max |diff| %u, mean %.4f, %.2f%% of samples differ\n",
      vh_scale_filter_name (c->filter), c->sw, c->sh, c->dw, c->dh, c->bpc,
      vh_scale_filter_name (c->filter), ffmpeg_flags, max_diff, mean,
      100.0 * differ / ((double) c->dw * c->dh));
  ck_assert_uint_le (max_diff, c->max_diff);
  ck_assert_msg (mean <= c->mean_diff, "mean |diff| %.4f above %.4f", mean,
      c->mean_diff);

  g_free (theirs);
  g_free (err);
  g_free (vf);
  g_free (size);
  g_free (src.buf);
  g_free (ours.buf);
  g_unlink (in_path);
  g_unlink (out_path);
  g_rmdir (dir);
  g_free (in_path);
  g_free (out_path);
  g_free (dir);
  g_free (ffmpeg);
}
END_TEST

/* Output rows run in uneven slices (vh_scaler_run_rows, as the element
 * splits a frame over threads) give every sample of one whole run, up,
 * down and mixed, every filter, 8 and 10 bits */
START_TEST (test_rows_split)
{
  static const unsigned sizes[][4] = {
    { 80, 46, 160, 90 }, { 161, 91, 67, 45 }, { 50, 200, 120, 33 },
  };
  GRand *r = g_rand_new_with_seed (41);
  for (gsize z = 0; z < G_N_ELEMENTS (sizes); z++)
    for (gsize f = 0; f < G_N_ELEMENTS (all_filters); f++)
      for (unsigned bpc = 8; bpc <= 10; bpc += 2) {
        TestPlane src, whole, split;
        test_plane_init (&src, sizes[z][0], sizes[z][1], bpc, 5);
        fill_random (&src, r);
        scale (&src, sizes[z][2], sizes[z][3], all_filters[f], &whole);
        test_plane_init (&split, sizes[z][2], sizes[z][3], bpc, 3);
        VhScaler *s = vh_scaler_new (sizes[z][0], sizes[z][1], sizes[z][2],
            sizes[z][3], bpc, all_filters[f], NULL);
        const unsigned h = sizes[z][3];
        const unsigned cuts[] = { 0, 1, h / 3, h / 3, h / 2 + 1, h - 1, h };
        for (gsize c = 0; c + 1 < G_N_ELEMENTS (cuts); c++)
          vh_scaler_run_rows (s, &src.plane, &split.plane, cuts[c],
              cuts[c + 1]);
        vh_scaler_free (s);
        for (unsigned y = 0; y < h; y++)
          for (unsigned x = 0; x < sizes[z][2]; x++)
            ck_assert_msg (get (&split, x, y) == get (&whole, x, y),
                "case %zu, filter %zu, %u-bit: (%u, %u) %u against %u", z,
                f, bpc, x, y, get (&split, x, y), get (&whole, x, y));
        g_free (src.buf);
        g_free (whole.buf);
        g_free (split.buf);
      }
  g_rand_free (r);
}

END_TEST

int
main (void)
{
  Suite *s = suite_create ("vmafhip-scale");
  TCase *tc = tcase_create ("scale");
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_identity);
  tcase_add_test (tc, test_constant);
  tcase_add_test (tc, test_coefficient_rows);
  tcase_add_test (tc, test_bilinear_ramp);
  tcase_add_test (tc, test_clipping);
  tcase_add_test (tc, test_passes_match_reference);
  tcase_add_test (tc, test_bad_arguments);
  tcase_add_test (tc, test_rows_split);
  char *ffmpeg = g_find_program_in_path ("ffmpeg");
  gboolean strict_missing = FALSE;
  if (ffmpeg)
    tcase_add_loop_test (tc, test_against_ffmpeg, 0,
        G_N_ELEMENTS (ffmpeg_cases));
  else
    strict_missing = !vh_test_may_skip ("test-scale", "ffmpeg not found "
        "(apt-get install ffmpeg); the comparison with FFmpeg's scale filter "
        "did not run, the other checks do");
  g_free (ffmpeg);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  const int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed || strict_missing ? 1 : 0;
}
