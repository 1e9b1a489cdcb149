/* vmafhip-score — scores a video pair with the vmafhip engine (CPU).
 *
 * Reads raw YUV files, or renders a seeded synthetic pair (--synthetic), and
 * prints per-frame and pooled scores; optionally writes a libvmaf-format log.
 *
 *   vmafhip-score --synthetic 640x360 --frames 24
 *   vmafhip-score -r ref.yuv -d dis.yuv -w 1920 -h 1080 -f I420 \
 *       -m vmaf_v0.6.1 -m vmaf_v0.6.1neg --feature psnr -o log.json
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vh-engine.h"
#include "vh-rawvideo.h"
#include "vh-synth.h"

typedef struct {
  char *ref_path, *dis_path, *format, *synthetic, *output, *log_format;
  int width, height, frames, bpc, seed, strength;
  char **models, **features;
  gboolean quiet;
} Options;

/* "NAME_OR_PATH[:name=REPORT][:enable_transform][:disable_clip]", libvmaf's
 * --model syntax minus the "version=/path=" prefix. */
static gboolean
add_model_spec (VhEngine *engine, const char *spec, GError **error)
{
  char **parts = g_strsplit (spec, ":", -1);
  const char *report = NULL;
  VhModelFlags flags = { 0 };
  gboolean ok = TRUE;

  for (guint i = 1; ok && parts[i]; i++) {
    if (g_str_has_prefix (parts[i], "name="))
      report = parts[i] + 5;
    else if (!strcmp (parts[i], "enable_transform"))
      flags.enable_transform = true;
    else if (!strcmp (parts[i], "disable_clip"))
      flags.disable_clip = true;
    else {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "unknown model flag '%s' in '%s' (name=, enable_transform, "
          "disable_clip)", parts[i], spec);
      ok = FALSE;
    }
  }
  if (ok)
    ok = vh_engine_add_model (engine, parts[0], report, &flags, error);
  g_strfreev (parts);
  return ok;
}

static void
print_frame (const VhScoreTable *t, unsigned frame, const Options *o)
{
  if (o->quiet)
    return;
  printf ("frame %u:", frame);
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    double v;
    const char *name = vh_score_table_metric_name (t, m);
    /* keep the line short: models and PSNR only */
    if (g_str_has_prefix (name, "integer_")
        || g_str_has_prefix (name, "VMAF_integer"))
      continue;
    if (vh_score_table_get (t, m, frame, &v))
      printf (" %s=%.6f", name, v);
  }
  printf ("\n");
}

static int
run (Options *o, GError **error)
{
  const VhRawFormat *fmt = NULL;
  VhSynth *synth = NULL;
  FILE *fr = NULL, *fd = NULL;
  guint8 *buf_r = NULL, *buf_d = NULL;
  size_t frame_size = 0;
  VhVideoInfo info;
  VhEngine *engine = NULL;
  int rc = 1;
  unsigned printed = 0;
  gint64 t0;

  if (o->synthetic) {
    if (sscanf (o->synthetic, "%ux%u", &info.width, &info.height) != 2) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "--synthetic wants WIDTHxHEIGHT, not '%s'", o->synthetic);
      return 1;
    }
    info.bpc = o->bpc;
    synth = vh_synth_new (info.width, info.height, info.bpc, VH_SYNTH_420,
        (uint32_t) o->seed);
    if (!synth) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "cannot make a %ux%u %u-bit synthetic pair", info.width,
          info.height, info.bpc);
      return 1;
    }
  } else {
    if (!o->ref_path || !o->dis_path || o->width <= 0 || o->height <= 0) {
      g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "give --ref, --dis, --width and --height, or --synthetic WxH");
      return 1;
    }
    fmt = vh_raw_format_lookup (o->format);
    if (!fmt) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "unknown pixel format '%s' (%s)", o->format, vh_raw_format_names ());
      return 1;
    }
    info = (VhVideoInfo) { (unsigned) o->width, (unsigned) o->height, fmt->bpc };
    fr = fopen (o->ref_path, "rb");
    fd = fopen (o->dis_path, "rb");
    if (!fr || !fd) {
      g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot open '%s': %s",
          !fr ? o->ref_path : o->dis_path, g_strerror (errno));
      goto out;
    }
    frame_size = vh_raw_frame_size (fmt, info.width, info.height);
    buf_r = g_malloc (frame_size);
    buf_d = g_malloc (frame_size);
  }

  engine = vh_engine_new (&info, error);
  if (!engine)
    goto out;
  if (!o->models || !o->models[0]) {
    if (!vh_engine_add_model (engine, "vmaf_v0.6.1", "vmaf", NULL, error))
      goto out;
  }
  for (guint i = 0; o->models && o->models[i]; i++)
    if (!add_model_spec (engine, o->models[i], error))
      goto out;
  for (guint i = 0; o->features && o->features[i]; i++)
    if (!vh_engine_add_feature (engine, o->features[i], error))
      goto out;

  t0 = g_get_monotonic_time ();
  for (int n = 0; o->frames <= 0 || n < o->frames; n++) {
    VhPicture ref, dis;
    if (synth) {
      vh_synth_render (synth, (unsigned) n, (unsigned) o->strength, &ref, &dis);
    } else {
      size_t got_r = fread (buf_r, 1, frame_size, fr);
      size_t got_d = fread (buf_d, 1, frame_size, fd);
      if (!got_r || !got_d)
        break;
      if (got_r != frame_size || got_d != frame_size) {
        g_set_error (error, VH_ERROR, VH_ERROR_IO,
            "'%s' ends with a partial frame (%zu of %zu bytes): wrong size "
            "or format?", got_r != frame_size ? o->ref_path : o->dis_path,
            got_r != frame_size ? got_r : got_d, frame_size);
        goto out;
      }
      vh_raw_picture (fmt, buf_r, info.width, info.height, &ref);
      vh_raw_picture (fmt, buf_d, info.width, info.height, &dis);
    }
    if (!vh_engine_push (engine, &ref, &dis, error))
      goto out;
    for (; printed < vh_engine_n_final (engine); printed++)
      print_frame (vh_engine_scores (engine), printed, o);
  }
  if (!vh_engine_flush (engine, error))
    goto out;
  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  const VhScoreTable *t = vh_engine_scores (engine);
  for (; printed < vh_engine_n_final (engine); printed++)
    print_frame (t, printed, o);

  const unsigned n = vh_engine_n_final (engine);
  if (!n) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_IO, "no frame to score");
    goto out;
  }
  printf ("pooled over %u frames (%.1f fps):\n", n, n / secs);
  for (unsigned i = 0; i < vh_engine_n_models (engine); i++) {
    const char *name = vh_engine_model_report_name (engine, i);
    VhPooled p;
    if (vh_score_table_pool (t, vh_score_table_find (t, name), 0, n - 1, 1, &p))
      printf ("  %s: mean %.6f harmonic_mean %.6f min %.6f max %.6f\n", name,
          p.mean, p.harmonic_mean, p.min, p.max);
  }
  if (o->output) {
    VhLogFormat lf = VH_LOG_JSON;
    if (o->log_format && !vh_log_format_from_string (o->log_format, &lf)) {
      g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
          "unknown log format '%s' (json, xml, csv)", o->log_format);
      goto out;
    }
    VhLogInfo li = { info.width, info.height, n / secs, 1 };
    if (!vh_log_write_file (t, lf, &li, o->output, error))
      goto out;
  }
  rc = 0;

out:
  vh_engine_free (engine);
  vh_synth_free (synth);
  if (fr)
    fclose (fr);
  if (fd)
    fclose (fd);
  g_free (buf_r);
  g_free (buf_d);
  return rc;
}

int
main (int argc, char **argv)
{
  Options o = { .format = g_strdup ("I420"), .bpc = 8, .seed = 1,
      .strength = 3 };
  GOptionEntry entries[] = {
    {"ref", 'r', 0, G_OPTION_ARG_FILENAME, &o.ref_path,
        "Reference raw video file", "FILE"},
    {"dis", 'd', 0, G_OPTION_ARG_FILENAME, &o.dis_path,
        "Distorted raw video file", "FILE"},
    {"width", 'w', 0, G_OPTION_ARG_INT, &o.width, "Width", "W"},
    {"height", 'h', 0, G_OPTION_ARG_INT, &o.height, "Height", "H"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &o.format,
        "Pixel format of the raw files (default I420)", "FMT"},
    {"synthetic", 's', 0, G_OPTION_ARG_STRING, &o.synthetic,
        "Score a seeded synthetic pair of this size instead of files", "WxH"},
    {"bpc", 'b', 0, G_OPTION_ARG_INT, &o.bpc,
        "Bit depth of the synthetic pair (8, 10, 12)", "N"},
    {"seed", 0, 0, G_OPTION_ARG_INT, &o.seed, "Synthetic seed", "N"},
    {"strength", 0, 0, G_OPTION_ARG_INT, &o.strength,
        "Synthetic distortion strength 0..8 (default 3)", "N"},
    {"frames", 'n', 0, G_OPTION_ARG_INT, &o.frames,
        "Frames to score (default: all; synthetic: 24)", "N"},
    {"model", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &o.models,
        "Model: built-in name or JSON path, with optional :name=REPORT, "
        ":enable_transform, :disable_clip (repeatable; default vmaf_v0.6.1)",
        "SPEC"},
    {"feature", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.features,
        "Extra feature (psnr) (repeatable)", "NAME"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
        "Write a libvmaf-format log here", "FILE"},
    {"log-format", 0, 0, G_OPTION_ARG_STRING, &o.log_format,
        "Log format: json (default), xml, csv", "FMT"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
        "Print pooled scores only", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- VMAF scores with vmafhip");
  GError *error = NULL;
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_set_help_enabled (ctx, TRUE);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "vmafhip-score: %s\n", error->message);
    g_clear_error (&error);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (o.synthetic && o.frames <= 0)
    o.frames = 24;
  rc = run (&o, &error);
  if (error) {
    fprintf (stderr, "vmafhip-score: %s\n", error->message);
    g_clear_error (&error);
  }
  g_free (o.ref_path);
  g_free (o.dis_path);
  g_free (o.format);
  g_free (o.synthetic);
  g_free (o.output);
  g_free (o.log_format);
  g_strfreev (o.models);
  g_strfreev (o.features);
  return rc;
}
