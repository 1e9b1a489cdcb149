/* vmafhip — the GPU scaler's kernels (kernels/scale.hip) run on the host:
 * their per-thread code (kernels/scale-device.h) over every block and
 * thread of both launches, in launch order, with the parameters the host
 * side makes (vh_scale_gpu_host_params: the CPU scaler's tables, copied as
 * they are uploaded), and every output sample must equal vh_scaler_run's.
 * The cases (tests/check/scale-cases.h) are the GPU test's: bilinear,
 * bicubic and lanczos, up and down, odd sizes, 8/10/12/16 bits, planar
 * and interleaved sources.  Also: the destination's row padding is never
 * written, the overshoot cap and negative intermediates really occur, and
 * the planes' checks refuse what the kernels cannot read.  No GPU needed. */
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <vector>

#include <glib.h>

#include "../../kernels/scale-device.h"

extern "C" {
#include "scale-gpu.h"
#include "vh-error.h"
}

#include "scale-cases.h"

static unsigned failures, cases;
static uint64_t capped, negative;

#define PAD_BYTE 0xa5

/* Plays a launch: every block of the grid, every thread of the block. */
template <class Thread>
static void
launch (uint32_t w, uint32_t h, Thread thread)
{
  const uint32_t gx = vh_scale_blocks (w, VH_SCALE_BLOCK_W);
  const uint32_t gy = vh_scale_blocks (h, VH_SCALE_BLOCK_H);
  for (uint32_t by = 0; by < gy; by++)
    for (uint32_t bx = 0; bx < gx; bx++)
      for (uint32_t ty = 0; ty < VH_SCALE_BLOCK_H; ty++)
        for (uint32_t tx = 0; tx < VH_SCALE_BLOCK_W; tx++)
          thread (bx * VH_SCALE_BLOCK_W + tx, by * VH_SCALE_BLOCK_H + ty);
}

static void
fail (const char *what, const char *fmt, ...) G_GNUC_PRINTF (2, 3);

static void
fail (const char *what, const char *fmt, ...)
{
  if (failures++ < 20) {
    va_list ap;
    va_start (ap, fmt);
    gchar *msg = g_strdup_vprintf (fmt, ap);
    va_end (ap);
    fprintf (stderr, "FAIL %s: %s\n", what, msg);
    g_free (msg);
  }
}

static void
run_case (const VhScaleCaseSize *sz, unsigned bpc, VhScaleFilter filter,
    unsigned step)
{
  gchar *what = g_strdup_printf ("%s %ux%u -> %ux%u %u-bit step %u",
      vh_scale_filter_name (filter), sz->src_w, sz->src_h, sz->dst_w,
      sz->dst_h, bpc, step);
  GError *error = NULL;
  VhScaler *s = vh_scaler_new (sz->src_w, sz->src_h, sz->dst_w, sz->dst_h,
      bpc, filter, &error);
  if (!s) {
    fail (what, "scaler: %s", error->message);
    g_clear_error (&error);
    g_free (what);
    return;
  }
  cases++;
  const size_t bytes = bpc > 8 ? 2 : 1;
  const size_t src_pitch = vh_scale_case_pitch (sz->src_w, step, bpc);
  std::vector<uint8_t> src (src_pitch * sz->src_h);
  vh_scale_case_fill (src.data (), src_pitch, sz->src_w, sz->src_h, step,
      bpc);
  const VhPlane src_plane = { src.data (), (ptrdiff_t) src_pitch, sz->src_w,
    sz->src_h, step };

  const size_t row = sz->dst_w * bytes;
  std::vector<uint8_t> cpu (row * sz->dst_h);
  const VhPlane cpu_plane = { cpu.data (), (ptrdiff_t) row, sz->dst_w,
    sz->dst_h, 1 };
  vh_scaler_run (s, &src_plane, &cpu_plane);

  /* the emulated destination has 5 samples of padding a row */
  const size_t pitch = row + 5 * bytes;
  std::vector<uint8_t> emu (pitch * sz->dst_h, PAD_BYTE);
  const VhPlane emu_plane = { emu.data (), (ptrdiff_t) pitch, sz->dst_w,
    sz->dst_h, 1 };
  VhScaleGpu *ctx = vh_scale_gpu_new_host (s, &error);
  VhScaleParams p;
  if (!ctx || !vh_scale_gpu_host_params (ctx, &src_plane, &emu_plane, &p,
          &error)) {
    fail (what, "host context: %s", error->message);
    g_clear_error (&error);
    vh_scale_gpu_free (ctx);
    vh_scaler_free (s);
    g_free (what);
    return;
  }
  /* the host side took the CPU's windows: the rows they read */
  unsigned v_taps;
  const unsigned *v_first;
  vh_scaler_taps (s, FALSE, &v_taps, &v_first);
  if (p.row0 != v_first[0] || p.rows + p.row0 > sz->src_h
      || p.row0 + p.rows != v_first[sz->dst_h - 1] + v_taps)
    fail (what, "intermediate rows %u + %u", p.row0, p.rows);

  const int is8 = bpc == 8;
  const int wide = bpc > 12;
  launch (p.dst_w, p.rows, [&] (uint32_t x, uint32_t r) {
        vh_scale_h_thread (&p, is8, x, r); });
  const int32_t *tmp = (const int32_t *) (uintptr_t) p.tmp;
  for (size_t i = 0; i < (size_t) p.rows * p.dst_w; i++) {
    capped += tmp[i] == p.top;
    negative += tmp[i] < 0;
  }
  launch (p.dst_w, p.dst_h, [&] (uint32_t x, uint32_t y) {
        vh_scale_v_thread (&p, is8, wide, x, y); });

  unsigned wrong = 0, padding = 0;
  for (unsigned y = 0; y < sz->dst_h; y++) {
    const uint8_t *a = cpu.data () + row * y, *b = emu.data () + pitch * y;
    for (unsigned x = 0; x < sz->dst_w; x++) {
      const unsigned va = is8 ? a[x] : ((const uint16_t *) a)[x];
      const unsigned vb = is8 ? b[x] : ((const uint16_t *) b)[x];
      if (va != vb && wrong++ == 0)
        fail (what, "sample (%u, %u): CPU %u, emulated GPU %u", x, y, va,
            vb);
    }
    for (size_t k = row; k < pitch; k++)
      padding += b[k] != PAD_BYTE;
  }
  if (wrong)
    fail (what, "%u of %u samples differ", wrong, sz->dst_w * sz->dst_h);
  if (padding)
    fail (what, "%u bytes of row padding written", padding);
  vh_scale_gpu_free (ctx);
  vh_scaler_free (s);
  g_free (what);
}

/* The checks vh_scale_gpu_enqueue makes, through host_params */
static void
check_refusals (void)
{
  GError *error = NULL;
  VhScaler *s = vh_scaler_new (33, 17, 64, 40, 10, VH_SCALE_BICUBIC, &error);
  g_assert_no_error (error);
  VhScaleGpu *ctx = vh_scale_gpu_new_host (s, &error);
  g_assert_no_error (error);
  std::vector<uint16_t> src (40 * 17), dst (64 * 40);
  struct {
    const char *what;
    VhPlane src, dst;
    int code;
  } bad[] = {
    { "source size", { src.data (), 80, 32, 17, 1 },
      { dst.data (), 128, 64, 40, 1 }, VH_ERROR_SIZE_MISMATCH },
    { "destination size", { src.data (), 80, 33, 17, 1 },
      { dst.data (), 128, 64, 39, 1 }, VH_ERROR_SIZE_MISMATCH },
    { "short pitch", { src.data (), 64, 33, 17, 1 },
      { dst.data (), 128, 64, 40, 1 }, VH_ERROR_INVALID_ARGUMENT },
    { "short pitch at step 2", { src.data (), 80, 33, 17, 2 },
      { dst.data (), 128, 64, 40, 1 }, VH_ERROR_INVALID_ARGUMENT },
    { "odd address", { (const uint8_t *) src.data () + 1, 80, 33, 17, 1 },
      { dst.data (), 128, 64, 40, 1 }, VH_ERROR_INVALID_ARGUMENT },
    { "odd pitch", { src.data (), 80, 33, 17, 1 },
      { dst.data (), 129, 64, 40, 1 }, VH_ERROR_INVALID_ARGUMENT },
    { "destination step", { src.data (), 80, 33, 17, 1 },
      { dst.data (), 256, 64, 40, 2 }, VH_ERROR_INVALID_ARGUMENT },
    { "no data", { NULL, 80, 33, 17, 1 },
      { dst.data (), 128, 64, 40, 1 }, VH_ERROR_INVALID_ARGUMENT },
  };
  VhScaleParams p;
  for (const auto &b : bad) {
    cases++;
    if (vh_scale_gpu_host_params (ctx, &b.src, &b.dst, &p, &error))
      fail (b.what, "accepted");
    else if (!g_error_matches (error, VH_ERROR, b.code))
      fail (b.what, "error %d (%s), want %d", error->code, error->message,
          b.code);
    else
      printf ("refused, as it should be: %s\n", error->message);
    g_clear_error (&error);
  }
  /* a host context runs nothing on a GPU */
  const VhScaleGpuPlane gs = { 1, 80, 33, 17, 1 }, gd = { 2, 128, 64, 40, 1 };
  if (vh_scale_gpu_enqueue (ctx, NULL, &gs, &gd, &error))
    fail ("enqueue", "a host context was enqueued");
  g_clear_error (&error);
  vh_scale_gpu_free (ctx);
  vh_scaler_free (s);
}

int
main ()
{
  for (unsigned i = 0; i < VH_SCALE_N_SIZES; i++)
    for (unsigned b = 0; b < VH_SCALE_N_BPCS; b++)
      for (unsigned f = 0; f < VH_SCALE_N_FILTERS; f++)
        run_case (&vh_scale_case_sizes[i], vh_scale_case_bpcs[b],
            vh_scale_case_filters[f], vh_scale_case_step (i, b));
  check_refusals ();
  /* the cases reach the cap and the undershoot, or they prove less */
  printf ("intermediate samples capped: %" G_GUINT64_FORMAT
      ", negative: %" G_GUINT64_FORMAT "\n", capped, negative);
  if (!capped || !negative)
    fail ("cases", "no intermediate was capped or negative");
  printf ("%u cases, %u failures\n", cases, failures);
  return failures ? 1 : 0;
}
