/* vmafhip — the renditions tests' ladder: a fixture (vh-element-fixture.h)
 * with dist_sink_%u rungs, pushed frame by frame or from threads of their
 * own, and the checks of each pad's messages against a separate run. */
#ifndef VH_LADDER_H
#define VH_LADDER_H

#include <gst/check/gstharness.h>

#include "vh-element-fixture.h"

#define N_FRAMES 5
#define MAX_RUNGS 3

typedef struct {
  Fixture *f;
  GstHarness *rung[MAX_RUNGS];
  GstVideoInfo info[MAX_RUNGS];
  guint n_rungs;
} Ladder;

void ladder_add (Ladder * l, int w, int h, int fps);

Ladder * ladder_new (const char *props);

/* Frame i on ref_sink, dist_sink and every rung still in `live` (NULL:
 * all) */
void ladder_push (Ladder * l, guint i, const gboolean * live);

/* EOS on every pad, then the output's EOS waited for */
void ladder_end (Ladder * l);

/* Every harness torn down, the fixture freed */
void ladder_free (Ladder * l);

/* The VMAF messages of one pad (frame messages copied, in order); its
 * pooled message's n-frames in *n_pooled_frames (-1: no pooled message) */
GPtrArray * pad_frames (GList * msgs, const char *pad, gint * n_pooled_frames);

/* The pad's frame messages and its pooled message's n-frames (-1: none)
 * are as expected */
void check_pad (GList * msgs, const char *pad, gint pooled, guint frames);

/* check_pad for dist_sink_k, k = 0..n-1 */
void check_rungs (GList * msgs, guint n, const gint * pooled,
    const guint * frames);

/* The ended ladder's messages: every rung's pooled count and frame
 * messages (check_rungs), and dist_sink's N_FRAMES of each where
 * with_dist_sink; then the messages and the ladder freed */
void ladder_check_free (Ladder * l, const gint * pooled, const guint * frames,
    gboolean with_dist_sink);

/* gst_structure_foreach: the field (but `pad`) equal in user_data, the
 * same message of a separate run */
gboolean field_equal (GQuark field, const GValue * value, gpointer user_data);

/* The frame messages of a run of frames first..first+n-1 with that rung
 * on dist_sink alone, the reference (the content) at ref_w x ref_h */
GPtrArray * single_run_from (const char *props, int ref_w, int ref_h, int w, int h,
    guint first, guint n);

/* The frame messages of a run with that rung on dist_sink alone */
GPtrArray * single_run (const char *props, int w, int h);

/* Pushes bufs (taken, the array too) into rung k from a thread of its
 * own, then EOS, as a branch delivers them: a missing frame is seen when
 * its successor arrives; g_thread_join the thread returned */
GThread *ladder_push_rung_async (Ladder * l, guint k, GPtrArray * bufs);

/* Each frame message in `got` (a rung's) is its reference frame's
 * (ref-index; each the one after the frame before where `consecutive`)
 * and, where `aligned` is given (NULL: the mock runtime, no scores),
 * equals that reference frame's message in the aligned run (but for its
 * index), motion included */
void check_frames_aligned (GPtrArray * got, GPtrArray * aligned,
    gboolean consecutive);

/* The same into any pad's harness */
GThread *push_async (GstHarness * h, GPtrArray * bufs);

#endif /* VH_LADDER_H */
