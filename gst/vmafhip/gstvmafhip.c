/* vmafhip — the `vmafhip` GStreamer element.
 *
 * Thin glue around the vmafhip engine (common/engine/vh-engine.h): pairs the
 * reference and distorted frames, hands them to the engine as plane views,
 * and pushes each reference buffer once its scores are final, with the
 * scores attached (GstVmafHipMeta) and posted ("VMAF" element messages).
 */

/**
 * SECTION:element-vmafhip
 * @title: vmafhip
 * @short_description: VMAF of a distorted video against its reference,
 *     bit-exact with libvmaf 3.2.0
 *
 * vmafhip scores every frame of the video on `dist_sink` against the frame
 * of the video on `ref_sink` with the same running time, and pushes the
 * reference frames on `src` with their scores attached (a GstCustomMeta
 * named "GstVmafHipMeta", see gstvmafhipmeta.h). Property names and
 * meanings follow GStreamer's `vmaf` element (gst-plugins-bad 1.28).
 *
 * Properties: each is described where it is installed
 * (gstvmafhip-properties.c, one line for gst-inspect-1.0) and in full in
 * docs/element.md's table, which the element-properties-docs test checks
 * against the element.  The results file is written as frames are scored
 * (a finished, valid file however the pipeline stops).
 *
 * Pairing: frames are paired by running time, live or not: a reference
 * frame without a distorted frame within half a frame is pushed unscored
 * and counted (and the reverse), never scored against a neighbour.
 *
 * Messages: element messages with structure name "VMAF". Per frame:
 * `timestamp`, `stream-time`, `running-time`, `duration` (guint64),
 * `index` (int), `type` = "frame", `pad` (the distorted pad's name),
 * `score` (double, first model) and one double per model and feature. At
 * EOS, `type` = "pooled" with `pad`, `n-frames`, `unpaired-ref`,
 * `unpaired-dist`, and for each metric M: M (by pool-method), M-mean,
 * M-harmonic-mean, M-min, M-max; a scaled pad's also `scaled-from`
 * ("WxH") and `scaler`.
 *
 * Renditions: request `dist_sink_%u` pads for more distorted videos of the
 * same reference (an ABR ladder's rungs, smaller ones scaled up with
 * `scaler`): each is scored on its own, with its pad's name in its
 * messages and a results file of its own (docs/element.md, Renditions).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m \
 *   filesrc location=ref.yuv ! rawvideoparse width=1920 height=1080 ! v.ref_sink \
 *   filesrc location=dis.yuv ! rawvideoparse width=1920 height=1080 ! v.dist_sink \
 *   vmafhip name=v models=vmaf_v0.6.1,vmaf_v0.6.1neg:name=vmaf_neg psnr=true \
 *       results-filename=scores.json ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VMAFHIP_CAPS));
static GstStaticPadTemplate ref_template = GST_STATIC_PAD_TEMPLATE ("ref_sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_VMAFHIP_CAPS));
static GstStaticPadTemplate dist_template =
GST_STATIC_PAD_TEMPLATE ("dist_sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VMAFHIP_CAPS));
/* more distorted streams (an ABR ladder's rungs): gstvmafhip-renditions.c */
static GstStaticPadTemplate rendition_template =
GST_STATIC_PAD_TEMPLATE ("dist_sink_%u", GST_PAD_SINK, GST_PAD_REQUEST,
    GST_STATIC_CAPS (GST_VMAFHIP_CAPS));

#define gst_vmafhip_parent_class parent_class
G_DEFINE_TYPE (GstVmafHip, gst_vmafhip, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (vmafhip, "vmafhip", GST_RANK_NONE,
    GST_TYPE_VMAFHIP);

/* ------------------------------------------------------ streaming state */

void
gst_vmafhip_reset_measurement (GstVmafHip * self)
{
  /* the engine first (in the stream's reset): the GPU may still read
   * held frames (PendingFrame); a new measurement starts a new results
   * file */
  gst_vmafhip_stream_reset (&self->dist_stream);
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  gst_vmafhip_timeline_reset (self);
  self->finished = FALSE;
  self->n_ref_frames = 0;
  g_atomic_int_set (&self->results_write_failed, FALSE);
  GST_OBJECT_LOCK (self);
  self->unpaired_ref = 0;
  GST_OBJECT_UNLOCK (self);
}

/* log-level: the messages this element posts are also printed to stderr,
 * as libvmaf prints its own, for users of the upstream element's property.
 * Every message passes through here, so nothing is left out. */
static gboolean
gst_vmafhip_post_message (GstElement * element, GstMessage * message)
{
  GstVmafHip *self = GST_VMAFHIP (element);
  GstVmafHipLogLevel level, wanted;
  const char *name = NULL;
  gchar *text = NULL;

  GST_OBJECT_LOCK (self);
  wanted = self->props.log_level;
  GST_OBJECT_UNLOCK (self);

  switch (GST_MESSAGE_TYPE (message)) {
    case GST_MESSAGE_ERROR:
    case GST_MESSAGE_WARNING:
    case GST_MESSAGE_INFO:{
      GError *err = NULL;
      if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_ERROR) {
        level = GST_VMAFHIP_LOG_ERROR;
        gst_message_parse_error (message, &err, NULL);
      } else if (GST_MESSAGE_TYPE (message) == GST_MESSAGE_WARNING) {
        level = GST_VMAFHIP_LOG_WARNING;
        gst_message_parse_warning (message, &err, NULL);
      } else {
        level = GST_VMAFHIP_LOG_INFO;
        gst_message_parse_info (message, &err, NULL);
      }
      if (level <= wanted)
        text = g_strdup (err->message);
      g_error_free (err);
      break;
    }
    case GST_MESSAGE_ELEMENT:
      level = GST_VMAFHIP_LOG_DEBUG;
      if (level <= wanted && gst_message_get_structure (message))
        text = gst_structure_to_string (gst_message_get_structure (message));
      break;
    default:
      level = GST_VMAFHIP_LOG_NONE;
      break;
  }
  if (text) {
    name = g_enum_get_value (g_type_class_peek (GST_TYPE_VMAFHIP_LOG_LEVEL),
        level)->value_nick;
    g_printerr ("vmafhip %s: %s: %s\n", GST_OBJECT_NAME (self), name, text);
    g_free (text);
  }
  return GST_ELEMENT_CLASS (parent_class)->post_message (element, message);
}

/* ------------------------------------------------------------- GObject */

static void
gst_vmafhip_finalize (GObject * object)
{
  GstVmafHip *self = GST_VMAFHIP (object);

  gst_vmafhip_settings_clear (&self->props);
  gst_vmafhip_settings_clear (&self->cfg);
  vh_config_clear (&self->engine_config);
  g_free (self->active_backend);
  g_ptr_array_unref (self->specs);
  g_ptr_array_unref (self->feature_specs);
  gst_caps_replace (&self->ref_caps, NULL);
  /* the engine first (its GPU work done), then the frames it may read;
   * (and what a start () that failed after them left: no stop () follows) */
  gst_vmafhip_stream_clear (&self->dist_stream);
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  gst_vmafhip_cuda_clear (self);
  gst_vmafhip_side_clear (&self->side[REF]);
  gst_vmafhip_side_clear (&self->side[DIST]);
  gst_vmafhip_scale_clear (self);

  g_clear_pointer (&self->backend, vh_backend_choice_unref);
  gst_vmafhip_renditions_free (self);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* The engine's settings, through the engine's one reader of the
 * environment (the runtime to load, the SIMD cap, the kernels' choices;
 * VMAFHIP_SHARED_REFERENCE=1 is the test suites' switch for every
 * element): at creation (a caps query may look for a GPU before start)
 * and again at each start. */
static void
load_engine_config (GstVmafHip * self)
{
  vh_config_clear (&self->engine_config);
  vh_config_init (&self->engine_config);
  vh_config_load_environment (&self->engine_config);
  vh_config_apply_cpu (&self->engine_config);
}

static gboolean
gst_vmafhip_start (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  gst_vmafhip_settings_copy (&self->cfg, &self->props);
  GST_OBJECT_UNLOCK (self);
  load_engine_config (self);
  if (self->engine_config.share_reference)
    self->cfg.share_reference = TRUE;

  if (!gst_vmafhip_parse_features (self, &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Invalid 'features' property: %s", error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }

  if (!gst_vmafhip_choose_backend (self))
    return FALSE;

  if (!gst_vmafhip_load_models (self, &error)
      || !gst_vmafhip_build_engine (self, &error)) {
    if (g_str_has_prefix (error->message, "features: "))
      GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
          ("Cannot compute the requested %s", error->message), (NULL));
    else if (g_error_matches (error, VH_ERROR, VH_ERROR_IO))
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_READ,
          ("Cannot read the VMAF model: %s", error->message), (NULL));
    else
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("Cannot use the VMAF model: %s", error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }

  if (self->cfg.conf_interval) {
    gboolean any = FALSE;
    for (guint i = 0; i < self->specs->len; i++)
      any |= ((ModelSpec *) g_ptr_array_index (self->specs, i))->bootstrap;
    if (!any)
      GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
          ("conf-interval=true needs a bootstrap model such as "
              "vmaf_b_v0.6.3; none of the models is one, so no confidence "
              "interval is reported."), (NULL));
  }

  if (!gst_vmafhip_monitor_start (self))
    return FALSE;

  self->write_log = self->cfg.results_filename && *self->cfg.results_filename;
  switch (self->cfg.results_format) {
    case GST_VMAFHIP_RESULTS_XML:
      self->log_format = VH_LOG_XML;
      break;
    case GST_VMAFHIP_RESULTS_CSV:
      self->log_format = VH_LOG_CSV;
      break;
    case GST_VMAFHIP_RESULTS_SUB:
      self->log_format = VH_LOG_SUB;
      break;
    default:
      self->log_format = VH_LOG_JSON;
      break;
  }
  if (self->write_log && !gst_vmafhip_check_results_file (self->cfg.results_filename,
          &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, ("%s", error->message),
        ("property results-filename"));
    g_clear_error (&error);
    return FALSE;
  }
  if (!self->write_log && self->cfg.results_format != GST_VMAFHIP_RESULTS_NONE)
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS,
        ("results-format is set but results-filename is not: no results "
            "file will be written."), (NULL));

  gst_vmafhip_record_clear (&self->dist_stream.record);
  gst_vmafhip_record_init (&self->dist_stream.record, "dist_sink",
      self->write_log ? self->cfg.results_filename : NULL);
  gst_vmafhip_reset_measurement (self);
  self->caps_checked = self->pair_failed = FALSE;
  self->frame_duration = GST_CLOCK_TIME_NONE;
  self->reported_latency = GST_CLOCK_TIME_NONE;
  self->reported_short_buffering = FALSE;
  self->warned_no_timestamps = self->warned_unpaired = FALSE;
  self->dist_frame_duration = GST_CLOCK_TIME_NONE;
  return TRUE;
}

static gboolean
gst_vmafhip_stop (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP (agg);

  /* stopped without EOS: what was paired is still reported, every results
   * file finished */
  gst_vmafhip_conclude_on_stop (self);
  gst_vmafhip_reset_measurement (self);
  gst_vmafhip_renditions_stop (self);
  gst_vmafhip_watch_clear (&self->dist_stream.watch);
  gst_vmafhip_aligner_clear (&self->dist_stream.align);
  g_clear_pointer (&self->dist_stream.engine, vh_engine_free);
  self->engine_sized = FALSE;
  self->warned_engine = FALSE;
  g_ptr_array_set_size (self->specs, 0);
  gst_vmafhip_side_clear (&self->side[REF]);
  gst_vmafhip_side_clear (&self->side[DIST]);
  gst_vmafhip_scale_clear (self);
  self->dmabuf.warned_copy = self->dmabuf.import_failed = FALSE;
  self->cuda.warned_host = self->cuda.warned_copy = FALSE;
  self->caps_checked = self->pair_failed = FALSE;
  GST_OBJECT_LOCK (self);
  gst_caps_replace (&self->ref_caps, NULL);
  g_clear_pointer (&self->active_backend, g_free);
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->backend, vh_backend_choice_unref);
  self->use_gpu = FALSE;
  return TRUE;
}

/* dist_sink_%u: a rendition (gstvmafhip-renditions.c) */
static GstAggregatorPad *
gst_vmafhip_create_new_pad (GstAggregator * agg, GstPadTemplate * templ,
    const gchar * req_name, const GstCaps * caps)
{
  (void) caps;
  if (templ->direction != GST_PAD_SINK
      || g_strcmp0 (templ->name_template, "dist_sink_%u"))
    return NULL;
  return gst_vmafhip_rendition_new_pad (GST_VMAFHIP (agg), templ, req_name);
}

static void
gst_vmafhip_release_pad (GstElement * element, GstPad * pad)
{
  GstVmafHip *self = GST_VMAFHIP (element);

  if (gst_vmafhip_is_rendition_pad (self, GST_AGGREGATOR_PAD (pad)))
    gst_vmafhip_rendition_release (self, pad);
  GST_ELEMENT_CLASS (parent_class)->release_pad (element, pad);
}

/* A flushing seek: the measurement restarts from scratch. */
static GstFlowReturn
gst_vmafhip_flush (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP (agg);

  GST_DEBUG_OBJECT (self, "flush: pooling the scores so far, dropping %u "
      "pending frames", g_queue_get_length (&self->pending));
  gst_vmafhip_conclude_before_flush (self);
  gst_vmafhip_renditions_reset (self);
  gst_vmafhip_reset_measurement (self);
  return GST_FLOW_OK;
}

static void
gst_vmafhip_init (GstVmafHip * self)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  static const char *const names[2] = { "ref_sink", "dist_sink" };

  load_engine_config (self);

  for (int i = 0; i < 2; i++) {
    GstPadTemplate *templ = gst_element_class_get_pad_template (klass,
        names[i]);
    self->side[i].pad = g_object_new (GST_TYPE_AGGREGATOR_PAD,
        "name", names[i], "direction", GST_PAD_SINK, "template", templ, NULL);
    gst_element_add_pad (GST_ELEMENT (self), GST_PAD (self->side[i].pad));
  }

  gst_vmafhip_settings_init (&self->props);

  self->dmabuf.gpu_count = -1;          /* asked at the first caps query */
  self->specs = g_ptr_array_new_with_free_func (gst_vmafhip_model_spec_free);
  self->feature_specs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      vh_feature_spec_free);
  g_queue_init (&self->pending);
  gst_vmafhip_stream_init (&self->dist_stream, self, &self->side[DIST],
      "dist_sink");
  g_mutex_init (&self->renditions.lock);
  self->renditions.list = g_ptr_array_new ();
  self->frame_duration = GST_CLOCK_TIME_NONE;
  self->reported_latency = GST_CLOCK_TIME_NONE;

  /* Live: a distorted branch that has not started yet does not hold the
   * reference back (its frames pass unscored and are counted). */
  gst_aggregator_set_ignore_inactive_pads (GST_AGGREGATOR (self), TRUE);
}

static void
gst_vmafhip_class_init (GstVmafHipClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass *agg_class = GST_AGGREGATOR_CLASS (klass);

  GST_DEBUG_CATEGORY_INIT (gst_vmafhip_debug, "vmafhip", 0,
      "vmafhip VMAF element");

  gobject_class->set_property = gst_vmafhip_set_property;
  gobject_class->get_property = gst_vmafhip_get_property;
  gobject_class->finalize = gst_vmafhip_finalize;
  gst_vmafhip_install_properties (gobject_class);

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &ref_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &dist_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &rendition_template, GST_TYPE_AGGREGATOR_PAD);

  gst_element_class_set_static_metadata (element_class, "vmafhip",
      "Filter/Analyzer/Video",
      "VMAF video quality of a distorted video against its reference, "
      "bit-exact with libvmaf 3.2.0 (frame scores as messages and meta)",
      "The vmafhip developers <dev@vmafhip.invalid>");

  element_class->post_message = GST_DEBUG_FUNCPTR (gst_vmafhip_post_message);

  agg_class->start = GST_DEBUG_FUNCPTR (gst_vmafhip_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_vmafhip_stop);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_vmafhip_flush);
  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_vmafhip_aggregate);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_vmafhip_sink_event);
  agg_class->sink_query = GST_DEBUG_FUNCPTR (gst_vmafhip_sink_query);
  agg_class->src_event = GST_DEBUG_FUNCPTR (gst_vmafhip_src_event);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_vmafhip_src_query);
  agg_class->propose_allocation =
      GST_DEBUG_FUNCPTR (gst_vmafhip_propose_allocation);
  agg_class->update_src_caps = GST_DEBUG_FUNCPTR (gst_vmafhip_update_src_caps);
  agg_class->get_next_time = GST_DEBUG_FUNCPTR (gst_vmafhip_get_next_time);
  agg_class->clip = GST_DEBUG_FUNCPTR (gst_vmafhip_clip);
  agg_class->create_new_pad = GST_DEBUG_FUNCPTR (gst_vmafhip_create_new_pad);
  element_class->release_pad = GST_DEBUG_FUNCPTR (gst_vmafhip_release_pad);

  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_POOL_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_RESULTS_FORMAT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_BACKEND, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_RATE_MISMATCH, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_ALIGN, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_LOG_LEVEL, 0);
}

