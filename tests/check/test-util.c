/* vmafhip tests — shared helpers. */
#include <stdio.h>
#include <unistd.h>

#include "vh-test-util.h"

static const char *
existing_dir (const char *env, const char *builtin, const char *what)
{
  const char *dir = g_getenv (env);
  if (!dir || !*dir)
    dir = builtin;
  if (!g_file_test (dir, G_FILE_TEST_IS_DIR)) {
    fprintf (stderr,
        "\n*** SKIPPING: %s not found at '%s' (set %s) ***\n\n", what, dir,
        env);
    return NULL;
  }
  return dir;
}

void
vh_test_skip_case (const char *test, const char *why)
{
  fprintf (stderr, "\n*** SKIPPED %s: %s ***\n\n", test, why);
}

const char *
vh_test_testdata_dir (void)
{
  return existing_dir ("VMAFHIP_TESTDATA", VH_TESTDATA_DIR,
      "shared test vectors");
}

gboolean
vh_test_strict (void)
{
  return VH_TEST_STRICT;
}

gboolean
vh_test_may_skip (const char *test, const char *why)
{
  fprintf (stderr, "\n*** %s: %s: %s ***\n\n", test,
      VH_TEST_STRICT ? "FAILED (strict-tests)" : "SKIPPED", why);
  return !VH_TEST_STRICT;
}

const char *
vh_test_models_dir (void)
{
  return existing_dir ("VMAFHIP_MODELS", VH_MODELS_DIR, "shared model files");
}

char *
vh_test_decode_mp4 (const char *mp4_path, GError **error)
{
  char *tmp = NULL;
  int fd = g_file_open_tmp ("vmafhip-XXXXXX.yuv", &tmp, error);
  if (fd < 0)
    return NULL;
  close (fd);
  char *location = g_strdup_printf ("location=%s", mp4_path);
  char *sink = g_strdup_printf ("location=%s", tmp);
  const char *argv[] = { "gst-launch-1.0", "-q", "filesrc", location, "!",
    "qtdemux", "!", "h264parse", "!", "avdec_h264", "!",
    "video/x-raw,format=I420", "!", "filesink", sink, NULL };
  int status = 0;
  char *err_out = NULL;
  gboolean ok = g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH,
      NULL, NULL, NULL, &err_out, &status, error);
  if (ok && !g_spawn_check_wait_status (status, NULL)) {
    g_set_error (error, G_SPAWN_ERROR, G_SPAWN_ERROR_FAILED,
        "gst-launch-1.0 could not decode '%s' (is gstreamer1.0-libav "
        "installed?): %s", mp4_path, err_out ? err_out : "");
    ok = FALSE;
  }
  g_free (err_out);
  g_free (location);
  g_free (sink);
  if (!ok) {
    unlink (tmp);
    g_free (tmp);
    return NULL;
  }
  return tmp;
}

const char *
vh_test_backend (void)
{
  const char *backend = g_getenv ("VMAFHIP_TEST_BACKEND");
  return backend && *backend ? backend : "cpu";
}
