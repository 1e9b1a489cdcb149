/* vmafhip — the `vmafhip` GStreamer element.
 *
 * Thin glue around the vmafhip engine (common/vh-engine.h): pairs the
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
 * Properties:
 *
 * - `model-filename` (string, "vmaf_v0.6.1"): built-in model name or path
 *   of a libvmaf JSON model; used when `models` is not set.
 * - `models` (string, NULL): comma-separated list of models, each a built-in
 *   name or a path, optionally followed by `:name=REPORT`,
 *   `:enable_transform`, `:disable_clip`; each model is reported under its
 *   own (or the given) name.
 * - `disable-clip`, `enable-transform`, `phone-model` (bool, FALSE): model
 *   flags for every model (`phone-model` = `enable-transform`).
 * - `psnr` (bool, FALSE): also compute PSNR (psnr_y, psnr_cb, psnr_cr;
 *   `psnr-y` as upstream).
 * - `ssim` (bool, FALSE): also compute SSIM (libvmaf's `float_ssim`).
 * - `ms-ssim` (bool, FALSE): also compute MS-SSIM (libvmaf's
 *   `float_ms_ssim`; pictures of at least 176x176).
 * - `pool-method` (enum, mean): which pooled value is reported as each
 *   metric's value in the pooled message (all four are always present).
 * - `subsample` (uint 1..128, 1): report, pool and compute every N-th
 *   frame (motion runs on every frame).
 * - `conf-interval` (bool, FALSE): report the bootstrap fields (bagging,
 *   stddev, 95 % CI, members) of bootstrap models (vmaf_b_v0.6.3).
 * - `frame-message` (bool, FALSE, as upstream): post a "VMAF" message per
 *   frame.
 * - `results-filename` (string, NULL), `results-format` (enum none, xml,
 *   json, csv; none = json): write libvmaf's log at EOS.
 * - `threads` (uint, 0): worker threads that score frames in parallel on
 *   the CPU, one frame each (0 = one per CPU; capped at the number of CPUs
 *   with an INFO message); the latency grows by threads + 2 frames.
 * - `backend` (enum auto, cpu, hip; auto), `device-id` (int, -1): where to
 *   score. hip requires a working GPU; auto takes one if it works, else
 *   warns once and uses the CPU. `active-backend` (read-only) and an INFO
 *   message at start say which backend and device run.
 * - `force-live` (bool, construct-only): behave as with a live source.
 * - `rate-mismatch` (enum error, follow-reference; error): inputs with
 *   different frame rates fail at negotiation, or each reference frame is
 *   scored against the distorted frame on screen at its time.
 * - `scaler` (enum none, bilinear, bicubic, lanczos; bicubic): a distorted
 *   video smaller than the reference (an ABR rendition) is scaled up to
 *   the reference's size with FFmpeg's filter of that name; none refuses
 *   it, as a larger one always is.
 * - `log-level` (enum none, error, warning, info, debug; none): also print
 *   the element's messages at or above this level to stderr, as libvmaf.
 * - `unpaired-ref-frames`, `unpaired-dist-frames` (read-only): frames that
 *   had no partner on the other pad and were not scored.
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
 * M-harmonic-mean, M-min, M-max.
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
 *   vmafhip name=v models=vmaf_v0.6.1,vmaf_v0.6.1neg psnr=true \
 *       results-filename=scores.json ! fakesink
 * ]|
 */

#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

GST_DEBUG_CATEGORY (gst_vmafhip_debug);
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

#define DEFAULT_MODEL_FILENAME "vmaf_v0.6.1"
#define DEFAULT_POOL_METHOD GST_VMAFHIP_POOL_MEAN
#define DEFAULT_THREADS 0
#define DEFAULT_SUBSAMPLE 1
#define DEFAULT_FRAME_MESSAGE FALSE
#define DEFAULT_RESULTS_FORMAT GST_VMAFHIP_RESULTS_NONE
#define DEFAULT_BACKEND GST_VMAFHIP_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1
#define DEFAULT_RATE_MISMATCH GST_VMAFHIP_RATE_MISMATCH_ERROR
#define DEFAULT_SCALER GST_VMAFHIP_SCALER_BICUBIC
#define DEFAULT_LOG_LEVEL GST_VMAFHIP_LOG_NONE
#define DEFAULT_WINDOW 0
#define DEFAULT_WINDOW_INTERVAL GST_SECOND
#define DEFAULT_ALARM_THRESHOLD -1.0
#define DEFAULT_ALARM_DURATION (2 * GST_SECOND)
#define DEFAULT_ALARM_HYSTERESIS 2.0
#define DEFAULT_INTERVAL 0
#define DEFAULT_ALIGN GST_VMAFHIP_ALIGN_OFF
#define DEFAULT_OFFSET 0
#define DEFAULT_SEARCH_WINDOW (2 * GST_SECOND)
/* the search compares every lag of the window each time it runs */
#define MAX_SEARCH_WINDOW (60 * GST_SECOND)

enum
{
  PROP_0,
  PROP_MODEL_FILENAME,
  PROP_MODELS,
  PROP_FEATURES,
  PROP_DISABLE_CLIP,
  PROP_ENABLE_TRANSFORM,
  PROP_PHONE_MODEL,
  PROP_PSNR,
  PROP_SSIM,
  PROP_MS_SSIM,
  PROP_POOL_METHOD,
  PROP_THREADS,
  PROP_SUBSAMPLE,
  PROP_CONF_INTERVAL,
  PROP_FRAME_MESSAGE,
  PROP_RESULTS_FILENAME,
  PROP_RESULTS_FORMAT,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_ACTIVE_BACKEND,
  PROP_FORCE_LIVE,
  PROP_UNPAIRED_REF,
  PROP_UNPAIRED_DIST,
  PROP_RATE_MISMATCH,
  PROP_SCALER,
  PROP_LOG_LEVEL,
  PROP_WINDOW,
  PROP_WINDOW_INTERVAL,
  PROP_ALARM_THRESHOLD,
  PROP_ALARM_DURATION,
  PROP_ALARM_HYSTERESIS,
  PROP_INTERVAL,
  PROP_ALIGN,
  PROP_OFFSET,
  PROP_SEARCH_WINDOW,
};

#define gst_vmafhip_parent_class parent_class
G_DEFINE_TYPE (GstVmafHip, gst_vmafhip, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (vmafhip, "vmafhip", GST_RANK_NONE,
    GST_TYPE_VMAFHIP);

/* ------------------------------------------------------ streaming state */

void
gst_vmafhip_reset_measurement (GstVmafHip * self)
{
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  if (self->engine)
    vh_engine_reset (self->engine);
  gst_vmafhip_monitor_reset (self);
  gst_vmafhip_align_reset (self);
  self->finished = FALSE;
  self->first_push_us = 0;
  self->first_pts = self->first_running_time = GST_CLOCK_TIME_NONE;
  self->first_stream_time = self->end_pts = GST_CLOCK_TIME_NONE;
  gst_clear_buffer (&self->held_dist);
  self->held_dist_used = FALSE;
  /* a new measurement starts a new results file */
  g_clear_pointer (&self->log_writer, vh_log_writer_free);
  self->log_failed = FALSE;
  self->n_recorded = 0;
  GST_OBJECT_LOCK (self);
  self->unpaired_ref = self->unpaired_dist = 0;
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
gst_vmafhip_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVmafHip *self = GST_VMAFHIP (object);
  Settings *p = &self->props;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL_FILENAME:
      g_free (p->model_filename);
      p->model_filename = g_value_dup_string (value);
      break;
    case PROP_MODELS:
      g_free (p->models);
      p->models = g_value_dup_string (value);
      break;
    case PROP_FEATURES:
      g_free (p->features);
      p->features = g_value_dup_string (value);
      break;
    case PROP_DISABLE_CLIP:
      p->disable_clip = g_value_get_boolean (value);
      break;
    case PROP_ENABLE_TRANSFORM:
      p->enable_transform = g_value_get_boolean (value);
      break;
    case PROP_PHONE_MODEL:
      p->phone_model = g_value_get_boolean (value);
      break;
    case PROP_PSNR:
      p->psnr = g_value_get_boolean (value);
      break;
    case PROP_SSIM:
      p->ssim = g_value_get_boolean (value);
      break;
    case PROP_MS_SSIM:
      p->ms_ssim = g_value_get_boolean (value);
      break;
    case PROP_POOL_METHOD:
      p->pool_method = g_value_get_enum (value);
      break;
    case PROP_THREADS:
      p->threads = g_value_get_uint (value);
      break;
    case PROP_SUBSAMPLE:
      p->subsample = g_value_get_uint (value);
      break;
    case PROP_CONF_INTERVAL:
      p->conf_interval = g_value_get_boolean (value);
      break;
    case PROP_FRAME_MESSAGE:
      p->frame_message = g_value_get_boolean (value);
      break;
    case PROP_RESULTS_FILENAME:
      g_free (p->results_filename);
      p->results_filename = g_value_dup_string (value);
      break;
    case PROP_RESULTS_FORMAT:
      p->results_format = g_value_get_enum (value);
      break;
    case PROP_BACKEND:
      p->backend = g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      p->device_id = g_value_get_int (value);
      break;
    case PROP_RATE_MISMATCH:
      p->rate_mismatch = g_value_get_enum (value);
      break;
    case PROP_SCALER:
      p->scaler = g_value_get_enum (value);
      break;
    case PROP_LOG_LEVEL:
      p->log_level = g_value_get_enum (value);
      break;
    case PROP_WINDOW:
      p->monitor.window = g_value_get_uint64 (value);
      break;
    case PROP_WINDOW_INTERVAL:
      p->monitor.window_interval = g_value_get_uint64 (value);
      break;
    case PROP_ALARM_THRESHOLD:
      p->monitor.alarm_threshold = g_value_get_double (value);
      break;
    case PROP_ALARM_DURATION:
      p->monitor.alarm_duration = g_value_get_uint64 (value);
      break;
    case PROP_ALARM_HYSTERESIS:
      p->monitor.alarm_hysteresis = g_value_get_double (value);
      break;
    case PROP_INTERVAL:
      p->monitor.interval = g_value_get_uint64 (value);
      break;
    case PROP_ALIGN:
      p->align = g_value_get_enum (value);
      break;
    case PROP_OFFSET:
      p->offset = g_value_get_int (value);
      break;
    case PROP_SEARCH_WINDOW:
      p->search_window = g_value_get_uint64 (value);
      break;
    case PROP_FORCE_LIVE:
      self->force_live = g_value_get_boolean (value);
      GST_OBJECT_UNLOCK (self);
      gst_aggregator_set_force_live (GST_AGGREGATOR (self),
          g_value_get_boolean (value));
      return;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  if (GST_STATE (self) > GST_STATE_READY)
    GST_INFO_OBJECT (self, "'%s' changed while running: it applies from "
        "the next READY->PAUSED change", pspec->name);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vmafhip_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstVmafHip *self = GST_VMAFHIP (object);
  Settings *p = &self->props;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODEL_FILENAME:
      g_value_set_string (value, p->model_filename);
      break;
    case PROP_MODELS:
      g_value_set_string (value, p->models);
      break;
    case PROP_FEATURES:
      g_value_set_string (value, p->features);
      break;
    case PROP_DISABLE_CLIP:
      g_value_set_boolean (value, p->disable_clip);
      break;
    case PROP_ENABLE_TRANSFORM:
      g_value_set_boolean (value, p->enable_transform);
      break;
    case PROP_PHONE_MODEL:
      g_value_set_boolean (value, p->phone_model);
      break;
    case PROP_PSNR:
      g_value_set_boolean (value, p->psnr);
      break;
    case PROP_SSIM:
      g_value_set_boolean (value, p->ssim);
      break;
    case PROP_MS_SSIM:
      g_value_set_boolean (value, p->ms_ssim);
      break;
    case PROP_POOL_METHOD:
      g_value_set_enum (value, p->pool_method);
      break;
    case PROP_THREADS:
      g_value_set_uint (value, p->threads);
      break;
    case PROP_SUBSAMPLE:
      g_value_set_uint (value, p->subsample);
      break;
    case PROP_CONF_INTERVAL:
      g_value_set_boolean (value, p->conf_interval);
      break;
    case PROP_FRAME_MESSAGE:
      g_value_set_boolean (value, p->frame_message);
      break;
    case PROP_RESULTS_FILENAME:
      g_value_set_string (value, p->results_filename);
      break;
    case PROP_RESULTS_FORMAT:
      g_value_set_enum (value, p->results_format);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, p->backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, p->device_id);
      break;
    case PROP_RATE_MISMATCH:
      g_value_set_enum (value, p->rate_mismatch);
      break;
    case PROP_SCALER:
      g_value_set_enum (value, p->scaler);
      break;
    case PROP_LOG_LEVEL:
      g_value_set_enum (value, p->log_level);
      break;
    case PROP_WINDOW:
      g_value_set_uint64 (value, p->monitor.window);
      break;
    case PROP_WINDOW_INTERVAL:
      g_value_set_uint64 (value, p->monitor.window_interval);
      break;
    case PROP_ALARM_THRESHOLD:
      g_value_set_double (value, p->monitor.alarm_threshold);
      break;
    case PROP_ALARM_DURATION:
      g_value_set_uint64 (value, p->monitor.alarm_duration);
      break;
    case PROP_ALARM_HYSTERESIS:
      g_value_set_double (value, p->monitor.alarm_hysteresis);
      break;
    case PROP_INTERVAL:
      g_value_set_uint64 (value, p->monitor.interval);
      break;
    case PROP_ALIGN:
      g_value_set_enum (value, p->align);
      break;
    case PROP_OFFSET:
      g_value_set_int (value, p->offset);
      break;
    case PROP_SEARCH_WINDOW:
      g_value_set_uint64 (value, p->search_window);
      break;
    case PROP_ACTIVE_BACKEND:
      g_value_set_string (value, self->active_backend);
      break;
    case PROP_FORCE_LIVE:
      g_value_set_boolean (value, self->force_live);
      break;
    case PROP_UNPAIRED_REF:
      g_value_set_uint64 (value, self->unpaired_ref);
      break;
    case PROP_UNPAIRED_DIST:
      g_value_set_uint64 (value, self->unpaired_dist);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_vmafhip_finalize (GObject * object)
{
  GstVmafHip *self = GST_VMAFHIP (object);

  gst_vmafhip_settings_clear (&self->props);
  gst_vmafhip_settings_clear (&self->cfg);
  g_free (self->active_backend);
  g_ptr_array_unref (self->specs);
  g_ptr_array_unref (self->feature_specs);
  gst_caps_replace (&self->ref_caps, NULL);
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  gst_vmafhip_cuda_clear (self);
  vh_engine_free (self->engine);
  /* what a start () that failed after them left (no stop () follows) */
  gst_vmafhip_monitor_stop (self);
  gst_vmafhip_align_clear (self);
  gst_vmafhip_side_clear (&self->side[REF]);
  gst_vmafhip_side_clear (&self->side[DIST]);
  gst_vmafhip_scale_clear (self);

  g_clear_pointer (&self->gpu, vh_gpu_close);
  gst_vmafhip_renditions_free (self);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static gboolean
gst_vmafhip_start (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  gst_vmafhip_settings_copy (&self->cfg, &self->props);
  GST_OBJECT_UNLOCK (self);


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

  gst_vmafhip_reset_measurement (self);
  gst_vmafhip_renditions_stop (self);
  gst_vmafhip_monitor_stop (self);
  gst_vmafhip_align_clear (self);
  g_clear_pointer (&self->engine, vh_engine_free);
  self->engine_sized = FALSE;
  g_ptr_array_set_size (self->specs, 0);
  gst_vmafhip_side_clear (&self->side[REF]);
  gst_vmafhip_side_clear (&self->side[DIST]);
  gst_vmafhip_scale_clear (self);
  self->warned_dmabuf_copy = self->dmabuf_import_failed = FALSE;
  self->warned_cuda_host = self->warned_cuda_copy = FALSE;
  self->caps_checked = self->pair_failed = FALSE;
  GST_OBJECT_LOCK (self);
  gst_caps_replace (&self->ref_caps, NULL);
  g_clear_pointer (&self->active_backend, g_free);
  GST_OBJECT_UNLOCK (self);
  g_clear_pointer (&self->gpu, vh_gpu_close);
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
  gst_vmafhip_post_pooled_before_flush (self);
  gst_vmafhip_renditions_reset (self, TRUE);
  gst_vmafhip_reset_measurement (self);
  return GST_FLOW_OK;
}

static void
gst_vmafhip_init (GstVmafHip * self)
{
  GstElementClass *klass = GST_ELEMENT_GET_CLASS (self);
  static const char *const names[2] = { "ref_sink", "dist_sink" };

  for (int i = 0; i < 2; i++) {
    GstPadTemplate *templ = gst_element_class_get_pad_template (klass,
        names[i]);
    self->side[i].pad = g_object_new (GST_TYPE_AGGREGATOR_PAD,
        "name", names[i], "direction", GST_PAD_SINK, "template", templ, NULL);
    gst_element_add_pad (GST_ELEMENT (self), GST_PAD (self->side[i].pad));
  }

  self->props.model_filename = g_strdup (DEFAULT_MODEL_FILENAME);
  self->props.pool_method = DEFAULT_POOL_METHOD;
  self->props.threads = DEFAULT_THREADS;
  self->props.subsample = DEFAULT_SUBSAMPLE;
  self->props.frame_message = DEFAULT_FRAME_MESSAGE;
  self->props.results_format = DEFAULT_RESULTS_FORMAT;
  self->props.backend = DEFAULT_BACKEND;
  self->props.device_id = DEFAULT_DEVICE_ID;
  self->props.rate_mismatch = DEFAULT_RATE_MISMATCH;
  self->props.scaler = DEFAULT_SCALER;
  self->props.align = DEFAULT_ALIGN;
  self->props.offset = DEFAULT_OFFSET;
  self->props.search_window = DEFAULT_SEARCH_WINDOW;
  self->props.log_level = DEFAULT_LOG_LEVEL;
  self->props.monitor = (VhMonitorSettings) {
    .window = DEFAULT_WINDOW, .window_interval = DEFAULT_WINDOW_INTERVAL,
    .alarm_threshold = DEFAULT_ALARM_THRESHOLD,
    .alarm_duration = DEFAULT_ALARM_DURATION,
    .alarm_hysteresis = DEFAULT_ALARM_HYSTERESIS,
    .interval = DEFAULT_INTERVAL,
  };

  self->gpu_count = -1;          /* asked at the first caps query */
  self->specs = g_ptr_array_new_with_free_func (gst_vmafhip_model_spec_free);
  self->feature_specs = g_ptr_array_new_with_free_func ((GDestroyNotify)
      vh_feature_spec_free);
  g_queue_init (&self->pending);
  g_mutex_init (&self->renditions_lock);
  self->renditions = g_ptr_array_new ();
  self->frame_duration = GST_CLOCK_TIME_NONE;
  self->reported_latency = GST_CLOCK_TIME_NONE;
  self->first_pts = self->first_running_time = GST_CLOCK_TIME_NONE;
  self->first_stream_time = self->end_pts = GST_CLOCK_TIME_NONE;

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
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  GST_DEBUG_CATEGORY_INIT (gst_vmafhip_debug, "vmafhip", 0,
      "vmafhip VMAF element");

  gobject_class->set_property = gst_vmafhip_set_property;
  gobject_class->get_property = gst_vmafhip_get_property;
  gobject_class->finalize = gst_vmafhip_finalize;

  /**
   * GstVmafHip:model-filename:
   *
   * Built-in model name (vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1,
   * vmaf_4k_v0.6.1neg, vmaf_b_v0.6.3, the eight vmaf_v1.0.16_* models) or
   * path of a libvmaf JSON model.  Used when #GstVmafHip:models is not set.
   */
  g_object_class_install_property (gobject_class, PROP_MODEL_FILENAME,
      g_param_spec_string ("model-filename", "Model",
          "Built-in VMAF model name (vmaf_v0.6.1, vmaf_v0.6.1neg, "
          "vmaf_4k_v0.6.1, vmaf_4k_v0.6.1neg, vmaf_b_v0.6.3, "
          "vmaf_v1.0.16_3d0h, _5d0h, _3d0h_2160, _1d5h_2160 and their hfr_ "
          "variants) or path of a libvmaf JSON model file; ignored when "
          "'models' is set",
          DEFAULT_MODEL_FILENAME, rw));
  /**
   * GstVmafHip:models:
   *
   * Comma-separated models, each reported under its own name, e.g.
   * "vmaf_v0.6.1,vmaf_v0.6.1neg". An entry may add ":name=REPORT",
   * ":enable_transform" and ":disable_clip".
   */
  g_object_class_install_property (gobject_class, PROP_MODELS,
      g_param_spec_string ("models", "Models",
          "Comma-separated list of models (built-in names or paths), each "
          "reported under its own name, e.g. 'vmaf_v0.6.1,vmaf_v0.6.1neg'; "
          "an entry may end in ':name=REPORT_NAME', ':enable_transform', "
          "':disable_clip'. Overrides model-filename", NULL, rw));
  g_object_class_install_property (gobject_class, PROP_FEATURES,
      g_param_spec_string ("features", "Features",
          "Extra libvmaf features, comma-separated, each in libvmaf's "
          "--feature syntax NAME[=OPTION=VALUE[:OPTION=VALUE...]], e.g. "
          "'float_ssim,float_ms_ssim=enable_lcs=true,psnr': reported under "
          "libvmaf's keys (psnr, float_ssim, float_ms_ssim, ciede, psnr_hvs, "
          "cambi, vif, adm, motion)",
          NULL, rw));
  g_object_class_install_property (gobject_class, PROP_DISABLE_CLIP,
      g_param_spec_boolean ("disable-clip", "Disable clip",
          "Do not clip model scores to the model's range (all models)",
          FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_ENABLE_TRANSFORM,
      g_param_spec_boolean ("enable-transform", "Enable transform",
          "Apply the model's score transform (all models)", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_PHONE_MODEL,
      g_param_spec_boolean ("phone-model", "Phone model",
          "Use the phone model: the model's score transform (same as "
          "enable-transform)", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_PSNR,
      g_param_spec_boolean ("psnr", "PSNR",
          "Also compute PSNR (psnr_y, psnr_cb, psnr_cr, and psnr-y as the "
          "upstream vmaf element)", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_SSIM,
      g_param_spec_boolean ("ssim", "SSIM",
          "Also compute SSIM (libvmaf's float_ssim, on the CPU)", FALSE,
          rw));
  g_object_class_install_property (gobject_class, PROP_MS_SSIM,
      g_param_spec_boolean ("ms-ssim", "MS-SSIM",
          "Also compute MS-SSIM (libvmaf's float_ms_ssim; pictures of at "
          "least 176x176)", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_POOL_METHOD,
      g_param_spec_enum ("pool-method", "Pool method",
          "Pooled value reported as each metric's value (and 'score') in "
          "the pooled message; all four are always present",
          GST_TYPE_VMAFHIP_POOL_METHOD, DEFAULT_POOL_METHOD, rw));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "Worker threads scoring frames on the CPU in parallel, one frame "
          "each (0 = one per CPU, 1 = none; capped at the number of CPUs; "
          "adds up to threads + 2 frames of latency)", 0, G_MAXINT,
          DEFAULT_THREADS, rw));
  g_object_class_install_property (gobject_class, PROP_SUBSAMPLE,
      g_param_spec_uint ("subsample", "Subsample",
          "Report, pool and compute one of every N frames (the others get "
          "motion only, which needs every frame; the meta is on every "
          "buffer)", 1, 128, DEFAULT_SUBSAMPLE,
          rw));
  g_object_class_install_property (gobject_class, PROP_CONF_INTERVAL,
      g_param_spec_boolean ("conf-interval", "Confidence interval",
          "Report the bootstrap fields of bootstrap models (vmaf_b_v0.6.3): "
          "NAME_bagging, NAME_stddev, NAME_ci_p95_lo, NAME_ci_p95_hi and "
          "the members", FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_FRAME_MESSAGE,
      g_param_spec_boolean ("frame-message", "Frame message",
          "Post a 'VMAF' element message for every frame (the pooled "
          "message at EOS is always posted)", DEFAULT_FRAME_MESSAGE, rw));
  g_object_class_install_property (gobject_class, PROP_RESULTS_FILENAME,
      g_param_spec_string ("results-filename", "Results filename",
          "Write libvmaf's results log to this file: per-frame scores as "
          "they become final, pooled scores at EOS", NULL, rw));
  g_object_class_install_property (gobject_class, PROP_RESULTS_FORMAT,
      g_param_spec_enum ("results-format", "Results format",
          "Format of the results file (none = json)",
          GST_TYPE_VMAFHIP_RESULTS_FORMAT, DEFAULT_RESULTS_FORMAT, rw));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where to compute: auto (a working GPU, else the CPU with a "
          "warning), cpu, hip (fails without a usable GPU)",
          GST_TYPE_VMAFHIP_BACKEND, DEFAULT_BACKEND, rw));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "GPU device for the hip backend (-1 = the first usable one)",
          -1, G_MAXINT, DEFAULT_DEVICE_ID, rw));
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      g_param_spec_string ("active-backend", "Active backend",
          "The backend in use ('cpu' or 'hip'; NULL until started)", NULL,
          ro));
  g_object_class_install_property (gobject_class, PROP_FORCE_LIVE,
      g_param_spec_boolean ("force-live", "Force live",
          "Always operate in live mode and aggregate on timeout, as with a "
          "live source", FALSE, G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
          | G_PARAM_CONSTRUCT_ONLY));
  g_object_class_install_property (gobject_class, PROP_UNPAIRED_REF,
      g_param_spec_uint64 ("unpaired-ref-frames", "Unpaired reference frames",
          "Reference frames pushed without a score because no distorted "
          "frame was within half a frame of their running time", 0,
          G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_UNPAIRED_DIST,
      g_param_spec_uint64 ("unpaired-dist-frames",
          "Unpaired distorted frames",
          "Distorted frames dropped unscored: no reference frame at their "
          "running time (repeated, extra or late frames; with "
          "rate-mismatch=follow-reference, skipped frames)", 0, G_MAXUINT64,
          0, ro));

  /**
   * GstVmafHip:rate-mismatch:
   *
   * What to do when ref_sink and dist_sink announce different frame rates:
   * fail (error, the default), or score each reference frame against the
   * distorted frame on screen at its time (follow-reference), repeating or
   * skipping distorted frames.
   */
  g_object_class_install_property (gobject_class, PROP_RATE_MISMATCH,
      g_param_spec_enum ("rate-mismatch", "Rate mismatch",
          "When the inputs' frame rates differ: 'error' fails at "
          "negotiation; 'follow-reference' scores each reference frame "
          "against the distorted frame on screen at its time (distorted "
          "frames repeated or skipped, skipped ones counted as unpaired)",
          GST_TYPE_VMAFHIP_RATE_MISMATCH, DEFAULT_RATE_MISMATCH, rw));
  /**
   * GstVmafHip:scaler:
   *
   * How a distorted video smaller than the reference (a lower rung of an
   * ABR ladder) is scaled up to the reference's size before scoring, as
   * libvmaf's documentation recommends: FFmpeg's bilinear, bicubic (B = 0,
   * C = 0.6) or lanczos (3 lobes) filter, on the CPU (docs/scaling.md).
   * none refuses a distorted video of another size; a larger one is
   * always refused.
   */
  g_object_class_install_property (gobject_class, PROP_SCALER,
      g_param_spec_enum ("scaler", "Scaler",
          "How a distorted video smaller than the reference is scaled up to "
          "the reference's size before scoring (FFmpeg's filters); none: "
          "refuse it", GST_TYPE_VMAFHIP_SCALER, DEFAULT_SCALER, rw));
  /**
   * GstVmafHip:log-level:
   *
   * Accepted for compatibility with the upstream vmaf element, whose
   * libvmaf prints to stderr at this level. vmafhip prints its own
   * messages at or above this level to stderr ("vmafhip: LEVEL: ..."); the
   * same messages always go to the GStreamer debug log (GST_DEBUG=vmafhip:N)
   * and errors and warnings to the bus.
   */
  g_object_class_install_property (gobject_class, PROP_LOG_LEVEL,
      g_param_spec_enum ("log-level", "Log level",
          "Print vmafhip's messages at or above this level to stderr, as "
          "libvmaf does (errors and warnings also go to the bus, everything "
          "to the GStreamer debug log)", GST_TYPE_VMAFHIP_LOG_LEVEL,
          DEFAULT_LOG_LEVEL, rw));

  g_object_class_install_property (gobject_class, PROP_ALIGN,
      g_param_spec_enum ("align", "Align",
          "How distorted frames are matched to reference frames: off (at "
          "the same running time), offset (the distorted frame 'offset' "
          "frames later: a feed delayed by a known number of frames) or "
          "auto (that lag found within search-window, then as offset; "
          "frames before the lock are not scored; a 'vmafhip-sync' message "
          "on lock)",
          GST_TYPE_VMAFHIP_ALIGN, DEFAULT_ALIGN, rw));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_int ("offset", "Offset",
          "With align=offset: how many frames (at the reference's rate) the "
          "distorted stream lags behind the reference (negative: leads); "
          "live pipelines wait that much longer", -100000, 100000,
          DEFAULT_OFFSET, rw));

  g_object_class_install_property (gobject_class, PROP_SEARCH_WINDOW,
      g_param_spec_uint64 ("search-window", "Search window",
          "With align=auto: the largest lag searched, in ns either way "
          "(live pipelines report that much more latency)", GST_MSECOND,
          MAX_SEARCH_WINDOW, DEFAULT_SEARCH_WINDOW, rw));

  /* live monitoring (gstvmafhip-monitor.c) */
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_uint64 ("window", "Window",
          "Rolling window in ns (0 = none): mean, min, max, harmonic mean "
          "and 5th percentile of each model's score over the frames of the "
          "last window, posted as a 'VMAF' message of type 'window' every "
          "window-interval", 0, G_MAXUINT64, DEFAULT_WINDOW, rw));
  g_object_class_install_property (gobject_class, PROP_WINDOW_INTERVAL,
      g_param_spec_uint64 ("window-interval", "Window interval",
          "Time in ns between two window messages (0 = one window)", 0,
          G_MAXUINT64, DEFAULT_WINDOW_INTERVAL, rw));
  g_object_class_install_property (gobject_class, PROP_ALARM_THRESHOLD,
      g_param_spec_double ("alarm-threshold", "Alarm threshold",
          "Post a 'vmafhip-alarm' message when the first model's windowed "
          "mean stays below this for alarm-duration, and one when it is back "
          "at threshold + alarm-hysteresis (-1 = no alarms; needs window)",
          -1.0, G_MAXDOUBLE, DEFAULT_ALARM_THRESHOLD, rw));
  g_object_class_install_property (gobject_class, PROP_ALARM_DURATION,
      g_param_spec_uint64 ("alarm-duration", "Alarm duration",
          "How long in ns the windowed score must stay below alarm-threshold "
          "before the alarm", 0, G_MAXUINT64, DEFAULT_ALARM_DURATION, rw));
  g_object_class_install_property (gobject_class, PROP_ALARM_HYSTERESIS,
      g_param_spec_double ("alarm-hysteresis", "Alarm hysteresis",
          "How far above alarm-threshold the windowed score must come back "
          "to clear an alarm", 0.0, G_MAXDOUBLE, DEFAULT_ALARM_HYSTERESIS,
          rw));
  g_object_class_install_property (gobject_class, PROP_INTERVAL,
      g_param_spec_uint64 ("interval", "Interval",
          "Pool each consecutive interval of this many ns (0 = none), for "
          "example per ABR segment: a 'VMAF' message of type 'interval' at "
          "its end (the last one at EOS)", 0, G_MAXUINT64, DEFAULT_INTERVAL,
          rw));

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

