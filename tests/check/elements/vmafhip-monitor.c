/* vmafhip — live monitoring through the element: window and interval
 * messages whose statistics are those of the frame messages they cover
 * (recomputed here from each frame's running time), intervals that
 * together cover every frame once, an alarm raised when the windowed
 * score stays below the threshold for alarm-duration (and none when it
 * does not), and the settings' errors at start and at negotiation.  The
 * windows' arithmetic on crafted sequences (hysteresis, clearing, the
 * worst frame) is test-monitor's. */
#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include <gst/check/gstcheck.h>
#include <json-glib/json-glib.h>

#include "vh-element-fixture.h"

#define FRAMES 75               /* 3 s at 25 fps */
#define FRAME_NS (GST_SECOND / 25)

typedef struct
{
  GArray *frame_rt, *frame_score;       /* per frame index */
  GList *windows, *intervals, *alarms;  /* GstStructure copies */
  gboolean error;
  gchar *error_text;
} Run;

static void
run_clear (Run * r)
{
  g_array_unref (r->frame_rt);
  g_array_unref (r->frame_score);
  g_list_free_full (r->windows, (GDestroyNotify) gst_structure_free);
  g_list_free_full (r->intervals, (GDestroyNotify) gst_structure_free);
  g_list_free_full (r->alarms, (GDestroyNotify) gst_structure_free);
  g_free (r->error_text);
}

static Run
run_pipeline (const char *props)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u pattern=ball "
      "! video/x-raw,width=176,height=144,format=I420,framerate=25/1 ! tee "
      "name=t t. ! queue ! v.ref_sink t. ! queue ! videobalance "
      "brightness=0.05 contrast=0.9 ! v.dist_sink vmafhip name=v "
      "backend=cpu frame-message=true %s ! fakesink", FRAMES, props);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL, "%s", desc);
  g_free (desc);
  GstBus *bus = gst_element_get_bus (pipe);
  Run r = { g_array_new (FALSE, TRUE, sizeof (guint64)),
    g_array_new (FALSE, TRUE, sizeof (gdouble)), NULL, NULL, NULL, FALSE,
    NULL
  };
  GstMessage *m;

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (m);
    const gboolean done = GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gst_message_parse_error (m, &e, NULL);
      r.error = TRUE;
      r.error_text = g_strdup (e->message);
      g_error_free (e);
    } else if (s && gst_structure_has_name (s, "vmafhip-alarm")) {
      r.alarms = g_list_append (r.alarms, gst_structure_copy (s));
    } else if (s && gst_structure_has_name (s, "VMAF")) {
      const gchar *type = gst_structure_get_string (s, "type");
      if (!g_strcmp0 (type, "frame")) {
        gint index;
        guint64 rt;
        gdouble v;
        fail_unless (gst_structure_get_int (s, "index", &index));
        fail_unless (gst_structure_get_uint64 (s, "running-time", &rt));
        fail_unless (gst_structure_get_double (s, "vmaf", &v));
        g_array_set_size (r.frame_rt, MAX (r.frame_rt->len, (guint) index + 1));
        g_array_set_size (r.frame_score, MAX (r.frame_score->len, (guint) index + 1));
        g_array_index (r.frame_rt, guint64, index) = rt;
        g_array_index (r.frame_score, gdouble, index) = v;
      } else if (!g_strcmp0 (type, "window")) {
        r.windows = g_list_append (r.windows, gst_structure_copy (s));
      } else if (!g_strcmp0 (type, "interval")) {
        r.intervals = g_list_append (r.intervals, gst_structure_copy (s));
      }
    }
    gst_message_unref (m);
    if (done)
      break;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return r;
}

/* the mean, min and max of the frames starting in [start, end) */
static guint
frames_in (const Run * r, guint64 start, guint64 end, gdouble * mean,
    gdouble * min, gdouble * max)
{
  guint n = 0;
  gdouble sum = 0;
  *min = INFINITY;
  *max = -INFINITY;
  for (guint i = 0; i < r->frame_rt->len; i++) {
    const guint64 rt = g_array_index (r->frame_rt, guint64, i);
    const gdouble v = g_array_index (r->frame_score, gdouble, i);
    if (rt >= start && rt < end) {
      n++;
      sum += v;
      *min = MIN (*min, v);
      *max = MAX (*max, v);
    }
  }
  *mean = n ? sum / n : NAN;
  return n;
}

static void
check_span (const Run * r, const GstStructure * s)
{
  guint64 rt, duration;
  guint n;
  gdouble mean, min, max, v;
  fail_unless (gst_structure_get_uint64 (s, "running-time", &rt));
  fail_unless (gst_structure_get_uint64 (s, "duration", &duration));
  fail_unless (gst_structure_get_uint (s, "n-frames", &n));
  fail_unless_equals_int (frames_in (r, rt, rt + duration, &mean, &min,
          &max), n);
  fail_unless (gst_structure_get_double (s, "vmaf-mean", &v));
  fail_unless (fabs (v - mean) < 1e-9, "mean %.17g, frames say %.17g", v,
      mean);
  fail_unless (gst_structure_get_double (s, "score", &v));
  fail_unless (fabs (v - mean) < 1e-9);
  fail_unless (gst_structure_get_double (s, "vmaf-min", &v));
  fail_unless (v == min);
  fail_unless (gst_structure_get_double (s, "vmaf-max", &v));
  fail_unless (v == max);
  fail_unless (gst_structure_get_double (s, "vmaf-p5", &v));
  fail_unless (v >= min && v <= max);
  fail_unless (gst_structure_get_double (s, "vmaf-harmonic-mean",
          &v));
  fail_unless (v <= mean + 1e-9 && v >= min);
}

GST_START_TEST (test_windows_and_intervals)
{
  /* 1 s windows every 500 ms, 1 s intervals */
  Run r = run_pipeline ("window=1000000000 window-interval=500000000 "
      "interval=1000000000");
  fail_if (r.error, "%s", r.error_text);
  fail_unless_equals_int (r.frame_rt->len, FRAMES);
  /* full at 1 s, then at 1.5, 2, 2.5, 3 s */
  fail_unless_equals_int (g_list_length (r.windows), 5);
  for (GList * l = r.windows; l; l = l->next) {
    guint n;
    guint64 duration;
    fail_unless (gst_structure_get_uint (l->data, "n-frames", &n));
    fail_unless_equals_int (n, 25);
    fail_unless (gst_structure_get_uint64 (l->data, "duration", &duration));
    fail_unless_equals_uint64 (duration, GST_SECOND);
    check_span (&r, l->data);
  }
  /* three intervals of 25 frames: every frame once */
  fail_unless_equals_int (g_list_length (r.intervals), 3);
  guint total = 0;
  guint64 expected_start = 0;
  for (GList * l = r.intervals; l; l = l->next) {
    guint n;
    guint64 rt;
    fail_unless (gst_structure_get_uint (l->data, "n-frames", &n));
    fail_unless (gst_structure_get_uint64 (l->data, "running-time", &rt));
    fail_unless_equals_uint64 (rt, expected_start);
    expected_start += GST_SECOND;
    total += n;
    check_span (&r, l->data);
  }
  fail_unless_equals_int (total, FRAMES);
  fail_unless (r.alarms == NULL);
  run_clear (&r);
}

GST_END_TEST;

/* the intervals at the end of a JSON results file: the interval
 * messages' spans, counts and statistics */
GST_START_TEST (test_intervals_in_results_file)
{
  gchar *path = g_build_filename (g_get_tmp_dir (),
      "vmafhip-monitor-intervals.json", NULL);
  gchar *props = g_strdup_printf ("interval=1000000000 results-filename=%s",
      path);
  Run r = run_pipeline (props);
  GError *error = NULL;
  JsonParser *parser = json_parser_new ();

  fail_if (r.error, "%s", r.error_text);
  fail_unless (json_parser_load_from_file (parser, path, &error), "%s",
      error ? error->message : "");
  JsonObject *root = json_node_get_object (json_parser_get_root (parser));
  fail_unless (json_object_has_member (root, "pooled_metrics"));
  JsonArray *iv = json_object_get_array_member (root, "intervals");
  fail_unless (iv != NULL);
  fail_unless_equals_int (json_array_get_length (iv),
      g_list_length (r.intervals));
  guint k = 0;
  for (GList * l = r.intervals; l; l = l->next, k++) {
    JsonObject *o = json_array_get_object_element (iv, k);
    JsonObject *m = json_object_get_object_member (json_object_get_object_member
        (o, "metrics"), "vmaf");
    guint64 rt, duration;
    guint n;
    gdouble mean, p5;
    fail_unless (gst_structure_get_uint64 (l->data, "running-time", &rt));
    fail_unless (gst_structure_get_uint64 (l->data, "duration", &duration));
    fail_unless (gst_structure_get_uint (l->data, "n-frames", &n));
    fail_unless (gst_structure_get_double (l->data, "vmaf-mean",
            &mean));
    fail_unless (gst_structure_get_double (l->data, "vmaf-p5", &p5));
    fail_unless (fabs (json_object_get_double_member (o, "start")
            - rt / 1e9) < 1e-6);
    fail_unless (fabs (json_object_get_double_member (o, "end")
            - (rt + duration) / 1e9) < 1e-6);
    fail_unless_equals_int (json_object_get_int_member (o, "frames"), n);
    /* printed with 6 decimals, as libvmaf's pooled values */
    fail_unless (fabs (json_object_get_double_member (m, "mean") - mean)
        < 1e-6);
    fail_unless (fabs (json_object_get_double_member (m, "p5") - p5) < 1e-6);
  }
  fail_unless_equals_int (k, 3);
  g_object_unref (parser);
  g_unlink (path);
  g_free (path);
  g_free (props);
  run_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_alarm)
{
  /* a threshold above every score: the alarm after 400 ms below it,
   * counted from the first full window (400 ms) */
  Run r = run_pipeline ("window=400000000 alarm-threshold=100 "
      "alarm-duration=400000000");
  fail_if (r.error, "%s", r.error_text);
  fail_unless_equals_int (g_list_length (r.alarms), 1);
  const GstStructure *a = r.alarms->data;
  guint64 rt, duration, worst_index;
  gdouble worst, windowed, min = INFINITY;
  fail_unless_equals_string (gst_structure_get_string (a, "state"),
      "raised");
  fail_unless_equals_string (gst_structure_get_string (a, "model"),
      "vmaf");
  fail_unless (gst_structure_get_uint64 (a, "running-time", &rt));
  fail_unless (gst_structure_get_uint64 (a, "duration", &duration));
  /* below from frame 9 (the first full window), raised at the end of
   * frame 18 */
  fail_unless_equals_uint64 (rt, 9 * FRAME_NS);
  fail_unless (duration >= 400 * GST_MSECOND
      && duration < 400 * GST_MSECOND + FRAME_NS);
  fail_unless (gst_structure_get_double (a, "windowed-score", &windowed));
  fail_unless (windowed < 100);
  /* the worst frame is the lowest among those the span covers */
  fail_unless (gst_structure_get_uint64 (a, "worst-index", &worst_index));
  fail_unless (gst_structure_get_double (a, "worst-score", &worst));
  for (guint i = 9; i <= 18; i++)
    min = MIN (min, g_array_index (r.frame_score, gdouble, i));
  fail_unless (worst == min);
  fail_unless (g_array_index (r.frame_score, gdouble, worst_index) == worst);
  run_clear (&r);

  /* a threshold below every score: no alarm */
  r = run_pipeline ("window=400000000 alarm-threshold=1 "
      "alarm-duration=400000000");
  fail_if (r.error, "%s", r.error_text);
  fail_unless (r.alarms == NULL);
  run_clear (&r);
}

GST_END_TEST;

GST_START_TEST (test_bad_settings)
{
  Run r = run_pipeline ("alarm-threshold=50");
  fail_unless (r.error);
  fail_unless (strstr (r.error_text, "needs a window"), "%s", r.error_text);
  run_clear (&r);
  /* 10 ms: shorter than a 40 ms frame, known at negotiation */
  r = run_pipeline ("window=10000000");
  fail_unless (r.error);
  fail_unless (strstr (r.error_text, "shorter than one frame"), "%s",
      r.error_text);
  run_clear (&r);
  r = run_pipeline ("interval=20000000");
  fail_unless (r.error);
  fail_unless (strstr (r.error_text, "interval"), "%s", r.error_text);
  run_clear (&r);
}

GST_END_TEST;

static Suite *
vmafhip_monitor_suite (void)
{
  Suite *s = suite_create ("vmafhip-monitor");
  TCase *tc = tcase_create ("monitor");
  tcase_add_test (tc, test_windows_and_intervals);
  tcase_add_test (tc, test_intervals_in_results_file);
  tcase_add_test (tc, test_alarm);
  tcase_add_test (tc, test_bad_settings);
  suite_add_tcase (s, tc);
  return s;
}

GST_CHECK_MAIN (vmafhip_monitor);
