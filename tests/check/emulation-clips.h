/* vmafhip — the golden clips' raw frames (../shared/testdata/clips) as
 * picture pairs, for the kernels' host-emulation tests
 * (test-*-emulation.cpp, built with VH_TESTDATA_DIR; VMAFHIP_TESTDATA
 * overrides it).  A clip that is absent is skipped loudly. */
#ifndef VH_EMULATION_CLIPS_H
#define VH_EMULATION_CLIPS_H

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include "vh-picture.h"
}

class GoldenClip {
public:
  /* planar 4:2:0 or 4:4:4, 8-bit or 16-bit little-endian samples */
  GoldenClip (const char *name, unsigned w, unsigned h, unsigned bpc,
      bool yuv444)
    : w_ (w), h_ (h), bpc_ (bpc)
  {
    const char *env = std::getenv ("VMAFHIP_TESTDATA");
    const std::string dir = std::string (env && *env ? env : VH_TESTDATA_DIR)
        + "/clips/";
    const unsigned bytes = bpc > 8 ? 2 : 1;
    cw_ = yuv444 ? w : (w + 1) / 2;
    ch_ = yuv444 ? h : (h + 1) / 2;
    frame_ = ((size_t) w * h + 2 * (size_t) cw_ * ch_) * bytes;
    ref_.resize (frame_);
    dis_.resize (frame_);
    fr_ = std::fopen ((dir + name + "_ref.yuv").c_str (), "rb");
    fd_ = std::fopen ((dir + name + "_dis.yuv").c_str (), "rb");
    if (!fr_ || !fd_)
      std::fprintf (stderr, "*** SKIPPING clip %s: not found in '%s' (set "
          "VMAFHIP_TESTDATA) ***\n", name, dir.c_str ());
  }

  ~GoldenClip ()
  {
    if (fr_)
      std::fclose (fr_);
    if (fd_)
      std::fclose (fd_);
  }

  GoldenClip (const GoldenClip &) = delete;
  GoldenClip &operator= (const GoldenClip &) = delete;

  /* The next frame pair (valid until the next call), FALSE at the end or
   * where the clip is absent */
  bool next (VhPicture *r, VhPicture *d)
  {
    if (!fr_ || !fd_ || std::fread (ref_.data (), 1, frame_, fr_) != frame_
        || std::fread (dis_.data (), 1, frame_, fd_) != frame_)
      return false;
    const unsigned bytes = bpc_ > 8 ? 2 : 1;
    const size_t off[3] = { 0, (size_t) w_ * h_ * bytes,
      ((size_t) w_ * h_ + (size_t) cw_ * ch_) * bytes };
    *r = VhPicture ();
    *d = VhPicture ();
    for (unsigned p = 0; p < 3; p++) {
      const unsigned pw = p ? cw_ : w_, ph = p ? ch_ : h_;
      r->plane[p].data = ref_.data () + off[p];
      d->plane[p].data = dis_.data () + off[p];
      r->plane[p].stride = d->plane[p].stride = (ptrdiff_t) pw * bytes;
      r->plane[p].width = d->plane[p].width = pw;
      r->plane[p].height = d->plane[p].height = ph;
      r->plane[p].step = d->plane[p].step = 1;
    }
    r->nplanes = d->nplanes = 3;
    r->bpc = d->bpc = bpc_;
    return true;
  }

private:
  unsigned w_, h_, bpc_, cw_ = 0, ch_ = 0;
  size_t frame_ = 0;
  std::vector<unsigned char> ref_, dis_;
  FILE *fr_ = nullptr, *fd_ = nullptr;
};

#endif
