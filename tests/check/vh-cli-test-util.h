/* vmafhip — the CLI tests' shared pieces: vmafhip-score run as a
 * program, the synthetic videos it reads, its JSON logs, and a main that
 * runs a suite in a temporary folder. */
#ifndef VH_CLI_TEST_UTIL_H
#define VH_CLI_TEST_UTIL_H

#include <check.h>
#include <glib.h>
#include <json-glib/json-glib.h>

#include "vh-picture.h"

/* the synthetic pair's size (write_video) */
#define CLI_TEST_W 96
#define CLI_TEST_H 64

/* vmafhip-score's path, and the folder the tests write into */
extern const char *score_bin;
extern gchar *dir;

/* Raw 8-bit I420 of a VhPicture into an open file */
void write_picture (FILE * f, const VhPicture * p);
/* Writes frames first..first+n-1 of one side of the synthetic pair
 * (CLI_TEST_W x CLI_TEST_H), as raw I420 or as y4m, into `dir` */
gchar *write_video (const char *name, gboolean dist, guint first, guint n,
    gboolean y4m);
/* Runs vmafhip-score with the arguments (NULL-terminated); returns its
 * exit status, stderr in *err, stdout in *out (run_cli: dropped). */
int run_cli_va (gchar ** out, gchar ** err, va_list ap);
/* The same with the arguments in a NULL-terminated array */
int run_cli_argv (gchar ** out, gchar ** err, const char *const *args);
int run_cli (gchar ** err, ...);
int run_cli_out (gchar ** out, gchar ** err, ...);
JsonObject *load_json (const char *path, JsonParser ** parser);
JsonArray *frames_of (JsonObject * root);
/* frame i's metric `name` */
double metric (JsonArray * frames, guint i, const char *name);
/* Runs suite s with score_bin from argv[1] and a fresh `dir` (removed at
 * the end); the exit status */
int cli_test_main (int argc, char **argv, const char *usage, Suite * s);

#endif /* VH_CLI_TEST_UTIL_H */
