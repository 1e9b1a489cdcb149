/* vmafhip — seeded synthetic video pairs.
 *
 * Content the project makes itself, for the README's demo, the benchmark and
 * tests that must run on any fresh clone: a moving textured scene (value
 * noise at several scales plus film-grain-like noise) as the reference, and a
 * blurred, quantised, noisier copy as the distorted stream. Deterministic for
 * a given seed on every platform (integer arithmetic only).
 */
#ifndef VH_SYNTH_H
#define VH_SYNTH_H

#include <stdint.h>
#include "vh-picture.h"

typedef enum {
  VH_SYNTH_420,
  VH_SYNTH_422,
  VH_SYNTH_444,
} VhSynthChroma;

typedef struct VhSynth VhSynth;

VhSynth *vh_synth_new (unsigned width, unsigned height, unsigned bpc,
    VhSynthChroma chroma, uint32_t seed);
void vh_synth_free (VhSynth *synth);

/* Renders frame `index` of both streams into the synth's buffers; the views
 * stay valid until the next call. `strength` 0..8 scales the distortion. */
void vh_synth_render (VhSynth *synth, unsigned index, unsigned strength,
    VhPicture *ref, VhPicture *dis);

/* The synth reuses its buffers: copies the views' planes (packed) into one
 * new allocation, points the views at it and returns it (g_free it). */
void *vh_synth_keep (VhPicture *ref, VhPicture *dis);

#endif
