/* vmafhip — live monitoring of per-frame scores: rolling windows, alarms
 * and consecutive intervals (issue 14), from each frame's scores and time.
 *
 *   VhMonitor *m = vh_monitor_new (&settings, n_models);
 *   for each frame, in order:
 *     vh_monitor_push (m, index, time, duration, scores, emit, data);
 *   at the end (EOS): vh_monitor_finish (m, emit, data);
 *
 * Times are nanoseconds (the element passes running time).  A frame spans
 * [time, time + duration).
 *  - Windows: the frames whose span ends within the last `window` ns,
 *    reported (VH_MONITOR_WINDOW) once a whole window has passed since the
 *    first frame, then every `window_interval` ns of stream.
 *  - Alarms, on the first model's windowed mean: VH_MONITOR_ALARM once it
 *    has stayed below `alarm_threshold` for `alarm_duration` ns;
 *    VH_MONITOR_RECOVERY once it is back at `alarm_threshold` +
 *    `alarm_hysteresis` or above.  Each carries its span (from the first
 *    frame below the threshold) and the worst frame in it.
 *  - Intervals: consecutive spans of `interval` ns from the first frame,
 *    each reported (VH_MONITOR_INTERVAL) when a frame of the next begins
 *    or at vh_monitor_finish.
 * Statistics: mean, min, max and libvmaf's harmonic mean (n / Σ 1/(x+1) −
 * 1) as the element's pooled values, and the 5th percentile (linear
 * between the two nearest ranks, as numpy's default). */
#ifndef VH_MONITOR_H
#define VH_MONITOR_H

#include <glib.h>

G_BEGIN_DECLS

typedef struct {
  guint64 window;               /* ns; 0: no windows (nor alarms) */
  guint64 window_interval;      /* ns between window reports; 0: window */
  double alarm_threshold;       /* < 0: no alarms */
  guint64 alarm_duration;       /* ns */
  double alarm_hysteresis;      /* >= 0 */
  guint64 interval;             /* ns; 0: no intervals */
} VhMonitorSettings;

typedef enum {
  VH_MONITOR_WINDOW,
  VH_MONITOR_ALARM,
  VH_MONITOR_RECOVERY,
  VH_MONITOR_INTERVAL,
} VhMonitorKind;

typedef struct {
  double mean, min, max, harmonic_mean, p5;
} VhMonitorStats;

typedef struct {
  VhMonitorKind kind;
  guint64 start, end;           /* ns: the span the event covers */
  unsigned n_frames;
  const VhMonitorStats *stats;  /* per model (window, interval); NULL for
                                 * alarm and recovery */
  double windowed;              /* alarm, recovery: the windowed mean */
  guint64 worst_index, worst_time;  /* alarm, recovery: the worst frame */
  double worst_score;
} VhMonitorEvent;

typedef void (*VhMonitorEmit) (const VhMonitorEvent *event, gpointer data);

typedef struct VhMonitor VhMonitor;

/* Checks the settings against the frame duration (0: unknown): a window
 * shorter than a frame, alarm settings without a window, an interval
 * shorter than a frame, a negative hysteresis.  The error names the
 * setting (by the element's property names). */
gboolean vh_monitor_settings_check (const VhMonitorSettings *settings,
    guint64 frame_duration, GError **error);
/* Whether the settings ask for anything at all. */
gboolean vh_monitor_settings_active (const VhMonitorSettings *settings);

VhMonitor *vh_monitor_new (const VhMonitorSettings *settings,
    unsigned n_models);
void vh_monitor_free (VhMonitor *monitor);
/* Forgets every frame (a flushing seek): the next push starts anew. */
void vh_monitor_reset (VhMonitor *monitor);
/* scores: one per model; frames in increasing time. */
void vh_monitor_push (VhMonitor *monitor, guint64 index, guint64 time,
    guint64 duration, const double *scores, VhMonitorEmit emit,
    gpointer data);
/* The last, partial interval. */
void vh_monitor_finish (VhMonitor *monitor, VhMonitorEmit emit,
    gpointer data);

G_END_DECLS
#endif /* VH_MONITOR_H */
