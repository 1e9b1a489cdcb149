/* vmafhip — the GPU scaler (common/gpu/features/scale-gpu.c, kernels/scale.hip)
 * against the CPU scaler (vh_scaler_run).
 *
 *   test-scale-gpu           on a GPU: every case of ../scale-cases.h
 *                            (bilinear, bicubic, lanczos; up, down, odd
 *                            sizes; 8/10/12/16 bits; planar and step-2
 *                            sources) scaled on the GPU, every output
 *                            sample equal to the CPU's and the rows'
 *                            padding untouched; then the refusals (sizes,
 *                            arguments, a module without the kernels).
 *                            Exits 77 (skip) where no GPU opens.
 *   test-scale-gpu --mock    against the mock HIP runtime (mock-hip.c,
 *                            VMAFHIP_HIP_LIBRARY): failed launches, copies
 *                            and allocations give a GError, not a crash,
 *                            and leave no device memory behind.  Runs
 *                            everywhere. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scale-gpu.h"
#include "vh-error.h"
#include "vh-kernel-images.h"
#include "vh-test-util.h"

#include "scale-cases.h"
#include "../vh-test-config.h"

/* the engine's settings from the environment (main) */
static VhConfig test_config;

#define PAD_BYTE 0xa5

static unsigned failures, checks;

static void
fail (const char *what, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
fail (const char *what, const char *fmt, ...)
{
  failures++;
  va_list ap;
  va_start (ap, fmt);
  gchar *msg = g_strdup_vprintf (fmt, ap);
  va_end (ap);
  fprintf (stderr, "FAIL %s: %s\n", what, msg);
  g_free (msg);
}

/* An error of that code whose message holds `part`; prints it. */
static void
expect_error (const char *what, gboolean ok, GError **error, int code,
    const char *part)
{
  checks++;
  if (ok)
    fail (what, "succeeded, should have failed");
  else if (!*error)
    fail (what, "failed without an error");
  else if (!g_error_matches (*error, VH_ERROR, code)
      || (part && !strstr ((*error)->message, part)))
    fail (what, "error %d \"%s\", want code %d with \"%s\"", (*error)->code,
        (*error)->message, code, part ? part : "");
  else
    printf ("  %-28s %s\n", what, (*error)->message);
  g_clear_error (error);
}

/* ---- on a GPU --------------------------------------------------------- */

typedef struct {
  VhGpu *gpu;
  VhGpuModule *module;
  VhGpuStream *stream;
  VhGpuEvent *start, *end;
} Gpu;

/* One case: FALSE on a GPU call's error (reported). */
static void
gpu_case (Gpu *g, const VhScaleCaseSize *sz, unsigned bpc,
    VhScaleFilter filter, unsigned step)
{
  gchar *what = g_strdup_printf ("%s %ux%u -> %ux%u %u-bit step %u",
      vh_scale_filter_name (filter), sz->src_w, sz->src_h, sz->dst_w,
      sz->dst_h, bpc, step);
  GError *error = NULL;
  VhScaleGpu *ctx = NULL;
  VhGpuPtr dsrc = 0, ddst = 0;
  guint8 *src = NULL, *cpu = NULL, *got = NULL;
  checks++;
  VhScaler *s = vh_scaler_new (sz->src_w, sz->src_h, sz->dst_w, sz->dst_h,
      bpc, filter, &error);
  if (!s)
    goto out;

  const size_t bytes = bpc > 8 ? 2 : 1;
  const size_t src_pitch = vh_scale_case_pitch (sz->src_w, step, bpc);
  src = g_malloc (src_pitch * sz->src_h);
  vh_scale_case_fill (src, src_pitch, sz->src_w, sz->src_h, step, bpc);
  const VhPlane src_plane = { src, (ptrdiff_t) src_pitch, sz->src_w,
    sz->src_h, step };
  const size_t row = sz->dst_w * bytes;
  cpu = g_malloc (row * sz->dst_h);
  const VhPlane cpu_plane = { cpu, (ptrdiff_t) row, sz->dst_w, sz->dst_h,
    1 };
  vh_scaler_run (s, &src_plane, &cpu_plane);

  /* the device destination has 64 bytes of padding a row, memset first */
  const size_t pitch = row + 64;
  got = g_malloc (pitch * sz->dst_h);
  float ms = 0.0f;
  if (!(ctx = vh_scale_gpu_new (g->gpu, g->module, s, &error))
      || !(dsrc = vh_gpu_mem_alloc (g->gpu, src_pitch * sz->src_h, &error))
      || !(ddst = vh_gpu_mem_alloc (g->gpu, pitch * sz->dst_h, &error))
      || !vh_gpu_copy_h2d_async (g->stream, dsrc, src,
          src_pitch * sz->src_h, &error)
      || !vh_gpu_memset_async (g->stream, ddst, PAD_BYTE,
          pitch * sz->dst_h, &error)
      || !vh_gpu_event_record (g->start, g->stream, &error)
      || !vh_scale_gpu_enqueue (ctx, g->stream,
          &(VhScaleGpuPlane) { dsrc, src_pitch, sz->src_w, sz->src_h, step },
          &(VhScaleGpuPlane) { ddst, pitch, sz->dst_w, sz->dst_h, 1 },
          &error)
      || !vh_gpu_event_record (g->end, g->stream, &error)
      || !vh_gpu_copy_d2h_async (g->stream, got, ddst, pitch * sz->dst_h,
          &error)
      || !vh_gpu_stream_sync (g->stream, &error)
      || !vh_gpu_event_elapsed_ms (g->start, g->end, &ms, &error))
    goto out;

  unsigned wrong = 0, padding = 0;
  for (unsigned y = 0; y < sz->dst_h; y++) {
    const guint8 *a = cpu + row * y, *b = got + pitch * y;
    for (unsigned x = 0; x < sz->dst_w; x++) {
      const unsigned va = bytes == 1 ? a[x] : ((const guint16 *) a)[x];
      const unsigned vb = bytes == 1 ? b[x] : ((const guint16 *) b)[x];
      if (va != vb && wrong++ == 0)
        fail (what, "sample (%u, %u): CPU %u, GPU %u", x, y, va, vb);
    }
    for (size_t k = row; k < pitch; k++)
      padding += b[k] != PAD_BYTE;
  }
  if (wrong)
    fail (what, "%u of %u samples differ", wrong, sz->dst_w * sz->dst_h);
  if (padding)
    fail (what, "%u bytes of row padding written", padding);
  if (!wrong && !padding)
    printf ("  %-44s equal (%u samples, %.3f ms)\n", what,
        sz->dst_w * sz->dst_h, ms);

out:
  if (error) {
    fail (what, "%s", error->message);
    g_clear_error (&error);
  }
  vh_gpu_mem_free (g->gpu, dsrc);
  vh_gpu_mem_free (g->gpu, ddst);
  vh_scale_gpu_free (ctx);
  vh_scaler_free (s);
  g_free (src);
  g_free (cpu);
  g_free (got);
  g_free (what);
}

/* What a caller can get wrong, on the real runtime: refused with its
 * reason, nothing queued, the context still usable. */
static void
gpu_refusals (Gpu *g)
{
  GError *error = NULL;
  VhScaler *s = vh_scaler_new (33, 17, 64, 40, 10, VH_SCALE_LANCZOS, &error);
  g_assert_no_error (error);
  printf ("refusals:\n");
  expect_error ("no module", vh_scale_gpu_new (g->gpu, NULL, s, &error)
      != NULL, &error, VH_ERROR_INVALID_ARGUMENT, "module");
  expect_error ("no scaler", vh_scale_gpu_new (g->gpu, g->module, NULL,
          &error) != NULL, &error, VH_ERROR_INVALID_ARGUMENT, "scaler");
  /* another module: the kernels are not in it */
  VhGpuModule *probe = vh_gpu_module_load_embedded (g->gpu, &vh_kernel_probe,
      &error);
  g_assert_no_error (error);
  expect_error ("module without the kernels", vh_scale_gpu_new (g->gpu, probe,
          s, &error) != NULL, &error, VH_ERROR_GPU, "vh_scale_h_16");
  vh_gpu_module_free (probe);

  VhScaleGpu *ctx = vh_scale_gpu_new (g->gpu, g->module, s, &error);
  g_assert_no_error (error);
  VhGpuPtr buf = vh_gpu_mem_alloc (g->gpu, 1 << 16, &error);
  g_assert_no_error (error);
  const VhScaleGpuPlane src = { buf, 80, 33, 17, 1 };
  const VhScaleGpuPlane dst = { buf + 4096, 128, 64, 40, 1 };
  VhScaleGpuPlane bad = src;
  bad.width = 32;
  expect_error ("source size", vh_scale_gpu_enqueue (ctx, g->stream, &bad,
          &dst, &error), &error, VH_ERROR_SIZE_MISMATCH, "33x17");
  bad = dst;
  bad.pitch = 129;
  expect_error ("odd pitch", vh_scale_gpu_enqueue (ctx, g->stream, &src,
          &bad, &error), &error, VH_ERROR_INVALID_ARGUMENT, "aligned");
  bad = src;
  bad.pitch = 64;
  expect_error ("short pitch", vh_scale_gpu_enqueue (ctx, g->stream, &bad,
          &dst, &error), &error, VH_ERROR_INVALID_ARGUMENT, "pitch");
  expect_error ("no stream", vh_scale_gpu_enqueue (ctx, NULL, &src, &dst,
          &error), &error, VH_ERROR_INVALID_ARGUMENT, "stream");
  /* and it still runs */
  checks++;
  if (!vh_scale_gpu_enqueue (ctx, g->stream, &src, &dst, &error)
      || !vh_gpu_stream_sync (g->stream, &error)) {
    fail ("after the refusals", "%s", error->message);
    g_clear_error (&error);
  }
  vh_gpu_mem_free (g->gpu, buf);
  vh_scale_gpu_free (ctx);
  vh_scaler_free (s);
}

static int
run_gpu (void)
{
  GError *error = NULL;
  Gpu g = { NULL };
  g.gpu = vh_gpu_open (VH_GPU_VENDOR_AUTO, 0, &error);
  if (!g.gpu) {
    printf ("SKIP: no usable GPU here (%s): the GPU scaler was NOT tested\n",
        error->message);
    g_clear_error (&error);
    return VH_TEST_SKIP;
  }
  printf ("%s %s (%s)\n", vh_gpu_vendor_name (g.gpu),
      vh_gpu_device_name (g.gpu), vh_gpu_arch (g.gpu));
  if (!(g.module = vh_gpu_module_load_embedded (g.gpu, &vh_kernel_scale,
              &error))
      || !(g.stream = vh_gpu_stream_new (g.gpu, &error))
      || !(g.start = vh_gpu_event_new (g.gpu, TRUE, &error))
      || !(g.end = vh_gpu_event_new (g.gpu, TRUE, &error))) {
    fprintf (stderr, "FAIL: %s\n", error->message);
    return 1;
  }
  for (unsigned i = 0; i < VH_SCALE_N_SIZES; i++)
    for (unsigned b = 0; b < VH_SCALE_N_BPCS; b++)
      for (unsigned f = 0; f < VH_SCALE_N_FILTERS; f++)
        gpu_case (&g, &vh_scale_case_sizes[i], vh_scale_case_bpcs[b],
            vh_scale_case_filters[f], vh_scale_case_step (i, b));
  gpu_refusals (&g);
  vh_gpu_event_free (g.start);
  vh_gpu_event_free (g.end);
  vh_gpu_stream_free (g.stream);
  vh_gpu_module_free (g.module);
  vh_gpu_close (g.gpu);
  printf ("%u checks, %u failures\n", checks, failures);
  return failures ? 1 : 0;
}

/* ---- against the mock runtime ----------------------------------------- */

static guint64
in_use (VhGpu *gpu)
{
  guint64 bytes = 0;
  GError *error = NULL;
  if (!vh_gpu_memory_in_use (gpu, &bytes, &error))
    g_error ("memory in use: %s", error->message);
  return bytes;
}

static int
run_mock (void)
{
  /* the mock is an AMD device: a build without AMD images has no module */
  gboolean amd = FALSE;
  for (unsigned i = 0; i < vh_kernel_scale.n_images; i++)
    amd |= vh_kernel_scale.images[i].vendor == VH_GPU_VENDOR_AMD;
  if (!amd) {
    printf ("SKIP: this build has no AMD kernel images (configured without "
        "hipcc and clang-19): the mock cannot load the scaler's module\n");
    return VH_TEST_SKIP;
  }
  GError *error = NULL;
  VhGpu *gpu = vh_gpu_open (VH_GPU_VENDOR_AMD, 0, &error);
  if (!gpu) {
    fprintf (stderr, "FAIL: the mock HIP runtime did not open (is "
        "VMAFHIP_HIP_LIBRARY set to libvh-mock-hip.so?): %s\n",
        error->message);
    return 1;
  }
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_scale,
      &error);
  VhGpuStream *stream = module ? vh_gpu_stream_new (gpu, &error) : NULL;
  g_assert_no_error (error);
  VhScaler *s = vh_scaler_new (961, 541, 1920, 1080, 8, VH_SCALE_BICUBIC,
      &error);
  g_assert_no_error (error);
  const guint64 before = in_use (gpu);

  printf ("mock HIP runtime:\n");
  /* failures while creating: allocation, upload */
  g_setenv ("VH_MOCK_HIP_MALLOC_LIMIT", "100000", TRUE);
  expect_error ("out of memory", vh_scale_gpu_new (gpu, module, s, &error)
      != NULL, &error, VH_ERROR_GPU, "scale (GPU)");
  g_unsetenv ("VH_MOCK_HIP_MALLOC_LIMIT");
  g_setenv ("VH_MOCK_HIP_FAIL_COPY_AFTER", "1", TRUE);
  expect_error ("failed upload", vh_scale_gpu_new (gpu, module, s, &error)
      != NULL, &error, VH_ERROR_GPU, "scale (GPU)");
  g_unsetenv ("VH_MOCK_HIP_FAIL_COPY_AFTER");
  checks++;
  if (in_use (gpu) != before)
    fail ("failed creations", "left %" G_GUINT64_FORMAT " bytes of device "
        "memory", in_use (gpu) - before);

  VhScaleGpu *ctx = vh_scale_gpu_new (gpu, module, s, &error);
  g_assert_no_error (error);
  checks++;
  /* the tables of both directions and 1080 rows of 1920 int32 (bicubic
   * 2x up reads every source row) */
  if (vh_scale_gpu_device_bytes (ctx) < (size_t) 541 * 1920 * 4)
    fail ("device bytes", "%zu", vh_scale_gpu_device_bytes (ctx));
  VhGpuPtr src = vh_gpu_mem_alloc (gpu, 1024 * 541, &error);
  VhGpuPtr dst = vh_gpu_mem_alloc (gpu, 1920 * 1080, &error);
  g_assert_no_error (error);
  const VhScaleGpuPlane sp = { src, 1024, 961, 541, 1 };
  const VhScaleGpuPlane dp = { dst, 1920, 1920, 1080, 1 };
  checks++;
  if (!vh_scale_gpu_enqueue (ctx, stream, &sp, &dp, &error)) {
    fail ("enqueue", "%s", error->message);
    g_clear_error (&error);
  }
  /* a failing launch: an error naming the kernel, the context reusable */
  g_setenv ("VH_MOCK_HIP_FAIL_LAUNCH", "1", TRUE);
  expect_error ("failed launch", vh_scale_gpu_enqueue (ctx, stream, &sp, &dp,
          &error), &error, VH_ERROR_GPU, "vh_scale_h_8");
  g_unsetenv ("VH_MOCK_HIP_FAIL_LAUNCH");
  checks++;
  if (!vh_scale_gpu_enqueue (ctx, stream, &sp, &dp, &error)
      || !vh_gpu_stream_sync (stream, &error)) {
    fail ("enqueue after a failed launch", "%s", error->message);
    g_clear_error (&error);
  }
  vh_gpu_mem_free (gpu, src);
  vh_gpu_mem_free (gpu, dst);
  vh_scale_gpu_free (ctx);
  checks++;
  if (in_use (gpu) != before)
    fail ("free", "left %" G_GUINT64_FORMAT " bytes of device memory",
        in_use (gpu) - before);
  vh_scaler_free (s);
  vh_gpu_stream_free (stream);
  vh_gpu_module_free (module);
  vh_gpu_close (gpu);
  printf ("%u checks, %u failures\n", checks, failures);
  return failures ? 1 : 0;
}

int
main (int argc, char **argv)
{
  /* the runtime VMAFHIP_HIP_LIBRARY names (the mock), the SIMD cap */
  vh_test_config_load (&test_config);
  vh_gpu_use_config (&test_config);
  if (argc > 1 && strcmp (argv[1], "--mock") == 0)
    return run_mock ();
  if (argc > 1) {
    fprintf (stderr, "usage: %s [--mock]\n", argv[0]);
    return 2;
  }
  return run_gpu ();
}
