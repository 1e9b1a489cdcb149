/* vmafhip-soak — memory of the vmafhip element over a long run: a
 * videotestsrc reference and a videobalance-distorted copy of it, scored
 * by vmafhip (CPU, vmaf_v0.6.1, results file streamed to --log), printing
 * the process's resident memory (VmRSS, VmHWM) every tenth of the run.
 *
 *   GST_PLUGIN_PATH=build/gst/vmafhip build/gst/vmafhip/vmafhip-soak \
 *       [--frames 1000000] [--size 64x64] [--log FILE]
 *
 * A benchmark program, not a test: a flat VmRSS column is the result.
 */
#include <stdio.h>
#include <string.h>
#include <gst/gst.h>

#include "vh-memory.h"

typedef struct {
  guint64 frames, every;
  gint64 t0;
} Soak;

static GstPadProbeReturn
count_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Soak *soak = data;
  (void) pad;
  (void) info;
  if (++soak->frames % soak->every == 0) {
    guint64 rss, hwm;
    const double secs = (g_get_monotonic_time () - soak->t0) / 1e6;
    vh_process_memory (&rss, &hwm);
    printf ("%10" G_GUINT64_FORMAT " frames  VmRSS %7.1f MB  VmHWM %7.1f MB"
        "  %7.0f fps\n", soak->frames, rss / 1024.0, hwm / 1024.0,
        soak->frames / secs);
    fflush (stdout);
  }
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gint64 n_frames = 1000000;
  gchar *size = NULL, *log = NULL;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT64, &n_frames,
        "Frames (1000000)", "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "WxH (64x64)", "WxH"},
    {"log", 0, 0, G_OPTION_ARG_FILENAME, &log,
        "Results file (default: none)", "FILE"},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- vmafhip memory soak");
  GError *error = NULL;
  unsigned w = 64, h = 64;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)
      || (size && sscanf (size, "%ux%u", &w, &h) != 2) || n_frames < 10) {
    fprintf (stderr, "vmafhip-soak: %s\n", error ? error->message :
        "bad --size or --frames");
    return 2;
  }
  g_option_context_free (ctx);

  gchar *log_prop = log ? g_strdup_printf (" results-filename=%s", log) :
      g_strdup ("");
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%" G_GINT64_FORMAT
      " pattern=ball ! video/x-raw,format=I420,width=%u,height=%u,"
      "framerate=60/1 ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! "
      "videobalance contrast=0.9 ! v.dist_sink vmafhip name=v backend=cpu "
      "threads=1%s ! fakesink sync=false", n_frames, w, h, log_prop);
  GstElement *pipe = gst_parse_launch (desc, &error);
  if (!pipe) {
    fprintf (stderr, "vmafhip-soak: %s\n", error->message);
    return 1;
  }
  Soak soak = { 0, (guint64) n_frames / 10, g_get_monotonic_time () };
  GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), "v");
  GstPad *src = gst_element_get_static_pad (v, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_frame, &soak,
      NULL);
  gst_object_unref (src);
  gst_object_unref (v);

  printf ("vmafhip-soak: %" G_GINT64_FORMAT " frames of %ux%u, %s\n",
      n_frames, w, h, desc);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  int rc = 0;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    gst_message_parse_error (msg, &error, NULL);
    fprintf (stderr, "vmafhip-soak: %s\n", error->message);
    rc = 1;
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  g_free (desc);
  g_free (log_prop);
  return rc;
}
