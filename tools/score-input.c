/* vmafhip-score's inputs (score-input.h): y4m, raw or decoded files,
 * their headers checked against the options, their frames skipped,
 * counted and read ahead. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "score-input.h"

/* libvmaf's -p/-b pair as a raw layout. */
static const VhRawFormat *
raw_format_of (const ScoreOptions *o, GError **error)
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
      score_fail (error, "unknown pixel format '%s' for -f/--format (%s)",
          o->format, vh_raw_format_names ());
    return f;
  }
  if (!o->pixel_format || !o->bitdepth) {
    score_fail (error, "a .yuv input needs --width/-w, --height/-h, "
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
const char *
score_chroma_layout (const VhRawFormat *f)
{
  if (f->gray)
    return "mono";
  return f->sub_y ? "4:2:0" : f->sub_x ? "4:2:2" : "4:4:4";
}

/* libvmaf's -p values as chroma layouts; NULL for any other. */
const char *
score_pixel_format_layout (const char *pixel_format)
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
check_y4m_against_options (const ScoreInput *in, const ScoreOptions *o,
    GError **error)
{
  if ((o->width > 0 && (unsigned) o->width != in->width)
      || (o->height > 0 && (unsigned) o->height != in->height))
    return score_fail (error, "'%s' is %ux%u by its %s, not %dx%d as "
        "-w/-h say", in->path, in->width, in->height,
        in->y4m ? "y4m header" : "decoder",
        o->width > 0 ? o->width : (int) in->width,
        o->height > 0 ? o->height : (int) in->height);
  if (o->bitdepth && (unsigned) o->bitdepth != in->format->bpc)
    return score_fail (error, "'%s' is %u-bit by its %s, not %d-bit as "
        "-b says", in->path, in->format->bpc,
        in->y4m ? "y4m header" : "decoder", o->bitdepth);
  if (o->pixel_format && strcmp (score_pixel_format_layout (o->pixel_format),
          score_chroma_layout (in->format)))
    return score_fail (error, "'%s' is %s by its %s, not %s as -p says",
        in->path, score_chroma_layout (in->format),
        in->y4m ? "y4m header" : "decoder", o->pixel_format);
  return TRUE;
}

/* The filter a smaller distorted video is scaled up with (issue 15's
 * renditions; the engine scales, on the GPU where it scores there).
 * FALSE: an unknown name, or a distorted video larger than the reference. */
gboolean
score_upscale_filter (const ScoreInput *ref, const ScoreInput *dis,
    const char *scaler_name, VhScaleFilter *filter, GError **error)
{
  if (!vh_scale_filter_from_string (scaler_name ? scaler_name : "bicubic",
          filter)) {
    score_fail (error, "unknown --scaler '%s' (bicubic, lanczos, bilinear)",
        scaler_name);
    return FALSE;
  }
  if (dis->width > ref->width || dis->height > ref->height) {
    score_fail (error, "the distorted video (%ux%u) is larger than the "
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
gboolean
score_input_open (ScoreInput *in, const char *path,
    const ScoreOptions *o, int width, int height, GError **error)
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
      return score_fail (error, "cannot open '%s': %s", path,
          g_strerror (errno));
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
      return score_fail (error, "cannot open '%s': %s", path,
          g_strerror (errno));
    in->format = raw_format_of (o, error);
    if (!in->format)
      return FALSE;
    if (o->raw_chroma && !vh_raw_chroma_from_string (o->raw_chroma,
            &in->chroma))
      return score_fail (error, "--raw_chroma wants standard or libvmaf, "
          "not '%s'", o->raw_chroma);
    in->width = (unsigned) width;
    in->height = (unsigned) height;
    in->raw = fopen (path, "rb");
    if (!in->raw)
      return score_fail (error, "cannot open '%s': %s", path,
          g_strerror (errno));
    /* frames go straight into the reader's buffers (pread, no stdio
     * copy), and the kernel reads the file ahead of them */
    posix_fadvise (fileno (in->raw), 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  return TRUE;
}

static size_t
input_frame_size (const ScoreInput *in)
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
  ScoreInput *in = source;
  const size_t size = input_frame_size (in);
  size_t n = 0;

  if (in->y4m)
    return vh_y4m_read_frame (in->y4m, buf, error);
  if (in->decoder)
    return vh_decoder_read (in->decoder, buf, error);
  const off_t at = (off_t) ((in->raw_first + index) * size);
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

int
score_input_skip (ScoreInput *in, guint64 n, GError **error)
{
  if (in->y4m)
    return vh_y4m_skip_frames (in->y4m, n, error);
  if (in->raw) {
    guint64 left = 0;
    gboolean cut;
    if (score_input_count (in, &left, &cut, error) < 0)
      return -1;
    in->raw_first += MIN (n, left);
    return n <= left;
  }
  /* a decoder cannot seek to a frame: they are decoded and dropped */
  guint8 *scratch = g_malloc (input_frame_size (in));
  int got = 1;
  for (guint64 k = 0; k < n && got == 1; k++)
    got = vh_decoder_read (in->decoder, scratch, error);
  g_free (scratch);
  return got;
}

int
score_input_count (ScoreInput *in, guint64 *n, gboolean *cut,
    GError **error)
{
  struct stat st;

  if (in->y4m)
    return vh_y4m_count_frames (in->y4m, n, cut, error);
  if (!in->raw)
    return 0;
  if (fstat (fileno (in->raw), &st)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot read '%s': %s",
        in->path, g_strerror (errno));
    return -1;
  }
  const guint64 frames = (guint64) st.st_size / input_frame_size (in);
  *cut = (guint64) st.st_size % input_frame_size (in) != 0;
  *n = frames > in->raw_first ? frames - in->raw_first : 0;
  return 1;
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
gboolean
score_input_start (ScoreInput *in, VhGpu *gpu, unsigned n_slots,
    GError **error)
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
int
score_input_next (ScoreInput *in, VhPicture *pic, gboolean held,
    GError **error)
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

void
score_input_release (ScoreInput *in, guint64 n)
{
  vh_frame_reader_release (in->reader, n);
}

void
score_input_close (ScoreInput *in)
{
  /* (the thread stopped before its file closes) */
  vh_frame_reader_free (in->reader);
  vh_y4m_close (in->y4m);
  vh_decoder_close (in->decoder);
  if (in->raw)
    fclose (in->raw);
}
