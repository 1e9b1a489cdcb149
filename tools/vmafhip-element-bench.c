/* vmafhip-element-bench — the vmafhip element end to end, from system
 * memory: two appsrc push the same few pre-rendered I420 frame pairs (input
 * generation is outside the timing), vmafhip scores them with vmaf_v0.6.1
 * (or --model), fakesink takes the output.
 *
 *   GST_PLUGIN_PATH=build/gst/vmafhip vmafhip-element-bench \
 *       [--frames N] [--size 1920x1080] [--backend hip|cpu] [--threads N]
 *       [--model NAME] [--dist-size 960x540]
 *
 * --dist-size: a smaller distorted stream (an ABR rung), which the element
 * scales up to the reference's size (scaler=bicubic): on the GPU with
 * backend=hip, on the CPU with VMAFHIP_GPU_SCALE=0 in the environment.
 *
 * A benchmark program, not a test.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gst/gst.h>
#include <gst/app/gstappsrc.h>

#include "vh-synth-gst.h"

#define DISTINCT 8

int
main (int argc, char **argv)
{
  int n_frames = 600, threads = 0;
  char *size = NULL, *dist_size = NULL, *backend = NULL, *model = NULL;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &n_frames, "Frames (600)", "N"},
    {"size", 0, 0, G_OPTION_ARG_STRING, &size, "WxH (1920x1080)", "WxH"},
    {"dist-size", 0, 0, G_OPTION_ARG_STRING, &dist_size,
        "The distorted stream's WxH, scaled up by the element (--size)", "WxH"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &backend, "hip or cpu (hip)", "B"},
    {"model", 0, 0, G_OPTION_ARG_STRING, &model,
        "The element's model-filename (vmaf_v0.6.1)", "NAME"},
    {"threads", 0, 0, G_OPTION_ARG_INT, &threads,
        "The element's threads (0: one per CPU, its default)", "N"},
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
  unsigned w = 1920, h = 1080;
  if (size && sscanf (size, "%ux%u", &w, &h) != 2)
    return 2;
  unsigned dw = w, dh = h;
  if (dist_size && (sscanf (dist_size, "%ux%u", &dw, &dh) != 2 || dw > w
          || dh > h)) {
    fprintf (stderr, "--dist-size: WxH no larger than --size\n");
    return 2;
  }

  char *desc = g_strdup_printf ("appsrc name=r format=time block=true "
      "max-buffers=8 ! v.ref_sink appsrc name=d format=time block=true "
      "max-buffers=8 ! v.dist_sink vmafhip name=v backend=%s threads=%d "
      "frame-message=false model-filename=%s ! fakesink sync=false",
      backend ? backend : "hip", MAX (threads, 0),
      model ? model : "vmaf_v0.6.1");
  GstElement *pipe = gst_parse_launch (desc, &error);
  if (!pipe) {
    fprintf (stderr, "pipeline: %s\n", error->message);
    return 1;
  }
  GstElement *src[2] = { gst_bin_get_by_name (GST_BIN (pipe), "r"),
    gst_bin_get_by_name (GST_BIN (pipe), "d") };
  for (int k = 0; k < 2; k++) {
    GstCaps *caps = gst_caps_new_simple ("video/x-raw", "format",
        G_TYPE_STRING, "I420", "width", G_TYPE_INT, k ? dw : w, "height",
        G_TYPE_INT, k ? dh : h, "framerate", GST_TYPE_FRACTION, 60, 1, NULL);
    g_object_set (src[k], "caps", caps, NULL);
    gst_caps_unref (caps);
  }

  /* pre-rendered frames, packed I420; a smaller distorted stream from a
   * synthetic pair of its own size */
  GstBuffer *ref_frames[DISTINCT], *dist_frames[DISTINCT];
  GstBuffer **frames[2] = { ref_frames, dist_frames };
  vh_synth_gst_frames (w, h, DISTINCT, frames);
  if (dw != w || dh != h) {
    GstBuffer *small_ref[DISTINCT];
    GstBuffer **small[2] = { small_ref, dist_frames };
    for (unsigned i = 0; i < DISTINCT; i++)
      gst_buffer_unref (dist_frames[i]);
    vh_synth_gst_frames (dw, dh, DISTINCT, small);
    for (unsigned i = 0; i < DISTINCT; i++)
      gst_buffer_unref (small_ref[i]);
  }

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  const GstClockTime dur = GST_SECOND / 60;
  gint64 t0 = g_get_monotonic_time ();
  for (int f = 0; f < n_frames; f++) {
    for (int k = 0; k < 2; k++) {
      GstBuffer *b = gst_buffer_copy (frames[k][f % DISTINCT]);  /* shares memory */
      GST_BUFFER_PTS (b) = f * dur;
      GST_BUFFER_DURATION (b) = dur;
      if (gst_app_src_push_buffer (GST_APP_SRC (src[k]), b) != GST_FLOW_OK) {
        fprintf (stderr, "push failed at frame %d\n", f);
        return 1;
      }
    }
  }
  for (int k = 0; k < 2; k++)
    gst_app_src_end_of_stream (GST_APP_SRC (src[k]));
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  int rc = 0;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError *err = NULL;
    gst_message_parse_error (msg, &err, NULL);
    fprintf (stderr, "error: %s\n", err->message);
    g_clear_error (&err);
    rc = 1;
  } else {
    gchar *active = NULL;
    GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), "v");
    g_object_get (v, "active-backend", &active, NULL);
    if (dw != w || dh != h)
      printf ("element end to end %ux%u, distorted %ux%u scaled on the %s, "
          "%d frames, %s: %.0f fps\n", w, h, dw, dh,
          g_strcmp0 (g_getenv ("VMAFHIP_GPU_SCALE"), "0")
          && g_strcmp0 (active, "cpu") ? "GPU" : "CPU", n_frames, active,
          n_frames / secs);
    else
      printf ("element end to end %ux%u, %d frames, %s: %.0f fps\n", w, h,
          n_frames, active, n_frames / secs);
    g_free (active);
    gst_object_unref (v);
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  for (int k = 0; k < 2; k++) {
    gst_object_unref (src[k]);
    for (unsigned i = 0; i < DISTINCT; i++)
      gst_buffer_unref (frames[k][i]);
  }
  gst_object_unref (pipe);
  g_free (desc);
  g_free (size);
  g_free (dist_size);
  g_free (backend);
  return rc;
}
