/* vmafhip — a compressed or container input (mp4, mkv, ts, ...) decoded by
 * GStreamer for vmafhip-score: `uridecodebin ! videoconvert ! appsink`,
 * the frames in one of the raw layouts the CLI reads (tools/vh-rawvideo.h;
 * 8, 10 or 12 bits as decoded, 4:2:0, 4:2:2, 4:4:4 or gray), packed. */
#ifndef VH_DECODE_H
#define VH_DECODE_H

#include <glib.h>

#include "vh-rawvideo.h"

G_BEGIN_DECLS

typedef struct VhDecoder VhDecoder;

/* Whether this build decodes with GStreamer (vmafhip-score's any input) */
gboolean vh_decoder_available (void);
/* Opens `path` and decodes up to its first frame: NULL (error set: what
 * GStreamer said, and what the CLI reads without it) where it cannot. */
VhDecoder *vh_decoder_open (const char *path, GError **error);
const VhRawFormat *vh_decoder_format (const VhDecoder *d);
unsigned vh_decoder_width (const VhDecoder *d);
unsigned vh_decoder_height (const VhDecoder *d);
/* The next frame into buf (vh_raw_frame_size bytes, packed): 1, 0 at the
 * end, -1 on a decoding error (error set). */
int vh_decoder_read (VhDecoder *d, guint8 *buf, GError **error);
void vh_decoder_close (VhDecoder *d);

G_END_DECLS
#endif /* VH_DECODE_H */
