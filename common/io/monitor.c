/* vmafhip — live monitoring of per-frame scores (vh-monitor.h). */
#include "vh-monitor.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vh-error.h"
#include "vh-scores.h"

typedef struct {
  guint64 index, time, end;
  double *scores;               /* n_models */
} Frame;

struct VhMonitor {
  VhMonitorSettings s;
  unsigned n_models;
  GQueue window;                /* Frame *: the last `window` ns */
  GQueue spare;                 /* Frame *: left the window, reused (no
                                 * allocation per frame once it is full) */
  gboolean started;
  guint64 first_time, last_end;
  guint64 next_window_report;   /* end time at which the next is due */
  /* alarms */
  gboolean below, raised;
  guint64 below_since;
  guint64 worst_index, worst_time;
  double worst_score;
  /* intervals */
  guint64 interval_start;
  unsigned interval_frames;
  GArray *interval_scores;      /* double, n_models per frame */
  VhMonitorStats *stats;        /* n_models, for an event */
  double *scratch;
  unsigned scratch_size;
};

gboolean
vh_monitor_settings_active (const VhMonitorSettings *s)
{
  return s->window > 0 || s->interval > 0 || s->alarm_threshold >= 0;
}

gboolean
vh_monitor_settings_check (const VhMonitorSettings *s, guint64 frame,
    GError **error)
{
  if (s->alarm_threshold >= 0 && s->window == 0) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "alarm-threshold %g needs a window (property window) to watch",
        s->alarm_threshold);
    return FALSE;
  }
  if (s->alarm_hysteresis < 0 || isnan (s->alarm_hysteresis)) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "alarm-hysteresis %g is negative", s->alarm_hysteresis);
    return FALSE;
  }
  if (frame > 0 && s->window > 0 && s->window < frame) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "window %" G_GUINT64_FORMAT " ns is shorter than one frame (%"
        G_GUINT64_FORMAT " ns)", s->window, frame);
    return FALSE;
  }
  if (frame > 0 && s->interval > 0 && s->interval < frame) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "interval %" G_GUINT64_FORMAT " ns is shorter than one frame (%"
        G_GUINT64_FORMAT " ns)", s->interval, frame);
    return FALSE;
  }
  return TRUE;
}

VhMonitor *
vh_monitor_new (const VhMonitorSettings *s, unsigned n_models)
{
  VhMonitor *m = g_new0 (VhMonitor, 1);
  m->s = *s;
  if (m->s.window_interval == 0)
    m->s.window_interval = m->s.window;
  m->n_models = MAX (n_models, 1);
  g_queue_init (&m->window);
  g_queue_init (&m->spare);
  m->interval_scores = g_array_new (FALSE, FALSE, sizeof (double));
  m->stats = g_new0 (VhMonitorStats, m->n_models);
  return m;
}

static void
frame_free (gpointer p)
{
  Frame *f = p;
  g_free (f->scores);
  g_free (f);
}

void
vh_monitor_reset (VhMonitor *m)
{
  /* the window's frames are kept for reuse, as those that leave it */
  while (!g_queue_is_empty (&m->window))
    g_queue_push_tail (&m->spare, g_queue_pop_head (&m->window));
  m->started = m->below = m->raised = FALSE;
  m->interval_frames = 0;
  g_array_set_size (m->interval_scores, 0);
}

void
vh_monitor_free (VhMonitor *m)
{
  if (!m)
    return;
  vh_monitor_reset (m);
  g_queue_clear_full (&m->spare, frame_free);
  g_array_free (m->interval_scores, TRUE);
  g_free (m->stats);
  g_free (m->scratch);
  g_free (m);
}

/* stats of v[0..n) (n >= 1); v is reordered */
static void
compute_stats (double *v, unsigned n, VhMonitorStats *out)
{
  VhPoolAccum acc;
  VhPooled p;
  vh_pool_accum_init (&acc);
  for (unsigned i = 0; i < n; i++)
    vh_pool_accum_add (&acc, v[i]);
  vh_pool_accum_get (&acc, &p);
  out->mean = p.mean;
  out->min = p.min;
  out->max = p.max;
  out->harmonic_mean = p.harmonic_mean;
  qsort (v, n, sizeof *v, vh_compare_doubles);
  out->p5 = vh_percentile (v, n, 5.0);
}

/* n doubles, reallocated only to grow */
static double *
scratch (VhMonitor *m, unsigned n)
{
  if (n > m->scratch_size) {
    m->scratch = g_renew (double, m->scratch, n);
    m->scratch_size = n;
  }
  return m->scratch;
}

/* the window's statistics per model into m->stats */
static void
window_stats (VhMonitor *m)
{
  const unsigned n = g_queue_get_length (&m->window);
  double *v = scratch (m, n);
  for (unsigned k = 0; k < m->n_models; k++) {
    unsigned i = 0;
    for (GList *l = m->window.head; l; l = l->next)
      v[i++] = ((Frame *) l->data)->scores[k];
    compute_stats (v, n, &m->stats[k]);
  }
}

/* the windowed mean of the first model, alone (every frame: alarms) */
static double
window_mean (VhMonitor *m)
{
  VhPoolAccum acc;
  VhPooled p;
  vh_pool_accum_init (&acc);
  for (GList *l = m->window.head; l; l = l->next)
    vh_pool_accum_add (&acc, ((Frame *) l->data)->scores[0]);
  vh_pool_accum_get (&acc, &p);
  return p.mean;
}

static void
emit_interval (VhMonitor *m, guint64 end, VhMonitorEmit emit, gpointer data)
{
  const unsigned n = m->interval_frames;
  if (n == 0)
    return;
  double *v = scratch (m, n);
  const double *all = (const double *) m->interval_scores->data;
  for (unsigned k = 0; k < m->n_models; k++) {
    for (unsigned i = 0; i < n; i++)
      v[i] = all[i * m->n_models + k];
    compute_stats (v, n, &m->stats[k]);
  }
  const VhMonitorEvent e = {
    .kind = VH_MONITOR_INTERVAL, .start = m->interval_start, .end = end,
    .n_frames = n, .stats = m->stats,
  };
  emit (&e, data);
  m->interval_frames = 0;
  g_array_set_size (m->interval_scores, 0);
}

static void
watch_alarm (VhMonitor *m, const Frame *f, gboolean full,
    VhMonitorEmit emit, gpointer data)
{
  if (m->s.alarm_threshold < 0 || !full)
    return;
  const double wmean = window_mean (m);
  const double score = f->scores[0];
  if (!m->raised) {
    if (wmean >= m->s.alarm_threshold) {
      m->below = FALSE;
      return;
    }
    if (!m->below || score < m->worst_score) {
      if (!m->below)
        m->below_since = f->time;
      m->below = TRUE;
      m->worst_score = score;
      m->worst_index = f->index;
      m->worst_time = f->time;
    }
    if (f->end - m->below_since >= m->s.alarm_duration) {
      m->raised = TRUE;
      const VhMonitorEvent e = {
        .kind = VH_MONITOR_ALARM, .start = m->below_since, .end = f->end,
        .windowed = wmean, .worst_index = m->worst_index,
        .worst_time = m->worst_time, .worst_score = m->worst_score,
      };
      emit (&e, data);
    }
    return;
  }
  if (score < m->worst_score) {
    m->worst_score = score;
    m->worst_index = f->index;
    m->worst_time = f->time;
  }
  if (wmean >= m->s.alarm_threshold + m->s.alarm_hysteresis) {
    const VhMonitorEvent e = {
      .kind = VH_MONITOR_RECOVERY, .start = m->below_since, .end = f->end,
      .windowed = wmean, .worst_index = m->worst_index,
      .worst_time = m->worst_time, .worst_score = m->worst_score,
    };
    emit (&e, data);
    m->raised = m->below = FALSE;
  }
}

void
vh_monitor_push (VhMonitor *m, guint64 index, guint64 time,
    guint64 duration, const double *scores, VhMonitorEmit emit,
    gpointer data)
{
  const guint64 end = time + duration;
  m->last_end = end;
  if (!m->started) {
    m->started = TRUE;
    m->first_time = time;
    m->next_window_report = time + m->s.window;
    m->interval_start = time;
  }

  /* intervals: a frame starting at or past the interval's end closes it */
  if (m->s.interval > 0) {
    while (time >= m->interval_start + m->s.interval) {
      emit_interval (m, m->interval_start + m->s.interval, emit, data);
      m->interval_start += m->s.interval;
    }
    g_array_append_vals (m->interval_scores, scores, m->n_models);
    m->interval_frames++;
  }

  if (m->s.window == 0)
    return;
  Frame *f = g_queue_pop_head (&m->spare);
  if (!f) {
    f = g_new (Frame, 1);
    f->scores = g_new (double, m->n_models);
  }
  f->index = index;
  f->time = time;
  f->end = end;
  memcpy (f->scores, scores, m->n_models * sizeof (double));
  g_queue_push_tail (&m->window, f);
  /* frames whose span ended before the window began leave it */
  while (end > m->s.window && ((Frame *) m->window.head->data)->end
      <= end - m->s.window)
    g_queue_push_tail (&m->spare, g_queue_pop_head (&m->window));

  const gboolean full = end - m->first_time >= m->s.window;
  watch_alarm (m, f, full, emit, data);
  if (full && end >= m->next_window_report) {
    window_stats (m);
    const Frame *oldest = m->window.head->data;
    const VhMonitorEvent e = {
      .kind = VH_MONITOR_WINDOW, .start = oldest->time, .end = end,
      .n_frames = g_queue_get_length (&m->window), .stats = m->stats,
    };
    emit (&e, data);
    while (m->next_window_report <= end)
      m->next_window_report += m->s.window_interval;
  }
}

void
vh_monitor_finish (VhMonitor *m, VhMonitorEmit emit, gpointer data)
{
  /* the partial interval ends with its last frame */
  if (m->s.interval > 0 && m->interval_frames > 0)
    emit_interval (m, MAX (m->last_end, m->interval_start), emit, data);
}
