/* vmafhip — the element's properties: their defaults, their GParamSpecs
 * (documented here, as gst-inspect shows them) and get/set, into the
 * settings that start() copies (gstvmafhip-settings.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

#define DEFAULT_MODEL_FILENAME "vmaf_v0.6.1"
#define DEFAULT_POOL_METHOD GST_VMAFHIP_POOL_MEAN
#define DEFAULT_THREADS 0
#define DEFAULT_SUBSAMPLE 1
#define DEFAULT_FRAME_MESSAGE FALSE
#define DEFAULT_RESULTS_FORMAT GST_VMAFHIP_RESULTS_NONE
#define DEFAULT_WRITE_FAILURE GST_VMAFHIP_WRITE_FAILURE_ERROR
#define DEFAULT_BACKEND GST_VMAFHIP_BACKEND_AUTO
#define DEFAULT_DEVICE_ID 0
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
  PROP_WRITE_FAILURE,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_ACTIVE_BACKEND,
  PROP_FORCE_LIVE,
  PROP_UNPAIRED_REF,
  PROP_UNPAIRED_DIST,
  PROP_RATE_MISMATCH,
  PROP_SCALER,
  PROP_SHARE_REFERENCE,
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

void
gst_vmafhip_settings_init (Settings * props)
{
  props->model_filename = g_strdup (DEFAULT_MODEL_FILENAME);
  props->pool_method = DEFAULT_POOL_METHOD;
  props->threads = DEFAULT_THREADS;
  props->subsample = DEFAULT_SUBSAMPLE;
  props->frame_message = DEFAULT_FRAME_MESSAGE;
  props->results_format = DEFAULT_RESULTS_FORMAT;
  props->write_failure = DEFAULT_WRITE_FAILURE;
  props->backend = DEFAULT_BACKEND;
  props->device_id = DEFAULT_DEVICE_ID;
  props->rate_mismatch = DEFAULT_RATE_MISMATCH;
  props->scaler = DEFAULT_SCALER;
  props->align = DEFAULT_ALIGN;
  props->offset = DEFAULT_OFFSET;
  props->search_window = DEFAULT_SEARCH_WINDOW;
  props->log_level = DEFAULT_LOG_LEVEL;
  props->monitor = (VhMonitorSettings) {
    .window = DEFAULT_WINDOW, .window_interval = DEFAULT_WINDOW_INTERVAL,
    .alarm_threshold = DEFAULT_ALARM_THRESHOLD,
    .alarm_duration = DEFAULT_ALARM_DURATION,
    .alarm_hysteresis = DEFAULT_ALARM_HYSTERESIS,
    .interval = DEFAULT_INTERVAL,
  };
}

void
gst_vmafhip_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (object);
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
    case PROP_WRITE_FAILURE:
      p->write_failure = g_value_get_enum (value);
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
      /* said, even to the default: then any smaller picture is scaled */
      p->scaler_set = TRUE;
      break;
    case PROP_SHARE_REFERENCE:
      p->share_reference = g_value_get_boolean (value);
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

void
gst_vmafhip_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (object);
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
    case PROP_WRITE_FAILURE:
      g_value_set_enum (value, p->write_failure);
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
    case PROP_SHARE_REFERENCE:
      g_value_set_boolean (value, p->share_reference);
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
      g_value_set_uint64 (value,
          (guint64) g_atomic_int_get (&self->dist_stream.unpaired));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

void
gst_vmafhip_install_properties (GObjectClass * gobject_class)
{
  const GParamFlags rw = G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS |
      GST_PARAM_MUTABLE_READY;
  const GParamFlags ro = G_PARAM_READABLE | G_PARAM_STATIC_STRINGS;

  /**
   * GstVmafHip:model-filename:
   *
   * Built-in model name (vmaf_v0.6.1, vmaf_v0.6.1neg, vmaf_4k_v0.6.1,
   * vmaf_4k_v0.6.1neg, vmaf_b_v0.6.3, the eight vmaf_v1.0.16_* models) or
   * path of a libvmaf JSON model.  Used when #GstVmafHip:models is not set.
   * Its scores are reported as "vmaf", the key libvmaf's CLI writes for one
   * model; #GstVmafHip:models gives another name (":name=").
   */
  g_object_class_install_property (gobject_class, PROP_MODEL_FILENAME,
      g_param_spec_string ("model-filename", "Model",
          "Built-in model name (vmaf_v0.6.1, vmaf_v1.0.16_3d0h ...) or "
          "libvmaf JSON model path; unused with 'models'",
          DEFAULT_MODEL_FILENAME, rw));
  /**
   * GstVmafHip:models:
   *
   * Comma-separated models in libvmaf's --model syntax, each reported
   * under its ":name=" (without one: "vmaf", as libvmaf's CLI reports a
   * model; so two models need names), e.g.
   * "vmaf_v0.6.1,vmaf_v0.6.1neg:name=vmaf_neg". An entry may add
   * ":enable_transform", ":disable_clip" and FEATURE.OPTION=VALUE
   * overrides.
   */
  g_object_class_install_property (gobject_class, PROP_MODELS,
      g_param_spec_string ("models", "Models",
          "Models in libvmaf's --model syntax, comma-separated, each "
          "reported as its :name=, else as 'vmaf'", NULL, rw));
  g_object_class_install_property (gobject_class, PROP_FEATURES,
      g_param_spec_string ("features", "Features",
          "Extra libvmaf features in its --feature syntax, "
          "comma-separated (e.g. 'psnr,float_ssim')",
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
          "CPU worker threads, one frame each (0: one per CPU, 1: none); "
          "up to threads + 2 frames of latency", 0, G_MAXINT,
          DEFAULT_THREADS, rw));
  g_object_class_install_property (gobject_class, PROP_SUBSAMPLE,
      g_param_spec_uint ("subsample", "Subsample",
          "Report, pool and compute every N-th frame (motion still runs "
          "on every frame)", 1, 128, DEFAULT_SUBSAMPLE,
          rw));
  g_object_class_install_property (gobject_class, PROP_CONF_INTERVAL,
      g_param_spec_boolean ("conf-interval", "Confidence interval",
          "Report the bootstrap models' fields (NAME_bagging, "
          "NAME_stddev, NAME_ci_p95_lo/hi, members)", FALSE, rw));
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
  /**
   * GstVmafHip:write-failure:
   *
   * What happens when a results file (dist_sink's or a rendition's)
   * cannot be written completely: full disk, I/O error, folder removed.
   * error (default) posts an element error, so the run fails and a batch
   * script sees it; warn posts a warning and keeps scoring, for a live
   * monitor whose messages and meta matter more than the file.
   */
  g_object_class_install_property (gobject_class, PROP_WRITE_FAILURE,
      g_param_spec_enum ("write-failure", "Write failure",
          "A results file that cannot be written: 'error' fails the run, "
          "'warn' warns and keeps scoring",
          GST_TYPE_VMAFHIP_WRITE_FAILURE, DEFAULT_WRITE_FAILURE, rw));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Where to compute: auto (a working GPU, else the CPU with a "
          "warning), cpu, hip (fails without a usable GPU)",
          GST_TYPE_VMAFHIP_BACKEND, DEFAULT_BACKEND, rw));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "Device ID",
          "GPU to score on: its index, or -1 (auto): the GPU with the "
          "fewest streams of the process",
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
          "Reference frames pushed without a score (no distorted frame "
          "within half a frame)", 0,
          G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_UNPAIRED_DIST,
      g_param_spec_uint64 ("unpaired-dist-frames",
          "Unpaired distorted frames",
          "Distorted frames dropped unscored (no reference frame at their "
          "running time)", 0, G_MAXUINT64,
          0, ro));

  /**
   * GstVmafHip:rate-mismatch:
   *
   * What to do when a distorted pad (dist_sink or a dist_sink_%u) announces
   * another frame rate than ref_sink: fail (error, the default; a rendition
   * is left out with a warning), or score each reference frame against that
   * pad's frame on screen at its time (follow-reference), repeating or
   * skipping distorted frames.
   */
  g_object_class_install_property (gobject_class, PROP_RATE_MISMATCH,
      g_param_spec_enum ("rate-mismatch", "Rate mismatch",
          "When frame rates differ: 'error' fails, 'follow-reference' "
          "scores the distorted frame on screen",
          GST_TYPE_VMAFHIP_RATE_MISMATCH, DEFAULT_RATE_MISMATCH, rw));
  /**
   * GstVmafHip:scaler:
   *
   * How a distorted video smaller than the reference (a lower rung of an
   * ABR ladder) is scaled up to the reference's size before scoring, as
   * libvmaf's documentation recommends: FFmpeg's bilinear, bicubic (B = 0,
   * C = 0.6) or lanczos (3 lobes) filter, on the GPU with the GPU backend,
   * else on the CPU (docs/scaling.md).  Left unset, only a plausible
   * rendition is scaled: one whose display aspect ratio is the
   * reference's (within 1 %, or one sample off: a small rung's size
   * rounded to even samples); another is refused (an error on dist_sink,
   * a warning on a dist_sink_%u pad), since it is more likely a wrong
   * size in its caps.  Set (even to bicubic), any smaller video is
   * scaled.  none refuses a distorted video of another size; a larger
   * one is always refused.
   */
  g_object_class_install_property (gobject_class, PROP_SCALER,
      g_param_spec_enum ("scaler", "Scaler",
          "How a smaller distorted video is scaled up to the reference's "
          "size (FFmpeg's filters); none: refuse", GST_TYPE_VMAFHIP_SCALER,
          DEFAULT_SCALER, rw));
  /**
   * GstVmafHip:share-reference:
   *
   * With the GPU backend and two or more renditions (dist_sink_%u pads)
   * scored on the GPU: upload each reference frame once for all of them
   * and compute its share of VIF, ADM and motion once on the GPU, each
   * rendition then computing only its own part (the scores are the same,
   * bit for bit).  Off by default: it saves GPU time and bus traffic, but
   * on the H100 the renditions were not faster with it (docs/element.md,
   * Renditions).  With the CPU backend it changes nothing: there each
   * rendition computes its pairs whole (a CPU share measured slower).
   * VMAFHIP_SHARED_REFERENCE=1 in the environment turns it on for every
   * element (test suites).
   */
  g_object_class_install_property (gobject_class, PROP_SHARE_REFERENCE,
      g_param_spec_boolean ("share-reference", "Share the reference",
          "GPU renditions: the reference uploaded and its share of VIF, "
          "ADM, motion computed once a frame",
          FALSE, rw));
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
          "libvmaf does", GST_TYPE_VMAFHIP_LOG_LEVEL,
          DEFAULT_LOG_LEVEL, rw));

  g_object_class_install_property (gobject_class, PROP_ALIGN,
      g_param_spec_enum ("align", "Align",
          "Match distorted to reference frames: off (same running time), "
          "offset, or auto (the lag searched)",
          GST_TYPE_VMAFHIP_ALIGN, DEFAULT_ALIGN, rw));
  g_object_class_install_property (gobject_class, PROP_OFFSET,
      g_param_spec_int ("offset", "Offset",
          "With align=offset: frames by which the distorted stream lags "
          "the reference (negative: leads)", -100000, 100000,
          DEFAULT_OFFSET, rw));

  g_object_class_install_property (gobject_class, PROP_SEARCH_WINDOW,
      g_param_spec_uint64 ("search-window", "Search window",
          "With align=auto: the largest lag searched, in ns either way "
          "(live pipelines report that much more latency)", GST_MSECOND,
          MAX_SEARCH_WINDOW, DEFAULT_SEARCH_WINDOW, rw));

  /* live monitoring (gstvmafhip-monitor.c) */
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_uint64 ("window", "Window",
          "Rolling window of each model's score in ns (0: none), posted "
          "every window-interval", 0, G_MAXUINT64, DEFAULT_WINDOW, rw));
  g_object_class_install_property (gobject_class, PROP_WINDOW_INTERVAL,
      g_param_spec_uint64 ("window-interval", "Window interval",
          "Time in ns between two window messages (0 = one window)", 0,
          G_MAXUINT64, DEFAULT_WINDOW_INTERVAL, rw));
  g_object_class_install_property (gobject_class, PROP_ALARM_THRESHOLD,
      g_param_spec_double ("alarm-threshold", "Alarm threshold",
          "Alarm when the first model's windowed mean stays below this "
          "for alarm-duration (-1: none)",
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
          "Pool each consecutive interval of this many ns (0: none), e.g. "
          "one per ABR segment", 0, G_MAXUINT64, DEFAULT_INTERVAL,
          rw));
}
