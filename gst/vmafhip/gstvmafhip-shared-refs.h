/* vmafhip — reference frames uploaded into GPU memory once for the
 * renditions that score there (share-reference): a ring of entries, each
 * uploaded by an uploader thread of its own with the reference's share of
 * VIF, ADM and motion, and free again once every rendition's worker that
 * takes it has pushed it.  The aggregator's thread uploads; workers wait
 * and are done. */
#ifndef __GST_VMAFHIP_SHARED_REFS_H__
#define __GST_VMAFHIP_SHARED_REFS_H__

#include "gstvmafhip-private.h"

G_BEGIN_DECLS

typedef struct _GstVmafHipSharedRef GstVmafHipSharedRef;

/* The reference frame in GPU memory for `takers` workers, uploaded once;
 * NULL (each uploads its own) without share-reference, with fewer than
 * two takers, or where the uploader cannot start. */
GstVmafHipSharedRef *gst_vmafhip_shared_ref_upload (GstVmafHip * self,
    GstBuffer * buffer, guint takers, unsigned nplanes);
/* Its device view once uploaded, or NULL where the upload failed (the
 * worker then reads the frame from host memory). */
const VhPicture *gst_vmafhip_shared_ref_wait (GstVmafHip * self,
    GstVmafHipSharedRef * ref);
/* A taker has pushed it. */
void gst_vmafhip_shared_ref_done (GstVmafHip * self,
    GstVmafHipSharedRef * ref);
/* After every rendition's queue is drained: the ring freed. */
void gst_vmafhip_shared_refs_free (GstVmafHip * self);

G_END_DECLS
#endif /* __GST_VMAFHIP_SHARED_REFS_H__ */
