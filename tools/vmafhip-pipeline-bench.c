/* vmafhip-pipeline-bench — times a gst-launch pipeline as a user runs it.
 *
 *   vmafhip-pipeline-bench [--frames N] [--label TEXT] PIPELINE...
 *
 * The pipeline is prerolled first (PAUSED: elements started, GPU contexts
 * created, files opened), then timed from PLAYING to EOS.  N is the number
 * of frames (or pairs) the whole pipeline handles, summed over its
 * branches; the program prints N / seconds beside the start-up time.  A
 * benchmark program, not a test: the figures mean something only as ratios
 * against a baseline pipeline run on the same machine in the same session.
 * It also prints how many frames the vmafhip elements' pooled messages
 * (one per element and distorted pad) say were scored, so that a figure
 * is never one of frames dropped unscored.
 */
#include <gst/gst.h>
#include <stdio.h>
#include <stdlib.h>

/* what the pooled messages said */
typedef struct
{
  guint messages;
  guint64 frames;
} Pooled;

static void
count_pooled (GstMessage * m, Pooled * pooled)
{
  const GstStructure *s = gst_message_get_structure (m);
  guint n = 0;
  if (s && gst_structure_has_name (s, "VMAF")
      && !g_strcmp0 (gst_structure_get_string (s, "type"), "pooled")
      && gst_structure_get_uint (s, "n-frames", &n)) {
    pooled->messages++;
    pooled->frames += n;
  }
}

static gboolean
wait_for (GstElement * pipeline, GstMessageType until, Pooled * pooled,
    GError ** error)
{
  GstBus *bus = gst_element_get_bus (pipeline);
  gboolean ok = FALSE;
  for (;;) {
    GstMessage *m = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
        until | GST_MESSAGE_ERROR | GST_MESSAGE_ASYNC_DONE
        | GST_MESSAGE_ELEMENT);
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT) {
      count_pooled (m, pooled);
      gst_message_unref (m);
      continue;
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      gchar *debug = NULL;
      gst_message_parse_error (m, error, &debug);
      g_prefix_error (error, "%s: ", GST_OBJECT_NAME (GST_MESSAGE_SRC (m)));
      g_free (debug);
      gst_message_unref (m);
      break;
    }
    const gboolean done = GST_MESSAGE_TYPE (m) & until;
    gst_message_unref (m);
    if (done) {
      ok = TRUE;
      break;
    }
  }
  gst_object_unref (bus);
  return ok;
}

int
main (int argc, char **argv)
{
  gint64 frames = 0;
  gchar *label = NULL;
  gchar **rest = NULL;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT64, &frames,
        "frames (or pairs) the pipeline handles in all, for the rate", "N"},
    {"label", 'l', 0, G_OPTION_ARG_STRING, &label, "name printed", "TEXT"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL,
        "PIPELINE"},
    {NULL}
  };
  GError *error = NULL;
  GOptionContext *ctx = g_option_context_new ("PIPELINE...");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error) || !rest) {
    fprintf (stderr, "%s\n", error ? error->message : "no pipeline given");
    return 2;
  }
  g_option_context_free (ctx);

  gchar *description = g_strjoinv (" ", rest);
  GstElement *pipeline = gst_parse_launch (description, &error);
  if (!pipeline) {
    fprintf (stderr, "cannot build the pipeline: %s\n", error->message);
    return 2;
  }
  const gint64 t0 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PAUSED);
  Pooled pooled = { 0, 0 };
  if (!wait_for (pipeline, GST_MESSAGE_ASYNC_DONE, &pooled, &error))
    goto fail;
  const gint64 t1 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_PLAYING);
  if (!wait_for (pipeline, GST_MESSAGE_EOS, &pooled, &error))
    goto fail;
  const gint64 t2 = g_get_monotonic_time ();
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);

  const double run_s = (t2 - t1) / 1e6;
  printf ("%s: %" G_GINT64_FORMAT " frames in %.3f s = %.0f fps "
      "(start-up %.3f s)\n", label ? label : "pipeline", frames, run_s,
      run_s > 0 ? frames / run_s : 0.0, (t1 - t0) / 1e6);
  if (pooled.messages)
    printf ("  scored: %" G_GUINT64_FORMAT " frames in %u pooled messages\n",
        pooled.frames, pooled.messages);
  g_free (description);
  g_free (label);
  g_strfreev (rest);
  return 0;

fail:
  fprintf (stderr, "%s: %s\n", label ? label : "pipeline", error->message);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return 1;
}
