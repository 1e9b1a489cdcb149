/* vmafhip — the reference's share of the kernels (vif-gpu.h's
 * VhVifGpuReference, adm-gpu.h's VhAdmGpuReference, gpu-picture.h's
 * VhGpuRefShare) against the mock HIP
 * runtime (mock-hip.c, loaded through VMAFHIP_HIP_LIBRARY): what is
 * refused and why, which uploads carry which share, motion's SAD offered
 * only against the upload it was computed from.  The mock runs no kernel,
 * so the values are the GPU tests' business (test-gpu-sums, the
 * renditions suite with backend=hip); this checks the bookkeeping, and
 * runs everywhere (no GPU). */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "adm-gpu.h"
#include "gpu-picture.h"
#include "vh-error.h"
#include "vh-gpu.h"
#include "vh-kernel-images.h"
#include "vh-mock-gpu.h"
#include "vif-gpu.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

static void
assert_error (GError **error, const char *part)
{
  ck_assert_msg (*error != NULL, "no error (expected one with \"%s\")", part);
  ck_assert_msg (strstr ((*error)->message, part) != NULL,
      "\"%s\" does not say \"%s\"", (*error)->message, part);
  g_clear_error (error);
}

START_TEST (test_vif_share_refused)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_vif, "test-gpu-share"))
    return;
  GError *error = NULL;
  VhGpu *gpu = vh_mock_gpu_open ();
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_vif,
      &error);
  ck_assert_msg (module != NULL, "%s", error ? error->message : "?");
  VhVifGpu *ctx = vh_vif_gpu_new (gpu, module, 64, 48, 8, &error);
  VhVifSums *sums = vh_gpu_host_alloc (gpu, sizeof *sums, &error);
  VhGpuStream *stream = vh_gpu_stream_new (gpu, &error);
  VhGpuPtr ref = vh_gpu_mem_alloc (gpu, 64 * 48, &error);
  VhGpuPtr dis = vh_gpu_mem_alloc (gpu, 64 * 48, &error);
  ck_assert_msg (ctx && sums && stream && ref && dis, "%s",
      error ? error->message : "?");

  /* another size or depth */
  VhVifGpuReference *wide = vh_vif_gpu_reference_new (gpu, 80, 48, 8, &error);
  VhVifGpuReference *deep = vh_vif_gpu_reference_new (gpu, 64, 48, 10,
      &error);
  ck_assert (wide && deep);
  ck_assert (!vh_vif_gpu_enqueue_reference (ctx, wide, stream, ref, 64, 0,
          &error));
  assert_error (&error, "80x48 8-bit pictures, the context for 64x48 8-bit");
  ck_assert (!vh_vif_gpu_enqueue_distorted (ctx, stream, deep, dis, 64,
          100.0, 0, sums, &error));
  assert_error (&error, "64x48 10-bit pictures");
  ck_assert (!vh_vif_gpu_reference_fits (ctx, wide, 0));

  /* read before it was computed, or computed from a later scale */
  VhVifGpuReference *share = vh_vif_gpu_reference_new (gpu, 64, 48, 8,
      &error);
  ck_assert (share != NULL);
  ck_assert (!vh_vif_gpu_reference_fits (ctx, share, 0));
  ck_assert (!vh_vif_gpu_enqueue_distorted (ctx, stream, share, dis, 64,
          100.0, 0, sums, &error));
  assert_error (&error, "was never computed");
  ck_assert_msg (vh_vif_gpu_enqueue_reference (ctx, share, stream, ref, 64,
          1, &error), "%s", error ? error->message : "?");
  ck_assert (!vh_vif_gpu_reference_fits (ctx, share, 0));
  ck_assert (!vh_vif_gpu_enqueue_distorted (ctx, stream, share, dis, 64,
          100.0, 0, sums, &error));
  assert_error (&error, "lacks the scales asked for");
  /* what it was computed for, and any later first scale */
  ck_assert (vh_vif_gpu_reference_fits (ctx, share, 1));
  ck_assert (vh_vif_gpu_reference_fits (ctx, share, 2));
  ck_assert_msg (vh_vif_gpu_enqueue_distorted (ctx, stream, share, dis, 64,
          100.0, 1, sums, &error), "%s", error ? error->message : "?");
  /* the usual checks of a plane still apply */
  ck_assert (!vh_vif_gpu_enqueue_distorted (ctx, stream, share, dis, 32,
          100.0, 1, sums, &error));
  assert_error (&error, "distorted pitch 32 is shorter than its 64-byte rows");
  ck_assert (vh_vif_gpu_reference_new (gpu, 8, 8, 8, &error) == NULL);
  assert_error (&error, "no reference share for a 8x8 8-bit picture");
  ck_assert (vh_vif_gpu_reference_new (NULL, 64, 48, 8, &error) == NULL);
  assert_error (&error, "NULL GPU");
  ck_assert (!vh_vif_gpu_enqueue_reference (ctx, NULL, stream, ref, 64, 0,
          &error));
  assert_error (&error, "NULL reference share");
  ck_assert (!vh_vif_gpu_enqueue_distorted (ctx, stream, NULL, dis, 64,
          100.0, 0, sums, &error));
  assert_error (&error, "NULL reference share");

  ck_assert (vh_gpu_stream_sync (stream, NULL));
  vh_vif_gpu_reference_free (share);
  vh_vif_gpu_reference_free (wide);
  vh_vif_gpu_reference_free (deep);
  vh_gpu_mem_free (gpu, ref);
  vh_gpu_mem_free (gpu, dis);
  vh_gpu_stream_free (stream);
  vh_gpu_host_free (gpu, sums);
  vh_vif_gpu_free (ctx);
  vh_gpu_module_free (module);
  vh_gpu_close (gpu);
}

END_TEST;

/* ADM's share: refused for another size or depth, before it was
 * computed, for the other libvmaf flavour, and on pictures too narrow for
 * libvmaf's AVX-512 tail; taken otherwise */
START_TEST (test_adm_share_refused)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_adm, "test-gpu-share"))
    return;
  GError *error = NULL;
  VhGpu *gpu = vh_mock_gpu_open ();
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_adm,
      &error);
  ck_assert_msg (module != NULL, "%s", error ? error->message : "?");
  VhAdmGpu *ctx = vh_adm_gpu_new (gpu, module, 160, 90, 8, &error);
  VhAdmGpu *narrow = vh_adm_gpu_new (gpu, module, 35, 90, 8, &error);
  VhAdmSums *sums = vh_gpu_host_alloc (gpu, sizeof *sums, &error);
  VhGpuStream *stream = vh_gpu_stream_new (gpu, &error);
  VhGpuPtr ref = vh_gpu_mem_alloc (gpu, 160 * 90, &error);
  VhGpuPtr dis = vh_gpu_mem_alloc (gpu, 160 * 90, &error);
  ck_assert_msg (ctx && narrow && sums && stream && ref && dis, "%s",
      error ? error->message : "?");
  VhAdmOptions opts;
  VhAdmParams params, c_params;
  vh_adm_options_default (&opts);
  ck_assert (vh_adm_params_init (&params, &opts, &error));
  c_params = params;
  c_params.reference = params.reference == VH_ADM_LIBVMAF_AVX512
      ? VH_ADM_LIBVMAF_C : VH_ADM_LIBVMAF_AVX512;

  /* another size */
  VhAdmGpuReference *other = vh_adm_gpu_reference_new (gpu, 200, 90, 8,
      &error);
  ck_assert (other != NULL);
  ck_assert (!vh_adm_gpu_enqueue_reference (ctx, other, stream, ref, 160,
          &params, &error));
  assert_error (&error, "share of 200x90 8-bit pictures for a context of "
      "160x90 8-bit");
  /* never computed */
  VhAdmGpuReference *share = vh_adm_gpu_reference_new (gpu, 160, 90, 8,
      &error);
  ck_assert (share != NULL);
  ck_assert (!vh_adm_gpu_enqueue_distorted (ctx, stream, share, dis, 160,
          &params, sums, &error));
  assert_error (&error, "never computed");
  /* computed: taken for its flavour, not for the other one */
  ck_assert_msg (vh_adm_gpu_enqueue_reference (ctx, share, stream, ref, 160,
          &params, &error), "%s", error ? error->message : "?");
  ck_assert_msg (vh_adm_gpu_reference_fits (ctx, share, &params, &error),
      "%s", error ? error->message : "?");
  ck_assert_msg (vh_adm_gpu_enqueue_distorted (ctx, stream, share, dis, 160,
          &params, sums, &error), "%s", error ? error->message : "?");
  ck_assert (!vh_adm_gpu_reference_fits (ctx, share, &c_params, &error));
  assert_error (&error, "other libvmaf flavour");
  ck_assert (!vh_adm_gpu_reference_fits (ctx, other, &params, &error));
  assert_error (&error, "never computed");
  /* a narrow picture, in libvmaf's AVX-512 flavour (the default) */
  if (params.reference == VH_ADM_LIBVMAF_AVX512) {
    VhAdmGpuReference *thin = vh_adm_gpu_reference_new (gpu, 35, 90, 8,
        &error);
    ck_assert (thin != NULL);
    ck_assert (vh_adm_gpu_enqueue_reference (narrow, thin, stream, ref, 160,
            &params, &error));
    ck_assert (!vh_adm_gpu_enqueue_distorted (narrow, stream, thin, dis,
            160, &params, sums, &error));
    assert_error (&error, "too narrow for a share");
    vh_adm_gpu_reference_free (thin);
  }
  /* the usual checks of a plane still apply */
  ck_assert (!vh_adm_gpu_enqueue_distorted (ctx, stream, share, dis, 100,
          &params, sums, &error));
  assert_error (&error, "distorted luma pitch 100 is shorter than a row");
  ck_assert (vh_adm_gpu_reference_new (gpu, 8, 8, 8, &error) == NULL);
  assert_error (&error, "no reference share for 8x8 8-bit pictures");
  ck_assert (vh_adm_gpu_reference_new (NULL, 160, 90, 8, &error) == NULL);
  assert_error (&error, "(no GPU)");

  ck_assert (vh_gpu_stream_sync (stream, NULL));
  vh_adm_gpu_reference_free (share);
  vh_adm_gpu_reference_free (other);
  vh_gpu_mem_free (gpu, ref);
  vh_gpu_mem_free (gpu, dis);
  vh_gpu_stream_free (stream);
  vh_gpu_host_free (gpu, sums);
  vh_adm_gpu_free (ctx);
  vh_adm_gpu_free (narrow);
  vh_gpu_module_free (module);
  vh_gpu_close (gpu);
}

END_TEST;

/* A host picture of w x h, 8-bit 4:2:0, `value` everywhere */
typedef struct {
  guint8 *data;
  VhPicture pic;
} HostPicture;

static void
host_picture (HostPicture *hp, unsigned w, unsigned h, guint8 value)
{
  const size_t luma = (size_t) w * h, chroma = (size_t) (w / 2) * (h / 2);
  hp->data = g_malloc (luma + 2 * chroma);
  memset (hp->data, value, luma + 2 * chroma);
  memset (&hp->pic, 0, sizeof hp->pic);
  hp->pic.nplanes = 3;
  hp->pic.bpc = 8;
  hp->pic.memory = VH_PICTURE_HOST;
  hp->pic.plane[0] = (VhPlane) { hp->data, (ptrdiff_t) w, w, h, 1 };
  hp->pic.plane[1] = (VhPlane) { hp->data + luma, (ptrdiff_t) (w / 2), w / 2,
    h / 2, 1 };
  hp->pic.plane[2] = (VhPlane) { hp->data + luma + chroma,
    (ptrdiff_t) (w / 2), w / 2, h / 2, 1 };
}

static const VhGpuRefShare *
upload (VhGpuPicture *gp, const VhGpuPicture *prev, const HostPicture *hp)
{
  GError *error = NULL;
  VhPicture view;
  ck_assert_msg (vh_gpu_picture_upload_after (gp, prev, &hp->pic, 1, &view,
          &error), "%s", error ? error->message : "?");
  ck_assert_int_eq (view.memory, VH_PICTURE_DEVICE);
  ck_assert_int_eq (view.nplanes, 1);
  return view.device_share;
}

START_TEST (test_picture_shares)
{
  if (vh_mock_gpu_lacks_images (&vh_kernel_vif, "test-gpu-share"))
    return;
  GError *error = NULL;
  VhGpu *gpu = vh_mock_gpu_open ();
  HostPicture big, small, narrow;
  host_picture (&big, 64, 48, 100);
  host_picture (&small, 8, 8, 50);
  host_picture (&narrow, 35, 48, 80);
  VhGpuPicture *a = vh_gpu_picture_new (gpu), *b = vh_gpu_picture_new (gpu);
  VhGpuPicture *c = vh_gpu_picture_new (gpu), *d = vh_gpu_picture_new (gpu);
  guint64 sad = 7;

  /* not asked for: no share */
  ck_assert (upload (a, NULL, &big) == NULL);
  /* one sharer for all, as for a ring of reference frames */
  VhGpuSharer *sharer = vh_gpu_sharer_new (gpu);
  vh_gpu_picture_set_shared (a, sharer);
  vh_gpu_picture_set_shared (b, sharer);
  vh_gpu_picture_set_shared (c, sharer);
  vh_gpu_picture_set_shared (d, sharer);

  /* the first frame: VIF's share, no motion (nothing before it) */
  const VhGpuRefShare *first = upload (a, NULL, &big);
  ck_assert (first != NULL && vh_gpu_ref_share_vif (first) != NULL);
  ck_assert (vh_gpu_ref_share_adm (first) != NULL);
  const guint64 first_id = vh_gpu_ref_share_id (first);
  ck_assert (first_id != 0);
  ck_assert (!vh_gpu_ref_share_motion (first, 0, &sad));

  /* the next frame, after it: motion against that upload only */
  const VhGpuRefShare *second = upload (b, a, &big);
  const guint64 second_id = vh_gpu_ref_share_id (second);
  ck_assert (second != NULL && vh_gpu_ref_share_vif (second) != NULL);
  ck_assert (second_id > first_id);
  ck_assert (vh_gpu_ref_share_motion (second, first_id, &sad));
  ck_assert_uint_eq (sad, 0);   /* the mock's zeroed accumulator */
  ck_assert (!vh_gpu_ref_share_motion (second, first_id + 1, &sad));
  ck_assert (!vh_gpu_ref_share_motion (second, 0, &sad));
  ck_assert (!vh_gpu_ref_share_motion (NULL, first_id, &sad));

  /* two readers mark their streams; the next upload into it waits for
   * them and is another upload (a new id), still after `a` */
  VhGpuStream *s1 = vh_gpu_stream_new (gpu, &error);
  VhGpuStream *s2 = vh_gpu_stream_new (gpu, &error);
  ck_assert (s1 && s2);
  ck_assert (vh_gpu_ref_share_read_on (second, s1, &error));
  ck_assert (vh_gpu_ref_share_read_on (second, s2, &error));
  const VhGpuRefShare *again = upload (b, a, &big);
  ck_assert (again == second);          /* the same object, updated */
  ck_assert (vh_gpu_ref_share_id (again) > second_id);
  ck_assert (vh_gpu_ref_share_motion (again, first_id, &sad));
  ck_assert (!vh_gpu_ref_share_motion (again, second_id, &sad));

  /* a picture VIF does not take (below 16x16): a share without VIF's ... */
  const VhGpuRefShare *tiny = upload (c, NULL, &small);
  ck_assert (tiny != NULL && vh_gpu_ref_share_vif (tiny) == NULL);
  ck_assert (vh_gpu_ref_share_adm (tiny) == NULL);
  ck_assert (!vh_gpu_ref_share_motion (tiny, 0, &sad));
  /* ... but with motion's, after one of its size */
  const VhGpuRefShare *motion_only = upload (d, c, &small);
  ck_assert (motion_only != NULL);
  ck_assert (vh_gpu_ref_share_vif (motion_only) == NULL);
  ck_assert (vh_gpu_ref_share_motion (motion_only, vh_gpu_ref_share_id (tiny),
          &sad));
  /* a picture too narrow for ADM's share (libvmaf's AVX-512 tail): VIF's
   * only, ADM's not computed at all */
  const VhGpuRefShare *thin = upload (c, NULL, &narrow);
  ck_assert (thin != NULL && vh_gpu_ref_share_vif (thin) != NULL);
  ck_assert (vh_gpu_ref_share_adm (thin) == NULL);
  /* and none across sizes: motion compares pictures of one size */
  const VhGpuRefShare *resized = upload (a, d, &big);
  ck_assert (resized != NULL);
  ck_assert (!vh_gpu_ref_share_motion (resized,
          vh_gpu_ref_share_id (motion_only), &sad));

  vh_gpu_stream_free (s1);
  vh_gpu_stream_free (s2);
  vh_gpu_picture_free (a);
  vh_gpu_picture_free (b);
  vh_gpu_picture_free (c);
  vh_gpu_picture_free (d);
  vh_gpu_sharer_free (sharer);
  g_free (big.data);
  g_free (small.data);
  g_free (narrow.data);
  vh_gpu_close (gpu);
}

END_TEST;

static Suite *
share_suite (void)
{
  Suite *s = suite_create ("gpu-share");
  TCase *tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_vif_share_refused);
  tcase_add_test (tc, test_adm_share_refused);
  tcase_add_test (tc, test_picture_shares);
  return s;
}

int
main (void)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  SRunner *runner = srunner_create (share_suite ());
  srunner_run_all (runner, CK_NORMAL);
  const int failed = srunner_ntests_failed (runner);
  srunner_free (runner);
  return failed ? 1 : 0;
}
