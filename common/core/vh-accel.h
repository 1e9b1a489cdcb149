/* vmafhip — the engine's accelerator interface (the GPU backend).
 *
 * An accelerator computes the accumulators of some extractor instances
 * (the GPU backend: VIF, ADM, motion, PSNR, CIEDE2000, SSIM, MS-SSIM,
 * PSNR-HVS, CAMBI and SpEED-chroma; its table in
 * common/gpu/backend/gpu-backend-features.c) for frames it was given, possibly many
 * frames in flight, and hands them back in frame order. The engine turns
 * them into scores with the extractors' own code (extract_sums), so the
 * accelerated and the CPU paths share everything after the integers.
 * The engine itself links no GPU code: the backend plugs in through this
 * table.
 */
#ifndef VH_ACCEL_H
#define VH_ACCEL_H

#include "vh-feature.h"
#include "scale.h"
#include "vh-config.h"

G_BEGIN_DECLS

/* Accumulators of a frame for the instance `handle` (from attach). */
typedef void (*VhAccelDeliverFunc) (gpointer engine_data, gpointer handle,
    unsigned index, const void *sums);

/* Whether an extractor computes frame `index` under a subsample (the
 * engine's vh_engine_set_subsample): the sequential ones (motion) every
 * frame, as libvmaf's n_subsample runs its temporal and previous-reference
 * extractors; the others every `subsample`-th frame only.  The engine's
 * and an accelerator's one rule. */
static inline gboolean
vh_subsample_computes (gboolean sequential, unsigned subsample,
    unsigned index)
{
  return sequential || subsample <= 1 || index % subsample == 0;
}

typedef struct VhAccelOps {
  /* Takes over an extractor instance if it can: sets *handle (non-NULL)
   * and returns TRUE; returns TRUE with *handle NULL if the CPU should do
   * this one; FALSE on error. */
  gboolean (*attach) (gpointer backend, const VhFeatureExtractor *fex,
      const void *opts, const VhVideoInfo *info, gpointer *handle,
      GError **error);
  /* Queues frame `index` for every attached instance. The pictures are
   * uploaded or copied before it returns, so the caller may reuse them. */
  gboolean (*submit) (gpointer backend, const VhPicture *ref,
      const VhPicture *dis, unsigned index, GError **error);
  /* Delivers finished frames in order (every attached instance of a frame,
   * then the next frame), blocking until at most `max_pending` submitted
   * frames are left undelivered. Returns the number of frames delivered. */
  gboolean (*collect) (gpointer backend, unsigned max_pending,
      VhAccelDeliverFunc deliver, gpointer engine_data, unsigned *delivered,
      GError **error);
  /* Frames that may be submitted and not yet collected. */
  unsigned (*max_in_flight) (gpointer backend);
  /* Drops everything in flight (flushing seek). */
  void (*reset) (gpointer backend);
  void (*free) (gpointer backend);
  /* Optional: compute only every n-th frame's non-sequential extractors
   * (the engine's vh_engine_set_subsample; before the first frame).  NULL:
   * the backend computes every frame and the engine ignores the rest. */
  void (*set_subsample) (gpointer backend, unsigned n);
  /* Optional: distorted pictures come with these plane sizes and are
   * scaled to the reference's with `filter` on the accelerator, bit for
   * bit as common/core/scale.c does (vh_engine_set_distorted_scaling; called
   * before the first submit).  NULL: the engine scales on the CPU. */
  gboolean (*scale_distorted) (gpointer backend, unsigned nplanes,
      const unsigned width[], const unsigned height[], VhScaleFilter filter,
      GError **error);
  /* Optional: the engine's settings (vh_engine_set_config; before any
   * instance is attached): which kernels a feature takes. */
  void (*set_config) (gpointer backend, const VhConfig *config);
} VhAccelOps;

G_END_DECLS
#endif /* VH_ACCEL_H */
