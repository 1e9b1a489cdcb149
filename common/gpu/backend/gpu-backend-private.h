/* vmafhip — the GPU backend's state, shared by its files: gpu-backend.c
 * (slots, uploads, submit and collect) and gpu-backend-features.c (what
 * it does per feature, as a table).  Not installed. */
#ifndef VH_GPU_BACKEND_PRIVATE_H
#define VH_GPU_BACKEND_PRIVATE_H

#include "vh-gpu-backend.h"
#include "vh-kernel-images.h"
#include "scale-gpu.h"
#include "cambi.h"
#include "speed-chroma.h"
#include "vif.h"
#include "adm.h"

#define MAX_PLANES 3
/* Device rows start on this boundary: wide, aligned loads in the kernels. */
#define PITCH_ALIGN 256

typedef struct Slot Slot;
typedef struct FeatureOps FeatureOps;

typedef struct {
  const FeatureOps *ops;
  VhVifOptions vif;
  VhAdmParams adm;
  unsigned lag;                 /* motion: 1, or 2 with the five-frame window */
  unsigned ssim_scale;          /* float_ssim: the down-sampling factor */
  VhCambiPlan cambi;
  VhSpeedChromaOptions speed;
  gboolean on_cpu;              /* configure found options the kernels lack */
  void **ctx;                   /* one kernel context per slot */
  size_t sums_size;             /* the ops' unless configure sizes it */
  size_t sums_offset;           /* in each slot's pinned result block */
} Handle;

struct Slot {
  VhGpuStream *stream;
  VhGpuEvent *uploaded;         /* the pictures are on the device */
  VhGpuEvent *done;             /* every kernel and result copy finished */
  VhGpuPtr ref[MAX_PLANES], dis[MAX_PLANES];
  guint8 *staging;              /* pinned: packed ref then dis planes */
  guint8 *sums;                 /* pinned: every handle's accumulators */
  unsigned index;
  /* frames from GPU memory above 8 bits: the depth check's word, on the
   * device and read back (pinned); depth_checked: this frame's is */
  VhGpuPtr depth_word;
  guint32 *depth_bits;
  gboolean depth_checked;
  /* distorted pictures scaled here (scale_distorted): the uploaded small
   * planes, and a scaler per plane (each owns its intermediate) */
  VhGpuPtr dis_small[MAX_PLANES];
  VhScaleGpu *scale[MAX_PLANES];
  /* the reference's work done once for several engines (a VhGpuRefShare
   * from the reference picture's device_share), this frame's, or NULL */
  const struct VhGpuRefShare *ref_share;
};

struct VhGpuBackend {
  VhGpu *gpu;
  VhVideoInfo info;
  gboolean have_info;
  unsigned n_slots;
  Slot *slots;
  GPtrArray *handles;           /* Handle* */
  VhGpuModule *modules[12];     /* by feature_ops index, on first use */
  size_t sums_size;
  /* device plane geometry, fixed at the first frame */
  unsigned nplanes, bytes;
  unsigned width[MAX_PLANES], height[MAX_PLANES];
  size_t pitch[MAX_PLANES], staged_row[MAX_PLANES];
  size_t staging_size;
  gboolean allocated;
  unsigned max_lag;
  unsigned subsample;           /* vh_engine_set_subsample's */
  /* the engine's choice of kernels (set_config): CIEDE2000's Lab table,
   * MS-SSIM's exact or fast kernels */
  gboolean ciede_lab_table, ms_ssim_fast;
  gboolean want_chroma;         /* a feature reads chroma: upload it too */
  unsigned n_submitted, n_delivered;
  unsigned n_zero_copy;         /* frames uploaded straight from the caller */
  unsigned n_device;            /* frames copied from the caller's GPU memory */
  VhGpuFunction *depth_check;   /* vh_depth_check_16, on first use */
  /* scale_distorted: the distorted planes' sizes and where they go */
  gboolean scaled;
  VhScaleFilter scale_filter;
  unsigned dis_width[MAX_PLANES], dis_height[MAX_PLANES];
  size_t dis_pitch[MAX_PLANES], dis_row[MAX_PLANES];
  VhGpuModule *scale_module;
  /* the shared reference upload of the frame submitted last (its id), 0:
   * none; and of the frame before it */
  guint64 ref_share_id, prev_ref_share_id;

  /* Staging copies run on a few threads: one core's memcpy is slower than
   * the upload itself at 4K. */
  GThreadPool *stagers;
  unsigned n_stagers;
  GMutex stage_lock;
  GCond stage_done;
  unsigned stage_left;

  /* vh_gpu_backend_set_release's, called at the end of backend_free */
  GDestroyNotify release;
  gpointer release_data;
};

/* ---- the features ---------------------------------------------------
 *
 * What the backend does differently per feature, as data: one entry per
 * extractor it accelerates, with its kernel image, the size of its
 * accumulators and four small functions. Adding a feature adds an entry,
 * not a case in every switch. */
struct FeatureOps {
  const VhFeatureExtractor *fex;
  const VhGpuImageSet *image;
  size_t sums_size;
  /* reads the extractor's options into the handle (NULL: none to read) */
  gboolean (*configure) (VhGpuBackend *b, Handle *h, const void *opts,
      GError **error);
  /* one kernel context per slot */
  void *(*ctx_new) (const VhGpuBackend *b, VhGpuModule *module,
      const VhVideoInfo *info, const Handle *h, GError **error);
  void (*ctx_free) (void *ctx);
  /* queues frame `index`'s kernels on slot s, results into `out` */
  gboolean (*enqueue) (VhGpuBackend *b, const Handle *h, Slot *s,
      unsigned index, void *ctx, void *out, GError **error);
};

extern const FeatureOps vh_gpu_feature_ops[];
extern const unsigned vh_gpu_n_feature_ops;

/* The table's entry of that extractor, or NULL: not accelerated */
const FeatureOps *vh_gpu_feature_ops_find (const VhFeatureExtractor *fex);

#endif /* VH_GPU_BACKEND_PRIVATE_H */
