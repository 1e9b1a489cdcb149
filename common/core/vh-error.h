/* vmafhip — error domain of the engine (GError). */
#ifndef VH_ERROR_H
#define VH_ERROR_H

#include <glib.h>

G_BEGIN_DECLS

#define VH_ERROR (vh_error_quark ())
GQuark vh_error_quark (void);

typedef enum {
  VH_ERROR_INVALID_ARGUMENT,  /* NULL pointer, zero size, bad option value */
  VH_ERROR_UNSUPPORTED,       /* bit depth, layout, a feature we do not have */
  VH_ERROR_SIZE_MISMATCH,     /* reference and distorted differ */
  VH_ERROR_TOO_SMALL,         /* picture smaller than a filter supports */
  VH_ERROR_MODEL,             /* unknown, unreadable or invalid model */
  VH_ERROR_IO,                /* cannot read or write a file */
  VH_ERROR_STATE,             /* call out of order (frame after flush, ...) */
  VH_ERROR_GPU,               /* GPU runtime / device failure */
} VhErrorCode;

G_END_DECLS
#endif /* VH_ERROR_H */
