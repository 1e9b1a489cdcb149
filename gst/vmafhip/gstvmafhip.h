/* vmafhip — the `vmafhip` element: VMAF of a distorted video against its
 * reference, scored by the vmafhip engine. */
#ifndef __GST_VMAFHIP_H__
#define __GST_VMAFHIP_H__

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>

G_BEGIN_DECLS

/* Values as libvmaf's enum VmafPoolingMethod, like the upstream element. */
typedef enum {
  GST_VMAFHIP_POOL_MIN = 1,
  GST_VMAFHIP_POOL_MAX = 2,
  GST_VMAFHIP_POOL_MEAN = 3,
  GST_VMAFHIP_POOL_HARMONIC_MEAN = 4,
} GstVmafHipPoolMethod;

/* Values as libvmaf's enum VmafOutputFormat, like the upstream element. */
typedef enum {
  GST_VMAFHIP_RESULTS_NONE = 0,
  GST_VMAFHIP_RESULTS_XML = 1,
  GST_VMAFHIP_RESULTS_JSON = 2,
  GST_VMAFHIP_RESULTS_CSV = 3,
  GST_VMAFHIP_RESULTS_SUB = 4,
} GstVmafHipResultsFormat;

typedef enum {
  GST_VMAFHIP_BACKEND_AUTO = 0,
  GST_VMAFHIP_BACKEND_CPU = 1,
  GST_VMAFHIP_BACKEND_HIP = 2,
} GstVmafHipBackend;

/* What to do when the two inputs have different frame rates. */
typedef enum {
  GST_VMAFHIP_RATE_MISMATCH_ERROR = 0,
  GST_VMAFHIP_RATE_MISMATCH_FOLLOW_REFERENCE = 1,
} GstVmafHipRateMismatch;

/* How a distorted video smaller than the reference is scaled up to it
 * (FFmpeg's filters, common/core/scale.c); none: such a video is refused. */
typedef enum {
  GST_VMAFHIP_SCALER_NONE = 0,
  GST_VMAFHIP_SCALER_BILINEAR = 1,
  GST_VMAFHIP_SCALER_BICUBIC = 2,
  GST_VMAFHIP_SCALER_LANCZOS = 3,
} GstVmafHipScaler;

/* How distorted frames are matched to reference frames in time. */
typedef enum {
  GST_VMAFHIP_ALIGN_OFF = 0,
  GST_VMAFHIP_ALIGN_OFFSET = 1,
  GST_VMAFHIP_ALIGN_AUTO = 2,
} GstVmafHipAlign;

/* What a results file that cannot be written completely does to the run. */
typedef enum {
  GST_VMAFHIP_WRITE_FAILURE_ERROR = 0,
  GST_VMAFHIP_WRITE_FAILURE_WARN = 1,
} GstVmafHipWriteFailure;

/* Values as libvmaf's enum VmafLogLevel, like the upstream element. */
typedef enum {
  GST_VMAFHIP_LOG_NONE = 0,
  GST_VMAFHIP_LOG_ERROR = 1,
  GST_VMAFHIP_LOG_WARNING = 2,
  GST_VMAFHIP_LOG_INFO = 3,
  GST_VMAFHIP_LOG_DEBUG = 4,
} GstVmafHipLogLevel;

GType gst_vmafhip_pool_method_get_type (void);
#define GST_TYPE_VMAFHIP_POOL_METHOD (gst_vmafhip_pool_method_get_type ())
GType gst_vmafhip_results_format_get_type (void);
#define GST_TYPE_VMAFHIP_RESULTS_FORMAT (gst_vmafhip_results_format_get_type ())
GType gst_vmafhip_backend_get_type (void);
#define GST_TYPE_VMAFHIP_BACKEND (gst_vmafhip_backend_get_type ())
GType gst_vmafhip_rate_mismatch_get_type (void);
#define GST_TYPE_VMAFHIP_RATE_MISMATCH (gst_vmafhip_rate_mismatch_get_type ())
GType gst_vmafhip_scaler_get_type (void);
#define GST_TYPE_VMAFHIP_SCALER (gst_vmafhip_scaler_get_type ())
GType gst_vmafhip_align_get_type (void);
#define GST_TYPE_VMAFHIP_ALIGN (gst_vmafhip_align_get_type ())
GType gst_vmafhip_write_failure_get_type (void);
#define GST_TYPE_VMAFHIP_WRITE_FAILURE (gst_vmafhip_write_failure_get_type ())
GType gst_vmafhip_log_level_get_type (void);
#define GST_TYPE_VMAFHIP_LOG_LEVEL (gst_vmafhip_log_level_get_type ())

#define GST_TYPE_VMAFHIP (gst_vmafhip_get_type ())
G_DECLARE_FINAL_TYPE (GstVmafHip, gst_vmafhip, GST, VMAFHIP, GstAggregator)

GST_ELEMENT_REGISTER_DECLARE (vmafhip);

G_END_DECLS

#endif /* __GST_VMAFHIP_H__ */
