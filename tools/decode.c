/* vmafhip — inputs decoded by GStreamer for vmafhip-score (see
 * vh-decode.h).  Built where gstreamer-app-1.0 is found; elsewhere
 * vh_decoder_available () is FALSE and opening says what to give instead. */
#include "vh-decode.h"

#include <string.h>

#include "vh-error.h"

#ifdef VH_HAVE_GST_DECODE
#include <gst/app/gstappsink.h>
#include <gst/gst.h>
#include <gst/video/video.h>

/* the layouts vmafhip-score reads; videoconvert picks the one nearest the
 * decoder's (NV12 to I420, P010 to I420_10LE, ...) */
#define DECODED_FORMATS "{ I420, Y42B, Y444, I420_10LE, I422_10LE, " \
    "Y444_10LE, I420_12LE, I422_12LE, Y444_12LE, GRAY8 }"

struct VhDecoder {
  GstElement *pipeline;
  GstElement *convert;
  GstAppSink *sink;
  GstVideoInfo info;
  const VhRawFormat *format;
  char *path;
};

gboolean
vh_decoder_available (void)
{
  return TRUE;
}

/* The pipeline's error as the input's, if it posted one */
static gboolean
take_error (VhDecoder *d, GError **error)
{
  GstBus *bus = gst_element_get_bus (d->pipeline);
  GstMessage *m = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  gst_object_unref (bus);
  if (!m)
    return FALSE;
  GError *gst_error = NULL;
  gst_message_parse_error (m, &gst_error, NULL);
  g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot decode '%s': %s "
      "(vmafhip-score decodes what GStreamer can; a raw file needs "
      "--width, --height, --pixel_format and --bitdepth)", d->path,
      gst_error->message);
  g_error_free (gst_error);
  gst_message_unref (m);
  return TRUE;
}

/* uridecodebin's video pad into videoconvert (the first one) */
static void
pad_added (GstElement *dec, GstPad *pad, gpointer data)
{
  VhDecoder *d = data;
  GstPad *sinkpad = gst_element_get_static_pad (d->convert, "sink");
  GstCaps *caps = gst_pad_get_current_caps (pad);
  if (!caps)
    caps = gst_pad_query_caps (pad, NULL);
  const GstStructure *s = caps && gst_caps_get_size (caps) ?
      gst_caps_get_structure (caps, 0) : NULL;
  if (s && g_str_has_prefix (gst_structure_get_name (s), "video/")
      && !gst_pad_is_linked (sinkpad))
    gst_pad_link (pad, sinkpad);
  if (caps)
    gst_caps_unref (caps);
  gst_object_unref (sinkpad);
  (void) dec;
}

VhDecoder *
vh_decoder_open (const char *path, GError **error)
{
  GError *gst_error = NULL;

  if (!gst_init_check (NULL, NULL, &gst_error)) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED, "cannot decode "
        "'%s': GStreamer does not start: %s", path, gst_error->message);
    g_error_free (gst_error);
    return NULL;
  }
  gchar *uri = gst_filename_to_uri (path, &gst_error);
  if (!uri) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot decode '%s': %s",
        path, gst_error->message);
    g_error_free (gst_error);
    return NULL;
  }
  VhDecoder *d = g_new0 (VhDecoder, 1);
  d->path = g_strdup (path);
  d->pipeline = gst_pipeline_new ("vmafhip-score-input");
  GstElement *dec = gst_element_factory_make ("uridecodebin", NULL);
  d->convert = gst_element_factory_make ("videoconvert", NULL);
  GstElement *filter = gst_element_factory_make ("capsfilter", NULL);
  GstElement *sink = gst_element_factory_make ("appsink", NULL);
  if (!dec || !d->convert || !filter || !sink) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED, "cannot decode "
        "'%s': GStreamer's %s element is missing (Debian: "
        "gstreamer1.0-plugins-base)", path, !dec ? "uridecodebin"
        : !d->convert ? "videoconvert" : !filter ? "capsfilter" : "appsink");
    gst_clear_object (&dec);
    gst_clear_object (&d->convert);
    gst_clear_object (&filter);
    gst_clear_object (&sink);
    g_free (uri);
    vh_decoder_close (d);
    return NULL;
  }
  GstCaps *caps = gst_caps_from_string ("video/x-raw, format=(string) "
      DECODED_FORMATS);
  g_object_set (filter, "caps", caps, NULL);
  gst_caps_unref (caps);
  g_object_set (dec, "uri", uri, NULL);
  g_free (uri);
  /* every frame, as fast as it decodes, a few ahead */
  g_object_set (sink, "sync", FALSE, "max-buffers", 4, NULL);
  d->sink = GST_APP_SINK (sink);
  gst_bin_add_many (GST_BIN (d->pipeline), dec, d->convert, filter, sink,
      NULL);
  gst_element_link_many (d->convert, filter, sink, NULL);
  g_signal_connect (dec, "pad-added", G_CALLBACK (pad_added), d);

  /* up to the first frame: its caps give the size and layout (the frame
   * itself comes again as the first sample) */
  gst_element_set_state (d->pipeline, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (d->pipeline);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
      GST_MESSAGE_ASYNC_DONE | GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
  const gboolean prerolled = m
      && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ASYNC_DONE;
  if (m && GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR)
    gst_bus_post (bus, m);      /* (for take_error) */
  else if (m)
    gst_message_unref (m);
  gst_object_unref (bus);
  GstSample *first = prerolled ? gst_app_sink_pull_preroll (d->sink) : NULL;
  if (!first) {
    if (!take_error (d, error))
      g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot decode '%s': no "
          "video frame in it", path);
    vh_decoder_close (d);
    return NULL;
  }
  GstCaps *got = gst_sample_get_caps (first);
  const gboolean usable = got && gst_video_info_from_caps (&d->info, got)
      && (d->format = vh_raw_format_lookup (gst_video_format_to_string
          (GST_VIDEO_INFO_FORMAT (&d->info)))) != NULL;
  gst_sample_unref (first);
  if (!usable) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot decode '%s': "
        "unusable decoded video", path);
    vh_decoder_close (d);
    return NULL;
  }
  return d;
}

const VhRawFormat *
vh_decoder_format (const VhDecoder *d)
{
  return d->format;
}

unsigned
vh_decoder_width (const VhDecoder *d)
{
  return (unsigned) GST_VIDEO_INFO_WIDTH (&d->info);
}

unsigned
vh_decoder_height (const VhDecoder *d)
{
  return (unsigned) GST_VIDEO_INFO_HEIGHT (&d->info);
}

int
vh_decoder_read (VhDecoder *d, guint8 *buf, GError **error)
{
  GstSample *sample;
  GstVideoFrame frame;
  VhPicture pic;

  /* a frame, the end, or an error (which leaves appsink waiting) */
  while (!(sample = gst_app_sink_try_pull_sample (d->sink, 50 * GST_MSECOND))) {
    if (take_error (d, error))
      return -1;
    if (gst_app_sink_is_eos (d->sink))
      return 0;
  }
  GstVideoInfo info;
  if (!gst_video_info_from_caps (&info, gst_sample_get_caps (sample))
      || GST_VIDEO_INFO_FORMAT (&info) != GST_VIDEO_INFO_FORMAT (&d->info)
      || info.width != d->info.width || info.height != d->info.height) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "'%s' changes its video "
        "(size or format) in the middle: vmafhip-score scores one video "
        "per input", d->path);
    gst_sample_unref (sample);
    return -1;
  }
  if (!gst_video_frame_map (&frame, &info, gst_sample_get_buffer (sample),
          GST_MAP_READ)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "'%s': a decoded frame "
        "cannot be read", d->path);
    gst_sample_unref (sample);
    return -1;
  }
  /* the packed layout's planes, row by row from the frame's strides */
  vh_raw_picture (d->format, buf, vh_decoder_width (d),
      vh_decoder_height (d), &pic);
  const unsigned bytes = d->format->bpc > 8 ? 2 : 1;
  for (unsigned c = 0; c < pic.nplanes; c++) {
    const guint8 *src = GST_VIDEO_FRAME_COMP_DATA (&frame, c);
    const gint stride = GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
    guint8 *dst = (guint8 *) pic.plane[c].data;
    for (unsigned y = 0; y < pic.plane[c].height; y++)
      memcpy (dst + (size_t) y * pic.plane[c].stride,
          src + (size_t) y * stride, (size_t) pic.plane[c].width * bytes);
  }
  gst_video_frame_unmap (&frame);
  gst_sample_unref (sample);
  return 1;
}

void
vh_decoder_close (VhDecoder *d)
{
  if (!d)
    return;
  if (d->pipeline) {
    gst_element_set_state (d->pipeline, GST_STATE_NULL);
    gst_object_unref (d->pipeline);
  }
  g_free (d->path);
  g_free (d);
}

#else /* no GStreamer */

gboolean
vh_decoder_available (void)
{
  return FALSE;
}

VhDecoder *
vh_decoder_open (const char *path, GError **error)
{
  g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED, "'%s' is not a .y4m "
      "file, and this vmafhip-score was built without GStreamer, which "
      "decodes other files: give a .y4m file, or a raw one with --width, "
      "--height, --pixel_format and --bitdepth", path);
  return NULL;
}

const VhRawFormat *
vh_decoder_format (const VhDecoder *d)
{
  (void) d;
  return NULL;
}

unsigned
vh_decoder_width (const VhDecoder *d)
{
  (void) d;
  return 0;
}

unsigned
vh_decoder_height (const VhDecoder *d)
{
  (void) d;
  return 0;
}

int
vh_decoder_read (VhDecoder *d, guint8 *buf, GError **error)
{
  (void) d;
  (void) buf;
  (void) error;
  return -1;
}

void
vh_decoder_close (VhDecoder *d)
{
  (void) d;
}
#endif
