/* vmafhip — dist_sink's output: the reference buffers pushed downstream,
 * in order, each with the scores of dist_sink's frame scored against it
 * (its meta; the frame message and record made by its scored stream,
 * gstvmafhip-stream.c), and how dist_sink's measurement ends (a segment,
 * EOS, a stop).  Called by the pairing (gstvmafhip-pairing.c). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <math.h>
#include <string.h>

#include "gstvmafhipmeta.h"

#include "gstvmafhip-private.h"
#include "gstvmafhip-record.h"
#include "vh-accel.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug

void
gst_vmafhip_pending_frame_free (gpointer p)
{
  PendingFrame *pf = p;

  gst_buffer_unref (pf->buffer);
  gst_clear_buffer (&pf->held_dist);
  g_free (pf);
}


/* Pushes one reference buffer; dist_sink's frame scored with it goes out
 * with it (its scores in the buffer's meta, its message, its record). */
static GstFlowReturn
output_frame (GstVmafHip * self, PendingFrame * pf)
{
  GstBuffer *buf = gst_buffer_make_writable (pf->buffer);
  GstVmafHipStream *stream = &self->dist_stream;
  const gboolean reported = pf->index >= 0 && !pf->stand_in;
  GstVmafHipMeta *meta = gst_buffer_add_vmafhip_meta (buf, reported
      ? (gint) gst_vmafhip_record_number (&stream->record) : -1);

  pf->buffer = NULL;
  /* the scores go straight into the meta's structure; the message copies
   * them from there */
  if (pf->index >= 0)
    gst_vmafhip_stream_report (self, stream, (guint) pf->index + 1,
        reported && meta ? gst_custom_meta_get_structure (meta) : NULL);
  gst_clear_buffer (&pf->held_dist);
  g_free (pf);
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), buf);
}

/* Pushes, in order, every held frame whose scores are final. */
GstFlowReturn
gst_vmafhip_emit_ready (GstVmafHip * self)
{
  const unsigned n_final = self->dist_stream.engine ? vh_engine_n_final (self->dist_stream.engine) : 0;
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
  /* a results file failed with write-failure=error (posted): the run ends */
  if (g_atomic_int_get (&self->results_write_failed))
    return GST_FLOW_ERROR;
  return GST_FLOW_OK;
}

/* ----------------------------------------------------------------- EOS */

/* Every way a measurement ends (EOS, a stop without EOS, a flushing seek)
 * ends here: dist_sink's frames already paired are scored (or counted as
 * dropped, with the reason, where the engine cannot finish them) and
 * reported whether or not their buffers went out, the pooled message says
 * how it ended (`end`), and the results file is finished with its pooled
 * section.  Returns the frames scored. */
guint
gst_vmafhip_report_conclude (GstVmafHip * self, const char *end)
{
  guint64 unpaired_ref;

  self->finished = TRUE;
  GST_OBJECT_LOCK (self);
  unpaired_ref = self->unpaired_ref;
  GST_OBJECT_UNLOCK (self);
  return gst_vmafhip_stream_conclude (self, &self->dist_stream, end,
      (gint64) unpaired_ref);
}

gboolean
gst_vmafhip_report_end_segment (GstVmafHip * self, int which,
    const GstVideoInfo * info)
{
  GstVmafHipStream *stream = &self->dist_stream;
  GError *error = NULL;
  GstFlowReturn ret;

  if (!stream->engine || vh_engine_n_pushed (stream->engine) == 0)
    return TRUE;
  if (!vh_engine_flush (stream->engine, &error)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED,
        ("Cannot finish the frames scored before the video changed: %s",
            error->message), (NULL));
    g_clear_error (&error);
    return FALSE;
  }
  /* out with the caps they came with */
  ret = gst_vmafhip_emit_ready (self);
  if (ret != GST_FLOW_OK)
    GST_INFO_OBJECT (self, "pushing the segment's last frames: %s",
        gst_flow_get_name (ret));
  /* frames downstream did not take are reported all the same (by
   * end_segment), their buffers dropped: the next engine numbers its
   * frames from 0 again */
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  gst_vmafhip_stream_end_segment (self, stream, side_name (which),
      &self->side[which].info, info);
  self->engine_sized = FALSE;
  return TRUE;
}


GstFlowReturn
gst_vmafhip_report_finish (GstVmafHip * self)
{
  GstFlowReturn ret;
  gboolean failed = FALSE;

  /* every frame scored, then pushed downstream where it can go */
  if (self->dist_stream.engine
      && vh_engine_n_pushed (self->dist_stream.engine) > 0) {
    GError *error = NULL;
    if (vh_engine_flush (self->dist_stream.engine, &error)) {
      ret = gst_vmafhip_emit_ready (self);
      if (ret != GST_FLOW_OK)
        GST_INFO_OBJECT (self, "pushing the last frames: %s",
            gst_flow_get_name (ret));
    } else {
      /* the run fails; conclude still reports what was scored */
      GST_ELEMENT_ERROR (self, STREAM, FAILED,
          ("Cannot finish the measurement: %s", error->message), (NULL));
      g_clear_error (&error);
      failed = TRUE;
    }
  }
  if (gst_vmafhip_report_conclude (self, "eos") == 0 && !failed) {
    g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
    GST_ELEMENT_WARNING (self, STREAM, FAILED,
        ("No frame pair was scored: one of the inputs ended before sending "
            "a frame, so there is no pooled score%s.",
            self->write_log ? " and no results file" : ""), (NULL));
    return GST_FLOW_EOS;
  }
  g_queue_clear_full (&self->pending, gst_vmafhip_pending_frame_free);
  if (failed || g_atomic_int_get (&self->results_write_failed))
    return GST_FLOW_ERROR;
  return GST_FLOW_EOS;
}
