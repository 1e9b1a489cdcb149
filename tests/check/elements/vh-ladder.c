/* vmafhip — the renditions tests' ladder (see vh-ladder.h). */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>

#include "vh-ladder.h"



void
ladder_add (Ladder * l, int w, int h, int fps)
{
  const guint k = l->n_rungs++;
  l->rung[k] = gst_harness_new_with_element (l->f->element, "dist_sink_%u",
      NULL);
  fail_unless (l->rung[k] != NULL);
  /* a harness answers latency queries as live unless told: one live rung
   * would make the element wait on the harness's test clock, which no one
   * advances */
  gst_harness_set_live (l->rung[k], FALSE);
  video_info_init (&l->info[k], "I420", w, h);
  GST_VIDEO_INFO_FPS_N (&l->info[k]) = fps;
  gst_harness_set_src_caps (l->rung[k], gst_video_info_to_caps (&l->info[k]));
}

Ladder *
ladder_new (const char *props)
{
  Ladder *l = g_new0 (Ladder, 1);
  l->f = fixture_new (props, FALSE);
  video_info_init (&l->f->ref_info, "I420", W, H);
  video_info_init (&l->f->dist_info, "I420", W, H);
  content_init (&l->f->content, &l->f->ref_info, 23);
  gst_harness_set_src_caps (l->f->ref,
      gst_video_info_to_caps (&l->f->ref_info));
  gst_harness_set_src_caps (l->f->dist,
      gst_video_info_to_caps (&l->f->dist_info));
  return l;
}

/* Frame i on ref_sink, dist_sink and every rung still in `live` (NULL:
 * all) */
void
ladder_push (Ladder * l, guint i, const gboolean * live)
{
  fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
  fail_unless_equals_int (push_dist (l->f, i), GST_FLOW_OK);
  for (guint k = 0; k < l->n_rungs; k++)
    if (l->rung[k] && (!live || live[k]))
      fail_unless_equals_int (gst_harness_push (l->rung[k],
              rung_buffer (l->f, i, &l->info[k])), GST_FLOW_OK);
}

void
ladder_end (Ladder * l)
{
  for (guint k = 0; k < l->n_rungs; k++)
    if (l->rung[k])
      gst_harness_push_event (l->rung[k], gst_event_new_eos ());
  push_eos_both (l->f);
  wait_eos (l->f);
}

void
ladder_free (Ladder * l)
{
  for (guint k = 0; k < l->n_rungs; k++)
    if (l->rung[k])
      gst_harness_teardown (l->rung[k]);
  fixture_free (l->f);
  g_free (l);
}

/* The VMAF messages of one pad (frame messages copied, in order); its
 * pooled message's n-frames in *n_pooled_frames (-1: no pooled message) */
GPtrArray *
pad_frames (GList * msgs, const char *pad, gint * n_pooled_frames)
{
  GPtrArray *frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  *n_pooled_frames = -1;
  for (GList * m = msgs; m; m = m->next) {
    const GstStructure *s = vmaf_structure (m->data);
    if (!s || g_strcmp0 (gst_structure_get_string (s, "pad"), pad))
      continue;
    if (!g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
      g_ptr_array_add (frames, gst_structure_copy (s));
    } else if (!g_strcmp0 (gst_structure_get_string (s, "type"), "pooled")) {
      guint n;
      fail_unless (*n_pooled_frames < 0, "%s: two pooled messages", pad);
      fail_unless (gst_structure_get_uint (s, "n-frames", &n));
      *n_pooled_frames = (gint) n;
    }
  }
  return frames;
}

/* The pad's frame messages and its pooled message's n-frames (-1: none)
 * are as expected */
void
check_pad (GList * msgs, const char *pad, gint pooled, guint frames)
{
  gint n;
  GPtrArray *got = pad_frames (msgs, pad, &n);
  fail_unless_equals_int (n, pooled);
  fail_unless_equals_int (got->len, frames);
  g_ptr_array_unref (got);
}

/* check_pad for dist_sink_k, k = 0..n-1 */
void
check_rungs (GList * msgs, guint n, const gint * pooled,
    const guint * frames)
{
  for (guint k = 0; k < n; k++) {
    gchar *pad = g_strdup_printf ("dist_sink_%u", k);
    check_pad (msgs, pad, pooled[k], frames[k]);
    g_free (pad);
  }
}

/* The ended ladder's messages: every rung's pooled count and frame
 * messages (check_rungs), and dist_sink's N_FRAMES of each where
 * with_dist_sink; then the messages and the ladder freed */
void
ladder_check_free (Ladder * l, const gint * pooled, const guint * frames,
    gboolean with_dist_sink)
{
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  check_rungs (msgs, l->n_rungs, pooled, frames);
  if (with_dist_sink)
    check_pad (msgs, "dist_sink", N_FRAMES, N_FRAMES);
  free_messages (msgs);
  ladder_free (l);
}

gboolean
field_equal (GQuark field, const GValue * value, gpointer user_data)
{
  const GstStructure *other = user_data;
  const GValue *v = gst_structure_id_get_value (other, field);
  if (field == g_quark_from_static_string ("pad"))
    return TRUE;
  fail_unless (v != NULL, "%s missing", g_quark_to_string (field));
  fail_unless (gst_value_compare (value, v) == GST_VALUE_EQUAL,
      "%s: %s against %s in the single run", g_quark_to_string (field),
      gst_value_serialize (value), gst_value_serialize (v));
  return TRUE;
}

/* The frame messages of a run of frames first..first+n-1 with that rung
 * on dist_sink alone, the reference (the content) at ref_w x ref_h */
GPtrArray *
single_run_from (const char *props, int ref_w, int ref_h, int w, int h,
    guint first, guint n)
{
  Ladder *l = ladder_new (props);
  if (ref_w != W || ref_h != H) {
    video_info_init (&l->f->ref_info, "I420", ref_w, ref_h);
    gst_harness_set_src_caps (l->f->ref,
        gst_video_info_to_caps (&l->f->ref_info));
    content_clear (&l->f->content);
    content_init (&l->f->content, &l->f->ref_info, 23);
  }
  video_info_init (&l->f->dist_info, "I420", w, h);
  gst_harness_set_src_caps (l->f->dist,
      gst_video_info_to_caps (&l->f->dist_info));
  for (guint i = first; i < first + n; i++) {
    fail_unless_equals_int (push_ref (l->f, i), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (l->f->dist,
            rung_buffer (l->f, i, &l->f->dist_info)), GST_FLOW_OK);
  }
  push_eos_both (l->f);
  wait_eos (l->f);
  GList *msgs = take_messages (l->f->bus, &l->f->seen, GST_MESSAGE_ELEMENT);
  gint pooled;
  GPtrArray *frames = pad_frames (msgs, "dist_sink", &pooled);
  fail_unless_equals_int (pooled, n);
  free_messages (msgs);
  ladder_free (l);
  return frames;
}

/* The frame messages of a run with that rung on dist_sink alone */
GPtrArray *
single_run (const char *props, int w, int h)
{
  return single_run_from (props, W, H, w, h, 0, N_FRAMES);
}

typedef struct
{
  GstHarness *harness;
  GPtrArray *buffers;
} RungPush;

static gpointer
push_rung (gpointer data)
{
  RungPush *job = data;
  for (guint i = 0; i < job->buffers->len; i++)
    gst_harness_push (job->harness, g_ptr_array_index (job->buffers, i));
  gst_harness_push_event (job->harness, gst_event_new_eos ());
  g_ptr_array_unref (job->buffers);
  g_free (job);
  return NULL;
}

/* Pushes bufs (taken, the array too) into rung k from a thread of its
 * own, then EOS, as a branch delivers them: a missing frame is seen when
 * its successor arrives; g_thread_join the thread returned */
GThread *
ladder_push_rung_async (Ladder * l, guint k, GPtrArray * bufs)
{
  return push_async (l->rung[k], bufs);
}

GThread *
push_async (GstHarness * h, GPtrArray * bufs)
{
  RungPush *job = g_new (RungPush, 1);
  job->harness = h;
  job->buffers = bufs;
  return g_thread_new ("pusher", push_rung, job);
}

void
check_frames_aligned (GPtrArray * got, GPtrArray * aligned,
    gboolean consecutive)
{
  guint64 before = 0;
  for (guint k = 0; k < got->len; k++) {
    GstStructure *s = gst_structure_copy (g_ptr_array_index (got, k));
    guint64 ref_index;
    fail_unless (gst_structure_get_uint64 (s, "ref-index", &ref_index));
    if (consecutive && k > 0)
      fail_unless_equals_uint64 (ref_index, before + 1);
    before = ref_index;
    if (aligned) {
      gint index;
      fail_unless (ref_index < aligned->len);
      const GstStructure *a = g_ptr_array_index (aligned, ref_index);
      fail_unless (gst_structure_get_int (a, "index", &index));
      gst_structure_set (s, "index", G_TYPE_INT, index, NULL);
      gst_structure_foreach (s, field_equal, (gpointer) a);
    }
    gst_structure_free (s);
  }
}
