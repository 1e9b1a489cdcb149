/* vmafhip-element-bench — the vmafhip element end to end, from system
 * memory: appsrc elements push the same few pre-rendered I420 frames (input
 * generation is outside the timing), vmafhip scores them with vmaf_v0.6.1
 * (or --model), fakesink takes the output.
 *
 *   GST_PLUGIN_PATH=build/gst/vmafhip vmafhip-element-bench \
 *       [--frames N] [--size 1920x1080] [--backend hip|cpu] [--threads N]
 *       [--model NAME] [--dist-size 960x540] [--renditions R]
 *       [--instances I] [--gpu auto|N]
 *
 * --dist-size: a smaller distorted stream (an ABR rung), which the element
 * scales up to the reference's size (scaler=bicubic): on the GPU with
 * backend=hip, on the CPU with VMAFHIP_GPU_SCALE=0 in the environment
 * (which the element reads too).
 * --renditions R: R more distorted streams on dist_sink_%u request pads
 * (an ABR ladder in one element; the same frames as dist_sink).
 * --instances I: I such pipelines at once, each fed from its own thread
 * (separate elements, as one per rung would be).  The rate printed counts
 * every distorted frame scored, over all pads and pipelines.
 * --gpu auto|N: each element's device-id (default 0): auto (-1) spreads
 * the --instances over the host's GPUs, the least loaded first; the line
 * printed then counts the pipelines on each GPU.
 * --sources-only: the same pipelines with each source into a fakesink
 * and no vmafhip: the ceiling the sources (and this feeding) set.
 * --rung-sizes WxH,WxH,...: a ladder of distorted streams of these sizes:
 * with --instances 1, dist_sink takes the first and dist_sink_%u the
 * others (one element); with --instances I, pipeline i takes rung i alone
 * (separate elements).
 *
 * "timing starts" goes to stderr as the timed part begins (for a
 * profiler that samples the process's threads inside it).
 *
 * Two rates: end to end (pipelines made, started, fed, stopped: the
 * process's whole cost, the GPU's start-up included), and steady, from the
 * first frame out of the element to the last (the rate a long-running
 * pipeline keeps; what vmafhip-gpu-bench's "engine+GPU from host" times,
 * its engine made before the timing).
 *
 * A benchmark program, not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "vh-synth-gst.h"
#include "vh-tool-config.h"

#define DISTINCT 8
#define MAX_RENDITIONS 16

typedef struct {
  const char *backend, *model;
  gboolean sources_only;
  int threads, n_frames, renditions;
  unsigned w, h;
  /* the sources after the reference: dist_sink, then the renditions */
  unsigned dw[1 + MAX_RENDITIONS], dh[1 + MAX_RENDITIONS];
  GstBuffer **ref_frames;       /* DISTINCT */
  GstBuffer **frames[1 + MAX_RENDITIONS];     /* DISTINCT each */
  /* results */
  gchar *active;
  gboolean failed;
  /* the first and the last frame out of the element (its output's sink),
   * monotonic us; frames out */
  gint64 first_out_us, last_out_us;
  gint64 n_out;
  int device_id;                /* the element's device-id (--gpu) */
} Run;

static GstPadProbeReturn
count_output (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Run *run = data;
  const gint64 now = g_get_monotonic_time ();
  (void) pad;
  (void) info;
  if (!run->n_out++)
    run->first_out_us = now;
  run->last_out_us = now;
  return GST_PAD_PROBE_OK;
}

/* One pipeline from PLAYING to EOS, fed from this thread */
static gpointer
run_pipeline (gpointer data)
{
  Run *run = data;
  GError *error = NULL;
  GString *desc = g_string_new (NULL);

  /* --sources-only: each source into a fakesink of its own, the ceiling
   * the sources set */
  const char *ref_sink = run->sources_only ? "fakesink sync=false"
      : "v.ref_sink", *dist_sink = run->sources_only ? "fakesink sync=false"
      : "v.dist_sink";
  g_string_append_printf (desc, "appsrc name=r format=time block=true "
      "max-buffers=8 ! %s appsrc name=d format=time block=true "
      "max-buffers=8 ! %s ", ref_sink, dist_sink);
  for (int k = 0; k < run->renditions; k++) {
    g_string_append_printf (desc, "appsrc name=d%d format=time block=true "
        "max-buffers=8 ! ", k);
    if (run->sources_only)
      g_string_append (desc, "fakesink sync=false ");
    else
      g_string_append_printf (desc, "v.dist_sink_%d ", k);
  }
  if (!run->sources_only)
    g_string_append_printf (desc, "vmafhip name=v backend=%s threads=%d "
        "device-id=%d frame-message=false model-filename=%s ! fakesink "
        "name=out sync=false",
        run->backend, MAX (run->threads, 0), run->device_id, run->model);
  GstElement *pipe = gst_parse_launch (desc->str, &error);
  g_string_free (desc, TRUE);
  /* a missing element is an error with a pipeline all the same: feeding
   * it would block for ever */
  if (!pipe || error) {
    fprintf (stderr, "pipeline: %s\n", error->message);
    g_clear_error (&error);
    if (pipe)
      gst_object_unref (pipe);
    run->failed = TRUE;
    return NULL;
  }
  const int n_src = 2 + run->renditions;
  GstElement *src[2 + MAX_RENDITIONS];
  for (int k = 0; k < n_src; k++) {
    gchar *name = k < 2 ? g_strdup (k ? "d" : "r") : g_strdup_printf ("d%d",
        k - 2);
    src[k] = gst_bin_get_by_name (GST_BIN (pipe), name);
    g_free (name);
    GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, "I420", "width", G_TYPE_INT, k ? run->dw[k - 1]
        : run->w, "height", G_TYPE_INT, k ? run->dh[k - 1] : run->h,
        "framerate", GST_TYPE_FRACTION, 60, 1, NULL);
    g_object_set (src[k], "caps", caps, NULL);
    gst_caps_unref (caps);
  }

  /* the element's output (the reference's sink without it) */
  GstElement *out = gst_bin_get_by_name (GST_BIN (pipe), "out");
  GstPad *out_pad = NULL;
  if (!out) {
    GstElement *r = gst_bin_get_by_name (GST_BIN (pipe), "r");
    GstPad *src_pad = gst_element_get_static_pad (r, "src");
    out_pad = gst_pad_get_peer (src_pad);
    gst_object_unref (src_pad);
    gst_object_unref (r);
  } else {
    out_pad = gst_element_get_static_pad (out, "sink");
    gst_object_unref (out);
  }
  gst_pad_add_probe (out_pad, GST_PAD_PROBE_TYPE_BUFFER, count_output, run,
      NULL);
  gst_object_unref (out_pad);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBuffer **frames[2 + MAX_RENDITIONS];
  frames[0] = run->ref_frames;
  for (int k = 1; k < n_src; k++)
    frames[k] = run->frames[k - 1];
  const gint64 pushed = vh_synth_gst_push (src, frames, (unsigned) n_src,
      DISTINCT, run->n_frames);
  if (pushed < run->n_frames) {
    fprintf (stderr, "push failed at frame %" G_GINT64_FORMAT "\n", pushed);
    run->failed = TRUE;
  }
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "error: %s\n", err->message);
    g_clear_error (&err);
    run->failed = TRUE;
  } else if (run->sources_only) {
    run->active = g_strdup ("sources alone");
  } else {
    GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), "v");
    g_object_get (v, "active-backend", &run->active, NULL);
    gst_object_unref (v);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (int k = 0; k < n_src; k++)
    gst_object_unref (src[k]);
  gst_object_unref (pipe);
  return NULL;
}

/* "; pipelines per GPU: device 0: 8, device 1: 8" where the elements'
 * active-backend name more than one device */
static void
print_spread (const Run * runs, int instances)
{
  GArray *devices = g_array_new (FALSE, TRUE, sizeof (int));
  for (int i = 0; i < instances; i++) {
    const char *at = runs[i].active ? strstr (runs[i].active, ", device ")
        : NULL;
    const int d = at ? atoi (at + strlen (", device ")) : -1;
    if (d >= 0 && (guint) d >= devices->len)
      g_array_set_size (devices, (guint) d + 1);
    if (d >= 0)
      g_array_index (devices, int, d)++;
  }
  guint used = 0;
  for (guint d = 0; d < devices->len; d++)
    used += g_array_index (devices, int, d) > 0;
  if (used > 1) {
    printf ("; pipelines per GPU:");
    for (guint d = 0; d < devices->len; d++)
      printf ("%s device %u: %d", d ? "," : "", d,
          g_array_index (devices, int, d));
  }
  g_array_unref (devices);
}

int
main (int argc, char **argv)
{
  int n_frames = 600, threads = 0, renditions = 0, instances = 1;
  gboolean sources_only = FALSE;
  char *size = NULL, *dist_size = NULL, *backend = NULL, *model = NULL;
  char *rung_sizes = NULL, *gpu = NULL;
  int device_id = 0;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &n_frames, "Frames (600)", "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "WxH (1920x1080)", "WxH"},
    {"dist-size", 0, 0, G_OPTION_ARG_STRING, &dist_size,
        "The distorted streams' WxH, scaled up by the element (--size)",
        "WxH"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &backend, "hip or cpu (hip)", "B"},
    {"model", 0, 0, G_OPTION_ARG_STRING, &model,
        "The element's model-filename (vmaf_v0.6.1)", "NAME"},
    {"threads", 0, 0, G_OPTION_ARG_INT, &threads,
        "The element's threads (0: one per CPU, its default)", "N"},
    {"renditions", 0, 0, G_OPTION_ARG_INT, &renditions,
        "More distorted streams on dist_sink_%u request pads (0)", "R"},
    {"instances", 0, 0, G_OPTION_ARG_INT, &instances,
        "Pipelines at once, each with its own element (1)", "I"},
    {"gpu", 0, 0, G_OPTION_ARG_STRING, &gpu,
        "Each element's GPU: its index (0), or auto (the least-loaded GPU, "
        "spreading the instances)", "auto|N"},
    {"sources-only", 0, 0, G_OPTION_ARG_NONE, &sources_only,
        "The same pipelines without vmafhip, each source into a fakesink: "
        "the ceiling the sources set", NULL},
    {"rung-sizes", 0, 0, G_OPTION_ARG_STRING, &rung_sizes,
        "A ladder: the distorted streams' sizes (one element, or one per "
        "pipeline with --instances)", "WxH,..."},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- vmafhip element benchmark");
  GError *error = NULL;
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "%s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  if (gpu && !vh_tool_parse_gpu ("--gpu", gpu, &device_id, &error)) {
    fprintf (stderr, "%s\n", error->message);
    g_clear_error (&error);
    return 2;
  }
  unsigned w = 1920, h = 1080;
  if (size && sscanf (size, "%ux%u", &w, &h) != 2)
    return 2;
  unsigned dw = w, dh = h;
  if (dist_size && (sscanf (dist_size, "%ux%u", &dw, &dh) != 2 || dw > w
          || dh > h)) {
    fprintf (stderr, "--dist-size: WxH no larger than --size\n");
    return 2;
  }
  if (renditions < 0 || renditions > MAX_RENDITIONS || instances < 1
      || instances > 64) {
    fprintf (stderr, "--renditions: 0..%d, --instances: 1..64\n",
        MAX_RENDITIONS);
    return 2;
  }

  /* the distorted sizes: one per rung (--rung-sizes), else --dist-size */
  unsigned n_sizes = 1, sw[1 + MAX_RENDITIONS] = { dw }, sh[1 + MAX_RENDITIONS]
      = { dh };
  if (rung_sizes) {
    gchar **list = g_strsplit (rung_sizes, ",", -1);
    n_sizes = 0;
    for (guint i = 0; list[i]; i++) {
      if (n_sizes == 1 + MAX_RENDITIONS || sscanf (list[i], "%ux%u",
              &sw[n_sizes], &sh[n_sizes]) != 2 || sw[n_sizes] > w
          || sh[n_sizes] > h) {
        fprintf (stderr, "--rung-sizes: up to %d WxH no larger than --size\n",
            1 + MAX_RENDITIONS);
        return 2;
      }
      n_sizes++;
    }
    g_strfreev (list);
    if (instances == 1)
      renditions = (int) n_sizes - 1;
    else if ((unsigned) instances != n_sizes) {
      fprintf (stderr, "--rung-sizes with --instances: one size each\n");
      return 2;
    }
  }

  /* pre-rendered frames, packed I420, shared by every pipeline; a smaller
   * distorted stream from a synthetic pair of its own size */
  GstBuffer *ref_frames[DISTINCT];
  GstBuffer *dist_frames[1 + MAX_RENDITIONS][DISTINCT];
  for (unsigned k = 0; k < n_sizes; k++) {
    GstBuffer *pair_ref[DISTINCT];
    GstBuffer **pair[2] = { pair_ref, dist_frames[k] };
    vh_synth_gst_frames (sw[k], sh[k], DISTINCT, pair);
    for (unsigned i = 0; i < DISTINCT; i++)
      gst_buffer_unref (pair_ref[i]);
  }
  {
    GstBuffer *unused[DISTINCT];
    GstBuffer **pair[2] = { ref_frames, unused };
    vh_synth_gst_frames (w, h, DISTINCT, pair);
    for (unsigned i = 0; i < DISTINCT; i++)
      gst_buffer_unref (unused[i]);
  }

  Run *runs = g_new0 (Run, instances);
  GThread **threads_of = g_new0 (GThread *, instances);
  /* (for a profiler watching the run: the timed part starts) */
  fprintf (stderr, "timing starts\n");
  const gint64 t0 = g_get_monotonic_time ();
  for (int i = 0; i < instances; i++) {
    runs[i] = (Run) { backend ? backend : "hip", model ? model :
      "vmaf_v0.6.1", sources_only, threads, n_frames, renditions, w, h,
      { 0 }, { 0 }, ref_frames, { NULL }, NULL, FALSE, 0, 0, 0, device_id
    };
    /* one element: its pads take the sizes in turn; separate elements
     * with --rung-sizes: one rung each */
    for (int k = 0; k <= renditions; k++) {
      const unsigned z = n_sizes == 1 ? 0 : rung_sizes && instances > 1
          ? (unsigned) i : (unsigned) k;
      runs[i].dw[k] = sw[z];
      runs[i].dh[k] = sh[z];
      runs[i].frames[k] = dist_frames[z];
    }
    threads_of[i] = g_thread_new ("pipeline", run_pipeline, &runs[i]);
  }
  int rc = 0;
  for (int i = 0; i < instances; i++) {
    g_thread_join (threads_of[i]);
    rc |= runs[i].failed;
  }
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  if (!rc) {
    const double scored = (double) n_frames * (1 + renditions) * instances;
    printf ("%s %ux%u", sources_only ? "sources alone, no element"
        : "element end to end", w, h);
    if (rung_sizes && sources_only)
      printf (", rungs %s", rung_sizes);
    else if (rung_sizes)
      printf (", rungs %s (bicubic on the %s)", rung_sizes,
          vh_tool_config ()->gpu_scale && g_strcmp0 (runs[0].active, "cpu") ? "GPU" : "CPU");
    else if (sources_only)
      printf (", distorted %ux%u", dw, dh);
    else if (dw != w || dh != h)
      printf (", distorted %ux%u scaled on the %s", dw, dh,
          vh_tool_config ()->gpu_scale && g_strcmp0 (runs[0].active, "cpu") ? "GPU" : "CPU");
    if (renditions || instances > 1)
      printf (", %d pipeline%s of 1 + %d distorted stream%s",
          instances, instances > 1 ? "s" : "", renditions,
          renditions == 1 ? "" : "s");
    printf (", %d frames, %s: %.0f fps", n_frames, runs[0].active,
        n_frames * instances / secs);
    if (renditions || instances > 1)
      printf (" (%.0f distorted frames a second)", scored / secs);
    /* steady: from the first frame out (of any pipeline) to the last, the
     * frames after the first */
    gint64 first = G_MAXINT64, last = 0, n_out = 0;
    for (int i = 0; i < instances; i++) {
      first = MIN (first, runs[i].first_out_us);
      last = MAX (last, runs[i].last_out_us);
      n_out += runs[i].n_out;
    }
    if (n_out > instances && last > first) {
      const double steady = (double) (n_out - instances) * 1e6
          / (double) (last - first);
      printf ("; steady %.0f fps", steady);
      if (renditions)
        printf (" (%.0f distorted frames a second)", steady
            * (1 + renditions));
    }
    if (!sources_only && instances > 1)
      print_spread (runs, instances);
    printf ("\n");
  }
  for (int i = 0; i < instances; i++)
    g_free (runs[i].active);
  g_free (runs);
  g_free (threads_of);
  for (unsigned i = 0; i < DISTINCT; i++) {
    gst_buffer_unref (ref_frames[i]);
    for (unsigned k = 0; k < n_sizes; k++)
      gst_buffer_unref (dist_frames[k][i]);
  }
  g_free (size);
  g_free (rung_sizes);
  g_free (dist_size);
  g_free (backend);
  g_free (model);
  g_free (gpu);
  return rc;
}
