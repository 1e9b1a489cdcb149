/* vmafhip-info — what this build of vmafhip carries and what this machine
 * has: the GPU kernel images embedded (their targets, read from the
 * bytes), the GPUs found, and the image each GPU would run.
 *
 *   vmafhip-info
 *
 * Exit status 0; the report goes to stdout. */
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
  if (vendor == VH_GPU_VENDOR_NVIDIA && targets) {
    how = g_strv_contains ((const gchar *const *) targets, arch)
        ? " (its cubin for this arch)"
        : " (a cubin of the same major version, or its PTX compiled by the "
        "driver at load time)";
  }
  printf ("      runs %s image %u%s\n", vh_gpu_vendor_to_string (vendor), n,
      how);
  for (unsigned m = 0; m < G_N_ELEMENTS (modules); m++)
    if (!vh_gpu_image_set_choose (modules[m], vendor, arch, NULL))
      printf ("      but module \"%s\" has no image for it\n",
          modules[m]->name);
  g_strfreev (targets);
  g_free (built_for);
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
main (void)
{
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
  return 0;
}
