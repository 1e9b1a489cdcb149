/* vmafhip-score's options (libvmaf's `vmaf` ones and vmafhip's extras,
 * docs/cli.md), shared by its files: the program (vmafhip-score.c), its
 * inputs (score-input.c), its chunks and their merge (score-chunk.c,
 * score-merge.c). */
#ifndef VH_SCORE_OPTIONS_H
#define VH_SCORE_OPTIONS_H

#include <stdarg.h>
#include <glib.h>

#include "vh-error.h"
#include "vh-tool-config.h"

typedef struct {
  char *ref_path, *dis_path, *pixel_format, *format, *synthetic;
  char *output, *log_format, *backend, *scaler, *repair, *raw_chroma;
  char *chunk;                  /* --chunk I/N (score-chunk.h) */
  char *gpu;                    /* --gpu auto|N, into gpu_device */
  int width, height, bitdepth, frame_cnt, frame_skip_ref, frame_skip_dist;
  int dis_width, dis_height;
  /* gpu_device: the GPU (-1 auto), SCORE_GPU_UNSET until
   * score_options_resolve_gpu; gpu_given: by --gpu or --gpu_device */
  int subsample, threads, gpu_device, seed, strength;
  gboolean gpu_given;
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

/* Frees what option parsing allocated (every string and list) */
static inline void
score_options_clear (ScoreOptions *o)
{
  char **strings[] = { &o->ref_path, &o->dis_path, &o->pixel_format,
    &o->format, &o->raw_chroma, &o->synthetic, &o->output, &o->log_format,
    &o->backend, &o->scaler, &o->repair, &o->chunk, &o->gpu
  };
  for (size_t i = 0; i < G_N_ELEMENTS (strings); i++)
    g_clear_pointer (strings[i], g_free);
  g_clear_pointer (&o->models, g_strfreev);
  g_clear_pointer (&o->features, g_strfreev);
}

#define SCORE_GPU_UNSET G_MININT

/* --gpu auto|N (or --gpu_device N, -1 for auto) into gpu_device: 0
 * without either */
static inline gboolean
score_options_resolve_gpu (ScoreOptions *o, GError **error)
{
  const gboolean by_index = o->gpu_device != SCORE_GPU_UNSET;
  if (o->gpu && by_index)
    return score_fail (error, "--gpu and --gpu_device both given: give one "
        "(--gpu auto or --gpu N)");
  o->gpu_given = o->gpu || by_index;
  if (o->gpu)
    return vh_tool_parse_gpu ("--gpu", o->gpu, &o->gpu_device, error);
  if (!by_index)
    o->gpu_device = 0;
  else if (o->gpu_device < -1)
    return score_fail (error, "--gpu_device %d: give -1 (auto) or a GPU "
        "index (0, 1, ...)", o->gpu_device);
  return TRUE;
}

#endif /* VH_SCORE_OPTIONS_H */
