/* vmafhip element tests: the input memory kinds (system memory, GStreamer
 * CUDA memory) and many instances in one process.
 *
 * Everywhere: what the sink pads offer and accept without a GPU that can
 * read CUDA memory (system memory only, CUDA and DMABuf caps refused
 * cleanly).  On a GPU machine with Debian's nvcodec plugin: cudaupload and
 * nvh264dec pipelines scored exactly as the system-memory path, frames
 * from another CUDA context copied between contexts, and eight instances
 * in one pipeline scored as eight separate runs.
 *
 * With VMAFHIP_TEST_MOCK_HIP set (and VMAFHIP_HIP_LIBRARY naming the mock
 * HIP runtime, tests/check/gpu/mock-hip.c), only the dmabuf import path:
 * each dmabuf imported once however often it comes back, none mapped, all
 * released with their buffers, a refused import copied with one warning.
 * The mock runs no kernels, so its scores are not looked at.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE             /* memfd_create */
#endif
#include <dlfcn.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gst/allocators/allocators.h>

#include "gstvmafhipmeta.h"
#include "vh-element-fixture.h"
#include "vh-test-util.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudautils.h>
#endif

#define CUDA_FEATURE "memory:CUDAMemory"

static gboolean
caps_have_feature (GstCaps * caps, const char *feature)
{
  for (guint i = 0; i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures *f = gst_caps_get_features (caps, i);
    if (f && gst_caps_features_contains (f, feature))
      return TRUE;
  }
  return FALSE;
}

static GstCaps *
i420_caps (const char *feature)
{
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=I420,width=160,"
      "height=90,framerate=25/1");
  if (feature)
    gst_caps_set_features (caps, 0, gst_caps_features_new (feature, NULL));
  return caps;
}

/* backend=cpu: the pads offer system memory only and refuse CUDA memory
 * and dmabuf; a filter offering both gets system memory back. */
GST_START_TEST (test_caps_cpu_system_memory_only)
{
  GstElement *v = make_element ("backend=cpu");
  fail_unless_equals_int (gst_element_set_state (v, GST_STATE_PAUSED),
      GST_STATE_CHANGE_SUCCESS);
  for (int k = 0; k < 2; k++) {
    GstPad *pad = gst_element_get_static_pad (v, k ? "dist_sink" : "ref_sink");
    GstCaps *caps = gst_pad_query_caps (pad, NULL);
    fail_if (caps_have_feature (caps, CUDA_FEATURE), "%" GST_PTR_FORMAT, caps);
    gst_caps_unref (caps);

    GstCaps *both = i420_caps (CUDA_FEATURE);
    gst_caps_append (both, i420_caps (NULL));
    caps = gst_pad_query_caps (pad, both);
    fail_unless_equals_int (gst_caps_get_size (caps), 1);
    fail_if (caps_have_feature (caps, CUDA_FEATURE));
    gst_caps_unref (caps);
    gst_caps_unref (both);

    GstCaps *sys = i420_caps (NULL), *cuda = i420_caps (CUDA_FEATURE),
        *dmabuf = i420_caps ("memory:DMABuf");
    fail_unless (gst_pad_query_accept_caps (pad, sys));
    fail_if (gst_pad_query_accept_caps (pad, cuda));
    fail_if (gst_pad_query_accept_caps (pad, dmabuf));
    gst_caps_unref (sys);
    gst_caps_unref (cuda);
    gst_caps_unref (dmabuf);
    gst_object_unref (pad);
  }
  gst_element_set_state (v, GST_STATE_NULL);
  gst_object_unref (v);
}

GST_END_TEST;

/* Upstream that insists on CUDA memory the element cannot use: a clean
 * not-negotiated error, no crash, no score. */
GST_START_TEST (test_caps_cuda_refused_cleanly)
{
  Fixture *f = fixture_new ("backend=cpu", FALSE);
  GstCaps *cuda = i420_caps (CUDA_FEATURE);
  GstEvent *stream_start = gst_event_new_stream_start ("cuda");
  GstSegment seg;

  gst_harness_push_event (f->ref, stream_start);
  /* a sticky event is stored either way; the refusal comes with data */
  gst_harness_push_event (f->ref, gst_event_new_caps (cuda));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (f->ref, gst_event_new_segment (&seg));
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 160 * 90 * 3 / 2, NULL);
  GST_BUFFER_PTS (buf) = 0;
  fail_unless_equals_int (gst_harness_push (f->ref, buf),
      GST_FLOW_NOT_NEGOTIATED);
  fail_if (gst_harness_try_pull (f->ref) != NULL, "a refused frame came out");
  gst_caps_unref (cuda);
  fixture_free (f);
}

GST_END_TEST;

/* ------------------------------------------------------- on the GPU */

/* src's bytes and metadata in buf (memory of the test's choosing);
 * takes src, returns buf */
static GstBuffer *
refill (GstBuffer * buf, GstBuffer * src)
{
  GstMapInfo map;
  fail_unless (buf != NULL && gst_buffer_map (buf, &map, GST_MAP_WRITE));
  gst_buffer_extract (src, 0, map.data, map.size);
  gst_buffer_unmap (buf, &map);
  gst_buffer_copy_into (buf, src, GST_BUFFER_COPY_METADATA, 0, -1);
  gst_buffer_unref (src);
  return buf;
}

/* The same frame in dmabuf memory (a memfd: any mappable fd is a dmabuf
 * to GStreamer). */
static GstBuffer *
to_dmabuf (GstAllocator * allocator, GstBuffer * src)
{
  const gsize size = gst_buffer_get_size (src);
  const int fd = memfd_create ("vmafhip-test", MFD_CLOEXEC);
  fail_unless (fd >= 0 && ftruncate (fd, (off_t) size) == 0);
  GstBuffer *buf = gst_buffer_new ();
  gst_buffer_append_memory (buf, gst_dmabuf_allocator_alloc (allocator, fd,
          size));
  return refill (buf, src);
}

/* Scores n pairs of the fixture's content, in dmabuf memory or not;
 * returns the frame structures (copies) and counts the warnings. */
static GPtrArray *
score_pairs (const char *props, gboolean dmabuf, guint n, guint * warnings)
{
  Fixture *f = fixture_new (props, FALSE);
  GstAllocator *allocator = gst_dmabuf_allocator_new ();
  video_info_init (&f->ref_info, "I420", W, H);
  video_info_init (&f->dist_info, "I420", W, H);
  content_init (&f->content, &f->ref_info, 5);
  for (int k = 0; k < 2; k++) {
    GstCaps *caps = gst_video_info_to_caps (&f->ref_info);
    if (dmabuf)
      gst_caps_set_features (caps, 0,
          gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_DMABUF, NULL));
    gst_harness_set_src_caps (k ? f->dist : f->ref, caps);
  }
  for (guint i = 0; i < n; i++) {
    VhPicture r, d;
    render (f, i, &r, &d);
    GstBuffer *rb = make_buffer (&f->ref_info, &r, i, 0);
    GstBuffer *db = make_buffer (&f->dist_info, &d, i, 0);
    if (dmabuf) {
      rb = to_dmabuf (allocator, rb);
      db = to_dmabuf (allocator, db);
    }
    fail_unless_equals_int (gst_harness_push (f->ref, rb), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (f->dist, db), GST_FLOW_OK);
  }
  push_eos_both (f);
  wait_eos (f);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT
      | GST_MESSAGE_WARNING);
  *warnings = 0;
  for (GList * l = msgs; l; l = l->next)
    *warnings += GST_MESSAGE_TYPE (l->data) == GST_MESSAGE_WARNING;
  guint n_pooled;
  GPtrArray *copies = frame_message_copies (msgs, &n_pooled);
  free_messages (msgs);
  gst_object_unref (allocator);
  fixture_free (f);
  return copies;
}

/* dmabuf frames on a GPU backend: accepted, mapped and copied with one
 * warning, every score equal to the CPU's on system memory. */
GST_START_TEST (test_dmabuf_mapped_scores_equal)
{
  const guint n = 6;
  guint warned, cpu_warned;
  GPtrArray *gpu = score_pairs ("backend=hip psnr=true frame-message=true",
      TRUE, n, &warned);
  GPtrArray *cpu = score_pairs ("backend=cpu psnr=true frame-message=true",
      FALSE, n, &cpu_warned);
  fail_unless_equals_int (gpu->len, n);
  fail_unless_equals_int (cpu->len, n);
  fail_unless_equals_int (warned, 1);
  fail_unless_equals_int (cpu_warned, 0);
  for (guint i = 0; i < n; i++)
    fail_unless (gst_structure_is_equal (g_ptr_array_index (gpu, i),
            g_ptr_array_index (cpu, i)), "frame %u", i);
  g_ptr_array_unref (gpu);
  g_ptr_array_unref (cpu);
}

GST_END_TEST;

/* --------------------------------------------- the mock HIP runtime */

typedef void (*MockCountersFunc) (int *imports_live, int *imports_total,
    int *mappings_live);

static void *
mock_symbol (const char *name)
{
  void *mock = dlopen (g_getenv ("VMAFHIP_HIP_LIBRARY"), RTLD_NOW);
  fail_unless (mock != NULL, "the mock HIP runtime: %s", dlerror ());
  void *symbol = dlsym (mock, name);
  fail_unless (symbol != NULL, "%s", name);
  return symbol;
}

static void
mock_counters (int *imports_live, int *imports_total, int *mappings_live)
{
  ((MockCountersFunc) mock_symbol ("vh_mock_hip_counters")) (imports_live,
      imports_total, mappings_live);
}

/* Scores n pairs made of two reference and two distorted dmabufs that come
 * back again and again (as a decoder's pool would give them); returns the
 * frame messages and the first warning. */
static guint
score_recycled_dmabufs (guint n, guint * warnings, gchar ** warning_text)
{
  Fixture *f = fixture_new ("backend=hip frame-message=true", FALSE);
  GstAllocator *allocator = gst_dmabuf_allocator_new ();
  GstMemory *mems[2][2];
  video_info_init (&f->ref_info, "I420", W, H);
  video_info_init (&f->dist_info, "I420", W, H);
  content_init (&f->content, &f->ref_info, 5);
  for (int k = 0; k < 2; k++) {
    GstCaps *caps = gst_video_info_to_caps (&f->ref_info);
    gst_caps_set_features (caps, 0,
        gst_caps_features_new (GST_CAPS_FEATURE_MEMORY_DMABUF, NULL));
    gst_harness_set_src_caps (k ? f->dist : f->ref, caps);
  }
  for (guint i = 0; i < 2; i++) {
    VhPicture r, d;
    render (f, i, &r, &d);
    GstBuffer *rb = to_dmabuf (allocator, make_buffer (&f->ref_info, &r, i,
            0));
    GstBuffer *db = to_dmabuf (allocator, make_buffer (&f->dist_info, &d, i,
            0));
    mems[i][0] = gst_memory_ref (gst_buffer_peek_memory (rb, 0));
    mems[i][1] = gst_memory_ref (gst_buffer_peek_memory (db, 0));
    gst_buffer_unref (rb);
    gst_buffer_unref (db);
  }
  for (guint i = 0; i < n; i++)
    for (int k = 0; k < 2; k++) {
      GstBuffer *buf = gst_buffer_new ();
      gst_buffer_append_memory (buf, gst_memory_ref (mems[i % 2][k]));
      GST_BUFFER_PTS (buf) = i * GST_SECOND / 25;
      GST_BUFFER_DURATION (buf) = GST_SECOND / 25;
      fail_unless_equals_int (gst_harness_push (k ? f->dist : f->ref, buf),
          GST_FLOW_OK);
    }
  push_eos_both (f);
  wait_eos (f);
  GList *msgs = take_messages (f->bus, &f->seen, GST_MESSAGE_ELEMENT
      | GST_MESSAGE_WARNING);
  *warnings = 0;
  *warning_text = NULL;
  for (GList * l = msgs; l; l = l->next)
    if (GST_MESSAGE_TYPE (l->data) == GST_MESSAGE_WARNING) {
      GError *e = NULL;
      gst_message_parse_warning (l->data, &e, NULL);
      if (!*warning_text)
        *warning_text = g_strdup (e->message);
      g_error_free (e);
      (*warnings)++;
    }
  const GstStructure *pooled;
  guint n_pooled;
  GPtrArray *frames = frame_messages (msgs, &pooled, &n_pooled);
  const guint n_frames = frames->len;
  g_ptr_array_unref (frames);
  free_messages (msgs);
  fixture_free (f);
  for (guint i = 0; i < 2; i++)
    for (int k = 0; k < 2; k++)
      gst_memory_unref (mems[i][k]);
  gst_object_unref (allocator);
  return n_frames;
}

GST_START_TEST (test_dmabuf_imported_once_mock)
{
  int live, before, after, mappings;
  guint warnings;
  gchar *text;
  mock_counters (&live, &before, &mappings);
  fail_unless_equals_int (score_recycled_dmabufs (8, &warnings, &text), 8);
  fail_unless (warnings == 0, "%s", text);
  mock_counters (&live, &after, &mappings);
  /* four dmabufs, each imported once; all released with their buffers */
  fail_unless_equals_int (after - before, 4);
  fail_unless_equals_int (live, 0);
  fail_unless_equals_int (mappings, 0);
  g_free (text);
}

GST_END_TEST;

/* Frames upstream wrote into the element's pinned memory (the allocator
 * it offers) are copied to the GPU after push returns (VhPicture.held):
 * the element keeps each distorted frame until its frame's scores are
 * final, so frame i's is released as reference frame i goes out, after
 * frames 0..i-1 and not before; every frame is scored and goes out
 * intact. */
static gint frames_out;

static GstPadProbeReturn
count_out (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  (void) pad;
  (void) info;
  (void) user_data;
  g_atomic_int_inc (&frames_out);
  return GST_PAD_PROBE_OK;
}

static void
dist_released (gpointer data, GstMiniObject * obj)
{
  (void) obj;
  *(gint *) data = g_atomic_int_get (&frames_out);
}

GST_START_TEST (test_pinned_frames_held_until_final_mock)
{
  enum { N = 6 };
  gint released[N];
  Fixture *f = fixture_new ("backend=hip", FALSE);
  video_info_init (&f->ref_info, "I420", W, H);
  video_info_init (&f->dist_info, "I420", W, H);
  content_init (&f->content, &f->ref_info, 7);
  gst_harness_set_src_caps (f->ref, gst_video_info_to_caps (&f->ref_info));
  gst_harness_set_src_caps (f->dist, gst_video_info_to_caps (&f->dist_info));
  /* what a producer such as videotestsrc asks for */
  GstAllocator *allocator = NULL;
  GstAllocationParams params;
  GstCaps *caps = gst_video_info_to_caps (&f->dist_info);
  GstQuery *query = gst_query_new_allocation (caps, FALSE);
  gst_caps_unref (caps);
  fail_unless (gst_pad_peer_query (f->dist->srcpad, query),
      "dist_sink did not answer the allocation query");
  if (gst_query_get_n_allocation_params (query) > 0)
    gst_query_parse_nth_allocation_param (query, 0, &allocator, &params);
  gst_query_unref (query);
  fail_unless (allocator != NULL && !g_strcmp0 (allocator->mem_type,
          "VmafHipPinned"), "no pinned allocator offered on dist_sink");
  g_atomic_int_set (&frames_out, 0);
  GstPad *src = gst_element_get_static_pad (f->element, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, count_out, NULL, NULL);
  gst_object_unref (src);
  GPtrArray *sent = g_ptr_array_new_with_free_func ((GDestroyNotify)
      g_bytes_unref);
  for (guint i = 0; i < N; i++) {
    VhPicture r, d;
    render (f, i, &r, &d);
    GstBuffer *rb = make_buffer (&f->ref_info, &r, i, 0);
    GstBuffer *plain = make_buffer (&f->dist_info, &d, i, 0);
    GstBuffer *db = refill (gst_buffer_new_allocate (allocator,
            gst_buffer_get_size (plain), &params), plain);
    released[i] = -1;
    gst_mini_object_weak_ref (GST_MINI_OBJECT (db), dist_released,
        &released[i]);
    gpointer bytes;
    gsize ref_size;
    gst_buffer_extract_dup (rb, 0, gst_buffer_get_size (rb), &bytes,
        &ref_size);
    g_ptr_array_add (sent, g_bytes_new_take (bytes, ref_size));
    fail_unless_equals_int (gst_harness_push (f->ref, rb), GST_FLOW_OK);
    fail_unless_equals_int (gst_harness_push (f->dist, db), GST_FLOW_OK);
  }
  push_eos_both (f);
  for (guint i = 0; i < N; i++) {
    GstBuffer *out = gst_harness_pull (f->ref);
    fail_unless (out != NULL, "frame %u", i);
    GstVmafHipMeta *meta = gst_buffer_get_vmafhip_meta (out);
    fail_unless (meta != NULL && gst_vmafhip_meta_get_index (meta) == (gint) i,
        "frame %u was not scored", i);
    gsize size;
    const guint8 *want = g_bytes_get_data (g_ptr_array_index (sent, i),
        &size);
    fail_unless (gst_buffer_memcmp (out, 0, want, size) == 0,
        "frame %u changed on its way through", i);
    gst_buffer_unref (out);
  }
  wait_eos (f);
  for (guint i = 0; i < N; i++)
    fail_unless (released[i] == (gint) i, "distorted frame %u was released "
        "with %d frames out (expected as frame %u went out)", i, released[i],
        i);
  gst_object_unref (allocator);
  g_ptr_array_unref (sent);
  fixture_free (f);
}

GST_END_TEST;

GST_START_TEST (test_dmabuf_import_refused_mock)
{
  int live, before, after, mappings;
  guint warnings;
  gchar *text;
  g_setenv ("VH_MOCK_HIP_REFUSE_IMPORT", "1", TRUE);
  mock_counters (&live, &before, &mappings);
  fail_unless_equals_int (score_recycled_dmabufs (8, &warnings, &text), 8);
  g_unsetenv ("VH_MOCK_HIP_REFUSE_IMPORT");
  mock_counters (&live, &after, &mappings);
  /* one try, one warning naming the driver's refusal, then mapped copies */
  fail_unless_equals_int (warnings, 1);
  fail_unless (strstr (text, "hipImportExternalMemory failed") != NULL, "%s",
      text);
  fail_unless_equals_int (after, before);
  fail_unless_equals_int (live, 0);
  g_free (text);
}

GST_END_TEST;

typedef struct {
  GPtrArray *frames;            /* frame structures, in order */
  GHashTable *pooled;           /* element name -> pooled structure (a
                                 * rendition's: "name/pad") */
  guint warnings;               /* WARNING messages from vmafhip */
  gchar *warning_text;          /* the first one */
  guint cuda_buffers;           /* buffers in CUDA memory into vmafhip */
} Run;

static void
run_clear (Run * r)
{
  g_ptr_array_unref (r->frames);
  g_hash_table_unref (r->pooled);
  g_free (r->warning_text);
}

static GstPadProbeReturn
count_cuda_buffers (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMemory *mem = gst_buffer_peek_memory (buf, 0);
  (void) pad;
  if (mem && mem->allocator
      && !g_strcmp0 (mem->allocator->mem_type, "gst.cuda.memory"))
    g_atomic_int_inc ((gint *) data);
  return GST_PAD_PROBE_OK;
}

/* Runs a pipeline to EOS; collects every vmafhip's messages.  pre_start,
 * if given, is called on the pipeline before it starts. */
static void
run_pipeline (const gchar * desc, Run * r, void (*pre_start) (GstElement *))
{
  GError *error = NULL;
  GstElement *pipe = gst_parse_launch (desc, &error);
  GstBus *bus;
  GstMessage *m;

  fail_unless (pipe != NULL, "%s: %s", desc, error ? error->message : "");
  memset (r, 0, sizeof *r);
  r->frames = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  r->pooled = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
      (GDestroyNotify) gst_structure_free);
  GstElement *v = gst_bin_get_by_name (GST_BIN (pipe), "v");
  if (v) {
    /* every sink pad: renditions' too */
    GstIterator *it = gst_element_iterate_sink_pads (v);
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
      gst_pad_add_probe (g_value_get_object (&item),
          GST_PAD_PROBE_TYPE_BUFFER, count_cuda_buffers, &r->cuda_buffers,
          NULL);
      g_value_reset (&item);
    }
    g_value_unset (&item);
    gst_iterator_free (it);
    gst_object_unref (v);
  }
  if (pre_start)
    pre_start (pipe);
  bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  while ((m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
              GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS | GST_MESSAGE_ERROR
              | GST_MESSAGE_WARNING))) {
    const GstStructure *s = gst_message_get_structure (m);
    gboolean done = GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS;
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ERROR) {
      GError *e = NULL;
      gst_message_parse_error (m, &e, NULL);
      fail ("%s: %s", desc, e->message);
    }
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_WARNING
        && g_str_has_prefix (GST_OBJECT_NAME (GST_MESSAGE_SRC (m)), "v")) {
      GError *e = NULL;
      gst_message_parse_warning (m, &e, NULL);
      if (!r->warning_text)
        r->warning_text = g_strdup (e->message);
      r->warnings++;
      g_clear_error (&e);
    }
    if (s && gst_structure_has_name (s, "VMAF")) {
      const char *pad = gst_structure_get_string (s, "pad");
      const char *name = GST_OBJECT_NAME (GST_MESSAGE_SRC (m));
      if (!g_strcmp0 (gst_structure_get_string (s, "type"), "frame"))
        g_ptr_array_add (r->frames, gst_structure_copy (s));
      else
        g_hash_table_insert (r->pooled, !pad || !strcmp (pad, "dist_sink")
            ? g_strdup (name) : g_strdup_printf ("%s/%s", name, pad),
            gst_structure_copy (s));
    }
    gst_message_unref (m);
    if (done)
      break;
  }
  fail_unless (m != NULL, "%s: no EOS within 120 s", desc);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

/* (the CUDA memory tests', built with HAVE_GST_CUDA only) */
G_GNUC_UNUSED static void
assert_same_scores (Run * a, Run * b, const char *what)
{
  fail_unless (a->frames->len > 0, "%s: no frame scores", what);
  fail_unless_equals_int (a->frames->len, b->frames->len);
  for (guint i = 0; i < a->frames->len; i++) {
    GstStructure *x = g_ptr_array_index (a->frames, i);
    GstStructure *y = g_ptr_array_index (b->frames, i);
    gchar *xs = gst_structure_to_string (x), *ys = gst_structure_to_string (y);
    fail_unless (gst_structure_is_equal (x, y), "%s frame %u:\n %s\n %s",
        what, i, xs, ys);
    g_free (xs);
    g_free (ys);
  }
  GstStructure *pa = g_hash_table_lookup (a->pooled, "v");
  GstStructure *pb = g_hash_table_lookup (b->pooled, "v");
  fail_unless (pa && pb && gst_structure_is_equal (pa, pb),
      "%s: the pooled scores differ", what);
}

/* One pad's frame and pooled scores, equal in both runs */
G_GNUC_UNUSED static void
assert_same_pad_scores (Run * a, Run * b, const char *pad, const char *what)
{
  guint n = 0;
  for (guint i = 0, j = 0; i < a->frames->len; i++) {
    GstStructure *x = g_ptr_array_index (a->frames, i);
    if (g_strcmp0 (gst_structure_get_string (x, "pad"), pad))
      continue;
    GstStructure *y = NULL;
    while (j < b->frames->len && !y) {
      y = g_ptr_array_index (b->frames, j++);
      if (g_strcmp0 (gst_structure_get_string (y, "pad"), pad))
        y = NULL;
    }
    fail_unless (y != NULL, "%s %s: frame %u missing", what, pad, n);
    gchar *xs = gst_structure_to_string (x), *ys = gst_structure_to_string (y);
    fail_unless (gst_structure_is_equal (x, y), "%s %s frame %u:\n %s\n %s",
        what, pad, n, xs, ys);
    g_free (xs);
    g_free (ys);
    n++;
  }
  fail_unless (n > 0, "%s %s: no frame scores", what, pad);
  gchar *key = strcmp (pad, "dist_sink") ? g_strdup_printf ("v/%s", pad)
      : g_strdup ("v");
  GstStructure *pa = g_hash_table_lookup (a->pooled, key);
  GstStructure *pb = g_hash_table_lookup (b->pooled, key);
  fail_unless (pa && pb && gst_structure_is_equal (pa, pb),
      "%s %s: the pooled scores differ", what, pad);
  guint frames = 0;
  fail_unless (gst_structure_get_uint (pa, "n-frames", &frames));
  fail_unless_equals_int (frames, n);
  g_free (key);
}

#define N_FRAMES 8
#define SRC(pattern, fmt) "videotestsrc num-buffers=8 pattern=" pattern \
  " ! video/x-raw,format=" fmt ",width=320,height=240,framerate=25/1"
#define DISTORT " ! videobalance contrast=0.8 brightness=0.05"

/* CUDA memory in: only with GStreamer's CUDA library (HAVE_GST_CUDA) */
#ifdef HAVE_GST_CUDA
/* cudaupload in the element's context: frames read on the GPU where they
 * are (no warning: neither a copy to host nor between contexts), scores
 * equal to system memory's.  I420 with PSNR (every plane on the device)
 * and NV12 (luma on the device). */
GST_START_TEST (test_cudaupload_scores_equal)
{
  static const char *const formats[] = { "I420", "NV12" };
  for (guint c = 0; c < G_N_ELEMENTS (formats); c++) {
    const char *fmt = formats[c];
    const char *extra = c == 0 ? "psnr=true" : "";
    gchar *cuda = g_strdup_printf ("%s ! videoconvert ! video/x-raw,format=%s ! "
        "cudaupload ! v.ref_sink %s%s ! videoconvert ! video/x-raw,format=%s "
        "! cudaupload ! v.dist_sink vmafhip name=v backend=hip %s "
        "frame-message=true ! fakesink", SRC ("ball", "I420"), fmt,
        SRC ("ball", "I420"), DISTORT, fmt, extra);
    gchar *sys = g_strdup_printf ("%s ! videoconvert ! video/x-raw,format=%s "
        "! v.ref_sink %s%s ! videoconvert ! video/x-raw,format=%s ! "
        "v.dist_sink vmafhip name=v backend=cpu %s frame-message=true ! "
        "fakesink", SRC ("ball", "I420"), fmt, SRC ("ball", "I420"), DISTORT,
        fmt, extra);
    Run a, b;
    run_pipeline (cuda, &a, NULL);
    run_pipeline (sys, &b, NULL);
    fail_unless_equals_int (a.cuda_buffers, 2 * N_FRAMES);
    fail_unless_equals_int (b.cuda_buffers, 0);
    fail_unless (a.warnings == 0, "%s: %s", fmt, a.warning_text);
    assert_same_scores (&a, &b, fmt);
    run_clear (&a);
    run_clear (&b);
    g_free (cuda);
    g_free (sys);
  }
}

GST_END_TEST;

/* P010 (samples in the high bits): read through host memory, with one
 * warning that says why, and the same scores. */
GST_START_TEST (test_cuda_p010_through_host)
{
  const char *tail = " ! videoconvert ! video/x-raw,format=P010_10LE";
  gchar *cuda = g_strdup_printf ("%s%s ! cudaupload ! v.ref_sink %s%s%s ! "
      "cudaupload ! v.dist_sink vmafhip name=v backend=hip frame-message=true "
      "! fakesink", SRC ("ball", "I420"), tail, SRC ("ball", "I420"), DISTORT,
      tail);
  gchar *sys = g_strdup_printf ("%s%s ! v.ref_sink %s%s%s ! v.dist_sink "
      "vmafhip name=v backend=cpu frame-message=true ! fakesink",
      SRC ("ball", "I420"), tail, SRC ("ball", "I420"), DISTORT, tail);
  Run a, b;
  run_pipeline (cuda, &a, NULL);
  run_pipeline (sys, &b, NULL);
  fail_unless_equals_int (a.cuda_buffers, 2 * N_FRAMES);
  fail_unless_equals_int (a.warnings, 1);
  fail_unless (strstr (a.warning_text, "copied to host memory") != NULL,
      "%s", a.warning_text);
  assert_same_scores (&a, &b, "P010");
  run_clear (&a);
  run_clear (&b);
  g_free (cuda);
  g_free (sys);
}

GST_END_TEST;

#define SMALL(pattern) "videotestsrc num-buffers=8 pattern=" pattern \
  " ! video/x-raw,format=I420,width=160,height=120,framerate=25/1"

/* Renditions in CUDA memory (cudaupload): read on the GPU where they are,
 * a smaller one scaled there, with the reference uploaded per rendition
 * and once for all (VMAFHIP_SHARED_REFERENCE=1, from CUDA memory too):
 * no warning, every pad's scores equal to the same pipeline's in system
 * memory. */
GST_START_TEST (test_cuda_renditions_scores_equal)
{
  for (int shared = 0; shared < 2; shared++) {
    g_setenv ("VMAFHIP_SHARED_REFERENCE", shared ? "1" : "0", TRUE);
    Run run[2];
    for (int cuda = 0; cuda < 2; cuda++) {
      const char *up = cuda ? " ! cudaupload" : "";
      gchar *desc = g_strdup_printf ("%s%s ! v.ref_sink %s%s%s ! v.dist_sink "
          "%s%s%s ! v.dist_sink_0 %s%s%s ! v.dist_sink_1 %s%s ! v.dist_sink_2 "
          "vmafhip name=v backend=hip frame-message=true ! fakesink",
          SRC ("ball", "I420"), up, SRC ("ball", "I420"), DISTORT, up,
          SRC ("ball", "I420"), " ! videobalance contrast=0.6", up,
          SMALL ("ball"), DISTORT, up, SRC ("ball", "I420"), up);
      run_pipeline (desc, &run[cuda], NULL);
      fail_unless (run[cuda].warnings == 0, "%s: %s", desc,
          run[cuda].warning_text);
      g_free (desc);
    }
    fail_unless_equals_int (run[1].cuda_buffers, 5 * N_FRAMES);
    fail_unless_equals_int (run[0].cuda_buffers, 0);
    const char *what = shared ? "shared reference" : "reference per rendition";
    assert_same_pad_scores (&run[1], &run[0], "dist_sink", what);
    assert_same_pad_scores (&run[1], &run[0], "dist_sink_0", what);
    assert_same_pad_scores (&run[1], &run[0], "dist_sink_1", what);
    assert_same_pad_scores (&run[1], &run[0], "dist_sink_2", what);
    run_clear (&run[0]);
    run_clear (&run[1]);
  }
  g_unsetenv ("VMAFHIP_SHARED_REFERENCE");
}

GST_END_TEST;

/* A rendition in CUDA memory the GPU cannot read in place (P010's shifted
 * samples): copied to host memory with one warning that says why, the
 * same scores. */
GST_START_TEST (test_cuda_rendition_p010_through_host)
{
  const char *tail = " ! videoconvert ! video/x-raw,format=P010_10LE";
  Run run[2];
  for (int cuda = 0; cuda < 2; cuda++) {
    gchar *desc = g_strdup_printf ("%s%s ! v.ref_sink %s%s%s ! v.dist_sink "
        "%s%s%s%s ! v.dist_sink_0 vmafhip name=v backend=hip "
        "frame-message=true ! fakesink", SRC ("ball", "I420"), tail,
        SRC ("ball", "I420"), DISTORT, tail, SRC ("ball", "I420"),
        " ! videobalance contrast=0.6", tail, cuda ? " ! cudaupload" : "");
    run_pipeline (desc, &run[cuda], NULL);
    g_free (desc);
  }
  fail_unless_equals_int (run[1].cuda_buffers, N_FRAMES);
  fail_unless_equals_int (run[0].warnings, 0);
  fail_unless_equals_int (run[1].warnings, 1);
  fail_unless (strstr (run[1].warning_text, "copied to host memory") != NULL,
      "%s", run[1].warning_text);
  assert_same_pad_scores (&run[1], &run[0], "dist_sink_0", "P010");
  run_clear (&run[0]);
  run_clear (&run[1]);
}

GST_END_TEST;

/* Gives the uploaders a CUDA context of their own before they ask. */
static void
set_foreign_context (GstElement * pipe)
{
  GstCudaContext *ctx = gst_cuda_context_new (0);
  fail_unless (ctx != NULL);
  GstContext *context = gst_context_new_cuda_context (ctx);
  GstIterator *it = gst_bin_iterate_elements (GST_BIN (pipe));
  GValue item = G_VALUE_INIT;
  while (gst_iterator_next (it, &item) == GST_ITERATOR_OK) {
    GstElement *e = g_value_get_object (&item);
    if (g_str_has_prefix (GST_OBJECT_NAME (e), "up"))
      gst_element_set_context (e, context);
    g_value_reset (&item);
  }
  g_value_unset (&item);
  gst_iterator_free (it);
  gst_context_unref (context);
  gst_object_unref (ctx);
}

/* Frames from another CUDA context: copied between the contexts on the
 * GPU, one warning, the same scores. */
GST_START_TEST (test_cuda_foreign_context)
{
  gchar *cuda = g_strdup_printf ("%s ! cudaupload name=up0 ! v.ref_sink %s%s "
      "! cudaupload name=up1 ! v.dist_sink vmafhip name=v backend=hip "
      "frame-message=true ! fakesink", SRC ("ball", "I420"),
      SRC ("ball", "I420"), DISTORT);
  gchar *sys = g_strdup_printf ("%s ! v.ref_sink %s%s ! v.dist_sink vmafhip "
      "name=v backend=cpu frame-message=true ! fakesink", SRC ("ball", "I420"),
      SRC ("ball", "I420"), DISTORT);
  Run a, b;
  run_pipeline (cuda, &a, set_foreign_context);
  run_pipeline (sys, &b, NULL);
  fail_unless_equals_int (a.cuda_buffers, 2 * N_FRAMES);
  fail_unless_equals_int (a.warnings, 1);
  fail_unless (strstr (a.warning_text, "another context") != NULL, "%s",
      a.warning_text);
  assert_same_scores (&a, &b, "foreign context");
  run_clear (&a);
  run_clear (&b);
  g_free (cuda);
  g_free (sys);
}

GST_END_TEST;

/* nvh264dec straight into vmafhip (CUDA memory) against the same decoder
 * downloading to system memory: the same decoded frames, the same scores. */
GST_START_TEST (test_nvh264dec_scores_equal)
{
  const char *enc = " ! x264enc speed-preset=ultrafast bitrate=400 "
      "key-int-max=4 ! video/x-h264,stream-format=byte-stream ! h264parse ! "
      "nvh264dec";
  gchar *cuda = g_strdup_printf ("%s ! videoconvert ! video/x-raw,format=I420 "
      "! cudaupload ! v.ref_sink %s%s ! v.dist_sink vmafhip name=v "
      "backend=hip frame-message=true ! fakesink", SRC ("ball", "I420"),
      SRC ("ball", "I420"), enc);
  gchar *sys = g_strdup_printf ("%s ! v.ref_sink %s%s ! video/x-raw ! "
      "v.dist_sink vmafhip name=v backend=cpu frame-message=true ! fakesink",
      SRC ("ball", "I420"), SRC ("ball", "I420"), enc);
  Run a, b;
  run_pipeline (cuda, &a, NULL);
  run_pipeline (sys, &b, NULL);
  fail_unless_equals_int (a.cuda_buffers, 2 * N_FRAMES);
  fail_unless (a.warnings == 0, "%s", a.warning_text);
  assert_same_scores (&a, &b, "nvh264dec");
  run_clear (&a);
  run_clear (&b);
  g_free (cuda);
  g_free (sys);
}

GST_END_TEST;
#endif /* HAVE_GST_CUDA */

/* Eight instances in one process, sharing the device, each scored as when
 * it runs alone. */
GST_START_TEST (test_eight_instances_equal_separate_runs)
{
  static const char *const patterns[] = { "ball", "smpte", "snow", "zone-plate",
    "circular", "gamut", "pinwheel", "spokes"
  };
  GString *all = g_string_new (NULL);
  for (guint i = 0; i < 8; i++)
    g_string_append_printf (all, "videotestsrc num-buffers=8 pattern=%s ! "
        "video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! "
        "v%u.ref_sink videotestsrc num-buffers=8 pattern=%s ! "
        "video/x-raw,format=I420,width=320,height=240,framerate=25/1 "
        DISTORT " ! v%u.dist_sink vmafhip name=v%u backend=hip ! fakesink ",
        patterns[i], i, patterns[i], i, i);
  Run together;
  run_pipeline (all->str, &together, NULL);
  fail_unless_equals_int (g_hash_table_size (together.pooled), 8);
  for (guint i = 0; i < 8; i++) {
    gchar *one = g_strdup_printf ("videotestsrc num-buffers=8 pattern=%s ! "
        "video/x-raw,format=I420,width=320,height=240,framerate=25/1 ! "
        "v.ref_sink videotestsrc num-buffers=8 pattern=%s ! "
        "video/x-raw,format=I420,width=320,height=240,framerate=25/1 "
        DISTORT " ! v.dist_sink vmafhip name=v backend=hip ! fakesink",
        patterns[i], patterns[i]);
    gchar *name = g_strdup_printf ("v%u", i);
    Run alone;
    run_pipeline (one, &alone, NULL);
    GstStructure *x = g_hash_table_lookup (together.pooled, name);
    GstStructure *y = g_hash_table_lookup (alone.pooled, "v");
    fail_unless (x && y);
    gchar *xs = gst_structure_to_string (x), *ys = gst_structure_to_string (y);
    fail_unless (gst_structure_is_equal (x, y), "instance %u:\n %s\n %s", i,
        xs, ys);
    g_free (xs);
    g_free (ys);
    run_clear (&alone);
    g_free (one);
    g_free (name);
  }
  run_clear (&together);
  g_string_free (all, TRUE);
}

GST_END_TEST;

static Suite *
vmafhip_memory_suite (void)
{
  Suite *s = suite_create ("vmafhip-memory");
  TCase *tc = tcase_create ("general");
  const gboolean gpu = gpu_present_in_child ();

  suite_add_tcase (s, tc);
  if (g_getenv ("VMAFHIP_TEST_MOCK_HIP")) {
    /* every "GPU" here is the mock: only what it can show */
    tcase_add_test (tc, test_dmabuf_imported_once_mock);
    tcase_add_test (tc, test_pinned_frames_held_until_final_mock);
    tcase_add_test (tc, test_dmabuf_import_refused_mock);
    return s;
  }
  tcase_add_test (tc, test_caps_cpu_system_memory_only);
  tcase_add_test (tc, test_caps_cuda_refused_cleanly);
  if (gpu) {
    tcase_add_test (tc, test_eight_instances_equal_separate_runs);
    tcase_add_test (tc, test_dmabuf_mapped_scores_equal);
  } else {
    vh_test_skip_case ("test_eight_instances_equal_separate_runs, "
        "test_dmabuf_mapped_scores_equal", "no usable GPU here");
  }
  GstElementFactory *up = gst_element_factory_find ("cudaupload");
  if (gpu && up) {
#ifdef HAVE_GST_CUDA
    tcase_add_test (tc, test_cudaupload_scores_equal);
    tcase_add_test (tc, test_cuda_p010_through_host);
    tcase_add_test (tc, test_cuda_foreign_context);
    tcase_add_test (tc, test_cuda_renditions_scores_equal);
    tcase_add_test (tc, test_cuda_rendition_p010_through_host);
    if (has_factories ("nvh264dec", "x264enc"))
      tcase_add_test (tc, test_nvh264dec_scores_equal);
    else
      vh_test_skip_case ("test_nvh264dec_scores_equal", "nvh264dec or "
          "x264enc missing");
#else
    /* the pads offer CUDA memory only with GStreamer's CUDA library */
    vh_test_skip_case ("test_cudaupload_scores_equal, "
        "test_cuda_p010_through_host, test_cuda_foreign_context, "
        "test_cuda_renditions_scores_equal, "
        "test_cuda_rendition_p010_through_host, "
        "test_nvh264dec_scores_equal", "built without gstreamer-cuda-1.0 "
        "(scripts/install-deps.sh --cuda-memory)");
#endif
  } else {
    vh_test_skip_case ("test_cudaupload_scores_equal, "
        "test_cuda_p010_through_host, test_cuda_foreign_context, "
        "test_cuda_renditions_scores_equal, "
        "test_cuda_rendition_p010_through_host, "
        "test_nvh264dec_scores_equal", "no usable GPU or no cudaupload "
        "(Debian's nvcodec plugin registers its elements only where CUDA "
        "runs)");
  }
  gst_clear_object (&up);
  return s;
}

GST_CHECK_MAIN (vmafhip_memory);
