/* vmafhip — the feature-extractor interface.
 *
 * Modelled on libvmaf's: each feature lives in one file and exposes a
 * VhFeatureExtractor with init / extract / flush / close and its options as
 * data (VhOptionDesc). The engine creates one instance per distinct option
 * set; an instance's non-default "feature parameters" become a suffix of its
 * output names exactly as libvmaf prints them ("integer_vif_scale0_egl_1").
 */
#ifndef VH_FEATURE_H
#define VH_FEATURE_H

#include <stdbool.h>
#include <stddef.h>
#include <glib.h>

#include "vh-picture.h"
#include "vh-error.h"

G_BEGIN_DECLS

/* VH_OPT_ENUM: libvmaf's string options with a fixed set of values
 * ("eotf": "bt1886", "pq"); stored as the int index into the names that the
 * extractor's `enum_names` gives, printed in output names as the name.
 * VH_OPT_STRING: free text (a path), stored as a NUL-terminated char array
 * of VH_OPT_STRING_SIZE bytes, empty by default; never a feature parameter. */
typedef enum {
  VH_OPT_BOOL, VH_OPT_INT, VH_OPT_DOUBLE, VH_OPT_ENUM, VH_OPT_STRING
} VhOptType;
#define VH_OPT_STRING_SIZE 512

/* One option of an extractor. The value lives in the extractor's options
 * struct (at `offset`) as bool, int, double or chars according to `type`. */
typedef struct VhOptionDesc {
  const char *name;      /* libvmaf option name: "vif_enhn_gain_limit" */
  const char *alias;     /* name-suffix key: "egl" (NULL: use name) */
  VhOptType type;
  double default_val;
  double min, max;       /* inclusive range (ignored for bool) */
  size_t offset;         /* offsetof () in the options struct */
  bool feature_param;    /* non-default values appear in output names */
} VhOptionDesc;

/* Where extractors write their per-frame results. `name` is the base alias
 * ("integer_vif_scale0"); the sink appends the instance's option suffix. */
typedef struct VhFeatureSink VhFeatureSink;
void vh_feature_sink_put (VhFeatureSink *sink, const char *name,
    unsigned index, double value);
/* Without the suffix: libvmaf's names outside an extractor's provided
 * features ("cambi_source") carry none. */
void vh_feature_sink_put_plain (VhFeatureSink *sink, const char *name,
    unsigned index, double value);

/* A value for the whole stream (libvmaf's vmaf_feature_collector_
 * set_aggregate), from flush(): the log's "aggregate_metrics". */
void vh_feature_sink_set_aggregate (VhFeatureSink *sink, const char *name,
    double value);

typedef struct VhVideoInfo {
  unsigned width, height;  /* luma size */
  unsigned bpc;            /* 8, 10, 12 */
} VhVideoInfo;

typedef struct VhFeatureExtractor {
  const char *name;                /* "vif", "adm", "motion", "psnr" */
  const VhOptionDesc *options;     /* array ended by an entry with name NULL */
  size_t opts_size;                /* sizeof the options struct */
  size_t priv_size;                /* sizeof the private state (zeroed) */
  bool needs_chroma;               /* reads planes 1 and 2 */

  /* Called once; `opts` holds validated option values. Must reject
   * pictures the algorithm cannot handle (too small, unsupported bpc). */
  gboolean (*init) (void *priv, const void *opts, const VhVideoInfo *info,
      GError **error);
  /* Frames arrive in order 0, 1, 2 ... */
  gboolean (*extract) (void *priv, const VhPicture *ref, const VhPicture *dis,
      unsigned index, VhFeatureSink *sink, GError **error);
  /* End of stream: emit what depends on the stream's end. May be NULL. */
  gboolean (*flush) (void *priv, VhFeatureSink *sink, GError **error);
  /* Release what init allocated. May be NULL. */
  void (*close) (void *priv);
  /* How many later frames must be extracted before every output of frame i
   * is written (motion: 1, 2 with the five-frame window); flush() completes
   * the rest. NULL: 0, outputs of frame i are written by extract(i). */
  unsigned (*lookahead) (const void *opts);
  /* Accelerated path: emit frame `index`'s outputs from its integer
   * accumulators (the struct the CPU core fills: VhVifSums, VhAdmSums, the
   * motion SAD, VhPsnrSums), computed elsewhere. NULL: not accelerable. */
  gboolean (*extract_sums) (void *priv, const void *sums, unsigned index,
      VhFeatureSink *sink, GError **error);
  /* Optional: extract_sums keeps nothing from one frame to the next and
   * reads `sums` only; returns their size (read from them).  The engine
   * may then copy a frame's sums and run extract_sums on a helper thread,
   * on an instance of its own (init'ed alike), beside the next frames'
   * uploads; the puts reach the table in frame order all the same. */
  size_t (*independent_sums_size) (const void *sums);
  /* Frames in flight (the engine's worker pool, vh_engine_set_threads).
   * An extractor whose extract() keeps nothing from one frame to the next
   * needs none of these: a second instance (init'ed alike) per worker runs
   * it.  One that must see the frames in order (sequential) gives what
   * extract_sums takes, computed from frame `index`'s pictures and the
   * references of the lookback (opts) frames before it (earlier[0]: frame
   * index - 1; NULL before the first frame), in any thread and with the
   * state of a second instance: compute_sums writes sums_size bytes, and
   * extract_sums then takes them in frame order.  Sequential without
   * compute_sums: extract() runs in the pushing thread.  A reset (flushing
   * seek) closes and inits the sequential ones only: the others have
   * nothing of earlier frames to forget. */
  bool sequential;
  gboolean (*compute_sums) (void *priv, const VhPicture *ref,
      const VhPicture *dis, const VhPicture *const *earlier, unsigned index,
      void *sums, GError **error);
  size_t sums_size;
  unsigned (*lookback) (const void *opts);
  /* Refuses pictures whose layout it cannot read (planes, chroma
   * subsampling: the sizes of `layout` count, not its data), with the
   * reason.  The engine asks before the first frame; NULL: any layout. */
  gboolean (*check_layout) (const VhPicture *layout, GError **error);
  /* VH_OPT_ENUM options: the value names of option `option`, ended by
   * NULL (index = stored int). NULL: the extractor has no such options. */
  const char *const *(*enum_names) (const char *option);
  /* Row bands: after init, on each worker's instance, the engine's number
   * of workers and its count of idle ones (vh_parallel_for's budget); the
   * extractor may split one picture's work over that many threads, helpers
   * taken off the budget.  NULL: it never does. */
  void (*set_threads) (void *priv, unsigned max_threads, gint *budget);
} VhFeatureExtractor;

extern const VhFeatureExtractor vh_fex_vif;
extern const VhFeatureExtractor vh_fex_adm;
extern const VhFeatureExtractor vh_fex_motion;
extern const VhFeatureExtractor vh_fex_psnr;
extern const VhFeatureExtractor vh_fex_float_ssim;
extern const VhFeatureExtractor vh_fex_float_ms_ssim;
extern const VhFeatureExtractor vh_fex_ciede;
extern const VhFeatureExtractor vh_fex_psnr_hvs;
extern const VhFeatureExtractor vh_fex_cambi;
extern const VhFeatureExtractor vh_fex_speed_chroma;

/* Maps libvmaf's internal feature names (as in model files) to the
 * extractor that computes them and the alias it emits. NULL if unknown. */
typedef struct VhFeatureName {
  const char *internal;              /* "VMAF_integer_feature_vif_scale0_score" */
  const char *alias;                 /* "integer_vif_scale0" */
  const VhFeatureExtractor *fex;     /* NULL: known to libvmaf, not implemented here */
} VhFeatureName;
const VhFeatureName *vh_feature_name_lookup (const char *internal);

G_END_DECLS
#endif /* VH_FEATURE_H */
