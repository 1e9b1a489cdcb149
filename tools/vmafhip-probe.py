#!/usr/bin/python3
"""vmafhip-probe: a long-running VMAF probe over many channels at once,
with Prometheus metrics and a live dashboard; docs/probe.md.

The package vmafhip_probe lies beside this script in the source tree, and
in the folder meson configured below once installed.
"""
import os
import sys

INSTALLED_PACKAGE_DIR = "@VMAFHIP_PYTHON_DIR@"
RELATIVE_PACKAGE_DIR = "@VMAFHIP_PYTHON_REL@"   # from the script's folder

here = os.path.dirname(os.path.realpath(__file__))
folders = [here]        # the source tree: the package beside the script
if RELATIVE_PACKAGE_DIR and not RELATIVE_PACKAGE_DIR.startswith("@"):
    folders.append(os.path.join(here, RELATIVE_PACKAGE_DIR))
if not INSTALLED_PACKAGE_DIR.startswith("@"):
    folders.append(INSTALLED_PACKAGE_DIR)
for folder in folders:
    if os.path.isdir(os.path.join(folder, "vmafhip_probe")):
        sys.path.insert(0, folder)
        break

from vmafhip_probe.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
