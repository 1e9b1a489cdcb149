/* vmafhip — the element's private state and the functions its parts share.
 *
 * The element is split along its seams, and its files call each other one
 * way, from the pads down:
 *   gstvmafhip.c (object, pads, start/stop), gstvmafhip-properties.c
 *   (property specs, get/set), gstvmafhip-settings.c (enums, settings,
 *   models), gstvmafhip-pads.c (caps, segments, queries)
 *   -> gstvmafhip-pairing.c (which frames are scored together; every
 *   pad's measurement started, segmented and ended there)
 *   -> gstvmafhip-renditions.c (the dist_sink_%u pads: their pairing and
 *   workers) and gstvmafhip-report.c (dist_sink's output: the reference
 *   buffers with their meta, dist_sink's end)
 *   -> gstvmafhip-stream.c (a scored stream, every distorted pad's: its
 *   engine, frames written out, segments, pooled message)
 *   -> gstvmafhip-record.c (a pad's numbering, pooled values, results
 *   file; the fields of messages), gstvmafhip-monitor.c (windows, alarms,
 *   intervals), gstvmafhip-align.c (align=auto's search),
 *   gstvmafhip-timeline.c (when a frame is; jumps), gstvmafhip-scale.c
 *   (scaling said).
 * Beside them: gstvmafhip-engine.c (backend choice, caps, engine set-up),
 * gstvmafhip-shared-refs.c (the reference uploaded once for the
 * renditions) and gstvmafhip-memory.c, -cuda.c, -dmabuf.c (allocation and
 * frame access), all four leaves of the pads.
 */
#ifndef __GST_VMAFHIP_PRIVATE_H__
#define __GST_VMAFHIP_PRIVATE_H__

#include <gst/video/video.h>

#include "gstvmafhip.h"
#include "vh-engine.h"
#include "vh-monitor.h"
#include "vh-spec.h"
#include "vh-backend.h"
#include "scale.h"
#include "gstvmafhip-record.h"

G_BEGIN_DECLS

GST_DEBUG_CATEGORY_EXTERN (gst_vmafhip_debug);

/* The element from a pointer the aggregator hands its vfuncs, without the
 * checked cast's call into gstvmafhip.c (files called by it use this) */
#define GST_VMAFHIP_CAST(obj) ((GstVmafHip *) (obj))

/* User settings; copied at start() so streaming never sees a half-changed
 * configuration. */
typedef struct
{
  gchar *model_filename;
  gchar *models;
  gchar *features;            /* libvmaf --feature specs, comma-separated */
  gchar *results_filename;
  gboolean disable_clip, enable_transform, phone_model;
  gboolean psnr, ssim, ms_ssim;
  gboolean conf_interval, frame_message;
  GstVmafHipPoolMethod pool_method;
  GstVmafHipResultsFormat results_format;
  GstVmafHipWriteFailure write_failure;
  GstVmafHipBackend backend;
  GstVmafHipRateMismatch rate_mismatch;
  GstVmafHipScaler scaler;
  gboolean scaler_set;        /* by the user: any smaller picture scaled,
                               * not only a plausible rendition */
  gboolean share_reference;   /* renditions: the reference's work once */
  GstVmafHipLogLevel log_level;
  guint threads, subsample;
  gint device_id;
  VhMonitorSettings monitor;  /* window, alarm-*, interval */
  GstVmafHipAlign align;
  gint offset;                /* frames the distorted stream lags by */
  guint64 search_window;      /* align=auto: ns either way */
} Settings;

/* One model to score with, resolved from model-filename or models. */
typedef struct
{
  VhModelSpec *spec;          /* source, flags, overrides (vh-spec.h) */
  gchar *report_name;         /* name in messages, meta and log */
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

typedef struct _GstVmafHipRendition GstVmafHipRendition;

/* A distorted pad's live monitoring (gstvmafhip-monitor.c) */
typedef struct
{
  GstVmafHip *self;
  GstVmafHipRecord *record;     /* the pad's: its name, its results file */
  VhMonitor *monitor;           /* NULL: no monitoring asked for */
  double *scores;               /* one per model, for a push */
  gboolean warned_time;
} GstVmafHipWatch;

/* align=auto's search for one distorted pad's lag behind the reference
 * (gstvmafhip-align.c): thumbnails per side while searching, the lag once
 * locked, the locked pairs watched for a change.  Aggregator thread. */
typedef struct
{
  GstVmafHip *self;
  Side *dist_side;              /* the distorted pad's */
  GPtrArray *thumbs[2];
  GPtrArray *spare;             /* thumbnails to reuse */
  guint taken;
  double *diff;                 /* compare_lags' scratch: 2 x n_lags */
  guint n_lags;
  gboolean locked, reported_no_lock;
  GstClockTimeDiff shift;
  /* the locked pair's thumbnail difference (running mean; < 0: none yet),
   * frames in a row far above it, and a re-check it asked for */
  double pair_diff;
  guint drop_run;
  gboolean forced;              /* a re-check under way: every frame sampled */
  gboolean after_drop;          /* that re-check follows a rise (may lose) */
  GstClockTime periodic_at;     /* when the next periodic re-check starts */
} GstVmafHipAligner;

/* rate-mismatch=follow-reference: a distorted pad's frame on screen
 * (gstvmafhip-stream.c), scored against every reference frame it is shown
 * for */
typedef struct
{
  GstBuffer *buf;
  GstClockTime rt;            /* less the pad's lag */
  GstClockTime duration;
  gboolean used;              /* scored at least once */
} GstVmafHipOnScreen;

/* A scored stream (gstvmafhip-stream.c): one distorted pad's measurement
 * against the reference, dist_sink's and each dist_sink_%u's alike: its
 * engine, the frames pushed into it and not yet reported, its record
 * (numbering, segments, pooled values, results file), its monitor and
 * its count of frames without a partner.  Used by one thread at a time:
 * the aggregator's for dist_sink, the rendition's worker for a
 * dist_sink_%u (gstvmafhip-renditions.c). */
typedef struct
{
  Side *side;                 /* its pad and caps */
  VhEngine *engine;           /* the current segment's */
  /* StreamFrame (gstvmafhip-stream.c) of the engine frames pushed and not
   * yet reported, from frames_head on: no allocation per frame */
  GArray *frames;
  guint frames_head;
  guint n_reported;           /* engine frames reported and released */
  GstVmafHipRecord record;
  GstVmafHipWatch watch;
  /* align=auto's search for its lag, and the frame on screen where it
   * follows the reference (the aggregator thread's) */
  GstVmafHipAligner align;
  GstVmafHipOnScreen on_screen;
  gint unpaired;              /* (atomic) its pad's frames without a partner */
  gint64 first_push_us;
  /* its last frame paired, where one stands in for a missing partner so
   * that motion sees every reference frame (owner's thread) */
  GstBuffer *last_frame;
} GstVmafHipStream;

/* A reference buffer waiting until dist_sink's frame is final. */
typedef struct
{
  GstBuffer *buffer;
  /* its partner, where the GPU reads both in place after push returns
   * (VhPicture.held): kept until then too; else NULL */
  GstBuffer *held_dist;
  gint index;                 /* dist_sink's engine frame; -1: not scored */
  gboolean stand_in;          /* pushed without a partner (for the
                               * reference's motion): not reported */
  GstVmafHipFrameTimes t;     /* its times and reference index */
} PendingFrame;


/* The dist_sink_%u request pads (gstvmafhip-renditions.c) */
typedef struct
{
  GMutex lock;
  GPtrArray *list;              /* GstVmafHipRendition*, under the lock */
  guint next;                   /* the next pad's number, under the lock */
  /* reference frames uploaded once for the renditions scored on the GPU
   * (each engine copies them on the device), made on first use
   * (gstvmafhip-shared-refs.c) */
  struct _GstVmafHipSharedRefs *shared_refs;
} GstVmafHipRenditions;

/* CUDA memory (gstvmafhip-cuda.c): the device's context as a
 * GstCudaContext, shared with upstream (object lock); whether there is
 * none to share; one warning each for the copies it may cost */
typedef struct
{
  GstObject *context;
  gboolean unavailable;
  gboolean warned_host, warned_copy;
} GstVmafHipCudaInput;

/* dmabuf (gstvmafhip-dmabuf.c): GPUs found (-1: not asked yet); whether
 * an import failed this stream; one warning for the mapped copy */
typedef struct
{
  gint gpu_count;
  gboolean import_failed;
  gboolean warned_copy;
} GstVmafHipDmabufInput;

struct _GstVmafHip
{
  GstAggregator parent;

  Side side[2];

  /* Object lock */
  Settings props;
  gchar *active_backend;
  guint64 unpaired_ref;
  gboolean force_live;

  /* From start() to stop(): streaming thread only */
  Settings cfg;
  /* the engine's settings, from the environment at start()
   * (vh_config_load_environment; docs/element.md, *Environment*) */
  VhConfig engine_config;
  GPtrArray *specs;           /* ModelSpec* */
  GPtrArray *feature_specs;   /* VhFeatureSpec* from `features` */
  VhLogFormat log_format;
  gboolean write_log;
  guint lookahead;            /* frames a score waits for */
  gboolean warned_no_gpu;
  gboolean use_gpu;           /* the HIP backend was chosen at start */
  /* vh_backend_choose's, start() to stop(): the engines' accelerator, the
   * pinned pool's and imports' device */
  VhBackendChoice *backend;
  gboolean reads_chroma;      /* a feature reads chroma (set with the
                               * engine's features; read by upstream's
                               * threads) */

  GstVmafHipCudaInput cuda;
  GstVmafHipDmabufInput dmabuf;

  GstCaps *ref_caps;          /* output caps (the reference's) */
  gboolean caps_checked;      /* both sides known and compatible */
  gboolean pair_failed;       /* the current pair of caps was refused */
  gboolean luma_only;
  /* dist_sink's scored stream (its engine, record, monitor, counters) */
  GstVmafHipStream dist_stream;
  gboolean engine_sized;       /* the engine has the negotiated size */
  VhVideoInfo engine_info;

  GQueue pending;             /* PendingFrame*, in output order */
  GstClockTime frame_duration;
  GstClockTime reported_latency;
  gboolean reported_short_buffering;  /* the upstream cannot wait that long */
  gboolean finished;
  gboolean warned_no_timestamps, warned_unpaired;
  /* the engine's warnings (a feature not added: an extractor alike is
   * there already) were posted; once per start, not per engine */
  gboolean warned_engine;
  gint results_write_failed;    /* (atomic) a file failed, write-failure=error */
  /* reference frames taken since the start (the next one's index) */
  guint64 n_ref_frames;
  GstClockTime dist_frame_duration;   /* from dist_sink's caps */
  /* a smaller distorted video, scaled to the reference by the engine
   * (gstvmafhip-scale.c), from the caps check on */
  gboolean rung_scaled;
  /* dist_sink_%u request pads (gstvmafhip-renditions.c) */
  GstVmafHipRenditions renditions;
};

static inline const char *
side_name (int which)
{
  return which == REF ? "ref_sink" : "dist_sink";
}

/* gstvmafhip.c */
void gst_vmafhip_reset_measurement (GstVmafHip * self);

/* gstvmafhip-properties.c: GObject's properties */
void gst_vmafhip_settings_init (Settings * props);
void gst_vmafhip_install_properties (GObjectClass * gobject_class);
void gst_vmafhip_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
void gst_vmafhip_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);

/* gstvmafhip-settings.c */
void gst_vmafhip_settings_clear (Settings * s);
void gst_vmafhip_settings_copy (Settings * dst, const Settings * src);
void gst_vmafhip_model_spec_free (gpointer spec);
gboolean gst_vmafhip_load_models (GstVmafHip * self, GError ** error);
gboolean gst_vmafhip_parse_features (GstVmafHip * self, GError ** error);
gboolean gst_vmafhip_check_results_file (const gchar * path, GError ** error);

/* gstvmafhip-engine.c */
gboolean gst_vmafhip_choose_backend (GstVmafHip * self);
/* An engine with the element's models, features, threads and subsample
 * (no size, no backend yet) */
VhEngine *gst_vmafhip_new_engine (GstVmafHip * self, gboolean take_loaded,
    GError ** error);
gboolean gst_vmafhip_build_engine (GstVmafHip * self, GError ** error);
gboolean gst_vmafhip_handle_caps (GstVmafHip * self, int which, GstCaps * caps);
gboolean gst_vmafhip_ensure_caps_checked (GstVmafHip * self);
void gst_vmafhip_update_latency (GstVmafHip * self, GstClockTime frame_duration);
void gst_vmafhip_side_clear (Side * side);
/* The side's format and, where samples are shifted (P010 and the like),
 * its conversion buffers (what it had before is freed); _follow: the same
 * unless it has that format already */
void gst_vmafhip_side_set_info (Side * side, const GstVideoInfo * info);
void gst_vmafhip_side_follow (Side * side, const GstVideoInfo * info);

/* gstvmafhip-scale.c */
VhScaleFilter gst_vmafhip_scale_filter (GstVmafHipScaler scaler);
/* At the caps check: whether dist_sink's video can be scaled (error
 * posted otherwise); then it is (rung_scaled). */
gboolean gst_vmafhip_scale_configure (GstVmafHip * self);
/* Once the engine is sized: tells it the distorted size and filter (or
 * the reference's size: no scaling). */
gboolean gst_vmafhip_scale_apply (GstVmafHip * self, GError ** error);
void gst_vmafhip_scale_clear (GstVmafHip * self);
/* Whether d looks like the reference r scaled down: the same display
 * aspect ratio (pixel-aspect-ratio applied) within 1 %, or as near as
 * whole samples allow. */
gboolean gst_vmafhip_scale_plausible (const GstVideoInfo * d,
    const GstVideoInfo * r);
/* Why the smaller picture d (a pad's) is not scaled up to the reference
 * r: not its display aspect ratio and `scaler` not set by the user (a
 * sentence to follow "PAD is not scored: ", g_free); NULL where it is
 * scaled, or is refused for another reason (not smaller, scaler=none). */
gchar *gst_vmafhip_scale_refusal (GstVmafHip * self, const GstVideoInfo * d,
    const GstVideoInfo * r);
/* Where `engine` scales pad's picture d up to r: an INFO message saying
 * so (sizes, filter, GPU or CPU). */
void gst_vmafhip_scale_announce (GstVmafHip * self, const gchar * pad,
    const VhEngine * engine, const GstVideoInfo * d, const GstVideoInfo * r);
/* Where `engine` scales the pad's picture d: its pooled message's
 * scaled-from ("WxH") and scaler (the filter's nick) fields into s. */
void gst_vmafhip_scale_add_fields (GstVmafHip * self, const VhEngine * engine,
    const GstVideoInfo * d, GstStructure * s);

/* gstvmafhip-cuda.c */
/* The pads' formats, in CUDA memory too where it is compiled in. */
#define GST_VMAFHIP_FORMATS "{ I420, YV12, NV12, Y42B, Y444, I420_10LE, " \
    "I422_10LE, Y444_10LE, P010_10LE, I420_12LE, GRAY8, GRAY16_LE }"
#define GST_VMAFHIP_SYSTEM_AND_DMABUF_CAPS \
    GST_VIDEO_CAPS_MAKE (GST_VMAFHIP_FORMATS) "; " \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:DMABuf", GST_VMAFHIP_FORMATS)
#ifdef HAVE_GST_CUDA
#define GST_VMAFHIP_CAPS \
    GST_VIDEO_CAPS_MAKE_WITH_FEATURES ("memory:CUDAMemory", \
        GST_VMAFHIP_FORMATS) "; " GST_VMAFHIP_SYSTEM_AND_DMABUF_CAPS
#else
#define GST_VMAFHIP_CAPS GST_VMAFHIP_SYSTEM_AND_DMABUF_CAPS
#endif
/* Answers CUDA context queries with the device's context; FALSE for any
 * other query. */
gboolean gst_vmafhip_cuda_query (GstVmafHip * self, GstQuery * query);
/* Takes caps; drops their CUDA memory structures when it cannot be used. */
GstCaps *gst_vmafhip_cuda_filter_caps (GstVmafHip * self, GstCaps * caps);
/* TRUE when caps are CUDA memory (then a pool in the shared context is
 * offered, if there is one). */
gboolean gst_vmafhip_cuda_propose_allocation (GstVmafHip * self,
    GstQuery * query, GstCaps * caps, guint size);
/* A buffer in CUDA memory the GPU can read is mapped as device planes into
 * frame and pic (*mapped TRUE); otherwise nothing is done and the caller
 * maps it to host memory.  FALSE (error posted) when the map fails. */
gboolean gst_vmafhip_cuda_map (GstVmafHip * self, int which, GstBuffer * buf,
    GstVideoFrame * frame, VhPicture * pic, gboolean * mapped);
/* The same for any side (a rendition's too) read by `engine` (NULL: by
 * engines that score on the GPU alone): FALSE, with nothing posted, when
 * the map fails. */
gboolean gst_vmafhip_cuda_map_side (GstVmafHip * self, Side * side,
    const VhEngine * engine, gboolean reads_chroma, GstBuffer * buf,
    GstVideoFrame * frame, VhPicture * pic, gboolean * mapped);
void gst_vmafhip_cuda_clear (GstVmafHip * self);
/* The device of the CUDA context shared with upstream, -1 without one */
gint gst_vmafhip_cuda_device (GstVmafHip * self);

/* gstvmafhip-dmabuf.c */
/* Takes caps; drops their dmabuf structures where dmabufs cannot be
 * imported now. */
GstCaps *gst_vmafhip_dmabuf_filter_caps (GstVmafHip * self, GstCaps * caps);
gboolean gst_vmafhip_caps_are_dmabuf (GstCaps * caps);
/* A frame in dmabuf memory as a picture in GPU memory (imported; TRUE), or
 * FALSE: the caller maps it (not dmabuf, or not importable: one warning per
 * stream says why). */
gboolean gst_vmafhip_dmabuf_import (GstVmafHip * self, int which,
    GstBuffer * buf, VhPicture * pic);

/* gstvmafhip-memory.c */
/* Takes caps; removes the structures with that caps feature. */
GstCaps *gst_vmafhip_caps_drop_feature (GstCaps * caps, const char *feature);
/* Whether the planes the engine reads of this side's frames are planar
 * samples with nothing to shift: what the GPU copies as they are. */
gboolean gst_vmafhip_planes_read_as_is (GstVmafHip * self, int which);
/* Whether pic (buf mapped) may be read by the GPU after push returns
 * (VhPicture.held), the caller keeping buf until the frame is final */
gboolean gst_vmafhip_can_hold (GstVmafHip * self, int which, GstBuffer * buf,
    const VhPicture * pic);
/* The same for frames of `info` read by an engine that reads chroma or not */
gboolean gst_vmafhip_info_read_as_is (GstVmafHip * self,
    const GstVideoInfo * info, gboolean reads_chroma);
void gst_vmafhip_fill_picture (GstVmafHip * self, int which,
    GstVideoFrame * frame, VhPicture * pic);
/* The same for any side (a rendition's too) */
void gst_vmafhip_fill_side_picture (GstVmafHip * self, Side * side,
    GstVideoFrame * frame, VhPicture * pic);

/* gstvmafhip-align.c: align=auto's search, one per distorted pad */
void gst_vmafhip_aligner_init (GstVmafHipAligner * a, GstVmafHip * self,
    Side * dist_side);
gboolean gst_vmafhip_aligner_searching (const GstVmafHipAligner * a);
/* The locked lag (0 while searching) */
GstClockTimeDiff gst_vmafhip_aligner_shift (const GstVmafHipAligner * a);
/* While searching: a frame of `which` side at running time rt (the pad's,
 * not shifted) into the search; the lag is locked once clear ("vmafhip-sync"
 * message).  The caller keeps the buffer. */
void gst_vmafhip_aligner_add (GstVmafHipAligner * a, int which,
    GstBuffer * buf, GstClockTime rt);
/* Once locked: a frame paired or passed (running time rt, not shifted),
 * sampled for the re-checks. */
void gst_vmafhip_aligner_observe (GstVmafHipAligner * a, int which,
    GstBuffer * buf, GstClockTime rt);
void gst_vmafhip_aligner_reset (GstVmafHipAligner * a);
/* A pad's timeline jumped: a lock is lost ("lost" message), and the lag
 * is searched again from the frames after the jump */
void gst_vmafhip_aligner_restart (GstVmafHipAligner * a);
void gst_vmafhip_aligner_clear (GstVmafHipAligner * a);

/* gstvmafhip-timeline.c: when a frame is */
/* the buffer's PTS as running time in its pad's segment (NONE without) */
GstClockTime gst_vmafhip_buffer_running_time (GstAggregatorPad * pad,
    GstBuffer * buf);
/* A frame of `pad` (running time rt) at the head of its pad: a jump in
 * that pad's timeline is said (an INFO message with align=auto, else a
 * warning naming the pad) and kept for whoever pairs the pad's frames */
void gst_vmafhip_timeline_check (GstVmafHip * self, GstAggregatorPad * pad,
    GstBuffer * buf, GstClockTime rt);
/* Whether the pad's timeline jumped since the last call */
gboolean gst_vmafhip_timeline_take_jump (GstAggregatorPad * pad);
/* The pad's timeline forgotten (a new measurement); _reset: every pad's */
void gst_vmafhip_timeline_forget (GstAggregatorPad * pad);
void gst_vmafhip_timeline_reset (GstVmafHip * self);

/* gstvmafhip-pairing.c */
GstFlowReturn gst_vmafhip_aggregate (GstAggregator * agg, gboolean timeout);
/* A reference frame's times, and its index among those taken (the next) */
GstVmafHipFrameTimes gst_vmafhip_frame_times (GstVmafHip * self,
    GstBuffer * ref);
/* The reference frame taken (with its times): queued to go out once
 * dist_sink's engine frame `index` (-1: none) is final, and handed to the
 * renditions */
PendingFrame *gst_vmafhip_queue_frame (GstVmafHip * self, GstBuffer * ref,
    gint index, const GstVmafHipFrameTimes * t);
/* EOS: every pad's last frames scored, dist_sink's pushed, every pooled
 * message and results file */
GstFlowReturn gst_vmafhip_finish (GstVmafHip * self);
/* A flushing seek or a stop without EOS: every frame paired is scored and
 * reported, every pad's pooled message posted and results file finished */
void gst_vmafhip_conclude_before_flush (GstVmafHip * self);
void gst_vmafhip_conclude_on_stop (GstVmafHip * self);
/* The video of pad `which` (ref_sink or dist_sink) changes to `info` in
 * the middle of the stream (before its side takes it): dist_sink's
 * segment ends, and the renditions' where the reference changes.  FALSE
 * (error posted) where dist_sink's frames cannot be finished. */
gboolean gst_vmafhip_video_changes (GstVmafHip * self, int which,
    const GstVideoInfo * info);
/* A reference frame taken without a partner (or while align=auto
 * searches): pushed on without scores; into the engine against a
 * stand-in where it can be, so that motion sees every reference frame */
GstFlowReturn gst_vmafhip_pass_reference (GstVmafHip * self, GstBuffer * ref);
GstBuffer *gst_vmafhip_clip (GstAggregator * agg, GstAggregatorPad * pad,
    GstBuffer * buf);
GstClockTime gst_vmafhip_get_next_time (GstAggregator * agg);

/* gstvmafhip-monitor.c */
/* At start(): checks the settings (error posted) and starts dist_sink's
 * watch if any monitoring is asked for. */
gboolean gst_vmafhip_monitor_start (GstVmafHip * self);
/* With the reference's frame duration: windows and intervals of at least
 * a frame (error posted). */
gboolean gst_vmafhip_monitor_check_rate (GstVmafHip * self,
    GstClockTime frame_duration);
/* A pad's watch: its monitor where the settings ask for one (nothing
 * otherwise), its events posted naming the record's pad, intervals into
 * the record's results file */
void gst_vmafhip_watch_start (GstVmafHip * self, GstVmafHipWatch * watch,
    GstVmafHipRecord * record);
/* A reported frame: `frame` of `engine` (its models' scores), numbered
 * `number` in the pad's stream */
void gst_vmafhip_watch_push (GstVmafHipWatch * watch, const VhEngine * engine,
    guint frame, guint number, GstClockTime running_time,
    GstClockTime duration);
void gst_vmafhip_watch_finish (GstVmafHipWatch * watch);
void gst_vmafhip_watch_reset (GstVmafHipWatch * watch);
void gst_vmafhip_watch_clear (GstVmafHipWatch * watch);

/* gstvmafhip-renditions.c: the dist_sink_%u request pads */
gboolean gst_vmafhip_is_rendition_pad (GstVmafHip * self,
    GstAggregatorPad * pad);
/* A new rendition's pad (GstAggregatorClass.create_new_pad) */
GstAggregatorPad *gst_vmafhip_rendition_new_pad (GstVmafHip * self,
    GstPadTemplate * templ, const gchar * req_name);
/* Before the pad goes: its pooled message, then it is freed */
void gst_vmafhip_rendition_release (GstVmafHip * self, GstPad * pad);
gboolean gst_vmafhip_rendition_caps (GstVmafHip * self,
    GstAggregatorPad * pad, GstCaps * caps);
void gst_vmafhip_rendition_eos (GstVmafHip * self, GstAggregatorPad * pad);
/* Before a reference frame at ref_rt is taken: every rendition's frames
 * before it taken off its pad (dropped, searched, or the one on screen;
 * with align=auto, every rendition's lag searched again where the
 * reference's timeline jumped);
 * FALSE where a rendition's pad holds none after them yet (the aggregator
 * waits for it), unless `timeout` (live, past the deadline). */
gboolean gst_vmafhip_renditions_ready (GstVmafHip * self, GstClockTime ref_rt,
    gboolean timeout, gboolean reference_jumped);
/* A reference frame taken (scored with dist_sink or not): every
 * rendition's partner of it scored */
void gst_vmafhip_renditions_score (GstVmafHip * self,
    const PendingFrame * pf);
/* The end of the measurement (`end`: "eos", "stopped", "flushing-seek"):
 * every rendition's last frames, pooled message and results file */
void gst_vmafhip_renditions_finish (GstVmafHip * self, const char *end);
/* The reference's video changed (to `ref`) in the middle of the stream:
 * every rendition ends a segment (before the reference side takes it) */
void gst_vmafhip_renditions_reference_changed (GstVmafHip * self,
    const GstVideoInfo * ref);
/* A flushing seek (after _finish) or a new start: measurements restart */
void gst_vmafhip_renditions_reset (GstVmafHip * self);
void gst_vmafhip_renditions_stop (GstVmafHip * self);
void gst_vmafhip_renditions_free (GstVmafHip * self);

/* gstvmafhip-stream.c: a scored stream (GstVmafHipStream) */
void gst_vmafhip_stream_init (GstVmafHipStream * s, GstVmafHip * self,
    Side * side, const char *pad_name);
/* A new measurement: frames, counts, record and monitor forgotten, the
 * engine reset (kept) */
void gst_vmafhip_stream_reset (GstVmafHipStream * s);
void gst_vmafhip_stream_clear (GstVmafHipStream * s);
const char *gst_vmafhip_stream_name (const GstVmafHipStream * s);
/* Following the reference: whether its frame on screen is still shown at
 * ref_rt (within `tolerance`) */
gboolean gst_vmafhip_on_screen_covers (const GstVmafHipOnScreen * os,
    GstClockTime ref_rt, GstClockTime tolerance);
/* buf (taken; its time less the lag, its duration: `duration` where it has
 * none) becomes the frame on screen; TRUE where the one it replaces was
 * never scored (skipped: count it) */
gboolean gst_vmafhip_on_screen_show (GstVmafHipOnScreen * os, GstBuffer * buf,
    GstClockTime rt, GstClockTime duration);
void gst_vmafhip_on_screen_clear (GstVmafHipOnScreen * os);
/* How far its pad lags the reference (align=offset: offset frames of the
 * reference's rate; align=auto: its locked lag; 0 otherwise): subtracted
 * from its frames' running times before pairing */
GstClockTimeDiff gst_vmafhip_stream_shift (GstVmafHip * self,
    const GstVmafHipStream * s);
/* Its engine (made by the caller, no size yet) set for the reference's
 * video and its pad's: the GPU backend where the element scores there,
 * the reference's size, its pad's picture scaled up to it where smaller
 * (announced), the record's segment described */
gboolean gst_vmafhip_stream_set_video (GstVmafHip * self, GstVmafHipStream * s,
    GError ** error);
/* One pair into its engine at `t` (its reference frame's times);
 * stand_in: the distorted picture stands in for a missing one, so that
 * motion sees every reference frame (the frame is not reported).  *index:
 * its engine frame. */
gboolean gst_vmafhip_stream_push (GstVmafHipStream * s, const VhPicture * ref,
    const VhPicture * dist, const GstVmafHipFrameTimes * t,
    gboolean stand_in, guint * index, GError ** error);
/* A frame of its pad without a partner */
void gst_vmafhip_stream_count_unpaired (GstVmafHipStream * s);
/* Its final engine frames before `upto` not reported yet, out in order:
 * scores, monitor, frame message, record and results file; then released
 * from the engine.  The last one's scores also go into `scores` (a
 * buffer's meta; NULL: none). */
void gst_vmafhip_stream_report (GstVmafHip * self, GstVmafHipStream * s,
    guint upto, GstStructure * scores);
/* Its video, or the reference's (changed_pad's), changed from old_info to
 * new_info: the frames final (flushed by the caller) are reported, the
 * segment ends (message, results-file entry), the engine goes; the next
 * frame starts a segment with an engine for the new video. */
void gst_vmafhip_stream_end_segment (GstVmafHip * self, GstVmafHipStream * s,
    const char *changed_pad, const GstVideoInfo * old_info,
    const GstVideoInfo * new_info);
/* The end of its measurement (`end`: eos, stopped, flushing-seek,
 * released, error): the frames pushed are finished (or counted as dropped,
 * with why), reported, the pooled message posted (with unpaired_ref where
 * >= 0) and the results file finished.  Returns the frames recorded. */
guint gst_vmafhip_stream_conclude (GstVmafHip * self, GstVmafHipStream * s,
    const char *end, gint64 unpaired_ref);

/* gstvmafhip-pads.c: GstAggregator's pad vfuncs */
gboolean gst_vmafhip_sink_event (GstAggregator * agg, GstAggregatorPad * pad,
    GstEvent * event);
gboolean gst_vmafhip_sink_query (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * query);
gboolean gst_vmafhip_src_query (GstAggregator * agg, GstQuery * query);
gboolean gst_vmafhip_src_event (GstAggregator * agg, GstEvent * event);
GstFlowReturn gst_vmafhip_update_src_caps (GstAggregator * agg,
    GstCaps * downstream, GstCaps ** ret);
gboolean gst_vmafhip_propose_allocation (GstAggregator * agg,
    GstAggregatorPad * pad, GstQuery * decide_query, GstQuery * query);

/* gstvmafhip-report.c: dist_sink's output and end */
void gst_vmafhip_pending_frame_free (gpointer pf);
/* Pushes, in order, every reference buffer whose dist_sink frame is final
 * (or that has none), its scores in its meta */
GstFlowReturn gst_vmafhip_emit_ready (GstVmafHip * self);
/* dist_sink's measurement ends (`end`: as the stream's conclude): every
 * frame paired scored and reported, whether its buffer went out or not,
 * the pooled message (with unpaired-ref) and the results file; the frames
 * recorded */
guint gst_vmafhip_report_conclude (GstVmafHip * self, const char *end);
/* EOS: the last frames scored and pushed, then concluded */
GstFlowReturn gst_vmafhip_report_finish (GstVmafHip * self);
/* The video changed on pad `which` (to `info`) in the middle of the
 * stream, before its side takes the new caps: dist_sink's frames scored
 * so far are finished, reported and pushed, their segment ended (its
 * message and results-file entry); the engine is freed, to be built for
 * the new caps.  FALSE (error posted) where they cannot be finished. */
gboolean gst_vmafhip_report_end_segment (GstVmafHip * self, int which,
    const GstVideoInfo * info);

G_END_DECLS
#endif /* __GST_VMAFHIP_PRIVATE_H__ */
