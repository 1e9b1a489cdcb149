/* vmafhip-score — VMAF of a distorted video against its reference with the
 * vmafhip engine, taking libvmaf 3.2.0's `vmaf` command-line options for
 * what vmafhip supports (docs/cli.md):
 *
 *   vmafhip-score -r ref.y4m -d dis.y4m --json -o log.json
 *   vmafhip-score -r ref.yuv -d dis.yuv -w 1920 -h 1080 -p 420 -b 8 \
 *       -m version=vmaf_v0.6.1 -m version=vmaf_v0.6.1neg:name=vmaf_neg \
 *       --feature psnr --threads 4 --backend auto
 *   vmafhip-score --synthetic 640x360 --frame_cnt 24
 *   vmafhip-score --repair log.json      (finish a log cut short)
 *   vmafhip-score -r ref.y4m -d dis.y4m --chunk 2/4 -o part2
 *   vmafhip-score --merge part1 part2 part3 part4 --json -o log.json
 *                                        (a title in chunks: score-chunk.h)
 *
 * Every option is checked, the inputs' headers read, the models loaded and
 * the output opened before the first frame is read.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "score-chunk.h"
#include "score-input.h"
#include "score-merge.h"
#include "score-options.h"
#include "vh-engine.h"
#include "vh-backend.h"
#include "vh-gpu-backend.h"
#include "vh-gpu.h"
#include "vh-log-repair.h"
#include "vh-spec.h"
#include "vh-synth.h"
#include "vh-tool-config.h"

#ifndef VMAFHIP_VERSION
#define VMAFHIP_VERSION "0.1.0"
#endif


/* The output's format: one of --json/--xml/--csv/--sub (or --log-format),
 * XML when none is given, as libvmaf's CLI. */
static gboolean
output_format (const ScoreOptions *o, VhLogFormat *format, GError **error)
{
  const int n = !!o->xml + !!o->json + !!o->csv + !!o->sub;

  if (n > 1)
    return score_fail (error, "give one output format (--json, --xml, --csv or "
        "--sub), not %d", n);
  *format = o->json ? VH_LOG_JSON : o->csv ? VH_LOG_CSV : o->sub ? VH_LOG_SUB
      : VH_LOG_XML;
  if (o->log_format && (n || !vh_log_format_from_string (o->log_format,
              format)))
    return score_fail (error, n ? "--log-format and --%s both set the format" :
        "unknown --log-format '%s' (json, xml, csv, sub)", n ? (o->json ?
            "json" : o->xml ? "xml" : o->csv ? "csv" : "sub") :
        o->log_format);
  return TRUE;
}

/* --backend, by the engine's rule (vh_backend_choose, as the element):
 * the GPU for hip (or auto when one works), else the CPU. */
static gboolean
choose_backend (VhEngine *engine, const ScoreOptions *o, VhGpu **gpu_out,
    GError **error)
{
  const char *name = o->backend ? o->backend : "auto";
  VhBackendKind kind;
  GError *gpu_error = NULL;

  if (!vh_backend_kind_from_string (name, &kind))
    return score_fail (error, "unknown --backend '%s' (auto, cpu, hip)", name);
  if (kind != VH_BACKEND_CPU && o->gpu_given && o->gpu_device >= 0) {
    /* a GPU asked for by index that is not there: no falling back */
    const int n = vh_backend_count_gpus (vh_tool_config ());
    if (n > 0 && o->gpu_device >= n)
      return score_fail (error, "--gpu %d: there %s %d GPU%s (give auto or "
          "%s%d)", o->gpu_device, n == 1 ? "is" : "are", n, n == 1 ? "" : "s",
          n == 1 ? "" : "0 to ", n - 1);
  }
  VhBackendChoice *choice = vh_backend_choose (kind, o->gpu_device,
      vh_tool_config (), &gpu_error);
  if (!choice) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "--backend hip: no usable GPU: %s (use --backend cpu or auto)",
        gpu_error->message);
    g_clear_error (&gpu_error);
    return FALSE;
  }
  if (vh_backend_choice_fallback (choice) && !o->quiet)
    fprintf (stderr, "vmafhip-score: no usable GPU (%s): scoring on the "
        "CPU\n", vh_backend_choice_fallback (choice));
  gboolean ok = TRUE;
  if (vh_backend_choice_is_gpu (choice)) {
    /* the engine owns the accelerator from here, attached or not: a
     * failure can leave it half attached, so there is no falling back */
    ok = vh_backend_choice_attach (choice, engine, 0, error);
    if (!ok)
      g_prefix_error (error, "--backend %s: ", name);
    else {
      /* (the inputs' buffers are its pinned memory) */
      *gpu_out = vh_gpu_ref (vh_backend_choice_gpu (choice));
      if (!o->quiet)
        fprintf (stderr, "vmafhip-score: scoring on the GPU (%s; %u of %u "
            "features)\n", vh_backend_choice_description (choice),
            vh_engine_n_accelerated (engine),
            vh_engine_n_accelerable (engine));
    }
  }
  vh_backend_choice_unref (choice);
  return ok;
}

static gboolean
check_output_path (const char *path, GError **error)
{
  gchar *dir = g_path_get_dirname (path);
  gboolean ok = g_file_test (dir, G_FILE_TEST_IS_DIR)
      && !g_file_test (path, G_FILE_TEST_IS_DIR)
      && access (g_file_test (path, G_FILE_TEST_EXISTS) ? path : dir, W_OK)
      == 0;

  if (!ok)
    score_fail (error, "cannot write output '%s': %s", path,
        !g_file_test (dir, G_FILE_TEST_IS_DIR) ? "no such folder" :
        g_file_test (path, G_FILE_TEST_IS_DIR) ? "it is a folder" :
        g_strerror (errno));
  g_free (dir);
  return ok;
}

/* --no_prediction: the features a model would use, with its options and
 * the spec's overrides, but not the model (libvmaf's -n). */
static gboolean
add_model_features (VhEngine *engine, const VhModelSpec *spec,
    const VhModel *model, GError **error)
{
  for (unsigned i = 0; i < vh_model_n_features (model); i++) {
    const char *internal = vh_model_feature_name (model, i);
    const VhFeatureName *fn = vh_feature_name_lookup (internal);
    unsigned n_opts = 0;
    const VhModelOpt *mopts = vh_model_feature_opts (model, i, &n_opts);
    GArray *opts;
    gboolean ok;

    if (!fn || !fn->fex)
      return score_fail (error, "model '%s' needs feature '%s', which vmafhip "
          "does not implement yet", vh_model_name (model), fn ? fn->alias :
          internal);
    opts = g_array_new (FALSE, FALSE, sizeof (VhModelOpt));
    g_array_append_vals (opts, mopts, n_opts);
    /* after the model's own options, so that they win */
    for (unsigned k = 0; k < spec->n_overrides; k++)
      if (!strcmp (spec->overrides[k].feature, fn->fex->name))
        g_array_append_vals (opts, &spec->overrides[k].opt, 1);
    ok = vh_engine_add_feature_from (engine, vh_model_name (model),
        fn->fex->name, (const VhModelOpt *) opts->data, opts->len, error);
    g_array_free (opts, TRUE);
    if (!ok) {
      g_prefix_error (error, "model '%s': ", vh_model_name (model));
      return FALSE;
    }
  }
  return TRUE;
}

/* The table's frame `frame`, as frame `shown` of the title */
static void
print_frame (const VhScoreTable *t, unsigned frame, unsigned shown)
{
  printf ("frame %u:", shown);
  for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
    double v;
    const char *name = vh_score_table_metric_name (t, m);
    /* keep the line short: models and PSNR-like metrics only */
    if (g_str_has_prefix (name, "integer_")
        || g_str_has_prefix (name, "VMAF_integer"))
      continue;
    if (vh_score_table_get (t, m, frame, &v))
      printf (" %s=%.6f", name, v);
  }
  printf ("\n");
}

/* The models' (report names) pooled scores, and the aggregates */
static void
print_pooled (const char *const *models, const VhScoreTable *t,
    unsigned done, double secs, unsigned subsample)
{
  /* (the frames pooled: with --subsample N every N-th of those read) */
  const unsigned pooled = (done + subsample - 1) / subsample;
  if (subsample > 1)
    printf ("pooled over %u frames (every %u. of %u read; %.1f fps):\n",
        pooled, subsample, done, done / secs);
  else
    printf ("pooled over %u frames (%.1f fps):\n", done, done / secs);
  for (unsigned i = 0; models[i]; i++) {
    const char *name = models[i];
    VhPooled p;
    if (vh_score_table_pool_all (t, (unsigned) vh_score_table_find (t, name),
            subsample, &p))
      printf ("  %s: mean %.6f harmonic_mean %.6f min %.6f max %.6f\n", name,
          p.mean, p.harmonic_mean, p.min, p.max);
  }
  /* the stream's aggregates (psnr=enable_apsnr=true) */
  for (unsigned k = 0; k < vh_score_table_n_aggregates (t); k++) {
    double v;
    const char *name = vh_score_table_aggregate (t, k, &v);
    printf ("  %s: %.6f\n", name, v);
  }
}

/* Adds a final frame to the log. A log that cannot be written (full
 * disk) does not stop the scoring: the error is kept for the end, after
 * the pooled scores, and the log is closed as it is, for --repair. */
static void
log_frame (VhLogWriter **log, const VhScoreTable *t, unsigned frame,
    GError **log_error)
{
  if (!*log || vh_log_writer_add_frame (*log, t, frame, log_error))
    return;
  fprintf (stderr, "vmafhip-score: %s: scoring goes on, the pooled scores "
      "come at the end (--repair finishes the log with the frames it "
      "holds)\n", (*log_error)->message);
  g_clear_pointer (log, vh_log_writer_free);
}

/* A final frame out: printed and logged, or, in a chunk, into its part
 * file where it is one of the chunk's own (the table's frame `frame` is
 * the title's read_first + frame). */
static gboolean
report_frame (const ScoreOptions *o, const VhEngine *engine,
    VhLogWriter **log, ScorePart *part, const ScoreChunkRange *range,
    unsigned frame, GError **log_error, GError **error)
{
  const VhScoreTable *t = vh_engine_scores (engine);
  const unsigned title_frame = range->read_first + frame;

  if (part && !score_chunk_owns (range, title_frame))
    return TRUE;
  if (!o->quiet && vh_engine_scores_frame (engine, frame))
    print_frame (t, frame, title_frame);
  if (part)
    return score_part_add_frame (part, t, frame, title_frame, error);
  log_frame (log, t, frame, log_error);
  return TRUE;
}

/* The models' report names, NULL-terminated (g_free, not the names) */
static const char **
model_names (const VhEngine *engine)
{
  const unsigned n = vh_engine_n_models (engine);
  const char **names = g_new0 (const char *, n + 1);
  for (unsigned i = 0; i < n; i++)
    names[i] = vh_engine_model_report_name (engine, i);
  return names;
}

static int
run (ScoreOptions *o, GError **error)
{
  ScoreInput in[2] = { {0}, {0} };
  VhScaleFilter upscale = VH_SCALE_BICUBIC;
  gboolean scale_rung = FALSE;
  VhSynth *synth = NULL;
  VhEngine *engine = NULL;
  VhGpu *gpu = NULL;            /* where the GPU scores */
  VhLogWriter *log = NULL;
  GError *log_error = NULL;
  VhLogFormat format = VH_LOG_XML;
  VhVideoInfo info = { 0 };
  /* --chunk: the chunk, its frames and its part file; without it the
   * frames read are the title's (read_first 0) */
  ScoreChunk chunk = { 0, 0 };
  ScoreChunkRange range = { 0 };
  ScorePart *part = NULL;
  GPtrArray *models = g_ptr_array_new_with_free_func (
      (GDestroyNotify) vh_model_spec_free);
  GPtrArray *features = g_ptr_array_new_with_free_func (
      (GDestroyNotify) vh_feature_spec_free);
  unsigned done = 0, n_final;
  int rc = 1;
  gint64 t0;

  /* -------- everything checked before the first frame is read -------- */
  if (o->subsample < 1) {
    score_fail (error, "--subsample must be at least 1, not %d", o->subsample);
    goto out;
  }
  if (o->threads < 0 || o->frame_cnt < 0 || o->frame_skip_ref < 0
      || o->frame_skip_dist < 0) {
    score_fail (error, "--threads, --frame_cnt and --frame_skip_* take numbers "
        "of at least 0");
    goto out;
  }
  /* -p and -b as libvmaf's parser checks them, whatever the input */
  if (o->pixel_format && !score_pixel_format_layout (o->pixel_format)) {
    score_fail (error, "invalid --pixel_format/-p '%s': should be 420, 422 or "
        "444", o->pixel_format);
    goto out;
  }
  if (o->bitdepth && o->bitdepth != 8 && o->bitdepth != 10
      && o->bitdepth != 12) {
    score_fail (error, "invalid --bitdepth/-b %d: vmafhip scores 8, 10 or 12 "
        "bits", o->bitdepth);
    goto out;
  }
  if (!output_format (o, &format, error)
      || (o->output && !check_output_path (o->output, error)))
    goto out;
  for (guint i = 0; o->models && o->models[i]; i++) {
    VhModelSpec *spec = vh_model_spec_parse (o->models[i], NULL, error);
    if (!spec)
      goto out;
    g_ptr_array_add (models, spec);
  }
  if (!models->len && o->no_prediction && !o->features) {
    score_fail (error, "nothing to compute: --no_prediction/-n without --model "
        "or --feature");
    goto out;
  }
  if (!models->len && !o->no_prediction) {
    /* libvmaf's default model */
    g_ptr_array_add (models, vh_model_spec_parse ("version=vmaf_v0.6.1",
            NULL, NULL));
  }
  /* as libvmaf's CLI: a model without name= is reported as "vmaf", and
   * names must differ (the element's rule too: common/engine/spec.c) */
  if (!vh_model_specs_check_report_names ((const VhModelSpec *const *)
          models->pdata, models->len, error))
    goto out;
  for (guint i = 0; o->features && o->features[i]; i++) {
    VhFeatureSpec *spec = vh_feature_spec_parse (o->features[i], error);
    if (!spec)
      goto out;
    g_ptr_array_add (features, spec);
  }
  if (o->chunk && (!score_chunk_parse (o->chunk, &chunk, error)
          || !score_chunk_check_options (o, models, features, error)))
    goto out;

  if (o->synthetic) {
    if (sscanf (o->synthetic, "%ux%u", &info.width, &info.height) != 2) {
      score_fail (error, "--synthetic wants WIDTHxHEIGHT, not '%s'",
          o->synthetic);
      goto out;
    }
    info.bpc = o->bitdepth ? (unsigned) o->bitdepth : 8;
    synth = vh_synth_new (info.width, info.height, info.bpc, VH_SYNTH_420,
        (uint32_t) o->seed);
    if (!synth) {
      score_fail (error, "cannot make a %ux%u %u-bit synthetic pair",
          info.width, info.height, info.bpc);
      goto out;
    }
  } else {
    if (!o->ref_path || !o->dis_path) {
      score_fail (error, "give the reference (-r/--reference) and the "
          "distorted video (-d/--distorted), .y4m or .yuv, or --synthetic "
          "WxH");
      goto out;
    }
    if ((o->dis_width > 0) != (o->dis_height > 0)) {
      score_fail (error, "give both --dis_width and --dis_height, or neither");
      goto out;
    }
    if (!score_input_open (&in[0], o->ref_path, o, o->width, o->height, error)
        || !score_input_open (&in[1], o->dis_path, o, o->dis_width > 0
            ? o->dis_width : o->width, o->dis_height > 0 ? o->dis_height
            : o->height, error))
      goto out;
    if (o->raw_chroma && !in[0].raw && !in[1].raw) {
      score_fail (error, "--raw_chroma applies to raw (.yuv) files, and "
          "neither input is one");
      goto out;
    }
    if (in[0].format->bpc != in[1].format->bpc) {
      score_fail (error, "the reference is %u-bit, the distorted video %u-bit: "
          "VMAF compares frames of the same depth", in[0].format->bpc,
          in[1].format->bpc);
      goto out;
    }
    /* as libvmaf's "pixel formats do not match": caught here, not by the
     * engine at the first frame */
    if (strcmp (score_chroma_layout (in[0].format),
            score_chroma_layout (in[1].format))) {
      score_fail (error, "the reference is %s (%s), the distorted video %s "
          "(%s): VMAF compares frames of the same chroma layout",
          score_chroma_layout (in[0].format), in[0].format->name,
          score_chroma_layout (in[1].format), in[1].format->name);
      goto out;
    }
    info = (VhVideoInfo) { in[0].width, in[0].height, in[0].format->bpc };
    const gboolean sizes_differ = in[0].width != in[1].width
        || in[0].height != in[1].height;
    /* scaling is asked for, never assumed: libvmaf refuses such a pair */
    if (sizes_differ && !o->scaler && o->dis_width <= 0) {
      score_fail (error, "the reference is %ux%u, the distorted video %ux%u: "
          "give --scaler (or --dis_width/--dis_height for raw input) to "
          "scale a smaller distorted video up to the reference",
          in[0].width, in[0].height, in[1].width, in[1].height);
      goto out;
    }
    if (sizes_differ && !score_upscale_filter (&in[0], &in[1], o->scaler,
            &upscale, error))
      goto out;
    scale_rung = sizes_differ;
    if (o->scaler && !sizes_differ) {
      score_fail (error, "--scaler: the distorted video is the reference's "
          "size already (%ux%u): nothing to scale", in[0].width,
          in[0].height);
      goto out;
    }
  }

  engine = vh_engine_new (&info, error);
  if (!engine || !vh_engine_set_config (engine, vh_tool_config (), error)
      || !vh_engine_set_threads (engine, o->threads ? o->threads : 1,
          error)
      || !vh_engine_set_subsample (engine, (unsigned) o->subsample, error))
    goto out;
  for (guint i = 0; i < models->len; i++) {
    VhModelSpec *spec = g_ptr_array_index (models, i);
    VhModel *model = vh_model_spec_load (spec, error);
    if (!model)
      goto out;
    if (o->no_prediction) {
      gboolean ok = add_model_features (engine, spec, model, error);
      vh_model_free (model);
      if (!ok)
        goto out;
    } else if (!vh_engine_add_model_spec (engine, spec, model, error)) {
      goto out;
    }
  }
  for (guint i = 0; i < features->len; i++)
    if (!vh_engine_add_feature_spec (engine, g_ptr_array_index (features, i),
            error))
      goto out;
  /* what libvmaf's CLI would drop silently (an extractor added once) */
  char **warnings = vh_engine_take_warnings (engine);
  for (guint i = 0; warnings && warnings[i]; i++)
    fprintf (stderr, "vmafhip-score: warning: %s\n", warnings[i]);
  g_strfreev (warnings);
  /* a chunk's frames, those read around them for motion, and its part */
  if (o->chunk && (!score_chunk_title_frames (o, synth ? NULL : in,
              &range.n_title, error)
          || !score_chunk_range (&chunk, range.n_title,
              vh_engine_lookahead (engine), (unsigned) o->subsample, &range,
              error)))
    goto out;
  if (!choose_backend (engine, o, &gpu, error))
    goto out;
  if (scale_rung && !vh_engine_set_distorted_scaling (engine, in[1].width,
          in[1].height, upscale, error))
    goto out;
  if (o->chunk) {
    const char *default_model[] = { "version=vmaf_v0.6.1", NULL };
    part = score_part_open (o->output, &chunk, &range, o, o->models
        || o->no_prediction ? (const char *const *) o->models :
        default_model, synth ? NULL : in, &info, engine, error);
    if (!part)
      goto out;
  } else if (o->output) {
    const VhLogInfo li = { info.width, info.height, NAN,
      (unsigned) o->subsample
    };
    log = vh_log_writer_open (o->output, format, &li, NULL, error);
    if (!log)
      goto out;
  }

  /* ------------------------------------------------------- the frames */
  /* Both inputs read ahead, each by a thread of its own, into buffers the
   * engine reads; on the GPU pinned ones, uploaded in place and held until
   * their frame is final: a frame's buffers are read into again only then,
   * so the ring holds the frames in flight (the GPU's slots and the
   * engine's lookahead) and a few read ahead.  On the CPU a frame is done
   * with once pushed. */
  const gboolean held = gpu != NULL;
  const unsigned n_slots = vh_engine_lookahead (engine)
      + VH_GPU_BACKEND_DEFAULT_SLOTS + 4;
  for (int k = 0; k < 2 && !synth; k++) {
    /* a chunk starts reading at its first frame read */
    const int skip = k ? o->frame_skip_dist : o->frame_skip_ref;
    const int got = score_input_skip (&in[k], (guint64) skip
        + range.read_first, error);
    if (got < 0)
      goto out;
    if (!got) {
      score_fail (error, "'%s' has fewer than %d frames to skip", in[k].path,
          skip);
      goto out;
    }
    if (!score_input_start (&in[k], gpu, n_slots, error))
      goto out;
  }
  /* frames to read: a chunk's, else --frame_cnt's (0: all) */
  const int n_read = o->chunk ? (int) (range.read_end - range.read_first)
      : o->frame_cnt ? o->frame_cnt : synth ? 24 : 0;
  int n = 0;
  t0 = g_get_monotonic_time ();
  for (; !n_read || n < n_read; n++) {
    VhPicture ref, dis;
    if (synth) {
      vh_synth_render (synth, range.read_first + (unsigned) n,
          (unsigned) o->strength, &ref, &dis);
    } else {
      int a = score_input_next (&in[0], &ref, held, error);
      int b = a < 0 ? -1 : score_input_next (&in[1], &dis, held, error);
      if (a < 0 || b < 0)
        goto out;
      if (a != b)             /* libvmaf's CLI says so too */
        fprintf (stderr, "vmafhip-score: '%s' ended before '%s'\n",
            in[a ? 1 : 0].path, in[a ? 0 : 1].path);
      if (!a || !b)
        break;
    }
    if (!vh_engine_push (engine, &ref, &dis, error))
      goto out;
    /* final frames: printed, logged, then out of memory */
    for (n_final = vh_engine_n_final (engine); done < n_final; done++) {
      if (!report_frame (o, engine, &log, part, &range, done, &log_error,
              error) || !vh_engine_release_frames (engine, done + 1, error))
        goto out;
    }
    for (int k = 0; k < 2 && !synth; k++)
      score_input_release (&in[k], held ? done : (guint64) n + 1);
  }
  if (!vh_engine_flush (engine, error))
    goto out;
  for (n_final = vh_engine_n_final (engine); done < n_final; done++)
    if (!report_frame (o, engine, &log, part, &range, done, &log_error,
            error))
      goto out;
  if (!done) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_IO, "no frame to score");
    goto out;
  }

  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  if (part) {
    /* (an input shorter than counted: a decoded one and --frame_cnt) */
    if (n < n_read) {
      score_fail (error, "--chunk %s: the inputs end after frame %u of the "
          "title, before the chunk's last frame read, %u: --frame_cnt "
          "says more frames than the title has", o->chunk,
          range.read_first + n - 1, range.read_end - 1);
      goto out;
    }
    if (!score_part_finish (part, secs, error))
      goto out;
    printf ("chunk %u/%u: frames %u-%u of %u (%u read, %.1f fps) written to "
        "'%s'; join the parts with vmafhip-score --merge\n", chunk.index,
        chunk.count, range.first, range.last, range.n_title, n, n / secs,
        o->output);
    rc = 0;
    goto out;
  }
  const VhScoreTable *t = vh_engine_scores (engine);
  const char **names = model_names (engine);
  print_pooled (names, t, done, secs, (unsigned) o->subsample);
  g_free (names);
  fflush (stdout);
  if (log_error) {
    g_propagate_error (error, g_steal_pointer (&log_error));
    goto out;
  }
  if (log && !vh_log_writer_finish (log, t, done / secs, error))
    goto out;
  rc = 0;

out:
  g_clear_error (&log_error);
  vh_log_writer_free (log);
  score_part_free (part);
  /* the engine first (the GPU's reads of held buffers done), then the
   * inputs' buffers, then the device they are pinned on */
  vh_engine_free (engine);
  vh_synth_free (synth);
  score_input_close (&in[0]);
  score_input_close (&in[1]);
  vh_gpu_close (gpu);
  g_ptr_array_unref (models);
  g_ptr_array_unref (features);
  return rc;
}

static const char *const format_names[] = {
  [VH_LOG_JSON] = "JSON", [VH_LOG_XML] = "XML", [VH_LOG_CSV] = "CSV",
  [VH_LOG_SUB] = "subtitles",
};

/* --repair FILE: finishes a log cut short (common/io/vh-log-repair.h) and
 * says what it did. */
static int
repair (const ScoreOptions *o, GError **error)
{
  VhLogRepairReport report;
  const char *path = o->repair;

  if (o->ref_path || o->dis_path || o->synthetic || o->output) {
    score_fail (error, "--repair FILE works on that file alone: give no "
        "-r/-d/--synthetic/-o with it");
    return 1;
  }
  if (!vh_log_repair_file (path, &report, error))
    return 1;
  const char *format = format_names[report.format];
  const gboolean pooled_section = report.format == VH_LOG_JSON
      || report.format == VH_LOG_XML;
  if (report.was_complete) {
    printf ("vmafhip-score: '%s' is complete (%s, %u frame%s%s): left as it "
        "is\n", path, format, report.n_frames, report.n_frames == 1 ? "" :
        "s", pooled_section ?
        ", its pooled section written" : ", ending with a whole line");
    vh_log_repair_report_clear (&report);
    return 0;
  }
  printf ("vmafhip-score: '%s' repaired (%s): %u complete frame%s kept",
      path, format, report.n_frames, report.n_frames == 1 ? "" : "s");
  if (report.header_cut)
    printf (", the header was cut short: %zu bytes dropped, an empty log "
        "written", report.dropped_bytes);
  else if (report.dropped_bytes)
    printf (", %zu bytes of %s dropped", report.dropped_bytes,
        report.frames_closed ? "an unfinished pooled section" :
        "a partial frame");
  if (report.zero_bytes)
    printf (", %zu zero bytes dropped from the end", report.zero_bytes);
  if (pooled_section && !report.header_cut)
    printf (", pooled section written from the kept frames");
  printf ("\n");
  if (report.n_frames) {
    const VhScoreTable *t = report.pooled;
    printf ("pooled over %u frame%s (from the file's printed values%s):\n",
        report.n_frames, report.n_frames == 1 ? "" : "s", pooled_section ? "" : "; CSV and subtitles have "
        "no pooled section");
    for (unsigned m = 0; m < vh_score_table_n_metrics (t); m++) {
      VhPooled p;
      if (vh_score_table_pool_all (t, m, 1, &p))
        printf ("  %s: mean %.6f harmonic_mean %.6f min %.6f max %.6f\n",
            vh_score_table_metric_name (t, m), p.mean, p.harmonic_mean,
            p.min, p.max);
    }
  }
  vh_log_repair_report_clear (&report);
  return 0;
}

/* --merge PART... -o LOG: the parts of a title's chunks joined into its
 * log (score-merge.h), and its pooled scores printed as a run prints
 * them. */
static int
merge (const ScoreOptions *o, const char *const *parts, GError **error)
{
  VhLogFormat format;
  ScoreMerged merged;

  if (o->ref_path || o->dis_path || o->synthetic || o->models || o->features
      || o->chunk || o->repair) {
    score_fail (error, "--merge joins part files, which carry the inputs "
        "and options of their run: give no -r/-d/--synthetic/-m/--feature/"
        "--chunk with it");
    return 1;
  }
  if (!o->output) {
    score_fail (error, "--merge: give the log's path with -o (and its "
        "format: --json, --xml (the default), --csv or --sub)");
    return 1;
  }
  if (!output_format (o, &format, error) || !check_output_path (o->output,
          error) || !score_merge (parts, o->output, format, &merged, error))
    return 1;
  printf ("vmafhip-score: %u parts merged into '%s' (%s)\n", merged.n_parts,
      o->output, format_names[format]);
  print_pooled ((const char *const *) merged.models, merged.table,
      merged.n_frames, merged.seconds, merged.subsample);
  score_merged_clear (&merged);
  return 0;
}

int
main (int argc, char **argv)
{
  ScoreOptions o = { .subsample = 1, .seed = 1, .strength = 3,
    .gpu_device = SCORE_GPU_UNSET
  };
  GOptionEntry entries[] = {
    {"reference", 'r', 0, G_OPTION_ARG_FILENAME, &o.ref_path,
        "Reference video, .y4m or raw .yuv", "FILE"},
    {"distorted", 'd', 0, G_OPTION_ARG_FILENAME, &o.dis_path,
        "Distorted video, .y4m or raw .yuv", "FILE"},
    {"width", 'w', 0, G_OPTION_ARG_INT, &o.width, "Width (raw input)", "W"},
    {"dis_width", 0, 0, G_OPTION_ARG_INT, &o.dis_width,
        "Width of a raw distorted video smaller than the reference (scaled "
        "up to it)", "W"},
    {"dis_height", 0, 0, G_OPTION_ARG_INT, &o.dis_height,
        "Height of a raw distorted video smaller than the reference", "H"},
    {"scaler", 0, 0, G_OPTION_ARG_STRING, &o.scaler,
        "How a smaller distorted video is scaled to the reference: bicubic "
        "(default), lanczos, bilinear (FFmpeg's filters)", "NAME"},
    {"height", 'h', 0, G_OPTION_ARG_INT, &o.height, "Height (raw input)",
        "H"},
    {"pixel_format", 'p', 0, G_OPTION_ARG_STRING, &o.pixel_format,
        "Chroma layout of raw input: 420, 422, 444", "FMT"},
    {"bitdepth", 'b', 0, G_OPTION_ARG_INT, &o.bitdepth,
        "Bit depth of raw input (or of --synthetic): 8, 10, 12", "N"},
    {"format", 'f', 0, G_OPTION_ARG_STRING, &o.format,
        "Raw layout by name instead of -p/-b (I420, NV12, P010_10LE, ...)",
        "FMT"},
    {"model", 'm', 0, G_OPTION_ARG_STRING_ARRAY, &o.models,
        "Model, libvmaf's syntax: version=NAME or path=FILE, with :name=, "
        ":enable_transform, :disable_clip, :FEATURE.OPTION=VALUE "
        "(repeatable; default version=vmaf_v0.6.1; reported as name=, "
        "else 'vmaf')", "PARAMS"},
    {"feature", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.features,
        "Extra feature, NAME[=OPTION=VALUE[:...]] (psnr, vif, adm, motion, float_ssim, float_ms_ssim, ciede, psnr_hvs, cambi; "
        "repeatable)", "FEATURE"},
    {"threads", 0, 0, G_OPTION_ARG_INT, &o.threads,
        "Worker threads (default 1)", "N"},
    {"subsample", 0, 0, G_OPTION_ARG_INT, &o.subsample,
        "Report and pool every N-th frame", "N"},
    {"frame_cnt", 0, 0, G_OPTION_ARG_INT, &o.frame_cnt,
        "Score at most N frames (synthetic: default 24)", "N"},
    {"frames", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &o.frame_cnt,
        "Same as --frame_cnt", "N"},
    {"frame_skip_ref", 0, 0, G_OPTION_ARG_INT, &o.frame_skip_ref,
        "Skip the first N reference frames", "N"},
    {"skip_ref_frame", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT,
        &o.frame_skip_ref, "Same as --frame_skip_ref", "N"},
    {"frame_skip_dist", 0, 0, G_OPTION_ARG_INT, &o.frame_skip_dist,
        "Skip the first N distorted frames", "N"},
    {"raw_chroma", 0, 0, G_OPTION_ARG_STRING, &o.raw_chroma,
        "Chroma planes of odd-size raw files: standard ((w+1)/2 x (h+1)/2 "
        "for 4:2:0, the default) or libvmaf (w/2 x h/2, packed, as "
        "libvmaf 3.2.0's vmaf CLI reads them)", "LAYOUT"},
    {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output,
        "Write libvmaf's log here (XML unless --json, --csv or --sub)",
        "FILE"},
    {"xml", 0, 0, G_OPTION_ARG_NONE, &o.xml, "Log as XML (default)", NULL},
    {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Log as JSON", NULL},
    {"csv", 0, 0, G_OPTION_ARG_NONE, &o.csv, "Log as CSV", NULL},
    {"sub", 0, 0, G_OPTION_ARG_NONE, &o.sub, "Log as subtitles", NULL},
    {"log-format", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_STRING,
        &o.log_format, "json, xml, csv or sub", "FMT"},
    {"backend", 0, 0, G_OPTION_ARG_STRING, &o.backend,
        "auto (a working GPU, else the CPU), cpu, hip", "B"},
    {"gpu", 0, 0, G_OPTION_ARG_STRING, &o.gpu,
        "GPU to score on: its index (default 0), or auto (the least-loaded "
        "GPU of the process)", "auto|N"},
    {"gpu_device", 0, 0, G_OPTION_ARG_INT, &o.gpu_device,
        "Same as --gpu N (-1: auto)", "N"},
    {"no_prediction", 'n', 0, G_OPTION_ARG_NONE, &o.no_prediction,
        "Features only: compute what the models need, predict nothing",
        NULL},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &o.quiet,
        "Print the pooled scores only", NULL},
    {"version", 'v', 0, G_OPTION_ARG_NONE, &o.version,
        "Print the version and exit", NULL},
    {"repair", 0, 0, G_OPTION_ARG_FILENAME, &o.repair,
        "Finish a results file cut short (killed, full disk, power loss) "
        "in place: keep its complete frames, write the pooled section",
        "FILE"},
    {"chunk", 0, 0, G_OPTION_ARG_STRING, &o.chunk,
        "Score the I-th of N frame ranges of the title (I from 1) into a "
        "part file (-o), for --merge", "I/N"},
    {"merge", 0, 0, G_OPTION_ARG_NONE, &o.merge,
        "Join the part files given as arguments (every chunk's) into the "
        "title's log (-o, with its format)", NULL},
    {"synthetic", 's', 0, G_OPTION_ARG_STRING, &o.synthetic,
        "Score a seeded synthetic pair of this size instead of files",
        "WxH"},
    {"seed", 0, 0, G_OPTION_ARG_INT, &o.seed, "Synthetic seed", "N"},
    {"strength", 0, 0, G_OPTION_ARG_INT, &o.strength,
        "Synthetic distortion strength 0..8 (default 3)", "N"},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx = g_option_context_new ("- VMAF scores with vmafhip, "
      "libvmaf's vmaf options");
  GError *error = NULL;
  int rc;

  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "vmafhip-score: %s\n", error->message);
    g_clear_error (&error);
    g_option_context_free (ctx);
    score_options_clear (&o);
    return 2;
  }
  g_option_context_free (ctx);
  if (o.version) {
    printf ("vmafhip-score %s (scores of libvmaf 3.2.0)\n", VMAFHIP_VERSION);
    score_options_clear (&o);
    return 0;
  }
  if (argc > 1 && !o.merge) {
    fprintf (stderr, "vmafhip-score: unexpected argument '%s'\n", argv[1]);
    score_options_clear (&o);
    return 2;
  }
  if (!score_options_resolve_gpu (&o, &error)) {
    fprintf (stderr, "vmafhip-score: %s\n", error->message);
    g_clear_error (&error);
    score_options_clear (&o);
    return 2;
  }
  /* --merge's parts: the arguments left, NULL-terminated */
  char **parts = g_new0 (char *, argc);
  for (int i = 1; i < argc; i++)
    parts[i - 1] = argv[i];
  rc = o.merge ? merge (&o, (const char *const *) parts, &error)
      : o.repair ? repair (&o, &error) : run (&o, &error);
  g_free (parts);
  if (error) {
    fprintf (stderr, "vmafhip-score: %s\n", error->message);
    g_clear_error (&error);
  }
  score_options_clear (&o);
  return rc;
}
