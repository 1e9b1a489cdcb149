/* vmafhip-score --chunk I/N: the chunk's frames and those read around
 * them, and its part file (score-chunk.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "score-chunk.h"
#include "vh-spec.h"

#ifndef VMAFHIP_VERSION
#define VMAFHIP_VERSION "0.1.0"
#endif

/* Bytes of each input whose digest tells a part's inputs from another's
 * of the same size (the whole file would cost a read of every frame in
 * every chunk) */
#define HEAD_DIGEST_BYTES (1 << 20)

gboolean
score_chunk_parse (const char *text, ScoreChunk *chunk, GError **error)
{
  char *end = NULL;
  const guint64 i = g_ascii_strtoull (text, &end, 10);
  guint64 n = 0;
  gboolean ok = end != text && *end == '/';

  if (ok) {
    const char *count = end + 1;
    n = g_ascii_strtoull (count, &end, 10);
    ok = end != count && !*end && g_ascii_isdigit (*text);
  }
  if (!ok || !n || n > G_MAXINT)
    return score_fail (error, "--chunk wants I/N, the I-th of N chunks "
        "(I from 1 to N: --chunk 1/4 ... --chunk 4/4), not '%s'", text);
  if (i < 1 || i > n)
    return score_fail (error, "--chunk %s: chunks are counted from 1 to %"
        G_GUINT64_FORMAT " (1/%" G_GUINT64_FORMAT " is the first)", text, n,
        n);
  chunk->index = (unsigned) i;
  chunk->count = (unsigned) n;
  return TRUE;
}

/* The option `key` of a feature spec's list, set to true (the last one
 * given wins, as the engine applies them in order) */
static gboolean
opts_enable (const VhModelOpt *opts, unsigned n, const char *key)
{
  gboolean on = FALSE;
  for (unsigned k = 0; k < n; k++)
    if (!strcmp (opts[k].key, key))
      on = opts[k].kind == VH_OPTVAL_BOOL && opts[k].boolean;
  return on;
}

static gboolean
opts_have (const VhModelOpt *opts, unsigned n, const char *key)
{
  for (unsigned k = 0; k < n; k++)
    if (!strcmp (opts[k].key, key))
      return TRUE;
  return FALSE;
}

gboolean
score_chunk_check_options (const ScoreOptions *o, const GPtrArray *models,
    const GPtrArray *features, GError **error)
{
  if (!o->output)
    return score_fail (error, "--chunk writes a part file: give its path "
        "with -o (then vmafhip-score --merge PART... -o LOG joins the "
        "parts)");
  if (o->xml || o->json || o->csv || o->sub || o->log_format)
    return score_fail (error, "--chunk writes a part file, not a log: give "
        "the log's format (--json, --xml, --csv, --sub) to --merge");
  for (guint i = 0; i < features->len; i++) {
    const VhFeatureSpec *f = g_ptr_array_index (features, i);
    if (!strcmp (f->name, "psnr") && opts_enable (f->opts, f->n_opts,
            "enable_apsnr"))
      return score_fail (error, "--chunk: psnr's enable_apsnr is the whole "
          "stream's aggregate PSNR, which a part cannot carry; score the "
          "title in one run for apsnr_y/cb/cr (chunks take psnr without "
          "it)");
    if (!strcmp (f->name, "cambi") && opts_have (f->opts, f->n_opts,
            "heatmaps_path"))
      return score_fail (error, "--chunk: cambi's heatmaps_path writes "
          "files that hold every frame of one run, which chunks cannot "
          "share; score the title in one run for heatmaps");
  }
  for (guint i = 0; i < models->len; i++) {
    const VhModelSpec *m = g_ptr_array_index (models, i);
    for (unsigned k = 0; k < m->n_overrides; k++)
      if (!strcmp (m->overrides[k].opt.key, "heatmaps_path"))
        return score_fail (error, "--chunk: model '%s': cambi's "
            "heatmaps_path writes files that hold every frame of one run, "
            "which chunks cannot share; score the title in one run for "
            "heatmaps", m->source);
  }
  return TRUE;
}

gboolean
score_chunk_title_frames (const ScoreOptions *o, ScoreInput *in,
    unsigned *n_title, GError **error)
{
  guint64 n = o->frame_cnt > 0 ? (guint64) o->frame_cnt : G_MAXUINT64;
  guint64 whole[2] = { G_MAXUINT64, G_MAXUINT64 };
  gboolean cut[2] = { FALSE, FALSE };

  if (!in)
    n = o->frame_cnt > 0 ? (guint64) o->frame_cnt : 24;
  for (int k = 0; in && k < 2; k++) {
    const guint64 skip = (guint64) (k ? o->frame_skip_dist
        : o->frame_skip_ref);
    guint64 frames;
    const int got = score_input_count (&in[k], &frames, &cut[k], error);
    if (got < 0)
      return FALSE;
    if (!got && o->frame_cnt <= 0)
      return score_fail (error, "--chunk: '%s' is decoded by GStreamer, "
          "whose frame count only decoding it whole would tell: give the "
          "title's frames to score with --frame_cnt N (the same in every "
          "chunk; e.g. ffprobe -count_frames tells them)", in[k].path);
    if (!got)
      continue;
    if (frames < skip)
      return score_fail (error, "'%s' has fewer than %" G_GUINT64_FORMAT
          " frames to skip", in[k].path, skip);
    whole[k] = frames - skip;
    n = MIN (n, whole[k]);
  }
  /* a whole run reads frame n of both inputs unless --frame_cnt stops it
   * first, and fails where that is a frame cut short: so does a chunk */
  for (int k = 0; in && k < 2; k++)
    if (cut[k] && whole[k] == n && (o->frame_cnt <= 0
            || (guint64) o->frame_cnt > n))
      return score_fail (error, "'%s' ends with a partial frame after its "
          "%" G_GUINT64_FORMAT " whole ones (a whole run fails there too): "
          "wrong size or format?", in[k].path, whole[k] + (guint64) (k
              ? o->frame_skip_dist : o->frame_skip_ref));
  if (!n)
    return score_fail (error, "no frame to score");
  if (n > G_MAXINT)
    return score_fail (error, "--chunk: the title has %" G_GUINT64_FORMAT
        " frames, more than vmafhip-score counts (%d)", n, G_MAXINT);
  *n_title = (unsigned) n;
  return TRUE;
}

gboolean
score_chunk_range (const ScoreChunk *chunk, unsigned n_title,
    unsigned lookahead, unsigned subsample, ScoreChunkRange *r,
    GError **error)
{
  if (chunk->count > n_title)
    return score_fail (error, "--chunk %u/%u: the title has %u frame%s, "
        "so at most %u chunks (one frame each)", chunk->index, chunk->count,
        n_title, n_title == 1 ? "" : "s", n_title);
  const guint64 t = n_title;
  r->n_title = n_title;
  r->first = (unsigned) ((chunk->index - 1) * t / chunk->count);
  r->last = (unsigned) (chunk->index * t / chunk->count - 1);
  const unsigned before = 2 * lookahead;
  r->read_first = r->first > before ? r->first - before : 0;
  r->read_first -= r->read_first % subsample;
  r->read_end = (unsigned) MIN (t, (guint64) r->last + 1 + lookahead);
  return TRUE;
}

gboolean
score_chunk_owns (const ScoreChunkRange *r, unsigned frame)
{
  return frame >= r->first && frame <= r->last;
}

/* ------------------------------------------------------------ part file */

struct ScorePart {
  FILE *file;
  char *path;
  unsigned n_metrics;           /* names written so far */
  gboolean finished;
};

/* A value of the header, on one line whatever it holds */
static void
put_line (FILE *f, const char *key, const char *value)
{
  gchar *escaped = g_strescape (value, NULL);
  fprintf (f, "%s %s\n", key, escaped);
  g_free (escaped);
}

/* "SIZE SHA256" of a file: its size and the digest of its first MiB */
static char *
input_identity (const char *path, GError **error)
{
  struct stat st;
  FILE *f = fopen (path, "rb");
  guint8 *buf = g_malloc (HEAD_DIGEST_BYTES);
  size_t got = 0;

  if (!f || fstat (fileno (f), &st)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot read '%s': %s", path,
        g_strerror (errno));
    if (f)
      fclose (f);
    g_free (buf);
    return NULL;
  }
  got = fread (buf, 1, HEAD_DIGEST_BYTES, f);
  fclose (f);
  gchar *digest = g_compute_checksum_for_data (G_CHECKSUM_SHA256, buf, got);
  char *id = g_strdup_printf ("%" G_GUINT64_FORMAT " bytes, sha256 of %s "
      "%s", (guint64) st.st_size, got < HEAD_DIGEST_BYTES ? "all" :
      "the first MiB", digest);
  g_free (digest);
  g_free (buf);
  return id;
}

/* The header lines that make a run: every part of one run has the same
 * ("run KEY VALUE"; the merge names the KEY where two parts differ) */
static gboolean
write_run (FILE *f, const ScoreChunk *chunk, const ScoreChunkRange *r,
    const ScoreOptions *o, const char *const *models, const ScoreInput *in,
    const VhVideoInfo *info, GError **error)
{
  char *v;

  put_line (f, "run version", VMAFHIP_VERSION);
  v = g_strdup_printf ("%u", chunk->count);
  put_line (f, "run chunks", v);
  g_free (v);
  v = g_strdup_printf ("%u", r->n_title);
  put_line (f, "run title_frames", v);
  g_free (v);
  v = g_strdup_printf ("%ux%u %u-bit %s", info->width, info->height,
      info->bpc, in ? in[0].format->name : "I420");
  put_line (f, "run video", v);
  g_free (v);
  for (int k = 0; k < 2; k++) {
    const char *key = k ? "run distorted" : "run reference";
    if (!in) {
      v = g_strdup_printf ("synthetic %s seed %d strength %d", o->synthetic,
          o->seed, o->strength);
    } else {
      char *id = input_identity (in[k].path, error);
      if (!id)
        return FALSE;
      v = g_strdup_printf ("%ux%u %s, %s", in[k].width, in[k].height,
          in[k].format->name, id);
      g_free (id);
    }
    put_line (f, key, v);
    g_free (v);
  }
  v = g_strdup_printf ("%d %d", o->frame_skip_ref, o->frame_skip_dist);
  put_line (f, "run frame_skip", v);
  g_free (v);
  v = g_strdup_printf ("%d", o->subsample);
  put_line (f, "run subsample", v);
  g_free (v);
  put_line (f, "run raw_chroma", o->raw_chroma ? o->raw_chroma : "");
  put_line (f, "run scaler", o->scaler ? o->scaler : "");
  put_line (f, "run no_prediction", o->no_prediction ? "yes" : "no");
  for (guint i = 0; models && models[i]; i++)
    put_line (f, "run model", models[i]);
  for (guint i = 0; o->features && o->features[i]; i++)
    put_line (f, "run feature", o->features[i]);
  return TRUE;
}

ScorePart *
score_part_open (const char *path, const ScoreChunk *chunk,
    const ScoreChunkRange *r, const ScoreOptions *o,
    const char *const *models, const ScoreInput *in,
    const VhVideoInfo *info, const VhEngine *engine, GError **error)
{
  FILE *f = fopen (path, "w");
  if (!f) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot write part file "
        "'%s': %s", path, g_strerror (errno));
    return NULL;
  }
  ScorePart *p = g_new0 (ScorePart, 1);
  p->file = f;
  p->path = g_strdup (path);

  fprintf (f, SCORE_PART_MAGIC "\n");
  fprintf (f, "chunk %u %u\nframes %u %u\n", chunk->index, chunk->count,
      r->first, r->last);
  if (!write_run (f, chunk, r, o, models, in, info, error)) {
    score_part_free (p);
    return NULL;
  }
  /* where it was made, for the messages (not checked) */
  for (int k = 0; in && k < 2; k++)
    put_line (f, k ? "info distorted_path" : "info reference_path",
        in[k].path);
  put_line (f, "info backend", vh_engine_is_accelerated (engine) ? "gpu" :
      "cpu");
  put_line (f, "info host", g_get_host_name ());
  for (unsigned i = 0; i < vh_engine_n_models (engine); i++)
    put_line (f, "model", vh_engine_model_report_name (engine, i));
  return p;
}

static gboolean
part_error (ScorePart *p, GError **error)
{
  g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot write part file "
      "'%s': %s", p->path, g_strerror (errno ? errno : EIO));
  return FALSE;
}

gboolean
score_part_add_frame (ScorePart *p, const VhScoreTable *t, unsigned frame,
    unsigned title_frame, GError **error)
{
  const unsigned n = vh_score_table_n_metrics (t);
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  errno = 0;                    /* (a failed write's, for the message) */
  /* (the names before the first frame that has them, as the whole run's
   * table has them by then: the merged log's columns come in that order) */
  for (; p->n_metrics < n; p->n_metrics++)
    put_line (p->file, "metric", vh_score_table_metric_name (t,
            p->n_metrics));
  fprintf (p->file, "frame %u", title_frame);
  for (unsigned m = 0; m < n; m++) {
    double v;
    /* g_ascii_dtostr: the shortest text that reads back as the same
     * double; nan and inf as such */
    fprintf (p->file, " %s", vh_score_table_get (t, m, frame, &v)
        ? g_ascii_dtostr (buf, sizeof buf, v) : "-");
  }
  fputc ('\n', p->file);
  return ferror (p->file) ? part_error (p, error) : TRUE;
}

gboolean
score_part_finish (ScorePart *p, double seconds, GError **error)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  errno = 0;
  fprintf (p->file, "time %s\nend\n", g_ascii_dtostr (buf, sizeof buf,
          seconds));
  const gboolean failed = ferror (p->file) != 0;
  const int closed = fclose (p->file);
  p->file = NULL;
  if (failed || closed)
    return part_error (p, error);
  p->finished = TRUE;
  return TRUE;
}

void
score_part_free (ScorePart *p)
{
  if (!p)
    return;
  if (p->file)
    fclose (p->file);
  if (!p->finished)
    unlink (p->path);
  g_free (p->path);
  g_free (p);
}
