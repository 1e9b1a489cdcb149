/* vmafhip — float SSIM's constants (libvmaf's IQA SSIM), one source for
 * the CPU engine (common/features/ssim/ssim.c, which float_ms_ssim shares) and the GPU
 * kernels (kernels/ssim.hip, kernels/ms-ssim-device.h): plain C, no GPU
 * headers. */
#ifndef VH_SSIM_PARAMS_H
#define VH_SSIM_PARAMS_H

/* The Gaussian window's width (libvmaf's GAUSSIAN_LEN, iqa/ssim_tools.h). */
#define VH_SSIM_WINDOW 11

/* IQA's 11-tap Gaussian (sigma 1.5), as the elements of an array
 * initialiser (libvmaf's g_gaussian_window_h, iqa/ssim_tools.h). */
#define VH_SSIM_GAUSSIAN \
  0.001028f, 0.007599f, 0.036001f, 0.109361f, 0.213006f, 0.266012f, \
  0.213006f, 0.109361f, 0.036001f, 0.007599f, 0.001028f

/* SSIM's C1 = (K1·L)², C2 = (K2·L)² and C3 = C2 / 2 in float, K1 = 0.01,
 * K2 = 0.03, L = 255 (libvmaf's C1, C2, C3 of _iqa_ssim,
 * iqa/ssim_tools.c). */
#define VH_SSIM_C1 ((0.01f * 255) * (0.01f * 255))
#define VH_SSIM_C2 ((0.03f * 255) * (0.03f * 255))
#define VH_SSIM_C3 (VH_SSIM_C2 / 2.0f)

#endif /* VH_SSIM_PARAMS_H */
