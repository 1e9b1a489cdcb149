/* vmafhip-info — what this build of vmafhip carries and what this machine
 * has: the GPU kernel images embedded (their targets, read from the
 * bytes), the GPUs found, and the image each GPU would run.
 *
 *   vmafhip-info                      the images and this machine's GPUs
 *   vmafhip-info --resources          every target's kernel resources
 *   vmafhip-info --resources --target gfx1100   every kernel of one target
 *   vmafhip-info --arch gfx1036       the image a GPU of that arch would run
 *
 * The resources (registers, shared memory, scratch, spills, occupancy)
 * were read from these very images when vmafhip was built
 * (tools/gpu-resources.py: AMD code object metadata, ptxas's report for
 * NVIDIA); the build fails on a spill or on more shared memory than a
 * target has, so every row here has none.
 *
 * Exit status 0 (2 for a bad option or an unknown --target); the report
 * goes to stdout. */
#include <stdio.h>
#include <string.h>

#include "vh-gpu.h"
#include "vh-kernel-images.h"
#include "vh-config.h"

static const VhGpuImageSet *const modules[] = {
  &vh_kernel_probe, &vh_kernel_motion, &vh_kernel_psnr, &vh_kernel_adm,
  &vh_kernel_vif, &vh_kernel_ciede, &vh_kernel_ssim, &vh_kernel_ms_ssim,
  &vh_kernel_psnr_hvs, &vh_kernel_cambi, &vh_kernel_speed, &vh_kernel_scale,
};

static void
print_images (void)
{
  const VhGpuImageSet *set = &vh_kernel_probe;
  printf ("kernel images (%zu modules:", G_N_ELEMENTS (modules));
  for (unsigned m = 0; m < G_N_ELEMENTS (modules); m++)
    printf ("%s %s", m ? "," : "", modules[m]->name);
  printf ("):\n");
  if (set->n_images == 0)
    printf ("  none: a CPU-only build (configured without hipcc, clang-19 "
        "and nvcc)\n");
  for (unsigned i = 0; i < set->n_images; i++) {
    const VhGpuImage *image = &set->images[i];
    GError *error = NULL;
    gchar **targets = vh_gpu_image_read_targets (image, &error);
    gchar *list = targets ? g_strjoinv (", ", targets)
        : g_strdup_printf ("unreadable (%s)", error->message);
    printf ("  %s image %u: %s\n", vh_gpu_vendor_to_string (image->vendor),
        i + 1, list);
    /* modules built without this target list (a build should have none) */
    for (unsigned m = 0; m < G_N_ELEMENTS (modules); m++) {
      gboolean found = FALSE;
      for (unsigned k = 0; k < modules[m]->n_images; k++)
        found |= !g_strcmp0 (modules[m]->images[k].targets, image->targets);
      if (!found)
        printf ("    (no \"%s\" kernels for these targets: that feature runs "
            "on the CPU there)\n", modules[m]->name);
    }
    g_free (list);
    g_strfreev (targets);
    g_clear_error (&error);
  }
}

/* Which image (and, NVIDIA, which of its entries) a GPU of arch runs. */
static void
print_choice (VhGpuVendor vendor, const char *arch)
{
  char *built_for = NULL;
  const VhGpuImage *image = vh_gpu_image_set_choose (&vh_kernel_probe, vendor,
      arch, &built_for);
  if (!image) {
    printf ("      no image fits: the kernels are not built for %s (built "
        "for %s); vmafhip scores on the CPU here\n", arch,
        built_for ? built_for : "nothing");
    g_free (built_for);
    return;
  }
  const unsigned n = (unsigned) (image - vh_kernel_probe.images) + 1;
  gchar **targets = vh_gpu_image_read_targets (image, NULL);
  const char *how = "";
  char *generic_how = NULL;
  if (vendor == VH_GPU_VENDOR_NVIDIA && targets) {
    how = g_strv_contains ((const gchar *const *) targets, arch)
        ? " (its cubin for this arch)"
        : " (a cubin of the same major version, or its PTX compiled by the "
        "driver at load time)";
  } else if (vendor == VH_GPU_VENDOR_AMD && targets
      && vh_gpu_amd_fit (arch, targets) == VH_GPU_IMAGE_FIT_GENERIC) {
    generic_how = g_strdup_printf (" (its %s code object: no image has one "
        "for %s itself; the runtime must be ROCm 6.4 or later)",
        vh_gpu_amd_generic_target (arch), arch);
    how = generic_how;
  } else if (vendor == VH_GPU_VENDOR_AMD) {
    how = " (its code object for this arch)";
  }
  printf ("      runs %s image %u%s\n", vh_gpu_vendor_to_string (vendor), n,
      how);
  for (unsigned m = 0; m < G_N_ELEMENTS (modules); m++)
    if (!vh_gpu_image_set_choose (modules[m], vendor, arch, NULL))
      printf ("      but module \"%s\" has no image for it\n",
          modules[m]->name);
  g_free (generic_how);
  g_strfreev (targets);
  g_free (built_for);
}

/* ---- --resources ------------------------------------------------------ */

static void
print_facts (const VhGpuTargetFacts *facts)
{
  if (facts->vendor == VH_GPU_VENDOR_AMD)
    printf ("code object v%u, xnack %s, sramecc %s; loaded by ROCm %s and later",
        facts->code_object_version, facts->xnack, facts->sramecc,
        facts->first_rocm);
  else
    printf ("cubin");
}

/* The most of one figure among a target's kernels, and whose it is. */
typedef struct {
  unsigned int value;
  const VhGpuKernelResources *kernel;
} Most;

static void
keep_most (Most *most, unsigned int value, const VhGpuKernelResources *kernel,
    gboolean least)
{
  if (!most->kernel || (least ? value < most->value : value > most->value)) {
    most->value = value;
    most->kernel = kernel;
  }
}

static void
print_target_summary (const VhGpuTargetFacts *facts)
{
  const gboolean amd = facts->vendor == VH_GPU_VENDOR_AMD;
  Most regs = { 0 }, sregs = { 0 }, shared = { 0 }, scratch = { 0 },
      occupancy = { 0 };
  unsigned int n = 0, scratch_users = 0, spills = 0, scalar_spills = 0,
      accepted = 0;
  for (unsigned i = 0; i < vh_kernel_resources.n_kernels; i++) {
    const VhGpuKernelResources *k = &vh_kernel_resources.kernels[i];
    if (k->vendor != facts->vendor || strcmp (k->target, facts->target) != 0)
      continue;
    n++;
    keep_most (&regs, k->registers, k, FALSE);
    keep_most (&sregs, k->scalar_registers, k, FALSE);
    keep_most (&shared, k->shared_bytes, k, FALSE);
    keep_most (&scratch, k->scratch_bytes, k, FALSE);
    if (k->occupancy_max)
      keep_most (&occupancy, k->occupancy, k, TRUE);
    scratch_users += k->scratch_bytes > 0;
    spills += k->spills;
    accepted += k->spill_accepted;
    scalar_spills += k->scalar_spills;
  }
  printf ("  %s (%s; ", facts->target, vh_gpu_vendor_to_string (facts->vendor));
  print_facts (facts);
  printf ("): %u kernels\n", n);
  if (!n)
    return;
  printf ("    most %s %u (%s/%s)", amd ? "VGPRs" : "registers", regs.value,
      regs.kernel->module, regs.kernel->kernel);
  if (amd)
    printf (", most SGPRs %u (%s/%s)", sregs.value, sregs.kernel->module,
        sregs.kernel->kernel);
  printf ("\n    most %s %u bytes (%s/%s)\n", amd ? "LDS" : "shared memory",
      shared.value, shared.kernel->module, shared.kernel->kernel);
  if (scratch_users)
    printf ("    %s in %u kernels, at most %u bytes a thread (%s/%s)\n",
        amd ? "scratch" : "stack frame", scratch_users, scratch.value,
        scratch.kernel->module, scratch.kernel->kernel);
  printf ("    spills: %u%s", spills, amd ? " VGPRs" : " bytes");
  if (accepted)
    printf (", in %u kernel%s kernels/spills-accepted.txt accepts", accepted,
        accepted == 1 ? "" : "s");
  if (scalar_spills)
    printf (" (%u SGPRs kept in VGPR lanes)", scalar_spills);
  printf ("\n");
  if (occupancy.kernel)
    printf ("    least occupancy %u of %u %s (%s/%s, set by its %s)\n",
        occupancy.value, occupancy.kernel->occupancy_max,
        amd ? "waves a SIMD" : "warps an SM", occupancy.kernel->module,
        occupancy.kernel->kernel, occupancy.kernel->limited_by);
}

static void
print_target_kernels (const VhGpuTargetFacts *facts)
{
  const gboolean amd = facts->vendor == VH_GPU_VENDOR_AMD;
  printf ("%s (%s; ", facts->target, vh_gpu_vendor_to_string (facts->vendor));
  print_facts (facts);
  printf ("), in image %s:\n", facts->image_targets);
  printf ("  %-40s %5s %5s %7s %7s %6s %4s %7s %s\n", "module/kernel",
      amd ? "VGPRs" : "regs", amd ? "SGPRs" : "-", amd ? "LDS" : "shared",
      amd ? "scratch" : "stack", "spills", "wave", "threads", "occupancy");
  for (unsigned i = 0; i < vh_kernel_resources.n_kernels; i++) {
    const VhGpuKernelResources *k = &vh_kernel_resources.kernels[i];
    if (k->vendor != facts->vendor || strcmp (k->target, facts->target) != 0)
      continue;
    gchar *name = g_strdup_printf ("%s/%s", k->module, k->kernel);
    gchar *spills = amd ? g_strdup_printf ("%u/%u%s", k->spills, k->scalar_spills,
        k->spill_accepted ? "*" : "")
        : g_strdup_printf ("%u%s", k->spills, k->spill_accepted ? "*" : "");
    printf ("  %-40s %5u %5u %7u %7u %6s %4u %7u %u/%u (%s)\n", name,
        k->registers, k->scalar_registers, k->shared_bytes, k->scratch_bytes,
        spills, k->wave_size, k->max_threads, k->occupancy, k->occupancy_max,
        k->limited_by);
    g_free (spills);
    g_free (name);
  }
  printf ("  (spills: %s, * accepted by kernels/spills-accepted.txt; "
      "occupancy: %s)\n", amd ? "VGPRs to scratch / SGPRs into VGPR lanes"
      : "bytes stored to local memory", amd ? "waves a SIMD, LLVM's model"
      : "warps an SM, the CUDA occupancy calculator's model");
}

static int
print_resources (const char *target)
{
  if (vh_kernel_resources.n_targets == 0) {
    if (target) {
      fprintf (stderr, "vmafhip-info: no kernels built for %s: a CPU-only "
          "build (configured without hipcc, clang-19 and nvcc)\n", target);
      return 2;
    }
    printf ("kernel resources: none (a CPU-only build: no kernel image)\n");
    return 0;
  }
  if (target) {
    gboolean found = FALSE;
    for (unsigned i = 0; i < vh_kernel_resources.n_targets; i++)
      if (strcmp (vh_kernel_resources.targets[i].target, target) == 0) {
        print_target_kernels (&vh_kernel_resources.targets[i]);
        found = TRUE;
      }
    if (!found) {
      fprintf (stderr, "vmafhip-info: no kernels built for %s: it is none of "
          "this build's targets (vmafhip-info lists them)\n", target);
      return 2;
    }
    return 0;
  }
  printf ("kernel resources per target (read from the images when vmafhip was "
      "built; --target TARGET lists every kernel):\n");
  for (unsigned i = 0; i < vh_kernel_resources.n_targets; i++)
    print_target_summary (&vh_kernel_resources.targets[i]);
  return 0;
}

static void
print_devices (VhGpuVendor vendor)
{
  GError *error = NULL;
  const int n = vh_gpu_device_count (vendor, &error);
  printf ("  %s: ", vh_gpu_vendor_to_string (vendor));
  if (n <= 0) {
    printf ("none (%s)\n", error ? error->message : "no device");
    g_clear_error (&error);
    return;
  }
  printf ("%d device%s\n", n, n == 1 ? "" : "s");
  for (int i = 0; i < n; i++) {
    VhGpu *gpu = vh_gpu_open (vendor, i, &error);
    if (!gpu) {
      printf ("    device %d: cannot open: %s\n", i, error->message);
      g_clear_error (&error);
      continue;
    }
    printf ("    device %d: %s (%s), %s\n", i, vh_gpu_device_name (gpu),
        vh_gpu_arch (gpu), vh_gpu_library (gpu));
    print_choice (vendor, vh_gpu_arch (gpu));
    vh_gpu_close (gpu);
  }
}

int
main (int argc, char **argv)
{
  gboolean resources = FALSE;
  gchar *target = NULL;
  gchar **archs = NULL;
  const GOptionEntry entries[] = {
    { "resources", 0, 0, G_OPTION_ARG_NONE, &resources,
      "Every target's kernel resources (registers, shared memory, scratch, "
      "spills, occupancy), read from the images at build time", NULL },
    { "target", 0, 0, G_OPTION_ARG_STRING, &target,
      "With --resources: every kernel of this target", "TARGET" },
    { "arch", 0, 0, G_OPTION_ARG_STRING_ARRAY, &archs,
      "The image a GPU of this arch would run (gfx1036, sm_89; repeatable)",
      "ARCH" },
    { NULL, 0, 0, 0, NULL, NULL, NULL }
  };
  GError *error = NULL;
  GOptionContext *ctx = g_option_context_new ("- what this vmafhip build "
      "carries and what this machine has");
  g_option_context_add_main_entries (ctx, entries, NULL);
  if (!g_option_context_parse (ctx, &argc, &argv, &error)) {
    fprintf (stderr, "vmafhip-info: %s\n", error->message);
    g_error_free (error);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (target && !resources) {
    fprintf (stderr, "vmafhip-info: --target goes with --resources\n");
    g_free (target);
    g_strfreev (archs);
    return 2;
  }

  int status = 0;
  if (resources) {
    status = print_resources (target);
  } else if (archs) {
    for (unsigned i = 0; archs[i]; i++) {
      const VhGpuVendor vendor = g_str_has_prefix (archs[i], "sm_")
          ? VH_GPU_VENDOR_NVIDIA : VH_GPU_VENDOR_AMD;
      printf ("  a GPU of arch %s (%s):\n", archs[i],
          vh_gpu_vendor_to_string (vendor));
      print_choice (vendor, archs[i]);
    }
  } else {
    /* the runtimes VMAFHIP_HIP_LIBRARY / VMAFHIP_CUDA_LIBRARY name */
    VhConfig config;
    vh_config_init (&config);
    vh_config_load_environment (&config);
    vh_gpu_use_config (&config);
    printf ("vmafhip %s\n", VMAFHIP_VERSION);
    print_images ();
    printf ("GPUs on this machine:\n");
    print_devices (VH_GPU_VENDOR_AMD);
    print_devices (VH_GPU_VENDOR_NVIDIA);
  }
  g_free (target);
  g_strfreev (archs);
  return status;
}
