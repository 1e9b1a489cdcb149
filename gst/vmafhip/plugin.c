/* vmafhip — plugin entry point. */
#include "gstvmafhip.h"
#include "gstvmafhipmeta.h"

static gboolean
plugin_init (GstPlugin * plugin)
{
  /* Register the meta up front so applications find its API type by name
   * as soon as the plugin is loaded. */
  gst_vmafhip_meta_register ();
  return GST_ELEMENT_REGISTER (vmafhip, plugin);
}

GST_PLUGIN_DEFINE (GST_VERSION_MAJOR, GST_VERSION_MINOR, vmafhip,
    "VMAF video quality (libvmaf 3.2.0 bit-exact), vmafhip engine",
    plugin_init, VERSION, "BSD", GST_PACKAGE_NAME, GST_PACKAGE_ORIGIN)
