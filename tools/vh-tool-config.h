/* vmafhip — the engine's settings of a tool or test program: the
 * defaults, then the environment (vh_config_load_environment), read once;
 * the SIMD cap applied.  Programs that open a GPU also hand it to
 * vh_gpu_use_config; every engine they make gets it (vh_engine_set_config). */
#ifndef VH_TOOL_CONFIG_H
#define VH_TOOL_CONFIG_H

#include "vh-config.h"

const VhConfig *vh_tool_config (void);

#endif /* VH_TOOL_CONFIG_H */
