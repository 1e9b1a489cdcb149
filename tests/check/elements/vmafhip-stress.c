/* vmafhip — state-change stress (issue 16): a thousand short pipelines
 * started and stopped with frames flowing, each in one of four ways picked
 * at random (seeded): run to EOS, a flushing seek mid-stream, NULL
 * mid-stream, NULL right after PLAYING; either pad may end first, or have
 * no frame at all; up to two renditions (dist_sink_%u request pads, full
 * or half size) requested with the pipeline, each with its own number of
 * frames, and released with it.  Every measurement's frames are scored
 * exactly once on every pad (indexes 0..n-1, each once, and its pooled
 * message counts n), a run to EOS scores every pair, and the process ends
 * with the file descriptors it started with and no growth in resident
 * memory.  On the CPU
 * (element-vmafhip-stress) and on the GPU backend against the mock HIP
 * runtime (element-vmafhip-stress-mock: its kernels compute nothing, so
 * the counts are checked, not the scores). */
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>

#include "vh-memory.h"
#include "vh-test-util.h"

#define CYCLES 1000
#define WARM_UP 50

enum { RUN_TO_EOS, SEEK, NULL_MID_STREAM, NULL_AT_ONCE, N_MODES };

static guint
open_fds (void)
{
  GDir *dir = g_dir_open ("/proc/self/fd", 0, NULL);
  guint n = 0;
  fail_unless (dir != NULL);
  while (g_dir_read_name (dir))
    n++;
  g_dir_close (dir);
  return n;
}

typedef struct {
  gint next_index;              /* the index the next frame must carry */
  guint measurements;           /* pooled messages seen */
  guint scored_total;
} Tally;

#define MAX_RENDITIONS 2

/* One VMAF message, into its pad's tally (t[0] dist_sink, t[1 + k]
 * dist_sink_k): frames come in order, once each; a pooled message closes
 * the measurement with the count of its frames. */
static void
tally_message (Tally * tallies, const GstStructure * s, guint cycle)
{
  const gchar *type = gst_structure_get_string (s, "type");
  const gchar *pad = gst_structure_get_string (s, "pad");
  guint k = 0;
  fail_unless (type != NULL && pad != NULL);
  if (strcmp (pad, "dist_sink")) {
    fail_unless (sscanf (pad, "dist_sink_%u", &k) == 1 && k < MAX_RENDITIONS,
        "cycle %u: pad %s", cycle, pad);
    k++;
  }
  Tally *t = &tallies[k];
  if (!strcmp (type, "frame")) {
    gint index;
    fail_unless (gst_structure_get_int (s, "index", &index));
    fail_unless (index == t->next_index, "cycle %u: frame %d after %d", cycle,
        index, t->next_index - 1);
    t->next_index++;
    t->scored_total++;
  } else if (!strcmp (type, "pooled")) {
    guint n;
    fail_unless (gst_structure_get_uint (s, "n-frames", &n));
    fail_unless (n == (guint) t->next_index, "cycle %u: pooled over %u "
        "frames, %d frame messages", cycle, n, t->next_index);
    t->next_index = 0;
    t->measurements++;
  }
}

/* One pipeline; the frames it scored, by mode in `scored`. */
static guint scored_renditions;

static void
run_cycle (GRand * rand, guint cycle, guint scored[N_MODES])
{
  const gint ref_n = g_rand_int_range (rand, 0, 10);
  const gint dist_n = g_rand_int_range (rand, 0, 10);
  const gint mode = g_rand_int_range (rand, 0, N_MODES);
  const gint stop_after = g_rand_int_range (rand, 0, 4);
  const guint n_renditions = (guint) g_rand_int_range (rand, 0,
      MAX_RENDITIONS + 1);
  gint rendition_n[MAX_RENDITIONS] = { 0 };
  GString *renditions = g_string_new (NULL);
  for (guint k = 0; k < n_renditions; k++) {
    const gint side = g_rand_boolean (rand) ? 64 : 32;
    rendition_n[k] = g_rand_int_range (rand, 0, 10);
    g_string_append_printf (renditions, "videotestsrc num-buffers=%d "
        "pattern=ball foreground-color=0xffc0c0c0 ! video/x-raw,format=I420,"
        "width=%d,height=%d,framerate=25/1 ! v.dist_sink_%u ",
        rendition_n[k], side, side, k);
  }
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%d pattern=ball ! "
      "video/x-raw,format=I420,width=64,height=64,framerate=25/1 ! "
      "v.ref_sink videotestsrc num-buffers=%d pattern=ball "
      "foreground-color=0xffd0d0d0 ! video/x-raw,format=I420,width=64,"
      "height=64,framerate=25/1 ! v.dist_sink %svmafhip name=v backend=%s "
      "threads=%d psnr=true frame-message=true ! fakesink sync=false",
      ref_n, dist_n, renditions->str, vh_test_backend (),
      1 + g_rand_int_range (rand, 0, 2));
  g_string_free (renditions, TRUE);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  g_free (desc);
  GstBus *bus = gst_element_get_bus (pipe);
  Tally tallies[1 + MAX_RENDITIONS] = { {0, 0, 0} };
  Tally *const t = &tallies[0];         /* dist_sink's */
  gboolean seeked = FALSE;

  fail_if (gst_element_set_state (pipe, GST_STATE_PLAYING)
      == GST_STATE_CHANGE_FAILURE);
  if (mode != NULL_AT_ONCE) {
    GstMessage *m;
    while ((m = gst_bus_timed_pop_filtered (bus, 20 * GST_SECOND,
                GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
      const GstMessageType type = GST_MESSAGE_TYPE (m);
      const GstStructure *s = gst_message_get_structure (m);
      if (type == GST_MESSAGE_ERROR) {
        GError *error = NULL;
        gst_message_parse_error (m, &error, NULL);
        fail ("cycle %u: %s", cycle, error->message);
      }
      if (s && gst_structure_has_name (s, "VMAF"))
        tally_message (tallies, s, cycle);
      gst_message_unref (m);
      if (type == GST_MESSAGE_EOS)
        break;
      if (mode == SEEK && !seeked && t->scored_total > (guint) stop_after) {
        /* back to the start: the frames so far are one measurement */
        fail_unless (gst_element_seek_simple (pipe, GST_FORMAT_TIME,
                GST_SEEK_FLAG_FLUSH, 0));
        seeked = TRUE;
      }
      if (mode == NULL_MID_STREAM && t->scored_total > (guint) stop_after)
        break;
    }
    fail_unless (m != NULL, "cycle %u: neither EOS nor an error in 20 s",
        cycle);
  }
  fail_unless (gst_element_set_state (pipe, GST_STATE_NULL)
      == GST_STATE_CHANGE_SUCCESS);
  if (mode == RUN_TO_EOS) {
    const guint pairs = (guint) MIN (ref_n, dist_n);
    fail_unless (t->scored_total == pairs, "cycle %u: %u of %u pairs scored",
        cycle, t->scored_total, pairs);
    fail_unless (t->measurements == (pairs ? 1u : 0u) && t->next_index == 0,
        "cycle %u: %u pooled messages, %d frames after the last", cycle,
        t->measurements, t->next_index);
  }
  for (guint k = 0; mode == RUN_TO_EOS && k < n_renditions; k++) {
    /* a rung scores the reference frames taken while it had frames: at
     * most its own and the reference's, at least every pair's */
    const Tally *r = &tallies[1 + k];
    const guint most = (guint) MIN (ref_n, rendition_n[k]);
    const guint least = (guint) MIN (MIN (ref_n, dist_n), rendition_n[k]);
    fail_unless (r->scored_total >= least && r->scored_total <= most,
        "cycle %u: dist_sink_%u scored %u, not within %u..%u", cycle, k,
        r->scored_total, least, most);
    fail_unless (r->measurements == (r->scored_total ? 1u : 0u)
        && r->next_index == 0, "cycle %u: dist_sink_%u: %u pooled messages, "
        "%d frames after the last", cycle, k, r->measurements, r->next_index);
    scored_renditions += r->scored_total;
  }
  if (mode == SEEK && seeked)
    fail_unless (t->measurements >= 1, "cycle %u: no pooled message at the "
        "seek", cycle);
  scored[mode] += t->scored_total;
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

GST_START_TEST (test_state_change_stress)
{
  GRand *rand = g_rand_new_with_seed (20261126);
  guint64 rss_warm = 0, rss_end = 0, hwm;
  guint fds_warm = 0, scored[N_MODES] = { 0 };

  for (guint cycle = 0; cycle < CYCLES; cycle++) {
    if (cycle == WARM_UP) {
      vh_process_memory (&rss_warm, &hwm);
      fds_warm = open_fds ();
    }
    run_cycle (rand, cycle, scored);
  }
  vh_process_memory (&rss_end, &hwm);
  const guint fds_end = open_fds ();
  printf ("%d cycles: VmRSS %.1f MB after %d, %.1f MB at the end; %u file "
      "descriptors after %d, %u at the end\n", CYCLES, rss_warm / 1024.0,
      WARM_UP, rss_end / 1024.0, fds_warm, WARM_UP, fds_end);
  printf ("frames scored: %u run to EOS, %u with a seek, %u stopped "
      "mid-stream; %u by renditions run to EOS\n", scored[RUN_TO_EOS],
      scored[SEEK], scored[NULL_MID_STREAM], scored_renditions);
  /* every way of stopping was exercised with frames flowing */
  fail_unless (scored[RUN_TO_EOS] > 500 && scored[SEEK] > 250
      && scored[NULL_MID_STREAM] > 250 && scored_renditions > 250);
  fail_unless_equals_int (fds_end, fds_warm);
#ifndef __SANITIZE_ADDRESS__
  /* (AddressSanitizer holds freed memory back, and checks leaks itself) */
  fail_unless (rss_end < rss_warm + 8 * 1024, "VmRSS grew from %.1f to %.1f "
      "MB over %d cycles", rss_warm / 1024.0, rss_end / 1024.0,
      CYCLES - WARM_UP);
#endif
  g_rand_free (rand);
}

GST_END_TEST;

static Suite *
vmafhip_stress_suite (void)
{
  Suite *s = suite_create ("vmafhip-stress");
  TCase *tc = tcase_create ("state-changes");

  tcase_set_timeout (tc, 600);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_state_change_stress);
  return s;
}

GST_CHECK_MAIN (vmafhip_stress);
