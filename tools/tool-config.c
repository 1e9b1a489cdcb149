/* vmafhip — a program's engine settings, from its environment
 * (vh-tool-config.h). */
#include "vh-tool-config.h"

const VhConfig *
vh_tool_config (void)
{
  static VhConfig config;
  static gsize loaded;

  if (g_once_init_enter (&loaded)) {
    vh_config_init (&config);
    vh_config_load_environment (&config);
    vh_config_apply_cpu (&config);
    g_once_init_leave (&loaded, 1);
  }
  return &config;
}
