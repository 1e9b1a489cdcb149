#!/usr/bin/python3
"""vmafhip-tune ladder and compare on a made-up corpus whose answers are
worked out by hand (no pipeline runs):

x264enc, 1280x720: (100, 60) (200, 75) (400, 85) (800, 90) kbps/VMAF,
slopes 0.15, 0.05, 0.0125: all four on the hull; 1920x1080 (300, 70) lies
under it (the hull gives 80 there), (1600, 92) extends it (slope 0.0025).
x265enc: every x264enc cell at 0.8 of its bitrate, so BD-rate is exactly
-20 % and each VMAF target needs 0.8 of x264enc's bitrate.  VMAF 80 on
x264enc's hull: between (200, 75) and (400, 85), linear in log bitrate,
200 * 2 ** 0.5 kbps.

Usage: test-tune-analyse.py TOOLS/vmafhip-tune.py
"""
import json
import math
import os
import subprocess
import sys
import tempfile

TUNE = sys.argv[1]
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}", file=sys.stderr)


def row(encoder, width, height, value, kbps, vmaf, source="title.y4m"):
    frames, fps = 60, 30.0
    return {"cell": f"title.y4m|{encoder}|crf={value}|{width}x{height}",
            "source": source, "encoder": encoder, "knob": "crf",
            "value": value, "width": width, "height": height,
            "ref_width": 1920, "ref_height": 1080, "frames": frames,
            "fps": fps, "bytes": int(kbps * 1000 / 8 * frames / fps),
            "bitrate_kbps": kbps, "scores": {"vmaf": vmaf},
            "model": "vmaf_v0.6.1", "pipeline": "made up", "versions": {},
            "elapsed_s": 0.0}


X264 = [(1280, 720, 40, 100.0, 60.0), (1280, 720, 32, 200.0, 75.0),
        (1280, 720, 26, 400.0, 85.0), (1280, 720, 20, 800.0, 90.0),
        (1920, 1080, 36, 300.0, 70.0), (1920, 1080, 18, 1600.0, 92.0)]


def tune(*args):
    p = subprocess.run([sys.executable, TUNE, *args], capture_output=True,
                       text=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def main():
    with tempfile.TemporaryDirectory() as tmp:
        corpus = os.path.join(tmp, "corpus.jsonl")
        with open(corpus, "w") as f:
            for w, h, v, kbps, vmaf in X264:
                f.write(json.dumps(row("x264enc", w, h, v, kbps, vmaf)) + "\n")
            for w, h, v, kbps, vmaf in X264:
                f.write(json.dumps(row("x265enc", w, h, v, kbps * 0.8, vmaf))
                        + "\n")
            # a shot's row: never part of a title's ladder
            shot = row("x264enc", 1280, 720, 50, 50.0, 99.0)
            shot.update(shot=0, cell=shot["cell"] + "|shot=0")
            f.write(json.dumps(shot) + "\n")

        # the ladder: hull and rungs
        plot = os.path.join(tmp, "ladder.png")
        rc, out, err = tune("ladder", "--corpus", corpus, "--encoder",
                            "x264enc", "--rungs", "3", "--json",
                            "--plot", plot)
        check(rc == 0, f"ladder exits 0 ({rc}: {err})")
        got = json.loads(out) if rc == 0 else {"hull": [], "rungs": []}
        hull = [(p["bitrate_kbps"], p["score"]) for p in got["hull"]]
        check(hull == [(100.0, 60.0), (200.0, 75.0), (400.0, 85.0),
                       (800.0, 90.0), (1600.0, 92.0)], f"hull {hull}")
        check(got.get("cells") == 6, f"6 cells, the shot's row left out "
              f"({got.get('cells')})")
        # 3 rungs: targets 100, 400, 1600 kbps (evenly in log bitrate)
        rungs = [(p["bitrate_kbps"], p["width"]) for p in got["rungs"]]
        check(rungs == [(100.0, 1280), (400.0, 1280), (1600.0, 1920)],
              f"rungs {rungs}")
        check(os.path.getsize(plot) > 10000 if os.path.exists(plot)
              else False, "the plot written")
        # spacing 3: from the top, 1600, then <= 533.3: 400, then <= 133.3: 100
        rc, out, err = tune("ladder", "--corpus", corpus, "--encoder",
                            "x264enc", "--spacing", "3")
        check(rc == 0, f"ladder --spacing exits 0 ({rc}: {err})")
        table = [line.split() for line in out.splitlines()[2:]]
        check([t[4] for t in table] == ["100.0", "400.0", "1600.0"],
              f"spacing rungs {table}")
        check(table and table[-1][1] == "1920x1080" and table[-1][3] == "crf=18",
              f"the top rung's row {table[-1] if table else None}")

        # compare: x265enc at 0.8 of every bitrate
        rc, out, err = tune("compare", "--corpus", corpus, "--targets",
                            "80,90,99", "--json")
        check(rc == 0, f"compare exits 0 ({rc}: {err})")
        got = json.loads(out) if rc == 0 else {"encoders": [{}, {}]}
        anchor, test = got["encoders"]
        check(anchor.get("encoder") == "x264enc"
              and test.get("encoder") == "x265enc", "encoders in corpus order")
        check(abs(test.get("bd_rate_percent", 0) + 20.0) < 1e-9,
              f"BD-rate -20 % ({test.get('bd_rate_percent')})")
        k80 = anchor.get("bitrate_kbps", {}).get("80")
        check(k80 is not None and abs(k80 - 200 * math.sqrt(2)) < 1e-9,
              f"x264enc at VMAF 80: {k80}")
        k90 = test.get("bitrate_kbps", {}).get("90")
        check(k90 is not None and abs(k90 - 640.0) < 1e-9,
              f"x265enc at VMAF 90: {k90}")
        check(anchor.get("bitrate_kbps", {}).get("99", 0) is None,
              "a target above the hull: none")
        rc, out, err = tune("compare", "--corpus", corpus, "--encoder",
                            "x265enc", "--encoder", "x264enc")
        check(rc == 0 and "+25.00 %" in out,
              f"x264enc against x265enc: +25 % ({rc}: {out} {err})")

        # clear errors
        rc, out, err = tune("ladder", "--corpus", corpus, "--rungs", "3")
        check(rc == 2 and "--encoder" in err and "x265enc" in err,
              f"two encoders without --encoder ({rc}: {err})")
        rc, out, err = tune("compare", "--corpus", corpus, "--encoder",
                            "av1enc", "--encoder", "x264enc")
        check(rc == 2 and "av1enc" in err, f"an encoder not in the corpus "
              f"({rc}: {err})")
        rc, out, err = tune("ladder", "--corpus", os.path.join(tmp, "none"),
                            "--rungs", "2")
        check(rc == 2 and "no such file" in err, f"a missing corpus ({err})")
        rc, out, err = tune("ladder", "--corpus", corpus, "--encoder",
                            "x264enc", "--spacing", "0.5")
        check(rc == 2 and err.strip(), f"spacing below 1 ({rc}: {err})")

    if failures:
        print(f"test-tune-analyse: {len(failures)} failure(s)", file=sys.stderr)
        return 1
    print("test-tune-analyse: ladder and compare as worked out")
    return 0


if __name__ == "__main__":
    sys.exit(main())
