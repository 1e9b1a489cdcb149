/* vmafhip — device-id=-1 (auto) on a host of two GPUs: each element's
 * streams on the least-loaded GPU of the process, against the mock HIP
 * runtime with two devices (VH_MOCK_HIP_DEVICES=2, set here): two elements
 * land on the two devices and both devices run kernels; an element with a
 * device index weighs on its GPU, and a stopped one no longer does; the
 * two elements' scores are the same (the mock runs no kernel, so the GPU
 * run checks the values themselves: docs/gpu.md).
 *
 * Registered with the mock runtime only (meson.build: VMAFHIP_HIP_LIBRARY).
 */
#include <dlfcn.h>
#include <string.h>

#include <gst/check/gstcheck.h>

#define FRAMES 12

/* vh_mock_hip_device_launches of the runtime VMAFHIP_HIP_LIBRARY names */
static unsigned long long
device_launches (int device)
{
  const char *library = g_getenv ("VMAFHIP_HIP_LIBRARY");
  void *mock = library ? dlopen (library, RTLD_NOW) : NULL;
  fail_unless (mock != NULL, "VMAFHIP_HIP_LIBRARY must name the mock HIP "
      "runtime");
  unsigned long long (*launches) (int) = (unsigned long long (*)(int))
      dlsym (mock, "vh_mock_hip_device_launches");
  fail_unless (launches != NULL, "%s: no vh_mock_hip_device_launches",
      library);
  const unsigned long long n = launches (device);
  dlclose (mock);
  return n;
}

static gchar *
active_backend (GstElement * pipe, const char *name)
{
  GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), name);
  gchar *active = NULL;
  fail_unless (v != NULL);
  g_object_get (v, "active-backend", &active, NULL);
  gst_object_unref (v);
  fail_unless (active != NULL, "%s not started", name);
  return active;
}

/* One element, `props` added, started (its backend chosen) */
static GstElement *
started_element (const char *props)
{
  gchar *desc = g_strdup_printf ("videotestsrc num-buffers=%u ! "
      "video/x-raw,width=64,height=48,format=I420,framerate=25/1 ! tee "
      "name=t t. ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafhip "
      "name=v backend=hip %s ! fakesink async=false", FRAMES, props);
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL, "%s", desc);
  g_free (desc);
  fail_if (gst_element_set_state (pipe, GST_STATE_PAUSED)
      == GST_STATE_CHANGE_FAILURE);
  return pipe;
}

static void
stop (GstElement * pipe)
{
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}

/* Two elements with device-id=-1 in one pipeline: one on each GPU, both
 * GPUs at work, the same scores frame by frame */
GST_START_TEST (test_auto_two_elements_two_gpus)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=12 "
      "pattern=ball ! video/x-raw,width=176,height=144,format=I420,"
      "framerate=25/1 ! tee name=t ! queue ! v0.ref_sink t. ! queue ! "
      "videobalance brightness=0.05 contrast=0.9 ! tee name=d ! queue ! "
      "v0.dist_sink t. ! queue ! v1.ref_sink d. ! queue ! v1.dist_sink "
      "vmafhip name=v0 backend=hip device-id=-1 frame-message=true ! "
      "fakesink vmafhip name=v1 backend=hip device-id=-1 "
      "frame-message=true ! fakesink", NULL);
  fail_unless (pipe != NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  GArray *scores[2] = { g_array_new (FALSE, FALSE, sizeof (gdouble)),
    g_array_new (FALSE, FALSE, sizeof (gdouble))
  };
  GstMessage *m;

  const unsigned long long before[2] = { device_launches (0),
    device_launches (1)
  };
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR))) {
    const GstStructure *s = gst_message_get_structure (m);
    const gboolean done = GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *error = NULL;
      gst_message_parse_error (m, &error, NULL);
      fail ("%s", error->message);
    }
    if (s && gst_structure_has_name (s, "VMAF")
        && !g_strcmp0 (gst_structure_get_string (s, "type"), "frame")) {
      gdouble v;
      const int k = !strcmp (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), "v1");
      fail_unless (gst_structure_get_double (s, "vmaf", &v));
      g_array_append_val (scores[k], v);
    }
    gst_message_unref (m);
    if (done)
      break;
  }

  /* one on each GPU, said in active-backend */
  gchar *active[2] = { active_backend (pipe, "v0"),
    active_backend (pipe, "v1")
  };
  const gboolean zero_first = strstr (active[0], "device 0 ") != NULL;
  fail_unless (strstr (active[zero_first ? 0 : 1], "device 0 (auto: the "
          "least loaded of 2 GPUs)") != NULL, "%s / %s", active[0],
      active[1]);
  fail_unless (strstr (active[zero_first ? 1 : 0], "device 1 (auto: the "
          "least loaded of 2 GPUs)") != NULL, "%s / %s", active[0],
      active[1]);
  /* kernels launched on both */
  fail_unless (device_launches (0) > before[0]);
  fail_unless (device_launches (1) > before[1]);
  /* the same scores */
  fail_unless_equals_int (scores[0]->len, FRAMES);
  fail_unless_equals_int (scores[1]->len, FRAMES);
  for (guint i = 0; i < FRAMES; i++)
    fail_unless (g_array_index (scores[0], gdouble, i)
        == g_array_index (scores[1], gdouble, i), "frame %u: %.17g on one "
        "GPU, %.17g on the other", i, g_array_index (scores[0], gdouble, i),
        g_array_index (scores[1], gdouble, i));

  g_free (active[0]);
  g_free (active[1]);
  g_array_unref (scores[0]);
  g_array_unref (scores[1]);
  gst_object_unref (bus);
  stop (pipe);
}

GST_END_TEST;

/* device-id=0 weighs on GPU 0: auto takes GPU 1; once that element has
 * stopped, auto takes GPU 0 again; an index is taken as given */
GST_START_TEST (test_auto_around_an_index)
{
  GstElement *zero = started_element ("device-id=0");
  gchar *active = active_backend (zero, "v");
  fail_unless (strstr (active, "device 0") && !strstr (active, "auto"),
      "%s", active);
  g_free (active);

  GstElement *automatic = started_element ("device-id=-1");
  active = active_backend (automatic, "v");
  fail_unless (strstr (active, "device 1 (auto"), "%s", active);
  g_free (active);

  stop (zero);
  GstElement *again = started_element ("device-id=-1");
  active = active_backend (again, "v");
  fail_unless (strstr (active, "device 0 (auto"), "%s", active);
  g_free (active);

  GstElement *one = started_element ("device-id=1");
  active = active_backend (one, "v");
  fail_unless (strstr (active, "device 1") && !strstr (active, "auto"),
      "%s", active);
  g_free (active);

  stop (one);
  stop (again);
  stop (automatic);
}

GST_END_TEST;

/* A device index beyond the GPUs: the element fails to start, saying so */
GST_START_TEST (test_index_beyond_the_gpus)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=2 ! tee "
      "name=t ! queue ! v.ref_sink t. ! queue ! v.dist_sink vmafhip name=v "
      "backend=hip device-id=2 ! fakesink", NULL);
  GstBus *bus = gst_element_get_bus (pipe);
  fail_unless (gst_element_set_state (pipe, GST_STATE_PAUSED)
      == GST_STATE_CHANGE_FAILURE);
  GstMessage *m = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      GST_MESSAGE_ERROR);
  fail_unless (m != NULL);
  GError *error = NULL;
  gst_message_parse_error (m, &error, NULL);
  fail_unless (strstr (error->message, "device-id 2 but 2 AMD devices"),
      "%s", error->message);
  g_clear_error (&error);
  gst_message_unref (m);
  gst_object_unref (bus);
  stop (pipe);
}

GST_END_TEST;

static Suite *
vmafhip_gpus_suite (void)
{
  Suite *s = suite_create ("vmafhip-gpus");
  TCase *tc = tcase_create ("auto");

  /* two mock GPUs (read by the mock at each call) */
  g_setenv ("VH_MOCK_HIP_DEVICES", "2", TRUE);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_auto_two_elements_two_gpus);
  tcase_add_test (tc, test_auto_around_an_index);
  tcase_add_test (tc, test_index_beyond_the_gpus);
  return s;
}

GST_CHECK_MAIN (vmafhip_gpus);
