/* vmafhip-bench — CPU engine throughput.
 *
 * Renders a few synthetic frame pairs up front (not timed), then scores them
 * in a loop with vmaf_v0.6.1 and with each feature alone (one thread), and
 * prints frames per second; then vmaf_v0.6.1 at each --threads count (frames
 * in flight on worker threads). With --libvmaf PATH (libvmaf's `vmaf` tool,
 * never part of vmafhip), the same frames are written to two YUV files and
 * libvmaf and vmafhip-score (beside this program) score them at each thread
 * count, whole programs timed. A benchmark program, not a test.
 *
 * With --live FPS, each --threads count also scores one live stream: frames
 * pushed at FPS (as a live source delivers them), each frame's latency the
 * time from its arrival to the first push (or the flush) that finds it
 * final, as the element reports scores; with the row bands on and off
 * (VhConfig cpu_row_bands FALSE).
 *
 * With --host-shares, the host's share of a GPU-computed feature:
 * SpEED-chroma's extract_sums on the sums its kernels leave (computed here
 * on the CPU), the part the engine runs on its helper threads.
 *
 *   vmafhip-bench [--frames N] [--sizes 1920x1080,3840x2160]
 *       [--threads 1,2,4,all] [--libvmaf /path/to/vmaf] [--live 25]
 *       [--host-shares]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "feature-sink.h"
#include "speed-chroma.h"
#include "vh-engine.h"
#include "vh-synth.h"
#include "vh-tool-config.h"

#define DISTINCT_FRAMES 8

typedef struct {
  VhPicture ref, dis;
  void *store;
} Frame;

static double
run_once (const VhVideoInfo *info, Frame *frames, unsigned n_frames,
    const char *model, const char *feature, unsigned threads)
{
  GError *error = NULL;
  VhEngine *e = vh_engine_new (info, &error);
  gboolean ok = e != NULL
      && vh_engine_set_config (e, vh_tool_config (), &error)
      && vh_engine_set_threads (e, threads, &error);
  if (ok && model)
    ok = vh_engine_add_model (e, model, NULL, NULL, &error);
  if (ok && feature)
    ok = vh_engine_add_feature (e, feature, &error);
  gint64 t0 = g_get_monotonic_time ();
  for (unsigned i = 0; ok && i < n_frames; i++) {
    Frame *f = &frames[i % DISTINCT_FRAMES];
    ok = vh_engine_push (e, &f->ref, &f->dis, &error);
  }
  if (ok)
    ok = vh_engine_flush (e, &error);
  gint64 t1 = g_get_monotonic_time ();
  if (!ok) {
    fprintf (stderr, "vmafhip-bench: %s\n", error->message);
    exit (1);
  }
  vh_engine_free (e);
  return n_frames / ((t1 - t0) / 1e6);
}

/* One live stream: frame i arrives at i / fps; returns the mean and worst
 * latency in ms (arrival to final, seen at pushes as the element sees it) */
static void
run_live (const VhVideoInfo *info, Frame *frames, unsigned n_frames,
    unsigned threads, double fps, gboolean row_bands, double *mean_ms,
    double *worst_ms)
{
  GError *error = NULL;
  VhEngine *e = vh_engine_new (info, &error);
  VhConfig config = { 0 };
  vh_config_copy (&config, vh_tool_config ());
  config.cpu_row_bands = row_bands;
  gboolean ok = e != NULL && vh_engine_set_config (e, &config, &error)
      && vh_engine_set_threads (e, threads, &error)
      && vh_engine_add_model (e, "vmaf_v0.6.1", NULL, NULL, &error);
  gint64 *arrival = g_new0 (gint64, n_frames);
  gint64 *final = g_new0 (gint64, n_frames);
  unsigned seen = 0;
  const gint64 t0 = g_get_monotonic_time () + 100000;
  for (unsigned i = 0; ok && i < n_frames; i++) {
    arrival[i] = t0 + (gint64) (i * 1e6 / fps);
    const gint64 wait = arrival[i] - g_get_monotonic_time ();
    if (wait > 0)
      g_usleep (wait);
    Frame *f = &frames[i % DISTINCT_FRAMES];
    ok = vh_engine_push (e, &f->ref, &f->dis, &error);
    const gint64 now = g_get_monotonic_time ();
    for (; ok && seen < vh_engine_n_final (e); seen++)
      final[seen] = now;
  }
  if (ok)
    ok = vh_engine_flush (e, &error);
  if (!ok) {
    fprintf (stderr, "vmafhip-bench: %s\n", error->message);
    exit (1);
  }
  const gint64 end = g_get_monotonic_time ();
  for (; seen < n_frames; seen++)
    final[seen] = end;
  double sum = 0, worst = 0;
  /* the last frames only end at the flush: not a live figure */
  const unsigned counted = n_frames > 4 ? n_frames - 4 : n_frames;
  for (unsigned i = 0; i < counted; i++) {
    const double ms = (final[i] - arrival[i]) / 1e3;
    sum += ms;
    worst = MAX (worst, ms);
  }
  *mean_ms = sum / counted;
  *worst_ms = worst;
  g_free (arrival);
  g_free (final);
  vh_engine_free (e);
  vh_config_clear (&config);
}

/* "all": every CPU; else a number (0 if it is none) */
static unsigned
thread_count (const char *s)
{
  if (!strcmp (s, "all"))
    return g_get_num_processors ();
  guint64 n = 0;
  return g_ascii_string_to_unsigned (s, 10, 1, 4096, &n, NULL)
      ? (unsigned) n : 0;
}

/* Wall time of a whole program run, in seconds (exits on failure). */
static double
time_program (char **argv)
{
  GError *error = NULL;
  int status = 0;
  const gint64 t0 = g_get_monotonic_time ();
  if (!g_spawn_sync (NULL, argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
          NULL, NULL, &status, &error)
      || !g_spawn_check_wait_status (status, &error)) {
    fprintf (stderr, "vmafhip-bench: %s: %s\n", argv[0], error->message);
    exit (1);
  }
  return (g_get_monotonic_time () - t0) / 1e6;
}

/* The frames as two 8-bit 4:2:0 files, n_frames long */
static void
write_yuv (const char *path, Frame *frames, unsigned n_frames, gboolean ref)
{
  FILE *f = fopen (path, "wb");
  if (!f) {
    perror (path);
    exit (1);
  }
  for (unsigned i = 0; i < n_frames; i++) {
    const VhPicture *p = ref ? &frames[i % DISTINCT_FRAMES].ref
        : &frames[i % DISTINCT_FRAMES].dis;
    for (unsigned c = 0; c < 3; c++)
      for (unsigned y = 0; y < p->plane[c].height; y++)
        fwrite ((const guint8 *) p->plane[c].data + y * p->plane[c].stride, 1,
            p->plane[c].width, f);
  }
  fclose (f);
}

/* libvmaf's CLI and vmafhip-score on the same files, with the model */
static void
compare_clis (const char *libvmaf, const char *score_tool,
    const char *model, const VhVideoInfo *info, Frame *frames,
    unsigned n_frames, char **threads)
{
  char *version = g_strdup_printf ("version=%s", model);
  char *dir = g_dir_make_tmp ("vmafhip-bench-XXXXXX", NULL);
  char *ref = g_build_filename (dir, "ref.yuv", NULL);
  char *dis = g_build_filename (dir, "dis.yuv", NULL);
  char *w = g_strdup_printf ("%u", info->width);
  char *h = g_strdup_printf ("%u", info->height);
  write_yuv (ref, frames, n_frames, TRUE);
  write_yuv (dis, frames, n_frames, FALSE);
  for (guint t = 0; threads[t]; t++) {
    char n[16];
    g_snprintf (n, sizeof n, "%u", thread_count (threads[t]));
    char *tool_argv[2][24] = {
      { (char *) libvmaf, "-r", ref, "-d", dis, "-w", w, "-h", h, "-p", "420",
        "-b", "8", "--model", version, "--threads", n, "-q", "--json", "-o",
        "/dev/null", NULL },
      { (char *) score_tool, "-r", ref, "-d", dis, "-w", w, "-h", h, "-p",
        "420", "-b", "8", "--model", version, "--threads", n, "--backend",
        "cpu", "-q", NULL },
    };
    const double lv = n_frames / time_program (tool_argv[0]);
    const double vh = n_frames / time_program (tool_argv[1]);
    printf ("%ux%u  %s, %s threads: libvmaf %.1f fps, vmafhip-score %.1f fps "
        "(%.2fx)\n", info->width, info->height, model, n, lv, vh, vh / lv);
    fflush (stdout);
  }
  g_unlink (ref);
  g_unlink (dis);
  g_rmdir (dir);
  g_free (ref);
  g_free (dis);
  g_free (dir);
  g_free (w);
  g_free (h);
  g_free (version);
}

static void
discard_put (VhFeatureSink *sink, gboolean plain, const char *name,
    unsigned index, double value)
{
  (void) sink;
  (void) plain;
  (void) name;
  (void) index;
  (void) value;
}

/* SpEED-chroma's host share on the GPU path: extract_sums on the sums
 * its kernels leave (computed here on the CPU), ms a frame; 0 on error */
static double
speed_host_share_ms (const VhVideoInfo *info, const Frame *frames,
    int n_frames)
{
  const VhFeatureExtractor *fex = &vh_fex_speed_chroma;
  VhSpeedChromaOptions opts = { 1.0, 1.0, VH_SPEED_PRESCALE_NEAREST, 0.19,
    0.1, 45.0, 5 };             /* vmaf_v1.0.16's */
  void *state = g_malloc0 (fex->priv_size);
  void *sums[DISTINCT_FRAMES] = { NULL };
  GError *error = NULL;
  double ms = 0;
  unsigned w, h;
  VhSpeedDims d;
  vh_speed_chroma_size (info->width, info->height, (info->width + 1) / 2,
      (info->height + 1) / 2, &w, &h);
  vh_speed_dims (&d, w, h, 1.0);
  if (!fex->init (state, &opts, info, &error))
    goto done;
  for (unsigned i = 0; i < DISTINCT_FRAMES; i++) {
    sums[i] = g_malloc0 (vh_speed_sums_size (d.tw, d.th));
    if (!vh_speed_chroma_cpu_sums (state, &frames[i].ref, &frames[i].dis,
            sums[i], &error))
      goto done;
  }
  /* the puts go nowhere: a sink that records into nothing */
  VhFeatureSink sink = { .record = &sink, .record_put = discard_put };
  const gint64 t0 = g_get_monotonic_time ();
  for (int i = 0; i < n_frames; i++)
    if (!fex->extract_sums (state, sums[i % DISTINCT_FRAMES], i, &sink,
            &error))
      break;
  ms = error ? 0 : (g_get_monotonic_time () - t0) / 1000.0 / n_frames;
done:
  if (error) {
    fprintf (stderr, "vmafhip-bench: speed_chroma: %s\n", error->message);
    g_error_free (error);
  }
  for (unsigned i = 0; i < DISTINCT_FRAMES; i++)
    g_free (sums[i]);
  if (fex->close)
    fex->close (state);
  g_free (state);
  return ms;
}

int
main (int argc, char **argv)
{
  int n_frames = 48;
  double live_fps = 0;
  gboolean host_shares = FALSE;
  char *sizes = NULL;
  char *features = NULL, *threads = NULL, *libvmaf = NULL, *cli_model = NULL;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &n_frames, "Frames per run (48)", "N"},
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes,
        "Comma-separated sizes (1920x1080,3840x2160)", "LIST"},
    {"features", 0, 0, G_OPTION_ARG_STRING, &features,
        "Comma-separated features timed alone (vif,adm,motion)", "LIST"},
    {"threads", 0, 0, G_OPTION_ARG_STRING, &threads,
        "Comma-separated thread counts for vmaf_v0.6.1 (1; all: every CPU)",
        "LIST"},
    {"cli-model", 0, 0, G_OPTION_ARG_STRING, &cli_model,
        "The built-in model both programs score with (vmaf_v0.6.1)", "NAME"},
    {"live", 0, 0, G_OPTION_ARG_DOUBLE, &live_fps,
        "Also score one live stream at FPS frames a second per thread count "
        "(latency, bands on and off)", "FPS"},
    {"host-shares", 0, 0, G_OPTION_ARG_NONE, &host_shares,
        "Also time the host's share of GPU-computed features "
        "(SpEED-chroma's extract_sums after its kernels)", NULL},
    {"libvmaf", 0, 0, G_OPTION_ARG_FILENAME, &libvmaf,
        "libvmaf's vmaf tool: compare whole programs on the same files",
        "PATH"},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- vmafhip CPU benchmark");
  GError *error = NULL;
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "vmafhip-bench: %s\n", error->message);
    return 2;
  }
  g_option_context_free (ctx);
  char **list = g_strsplit (sizes ? sizes : "1920x1080,3840x2160", ",", -1);

  printf ("# vmafhip CPU engine, 8-bit 4:2:0 synthetic content, "
      "%d frames per run\n", n_frames);
  char **feats = g_strsplit (features ? features : "vif,adm,motion", ",", -1);
  char **thread_list = g_strsplit (threads ? threads : "", ",", -1);
  for (guint t = 0; thread_list[t]; t++)
    if (!thread_count (thread_list[t])) {
      fprintf (stderr, "vmafhip-bench: bad thread count '%s'\n",
          thread_list[t]);
      return 2;
    }
  char *here = g_path_get_dirname (argv[0]);
  char *score_tool = g_build_filename (here, "vmafhip-score", NULL);
  g_free (here);
  printf ("%-10s %12s", "size", "vmaf_v0.6.1");
  for (guint f = 0; feats[f]; f++)
    printf (" %13s", feats[f]);
  printf ("\n");
  for (guint s = 0; list[s]; s++) {
    VhVideoInfo info = { 0, 0, 8 };
    if (sscanf (list[s], "%ux%u", &info.width, &info.height) != 2) {
      fprintf (stderr, "vmafhip-bench: bad size '%s'\n", list[s]);
      return 2;
    }
    VhSynth *synth = vh_synth_new (info.width, info.height, 8, VH_SYNTH_420, 7);
    Frame frames[DISTINCT_FRAMES];
    for (unsigned i = 0; i < DISTINCT_FRAMES; i++) {
      VhPicture ref, dis;
      vh_synth_render (synth, i, 3, &ref, &dis);
      frames[i].ref = ref;
      frames[i].dis = dis;
      frames[i].store = vh_synth_keep (&frames[i].ref, &frames[i].dis);
    }
    vh_synth_free (synth);
    const double fps_model = run_once (&info, frames, n_frames, "vmaf_v0.6.1",
        NULL, 1);
    printf ("%-10s %8.1f fps", list[s], fps_model);
    for (guint f = 0; feats[f]; f++)
      printf (" %9.1f fps", run_once (&info, frames, n_frames, NULL,
              feats[f], 1));
    printf ("\n");
    for (guint t = 0; thread_list[t]; t++) {
      const unsigned n = thread_count (thread_list[t]);
      printf ("%-10s vmaf_v0.6.1, %u threads: %.1f fps\n", list[s], n,
          run_once (&info, frames, n_frames, "vmaf_v0.6.1", NULL, n));
      if (live_fps > 0) {
        double mean[2], worst[2];
        for (int off = 0; off < 2; off++)
          run_live (&info, frames, n_frames, n, live_fps, !off, &mean[off],
              &worst[off]);
        printf ("%-10s live at %g fps, %u threads: latency mean %.0f ms, "
            "worst %.0f ms (row bands off: %.0f / %.0f ms)\n", list[s],
            live_fps, n, mean[0], worst[0], mean[1], worst[1]);
      }
    }
    if (host_shares)
      printf ("%-10s speed_chroma host share (extract_sums after the GPU): "
          "%.3f ms a frame\n", list[s], speed_host_share_ms (&info, frames,
              n_frames));
    if (libvmaf)
      compare_clis (libvmaf, score_tool, cli_model ? cli_model
          : "vmaf_v0.6.1", &info, frames, n_frames, thread_list);
    fflush (stdout);
    for (unsigned i = 0; i < DISTINCT_FRAMES; i++)
      g_free (frames[i].store);
  }
  g_strfreev (list);
  g_strfreev (feats);
  g_strfreev (thread_list);
  g_free (score_tool);
  g_free (threads);
  g_free (libvmaf);
  g_free (cli_model);
  g_free (sizes);
  g_free (features);
  return 0;
}
