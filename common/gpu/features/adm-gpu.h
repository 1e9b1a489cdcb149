/* vmafhip — integer ADM on the GPU (kernels/adm.hip), host side.
 *
 * Computes exactly the accumulators of the CPU engine's
 * vh_adm_compute_sums () (common/features/adm/adm.h), integer for integer, for the same
 * VhAdmParams (any csf mode, egl, skip flags, and either VhAdmReference),
 * bpc 8, 10 or 12, any size the CPU accepts (odd sizes too).  The scores
 * then come from the CPU's vh_adm_sums_to_scores ().
 *
 * Use:
 *   // once per VhGpu (vh-kernel-images.h, from the kernels build):
 *   VhGpuModule *module = vh_gpu_module_load_embedded (gpu, &vh_kernel_adm, &error);
 *   // once per in-flight frame slot:
 *   VhAdmGpu *adm = vh_adm_gpu_new (gpu, module, width, height, bpc, &error);
 *   VhAdmSums *sums = vh_gpu_host_alloc (gpu, sizeof *sums, &error);
 *   // ref, dis: device luma planes (uint8 for 8 bits, uint16 LE above),
 *   // rows `pitch` bytes apart
 *   vh_adm_gpu_enqueue (adm, stream, ref, ref_pitch, dis, dis_pitch,
 *       &params, sums, &error);
 *   ... vh_gpu_stream_sync (stream) or an event recorded after it ...
 *   vh_adm_sums_to_scores (sums, width, height, &params, &scores);
 *   ...
 *   vh_adm_gpu_free (adm);  vh_gpu_host_free (gpu, sums);  vh_gpu_module_free (module);
 *
 * Module: the caller loads it (one per VhGpu serves every context, all bit
 * depths) and frees it after the last context.  vh_adm_gpu_new () looks the
 * four kernels up in it, which is not thread-safe against other lookups on
 * the same module: create contexts from one thread at a time.
 *
 * A context holds the device scratch of one frame in flight (low bands,
 * row accumulators): give each concurrently queued frame its own context,
 * or make the next enqueue on a context wait until the previous one has
 * finished (the same stream does that by itself).  Each context uploads
 * its own copy of libvmaf's DIV table (128 KiB) in vh_adm_gpu_new (), which
 * waits for that copy; nothing is allocated per frame.  Device memory of a
 * context: 2 × 4 bytes per sample of the three low bands (about 2.6 bytes
 * per picture sample) plus 72 bytes per band row of the four scales.
 *
 * Per frame: one memset, four kernel launches (one per scale) and one
 * 288-byte device-to-host copy, all on the caller's stream.
 *
 * Threads: a context is used by one thread at a time; contexts are
 * independent.
 */
#ifndef VH_ADM_GPU_H
#define VH_ADM_GPU_H

#include <glib.h>
#include <stddef.h>

#include "adm.h"
#include "vh-gpu.h"

G_BEGIN_DECLS

typedef struct VhAdmGpu VhAdmGpu;

/* A context for width × height luma pairs of bpc bits: looks the kernels
 * up in module (the loaded vh_kernel_adm; it must outlive the context),
 * allocates the device scratch and uploads the DIV table.  NULL and a
 * GError (VH_ERROR) when an argument is bad (INVALID_ARGUMENT: NULL gpu or
 * module, empty size), the picture is smaller than VH_ADM_MIN_SIZE on a
 * side (TOO_SMALL), bpc is not 8, 10 or 12 or a side exceeds 65536
 * (UNSUPPORTED) — the CPU extractor's checks — or the GPU fails (GPU: a
 * module without the ADM kernels, out of memory, ...). */
VhAdmGpu *vh_adm_gpu_new (VhGpu *gpu, VhGpuModule *module, unsigned width,
    unsigned height, unsigned bpc, GError **error);

/* Queues the ADM of one luma pair on stream and the copy of its
 * accumulators into *out, which must be page-locked host memory from
 * vh_gpu_host_alloc () on the same VhGpu; it holds the result once the
 * stream has passed this point.  Never waits for the device.
 *
 * ref, dis: device addresses of the luma planes (width × height samples,
 * one byte each at 8 bits, a 16-bit little-endian word above, then with
 * even addresses and pitches); ref_pitch, dis_pitch: bytes between their
 * rows (at least a row).  params: from
 * vh_adm_params_init (); it is read during the call only.
 *
 * FALSE and a GError on a bad argument or a failed queue call (the stream
 * may then hold part of the frame's work; *out is not valid). */
gboolean vh_adm_gpu_enqueue (VhAdmGpu *ctx, VhGpuStream *stream,
    VhGpuPtr ref, size_t ref_pitch, VhGpuPtr dis, size_t dis_pitch,
    const VhAdmParams *params, VhAdmSums *out, GError **error);

/* Frees the device scratch (not the module).  Work queued with the
 * context must have finished.  NULL is ignored. */
void vh_adm_gpu_free (VhAdmGpu *ctx);

/* ---- The reference's share ----------------------------------------------
 *
 * Several distorted pictures scored against one reference (an ABR
 * ladder's rungs) need the reference's wavelet decomposition once:
 * vh_adm_gpu_enqueue_reference computes it (its low band at scales 0-2 and
 * its detail bands over the region the scores read, at every scale) into
 * a VhAdmGpuReference, and vh_adm_gpu_enqueue_distorted then transforms
 * only the distorted picture and reads the reference's bands there: the
 * sums equal vh_adm_gpu_enqueue's, bit for bit.  The share is read in
 * place: order the distorted parts after its computation (the same
 * stream, or an event) and do not compute it again while they run. */
typedef struct VhAdmGpuReference VhAdmGpuReference;

/* Device memory for the share of width x height bpc-bit references
 * (about 5.3 bytes per picture sample); NULL and a GError where the size,
 * depth or GPU is refused or memory runs out. */
VhAdmGpuReference *vh_adm_gpu_reference_new (VhGpu *gpu, unsigned width,
    unsigned height, unsigned bpc, GError **error);
void vh_adm_gpu_reference_free (VhAdmGpuReference *share);
/* Queues the share of the reference luma plane `ref` on stream, with
 * ctx's kernels (a context of the share's size and depth) for the libvmaf
 * flavour of params. */
gboolean vh_adm_gpu_enqueue_reference (VhAdmGpu *ctx,
    VhAdmGpuReference *share, VhGpuStream *stream, VhGpuPtr ref,
    size_t ref_pitch, const VhAdmParams *params, GError **error);
/* Whether share serves ctx with params: computed, of ctx's size and
 * depth, for params' flavour, and (libvmaf's AVX-512 flavour) a picture
 * wide enough that the reference's bands past its right edge, which read
 * the distorted picture there, are never scored.  FALSE and a GError
 * naming which where not. */
gboolean vh_adm_gpu_reference_fits (const VhAdmGpu *ctx,
    const VhAdmGpuReference *share, const VhAdmParams *params,
    GError **error);
/* Whether a share of ctx's pictures could serve params at all (the
 * geometry part of the above): where not, computing one is wasted. */
gboolean vh_adm_gpu_share_possible (const VhAdmGpu *ctx,
    const VhAdmParams *params);
/* vh_adm_gpu_enqueue of (share's reference, dis), the reference's part
 * read from share (FALSE where it does not fit, see above). */
gboolean vh_adm_gpu_enqueue_distorted (VhAdmGpu *ctx, VhGpuStream *stream,
    const VhAdmGpuReference *share, VhGpuPtr dis, size_t dis_pitch,
    const VhAdmParams *params, VhAdmSums *out, GError **error);

/* The kernels' per-thread code run on the host over every block and
 * thread of each scale, on host pictures (tests: the GPU's integers on a
 * machine without one). */
gboolean vh_adm_gpu_emulate (const VhPlane *ref, const VhPlane *dis,
    unsigned bpc, const VhAdmParams *params, VhAdmSums *out, GError **error);
/* The same with the reference's share computed once (part _ref) and each
 * of the n distorted pictures scored against it (part _dis): out[i]. */
gboolean vh_adm_gpu_emulate_shared (const VhPlane *ref,
    const VhPlane *const *dis, unsigned n, unsigned bpc,
    const VhAdmParams *params, VhAdmSums *out, GError **error);

G_END_DECLS
#endif /* VH_ADM_GPU_H */
