#!/usr/bin/python3
"""vmafhip-tune: encoder grids into a corpus and target-VMAF settings,
each cell one GStreamer pipeline (encoder, decoder, vmafhip); docs/tune.md.

The package vmafhip_tune lies beside this script in the source tree, and
in the folder meson configured below once installed.
"""
import os
import sys

INSTALLED_PACKAGE_DIR = "@VMAFHIP_PYTHON_DIR@"

here = os.path.dirname(os.path.realpath(__file__))
if os.path.isdir(os.path.join(here, "vmafhip_tune")):
    sys.path.insert(0, here)
elif not INSTALLED_PACKAGE_DIR.startswith("@"):
    sys.path.insert(0, INSTALLED_PACKAGE_DIR)

from vmafhip_tune.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
