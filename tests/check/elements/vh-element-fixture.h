/* vmafhip — the element tests' shared fixture: synthetic content pushed
 * through GstHarness on both sink pads, bus message helpers, and the engine
 * run directly on the same pictures for the expected scores. */
#ifndef VH_ELEMENT_FIXTURE_H
#define VH_ELEMENT_FIXTURE_H

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <json-glib/json-glib.h>

#include "vh-engine.h"
#include "vh-synth.h"

#define W 160
#define H 90
#define FPS 25
#define FRAME_DUR (GST_SECOND / FPS)

/* Seeded synthetic pairs; rendering is deterministic, so the expected
 * scores are computed on exactly what the element receives. */
typedef struct {
  VhSynth *synth;
  unsigned bpc;
  VhSynthChroma chroma;
  uint32_t seed;
} Content;

typedef struct {
  GstElement *element;
  GstHarness *ref;            /* ref_sink in, src out */
  GstHarness *dist;           /* dist_sink in */
  GstBus *bus;
  GList *seen;                /* messages taken off the bus, not checked */
  GstVideoInfo ref_info, dist_info;
  Content content;
  GstClockTime dist_offset;   /* added to the distorted timestamps */
} Fixture;

typedef struct {
  VhEngine *engine;
  const char *first_model;
  gboolean psnr, conf_interval;
  /* set before expected_run: NULL-terminated feature specs (libvmaf's
   * --feature syntax) added after the models and psnr; NULL: none */
  const char *const *features;
} Expected;

VhSynthChroma chroma_of (const GstVideoInfo * info);
void content_init (Content * c, const GstVideoInfo * info, uint32_t seed);
void content_clear (Content * c);
void video_info_init (GstVideoInfo * info, const char *format, int w, int h);
GstBuffer * make_buffer (const GstVideoInfo * info, const VhPicture * pic, guint index,
    GstClockTime pts_offset);
void apply_props (GstElement * e, const char *props);
GstElement * make_element (const char *props);
Fixture * fixture_new_with_element (GstElement * e, gboolean live);
Fixture * fixture_new (const char *props, gboolean live);
void fixture_set_caps (Fixture * f, const char *ref_format, const char *dist_format,
    uint32_t seed);
void fixture_free (Fixture * f);
void render (Fixture * f, guint i, VhPicture * ref, VhPicture * dis);
/* Frame i's distorted picture (8-bit 4:2:0, the content's size) scaled down to w x h
 * with bilinear, as an encoder's ladder makes its rungs: its planes in
 * *out, their memory returned (g_free) */
guint8 * render_rung (Fixture * f, guint i, guint w, guint h, VhPicture * out);
/* Frame i's distorted picture at info's size (bilinear from the
 * content's size, as an encoder's ladder would be made), as a buffer with
 * frame i's timestamp */
GstBuffer * rung_buffer (Fixture * f, guint i, const GstVideoInfo * info);
/* A flushing seek's flush-start and flush-stop on both pads (one seqnum) */
void push_flush (Fixture * f);
GstFlowReturn push_ref (Fixture * f, guint i);
GstFlowReturn push_dist (Fixture * f, guint i);
/* distorted frame i, as push_dist pushes it */
GstBuffer *dist_buffer (Fixture * f, guint i);
void push_pairs (Fixture * f, guint first, guint n);
void push_eos_both (Fixture * f);
void wait_eos (Fixture * f);
void drain_bus (GstBus * bus, GList ** seen);
GList * take_messages (GstBus * bus, GList ** seen, GstMessageType types);
const GstStructure * vmaf_structure (GstMessage * m);
GPtrArray * frame_messages (GList * msgs, const GstStructure ** pooled, guint * n_pooled);
/* The frame messages' structures, copied (they outlive msgs), in order;
 * the pooled messages counted */
GPtrArray * frame_message_copies (GList * msgs, guint * n_pooled);
void free_messages (GList * msgs);
gboolean text_has_all (const gchar * text, const gchar * const *needles);
void expect_message (GstBus * bus, GList ** seen, GstMessageType type,
    const gchar * const *needles);
void expected_run (Expected * x, const Content * c, const char *const *models,
    gboolean psnr, gboolean luma_only, guint first, guint n);
gboolean is_bootstrap_extra (const char *name);
void check_frame_scores (const GstStructure * s, const Expected * x, guint index);
void check_pooled (const GstStructure * s, const Expected * x, guint n_frames,
    guint subsample, const char *method);
/* Pushes a frame on each pad after a caps refusal: both must be refused
 * without a crash. */
void push_after_refusal (Fixture * f, gsize ref_size, gsize dist_size);
void check_frame_timing (const GstStructure * s, guint index, GstClockTime pts);

/* Whether a GPU the backend can use is here; _in_child asks in a child
 * process, for suite set-up (CUDA does not survive the fork Check makes
 * for every test). */
gboolean gpu_present (void);
gboolean gpu_present_in_child (void);
/* Whether both element factories exist. */
gboolean has_factories (const char *a, const char *b);

/* A fresh folder for results files (*dir) and "scores.json" in it
 * (*path); _free removes that file and the folder (which must be empty
 * then) and frees both strings. */
void results_dir_new (gchar ** dir, gchar ** path);
void results_dir_free (gchar * dir, gchar * path);
/* Waits until the element has taken the buffer queued on pad `name`. */
void wait_taken (GstElement * element, const char *name);
/* A JSON results file that parses, with n_frames frames and a pooled
 * section (each metric with its mean); its root (json_node_unref). */
JsonNode * check_results_json (const char *path, guint n_frames);

#endif /* VH_ELEMENT_FIXTURE_H */
