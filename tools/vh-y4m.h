/* vmafhip — YUV4MPEG2 (.y4m) input: the header gives size and layout,
 * each frame is a FRAME line and one raw planar picture. */
#ifndef VH_Y4M_H
#define VH_Y4M_H

#include <stdio.h>
#include <glib.h>

#include "vh-rawvideo.h"

typedef struct VhY4m VhY4m;

/* Whether the file starts with the YUV4MPEG2 signature. */
gboolean vh_y4m_probe (const char *path);
/* Opens the file and reads its header; errors name the file and the part
 * of the header that is wrong or not supported. */
VhY4m *vh_y4m_open (const char *path, GError **error);
void vh_y4m_close (VhY4m *y4m);

unsigned vh_y4m_width (const VhY4m *y4m);
unsigned vh_y4m_height (const VhY4m *y4m);
/* The frames' raw layout (I420, Y42B, Y444, their 10/12-bit forms, GRAY8). */
const VhRawFormat *vh_y4m_format (const VhY4m *y4m);

/* Reads the next frame into `buf` (vh_raw_frame_size bytes): 1 read, 0 at
 * the end of the file, -1 on error (a truncated frame, a bad FRAME line). */
int vh_y4m_read_frame (VhY4m *y4m, guint8 *buf, GError **error);

/* Skips the next n frames by their FRAME lines, seeking past their data:
 * 1 done, 0 the file ended first (a frame cut short ends it), -1 an
 * error (a bad FRAME line). */
int vh_y4m_skip_frames (VhY4m *y4m, guint64 n, GError **error);
/* The whole frames from the current one to the end, by seeking over them;
 * the position is kept.  1 with *n set (*cut: a frame cut short follows
 * them, whose reading fails), -1 an error. */
int vh_y4m_count_frames (VhY4m *y4m, guint64 *n, gboolean *cut,
    GError **error);

#endif
