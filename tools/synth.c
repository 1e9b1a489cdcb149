/* vmafhip — seeded synthetic video pairs (see vh-synth.h). */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "vh-synth.h"

struct VhSynth {
  unsigned width, height, bpc;
  unsigned cw, ch;              /* chroma plane size */
  uint32_t seed;
  void *ref[3], *dis[3];
  int32_t *tmp;                 /* one plane of work space */
};

static uint32_t
hash3 (uint32_t x, uint32_t y, uint32_t z)
{
  uint32_t h = x * 0x8da6b343u ^ y * 0xd8163841u ^ z * 0xcb1ab31fu;
  h ^= h >> 15;
  h *= 0x2c1b3c6du;
  h ^= h >> 12;
  h *= 0x297a2d39u;
  h ^= h >> 15;
  return h;
}

/* Bilinear value noise on a grid of `cell` pixels, 0..255·256 range. */
static int32_t
value_noise (int32_t x, int32_t y, int32_t cell, uint32_t seed)
{
  const int32_t gx = x >= 0 ? x / cell : (x - cell + 1) / cell;
  const int32_t gy = y >= 0 ? y / cell : (y - cell + 1) / cell;
  const int32_t fx = ((x - gx * cell) << 8) / cell;
  const int32_t fy = ((y - gy * cell) << 8) / cell;
  const int32_t v00 = hash3 (gx, gy, seed) & 255;
  const int32_t v10 = hash3 (gx + 1, gy, seed) & 255;
  const int32_t v01 = hash3 (gx, gy + 1, seed) & 255;
  const int32_t v11 = hash3 (gx + 1, gy + 1, seed) & 255;
  const int32_t top = v00 * (256 - fx) + v10 * fx;
  const int32_t bot = v01 * (256 - fx) + v11 * fx;
  return (top * (256 - fy) + bot * fy) >> 8;
}

VhSynth *
vh_synth_new (unsigned width, unsigned height, unsigned bpc,
    VhSynthChroma chroma, uint32_t seed)
{
  if (!width || !height || (bpc != 8 && bpc != 10 && bpc != 12))
    return NULL;
  VhSynth *s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  s->width = width;
  s->height = height;
  s->bpc = bpc;
  s->seed = seed;
  s->cw = chroma == VH_SYNTH_444 ? width : (width + 1) / 2;
  s->ch = chroma == VH_SYNTH_420 ? (height + 1) / 2 : height;
  const size_t bytes = bpc > 8 ? 2 : 1;
  for (int p = 0; p < 3; p++) {
    const size_t n = p ? (size_t) s->cw * s->ch : (size_t) width * height;
    s->ref[p] = malloc (n * bytes);
    s->dis[p] = malloc (n * bytes);
  }
  s->tmp = malloc ((size_t) width * height * sizeof (int32_t));
  return s;
}

void
vh_synth_free (VhSynth *s)
{
  if (!s)
    return;
  for (int p = 0; p < 3; p++) {
    free (s->ref[p]);
    free (s->dis[p]);
  }
  free (s->tmp);
  free (s);
}

static void
store (void *plane, size_t i, unsigned bpc, int32_t v8q8)
{
  /* v8q8 is an 8-bit value with 8 fractional bits */
  const int32_t maxv = (1 << bpc) - 1;
  int32_t v = (v8q8 + (1 << (15 - bpc))) >> (16 - bpc);
  v = v < 0 ? 0 : v > maxv ? maxv : v;
  if (bpc > 8)
    ((uint16_t *) plane)[i] = (uint16_t) v;
  else
    ((uint8_t *) plane)[i] = (uint8_t) v;
}

static void
render_plane (VhSynth *s, int p, unsigned w, unsigned h, unsigned index,
    unsigned strength)
{
  const int32_t pan = (int32_t) index * 3;       /* camera pan, pixels */
  const int32_t tilt = (int32_t) (index / 2);
  const uint32_t seed = s->seed * 7u + (uint32_t) p;
  const int32_t scale = p ? (int32_t) (s->width / w) : 1;
  int32_t *t = s->tmp;

  /* Reference: multi-scale value noise, a moving bright disc, fine grain. */
  for (unsigned y = 0; y < h; y++) {
    for (unsigned x = 0; x < w; x++) {
      const int32_t X = (int32_t) x * scale + pan, Y = (int32_t) y * scale + tilt;
      int32_t v = value_noise (X, Y, 96, seed) * 5
          + value_noise (X, Y, 24, seed + 1) * 2
          + value_noise (X, Y, 6, seed + 2);
      v = v / 8 + 32 * 256 / 8;
      const int32_t dx = (int32_t) (x * scale) - (int32_t) (s->width / 3 + index * 5 % s->width);
      const int32_t dy = (int32_t) (y * scale) - (int32_t) (s->height / 2);
      if (!p && dx * dx + dy * dy < (int32_t) (s->height * s->height / 25))
        v += 60 * 256;
      v += (int32_t) (hash3 (x, y, seed + index * 31u) & 1023) - 512;
      t[(size_t) y * w + x] = v;
      store (s->ref[p], (size_t) y * w + x, s->bpc, v);
    }
  }
  /* Distorted: 3x3 blur, coarse quantisation, added noise. */
  const int32_t q = (int32_t) (strength + 1) * 256;
  for (unsigned y = 0; y < h; y++) {
    const unsigned ya = y ? y - 1 : y, yb = y + 1 < h ? y + 1 : y;
    for (unsigned x = 0; x < w; x++) {
      const unsigned xa = x ? x - 1 : x, xb = x + 1 < w ? x + 1 : x;
      int32_t sum = 0;
      const unsigned ys[3] = { ya, y, yb }, xs[3] = { xa, x, xb };
      for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
          sum += t[(size_t) ys[j] * w + xs[i]] * ((i == 1 ? 2 : 1) * (j == 1 ? 2 : 1));
      int32_t v = strength ? sum / 16 : t[(size_t) y * w + x];
      v = (v + q / 2) / q * q;
      v += ((int32_t) (hash3 (x, y, seed ^ 0x5bd1e995u ^ index) & 511) - 256)
          * (int32_t) strength;
      store (s->dis[p], (size_t) y * w + x, s->bpc, v);
    }
  }
}

void
vh_synth_render (VhSynth *s, unsigned index, unsigned strength,
    VhPicture *ref, VhPicture *dis)
{
  const size_t bytes = s->bpc > 8 ? 2 : 1;
  if (strength > 8)
    strength = 8;
  /* every field, those added later too (device_context, device_share) */
  memset (ref, 0, sizeof *ref);
  memset (dis, 0, sizeof *dis);
  for (int p = 0; p < 3; p++) {
    const unsigned w = p ? s->cw : s->width, h = p ? s->ch : s->height;
    render_plane (s, p, w, h, index, strength);
    ref->plane[p] = (VhPlane) { s->ref[p], (ptrdiff_t) (w * bytes), w, h, 1 };
    dis->plane[p] = (VhPlane) { s->dis[p], (ptrdiff_t) (w * bytes), w, h, 1 };
  }
  ref->nplanes = dis->nplanes = 3;
  ref->bpc = dis->bpc = s->bpc;
  ref->memory = dis->memory = VH_PICTURE_HOST;
}

void *
vh_synth_keep (VhPicture *ref, VhPicture *dis)
{
  VhPicture *pics[2] = { ref, dis };
  const size_t bytes = ref->bpc > 8 ? 2 : 1;
  size_t total = 0;
  for (int k = 0; k < 2; k++)
    for (unsigned p = 0; p < pics[k]->nplanes; p++)
      total += (size_t) pics[k]->plane[p].width * pics[k]->plane[p].height
          * bytes;
  uint8_t *store = g_malloc (total), *dst = store;
  for (int k = 0; k < 2; k++) {
    for (unsigned p = 0; p < pics[k]->nplanes; p++) {
      VhPlane *pl = &pics[k]->plane[p];
      const size_t row = (size_t) pl->width * bytes;
      for (unsigned y = 0; y < pl->height; y++)
        memcpy (dst + y * row, (const uint8_t *) pl->data + y * pl->stride,
            row);
      pl->data = dst;
      pl->stride = (ptrdiff_t) row;
      dst += row * pl->height;
    }
  }
  return store;
}
