/* vmafhip — live monitoring (common/io/monitor.c) on crafted score sequences:
 * windows (which frames, when, their statistics against a direct
 * computation), alarms (raised after the duration below the threshold,
 * not before; cleared only above threshold + hysteresis; the worst
 * frame), intervals (consecutive, the last partial one at the end), a
 * reset, and the settings' errors. */
#include <check.h>
#include <math.h>

#include <glib.h>

#include "vh-error.h"
#include "vh-monitor.h"

#define MS 1000000ull
#define FRAME (40 * MS)         /* 25 fps */

typedef struct {
  VhMonitorKind kind;
  guint64 start, end;
  unsigned n_frames;
  VhMonitorStats stats[2];
  guint64 worst_index;
  double worst_score, windowed;
} Seen;

static void
record (const VhMonitorEvent *e, gpointer data)
{
  GArray *seen = data;
  Seen s = { .kind = e->kind, .start = e->start, .end = e->end,
    .n_frames = e->n_frames, .worst_index = e->worst_index,
    .worst_score = e->worst_score, .windowed = e->windowed };
  if (e->stats) {
    s.stats[0] = e->stats[0];
    s.stats[1] = e->stats[1];
  }
  g_array_append_val (seen, s);
}

static GArray *
run (const VhMonitorSettings *set, const double *score, unsigned n,
    gboolean finish)
{
  GArray *seen = g_array_new (FALSE, TRUE, sizeof (Seen));
  VhMonitor *m = vh_monitor_new (set, 2);
  for (unsigned i = 0; i < n; i++) {
    /* the second model: the first's score halved */
    const double s[2] = { score[i], score[i] / 2 };
    vh_monitor_push (m, i, 1000 * MS + i * FRAME, FRAME, s, record, seen);
  }
  if (finish)
    vh_monitor_finish (m, record, seen);
  vh_monitor_free (m);
  return seen;
}

static unsigned
count (GArray *seen, VhMonitorKind kind)
{
  unsigned n = 0;
  for (guint i = 0; i < seen->len; i++)
    n += g_array_index (seen, Seen, i).kind == kind;
  return n;
}

START_TEST (test_windows)
{
  /* 1 s windows (25 frames) reported every 500 ms, over 4 s */
  const VhMonitorSettings set = { .window = 1000 * MS,
    .window_interval = 500 * MS, .alarm_threshold = -1 };
  double score[100];
  for (unsigned i = 0; i < 100; i++)
    score[i] = 50 + (i * 37 % 41);
  GArray *seen = run (&set, score, 100, TRUE);
  /* full at frame 24 (end 1.0 s), then every 12.5 frames: ends at 1.0,
   * 1.52 (frame 37), 2.0, ... 4.0 s: 7 reports */
  ck_assert_uint_eq (count (seen, VH_MONITOR_WINDOW), 7);
  for (guint e = 0; e < seen->len; e++) {
    const Seen *s = &g_array_index (seen, Seen, e);
    ck_assert_uint_eq (s->n_frames, 25);
    ck_assert_uint_eq (s->end - s->start, 1000 * MS);
    /* the window's frames: the 25 ending at s->end */
    const unsigned last = (unsigned) ((s->end - 1000 * MS) / FRAME) - 1;
    double sum = 0, inv = 0, mn = 1e9, v[25];
    for (unsigned i = 0; i < 25; i++) {
      v[i] = score[last - 24 + i];
      sum += v[i];
      inv += 1.0 / (v[i] + 1.0);
      mn = MIN (mn, v[i]);
    }
    ck_assert_double_eq_tol (s->stats[0].mean, sum / 25, 1e-12);
    ck_assert_double_eq_tol (s->stats[0].harmonic_mean, 25 / inv - 1, 1e-9);
    ck_assert_double_eq (s->stats[0].min, mn);
    ck_assert_double_eq_tol (s->stats[1].mean, sum / 50, 1e-12);
    /* the 5th percentile: rank 1.2 of the sorted 25 */
    for (unsigned a = 0; a < 25; a++)
      for (unsigned b = a + 1; b < 25; b++)
        if (v[b] < v[a]) {
          const double t = v[a];
          v[a] = v[b];
          v[b] = t;
        }
    ck_assert_double_eq_tol (s->stats[0].p5, v[1] + 0.2 * (v[2] - v[1]),
        1e-12);
  }
  g_array_free (seen, TRUE);
}
END_TEST

START_TEST (test_alarms)
{
  /* 400 ms window (10 frames), alarm below 60 held for 1 s, cleared at
   * 65: 90 for 2 s, 40 for 2 s, 62 for 2 s (below 65: stays raised), 90 */
  const VhMonitorSettings set = { .window = 400 * MS,
    .alarm_threshold = 60, .alarm_duration = 1000 * MS,
    .alarm_hysteresis = 5 };
  double score[200];
  for (unsigned i = 0; i < 200; i++)
    score[i] = i < 50 ? 90 : i < 100 ? 40 : i < 150 ? 62 : 90;
  score[70] = 10;               /* the worst frame */
  GArray *seen = run (&set, score, 200, TRUE);
  ck_assert_uint_eq (count (seen, VH_MONITOR_ALARM), 1);
  ck_assert_uint_eq (count (seen, VH_MONITOR_RECOVERY), 1);
  for (guint e = 0; e < seen->len; e++) {
    const Seen *s = &g_array_index (seen, Seen, e);
    if (s->kind == VH_MONITOR_ALARM) {
      /* the windowed mean first drops below 60 at frame 56 (7 of 10 at
       * 40: 55; at frame 55 it is 60 exactly, not below); 1 s later, at
       * the end of frame 80, the alarm */
      ck_assert_uint_eq (s->start, 1000 * MS + 56 * FRAME);
      ck_assert_uint_eq (s->end, 1000 * MS + 81 * FRAME);
      ck_assert_double_lt (s->windowed, 60);
      ck_assert_uint_eq (s->worst_index, 70);
      ck_assert_double_eq (s->worst_score, 10);
    } else if (s->kind == VH_MONITOR_RECOVERY) {
      /* 62 never reaches 65: recovery in the last part, at the first
       * window whose mean reaches 65: frame 151 (2 of 10 at 90: 67.6) */
      ck_assert_uint_eq (s->end, 1000 * MS + 152 * FRAME);
      ck_assert_double_ge (s->windowed, 65);
      ck_assert_uint_eq (s->worst_index, 70);
    }
  }
  g_array_free (seen, TRUE);

  /* a dip shorter than the duration raises nothing */
  for (unsigned i = 0; i < 200; i++)
    score[i] = i >= 60 && i < 70 ? 20 : 90;
  seen = run (&set, score, 200, TRUE);
  ck_assert_uint_eq (count (seen, VH_MONITOR_ALARM), 0);
  ck_assert_uint_eq (count (seen, VH_MONITOR_RECOVERY), 0);
  g_array_free (seen, TRUE);
}
END_TEST

START_TEST (test_intervals)
{
  /* 2 s intervals over 5.2 s (130 frames): 50, 50 and a last 30 */
  const VhMonitorSettings set = { .interval = 2000 * MS,
    .alarm_threshold = -1 };
  double score[130];
  for (unsigned i = 0; i < 130; i++)
    score[i] = i;
  GArray *seen = run (&set, score, 130, FALSE);
  ck_assert_uint_eq (seen->len, 2);     /* the last waits for finish */
  g_array_free (seen, TRUE);
  seen = run (&set, score, 130, TRUE);
  ck_assert_uint_eq (seen->len, 3);
  const unsigned first[3] = { 0, 50, 100 }, n[3] = { 50, 50, 30 };
  for (unsigned k = 0; k < 3; k++) {
    const Seen *s = &g_array_index (seen, Seen, k);
    ck_assert_int_eq (s->kind, VH_MONITOR_INTERVAL);
    ck_assert_uint_eq (s->n_frames, n[k]);
    ck_assert_uint_eq (s->start, 1000 * MS + k * 2000 * MS);
    ck_assert_uint_eq (s->end, k < 2 ? s->start + 2000 * MS
        : 1000 * MS + 130 * FRAME);
    ck_assert_double_eq_tol (s->stats[0].mean, first[k] + (n[k] - 1) / 2.0,
        1e-12);
    ck_assert_double_eq (s->stats[0].min, first[k]);
    ck_assert_double_eq (s->stats[0].max, first[k] + n[k] - 1);
  }
  g_array_free (seen, TRUE);
}
END_TEST

START_TEST (test_reset)
{
  const VhMonitorSettings set = { .window = 400 * MS,
    .alarm_threshold = -1, .interval = 1000 * MS };
  GArray *seen = g_array_new (FALSE, TRUE, sizeof (Seen));
  VhMonitor *m = vh_monitor_new (&set, 2);
  const double s[2] = { 80, 40 };
  for (unsigned i = 0; i < 8; i++)
    vh_monitor_push (m, i, i * FRAME, FRAME, s, record, seen);
  vh_monitor_reset (m);
  /* after a seek: times jump back; nothing of before is counted */
  for (unsigned i = 0; i < 10; i++)
    vh_monitor_push (m, i, 5000 * MS + i * FRAME, FRAME, s, record, seen);
  vh_monitor_finish (m, record, seen);
  ck_assert_uint_eq (count (seen, VH_MONITOR_WINDOW), 1);
  const Seen *last = &g_array_index (seen, Seen, seen->len - 1);
  ck_assert_int_eq (last->kind, VH_MONITOR_INTERVAL);
  ck_assert_uint_eq (last->n_frames, 10);
  ck_assert_uint_eq (last->start, 5000 * MS);
  vh_monitor_free (m);
  g_array_free (seen, TRUE);
}
END_TEST

START_TEST (test_settings)
{
  GError *error = NULL;
  VhMonitorSettings set = { .alarm_threshold = 50 };
  ck_assert (!vh_monitor_settings_check (&set, FRAME, &error));
  ck_assert (strstr (error->message, "needs a window"));
  g_clear_error (&error);
  set = (VhMonitorSettings) { .window = 10 * MS, .alarm_threshold = -1 };
  ck_assert (!vh_monitor_settings_check (&set, FRAME, &error));
  ck_assert (strstr (error->message, "shorter than one frame"));
  g_clear_error (&error);
  set = (VhMonitorSettings) { .interval = 10 * MS, .alarm_threshold = -1 };
  ck_assert (!vh_monitor_settings_check (&set, FRAME, &error));
  ck_assert (strstr (error->message, "interval"));
  g_clear_error (&error);
  set = (VhMonitorSettings) { .window = FRAME, .alarm_threshold = 10,
    .alarm_hysteresis = -1 };
  ck_assert (!vh_monitor_settings_check (&set, FRAME, &error));
  ck_assert (strstr (error->message, "alarm-hysteresis"));
  g_clear_error (&error);
  set = (VhMonitorSettings) { .window = FRAME, .alarm_threshold = 10 };
  ck_assert (vh_monitor_settings_check (&set, FRAME, &error));
  ck_assert (vh_monitor_settings_active (&set));
  set = (VhMonitorSettings) { .alarm_threshold = -1 };
  ck_assert (!vh_monitor_settings_active (&set));
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("monitor");
  TCase *tc = tcase_create ("monitor");
  tcase_add_test (tc, test_windows);
  tcase_add_test (tc, test_alarms);
  tcase_add_test (tc, test_intervals);
  tcase_add_test (tc, test_reset);
  tcase_add_test (tc, test_settings);
  suite_add_tcase (s, tc);
  SRunner *runner = srunner_create (s);
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
