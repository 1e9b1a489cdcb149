/* vmafhip — YUV4MPEG2 reader (see vh-y4m.h). */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "vh-error.h"
#include "vh-y4m.h"

#define Y4M_MAGIC "YUV4MPEG2"

struct VhY4m {
  FILE *file;
  char *path;
  unsigned width, height;
  const VhRawFormat *format;
  size_t frame_size;
  unsigned frames_read;
};

gboolean
vh_y4m_probe (const char *path)
{
  char magic[sizeof Y4M_MAGIC - 1];
  FILE *f = fopen (path, "rb");
  gboolean is_y4m;

  if (!f)
    return FALSE;
  is_y4m = fread (magic, 1, sizeof magic, f) == sizeof magic
      && !memcmp (magic, Y4M_MAGIC, sizeof magic);
  fclose (f);
  return is_y4m;
}

/* One line up to '\n' (kept short: headers are a few dozen bytes). */
static gboolean
read_line (FILE *f, char *line, size_t size)
{
  size_t n = 0;
  int c;

  while ((c = fgetc (f)) != EOF && c != '\n') {
    if (n + 1 >= size)
      return FALSE;
    line[n++] = (char) c;
  }
  line[n] = '\0';
  return c == '\n';
}

/* The y4m colour spaces vmafhip reads, by their C tag. */
static const struct {
  const char *tag;
  const char *format;
} colorspaces[] = {
  {"420jpeg", "I420"}, {"420paldv", "I420"}, {"420mpeg2", "I420"},
  {"420", "I420"}, {"422", "Y42B"}, {"444", "Y444"},
  {"420p10", "I420_10LE"}, {"422p10", "I422_10LE"}, {"444p10", "Y444_10LE"},
  {"420p12", "I420_12LE"}, {"422p12", "I422_12LE"}, {"444p12", "Y444_12LE"},
  {"mono", "GRAY8"},
};

VhY4m *
vh_y4m_open (const char *path, GError **error)
{
  char header[1024];
  const char *colorspace = "420jpeg";
  VhY4m *y = g_new0 (VhY4m, 1);
  gchar **fields = NULL;

  y->path = g_strdup (path);
  y->file = fopen (path, "rb");
  if (!y->file) {
    int e = errno;
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot open '%s': %s", path,
        g_strerror (e));
    goto fail;
  }
  if (!read_line (y->file, header, sizeof header)
      || !g_str_has_prefix (header, Y4M_MAGIC " ")) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "'%s' is not a YUV4MPEG2 file (no 'YUV4MPEG2 ' header line)", path);
    goto fail;
  }
  fields = g_strsplit (header + sizeof Y4M_MAGIC, " ", -1);
  for (guint i = 0; fields[i]; i++) {
    const char *v = fields[i] + 1;
    switch (fields[i][0]) {
      case 'W':
        y->width = (unsigned) g_ascii_strtoull (v, NULL, 10);
        break;
      case 'H':
        y->height = (unsigned) g_ascii_strtoull (v, NULL, 10);
        break;
      case 'C':
        colorspace = v;
        break;
      case 'I':
        if (v[0] && v[0] != 'p' && v[0] != '?') {
          g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
              "'%s' is interlaced (I%s): VMAF scores progressive frames",
              path, v);
          goto fail;
        }
        break;
      default:                 /* F, A, X: not needed for scoring */
        break;
    }
  }
  for (gsize k = 0; k < G_N_ELEMENTS (colorspaces); k++)
    if (!strcmp (colorspace, colorspaces[k].tag))
      y->format = vh_raw_format_lookup (colorspaces[k].format);
  if (!y->format) {
    g_set_error (error, VH_ERROR, VH_ERROR_UNSUPPORTED,
        "'%s': y4m colour space C%s is not supported (420, 422, 444 at 8, 10 "
        "or 12 bits, mono)", path, colorspace);
    goto fail;
  }
  if (!y->width || !y->height) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "'%s': the y4m header gives no picture size (W and H)", path);
    goto fail;
  }
  y->frame_size = vh_raw_frame_size (y->format, y->width, y->height);
  g_strfreev (fields);
  return y;

fail:
  g_strfreev (fields);
  vh_y4m_close (y);
  return NULL;
}

void
vh_y4m_close (VhY4m *y)
{
  if (!y)
    return;
  if (y->file)
    fclose (y->file);
  g_free (y->path);
  g_free (y);
}

unsigned
vh_y4m_width (const VhY4m *y)
{
  return y->width;
}

unsigned
vh_y4m_height (const VhY4m *y)
{
  return y->height;
}

const VhRawFormat *
vh_y4m_format (const VhY4m *y)
{
  return y->format;
}

/* The next frame's FRAME line: 1 read (its data follows), 0 the end of
 * the file, -1 not a FRAME line. */
static int
frame_header (VhY4m *y, GError **error)
{
  char line[1024];
  int c = fgetc (y->file);

  if (c == EOF)
    return 0;
  ungetc (c, y->file);
  if (!read_line (y->file, line, sizeof line)
      || !g_str_has_prefix (line, "FRAME")) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "'%s': frame %u does not start with a FRAME line", y->path,
        y->frames_read);
    return -1;
  }
  return 1;
}

int
vh_y4m_read_frame (VhY4m *y, guint8 *buf, GError **error)
{
  size_t got;
  const int header = frame_header (y, error);

  if (header != 1)
    return header;
  got = fread (buf, 1, y->frame_size, y->file);
  if (got != y->frame_size) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO,
        "'%s' ends inside frame %u (%zu of %zu bytes)", y->path,
        y->frames_read, got, y->frame_size);
    return -1;
  }
  y->frames_read++;
  return 1;
}

/* Past the next frame without reading its data: 1, 0 at the end or in a
 * frame cut short (the file's size says; *cut set), -1 a bad FRAME
 * line. */
static int
skip_frame (VhY4m *y, off_t file_size, gboolean *cut, GError **error)
{
  *cut = FALSE;
  const int header = frame_header (y, error);
  if (header != 1)
    return header;
  const off_t at = ftello (y->file);
  if (at < 0 || at + (off_t) y->frame_size > file_size
      || fseeko (y->file, (off_t) y->frame_size, SEEK_CUR)) {
    *cut = TRUE;                /* (reading it fails: "ends inside") */
    return 0;
  }
  y->frames_read++;
  return 1;
}

static off_t
file_size (VhY4m *y)
{
  struct stat st;
  return fstat (fileno (y->file), &st) ? -1 : st.st_size;
}

int
vh_y4m_skip_frames (VhY4m *y, guint64 n, GError **error)
{
  const off_t size = file_size (y);
  gboolean cut;
  int got = 1;

  for (guint64 k = 0; k < n && got == 1; k++)
    got = skip_frame (y, size, &cut, error);
  return got;
}

int
vh_y4m_count_frames (VhY4m *y, guint64 *n, gboolean *cut, GError **error)
{
  const off_t at = ftello (y->file), size = file_size (y);
  const unsigned frames_read = y->frames_read;
  int got;

  *n = 0;
  while ((got = skip_frame (y, size, cut, error)) == 1)
    (*n)++;
  y->frames_read = frames_read;
  if (at < 0 || fseeko (y->file, at, SEEK_SET)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot seek in '%s': %s",
        y->path, g_strerror (errno));
    return -1;
  }
  return got < 0 ? -1 : 1;
}
