/* vmafhip — the engine's settings of a tool or test program: the
 * defaults, then the environment (vh_config_load_environment), read once;
 * the SIMD cap applied; and the programs' --gpu option.  Programs that open a GPU also hand it to
 * vh_gpu_use_config; every engine they make gets it (vh_engine_set_config). */
#ifndef VH_TOOL_CONFIG_H
#define VH_TOOL_CONFIG_H

#include "vh-config.h"

const VhConfig *vh_tool_config (void);

/* A program's GPU option (`option`, as "--gpu"): "auto" is -1 (each
 * stream on the least-loaded GPU, VH_DEVICE_AUTO), "N" GPU N (0, 1, ...);
 * anything else an error naming the option and what it takes */
gboolean vh_tool_parse_gpu (const char *option, const char *text,
    int *device, GError **error);

#endif /* VH_TOOL_CONFIG_H */
