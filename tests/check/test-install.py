#!/usr/bin/env python3
"""vmafhip installed as a user installs it (issue 35): `meson install` into
a DESTDIR, then, from there, gst-inspect-1.0 finds the element in the
plugin folder the build chose, the CLI scores a synthetic pair, the
monitor and plot tools start, vmafhip-tune and vmafhip-probe find their
packages, the meta header compiles with the flags its pkg-config file
gives, and the docs are there.

Usage: test-install.py MESON BUILD_DIR PREFIX PLUGINS_DIR BINDIR INCLUDEDIR
LIBDIR DATADIR (the build's install paths)
"""
import os
import shutil
import subprocess
import sys
import tempfile


def under(destdir, path, prefix):
    """An install path (absolute, or relative to the prefix) in DESTDIR."""
    if not os.path.isabs(path):
        path = os.path.join(prefix, path)
    return os.path.join(destdir, path.lstrip("/"))


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, timeout=300,
                       **kw)
    assert r.returncode == 0, f"{args}: {r.returncode}\n{r.stdout}\n{r.stderr}"
    return r.stdout


def main():
    (meson, build, prefix, plugins, bindir, includedir, libdir,
     datadir) = sys.argv[1:9]
    tmp = tempfile.mkdtemp(prefix="vmafhip-install-")
    dest = os.path.join(tmp, "root")
    run([meson, "install", "-C", build, "--no-rebuild", "--quiet",
         "--destdir", dest])

    plugin_dir = under(dest, plugins, prefix)
    assert os.path.isfile(os.path.join(plugin_dir, "libgstvmafhip.so")), \
        plugin_dir
    env = dict(os.environ, GST_PLUGIN_SYSTEM_PATH_1_0=plugin_dir,
               GST_PLUGIN_PATH_1_0="",
               GST_REGISTRY_1_0=os.path.join(tmp, "registry.bin"))
    env.pop("GST_PLUGIN_PATH", None)
    out = run(["gst-inspect-1.0", "vmafhip"], env=env)
    assert "vmafhip" in out and "ref_sink" in out and "dist_sink_%u" in out, \
        out

    bin_dir = under(dest, bindir, prefix)
    out = run([os.path.join(bin_dir, "vmafhip-score"), "--synthetic",
               "64x48", "--frame_cnt", "4", "--backend", "cpu", "-q"])
    assert "pooled over 4 frames" in out, out
    run([os.path.join(bin_dir, "vmafhip-info"), "--help"])
    for tool in ("vmafhip-monitor", "vmafhip-plot", "vmafhip-dask",
                 "vmafhip-probe", "vmafhip-tune"):
        path = os.path.join(bin_dir, tool)
        assert os.access(path, os.X_OK), path
    # its catalogue options, without Dask (imported once a catalogue is read)
    out = run([os.path.join(bin_dir, "vmafhip-dask"), "--help"])
    assert "--scheduler ADDRESS" in out, out
    # vmafhip-tune finds its package (datadir/vmafhip/python) from there
    tune = os.path.join(bin_dir, "vmafhip-tune")
    out = run([tune, "--list-encoders"], env=env)
    assert "x264enc  crf  0..50  lower=better" in out, out
    package = under(dest, os.path.join(datadir, "vmafhip", "python",
                                       "vmafhip_tune"), prefix)
    assert os.path.isfile(os.path.join(package, "cli.py")), package
    # and vmafhip-probe its own (its options: argparse answers before the
    # plugin or prometheus_client is looked for)
    out = run([os.path.join(bin_dir, "vmafhip-probe"), "--help"], env=env)
    assert "--config" in out and "--chart-js FILE" in out, out
    package = under(dest, os.path.join(datadir, "vmafhip", "python",
                                       "vmafhip_probe"), prefix)
    for module in ("cli.py", "config.py", "channel.py", "server.py",
                   "dashboard.py", "probe.py"):
        assert os.path.isfile(os.path.join(package, module)), \
            os.path.join(package, module)

    # the header-only meta, with its pkg-config file's flags
    pc_dir = under(dest, os.path.join(libdir, "pkgconfig"), prefix)
    assert os.path.isfile(os.path.join(pc_dir, "gstreamer-vmafhip-1.0.pc"))
    header = os.path.join(under(dest, includedir, prefix), "gstreamer-1.0",
                          "gst", "vmafhip", "gstvmafhipmeta.h")
    assert os.path.isfile(header), header
    # its pkg-config file: the header's folder and GStreamer's; the flags
    # as pkg-config gives them with the file's prefix moved into DESTDIR
    # (a sysroot would move GStreamer's too)
    pc = open(os.path.join(pc_dir, "gstreamer-vmafhip-1.0.pc")).read()
    assert "Requires: gstreamer-1.0" in pc, pc
    assert "Cflags: -I${includedir}/gstreamer-1.0" in pc, pc
    cflags = ["-I" + os.path.dirname(os.path.dirname(os.path.dirname(
        header)))] + run(["pkg-config", "--cflags", "gstreamer-1.0"]).split()
    src = os.path.join(tmp, "meta.c")
    with open(src, "w") as f:
        f.write("#include <gst/vmafhip/gstvmafhipmeta.h>\n"
                "int main (void) { return GST_VMAFHIP_META_NAME[0] != 'G'; }\n")
    cc = shutil.which("cc") or shutil.which("gcc")
    run([cc, "-c", src, "-o", os.path.join(tmp, "meta.o")] + cflags)

    docs = os.path.join(under(dest, datadir, prefix), "doc", "vmafhip")
    for doc in ("README.md", "docs/element.md", "docs/cli.md"):
        assert os.path.isfile(os.path.join(docs, doc)), doc
    shutil.rmtree(tmp)
    print(f"test-install: ok (plugin in {plugins})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
