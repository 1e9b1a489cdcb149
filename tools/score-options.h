/* vmafhip-score's options (libvmaf's `vmaf` ones and vmafhip's extras,
 * docs/cli.md), shared by its files: the program (vmafhip-score.c), its
 * inputs (score-input.c), its chunks and their merge (score-chunk.c,
 * score-merge.c). */
#ifndef VH_SCORE_OPTIONS_H
#define VH_SCORE_OPTIONS_H

#include <stdarg.h>
#include <glib.h>

#include "vh-error.h"

typedef struct {
  char *ref_path, *dis_path, *pixel_format, *format, *synthetic;
  char *output, *log_format, *backend, *scaler, *repair, *raw_chroma;
  char *chunk;                  /* --chunk I/N (score-chunk.h) */
  int width, height, bitdepth, frame_cnt, frame_skip_ref, frame_skip_dist;
  int dis_width, dis_height;
  int subsample, threads, gpu_device, seed, strength;
  gboolean xml, json, csv, sub, quiet, version, no_prediction, merge;
  char **models, **features;
} ScoreOptions;

/* Sets an invalid-argument error from a format; FALSE, for `return` */
static inline gboolean G_GNUC_PRINTF (2, 3)
score_fail (GError **error, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  char *msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT, msg);
  g_free (msg);
  return FALSE;
}

#endif /* VH_SCORE_OPTIONS_H */
