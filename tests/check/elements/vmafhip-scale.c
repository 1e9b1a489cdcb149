/* vmafhip — a distorted video smaller than the reference (an ABR rung)
 * scaled up with `scaler` before scoring: every frame's scores equal to
 * those of the same upscale pushed at full size (the scaler is
 * deterministic integer arithmetic, common/core/scale.c), luma-only and with
 * chroma (PSNR); a larger distorted video, and a smaller one with
 * scaler=none, refused at negotiation with a message that says what to
 * do.  Scaling is said, not guessed: left unset, `scaler` scales only a
 * picture of the reference's display aspect ratio (640x352 against
 * 640x360 is an error on dist_sink, a warning on a dist_sink_%u pad whose
 * neighbours go on); set, it scales any smaller one; each scaled pad has
 * an INFO message and its pooled message's scaled-from and scaler. */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "scale.h"
#include "vh-element-fixture.h"
#include "vh-test-util.h"

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
    fail_unless (gst_structure_get_double (a, "vmaf", &v) && v < 99.0,
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

/* ------------------------------------------ scaling said, not guessed */

/* Frame i's distorted picture (the content's size) scaled down to info's
 * size (bilinear, as an encoder's ladder makes its rungs), as a buffer */
static GstBuffer *
small_buffer (Fixture * f, guint i, const GstVideoInfo * info)
{
  const guint w = GST_VIDEO_INFO_WIDTH (info);
  const guint h = GST_VIDEO_INFO_HEIGHT (info);
  const guint sw[3] = { w, w / 2, w / 2 }, sh[3] = { h, h / 2, h / 2 };
  guint8 *mem = g_malloc ((gsize) w * h * 2);
  VhPicture r, d, small = {.nplanes = 3,.bpc = 8 };
  gsize o = 0;

  render (f, i, &r, &d);
  for (guint p = 0; p < 3; p++) {
    small.plane[p] = (VhPlane) { mem + o, sw[p], sw[p], sh[p], 1 };
    o += (gsize) sw[p] * sh[p];
    VhScaler *down = vh_scaler_new (d.plane[p].width, d.plane[p].height,
        sw[p], sh[p], 8, VH_SCALE_BILINEAR, NULL);
    fail_unless (down != NULL);
    vh_scaler_run (down, &d.plane[p], &small.plane[p]);
    vh_scaler_free (down);
  }
  GstBuffer *buf = make_buffer (info, &small, i, 0);
  g_free (mem);
  return buf;
}

/* Where the element scales: on the GPU with the GPU backend (the mock
 * runtime's too), unless VMAFHIP_GPU_SCALE=0 keeps it on the CPU */
static const char *
scaled_where (void)
{
  return !strcmp (vh_test_backend (), "hip")
      && g_strcmp0 (g_getenv ("VMAFHIP_GPU_SCALE"), "0") ? "GPU" : "CPU";
}

/* The texts of the INFO messages among msgs (g_free each) */
static GPtrArray *
info_texts (GList * msgs)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);
  for (GList * l = msgs; l; l = l->next) {
    GError *err = NULL;
    if (GST_MESSAGE_TYPE (l->data) != GST_MESSAGE_INFO)
      continue;
    gst_message_parse_info (l->data, &err, NULL);
    g_ptr_array_add (texts, g_strdup (err->message));
    g_error_free (err);
  }
  return texts;
}

/* The one INFO text with all the needles (NULL: none) */
static const gchar *
find_info (GPtrArray * texts, const gchar * const *needles)
{
  const gchar *found = NULL;
  for (guint i = 0; i < texts->len; i++)
    if (text_has_all (g_ptr_array_index (texts, i), needles)) {
      fail_unless (found == NULL, "said twice: '%s'", found);
      found = g_ptr_array_index (texts, i);
    }
  return found;
}

/* pad's pooled message among msgs, checked to count n frames (NULL:
 * none) */
static const GstStructure *
pooled_of (GList * msgs, const char *pad, guint n)
{
  const GstStructure *pooled = NULL;
  for (GList * l = msgs; l; l = l->next) {
    const GstStructure *s = vmaf_structure (l->data);
    if (s && !g_strcmp0 (gst_structure_get_string (s, "pad"), pad)
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "pooled")) {
      fail_unless (pooled == NULL, "%s: two pooled messages", pad);
      pooled = s;
    }
  }
  if (pooled) {
    guint frames;
    gdouble v;
    fail_unless (gst_structure_get_uint (pooled, "n-frames", &frames));
    fail_unless_equals_int (frames, n);
    fail_unless (gst_structure_get_double (pooled, "vmaf", &v));
  }
  return pooled;
}

/* The pad was scaled from_w x from_h up to to_w x to_h with `scaler`:
 * said in an INFO message (sizes, filter, where; `why`) and in its pooled
 * message (scaled-from, scaler); or, from_w 0, neither says anything */
static void
check_said (GList * msgs, GPtrArray * infos, const char *pad, guint n,
    int from_w, int from_h, int to_w, int to_h, const char *scaler,
    const char *why)
{
  const GstStructure *pooled = pooled_of (msgs, pad, n);
  fail_unless (pooled != NULL, "%s: no pooled message", pad);
  if (!from_w) {
    gchar *said = g_strdup_printf ("%s: ", pad);
    const gchar *const scaled[] = { said, "scaled up", NULL };
    fail_if (gst_structure_has_field (pooled, "scaled-from"));
    fail_if (gst_structure_has_field (pooled, "scaler"));
    fail_unless (find_info (infos, scaled) == NULL);
    g_free (said);
    return;
  }
  gchar *from = g_strdup_printf ("%dx%d", from_w, from_h);
  gchar *what = g_strdup_printf ("%s: %s scaled up to the reference's "
      "%dx%d with %s on the %s", pad, from, to_w, to_h, scaler,
      scaled_where ());
  const gchar *const needles[] = { what, why, NULL };
  fail_unless (find_info (infos, needles) != NULL, "no INFO '%s (%s)'",
      what, why);
  fail_unless_equals_string (gst_structure_get_string (pooled,
          "scaled-from"), from);
  fail_unless_equals_string (gst_structure_get_string (pooled, "scaler"),
      scaler);
  g_free (what);
  g_free (from);
}

/* N_FRAMES pairs, reference rw x rh, dist_sink dw x dh: scored, and the
 * scaling said (check_said; from_w 0 where the sizes are equal) */
static void
check_scaled (const char *props, int rw, int rh, int dw, int dh,
    const char *scaler, const char *why)
{
  Fixture *f = fixture_new (props, FALSE);
  video_info_init (&f->ref_info, "I420", rw, rh);
  video_info_init (&f->dist_info, "I420", dw, dh);
  content_init (&f->content, &f->ref_info, 29);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  for (guint i = 0; i < N_FRAMES; i++) {
    fail_unless_equals_int (push_ref (f, i), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (f->dist, small_buffer (f, i,
                &f->dist_info)), GST_FLOW_OK);
  }
  push_eos_both (f);
  wait_eos (f);
  GList *msgs = take_messages (f->bus, &f->seen,
      GST_MESSAGE_ELEMENT | GST_MESSAGE_INFO);
  GPtrArray *infos = info_texts (msgs);
  const gboolean same = rw == dw && rh == dh;
  check_said (msgs, infos, "dist_sink", N_FRAMES, same ? 0 : dw, dh, rw, rh,
      scaler, why);
  g_ptr_array_unref (infos);
  free_messages (msgs);
  fixture_free (f);
}

/* check_refused with any reference size */
static void
check_refused_sizes (const char *props, int rw, int rh, int dw, int dh,
    const gchar * const *needles)
{
  Fixture *f = fixture_new (props, FALSE);
  video_info_init (&f->ref_info, "I420", rw, rh);
  video_info_init (&f->dist_info, "I420", dw, dh);
  content_init (&f->content, &f->ref_info, 3);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  push_after_refusal (f, GST_VIDEO_INFO_SIZE (&f->ref_info),
      GST_VIDEO_INFO_SIZE (&f->dist_info));
  fixture_free (f);
}

/* A raw file declared 640x352 instead of 640x360: refused, not scored
 * as nonsense, with both sizes, both aspect ratios and the fix */
GST_START_TEST (test_implausible_refused)
{
  static const gchar *const needles[] = { "dist_sink is not scored",
    "640x352 (display aspect ratio 1.818)", "640x360 (1.778)", "2.3 %",
    "Fix its caps or scale it upstream", "set scaler=bicubic explicitly",
    NULL
  };
  check_refused_sizes (NULL, 640, 360, 640, 352, needles);
}

GST_END_TEST;

/* The pixel-aspect-ratio counts: 320x180 with pixels 4/3 wide shows
 * 2.37:1, not the 16:9 of 640x360 with square ones */
GST_START_TEST (test_implausible_refused_with_par)
{
  static const gchar *const needles[] = { "dist_sink is not scored",
    "320x180 (display aspect ratio 2.37)", "640x360 (1.778)", NULL
  };
  Fixture *f = fixture_new (NULL, FALSE);
  video_info_init (&f->ref_info, "I420", 640, 360);
  video_info_init (&f->dist_info, "I420", 320, 180);
  GST_VIDEO_INFO_PAR_N (&f->dist_info) = 4;
  GST_VIDEO_INFO_PAR_D (&f->dist_info) = 3;
  content_init (&f->content, &f->ref_info, 3);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  push_after_refusal (f, GST_VIDEO_INFO_SIZE (&f->ref_info),
      GST_VIDEO_INFO_SIZE (&f->dist_info));
  fixture_free (f);
}

GST_END_TEST;

/* Anamorphic: 480x360 with pixels 4/3 wide shows 16:9, a plausible
 * rendition of 640x360 with square ones: scaled by default */
GST_START_TEST (test_anamorphic_rendition_scaled)
{
  Fixture *f = fixture_new (NULL, FALSE);
  video_info_init (&f->ref_info, "I420", 640, 360);
  video_info_init (&f->dist_info, "I420", 480, 360);
  GST_VIDEO_INFO_PAR_N (&f->dist_info) = 4;
  GST_VIDEO_INFO_PAR_D (&f->dist_info) = 3;
  content_init (&f->content, &f->ref_info, 3);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  for (guint i = 0; i < 2; i++) {
    fail_unless_equals_int (push_ref (f, i), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (f->dist, small_buffer (f, i,
                &f->dist_info)), GST_FLOW_OK);
  }
  push_eos_both (f);
  wait_eos (f);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  const GstStructure *pooled = pooled_of (msgs, "dist_sink", 2);
  fail_unless (pooled != NULL);
  fail_unless_equals_string (gst_structure_get_string (pooled,
          "scaled-from"), "480x360");
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

/* The same 640x352 with scaler set, even to its default: scored, and
 * said */
GST_START_TEST (test_implausible_scaled_when_set)
{
  check_scaled ("scaler=bicubic", 640, 360, 640, 352, "bicubic",
      "scaler set by the user");
  check_scaled ("scaler=lanczos", 640, 360, 640, 352, "lanczos",
      "scaler set by the user");
}

GST_END_TEST;

/* A rendition of the reference's aspect ratio is scaled by default, and
 * said; so is one a sample off it (80x46 of 160x90: 80x45 rounded to
 * even samples); one of the reference's size is not scaled */
GST_START_TEST (test_plausible_scaled_by_default)
{
  static const char why[] = "the default scaler, for a rendition of the "
      "reference's aspect ratio";
  check_scaled (NULL, 640, 360, 320, 180, "bicubic", why);
  check_scaled (NULL, W, H, 80, 46, "bicubic", why);
  check_scaled (NULL, W, H, W, H, NULL, NULL);
}

GST_END_TEST;

/* scaler=none: the error names the element's own scaler first, then
 * videoscale's nearest method to it */
GST_START_TEST (test_none_suggests_own_scaler)
{
  static const gchar *const needles[] = { "differ in size",
    "Let vmafhip scale it up with its own scaler", "set scaler=bicubic",
    "videoscale method=catrom ! video/x-raw,width=640,height=360",
    "display aspect ratio is not the reference's", NULL
  };
  check_refused_sizes ("scaler=none", 640, 360, 640, 352, needles);
}

GST_END_TEST;

/* Renditions: dist_sink_0 (80x45, the reference's aspect ratio) scaled
 * by default and said; dist_sink_1 (80x40) refused with the same wording
 * as dist_sink's error, in a warning, while dist_sink and dist_sink_0
 * are scored; with scaler set, dist_sink_1 is scored too */
static void
check_rendition_pads (const char *props)
{
  static const int sizes[2][2] = { {80, 45}, {80, 40} };
  const gboolean set = props != NULL;
  Fixture *f = fixture_new (props, FALSE);
  GstHarness *rung[2];
  GstVideoInfo info[2];

  fixture_set_caps (f, "I420", "I420", 31);
  for (guint k = 0; k < 2; k++) {
    rung[k] = gst_harness_new_with_element (f->element, "dist_sink_%u",
        NULL);
    gst_harness_set_live (rung[k], FALSE);      /* as the fixture's pads */
    video_info_init (&info[k], "I420", sizes[k][0], sizes[k][1]);
    gst_harness_set_src_caps (rung[k], gst_video_info_to_caps (&info[k]));
  }
  if (!set) {
    static const gchar *const needles[] = { "dist_sink_1 is not scored",
      "80x40 (display aspect ratio 2)", "160x90 (1.778)",
      "Fix its caps or scale it upstream", "set scaler=bicubic explicitly",
      "The other pads are", NULL
    };
    expect_message (f->bus, &f->seen, GST_MESSAGE_WARNING, needles);
  }
  for (guint i = 0; i < N_FRAMES; i++) {
    fail_unless_equals_int (push_ref (f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (f, i), GST_FLOW_OK);
    for (guint k = 0; k < 2; k++)
      fail_unless_equals_int (gst_harness_push (rung[k], small_buffer (f, i,
                  &info[k])), GST_FLOW_OK);
  }
  for (guint k = 0; k < 2; k++)
    gst_harness_push_event (rung[k], gst_event_new_eos ());
  push_eos_both (f);
  wait_eos (f);
  GList *msgs = take_messages (f->bus, &f->seen,
      GST_MESSAGE_ELEMENT | GST_MESSAGE_INFO);
  GPtrArray *infos = info_texts (msgs);
  const char *why = set ? "scaler set by the user" : "the default scaler";
  check_said (msgs, infos, "dist_sink", N_FRAMES, 0, 0, W, H, NULL, NULL);
  check_said (msgs, infos, "dist_sink_0", N_FRAMES, 80, 45, W, H, "bicubic",
      why);
  if (set)
    check_said (msgs, infos, "dist_sink_1", N_FRAMES, 80, 40, W, H,
        "bicubic", why);
  else
    fail_unless (pooled_of (msgs, "dist_sink_1", 0) == NULL);
  g_ptr_array_unref (infos);
  free_messages (msgs);
  for (guint k = 0; k < 2; k++)
    gst_harness_teardown (rung[k]);
  fixture_free (f);
}

GST_START_TEST (test_rendition_implausible_refused)
{
  check_rendition_pads (NULL);
}

GST_END_TEST;

GST_START_TEST (test_rendition_implausible_scaled_when_set)
{
  check_rendition_pads ("scaler=bicubic");
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
  tcase_add_test (tc, test_implausible_refused);
  tcase_add_test (tc, test_implausible_refused_with_par);
  tcase_add_test (tc, test_anamorphic_rendition_scaled);
  tcase_add_test (tc, test_implausible_scaled_when_set);
  tcase_add_test (tc, test_plausible_scaled_by_default);
  tcase_add_test (tc, test_none_suggests_own_scaler);
  tcase_add_test (tc, test_rendition_implausible_refused);
  tcase_add_test (tc, test_rendition_implausible_scaled_when_set);
  return s;
}

GST_CHECK_MAIN (vmafhip_scale);
