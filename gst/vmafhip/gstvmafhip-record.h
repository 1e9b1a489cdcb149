/* vmafhip — a distorted pad's record of what it reported: every frame of
 * the stream in one numbering, across segments (the video changed size or
 * format in the middle of the stream: each segment is scored by an engine
 * of its own, motion starting again as for a new file), the whole
 * stream's pooled scores, and its results file.  dist_sink has one, each
 * dist_sink_%u one.
 *
 * Frames are recorded in order, final, from their segment's engine; the
 * record copies the metrics the element reports on the frames the
 * subsample grid selects, writes them to the results file and keeps only
 * their running pools: memory does not grow with the stream, and the
 * pooled values are the same doubles as pooling the one engine's table
 * where there is one segment.  Used by one thread at a time (whoever
 * reports for that pad). */
#ifndef __GST_VMAFHIP_RECORD_H__
#define __GST_VMAFHIP_RECORD_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "gstvmafhip.h"
#include "vh-engine.h"
#include "vh-scores.h"

G_BEGIN_DECLS

/* When a reported frame is: its reference frame's times */
typedef struct
{
  GstClockTime pts, duration, running_time, stream_time;
  guint64 ref_index;          /* among the reference frames taken */
} GstVmafHipFrameTimes;

typedef struct
{
  gchar *pad_name;
  gchar *path;                /* results file; NULL: none */
  VhScoreTable *scores;       /* reported metrics, numbered frames; retired
                               * as soon as written: their pools stay */
  guint n_frames;             /* frames recorded: the next one's number */
  guint segment_first;        /* number of the current segment's first */
  guint n_segments;           /* segments ended before the current one */
  gchar *segment_video;       /* the current segment's video, described */
  VhLogWriter *log;           /* opened with the first frame */
  gboolean log_failed;
  guint log_width, log_height;  /* for the log's head (XML) */
  /* the first frame's times, and the end of the last one's */
  GstVmafHipFrameTimes first;
  GstClockTime end_pts;
} GstVmafHipRecord;

/* path: the results file (NULL: none), written in the element's format */
void gst_vmafhip_record_init (GstVmafHipRecord * rec, const char *pad_name,
    const char *path);
/* Frees it; an unfinished results file is closed as it is. */
void gst_vmafhip_record_clear (GstVmafHipRecord * rec);
/* A new measurement (flushing seek, restart): everything forgotten, the
 * results file (finished or not) closed; the next frame is number 0. */
void gst_vmafhip_record_reset (GstVmafHipRecord * rec);
/* The number in the stream of the next frame recorded (frames are
 * numbered 0, 1, ... in the order they are reported, across segments). */
guint gst_vmafhip_record_number (const GstVmafHipRecord * rec);
/* Before the first frame of the current segment: what its video is. */
void gst_vmafhip_record_set_video (GstVmafHipRecord * rec, const char *video,
    guint width, guint height);
/* A frame message's fields for frame `frame` of the current segment at
 * `t` (its scores are the caller's to add): structure "VMAF", type frame,
 * the pad, its number (the next recorded) and its reference frame's. */
GstStructure *gst_vmafhip_record_frame_message (const GstVmafHipRecord * rec,
    const GstVmafHipFrameTimes * t);
/* Frame `frame` of the current segment, final in `engine`, reported at
 * `t` (NULL: times unknown): into the record and the results file with the
 * reference frame it was scored against (a write failure is reported as
 * the element's write-failure says). */
void gst_vmafhip_record_frame (GstVmafHip * self, GstVmafHipRecord * rec,
    const VhEngine * engine, guint frame, const GstVmafHipFrameTimes * t);
/* The current segment, scored by `engine` (flushed, every frame
 * recorded), ends because `changed_pad`'s video changed from old_info to
 * new_info: its pooled values go to a 'vmafhip-segment' message naming
 * this record's pad, the pad that changed and both videos, and to the
 * results file; the next frame starts a new segment (described with
 * gst_vmafhip_record_set_video). */
void gst_vmafhip_record_end_segment (GstVmafHip * self,
    GstVmafHipRecord * rec, const VhEngine * engine, const char *changed_pad,
    const GstVideoInfo * old_info, const GstVideoInfo * new_info);
/* The pooled message of the whole stream (the caller adds its pad's
 * counts and posts it): the first frame's times, the span to the last
 * one's end, n-frames, how it ended (`end`), frames paired but not scored
 * (n_dropped, and why), n-segments, every metric pooled ("score" the
 * first model's). */
GstStructure *gst_vmafhip_record_pooled_message (GstVmafHip * self,
    const GstVmafHipRecord * rec, const char *end, guint n_dropped,
    const char *dropped_why);
/* The end: where there were several segments, the last one's entry
 * (scored by `engine`), then the pooled section; the file closed.  `fps`:
 * the measured rate (NaN: unknown). */
void gst_vmafhip_record_finish (GstVmafHip * self, GstVmafHipRecord * rec,
    const VhEngine * engine, double fps);

/* The metrics of messages and meta (every pad's) */
/* Whether `engine` reports metric (bootstrap details with conf-interval) */
gboolean gst_vmafhip_metric_reported (GstVmafHip * self,
    const VhEngine * engine, unsigned metric);
/* Frame `frame`'s reported metrics into s ("score" the first model's) */
void gst_vmafhip_add_frame_scores (GstVmafHip * self, const VhEngine * engine,
    GstStructure * s, unsigned frame);
/* A table's pooled values (as the pooled message has them: "score" the
 * first model's), of the metrics `engine` reports (NULL: all) */
void gst_vmafhip_add_pooled_table (GstVmafHip * self, const VhScoreTable * t,
    unsigned subsample, const VhEngine * engine, GstStructure * s);
/* A results file failed: an element error, or a warning with
 * write-failure=warn (any thread) */
void gst_vmafhip_results_failed (GstVmafHip * self, const char *pad_name,
    const GError * error);
/* "WxH FORMAT N/D" */
gchar *gst_vmafhip_describe_video (const GstVideoInfo * info);
/* "WxH FORMAT N/D against the reference's WxH FORMAT N/D" */
gchar *gst_vmafhip_describe_pair (const GstVideoInfo * dist,
    const GstVideoInfo * ref);

G_END_DECLS
#endif /* __GST_VMAFHIP_RECORD_H__ */
