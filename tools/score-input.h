/* vmafhip-score's inputs: a y4m file, a raw file or any file GStreamer
 * decodes, opened and checked before any frame is read, then read ahead
 * by threads of their own into the buffers the engine reads
 * (vh-frame-reader.h). */
#ifndef VH_SCORE_INPUT_H
#define VH_SCORE_INPUT_H

#include <stdio.h>
#include <glib.h>

#include "scale.h"
#include "score-options.h"
#include "vh-decode.h"
#include "vh-frame-reader.h"
#include "vh-gpu.h"
#include "vh-picture.h"
#include "vh-rawvideo.h"
#include "vh-y4m.h"

typedef struct {
  const char *path;
  VhY4m *y4m;
  FILE *raw;
  VhDecoder *decoder;           /* any other file, decoded by GStreamer */
  const VhRawFormat *format;
  VhRawChroma chroma;           /* a raw file's odd-size chroma layout */
  unsigned width, height;
  VhFrameReader *reader;
  guint64 raw_first;            /* a raw file's frames skipped by offset */
} ScoreInput;

/* Opens an input and reads its header; no frame is read.  A raw file is
 * width x height (the distorted one may have its own size). */
gboolean score_input_open (ScoreInput *in, const char *path,
    const ScoreOptions *o, int width, int height, GError **error);
/* Skips its next n frames, before score_input_start: a raw file by its
 * offset, a y4m file by seeking past each frame, a decoded one by decoding
 * them.  1 done, 0 the input has fewer frames (as many as it had are
 * skipped), -1 an error. */
int score_input_skip (ScoreInput *in, guint64 n, GError **error);
/* The whole frames left to read (before score_input_start): a raw file's
 * from its size, a y4m file's by seeking over them (the position kept).
 * 1 with *n set (*cut: part of a frame follows them, whose reading fails),
 * 0 where only decoding the whole file would tell, -1 an error. */
int score_input_count (ScoreInput *in, guint64 *n, gboolean *cut,
    GError **error);
/* Its reader, started: n_slots buffers, pinned host memory of `gpu` where
 * the GPU scores (NULL: the heap). */
gboolean score_input_start (ScoreInput *in, VhGpu *gpu, unsigned n_slots,
    GError **error);
/* The next frame as a picture: 1, 0 at the end, -1 on error.  held: the
 * caller releases it once its frame is final (the GPU reads it in place
 * until then). */
int score_input_next (ScoreInput *in, VhPicture *pic, gboolean held,
    GError **error);
/* The input's frames before its n-th read one are done with */
void score_input_release (ScoreInput *in, guint64 n);
void score_input_close (ScoreInput *in);

/* The chroma layout a raw format stores, as the y4m and -p names go
 * ("4:2:0", "mono"). */
const char *score_chroma_layout (const VhRawFormat *f);
/* libvmaf's -p values as chroma layouts; NULL for any other. */
const char *score_pixel_format_layout (const char *pixel_format);
/* The filter a smaller distorted video is scaled up with; FALSE: an
 * unknown name, or a distorted video larger than the reference. */
gboolean score_upscale_filter (const ScoreInput *ref, const ScoreInput *dis,
    const char *scaler_name, VhScaleFilter *filter, GError **error);

#endif /* VH_SCORE_INPUT_H */
