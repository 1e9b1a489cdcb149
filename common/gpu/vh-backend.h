/* vmafhip — which backend scores: one rule for the element, the CLI, the
 * benchmarks and the tests.
 *
 *   VhBackendChoice *c = vh_backend_choose (VH_BACKEND_AUTO, 0, &config,
 *       &error);
 *   if (vh_backend_choice_fallback (c))   // auto, no working GPU: the CPU
 *     warn (vh_backend_choice_fallback (c));
 *   vh_backend_choice_attach (c, engine, 0, &error);   // per engine
 *   ...
 *   vh_backend_choice_free (c);
 *
 * hip needs a working GPU; auto takes one if it works, else the CPU; cpu
 * the CPU.  A GPU works when its runtime (the config's, else the
 * system's) opens the device and one of this build's kernel modules loads
 * on it: a device the build has no kernels for is found here, not at the
 * first frame. */
#ifndef VH_BACKEND_H
#define VH_BACKEND_H

#include "vh-config.h"
#include "vh-engine.h"
#include "vh-gpu.h"

G_BEGIN_DECLS

typedef enum {
  VH_BACKEND_AUTO,
  VH_BACKEND_CPU,
  VH_BACKEND_HIP,
} VhBackendKind;

/* "auto", "cpu", "hip" */
gboolean vh_backend_kind_from_string (const char *name, VhBackendKind *kind);

typedef struct VhBackendChoice VhBackendChoice;

/* The backend for `kind` on GPU `device_id` (negative: 0), the runtime
 * from `config` (NULL: the system's).  NULL only for hip without a working
 * GPU, the error saying why (the caller adds the fix in its own terms:
 * backend=cpu, --backend cpu). */
VhBackendChoice *vh_backend_choose (VhBackendKind kind, int device_id,
    const VhConfig *config, GError **error);
void vh_backend_choice_free (VhBackendChoice *choice);

gboolean vh_backend_choice_is_gpu (const VhBackendChoice *choice);
/* "hip: VENDOR NAME (ARCH), device N" or "cpu" */
const char *vh_backend_choice_description (const VhBackendChoice *choice);
/* A sentence for the user: "Scoring on the GPU (HIP, device 0: NAME,
 * ARCH)", "Scoring on the CPU (backend=auto, no usable GPU)", ... */
const char *vh_backend_choice_summary (const VhBackendChoice *choice);
/* auto that fell back to the CPU: why no GPU (NULL otherwise) */
const char *vh_backend_choice_fallback (const VhBackendChoice *choice);
/* The chosen device (the process's shared handle, borrowed; NULL on the
 * CPU): for pinned buffers and imports */
VhGpu *vh_backend_choice_gpu (const VhBackendChoice *choice);

/* Gives the engine its accelerator on the chosen GPU, `slots` frames in
 * flight (0: the default); nothing on the CPU.  The engine owns the
 * accelerator from then on, attached or not: no falling back after a
 * failure here. */
gboolean vh_backend_choice_attach (const VhBackendChoice *choice,
    VhEngine *engine, unsigned slots, GError **error);

G_END_DECLS

#endif /* VH_BACKEND_H */
