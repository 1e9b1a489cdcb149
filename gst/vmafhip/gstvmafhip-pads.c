/* vmafhip — the element's pad queries and events: caps and segments on
 * the sink pads, allocation and latency queries, seeks, the source pad's
 * caps. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"
#include "gstvmafhippool.h"

#define GST_CAT_DEFAULT gst_vmafhip_debug
/* GstAggregator's class (vmafhip's parent, loaded with it) */
#define parent_class ((GstAggregatorClass *) g_type_class_peek \
    (GST_TYPE_AGGREGATOR))

static int
which_side (GstVmafHip * self, GstAggregatorPad * pad)
{
  return pad == self->side[REF].pad ? REF : DIST;
}

/* Another video in the middle of the stream (a resolution switch, an ad
 * splice): the frames scored so far end their segment, pushed with their
 * caps; the next pair starts a new one with an engine for the new video
 * (motion starts again, as libvmaf does for a new file).  The renditions,
 * scored against the reference, start new ones too. */
static gboolean
caps_changing (GstVmafHip * self, int which, GstCaps * caps)
{
  const Side *side = &self->side[which];
  GstVideoInfo info;

  if (!side->have_info || !gst_video_info_from_caps (&info, caps)
      || gst_video_info_is_equal (&side->info, &info))
    return TRUE;
  return gst_vmafhip_video_changes (self, which, &info);
}

gboolean
gst_vmafhip_sink_event (GstAggregator * agg, GstAggregatorPad * pad,
    GstEvent * event)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (agg);
  const int which = which_side (self, pad);

  if (gst_vmafhip_is_rendition_pad (self, pad)) {
    if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
      GstCaps *caps;
      gst_event_parse_caps (event, &caps);
      const gboolean ok = gst_vmafhip_rendition_caps (self, pad, caps);
      gst_event_unref (event);
      return ok;
    }
    /* a rung that ends early: its pooled message, the others go on */
    if (GST_EVENT_TYPE (event) == GST_EVENT_EOS)
      gst_vmafhip_rendition_eos (self, pad);
    return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, pad, event);
  }

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CAPS:{
      GstCaps *caps;
      gboolean ok;

      gst_event_parse_caps (event, &caps);
      ok = caps_changing (self, which, caps)
          && gst_vmafhip_handle_caps (self, which, caps);
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

/* Takes caps; drops the memory kinds (CUDA, dmabuf) that cannot be used
 * now: what the sink pads offer and accept. */
static GstCaps *
filter_memory_caps (GstVmafHip * self, GstCaps * caps)
{
  return gst_vmafhip_dmabuf_filter_caps (self,
      gst_vmafhip_cuda_filter_caps (self, caps));
}

/* With the GPU backend, upstream is offered a pool (and an allocator) of
 * pinned host memory: frames written there are uploaded by DMA straight
 * from the buffer, without the backend's staging copy. Upstream may ignore
 * the offer; any other memory is uploaded through that copy. On the CPU
 * there is nothing to gain: no pool, as before. */
gboolean
gst_vmafhip_propose_allocation (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * decide_query, GstQuery * query)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (agg);
  GstCaps *caps = NULL;
  gboolean need_pool = FALSE;
  GstVideoInfo info;

  (void) decide_query;
  /* we read any stride and offset through gst_video_frame_map */
  gst_query_add_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);

  /* use_gpu and gpu are set at start(), before any pad is active */
  if (!self->use_gpu)
    return TRUE;
  gst_query_parse_allocation (query, &caps, &need_pool);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return TRUE;
  if (gst_vmafhip_caps_are_dmabuf (caps))
    return TRUE;                /* upstream brings its dmabufs */
  if (gst_vmafhip_cuda_propose_allocation (self, query, caps,
          (guint) GST_VIDEO_INFO_SIZE (&info)))
    return TRUE;

  GError *error = NULL;
  GstAllocator *allocator = gst_vmafhip_pinned_allocator_new (self->backend,
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

gboolean
gst_vmafhip_sink_query (GstAggregator * agg, GstAggregatorPad * pad,
    GstQuery * query)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (agg);

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
      result = filter_memory_caps (self, result);
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
      templ = filter_memory_caps (self,
          gst_pad_get_pad_template_caps (GST_PAD (pad)));
      gst_query_set_accept_caps_result (query,
          gst_caps_is_subset (caps, templ));
      gst_caps_unref (templ);
      return TRUE;
    }
    case GST_QUERY_CONTEXT:
      if (gst_vmafhip_cuda_query (self, query))
        return TRUE;
      return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad,
          query);
    default:
      return GST_AGGREGATOR_CLASS (parent_class)->sink_query (agg, pad,
          query);
  }
}

/* A live upstream that buffers less than the upstream latency plus this
 * element's (the search window with align=auto, the offset with
 * align=offset) would lose frames while this element waits: an error that
 * says which setting needs the time.  FALSE after posting it. */
static gboolean
check_upstream_buffering (GstVmafHip * self)
{
  const GstClockTime ours = self->reported_latency;
  if (!GST_CLOCK_TIME_IS_VALID (ours) || ours == 0)
    return TRUE;
  for (int i = 0; i < 2; i++) {
    GstQuery *q = gst_query_new_latency ();
    gboolean live = FALSE;
    GstClockTime min = 0, max = GST_CLOCK_TIME_NONE;
    if (self->side[i].pad && gst_pad_peer_query (GST_PAD (self->side[i].pad),
            q))
      gst_query_parse_latency (q, &live, &min, &max);
    gst_query_unref (q);
    if (!live || !GST_CLOCK_TIME_IS_VALID (max) || max >= min + ours)
      continue;
    if (!self->reported_short_buffering) {
      gchar *why = self->cfg.align == GST_VMAFHIP_ALIGN_AUTO
          ? g_strdup_printf ("align=auto search-window=%" G_GUINT64_FORMAT
          " ns", self->cfg.search_window)
          : self->cfg.align == GST_VMAFHIP_ALIGN_OFFSET
          ? g_strdup_printf ("align=offset offset=%" G_GINT64_FORMAT
          " frames", (gint64) self->cfg.offset)
          : g_strdup ("the motion lookahead and the frames in flight");
      GST_ELEMENT_ERROR (self, CORE, CLOCK,
          ("The live upstream of %s buffers at most %" GST_TIME_FORMAT
              ", but this element waits %" GST_TIME_FORMAT " (%s) on top of "
              "its %" GST_TIME_FORMAT ": lower that setting, or give the "
              "upstream more room (a queue with a larger max-size-time)",
              side_name (i), GST_TIME_ARGS (max), GST_TIME_ARGS (ours), why,
              GST_TIME_ARGS (min)), (NULL));
      g_free (why);
      self->reported_short_buffering = TRUE;
    }
    return FALSE;
  }
  return TRUE;
}

gboolean
gst_vmafhip_src_query (GstAggregator * agg, GstQuery * query)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (agg);

  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY
      && !check_upstream_buffering (self))
    return FALSE;

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
  if (gst_vmafhip_cuda_query (self, query))
    return TRUE;
  return GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query);
}

gboolean
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

GstFlowReturn
gst_vmafhip_update_src_caps (GstAggregator * agg, GstCaps * downstream,
    GstCaps ** ret)
{
  GstVmafHip *self = GST_VMAFHIP_CAST (agg);
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
