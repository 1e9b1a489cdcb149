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

#include <stdint.h>

#include "vh-config.h"
#include "vh-engine.h"

G_BEGIN_DECLS

typedef enum {
  VH_BACKEND_AUTO,
  VH_BACKEND_CPU,
  VH_BACKEND_HIP,
} VhBackendKind;

/* "auto", "cpu", "hip" */
gboolean vh_backend_kind_from_string (const char *name, VhBackendKind *kind);

typedef struct VhBackendChoice VhBackendChoice;

/* device_id: a GPU's index (0, 1, ...), or this: the usable GPU with the
 * fewest streams of this process placed on it (the lowest index on a tie;
 * a GPU that fails the kernel probe is skipped).  A stream is a choice
 * alive, or the engines attached through it where there are more: each
 * weighs until its backend is freed. */
#define VH_DEVICE_AUTO (-1)

/* The backend for `kind` on GPU `device_id` (VH_DEVICE_AUTO: placed by
 * load), the runtime from `config` (NULL: the system's).  NULL for hip
 * without a working GPU, the error saying why (the caller adds the fix in
 * its own terms: backend=cpu, --backend cpu), and for a device_id below
 * VH_DEVICE_AUTO. */
VhBackendChoice *vh_backend_choose (VhBackendKind kind, int device_id,
    const VhConfig *config, GError **error);
/* Refcounted: the element's pinned pool and CUDA context keep theirs */
VhBackendChoice *vh_backend_choice_ref (VhBackendChoice *choice);
void vh_backend_choice_unref (VhBackendChoice *choice);

gboolean vh_backend_choice_is_gpu (const VhBackendChoice *choice);
/* "hip: VENDOR NAME (ARCH), device N" or "cpu"; placed by VH_DEVICE_AUTO,
 * " (auto: the least loaded of M GPUs)" after it */
const char *vh_backend_choice_description (const VhBackendChoice *choice);
/* A sentence for the user: "Scoring on the GPU (HIP, device 0: NAME,
 * ARCH)", "Scoring on the CPU (backend=auto, no usable GPU)", ... */
const char *vh_backend_choice_summary (const VhBackendChoice *choice);
/* auto that fell back to the CPU: why no GPU (NULL otherwise) */
const char *vh_backend_choice_fallback (const VhBackendChoice *choice);
/* The chosen device (the process's shared handle, borrowed; NULL on the
 * CPU), for a program that works with the device layer (vh-gpu.h) itself */
struct VhGpu;
struct VhGpu *vh_backend_choice_gpu (const VhBackendChoice *choice);

/* Gives the engine its accelerator on the chosen GPU, `slots` frames in
 * flight (0: the default); nothing on the CPU.  The engine owns the
 * accelerator from then on, attached or not: no falling back after a
 * failure here. */
gboolean vh_backend_choice_attach (const VhBackendChoice *choice,
    VhEngine *engine, unsigned slots, GError **error);

/* ---- What a front end does with the chosen GPU besides scoring: its
 * frames in pinned memory, in GPU memory of other drivers, a reference
 * uploaded once for several engines.  On the CPU these fail cleanly (NULL
 * or FALSE with an error): the caller keeps host memory. ---- */

/* NVIDIA, and that device's number (-1 on the CPU) */
gboolean vh_backend_choice_is_nvidia (const VhBackendChoice *choice);
int vh_backend_choice_device_id (const VhBackendChoice *choice);
/* The device's primary context (CUDA: a CUcontext; NULL elsewhere) */
void *vh_backend_choice_native_context (const VhBackendChoice *choice);
/* NVIDIA device device_id alone (no kernel probe, no stream placed), to
 * offer its CUDA context upstream before a backend is chosen
 * (VH_DEVICE_AUTO: the device auto would take now); NULL with the reason */
VhBackendChoice *vh_backend_open_nvidia (int device_id,
    const VhConfig *config, GError **error);
/* How many GPUs the runtimes (the config's, else the system's) see; 0
 * where none loads */
int vh_backend_count_gpus (const VhConfig *config);
/* The streams of this process on GPU device_id (VH_DEVICE_AUTO's
 * measure) */
int vh_backend_device_load (int device_id);

/* Pinned host memory the GPU copies from in place (vh_gpu_host_alloc) */
void *vh_backend_host_alloc (const VhBackendChoice *choice, size_t size,
    GError **error);
void vh_backend_host_free (const VhBackendChoice *choice, void *block);

/* A dmabuf of another driver, imported whole on the chosen GPU (holds a
 * reference on the device; freed from any thread) */
typedef struct VhGpuImport VhBackendImport;
VhBackendImport *vh_backend_import_dmabuf (const VhBackendChoice *choice,
    int fd, size_t size, GError **error);
void vh_backend_import_free (VhBackendImport *import);
/* Whether the import is on the chosen GPU, and its byte 0's address */
gboolean vh_backend_import_is_on (const VhBackendImport *import,
    const VhBackendChoice *choice);
uint64_t vh_backend_import_address (const VhBackendImport *import);

/* A reference uploaded once into GPU memory for several engines
 * (gpu-picture.h: VhGpuPicture), with the shares of the kernels' work
 * computed once (a sharer, for a ring of such pictures) */
typedef struct VhGpuPicture VhBackendPicture;
typedef struct VhGpuSharer VhBackendSharer;
VhBackendPicture *vh_backend_picture_new (const VhBackendChoice *choice);
void vh_backend_picture_free (VhBackendPicture *picture);
VhBackendSharer *vh_backend_sharer_new (const VhBackendChoice *choice);
void vh_backend_sharer_free (VhBackendSharer *sharer);
void vh_backend_picture_set_shared (VhBackendPicture *picture,
    VhBackendSharer *sharer);
/* vh_gpu_picture_upload_after: host's first nplanes planes into picture,
 * `prev` the one uploaded before it (or NULL); *out the device view */
gboolean vh_backend_picture_upload (VhBackendPicture *picture,
    const VhBackendPicture *prev, const VhPicture *host, unsigned nplanes,
    VhPicture *out, GError **error);

G_END_DECLS

#endif /* VH_BACKEND_H */
