/* vmafhip — the process's resident memory (see vh-memory.h). */
#include "vh-memory.h"

void
vh_process_memory (guint64 *rss_kb, guint64 *hwm_kb)
{
  gchar *text = NULL;

  *rss_kb = *hwm_kb = 0;
  if (!g_file_get_contents ("/proc/self/status", &text, NULL, NULL))
    return;
  gchar **lines = g_strsplit (text, "\n", -1);
  for (gchar **line = lines; *line; line++) {
    if (g_str_has_prefix (*line, "VmRSS:"))
      *rss_kb = g_ascii_strtoull (*line + 6, NULL, 10);
    else if (g_str_has_prefix (*line, "VmHWM:"))
      *hwm_kb = g_ascii_strtoull (*line + 6, NULL, 10);
  }
  g_strfreev (lines);
  g_free (text);
}
