/* vmafhip — engine error domain. */
#include "vh-error.h"

G_DEFINE_QUARK (vh-error-quark, vh_error)
