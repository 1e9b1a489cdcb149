/* vmafhip — test-gpu-runtime's device suite: the device layer on a real
 * GPU (open, share, memory, copies, streams, events, kernels, threads,
 * errors). Runs without fork, after the host suite, on the GPU main opened.
 */
#include <stdlib.h>

#include "vh-gpu-runtime-test.h"
#include "vh-kernel-images.h"

/* ======================================================================
 * device suite (a GPU opened in this process)
 * ====================================================================== */

static VhGpu *gpu;

/* The last error of a device test: err() clears it and hands out its
 * address, err_text() quotes it in an assertion message. */
static GError *last_error;

static GError **
err (void)
{
  g_clear_error (&last_error);
  return &last_error;
}

static const char *
err_text (void)
{
  return last_error ? last_error->message : "(no error message)";
}

START_TEST (device_info)
{
  note ("%s device %d: %s, arch %s, warp %d, %d multiprocessors, %d threads "
      "and %zu shared bytes per block, %.1f GiB, library %s",
      vh_gpu_vendor_name (gpu), vh_gpu_device_id (gpu), vh_gpu_device_name (gpu),
      vh_gpu_arch (gpu), vh_gpu_warp_size (gpu), vh_gpu_multiprocessor_count (gpu),
      vh_gpu_max_threads_per_block (gpu), vh_gpu_max_shared_per_block (gpu),
      vh_gpu_total_memory (gpu) / (1024.0 * 1024 * 1024), vh_gpu_library (gpu));
  ck_assert (vh_gpu_warp_size (gpu) == 32 || vh_gpu_warp_size (gpu) == 64);
  ck_assert_int_gt (vh_gpu_max_threads_per_block (gpu), 0);
  ck_assert_int_gt (vh_gpu_multiprocessor_count (gpu), 0);
  ck_assert_uint_gt (vh_gpu_total_memory (gpu), 0);
  ck_assert (strlen (vh_gpu_device_name (gpu)) > 0);
  ck_assert (g_str_has_prefix (vh_gpu_arch (gpu), "gfx")
      || g_str_has_prefix (vh_gpu_arch (gpu), "sm_")
      || strcmp (vh_gpu_arch (gpu), "unknown") == 0);
  ck_assert_msg (vh_gpu_bind (gpu, err ()), "%s", err_text ());
}
END_TEST

/* One handle per device and process: acquire twice gives the same one with
 * two references; vh_gpu_open gives a handle of its own; the last close
 * ends the shared one, and the next acquire opens it afresh. */
START_TEST (device_shared_handle)
{
  VhGpu *a = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, vh_gpu_device_id (gpu),
      err ());
  VhGpu *b = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, vh_gpu_device_id (gpu),
      err ());
  VhGpu *own = vh_gpu_open (VH_GPU_VENDOR_AUTO, vh_gpu_device_id (gpu),
      err ());

  ck_assert_msg (a && b && own, "%s", err_text ());
  ck_assert_ptr_eq (a, b);
  ck_assert_ptr_ne (a, own);
  ck_assert_int_eq (vh_gpu_refcount (a), 2);
  ck_assert_int_eq (vh_gpu_refcount (own), 1);
  ck_assert_ptr_eq (vh_gpu_ref (a), a);
  ck_assert_int_eq (vh_gpu_refcount (a), 3);
  vh_gpu_close (a);
  vh_gpu_close (a);
  ck_assert_int_eq (vh_gpu_refcount (b), 1);
  /* still usable through the last reference */
  VhGpuPtr p = vh_gpu_mem_alloc (b, 4096, err ());
  ck_assert_msg (p != 0, "%s", err_text ());
  vh_gpu_mem_free (b, p);
  vh_gpu_close (b);
  a = vh_gpu_acquire (VH_GPU_VENDOR_AUTO, vh_gpu_device_id (gpu), err ());
  ck_assert_msg (a != NULL, "%s", err_text ());
  ck_assert_int_eq (vh_gpu_refcount (a), 1);
  vh_gpu_close (a);
  vh_gpu_close (own);
}
END_TEST

/* Values whose partial sums overflow 64 bits: the exact result is the
 * two's-complement sum modulo 2^64, which the CPU computes unsigned. */
static void
fill_values (gint64 *values, size_t n, guint32 seed, guint64 *sum)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint64 total = 0;
  for (size_t i = 0; i < n; i++) {
    guint64 bits = ((guint64) g_rand_int (rand) << 32) | g_rand_int (rand);
    /* Mostly moderate values, a few near the int64 limits. */
    if (i % 97 != 0)
      bits = (guint64) ((gint64) (bits >> 20) - ((gint64) 1 << 43));
    values[i] = (gint64) bits;
    total += bits;
  }
  *sum = total;
  g_rand_free (rand);
}

START_TEST (device_probe_kernel)
{
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_probe, err ());
  ck_assert_msg (module, "%s", err_text ());
  VhGpuFunction *fn = vh_gpu_function (module, "vh_probe_sum_i64", err ());
  ck_assert_msg (fn, "%s", err_text ());
  ck_assert_ptr_eq (vh_gpu_function (module, "vh_probe_sum_i64", NULL), fn);

  const unsigned int n = (1u << 20) + 12345;
  gint64 *values = vh_gpu_host_alloc (gpu, n * sizeof (gint64), err ());
  ck_assert_msg (values, "%s", err_text ());
  guint64 *result = vh_gpu_host_alloc (gpu, 2 * sizeof (guint64), err ());
  ck_assert_msg (result, "%s", err_text ());
  guint64 expected;
  fill_values (values, n, 1234, &expected);

  VhGpuStream *stream = vh_gpu_stream_new (gpu, err ());
  ck_assert_msg (stream, "%s", err_text ());
  VhGpuPtr d_values = vh_gpu_mem_alloc (gpu, n * sizeof (gint64), err ());
  ck_assert_msg (d_values, "%s", err_text ());
  VhGpuPtr d_out = vh_gpu_mem_alloc (gpu, 2 * sizeof (guint64), err ());
  ck_assert_msg (d_out, "%s", err_text ());
  VhGpuPtr d_total = d_out, d_warp = d_out + sizeof (guint64);
  ck_assert_msg (vh_gpu_copy_h2d_async (stream, d_values, values, n * sizeof (gint64), err ()),
      "%s", err_text ());

  const int max_block = vh_gpu_max_threads_per_block (gpu);
  const unsigned int blocks[] = { 1, 31, 64, 96, 256, 1000, (unsigned int) max_block };
  const unsigned int grids[] = { 1, 7, 2 * (unsigned int) vh_gpu_multiprocessor_count (gpu) };
  unsigned int launches = 0;
  for (unsigned int b = 0; b < G_N_ELEMENTS (blocks); b++) {
    if (blocks[b] > (unsigned int) max_block)
      continue;
    for (unsigned int g = 0; g < G_N_ELEMENTS (grids); g++) {
      unsigned int count = n;
      void *args[] = { &d_values, &count, &d_total, &d_warp };
      VhGpuDim3 grid = { grids[g], 1, 1 }, block = { blocks[b], 1, 1 };
      ck_assert_msg (vh_gpu_memset_async (stream, d_out, 0, 2 * sizeof (guint64), err ()),
          "%s", err_text ());
      ck_assert_msg (vh_gpu_launch (fn, grid, block, blocks[b] * sizeof (guint64),
              stream, args, err ()), "%s", err_text ());
      ck_assert_msg (vh_gpu_copy_d2h_async (stream, result, d_out, 2 * sizeof (guint64), err ()),
          "%s", err_text ());
      ck_assert_msg (vh_gpu_stream_sync (stream, err ()), "%s", err_text ());
      ck_assert_msg (result[0] == expected,
          "grid %u x block %u: sum 0x%016" G_GINT64_MODIFIER "x, expected 0x%016"
          G_GINT64_MODIFIER "x", grids[g], blocks[b], result[0], expected);
      int warp_width;
      memcpy (&warp_width, &result[1], sizeof warp_width);
      ck_assert_int_eq (warp_width, vh_gpu_warp_size (gpu));
      launches++;
    }
  }
  note ("probe kernel: %u launches, exact int64 sum 0x%016" G_GINT64_MODIFIER
      "x of %u values, device warp width %d", launches, expected, n,
      vh_gpu_warp_size (gpu));

  vh_gpu_mem_free (gpu, d_values);
  vh_gpu_mem_free (gpu, d_out);
  vh_gpu_stream_free (stream);
  vh_gpu_host_free (gpu, values);
  vh_gpu_host_free (gpu, result);
  vh_gpu_module_free (module);
}
END_TEST

START_TEST (device_copies)
{
  const size_t width = 1000, height = 37;
  const size_t host_pitch = 1024, device_pitch = 1280, back_pitch = 1100;
  guint8 *src = vh_gpu_host_alloc (gpu, host_pitch * height, err ());
  ck_assert_msg (src, "%s", err_text ());
  guint8 *back = vh_gpu_host_alloc (gpu, back_pitch * height, err ());
  ck_assert_msg (back, "%s", err_text ());
  for (size_t i = 0; i < host_pitch * height; i++)
    src[i] = (guint8) (i * 7 + i / 251);
  memset (back, 0xab, back_pitch * height);

  VhGpuStream *stream = vh_gpu_stream_new (gpu, err ());
  ck_assert_msg (stream, "%s", err_text ());
  VhGpuPtr plane = vh_gpu_mem_alloc (gpu, device_pitch * height, err ());
  ck_assert_msg (plane, "%s", err_text ());
  VhGpuPtr other = vh_gpu_mem_alloc (gpu, device_pitch * height, err ());
  ck_assert_msg (other, "%s", err_text ());

  /* 2-D up, 1-D device-to-device, 2-D down: three different pitches. */
  ck_assert_msg (vh_gpu_memset_async (stream, plane, 0x5a, device_pitch * height, err ()),
      "%s", err_text ());
  ck_assert_msg (vh_gpu_copy2d_h2d_async (stream, plane, device_pitch, src, host_pitch,
          width, height, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_d2d_async (stream, other, plane, device_pitch * height, err ()),
      "%s", err_text ());
  ck_assert_msg (vh_gpu_copy2d_d2h_async (stream, back, back_pitch, other, device_pitch,
          width, height, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_sync (stream, err ()), "%s", err_text ());
  for (size_t y = 0; y < height; y++) {
    ck_assert_msg (memcmp (back + y * back_pitch, src + y * host_pitch, width) == 0,
        "row %zu differs", y);
    for (size_t x = width; x < back_pitch; x++)
      ck_assert_msg (back[y * back_pitch + x] == 0xab, "padding of row %zu written", y);
  }

  /* The device padding kept the memset value: read one whole padded row. */
  guint8 *row = vh_gpu_host_alloc (gpu, device_pitch, err ());
  ck_assert_msg (row, "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_d2h_async (stream, row, other + 5 * device_pitch,
          device_pitch, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_sync (stream, err ()), "%s", err_text ());
  ck_assert (memcmp (row, src + 5 * host_pitch, width) == 0);
  for (size_t x = width; x < device_pitch; x++)
    ck_assert_int_eq (row[x], 0x5a);

  /* 32-bit memset. */
  ck_assert_msg (vh_gpu_memset32_async (stream, other, 0xdeadbeefu, device_pitch / 4, err ()),
      "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_d2h_async (stream, row, other, device_pitch, err ()),
      "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_sync (stream, err ()), "%s", err_text ());
  for (size_t x = 0; x < device_pitch / 4; x++) {
    guint32 word;
    memcpy (&word, row + 4 * x, 4);
    ck_assert_uint_eq (word, 0xdeadbeefu);
  }

  /* A row wider than a pitch is refused before the vendor sees it. */
  ck_assert (!vh_gpu_copy2d_h2d_async (stream, plane, 512, src, host_pitch, width, 2, err ()));
  ck_assert_int_eq (last_error->code, VH_ERROR_INVALID_ARGUMENT);
  note ("2-D copy round trip (pitches %zu -> %zu -> %zu), d2d, memsets: exact",
      host_pitch, device_pitch, back_pitch);

  vh_gpu_host_free (gpu, row);
  vh_gpu_mem_free (gpu, plane);
  vh_gpu_mem_free (gpu, other);
  vh_gpu_stream_free (stream);
  vh_gpu_host_free (gpu, src);
  vh_gpu_host_free (gpu, back);
}
END_TEST

START_TEST (device_streams_events)
{
  const size_t size = 64u << 20;
  guint8 *host = vh_gpu_host_alloc (gpu, size, err ());
  ck_assert_msg (host, "%s", err_text ());
  guint8 *back = vh_gpu_host_alloc (gpu, size, err ());
  ck_assert_msg (back, "%s", err_text ());
  for (size_t i = 0; i < size; i++)
    host[i] = (guint8) (i * 131 + (i >> 12));
  memset (back, 0, size);

  VhGpuStream *upload = vh_gpu_stream_new (gpu, err ());
  ck_assert_msg (upload, "%s", err_text ());
  VhGpuStream *download = vh_gpu_stream_new (gpu, err ());
  ck_assert_msg (download, "%s", err_text ());
  VhGpuEvent *start = vh_gpu_event_new (gpu, TRUE, err ());
  ck_assert_msg (start, "%s", err_text ());
  VhGpuEvent *uploaded = vh_gpu_event_new (gpu, TRUE, err ());
  ck_assert_msg (uploaded, "%s", err_text ());
  VhGpuEvent *sync_only = vh_gpu_event_new (gpu, FALSE, err ());
  ck_assert_msg (sync_only, "%s", err_text ());
  VhGpuPtr buffer = vh_gpu_mem_alloc (gpu, size, err ());
  ck_assert_msg (buffer, "%s", err_text ());

  /* The download stream waits for the upload stream's event: the copy back
   * must see the whole upload although the streams are independent. */
  ck_assert_msg (vh_gpu_event_record (start, upload, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_h2d_async (upload, buffer, host, size, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_event_record (uploaded, upload, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_wait_event (download, uploaded, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_copy_d2h_async (download, back, buffer, size, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_event_record (sync_only, download, err ()), "%s", err_text ());

  gboolean done = TRUE;
  ck_assert_msg (vh_gpu_event_query (sync_only, &done, err ()), "%s", err_text ());
  note ("event query right after queuing 2 x 64 MiB: %s", done ? "done" : "not ready");
  ck_assert_msg (vh_gpu_event_sync (sync_only, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_event_query (sync_only, &done, err ()), "%s", err_text ());
  ck_assert (done);
  gboolean idle = FALSE;
  ck_assert_msg (vh_gpu_stream_sync (upload, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_stream_query (download, &idle, err ()), "%s", err_text ());
  ck_assert (idle);
  ck_assert (memcmp (host, back, size) == 0);

  float ms = -1;
  ck_assert_msg (vh_gpu_event_elapsed_ms (start, uploaded, &ms, err ()), "%s", err_text ());
  ck_assert (ms >= 0);
  note ("64 MiB pinned host-to-device copy: %.3f ms (%.1f GB/s)", ms,
      ms > 0 ? size / (ms * 1e6) : 0.0);
  /* Timing needs timing events. */
  ck_assert (!vh_gpu_event_elapsed_ms (start, sync_only, &ms, err ()));
  ck_assert_int_eq (last_error->code, VH_ERROR_INVALID_ARGUMENT);

  /* Recording on the default stream (NULL) works too. */
  ck_assert_msg (vh_gpu_event_record (sync_only, NULL, err ()), "%s", err_text ());
  ck_assert_msg (vh_gpu_event_sync (sync_only, err ()), "%s", err_text ());

  vh_gpu_mem_free (gpu, buffer);
  vh_gpu_event_free (start);
  vh_gpu_event_free (uploaded);
  vh_gpu_event_free (sync_only);
  vh_gpu_stream_free (upload);
  vh_gpu_stream_free (download);
  vh_gpu_host_free (gpu, host);
  vh_gpu_host_free (gpu, back);
}
END_TEST

/* A thread that never opened the device uses it: the layer must make the
 * context current there by itself. */
static gpointer
other_thread_work (gpointer data)
{
  VhGpu *device = data;
  GError *error = NULL;
  guint32 *host = vh_gpu_host_alloc (device, 4096, &error);
  VhGpuStream *stream = host ? vh_gpu_stream_new (device, &error) : NULL;
  VhGpuPtr buffer = stream ? vh_gpu_mem_alloc (device, 4096, &error) : 0;
  gboolean ok = buffer
      && vh_gpu_memset32_async (stream, buffer, 0x01020304u, 1024, &error)
      && vh_gpu_copy_d2h_async (stream, host, buffer, 4096, &error)
      && vh_gpu_stream_sync (stream, &error);
  for (unsigned int i = 0; ok && i < 1024; i++)
    ok = host[i] == 0x01020304u;
  vh_gpu_mem_free (device, buffer);
  vh_gpu_stream_free (stream);
  vh_gpu_host_free (device, host);
  if (error) {
    note ("other thread: %s", error->message);
    g_error_free (error);
  }
  return GINT_TO_POINTER (ok);
}

START_TEST (device_other_threads)
{
  GThread *threads[4];
  for (unsigned int i = 0; i < G_N_ELEMENTS (threads); i++)
    threads[i] = g_thread_new ("vh-gpu-test", other_thread_work, gpu);
  for (unsigned int i = 0; i < G_N_ELEMENTS (threads); i++)
    ck_assert_msg (g_thread_join (threads[i]), "thread %u failed", i);
  note ("4 threads used the device without opening it: OK");
}
END_TEST

START_TEST (device_error_paths)
{
  /* Out of memory names the size. */
  const size_t huge = (size_t) vh_gpu_total_memory (gpu) * 4;
  ck_assert (vh_gpu_mem_alloc (gpu, huge, err ()) == 0);
  char *bytes = g_strdup_printf ("(%zu bytes)", huge);
  assert_error (last_error, VH_ERROR_GPU, "out of GPU memory");
  assert_error (last_error, VH_ERROR_GPU, bytes);
  note ("%s", last_error->message);
  g_free (bytes);
  ck_assert (vh_gpu_mem_alloc (gpu, 0, err ()) == 0);
  assert_error (last_error, VH_ERROR_INVALID_ARGUMENT, "0 bytes");

  /* A build without this vendor's code (and a CPU-only one). */
  const VhGpuImage *own = vh_gpu_image_set_find (&vh_kernel_probe, vh_gpu_vendor (gpu));
  ck_assert_msg (own, "this build has no %s code for the probe", vh_gpu_vendor_name (gpu));
  const VhGpuImage foreign = {
    vh_gpu_vendor (gpu) == VH_GPU_VENDOR_AMD ? VH_GPU_VENDOR_NVIDIA : VH_GPU_VENDOR_AMD,
    "sm_80", own->data, own->size
  };
  const VhGpuImageSet foreign_only = { "probe", &foreign, 1 };
  ck_assert_ptr_null (vh_gpu_module_load_embedded (gpu, &foreign_only, err ()));
  assert_error (last_error, VH_ERROR_GPU, "kernel image not loadable for this GPU");
  assert_error (last_error, VH_ERROR_GPU, "only");
  note ("%s", last_error->message);
  const VhGpuImageSet empty = { "probe", NULL, 0 };
  ck_assert_ptr_null (vh_gpu_module_load_embedded (gpu, &empty, err ()));
  assert_error (last_error, VH_ERROR_GPU, "CPU-only build");

  /* An image for other archs only: refused before the vendor sees it. */
  guint8 *patched = g_memdup2 (own->data, own->size);
  if (vh_gpu_vendor (gpu) == VH_GPU_VENDOR_NVIDIA) {
    /* Fatbin entries' arch field -> 250 (no such GPU). */
    size_t pos = 16;
    while (pos + 32 <= own->size) {
      guint32 header, arch = 250;
      guint64 payload;
      memcpy (&header, patched + pos + 4, 4);
      memcpy (&payload, patched + pos + 8, 8);
      memcpy (patched + pos + 28, &arch, 4);
      pos += header + payload;
    }
  } else {
    /* Bundle ids "...--gfx9xx" -> "...--gfx000"-like names. */
    for (size_t i = 0; i + 5 < own->size; i++)
      if (memcmp (patched + i, "--gfx", 5) == 0)
        memset (patched + i + 5, '0', 3);
  }
  const VhGpuImage wrong_arch = { vh_gpu_vendor (gpu), own->targets, patched, own->size };
  const VhGpuImageSet wrong_set = { "probe", &wrong_arch, 1 };
  ck_assert_ptr_null (vh_gpu_module_load_embedded (gpu, &wrong_set, err ()));
  assert_error (last_error, VH_ERROR_GPU, "kernel image not loadable for this GPU (");
  assert_error (last_error, VH_ERROR_GPU, vh_gpu_arch (gpu));
  note ("%s", last_error->message);
  g_free (patched);

  /* Bytes that are no image at all, through the vendor loader. */
  ck_assert_ptr_null (vh_gpu_module_load_data (gpu, "this is not a kernel image", err ()));
  assert_error (last_error, VH_ERROR_GPU, "ModuleLoadData failed");
  note ("%s", last_error->message);

  /* Unknown kernel name, impossible launches. */
  VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_probe, err ());
  ck_assert_msg (module, "%s", err_text ());
  ck_assert_ptr_null (vh_gpu_function (module, "vh_no_such_kernel", err ()));
  assert_error (last_error, VH_ERROR_GPU, "vh_no_such_kernel");
  assert_error (last_error, VH_ERROR_GPU, "GetFunction failed");
  note ("%s", last_error->message);
  VhGpuFunction *fn = vh_gpu_function (module, "vh_probe_sum_i64", err ());
  ck_assert_msg (fn, "%s", err_text ());
  VhGpuDim3 one = { 1, 1, 1 }, too_big = { 4096, 1, 1 }, empty_grid = { 0, 1, 1 };
  ck_assert (!vh_gpu_launch (fn, one, too_big, 0, NULL, NULL, err ()));
  assert_error (last_error, VH_ERROR_INVALID_ARGUMENT, "threads exceeds");
  ck_assert (!vh_gpu_launch (fn, empty_grid, one, 0, NULL, NULL, err ()));
  assert_error (last_error, VH_ERROR_INVALID_ARGUMENT, "empty launch");
  ck_assert (!vh_gpu_launch (fn, one, one, 1u << 30, NULL, NULL, err ()));
  assert_error (last_error, VH_ERROR_INVALID_ARGUMENT, "shared memory");
  vh_gpu_module_free (module);

  /* Device id out of range, for the vendor that opened. */
  int count = vh_gpu_device_count (vh_gpu_vendor (gpu), err ());
  ck_assert_int_gt (count, 0);
  ck_assert_ptr_null (vh_gpu_open (vh_gpu_vendor (gpu), count + 2, err ()));
  char *expected = g_strdup_printf ("device-id %d but %d %s device", count + 2, count,
      vh_gpu_vendor_name (gpu));
  assert_error (last_error, VH_ERROR_GPU, expected);
  note ("%s", last_error->message);
  g_free (expected);
  g_clear_error (&last_error);
}
END_TEST

Suite *
device_suite (VhGpu *device)
{
  gpu = device;
  Suite *s = suite_create ("gpu-device");
  TCase *tc = tcase_create ("device");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, device_info);
  tcase_add_test (tc, device_shared_handle);
  tcase_add_test (tc, device_probe_kernel);
  tcase_add_test (tc, device_copies);
  tcase_add_test (tc, device_streams_events);
  tcase_add_test (tc, device_other_threads);
  tcase_add_test (tc, device_error_paths);
  suite_add_tcase (s, tc);
  return s;
}

void
device_suite_done (void)
{
  g_clear_error (&last_error);
  gpu = NULL;
}
