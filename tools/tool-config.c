/* vmafhip — a program's engine settings, from its environment
 * (vh-tool-config.h). */
#include "vh-tool-config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vh-error.h"

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

gboolean
vh_tool_parse_gpu (const char *option, const char *text, int *device,
    GError **error)
{
  if (text && !strcmp (text, "auto")) {
    *device = -1;
    return TRUE;
  }
  char *end = NULL;
  errno = 0;
  const long n = text && g_ascii_isdigit (text[0]) ? strtol (text, &end, 10)
      : -1;
  if (n < 0 || errno || *end || n > G_MAXINT) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "%s '%s': give auto (each stream on the least-loaded GPU) or a GPU "
        "index (0, 1, ...)", option, text ? text : "");
    return FALSE;
  }
  *device = (int) n;
  return TRUE;
}
