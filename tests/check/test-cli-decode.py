#!/usr/bin/env python3
"""vmafhip-score on compressed and container inputs (issue 35): a pair
encoded losslessly (H.264 at quantizer 0, in MP4 and in Matroska) scores
exactly as the y4m pair it was encoded from; the decoder's size is checked
against -w/-h; a file GStreamer cannot decode is refused, naming it and
what the CLI reads instead.  Content: videotestsrc (made here).

Usage: test-cli-decode.py VMAFHIP_SCORE
Exit 77 (skipped, said) where GStreamer's x264enc or H.264 decoder is
missing (Debian: gstreamer1.0-plugins-ugly, gstreamer1.0-libav).
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

LAUNCH = shutil.which("gst-launch-1.0")
CAPS = "video/x-raw,width=176,height=144,framerate=25/1,format=I420"


def launch(desc):
    r = subprocess.run([LAUNCH, "-q"] + desc.split(), capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, f"{desc}\n{r.stdout}{r.stderr}"


def score(cli, *args):
    return subprocess.run([cli] + list(args), capture_output=True, text=True,
                          timeout=120)


def metrics(path):
    with open(path) as f:
        return [fr["metrics"] for fr in json.load(f)["frames"]]


def main():
    cli = sys.argv[1]
    have = subprocess.run(["gst-inspect-1.0", "x264enc"], capture_output=True)
    dec = subprocess.run(["gst-inspect-1.0", "avdec_h264"],
                         capture_output=True)
    if not LAUNCH or have.returncode or dec.returncode:
        print("SKIP: gst-launch-1.0, x264enc or avdec_h264 missing "
              "(gstreamer1.0-tools, -plugins-ugly, -libav)")
        return 77
    tmp = tempfile.mkdtemp(prefix="vmafhip-cli-decode-")
    y = lambda n: os.path.join(tmp, n)  # noqa: E731
    # the y4m pair: a moving ball, and the same with its contrast lowered
    launch(f"videotestsrc num-buffers=16 pattern=ball ! {CAPS} ! y4menc ! "
           f"filesink location={y('r.y4m')}")
    launch(f"videotestsrc num-buffers=16 pattern=ball ! {CAPS} ! "
           "videobalance contrast=0.8 ! videoconvert ! "
           f"{CAPS} ! y4menc ! filesink location={y('d.y4m')}")
    # encoded losslessly: the decoded frames are the y4m's
    lossless = "x264enc pass=quant quantizer=0 speed-preset=ultrafast"
    launch(f"filesrc location={y('r.y4m')} ! y4mdec ! {lossless} ! mp4mux ! "
           f"filesink location={y('r.mp4')}")
    launch(f"filesrc location={y('d.y4m')} ! y4mdec ! {lossless} ! "
           f"matroskamux ! filesink location={y('d.mkv')}")

    r = score(cli, "-r", y("r.y4m"), "-d", y("d.y4m"), "--json", "-o",
              y("y4m.json"), "-q")
    assert r.returncode == 0, r.stderr
    r = score(cli, "-r", y("r.mp4"), "-d", y("d.mkv"), "--json", "-o",
              y("decoded.json"), "-q")
    assert r.returncode == 0, r.stderr
    want, got = metrics(y("y4m.json")), metrics(y("decoded.json"))
    assert len(want) == 16 and got == want, (len(got), len(want))
    assert 10 < got[0]["vmaf"] < 100, got[0]["vmaf"]
    assert "pooled over 16 frames" in r.stdout, r.stdout

    # -w/-h that are not the decoded size
    r = score(cli, "-r", y("r.mp4"), "-d", y("d.mkv"), "-w", "320", "-h",
              "240", "-q")
    assert r.returncode == 1 and "176x144 by its decoder" in r.stderr, \
        r.stderr
    # not a video: named, with what the CLI reads
    with open(y("notes.txt"), "w") as f:
        f.write("not a video\n")
    r = score(cli, "-r", y("notes.txt"), "-d", y("d.mkv"), "-q")
    assert r.returncode == 1, r.returncode
    assert "cannot decode" in r.stderr and "notes.txt" in r.stderr \
        and "--width" in r.stderr, r.stderr
    shutil.rmtree(tmp)
    print("test-cli-decode: mp4/mkv equal to their y4m; errors said")
    return 0


if __name__ == "__main__":
    sys.exit(main())
