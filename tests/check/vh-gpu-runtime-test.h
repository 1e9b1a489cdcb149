/* vmafhip — what the two halves of test-gpu-runtime share: the report
 * line, the error assertion, the suites. */
#ifndef VH_GPU_RUNTIME_TEST_H
#define VH_GPU_RUNTIME_TEST_H

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "vh-error.h"
#include "vh-gpu.h"

#define SKIP_STATUS 77

static inline void
note (const char *format, ...) G_GNUC_PRINTF (1, 2);

static inline void
note (const char *format, ...)
{
  va_list args;
  va_start (args, format);
  printf ("test-gpu-runtime: ");
  vprintf (format, args);
  printf ("\n");
  fflush (stdout);
  va_end (args);
}

static inline gboolean
running_forked (void)
{
  const char *fork_mode = g_getenv ("CK_FORK");
  return !(fork_mode && strcmp (fork_mode, "no") == 0);
}

#define assert_error(error, code_, fragment) \
  do { \
    ck_assert_msg ((error) != NULL, "an error was expected"); \
    ck_assert_msg ((error)->domain == VH_ERROR, "wrong domain: %s", (error)->message); \
    ck_assert_msg ((error)->code == (code_), "code %d, expected %d: %s", \
        (error)->code, (code_), (error)->message); \
    ck_assert_msg (strstr ((error)->message, (fragment)) != NULL, \
        "\"%s\" not in: %s", (fragment), (error)->message); \
  } while (0)

/* The host suite (test-gpu-runtime.c: no GPU needed) and the device suite
 * (test-gpu-runtime-device.c: on `gpu`, opened by main after the forking
 * host suite); device_suite_done () drops what the device tests kept. */
Suite *host_suite (void);
Suite *device_suite (VhGpu *gpu);
void device_suite_done (void);

#endif /* VH_GPU_RUNTIME_TEST_H */
