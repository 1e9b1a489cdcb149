/* vmafhip — the element's debug category, defined apart so that every
 * file of the element logs to it without calling into gstvmafhip.c
 * (initialised in its class_init). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstvmafhip-private.h"

GST_DEBUG_CATEGORY (gst_vmafhip_debug);
