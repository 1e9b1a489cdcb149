"""EF_AMDGPU_MACH_* of an AMD code object's ELF header (LLVM's
BinaryFormat/ELF.h and AMDGPUUsage): the processor names, gfx9 onwards and
the generic processors of code object v6.  Shared by check-gpu-images.py
and gpu-resources.py (both run from this folder)."""

AMDGPU_MACH = {
    0x2c: "gfx900", 0x2d: "gfx902", 0x2e: "gfx904", 0x2f: "gfx906",
    0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c", 0x33: "gfx1010",
    0x34: "gfx1011", 0x35: "gfx1012", 0x36: "gfx1030", 0x37: "gfx1031",
    0x38: "gfx1032", 0x39: "gfx1033", 0x3d: "gfx1035", 0x3e: "gfx1034",
    0x3f: "gfx90a", 0x40: "gfx940", 0x41: "gfx1100", 0x42: "gfx1013",
    0x43: "gfx1150", 0x44: "gfx1103", 0x45: "gfx1036", 0x46: "gfx1101",
    0x47: "gfx1102", 0x48: "gfx1200", 0x4a: "gfx1151", 0x4b: "gfx941",
    0x4c: "gfx942", 0x4e: "gfx1201", 0x4f: "gfx950", 0x51: "gfx9-generic",
    0x52: "gfx10-1-generic", 0x53: "gfx10-3-generic", 0x54: "gfx11-generic",
    0x55: "gfx1152", 0x58: "gfx1153", 0x59: "gfx12-generic",
    0x5f: "gfx9-4-generic",
}
