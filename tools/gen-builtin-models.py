#!/usr/bin/env python3
"""Generate common/models/model-builtin.c: vmafhip's built-in VMAF models as C tables.

Usage:
    python3 tools/gen-builtin-models.py MODELS_DIR [OUTPUT]

MODELS_DIR holds libvmaf's published JSON model files (vmaf_v0.6.1.json,
vmaf_v0.6.1neg.json, vmaf_4k_v0.6.1.json, vmaf_4k_v0.6.1neg.json,
vmaf_b_v0.6.3.json, and the v1.0.16 models in vmaf_v1.0.16/ and
vmaf_v1.0.16_hfr/). OUTPUT defaults to common/models/model-builtin.c next to this
script's directory.

The JSON files are not shipped: their parameters (SVM gamma, rho, support
vector coefficients and vectors, slopes, intercepts, features and their
options, score transform, clip) are written out as constant C tables in the
layout of common/models/model-tables.h, which is also what the JSON loader
(common/models/model.c) builds, so built-in and file-loaded models share one
structure and one prediction path.

Doubles are written with repr(), the shortest text that reads back to the same
double, so the tables are bit-identical to what a correctly rounding JSON
parser reads from the files. The checks here mirror the C loader's: a file
the loader would reject is rejected here too.

Standard library only.
"""

import hashlib
import json
import math
import os
import re
import sys

# (built-in name, file name)
BUILTIN_MODELS = [
    ("vmaf_v0.6.1", "vmaf_v0.6.1.json"),
    ("vmaf_v0.6.1neg", "vmaf_v0.6.1neg.json"),
    ("vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1.json"),
    ("vmaf_4k_v0.6.1neg", "vmaf_4k_v0.6.1neg.json"),
    ("vmaf_b_v0.6.3", "vmaf_b_v0.6.3.json"),
    ("vmaf_v1.0.16_3d0h", "vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json"),
    ("vmaf_v1.0.16_5d0h", "vmaf_v1.0.16/vmaf_v1.0.16_5d0h.json"),
    ("vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16/vmaf_v1.0.16_3d0h_2160.json"),
    ("vmaf_v1.0.16_1d5h_2160", "vmaf_v1.0.16/vmaf_v1.0.16_1d5h_2160.json"),
    ("vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_3d0h.json"),
    ("vmaf_v1.0.16_hfr_5d0h", "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_5d0h.json"),
    ("vmaf_v1.0.16_hfr_3d0h_2160",
     "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_3d0h_2160.json"),
    ("vmaf_v1.0.16_hfr_1d5h_2160",
     "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_1d5h_2160.json"),
]

MAX_FEATURES = 64      # libvmaf's MAX_FEATURE_COUNT
MAX_KNOTS = 10         # libvmaf's MAX_KNOT_COUNT
MAX_BOOTSTRAP = 64     # VH_MODEL_MAX_BOOTSTRAP
MAX_SV = 1000000

SVR_KINDS = {
    "LIBSVMNUSVR": "VH_SVR_PLAIN",
    "BOOTSTRAP_LIBSVMNUSVR": "VH_SVR_BOOTSTRAP",
    "RESIDUEBOOTSTRAP_LIBSVMNUSVR": "VH_SVR_RESIDUE_BOOTSTRAP",
}
NORM_TYPES = {"none": "VH_NORM_NONE", "linear_rescale": "VH_NORM_LINEAR_RESCALE"}

DECIMAL_CHARS = set("0123456789+-.eE")
UNSIGNED_RE = re.compile(r"[0-9]+\Z")


class ModelError(Exception):
    pass


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def number(v, where):
    if not is_number(v):
        raise ModelError("%s: expected a number, got %r" % (where, v))
    v = float(v)
    if not math.isfinite(v):
        raise ModelError("%s: number is not finite" % where)
    return v


def decimal_token(tok, where):
    """A libsvm number: plain decimal text (no inf/nan/hex), finite."""
    if not tok or not set(tok) <= DECIMAL_CHARS:
        raise ModelError("%s: '%s' is not a number" % (where, tok))
    try:
        v = float(tok)
    except ValueError:
        raise ModelError("%s: '%s' is not a number" % (where, tok))
    if not math.isfinite(v):
        raise ModelError("%s: '%s' is not finite" % (where, tok))
    return v


def unsigned_token(tok, where):
    if not UNSIGNED_RE.match(tok):
        raise ModelError("%s: '%s' is not an unsigned integer" % (where, tok))
    return int(tok)


def parse_libsvm(text, n_features, where):
    """libsvm model text (nu_svr, rbf) -> dict with dense support vectors."""
    lines = [ln.rstrip(" \t\r") for ln in text.split("\n")]
    header = {}
    pos = 0
    while True:
        if pos >= len(lines):
            raise ModelError("%s: libsvm model has no 'SV' line" % where)
        line = lines[pos]
        pos += 1
        if line == "SV":
            break
        toks = line.split()
        if len(toks) != 2:
            raise ModelError("%s: libsvm header line %d '%s' is not 'key value'"
                             % (where, pos, line))
        key, val = toks
        if key in header:
            raise ModelError("%s: libsvm header repeats '%s'" % (where, key))
        if key == "svm_type":
            if val != "nu_svr":
                raise ModelError("%s: svm_type '%s' unsupported (only nu_svr)"
                                 % (where, val))
        elif key == "kernel_type":
            if val != "rbf":
                raise ModelError("%s: kernel_type '%s' unsupported (only rbf)"
                                 % (where, val))
        elif key == "nr_class":
            if unsigned_token(val, where + ": nr_class") != 2:
                raise ModelError("%s: nr_class must be 2 for nu_svr" % where)
        elif key == "total_sv":
            n = unsigned_token(val, where + ": total_sv")
            if n < 1 or n > MAX_SV:
                raise ModelError("%s: total_sv %d out of range" % (where, n))
            val = n
        elif key in ("gamma", "rho"):
            val = decimal_token(val, where + ": " + key)
            if key == "gamma" and not val > 0:
                raise ModelError("%s: gamma must be > 0" % where)
        else:
            raise ModelError("%s: unsupported libsvm header key '%s'"
                             % (where, key))
        header[key] = val
    for key in ("svm_type", "kernel_type", "gamma", "nr_class", "total_sv", "rho"):
        if key not in header:
            raise ModelError("%s: libsvm header lacks '%s'" % (where, key))

    n_sv = header["total_sv"]
    coefs, svs = [], []
    for k in range(n_sv):
        if pos >= len(lines) or not lines[pos].strip():
            raise ModelError("%s: SV line %d is %s, total_sv says %d"
                             % (where, k + 1, "blank" if pos < len(lines) else "missing", n_sv))
        toks = lines[pos].split()
        pos += 1
        lw = "%s: SV line %d" % (where, k + 1)
        coefs.append(decimal_token(toks[0], lw + " coefficient"))
        row = [0.0] * n_features
        last = 0
        for tok in toks[1:]:
            idx_txt, colon, val_txt = tok.partition(":")
            if not colon:
                raise ModelError("%s: '%s' is not 'index:value'" % (lw, tok))
            idx = unsigned_token(idx_txt, lw + " index")
            if idx == 0 or idx > n_features:
                raise ModelError("%s: index %d is outside 1..%d (the features)"
                                 % (lw, idx, n_features))
            if idx <= last:
                raise ModelError("%s: index %d not increasing" % (lw, idx))
            row[idx - 1] = decimal_token(val_txt, lw + " value")
            last = idx
        svs.append(row)
    for extra in lines[pos:]:
        if extra.strip():
            raise ModelError("%s: libsvm model has more SV lines than total_sv %d"
                             % (where, n_sv))
    return {"gamma": header["gamma"], "rho": header["rho"],
            "coef": coefs, "sv": svs}


def parse_opts(d, where):
    if not isinstance(d, dict):
        raise ModelError("%s: expected an object" % where)
    opts = []
    for key, val in d.items():
        w = "%s.%s" % (where, key)
        if isinstance(val, bool):
            opts.append((key, "bool", val))
        elif is_number(val):
            opts.append((key, "number", number(val, w)))
        elif isinstance(val, str):
            opts.append((key, "string", val))
        else:
            raise ModelError("%s: option value must be a number, bool or string"
                             % w)
    return opts


def parse_transform(d, where):
    if not isinstance(d, dict):
        raise ModelError("%s: expected an object" % where)
    t = {"enabled": False, "p": [None, None, None], "knots": [],
         "out_lte_in": False, "out_gte_in": False}
    for key, val in d.items():
        w = "%s.%s" % (where, key)
        if key == "enabled":
            if not isinstance(val, bool):
                raise ModelError("%s: expected true or false" % w)
            t["enabled"] = val
        elif key in ("p0", "p1", "p2"):
            if val is not None:
                t["p"][int(key[1])] = number(val, w)
        elif key == "knots":
            if val is None:
                continue
            if not isinstance(val, list) or not 2 <= len(val) <= MAX_KNOTS:
                raise ModelError("%s: expected 2 to %d [x, y] pairs"
                                 % (w, MAX_KNOTS))
            knots = []
            for i, kn in enumerate(val):
                if not isinstance(kn, list) or len(kn) != 2:
                    raise ModelError("%s[%d]: expected [x, y]" % (w, i))
                knots.append((number(kn[0], w), number(kn[1], w)))
            for a, b in zip(knots, knots[1:]):
                if not (a[0] < b[0] and a[1] <= b[1]):
                    raise ModelError("%s: x must increase and y must not "
                                     "decrease" % w)
            t["knots"] = knots
        elif key in ("out_lte_in", "out_gte_in"):
            # libvmaf wants the strings "true"/"false" here, not JSON bools.
            if val not in ("true", "false"):
                raise ModelError('%s: expected "true" or "false"' % w)
            t[key] = val == "true"
    return t


def number_array(v, n, where):
    if not isinstance(v, list) or len(v) != n:
        raise ModelError("%s: expected %d numbers" % (where, n))
    return [number(x, "%s[%d]" % (where, i)) for i, x in enumerate(v)]


def parse_model_dict(root, where):
    if not isinstance(root, dict) or not isinstance(root.get("model_dict"), dict):
        raise ModelError("%s: no 'model_dict' object" % where)
    md = root["model_dict"]
    w = where + ": model_dict"

    def req(key, typ, tname):
        if key not in md:
            raise ModelError("%s lacks '%s'" % (w, key))
        if not isinstance(md[key], typ):
            raise ModelError("%s.%s: expected %s" % (w, key, tname))
        return md[key]

    m = {}
    kind = req("model_type", str, "a string")
    if kind not in SVR_KINDS:
        raise ModelError("%s.model_type: unknown '%s'" % (w, kind))
    m["kind"] = SVR_KINDS[kind]
    norm = req("norm_type", str, "a string")
    if norm not in NORM_TYPES:
        raise ModelError("%s.norm_type: unknown '%s'" % (w, norm))
    m["norm"] = NORM_TYPES[norm]

    names = req("feature_names", list, "an array")
    if not 1 <= len(names) <= MAX_FEATURES:
        raise ModelError("%s.feature_names: expected 1 to %d names"
                         % (w, MAX_FEATURES))
    for n in names:
        if not isinstance(n, str) or not n:
            raise ModelError("%s.feature_names: expected non-empty strings" % w)
    nf = len(names)
    opts = [[] for _ in names]
    if "feature_opts_dicts" in md:
        od = req("feature_opts_dicts", list, "an array")
        if len(od) != nf:
            raise ModelError("%s.feature_opts_dicts: %d entries for %d features"
                             % (w, len(od), nf))
        opts = [parse_opts(d, "%s.feature_opts_dicts[%d]" % (w, i))
                for i, d in enumerate(od)]
    m["features"] = list(zip(names, opts))

    m["slopes"] = m["intercepts"] = None
    for key in ("slopes", "intercepts"):
        if key in md or norm == "linear_rescale":
            m[key] = number_array(req(key, list, "an array"), nf + 1,
                                  "%s.%s" % (w, key))
    if norm == "linear_rescale" and m["slopes"][0] == 0:
        raise ModelError("%s.slopes[0]: the output slope must not be 0" % w)

    m["clip"] = None
    if "score_clip" in md:
        lo, hi = number_array(md["score_clip"], 2, w + ".score_clip")
        if not lo <= hi:
            raise ModelError("%s.score_clip: min > max" % w)
        m["clip"] = (lo, hi)

    m["transform"] = None
    if "score_transform" in md:
        m["transform"] = parse_transform(md["score_transform"],
                                         w + ".score_transform")

    m["chroma"] = None
    if "chroma_correction_parameter" in md:
        c = number(md["chroma_correction_parameter"],
                   w + ".chroma_correction_parameter")
        if c == 0:
            raise ModelError("%s.chroma_correction_parameter: must not be 0" % w)
        for sub in ("adm3", "speed_chroma"):
            hits = [i for i, n in enumerate(names) if sub in n]
            if len(hits) != 1:
                raise ModelError("%s: chroma correction needs exactly one "
                                 "feature named *%s*, found %d"
                                 % (w, sub, len(hits)))
            if norm == "linear_rescale" and m["slopes"][hits[0] + 1] == 0:
                raise ModelError("%s.slopes: the %s feature's slope must not "
                                 "be 0" % (w, sub))
        m["chroma"] = c

    text = req("model", str, "a string")
    m["svr"] = parse_libsvm(text, nf, w + ".model")
    return m


def load_model_file(path):
    with open(path, "rb") as f:
        raw = f.read()
    try:
        root = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise ModelError("%s: invalid JSON: %s" % (path, e))
    if not isinstance(root, dict):
        raise ModelError("%s: top level is not an object" % path)
    if "model_dict" in root:
        return raw, False, [parse_model_dict(root, path)]
    # Bootstrap collection: keys "0".."N", "0" is the main model.
    n = 0
    while str(n) in root:
        n += 1
    extra = [k for k in root if not (k.isdigit() and str(int(k)) == k and int(k) < n)]
    if n == 0:
        raise ModelError("%s: neither 'model_dict' nor bootstrap keys \"0\"..\"N\""
                         % path)
    if extra:
        raise ModelError("%s: unexpected key '%s' in bootstrap collection"
                         % (path, extra[0]))
    if n < 2 or n - 1 > MAX_BOOTSTRAP:
        raise ModelError("%s: a bootstrap collection needs 1 to %d models "
                         "besides \"0\"" % (path, MAX_BOOTSTRAP))
    members = [parse_model_dict(root[str(i)], '%s: model "%d"' % (path, i))
               for i in range(n)]
    for i, m in enumerate(members):
        if m["features"] != members[0]["features"]:
            raise ModelError('%s: model "%d" has other features than model "0"'
                             % (path, i))
        if i >= 1 and (m["kind"] == "VH_SVR_PLAIN" or m["kind"] != members[1]["kind"]):
            raise ModelError('%s: model "%d": bootstrap models must all be '
                             'BOOTSTRAP_ or RESIDUEBOOTSTRAP_LIBSVMNUSVR alike'
                             % (path, i))
    return raw, True, members


# ---- C output ----

def c_double(v):
    v = float(v)
    assert math.isfinite(v)
    return repr(v)


def c_string(s):
    out = ['"']
    for ch in s.encode("utf-8"):
        c = chr(ch)
        if c in '"\\':
            out.append("\\" + c)
        elif 0x20 <= ch < 0x7f:
            out.append(c)
        else:
            out.append("\\%03o" % ch)
    out.append('"')
    return "".join(out)


def c_bool(b):
    return "true" if b else "false"


def c_ident(s):
    return re.sub(r"[^A-Za-z0-9]", "_", s)


def wrap_numbers(values, indent="  ", per_line=4):
    lines = []
    for i in range(0, len(values), per_line):
        lines.append(indent + ", ".join(c_double(v) for v in values[i:i + per_line]) + ",")
    return "\n".join(lines)


def emit_model(out, name, bootstrap, members):
    base = "builtin_" + c_ident(name)
    features = members[0]["features"]
    nf = len(features)

    for j, (fname, opts) in enumerate(features):
        if not opts:
            continue
        out.append("static const VhModelOpt %s_opts%d[] = {" % (base, j))
        for key, kind, val in opts:
            if kind == "number":
                out.append("  { %s, VH_OPTVAL_NUMBER, %s, false, NULL }," % (c_string(key), c_double(val)))
            elif kind == "bool":
                out.append("  { %s, VH_OPTVAL_BOOL, 0.0, %s, NULL }," % (c_string(key), c_bool(val)))
            else:
                out.append("  { %s, VH_OPTVAL_STRING, 0.0, false, %s }," % (c_string(key), c_string(val)))
        out.append("};")
    out.append("static const VhModelFeature %s_features[%d] = {" % (base, nf))
    for j, (fname, opts) in enumerate(features):
        if opts:
            out.append("  { %s, %d, %s_opts%d }," % (c_string(fname), len(opts), base, j))
        else:
            out.append("  { %s, 0, NULL }," % c_string(fname))
    out.append("};")
    out.append("")

    for k, m in enumerate(members):
        mb = "%s_m%d" % (base, k)
        for key in ("slopes", "intercepts"):
            if m[key] is not None:
                out.append("static const double %s_%s[%d] = {" % (mb, key, nf + 1))
                out.append(wrap_numbers(m[key]))
                out.append("};")
        t = m["transform"]
        if t and t["knots"]:
            out.append("static const VhModelKnot %s_knots[%d] = {" % (mb, len(t["knots"])))
            for x, y in t["knots"]:
                out.append("  { %s, %s }," % (c_double(x), c_double(y)))
            out.append("};")
        svr = m["svr"]
        n_sv = len(svr["coef"])
        out.append("static const double %s_sv_coef[%d] = {" % (mb, n_sv))
        out.append(wrap_numbers(svr["coef"]))
        out.append("};")
        out.append("static const double %s_sv[%d * %d] = {" % (mb, n_sv, nf))
        for row in svr["sv"]:
            out.append("  " + ", ".join(c_double(v) for v in row) + ",")
        out.append("};")
        out.append("")

    out.append("static const VhModelSvr %s_members[%d] = {" % (base, len(members)))
    for k, m in enumerate(members):
        mb = "%s_m%d" % (base, k)
        svr = m["svr"]
        t = m["transform"]
        clip = m["clip"]
        out.append("  { /* %s */" % ('model "%d"' % k if bootstrap else "model_dict"))
        out.append("    .kind = %s," % m["kind"])
        out.append("    .norm = %s," % m["norm"])
        out.append("    .slopes = %s," % ("%s_slopes" % mb if m["slopes"] is not None else "NULL"))
        out.append("    .intercepts = %s," % ("%s_intercepts" % mb if m["intercepts"] is not None else "NULL"))
        if clip:
            out.append("    .has_clip = true, .clip_lo = %s, .clip_hi = %s,"
                       % (c_double(clip[0]), c_double(clip[1])))
        if t:
            p = t["p"]
            fields = ["      .enabled = %s," % c_bool(t["enabled"])]
            for i in range(3):
                if p[i] is not None:
                    fields.append("      .has_p%d = true, .p%d = %s," % (i, i, c_double(p[i])))
            if t["knots"]:
                fields.append("      .n_knots = %d, .knots = %s_knots," % (len(t["knots"]), mb))
            fields.append("      .out_lte_in = %s, .out_gte_in = %s,"
                          % (c_bool(t["out_lte_in"]), c_bool(t["out_gte_in"])))
            out.append("    .transform = {")
            out.extend(fields)
            out.append("    },")
        if m["chroma"] is not None:
            out.append("    .has_chroma_correction = true, .chroma_correction = %s,"
                       % c_double(m["chroma"]))
        out.append("    .gamma = %s, .rho = %s," % (c_double(svr["gamma"]), c_double(svr["rho"])))
        out.append("    .n_sv = %d, .sv_coef = %s_sv_coef, .sv = %s_sv,"
                   % (len(svr["coef"]), mb, mb))
        out.append("  },")
    out.append("};")
    out.append("")
    return ("  { .name = %s, .bootstrap = %s, .n_features = %d, .features = %s_features,\n"
            "    .n_members = %d, .members = %s_members },"
            % (c_string(name), c_bool(bootstrap), nf, base, len(members), base))


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    models_dir = argv[1]
    output = argv[2] if len(argv) == 3 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "common", "models", "model-builtin.c")

    out = []
    sources = []
    descs = []
    body = []
    for name, fname in BUILTIN_MODELS:
        path = os.path.join(models_dir, fname)
        try:
            raw, bootstrap, members = load_model_file(path)
        except (OSError, ModelError) as e:
            sys.stderr.write("gen-builtin-models: %s\n" % e)
            return 1
        sources.append("  %s  sha256 %s" % (fname, hashlib.sha256(raw).hexdigest()))
        body.append("/* ---- %s (%s) ---- */" % (name, fname))
        descs.append(emit_model(body, name, bootstrap, members))

    out.append("/* vmafhip — built-in VMAF models as C tables.")
    out.append(" *")
    out.append(" * GENERATED FILE, DO NOT EDIT. Written by tools/gen-builtin-models.py from")
    out.append(" * libvmaf's published JSON model files (Netflix, BSD-2-Clause-Patent):")
    out.append(" *")
    for s in sources:
        out.append(" * " + s)
    out.append(" *")
    out.append(" * Regenerate with:")
    out.append(" *   python3 tools/gen-builtin-models.py <dir with those files> common/models/model-builtin.c")
    out.append(" *")
    out.append(" * Layout: common/models/model-tables.h. Doubles are printed with Python's repr(),")
    out.append(" * which reads back to the same double as the JSON text does. Support")
    out.append(" * vectors are dense rows: an index absent from libsvm's sparse SV line is 0.")
    out.append(" */")
    out.append("#include <stddef.h>")
    out.append("")
    out.append('#include "model-tables.h"')
    out.append("")
    out.extend(body)
    out.append("const VhModelDesc vh_model_builtin_descs[] = {")
    out.extend(descs)
    out.append("  { .name = NULL },")
    out.append("};")
    out.append("")
    out.append("const char *const vh_model_builtin_name_list[] = {")
    for name, _ in BUILTIN_MODELS:
        out.append("  %s," % c_string(name))
    out.append("  NULL,")
    out.append("};")
    out.append("")
    out.append("const unsigned vh_model_builtin_count = %d;" % len(BUILTIN_MODELS))

    text = "\n".join(out) + "\n"
    tmp = output + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, output)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
