/* vmafhip-engine-soak — the engine's memory over a long run.
 *
 * Pushes synthetic frame pairs through the CPU engine with vmaf_v0.6.1
 * (one thread), releases each frame once final (unless --keep, the
 * behaviour before frames could be released), optionally streams a JSON
 * log, and prints the process's resident memory (VmRSS, VmHWM) and the
 * rate every tenth of the run. A benchmark program, not a test: a flat
 * VmRSS column is the result.
 *
 *   vmafhip-engine-soak [--frames 1000000] [--size 33x33] [--log FILE]
 *       [--keep]
 *
 * 33x33 is the smallest picture every vmaf_v0.6.1 feature accepts (ADM's
 * wavelet pyramid; VIF needs 16, motion 3), so a million frames take
 * minutes. (tools/vmafhip-soak.c does the same through the element.)
 */
#include <math.h>
#include <stdio.h>

#include "vh-engine.h"
#include "vh-memory.h"
#include "vh-synth.h"
#include "vh-tool-config.h"

/* Frames rendered up front and pushed in turn: the synth's rendering is
 * not what is measured. */
#define DISTINCT_FRAMES 8

typedef struct {
  VhPicture ref, dis;
  void *store;
} Frame;

static void
report (const VhEngine *e, unsigned n_pushed, gint64 t0)
{
  const VhScoreTable *t = vh_engine_scores (e);
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  guint64 rss, hwm;

  vh_process_memory (&rss, &hwm);
  printf ("%10u frames  VmRSS %7.1f MB  VmHWM %7.1f MB  stored %8u"
      "  %7.0f fps\n", n_pushed, rss / 1024.0, hwm / 1024.0,
      vh_score_table_n_frames (t) - vh_score_table_first_frame (t),
      secs > 0 ? n_pushed / secs : 0.0);
  fflush (stdout);
}

/* Streams the frames that became final, then releases them. */
static gboolean
retire_final (VhEngine *e, VhLogWriter *log, gboolean keep,
    unsigned *n_logged, GError **error)
{
  const unsigned n_final = vh_engine_n_final (e);

  for (; log && *n_logged < n_final; (*n_logged)++)
    if (!vh_log_writer_add_frame (log, vh_engine_scores (e), *n_logged,
            error))
      return FALSE;
  return keep || vh_engine_release_frames (e, n_final, error);
}

int
main (int argc, char **argv)
{
  gint64 n_frames = 1000000;
  gchar *size = NULL, *log_path = NULL;
  gboolean keep = FALSE;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT64, &n_frames,
        "Frame pairs to push (1000000)", "N"},
    {"size", 's', 0, G_OPTION_ARG_STRING, &size, "Picture size (33x33)",
        "WxH"},
    {"log", 'o', 0, G_OPTION_ARG_FILENAME, &log_path,
        "Stream a JSON log to FILE (default: none)", "FILE"},
    {"keep", 'k', 0, G_OPTION_ARG_NONE, &keep,
        "Keep every frame's scores in the engine (the old behaviour)", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- vmafhip engine memory soak");
  GError *error = NULL;
  VhVideoInfo info = { 33, 33, 8 };

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "vmafhip-engine-soak: %s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  if ((size && sscanf (size, "%ux%u", &info.width, &info.height) != 2)
      || n_frames < 10 || n_frames >= G_MAXUINT) {
    fprintf (stderr, "vmafhip-engine-soak: bad --size or --frames "
        "(WxH, 10 frames or more)\n");
    return 2;
  }

  VhEngine *e = vh_engine_new (&info, &error);
  if (!e || !vh_engine_set_config (e, vh_tool_config (), &error)
      || !vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error)) {
    fprintf (stderr, "vmafhip-engine-soak: %s\n", error->message);
    return 1;
  }
  VhSynth *synth = vh_synth_new (info.width, info.height, 8, VH_SYNTH_420,
      7);
  Frame frames[DISTINCT_FRAMES];
  for (unsigned i = 0; i < DISTINCT_FRAMES; i++) {
    vh_synth_render (synth, i, 3, &frames[i].ref, &frames[i].dis);
    frames[i].store = vh_synth_keep (&frames[i].ref, &frames[i].dis);
  }
  vh_synth_free (synth);

  VhLogWriter *log = NULL;
  if (log_path) {
    const VhLogInfo li = { info.width, info.height, NAN, 1 };
    log = vh_log_writer_open (log_path, VH_LOG_JSON, &li, NULL, &error);
    if (!log) {
      fprintf (stderr, "vmafhip-engine-soak: %s\n", error->message);
      return 1;
    }
  }

  printf ("vmafhip-engine-soak: %" G_GINT64_FORMAT " frames of %ux%u, "
      "vmaf_v0.6.1, 1 thread, %s%s%s\n", n_frames, info.width, info.height,
      keep ? "frames kept" : "frames released when final",
      log_path ? ", JSON log to " : "", log_path ? log_path : "");
  report (e, 0, g_get_monotonic_time ());

  const unsigned total = (unsigned) n_frames, every = total / 10;
  unsigned n_logged = 0;
  gboolean ok = TRUE;
  const gint64 t0 = g_get_monotonic_time ();
  for (unsigned i = 0; ok && i < total; i++) {
    const Frame *f = &frames[i % DISTINCT_FRAMES];
    ok = vh_engine_push (e, &f->ref, &f->dis, &error)
        && retire_final (e, log, keep, &n_logged, &error);
    if (ok && (i + 1) % every == 0)
      report (e, i + 1, t0);
  }
  ok = ok && vh_engine_flush (e, &error)
      && retire_final (e, log, keep, &n_logged, &error);
  const double fps = total / ((g_get_monotonic_time () - t0) / 1e6);
  if (ok && log)
    ok = vh_log_writer_finish (log, vh_engine_scores (e), fps, &error);
  if (!ok) {
    fprintf (stderr, "vmafhip-engine-soak: %s\n", error->message);
    return 1;
  }

  const VhScoreTable *t = vh_engine_scores (e);
  VhPooled pooled;
  if (vh_score_table_pool_all (t, vh_score_table_find (t, "vmaf_v0.6.1"), 1,
          &pooled))
    printf ("vmaf_v0.6.1 over %u frames: mean %.6f, harmonic mean %.6f\n",
        pooled.n_frames, pooled.mean, pooled.harmonic_mean);
  report (e, total, t0);
  printf ("%.0f fps over the whole run (log included)\n", fps);

  vh_log_writer_free (log);
  vh_engine_free (e);
  for (unsigned i = 0; i < DISTINCT_FRAMES; i++)
    g_free (frames[i].store);
  g_free (size);
  g_free (log_path);
  return 0;
}
