#!/usr/bin/env bash
# Builds vmafhip's Debian packages from a clean copy of this tree into dist/
# (the plugin gstreamer1.0-vmafhip, the tools vmafhip-tools, the meta
# header gstreamer1.0-vmafhip-dev), installing the build dependencies
# debian/control names, then checks them with lintian (errors fail).
#   --install then installs them (apt-get install ./dist/*.deb): the
#             element in GStreamer's plugin folder, the tools in /usr/bin
#   --check   then installs them (apt-get install ./dist/*.deb), runs
#             gst-inspect-1.0 vmafhip and vmafhip-score with no environment
#             variable, and removes them again (scripts/test.sh, CI)
# As root, or through sudo.  Takes about as long as a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

# the tools dpkg-buildpackage and lintian need, then the build dependencies
tools=(dpkg-dev debhelper lintian)
missing=()
for p in "${tools[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" \
    || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] || $sudo apt-get install -y --no-install-recommends \
  "${missing[@]}"
unmet=$(dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p' \
  | sed 's/([^)]*)//g; s/\[[^]]*\]//g; s/|[^ ]*//g')
[ -z "$unmet" ] || $sudo apt-get install -y --no-install-recommends $unmet

# a clean tree: what git tracks, nothing built
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git archive --format=tar --prefix=vmafhip/ HEAD | tar -x -C "$work"
(cd "$work/vmafhip" && dpkg-buildpackage -b -us -uc)
rm -rf dist && mkdir -p dist
mv "$work"/*.deb "$work"/*.buildinfo "$work"/*.changes dist/
ls -l dist

# lintian: errors fail, warnings are printed
lintian --fail-on error dist/*.changes

if [ "${1:-}" = --install ]; then
  $sudo apt-get install -y ./dist/gstreamer1.0-vmafhip_*.deb \
    ./dist/vmafhip-tools_*.deb ./dist/gstreamer1.0-vmafhip-dev_*.deb
fi
if [ "${1:-}" = --check ]; then
  pkgs=(gstreamer1.0-vmafhip vmafhip-tools gstreamer1.0-vmafhip-dev)
  trap '$sudo apt-get remove -y "${pkgs[@]}" > /dev/null; rm -rf "$work"' EXIT
  $sudo apt-get install -y ./dist/gstreamer1.0-vmafhip_*.deb \
    ./dist/vmafhip-tools_*.deb ./dist/gstreamer1.0-vmafhip-dev_*.deb
  # as a user runs them: no GST_PLUGIN_PATH, a registry of its own
  registry=$(mktemp -u)
  # (read whole: grep -q would end the pipe early, and pipefail would take
  # gst-inspect's SIGPIPE for a failure)
  inspect=$(env -u GST_PLUGIN_PATH -u GST_PLUGIN_PATH_1_0 \
    GST_REGISTRY_1_0="$registry" gst-inspect-1.0 vmafhip)
  grep -q "dist_sink_%u" <<< "$inspect"
  rm -f "$registry"
  vmafhip-score --synthetic 64x48 --frame_cnt 4 --backend cpu -q \
    | grep "pooled over 4 frames"
  pkg-config --exists gstreamer-vmafhip-1.0
  echo "package: installed; gst-inspect-1.0 vmafhip, vmafhip-score and" \
    "gstreamer-vmafhip-1.0.pc work; removed again"
fi
