/* vmafhip — ADM's CSF, CM and denominator rows (adm-rows.h), written once
 * for any vector width and included by adm-rows-x86.c once per
 * instruction set, which defines first:
 *   SFX, ISA      the functions' suffix and their target attribute string
 *   V, N          the vector type and its int32 lanes (16, 8)
 *   MASK          a tail's lane mask; TAIL_MASK (n): the first n lanes
 *   LOAD (p)  STORE (p, v)  LOADM (p, m)  STOREM (p, m, v) (masked lanes
 *                 read as 0, are not written)
 *   ZERO  SET1_32 (x)  SET1_64 (x)  COUNT (n) (a shift count register)
 *   ADD32 SUB32 MULLO32 ABS32 MAX32 AND SRAI32 SLLI32 SLL32 (v, count)
 *   SRA32 (v, count)
 *   ADD64 MUL_EPI32 MUL_EPU32 (the 64-bit products of the even lanes)
 *   SRLI64 SLLI64 SRL64 (v, count) SRA64 (v, count)
 *   BLEND_ODD (even, odd)   the even lanes of `even`, odd ones of `odd`
 *   HSUM64 (v)              the sum of the 64-bit lanes
 *
 * Each row runs in whole vectors, then a masked one for the last columns,
 * so every column takes the same arithmetic.  The 32 x 32 -> 64-bit
 * products (vpmuldq, vpmuludq) take the even lanes; the odd ones are
 * shifted down for a second product and the results blended back. */

#define CAT_(a, b) a##_##b
#define CAT(a, b) CAT_ (a, b)
#define FN(name) CAT (name, SFX)
#define TARGET __attribute__ ((target (ISA)))

/* loads and stores of a whole vector or (tail) of the masked lanes */
#define LD(p) (tail ? LOADM (p, m) : LOAD (p))
#define ST(p, v) do { if (tail) STOREM (p, m, v); else STORE (p, v); } while (0)

/* (int16_t) of every lane */
#define WRAP16(v) SRAI32 (SLLI32 (v, 16), 16)

/* Runs BLOCK (j, tail, m) over [l, r): whole vectors, then one masked */
#define FOR_VECTORS(l, r, BLOCK)                                              \
  do {                                                                        \
    int j_ = (l);                                                             \
    for (; j_ + N <= (r); j_ += N)                                            \
      BLOCK (j_, false, TAIL_MASK (N));                                       \
    if (j_ < (r))                                                             \
      BLOCK (j_, true, TAIL_MASK ((r) - j_));                                 \
  } while (0)

/* ---- CSF ------------------------------------------------------------------ */

/* |c|/30 of scale 0 as libvmaf stores it, int16 */
TARGET static inline V
FN (flt_s0) (V c)
{
  return WRAP16 (SRAI32 (ADD32 (MULLO32 (ABS32 (c),
                  SET1_32 (VH_ADM_ONE_BY_30)), SET1_32 (2048)), 12));
}

/* |c|/15 of an int16 c, unwrapped */
TARGET static inline V
FN (centre_raw_s0) (V c16)
{
  return SRAI32 (ADD32 (MULLO32 (ABS32 (c16), SET1_32 (VH_ADM_ONE_BY_15)),
          SET1_32 (2048)), 12);
}

TARGET static inline void
FN (csf_s0_block) (const int32_t *rr, const int32_t *t, int j, bool tail,
    MASK m, V weight, V add, __m128i shift, bool vec, int32_t *x_dlm,
    int32_t *x_aim, int32_t *m_dlm, int32_t *c_dlm, int32_t *craw_dlm,
    int32_t *m_aim, int32_t *c_aim, int32_t *craw_aim)
{
  const V r = LD (rr + j);
  const V xr = MULLO32 (r, weight), xa = MULLO32 (SUB32 (LD (t + j), r),
      weight);
  ST (x_dlm + j, xr);
  ST (x_aim + j, xa);
  const V csf_r = SRA32 (ADD32 (xr, add), shift);
  const V csf_a = SRA32 (ADD32 (xa, add), shift);
  const V csf_r16 = WRAP16 (csf_r), csf_a16 = WRAP16 (csf_a);
  /* flavour 3: inside the 16-wide loop, before the int16 store */
  ST (m_dlm + j, ADD32 (LD (m_dlm + j), FN (flt_s0) (vec ? csf_a : csf_a16)));
  ST (m_aim + j, ADD32 (LD (m_aim + j), FN (flt_s0) (vec ? csf_r : csf_r16)));
  const V ca = FN (centre_raw_s0) (csf_a16), cr = FN (centre_raw_s0) (csf_r16);
  ST (c_dlm + j, ADD32 (LD (c_dlm + j), WRAP16 (ca)));
  ST (c_aim + j, ADD32 (LD (c_aim + j), WRAP16 (cr)));
  ST (craw_dlm + j, ADD32 (LD (craw_dlm + j), ca));
  ST (craw_aim + j, ADD32 (LD (craw_aim + j), cr));
}

TARGET static void
FN (csf_s0) (const int32_t *rr, const int32_t *t, int l, int r,
    int32_t weight, int band, bool vec, int32_t *x_dlm, int32_t *x_aim,
    int32_t *m_dlm, int32_t *c_dlm, int32_t *craw_dlm, int32_t *m_aim,
    int32_t *c_aim, int32_t *craw_aim)
{
  /* adm.c's csf_s0: the d band rounds with 65535 (QUIRK) */
  const V w = SET1_32 (weight);
  const V add = SET1_32 (band == 2 ? VH_ADM_CSF_S0_ADD_D
      : VH_ADM_CSF_S0_ADD_HV);
  const __m128i shift = COUNT (band == 2 ? VH_ADM_CSF_S0_SHIFT_D
      : VH_ADM_CSF_S0_SHIFT_HV);
  /* vec as a constant in each loop */
#define CSF_S0_BLOCK(j, tail, m, vec) FN (csf_s0_block) (rr, t, j, tail, m,  \
      w, add, shift, vec, x_dlm, x_aim, m_dlm, c_dlm, craw_dlm, m_aim, c_aim, \
      craw_aim)
#define CSF_S0_VEC(j, tail, m) CSF_S0_BLOCK (j, tail, m, true)
#define CSF_S0_C(j, tail, m) CSF_S0_BLOCK (j, tail, m, false)
  if (vec)
    FOR_VECTORS (l, r, CSF_S0_VEC);
  else
    FOR_VECTORS (l, r, CSF_S0_C);
#undef CSF_S0_BLOCK
#undef CSF_S0_VEC
#undef CSF_S0_C
}

/* (weight · v + 2^27) >> 28 as int32 (weight < 2^31): bits 28-59 of the
 * 64-bit sum, which a logical shift gives as well as an arithmetic one */
TARGET static inline V
FN (csf_q28) (V v, V weight)
{
  const V round = SET1_64 ((int64_t) 1 << 27);
  const V even = SRLI64 (ADD64 (MUL_EPI32 (v, weight), round), 28);
  const V odd = SLLI64 (ADD64 (MUL_EPI32 (SRLI64 (v, 32), weight), round), 4);
  return BLEND_ODD (even, odd);
}

/* (k · |c| − 2^31) >> 32 as int32 (k < 2^31, |c| < 2^31): the high half
 * of the 64-bit sum */
TARGET static inline V
FN (scale_hi) (V c, V k)
{
  const V a = ABS32 (c);
  const V round = SET1_64 (INT32_MIN);
  const V even = SRLI64 (ADD64 (MUL_EPU32 (a, k), round), 32);
  const V odd = ADD64 (MUL_EPU32 (SRLI64 (a, 32), k), round);
  return BLEND_ODD (even, odd);
}

TARGET static inline void
FN (csf_s123_block) (const int32_t *rr, const int32_t *t, int j, bool tail,
    MASK m, V weight, int32_t *x_dlm, int32_t *x_aim, int32_t *m_dlm,
    int32_t *c_dlm, int32_t *m_aim, int32_t *c_aim)
{
  /* adm.c's flt_s123 and centre_s123 */
  const V k_flt = SET1_32 (VH_ADM_I4_ONE_BY_30),
      k_centre = SET1_32 (VH_ADM_I4_ONE_BY_15);
  const V r = LD (rr + j);
  const V csf_r = FN (csf_q28) (r, weight);
  const V csf_a = FN (csf_q28) (SUB32 (LD (t + j), r), weight);
  ST (x_dlm + j, csf_r);
  ST (x_aim + j, csf_a);
  ST (m_dlm + j, ADD32 (LD (m_dlm + j), FN (scale_hi) (csf_a, k_flt)));
  ST (c_dlm + j, ADD32 (LD (c_dlm + j), FN (scale_hi) (csf_a, k_centre)));
  ST (m_aim + j, ADD32 (LD (m_aim + j), FN (scale_hi) (csf_r, k_flt)));
  ST (c_aim + j, ADD32 (LD (c_aim + j), FN (scale_hi) (csf_r, k_centre)));
}

TARGET static void
FN (csf_s123) (const int32_t *rr, const int32_t *t, int l, int r,
    uint32_t weight, int32_t *x_dlm, int32_t *x_aim, int32_t *m_dlm,
    int32_t *c_dlm, int32_t *m_aim, int32_t *c_aim)
{
  const V w = SET1_32 ((int32_t) weight);
#define CSF_S123_BLOCK(j, tail, m) FN (csf_s123_block) (rr, t, j, tail, m,  \
      w, x_dlm, x_aim, m_dlm, c_dlm, m_aim, c_aim)
  FOR_VECTORS (l, r, CSF_S123_BLOCK);
#undef CSF_S123_BLOCK
}

/* ---- CM ------------------------------------------------------------------- */

TARGET static inline void
FN (cm_threshold_block) (const int32_t *up, const int32_t *mid,
    const int32_t *down, const int32_t *centre, int j, bool tail, MASK m,
    int32_t *thr)
{
  V s = ADD32 (ADD32 (LD (up + j - 1), LD (up + j)), LD (up + j + 1));
  s = ADD32 (s, ADD32 (LD (mid + j - 1), LD (mid + j + 1)));
  s = ADD32 (s, ADD32 (ADD32 (LD (down + j - 1), LD (down + j)),
          LD (down + j + 1)));
  ST (thr + j, ADD32 (s, LD (centre + j)));
}

TARGET static void
FN (cm_threshold) (const int32_t *up, const int32_t *mid,
    const int32_t *down, const int32_t *centre, int l, int r, int32_t *thr)
{
#define CM_THRESHOLD_BLOCK(j, tail, m) FN (cm_threshold_block) (up, mid,    \
      down, centre, j, tail, m, thr)
  FOR_VECTORS (l, r, CM_THRESHOLD_BLOCK);
#undef CM_THRESHOLD_BLOCK
}

/* The cubes of the even lanes of v (0 ≤ v < 2^31): sq = (v² + sq_add) >>
 * sq_shift, truncated to int32 (signed: it can wrap), then (sq · v +
 * cube_add) >> cube_shift, arithmetic */
TARGET static inline V
FN (cm_cubes) (V v, V sq_add, __m128i sq_shift, V cube_add,
    __m128i cube_shift)
{
  const V sq = SRL64 (ADD64 (MUL_EPU32 (v, v), sq_add), sq_shift);
  return SRA64 (ADD64 (MUL_EPI32 (sq, v), cube_add), cube_shift);
}

TARGET static inline V
FN (cm_row_block) (const int32_t *x, const int32_t *thr, int j, bool tail,
    MASK m, __m128i sub, V sq_add, __m128i sq_shift, V cube_add,
    __m128i cube_shift)
{
  /* masked lanes are 0, whose cube is 0 (the adds are below the shifts) */
  const V v = MAX32 (SUB32 (ABS32 (LD (x + j)), SLL32 (LD (thr + j), sub)),
      ZERO);
  return ADD64 (FN (cm_cubes) (v, sq_add, sq_shift, cube_add, cube_shift),
      FN (cm_cubes) (SRLI64 (v, 32), sq_add, sq_shift, cube_add,
          cube_shift));
}

TARGET static int64_t
FN (cm_row) (const int32_t *x, const int32_t *thr, int l, int r, int sub,
    int sq_shift, int cube_shift)
{
  const V sq_add = SET1_64 ((int64_t) 1 << (sq_shift - 1));
  const V cube_add = SET1_64 (cube_shift > 0 ? (int64_t) 1 << (cube_shift
          - 1) : 0);
  const __m128i sub_n = COUNT (sub), sq_n = COUNT (sq_shift);
  const __m128i cube_n = COUNT (cube_shift);
  V sum = ZERO;
#define CM_ROW_BLOCK(j, tail, m) sum = ADD64 (sum, FN (cm_row_block) (x,     \
        thr, j, tail, m, sub_n, sq_add, sq_n, cube_add, cube_n))
  FOR_VECTORS (l, r, CM_ROW_BLOCK);
#undef CM_ROW_BLOCK
  return HSUM64 (sum);
}

/* ---- Denominator ---------------------------------------------------------- */

/* v³ of the even lanes (v < 2^16: v² fits 32 bits) */
TARGET static inline V
FN (cube_u16) (V v)
{
  return MUL_EPU32 (MUL_EPU32 (v, v), v);
}

TARGET static inline V
FN (den_s0_block) (const int32_t *o, int j, bool tail, MASK m)
{
  /* masked lanes are 0 */
  const V v = AND (ABS32 (LD (o + j)), SET1_32 (0xffff));
  return ADD64 (FN (cube_u16) (v), FN (cube_u16) (SRLI64 (v, 32)));
}

TARGET static uint64_t
FN (den_s0) (const int32_t *o, int l, int r)
{
  V sum = ZERO;
#define DEN_S0_BLOCK(j, tail, m) sum = ADD64 (sum, FN (den_s0_block) (o, j,  \
        tail, m))
  FOR_VECTORS (l, r, DEN_S0_BLOCK);
#undef DEN_S0_BLOCK
  return (uint64_t) HSUM64 (sum);
}

/* ((v² + sq_add) >> sq_shift) · v + cube_add >> cube_shift of the even
 * lanes (v < 2^31, so the rounded square fits 32 bits for sq_shift ≥ 30) */
TARGET static inline V
FN (den_cubes) (V v, V sq_add, __m128i sq_shift, V cube_add,
    __m128i cube_shift)
{
  const V sq = SRL64 (ADD64 (MUL_EPU32 (v, v), sq_add), sq_shift);
  return SRL64 (ADD64 (MUL_EPU32 (sq, v), cube_add), cube_shift);
}

TARGET static inline V
FN (den_s123_block) (const int32_t *o, int j, bool tail, MASK m, V sq_add,
    __m128i sq_shift, V cube_add, __m128i cube_shift)
{
  /* a masked lane's v is 0: its square rounds to 1, its cube to 0 */
  const V v = ABS32 (LD (o + j));
  return ADD64 (FN (den_cubes) (v, sq_add, sq_shift, cube_add, cube_shift),
      FN (den_cubes) (SRLI64 (v, 32), sq_add, sq_shift, cube_add,
          cube_shift));
}

TARGET static uint64_t
FN (den_s123) (const int32_t *o, int l, int r, int sq_shift, int cube_shift)
{
  const V sq_add = SET1_64 ((int64_t) 1 << sq_shift);   /* QUIRK: 2^sq */
  const V cube_add = SET1_64 (cube_shift > 0 ? (int64_t) 1 << (cube_shift
          - 1) : 0);
  const __m128i sq_n = COUNT (sq_shift), cube_n = COUNT (cube_shift);
  V sum = ZERO;
#define DEN_S123_BLOCK(j, tail, m) sum = ADD64 (sum, FN (den_s123_block) (o, \
        j, tail, m, sq_add, sq_n, cube_add, cube_n))
  FOR_VECTORS (l, r, DEN_S123_BLOCK);
#undef DEN_S123_BLOCK
  return (uint64_t) HSUM64 (sum);
}

static const VhAdmRows FN (rows) = {
  .name = G_STRINGIFY (SFX),
  .csf_s0 = FN (csf_s0),
  .csf_s123 = FN (csf_s123),
  .cm_threshold = FN (cm_threshold),
  .cm_row = FN (cm_row),
  .den_s0 = FN (den_s0),
  .den_s123 = FN (den_s123),
};

#undef CAT_
#undef CAT
#undef FN
#undef TARGET
#undef LD
#undef ST
#undef WRAP16
#undef FOR_VECTORS
