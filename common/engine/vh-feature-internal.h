/* vmafhip — engine-side helpers around the extractor interface. */
#ifndef VH_FEATURE_INTERNAL_H
#define VH_FEATURE_INTERNAL_H

#include "vh-feature.h"
#include "vh-model.h"

G_BEGIN_DECLS

const VhFeatureExtractor *vh_feature_extractor_lookup (const char *name);
/* The extractors' names, comma-separated ("vif, adm, ..."; g_free). */
char *vh_feature_extractor_names (void);
void vh_feature_opts_init_defaults (const VhFeatureExtractor *fex, void *opts);
gboolean vh_feature_opts_set (const VhFeatureExtractor *fex, void *opts,
    const VhModelOpt *opt, GError **error);
/* "_egl_1" style suffix for the instance's non-default feature params. */
char *vh_feature_opts_suffix (const VhFeatureExtractor *fex, const void *opts);
/* The options whose values differ between option sets `a` and `b`, each
 * as "OPTION=VALUE" with b's value (libvmaf's option syntax), in the
 * extractor's order; NULL-terminated (g_strfreev), empty if none. */
char **vh_feature_opts_differences (const VhFeatureExtractor *fex,
    const void *a, const void *b);

G_END_DECLS
#endif
