/* vmafhip — the video changes in the middle of the stream (issue 33): a
 * resolution switch on dist_sink, on ref_sink, a format change.  Scoring
 * goes on in a new segment: every frame is reported once, numbered in one
 * sequence; a 'vmafhip-segment' message names the pad and both videos and
 * pools the segment; the frames after the change equal a separate run
 * that starts there (motion starting again, as libvmaf does for a new
 * file); the pooled message covers the whole stream; the results file
 * holds every frame and each segment's pooled values.  (Renditions:
 * vmafhip-renditions.c.) */
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "vh-element-fixture.h"

#define BEFORE 6                /* frames before the change */
#define AFTER 6                 /* frames after it */

/* The video a run switches to at frame BEFORE */
typedef struct {
  const char *ref_format, *dist_format;
  int ref_w, ref_h;             /* the reference's size after the change */
  int dist_w, dist_h;           /* the distorted one's */
} Change;

static void
set_video (Fixture * f, const char *ref_format, int ref_w, int ref_h,
    const char *dist_format, int dist_w, int dist_h)
{
  video_info_init (&f->ref_info, ref_format, ref_w, ref_h);
  video_info_init (&f->dist_info, dist_format, dist_w, dist_h);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
}

/* Frames first..first+n-1: the reference as content renders it at its
 * size, the distorted one at dist_info's size (scaled down from the
 * content's where smaller) */
static void
push_frames (Fixture * f, guint first, guint n)
{
  for (guint i = first; i < first + n; i++) {
    fail_unless_equals_int (push_ref (f, i), GST_FLOW_OK);
    const gboolean same_size = GST_VIDEO_INFO_WIDTH (&f->dist_info)
        == GST_VIDEO_INFO_WIDTH (&f->ref_info);
    const GstFlowReturn ret = same_size ? push_dist (f, i)
        : gst_harness_push (f->dist, rung_buffer (f, i, &f->dist_info));
    fail_unless_equals_int (ret, GST_FLOW_OK);
  }
}

/* The frame messages of a run of frames first..first+n-1 alone, in the
 * changed video (the content at the reference's size) */
static GPtrArray *
separate_run (const Change * c, guint first, guint n)
{
  Fixture *f = fixture_new (NULL, FALSE);
  guint n_pooled;

  set_video (f, c->ref_format, c->ref_w, c->ref_h, c->dist_format, c->dist_w,
      c->dist_h);
  content_init (&f->content, &f->ref_info, 5);
  push_frames (f, first, n);
  push_eos_both (f);
  wait_eos (f);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  GPtrArray *frames = frame_message_copies (msgs, &n_pooled);
  fail_unless_equals_int (frames->len, n);
  free_messages (msgs);
  fixture_free (f);
  return frames;
}

static gboolean
same_field (GQuark field, const GValue * value, gpointer user_data)
{
  const GstStructure *other = user_data;
  const GValue *v;

  /* the stream's numbering goes on across segments, and so does the
   * reference's */
  if (field == g_quark_from_static_string ("index")
      || field == g_quark_from_static_string ("ref-index"))
    return TRUE;
  v = gst_structure_id_get_value (other, field);
  fail_unless (v != NULL, "%s missing", g_quark_to_string (field));
  fail_unless (gst_value_compare (value, v) == GST_VALUE_EQUAL,
      "%s: %s against %s in the separate run", g_quark_to_string (field),
      gst_value_serialize (value), gst_value_serialize (v));
  return TRUE;
}

static const GstStructure *
find_message (GList * msgs, const char *name, const char *type)
{
  const GstStructure *found = NULL;
  for (GList * l = msgs; l; l = l->next) {
    const GstStructure *s = gst_message_get_structure (l->data);
    if (!s || !gst_structure_has_name (s, name)
        || (type && g_strcmp0 (gst_structure_get_string (s, "type"), type)))
      continue;
    fail_unless (found == NULL, "two %s messages", name);
    found = s;
  }
  fail_unless (found != NULL, "no %s message", name);
  return found;
}

/* A run that switches to `c` at frame BEFORE, with a JSON results file */
static void
check_change (const Change * c)
{
  const char *const models[] = { "vmaf_v0.6.1", NULL };
  gchar *dir, *path;
  results_dir_new (&dir, &path);
  gchar *props = g_strdup_printf ("results-filename=%s", path);
  Fixture *f = fixture_new (props, FALSE);
  const gboolean scored = !g_getenv ("VMAFHIP_TEST_MOCK_HIP");
  Expected x = { 0 };
  guint n, first, last, n_pooled;
  double sum = 0.0, mean;

  fixture_set_caps (f, "I420", "I420", 5);
  push_frames (f, 0, BEFORE);
  set_video (f, c->ref_format, c->ref_w, c->ref_h, c->dist_format, c->dist_w,
      c->dist_h);
  if (c->ref_w != W || c->ref_h != H) {
    content_clear (&f->content);
    content_init (&f->content, &f->ref_info, 5);
  }
  push_frames (f, BEFORE, AFTER);
  push_eos_both (f);
  wait_eos (f);

  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  GPtrArray *frames = frame_message_copies (msgs, &n_pooled);
  /* every frame once, numbered on */
  fail_unless_equals_int (frames->len, BEFORE + AFTER);
  for (guint i = 0; i < frames->len; i++) {
    gint index;
    fail_unless (gst_structure_get_int (g_ptr_array_index (frames, i),
            "index", &index));
    fail_unless_equals_int (index, i);
  }
  /* the segment: pad, both videos, its frames */
  const GstStructure *seg = find_message (msgs, "vmafhip-segment", NULL);
  fail_unless_equals_string (gst_structure_get_string (seg, "pad"),
      "dist_sink");
  /* the reference changed first where it changed, else dist_sink */
  const gboolean ref_changed = c->ref_w != W || c->ref_h != H
      || strcmp (c->ref_format, "I420");
  fail_unless_equals_string (gst_structure_get_string (seg, "changed-pad"),
      ref_changed ? "ref_sink" : "dist_sink");
  fail_unless (g_str_has_prefix (gst_structure_get_string (seg, "old-video"),
          "160x90 I420"), "%s", gst_structure_get_string (seg, "old-video"));
  gchar *new_prefix = ref_changed ? g_strdup_printf ("%dx%d %s", c->ref_w,
      c->ref_h, c->ref_format) : g_strdup_printf ("%dx%d %s", c->dist_w,
      c->dist_h, c->dist_format);
  fail_unless (g_str_has_prefix (gst_structure_get_string (seg, "new-video"),
          new_prefix), "%s", gst_structure_get_string (seg, "new-video"));
  g_free (new_prefix);
  fail_unless (gst_structure_get_uint (seg, "first-frame", &first)
      && gst_structure_get_uint (seg, "last-frame", &last)
      && gst_structure_get_uint (seg, "n-frames", &n));
  fail_unless_equals_int (first, 0);
  fail_unless_equals_int (last, BEFORE - 1);
  fail_unless_equals_int (n, BEFORE);

  if (scored) {
    /* before the change: the run's first frames; the segment's pooled
     * values theirs */
    expected_run (&x, &f->content, models, FALSE, FALSE, 0, BEFORE);
    if (c->ref_w == W && c->ref_h == H)
      for (guint i = 0; i < BEFORE; i++)
        check_frame_scores (g_ptr_array_index (frames, i), &x, i);
    vh_engine_free (x.engine);
    /* after it: a run that starts there */
    GPtrArray *alone = separate_run (c, BEFORE, AFTER);
    for (guint i = 0; i < AFTER; i++)
      gst_structure_foreach (g_ptr_array_index (frames, BEFORE + i),
          same_field, g_ptr_array_index (alone, i));
    g_ptr_array_unref (alone);
  }
  /* the whole stream pooled: the mean of every frame */
  const GstStructure *pooled = find_message (msgs, "VMAF", "pooled");
  fail_unless (gst_structure_get_uint (pooled, "n-frames", &n));
  fail_unless_equals_int (n, BEFORE + AFTER);
  fail_unless (gst_structure_get_uint (pooled, "n-segments", &n));
  fail_unless_equals_int (n, 2);
  for (guint i = 0; i < frames->len; i++) {
    double v;
    fail_unless (gst_structure_get_double (g_ptr_array_index (frames, i),
            "vmaf", &v));
    sum += v;
  }
  fail_unless (gst_structure_get_double (pooled, "vmaf-mean", &mean));
  fail_unless (mean == sum / (BEFORE + AFTER), "pooled mean %.17g, frames' "
      "%.17g", mean, sum / (BEFORE + AFTER));

  /* the file: every frame numbered on, both segments pooled */
  JsonNode *root = check_results_json (path, BEFORE + AFTER);
  JsonObject *o = json_node_get_object (root);
  JsonArray *jframes = json_object_get_array_member (o, "frames");
  for (guint i = 0; i < BEFORE + AFTER; i++)
    fail_unless_equals_int (json_object_get_int_member
        (json_array_get_object_element (jframes, i), "frameNum"), i);
  fail_unless (json_object_has_member (o, "segments"), "no segments");
  JsonArray *segs = json_object_get_array_member (o, "segments");
  fail_unless_equals_int (json_array_get_length (segs), 2);
  for (guint k = 0; k < 2; k++) {
    JsonObject *sk = json_array_get_object_element (segs, k);
    fail_unless_equals_int (json_object_get_int_member (sk, "first_frame"),
        k ? BEFORE : 0);
    fail_unless_equals_int (json_object_get_int_member (sk, "last_frame"),
        k ? BEFORE + AFTER - 1 : BEFORE - 1);
    fail_unless (json_object_has_member (json_object_get_object_member (sk,
                "pooled_metrics"), "vmaf"));
  }
  json_node_unref (root);

  g_ptr_array_unref (frames);
  free_messages (msgs);
  fixture_free (f);
  g_free (props);
  results_dir_free (dir, path);
}

/* dist_sink drops to a smaller rendition (scaled up again, bicubic) */
GST_START_TEST (test_dist_resolution_change)
{
  const Change c = { "I420", "I420", W, H, W / 2, H / 2 };
  check_change (&c);
}

GST_END_TEST;

/* both switch to another resolution (an SD/HD switch upstream of both) */
GST_START_TEST (test_ref_resolution_change)
{
  const Change c = { "I420", "I420", 96, 54, 96, 54 };
  check_change (&c);
}

GST_END_TEST;

/* the same size in another format (a decoder's output changed) */
GST_START_TEST (test_format_change)
{
  const Change c = { "I420", "NV12", W, H, W, H };
  check_change (&c);
}

GST_END_TEST;

/* A caps event repeated with the same video starts no segment */
GST_START_TEST (test_same_caps_again)
{
  Fixture *f = fixture_new (NULL, FALSE);
  guint n;

  fixture_set_caps (f, "I420", "I420", 5);
  push_frames (f, 0, 3);
  set_video (f, "I420", W, H, "I420", W, H);
  push_frames (f, 3, 3);
  push_eos_both (f);
  wait_eos (f);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT);
  for (GList * l = msgs; l; l = l->next)
    fail_if (gst_structure_has_name (gst_message_get_structure (l->data),
            "vmafhip-segment"), "a segment without a change");
  const GstStructure *pooled = find_message (msgs, "VMAF", "pooled");
  fail_unless (gst_structure_get_uint (pooled, "n-segments", &n));
  fail_unless_equals_int (n, 1);
  free_messages (msgs);
  fixture_free (f);
}

GST_END_TEST;

static Suite *
vmafhip_segments_suite (void)
{
  Suite *s = suite_create ("vmafhip-segments");
  TCase *tc = tcase_create ("segments");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_dist_resolution_change);
  tcase_add_test (tc, test_ref_resolution_change);
  tcase_add_test (tc, test_format_change);
  tcase_add_test (tc, test_same_caps_again);
  return s;
}

GST_CHECK_MAIN (vmafhip_segments);
