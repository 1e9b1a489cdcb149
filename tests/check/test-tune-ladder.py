#!/usr/bin/python3
"""vmafhip-tune's ladder geometry (tools/vmafhip_tune/ladder.py) on made-up
corpora whose answers are worked out by hand:

* the Pareto front and the per-title convex hull (linear and log2 rate):
  collinear points dropped or kept, duplicates, points below the hull,
  a flat top and a falling tail cut off, two resolutions whose hull
  switches from one to the other between two known bitrates;
* rungs by count (even in log rate, nearest, no point twice) and by
  spacing (greedy from the top and from the bottom, inclusive bounds),
  narrowed by min/max kbps;
* the hull read between its points (log-rate interpolation) both ways;
* BD-rate (cubic and PCHIP): identical curves 0, rates scaled by k
  (k - 1) * 100 %, a log-linear pair with a closed-form answer, PCHIP
  integrals against hand values (and SciPy's PchipInterpolator where
  SciPy is installed); BD-VMAF of a curve shifted by d: d; the errors;
* the ladder table, and the plot written as PNG and SVG.

Usage: test-tune-ladder.py [LADDER_PY] (default: the source tree's).
Exit 77 (skip, said) only when matplotlib is missing and everything else
passed, unless VMAFHIP_STRICT_TESTS=1: then it fails.
"""
import math
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
LADDER_PY = (sys.argv.pop(1) if len(sys.argv) > 1 else
             os.path.join(HERE, "..", "..", "tools", "vmafhip_tune",
                          "ladder.py"))
sys.path.insert(0, os.path.dirname(os.path.abspath(LADDER_PY)))
import ladder  # noqa: E402

STRICT = os.environ.get("VMAFHIP_STRICT_TESTS") == "1"
try:
    import matplotlib  # noqa: F401
    HAVE_MPL = True
except ImportError:
    HAVE_MPL = False
P = ladder.Point


def row(kbps, vmaf, w=1920, h=1080, enc="x264enc", knob="crf", value=23,
        **extra):
    r = {"cell": f"t.y4m|{enc}|{knob}={value}|{w}x{h}", "source": "t.y4m",
         "encoder": enc, "knob": knob, "value": value, "width": w,
         "height": h, "bitrate_kbps": kbps, "scores": {"vmaf": vmaf}}
    r.update(extra)
    return r


def pairs(points):
    return [(p.bitrate_kbps, p.score) for p in points]


# Corpus A: (kbps, score); the hull 100:30 -> 200:50 -> 300:60 -> 400:65
# (slopes 0.2, 0.1, 0.05); 150:40 on the first edge (collinear); 200:50
# twice; 250:50 and 300:55 below; 350:61 below the hull (62.5 there) but
# on the Pareto front; 500:65 flat and 600:64 falling after the top.
A = [(200, 50), (100, 30), (300, 55), (150, 40), (250, 50), (200, 50),
     (350, 61), (300, 60), (500, 65), (400, 65), (600, 64)]


class TestPoints(unittest.TestCase):
    def test_points_from_rows(self):
        rows = [row(100, 40.0), row(200, None), {"bitrate_kbps": 5},
                row(0, 50.0), row(300, 70.0, scores_extra=1),
                row(float("nan"), 60.0), row(400, float("inf")),
                {"bitrate_kbps": 500, "scores": {"psnr_y": 40.0}},
                row(600, 80), "not a row", row(700, True)]
        pts = ladder.points_from_rows(rows)
        self.assertEqual(pairs(pts), [(100, 40.0), (300, 70.0), (600, 80)])
        self.assertIs(pts[0].row, rows[0])
        self.assertIs(pts[2].row, rows[8])
        psnr = ladder.points_from_rows(rows, metric="psnr_y")
        self.assertEqual(pairs(psnr), [(500, 40.0)])


class TestPareto(unittest.TestCase):
    def test_front(self):
        pts = [P(b, s, i) for i, (b, s) in enumerate(A)]
        front = ladder.pareto_front(pts)
        self.assertEqual(pairs(front), [(100, 30), (150, 40), (200, 50),
                                        (300, 60), (350, 61), (400, 65)])
        # of the duplicate 200:50 pair, the first in input order
        self.assertEqual(front[2].row, 0)

    def test_plain_pairs_and_empty(self):
        self.assertEqual(pairs(ladder.pareto_front(A))[-1], (400, 65))
        self.assertEqual(ladder.pareto_front([]), [])
        self.assertEqual(pairs(ladder.pareto_front([(5, 1)])), [(5, 1)])
        # equal bitrate: the higher score only
        self.assertEqual(pairs(ladder.pareto_front([(5, 1), (5, 3), (5, 2)])),
                         [(5, 3)])

    def test_non_finite(self):
        with self.assertRaises(ValueError):
            ladder.pareto_front([(1, 2), (float("nan"), 3)])


class TestHull(unittest.TestCase):
    def test_hull_drops_collinear(self):
        pts = [P(b, s, i) for i, (b, s) in enumerate(A)]
        hull = ladder.upper_convex_hull(pts)
        self.assertEqual(pairs(hull), [(100, 30), (200, 50), (300, 60),
                                       (400, 65)])
        self.assertEqual(hull[1].row, 0)  # the first of the duplicates
        self.assertEqual(hull[2].row, 7)

    def test_hull_keeps_collinear(self):
        hull = ladder.upper_convex_hull(A, keep_collinear=True)
        self.assertEqual(pairs(hull), [(100, 30), (150, 40), (200, 50),
                                       (300, 60), (400, 65)])

    def test_collinear_later_lifted(self):
        # 2:2 is on 1:1-3:3 but 4:5 lifts the chain above it: 2:2 and 3:3
        # both leave, kept collinear or not
        pts = [(1, 1), (2, 2), (3, 3), (4, 5)]
        for keep in (False, True):
            self.assertEqual(pairs(ladder.upper_convex_hull(
                pts, keep_collinear=keep)), [(1, 1), (4, 5)])
        # all on one line: the ends only, or all
        line = [(10, 1), (20, 2), (30, 3), (40, 4)]
        self.assertEqual(pairs(ladder.upper_convex_hull(line)),
                         [(10, 1), (40, 4)])
        self.assertEqual(pairs(ladder.upper_convex_hull(
            line, keep_collinear=True)), line)

    def test_exact_on_floats(self):
        # 0.1, 0.2, 0.3 are not collinear as the binary floats they are
        # (0.3 sits below 3 * 0.1): exact arithmetic says so
        hull = ladder.upper_convex_hull([(1, 0.1), (2, 0.2), (3, 0.3)])
        self.assertEqual(pairs(hull), [(1, 0.1), (2, 0.2), (3, 0.3)])
        # halves are exact: collinear, the middle dropped
        hull = ladder.upper_convex_hull([(1, 0.5), (2, 1.0), (3, 1.5)])
        self.assertEqual(pairs(hull), [(1, 0.5), (3, 1.5)])

    def test_edges(self):
        self.assertEqual(ladder.upper_convex_hull([]), [])
        self.assertEqual(pairs(ladder.upper_convex_hull([(7, 3)])), [(7, 3)])
        # a falling set: the first (lowest bitrate) point alone
        self.assertEqual(pairs(ladder.upper_convex_hull(
            [(1, 9), (2, 8), (3, 1)])), [(1, 9)])
        # equal bitrates: the best score
        self.assertEqual(pairs(ladder.upper_convex_hull(
            [(1, 1), (1, 5), (2, 6), (2, 7)])), [(1, 5), (2, 7)])
        with self.assertRaises(ValueError):
            ladder.upper_convex_hull([(0, 1), (2, 3)], log_rate=True)
        with self.assertRaises(ValueError):
            ladder.upper_convex_hull([(1, float("inf"))])

    def test_log_rate(self):
        # log2 rates 7, 9, 10, 11 (exact): in log rate the slopes are
        # 10, 4, 6, so 1024:54 is below 512:50-2048:60 (55 there); in
        # linear rate 20/384, 4/512, 6/1024 fall: 1024 is a corner
        pts = [(128, 30), (512, 50), (1024, 54), (2048, 60)]
        self.assertEqual(pairs(ladder.upper_convex_hull(pts)), pts)
        self.assertEqual(pairs(ladder.upper_convex_hull(pts, log_rate=True)),
                         [(128, 30), (512, 50), (2048, 60)])
        # log2-collinear: 256:40 on 128:30-512:50 in log rate only
        pts = [(128, 30), (256, 40), (512, 50)]
        self.assertEqual(pairs(ladder.upper_convex_hull(pts, log_rate=True)),
                         [(128, 30), (512, 50)])
        self.assertEqual(pairs(ladder.upper_convex_hull(
            pts, log_rate=True, keep_collinear=True)), pts)
        self.assertEqual(pairs(ladder.upper_convex_hull(pts)), pts)

    def test_resolution_crossing(self):
        # 960x540 wins below 400 kbps, 1920x1080 from there: the hull is
        # 540p 100:40, 200:55 then 1080p 400:66, 800:80, 1600:88 (slopes
        # .15, .055, .035, .01); 540p 400:62 and 800:65, 1080p 200:45 below
        rows = ([row(b, s, 960, 540, value=v) for b, s, v in
                 ((100, 40, 35), (200, 55, 29), (400, 62, 23), (800, 65, 17))]
                + [row(b, s, 1920, 1080, value=v) for b, s, v in
                   ((200, 45, 35), (400, 66, 29), (800, 80, 23),
                    (1600, 88, 17))])
        pts = ladder.points_from_rows(rows)
        hull = ladder.upper_convex_hull(pts)
        self.assertEqual(pairs(hull), [(100, 40), (200, 55), (400, 66),
                                       (800, 80), (1600, 88)])
        self.assertEqual([p.row["height"] for p in hull],
                         [540, 540, 1080, 1080, 1080])
        self.assertEqual([p.row["value"] for p in hull], [35, 29, 29, 23, 17])
        self.assertEqual(pairs(ladder.pareto_front(pts)),
                         [(100, 40), (200, 55), (400, 66), (800, 80),
                          (1600, 88)])
        # the rungs, the table
        rungs = ladder.pick_rungs(hull, count=3)
        self.assertEqual(pairs(rungs), [(100, 40), (400, 66), (1600, 88)])
        table = ladder.ladder_table(rungs)
        self.assertEqual(table, [
            "rung  resolution  encoder  setting  kbps    vmaf",
            "1     960x540     x264enc  crf=35   100.0   40.000",
            "2     1920x1080   x264enc  crf=29   400.0   66.000",
            "3     1920x1080   x264enc  crf=17   1600.0  88.000"])

    def test_idempotent(self):
        for log_rate in (False, True):
            hull = ladder.upper_convex_hull(A, log_rate=log_rate)
            self.assertEqual(ladder.upper_convex_hull(hull, log_rate=log_rate),
                             hull)


def concave(b):
    return 100 - 4000 / b  # concave and rising: every point on the hull


H_RATES = [100, 150, 200, 300, 450, 800, 1600, 3000, 6000]
HULL = ladder.upper_convex_hull([(b, concave(b)) for b in H_RATES])


def rates(points):
    return [p.bitrate_kbps for p in points]


class TestRungs(unittest.TestCase):
    def test_hull_is_whole(self):
        self.assertEqual(rates(HULL), H_RATES)

    def test_count(self):
        # targets 100 * 60 ** (i / 3): 100, 391.5, 1532.6, 6000;
        # 391.5: 450 (x1.149) nearer than 300 (x1.305); 1532.6: 1600
        self.assertEqual(rates(ladder.pick_rungs(HULL, count=4)),
                         [100, 450, 1600, 6000])
        # 100 * 60 ** (1 / 2) = 774.6: 800
        self.assertEqual(rates(ladder.pick_rungs(HULL, count=3)),
                         [100, 800, 6000])
        self.assertEqual(rates(ladder.pick_rungs(HULL, count=2)), [100, 6000])
        self.assertEqual(rates(ladder.pick_rungs(HULL, count=1)), [6000])
        self.assertEqual(rates(ladder.pick_rungs(HULL, count=9)), H_RATES)
        self.assertEqual(rates(ladder.pick_rungs(HULL, count=20)), H_RATES)
        # the same objects come back
        self.assertIs(ladder.pick_rungs(HULL, count=2)[0], HULL[0])

    def test_count_no_duplicates(self):
        hull = [P(b, concave(b)) for b in (100, 110, 120, 130, 10000)]
        # targets 100, 1000, 10000: 1000 nearest 130 (10000 kept for the
        # last target)
        self.assertEqual(rates(ladder.pick_rungs(hull, count=3)),
                         [100, 130, 10000])
        # targets 100, 316.2, 1000, 3162, 10000 on 5 points: all
        self.assertEqual(rates(ladder.pick_rungs(hull, count=5)),
                         [100, 110, 120, 130, 10000])
        # 4 targets 100, 464.2, 2154.4, 10000; the 2nd among 110, 120
        # (index <= 2 leaves two points for the two targets above): 120;
        # the 3rd must be 130, the 4th 10000
        self.assertEqual(rates(ladder.pick_rungs(hull, count=4)),
                         [100, 120, 130, 10000])
        # a tie in log distance goes to the lower bitrate: targets log2 6,
        # 8, 10 (exact); 128 and 512 both 1 from 8: 128
        hull = [P(b, concave(b)) for b in (64, 128, 512, 1024)]
        self.assertEqual(rates(ladder.pick_rungs(hull, count=3)),
                         [64, 128, 1024])

    def test_count_range(self):
        # 150 .. 3000: targets 150, 670.8, 3000: 800 (x1.19) over 450
        self.assertEqual(rates(ladder.pick_rungs(HULL, count=3, min_kbps=150,
                                                 max_kbps=3000)),
                         [150, 800, 3000])
        self.assertEqual(rates(ladder.pick_rungs(HULL, count=5, min_kbps=1000,
                                                 max_kbps=5000)),
                         [1600, 3000])

    def test_spacing(self):
        self.assertEqual(rates(ladder.pick_rungs(HULL, spacing=2)),
                         [150, 300, 800, 3000, 6000])
        self.assertEqual(rates(ladder.pick_rungs(HULL, spacing=2,
                                                 anchor="bottom")),
                         [100, 200, 450, 1600, 6000])
        # inclusive: 300 * 1.5 == 450, 200 * 1.5 == 300
        self.assertEqual(rates(ladder.pick_rungs(HULL, spacing=1.5)),
                         [100, 200, 300, 450, 800, 1600, 3000, 6000])
        self.assertEqual(rates(ladder.pick_rungs(HULL, spacing=1.5,
                                                 anchor="bottom")),
                         [100, 150, 300, 450, 800, 1600, 3000, 6000])
        # from 3000 down: 800 (<= 1500), 300 (<= 400), 150 (<= 150)
        self.assertEqual(rates(ladder.pick_rungs(HULL, spacing=2,
                                                 max_kbps=3000)),
                         [150, 300, 800, 3000])
        self.assertEqual(rates(ladder.pick_rungs(HULL, spacing=2,
                                                 min_kbps=200,
                                                 anchor="bottom")),
                         [200, 450, 1600, 6000])
        self.assertEqual(rates(ladder.pick_rungs(HULL, spacing=100)), [6000])
        self.assertEqual(ladder.pick_rungs([], spacing=2), [])

    def test_errors(self):
        for kw in ({}, {"count": 3, "spacing": 2}, {"count": 0},
                   {"count": 2.0}, {"spacing": 1}, {"spacing": 0.5},
                   {"spacing": float("nan")},
                   {"spacing": 2, "anchor": "middle"}):
            with self.assertRaises(ValueError, msg=repr(kw)):
                ladder.pick_rungs(HULL, **kw)


class TestInterpolation(unittest.TestCase):
    HULL2 = [P(1000, 60), P(4000, 80), P(8000, 90)]

    def test_interpolate_score(self):
        f = ladder.interpolate_score
        self.assertEqual(f(self.HULL2, 1000), 60)
        self.assertEqual(f(self.HULL2, 4000), 80)
        self.assertEqual(f(self.HULL2, 8000), 90)
        self.assertEqual(f(self.HULL2, 2000), 70.0)  # half way in log rate
        self.assertEqual(f(self.HULL2, 1000 * 2 ** 0.5), 65.0)
        self.assertAlmostEqual(f(self.HULL2, 6000),
                               80 + 10 * math.log(1.5) / math.log(2), 12)
        self.assertIsNone(f(self.HULL2, 999.999))
        self.assertIsNone(f(self.HULL2, 8000.001))
        self.assertIsNone(f([], 1000))

    def test_bitrate_for_score(self):
        f = ladder.bitrate_for_score
        self.assertEqual(f(self.HULL2, 60), 1000)  # vertices exactly
        self.assertEqual(f(self.HULL2, 80), 4000)
        self.assertEqual(f(self.HULL2, 90), 8000)
        self.assertEqual(f(self.HULL2, 70), 2000.0)  # sqrt(1000 * 4000)
        self.assertAlmostEqual(f(self.HULL2, 85), math.sqrt(4000 * 8000), 9)
        self.assertAlmostEqual(f(self.HULL2, 65), 1000 * 4 ** 0.25, 9)
        self.assertIsNone(f(self.HULL2, 59.99))
        self.assertIsNone(f(self.HULL2, 90.01))
        self.assertIsNone(f([], 50))
        # raw points: the hull is taken first (points below it, a flat and
        # a falling tail change nothing)
        raw = list(self.HULL2) + [P(2000, 65), P(3000, 70), P(9000, 90),
                                  P(10000, 85)]
        self.assertEqual(f(raw, 70), 2000.0)
        self.assertEqual(f(raw, 90), 8000)
        for t in (60, 63.5, 70, 77, 80, 88):
            self.assertEqual(f(raw, t), f(self.HULL2, t))
            self.assertAlmostEqual(
                ladder.interpolate_score(self.HULL2, f(self.HULL2, t)), t, 12)
        # corpus A's hull: 50 at 200 kbps, 62.5 half way 300:60-400:65
        self.assertEqual(f(A, 50), 200)
        self.assertAlmostEqual(f(A, 62.5), math.sqrt(300 * 400), 9)


ANCHOR = [(1000, 70.0), (2000, 80.0), (4000, 87.5), (8000, 92.0),
          (16000, 95.0)]


def scaled(curve, k):
    return [(b * k, s) for b, s in curve]


class TestBD(unittest.TestCase):
    def test_identical(self):
        for method in ("cubic", "pchip"):
            self.assertLessEqual(abs(ladder.bd_rate(ANCHOR, ANCHOR, method)),
                                 1e-12)
            self.assertLessEqual(abs(ladder.bd_score(ANCHOR, ANCHOR, method)),
                                 1e-12)
        self.assertEqual(ladder.bd_rate(ANCHOR, list(reversed(ANCHOR))), 0.0)

    def test_scaled_rates(self):
        for method in ("cubic", "pchip"):
            for k in (0.8, 1.25, 0.5, 3.0):
                got = ladder.bd_rate(ANCHOR, scaled(ANCHOR, k), method)
                self.assertLessEqual(abs(got - (k - 1) * 100), 1e-9,
                                     f"{method} k={k}: {got}")
        # the default is pchip
        self.assertLessEqual(abs(ladder.bd_rate(ANCHOR, scaled(ANCHOR, 0.8))
                                 + 20), 1e-9)

    def test_scaled_partial_overlap(self):
        # test's scores a subset range (80 .. 95) and other sample points:
        # still exactly k on a log-linear pair
        anchor = [(10 ** (2 + 0.05 * q), q) for q in (30, 40, 50, 60, 70)]
        test = [(0.7 * 10 ** (2 + 0.05 * q), q) for q in (45, 52, 58, 66, 90)]
        for method in ("cubic", "pchip"):
            self.assertLessEqual(abs(ladder.bd_rate(anchor, test, method)
                                     + 30), 1e-9, method)

    def test_log_linear_closed_form(self):
        # log10 rate: anchor 2 + 0.05 q (q 30..60), test 2.1 + 0.04 q
        # (q 35..75): overlap [35, 60], mean difference 0.1 - 0.01 * 47.5
        anchor = [(10 ** (2 + 0.05 * q), q) for q in (30, 40, 50, 60)]
        test = [(10 ** (2.1 + 0.04 * q), q) for q in (35, 45, 55, 65, 75)]
        want = (10 ** -0.375 - 1) * 100
        for method in ("cubic", "pchip"):
            self.assertLessEqual(abs(ladder.bd_rate(anchor, test, method)
                                     - want), 1e-9, method)
        # and BD-score on the same pair: score = (log10 r - 2) / 0.05 and
        # (log10 r - 2.1) / 0.04; overlap of log10 rates [3.5, 5.0]:
        # mean of 25 (l - 2.1) - 20 (l - 2) = 5 l - 12.5 at l = 4.25
        for method in ("cubic", "pchip"):
            self.assertLessEqual(abs(ladder.bd_score(anchor, test, method)
                                     - 8.75), 1e-9, method)

    def test_cubic_is_the_vceg_fit(self):
        # four points: the cubic passes through them; a cubic log10 rate
        # in q comes back exactly
        def lr(q):
            return 1 + 0.1 * q - 0.001 * q * q + 0.00001 * q ** 3
        anchor = [(10 ** lr(q), q) for q in (30, 45, 60, 90)]
        test = [(10 ** (lr(q) - 0.05), q) for q in (30, 50, 70, 90)]
        self.assertLessEqual(abs(ladder.bd_rate(anchor, test, "cubic")
                                 - (10 ** -0.05 - 1) * 100), 1e-9)

    def test_bd_score_shift(self):
        for method in ("cubic", "pchip"):
            for d in (2.5, -1.25, 0.1):
                test = [(b, s + d) for b, s in ANCHOR]
                self.assertLessEqual(abs(ladder.bd_score(ANCHOR, test, method)
                                         - d), 1e-9, f"{method} d={d}")

    def test_dedup(self):
        # equal scores keep the lowest bitrate: (2500, 80) is not the
        # curve's; the result equals the anchor's own
        noisy = ANCHOR + [(2500, 80.0)]
        self.assertEqual(ladder.bd_rate(ANCHOR, noisy), 0.0)
        self.assertEqual(ladder.bd_rate(ANCHOR, noisy, "cubic"), 0.0)
        # equal bitrates keep the highest score for bd_score
        noisy = ANCHOR + [(2000, 75.0)]
        self.assertEqual(ladder.bd_score(ANCHOR, noisy), 0.0)
        # Points work as well as pairs
        pts = [P(b, s, {"x": 1}) for b, s in ANCHOR]
        self.assertEqual(ladder.bd_rate(ANCHOR, pts), 0.0)

    def test_pchip_integral_by_hand(self):
        # x 0, 1, 2; y 0, 1, 1: secants 1, 0; slopes d1 = 0 (a secant is
        # 0), d0 = ((2 + 1) * 1 - 0) / 2 = 1.5, d2 = -0.5 -> 0 (sign);
        # [0, 1]: 1/2 + 1.5 / 12 = 0.625; [1, 2]: 1; [0, .5]: 23 / 128
        x, y = [0.0, 1.0, 2.0], [0.0, 1.0, 1.0]
        self.assertEqual(ladder._pchip_slopes(x, y), [1.5, 0.0, 0.0])
        self.assertEqual(ladder._pchip_integral(x, y, 0.0, 2.0), 1.625)
        self.assertEqual(ladder._pchip_integral(x, y, 0.0, 1.0), 0.625)
        self.assertEqual(ladder._pchip_integral(x, y, 0.0, 0.5), 23 / 128)
        self.assertEqual(ladder._pchip_integral(x, y, 1.0, 2.0), 1.0)
        # x 0, 1, 3; y 0, 1, 0: secants 1, -0.5; interior: signs differ
        # -> 0; d0 = ((2 + 2) * 1 - 1 * -0.5) / 3 = 1.5 (not > 3 * 1:
        # kept); d2 = ((4 + 1) * -0.5 - 2 * 1) / 3 = -1.5 (not > 3 * 0.5)
        self.assertEqual(ladder._pchip_slopes([0.0, 1.0, 3.0],
                                              [0.0, 1.0, 0.0]),
                         [1.5, 0.0, -1.5])
        # x 0, 1, 1.1; y 0, 1, 0: secants 1, -10; d0 = (2.1 + 10) / 1.1
        # = 11 > 3 * 1 with the secants' signs differing: capped at 3;
        # d2 = (1.2 * -10 - 0.1) / 1.1 = -11 (not > 30: kept)
        d = ladder._pchip_slopes([0.0, 1.0, 1.1], [0.0, 1.0, 0.0])
        self.assertEqual(d[:2], [3.0, 0.0])
        self.assertAlmostEqual(d[2], -11.0, 12)
        # two points: the line
        self.assertEqual(ladder._pchip_integral([0.0, 2.0], [1.0, 3.0],
                                                0.5, 1.5), 2.0)

    def test_pchip_against_scipy(self):
        try:
            from scipy.interpolate import PchipInterpolator
        except ImportError:
            print("test-tune-ladder: SciPy missing: the PCHIP cross-check "
                  "against PchipInterpolator not made (the hand cases were)",
                  file=sys.stderr)
            return
        cases = [
            ([30.0, 41.0, 55.5, 62.0, 80.0, 93.0],
             [2.7, 3.0, 3.4, 3.45, 3.9, 4.6]),
            ([0.0, 1.0, 3.0, 3.5, 6.0], [0.0, 2.0, 1.0, 4.0, 4.0]),
            ([0.0, 1.0, 1.1], [0.0, 1.0, 0.0]),
            ([2.0, 5.0], [1.0, -1.0]),
        ]
        for x, y in cases:
            p = PchipInterpolator(x, y)
            for lo, hi in ((x[0], x[-1]), (x[0] + 0.3 * (x[1] - x[0]),
                                           x[-1] - 0.01)):
                want = float(p.integrate(lo, hi))
                got = ladder._pchip_integral(x, y, lo, hi)
                self.assertLessEqual(abs(got - want),
                                     1e-12 * max(1.0, abs(want)), (x, y))
            for k, dk in enumerate(ladder._pchip_slopes(x, y)):
                self.assertAlmostEqual(dk, float(p.derivative()(x[k])), 12)

    def test_errors(self):
        three = ANCHOR[:3]
        with self.assertRaisesRegex(ValueError, "needs at least 4"):
            ladder.bd_rate(three, ANCHOR, "cubic")
        with self.assertRaisesRegex(ValueError, "test: 3 point"):
            ladder.bd_rate(ANCHOR, three, "cubic")
        # 4 points, two of one score: 3 distinct
        with self.assertRaisesRegex(ValueError, "needs at least 4"):
            ladder.bd_rate(ANCHOR, ANCHOR[:3] + [(3000, 87.5)], "cubic")
        self.assertIsInstance(ladder.bd_rate(ANCHOR, ANCHOR[:2]), float)
        with self.assertRaisesRegex(ValueError, "needs at least 2"):
            ladder.bd_rate(ANCHOR, ANCHOR[:1])
        with self.assertRaisesRegex(ValueError, "needs at least 2"):
            ladder.bd_score([], ANCHOR)
        with self.assertRaisesRegex(ValueError, "do not overlap"):
            ladder.bd_rate(ANCHOR[:2], ANCHOR[2:])
        with self.assertRaisesRegex(ValueError, "do not overlap"):
            # touching at one score (80): no interval
            ladder.bd_rate(ANCHOR[:2], ANCHOR[1:3])
        with self.assertRaisesRegex(ValueError, "do not overlap"):
            ladder.bd_score(ANCHOR[:2], [(b * 100, s) for b, s in ANCHOR])
        with self.assertRaisesRegex(ValueError, "method"):
            ladder.bd_rate(ANCHOR, ANCHOR, "linear")
        with self.assertRaisesRegex(ValueError, "bitrate > 0"):
            ladder.bd_rate(ANCHOR + [(0, 50.0)], ANCHOR)
        with self.assertRaises(ValueError):
            ladder.bd_rate(ANCHOR + [(100, float("nan"))], ANCHOR)


class TestTable(unittest.TestCase):
    def test_table(self):
        rungs = [P(2500.25, 91.23456, row(2500.25, 91.23456, 1280, 720,
                                           "x265enc", "crf", 24.0)),
                 P(800, 75.5, row(800, 75.5, 640, 360, value=30)),
                 P(5000, 96.0, row(5000, 96.0, knob="qp", value=22.5)),
                 P(9000, 97.0)]
        self.assertEqual(ladder.ladder_table(rungs), [
            "rung  resolution  encoder  setting  kbps    vmaf",
            "1     640x360     x264enc  crf=30   800.0   75.500",
            "2     1280x720    x265enc  crf=24   2500.2  91.235",
            "3     1920x1080   x264enc  qp=22.5  5000.0  96.000",
            "4     -           -        -        9000.0  97.000"])
        self.assertEqual(ladder.ladder_table([], metric="psnr_y"),
                         ["rung  resolution  encoder  setting  kbps  psnr_y"])


MPL_MISSING = []


class TestPlot(unittest.TestCase):
    def test_plot(self):
        if not HAVE_MPL:
            MPL_MISSING.append(True)
            self.skipTest("matplotlib missing")
        rows = ([row(b, 100 - 3000 / b + (h - 720) / 100, w, h, value=c)
                 for w, h in ((640, 360), (1280, 720), (1920, 1080))
                 for b, c in ((300, 35), (700, 30), (1500, 26), (3000, 22),
                              (6000, 18))]
                + [row(500, None), row(900, 80.0, 1280, 720, "x265enc")])
        pts = ladder.points_from_rows(rows)
        hull = ladder.upper_convex_hull(pts)
        rungs = ladder.pick_rungs(hull, count=4)
        self.assertEqual(len(rungs), 4)
        with tempfile.TemporaryDirectory(prefix="vmafhip-ladder-") as d:
            png = os.path.join(d, "ladder.png")
            self.assertEqual(ladder.plot_ladder(rows, hull, rungs, png,
                                                title="made-up title"), png)
            with open(png, "rb") as f:
                data = f.read()
            self.assertTrue(data.startswith(b"\x89PNG\r\n\x1a\n"))
            self.assertGreater(len(data), 10000)
            svg = os.path.join(d, "ladder.svg")
            ladder.plot_ladder(rows, hull, rungs, svg)
            with open(svg, encoding="utf-8") as f:
                text = f.read()
            self.assertIn("<svg", text)
            self.assertGreater(len(text), 10000)
            # nothing to draw: still a figure
            empty = os.path.join(d, "empty.png")
            ladder.plot_ladder([], [], [], empty)
            self.assertGreater(os.path.getsize(empty), 1000)
        # no pyplot state made
        self.assertNotIn("matplotlib.pyplot", sys.modules)


def main():
    prog = unittest.main(argv=[sys.argv[0]] + sys.argv[1:], exit=False,
                         verbosity=2)
    result = prog.result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.skipped and not MPL_MISSING:
        sys.exit(1)  # no other skip is allowed
    if MPL_MISSING:
        verdict = "FAILED (strict-tests)" if STRICT else "SKIPPED"
        print(f"test-tune-ladder: the plot {verdict}: matplotlib is missing "
              "(Debian: python3-matplotlib); the geometry passed",
              file=sys.stderr)
        sys.exit(1 if STRICT else 77)
    print(f"test-tune-ladder: {result.testsRun} tests passed")


if __name__ == "__main__":
    main()
