/* vmafhip — the CLI tests' shared pieces (see vh-cli-test-util.h). */
#include <stdarg.h>
#include <stdio.h>
#include <sys/wait.h>

#include <check.h>
#include <glib/gstdio.h>

#include "vh-cli-test-util.h"
#include "vh-synth.h"

const char *score_bin;
gchar *dir;

/* Writes frames first..first+n-1 of one side of the synthetic pair, as raw
 * I420 or as y4m. */
/* Raw 8-bit I420 of a VhPicture into an open file */
void
write_picture (FILE * f, const VhPicture * p)
{
  for (unsigned c = 0; c < p->nplanes; c++)
    for (unsigned y = 0; y < p->plane[c].height; y++)
      fwrite ((const guint8 *) p->plane[c].data + y * p->plane[c].stride, 1,
          p->plane[c].width, f);
}

gchar *
write_video (const char *name, gboolean dist, guint first, guint n,
    gboolean y4m)
{
  enum { W = CLI_TEST_W, H = CLI_TEST_H };
  gchar *path = g_build_filename (dir, name, NULL);
  FILE *f = fopen (path, "wb");
  VhSynth *s = vh_synth_new (W, H, 8, VH_SYNTH_420, 5);

  ck_assert (f != NULL);
  if (y4m)
    fprintf (f, "YUV4MPEG2 W%u H%u F25:1 Ip A1:1 C420jpeg\n", W, H);
  for (guint i = first; i < first + n; i++) {
    VhPicture r, d;
    vh_synth_render (s, i, 3, &r, &d);
    if (y4m)
      fputs ("FRAME\n", f);
    write_picture (f, dist ? &d : &r);
  }
  fclose (f);
  vh_synth_free (s);
  return path;
}

/* Runs vmafhip-score with the arguments; returns its exit status, stdout
 * in *out (NULL: dropped), stderr in *err. */
int
run_cli_va (gchar ** out, gchar ** err, va_list ap)
{
  GPtrArray *args = g_ptr_array_new ();
  const char *a;

  while ((a = va_arg (ap, const char *)))
    g_ptr_array_add (args, (gpointer) a);
  g_ptr_array_add (args, NULL);
  const int rc = run_cli_argv (out, err, (const char *const *) args->pdata);
  g_ptr_array_free (args, TRUE);
  return rc;
}

int
run_cli_argv (gchar ** out, gchar ** err, const char *const *args)
{
  GPtrArray *argv = g_ptr_array_new ();
  gchar *dropped = NULL;
  int status = 0;
  GError *error = NULL;

  g_ptr_array_add (argv, (gpointer) score_bin);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  ck_assert_msg (g_spawn_sync (NULL, (gchar **) argv->pdata, NULL, 0, NULL,
          NULL, out ? out : &dropped, err, &status, &error), "%s",
      error ? error->message : "");
  g_free (dropped);
  g_ptr_array_free (argv, TRUE);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* The same with the arguments NULL-terminated, stdout dropped. */
int
run_cli (gchar ** err, ...)
{
  va_list ap;
  va_start (ap, err);
  const int rc = run_cli_va (NULL, err, ap);
  va_end (ap);
  return rc;
}

/* The same, stdout kept. */
int
run_cli_out (gchar ** out, gchar ** err, ...)
{
  va_list ap;
  va_start (ap, err);
  const int rc = run_cli_va (out, err, ap);
  va_end (ap);
  return rc;
}

JsonObject *
load_json (const char *path, JsonParser ** parser)
{
  *parser = json_parser_new ();
  ck_assert_msg (json_parser_load_from_file (*parser, path, NULL), "%s",
      path);
  return json_node_get_object (json_parser_get_root (*parser));
}

JsonArray *
frames_of (JsonObject * root)
{
  return json_object_get_array_member (root, "frames");
}

double
metric (JsonArray * frames, guint i, const char *name)
{
  JsonObject *f = json_array_get_object_element (frames, i);
  return json_object_get_double_member (json_object_get_object_member (f,
          "metrics"), name);
}

int
cli_test_main (int argc, char **argv, const char *usage, Suite * s)
{
  SRunner *sr;
  int failed;

  if (argc < 2) {
    fprintf (stderr, "usage: %s PATH-TO-vmafhip-score\n", usage);
    srunner_free (srunner_create (s));  /* (frees the suite) */
    return 2;
  }
  score_bin = argv[1];
  dir = g_dir_make_tmp ("vmafhip-cli-XXXXXX", NULL);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  /* the files are small; remove them */
  GDir *d = g_dir_open (dir, 0, NULL);
  for (const char *n; d && (n = g_dir_read_name (d));) {
    gchar *p = g_build_filename (dir, n, NULL);
    g_unlink (p);
    g_free (p);
  }
  if (d)
    g_dir_close (d);
  g_rmdir (dir);
  g_free (dir);
  return failed ? 1 : 0;
}
