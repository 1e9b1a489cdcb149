/* vmafhip — caps and buffers fuzzed through the element's negotiation
 * (issue 16): random caps on each pad (formats vmafhip takes and others,
 * sizes from 0 up, odd ones, frame rates including 0/1, missing fields),
 * then buffers of the caps' size, truncated, empty or too long, then EOS
 * (a third of the runs well formed, so that scoring is reached too).
 * The element must refuse with an error that says something or score,
 * never crash, hang or leak (the sanitizer run checks the last two).
 * VMAFHIP_FUZZ_EXECS=N multiplies the executions. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "vh-element-fixture.h"

static const char *const formats[] = {
  "I420", "YV12", "NV12", "NV21", "Y42B", "Y444", "GRAY8", "I420_10LE",
  "I420_12LE", "P010_10LE", "Y444_10LE", "GRAY16_LE", "RGB", "YUY2",
  "NOPE",
};
static const int sizes[] = { 0, 1, 2, 3, 15, 16, 32, 33, 48, 64, 65, 100,
  176, 4097
};

/* A caps string, valid or not (gst_caps_from_string may refuse it). */
static gchar *
random_caps (GRand * r)
{
  GString *s = g_string_new ("video/x-raw");
  if (g_rand_int_range (r, 0, 12))
    g_string_append_printf (s, ",format=%s",
        formats[g_rand_int_range (r, 0, G_N_ELEMENTS (formats))]);
  if (g_rand_int_range (r, 0, 12))
    g_string_append_printf (s, ",width=%d",
        sizes[g_rand_int_range (r, 0, G_N_ELEMENTS (sizes))]);
  if (g_rand_int_range (r, 0, 12))
    g_string_append_printf (s, ",height=%d",
        sizes[g_rand_int_range (r, 0, G_N_ELEMENTS (sizes) - 1)]);
  switch (g_rand_int_range (r, 0, 5)) {
    case 0:
      break;
    case 1:
      g_string_append (s, ",framerate=0/1");
      break;
    case 2:
      g_string_append (s, ",framerate=30000/1001");
      break;
    default:
      g_string_append (s, ",framerate=25/1");
  }
  if (!g_rand_int_range (r, 0, 8))
    g_string_append (s, ",interlace-mode=interleaved");
  if (!g_rand_int_range (r, 0, 8))
    g_string_append (s, ",pixel-aspect-ratio=0/1");
  return g_string_free (s, FALSE);
}

/* stream-start, caps, segment: FALSE where the element refused the caps
 * (gst_harness_set_src_caps would assert instead) */
static gboolean
send_caps (GstHarness * h, GstCaps * caps, const char *stream)
{
  GstSegment segment;
  gst_segment_init (&segment, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_stream_start (stream));
  const gboolean ok = gst_harness_push_event (h, gst_event_new_caps (caps));
  gst_harness_push_event (h, gst_event_new_segment (&segment));
  return ok;
}

static GstBuffer *
random_buffer (GRand * r, gsize caps_size, guint i, gboolean sane)
{
  gsize size = caps_size;
  switch (sane ? 5 : g_rand_int_range (r, 0, 6)) {
    case 0:
      size = caps_size / 2;
      break;
    case 1:
      size = caps_size ? caps_size - 1 : 0;
      break;
    case 2:
      size = caps_size + 64;
      break;
    case 3:
      size = 0;
      break;
    default:
      break;
  }
  GstBuffer *buf = gst_buffer_new_allocate (NULL, size, NULL);
  gst_buffer_memset (buf, 0, (guint8) g_rand_int_range (r, 0, 256), size);
  GST_BUFFER_PTS (buf) = i * GST_SECOND / 25;
  GST_BUFFER_DURATION (buf) = GST_SECOND / 25;
  return buf;
}

#define MAX_FRAMES 4

typedef struct {
  GstHarness *h;
  GstBuffer *buffers[MAX_FRAMES];
  guint n;
  gint *done;
} Feeder;

static gpointer
feed (gpointer data)
{
  Feeder *fd = data;
  gboolean flowing = TRUE;
  for (guint i = 0; i < fd->n; i++) {
    if (flowing)
      flowing = gst_harness_push (fd->h, fd->buffers[i]) == GST_FLOW_OK;
    else
      gst_buffer_unref (fd->buffers[i]);
  }
  gst_harness_push_event (fd->h, gst_event_new_eos ());
  g_atomic_int_inc (fd->done);
  return NULL;
}

GST_START_TEST (test_fuzz_caps_and_buffers)
{
  const char *env = g_getenv ("VMAFHIP_FUZZ_EXECS");
  const guint execs = 2000 * (guint) MAX (env ? atoi (env) : 1, 1);
  GRand *r = g_rand_new_with_seed (20261126);
  guint accepted = 0, scored = 0, errors = 0;

  for (guint n = 0; n < execs; n++) {
    Fixture *f = fixture_new ("psnr=true", FALSE);
    gsize caps_size[2] = { 0, 0 };
    gboolean both = TRUE;
    gchar *ref_text = NULL;
    /* a third of the runs well formed, so that scoring is reached too */
    const gboolean sane = g_rand_int_range (r, 0, 3) == 0;
    for (int k = 0; k < 2; k++) {
      /* the distorted pad usually takes the reference's caps */
      gchar *text = sane ? g_strdup ("video/x-raw,format=I420,width=64,"
          "height=48,framerate=25/1") : k && g_rand_int_range (r, 0, 3)
          ? g_strdup (ref_text) : random_caps (r);
      GstCaps *caps = gst_caps_from_string (text);
      if (!k)
        ref_text = g_strdup (text);
      GstVideoInfo info;
      if (caps && gst_video_info_from_caps (&info, caps))
        caps_size[k] = GST_VIDEO_INFO_SIZE (&info);
      if (!caps || !send_caps (k ? f->dist : f->ref, caps, k ? "d" : "r"))
        both = FALSE;
      if (caps)
        gst_caps_unref (caps);
      g_free (text);
    }
    g_free (ref_text);
    if (both)
      accepted++;
    /* each pad fed from its own thread, as in a pipeline (one thread
     * would block on a pad the element waits to pair); a pad stops at the
     * first refusal, as its upstream would, and ends with EOS */
    Feeder feeders[2];
    GThread *threads[2];
    gint done = 0;
    const guint frames = (guint) g_rand_int_range (r, 0, 4);
    for (int k = 0; k < 2; k++) {
      feeders[k] = (Feeder) { k ? f->dist : f->ref, { NULL }, frames, &done };
      for (guint i = 0; i < frames; i++)
        feeders[k].buffers[i] = random_buffer (r, caps_size[k], i, sane);
      threads[k] = g_thread_new ("feed", feed, &feeders[k]);
    }
    const gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
    while (g_atomic_int_get (&done) < 2 && g_get_monotonic_time () < deadline)
      g_usleep (200);
    fail_unless (g_atomic_int_get (&done) == 2, "run %u: the element did not "
        "take its input within 20 s", n);
    for (int k = 0; k < 2; k++)
      g_thread_join (threads[k]);

    GstMessage *m;
    gboolean any_frame = FALSE;
    while ((m = gst_bus_pop (f->bus))) {
      const GstStructure *s = gst_message_get_structure (m);
      if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
        GError *error = NULL;
        gst_message_parse_error (m, &error, NULL);
        fail_unless (error && error->message && strlen (error->message) > 8,
            "an error without a message");
        g_error_free (error);
        errors++;
      } else if (s && gst_structure_has_name (s, "VMAF")
          && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
        any_frame = TRUE;
      }
      gst_message_unref (m);
    }
    scored += any_frame;
    fixture_free (f);
  }
  fprintf (stderr, "caps and buffers: %u runs, %u with caps parsed on both "
      "pads, %u with scored frames, %u ended in an error\n", execs, accepted,
      scored, errors);
  /* both ways out were taken many times */
  fail_unless (scored > execs / 50 && errors > execs / 10);
  g_rand_free (r);
}

GST_END_TEST;

static Suite *
vmafhip_fuzz_suite (void)
{
  Suite *s = suite_create ("vmafhip-fuzz");
  TCase *tc = tcase_create ("negotiation");

  tcase_set_timeout (tc, 900);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fuzz_caps_and_buffers);
  return s;
}

GST_CHECK_MAIN (vmafhip_fuzz);
