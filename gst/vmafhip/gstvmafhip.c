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
 * reference frames on `src` with their scores attached. Property names and
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
 * - `ssim`, `ms-ssim` (bool, FALSE): accepted for compatibility; not
 *   implemented yet, so setting one fails at the READY→PAUSED change.
 * - `pool-method` (enum, mean): which pooled value is reported as each
 *   metric's value in the pooled message (all four are always present).
 * - `subsample` (uint 1..128, 1): report and pool every N-th frame.
 * - `conf-interval` (bool, FALSE): report the bootstrap fields (bagging,
 *   stddev, 95 % CI, members) of bootstrap models (vmaf_b_v0.6.3).
 * - `frame-message` (bool, TRUE): post a "VMAF" message per frame.
 * - `results-filename` (string, NULL), `results-format` (enum none, xml,
 *   json, csv; none = json): write libvmaf's log at EOS.
 * - `threads` (uint, 0): engine worker threads, 0 = one per CPU.
 * - `backend` (enum auto, cpu, hip; auto), `device-id` (int, -1): where to
 *   score. hip requires a working GPU; auto takes one if it works, else
 *   warns once and uses the CPU. `active-backend` (read-only) and an INFO
 *   message at start say which backend and device run.
 * - `force-live` (bool, construct-only): behave as with a live source.
 * - `unpaired-ref-frames`, `unpaired-dist-frames` (read-only): frames that
 *   had no partner on the other pad (live mode) and were not scored.
 *
 * Messages: element messages with structure name "VMAF". Per frame:
 * `timestamp`, `stream-time`, `running-time`, `duration` (guint64),
 * `index` (int), `type` = "frame", `score` (double, first model) and one
 * double per model and feature. At EOS, `type` = "pooled" with `n-frames`,
 * `unpaired-ref`, `unpaired-dist`, and for each metric M: M (by
 * pool-method), M-mean, M-harmonic-mean, M-min, M-max.
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

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <gst/video/video.h>

#include "gstvmafhip.h"
#include "gstvmafhipmeta.h"
#include "gstvmafhippool.h"
#include "vh-gpu-backend.h"
#include "vh-kernel-images.h"
#include "vh-engine.h"

GST_DEBUG_CATEGORY_STATIC (gst_vmafhip_debug);
#define GST_CAT_DEFAULT gst_vmafhip_debug

#define VMAFHIP_FORMATS "{ I420, YV12, NV12, Y42B, Y444, I420_10LE, " \
    "I422_10LE, Y444_10LE, P010_10LE, I420_12LE, GRAY8, GRAY16_LE }"

static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (VMAFHIP_FORMATS)));
static GstStaticPadTemplate ref_template = GST_STATIC_PAD_TEMPLATE ("ref_sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (VMAFHIP_FORMATS)));
static GstStaticPadTemplate dist_template =
GST_STATIC_PAD_TEMPLATE ("dist_sink", GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (VMAFHIP_FORMATS)));

#define DEFAULT_MODEL_FILENAME "vmaf_v0.6.1"
#define DEFAULT_POOL_METHOD GST_VMAFHIP_POOL_MEAN
#define DEFAULT_THREADS 0
#define DEFAULT_SUBSAMPLE 1
#define DEFAULT_FRAME_MESSAGE TRUE
#define DEFAULT_RESULTS_FORMAT GST_VMAFHIP_RESULTS_NONE
#define DEFAULT_BACKEND GST_VMAFHIP_BACKEND_AUTO
#define DEFAULT_DEVICE_ID -1

enum
{
  PROP_0,
  PROP_MODEL_FILENAME,
  PROP_MODELS,
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
};

/* User settings; copied at start() so streaming never sees a half-changed
 * configuration. */
typedef struct
{
  gchar *model_filename;
  gchar *models;
  gchar *results_filename;
  gboolean disable_clip, enable_transform, phone_model;
  gboolean psnr, ssim, ms_ssim;
  gboolean conf_interval, frame_message;
  GstVmafHipPoolMethod pool_method;
  GstVmafHipResultsFormat results_format;
  GstVmafHipBackend backend;
  guint threads, subsample;
  gint device_id;
} Settings;

/* One model to score with, resolved from model-filename or models. */
typedef struct
{
  gchar *source;              /* built-in name or path */
  gchar *report_name;         /* name in messages, meta and log */
  VhModelFlags flags;
  gboolean bootstrap;
  VhModel *model;             /* loaded at start(), handed to the engine */
} ModelSpec;

enum
{ REF, DIST };

typedef struct
{
  GstAggregatorPad *pad;
  GstVideoInfo info;
  gboolean have_info;
  gboolean refused;           /* its caps were refused (error posted) */
  /* Formats whose samples are not LSB-aligned (P010: 10 bits in the high
   * bits of each word) are shifted down into these planar copies, one per
   * component, allocated once per caps. */
  guint16 *staging[3];
} Side;

/* A reference buffer waiting until its frame's scores are final. */
typedef struct
{
  GstBuffer *buffer;
  gint index;                 /* engine frame; -1: not scored */
  GstClockTime pts, duration, running_time, stream_time;
} PendingFrame;

typedef enum
{
  METRIC_FEATURE,
  METRIC_MODEL,
  METRIC_BOOTSTRAP,           /* reported with conf-interval only */
} MetricKind;

struct _GstVmafHip
{
  GstAggregator parent;

  Side side[2];

  /* Object lock */
  Settings props;
  gchar *active_backend;
  guint64 unpaired_ref, unpaired_dist;
  gboolean force_live;

  /* From start() to stop(): streaming thread only */
  Settings cfg;
  GPtrArray *specs;           /* ModelSpec* */
  VhLogFormat log_format;
  gboolean write_log;
  guint lookahead;            /* frames a score waits for */
  gboolean warned_no_gpu;
  gboolean use_gpu;           /* the HIP backend was chosen at start */
  gint gpu_device;            /* and its device */

  GstCaps *ref_caps;          /* output caps (the reference's) */
  gboolean caps_checked;      /* both sides known and compatible */
  gboolean pair_failed;       /* the current pair of caps was refused */
  gboolean luma_only;
  VhEngine *engine;
  VhVideoInfo engine_info;
  GArray *metric_kind;        /* guint8 MetricKind per table metric */

  GQueue pending;             /* PendingFrame*, in output order */
  GstClockTime frame_duration;
  GstClockTime reported_latency;
  gboolean finished;
  gboolean warned_time, warned_unpaired;
  gint64 first_push_us;
  GstClockTime first_pts, first_running_time, first_stream_time, end_pts;
};

#define gst_vmafhip_parent_class parent_class
G_DEFINE_TYPE (GstVmafHip, gst_vmafhip, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (vmafhip, "vmafhip", GST_RANK_NONE,
    GST_TYPE_VMAFHIP);

/* ---------------------------------------------------------------- enums */

GType
gst_vmafhip_pool_method_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_POOL_MIN, "Minimum value", "min"},
    {GST_VMAFHIP_POOL_MAX, "Maximum value", "max"},
    {GST_VMAFHIP_POOL_MEAN, "Arithmetic mean", "mean"},
    {GST_VMAFHIP_POOL_HARMONIC_MEAN, "Harmonic mean", "harmonic_mean"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipPoolMethod", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_vmafhip_results_format_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_RESULTS_NONE, "None (JSON if results-filename is set)",
        "none"},
    {GST_VMAFHIP_RESULTS_XML, "XML", "xml"},
    {GST_VMAFHIP_RESULTS_JSON, "JSON", "json"},
    {GST_VMAFHIP_RESULTS_CSV, "Comma-separated values (CSV)", "csv"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipResultsFormat", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

GType
gst_vmafhip_backend_get_type (void)
{
  static const GEnumValue values[] = {
    {GST_VMAFHIP_BACKEND_AUTO, "A working GPU if any, else the CPU", "auto"},
    {GST_VMAFHIP_BACKEND_CPU, "CPU", "cpu"},
    {GST_VMAFHIP_BACKEND_HIP, "HIP GPU", "hip"},
    {0, NULL, NULL},
  };
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_enum_register_static ("GstVmafHipBackend", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* ------------------------------------------------------------- settings */

static void
settings_clear (Settings * s)
{
  g_clear_pointer (&s->model_filename, g_free);
  g_clear_pointer (&s->models, g_free);
  g_clear_pointer (&s->results_filename, g_free);
}

static void
settings_copy (Settings * dst, const Settings * src)
{
  settings_clear (dst);
  *dst = *src;
  dst->model_filename = g_strdup (src->model_filename);
  dst->models = g_strdup (src->models);
  dst->results_filename = g_strdup (src->results_filename);
}

static void
model_spec_free (gpointer p)
{
  ModelSpec *spec = p;

  g_free (spec->source);
  g_free (spec->report_name);
  vh_model_free (spec->model);
  g_free (spec);
}

static const char *
side_name (int which)
{
  return which == REF ? "ref_sink" : "dist_sink";
}

/* --------------------------------------------------------- model setup */

/* Checks that vmafhip computes every feature the model needs, so a model
 * that cannot run fails at READY→PAUSED rather than at the first frame. */
static gboolean
check_model_features (const VhModel * model, const char *source,
    guint * lookahead, GError ** error)
{
  for (unsigned i = 0; i < vh_model_n_features (model); i++) {
    const char *fname = vh_model_feature_name (model, i);
    const VhFeatureName *fn = vh_feature_name_lookup (fname);
    unsigned n_opts = 0;
    const VhModelOpt *opts;

    if (!fn || !fn->fex) {
      g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
          "model '%s' needs feature '%s', which vmafhip does not implement "
          "yet", source, fn ? fn->alias : fname);
      return FALSE;
    }
    opts = vh_model_feature_opts (model, i, &n_opts);
    for (unsigned k = 0; k < n_opts; k++) {
      /* the five-frame motion window finalises a frame two frames later */
      if (!strcmp (opts[k].key, "motion_five_frame_window")
          && opts[k].kind == VH_OPTVAL_BOOL && opts[k].boolean)
        *lookahead = MAX (*lookahead, 2);
    }
  }
  return TRUE;
}

/* Parses one `models` entry: NAME_OR_PATH[:name=REPORT][:enable_transform]
 * [:disable_clip]. */
static ModelSpec *
parse_model_entry (const gchar * entry, const VhModelFlags * global,
    GError ** error)
{
  gchar **parts = g_strsplit (entry, ":", -1);
  ModelSpec *spec = g_new0 (ModelSpec, 1);

  spec->source = g_strdup (g_strstrip (parts[0]));
  spec->flags = *global;
  for (guint i = 1; parts[i]; i++) {
    const gchar *opt = g_strstrip (parts[i]);
    if (g_str_has_prefix (opt, "name=") && opt[5]) {
      g_free (spec->report_name);
      spec->report_name = g_strdup (opt + 5);
    } else if (!strcmp (opt, "enable_transform")) {
      spec->flags.enable_transform = true;
    } else if (!strcmp (opt, "disable_clip")) {
      spec->flags.disable_clip = true;
    } else {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "models: unknown option '%s' in '%s' (known: name=NAME, "
          "enable_transform, disable_clip)", opt, entry);
      model_spec_free (spec);
      spec = NULL;
      break;
    }
  }
  if (spec && !*spec->source) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "models: entry '%s' has no model name or path", entry);
    model_spec_free (spec);
    spec = NULL;
  }
  g_strfreev (parts);
  return spec;
}

/* Resolves model-filename / models into loaded, checked models. */
static gboolean
load_models (GstVmafHip * self, GError ** error)
{
  const Settings *cfg = &self->cfg;
  const VhModelFlags global = {
    .disable_clip = cfg->disable_clip,
    .enable_transform = cfg->enable_transform || cfg->phone_model,
  };
  const gboolean use_list = cfg->models && *g_strstrip (cfg->models);
  const char *what = use_list ? "models" : "model-filename";

  g_ptr_array_set_size (self->specs, 0);
  self->lookahead = 1;

  if (use_list) {
    gchar **entries = g_strsplit (cfg->models, ",", -1);
    for (guint i = 0; entries[i]; i++) {
      ModelSpec *spec;
      if (!*g_strstrip (entries[i]))
        continue;
      spec = parse_model_entry (entries[i], &global, error);
      if (!spec) {
        g_strfreev (entries);
        return FALSE;
      }
      g_ptr_array_add (self->specs, spec);
    }
    g_strfreev (entries);
    if (self->specs->len == 0) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "models is set but lists no model");
      return FALSE;
    }
  } else {
    ModelSpec *spec;
    if (!cfg->model_filename || !*cfg->model_filename) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "model-filename is empty: give a built-in model name "
          "(vmaf_v0.6.1 ...) or the path of a model file");
      return FALSE;
    }
    spec = g_new0 (ModelSpec, 1);
    spec->source = g_strdup (cfg->model_filename);
    spec->flags = global;
    g_ptr_array_add (self->specs, spec);
  }

  for (guint i = 0; i < self->specs->len; i++) {
    ModelSpec *spec = g_ptr_array_index (self->specs, i);

    spec->model = vh_model_load (spec->source, error);
    if (!spec->model) {
      g_prefix_error (error, "%s '%s': ", what, spec->source);
      return FALSE;
    }
    if (!check_model_features (spec->model, spec->source, &self->lookahead,
            error)) {
      g_prefix_error (error, "%s: ", what);
      return FALSE;
    }
    if (!spec->report_name)
      spec->report_name = g_strdup (vh_model_name (spec->model));
    spec->bootstrap = vh_model_is_bootstrap (spec->model);
    for (guint k = 0; k < i; k++) {
      ModelSpec *other = g_ptr_array_index (self->specs, k);
      if (!strcmp (other->report_name, spec->report_name)) {
        g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
            "models: two models are reported as '%s'; give one another "
            "name with ':name=NEW_NAME'", spec->report_name);
        return FALSE;
      }
    }
    if (!strcmp (spec->report_name, "score")) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "models: 'score' is reserved for the first model's score; choose "
          "another name");
      return FALSE;
    }
  }
  return TRUE;
}

/* Early check, so a bad path fails at READY→PAUSED, not after the whole
 * stream has been scored. */
static gboolean
check_results_file (const gchar * path, GError ** error)
{
  gchar *dir = g_path_get_dirname (path);
  gboolean ok = FALSE;

  if (!g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "cannot write results file '%s': folder '%s' does not exist", path,
        dir);
  } else if (g_file_test (path, G_FILE_TEST_IS_DIR)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "cannot write results file '%s': it is a folder", path);
  } else if (access (g_file_test (path, G_FILE_TEST_EXISTS) ? path : dir,
          W_OK) != 0) {
    int e = errno;
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "cannot write results file '%s': %s", path, g_strerror (e));
  } else {
    ok = TRUE;
  }
  g_free (dir);
  return ok;
}

/* ------------------------------------------------------ streaming state */

static void
pending_frame_free (gpointer p)
{
  PendingFrame *pf = p;

  gst_buffer_unref (pf->buffer);
  g_free (pf);
}

/* Forgets every frame (start, flushing seek); keeps caps and the engine. */
static void
reset_measurement (GstVmafHip * self)
{
  g_queue_clear_full (&self->pending, pending_frame_free);
  if (self->engine)
    vh_engine_reset (self->engine);
  self->finished = FALSE;
  self->first_push_us = 0;
  self->first_pts = self->first_running_time = GST_CLOCK_TIME_NONE;
  self->first_stream_time = self->end_pts = GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (self);
  self->unpaired_ref = self->unpaired_dist = 0;
  GST_OBJECT_UNLOCK (self);
}

static void
side_clear (Side * side)
{
  for (int c = 0; c < 3; c++)
    g_clear_pointer (&side->staging[c], g_free);
  side->have_info = side->refused = FALSE;
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

  settings_clear (&self->props);
  settings_clear (&self->cfg);
  g_free (self->active_backend);
  g_ptr_array_unref (self->specs);
  g_array_unref (self->metric_kind);
  gst_caps_replace (&self->ref_caps, NULL);
  g_queue_clear_full (&self->pending, pending_frame_free);
  vh_engine_free (self->engine);
  side_clear (&self->side[REF]);
  side_clear (&self->side[DIST]);

  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ------------------------------------------------------ start and stop */

/* Opens the GPU and loads a kernel module once to prove the device works
 * with the kernels this build carries. */
static VhGpu *
open_working_gpu (gint device_id, GError ** error)
{
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, MAX (device_id, 0), error);
  if (!gpu)
    return NULL;
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_motion,
      error);
  if (!module) {
    vh_gpu_close (gpu);
    return NULL;
  }
  vh_gpu_module_free (module);
  return gpu;
}

static void
set_active_backend (GstVmafHip * self, const gchar * description)
{
  GST_OBJECT_LOCK (self);
  g_free (self->active_backend);
  self->active_backend = g_strdup (description);
  GST_OBJECT_UNLOCK (self);
  g_object_notify (G_OBJECT (self), "active-backend");
}

/* backend=hip needs a working GPU; auto takes one if it works, else the CPU
 * with a warning. The choice is posted as an INFO message and kept in the
 * read-only active-backend property. */
static gboolean
choose_backend (GstVmafHip * self)
{
  GError *error = NULL;
  VhGpu *gpu = NULL;

  self->use_gpu = FALSE;
  if (self->cfg.backend != GST_VMAFHIP_BACKEND_CPU)
    gpu = open_working_gpu (self->cfg.device_id, &error);
  if (gpu) {
    gchar *desc = g_strdup_printf ("hip: %s %s (%s), device %d",
        vh_gpu_vendor_name (gpu), vh_gpu_device_name (gpu), vh_gpu_arch (gpu),
        vh_gpu_device_id (gpu));
    self->use_gpu = TRUE;
    self->gpu_device = vh_gpu_device_id (gpu);
    vh_gpu_close (gpu);
    set_active_backend (self, desc);
    GST_ELEMENT_INFO (self, RESOURCE, SETTINGS,
        ("Scoring on the GPU: %s", desc), (NULL));
    g_free (desc);
    return TRUE;
  }
  if (self->cfg.backend == GST_VMAFHIP_BACKEND_HIP) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable HIP GPU for backend=hip: %s. Use backend=cpu or backend=auto.",
            error->message), ("device-id=%d requested", self->cfg.device_id));
    g_clear_error (&error);
    return FALSE;
  }
  if (self->cfg.backend == GST_VMAFHIP_BACKEND_AUTO && !self->warned_no_gpu) {
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("No usable GPU (%s): scoring on the CPU.", error->message),
        ("backend=auto; set backend=cpu to silence this warning"));
    self->warned_no_gpu = TRUE;
  }
  g_clear_error (&error);
  set_active_backend (self, "cpu");
  GST_ELEMENT_INFO (self, RESOURCE, SETTINGS, ("Scoring on the CPU"), (NULL));
  return TRUE;
}

static gboolean
gst_vmafhip_start (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  GError *error = NULL;

  GST_OBJECT_LOCK (self);
  settings_copy (&self->cfg, &self->props);
  GST_OBJECT_UNLOCK (self);

  if (self->cfg.ssim || self->cfg.ms_ssim) {
    const char *name = self->cfg.ssim ? "ssim" : "ms-ssim";
    GST_ELEMENT_ERROR (self, LIBRARY, SETTINGS,
        ("Property '%s' is not implemented yet in vmafhip (a later version "
            "adds it): set %s=false.", name, name), (NULL));
    return FALSE;
  }

  if (!choose_backend (self))
    return FALSE;

  if (!load_models (self, &error)) {
    if (g_error_matches (error, VH_ERROR, VH_ERROR_IO))
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

  self->write_log = self->cfg.results_filename && *self->cfg.results_filename;
  switch (self->cfg.results_format) {
    case GST_VMAFHIP_RESULTS_XML:
      self->log_format = VH_LOG_XML;
      break;
    case GST_VMAFHIP_RESULTS_CSV:
      self->log_format = VH_LOG_CSV;
      break;
    default:
      self->log_format = VH_LOG_JSON;
      break;
  }
  if (self->write_log && !check_results_file (self->cfg.results_filename,
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

  reset_measurement (self);
  self->caps_checked = self->pair_failed = FALSE;
  self->frame_duration = GST_CLOCK_TIME_NONE;
  self->reported_latency = GST_CLOCK_TIME_NONE;
  self->warned_time = self->warned_unpaired = FALSE;
  return TRUE;
}

static gboolean
gst_vmafhip_stop (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP (agg);

  reset_measurement (self);
  g_clear_pointer (&self->engine, vh_engine_free);
  g_ptr_array_set_size (self->specs, 0);
  g_array_set_size (self->metric_kind, 0);
  side_clear (&self->side[REF]);
  side_clear (&self->side[DIST]);
  self->caps_checked = self->pair_failed = FALSE;
  GST_OBJECT_LOCK (self);
  gst_caps_replace (&self->ref_caps, NULL);
  g_clear_pointer (&self->active_backend, g_free);
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* A flushing seek: the measurement restarts from scratch. */
static GstFlowReturn
gst_vmafhip_flush (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP (agg);

  GST_DEBUG_OBJECT (self, "flush: dropping %u pending frames and the scores "
      "so far", g_queue_get_length (&self->pending));
  reset_measurement (self);
  return GST_FLOW_OK;
}

/* ---------------------------------------------------------------- caps */

static guint
video_depth (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_COMP_DEPTH (info, 0);
}

static void
update_latency (GstVmafHip * self, GstClockTime frame_duration)
{
  GstClockTime latency;

  if (!GST_CLOCK_TIME_IS_VALID (frame_duration) || frame_duration == 0)
    return;
  /* Frame i is final once frame i+lookahead arrives: that is our latency. */
  latency = frame_duration * self->lookahead;
  if (latency == self->reported_latency)
    return;
  self->reported_latency = latency;
  GST_INFO_OBJECT (self, "latency %" GST_TIME_FORMAT " (%u frame(s))",
      GST_TIME_ARGS (latency), self->lookahead);
  gst_aggregator_set_latency (GST_AGGREGATOR (self), latency, latency);
}

static gchar *
describe_video (const GstVideoInfo * info)
{
  return g_strdup_printf ("%dx%d, %u-bit %s", GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), video_depth (info),
      GST_VIDEO_INFO_NAME (info));
}

/* Both sides must have the same size and bit depth. */
static gboolean
check_compatible (GstVmafHip * self)
{
  const GstVideoInfo *r = &self->side[REF].info;
  const GstVideoInfo *d = &self->side[DIST].info;
  const gboolean size_differs = GST_VIDEO_INFO_WIDTH (r)
      != GST_VIDEO_INFO_WIDTH (d)
      || GST_VIDEO_INFO_HEIGHT (r) != GST_VIDEO_INFO_HEIGHT (d);
  const gboolean depth_differs = video_depth (r) != video_depth (d);
  gboolean r_gray, d_gray, chroma_differs;

  if (size_differs || depth_differs) {
    gchar *rs = describe_video (r), *ds = describe_video (d);
    GString *hint = g_string_new (NULL);

    if (size_differs)
      g_string_append_printf (hint, "videoscale ! video/x-raw,width=%d,"
          "height=%d", GST_VIDEO_INFO_WIDTH (r), GST_VIDEO_INFO_HEIGHT (r));
    if (depth_differs)
      g_string_append_printf (hint, "%svideoconvert ! video/x-raw,"
          "format=%s", hint->len ? " ! " : "", GST_VIDEO_INFO_NAME (r));
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The reference (ref_sink: %s) and distorted (dist_sink: %s) videos "
            "differ in %s: VMAF compares frames of the same size and bit "
            "depth. Convert the distorted video first, e.g. insert '%s' "
            "before dist_sink.", rs, ds, size_differs && depth_differs
            ? "size and bit depth" : size_differs ? "size" : "bit depth",
            hint->str), (NULL));
    g_string_free (hint, TRUE);
    g_free (rs);
    g_free (ds);
    return FALSE;
  }

  /* Chroma is read by PSNR only; if the two layouts differ (I420 against
   * Y444, or a GRAY side) score the luma alone. */
  r_gray = GST_VIDEO_INFO_IS_GRAY (r);
  d_gray = GST_VIDEO_INFO_IS_GRAY (d);
  chroma_differs = r_gray != d_gray
      || (!r_gray && (GST_VIDEO_INFO_COMP_WIDTH (r, 1)
              != GST_VIDEO_INFO_COMP_WIDTH (d, 1)
              || GST_VIDEO_INFO_COMP_HEIGHT (r, 1)
              != GST_VIDEO_INFO_COMP_HEIGHT (d, 1)));
  if (chroma_differs && self->cfg.psnr && !self->luma_only)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Chroma PSNR is not computed: ref_sink is %s and dist_sink is %s, "
            "which have different chroma layouts; only psnr_y is reported.",
            GST_VIDEO_INFO_NAME (r), GST_VIDEO_INFO_NAME (d)), (NULL));
  self->luma_only = r_gray || d_gray || chroma_differs;
  return TRUE;
}

/* Creates the engine for the negotiated size (or keeps the one there). */
static gboolean
configure_engine (GstVmafHip * self)
{
  const GstVideoInfo *r = &self->side[REF].info;
  const VhVideoInfo vi = {
    (unsigned) GST_VIDEO_INFO_WIDTH (r), (unsigned) GST_VIDEO_INFO_HEIGHT (r),
    video_depth (r)
  };
  GError *error = NULL;

  if (self->engine) {
    if (!memcmp (&vi, &self->engine_info, sizeof vi))
      return TRUE;
    if (vh_engine_n_pushed (self->engine) > 0) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("The video changed from %ux%u %u-bit to %ux%u %u-bit in the "
              "middle of the stream: vmafhip scores one size per stream.",
              self->engine_info.width, self->engine_info.height,
              self->engine_info.bpc, vi.width, vi.height, vi.bpc), (NULL));
      return FALSE;
    }
    g_clear_pointer (&self->engine, vh_engine_free);
  }

  self->engine = vh_engine_new (&vi, &error);
  if (!self->engine)
    goto failed;
  self->engine_info = vi;
  g_array_set_size (self->metric_kind, 0);
  if (!vh_engine_set_threads (self->engine, self->cfg.threads, &error))
    goto failed;
  if (self->use_gpu) {
    /* the backend owns its own handle on the device */
    VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, self->gpu_device, &error);
    VhGpuBackend *backend = gpu ? vh_gpu_backend_new (gpu, 0, &error) : NULL;
    if (!backend || !vh_engine_set_accelerator (self->engine,
            &vh_gpu_backend_ops, backend, &error))
      goto failed;
  }
  for (guint i = 0; i < self->specs->len; i++) {
    ModelSpec *spec = g_ptr_array_index (self->specs, i);
    VhModel *model = spec->model;

    spec->model = NULL;
    if (!model && !(model = vh_model_load (spec->source, &error)))
      goto failed;
    /* the engine owns the model from here, even on failure */
    if (!vh_engine_add_loaded_model (self->engine, model, spec->report_name,
            &spec->flags, &error))
      goto failed;
  }
  if (self->cfg.psnr && !vh_engine_add_feature (self->engine, "psnr", &error))
    goto failed;
  GST_INFO_OBJECT (self, "engine ready for %ux%u %u-bit, %u model(s)",
      vi.width, vi.height, vi.bpc, self->specs->len);
  return TRUE;

failed:
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Cannot score %ux%u %u-bit video: %s", vi.width, vi.height, vi.bpc,
          error ? error->message : "unknown error"), (NULL));
  g_clear_error (&error);
  g_clear_pointer (&self->engine, vh_engine_free);
  return FALSE;
}

/* Validates the pair of caps and sets the engine up, once both are known.
 * Called at negotiation and again before scoring after a caps change. */
static gboolean
ensure_caps_checked (GstVmafHip * self)
{
  if (self->caps_checked)
    return TRUE;
  /* refused already, with a message: do not post it again per frame */
  if (self->pair_failed || self->side[REF].refused
      || self->side[DIST].refused)
    return FALSE;
  if (!self->side[REF].have_info || !self->side[DIST].have_info) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s received a frame before its caps.",
            self->side[REF].have_info ? "dist_sink" : "ref_sink"), (NULL));
    self->pair_failed = TRUE;
    return FALSE;
  }
  if (!check_compatible (self) || !configure_engine (self)) {
    self->pair_failed = TRUE;
    return FALSE;
  }
  self->caps_checked = TRUE;
  return TRUE;
}

static gboolean
handle_caps (GstVmafHip * self, int which, GstCaps * caps)
{
  Side *side = &self->side[which];
  GstVideoInfo info;

  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT, side_name (which),
      caps);
  self->caps_checked = self->pair_failed = FALSE;
  /* a refused format leaves the side without caps: its frames are not
   * scored, and the error is not repeated */
  side_clear (side);
  side->refused = TRUE;
  if (!gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s: cannot parse the video caps.", side_name (which)),
        ("%" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  if (video_depth (&info) != 8 && video_depth (&info) != 10
      && video_depth (&info) != 12) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s: %s is %u-bit video, which VMAF does not support (8, 10 or 12 "
            "bits). Convert it first, e.g. 'videoconvert ! "
            "video/x-raw,format=%s'.", side_name (which),
            GST_VIDEO_INFO_NAME (&info), video_depth (&info),
            GST_VIDEO_INFO_IS_GRAY (&info) ? "GRAY8" : "I420_12LE"), (NULL));
    return FALSE;
  }

  side->refused = FALSE;
  side->info = info;
  side->have_info = TRUE;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (&info) && c < 3; c++) {
    if (GST_VIDEO_FORMAT_INFO_SHIFT (info.finfo, c))
      side->staging[c] = g_new (guint16,
          (gsize) GST_VIDEO_INFO_COMP_WIDTH (&info, c) *
          GST_VIDEO_INFO_COMP_HEIGHT (&info, c));
  }

  if (which == REF) {
    GST_OBJECT_LOCK (self);
    gst_caps_replace (&self->ref_caps, caps);
    GST_OBJECT_UNLOCK (self);
    if (GST_VIDEO_INFO_FPS_N (&info) > 0) {
      self->frame_duration = gst_util_uint64_scale_int (GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&info), GST_VIDEO_INFO_FPS_N (&info));
      update_latency (self, self->frame_duration);
    }
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
  }

  /* At the start, check the pair right away so a mismatch fails at
   * negotiation; after frames were scored, wait until the next pair (the
   * other side's new caps may still be on its way). */
  if (self->side[REF].have_info && self->side[DIST].have_info
      && (!self->engine || vh_engine_n_pushed (self->engine) == 0))
    return ensure_caps_checked (self);
  return TRUE;
}

/* ---------------------------------------------------- pad query / event */

static int
which_side (GstVmafHip * self, GstAggregatorPad * pad)
{
  return pad == self->side[REF].pad ? REF : DIST;
}

static gboolean
gst_vmafhip_sink_event (GstAggregator * agg, GstAggregatorPad * pad,
    GstEvent * event)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  const int which = which_side (self, pad);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gboolean ok;

      gst_event_parse_caps (event, &caps);
      ok = handle_caps (self, which, caps);
      gst_event_unref (event);
      return ok;
    }
    case GST_EVENT_SEGMENT:
      if (which == REF) {
        const GstSegment *segment;

        gst_event_parse_segment (event, &segment);
        /* the output is the reference stream: same timeline */
        if (segment->format == GST_FORMAT_TIME)
          gst_aggregator_update_segment (agg, segment);
        else
          GST_WARNING_OBJECT (self, "ref_sink got a %s segment; output "
              "timestamps will not be meaningful",
              gst_format_get_name (segment->format));
      }
      break;
    default:
      break;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, pad, event);
}

static gboolean
gst_vmafhip_sink_query (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * query)
{
  GstVmafHip *self = GST_VMAFHIP (agg);

  switch (GST_QUERY_TYPE (query)) {
    case GST_QUERY_CAPS:{
      GstCaps *filter, *templ, *result;

      gst_query_parse_caps (query, &filter);
      templ = gst_pad_get_pad_template_caps (GST_PAD (pad));
      if (which_side (self, pad) == REF) {
        /* the reference is pushed as it is: downstream must take it */
        GstCaps *peer = gst_pad_peer_query_caps (GST_AGGREGATOR_SRC_PAD (agg),
            templ);
        result = gst_caps_intersect (peer, templ);
        gst_caps_unref (peer);
      } else {
        result = gst_caps_ref (templ);
      }
      /* our order first: unconstrained sources then pick 8-bit I420 */
      if (filter) {
        GstCaps *tmp = gst_caps_intersect_full (result, filter,
            GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref (result);
        result = tmp;
      }
      gst_query_set_caps_result (query, result);
      gst_caps_unref (result);
      gst_caps_unref (templ);
      return TRUE;
    }
    case GST_QUERY_ACCEPT_CAPS:{
      /* Anything in the template: a mismatch between the two sides is
       * reported by the CAPS event with a message naming both. */
      GstCaps *caps, *templ;

      gst_query_parse_accept_caps (query, &caps);
      templ = gst_pad_get_pad_template_caps (GST_PAD (pad));
      gst_query_set_accept_caps_result (query,
          gst_caps_is_subset (caps, templ));
      gst_caps_unref (templ);
      return TRUE;
    }
    default:
      return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad,
          query);
  }
}

/* With the GPU backend, upstream is offered a pool (and an allocator) of
 * pinned host memory: frames written there are uploaded by DMA straight
 * from the buffer, without the backend's staging copy. Upstream may ignore
 * the offer; any other memory is uploaded through that copy. On the CPU
 * there is nothing to gain: no pool, as before. */
static gboolean
gst_vmafhip_propose_allocation (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * decide_query, GstQuery * query)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  GstCaps *caps = NULL;
  gboolean need_pool = FALSE;
  GstVideoInfo info;

  (void) decide_query;
  /* we read any stride and offset through gst_video_frame_map */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  /* use_gpu and gpu_device are set at start(), before any pad is active */
  if (!self->use_gpu)
    return TRUE;
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return TRUE;

  GError *error = NULL;
  GstAllocator *allocator = gst_vmafhip_pinned_allocator_new (self->gpu_device,
      &error);
  if (!allocator) {
    GST_WARNING_OBJECT (pad, "no pinned pool offered: %s", error->message);
    g_clear_error (&error);
    return TRUE;
  }
  GstAllocationParams params;
  gst_allocation_params_init (&params);
  gst_query_add_allocation_param (query, allocator, &params);
  if (need_pool) {
    /* no minimum: the pool grows to what the queues hold, and stays */
    GstBufferPool *pool = gst_vmafhip_pinned_pool_new (allocator, caps,
        (guint) GST_VIDEO_INFO_SIZE (&info), 0, 0);
    if (pool) {
      gst_query_add_allocation_pool (query, pool,
          (guint) GST_VIDEO_INFO_SIZE (&info), 0, 0);
      gst_object_unref (pool);
    }
  }
  GST_DEBUG_OBJECT (pad, "offered pinned host memory%s for %" GST_PTR_FORMAT,
      need_pool ? " and a pool" : "", caps);
  gst_object_unref (allocator);
  return TRUE;
}

static gboolean
gst_vmafhip_src_query (GstAggregator * agg, GstQuery * query)
{
  GstVmafHip *self = GST_VMAFHIP (agg);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CAPS) {
    GstCaps *filter, *caps;

    gst_query_parse_caps (query, &filter);
    GST_OBJECT_LOCK (self);
    caps = self->ref_caps ? gst_caps_ref (self->ref_caps) : NULL;
    GST_OBJECT_UNLOCK (self);
    if (!caps)
      caps = gst_pad_get_pad_template_caps (GST_AGGREGATOR_SRC_PAD (agg));
    if (filter) {
      GstCaps *tmp = gst_caps_intersect_full (filter, caps,
          GST_CAPS_INTERSECT_FIRST);
      gst_caps_unref (caps);
      caps = tmp;
    }
    gst_query_set_caps_result (query, caps);
    gst_caps_unref (caps);
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

static gboolean
gst_vmafhip_src_event (GstAggregator * agg, GstEvent * event)
{
  /* Never pass QoS upstream: a decoder dropping late frames on one branch
   * would leave frames without a partner. Every frame is measured. */
  if (GST_EVENT_TYPE (event) == GST_EVENT_QOS) {
    gst_event_unref (event);
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->src_event (agg, event);
}

static GstFlowReturn
gst_vmafhip_update_src_caps (GstAggregator * agg, GstCaps * downstream,
    GstCaps ** ret)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  GstCaps *caps;

  GST_OBJECT_LOCK (self);
  caps = self->ref_caps ? gst_caps_ref (self->ref_caps) : NULL;
  GST_OBJECT_UNLOCK (self);
  if (!caps)
    return GST_AGGREGATOR_FLOW_NEED_DATA;
  if (!gst_caps_can_intersect (caps, downstream)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the reference video (%" GST_PTR_FORMAT
            "), which vmafhip outputs unchanged.", caps),
        ("downstream caps: %" GST_PTR_FORMAT, downstream));
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  *ret = caps;
  return GST_FLOW_OK;
}

/* ------------------------------------------------------------- scoring */

static GstClockTime
buffer_running_time (GstAggregatorPad * pad, GstBuffer * buf)
{
  GstClockTime rt = GST_CLOCK_TIME_NONE;

  if (!GST_BUFFER_PTS_IS_VALID (buf))
    return rt;
  GST_OBJECT_LOCK (pad);
  if (pad->segment.format == GST_FORMAT_TIME)
    rt = gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));
  GST_OBJECT_UNLOCK (pad);
  return rt;
}

/* Frames outside the segment are not part of the stream: an accurate seek
 * makes parsers such as rawvideoparse push from the previous keyframe or
 * the file start and leave the clipping downstream. Both inputs are
 * clipped alike, so the pairing stays aligned. */
static GstBuffer *
gst_vmafhip_clip (GstAggregator * agg, GstAggregatorPad * pad,
    GstBuffer * buf)
{
  GstClockTime start = GST_BUFFER_PTS (buf), stop;
  gboolean inside = TRUE;

  if (!GST_CLOCK_TIME_IS_VALID (start))
    return buf;
  stop = GST_BUFFER_DURATION_IS_VALID (buf)
      ? start + GST_BUFFER_DURATION (buf) : GST_CLOCK_TIME_NONE;
  GST_OBJECT_LOCK (pad);
  if (pad->segment.format == GST_FORMAT_TIME)
    inside = gst_segment_clip (&pad->segment, GST_FORMAT_TIME, start, stop,
        NULL, NULL);
  GST_OBJECT_UNLOCK (pad);
  if (inside)
    return buf;
  GST_LOG_OBJECT (agg, "%s: dropping %" GST_TIME_FORMAT ", outside the "
      "segment", GST_PAD_NAME (pad), GST_TIME_ARGS (start));
  gst_buffer_unref (buf);
  return NULL;
}

/* Live mode: the aggregator waits until the earliest queued frame's
 * running time plus the latency, then calls aggregate with timeout. */
static GstClockTime
gst_vmafhip_get_next_time (GstAggregator * agg)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  GstClockTime next = GST_CLOCK_TIME_NONE;

  for (int i = 0; i < 2; i++) {
    GstBuffer *buf = gst_aggregator_pad_peek_buffer (self->side[i].pad);
    if (buf) {
      GstClockTime rt = buffer_running_time (self->side[i].pad, buf);
      if (GST_CLOCK_TIME_IS_VALID (rt)
          && (!GST_CLOCK_TIME_IS_VALID (next) || rt < next))
        next = rt;
      gst_buffer_unref (buf);
    }
  }
  return next;
}

/* First sample of component c. GStreamer 1.22 gives P010's V a byte offset
 * of 1 within the shared UV plane, but its samples are 16-bit words and V
 * starts at byte 2 (as videoconvert writes it): round up to a whole sample
 * (a no-op where the offset is already right). */
static const guint8 *
comp_data (const GstVideoFrame * frame, guint c, guint bytes)
{
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const guint offset = GST_ROUND_UP_N (GST_VIDEO_FORMAT_INFO_POFFSET (finfo,
          c), bytes);

  return (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (frame,
      GST_VIDEO_FORMAT_INFO_PLANE (finfo, c)) + offset;
}

/* Describes one mapped frame to the engine: plane views, no copies (except
 * the shift of MSB-aligned formats such as P010). */
static void
fill_picture (GstVmafHip * self, int which, GstVideoFrame * frame,
    VhPicture * pic)
{
  Side *side = &self->side[which];
  const GstVideoFormatInfo *finfo = frame->info.finfo;
  const unsigned bpc = GST_VIDEO_FORMAT_INFO_DEPTH (finfo, 0);
  const unsigned bytes = bpc > 8 ? 2 : 1;

  memset (pic, 0, sizeof *pic);
  pic->bpc = bpc;
  pic->nplanes = self->luma_only ? 1 : 3;
  for (unsigned c = 0; c < pic->nplanes; c++) {
    VhPlane *pl = &pic->plane[c];
    const unsigned shift = GST_VIDEO_FORMAT_INFO_SHIFT (finfo, c);

    pl->data = comp_data (frame, c, bytes);
    pl->stride = GST_VIDEO_FRAME_COMP_STRIDE (frame, c);
    pl->width = GST_VIDEO_FRAME_COMP_WIDTH (frame, c);
    pl->height = GST_VIDEO_FRAME_COMP_HEIGHT (frame, c);
    pl->step = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, c) / bytes;
    if (shift && side->staging[c]) {
      guint16 *dst = side->staging[c];
      for (unsigned y = 0; y < pl->height; y++) {
        const guint16 *src = (const guint16 *) ((const guint8 *) pl->data
            + (gsize) y * pl->stride);
        for (unsigned x = 0; x < pl->width; x++)
          dst[(gsize) y * pl->width + x] =
              GUINT16_FROM_LE (src[(gsize) x * pl->step]) >> shift;
      }
      pl->data = dst;
      pl->stride = (ptrdiff_t) pl->width * 2;
      pl->step = 1;
    }
    GST_LOG_OBJECT (self, "%s plane %u: %ux%u stride %td step %u",
        which == REF ? "ref" : "dist", c, pl->width, pl->height, pl->stride,
        pl->step);
  }
}

/* Decides, once per engine, which table metrics are reported. */
static MetricKind
metric_kind (GstVmafHip * self, unsigned metric)
{
  static const char *const ci_suffixes[] =
      { "_bagging", "_stddev", "_ci_p95_lo", "_ci_p95_hi" };
  const VhScoreTable *t = vh_engine_scores (self->engine);

  while (self->metric_kind->len <= metric) {
    const unsigned m = self->metric_kind->len;
    const char *name = vh_score_table_metric_name (t, m);
    guint8 kind = METRIC_FEATURE;

    for (guint i = 0; i < self->specs->len && kind == METRIC_FEATURE; i++) {
      const ModelSpec *spec = g_ptr_array_index (self->specs, i);
      const size_t len = strlen (spec->report_name);

      if (!strcmp (name, spec->report_name)) {
        kind = METRIC_MODEL;
      } else if (spec->bootstrap && !strncmp (name, spec->report_name, len)) {
        const char *sfx = name + len;
        for (gsize k = 0; k < G_N_ELEMENTS (ci_suffixes); k++)
          if (!strcmp (sfx, ci_suffixes[k]))
            kind = METRIC_BOOTSTRAP;
        /* bootstrap members: _0001 ... */
        if (sfx[0] == '_' && strlen (sfx) == 5 && g_ascii_isdigit (sfx[1])
            && g_ascii_isdigit (sfx[2]) && g_ascii_isdigit (sfx[3])
            && g_ascii_isdigit (sfx[4]))
          kind = METRIC_BOOTSTRAP;
      }
    }
    g_array_append_val (self->metric_kind, kind);
  }
  return g_array_index (self->metric_kind, guint8, metric);
}

static gboolean
metric_reported (GstVmafHip * self, unsigned metric)
{
  return metric_kind (self, metric) != METRIC_BOOTSTRAP
      || self->cfg.conf_interval;
}

static const char *
first_model_name (GstVmafHip * self)
{
  return ((ModelSpec *) g_ptr_array_index (self->specs, 0))->report_name;
}

/* Sets "score", every reported metric, and upstream's "psnr-y". */
static void
add_frame_scores (GstVmafHip * self, GstStructure * s, unsigned frame)
{
  const VhScoreTable *t = vh_engine_scores (self->engine);
  const unsigned n = vh_score_table_n_metrics (t);
  int first = vh_score_table_find (t, first_model_name (self));
  double v;

  if (first >= 0 && vh_score_table_get (t, (unsigned) first, frame, &v))
    gst_structure_set (s, "score", G_TYPE_DOUBLE, v, NULL);
  for (unsigned m = 0; m < n; m++) {
    if (metric_reported (self, m) && vh_score_table_get (t, m, frame, &v))
      gst_structure_set (s, vh_score_table_metric_name (t, m), G_TYPE_DOUBLE,
          v, NULL);
  }
  if (self->cfg.psnr && gst_structure_get_double (s, "psnr_y", &v))
    gst_structure_set (s, "psnr-y", G_TYPE_DOUBLE, v, NULL);
}

static gboolean
copy_field (GQuark field, const GValue * value, gpointer user_data)
{
  gst_structure_id_set_value (user_data, field, value);
  return TRUE;
}

/* Pushes one reference buffer with its meta (and posts its message). */
static GstFlowReturn
output_frame (GstVmafHip * self, PendingFrame * pf)
{
  GstBuffer *buf = gst_buffer_make_writable (pf->buffer);
  GstStructure *scores = NULL;
  const gint index = pf->index;

  pf->buffer = NULL;
  if (index >= 0) {
    scores = gst_structure_new_empty (GST_VMAFHIP_META_SCORES_NAME);
    add_frame_scores (self, scores, (unsigned) index);
    if (!GST_CLOCK_TIME_IS_VALID (self->first_pts)) {
      self->first_pts = pf->pts;
      self->first_running_time = pf->running_time;
      self->first_stream_time = pf->stream_time;
    }
    if (GST_CLOCK_TIME_IS_VALID (pf->pts))
      self->end_pts = pf->pts + (GST_CLOCK_TIME_IS_VALID (pf->duration)
          ? pf->duration : 0);

    if (self->cfg.frame_message && index % self->cfg.subsample == 0) {
      GstStructure *s = gst_structure_new ("VMAF",
          "timestamp", G_TYPE_UINT64, pf->pts,
          "stream-time", G_TYPE_UINT64, pf->stream_time,
          "running-time", G_TYPE_UINT64, pf->running_time,
          "duration", G_TYPE_UINT64, pf->duration,
          "index", G_TYPE_INT, index,
          "type", G_TYPE_STRING, "frame", NULL);
      gst_structure_foreach (scores, copy_field, s);
      gst_element_post_message (GST_ELEMENT (self),
          gst_message_new_element (GST_OBJECT (self), s));
    }
  }
  gst_buffer_add_vmafhip_meta (buf, index, scores);
  g_free (pf);
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), buf);
}

/* Pushes, in order, every held frame whose scores are final. */
static GstFlowReturn
emit_ready (GstVmafHip * self)
{
  const unsigned n_final = self->engine ? vh_engine_n_final (self->engine) : 0;
  PendingFrame *pf;

  while ((pf = g_queue_peek_head (&self->pending))) {
    GstFlowReturn ret;

    if (pf->index >= 0 && (unsigned) pf->index >= n_final)
      break;
    g_queue_pop_head (&self->pending);
    ret = output_frame (self, pf);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  return GST_FLOW_OK;
}

static void
queue_frame (GstVmafHip * self, GstBuffer * ref, gint index)
{
  GstAggregatorPad *pad = self->side[REF].pad;
  PendingFrame *pf = g_new0 (PendingFrame, 1);

  pf->buffer = ref;
  pf->index = index;
  pf->pts = GST_BUFFER_PTS (ref);
  pf->duration = GST_BUFFER_DURATION (ref);
  if (!GST_CLOCK_TIME_IS_VALID (pf->duration))
    pf->duration = self->frame_duration;
  pf->running_time = pf->stream_time = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (pf->pts)) {
    GST_OBJECT_LOCK (pad);
    if (pad->segment.format == GST_FORMAT_TIME) {
      pf->running_time = gst_segment_to_running_time (&pad->segment,
          GST_FORMAT_TIME, pf->pts);
      pf->stream_time = gst_segment_to_stream_time (&pad->segment,
          GST_FORMAT_TIME, pf->pts);
    }
    GST_OBJECT_UNLOCK (pad);
  }
  g_queue_push_tail (&self->pending, pf);
}

/* Counts a frame that has no partner; the first one also warns. */
static void
count_unpaired (GstVmafHip * self, int which, GstBuffer * buf,
    const char *why)
{
  GST_OBJECT_LOCK (self);
  if (which == REF)
    self->unpaired_ref++;
  else
    self->unpaired_dist++;
  GST_OBJECT_UNLOCK (self);
  GST_DEBUG_OBJECT (self, "%s frame %" GST_TIME_FORMAT " has no partner: %s",
      which == REF ? "reference" : "distorted",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), why);
  if (!self->warned_unpaired) {
    self->warned_unpaired = TRUE;
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("Some frames have no partner on the other pad and are not scored "
            "(see the unpaired-ref-frames and unpaired-dist-frames "
            "properties and the pooled message)."), ("first: %s", why));
  }
}

/* A reference frame without a partner is pushed without scores. */
static GstFlowReturn
pass_unpaired_ref (GstVmafHip * self, GstBuffer * ref, const char *why)
{
  count_unpaired (self, REF, ref, why);
  queue_frame (self, ref, -1);
  return emit_ready (self);
}

/* A distorted frame without a partner is dropped. */
static void
drop_unpaired_dist (GstVmafHip * self, GstBuffer * dist, const char *why)
{
  count_unpaired (self, DIST, dist, why);
  gst_buffer_unref (dist);
}

/* Scores one pair; takes both buffers. */
static GstFlowReturn
score_pair (GstVmafHip * self, GstBuffer * ref, GstBuffer * dist)
{
  GstVideoFrame rf, df;
  VhPicture rp, dp;
  GError *error = NULL;
  unsigned index;
  gboolean ok;

  if (GST_BUFFER_FLAG_IS_SET (ref, GST_BUFFER_FLAG_GAP)
      || GST_BUFFER_FLAG_IS_SET (dist, GST_BUFFER_FLAG_GAP)) {
    /* a gap has no picture: this slot cannot be scored */
    if (!GST_BUFFER_FLAG_IS_SET (dist, GST_BUFFER_FLAG_GAP))
      drop_unpaired_dist (self, dist, "the reference is a gap");
    else
      gst_buffer_unref (dist);
    return pass_unpaired_ref (self, ref, "gap in one of the streams");
  }

  if (!ensure_caps_checked (self)) {
    gst_buffer_unref (ref);
    gst_buffer_unref (dist);
    return GST_FLOW_NOT_NEGOTIATED;
  }

  if (!gst_video_frame_map (&rf, &self->side[REF].info, ref, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot read a reference frame: the buffer does not match its "
            "caps."), ("%" GST_PTR_FORMAT, ref));
    gst_buffer_unref (ref);
    gst_buffer_unref (dist);
    return GST_FLOW_ERROR;
  }
  if (!gst_video_frame_map (&df, &self->side[DIST].info, dist, GST_MAP_READ)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot read a distorted frame: the buffer does not match its "
            "caps."), ("%" GST_PTR_FORMAT, dist));
    gst_video_frame_unmap (&rf);
    gst_buffer_unref (ref);
    gst_buffer_unref (dist);
    return GST_FLOW_ERROR;
  }

  fill_picture (self, REF, &rf, &rp);
  fill_picture (self, DIST, &df, &dp);
  index = vh_engine_n_pushed (self->engine);
  if (index == 0)
    self->first_push_us = g_get_monotonic_time ();
  ok = vh_engine_push (self->engine, &rp, &dp, &error);
  gst_video_frame_unmap (&rf);
  gst_video_frame_unmap (&df);
  gst_buffer_unref (dist);
  if (!ok) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot score frame %u: %s", index, error->message), (NULL));
    g_clear_error (&error);
    gst_buffer_unref (ref);
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "scored frame %u (%" GST_TIME_FORMAT ")", index,
      GST_TIME_ARGS (GST_BUFFER_PTS (ref)));
  if (!GST_CLOCK_TIME_IS_VALID (self->reported_latency)
      && GST_BUFFER_DURATION_IS_VALID (ref))
    update_latency (self, GST_BUFFER_DURATION (ref));
  queue_frame (self, ref, (gint) index);
  return emit_ready (self);
}

/* ----------------------------------------------------------------- EOS */

static VhPoolMethod
engine_pool_method (GstVmafHipPoolMethod method)
{
  switch (method) {
    case GST_VMAFHIP_POOL_MIN:
      return VH_POOL_MIN;
    case GST_VMAFHIP_POOL_MAX:
      return VH_POOL_MAX;
    case GST_VMAFHIP_POOL_HARMONIC_MEAN:
      return VH_POOL_HARMONIC_MEAN;
    case GST_VMAFHIP_POOL_MEAN:
    default:
      return VH_POOL_MEAN;
  }
}

static void
set_pooled (GstStructure * s, const char *name, const VhPooled * p,
    GstVmafHipPoolMethod method)
{
  char *field;

  gst_structure_set (s, name, G_TYPE_DOUBLE,
      vh_pooled_get (p, engine_pool_method (method)), NULL);
  field = g_strconcat (name, "-mean", NULL);
  gst_structure_set (s, field, G_TYPE_DOUBLE, p->mean, NULL);
  g_free (field);
  field = g_strconcat (name, "-harmonic-mean", NULL);
  gst_structure_set (s, field, G_TYPE_DOUBLE, p->harmonic_mean, NULL);
  g_free (field);
  field = g_strconcat (name, "-min", NULL);
  gst_structure_set (s, field, G_TYPE_DOUBLE, p->min, NULL);
  g_free (field);
  field = g_strconcat (name, "-max", NULL);
  gst_structure_set (s, field, G_TYPE_DOUBLE, p->max, NULL);
  g_free (field);
}

static void
post_pooled (GstVmafHip * self, unsigned n_frames)
{
  const VhScoreTable *t = vh_engine_scores (self->engine);
  const unsigned n = vh_score_table_n_metrics (t);
  const unsigned sub = self->cfg.subsample;
  const GstVmafHipPoolMethod method = self->cfg.pool_method;
  GstClockTime duration = GST_CLOCK_TIME_NONE;
  GstStructure *s;
  VhPooled p;
  int first;

  if (GST_CLOCK_TIME_IS_VALID (self->first_pts)
      && GST_CLOCK_TIME_IS_VALID (self->end_pts)
      && self->end_pts >= self->first_pts)
    duration = self->end_pts - self->first_pts;

  GST_OBJECT_LOCK (self);
  s = gst_structure_new ("VMAF",
      "timestamp", G_TYPE_UINT64, self->first_pts,
      "stream-time", G_TYPE_UINT64, self->first_stream_time,
      "running-time", G_TYPE_UINT64, self->first_running_time,
      "duration", G_TYPE_UINT64, duration,
      "type", G_TYPE_STRING, "pooled",
      "n-frames", G_TYPE_UINT, n_frames,
      "unpaired-ref", G_TYPE_UINT64, self->unpaired_ref,
      "unpaired-dist", G_TYPE_UINT64, self->unpaired_dist, NULL);
  GST_OBJECT_UNLOCK (self);

  first = vh_score_table_find (t, first_model_name (self));
  if (first >= 0 && vh_score_table_pool (t, (unsigned) first, 0, n_frames - 1,
          sub, &p))
    gst_structure_set (s, "score", G_TYPE_DOUBLE,
        vh_pooled_get (&p, engine_pool_method (method)), NULL);
  for (unsigned m = 0; m < n; m++) {
    const char *name = vh_score_table_metric_name (t, m);
    if (!metric_reported (self, m)
        || !vh_score_table_pool (t, m, 0, n_frames - 1, sub, &p))
      continue;
    set_pooled (s, name, &p, method);
    if (self->cfg.psnr && !strcmp (name, "psnr_y"))
      set_pooled (s, "psnr-y", &p, method);
  }
  GST_INFO_OBJECT (self, "pooled: %" GST_PTR_FORMAT, s);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* libvmaf's log of the reported metrics. */
static gboolean
write_results (GstVmafHip * self, unsigned n_frames, GError ** error)
{
  const VhScoreTable *t = vh_engine_scores (self->engine);
  const unsigned n = vh_score_table_n_metrics (t);
  VhScoreTable *out = vh_score_table_new ();
  const double secs = self->first_push_us
      ? (g_get_monotonic_time () - self->first_push_us) / 1e6 : 0.0;
  const VhLogInfo li = {
    self->engine_info.width, self->engine_info.height,
    secs > 0 ? n_frames / secs : NAN, self->cfg.subsample
  };
  gboolean ok;

  for (unsigned m = 0; m < n; m++) {
    unsigned om;
    if (!metric_reported (self, m))
      continue;
    om = vh_score_table_metric (out, vh_score_table_metric_name (t, m));
    for (unsigned f = 0; f < n_frames; f++) {
      double v;
      if (vh_score_table_get (t, m, f, &v))
        vh_score_table_set (out, om, f, v);
    }
  }
  ok = vh_log_write_file (out, self->log_format, &li,
      self->cfg.results_filename, error);
  vh_score_table_free (out);
  return ok;
}

/* The end of the measurement: whichever input ended first. */
static GstFlowReturn
finish (GstVmafHip * self)
{
  GError *error = NULL;
  GstFlowReturn ret;
  unsigned n_frames = 0;

  self->finished = TRUE;
  if (self->engine && vh_engine_n_pushed (self->engine) > 0
      && !vh_engine_flush (self->engine, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot finish the measurement: %s", error->message), (NULL));
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }
  ret = emit_ready (self);
  if (ret != GST_FLOW_OK)
    GST_INFO_OBJECT (self, "pushing the last frames: %s",
        gst_flow_get_name (ret));
  g_queue_clear_full (&self->pending, pending_frame_free);

  if (self->engine)
    n_frames = vh_engine_n_final (self->engine);
  if (n_frames == 0) {
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("No frame pair was scored: one of the inputs ended before sending "
            "a frame, so there is no pooled score%s.",
            self->write_log ? " and no results file" : ""), (NULL));
    return GST_FLOW_EOS;
  }
  GST_INFO_OBJECT (self, "end of measurement: %u frames", n_frames);
  post_pooled (self, n_frames);
  if (self->write_log && !write_results (self, n_frames, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Cannot write the results file: %s", error->message),
        ("property results-filename"));
    g_clear_error (&error);
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_EOS;
}

/* ----------------------------------------------------------- aggregate */

static GstFlowReturn
gst_vmafhip_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstVmafHip *self = GST_VMAFHIP (agg);
  GstAggregatorPad *rpad = self->side[REF].pad;
  GstAggregatorPad *dpad = self->side[DIST].pad;
  GstBuffer *ref, *dist;
  gboolean live;
  GstClockTime rt_ref, rt_dist, tolerance;

  if (self->finished)
    return GST_FLOW_EOS;

  ref = gst_aggregator_pad_peek_buffer (rpad);
  dist = gst_aggregator_pad_peek_buffer (dpad);
  if ((!ref && gst_aggregator_pad_is_eos (rpad))
      || (!dist && gst_aggregator_pad_is_eos (dpad))) {
    GST_INFO_OBJECT (self, "%s ended: end of the measurement",
        !ref && gst_aggregator_pad_is_eos (rpad) ? "ref_sink" : "dist_sink");
    gst_clear_buffer (&ref);
    gst_clear_buffer (&dist);
    return finish (self);
  }

  live = GST_CLOCK_TIME_IS_VALID (gst_aggregator_get_latency (agg));

  if (!live) {
    /* Non-live: pair in arrival order, so that every reference frame is
     * scored with exactly one distorted frame. */
    if (!ref || !dist) {
      gst_clear_buffer (&ref);
      gst_clear_buffer (&dist);
      return GST_AGGREGATOR_FLOW_NEED_DATA;
    }
    rt_ref = buffer_running_time (rpad, ref);
    rt_dist = buffer_running_time (dpad, dist);
    tolerance = GST_BUFFER_DURATION_IS_VALID (ref)
        ? GST_BUFFER_DURATION (ref) / 2 : GST_MSECOND;
    if (!self->warned_time && GST_CLOCK_TIME_IS_VALID (rt_ref)
        && GST_CLOCK_TIME_IS_VALID (rt_dist)
        && (guint64) ABS (GST_CLOCK_DIFF (rt_ref, rt_dist)) > tolerance) {
      self->warned_time = TRUE;
      GST_ELEMENT_WARNING (self, STREAM, FAILED,
          ("The reference and distorted streams are not aligned in time: "
              "reference frame at %" GST_TIME_FORMAT " is paired with "
              "distorted frame at %" GST_TIME_FORMAT ". Frames are paired in "
              "order; check that both have the same frame rate and start.",
              GST_TIME_ARGS (rt_ref), GST_TIME_ARGS (rt_dist)), (NULL));
    }
    gst_aggregator_pad_drop_buffer (rpad);
    gst_aggregator_pad_drop_buffer (dpad);
    gst_aggregator_selected_samples (agg, GST_BUFFER_PTS (ref),
        GST_BUFFER_DTS (ref), GST_BUFFER_DURATION (ref), NULL);
    return score_pair (self, ref, dist);
  }

  /* Live: pair by running time; a frame whose partner missed it is counted,
   * never paired with a stale one. */
  rt_ref = ref ? buffer_running_time (rpad, ref) : GST_CLOCK_TIME_NONE;
  rt_dist = dist ? buffer_running_time (dpad, dist) : GST_CLOCK_TIME_NONE;
  if (ref && !GST_CLOCK_TIME_IS_VALID (rt_ref)) {
    gst_aggregator_pad_drop_buffer (rpad);
    gst_clear_buffer (&dist);
    return pass_unpaired_ref (self, ref, "no timestamp in the segment");
  }
  if (dist && !GST_CLOCK_TIME_IS_VALID (rt_dist)) {
    gst_aggregator_pad_drop_buffer (dpad);
    gst_clear_buffer (&ref);
    drop_unpaired_dist (self, dist, "no timestamp in the segment");
    return GST_FLOW_OK;
  }
  tolerance = ref && GST_BUFFER_DURATION_IS_VALID (ref)
      ? GST_BUFFER_DURATION (ref) / 2
      : GST_CLOCK_TIME_IS_VALID (self->frame_duration)
      ? self->frame_duration / 2 : GST_MSECOND;

  if (ref && dist) {
    const GstClockTimeDiff diff = GST_CLOCK_DIFF (rt_ref, rt_dist);

    if ((guint64) ABS (diff) <= tolerance) {
      gst_aggregator_pad_drop_buffer (rpad);
      gst_aggregator_pad_drop_buffer (dpad);
      gst_aggregator_selected_samples (agg, GST_BUFFER_PTS (ref),
          GST_BUFFER_DTS (ref), GST_BUFFER_DURATION (ref), NULL);
      return score_pair (self, ref, dist);
    }
    if (diff < 0) {
      /* the distorted frame's reference is already gone */
      gst_aggregator_pad_drop_buffer (dpad);
      gst_buffer_unref (ref);
      drop_unpaired_dist (self, dist, "its reference frame was gone "
          "(distorted frame late)");
      return GST_FLOW_OK;
    }
    /* the distorted stream has moved past this reference frame */
    gst_aggregator_pad_drop_buffer (rpad);
    gst_buffer_unref (dist);
    return pass_unpaired_ref (self, ref, "the distorted stream has no frame "
        "at this time");
  }
  /* One side only: either the deadline passed (timeout) or the other pad
   * is inactive (ignore-inactive-pads). */
  if (ref) {
    gst_aggregator_pad_drop_buffer (rpad);
    return pass_unpaired_ref (self, ref, timeout ? "the distorted frame "
        "missed the deadline" : "the distorted pad is inactive");
  }
  if (dist) {
    gst_aggregator_pad_drop_buffer (dpad);
    drop_unpaired_dist (self, dist, timeout ? "the reference frame missed "
        "the deadline" : "the reference pad is inactive");
    return GST_FLOW_OK;
  }
  return GST_AGGREGATOR_FLOW_NEED_DATA;
}

/* ---------------------------------------------------------- class init */

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

  self->specs = g_ptr_array_new_with_free_func (model_spec_free);
  self->metric_kind = g_array_new (FALSE, FALSE, sizeof (guint8));
  g_queue_init (&self->pending);
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
   * vmaf_4k_v0.6.1neg, vmaf_b_v0.6.3) or path of a libvmaf JSON model.
   * Used when #GstVmafHip:models is not set.
   */
  g_object_class_install_property (gobject_class, PROP_MODEL_FILENAME,
      g_param_spec_string ("model-filename", "Model",
          "Built-in VMAF model name (vmaf_v0.6.1, vmaf_v0.6.1neg, "
          "vmaf_4k_v0.6.1, vmaf_4k_v0.6.1neg, vmaf_b_v0.6.3) or path of a "
          "libvmaf JSON model file; ignored when 'models' is set",
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
          "Estimate SSIM (not implemented yet: setting it fails at start)",
          FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_MS_SSIM,
      g_param_spec_boolean ("ms-ssim", "MS-SSIM",
          "Estimate MS-SSIM (not implemented yet: setting it fails at start)",
          FALSE, rw));
  g_object_class_install_property (gobject_class, PROP_POOL_METHOD,
      g_param_spec_enum ("pool-method", "Pool method",
          "Pooled value reported as each metric's value (and 'score') in "
          "the pooled message; all four are always present",
          GST_TYPE_VMAFHIP_POOL_METHOD, DEFAULT_POOL_METHOD, rw));
  g_object_class_install_property (gobject_class, PROP_THREADS,
      g_param_spec_uint ("threads", "Threads",
          "Worker threads for feature extraction (0 = one per CPU, "
          "1 = none)", 0, G_MAXINT, DEFAULT_THREADS, rw));
  g_object_class_install_property (gobject_class, PROP_SUBSAMPLE,
      g_param_spec_uint ("subsample", "Subsample",
          "Report and pool one of every N frames (frame messages and pooled "
          "values; the meta is on every buffer)", 1, 128, DEFAULT_SUBSAMPLE,
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
          "Write libvmaf's results log (per-frame and pooled scores) to "
          "this file at EOS", NULL, rw));
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
          "frame matched them in time (live mode)", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_UNPAIRED_DIST,
      g_param_spec_uint64 ("unpaired-dist-frames",
          "Unpaired distorted frames",
          "Distorted frames dropped because their reference frame was gone "
          "(live mode)", 0, G_MAXUINT64, 0, ro));

  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &ref_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &dist_template, GST_TYPE_AGGREGATOR_PAD);

  gst_element_class_set_static_metadata (element_class, "vmafhip",
      "Filter/Analyzer/Video",
      "VMAF video quality of a distorted video against its reference, "
      "bit-exact with libvmaf 3.2.0 (frame scores as messages and meta)",
      "vmafhip developers");

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

  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_POOL_METHOD, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_RESULTS_FORMAT, 0);
  gst_type_mark_as_plugin_api (GST_TYPE_VMAFHIP_BACKEND, 0);
}
