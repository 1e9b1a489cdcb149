/* vmafhip — the element tests' shared fixture (see vh-element-fixture.h). */
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <glib/gstdio.h>
#include <gst/base/gstaggregator.h>

#include "gstvmafhipmeta.h"
#include "vh-element-fixture.h"

#include "scale.h"
#include "vh-gpu.h"
#include "vh-spec.h"
#include "vh-test-util.h"
/* ------------------------------------------------------------ content */


VhSynthChroma
chroma_of (const GstVideoInfo * info)
{
  if (GST_VIDEO_INFO_IS_GRAY (info))
    return VH_SYNTH_420;
  if (info->finfo->w_sub[1] == 0 && info->finfo->h_sub[1] == 0)
    return VH_SYNTH_444;
  if (info->finfo->h_sub[1] == 0)
    return VH_SYNTH_422;
  return VH_SYNTH_420;
}

void
content_init (Content * c, const GstVideoInfo * info, uint32_t seed)
{
  c->bpc = GST_VIDEO_INFO_COMP_DEPTH (info, 0);
  c->chroma = chroma_of (info);
  c->seed = seed;
  c->synth = vh_synth_new (GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), c->bpc, c->chroma, seed);
  fail_unless (c->synth != NULL);
}

void
content_clear (Content * c)
{
  vh_synth_free (c->synth);
  c->synth = NULL;
}

void
video_info_init (GstVideoInfo * info, const char *format, int w, int h)
{
  GstVideoFormat f = gst_video_format_from_string (format);
  fail_unless (f != GST_VIDEO_FORMAT_UNKNOWN, "format %s", format);
  gst_video_info_set_format (info, f, w, h);
  GST_VIDEO_INFO_FPS_N (info) = FPS;
  GST_VIDEO_INFO_FPS_D (info) = 1;
}

/* Writes a picture into a buffer laid out as `info` says (any plane
 * order, interleave or sample shift). */
GstBuffer *
make_buffer (const GstVideoInfo * info, const VhPicture * pic, guint index,
    GstClockTime pts_offset)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, info->size, NULL);
  GstVideoFrame frame;

  gst_buffer_memset (buf, 0, 0, info->size);
  fail_unless (gst_video_frame_map (&frame, info, buf, GST_MAP_WRITE));
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info) && c < 3; c++) {
    const VhPlane *sp = &pic->plane[MIN (c, pic->nplanes - 1)];
    const guint dw = GST_VIDEO_FRAME_COMP_WIDTH (&frame, c);
    const guint dh = GST_VIDEO_FRAME_COMP_HEIGHT (&frame, c);
    const guint depth = GST_VIDEO_INFO_COMP_DEPTH (info, c);
    const guint shift = info->finfo->shift[c];
    const gint pstride = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, c);
    /* V of P010 starts at byte 2 of the UV pair (GStreamer 1.22 says 1) */
    guint8 *data = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&frame,
        info->finfo->plane[c]) + GST_ROUND_UP_N (info->finfo->poffset[c],
        depth > 8 ? 2 : 1);

    for (guint y = 0; y < dh; y++) {
      guint8 *row = data + (gsize) y * GST_VIDEO_FRAME_COMP_STRIDE (&frame, c);
      for (guint x = 0; x < dw; x++) {
        guint v = vh_plane_sample (sp, pic->bpc, x * sp->width / dw,
            y * sp->height / dh);
        if (pic->bpc > depth)
          v >>= pic->bpc - depth;
        else
          v <<= depth - pic->bpc;
        if (depth > 8)
          GST_WRITE_UINT16_LE (row + (gsize) x * pstride, v << shift);
        else
          row[(gsize) x * pstride] = (guint8) v;
      }
    }
  }
  gst_video_frame_unmap (&frame);
  GST_BUFFER_PTS (buf) = pts_offset + index * FRAME_DUR;
  GST_BUFFER_DURATION (buf) = FRAME_DUR;
  return buf;
}

/* ------------------------------------------------------------ fixture */


void
apply_props (GstElement * e, const char *props)
{
  gchar **kv = g_strsplit (props ? props : "", " ", -1);
  for (guint i = 0; kv[i]; i++) {
    gchar *eq = strchr (kv[i], '=');
    if (!*kv[i])
      continue;
    fail_unless (eq != NULL, "bad property '%s'", kv[i]);
    *eq = '\0';
    gst_util_set_object_arg (G_OBJECT (e), kv[i], eq + 1);
  }
  g_strfreev (kv);
}

GstElement *
make_element (const char *props)
{
  GstElement *e = gst_element_factory_make ("vmafhip", NULL);
  fail_unless (e != NULL, "the vmafhip plugin was not found");
  /* frame messages are off by default (as upstream); most tests read them.
   * The CPU unless VMAFHIP_TEST_BACKEND says otherwise (scripts/gpu-run.sh
   * runs these tests with hip: every score must still equal the CPU
   * engine's). */
  g_object_set (e, "threads", 1, "frame-message", TRUE, NULL);
  gst_util_set_object_arg (G_OBJECT (e), "backend", vh_test_backend ());
  apply_props (e, props);
  return e;
}

Fixture *
fixture_new_with_element (GstElement * e, gboolean live)
{
  Fixture *f = g_new0 (Fixture, 1);

  f->element = e;
  f->bus = gst_bus_new ();
  gst_element_set_bus (e, f->bus);
  f->ref = gst_harness_new_with_element (e, "ref_sink", "src");
  f->dist = gst_harness_new_with_element (e, "dist_sink", NULL);
  gst_harness_set_live (f->ref, live);
  gst_harness_set_live (f->dist, live);
  return f;
}

Fixture *
fixture_new (const char *props, gboolean live)
{
  return fixture_new_with_element (make_element (props), live);
}

void
fixture_set_caps (Fixture * f, const char *ref_format, const char *dist_format,
    uint32_t seed)
{
  GstCaps *caps;

  video_info_init (&f->ref_info, ref_format, W, H);
  video_info_init (&f->dist_info, dist_format, W, H);
  caps = gst_video_info_to_caps (&f->ref_info);
  gst_harness_set_src_caps (f->ref, caps);
  caps = gst_video_info_to_caps (&f->dist_info);
  gst_harness_set_src_caps (f->dist, caps);
  content_init (&f->content, &f->ref_info, seed);
}

void
fixture_free (Fixture * f)
{
  gst_harness_teardown (f->dist);
  gst_harness_teardown (f->ref);
  gst_element_set_bus (f->element, NULL);
  gst_bus_set_flushing (f->bus, TRUE);
  gst_object_unref (f->bus);
  g_list_free_full (f->seen, (GDestroyNotify) gst_message_unref);
  gst_object_unref (f->element);
  content_clear (&f->content);
  g_free (f);
}

void
render (Fixture * f, guint i, VhPicture * ref, VhPicture * dis)
{
  vh_synth_render (f->content.synth, i, 3, ref, dis);
}

guint8 *
render_rung (Fixture * f, guint i, guint w, guint h, VhPicture * out)
{
  VhPicture r, d;
  render (f, i, &r, &d);
  const guint sw[3] = { w, w / 2, w / 2 }, sh[3] = { h, h / 2, h / 2 };
  /* from the content's size */
  const guint fw[3] = { d.plane[0].width, d.plane[1].width,
    d.plane[2].width
  };
  const guint fh[3] = { d.plane[0].height, d.plane[1].height,
    d.plane[2].height
  };
  guint8 *mem = g_malloc ((gsize) w * h * 2);
  gsize o = 0;
  *out = (VhPicture) { .nplanes = 3, .bpc = 8 };
  for (guint p = 0; p < 3; p++) {
    out->plane[p] = (VhPlane) { mem + o, sw[p], sw[p], sh[p], 1 };
    o += (gsize) sw[p] * sh[p];
    VhScaler *down = vh_scaler_new (fw[p], fh[p], sw[p], sh[p], 8,
        VH_SCALE_BILINEAR, NULL);
    vh_scaler_run (down, &d.plane[p], &out->plane[p]);
    vh_scaler_free (down);
  }
  return mem;
}

GstBuffer *
rung_buffer (Fixture * f, guint i, const GstVideoInfo * info)
{
  VhPicture r, d;
  const guint w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);
  render (f, i, &r, &d);
  if (w == d.plane[0].width && h == d.plane[0].height)
    return make_buffer (info, &d, i, 0);
  guint8 *mem = render_rung (f, i, w, h, &d);
  GstBuffer *buf = make_buffer (info, &d, i, 0);
  g_free (mem);
  return buf;
}

void
push_flush (Fixture * f)
{
  const guint32 seqnum = gst_util_seqnum_next ();
  GstHarness *pads[2] = { f->ref, f->dist };

  for (guint k = 0; k < 2; k++) {
    GstEvent *ev = gst_event_new_flush_start ();
    gst_event_set_seqnum (ev, seqnum);
    fail_unless (gst_harness_push_event (pads[k], ev));
  }
  for (guint k = 0; k < 2; k++) {
    GstEvent *ev = gst_event_new_flush_stop (TRUE);
    gst_event_set_seqnum (ev, seqnum);
    fail_unless (gst_harness_push_event (pads[k], ev));
  }
}

GstFlowReturn
push_ref (Fixture * f, guint i)
{
  VhPicture r, d;
  render (f, i, &r, &d);
  return gst_harness_push (f->ref, make_buffer (&f->ref_info, &r, i, 0));
}

GstBuffer *
dist_buffer (Fixture * f, guint i)
{
  VhPicture r, d;
  render (f, i, &r, &d);
  return make_buffer (&f->dist_info, &d, i, f->dist_offset);
}

GstFlowReturn
push_dist (Fixture * f, guint i)
{
  return gst_harness_push (f->dist, dist_buffer (f, i));
}

void
push_pairs (Fixture * f, guint first, guint n)
{
  for (guint i = first; i < first + n; i++) {
    fail_unless_equals_int (push_ref (f, i), GST_FLOW_OK);
    fail_unless_equals_int (push_dist (f, i), GST_FLOW_OK);
  }
}

void
push_eos_both (Fixture * f)
{
  gst_harness_push_event (f->ref, gst_event_new_eos ());
  gst_harness_push_event (f->dist, gst_event_new_eos ());
}

/* Waits (up to 60 s per event) for EOS on the output. */
void
wait_eos (Fixture * f)
{
  for (;;) {
    GstEvent *ev = gst_harness_pull_event (f->ref);
    gboolean eos;
    fail_unless (ev != NULL, "no EOS on the output");
    eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
    if (eos)
      break;
  }
}

/* Messages taken off the bus and not consumed yet (a filtered pop would
 * discard the others). */
void
drain_bus (GstBus * bus, GList ** seen)
{
  GstMessage *m;
  while ((m = gst_bus_pop (bus)))
    *seen = g_list_append (*seen, m);
}

/* Removes and returns, oldest first, the messages of these types. */
GList *
take_messages (GstBus * bus, GList ** seen, GstMessageType types)
{
  GList *list = NULL, *l = NULL, *next;

  drain_bus (bus, seen);
  for (l = *seen; l; l = next) {
    next = l->next;
    if (GST_MESSAGE_TYPE (l->data) & types) {
      list = g_list_append (list, l->data);
      *seen = g_list_delete_link (*seen, l);
    }
  }
  return list;
}

const GstStructure *
vmaf_structure (GstMessage * m)
{
  const GstStructure *s = gst_message_get_structure (m);
  if (GST_MESSAGE_TYPE (m) != GST_MESSAGE_ELEMENT || !s
      || !gst_structure_has_name (s, "VMAF"))
    return NULL;
  return s;
}

/* Splits VMAF messages into frame messages (in order) and the pooled one. */
GPtrArray *
frame_messages (GList * msgs, const GstStructure ** pooled, guint * n_pooled)
{
  GPtrArray *frames = g_ptr_array_new ();
  *pooled = NULL;
  *n_pooled = 0;
  for (GList * l = msgs; l; l = l->next) {
    const GstStructure *s = vmaf_structure (l->data);
    const gchar *type;
    if (!s)
      continue;
    type = gst_structure_get_string (s, "type");
    fail_unless (type != NULL, "VMAF message without type");
    if (!strcmp (type, "frame")) {
      g_ptr_array_add (frames, (gpointer) s);
    } else {
      fail_unless_equals_string (type, "pooled");
      *pooled = s;
      (*n_pooled)++;
    }
  }
  return frames;
}

GPtrArray *
frame_message_copies (GList * msgs, guint * n_pooled)
{
  const GstStructure *pooled;
  GPtrArray *frames = frame_messages (msgs, &pooled, n_pooled);
  GPtrArray *copies = g_ptr_array_new_with_free_func ((GDestroyNotify)
      gst_structure_free);
  for (guint i = 0; i < frames->len; i++)
    g_ptr_array_add (copies, gst_structure_copy (g_ptr_array_index (frames,
                i)));
  g_ptr_array_unref (frames);
  return copies;
}

void
free_messages (GList * msgs)
{
  g_list_free_full (msgs, (GDestroyNotify) gst_message_unref);
}

gboolean
text_has_all (const gchar * text, const gchar * const *needles)
{
  for (guint i = 0; needles[i]; i++)
    if (!strstr (text, needles[i]))
      return FALSE;
  return TRUE;
}

/* Waits for an ERROR or WARNING on the bus and checks its text; other
 * messages stay in `seen`. */
void
expect_message (GstBus * bus, GList ** seen, GstMessageType type,
    const gchar * const *needles)
{
  const gint64 deadline = g_get_monotonic_time () + 20 * G_USEC_PER_SEC;
  GstMessage *m = NULL;
  GError *err = NULL;
  gchar *dbg = NULL;

  while (!m) {
    GstMessage *next;
    for (GList * l = *seen; l && !m; l = l->next) {
      if (GST_MESSAGE_TYPE (l->data) == type) {
        m = l->data;
        *seen = g_list_delete_link (*seen, l);
      }
    }
    if (m)
      break;
    next = gst_bus_timed_pop (bus, 50 * GST_MSECOND);
    if (next)
      *seen = g_list_append (*seen, next);
    else
      fail_if (g_get_monotonic_time () > deadline, "no %s message on the bus",
          gst_message_type_get_name (type));
  }
  if (type == GST_MESSAGE_ERROR)
    gst_message_parse_error (m, &err, &dbg);
  else
    gst_message_parse_warning (m, &err, &dbg);
  GST_INFO ("%s: %s (%s)", gst_message_type_get_name (type), err->message,
      dbg);
  fail_unless (text_has_all (err->message, needles), "unexpected text: '%s'",
      err->message);
  g_error_free (err);
  g_free (dbg);
  gst_message_unref (m);
}

/* ---------------------------------------------------- expected scores */


/* The engine run directly on the pictures the element received. */
void
expected_run (Expected * x, const Content * c, const char *const *models,
    gboolean psnr, gboolean luma_only, guint first, guint n)
{
  GError *error = NULL;
  VhVideoInfo vi = { W, H, c->bpc };
  VhSynth *synth = vh_synth_new (W, H, c->bpc, c->chroma, c->seed);

  x->engine = vh_engine_new (&vi, &error);
  fail_unless (x->engine != NULL);
  x->first_model = models[0];
  x->psnr = psnr;
  for (guint i = 0; models[i]; i++) {
    VhModelSpec *spec = vh_model_spec_parse (models[i], NULL, &error);
    VhModel *model;
    fail_unless (spec != NULL, "%s", error ? error->message : "");
    model = vh_model_spec_load (spec, &error);
    fail_unless (model != NULL, "%s", error ? error->message : "");
    if (i == 0)
      x->first_model = g_intern_string (vh_model_spec_report_name (spec));
    fail_unless (vh_engine_add_model_spec (x->engine, spec, model, &error),
        "%s", error ? error->message : "");
    vh_model_spec_free (spec);
  }
  if (psnr)
    fail_unless (vh_engine_add_feature (x->engine, "psnr", &error));
  for (guint i = 0; x->features && x->features[i]; i++) {
    VhFeatureSpec *spec = vh_feature_spec_parse (x->features[i], &error);
    fail_unless (spec != NULL, "%s", error ? error->message : "");
    fail_unless (vh_engine_add_feature_spec (x->engine, spec, &error), "%s",
        error ? error->message : "");
    vh_feature_spec_free (spec);
  }
  for (guint i = first; i < first + n; i++) {
    VhPicture r, d;
    vh_synth_render (synth, i, 3, &r, &d);
    if (luma_only)
      r.nplanes = d.nplanes = 1;
    fail_unless (vh_engine_push (x->engine, &r, &d, &error), "%s",
        error ? error->message : "");
  }
  fail_unless (vh_engine_flush (x->engine, &error));
  vh_synth_free (synth);
}

gboolean
is_bootstrap_extra (const char *name)
{
  return strstr (name, "_bagging") || strstr (name, "_stddev")
      || strstr (name, "_ci_p95_") || g_regex_match_simple ("_[0-9]{4}$",
      name, 0, 0);
}

/* A frame message (or meta structure) holds exactly the engine's values. */
void
check_frame_scores (const GstStructure * s, const Expected * x, guint index)
{
  const VhScoreTable *t = vh_engine_scores (x->engine);
  guint n_expected = 1;         /* score */
  guint n_doubles = 0;
  gdouble v, want;

  for (guint m = 0; m < vh_score_table_n_metrics (t); m++) {
    const char *name = vh_score_table_metric_name (t, m);
    if (!x->conf_interval && is_bootstrap_extra (name))
      continue;
    if (!vh_score_table_get (t, m, index, &want))
      continue;
    n_expected++;
    fail_unless (gst_structure_get_double (s, name, &v),
        "frame %u: no field '%s' in %" GST_PTR_FORMAT, index, name, s);
    fail_unless (v == want, "frame %u %s: %.17g, engine %.17g", index, name,
        v, want);
  }
  fail_unless (gst_structure_get_double (s, "score", &v));
  fail_unless (vh_score_table_get (t, vh_score_table_find (t,
              x->first_model), index, &want));
  fail_unless (v == want, "frame %u score %.17g, engine %.17g", index, v,
      want);
  if (x->psnr) {
    n_expected++;
    fail_unless (gst_structure_get_double (s, "psnr-y", &v));
    fail_unless (vh_score_table_get (t, vh_score_table_find (t, "psnr_y"),
            index, &want));
    fail_unless (v == want);
  }
  for (gint i = 0; i < gst_structure_n_fields (s); i++)
    if (gst_structure_get_field_type (s, gst_structure_nth_field_name (s, i))
        == G_TYPE_DOUBLE)
      n_doubles++;
  fail_unless_equals_int (n_doubles, n_expected);
}

void
check_pooled (const GstStructure * s, const Expected * x, guint n_frames,
    guint subsample, const char *method)
{
  const VhScoreTable *t = vh_engine_scores (x->engine);
  guint n;
  gdouble v;

  fail_unless (gst_structure_get_uint (s, "n-frames", &n));
  fail_unless_equals_int (n, n_frames);
  for (guint m = 0; m < vh_score_table_n_metrics (t); m++) {
    const char *name = vh_score_table_metric_name (t, m);
    VhPooled p;
    gchar *field;
    if (!x->conf_interval && is_bootstrap_extra (name))
      continue;
    fail_unless (vh_score_table_pool (t, m, 0, n_frames - 1, subsample, &p));
    fail_unless (gst_structure_get_double (s, name, &v), "no pooled '%s'",
        name);
    fail_unless (v == (!strcmp (method, "min") ? p.min : !strcmp (method,
                "max") ? p.max : !strcmp (method,
                "harmonic_mean") ? p.harmonic_mean : p.mean), "pooled %s",
        name);
    if (!strcmp (name, x->first_model)) {
      gdouble score;
      fail_unless (gst_structure_get_double (s, "score", &score));
      fail_unless (score == v);
    }
    field = g_strdup_printf ("%s-mean", name);
    fail_unless (gst_structure_get_double (s, field, &v) && v == p.mean);
    g_free (field);
    field = g_strdup_printf ("%s-harmonic-mean", name);
    fail_unless (gst_structure_get_double (s, field, &v)
        && v == p.harmonic_mean);
    g_free (field);
    field = g_strdup_printf ("%s-min", name);
    fail_unless (gst_structure_get_double (s, field, &v) && v == p.min);
    g_free (field);
    field = g_strdup_printf ("%s-max", name);
    fail_unless (gst_structure_get_double (s, field, &v) && v == p.max);
    g_free (field);
  }
}

/* Checks a frame message's timing fields. */
void
check_frame_timing (const GstStructure * s, guint index, GstClockTime pts)
{
  guint64 u;
  gint i;

  fail_unless (gst_structure_get_int (s, "index", &i));
  fail_unless_equals_int (i, index);
  fail_unless (gst_structure_get_uint64 (s, "timestamp", &u));
  fail_unless_equals_uint64 (u, pts);
  fail_unless (gst_structure_get_uint64 (s, "running-time", &u));
  fail_unless_equals_uint64 (u, pts);
  fail_unless (gst_structure_get_uint64 (s, "stream-time", &u));
  fail_unless_equals_uint64 (u, pts);
  fail_unless (gst_structure_get_uint64 (s, "duration", &u));
  fail_unless_equals_uint64 (u, FRAME_DUR);
}

/* ---------------------------------------------------------------- tests */

/* Frames after a refusal: not scored, not negotiated, no second error. */
void
push_after_refusal (Fixture * f, gsize ref_size, gsize dist_size)
{
  GstFlowReturn ret = GST_FLOW_OK;
  GList *more;

  for (guint i = 0; i < 20 && ret == GST_FLOW_OK; i++) {
    GstBuffer *r = gst_buffer_new_allocate (NULL, ref_size, NULL);
    GstBuffer *d = gst_buffer_new_allocate (NULL, dist_size, NULL);
    GST_BUFFER_PTS (r) = GST_BUFFER_PTS (d) = i * FRAME_DUR;
    GST_BUFFER_DURATION (r) = GST_BUFFER_DURATION (d) = FRAME_DUR;
    ret = gst_harness_push (f->ref, r);
    if (ret == GST_FLOW_OK)
      ret = gst_harness_push (f->dist, d);
    else
      gst_buffer_unref (d);
  }
  fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
  fail_unless_equals_int (gst_harness_buffers_received (f->ref), 0);
  more = take_messages (f->bus, &f->seen, GST_MESSAGE_ERROR);
  fail_unless (more == NULL, "the error was posted again");
}

/* Whether this machine has a GPU the backend can use (the tests expect
 * the GPU path there, clean refusals elsewhere). */
gboolean
gpu_present (void)
{
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, NULL);
  if (gpu)
    vh_gpu_close (gpu);
  return gpu != NULL;
}

/* gpu_present() in a child process: the CUDA driver does not survive a
 * fork, and Check forks every test from the process that builds the
 * suite, so that process must not initialise it. */
gboolean
gpu_present_in_child (void)
{
  int status = 0;
  pid_t pid = fork ();

  if (pid == 0)
    _exit (gpu_present ()? 0 : 1);
  if (pid < 0 || waitpid (pid, &status, 0) != pid)
    return FALSE;
  return WIFEXITED (status) && WEXITSTATUS (status) == 0;
}

gboolean
has_factories (const char *a, const char *b)
{
  GstElementFactory *fa = gst_element_factory_find (a);
  GstElementFactory *fb = gst_element_factory_find (b);
  gboolean found = fa && fb;
  gst_clear_object (&fa);
  gst_clear_object (&fb);
  return found;
}

/* Waits until the element has taken the buffer queued on that pad (a
 * test pushes the pads one after the other from one thread: a pad added
 * while a frame is queued would make the element wait for it too; a stop
 * must find every pushed frame paired) */
void
wait_taken (GstElement * element, const char *name)
{
  GstAggregatorPad *pad = GST_AGGREGATOR_PAD (gst_element_get_static_pad
      (element, name));
  for (int t = 0; t < 10000 && gst_aggregator_pad_has_buffer (pad); t++)
    g_usleep (1000);
  fail_if (gst_aggregator_pad_has_buffer (pad), "%s: buffer not taken", name);
  gst_object_unref (pad);
}

/* A JSON results file that parses, with n_frames frames and a pooled
 * section of at least one metric, each with its mean; the parsed root is
 * returned (json_node_unref) */
JsonNode *
check_results_json (const char *path, guint n_frames)
{
  JsonParser *parser = json_parser_new ();
  GError *error = NULL;
  JsonNode *root;
  JsonObject *o, *pooled;
  GList *members;

  fail_unless (json_parser_load_from_file (parser, path, &error),
      "%s does not parse: %s", path, error ? error->message : "");
  root = json_node_copy (json_parser_get_root (parser));
  g_object_unref (parser);
  o = json_node_get_object (root);
  fail_unless (json_object_has_member (o, "frames"), "%s: no frames", path);
  fail_unless_equals_int (json_array_get_length (json_object_get_array_member
          (o, "frames")), n_frames);
  fail_unless (json_object_has_member (o, "pooled_metrics"),
      "%s: no pooled section", path);
  pooled = json_object_get_object_member (o, "pooled_metrics");
  members = json_object_get_members (pooled);
  fail_unless (members != NULL, "%s: an empty pooled section", path);
  for (GList * m = members; m; m = m->next)
    fail_unless (json_object_has_member (json_object_get_object_member
            (pooled, m->data), "mean"), "%s: %s has no mean", path,
        (const char *) m->data);
  g_list_free (members);
  return root;
}

void
results_dir_new (gchar ** dir, gchar ** path)
{
  *dir = g_dir_make_tmp ("vmafhip-results-XXXXXX", NULL);
  fail_unless (*dir != NULL);
  *path = g_build_filename (*dir, "scores.json", NULL);
}

void
results_dir_free (gchar * dir, gchar * path)
{
  g_unlink (path);
  fail_unless (g_rmdir (dir) == 0, "%s holds files left behind", dir);
  g_free (path);
  g_free (dir);
}
