/* vmafhip — what the kernels' host-emulation tests (test-*-emulation.cpp)
 * share to run a CPU extractor beside the emulated kernels: a feature
 * sink that keeps the outputs (the engine's own sink is not linked in:
 * it pulls in the engine), and the extractor's options from libvmaf's
 * "name=value:name=value" syntax.  Include once per test program. */
#ifndef VH_EMULATION_EXTRACTOR_H
#define VH_EMULATION_EXTRACTOR_H

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include <glib.h>

extern "C" {
#include "vh-feature-internal.h"
#include "vh-model.h"
}

typedef std::vector<std::pair<std::string, double>> FeatureOutputs;

struct VhFeatureSink {
  FeatureOutputs *out;
};

extern "C" void
vh_feature_sink_put (VhFeatureSink *sink, const char *name, unsigned index,
    double value)
{
  (void) index;
  sink->out->emplace_back (name, value);
}

extern "C" void
vh_feature_sink_put_plain (VhFeatureSink *sink, const char *name,
    unsigned index, double value)
{
  vh_feature_sink_put (sink, name, index, value);
}

/* aggregates (psnr's enable_apsnr) among the outputs, as values */
extern "C" void
vh_feature_sink_set_aggregate (VhFeatureSink *sink, const char *name,
    double value)
{
  sink->out->emplace_back (name, value);
}

/* fex's defaults, then opts ("name=value:..." or ""): numbers, booleans
 * and the rest as strings (enum names, paths) */
static void
set_extractor_options (const VhFeatureExtractor *fex,
    std::vector<unsigned char> &o, const char *opts)
{
  GError *error = NULL;
  o.assign (fex->opts_size, 0);
  vh_feature_opts_init_defaults (fex, o.data ());
  gchar **pairs = g_strsplit (opts, ":", -1);
  for (gchar **kv = pairs; *kv && **kv; kv++) {
    gchar **nv = g_strsplit (*kv, "=", 2);
    if (!nv[1])
      g_error ("option '%s': no value", *kv);
    VhModelOpt opt = {};
    opt.key = nv[0];
    char *end;
    opt.number = g_ascii_strtod (nv[1], &end);
    if (!strcmp (nv[1], "true") || !strcmp (nv[1], "false")) {
      opt.kind = VH_OPTVAL_BOOL;
      opt.boolean = !strcmp (nv[1], "true");
    } else if (*end) {
      opt.kind = VH_OPTVAL_STRING;
      opt.string = nv[1];
    } else {
      opt.kind = VH_OPTVAL_NUMBER;
    }
    if (!vh_feature_opts_set (fex, o.data (), &opt, &error))
      g_error ("%s: %s", *kv, error->message);
    g_strfreev (nv);
  }
  g_strfreev (pairs);
}

#endif
