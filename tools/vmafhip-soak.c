/* vmafhip-soak — memory of the vmafhip element over a long run, printing
 * the process's resident memory (VmRSS, VmHWM) and, with backend=hip, the
 * GPU's memory in use every tenth of the run (--every N: every N frames).
 *
 * Two sources: `testsrc` (the default) a videotestsrc reference and a
 * videobalance-distorted copy of it; `memory` two appsrc pushing the same
 * eight pre-rendered synthetic pairs in turn (no per-frame source work, for
 * runs the sources alone could not feed, such as 1080p on the GPU).
 *
 *   GST_PLUGIN_PATH=build/gst/vmafhip build/gst/vmafhip/vmafhip-soak \
 *       [--frames 1000000] [--size 64x64] [--log FILE] [--every N]
 *       [--backend cpu|hip] [--source testsrc|memory]
 *
 * A benchmark program, not a test: flat memory columns are the result.
 */
#include <stdio.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "vh-gpu.h"
#include "vh-memory.h"
#include "vh-synth-gst.h"
#include "vh-tool-config.h"

#define DISTINCT 8

typedef struct {
  guint64 frames, every;
  gint64 t0;
  VhGpu *gpu;                   /* NULL: no GPU column */
} Soak;

static GstPadProbeReturn
count_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Soak *soak = data;
  (void) pad;
  (void) info;
  if (++soak->frames % soak->every == 0) {
    guint64 rss, hwm, gpu_bytes = 0;
    const double secs = (g_get_monotonic_time () - soak->t0) / 1e6;
    vh_process_memory (&rss, &hwm);
    printf ("%10" G_GUINT64_FORMAT " frames  VmRSS %7.1f MB  VmHWM %7.1f MB",
        soak->frames, rss / 1024.0, hwm / 1024.0);
    if (soak->gpu && vh_gpu_memory_in_use (soak->gpu, &gpu_bytes, NULL))
      printf ("  GPU in use %8.1f MB", gpu_bytes / 1048576.0);
    printf ("  %7.0f fps\n", soak->frames / secs);
    fflush (stdout);
  }
  return GST_PAD_PROBE_OK;
}

/* The memory source: the pairs pushed in turn from this thread until
 * n_frames, then EOS on both. */
static gboolean
push_frames (GstElement * pipe, unsigned w, unsigned h, gint64 n_frames)
{
  GstElement *src[2] = { gst_bin_get_by_name (GST_BIN (pipe), "r"),
    gst_bin_get_by_name (GST_BIN (pipe), "d")
  };
  GstBuffer *ref_frames[DISTINCT], *dist_frames[DISTINCT];
  GstBuffer **frames[2] = { ref_frames, dist_frames };
  vh_synth_gst_frames (w, h, DISTINCT, frames);
  const gboolean ok = vh_synth_gst_push (src, frames, 2, DISTINCT, n_frames)
      == n_frames;
  for (int k = 0; k < 2; k++) {
    gst_object_unref (src[k]);
    for (unsigned i = 0; i < DISTINCT; i++)
      gst_buffer_unref (frames[k][i]);
  }
  return ok;
}

int
main (int argc, char **argv)
{
  gint64 n_frames = 1000000, every = 0;
  gchar *size = NULL, *log = NULL, *backend = NULL, *source = NULL;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT64, &n_frames,
        "Frames (1000000)", "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "WxH (64x64)", "WxH"},
    {"log", 0, 0, G_OPTION_ARG_FILENAME, &log,
        "Results file (default: none)", "FILE"},
    {"every", 0, 0, G_OPTION_ARG_INT64, &every,
        "Print every N frames (default: a tenth of the run)", "N"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &backend,
        "The element's backend: cpu (default) or hip", "B"},
    {"source", 0, 0, G_OPTION_ARG_STRING, &source,
        "testsrc (default) or memory", "S"},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- vmafhip memory soak");
  GError *error = NULL;
  unsigned w = 64, h = 64;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  const gboolean parsed = g_option_context_parse (ctx, &argc, &argv, &error);
  g_option_context_free (ctx);
  if (!backend)
    backend = g_strdup ("cpu");
  if (!source)
    source = g_strdup ("testsrc");
  const gboolean from_memory = !strcmp (source, "memory");
  if (!parsed || (size && sscanf (size, "%ux%u", &w, &h) != 2)
      || n_frames < 10 || every < 0 || (strcmp (backend, "cpu")
          && strcmp (backend, "hip")) || (!from_memory
          && strcmp (source, "testsrc"))) {
    fprintf (stderr, "vmafhip-soak: %s\n", error ? error->message :
        "bad --size, --frames, --every, --backend or --source");
    return 2;
  }

  gchar *log_prop = log ? g_strdup_printf (" results-filename=%s", log) :
      g_strdup ("");
  gchar *sources = from_memory
      ? g_strdup_printf ("appsrc name=r format=time block=true max-buffers=8 "
      "caps=video/x-raw,format=I420,width=%u,height=%u,framerate=60/1 ! "
      "v.ref_sink appsrc name=d format=time block=true max-buffers=8 "
      "caps=video/x-raw,format=I420,width=%u,height=%u,framerate=60/1 ! "
      "v.dist_sink", w, h, w, h)
      : g_strdup_printf ("videotestsrc num-buffers=%" G_GINT64_FORMAT
      " pattern=ball ! video/x-raw,format=I420,width=%u,height=%u,"
      "framerate=60/1 ! tee name=t t. ! queue ! v.ref_sink t. ! queue ! "
      "videobalance contrast=0.9 ! v.dist_sink", n_frames, w, h);
  /* threads=1 on the CPU: the engine's own memory, not its workers' */
  gchar *desc = g_strdup_printf ("%s vmafhip name=v backend=%s%s%s ! "
      "fakesink sync=false", sources, backend,
      strcmp (backend, "cpu") ? "" : " threads=1", log_prop);
  GstElement *pipe = gst_parse_launch (desc, &error);
  /* a missing element is an error with a pipeline all the same */
  if (!pipe || error) {
    fprintf (stderr, "vmafhip-soak: %s\n", error->message);
    if (pipe)
      gst_object_unref (pipe);
    return 1;
  }
  Soak soak = { 0, every ? (guint64) every : (guint64) n_frames / 10,
    g_get_monotonic_time (), NULL
  };
  if (!strcmp (backend, "hip")) {
    vh_gpu_use_config (vh_tool_config ());
    soak.gpu = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, 0, &error);
    if (!soak.gpu) {
      fprintf (stderr, "vmafhip-soak: %s\n", error->message);
      return 1;
    }
  }
  GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), "v");
  GstPad *src = gst_element_get_static_pad (v, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_frame, &soak,
      NULL);
  gst_object_unref (src);
  gst_object_unref (v);

  printf ("vmafhip-soak: %" G_GINT64_FORMAT " frames of %ux%u, %s\n",
      n_frames, w, h, desc);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  if (from_memory && !push_frames (pipe, w, h, n_frames))
    fprintf (stderr, "vmafhip-soak: a push failed (the error follows)\n");
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
  if (soak.gpu)
    vh_gpu_close (soak.gpu);
  g_free (desc);
  g_free (sources);
  g_free (log_prop);
  g_free (backend);
  g_free (source);
  return rc;
}
