/* vmafhip — finishing a results file cut short (vh-log-repair.h).
 *
 * A scan of the text finds the head, each complete frame and the end of
 * the last one; each complete frame is parsed (json-glib, GMarkup, or split
 * on its separators) into a score table that retires every frame into its
 * metrics' running pools at once, so memory does not grow with the file.
 * That table, written by vh_log_write, gives the pooled section and the
 * end, appended to the kept bytes: the layout is log.c's own. The scan only
 * counts brackets and tags; values are left to the parsers.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <json-glib/json-glib.h>

#include "vh-log-repair.h"

/* Deeper than any results file nests (intervals: 5 levels). */
#define MAX_DEPTH 16

typedef struct {
  const char *path;
  const char *text;
  gsize end;                /* the text's length, zero bytes at the end off */
  VhLogFormat format;
  /* the head was all there (sub has none: always) */
  gboolean head_seen;
  gsize head_end;           /* just after the frames' opening */
  gsize frames_end;         /* just after the last complete frame */
  gboolean frames_closed;   /* the frames' end is there */
  gboolean complete;        /* the log's end is there */
  gsize params_at, params_len;  /* XML: a complete <params> tag; len 0: none */
  VhScoreTable *table;
  unsigned n_frames;
  char **csv_names;         /* CSV: the header's fields */
  JsonParser *json;
} Repair;

static unsigned
line_of (const Repair *r, gsize offset)
{
  unsigned line = 1;
  for (gsize i = 0; i < offset; i++)
    line += r->text[i] == '\n';
  return line;
}

static gboolean G_GNUC_PRINTF (3, 4)
not_a_log (const Repair *r, GError **error, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  char *why = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
      "'%s' is not a vmafhip or libvmaf results file: %s", r->path, why);
  g_free (why);
  return FALSE;
}

/* A byte a log cut short cannot hold: the file was damaged in the middle,
 * and repairing would lose what follows. */
static gboolean
damaged (const Repair *r, gsize at, const char *why, GError **error)
{
  g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
      "'%s' is damaged at byte %zu (line %u): %s; a log cut short has "
      "nothing wrong before its end, so it is left as it is", r->path, at,
      line_of (r, at), why);
  return FALSE;
}

static gboolean
bad_frame (const Repair *r, gsize at, const char *why, GError **error)
{
  g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
      "'%s': frame %u (line %u) is complete but does not parse: %s; left "
      "as it is", r->path, r->n_frames, line_of (r, at), why);
  return FALSE;
}

/* "null" (how the writers print NaN and infinities) or a number */
static gboolean
parse_value (const char *s, double *value)
{
  char *end;
  if (!strcmp (s, "null")) {
    *value = NAN;
    return TRUE;
  }
  *value = g_ascii_strtod (s, &end);
  return end != s && !*end;
}

static void
add_value (Repair *r, const char *name, double value)
{
  vh_score_table_set (r->table, vh_score_table_metric (r->table, name),
      r->n_frames, value);
}

/* Into the pools at once: only the pooled values are needed. */
static void
frame_done (Repair *r)
{
  r->n_frames++;
  vh_score_table_retire (r->table, r->n_frames, 1);
}

/* ------------------------------------------------------------------ JSON */

static gboolean
add_json_frame (Repair *r, gsize at, gsize len, GError **error)
{
  GError *err = NULL;
  if (!json_parser_load_from_data (r->json, r->text + at, (gssize) len,
          &err)) {
    gboolean ok = bad_frame (r, at, err->message, error);
    g_error_free (err);
    return ok;
  }
  JsonNode *root = json_parser_get_root (r->json);
  JsonObject *frame = JSON_NODE_HOLDS_OBJECT (root) ?
      json_node_get_object (root) : NULL;
  JsonNode *metrics = frame ? json_object_get_member (frame, "metrics") :
      NULL;
  if (!metrics || !JSON_NODE_HOLDS_OBJECT (metrics))
    return bad_frame (r, at, "no \"metrics\" object", error);
  JsonObjectIter iter;
  const char *name;
  JsonNode *node;
  json_object_iter_init_ordered (&iter, json_node_get_object (metrics));
  while (json_object_iter_next_ordered (&iter, &name, &node)) {
    if (JSON_NODE_HOLDS_NULL (node)) {
      add_value (r, name, NAN);
    } else if (JSON_NODE_HOLDS_VALUE (node)
        && (json_node_get_value_type (node) == G_TYPE_DOUBLE
            || json_node_get_value_type (node) == G_TYPE_INT64)) {
      add_value (r, name, json_node_get_double (node));
    } else {
      char *why = g_strdup_printf ("\"%s\" is not a number", name);
      bad_frame (r, at, why, error);
      g_free (why);
      return FALSE;
    }
  }
  frame_done (r);
  return TRUE;
}

/* The root's keys before the frames, as the writers put them. */
static const char *const json_head_keys[] = { "version", "fps", "frames" };

static gboolean
key_is (const Repair *r, gsize at, gsize len, const char *key)
{
  return len == strlen (key) && !memcmp (r->text + at, key, len);
}

/* Brackets and strings only: where the frames start, where each ends, and
 * whether the root closes. */
static gboolean
scan_json (Repair *r, GError **error)
{
  const char *s = r->text;
  char open[MAX_DEPTH];
  int depth = 0;
  gboolean in_string = FALSE, escaped = FALSE, string_is_key = FALSE;
  gboolean key_next = FALSE, in_frames = FALSE, pooled_seen = FALSE;
  gsize string_at = 0, key_at = 0, key_len = 0, frame_at = 0;
  unsigned n_head_keys = 0;

  for (gsize i = 0; i < r->end; i++) {
    const char c = s[i];
    if (in_string) {
      if ((guchar) c < 0x20)
        return damaged (r, i, "a control byte inside a string", error);
      if (escaped) {
        escaped = FALSE;
      } else if (c == '\\') {
        escaped = TRUE;
      } else if (c == '"') {
        in_string = FALSE;
        if (!string_is_key || depth != 1)
          continue;
        key_at = string_at;
        key_len = i - string_at;
        if (!r->head_seen) {
          const char *want = n_head_keys < G_N_ELEMENTS (json_head_keys) ?
              json_head_keys[n_head_keys] : "";
          if (!key_is (r, key_at, key_len, want))
            return not_a_log (r, error, "its root has the key '%.*s' where "
                "a results file has \"%s\"", (int) MIN (key_len, 40),
                s + key_at, want);
          n_head_keys++;
        } else if (key_is (r, key_at, key_len, "pooled_metrics")) {
          pooled_seen = TRUE;
        }
      }
      continue;
    }
    switch (c) {
      case '"':
        if (in_frames && depth == 2)
          return not_a_log (r, error, "its \"frames\" array holds a "
              "string (line %u)", line_of (r, i));
        in_string = TRUE;
        string_at = i + 1;
        string_is_key = key_next;
        key_next = FALSE;
        break;
      case '{':
      case '[':
        if (depth == MAX_DEPTH)
          return not_a_log (r, error, "it nests deeper than %d levels "
              "(line %u)", MAX_DEPTH, line_of (r, i));
        if (!r->head_seen && depth >= 1 && !(c == '[' && depth == 1
                && key_is (r, key_at, key_len, "frames")))
          return not_a_log (r, error, "its head holds %s (line %u)",
              c == '{' ? "an object" : "an array", line_of (r, i));
        if (in_frames && depth == 2) {
          if (c != '{')
            return not_a_log (r, error, "its \"frames\" array holds an "
                "array (line %u)", line_of (r, i));
          frame_at = i;
        }
        open[depth++] = c;
        key_next = c == '{';
        if (!r->head_seen && depth == 2) {
          r->head_seen = TRUE;
          r->head_end = r->frames_end = i + 1;
          in_frames = TRUE;
        }
        break;
      case '}':
      case ']':
        if (!depth || open[depth - 1] != (c == '}' ? '{' : '['))
          return damaged (r, i, "a bracket that closes nothing open",
              error);
        if (in_frames && depth == 3) {
          if (!add_json_frame (r, frame_at, i + 1 - frame_at, error))
            return FALSE;
          r->frames_end = i + 1;
        } else if (in_frames && depth == 2) {
          in_frames = FALSE;
          r->frames_closed = TRUE;
        }
        if (--depth)
          break;
        for (gsize k = i + 1; k < r->end; k++)
          if (!g_ascii_isspace (s[k]))
            return damaged (r, k, "text after the root's end", error);
        if (!r->frames_closed)
          return not_a_log (r, error, "it is complete JSON without a "
              "\"frames\" array");
        if (!pooled_seen)
          return not_a_log (r, error, "it is complete JSON without "
              "\"pooled_metrics\"");
        r->complete = TRUE;
        return TRUE;
      case ',':
        key_next = depth >= 1 && open[depth - 1] == '{';
        break;
      case ':':
      case ' ':
      case '\t':
      case '\n':
      case '\r':
        break;
      default:
        if (!g_ascii_isalnum (c) && c != '-' && c != '+' && c != '.')
          return damaged (r, i, "a byte JSON has outside strings only",
              error);
        if (in_frames && depth == 2)
          return not_a_log (r, error, "its \"frames\" array holds a "
              "value that is not an object (line %u)", line_of (r, i));
        break;
    }
  }
  return TRUE;
}

/* The kept head must be JSON with a version once its frames are closed. */
static gboolean
check_json_head (Repair *r, GError **error)
{
  char *head = g_strdup_printf ("%.*s]}", (int) r->head_end, r->text);
  GError *err = NULL;
  gboolean ok = json_parser_load_from_data (r->json, head, -1, &err);
  if (!ok) {
    not_a_log (r, error, "its head does not parse: %s", err->message);
    g_error_free (err);
  }
  g_free (head);
  return ok;
}

/* ------------------------------------------------------------------- XML */

static void
xml_frame_start (GMarkupParseContext *context, const char *element,
    const char **names, const char **values, gpointer data, GError **error)
{
  Repair *r = data;
  (void) context;
  if (strcmp (element, "frame")) {
    g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
        "<%s> where a frame should be", element);
    return;
  }
  for (unsigned k = 0; names[k]; k++) {
    double v;
    /* (refFrameNum and time: which reference frame, not a metric) */
    if (!strcmp (names[k], "frameNum") || !strcmp (names[k], "refFrameNum")
        || !strcmp (names[k], "time"))
      continue;
    if (!parse_value (values[k], &v)) {
      g_set_error (error, G_MARKUP_ERROR, G_MARKUP_ERROR_INVALID_CONTENT,
          "%s=\"%s\" is not a number", names[k], values[k]);
      return;
    }
    add_value (r, names[k], v);
  }
}

static gboolean
add_xml_frame (Repair *r, gsize at, gsize len, GError **error)
{
  static const GMarkupParser parser = { xml_frame_start, NULL, NULL, NULL,
    NULL
  };
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, r,
      NULL);
  GError *err = NULL;
  gboolean ok = g_markup_parse_context_parse (ctx, r->text + at,
      (gssize) len, &err) && g_markup_parse_context_end_parse (ctx, &err);
  g_markup_parse_context_free (ctx);
  if (!ok) {
    bad_frame (r, at, err->message, error);
    g_error_free (err);
    return FALSE;
  }
  frame_done (r);
  return TRUE;
}

/* Tags before the frames, as the writers put them. */
static const char *const xml_head_tags[] = { "VMAF", "params", "fyi",
  "frames"
};

/* Tags only (no text is in a results file): the head, each <frame />,
 * and whether </VMAF> closes it. */
static gboolean
scan_xml (Repair *r, GError **error)
{
  const char *s = r->text;
  gboolean in_frames = FALSE, pooled_seen = FALSE;
  unsigned n_head_tags = 0;
  gsize i = 0;

  while (i < r->end) {
    if (g_ascii_isspace (s[i])) {
      i++;
      continue;
    }
    if (s[i] != '<')
      return damaged (r, i, "text outside a tag", error);
    const gsize tag_at = i;
    char quote = 0;
    gsize k;
    for (k = i + 1; k < r->end; k++) {
      if (!s[k])
        return damaged (r, k, "a zero byte inside a tag", error);
      if (quote) {
        if (s[k] == quote)
          quote = 0;
      } else if (s[k] == '"' || s[k] == '\'') {
        quote = s[k];
      } else if (s[k] == '<') {
        return damaged (r, k, "a tag inside a tag", error);
      } else if (s[k] == '>') {
        break;
      }
    }
    if (k == r->end)            /* a tag cut short */
      return TRUE;
    gsize tag_end = k + 1;
    i = tag_end;
    if (s[tag_at + 1] == '?' || s[tag_at + 1] == '!')
      continue;                 /* prolog, comment */
    const gboolean closing = s[tag_at + 1] == '/';
    const gboolean empty = s[k - 1] == '/';
    const char *name = s + tag_at + 1 + closing;
    const gsize name_len = strcspn (name, " \t\r\n/>");
    /* what follows a tag on its line is part of it, as the writers put it */
    if (tag_end < r->end && s[tag_end] == '\n')
      tag_end++;

    if (!r->head_seen) {
      const char *want = n_head_tags < G_N_ELEMENTS (xml_head_tags) ?
          xml_head_tags[n_head_tags] : "";
      if (closing || name_len != strlen (want) || memcmp (name, want,
              name_len))
        return not_a_log (r, error, "it has <%s%.*s> where a results file "
            "has <%s> (line %u)", closing ? "/" : "", (int) MIN (name_len,
                40), name, want, line_of (r, tag_at));
      n_head_tags++;
      if (!strcmp (want, "params")) {
        r->params_at = tag_at;
        r->params_len = k + 1 - tag_at;
      } else if (!strcmp (want, "frames")) {
        r->head_seen = TRUE;
        r->head_end = r->frames_end = tag_end;
        in_frames = TRUE;
      }
    } else if (in_frames) {
      if (closing && name_len == 6 && !memcmp (name, "frames", 6)) {
        in_frames = FALSE;
        r->frames_closed = TRUE;
      } else if (!closing && empty && name_len == 5
          && !memcmp (name, "frame", 5)) {
        if (!add_xml_frame (r, tag_at, k + 1 - tag_at, error))
          return FALSE;
        r->frames_end = tag_end;
      } else {
        return not_a_log (r, error, "<frames> holds <%s%.*s> (line %u), "
            "where a results file has only <frame ... />", closing ? "/" :
            "", (int) MIN (name_len, 40), name, line_of (r, tag_at));
      }
    } else if (name_len == 14 && !memcmp (name, "pooled_metrics", 14)) {
      pooled_seen = TRUE;
    } else if (closing && name_len == 4 && !memcmp (name, "VMAF", 4)) {
      for (; i < r->end; i++)
        if (!g_ascii_isspace (s[i]))
          return damaged (r, i, "text after </VMAF>", error);
      if (!pooled_seen)
        return not_a_log (r, error, "it ends without <pooled_metrics>");
      r->complete = TRUE;
      return TRUE;
    }
  }
  return TRUE;
}

typedef struct {
  unsigned width, height;
} XmlSize;

static void
xml_params_start (GMarkupParseContext *context, const char *element,
    const char **names, const char **values, gpointer data, GError **error)
{
  XmlSize *size = data;
  (void) context;
  (void) error;
  if (strcmp (element, "params"))
    return;
  for (unsigned k = 0; names[k]; k++) {
    if (!strcmp (names[k], "qualityWidth"))
      size->width = (unsigned) g_ascii_strtoull (values[k], NULL, 10);
    else if (!strcmp (names[k], "qualityHeight"))
      size->height = (unsigned) g_ascii_strtoull (values[k], NULL, 10);
  }
}

/* Parses `text` (a head closed by the caller, or one tag); the picture
 * size of its <params>, 0 x 0 where there is none. */
static gboolean
parse_xml_head (const char *text, gsize len, XmlSize *size, GError **error)
{
  static const GMarkupParser parser = { xml_params_start, NULL, NULL, NULL,
    NULL
  };
  GMarkupParseContext *ctx = g_markup_parse_context_new (&parser, 0, size,
      NULL);
  gboolean ok = g_markup_parse_context_parse (ctx, text, (gssize) len, error)
      && g_markup_parse_context_end_parse (ctx, error);
  g_markup_parse_context_free (ctx);
  return ok;
}

static gboolean
check_xml_head (Repair *r, GError **error)
{
  char *head = g_strdup_printf ("%.*s</frames></VMAF>", (int) r->head_end,
      r->text);
  XmlSize size = { 0, 0 };
  GError *err = NULL;
  gboolean ok = parse_xml_head (head, strlen (head), &size, &err);
  if (!ok) {
    not_a_log (r, error, "its head does not parse: %s", err->message);
    g_error_free (err);
  }
  g_free (head);
  return ok;
}

/* ---------------------------------------------------------- CSV and sub */

static gboolean
add_csv_frame (Repair *r, gsize at, gsize len, GError **error)
{
  char *line = g_strndup (r->text + at, len);
  char **fields = g_strsplit (line, ",", -1);
  guint n_names = g_strv_length (r->csv_names);
  guint n = g_strv_length (fields);
  gboolean ok = TRUE;

  /* every field ends with a comma: the last one is empty */
  if (n && !*fields[n - 1])
    n--;
  if (n_names && !*r->csv_names[n_names - 1])
    n_names--;
  if (n > n_names) {
    char *why = g_strdup_printf ("%u fields, the header names %u", n,
        n_names);
    ok = bad_frame (r, at, why, error);
    g_free (why);
  }
  for (guint k = 1; ok && k < n; k++) {
    double v;
    if (!parse_value (fields[k], &v)) {
      char *why = g_strdup_printf ("'%s' is not a number", fields[k]);
      ok = bad_frame (r, at, why, error);
      g_free (why);
    } else {
      add_value (r, r->csv_names[k], v);
    }
  }
  g_strfreev (fields);
  g_free (line);
  if (ok)
    frame_done (r);
  return ok;
}

/* libvmaf's subtitle line: "{N}{N+1}frame: N|name: value|...|" */
static gboolean
add_sub_frame (Repair *r, gsize at, gsize len, GError **error)
{
  char *line = g_strndup (r->text + at, len);
  char **fields = g_strsplit (line, "|", -1);
  gboolean ok = TRUE;

  if (!strstr (fields[0], "frame: "))
    ok = bad_frame (r, at, "no 'frame: N' before the scores", error);
  for (guint k = 1; ok && fields[k]; k++) {
    char *colon = strstr (fields[k], ": ");
    double v;
    if (!*fields[k])
      continue;
    if (!colon || !parse_value (colon + 2, &v)) {
      char *why = g_strdup_printf ("'%s' is not NAME: VALUE", fields[k]);
      ok = bad_frame (r, at, why, error);
      g_free (why);
      break;
    }
    *colon = '\0';
    add_value (r, fields[k], v);
  }
  g_strfreev (fields);
  g_free (line);
  if (ok)
    frame_done (r);
  return ok;
}

/* One frame a line (CSV after its header line); the last line is whole
 * when it ends with a newline. */
static gboolean
scan_lines (Repair *r, GError **error)
{
  gsize at = 0;
  if (r->format == VH_LOG_SUB) {
    r->head_seen = TRUE;
  }
  for (gsize i = 0; i < r->end; i++) {
    if (!r->text[i])
      return damaged (r, i, "a zero byte", error);
    if (r->text[i] != '\n')
      continue;
    if (!r->head_seen) {
      char *header = g_strndup (r->text, i);
      r->csv_names = g_strsplit (header, ",", -1);
      g_free (header);
      r->head_seen = TRUE;
      r->head_end = i + 1;
    } else if (!(r->format == VH_LOG_SUB ? add_sub_frame : add_csv_frame)
        (r, at, i - at, error)) {
      return FALSE;
    }
    at = r->frames_end = i + 1;
  }
  r->complete = r->head_seen && r->frames_end == r->end;
  return TRUE;
}

/* -------------------------------------------------------------- the file */

static gboolean
detect_format (Repair *r, GError **error)
{
  const char *s = r->text;
  gsize i = 0;
  while (i < r->end && g_ascii_isspace (s[i]))
    i++;
  const char *t = s + i;
  const gsize left = r->end - i;
  gsize k = 1;

  if (left > 1 && t[0] == '{') {
    while (k < left && g_ascii_isspace (t[k]))
      k++;
    if (k < left && t[k] == '"') {
      r->format = VH_LOG_JSON;
      return TRUE;
    }
    if (k < left && g_ascii_isdigit (t[k])) {
      r->format = VH_LOG_SUB;
      return TRUE;
    }
  }
  if ((left >= 5 && !memcmp (t, "<VMAF", 5))
      || (left >= 5 && !memcmp (t, "<?xml", 5))) {
    r->format = VH_LOG_XML;
    return TRUE;
  }
  if (left >= 6 && !memcmp (t, "Frame,", 6)) {
    r->format = VH_LOG_CSV;
    return TRUE;
  }
  char *start = g_strndup (t, MIN (left, 24));
  for (char *c = start; *c; c++)
    if (!g_ascii_isprint (*c))
      *c = '.';
  not_a_log (r, error, "it starts with '%s', not with '{\"version\"' "
      "(JSON), '<VMAF' (XML), 'Frame,' (CSV) or '{0}{1}frame:' "
      "(subtitles)", start);
  g_free (start);
  return FALSE;
}

static gboolean
write_all (int fd, const char *data, gsize len)
{
  while (len) {
    ssize_t n = write (fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return FALSE;
    data += n;
    len -= (gsize) n;
  }
  return TRUE;
}

/* The new content in a temporary file beside the target, made durable,
 * then renamed over it: at every moment the file is either the old or the
 * new one. A symbolic link keeps pointing at the repaired file. */
static gboolean
replace_file (const char *path, const char *const *parts,
    const gsize *lens, guint n_parts, GError **error)
{
  char *target = realpath (path, NULL);
  struct stat st;
  if (!target || stat (target, &st) != 0) {
    int e = errno;
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot repair '%s': %s",
        path, g_strerror (e));
    free (target);
    return FALSE;
  }
  char *tmp = g_strconcat (target, ".repair-XXXXXX", NULL);
  int fd = g_mkstemp_full (tmp, O_WRONLY | O_CLOEXEC, 0600);
  gboolean ok = fd >= 0;
  if (ok) {
    for (guint k = 0; ok && k < n_parts; k++)
      ok = write_all (fd, parts[k], lens[k]);
    ok = ok && fchmod (fd, st.st_mode & 07777) == 0 && fsync (fd) == 0;
  }
  int e = errno;
  if (fd >= 0 && close (fd) != 0 && ok) {
    ok = FALSE;
    e = errno;
  }
  if (ok && rename (tmp, target) != 0) {
    ok = FALSE;
    e = errno;
  }
  if (!ok) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot write the repaired "
        "'%s' (through '%s'): %s; the file is as it was", path, tmp,
        g_strerror (e ? e : EIO));
    if (fd >= 0)
      g_unlink (tmp);
  } else {
    /* the rename itself made durable */
    char *folder = g_path_get_dirname (target);
    int dfd = open (folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      fsync (dfd);
      close (dfd);
    }
    g_free (folder);
  }
  g_free (tmp);
  free (target);
  return ok;
}

/* The log vh_log_write gives for the repair's table (every frame retired,
 * so it holds no frame), and where its frames would start. */
static gsize
written_log (const Repair *r, const VhLogInfo *info, GString *out)
{
  Repair w = { .path = r->path, .format = r->format };

  vh_log_write (r->table, r->format, info, out);
  w.text = out->str;
  w.end = out->len;
  if (r->format == VH_LOG_JSON)
    scan_json (&w, NULL);
  else
    scan_xml (&w, NULL);
  g_assert (w.head_seen && w.complete);
  return w.head_end;
}

void
vh_log_repair_report_clear (VhLogRepairReport *report)
{
  g_clear_pointer (&report->pooled, vh_score_table_free);
}

gboolean
vh_log_repair_file (const char *path, VhLogRepairReport *report,
    GError **error)
{
  Repair r = { .path = path };
  GMappedFile *map = NULL;
  GError *err = NULL;
  gsize len;
  gboolean ok = FALSE;

  memset (report, 0, sizeof *report);
  if (!g_file_test (path, G_FILE_TEST_EXISTS)
      || !g_file_test (path, G_FILE_TEST_IS_REGULAR)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot repair '%s': %s",
        path, g_file_test (path, G_FILE_TEST_EXISTS) ?
        "not a regular file" : g_strerror (ENOENT));
    return FALSE;
  }
  map = g_mapped_file_new (path, FALSE, &err);
  if (!map) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot read '%s': %s", path,
        err->message);
    g_error_free (err);
    return FALSE;
  }
  r.text = g_mapped_file_get_contents (map);
  len = g_mapped_file_get_length (map);
  r.end = len;
  while (r.end && !r.text[r.end - 1])
    r.end--;
  if (!r.end) {
    not_a_log (&r, error, "it %s (a log killed before its first frame "
        "holds nothing to keep either)", len ? "holds only zero bytes" :
        "is empty");
    goto out;
  }
  if (!detect_format (&r, error))
    goto out;
  r.table = vh_score_table_new ();
  r.json = json_parser_new ();
  if (!(r.format == VH_LOG_JSON ? scan_json (&r, error) :
          r.format == VH_LOG_XML ? scan_xml (&r, error) :
          scan_lines (&r, error)))
    goto out;
  if ((r.format == VH_LOG_JSON && r.head_seen && !check_json_head (&r,
              error)) || (r.format == VH_LOG_XML && r.head_seen
          && !check_xml_head (&r, error)))
    goto out;

  report->format = r.format;
  report->n_frames = r.n_frames;
  report->frames_closed = r.frames_closed;
  report->zero_bytes = len - r.end;
  if (r.complete && r.end == len) {
    report->was_complete = TRUE;
  } else {
    /* kept bytes, a newline where XML's last kept tag lacks it, the end */
    GString *log = g_string_new (NULL);
    const char *parts[3] = { r.text, "\n", "" };
    gsize lens[3] = { 0, 0, 0 };
    XmlSize size = { 0, 0 };
    if (r.complete) {
      lens[0] = r.end;
    } else if (!r.head_seen) {
      report->header_cut = TRUE;
      report->dropped_bytes = r.end;
      if (r.params_len)
        parse_xml_head (r.text + r.params_at, r.params_len, &size, NULL);
      const VhLogInfo info = { size.width, size.height, NAN, 1 };
      vh_log_write (r.table, r.format, &info, log);
      parts[2] = log->str;
      lens[2] = log->len;
    } else {
      lens[0] = r.frames_end;
      report->dropped_bytes = r.end - r.frames_end;
      if (r.format == VH_LOG_XML && r.text[r.frames_end - 1] != '\n')
        lens[1] = 1;
      if (r.format == VH_LOG_JSON || r.format == VH_LOG_XML) {
        const VhLogInfo info = { 0, 0, NAN, 1 };
        const gsize head = written_log (&r, &info, log);
        parts[2] = log->str + head;
        lens[2] = log->len - head;
      }
    }
    ok = replace_file (path, parts, lens, 3, error);
    g_string_free (log, TRUE);
    if (!ok)
      goto out;
  }
  report->pooled = g_steal_pointer (&r.table);
  ok = TRUE;

out:
  if (!ok)
    memset (report, 0, sizeof *report);
  vh_score_table_free (r.table);
  g_strfreev (r.csv_names);
  g_clear_object (&r.json);
  g_mapped_file_unref (map);
  return ok;
}
