/* vmafhip — reads which GPU targets a kernel image carries, from its bytes.
 *
 * Used to refuse an image with a clear message before handing it to the
 * vendor loader, and by the tests to prove the build embedded what it was
 * configured for.  Formats:
 *   - clang offload bundle (hipcc --genco): "__CLANG_OFFLOAD_BUNDLE__", a
 *     64-bit entry count, then per entry a 64-bit offset, size and id length
 *     and the id, "hipv4-amdgcn-amd-amdhsa--gfx90a[:features]";
 *   - a bare AMD code object: an ELF with e_machine EM_AMDGPU, the gfx arch
 *     in the low byte of e_flags;
 *   - NVIDIA fatbin (nvcc --fatbin): magic 0xBA55ED50, a 16-byte header,
 *     then entries of a 16-bit kind (1 PTX, 2 cubin), a 32-bit header size at
 *     4, a 64-bit payload size at 8 and the SM number at 28.
 * All integers are little-endian.  Every offset is bounds-checked: a damaged
 * image gives an error, never a read past the end. */
#include "vh-gpu.h"
#include "vh-error.h"

#include <string.h>

static guint64
read_le (const unsigned char *p, unsigned int bytes)
{
  guint64 value = 0;
  for (unsigned int i = 0; i < bytes; i++)
    value |= (guint64) p[i] << (8 * i);
  return value;
}

static void
add_target (GPtrArray *targets, char *target)
{
  for (unsigned int i = 0; i < targets->len; i++) {
    if (strcmp (targets->pdata[i], target) == 0) {
      g_free (target);
      return;
    }
  }
  g_ptr_array_add (targets, target);
}

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"

static gboolean
read_bundle (const unsigned char *data, size_t size, GPtrArray *targets,
    GError **error)
{
  const size_t magic_len = strlen (BUNDLE_MAGIC);
  size_t pos = magic_len;

  if (size < magic_len + 8)
    goto truncated;
  guint64 n_entries = read_le (data + pos, 8);
  pos += 8;
  for (guint64 i = 0; i < n_entries; i++) {
    if (size - pos < 24)
      goto truncated;
    guint64 offset = read_le (data + pos, 8);
    guint64 length = read_le (data + pos + 8, 8);
    guint64 id_len = read_le (data + pos + 16, 8);
    pos += 24;
    if (id_len > size - pos || offset > size || length > size - offset)
      goto truncated;
    char *id = g_strndup ((const char *) data + pos, id_len);
    pos += id_len;
    /* The host entry is an empty placeholder; device ids end "--gfxNNN". */
    const char *arch = g_strrstr (id, "--");
    if (g_str_has_prefix (id, "hip") && arch && arch[2])
      add_target (targets, g_strdup (arch + 2));
    g_free (id);
  }
  return TRUE;

truncated:
  g_set_error (error, VH_ERROR, VH_ERROR_GPU,
      "offload bundle of %zu bytes is truncated or damaged", size);
  return FALSE;
}

static const char *
amdgpu_mach_name (unsigned int mach)
{
  /* EF_AMDGPU_MACH_* (LLVM BinaryFormat/ELF.h), GCN5 and later, and the
   * generic processors (code object v6). */
  static const struct { unsigned int mach; const char *name; } machs[] = {
    { 0x2c, "gfx900" }, { 0x2d, "gfx902" }, { 0x2e, "gfx904" },
    { 0x2f, "gfx906" }, { 0x30, "gfx908" }, { 0x31, "gfx909" },
    { 0x32, "gfx90c" }, { 0x33, "gfx1010" }, { 0x34, "gfx1011" },
    { 0x35, "gfx1012" }, { 0x36, "gfx1030" }, { 0x37, "gfx1031" },
    { 0x38, "gfx1032" }, { 0x39, "gfx1033" }, { 0x3d, "gfx1035" },
    { 0x3e, "gfx1034" }, { 0x3f, "gfx90a" }, { 0x40, "gfx940" },
    { 0x41, "gfx1100" }, { 0x42, "gfx1013" }, { 0x43, "gfx1150" },
    { 0x44, "gfx1103" }, { 0x45, "gfx1036" }, { 0x46, "gfx1101" },
    { 0x47, "gfx1102" }, { 0x48, "gfx1200" }, { 0x4a, "gfx1151" },
    { 0x4b, "gfx941" }, { 0x4c, "gfx942" }, { 0x4e, "gfx1201" },
    { 0x4f, "gfx950" }, { 0x51, "gfx9-generic" }, { 0x52, "gfx10-1-generic" },
    { 0x53, "gfx10-3-generic" }, { 0x54, "gfx11-generic" },
    { 0x55, "gfx1152" }, { 0x58, "gfx1153" }, { 0x59, "gfx12-generic" },
    { 0x5f, "gfx9-4-generic" },
  };
  for (unsigned int i = 0; i < G_N_ELEMENTS (machs); i++)
    if (machs[i].mach == mach)
      return machs[i].name;
  return NULL;
}

#define EM_AMDGPU 224

static gboolean
read_amd_elf (const unsigned char *data, size_t size, GPtrArray *targets,
    GError **error)
{
  /* 64-bit ELF header: e_machine at 18, e_flags at 48. */
  if (size < 64 || data[4] != 2 || read_le (data + 18, 2) != EM_AMDGPU) {
    g_set_error (error, VH_ERROR, VH_ERROR_GPU,
        "ELF image is not a 64-bit AMD GPU code object");
    return FALSE;
  }
  unsigned int mach = read_le (data + 48, 4) & 0xff;
  const char *name = amdgpu_mach_name (mach);
  add_target (targets, name ? g_strdup (name) : g_strdup_printf ("gfx?(mach 0x%x)", mach));
  return TRUE;
}

#define FATBIN_MAGIC 0xBA55ED50u

static gboolean
read_fatbin (const unsigned char *data, size_t size, GPtrArray *targets,
    GError **error)
{
  if (size < 16)
    goto truncated;
  size_t header = read_le (data + 6, 2);
  guint64 body = read_le (data + 8, 8);
  if (header < 16 || header > size || body > size - header)
    goto truncated;

  size_t pos = header;
  const size_t end = header + body;
  while (pos < end) {
    if (end - pos < 32)
      goto truncated;
    unsigned int kind = read_le (data + pos, 2);
    guint64 entry_header = read_le (data + pos + 4, 4);
    guint64 payload = read_le (data + pos + 8, 8);
    unsigned int sm = read_le (data + pos + 28, 4);
    if (entry_header < 32 || entry_header > end - pos
        || payload > end - pos - entry_header)
      goto truncated;
    if (kind == 1)
      add_target (targets, g_strdup_printf ("compute_%u", sm));
    else if (kind == 2)
      add_target (targets, g_strdup_printf ("sm_%u", sm));
    pos += entry_header + payload;
  }
  return TRUE;

truncated:
  g_set_error (error, VH_ERROR, VH_ERROR_GPU,
      "fatbin of %zu bytes is truncated or damaged", size);
  return FALSE;
}

gchar **
vh_gpu_image_read_targets (const VhGpuImage *image, GError **error)
{
  if (!image || !image->data || image->size == 0) {
    g_set_error (error, VH_ERROR, VH_ERROR_INVALID_ARGUMENT,
        "no kernel image (NULL or empty)");
    return NULL;
  }

  const unsigned char *data = image->data;
  const size_t size = image->size;
  GPtrArray *targets = g_ptr_array_new_with_free_func (g_free);
  gboolean ok;

  if (size >= strlen (BUNDLE_MAGIC) && memcmp (data, BUNDLE_MAGIC, strlen (BUNDLE_MAGIC)) == 0)
    ok = read_bundle (data, size, targets, error);
  else if (size >= 4 && memcmp (data, "\177ELF", 4) == 0)
    ok = read_amd_elf (data, size, targets, error);
  else if (size >= 4 && read_le (data, 4) == FATBIN_MAGIC)
    ok = read_fatbin (data, size, targets, error);
  else {
    g_set_error (error, VH_ERROR, VH_ERROR_GPU,
        "kernel image of %zu bytes is neither an offload bundle, an AMD code "
        "object nor an NVIDIA fatbin", size);
    ok = FALSE;
  }

  if (!ok) {
    g_ptr_array_free (targets, TRUE);
    return NULL;
  }
  g_ptr_array_add (targets, NULL);
  return (gchar **) g_ptr_array_free (targets, FALSE);
}

const VhGpuImage *
vh_gpu_image_set_find (const VhGpuImageSet *set, VhGpuVendor vendor)
{
  if (!set)
    return NULL;
  for (unsigned int i = 0; i < set->n_images; i++)
    if (set->images[i].vendor == vendor)
      return &set->images[i];
  return NULL;
}

/* Parses "sm_86" / "compute_90" into 86 / 90; 0 when it is neither. */
static unsigned int
nvidia_arch_number (const char *target, const char *prefix)
{
  if (!g_str_has_prefix (target, prefix))
    return 0;
  return (unsigned int) g_ascii_strtoull (target + strlen (prefix), NULL, 10);
}

/* Whether the driver can run one of the targets on this device: a cubin of
 * the same major version and a minor no higher (binary compatibility), or
 * PTX of a version no higher (the driver compiles it). */
gboolean
vh_gpu_nvidia_can_run (const char *device_arch, gchar **targets)
{
  const unsigned int device = nvidia_arch_number (device_arch, "sm_");
  if (device == 0)
    return TRUE;  /* unknown: let the driver decide */
  for (unsigned int i = 0; targets[i]; i++) {
    unsigned int cubin = nvidia_arch_number (targets[i], "sm_");
    unsigned int ptx = nvidia_arch_number (targets[i], "compute_");
    if (cubin && cubin / 10 == device / 10 && cubin % 10 <= device % 10)
      return TRUE;
    if (ptx && ptx <= device)
      return TRUE;
  }
  return FALSE;
}

/* Which generic target's code objects run on an AMD arch: LLVM's table of
 * generic processors (AMDGPUUsage, "AMDGPU Generic Processors"), the same
 * as ROCm's ISA registry (ROCR isa.cpp).  A pattern's '?' stands for any
 * one character, so a chip of a family released after this table
 * (gfx1154, say) maps too; the runtime has the last word, refusing a
 * generic code object that its chip is not in.  gfx908 and gfx90a are in
 * no generic family. */
static const struct {
  const char *pattern;
  const char *generic;
} amd_generic_families[] = {
  { "gfx900", "gfx9-generic" }, { "gfx902", "gfx9-generic" },
  { "gfx904", "gfx9-generic" }, { "gfx906", "gfx9-generic" },
  { "gfx909", "gfx9-generic" }, { "gfx90c", "gfx9-generic" },
  { "gfx94?", "gfx9-4-generic" }, { "gfx950", "gfx9-4-generic" },
  { "gfx101?", "gfx10-1-generic" },
  { "gfx103?", "gfx10-3-generic" },
  { "gfx110?", "gfx11-generic" }, { "gfx115?", "gfx11-generic" },
  { "gfx120?", "gfx12-generic" },
};

static gboolean
arch_matches (const char *arch, size_t len, const char *pattern)
{
  if (strlen (pattern) != len)
    return FALSE;
  for (size_t i = 0; i < len; i++)
    if (pattern[i] != '?' ? pattern[i] != arch[i] : !g_ascii_isalnum (arch[i]))
      return FALSE;
  return TRUE;
}

const char *
vh_gpu_amd_generic_target (const char *arch)
{
  if (!arch)
    return NULL;
  const size_t len = strcspn (arch, ":");   /* "gfx90a:xnack-": the processor */
  for (unsigned int i = 0; i < G_N_ELEMENTS (amd_generic_families); i++)
    if (arch_matches (arch, len, amd_generic_families[i].pattern))
      return amd_generic_families[i].generic;
  return NULL;
}

/* A bundle id may carry target features ("gfx90a:xnack-"), which HIP's
 * loader matches; the processor is compared here. */
static gboolean
targets_hold (gchar **targets, const char *processor, size_t len)
{
  for (unsigned int i = 0; targets[i]; i++) {
    size_t base = strcspn (targets[i], ":");
    if (base == len && strncmp (targets[i], processor, len) == 0)
      return TRUE;
  }
  return FALSE;
}

VhGpuImageFit
vh_gpu_amd_fit (const char *device_arch, gchar **targets)
{
  if (strcmp (device_arch, "unknown") == 0)
    return VH_GPU_IMAGE_FIT_EXACT;  /* let the runtime decide */
  if (targets_hold (targets, device_arch, strcspn (device_arch, ":")))
    return VH_GPU_IMAGE_FIT_EXACT;
  const char *generic = vh_gpu_amd_generic_target (device_arch);
  if (generic && targets_hold (targets, generic, strlen (generic)))
    return VH_GPU_IMAGE_FIT_GENERIC;
  return VH_GPU_IMAGE_FIT_NONE;
}

gboolean
vh_gpu_amd_can_run (const char *device_arch, gchar **targets)
{
  return vh_gpu_amd_fit (device_arch, targets) != VH_GPU_IMAGE_FIT_NONE;
}

/* AMD: an image with a code object for the device's own arch first, one
 * with the generic target covering it second (built for the family, it
 * may run slower: gfx11-generic uses the smaller VGPR file); NVIDIA: the
 * first that can run. */
const VhGpuImage *
vh_gpu_image_set_choose (const VhGpuImageSet *set, VhGpuVendor vendor,
    const char *arch, char **built_for)
{
  GString *targets_seen = g_string_new (NULL);
  const VhGpuImage *chosen = NULL;
  VhGpuImageFit chosen_fit = VH_GPU_IMAGE_FIT_NONE;
  for (unsigned int i = 0; set && i < set->n_images; i++) {
    const VhGpuImage *image = &set->images[i];
    /* the targets the bytes really hold; the build's list if unreadable */
    gchar **targets = vh_gpu_image_read_targets (image, NULL);
    if (!targets)
      targets = g_strsplit (image->targets, ",", -1);
    if (image->vendor == vendor) {
      gchar *list = g_strjoinv (", ", targets);
      g_string_append_printf (targets_seen, "%s%s", targets_seen->len ? ", "
          : "", list);
      g_free (list);
      VhGpuImageFit fit = vendor == VH_GPU_VENDOR_AMD
          ? vh_gpu_amd_fit (arch, targets)
          : vh_gpu_nvidia_can_run (arch, targets) ? VH_GPU_IMAGE_FIT_EXACT
          : VH_GPU_IMAGE_FIT_NONE;
      if (fit > chosen_fit) {
        chosen = image;
        chosen_fit = fit;
      }
    }
    g_strfreev (targets);
  }
  if (!targets_seen->len && set) {
    /* none of this vendor: name what there is */
    for (unsigned int i = 0; i < set->n_images; i++)
      g_string_append_printf (targets_seen, "%s%s %s", targets_seen->len ?
          "; " : "", vh_gpu_vendor_to_string (set->images[i].vendor),
          set->images[i].targets);
    if (targets_seen->len)
      g_string_append (targets_seen, " only");
  }
  if (built_for)
    *built_for = targets_seen->len ? g_string_free (targets_seen, FALSE)
        : (g_string_free (targets_seen, TRUE), NULL);
  else
    g_string_free (targets_seen, TRUE);
  return chosen;
}
