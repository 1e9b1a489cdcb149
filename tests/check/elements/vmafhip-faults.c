/* vmafhip — GPU faults injected through the mock HIP runtime
 * (tests/check/gpu/mock-hip.c, loaded as VMAFHIP_HIP_LIBRARY): device
 * memory that runs out at the first frame, kernel launches and copies that
 * fail in the middle of a stream, a device that disappears (every call
 * failing, the frees too).  Each ends in one element error naming the
 * problem and a flow error upstream: no crash, no hang, no frame pushed
 * with a score made of what the GPU never computed.  Registered only with
 * the mock (meson.build). */
#include <stdlib.h>
#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "gstvmafhipmeta.h"
#include "vh-element-fixture.h"

/* Pushes pairs from `first` on until a push fails (or `n` pairs) and
 * returns how many went through on both pads. */
static guint
push_until_error (Fixture * f, guint first, guint n, GstFlowReturn * ret)
{
  guint i;
  *ret = GST_FLOW_OK;
  for (i = first; i < first + n && *ret == GST_FLOW_OK; i++) {
    *ret = push_ref (f, i);
    if (*ret == GST_FLOW_OK)
      *ret = push_dist (f, i);
  }
  return i - first;
}

/* No frame that left the element carries a VMAF score */
static void
check_no_scores (Fixture * f)
{
  GstBuffer *b;
  while ((b = gst_harness_try_pull (f->ref))) {
    GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (b);
    gdouble v;
    fail_if (meta && gst_vmafhip_meta_get_score (meta, "vmaf", &v),
        "a frame left with a score the GPU did not compute");
    gst_buffer_unref (b);
  }
}

/* Every device allocation refused: the stream stops (at negotiation or
 * the first frame) with the GPU's out-of-memory error */
GST_START_TEST (test_fault_out_of_memory)
{
  static const gchar *const needles[] = { "memory", NULL };
  g_setenv ("VH_MOCK_HIP_MALLOC_LIMIT", "16", TRUE);
  Fixture *f = fixture_new ("backend=hip", FALSE);
  GstFlowReturn ret;
  fixture_set_caps (f, "I420", "I420", 91);
  push_until_error (f, 0, 20, &ret);
  fail_unless (ret == GST_FLOW_ERROR || ret == GST_FLOW_NOT_NEGOTIATED,
      "pushes went on: %s", gst_flow_get_name (ret));
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  check_no_scores (f);
  fixture_free (f);
  g_unsetenv ("VH_MOCK_HIP_MALLOC_LIMIT");
}

GST_END_TEST;

/* A fault the mock starts after some calls (`variable`=`after`): the
 * stream runs a few frames, then stops with one error naming the frame
 * and what failed */
static void
check_mid_stream_fault (const char *variable, const char *after,
    guint seed, const gchar * const *needles)
{
  g_setenv (variable, after, TRUE);
  Fixture *f = fixture_new ("backend=hip", FALSE);
  GstFlowReturn ret;
  fixture_set_caps (f, "I420", "I420", seed);
  const guint pushed = push_until_error (f, 0, 60, &ret);
  fail_unless (ret == GST_FLOW_ERROR, "pushes went on: %s",
      gst_flow_get_name (ret));
  fail_unless (pushed > 3, "failed at once (%u pairs)", pushed);
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  fixture_free (f);
  g_unsetenv (variable);
}

/* Launches that start failing in the middle of the stream (after the
 * first 100 of the process: about ten frames of vmaf_v0.6.1) */
GST_START_TEST (test_fault_launch_mid_stream)
{
  static const gchar *const needles[] = { "Cannot score frame", "kernel",
    "failed", NULL };
  check_mid_stream_fault ("VH_MOCK_HIP_FAIL_LAUNCH_AFTER", "100", 92,
      needles);
}

GST_END_TEST;

/* Copies (uploads, result read-backs) that start failing in the middle
 * of the stream */
GST_START_TEST (test_fault_copy_mid_stream)
{
  static const gchar *const needles[] = { "Cannot score frame", "hipMemcpy",
    "failed", NULL };
  check_mid_stream_fault ("VH_MOCK_HIP_FAIL_COPY_AFTER", "40", 93, needles);
}

GST_END_TEST;

/* The device disappears after about ten frames: every call from then on
 * fails, the frees and destroys included; the stream stops with one error
 * naming the frame and the lost device, and tearing the element down
 * (which frees everything on the gone device) neither crashes nor hangs */
GST_START_TEST (test_fault_device_lost)
{
  static const gchar *const needles[] = { "Cannot score frame",
    "hipErrorNoDevice", NULL };
  check_mid_stream_fault ("VH_MOCK_HIP_LOST_AFTER", "100", 94, needles);
}

GST_END_TEST;

/* A 10-bit stream whose third frame carries a 16-bit value: the GPU
 * backend finds it while staging and stops with an error naming the frame
 * and the depth, as the CPU engine does (never a score from it) */
GST_START_TEST (test_fault_samples_beyond_depth)
{
  static const gchar *const needles[] = { "frame 2", "above 10 bits",
    NULL };
  Fixture *f = fixture_new ("backend=hip", FALSE);
  GstFlowReturn ret = GST_FLOW_OK;
  fixture_set_caps (f, "I420_10LE", "I420_10LE", 95);
  for (guint i = 0; i < 6 && ret == GST_FLOW_OK; i++) {
    VhPicture r, d;
    render (f, i, &r, &d);
    GstBuffer *dist = make_buffer (&f->dist_info, &d, i, 0);
    if (i == 2) {
      GstMapInfo map;
      fail_unless (gst_buffer_map (dist, &map, GST_MAP_WRITE));
      ((guint16 *) map.data)[100] = 0xffff;
      gst_buffer_unmap (dist, &map);
    }
    ret = gst_harness_push (f->ref, make_buffer (&f->ref_info, &r, i, 0));
    if (ret == GST_FLOW_OK)
      ret = gst_harness_push (f->dist, dist);
    else
      gst_buffer_unref (dist);
  }
  fail_unless (ret == GST_FLOW_ERROR, "pushes went on: %s",
      gst_flow_get_name (ret));
  expect_message (f->bus, &f->seen, GST_MESSAGE_ERROR, needles);
  /* frames 0 and 1 were scored; nothing from frame 2 on */
  GstBuffer *b;
  while ((b = gst_harness_try_pull (f->ref))) {
    GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (b);
    gdouble v;
    fail_if (meta && gst_vmafhip_meta_get_score (meta, "vmaf", &v)
        && gst_vmafhip_meta_get_index (meta) >= 2, "frame %d scored",
        gst_vmafhip_meta_get_index (meta));
    gst_buffer_unref (b);
  }
  fixture_free (f);
}

GST_END_TEST;

static Suite *
vmafhip_faults_suite (void)
{
  Suite *s = suite_create ("vmafhip-faults");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_fault_out_of_memory);
  tcase_add_test (tc, test_fault_launch_mid_stream);
  tcase_add_test (tc, test_fault_copy_mid_stream);
  tcase_add_test (tc, test_fault_device_lost);
  tcase_add_test (tc, test_fault_samples_beyond_depth);
  return s;
}

GST_CHECK_MAIN (vmafhip_faults);
