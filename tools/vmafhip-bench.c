/* vmafhip-bench — CPU engine throughput, single-threaded.
 *
 * Renders a few synthetic frame pairs up front (not timed), then scores them
 * in a loop with vmaf_v0.6.1 and with each feature alone, and prints frames
 * per second. A benchmark program, not a test.
 *
 *   vmafhip-bench [--frames N] [--sizes 1920x1080,3840x2160]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vh-engine.h"
#include "vh-synth.h"

#define DISTINCT_FRAMES 8

typedef struct {
  VhPicture ref, dis;
  void *store;
} Frame;

static double
run_once (const VhVideoInfo *info, Frame *frames, unsigned n_frames,
    const char *model, const char *feature)
{
  GError *error = NULL;
  VhEngine *e = vh_engine_new (info, &error);
  gboolean ok = e != NULL;
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

int
main (int argc, char **argv)
{
  int n_frames = 48;
  char *sizes = NULL;
  char *features = NULL;
  GOptionEntry entries[] = {
    {"frames", 'n', 0, G_OPTION_ARG_INT, &n_frames, "Frames per run (48)", "N"},
    {"sizes", 0, 0, G_OPTION_ARG_STRING, &sizes,
        "Comma-separated sizes (1920x1080,3840x2160)", "LIST"},
    {"features", 0, 0, G_OPTION_ARG_STRING, &features,
        "Comma-separated features timed alone (vif,adm,motion)", "LIST"},
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

  printf ("# vmafhip CPU engine, 1 thread, 8-bit 4:2:0 synthetic content, "
      "%d frames per run\n", n_frames);
  char **feats = g_strsplit (features ? features : "vif,adm,motion", ",", -1);
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
        NULL);
    printf ("%-10s %8.1f fps", list[s], fps_model);
    for (guint f = 0; feats[f]; f++)
      printf (" %9.1f fps", run_once (&info, frames, n_frames, NULL,
              feats[f]));
    printf ("\n");
    fflush (stdout);
    for (unsigned i = 0; i < DISTINCT_FRAMES; i++)
      g_free (frames[i].store);
  }
  g_strfreev (list);
  g_strfreev (feats);
  g_free (sizes);
  g_free (features);
  return 0;
}
