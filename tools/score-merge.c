/* vmafhip-score --merge: part files joined into one log (score-merge.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "score-chunk.h"
#include "score-merge.h"

/* A part's header: which chunk it is, the run it belongs to, where its
 * metrics and frames start */
typedef struct {
  const char *path;
  unsigned index, count, first, last;
  GPtrArray *run_keys, *run_values;     /* char*, in the file's order */
  GPtrArray *models;                    /* report names */
  char *host;
  off_t body_at;
} PartHeader;

static void
part_header_free (gpointer data)
{
  PartHeader *h = data;
  g_ptr_array_unref (h->run_keys);
  g_ptr_array_unref (h->run_values);
  g_ptr_array_unref (h->models);
  g_free (h->host);
  g_free (h);
}

static gboolean G_GNUC_PRINTF (3, 4)
part_fail (GError **error, const PartHeader *h, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  char *msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  if (h->count)
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "part '%s' (chunk %u/%u): %s", h->path, h->index, h->count, msg);
  else
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT, "part '%s': %s",
        h->path, msg);
  g_free (msg);
  return FALSE;
}

/* The line without its '\n'; FALSE at the end of the file */
static gboolean
next_line (FILE *f, char **line, size_t *size)
{
  const ssize_t n = getline (line, size, f);
  if (n <= 0)
    return FALSE;
  if ((*line)[n - 1] == '\n')
    (*line)[n - 1] = '\0';
  return TRUE;
}

/* A header value as written (g_strescape'd) */
static char *
value_of (const char *text)
{
  return g_strcompress (text);
}

/* A part file whose last line is "end": written to its end by --chunk
 * (one cut short by a kill or a full disk is not) */
static gboolean
ends_complete (FILE *f)
{
  char tail[4];
  return fseeko (f, -4, SEEK_END) == 0 && fread (tail, 1, 4, f) == 4
      && !memcmp (tail, "end\n", 4) && fseeko (f, 0, SEEK_SET) == 0;
}

/* Reads a part's header, up to its first metric or frame line. */
static PartHeader *
read_header (const char *path, GError **error)
{
  PartHeader *h = g_new0 (PartHeader, 1);
  FILE *f = fopen (path, "r");
  char *line = NULL;
  size_t size = 0;
  gboolean ok = FALSE;

  h->path = path;
  h->run_keys = g_ptr_array_new_with_free_func (g_free);
  h->run_values = g_ptr_array_new_with_free_func (g_free);
  h->models = g_ptr_array_new_with_free_func (g_free);
  if (!f) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot read part '%s': %s",
        path, g_strerror (errno));
    goto out;
  }
  if (!next_line (f, &line, &size) || strcmp (line, SCORE_PART_MAGIC)) {
    part_fail (error, h, "not a part file of vmafhip-score --chunk (its "
        "first line is not '" SCORE_PART_MAGIC "')");
    goto out;
  }
  if (!ends_complete (f)) {
    part_fail (error, h, "cut short (it does not end with its 'end' line): "
        "the --chunk run that wrote it did not finish; score that chunk "
        "again");
    goto out;
  }
  next_line (f, &line, &size);            /* (the magic again) */
  for (off_t at = ftello (f); next_line (f, &line, &size); at = ftello (f)) {
    if (g_str_has_prefix (line, "metric ") || g_str_has_prefix (line,
            "frame ")) {
      h->body_at = at;
      ok = TRUE;
      break;
    }
    char **w = g_strsplit (line, " ", 3);
    const guint n = g_strv_length (w);
    if (n == 3 && !strcmp (w[0], "chunk")) {
      h->index = (unsigned) g_ascii_strtoull (w[1], NULL, 10);
      h->count = (unsigned) g_ascii_strtoull (w[2], NULL, 10);
    } else if (n == 3 && !strcmp (w[0], "frames")) {
      h->first = (unsigned) g_ascii_strtoull (w[1], NULL, 10);
      h->last = (unsigned) g_ascii_strtoull (w[2], NULL, 10);
    } else if (n == 3 && !strcmp (w[0], "run")) {
      g_ptr_array_add (h->run_keys, g_strdup (w[1]));
      g_ptr_array_add (h->run_values, value_of (w[2]));
    } else if (n == 3 && !strcmp (w[0], "info") && !strcmp (w[1], "host")) {
      g_free (h->host);
      h->host = value_of (w[2]);
    } else if (n >= 2 && !strcmp (w[0], "model")) {
      g_ptr_array_add (h->models, value_of (line + strlen ("model ")));
    } else if (!(n == 3 && !strcmp (w[0], "info"))) {
      part_fail (error, h, "unknown header line '%s' (written by another "
          "version of vmafhip-score?)", line);
      g_strfreev (w);
      goto out;
    }
    g_strfreev (w);
  }
  if (!ok)
    part_fail (error, h, "no frame in it");
  else if (!h->count || !h->index || h->index > h->count
      || h->first > h->last)
    ok = part_fail (error, h, "its chunk or frames lines are damaged");

out:
  free (line);
  if (f)
    fclose (f);
  if (!ok) {
    part_header_free (h);
    return NULL;
  }
  return h;
}

/* The run's value of `key`: several lines' (models) joined */
static char *
run_value (const PartHeader *h, const char *key)
{
  GString *v = g_string_new (NULL);
  for (guint i = 0; i < h->run_keys->len; i++)
    if (!strcmp (g_ptr_array_index (h->run_keys, i), key))
      g_string_append_printf (v, "%s'%s'", v->len ? ", " : "",
          (const char *) g_ptr_array_index (h->run_values, i));
  return g_string_free (v, FALSE);
}

/* The run's (first) value of `key`; "" where it has none */
static const char *
run_get (const PartHeader *h, const char *key)
{
  for (guint i = 0; i < h->run_keys->len; i++)
    if (!strcmp (g_ptr_array_index (h->run_keys, i), key))
      return g_ptr_array_index (h->run_values, i);
  return "";
}

/* What a run key is, for the message */
static const char *
run_key_meaning (const char *key)
{
  static const char *const meanings[][2] = {
    {"version", "vmafhip-score versions"},
    {"chunks", "numbers of chunks (the N of --chunk I/N)"},
    {"title_frames", "titles' frame counts (the inputs' frames after "
          "--frame_skip_ref/_dist, at most --frame_cnt)"},
    {"video", "videos (size, depth, layout)"},
    {"reference", "references (-r: size and first MiB)"},
    {"distorted", "distorted videos (-d: size and first MiB)"},
    {"frame_skip", "--frame_skip_ref/--frame_skip_dist"},
    {"subsample", "--subsample"},
    {"raw_chroma", "--raw_chroma"},
    {"scaler", "--scaler"},
    {"no_prediction", "--no_prediction"},
    {"model", "models (-m)"},
    {"feature", "features (--feature)"},
  };
  for (gsize i = 0; i < G_N_ELEMENTS (meanings); i++)
    if (!strcmp (meanings[i][0], key))
      return meanings[i][1];
  return key;
}

/* Whether two parts are of one run: the same run lines */
static gboolean
check_same_run (const PartHeader *a, const PartHeader *b, GError **error)
{
  const char *differs = NULL;
  const guint n = MAX (a->run_keys->len, b->run_keys->len);

  for (guint i = 0; i < n && !differs; i++) {
    if (i >= a->run_keys->len || i >= b->run_keys->len)
      differs = g_ptr_array_index (i < a->run_keys->len ? a->run_keys
          : b->run_keys, i);
    else if (strcmp (g_ptr_array_index (a->run_keys, i),
            g_ptr_array_index (b->run_keys, i))
        || strcmp (g_ptr_array_index (a->run_values, i),
            g_ptr_array_index (b->run_values, i)))
      differs = g_ptr_array_index (a->run_keys, i);
  }
  if (!differs)
    return TRUE;
  char *va = run_value (a, differs), *vb = run_value (b, differs);
  g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT, "parts '%s' "
      "(chunk %u/%u%s%s) and '%s' (chunk %u/%u%s%s) are not of one run: "
      "their %s differ (%s against %s); merge the parts of one run, each "
      "chunk scored with the same inputs and options", a->path, a->index,
      a->count, a->host ? ", from " : "", a->host ? a->host : "", b->path,
      b->index, b->count, b->host ? ", from " : "", b->host ? b->host : "",
      run_key_meaning (differs), *va ? va : "none", *vb ? vb : "none");
  g_free (va);
  g_free (vb);
  return FALSE;
}

/* Every chunk 1..N once, each holding the frames its I/N gives */
static gboolean
check_chunks (GPtrArray *headers, GError **error)
{
  const PartHeader *h0 = g_ptr_array_index (headers, 0);
  const unsigned n = h0->count;
  const PartHeader **by_index = g_new0 (const PartHeader *, n + 1);
  GString *missing = g_string_new (NULL);
  gboolean ok = TRUE;
  const guint64 n_title = g_ascii_strtoull (run_get (h0, "title_frames"),
      NULL, 10);

  for (guint i = 0; i < headers->len && ok; i++) {
    const PartHeader *h = g_ptr_array_index (headers, i);
    if (by_index[h->index]) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT, "chunk %u/%u "
          "is given twice: '%s' and '%s'; give each chunk's part once",
          h->index, n, by_index[h->index]->path, h->path);
      ok = FALSE;
    }
    by_index[h->index] = h;
    /* (what --chunk writes: only a damaged part differs) */
    const unsigned first = (unsigned) ((h->index - 1) * n_title / n);
    const unsigned last = (unsigned) (h->index * n_title / n - 1);
    if (ok && (h->first != first || h->last != last))
      ok = part_fail (error, h, "it says it holds frames %u-%u, but chunk "
          "%u/%u of a title of %" G_GUINT64_FORMAT " frames is frames "
          "%u-%u: the part is damaged; score that chunk again", h->first,
          h->last, h->index, n, n_title, first, last);
  }
  unsigned n_missing = 0;
  for (unsigned i = 1; i <= n && ok; i++)
    if (!by_index[i])
      g_string_append_printf (missing, "%s%u/%u (frames %u-%u)",
          n_missing++ ? ", " : "", i, n, (unsigned) ((i - 1) * n_title / n),
          (unsigned) (i * n_title / n - 1));
  if (ok && n_missing) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT, "%s %s %s "
        "missing (%u of %u parts given): score %s with the run's options "
        "and --chunk I/%u, and give %s too", n_missing > 1 ? "chunks" :
        "chunk", missing->str, n_missing > 1 ? "are" : "is", headers->len,
        n, n_missing > 1 ? "them" : "it", n, n_missing > 1 ? "their parts"
        : "its part");
    ok = FALSE;
  }
  g_string_free (missing, TRUE);
  g_free (by_index);
  return ok;
}

static gint
by_chunk_index (gconstpointer a, gconstpointer b)
{
  const PartHeader *x = *(PartHeader * const *) a;
  const PartHeader *y = *(PartHeader * const *) b;
  return x->index < y->index ? -1 : x->index > y->index;
}

/* One part's metrics and frames into the table and the log, in order.
 * `first_part`: its metric lines make the table's metrics, in their order
 * (chunk 1 was scored from the title's first frame as the whole run was,
 * so its table has the whole run's order); the others' must name the same
 * metrics. */
static gboolean
merge_part (const PartHeader *h, gboolean first_part, VhScoreTable *t,
    VhLogWriter *log, unsigned subsample, double *seconds, GError **error)
{
  FILE *f = fopen (h->path, "r");
  char *line = NULL;
  size_t size = 0;
  GArray *metric_of = g_array_new (FALSE, FALSE, sizeof (unsigned));
  unsigned next = h->first;
  gboolean ok = TRUE, ended = FALSE;

  if (!f || fseeko (f, h->body_at, SEEK_SET)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot read part '%s': %s",
        h->path, g_strerror (errno));
    ok = FALSE;
  }
  while (ok && !ended && next_line (f, &line, &size)) {
    if (g_str_has_prefix (line, "metric ")) {
      char *name = value_of (line + strlen ("metric "));
      int m = first_part ? (int) vh_score_table_metric (t, name)
          : vh_score_table_find (t, name);
      if (m < 0)
        ok = part_fail (error, h, "it has metric '%s', which chunk 1's "
            "part has not: the parts are not of one run", name);
      g_free (name);
      g_array_append_val (metric_of, m);
    } else if (g_str_has_prefix (line, "frame ")) {
      char **w = g_strsplit (line + strlen ("frame "), " ", -1);
      const guint n = g_strv_length (w);
      char *end = NULL;
      const guint64 frame = g_ascii_strtoull (w[0], &end, 10);
      if (*end || frame != next || frame > h->last || n != metric_of->len
          + 1) {
        ok = part_fail (error, h, "frame line '%.40s...' is not frame %u "
            "with %u values: the part is damaged; score that chunk again",
            line, next, metric_of->len);
      }
      for (guint k = 1; ok && k < n; k++) {
        if (!strcmp (w[k], "-"))
          continue;             /* no value of that metric there */
        const double v = g_ascii_strtod (w[k], &end);
        if (*end || end == w[k])
          ok = part_fail (error, h, "frame %u has '%s' for a value: the "
              "part is damaged; score that chunk again", next, w[k]);
        else
          vh_score_table_set (t, g_array_index (metric_of, unsigned, k - 1),
              next, v);
      }
      g_strfreev (w);
      /* as the whole run: logged, then out of the table into the pools */
      ok = ok && vh_log_writer_add_frame (log, t, next, error);
      if (ok)
        vh_score_table_retire (t, ++next, subsample);
    } else if (g_str_has_prefix (line, "time ")) {
      *seconds += g_ascii_strtod (line + strlen ("time "), NULL);
    } else if (!strcmp (line, "end")) {
      ended = TRUE;
    } else {
      ok = part_fail (error, h, "unknown line '%.40s': the part is "
          "damaged; score that chunk again", line);
    }
  }
  if (ok && (!ended || next != h->last + 1))
    ok = part_fail (error, h, "it ends after frame %u, not its last, %u: "
        "the part is damaged; score that chunk again", next - 1, h->last);
  if (ok && metric_of->len != vh_score_table_n_metrics (t))
    ok = part_fail (error, h, "it has %u metrics, chunk 1's part %u: the "
        "parts are not of one run", metric_of->len,
        vh_score_table_n_metrics (t));
  free (line);
  if (f)
    fclose (f);
  g_array_unref (metric_of);
  return ok;
}

gboolean
score_merge (const char *const *parts, const char *output,
    VhLogFormat format, ScoreMerged *merged, GError **error)
{
  GPtrArray *headers = g_ptr_array_new_with_free_func (part_header_free);
  VhLogWriter *log = NULL;
  gboolean ok = TRUE;

  memset (merged, 0, sizeof *merged);
  for (guint i = 0; parts[i] && ok; i++) {
    PartHeader *h = read_header (parts[i], error);
    if (h)
      g_ptr_array_add (headers, h);
    ok = h != NULL;
  }
  if (ok && !headers->len)
    ok = score_fail (error, "--merge: give the part files of every chunk "
        "(vmafhip-score --merge PART... -o LOG)");
  for (guint i = 1; ok && i < headers->len; i++)
    ok = check_same_run (g_ptr_array_index (headers, 0),
        g_ptr_array_index (headers, i), error);
  if (ok)
    ok = check_chunks (headers, error);
  if (!ok)
    goto out;
  g_ptr_array_sort (headers, by_chunk_index);

  const PartHeader *h0 = g_ptr_array_index (headers, 0);
  /* XML's <params> and the frames logged and pooled, as the run's */
  VhLogInfo info = { 0, 0, NAN, 1 };
  sscanf (run_get (h0, "video"), "%ux%u", &info.width, &info.height);
  info.subsample = MAX (1, (unsigned) g_ascii_strtoull (run_get (h0,
              "subsample"), NULL, 10));

  merged->table = vh_score_table_new ();
  merged->n_parts = headers->len;
  merged->subsample = info.subsample;
  merged->models = g_new0 (char *, h0->models->len + 1);
  for (guint i = 0; i < h0->models->len; i++)
    merged->models[i] = g_strdup (g_ptr_array_index (h0->models, i));
  log = vh_log_writer_open (output, format, &info, NULL, error);
  ok = log != NULL;
  for (guint i = 0; ok && i < headers->len; i++)
    ok = merge_part (g_ptr_array_index (headers, i), i == 0, merged->table,
        log, info.subsample, &merged->seconds, error);
  if (ok) {
    const PartHeader *last = g_ptr_array_index (headers, headers->len - 1);
    merged->n_frames = last->last + 1;
    ok = vh_log_writer_finish (log, merged->table, merged->seconds > 0
        ? merged->n_frames / merged->seconds : NAN, error);
  }
  if (!ok && log)
    unlink (output);            /* (a log of some parts is no log) */

out:
  vh_log_writer_free (log);
  g_ptr_array_unref (headers);
  if (!ok)
    score_merged_clear (merged);
  return ok;
}

void
score_merged_clear (ScoreMerged *m)
{
  vh_score_table_free (m->table);
  g_strfreev (m->models);
  memset (m, 0, sizeof *m);
}
