/* vmafhip — the element's backend choice, caps checks and engine set-up. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "vh-backend.h"

#include "gstvmafhip-private.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

void
gst_vmafhip_side_clear (Side * side)
{
  for (int c = 0; c < 3; c++)
    g_clear_pointer (&side->staging[c], g_free);
  side->have_info = side->refused = FALSE;
}

void
gst_vmafhip_side_set_info (Side * side, const GstVideoInfo * info)
{
  gst_vmafhip_side_clear (side);
  side->info = *info;
  side->have_info = TRUE;
  for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS (info) && c < 3; c++)
    if (GST_VIDEO_FORMAT_INFO_SHIFT (info->finfo, c))
      side->staging[c] = g_new (guint16,
          (gsize) GST_VIDEO_INFO_COMP_WIDTH (info, c) *
          GST_VIDEO_INFO_COMP_HEIGHT (info, c));
}

void
gst_vmafhip_side_follow (Side * side, const GstVideoInfo * info)
{
  if (!side->have_info || !gst_video_info_is_equal (&side->info, info))
    gst_vmafhip_side_set_info (side, info);
}

/* ------------------------------------------------------ start and stop */

static void
set_active_backend (GstVmafHip * self, const gchar * description)
{
  GST_OBJECT_LOCK (self);
  g_free (self->active_backend);
  self->active_backend = g_strdup (description);
  GST_OBJECT_UNLOCK (self);
  g_object_notify (G_OBJECT (self), "active-backend");
}

/* The engine's rule (vh_backend_choose): backend=hip needs a working GPU;
 * auto takes one if it works, else the CPU with a warning. The choice is
 * posted as an INFO message and kept in the read-only active-backend
 * property. */
gboolean
gst_vmafhip_choose_backend (GstVmafHip * self)
{
  static const VhBackendKind kinds[] = {
    [GST_VMAFHIP_BACKEND_AUTO] = VH_BACKEND_AUTO,
    [GST_VMAFHIP_BACKEND_CPU] = VH_BACKEND_CPU,
    [GST_VMAFHIP_BACKEND_HIP] = VH_BACKEND_HIP,
  };
  GError *error = NULL;
  gint device_id = self->cfg.device_id;

  self->use_gpu = FALSE;
  g_clear_pointer (&self->backend, vh_backend_choice_unref);
  /* auto, with a CUDA context shared with upstream already: its device
   * (the frames decoded there are read in place) */
  if (device_id == VH_DEVICE_AUTO && gst_vmafhip_cuda_device (self) >= 0) {
    device_id = gst_vmafhip_cuda_device (self);
    GST_INFO_OBJECT (self, "device-id=-1: the device of the CUDA context "
        "shared with upstream, %d", device_id);
  }
  self->backend = vh_backend_choose (kinds[self->cfg.backend], device_id,
      &self->engine_config, &error);
  if (!self->backend) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("No usable HIP GPU for backend=hip: %s. Use backend=cpu or "
            "backend=auto.", error->message),
        ("device-id=%d requested", self->cfg.device_id));
    g_clear_error (&error);
    return FALSE;
  }
  if (vh_backend_choice_is_gpu (self->backend))
    GST_INFO_OBJECT (self, "device-id=%d: scoring on GPU %d (%s)",
        self->cfg.device_id, vh_backend_choice_device_id (self->backend),
        vh_backend_choice_description (self->backend));
  const gchar *fallback = vh_backend_choice_fallback (self->backend);
  if (fallback && !self->warned_no_gpu) {
    GST_ELEMENT_WARNING (self, RESOURCE, NOT_FOUND,
        ("No usable GPU (%s): scoring on the CPU.", fallback),
        ("backend=auto; set backend=cpu to silence this warning"));
    self->warned_no_gpu = TRUE;
  }
  self->use_gpu = vh_backend_choice_is_gpu (self->backend);
  set_active_backend (self, vh_backend_choice_description (self->backend));
  const gchar *text = vh_backend_choice_summary (self->backend);
  /* the text again as the detail: gst-launch-1.0 prints only that */
  GST_ELEMENT_INFO (self, RESOURCE, SETTINGS, ("%s", text), ("%s", text));
  return TRUE;
}


/* ---------------------------------------------------------------- caps */

static guint
video_depth (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_COMP_DEPTH (info, 0);
}

void
gst_vmafhip_update_latency (GstVmafHip * self, GstClockTime frame_duration)
{
  GstClockTime latency;

  if (!GST_CLOCK_TIME_IS_VALID (frame_duration) || frame_duration == 0)
    return;
  /* Frame i is final once frame i+lookahead arrives, and, with worker
   * threads, once the frames in flight before it are scored: that is our
   * latency. */
  /* align=offset: a frame's partner comes |offset| frames later */
  const guint frames = self->lookahead
      + (self->dist_stream.engine ? vh_engine_frames_in_flight (self->dist_stream.engine) : 0)
      + (self->cfg.align == GST_VMAFHIP_ALIGN_OFFSET
      ? (guint) ABS (self->cfg.offset) : 0)
      + (self->cfg.align == GST_VMAFHIP_ALIGN_AUTO
      ? (guint) (self->cfg.search_window / frame_duration) : 0);
  latency = frame_duration * frames;
  if (latency == self->reported_latency)
    return;
  self->reported_latency = latency;
  GST_INFO_OBJECT (self, "latency %" GST_TIME_FORMAT " (%u frame(s))",
      GST_TIME_ARGS (latency), frames);
  gst_aggregator_set_latency (GST_AGGREGATOR (self), latency, latency);
}

static gchar *
describe_video (const GstVideoInfo * info)
{
  return g_strdup_printf ("%dx%d, %u-bit %s", GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), video_depth (info),
      GST_VIDEO_INFO_NAME (info));
}

/* Both sides must have the same bit depth, and the same size unless the
 * distorted video is smaller and `scaler` scales it up. */
static gboolean
check_compatible (GstVmafHip * self)
{
  const GstVideoInfo *r = &self->side[REF].info;
  const GstVideoInfo *d = &self->side[DIST].info;
  gboolean size_differs = GST_VIDEO_INFO_WIDTH (r)
      != GST_VIDEO_INFO_WIDTH (d)
      || GST_VIDEO_INFO_HEIGHT (r) != GST_VIDEO_INFO_HEIGHT (d);
  const gboolean depth_differs = video_depth (r) != video_depth (d);
  const gboolean dist_smaller = GST_VIDEO_INFO_WIDTH (d)
      <= GST_VIDEO_INFO_WIDTH (r) && GST_VIDEO_INFO_HEIGHT (d)
      <= GST_VIDEO_INFO_HEIGHT (r);
  gboolean r_gray, d_gray, chroma_differs;

  gst_vmafhip_scale_clear (self);
  if (size_differs && !depth_differs && dist_smaller
      && self->cfg.scaler != GST_VMAFHIP_SCALER_NONE) {
    if (!gst_vmafhip_scale_configure (self))
      return FALSE;
    size_differs = FALSE;
  }
  if (size_differs || depth_differs) {
    gchar *rs = describe_video (r), *ds = describe_video (d);
    /* a smaller one: vmafhip's own scaler first (FFmpeg's, as libvmaf
     * recommends, docs/scaling.md), videoscale only as the other way */
    const gboolean own_scaler = size_differs && dist_smaller;
    GString *hint = g_string_new (NULL), *text = g_string_new (NULL);

    if (size_differs && !own_scaler)
      g_string_append_printf (hint, "videoscale method=catrom ! "
          "video/x-raw,width=%d,height=%d", GST_VIDEO_INFO_WIDTH (r),
          GST_VIDEO_INFO_HEIGHT (r));
    if (depth_differs)
      g_string_append_printf (hint, "%svideoconvert ! video/x-raw,"
          "format=%s", hint->len ? " ! " : "", GST_VIDEO_INFO_NAME (r));
    g_string_append_printf (text, "The reference (ref_sink: %s) and "
        "distorted (dist_sink: %s) videos differ in %s: VMAF compares "
        "frames of the same size and bit depth.", rs, ds,
        size_differs && depth_differs ? "size and bit depth"
        : size_differs ? "size" : "bit depth");
    if (hint->len)
      g_string_append_printf (text, " Convert the distorted video first, "
          "e.g. insert '%s' before dist_sink.", hint->str);
    if (size_differs && !dist_smaller)
      g_string_append (text, " (vmafhip scales a smaller distorted video "
          "up to the reference, never a larger one down.)");
    if (own_scaler && self->cfg.scaler != GST_VMAFHIP_SCALER_NONE)
      g_string_append (text, " vmafhip then scales it up to the "
          "reference's size with `scaler`.");
    else if (own_scaler) {
      g_string_append_printf (text, " %s vmafhip scale it up with its own "
          "scaler, FFmpeg's bicubic as libvmaf recommends: set "
          "scaler=bicubic (or lanczos, bilinear).", depth_differs
          ? "Then let" : "Let");
      if (!depth_differs)
        g_string_append_printf (text, " Or scale it before dist_sink: "
            "'videoscale method=catrom ! video/x-raw,width=%d,height=%d' "
            "(Catmull-Rom, the nearest of videoscale's methods to FFmpeg's "
            "bicubic; its default, bilinear, scores several VMAF points "
            "lower).", GST_VIDEO_INFO_WIDTH (r), GST_VIDEO_INFO_HEIGHT (r));
    }
    if (own_scaler && !gst_vmafhip_scale_plausible (d, r))
      g_string_append (text, " Its display aspect ratio is not the "
          "reference's, though: check its caps (a wrong size scores "
          "nonsense).");
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, ("%s", text->str), (NULL));
    g_string_free (hint, TRUE);
    g_string_free (text, TRUE);
    g_free (rs);
    g_free (ds);
    return FALSE;
  }

  /* Frames are paired by time; with different rates most frames would
   * have no partner, so that needs the user's say (rate-mismatch). 0/1 is
   * a variable rate: nothing to compare. */
  if (GST_VIDEO_INFO_FPS_N (r) > 0 && GST_VIDEO_INFO_FPS_N (d) > 0
      && gst_util_fraction_compare (GST_VIDEO_INFO_FPS_N (r),
          GST_VIDEO_INFO_FPS_D (r), GST_VIDEO_INFO_FPS_N (d),
          GST_VIDEO_INFO_FPS_D (d)) != 0
      && self->cfg.rate_mismatch == GST_VMAFHIP_RATE_MISMATCH_ERROR) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("The reference (ref_sink: %d/%d fps) and distorted (dist_sink: "
            "%d/%d fps) videos have different frame rates. Convert the "
            "distorted video with 'videorate ! video/x-raw,framerate=%d/%d' "
            "before dist_sink, or set rate-mismatch=follow-reference to "
            "score each reference frame against the distorted frame on "
            "screen at its time.", GST_VIDEO_INFO_FPS_N (r),
            GST_VIDEO_INFO_FPS_D (r), GST_VIDEO_INFO_FPS_N (d),
            GST_VIDEO_INFO_FPS_D (d), GST_VIDEO_INFO_FPS_N (r),
            GST_VIDEO_INFO_FPS_D (r)), (NULL));
    return FALSE;
  }

  /* Chroma is read by PSNR only; if the two layouts differ (I420 against
   * Y444, or a GRAY side) score the luma alone.  The layout is the
   * subsampling, not the planes' sizes: a smaller rendition's chroma is
   * scaled with its luma. */
  r_gray = GST_VIDEO_INFO_IS_GRAY (r);
  d_gray = GST_VIDEO_INFO_IS_GRAY (d);
  chroma_differs = r_gray != d_gray
      || (!r_gray && (GST_VIDEO_FORMAT_INFO_W_SUB (r->finfo, 1)
              != GST_VIDEO_FORMAT_INFO_W_SUB (d->finfo, 1)
              || GST_VIDEO_FORMAT_INFO_H_SUB (r->finfo, 1)
              != GST_VIDEO_FORMAT_INFO_H_SUB (d->finfo, 1)));
  if (chroma_differs && self->cfg.psnr && !self->luma_only)
    GST_ELEMENT_WARNING (self, STREAM, FORMAT,
        ("Chroma PSNR is not computed: ref_sink is %s and dist_sink is %s, "
            "which have different chroma layouts; only psnr_y is reported.",
            GST_VIDEO_INFO_NAME (r), GST_VIDEO_INFO_NAME (d)), (NULL));
  self->luma_only = r_gray || d_gray || chroma_differs;
  return TRUE;
}

/* An engine with every model and feature (dist_sink's, and each
 * rendition's); take_loaded: it takes the models start() loaded (the
 * first engine, in the streaming thread), else it loads them again */
VhEngine *
gst_vmafhip_new_engine (GstVmafHip * self, gboolean take_loaded,
    GError ** error)
{
  VhEngine *engine = vh_engine_new_unsized ();

  if (!vh_engine_set_config (engine, &self->engine_config, error)
      || !vh_engine_set_threads (engine, self->cfg.threads, error)
      /* frames the element does not report are not computed */
      || !vh_engine_set_subsample (engine, self->cfg.subsample, error))
    goto failed;
  for (guint i = 0; i < self->specs->len; i++) {
    ModelSpec *spec = g_ptr_array_index (self->specs, i);
    VhModel *model = NULL;

    if (take_loaded) {
      model = spec->model;
      spec->model = NULL;
    }
    if (!model && !(model = vh_model_spec_load (spec->spec, error)))
      goto failed;
    /* the engine owns the model from here, even on failure */
    if (!vh_engine_add_loaded_model_with_overrides (engine, model,
            spec->report_name, &spec->spec->flags, spec->spec->overrides,
            spec->spec->n_overrides, error))
      goto failed;
  }
  if (self->cfg.psnr && !vh_engine_add_feature (engine, "psnr", error))
    goto failed;
  if (self->cfg.ssim && !vh_engine_add_feature (engine, "float_ssim", error))
    goto failed;
  if (self->cfg.ms_ssim && !vh_engine_add_feature (engine, "float_ms_ssim",
          error))
    goto failed;
  for (guint i = 0; i < self->feature_specs->len; i++) {
    if (!vh_engine_add_feature_spec (engine,
            g_ptr_array_index (self->feature_specs, i), error)) {
      g_prefix_error (error, "features: ");
      goto failed;
    }
  }
  /* a feature libvmaf would drop (an extractor alike is there already):
   * the same for every engine, so posted once a start */
  gchar **warnings = vh_engine_take_warnings (engine);
  for (guint i = 0; warnings && warnings[i] && !self->warned_engine; i++) {
    GST_ELEMENT_WARNING (self, LIBRARY, SETTINGS, ("%s", warnings[i]),
        (NULL));
  }
  if (warnings)
    self->warned_engine = TRUE;
  g_strfreev (warnings);
  return engine;

failed:
  vh_engine_free (engine);
  return NULL;
}

/* dist_sink's engine, before the picture size: built at start, so that a
 * model, override or option that cannot run fails at READY->PAUSED and the
 * latency is known before any caps; built again if the size changes
 * before the first frame. */
gboolean
gst_vmafhip_build_engine (GstVmafHip * self, GError ** error)
{
  g_clear_pointer (&self->dist_stream.engine, vh_engine_free);
  self->engine_sized = FALSE;
  if (!(self->dist_stream.engine = gst_vmafhip_new_engine (self, TRUE, error)))
    return FALSE;
  if (self->cfg.threads > vh_engine_threads (self->dist_stream.engine))
    GST_ELEMENT_INFO (self, RESOURCE, SETTINGS,
        ("threads=%u is more than this machine's %u CPUs: %u worker threads",
            self->cfg.threads, vh_engine_threads (self->dist_stream.engine),
            vh_engine_threads (self->dist_stream.engine)), (NULL));
  /* the engine knows how long a frame waits (overrides included) */
  self->lookahead = vh_engine_lookahead (self->dist_stream.engine);
  self->reads_chroma = vh_engine_needs_chroma (self->dist_stream.engine);
  return TRUE;
}

/* Gives the engine the negotiated size (building it again if the size
 * changed before any frame), with the GPU backend when one was chosen. */
/* The negotiated pictures' planes (sizes only), as the engine will see
 * them: luma only where the element scores luma alone. */
static void
negotiated_layout (GstVmafHip * self, VhPicture * layout)
{
  const GstVideoInfo *r = &self->side[REF].info;
  memset (layout, 0, sizeof *layout);
  layout->bpc = GST_VIDEO_INFO_COMP_DEPTH (r, 0);
  layout->nplanes = self->luma_only ? 1 : 3;
  for (unsigned c = 0; c < layout->nplanes; c++) {
    layout->plane[c].width = GST_VIDEO_INFO_COMP_WIDTH (r, c);
    layout->plane[c].height = GST_VIDEO_INFO_COMP_HEIGHT (r, c);
    layout->plane[c].step = 1;
  }
}

static gboolean
configure_engine (GstVmafHip * self)
{
  const GstVideoInfo *r = &self->side[REF].info;
  const VhVideoInfo vi = {
    (unsigned) GST_VIDEO_INFO_WIDTH (r), (unsigned) GST_VIDEO_INFO_HEIGHT (r),
    video_depth (r)
  };
  GError *error = NULL;

  if (self->dist_stream.engine && self->engine_sized) {
    if (!memcmp (&vi, &self->engine_info, sizeof vi)) {
      /* the distorted size may have changed alone */
      if (!gst_vmafhip_scale_apply (self, &error)) {
        GST_ELEMENT_ERROR (self, STREAM, FORMAT,
            ("Cannot score the distorted video: %s", error->message),
            (NULL));
        g_clear_error (&error);
        return FALSE;
      }
      return TRUE;
    }
    if (vh_engine_n_pushed (self->dist_stream.engine) > 0) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT,
          ("The video changed from %ux%u %u-bit to %ux%u %u-bit in the "
              "middle of the stream: vmafhip scores one size per stream.",
              self->engine_info.width, self->engine_info.height,
              self->engine_info.bpc, vi.width, vi.height, vi.bpc), (NULL));
      return FALSE;
    }
  }
  if ((!self->dist_stream.engine || self->engine_sized)
      && !gst_vmafhip_build_engine (self, &error))
    goto failed;
  VhPicture layout;
  negotiated_layout (self, &layout);
  /* what the features cannot read fails now, not at the first frame */
  if (!gst_vmafhip_stream_set_video (self, &self->dist_stream, &error)
      || !vh_engine_check_layout (self->dist_stream.engine, &layout, &error))
    goto failed;
  self->engine_info = vi;
  self->engine_sized = TRUE;
  gst_vmafhip_update_latency (self, self->frame_duration);
  GST_INFO_OBJECT (self, "engine ready for %ux%u %u-bit, %u model(s)",
      vi.width, vi.height, vi.bpc, self->specs->len);
  return TRUE;

failed:
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Cannot score %ux%u %u-bit %s video: %s", vi.width, vi.height, vi.bpc,
          GST_VIDEO_INFO_NAME (r), error ? error->message : "unknown error"),
      (NULL));
  g_clear_error (&error);
  g_clear_pointer (&self->dist_stream.engine, vh_engine_free);
  self->engine_sized = FALSE;
  return FALSE;
}

/* Validates the pair of caps and sets the engine up, once both are known.
 * Called at negotiation and again before scoring after a caps change. */
gboolean
gst_vmafhip_ensure_caps_checked (GstVmafHip * self)
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

gboolean
gst_vmafhip_handle_caps (GstVmafHip * self, int which, GstCaps * caps)
{
  Side *side = &self->side[which];
  GstVideoInfo info;

  GST_DEBUG_OBJECT (self, "%s caps %" GST_PTR_FORMAT, side_name (which),
      caps);
  if (!gst_video_info_from_caps (&info, caps)) {
    self->caps_checked = self->pair_failed = FALSE;
    gst_vmafhip_side_clear (side);
    side->refused = TRUE;
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("%s: cannot parse the video caps.", side_name (which)),
        ("%" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  /* the same video again (a caps event repeated): nothing changes */
  if (side->have_info && gst_video_info_is_equal (&side->info, &info))
    return TRUE;
  /* (another video in the middle of the stream: the segments scored so
   * far were ended first, gst_vmafhip_video_changes) */
  self->caps_checked = self->pair_failed = FALSE;
  /* a refused format leaves the side without caps: its frames are not
   * scored, and the error is not repeated */
  gst_vmafhip_side_clear (side);
  side->refused = TRUE;
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

  gst_vmafhip_side_set_info (side, &info);

  if (which == REF) {
    GST_OBJECT_LOCK (self);
    gst_caps_replace (&self->ref_caps, caps);
    GST_OBJECT_UNLOCK (self);
    if (GST_VIDEO_INFO_FPS_N (&info) > 0) {
      self->frame_duration = gst_util_uint64_scale_int (GST_SECOND,
          GST_VIDEO_INFO_FPS_D (&info), GST_VIDEO_INFO_FPS_N (&info));
      gst_vmafhip_update_latency (self, self->frame_duration);
      if (!gst_vmafhip_monitor_check_rate (self, self->frame_duration))
        return FALSE;
    }
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
  } else {
    self->dist_frame_duration = GST_VIDEO_INFO_FPS_N (&info) > 0
        ? gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (&info),
        GST_VIDEO_INFO_FPS_N (&info)) : GST_CLOCK_TIME_NONE;
  }

  /* At the start, check the pair right away so a mismatch fails at
   * negotiation; after a change in the middle of the stream, wait until
   * the next pair (the other side's new caps may still be on its way). */
  if (self->side[REF].have_info && self->side[DIST].have_info
      && self->dist_stream.record.n_frames == 0
      && (!self->dist_stream.engine || vh_engine_n_pushed (self->dist_stream.engine) == 0))
    return gst_vmafhip_ensure_caps_checked (self);
  return TRUE;
}

