#!/usr/bin/env bash
# Packs this machine's Debian Python 3.11 with PyGObject (gi), the GStreamer
# introspection data and prometheus_client into one folder that can be
# carried to the GPU machine (Ubuntu, no GLib, no GStreamer, no python3-gi),
# to run tools/vmafhip-probe.py and scripts/probe-load.py there.  The
# probe's own package (tools/vmafhip_probe/, like tools/vmafhip_tune/) is
# not packed: it travels with the work tree, and the script finds it beside
# itself (sys.path gets the script's folder, whatever PYTHONPATH says).
#
#   usage: scripts/pack-python-runtime.sh DEST
#
# DEST gets
#   bin/python3.11 (python3 -> it)       Debian's interpreter, stripped
#   lib/python3.11/                       the standard library and lib-dynload
#                                         (no tests, tkinter, idlelib, lib2to3,
#                                         ensurepip, pydoc_data, distutils,
#                                         curses, sqlite3, dbm.gnu/ndbm, nis,
#                                         readline, ossaudiodev, libpython.a,
#                                         __pycache__: written on first use)
#   lib/python3/dist-packages/            gi, prometheus_client, decorator
#   lib/girepository-1.0/                 the typelibs the probe can import
#                                         (GLib, GObject, GModule, Gio, Gst,
#                                         GstBase, GstVideo, GstApp)
#   lib/*.so*                             every shared library the interpreter,
#                                         its modules, _gi and the typelibs'
#                                         libraries need, except the C runtime
#                                         (the same set ../shared/device/
#                                         pack-gst-runtime leaves out)
#   gst-plugins/libgstimagefreeze.so      a source that pushes one frame again
#                                         and again from memory (probe-load.py
#                                         adds this folder to GST_PLUGIN_PATH
#                                         of the probe it starts)
#   python-env.sh                         to source (bash) before running:
#       . DEST/python-env.sh && DEST/bin/python3 tools/vmafhip-probe.py ...
#     sets PYTHONHOME, PYTHONPATH, PYTHONNOUSERSITE, GI_TYPELIB_PATH,
#     GIO_MODULE_DIR, PATH and LD_LIBRARY_PATH (prepended: composes with the
#     GStreamer runtime's env.sh, sourced before or after it).  PYTHONHOME
#     points every python3 of that shell at this 3.11 library: source it for
#     the probe's commands only, not in a shell that runs meson.
#
# About 36 MB unpacked, 12.6 MB as tar czf (printed at the end): the work
# tree and what it carries must stay under 64 MiB, so carry it compressed
# in an ignored folder and unpack it there, e.g.
#   here:  scripts/pack-python-runtime.sh /tmp/pyrt &&
#          mkdir -p .pyrt && tar czf .pyrt/pyrt.tgz -C /tmp pyrt
#   there: tar xzf .pyrt/pyrt.tgz -C /tmp && . /tmp/pyrt/python-env.sh
#
# Needs, on this (Debian 12) machine: python3.11, python3-gi,
# python3-prometheus-client, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0,
# gstreamer1.0-plugins-good (imagefreeze; skipped with a note if missing).
set -euo pipefail
dest=${1:?usage: scripts/pack-python-runtime.sh DEST}
py=${PYTHON:-/usr/bin/python3.11}
ver=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
arch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
dist=/usr/lib/python3/dist-packages
girdir=/usr/lib/$arch/girepository-1.0
namespaces="GLib-2.0 GObject-2.0 GModule-2.0 Gio-2.0 Gst-1.0 GstBase-1.0
  GstVideo-1.0 GstApp-1.0"
packages="gi prometheus_client decorator.py"
gst_plugins="imagefreeze"

rm -rf "$dest"; mkdir -p "$dest"/{bin,lib/python3/dist-packages,lib/girepository-1.0,lib/gio-modules,gst-plugins}
dest=$(cd "$dest" && pwd)
elfs=()

# the interpreter
cp -L "$py" "$dest/bin/python$ver"; ln -s "python$ver" "$dest/bin/python3"
elfs+=("$dest/bin/python$ver")

# the standard library, lib-dynload included (its test and GUI modules not)
tar -C /usr/lib --dereference -cf - \
  --exclude="python$ver/test" --exclude="python$ver/idlelib" \
  --exclude="python$ver/tkinter" --exclude="python$ver/turtle.py" \
  --exclude="python$ver/turtledemo" --exclude="python$ver/ensurepip" \
  --exclude="python$ver/lib2to3" --exclude="python$ver/pydoc_data" \
  --exclude="python$ver/distutils" \
  --exclude="python$ver/config-$ver-*" --exclude="python$ver/dist-packages" \
  --exclude="python$ver/site-packages" --exclude="python$ver/sitecustomize.py" \
  --exclude="python$ver/EXTERNALLY-MANAGED" --exclude=__pycache__ \
  --exclude="python$ver/lib-dynload/_test*" \
  --exclude="python$ver/lib-dynload/_ctypes_test*" \
  --exclude="python$ver/lib-dynload/_xxtestfuzz*" \
  --exclude="python$ver/lib-dynload/_xxsubinterpreters*" \
  --exclude="python$ver/lib-dynload/xxlimited*" \
  --exclude="python$ver/lib-dynload/_tkinter*" \
  --exclude="python$ver/curses" --exclude="python$ver/lib-dynload/_curses*" \
  --exclude="python$ver/sqlite3" --exclude="python$ver/lib-dynload/_sqlite3*" \
  --exclude="python$ver/lib-dynload/_dbm*" --exclude="python$ver/lib-dynload/nis.*" \
  --exclude="python$ver/lib-dynload/readline.*" \
  --exclude="python$ver/lib-dynload/ossaudiodev.*" \
  "python$ver" | tar -C "$dest/lib" -xf -
for so in "$dest/lib/python$ver/lib-dynload"/*.so; do elfs+=("$so"); done

# site packages: gi (without its cairo glue), prometheus_client, decorator
for p in $packages; do
  [ -e "$dist/$p" ] || { echo "error: $dist/$p missing (install the Debian package)" >&2; exit 1; }
  cp -rL "$dist/$p" "$dest/lib/python3/dist-packages/"
done
find "$dest/lib/python3/dist-packages" -name __pycache__ -prune -exec rm -rf {} +
rm -f "$dest"/lib/python3/dist-packages/gi/_gi_cairo*.so
for so in "$dest"/lib/python3/dist-packages/gi/_gi*.so; do elfs+=("$so"); done

# the typelibs asked for and those they depend on, and their libraries
# shellcheck disable=SC2086  # one argument a namespace
typelibs=$("$py" - $namespaces <<'PY'
import sys
import gi
gi.require_version("GIRepository", "2.0")
from gi.repository import GIRepository
repo = GIRepository.Repository.get_default()
seen, todo, libs = set(), list(sys.argv[1:]), set()
while todo:
    nsv = todo.pop()
    if nsv in seen:
        continue
    seen.add(nsv)
    ns, v = nsv.rsplit("-", 1)
    repo.require(ns, v, 0)
    todo += repo.get_immediate_dependencies(ns)
    lib = repo.get_shared_library(ns)
    if lib:
        libs.update(lib.split(","))
print(" ".join(sorted(seen)))
print(" ".join(sorted(libs)))
PY
)
# shellcheck disable=SC2013  # words: names without spaces
for nsv in $(sed -n 1p <<<"$typelibs"); do
  cp -L "$girdir/$nsv.typelib" "$dest/lib/girepository-1.0/"
done
cache=$(ldconfig -p)
# shellcheck disable=SC2013
for lib in $(sed -n 2p <<<"$typelibs"); do
  f=$(awk -v l="$lib" '$1 == l && $0 ~ /x86-64/ && !f {print $NF; f = 1}' <<<"$cache")
  [ -n "$f" ] || { echo "error: $lib (a typelib's library) not found" >&2; exit 1; }
  cp -L "$f" "$dest/lib/$lib"; elfs+=("$dest/lib/$lib")
done

# a GStreamer source from memory for probe-load.py (plugins-good)
for p in $gst_plugins; do
  f=/usr/lib/$arch/gstreamer-1.0/libgst$p.so
  if [ -f "$f" ]; then cp -L "$f" "$dest/gst-plugins/"; elfs+=("$dest/gst-plugins/libgst$p.so")
  else echo "note: plugin $p not installed here, skipped" >&2; fi
done

# every library those need, but the C runtime the GPU machine has itself
# (the list ../shared/device/pack-gst-runtime skips)
skip='^(libc|libm|libdl|libpthread|librt|ld-linux-x86-64|libgcc_s|libstdc\+\+|libresolv)\.so'
for e in "${elfs[@]}"; do
  ldd "$e" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  base=$(basename "$lib")
  [[ $base =~ $skip ]] && continue
  [ -e "$dest/lib/$base" ] || cp -L "$lib" "$dest/lib/$base"
done
# anything that still resolves outside DEST (but the C runtime) is a mistake
missing=$(for e in "${elfs[@]}" "$dest"/lib/*.so*; do
  LD_LIBRARY_PATH="$dest/lib" ldd "$e" 2>/dev/null | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -v "^$dest/" | grep -Ev "/($(sed 's/^\^(//; s/)\\\.so$//' <<<"$skip"))\.so" || true)
if [ -n "$missing" ]; then echo "error: still from the system: $missing" >&2; exit 1; fi

chmod -R u+w "$dest"
find "$dest" -type f \( -name '*.so' -o -name '*.so.*' -o -path "$dest/bin/*" \) \
  -exec strip --strip-unneeded {} + 2>/dev/null || true

cat > "$dest/python-env.sh" <<'ENV'
# source with bash: . DEST/python-env.sh   (before or after the GStreamer
# runtime's env.sh; both prepend to LD_LIBRARY_PATH and PATH)
_pyrt=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export PYTHONHOME="$_pyrt"
export PYTHONPATH="$_pyrt/lib/python3/dist-packages"
export PYTHONNOUSERSITE=1
export GI_TYPELIB_PATH="$_pyrt/lib/girepository-1.0${GI_TYPELIB_PATH:+:$GI_TYPELIB_PATH}"
# GIO's modules (gvfs, proxies ...): none, never the host's
export GIO_MODULE_DIR="$_pyrt/lib/gio-modules"
export LD_LIBRARY_PATH="$_pyrt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$_pyrt/bin:$PATH"
export VMAFHIP_PYRT="$_pyrt"
unset _pyrt
ENV

du -sh "$dest" | awk '{print "packed " $1 " into " $2}'
echo "tar czf of it: $(tar -C "$(dirname "$dest")" -czf - "$(basename "$dest")" | wc -c) bytes"
