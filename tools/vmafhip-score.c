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
 *
 * Every option is checked, the inputs' headers read, the models loaded and
 * the output opened before the first frame is read.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vh-decode.h"
#include "vh-engine.h"
#include "vh-frame-reader.h"
#include "vh-backend.h"
#include "vh-gpu-backend.h"
#include "vh-gpu.h"
#include "vh-log-repair.h"
#include "vh-rawvideo.h"
#include "scale.h"
#include "vh-spec.h"
#include "vh-synth.h"
#include "vh-tool-config.h"
#include "vh-y4m.h"

#ifndef VMAFHIP_VERSION
#define VMAFHIP_VERSION "0.1.0"
#endif

typedef struct {
  char *ref_path, *dis_path, *pixel_format, *format, *synthetic;
  char *output, *log_format, *backend, *scaler, *repair, *raw_chroma;
  int width, height, bitdepth, frame_cnt, frame_skip_ref, frame_skip_dist;
  int dis_width, dis_height;
  int subsample, threads, gpu_device, seed, strength;
  gboolean xml, json, csv, sub, quiet, version, no_prediction;
  char **models, **features;
} Options;

/* One input: a y4m file or a raw file, read ahead by a thread of its own
 * into the buffers the engine reads (tools/frame-reader.c) */
typedef struct {
  const char *path;
  VhY4m *y4m;
  FILE *raw;
  VhDecoder *decoder;           /* any other file, decoded by GStreamer */
  const VhRawFormat *format;
  VhRawChroma chroma;           /* a raw file's odd-size chroma layout */
  unsigned width, height;
  VhFrameReader *reader;
  guint64 n_skipped;            /* frames read and skipped (frame_skip_*) */
} Input;

static gboolean G_GNUC_PRINTF (2, 3)
fail (GError **error, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  char *msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error_literal (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT, msg);
  g_free (msg);
  return FALSE;
}

/* libvmaf's -p/-b pair as a raw layout. */
static const VhRawFormat *
raw_format_of (const Options *o, GError **error)
{
  static const char *const names[3][3] = {
    {"I420", "I420_10LE", "I420_12LE"},
    {"Y42B", "I422_10LE", "I422_12LE"},
    {"Y444", "Y444_10LE", "Y444_12LE"},
  };
  int layout, depth;

  if (o->format) {
    const VhRawFormat *f = vh_raw_format_lookup (o->format);
    if (!f)
      fail (error, "unknown pixel format '%s' for -f/--format (%s)",
          o->format, vh_raw_format_names ());
    return f;
  }
  if (!o->pixel_format || !o->bitdepth) {
    fail (error, "a .yuv input needs --width/-w, --height/-h, "
        "--pixel_format/-p and --bitdepth/-b (or a .y4m file)");
    return NULL;
  }
  /* -p and -b were checked in run () */
  layout = !strcmp (o->pixel_format, "420") ? 0 :
      !strcmp (o->pixel_format, "422") ? 1 : 2;
  depth = o->bitdepth == 8 ? 0 : o->bitdepth == 10 ? 1 : 2;
  return vh_raw_format_lookup (names[layout][depth]);
}

/* The chroma layout a raw format stores, as the y4m and -p names go. */
static const char *
chroma_layout (const VhRawFormat *f)
{
  if (f->gray)
    return "mono";
  return f->sub_y ? "4:2:0" : f->sub_x ? "4:2:2" : "4:4:4";
}

/* libvmaf's -p values as chroma layouts; NULL for any other. */
static const char *
pixel_format_layout (const char *pixel_format)
{
  if (!strcmp (pixel_format, "420"))
    return "4:2:0";
  if (!strcmp (pixel_format, "422"))
    return "4:2:2";
  if (!strcmp (pixel_format, "444"))
    return "4:4:4";
  return NULL;
}

/* -w/-h/-p/-b given with a y4m file must agree with its header: libvmaf
 * would read the file as raw with them, header included. */
static gboolean
check_y4m_against_options (const Input *in, const Options *o, GError **error)
{
  if ((o->width > 0 && (unsigned) o->width != in->width)
      || (o->height > 0 && (unsigned) o->height != in->height))
    return fail (error, "'%s' is %ux%u by its %s, not %dx%d as "
        "-w/-h say", in->path, in->width, in->height,
        in->y4m ? "y4m header" : "decoder",
        o->width > 0 ? o->width : (int) in->width,
        o->height > 0 ? o->height : (int) in->height);
  if (o->bitdepth && (unsigned) o->bitdepth != in->format->bpc)
    return fail (error, "'%s' is %u-bit by its %s, not %d-bit as "
        "-b says", in->path, in->format->bpc,
        in->y4m ? "y4m header" : "decoder", o->bitdepth);
  if (o->pixel_format && strcmp (pixel_format_layout (o->pixel_format),
          chroma_layout (in->format)))
    return fail (error, "'%s' is %s by its %s, not %s as -p says",
        in->path, chroma_layout (in->format),
        in->y4m ? "y4m header" : "decoder", o->pixel_format);
  return TRUE;
}

/* The filter a smaller distorted video is scaled up with (issue 15's
 * renditions; the engine scales, on the GPU where it scores there).
 * FALSE: an unknown name, or a distorted video larger than the reference. */
static gboolean
upscale_filter (const Input *ref, const Input *dis, const char *scaler_name,
    VhScaleFilter *filter, GError **error)
{
  if (!vh_scale_filter_from_string (scaler_name ? scaler_name : "bicubic",
          filter)) {
    fail (error, "unknown --scaler '%s' (bicubic, lanczos, bilinear)",
        scaler_name);
    return FALSE;
  }
  if (dis->width > ref->width || dis->height > ref->height) {
    fail (error, "the distorted video (%ux%u) is larger than the "
        "reference (%ux%u): renditions are scaled up to the reference's "
        "size, never down", dis->width, dis->height, ref->width,
        ref->height);
    return FALSE;
  }
  return TRUE;
}

/* Whether the file's name says it is compressed or in a container (then it
 * is decoded, whatever -w/-h say: libvmaf's users give them for raw) */
static gboolean
is_container (const char *path)
{
  static const char *const ext[] = { ".mp4", ".m4v", ".mov", ".mkv",
    ".webm", ".ts", ".m2ts", ".mts", ".avi", ".mxf", ".flv", ".ivf",
    ".h264", ".264", ".h265", ".265", ".hevc", ".mpg", ".mpeg", ".ogv",
    ".obu", ".av1", ".vp9"
  };
  for (unsigned i = 0; i < G_N_ELEMENTS (ext); i++) {
    const size_t n = strlen (path), m = strlen (ext[i]);
    if (n > m && !g_ascii_strcasecmp (path + n - m, ext[i]))
      return TRUE;
  }
  return FALSE;
}

/* Opens an input and reads its header; no frame is read.  A raw file is
 * width x height (the distorted one may have its own size). */
static gboolean
input_open (Input *in, const char *path, const Options *o, int width,
    int height, GError **error)
{
  in->path = path;
  if (vh_y4m_probe (path)) {
    in->y4m = vh_y4m_open (path, error);
    if (!in->y4m)
      return FALSE;
    in->format = vh_y4m_format (in->y4m);
    in->width = vh_y4m_width (in->y4m);
    in->height = vh_y4m_height (in->y4m);
    if (width == o->width && height == o->height
        && !check_y4m_against_options (in, o, error))
      return FALSE;
  } else if (is_container (path) || width <= 0 || height <= 0) {
    /* neither y4m nor raw (no size given): what GStreamer decodes */
    if (!g_file_test (path, G_FILE_TEST_IS_REGULAR) && access (path, R_OK))
      return fail (error, "cannot open '%s': %s", path, g_strerror (errno));
    if (!(in->decoder = vh_decoder_open (path, error)))
      return FALSE;
    in->format = vh_decoder_format (in->decoder);
    in->width = vh_decoder_width (in->decoder);
    in->height = vh_decoder_height (in->decoder);
    if (width == o->width && height == o->height
        && !check_y4m_against_options (in, o, error))
      return FALSE;
  } else {
    if (!g_file_test (path, G_FILE_TEST_IS_REGULAR) && access (path, R_OK))
      return fail (error, "cannot open '%s': %s", path, g_strerror (errno));
    in->format = raw_format_of (o, error);
    if (!in->format)
      return FALSE;
    if (o->raw_chroma && !vh_raw_chroma_from_string (o->raw_chroma,
            &in->chroma))
      return fail (error, "--raw_chroma wants standard or libvmaf, not "
          "'%s'", o->raw_chroma);
    in->width = (unsigned) width;
    in->height = (unsigned) height;
    in->raw = fopen (path, "rb");
    if (!in->raw)
      return fail (error, "cannot open '%s': %s", path, g_strerror (errno));
    /* frames go straight into the reader's buffers (pread, no stdio
     * copy), and the kernel reads the file ahead of them */
    posix_fadvise (fileno (in->raw), 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  return TRUE;
}

static size_t
input_frame_size (const Input *in)
{
  return vh_raw_frame_size_chroma (in->format, in->width, in->height,
      in->chroma);
}

/* The reader's VhFrameReadFunc: 1 a frame, 0 the end, -1 an error.  A
 * y4m file is read in order (one thread); a raw file's frame i at its
 * offset (several threads at once). */
static int
input_read_into (void *source, guint64 index, guint8 *buf, GError **error)
{
  Input *in = source;
  const size_t size = input_frame_size (in);
  size_t n = 0;

  if (in->y4m)
    return vh_y4m_read_frame (in->y4m, buf, error);
  if (in->decoder)
    return vh_decoder_read (in->decoder, buf, error);
  const off_t at = (off_t) (index * size);
  while (n < size) {
    const ssize_t got = pread (fileno (in->raw), buf + n, size - n,
        at + (off_t) n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot read '%s': %s",
          in->path, g_strerror (errno));
      return -1;
    }
    if (got == 0)
      break;
    n += (size_t) got;
  }
  if (n == size)
    return 1;
  if (n == 0)
    return 0;
  g_set_error (error, VH_ERROR, VH_ERROR_IO, "'%s' ends with a partial "
      "frame (%zu of %zu bytes): wrong size or format?", in->path, n, size);
  return -1;
}

static void *
pinned_alloc (void *gpu, size_t size, GError **error)
{
  return vh_gpu_host_alloc (gpu, size, error);
}

static void
pinned_free (void *gpu, void *ptr)
{
  vh_gpu_host_free (gpu, ptr);
}

/* Its reader, started: n_slots buffers, pinned host memory of `gpu` where
 * the GPU scores (uploaded in place), else the heap.  A raw file is read
 * by several threads (a 2160p frame is 12 MB: one thread's copy from the
 * page cache would hold the GPU back), a quarter of the CPUs, 2 to 4. */
static gboolean
input_start (Input *in, VhGpu *gpu, unsigned n_slots, GError **error)
{
  const VhFrameMemory pinned = { pinned_alloc, pinned_free, gpu };
  const unsigned n_threads = in->y4m || in->decoder ? 1
      : CLAMP (g_get_num_processors () / 4, 2, 4);

  in->reader = vh_frame_reader_new (input_read_into, in,
      input_frame_size (in), n_slots, n_threads, gpu ? &pinned : NULL,
      error);
  if (!in->reader)
    g_prefix_error (error, "'%s': ", in->path);
  return in->reader != NULL;
}

/* The next frame as a picture: 1, 0 at the end, -1 on error.  held: the
 * caller releases it once its frame is final (the GPU reads it in place
 * until then). */
static int
input_next (Input *in, VhPicture *pic, gboolean held, GError **error)
{
  guint8 *buf;
  const int got = vh_frame_reader_next (in->reader, &buf, error);

  if (got == 1) {
    vh_raw_picture_chroma (in->format, buf, in->width, in->height,
        in->chroma, pic);
    pic->held = held;
  }
  return got;
}

/* The input's frames before its n-th scored one are done with */
static void
input_release (Input *in, guint64 n)
{
  vh_frame_reader_release (in->reader, in->n_skipped + n);
}

static void
input_close (Input *in)
{
  /* (the thread stopped before its file closes) */
  vh_frame_reader_free (in->reader);
  vh_y4m_close (in->y4m);
  vh_decoder_close (in->decoder);
  if (in->raw)
    fclose (in->raw);
}

/* The output's format: one of --json/--xml/--csv/--sub (or --log-format),
 * XML when none is given, as libvmaf's CLI. */
static gboolean
output_format (const Options *o, VhLogFormat *format, GError **error)
{
  const int n = !!o->xml + !!o->json + !!o->csv + !!o->sub;

  if (n > 1)
    return fail (error, "give one output format (--json, --xml, --csv or "
        "--sub), not %d", n);
  *format = o->json ? VH_LOG_JSON : o->csv ? VH_LOG_CSV : o->sub ? VH_LOG_SUB
      : VH_LOG_XML;
  if (o->log_format && (n || !vh_log_format_from_string (o->log_format,
              format)))
    return fail (error, n ? "--log-format and --%s both set the format" :
        "unknown --log-format '%s' (json, xml, csv, sub)", n ? (o->json ?
            "json" : o->xml ? "xml" : o->csv ? "csv" : "sub") :
        o->log_format);
  return TRUE;
}

/* --backend, by the engine's rule (vh_backend_choose, as the element):
 * the GPU for hip (or auto when one works), else the CPU. */
static gboolean
choose_backend (VhEngine *engine, const Options *o, VhGpu **gpu_out,
    GError **error)
{
  const char *name = o->backend ? o->backend : "auto";
  VhBackendKind kind;
  GError *gpu_error = NULL;

  if (!vh_backend_kind_from_string (name, &kind))
    return fail (error, "unknown --backend '%s' (auto, cpu, hip)", name);
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
    fail (error, "cannot write output '%s': %s", path,
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
      return fail (error, "model '%s' needs feature '%s', which vmafhip "
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

static void
print_frame (const VhScoreTable *t, unsigned frame)
{
  printf ("frame %u:", frame);
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

static void
print_pooled (const VhEngine *engine, const VhScoreTable *t, unsigned done,
    double secs, unsigned subsample)
{
  /* (the frames pooled: with --subsample N every N-th of those read) */
  const unsigned pooled = (done + subsample - 1) / subsample;
  if (subsample > 1)
    printf ("pooled over %u frames (every %u. of %u read; %.1f fps):\n",
        pooled, subsample, done, done / secs);
  else
    printf ("pooled over %u frames (%.1f fps):\n", done, done / secs);
  for (unsigned i = 0; i < vh_engine_n_models (engine); i++) {
    const char *name = vh_engine_model_report_name (engine, i);
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

static int
run (Options *o, GError **error)
{
  Input in[2] = { {0}, {0} };
  VhScaleFilter upscale = VH_SCALE_BICUBIC;
  gboolean scale_rung = FALSE;
  VhSynth *synth = NULL;
  VhEngine *engine = NULL;
  VhGpu *gpu = NULL;            /* where the GPU scores */
  VhLogWriter *log = NULL;
  GError *log_error = NULL;
  VhLogFormat format = VH_LOG_XML;
  VhVideoInfo info = { 0 };
  GPtrArray *models = g_ptr_array_new_with_free_func (
      (GDestroyNotify) vh_model_spec_free);
  GPtrArray *features = g_ptr_array_new_with_free_func (
      (GDestroyNotify) vh_feature_spec_free);
  unsigned done = 0, n_final;
  int rc = 1;
  gint64 t0;

  /* -------- everything checked before the first frame is read -------- */
  if (o->subsample < 1) {
    fail (error, "--subsample must be at least 1, not %d", o->subsample);
    goto out;
  }
  if (o->threads < 0 || o->frame_cnt < 0 || o->frame_skip_ref < 0
      || o->frame_skip_dist < 0) {
    fail (error, "--threads, --frame_cnt and --frame_skip_* take numbers "
        "of at least 0");
    goto out;
  }
  /* -p and -b as libvmaf's parser checks them, whatever the input */
  if (o->pixel_format && !pixel_format_layout (o->pixel_format)) {
    fail (error, "invalid --pixel_format/-p '%s': should be 420, 422 or "
        "444", o->pixel_format);
    goto out;
  }
  if (o->bitdepth && o->bitdepth != 8 && o->bitdepth != 10
      && o->bitdepth != 12) {
    fail (error, "invalid --bitdepth/-b %d: vmafhip scores 8, 10 or 12 "
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
    fail (error, "nothing to compute: --no_prediction/-n without --model "
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

  if (o->synthetic) {
    if (sscanf (o->synthetic, "%ux%u", &info.width, &info.height) != 2) {
      fail (error, "--synthetic wants WIDTHxHEIGHT, not '%s'", o->synthetic);
      goto out;
    }
    info.bpc = o->bitdepth ? (unsigned) o->bitdepth : 8;
    synth = vh_synth_new (info.width, info.height, info.bpc, VH_SYNTH_420,
        (uint32_t) o->seed);
    if (!synth) {
      fail (error, "cannot make a %ux%u %u-bit synthetic pair", info.width,
          info.height, info.bpc);
      goto out;
    }
  } else {
    if (!o->ref_path || !o->dis_path) {
      fail (error, "give the reference (-r/--reference) and the distorted "
          "video (-d/--distorted), .y4m or .yuv, or --synthetic WxH");
      goto out;
    }
    if ((o->dis_width > 0) != (o->dis_height > 0)) {
      fail (error, "give both --dis_width and --dis_height, or neither");
      goto out;
    }
    if (!input_open (&in[0], o->ref_path, o, o->width, o->height, error)
        || !input_open (&in[1], o->dis_path, o, o->dis_width > 0
            ? o->dis_width : o->width, o->dis_height > 0 ? o->dis_height
            : o->height, error))
      goto out;
    if (o->raw_chroma && !in[0].raw && !in[1].raw) {
      fail (error, "--raw_chroma applies to raw (.yuv) files, and neither "
          "input is one");
      goto out;
    }
    if (in[0].format->bpc != in[1].format->bpc) {
      fail (error, "the reference is %u-bit, the distorted video %u-bit: "
          "VMAF compares frames of the same depth", in[0].format->bpc,
          in[1].format->bpc);
      goto out;
    }
    /* as libvmaf's "pixel formats do not match": caught here, not by the
     * engine at the first frame */
    if (strcmp (chroma_layout (in[0].format), chroma_layout (in[1].format))) {
      fail (error, "the reference is %s (%s), the distorted video %s (%s): "
          "VMAF compares frames of the same chroma layout",
          chroma_layout (in[0].format), in[0].format->name,
          chroma_layout (in[1].format), in[1].format->name);
      goto out;
    }
    info = (VhVideoInfo) { in[0].width, in[0].height, in[0].format->bpc };
    const gboolean sizes_differ = in[0].width != in[1].width
        || in[0].height != in[1].height;
    /* scaling is asked for, never assumed: libvmaf refuses such a pair */
    if (sizes_differ && !o->scaler && o->dis_width <= 0) {
      fail (error, "the reference is %ux%u, the distorted video %ux%u: "
          "give --scaler (or --dis_width/--dis_height for raw input) to "
          "scale a smaller distorted video up to the reference",
          in[0].width, in[0].height, in[1].width, in[1].height);
      goto out;
    }
    if (sizes_differ && !upscale_filter (&in[0], &in[1], o->scaler,
            &upscale, error))
      goto out;
    scale_rung = sizes_differ;
    if (o->scaler && !sizes_differ) {
      fail (error, "--scaler: the distorted video is the reference's size "
          "already (%ux%u): nothing to scale", in[0].width, in[0].height);
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
  if (!choose_backend (engine, o, &gpu, error))
    goto out;
  if (scale_rung && !vh_engine_set_distorted_scaling (engine, in[1].width,
          in[1].height, upscale, error))
    goto out;
  if (o->output) {
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
    if (!input_start (&in[k], gpu, n_slots, error))
      goto out;
    const int skip = k ? o->frame_skip_dist : o->frame_skip_ref;
    for (int n = 0; n < skip; n++) {
      VhPicture pic;
      int got = input_next (&in[k], &pic, FALSE, error);
      if (got < 0)
        goto out;
      if (!got) {
        fail (error, "'%s' has fewer than %d frames to skip", in[k].path,
            skip);
        goto out;
      }
      in[k].n_skipped++;
      input_release (&in[k], 0);
    }
  }
  t0 = g_get_monotonic_time ();
  for (int n = 0; !o->frame_cnt || n < o->frame_cnt; n++) {
    VhPicture ref, dis;
    if (synth) {
      if (n >= (o->frame_cnt ? o->frame_cnt : 24))
        break;
      vh_synth_render (synth, (unsigned) n, (unsigned) o->strength, &ref,
          &dis);
    } else {
      int a = input_next (&in[0], &ref, held, error);
      int b = a < 0 ? -1 : input_next (&in[1], &dis, held, error);
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
      const VhScoreTable *t = vh_engine_scores (engine);
      if (!o->quiet && vh_engine_scores_frame (engine, done))
        print_frame (t, done);
      log_frame (&log, t, done, &log_error);
      if (!vh_engine_release_frames (engine, done + 1, error))
        goto out;
    }
    for (int k = 0; k < 2 && !synth; k++)
      input_release (&in[k], held ? done : (guint64) n + 1);
  }
  if (!vh_engine_flush (engine, error))
    goto out;
  for (n_final = vh_engine_n_final (engine); done < n_final; done++) {
    const VhScoreTable *t = vh_engine_scores (engine);
    if (!o->quiet && done % (unsigned) o->subsample == 0)
      print_frame (t, done);
    log_frame (&log, t, done, &log_error);
  }
  if (!done) {
    g_set_error_literal (error, VH_ERROR, VH_ERROR_IO, "no frame to score");
    goto out;
  }

  const double secs = (g_get_monotonic_time () - t0) / 1e6;
  const VhScoreTable *t = vh_engine_scores (engine);
  print_pooled (engine, t, done, secs, (unsigned) o->subsample);
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
  /* the engine first (the GPU's reads of held buffers done), then the
   * inputs' buffers, then the device they are pinned on */
  vh_engine_free (engine);
  vh_synth_free (synth);
  input_close (&in[0]);
  input_close (&in[1]);
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
repair (const Options *o, GError **error)
{
  VhLogRepairReport report;
  const char *path = o->repair;

  if (o->ref_path || o->dis_path || o->synthetic || o->output) {
    fail (error, "--repair FILE works on that file alone: give no "
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

int
main (int argc, char **argv)
{
  Options o = { .subsample = 1, .seed = 1, .strength = 3, .gpu_device = -1 };
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
    {"gpu_device", 0, 0, G_OPTION_ARG_INT, &o.gpu_device,
        "GPU to use (default the first)", "N"},
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
    return 2;
  }
  g_option_context_free (ctx);
  if (o.version) {
    printf ("vmafhip-score %s (scores of libvmaf 3.2.0)\n", VMAFHIP_VERSION);
    return 0;
  }
  if (argc > 1) {
    fprintf (stderr, "vmafhip-score: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  rc = o.repair ? repair (&o, &error) : run (&o, &error);
  if (error) {
    fprintf (stderr, "vmafhip-score: %s\n", error->message);
    g_clear_error (&error);
  }
  g_free (o.ref_path);
  g_free (o.dis_path);
  g_free (o.pixel_format);
  g_free (o.format);
  g_free (o.raw_chroma);
  g_free (o.synthetic);
  g_free (o.output);
  g_free (o.log_format);
  g_free (o.backend);
  g_free (o.scaler);
  g_free (o.repair);
  g_strfreev (o.models);
  g_strfreev (o.features);
  return rc;
}
