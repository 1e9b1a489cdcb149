/* vmafhip — VMAF models: loading.
 *
 * A model is read either from the generated built-in tables
 * (model-builtin.c) or from a libvmaf JSON file (with its libsvm text),
 * into the one layout of model-tables.h.  Prediction: model-predict.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "model-private.h"

/* Largest total_sv accepted from a file (the shipped models have ~200). */
#define MAX_SUPPORT_VECTORS 1000000


/* ------------------------------------------------------------------------ */
/* Loading: shared helpers                                                  */

typedef struct {
  const char *origin;    /* file path, built-in name or caller's label */
  const char *member;    /* "" or "model \"3\": " inside a collection */
  GPtrArray *storage;
  GError **error;
} Loader;

static gboolean G_GNUC_PRINTF (2, 3)
load_fail (Loader *ld, const char *fmt, ...)
{
  va_list args;
  va_start (args, fmt);
  char *msg = g_strdup_vprintf (fmt, args);
  va_end (args);
  g_set_error (ld->error, VH_ERROR, VH_ERROR_MODEL, "model '%s': %s%s",
      ld->origin, ld->member, msg);
  g_free (msg);
  return FALSE;
}

static gpointer
ld_alloc (Loader *ld, gsize n, gsize size)
{
  gpointer p = g_malloc0_n (MAX (n, 1), size);
  g_ptr_array_add (ld->storage, p);
  return p;
}

static const char *
ld_strdup (Loader *ld, const char *s)
{
  char *p = g_strdup (s);
  g_ptr_array_add (ld->storage, p);
  return p;
}

/* A finite JSON number (integer or not); booleans are not numbers. */
static gboolean
node_number (JsonNode *node, double *out)
{
  if (!node || !JSON_NODE_HOLDS_VALUE (node))
    return FALSE;
  const GType type = json_node_get_value_type (node);
  if (type == G_TYPE_INT64)
    *out = (double) json_node_get_int (node);
  else if (type == G_TYPE_DOUBLE)
    *out = json_node_get_double (node);
  else
    return FALSE;
  return isfinite (*out);
}

static const char *
node_string (JsonNode *node)
{
  if (!node || !JSON_NODE_HOLDS_VALUE (node)
      || json_node_get_value_type (node) != G_TYPE_STRING)
    return NULL;
  return json_node_get_string (node);
}

static gboolean
node_is_bool (JsonNode *node)
{
  return node && JSON_NODE_HOLDS_VALUE (node)
      && json_node_get_value_type (node) == G_TYPE_BOOLEAN;
}

/* `n` numbers into a new array. */
static gboolean
parse_number_array (Loader *ld, JsonNode *node, const char *key, unsigned n,
    const char *what, const double **out)
{
  if (!node || !JSON_NODE_HOLDS_ARRAY (node))
    return load_fail (ld, "model_dict.%s: expected an array", key);
  JsonArray *array = json_node_get_array (node);
  if (json_array_get_length (array) != n)
    return load_fail (ld, "model_dict.%s: has %u numbers, expected %u (%s)",
        key, json_array_get_length (array), n, what);
  double *values = ld_alloc (ld, n, sizeof *values);
  for (unsigned i = 0; i < n; i++)
    if (!node_number (json_array_get_element (array, i), &values[i]))
      return load_fail (ld, "model_dict.%s[%u]: expected a finite number",
          key, i);
  *out = values;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The libsvm model text (nu_svr, rbf), parsed strictly                     */

/* Next whitespace-separated token of a line, NUL-terminated in place. */
static char *
next_token (char **cursor)
{
  char *p = *cursor;
  while (*p && g_ascii_isspace (*p))
    p++;
  if (!*p) {
    *cursor = p;
    return NULL;
  }
  char *tok = p;
  while (*p && !g_ascii_isspace (*p))
    p++;
  if (*p)
    *p++ = '\0';
  *cursor = p;
  return tok;
}

/* A plain decimal number as libsvm writes it: no inf/nan/hex, finite. */
static gboolean
parse_decimal (const char *tok, double *out)
{
  if (!tok || !*tok || tok[strspn (tok, "0123456789+-.eE")] != '\0')
    return FALSE;
  char *end;
  *out = g_ascii_strtod (tok, &end);
  return *end == '\0' && end != tok && isfinite (*out);
}

static gboolean
parse_unsigned (const char *tok, guint64 max, guint64 *out)
{
  if (!tok || !*tok || tok[strspn (tok, "0123456789")] != '\0')
    return FALSE;
  return g_ascii_string_to_unsigned (tok, 10, 0, max, out, NULL);
}

/* Strips trailing blanks in place (the shipped SV lines end with ' '). */
static void
strip_line_end (char *line)
{
  size_t n = strlen (line);
  while (n && (line[n - 1] == ' ' || line[n - 1] == '\t'
          || line[n - 1] == '\r'))
    line[--n] = '\0';
}

static gboolean
line_is_blank (const char *line)
{
  while (*line && g_ascii_isspace (*line))
    line++;
  return *line == '\0';
}

enum {
  HDR_SVM_TYPE, HDR_KERNEL_TYPE, HDR_GAMMA, HDR_NR_CLASS, HDR_TOTAL_SV,
  HDR_RHO, N_HDR
};
static const char *const header_keys[N_HDR] = {
  "svm_type", "kernel_type", "gamma", "nr_class", "total_sv", "rho",
};

static gboolean
parse_libsvm_header (Loader *ld, char **lines, unsigned *pos,
    VhModelSvr *svr)
{
  gboolean seen[N_HDR] = { FALSE };
  for (;; (*pos)++) {
    char *line = lines[*pos];
    if (!line)
      return load_fail (ld, "model_dict.model: libsvm text has no 'SV' line");
    strip_line_end (line);
    if (!strcmp (line, "SV")) {
      (*pos)++;
      break;
    }
    char *cursor = line;
    const char *key = next_token (&cursor);
    const char *value = next_token (&cursor);
    if (!key || !value || next_token (&cursor))
      return load_fail (ld, "model_dict.model: libsvm header line %u '%s' is "
          "not 'key value'", *pos + 1, line);
    unsigned k = 0;
    while (k < N_HDR && strcmp (key, header_keys[k]))
      k++;
    if (k == N_HDR)
      return load_fail (ld, "model_dict.model: unsupported libsvm header key "
          "'%s'", key);
    if (seen[k])
      return load_fail (ld, "model_dict.model: libsvm header repeats '%s'",
          key);
    seen[k] = TRUE;

    guint64 u;
    switch (k) {
      case HDR_SVM_TYPE:
        if (strcmp (value, "nu_svr"))
          return load_fail (ld, "model_dict.model: svm_type '%s' is not "
              "supported (only nu_svr)", value);
        break;
      case HDR_KERNEL_TYPE:
        if (strcmp (value, "rbf"))
          return load_fail (ld, "model_dict.model: kernel_type '%s' is not "
              "supported (only rbf)", value);
        break;
      case HDR_NR_CLASS:
        if (!parse_unsigned (value, G_MAXUINT, &u) || u != 2)
          return load_fail (ld, "model_dict.model: nr_class '%s' (must be 2 "
              "for nu_svr)", value);
        break;
      case HDR_TOTAL_SV:
        if (!parse_unsigned (value, MAX_SUPPORT_VECTORS, &u) || u == 0)
          return load_fail (ld, "model_dict.model: total_sv '%s' is not a "
              "count in 1..%d", value, MAX_SUPPORT_VECTORS);
        svr->n_sv = (unsigned) u;
        break;
      case HDR_GAMMA:
        if (!parse_decimal (value, &svr->gamma) || !(svr->gamma > 0))
          return load_fail (ld, "model_dict.model: gamma '%s' is not a "
              "positive number", value);
        break;
      case HDR_RHO:
        if (!parse_decimal (value, &svr->rho))
          return load_fail (ld, "model_dict.model: rho '%s' is not a number",
              value);
        break;
    }
  }
  for (unsigned k = 0; k < N_HDR; k++)
    if (!seen[k])
      return load_fail (ld, "model_dict.model: libsvm header lacks '%s'",
          header_keys[k]);
  return TRUE;
}

/* One "coef idx:val idx:val ..." line into a dense row. */
static gboolean
parse_sv_line (Loader *ld, char *line, unsigned sv, unsigned n_features,
    double *coef, double *row)
{
  char *cursor = line;
  if (!parse_decimal (next_token (&cursor), coef))
    return load_fail (ld, "model_dict.model: SV line %u: the coefficient is "
        "not a number", sv + 1);
  guint64 last = 0;
  for (char *tok; (tok = next_token (&cursor));) {
    char *colon = strchr (tok, ':');
    if (!colon)
      return load_fail (ld, "model_dict.model: SV line %u: '%s' is not "
          "'index:value'", sv + 1, tok);
    *colon = '\0';
    guint64 idx;
    if (!parse_unsigned (tok, G_MAXUINT, &idx))
      return load_fail (ld, "model_dict.model: SV line %u: index '%s' is not "
          "an unsigned integer", sv + 1, tok);
    if (idx == 0 || idx > n_features)
      return load_fail (ld, "model_dict.model: SV line %u: index %" G_GUINT64_FORMAT
          " is outside 1..%u (the features)", sv + 1, idx, n_features);
    /* libsvm walks both vectors in index order; unsorted indices would
     * silently change the kernel. */
    if (idx <= last)
      return load_fail (ld, "model_dict.model: SV line %u: index %" G_GUINT64_FORMAT
          " does not increase", sv + 1, idx);
    if (!parse_decimal (colon + 1, &row[idx - 1]))
      return load_fail (ld, "model_dict.model: SV line %u: value '%s' of index "
          "%" G_GUINT64_FORMAT " is not a number", sv + 1, colon + 1, idx);
    last = idx;
  }
  return TRUE;
}

static gboolean
parse_libsvm (Loader *ld, const char *text, unsigned n_features,
    VhModelSvr *svr)
{
  char **lines = g_strsplit (text, "\n", -1);
  unsigned pos = 0;
  gboolean ok = parse_libsvm_header (ld, lines, &pos, svr);
  if (!ok)
    goto out;

  double *coef = ld_alloc (ld, svr->n_sv, sizeof *coef);
  double *sv = ld_alloc (ld, (gsize) svr->n_sv * n_features, sizeof *sv);
  for (unsigned i = 0; i < svr->n_sv; i++, pos++) {
    if (!lines[pos] || line_is_blank (lines[pos])) {
      ok = load_fail (ld, "model_dict.model: SV line %u is %s, total_sv "
          "says %u", i + 1, lines[pos] ? "blank" : "missing", svr->n_sv);
      goto out;
    }
    ok = parse_sv_line (ld, lines[pos], i, n_features, &coef[i],
        &sv[(gsize) i * n_features]);
    if (!ok)
      goto out;
  }
  for (; lines[pos]; pos++) {
    if (!line_is_blank (lines[pos])) {
      ok = load_fail (ld, "model_dict.model: more SV lines than total_sv %u",
          svr->n_sv);
      goto out;
    }
  }
  svr->sv_coef = coef;
  svr->sv = sv;
out:
  g_strfreev (lines);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* model_dict                                                               */

static gboolean
parse_feature_opts (Loader *ld, JsonNode *node, unsigned feature,
    VhModelFeature *f)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return load_fail (ld, "model_dict.feature_opts_dicts[%u]: expected an "
        "object", feature);
  JsonObject *obj = json_node_get_object (node);
  f->n_opts = json_object_get_size (obj);
  VhModelOpt *opts = ld_alloc (ld, f->n_opts, sizeof *opts);
  f->opts = opts;

  JsonObjectIter iter;
  const char *key;
  JsonNode *value;
  unsigned i = 0;
  json_object_iter_init_ordered (&iter, obj);
  while (json_object_iter_next_ordered (&iter, &key, &value)) {
    VhModelOpt *o = &opts[i++];
    o->key = ld_strdup (ld, key);
    if (node_is_bool (value)) {
      o->kind = VH_OPTVAL_BOOL;
      o->boolean = json_node_get_boolean (value);
    } else if (node_string (value)) {
      o->kind = VH_OPTVAL_STRING;
      o->string = ld_strdup (ld, node_string (value));
    } else if (node_number (value, &o->number)) {
      o->kind = VH_OPTVAL_NUMBER;
    } else {
      return load_fail (ld, "model_dict.feature_opts_dicts[%u].%s: expected a "
          "finite number, a bool or a string", feature, key);
    }
  }
  return TRUE;
}

static gboolean
parse_features (Loader *ld, JsonObject *md, unsigned *n_features,
    const VhModelFeature **features)
{
  JsonNode *names = json_object_get_member (md, "feature_names");
  if (!names)
    return load_fail (ld, "model_dict lacks 'feature_names'");
  if (!JSON_NODE_HOLDS_ARRAY (names))
    return load_fail (ld, "model_dict.feature_names: expected an array");
  JsonArray *array = json_node_get_array (names);
  const unsigned n = json_array_get_length (array);
  if (n == 0 || n > VH_MODEL_MAX_FEATURES)
    return load_fail (ld, "model_dict.feature_names: has %u names, expected "
        "1 to %d", n, VH_MODEL_MAX_FEATURES);
  VhModelFeature *f = ld_alloc (ld, n, sizeof *f);
  for (unsigned i = 0; i < n; i++) {
    const char *name = node_string (json_array_get_element (array, i));
    if (!name || !*name)
      return load_fail (ld, "model_dict.feature_names[%u]: expected a "
          "non-empty string", i);
    f[i].name = ld_strdup (ld, name);
  }

  JsonNode *opts = json_object_get_member (md, "feature_opts_dicts");
  if (opts) {
    if (!JSON_NODE_HOLDS_ARRAY (opts))
      return load_fail (ld, "model_dict.feature_opts_dicts: expected an array");
    JsonArray *oa = json_node_get_array (opts);
    if (json_array_get_length (oa) != n)
      return load_fail (ld, "model_dict.feature_opts_dicts: has %u entries "
          "for %u features", json_array_get_length (oa), n);
    for (unsigned i = 0; i < n; i++)
      if (!parse_feature_opts (ld, json_array_get_element (oa, i), i, &f[i]))
        return FALSE;
  }
  *n_features = n;
  *features = f;
  return TRUE;
}

/* libvmaf writes the rectification flags as the strings "true"/"false". */
static gboolean
parse_string_flag (Loader *ld, JsonNode *node, const char *key, bool *out)
{
  const char *s = node_string (node);
  if (!s || (strcmp (s, "true") && strcmp (s, "false")))
    return load_fail (ld, "model_dict.score_transform.%s: expected the string "
        "\"true\" or \"false\"", key);
  *out = !strcmp (s, "true");
  return TRUE;
}

static gboolean
parse_knots (Loader *ld, JsonNode *node, VhModelTransform *t)
{
  if (!JSON_NODE_HOLDS_ARRAY (node))
    return load_fail (ld, "model_dict.score_transform.knots: expected an "
        "array of [x, y] pairs or null");
  JsonArray *array = json_node_get_array (node);
  const unsigned n = json_array_get_length (array);
  if (n < 2 || n > VH_MODEL_MAX_KNOTS)
    return load_fail (ld, "model_dict.score_transform.knots: has %u knots, "
        "expected 2 to %d", n, VH_MODEL_MAX_KNOTS);
  VhModelKnot *knots = ld_alloc (ld, n, sizeof *knots);
  for (unsigned i = 0; i < n; i++) {
    JsonNode *pair = json_array_get_element (array, i);
    JsonArray *pa = JSON_NODE_HOLDS_ARRAY (pair) ?
        json_node_get_array (pair) : NULL;
    if (!pa || json_array_get_length (pa) != 2
        || !node_number (json_array_get_element (pa, 0), &knots[i].x)
        || !node_number (json_array_get_element (pa, 1), &knots[i].y))
      return load_fail (ld, "model_dict.score_transform.knots[%u]: expected "
          "[x, y] with finite numbers", i);
    /* libvmaf's mapping gives up half-way on such segments. */
    if (i && !(knots[i - 1].x < knots[i].x && knots[i - 1].y <= knots[i].y))
      return load_fail (ld, "model_dict.score_transform.knots[%u]: x must "
          "increase and y must not decrease", i);
  }
  t->n_knots = n;
  t->knots = knots;
  return TRUE;
}

static gboolean
parse_transform (Loader *ld, JsonNode *node, VhModelTransform *t)
{
  if (!JSON_NODE_HOLDS_OBJECT (node))
    return load_fail (ld, "model_dict.score_transform: expected an object");
  JsonObject *obj = json_node_get_object (node);
  JsonObjectIter iter;
  const char *key;
  JsonNode *value;
  json_object_iter_init_ordered (&iter, obj);
  while (json_object_iter_next_ordered (&iter, &key, &value)) {
    if (!strcmp (key, "enabled")) {
      if (!node_is_bool (value))
        return load_fail (ld, "model_dict.score_transform.enabled: expected "
            "true or false");
      t->enabled = json_node_get_boolean (value);
    } else if (!strcmp (key, "p0") || !strcmp (key, "p1")
        || !strcmp (key, "p2")) {
      if (JSON_NODE_HOLDS_NULL (value))
        continue;
      double p;
      if (!node_number (value, &p))
        return load_fail (ld, "model_dict.score_transform.%s: expected a "
            "finite number or null", key);
      switch (key[1]) {
        case '0': t->has_p0 = true; t->p0 = p; break;
        case '1': t->has_p1 = true; t->p1 = p; break;
        default:  t->has_p2 = true; t->p2 = p; break;
      }
    } else if (!strcmp (key, "knots")) {
      if (!JSON_NODE_HOLDS_NULL (value) && !parse_knots (ld, value, t))
        return FALSE;
    } else if (!strcmp (key, "out_lte_in")) {
      if (!parse_string_flag (ld, value, key, &t->out_lte_in))
        return FALSE;
    } else if (!strcmp (key, "out_gte_in")) {
      if (!parse_string_flag (ld, value, key, &t->out_gte_in))
        return FALSE;
    }
    /* Other keys are ignored, as libvmaf does. */
  }
  return TRUE;
}

static gboolean
parse_enum (Loader *ld, JsonObject *md, const char *key,
    const char *const *names, unsigned n_names, unsigned *out)
{
  JsonNode *node = json_object_get_member (md, key);
  if (!node)
    return load_fail (ld, "model_dict lacks '%s'", key);
  const char *s = node_string (node);
  if (!s)
    return load_fail (ld, "model_dict.%s: expected a string", key);
  for (unsigned i = 0; i < n_names; i++) {
    if (!strcmp (s, names[i])) {
      *out = i;
      return TRUE;
    }
  }
  return load_fail (ld, "model_dict.%s: unknown value '%s'", key, s);
}

/* Exactly one feature whose name contains `sub`, or -1. */
static int
find_feature (unsigned n_features, const VhModelFeature *features,
    const char *sub, unsigned *n_hits)
{
  int found = -1;
  *n_hits = 0;
  for (unsigned i = 0; i < n_features; i++) {
    if (strstr (features[i].name, sub)) {
      found = (int) i;
      (*n_hits)++;
    }
  }
  return *n_hits == 1 ? found : -1;
}

/* One {"param_dict": ..., "model_dict": {...}} object. */
static gboolean
parse_model (Loader *ld, JsonNode *root, VhModelSvr *svr,
    unsigned *n_features, const VhModelFeature **features)
{
  if (!JSON_NODE_HOLDS_OBJECT (root))
    return load_fail (ld, "expected a JSON object");
  JsonNode *md_node = json_object_get_member (json_node_get_object (root),
      "model_dict");
  if (!md_node || !JSON_NODE_HOLDS_OBJECT (md_node))
    return load_fail (ld, "no 'model_dict' object");
  JsonObject *md = json_node_get_object (md_node);

  static const char *const kinds[] = {
    [VH_SVR_PLAIN] = "LIBSVMNUSVR",
    [VH_SVR_BOOTSTRAP] = "BOOTSTRAP_LIBSVMNUSVR",
    [VH_SVR_RESIDUE_BOOTSTRAP] = "RESIDUEBOOTSTRAP_LIBSVMNUSVR",
  };
  static const char *const norms[] = {
    [VH_NORM_NONE] = "none",
    [VH_NORM_LINEAR_RESCALE] = "linear_rescale",
  };
  unsigned kind = 0, norm = 0;
  if (!parse_enum (ld, md, "model_type", kinds, G_N_ELEMENTS (kinds), &kind)
      || !parse_enum (ld, md, "norm_type", norms, G_N_ELEMENTS (norms), &norm))
    return FALSE;
  svr->kind = kind;
  svr->norm = norm;

  if (!parse_features (ld, md, n_features, features))
    return FALSE;
  const unsigned n = *n_features;

  /* Without rescaling the arrays are unused; still checked if present. */
  char *what = g_strdup_printf ("1 + %u features", n);
  gboolean ok = TRUE;
  JsonNode *slopes = json_object_get_member (md, "slopes");
  JsonNode *intercepts = json_object_get_member (md, "intercepts");
  if (svr->norm == VH_NORM_LINEAR_RESCALE && !slopes)
    ok = load_fail (ld, "model_dict lacks 'slopes' (needed by "
        "linear_rescale)");
  else if (svr->norm == VH_NORM_LINEAR_RESCALE && !intercepts)
    ok = load_fail (ld, "model_dict lacks 'intercepts' (needed by "
        "linear_rescale)");
  else if (slopes && !parse_number_array (ld, slopes, "slopes", n + 1, what,
          &svr->slopes))
    ok = FALSE;
  else if (intercepts && !parse_number_array (ld, intercepts, "intercepts",
          n + 1, what, &svr->intercepts))
    ok = FALSE;
  g_free (what);
  if (!ok)
    return FALSE;
  if (svr->norm == VH_NORM_LINEAR_RESCALE && svr->slopes[0] == 0)
    return load_fail (ld, "model_dict.slopes[0]: the output slope must not "
        "be 0");

  JsonNode *clip = json_object_get_member (md, "score_clip");
  if (clip) {
    const double *range;
    if (!parse_number_array (ld, clip, "score_clip", 2, "min, max", &range))
      return FALSE;
    if (!(range[0] <= range[1]))
      return load_fail (ld, "model_dict.score_clip: min %g > max %g",
          range[0], range[1]);
    svr->has_clip = true;
    svr->clip_lo = range[0];
    svr->clip_hi = range[1];
  }

  JsonNode *transform = json_object_get_member (md, "score_transform");
  if (transform && !parse_transform (ld, transform, &svr->transform))
    return FALSE;

  JsonNode *chroma = json_object_get_member (md,
      "chroma_correction_parameter");
  if (chroma) {
    if (!node_number (chroma, &svr->chroma_correction))
      return load_fail (ld, "model_dict.chroma_correction_parameter: "
          "expected a finite number");
    /* libvmaf silently skips the whole prediction for 0. */
    if (svr->chroma_correction == 0)
      return load_fail (ld, "model_dict.chroma_correction_parameter: must "
          "not be 0");
    static const char *const subs[] = { "adm3", "speed_chroma" };
    for (unsigned k = 0; k < G_N_ELEMENTS (subs); k++) {
      unsigned hits;
      const int i = find_feature (n, *features, subs[k], &hits);
      if (i < 0)
        return load_fail (ld, "chroma correction needs exactly one feature "
            "named *%s*, found %u", subs[k], hits);
      if (svr->norm == VH_NORM_LINEAR_RESCALE && svr->slopes[i + 1] == 0)
        return load_fail (ld, "model_dict.slopes[%d]: the %s feature's "
            "slope must not be 0", i + 1, subs[k]);
    }
    svr->has_chroma_correction = true;
  }

  JsonNode *model = json_object_get_member (md, "model");
  if (!model)
    return load_fail (ld, "model_dict lacks 'model'");
  const char *text = node_string (model);
  if (!text)
    return load_fail (ld, "model_dict.model: expected a string");
  return parse_libsvm (ld, text, n, svr);
}

static gboolean
opts_equal (const VhModelFeature *a, const VhModelFeature *b)
{
  if (strcmp (a->name, b->name) || a->n_opts != b->n_opts)
    return FALSE;
  for (unsigned i = 0; i < a->n_opts; i++) {
    const VhModelOpt *x = &a->opts[i], *y = &b->opts[i];
    if (strcmp (x->key, y->key) || x->kind != y->kind)
      return FALSE;
    if ((x->kind == VH_OPTVAL_NUMBER && x->number != y->number)
        || (x->kind == VH_OPTVAL_BOOL && x->boolean != y->boolean)
        || (x->kind == VH_OPTVAL_STRING && strcmp (x->string, y->string)))
      return FALSE;
  }
  return TRUE;
}

/* A collection {"0": model, "1": model, ...}: "0" is the main model, the
 * others are the bootstrap models (libvmaf's VmafModelCollection). */
static gboolean
parse_collection (Loader *ld, JsonObject *top, VhModelDesc *desc)
{
  const unsigned n_keys = json_object_get_size (top);
  unsigned n = 0;
  char key[16];
  for (;; n++) {
    g_snprintf (key, sizeof key, "%u", n);
    if (!json_object_has_member (top, key))
      break;
  }
  if (n == 0)
    return load_fail (ld, "neither a 'model_dict' nor a bootstrap collection "
        "(keys \"0\"..\"N\")");
  if (n != n_keys) {
    JsonObjectIter iter;
    const char *k;
    JsonNode *v;
    json_object_iter_init_ordered (&iter, top);
    while (json_object_iter_next_ordered (&iter, &k, &v)) {
      guint64 u;
      if (!parse_unsigned (k, G_MAXUINT, &u) || u >= n
          || (k[0] == '0' && k[1]))
        return load_fail (ld, "unexpected key '%s' in a bootstrap collection "
            "of %u models", k, n);
    }
  }
  if (n < 2 || n - 1 > VH_MODEL_MAX_BOOTSTRAP)
    return load_fail (ld, "a bootstrap collection needs 1 to %d models "
        "besides \"0\", has %u", VH_MODEL_MAX_BOOTSTRAP, n - 1);

  VhModelSvr *members = ld_alloc (ld, n, sizeof *members);
  char *member = NULL;
  gboolean ok = TRUE;
  for (unsigned i = 0; i < n && ok; i++) {
    g_free (member);
    member = g_strdup_printf ("model \"%u\": ", i);
    ld->member = member;
    g_snprintf (key, sizeof key, "%u", i);
    unsigned nf;
    const VhModelFeature *features;
    ok = parse_model (ld, json_object_get_member (top, key), &members[i], &nf,
        &features);
    if (!ok)
      break;
    if (i == 0) {
      desc->n_features = nf;
      desc->features = features;
      continue;
    }
    /* One feature list serves the whole collection. */
    gboolean same = nf == desc->n_features;
    for (unsigned j = 0; same && j < nf; j++)
      same = opts_equal (&features[j], &desc->features[j]);
    if (!same) {
      ok = load_fail (ld, "its features or their options differ from model "
          "\"0\"'s");
      break;
    }
    /* libvmaf only predicts collections of (residue) bootstrap models, all
     * of one type. */
    if (members[i].kind == VH_SVR_PLAIN
        || members[i].kind != members[1].kind) {
      ok = load_fail (ld, "model_type must be BOOTSTRAP_LIBSVMNUSVR or "
          "RESIDUEBOOTSTRAP_LIBSVMNUSVR, the same for all bootstrap models");
      break;
    }
  }
  ld->member = "";
  g_free (member);
  if (!ok)
    return FALSE;
  desc->bootstrap = true;
  desc->n_members = n;
  desc->members = members;
  return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Model objects                                                            */

/* `name` is taken over. */
static VhModel *
model_new (const VhModelDesc *desc, char *name, GPtrArray *storage)
{
  VhModel *m = g_new0 (VhModel, 1);
  m->desc = *desc;
  m->name = name;
  m->storage = storage;
  m->adm3_feature = m->speed_chroma_feature = -1;
  for (unsigned i = 0; i < desc->n_members; i++) {
    if (desc->members[i].has_chroma_correction) {
      unsigned hits;
      m->adm3_feature = find_feature (desc->n_features, desc->features,
          "adm3", &hits);
      m->speed_chroma_feature = find_feature (desc->n_features,
          desc->features, "speed_chroma", &hits);
      /* Checked at load time (file) or by the generator (built-in). */
      g_assert (m->adm3_feature >= 0 && m->speed_chroma_feature >= 0);
      break;
    }
  }
  return m;
}

/* "dir/vmaf_v1.0.16_3d0h.json" -> "vmaf_v1.0.16_3d0h" */
static char *
name_from_origin (const char *origin)
{
  char *base = g_path_get_basename (origin);
  if (g_str_has_suffix (base, ".json") && strlen (base) > 5)
    base[strlen (base) - 5] = '\0';
  return base;
}

VhModel *
vh_model_load_data (const char *data, gsize len, const char *origin,
    GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!origin)
    origin = "(memory)";
  if (!data) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "model '%s': no data (NULL)", origin);
    return NULL;
  }
  if (len > G_MAXSSIZE) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "model '%s': data too large", origin);
    return NULL;
  }

  Loader ld = {
    .origin = origin,
    .member = "",
    .storage = g_ptr_array_new_with_free_func (g_free),
    .error = error,
  };
  VhModelDesc desc = { 0 };
  gboolean ok = FALSE;
  GError *json_error = NULL;
  JsonParser *parser = json_parser_new ();

  if (!json_parser_load_from_data (parser, data, (gssize) len, &json_error)) {
    load_fail (&ld, "invalid JSON: %s", json_error->message);
    g_clear_error (&json_error);
    goto out;
  }
  JsonNode *root = json_parser_get_root (parser);
  if (!root) {
    load_fail (&ld, "the JSON document is empty");
    goto out;
  }
  if (!JSON_NODE_HOLDS_OBJECT (root)) {
    load_fail (&ld, "the JSON top level is not an object");
    goto out;
  }
  JsonObject *top = json_node_get_object (root);
  if (json_object_has_member (top, "model_dict")) {
    VhModelSvr *svr = ld_alloc (&ld, 1, sizeof *svr);
    ok = parse_model (&ld, root, svr, &desc.n_features, &desc.features);
    desc.n_members = 1;
    desc.members = svr;
  } else {
    ok = parse_collection (&ld, top, &desc);
  }

out:
  g_object_unref (parser);
  if (!ok) {
    g_ptr_array_unref (ld.storage);
    return NULL;
  }
  char *name = name_from_origin (origin);
  desc.name = ld_strdup (&ld, name);
  return model_new (&desc, name, ld.storage);
}

VhModel *
vh_model_load_file (const char *path, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!path || !*path) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "model file: no path given");
    return NULL;
  }
  char *data;
  gsize len;
  GError *io_error = NULL;
  if (!g_file_get_contents (path, &data, &len, &io_error)) {
    g_set_error (error, VH_ERROR, VH_ERROR_IO, "cannot read model file: %s",
        io_error->message);
    g_error_free (io_error);
    return NULL;
  }
  VhModel *m = vh_model_load_data (data, len, path, error);
  g_free (data);
  return m;
}

static char *
builtin_names_joined (void)
{
  return g_strjoinv (", ", (char **) vh_model_builtin_name_list);
}

static const VhModelDesc *
find_builtin (const char *name)
{
  for (unsigned i = 0; i < vh_model_builtin_count; i++)
    if (!strcmp (vh_model_builtin_descs[i].name, name))
      return &vh_model_builtin_descs[i];
  return NULL;
}

VhModel *
vh_model_load_builtin (const char *name, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  const VhModelDesc *desc = name ? find_builtin (name) : NULL;
  if (!desc) {
    char *names = builtin_names_joined ();
    g_set_error (error, VH_ERROR, VH_ERROR_MODEL,
        "unknown built-in model '%s' (built-in models: %s)",
        name ? name : "(null)", names);
    g_free (names);
    return NULL;
  }
  return model_new (desc, g_strdup (desc->name), NULL);
}

VhModel *
vh_model_load (const char *name_or_path, GError **error)
{
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);
  if (!name_or_path || !*name_or_path) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "no model name or path given");
    return NULL;
  }
  if (find_builtin (name_or_path))
    return vh_model_load_builtin (name_or_path, error);
  /* Something that does not look like a path is a mistyped model name. */
  if (!strchr (name_or_path, G_DIR_SEPARATOR)
      && !g_str_has_suffix (name_or_path, ".json")
      && !g_file_test (name_or_path, G_FILE_TEST_EXISTS)) {
    char *names = builtin_names_joined ();
    g_set_error (error, VH_ERROR, VH_ERROR_MODEL,
        "unknown model '%s': not a built-in model (%s) and no such file",
        name_or_path, names);
    g_free (names);
    return NULL;
  }
  return vh_model_load_file (name_or_path, error);
}

void
vh_model_free (VhModel *model)
{
  if (!model)
    return;
  if (model->storage)
    g_ptr_array_unref (model->storage);
  g_free (model->name);
  g_free (model);
}

const char *
vh_model_name (const VhModel *model)
{
  g_return_val_if_fail (model, NULL);
  return model->name;
}

const char *const *
vh_model_builtin_names (void)
{
  return vh_model_builtin_name_list;
}

unsigned
vh_model_n_features (const VhModel *model)
{
  g_return_val_if_fail (model, 0);
  return model->desc.n_features;
}

const char *
vh_model_feature_name (const VhModel *model, unsigned i)
{
  g_return_val_if_fail (model && i < model->desc.n_features, NULL);
  return model->desc.features[i].name;
}

const VhModelOpt *
vh_model_feature_opts (const VhModel *model, unsigned i, unsigned *n_opts)
{
  if (n_opts)
    *n_opts = 0;
  g_return_val_if_fail (model && i < model->desc.n_features, NULL);
  const VhModelFeature *f = &model->desc.features[i];
  if (n_opts)
    *n_opts = f->n_opts;
  return f->opts;
}

bool
vh_model_is_bootstrap (const VhModel *model)
{
  g_return_val_if_fail (model, false);
  return model->desc.bootstrap;
}
