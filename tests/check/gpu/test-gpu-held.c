/* vmafhip — pictures the caller holds until their frame is delivered
 * (VhPicture.held), against the mock HIP runtime (mock-hip.c, loaded
 * through VMAFHIP_HIP_LIBRARY): the GPU backend reads such pinned planes in
 * place without waiting in submit for their upload, and still waits where
 * the frame fails (a failed frame is never delivered, so the caller takes
 * its planes back at once).  The mock's event waits are counted. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vh-engine.h"
#include "vh-gpu-backend.h"
#include "vh-kernel-images.h"
#include "vh-mock-gpu.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

#define W 64
#define H 48
#define FRAMES 8

static unsigned long long (*event_syncs) (void);

typedef struct
{
  VhGpu *gpu;
  VhEngine *engine;
  guint8 *memory;               /* pinned: both pictures' planes */
  VhPicture ref, dis;
} Held;

/* A luma-and-chroma picture at `at` (W x H, 4:2:0, 8-bit), sample values
 * from seed */
static guint8 *
picture_in (VhPicture * pic, guint8 * at, unsigned seed)
{
  memset (pic, 0, sizeof *pic);
  pic->nplanes = 3;
  pic->bpc = 8;
  for (unsigned p = 0; p < 3; p++) {
    const unsigned w = p ? W / 2 : W, h = p ? H / 2 : H;
    for (unsigned i = 0; i < w * h; i++)
      at[i] = (guint8) (i * 7 + seed * 13 + p);
    pic->plane[p] = (VhPlane) { at, w, w, h, 1 };
    at += w * h;
  }
  return at;
}

static void
held_open (Held * t, int held)
{
  GError *error = NULL;
  const VhVideoInfo info = { W, H, 8 };

  t->gpu = vh_mock_gpu_open ();
  t->engine = vh_engine_new (&info, &error);
  ck_assert_msg (t->engine && vh_engine_add_feature (t->engine, "psnr",
          &error), "%s", error ? error->message : "?");
  VhGpuBackend *b = vh_gpu_backend_new (vh_gpu_ref (t->gpu), 0, &error);
  ck_assert_msg (b && vh_engine_set_accelerator (t->engine,
          &vh_gpu_backend_ops, b, &error), "%s", error ? error->message : "?");
  t->memory = vh_gpu_host_alloc (t->gpu, 2 * W * H * 3 / 2, &error);
  ck_assert_msg (t->memory != NULL, "%s", error ? error->message : "?");
  picture_in (&t->dis, picture_in (&t->ref, t->memory, 1), 2);
  t->ref.held = t->dis.held = held;
}

static void
held_close (Held * t)
{
  vh_engine_free (t->engine);
  vh_gpu_host_free (t->gpu, t->memory);
  vh_gpu_close (t->gpu);
}

/* The event waits FRAMES pushes and the flush make */
static unsigned long long
waits_scoring (int held)
{
  GError *error = NULL;
  Held t;
  held_open (&t, held);
  const unsigned long long before = event_syncs ();
  for (unsigned i = 0; i < FRAMES; i++)
    ck_assert_msg (vh_engine_push (t.engine, &t.ref, &t.dis, &error),
        "frame %u: %s", i, error ? error->message : "?");
  ck_assert_msg (vh_engine_flush (t.engine, &error), "%s",
      error ? error->message : "?");
  const unsigned long long waits = event_syncs () - before;
  ck_assert_uint_eq (vh_engine_n_final (t.engine), FRAMES);
  held_close (&t);
  return waits;
}

/* Exactly one wait less a frame: the upload's, which held planes skip
 * (the kernels' waits at collect are the same either way) */
START_TEST (test_held_skips_upload_wait)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_psnr, "test-gpu-held"))
    return;
  const unsigned long long plain = waits_scoring (0);
  const unsigned long long held = waits_scoring (1);
  ck_assert_msg (plain == held + FRAMES,
      "event waits: %llu with the caller's planes, %llu held (expected %d "
      "fewer)", plain, held, FRAMES);
}

END_TEST

/* A frame that fails after its copies were queued waits for them before
 * submit returns, held or not: the caller frees what it held at once */
START_TEST (test_held_failed_frame_waits)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_psnr, "test-gpu-held"))
    return;
  GError *error = NULL;
  Held t;
  held_open (&t, 1);
  ck_assert_msg (vh_engine_push (t.engine, &t.ref, &t.dis, &error), "%s",
      error ? error->message : "?");
  const unsigned long long before = event_syncs ();
  g_setenv ("VH_MOCK_HIP_FAIL_LAUNCH", "1", TRUE);
  const gboolean ok = vh_engine_push (t.engine, &t.ref, &t.dis, &error);
  g_unsetenv ("VH_MOCK_HIP_FAIL_LAUNCH");
  ck_assert_msg (!ok && error, "a failed launch was not reported");
  g_clear_error (&error);
  ck_assert_msg (event_syncs () > before, "the failed frame returned "
      "without waiting for the copies of its held planes");
  held_close (&t);
}

END_TEST

int
main (void)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  event_syncs = (unsigned long long (*)(void))
      vh_mock_gpu_symbol ("vh_mock_hip_event_syncs", "test-gpu-held");
  if (!event_syncs)
    return 1;
  Suite *s = suite_create ("gpu-held");
  TCase *tc = tcase_create ("mock");
  tcase_add_test (tc, test_held_skips_upload_wait);
  tcase_add_test (tc, test_held_failed_frame_waits);
  suite_add_tcase (s, tc);
  SRunner *sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  const int failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
