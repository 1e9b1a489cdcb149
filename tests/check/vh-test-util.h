/* vmafhip tests — shared helpers. */
#ifndef VH_TEST_UTIL_H
#define VH_TEST_UTIL_H

#include <glib.h>

/* Folder of the shared test vectors / model files, or NULL (with a loud
 * message on stderr) if absent. Environment overrides: VMAFHIP_TESTDATA,
 * VMAFHIP_MODELS. */
const char *vh_test_testdata_dir (void);
const char *vh_test_models_dir (void);

/* A test case that is not registered because what it needs is missing:
 * says so loudly on stderr, so a skip never reads as a pass. */
void vh_test_skip_case (const char *test, const char *why);

/* The element's backend in tests: "cpu" unless VMAFHIP_TEST_BACKEND names
 * another (scripts/gpu-run.sh runs the element suites with "hip"). */
const char *vh_test_backend (void);

/* Whether the build was configured with -Dstrict-tests=true: a test
 * whose tool (ffmpeg ...) is missing then fails instead of skipping. */
gboolean vh_test_strict (void);

/* A missing optional tool: says so loudly and returns TRUE to skip, or,
 * with strict-tests, returns FALSE after the message (the caller fails). */
gboolean vh_test_may_skip (const char *test, const char *why);

/* Exit status meson counts as "skipped". */
#define VH_TEST_SKIP 77

/* Decodes an MP4 (H.264) file to raw I420 with gst-launch-1.0 into a temp
 * file. Returns the path (g_free and unlink it) or NULL with a message. */
char *vh_test_decode_mp4 (const char *mp4_path, GError **error);

#endif
