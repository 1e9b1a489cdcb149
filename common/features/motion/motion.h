/* vmafhip — integer motion (libvmaf 3.2.0 `motion`, bit-exact). */
#ifndef VH_MOTION_H
#define VH_MOTION_H

#include <stdbool.h>
#include <stdint.h>
#include "vh-picture.h"

/* The 5-tap blur reflects one sample past each edge (reflect-101), so a
 * plane needs at least 3 samples in each direction. */
#define VH_MOTION_MIN_SIZE 3

/* The extractor's options (libvmaf's motion_* names); an accelerator reads
 * them: with five_frame_window the SAD compares frames i − 2 and i. */
typedef struct VhMotionOptions {
  bool force_zero;
  double blend_factor;
  double blend_offset;
  double fps_weight;
  double max_val;
  bool five_frame_window;
  bool moving_average;
  bool debug;
} VhMotionOptions;

typedef struct VhMotionWork VhMotionWork;

/* Scratch for one luma size; NULL if the size is below VH_MOTION_MIN_SIZE. */
VhMotionWork *vh_motion_work_new (unsigned width, unsigned height);
void vh_motion_work_free (VhMotionWork *work);

/* Σ|blur(prev − cur)| over the luma plane (the integer SAD libvmaf keeps).
 * Both planes must have the work's size, step 1 and bpc 8, 10 or 12 (16-bit
 * samples 2-byte aligned). Returns 0 after a g_critical otherwise. */
uint64_t vh_motion_sad (VhMotionWork *work, const VhPlane *prev,
    const VhPlane *cur, unsigned bpc);

/* libvmaf's SAD score from the integer SAD: sad / 256 / (width·height), the
 * mean absolute blurred difference on the 8-bit scale. This is the score
 * before the options: the extractor emits min(score · motion_fps_weight,
 * motion_max_val), which with the defaults (1, 10000) is the score itself
 * (it never exceeds 255). */
double vh_motion_sad_score (uint64_t sad, unsigned width, unsigned height);

/* libvmaf's motion_blend(): factor·score + (1 − factor)·min(offset, score). */
double vh_motion_blend (double score, double factor, double offset);

#endif /* VH_MOTION_H */
