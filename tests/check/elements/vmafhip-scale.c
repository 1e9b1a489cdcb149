/* vmafhip — a distorted video smaller than the reference (an ABR rung)
 * scaled up with `scaler` before scoring: every frame's scores equal to
 * those of the same upscale pushed at full size (the scaler is
 * deterministic integer arithmetic, common/scale.c), luma-only and with
 * chroma (PSNR); a larger distorted video, and a smaller one with
 * scaler=none, refused at negotiation with a message that says what to
 * do. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "scale.h"
#include "vh-element-fixture.h"

#define N_FRAMES 5
#define SMALL_W 80
#define SMALL_H 46

/* Picture i's distorted side made small (bilinear), then, with
 * `up_filter` >= 0, scaled back up to W x H as the element would; the
 * result's planes in *out, their memory returned (g_free) */
static guint8 *
rung_picture (Fixture * f, guint i, int up_filter, VhPicture * out)
{
  guint8 *small = render_rung (f, i, SMALL_W, SMALL_H, out);
  if (up_filter < 0)
    return small;
  const guint sw[3] = { SMALL_W, SMALL_W / 2, SMALL_W / 2 };
  const guint sh[3] = { SMALL_H, SMALL_H / 2, SMALL_H / 2 };
  const guint fw[3] = { W, W / 2, W / 2 }, fh[3] = { H, H / 2, H / 2 };
  guint8 *full = g_malloc (W * H * 2);
  VhPicture s = *out;
  gsize fo = 0;
  for (guint p = 0; p < 3; p++) {
    out->plane[p] = (VhPlane) { full + fo, fw[p], fw[p], fh[p], 1 };
    fo += fw[p] * fh[p];
    VhScaler *up = vh_scaler_new (sw[p], sh[p], fw[p], fh[p], 8,
        (VhScaleFilter) up_filter, NULL);
    vh_scaler_run (up, &s.plane[p], &out->plane[p]);
    vh_scaler_free (up);
  }
  g_free (small);
  return full;
}

/* Scores N_FRAMES pairs; the distorted side small (scaled by the element)
 * or pre-scaled to full size (up_filter); returns the frame messages */
static GPtrArray *
score_rung (const char *props, gboolean prescaled, int up_filter)
{
  Fixture *f = fixture_new (props, FALSE);
  video_info_init (&f->ref_info, "I420", W, H);
  video_info_init (&f->dist_info, "I420", prescaled ? W : SMALL_W,
      prescaled ? H : SMALL_H);
  content_init (&f->content, &f->ref_info, 17);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  for (guint i = 0; i < N_FRAMES; i++) {
    VhPicture d;
    guint8 *mem = rung_picture (f, i, prescaled ? up_filter : -1, &d);
    fail_unless_equals_int (push_ref (f, i), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (f->dist,
            make_buffer (&f->dist_info, &d, i, 0)), GST_FLOW_OK);
    g_free (mem);
  }
  push_eos_both (f);
  wait_eos (f);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  guint n_pooled;
  GPtrArray *copies = frame_message_copies (msgs, &n_pooled);
  fail_unless_equals_int (n_pooled, 1);
  free_messages (msgs);
  fixture_free (f);
  return copies;
}

static gboolean
field_equal (GQuark field, const GValue * value, gpointer user_data)
{
  const GstStructure *other = user_data;
  const GValue *v = gst_structure_id_get_value (other, field);
  fail_unless (v != NULL, "%s missing", g_quark_to_string (field));
  if (G_VALUE_TYPE (value) == G_TYPE_DOUBLE)
    fail_unless (g_value_get_double (value) == g_value_get_double (v),
        "%s: %.17g against %.17g at full size", g_quark_to_string (field),
        g_value_get_double (value), g_value_get_double (v));
  return TRUE;
}

static void
check_same_as_prescaled (const char *props, VhScaleFilter filter)
{
  gchar *with_scaler = g_strdup_printf ("%s scaler=%s", props,
      vh_scale_filter_name (filter));
  GPtrArray *scaled = score_rung (with_scaler, FALSE, -1);
  GPtrArray *pre = score_rung (props, TRUE, (int) filter);
  fail_unless_equals_int (scaled->len, N_FRAMES);
  fail_unless_equals_int (pre->len, N_FRAMES);
  for (guint i = 0; i < N_FRAMES; i++) {
    const GstStructure *a = g_ptr_array_index (scaled, i);
    gdouble v;
    fail_unless (gst_structure_get_double (a, "vmaf_v0.6.1", &v) && v < 99.0,
        "frame %u: not scored, or scored as a perfect copy", i);
    /* with PSNR, the chroma planes scaled and scored too */
    fail_unless (!strstr (props, "psnr=true")
        || gst_structure_has_field (a, "psnr_cb"), "frame %u: no psnr_cb", i);
    gst_structure_foreach (a, field_equal, g_ptr_array_index (pre, i));
  }
  g_ptr_array_unref (scaled);
  g_ptr_array_unref (pre);
  g_free (with_scaler);
}

GST_START_TEST (test_rung_scaled_as_prescaled)
{
  check_same_as_prescaled ("frame-message=true", VH_SCALE_BICUBIC);
}

GST_END_TEST;

/* chroma read too (PSNR): every plane scaled */
GST_START_TEST (test_rung_scaled_with_chroma)
{
  check_same_as_prescaled ("frame-message=true psnr=true",
      VH_SCALE_LANCZOS);
}

GST_END_TEST;

static void
check_refused (const char *props, int dist_w, int dist_h,
    const gchar * const *needles)
{
  Fixture *f = fixture_new (props, FALSE);
  video_info_init (&f->ref_info, "I420", W, H);
  video_info_init (&f->dist_info, "I420", dist_w, dist_h);
  content_init (&f->content, &f->ref_info, 3);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  push_after_refusal (f, GST_VIDEO_INFO_SIZE (&f->ref_info),
      GST_VIDEO_INFO_SIZE (&f->dist_info));
  fixture_free (f);
}

GST_START_TEST (test_rung_refused)
{
  static const gchar *const larger[] = { "320x180", "never a larger one",
    NULL };
  /* a smaller one with scaler=none: test_error_size_mismatch
   * (vmafhip-errors.c) */
  check_refused (NULL, 320, 180, larger);
}

GST_END_TEST;

static Suite *
vmafhip_scale_suite (void)
{
  Suite *s = suite_create ("vmafhip-scale");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_rung_scaled_as_prescaled);
  tcase_add_test (tc, test_rung_scaled_with_chroma);
  tcase_add_test (tc, test_rung_refused);
  return s;
}

GST_CHECK_MAIN (vmafhip_scale);
