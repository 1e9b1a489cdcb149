"""vmafhip-tune's geometry: the per-title bitrate ladder and codec comparison.

Pure functions on (bitrate, score) points; nothing here runs GStreamer.
numpy is needed by the BD functions' "cubic" method only, matplotlib by
plot_ladder only (each imported there; Agg canvas, no display). PCHIP is
computed here (the slopes SciPy's PchipInterpolator takes, the pieces
integrated in closed form), so SciPy is not a dependency.

* points_from_rows: corpus rows (tune-spec/corpus-format.md) -> Points.
* pareto_front: the points no other point beats on both axes.
* upper_convex_hull: the per-title convex hull, its rising part.
* pick_rungs: the ladder's rungs on the hull, by count or by spacing.
* interpolate_score / bitrate_for_score: the hull read between its points,
  linear in log bitrate.
* bd_rate / bd_score: Bjontegaard deltas (VCEG-M33 cubic or PCHIP).
* ladder_table / plot_ladder: the ladder as text and as a figure.

Conventions: a point's bitrate is in kbps, its score the metric's pooled
mean ("vmaf" unless told); "log rate" is log2 of the bitrate for the hull
and the interpolation, log10 for the BD functions (the customary bases; a
base changes no result but BD's intermediate numbers).
"""
import math
from collections import namedtuple
from fractions import Fraction

__all__ = ["Point", "points_from_rows", "pareto_front", "upper_convex_hull",
           "pick_rungs", "interpolate_score", "bitrate_for_score",
           "bd_rate", "bd_score", "ladder_table", "plot_ladder"]

Point = namedtuple("Point", ["bitrate_kbps", "score", "row"], defaults=(None,))
Point.__doc__ = """One encode on the rate-quality plane.

bitrate_kbps: number (kbps); score: number (the metric's pooled score);
row: the corpus row (dict) it came from, or None. Indexing gives p[0] the
bitrate and p[1] the score, so plain (kbps, score) pairs work wherever a
function below takes points."""


def _finite(v):
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and math.isfinite(v))


def points_from_rows(rows, metric="vmaf"):
    """Corpus rows -> [Point(bitrate_kbps, score, row)], in the rows' order.

    A row gives a point when row["scores"][metric] and row["bitrate_kbps"]
    are finite numbers and the bitrate is > 0 (a log-rate axis has no place
    for 0); any other row (metric not scored, a failed cell, a malformed
    row) is skipped, not an error. Per-shot rows are not told apart: pass
    the rows of one title (and one encoder, for a one-codec ladder)."""
    out = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        scores = row.get("scores")
        if not isinstance(scores, dict):
            continue
        score, kbps = scores.get(metric), row.get("bitrate_kbps")
        if _finite(score) and _finite(kbps) and kbps > 0:
            out.append(Point(kbps, score, row))
    return out


def _as_point(p):
    if isinstance(p, Point):
        return p
    return Point(p[0], p[1], p[2] if len(p) > 2 else None)


def _checked(points, positive=False):
    pts = [_as_point(p) for p in points]
    for p in pts:
        if not (_finite(p[0]) and _finite(p[1])):
            raise ValueError(f"point {tuple(p[:2])!r}: bitrate and score "
                             "must be finite numbers")
        if positive and p[0] <= 0:
            raise ValueError(f"point {tuple(p[:2])!r}: a log-rate axis "
                             "needs a bitrate > 0")
    return pts


def _best_per_bitrate(pts):
    """One point per bitrate: the highest score, the first in input order
    among equals; sorted by bitrate."""
    order = sorted(range(len(pts)), key=lambda i: (pts[i][0], -pts[i][1], i))
    out = []
    for i in order:
        if not out or pts[i][0] != out[-1][0]:
            out.append(pts[i])
    return out


def pareto_front(points):
    """The points no other point dominates, sorted by bitrate (ascending).

    q dominates p when q.bitrate <= p.bitrate and q.score >= p.score, one
    of the two strictly. Exact duplicates (equal bitrate and equal score)
    dominate neither; the front keeps the first of them in input order
    only. Comparisons are exact (no tolerance). Along the result both
    bitrate and score strictly increase. Points are Points or (kbps, score)
    pairs; the result holds Points (pairs wrapped with row None)."""
    front = []
    for p in _best_per_bitrate(_checked(points)):
        if not front or p[1] > front[-1][1]:
            front.append(p)
    return front


def _cross(o, a, b):
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def upper_convex_hull(points, log_rate=False, keep_collinear=False):
    """The per-title convex hull: the rising part of the upper hull.

    The upper convex hull of the points in the (bitrate, score) plane,
    linear bitrate by default (the common per-title practice: the hull is
    concave in kbps, so between two of its points a time-share of the two
    encodes is never beaten); log_rate=True takes it in (log2 bitrate,
    score) instead, where a hull is concave on the usual log-rate plot
    (a subset of the linear hull's vertices: concave in log rate and rising
    implies concave in rate).

    It starts at the lowest bitrate (the best score there) and keeps the
    vertices while the score rises: it stops at the first vertex with the
    highest score, so along the result bitrate and score both strictly
    increase and the slopes (in the chosen plane) strictly decrease. A
    point below the hull, one at an equal bitrate but a lower score, and
    any point beyond the top score are not on it.

    Exact geometry: the turn at each vertex is the sign of a cross product
    computed in Fractions of the given numbers (ints, or floats as the
    binary values they hold), so no rounding decides it; with log_rate the
    coordinates are the floats math.log2 returns (exact for powers of two).
    Collinear interior points (on a hull edge, not a corner) are dropped
    unless keep_collinear=True. Duplicates (equal bitrate and score) are
    one point: the first in input order. Points are Points or
    (kbps, score) pairs; the result holds Points, sorted by bitrate.
    Non-finite values, and bitrates <= 0 with log_rate, are a ValueError."""
    pts = _best_per_bitrate(_checked(points, positive=log_rate))
    hull = []  # (x, y, point)
    for p in pts:
        x = Fraction(math.log2(p[0])) if log_rate else Fraction(p[0])
        q = (x, Fraction(p[1]), p)
        while len(hull) >= 2:
            c = _cross(hull[-2], hull[-1], q)
            if c > 0 or (c == 0 and not keep_collinear):
                hull.pop()
            else:
                break
        hull.append(q)
    out = []
    for _, _, p in hull:
        if out and p[1] <= out[-1][1]:
            break
        out.append(p)
    return out


def pick_rungs(hull, count=None, spacing=None, min_kbps=None, max_kbps=None,
               anchor="top"):
    """The ladder's rungs: points of hull, sorted by bitrate.

    hull: the points to pick from (upper_convex_hull's result; any points
    work, taken sorted by bitrate). min_kbps / max_kbps (inclusive) first
    narrow them to that bitrate range. Exactly one of count and spacing:

    count N (>= 1): N targets spread evenly in log bitrate from the lowest
    to the highest bitrate left (N == 1: the highest alone), and for each,
    from the lowest target up, the point nearest in log bitrate among those
    above the previous rung that leave enough points for the targets still
    to come (so no point twice, and the two ends are always rungs); a tie
    between two points goes to the lower bitrate. With N or fewer points
    left, all of them.

    spacing r (> 1): greedy from anchor="top" (the default): the highest
    bitrate is a rung, then each next rung the highest bitrate <= the one
    above / r (each rung at least r times the one below it), until none is
    left; anchor="bottom" starts at the lowest and takes each next rung the
    lowest bitrate >= the one below * r. The comparisons are inclusive,
    made as rung * r against the other bitrate.

    Returns the points chosen (the same objects), ascending in bitrate."""
    if (count is None) == (spacing is None):
        raise ValueError("pick_rungs: give exactly one of count and spacing")
    pts = sorted((_as_point(p) for p in hull), key=lambda p: p[0])
    if min_kbps is not None:
        pts = [p for p in pts if p[0] >= min_kbps]
    if max_kbps is not None:
        pts = [p for p in pts if p[0] <= max_kbps]
    if count is not None:
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"pick_rungs: count {count!r}: an integer >= 1")
        if len(pts) <= count:
            return pts
        if count == 1:
            return [pts[-1]]
        for p in pts:
            if p[0] <= 0:
                raise ValueError("pick_rungs: bitrates must be > 0")
        logs = [math.log2(p[0]) for p in pts]
        lo, hi = logs[0], logs[-1]
        chosen, prev = [], -1
        for i in range(count):
            target = lo + (hi - lo) * i / (count - 1)
            last = len(pts) - count + i
            best = min(range(prev + 1, last + 1),
                       key=lambda j: (abs(logs[j] - target), j))
            chosen.append(pts[best])
            prev = best
        return chosen
    if not _finite(spacing) or spacing <= 1:
        raise ValueError(f"pick_rungs: spacing {spacing!r}: a number > 1")
    if anchor not in ("top", "bottom"):
        raise ValueError(f"pick_rungs: anchor {anchor!r}: 'top' or 'bottom'")
    if not pts:
        return []
    if anchor == "top":
        chosen = [pts[-1]]
        for p in reversed(pts[:-1]):
            if p[0] * spacing <= chosen[-1][0]:
                chosen.append(p)
        return chosen[::-1]
    chosen = [pts[0]]
    for p in pts[1:]:
        if p[0] >= chosen[-1][0] * spacing:
            chosen.append(p)
    return chosen


def _sorted_curve(hull):
    pts = sorted((_as_point(p) for p in hull), key=lambda p: p[0])
    for p in pts:
        if not (_finite(p[0]) and _finite(p[1])) or p[0] <= 0:
            raise ValueError(f"point {tuple(p[:2])!r}: finite, bitrate > 0")
    return pts


def interpolate_score(hull, kbps):
    """The score the hull gives at kbps, or None outside its bitrates.

    Piecewise linear in log bitrate between the hull's points (sorted by
    bitrate): between (r0, s0) and (r1, s1),
    s = s0 + (s1 - s0) * log(kbps / r0) / log(r1 / r0). At a point's own
    bitrate, that point's score exactly. kbps below the lowest or above the
    highest bitrate: None (no extrapolation)."""
    pts = _sorted_curve(hull)
    if not pts or not _finite(kbps) or kbps < pts[0][0] or kbps > pts[-1][0]:
        return None
    for p in pts:
        if p[0] == kbps:
            return p[1]
    for a, b in zip(pts, pts[1:]):
        if a[0] < kbps < b[0]:
            t = math.log(kbps / a[0]) / math.log(b[0] / a[0])
            return a[1] + (b[1] - a[1]) * t
    return None


def bitrate_for_score(points_or_hull, target, log_rate=False):
    """The lowest bitrate at which the hull reaches score target, or None.

    The points are first reduced to upper_convex_hull(points, log_rate)
    (a hull computed with the same log_rate comes back unchanged, so a hull
    or raw points both work), whose scores rise strictly with bitrate; then
    the inverse of interpolate_score: on the edge (r0, s0)-(r1, s1) with
    s0 <= target <= s1, kbps = r0 * (r1 / r0) ** ((target - s0) / (s1 - s0))
    (linear in log bitrate; at a point's score, that point's bitrate
    exactly; half way in score, sqrt(r0 * r1)). A target below the hull's
    lowest score or above its highest: None."""
    pts = upper_convex_hull(points_or_hull, log_rate=log_rate)
    if not _finite(target) or not pts:
        return None
    pts = _sorted_curve(pts)
    if target < pts[0][1] or target > pts[-1][1]:
        return None
    for p in pts:
        if p[1] == target:
            return p[0]
    for a, b in zip(pts, pts[1:]):
        if a[1] < target < b[1]:
            t = (target - a[1]) / (b[1] - a[1])
            return a[0] * (b[0] / a[0]) ** t
    return None


# --- Bjontegaard deltas -----------------------------------------------------

def _pchip_slopes(x, y):
    """Fritsch-Carlson / Fritsch-Butland derivatives, as SciPy's
    PchipInterpolator takes them: interior, 0 where the secants change
    sign (or one is 0), else their weighted harmonic mean; ends, the
    three-point formula kept shape-preserving; two points: the secant."""
    n = len(x)
    h = [x[k + 1] - x[k] for k in range(n - 1)]
    m = [(y[k + 1] - y[k]) / h[k] for k in range(n - 1)]
    if n == 2:
        return [m[0], m[0]]
    d = [0.0] * n
    for k in range(1, n - 1):
        if m[k - 1] * m[k] > 0:
            w1, w2 = 2 * h[k] + h[k - 1], h[k] + 2 * h[k - 1]
            d[k] = (w1 + w2) / (w1 / m[k - 1] + w2 / m[k])

    def edge(h0, h1, m0, m1):
        e = ((2 * h0 + h1) * m0 - h0 * m1) / (h0 + h1)
        sign = lambda v: (v > 0) - (v < 0)
        if sign(e) != sign(m0):
            return 0.0
        if sign(m0) != sign(m1) and abs(e) > 3 * abs(m0):
            return 3 * m0
        return e

    d[0] = edge(h[0], h[1], m[0], m[1])
    d[-1] = edge(h[-1], h[-2], m[-1], m[-2])
    return d


def _hermite_integral(x0, x1, y0, y1, d0, d1, t):
    """The integral of the cubic Hermite piece on [x0, x1] from x0 to
    x0 + t * (x1 - x0)."""
    h = x1 - x0
    t2, t3, t4 = t * t, t * t * t, t * t * t * t
    return h * (y0 * (t - t3 + t4 / 2)
                + h * d0 * (t2 / 2 - 2 * t3 / 3 + t4 / 4)
                + y1 * (t3 - t4 / 2) + h * d1 * (t4 / 4 - t3 / 3))


def _pchip_integral(x, y, lo, hi):
    """The integral over [lo, hi] (inside [x[0], x[-1]]) of the PCHIP
    interpolant of (x, y), x strictly increasing."""
    d = _pchip_slopes(x, y)

    def upto(v):  # integral from x[0] to v
        total = 0.0
        for k in range(len(x) - 1):
            if v >= x[k + 1]:
                total += _hermite_integral(x[k], x[k + 1], y[k], y[k + 1],
                                           d[k], d[k + 1], 1.0)
            else:
                if v > x[k]:
                    t = (v - x[k]) / (x[k + 1] - x[k])
                    total += _hermite_integral(x[k], x[k + 1], y[k],
                                               y[k + 1], d[k], d[k + 1], t)
                break
        return total
    return upto(hi) - upto(lo)


def _bd_curve(points, by_score):
    """(x, y) of one curve for a BD function: by_score, x the score and y
    log10 bitrate, equal scores keeping the lowest bitrate; else x log10
    bitrate and y the score, equal bitrates keeping the highest score."""
    pts = _checked(points, positive=True)
    if by_score:
        pairs = sorted((p[1], math.log10(p[0])) for p in pts)
    else:
        pairs = sorted((math.log10(p[0]), -p[1]) for p in pts)
        pairs = [(a, -b) for a, b in pairs]
    x, y = [], []
    for a, b in pairs:
        if not x or a != x[-1]:
            x.append(a)
            y.append(b)
    return x, y


def _bd_average_difference(anchor, test, method, by_score):
    if method not in ("cubic", "pchip"):
        raise ValueError(f"method {method!r}: 'cubic' or 'pchip'")
    need = 4 if method == "cubic" else 2
    curves = []
    for name, pts in (("anchor", anchor), ("test", test)):
        x, y = _bd_curve(pts, by_score)
        if len(x) < need:
            axis = "score" if by_score else "bitrate"
            raise ValueError(f"{name}: {len(x)} point(s) of distinct {axis}; "
                             f"method {method!r} needs at least {need}")
        curves.append((x, y))
    (xa, ya), (xt, yt) = curves
    lo, hi = max(xa[0], xt[0]), min(xa[-1], xt[-1])
    if not hi > lo:
        axis = "scores" if by_score else "bitrates"
        raise ValueError(f"anchor {axis} [{xa[0]:g}, {xa[-1]:g}] and test "
                         f"{axis} [{xt[0]:g}, {xt[-1]:g}] do not overlap")
    if method == "pchip":
        ia = _pchip_integral(xa, ya, lo, hi)
        it = _pchip_integral(xt, yt, lo, hi)
    else:
        import numpy as np
        # the fit in a centred, scaled variable u = (x - c) / s is the same
        # cubic (a least-squares cubic commutes with affine maps of x), only
        # better conditioned than powers of raw VMAF or log-rate values
        c, s = (lo + hi) / 2, (hi - lo) / 2
        ints = []
        for x, y in ((xa, ya), (xt, yt)):
            u = (np.asarray(x, dtype=float) - c) / s
            poly = np.polyint(np.polyfit(u, np.asarray(y, dtype=float), 3))
            ints.append((np.polyval(poly, 1.0) - np.polyval(poly, -1.0)) * s)
        ia, it = float(ints[0]), float(ints[1])
    return (it - ia) / (hi - lo)


def bd_rate(anchor, test, method="pchip"):
    """Bjontegaard delta rate of test against anchor, in percent.

    anchor, test: the two curves' points (Points or (kbps, score) pairs,
    bitrates > 0), e.g. the four or more encodes of one encoder at one
    resolution, or a hull. Each curve is log10 bitrate as a function of
    score, its points sorted by score, equal scores keeping the lowest
    bitrate; both are integrated over the overlap of their score ranges,
    and the result is (10 ** (mean(log10 test rate - log10 anchor rate))
    - 1) * 100: negative when test needs less bitrate for the same
    quality (-20 = 20 % saved), positive when it needs more.

    method "pchip" (the default; JVET / AOM common practice): each curve
    the piecewise cubic Hermite interpolant through its points (the
    slopes SciPy's PchipInterpolator takes), integrated exactly; needs 2
    or more points of distinct score per curve. method "cubic" (VCEG-M33,
    the classic): each curve the least-squares cubic polynomial through
    its points (numpy.polyfit, degree 3), integrated; needs 4 or more.

    ValueError: too few points, an unknown method, non-finite values or a
    bitrate <= 0, or score ranges that do not overlap (an overlap of one
    value included)."""
    return (10 ** _bd_average_difference(anchor, test, method, True) - 1) * 100


def bd_score(anchor, test, method="pchip"):
    """Bjontegaard delta quality (BD-VMAF for the vmaf score) of test
    against anchor: the mean of test score - anchor score over the overlap
    of their log10 bitrate ranges, each curve the score as a function of
    log10 bitrate (sorted by bitrate, equal bitrates keeping the highest
    score), fit and integrated as in bd_rate (same methods, same point
    counts, same errors). Positive when test scores higher at the same
    bitrate."""
    return _bd_average_difference(anchor, test, method, False)


# --- output -----------------------------------------------------------------

def _fmt_value(v):
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return f"{v:g}" if isinstance(v, float) else str(v)


def ladder_table(rungs, metric="vmaf"):
    """The ladder as a text table: a list of lines (no newlines), a header
    line then one line per rung, lowest bitrate first, columns
    rung (1-based), resolution (WxH), encoder, setting (knob=value), kbps
    (1 decimal) and the metric (3 decimals), left-aligned to the widest
    cell. A field the rung's row lacks (or a rung without a row) shows
    "-"."""
    header = ["rung", "resolution", "encoder", "setting", "kbps", metric]
    lines = [header]
    for i, p in enumerate(sorted((_as_point(r) for r in rungs),
                                 key=lambda p: p[0]), 1):
        row = p.row if isinstance(p.row, dict) else {}
        w, h = row.get("width"), row.get("height")
        res = f"{w}x{h}" if w is not None and h is not None else "-"
        knob, value = row.get("knob"), row.get("value")
        setting = (f"{knob}={_fmt_value(value)}"
                   if knob is not None and value is not None else "-")
        lines.append([str(i), res, str(row.get("encoder", "-")), setting,
                      f"{p[0]:.1f}", f"{p[1]:.3f}"])
    widths = [max(len(r[c]) for r in lines) for c in range(len(header))]
    return ["  ".join(cell.ljust(wd) for cell, wd in zip(r, widths)).rstrip()
            for r in lines]


def plot_ladder(rows, hull, rungs, path, title=None, metric="vmaf"):
    """Draw the ladder and save it to path (format from the extension:
    .png, .svg, .pdf ... as matplotlib's savefig takes them).

    Every cell of rows (those points_from_rows keeps) as a dot, one colour
    per resolution (legend "WxH", smallest first) and one marker per
    encoder where there are several; the hull as a line through its
    points; the rungs as large open circles numbered from 1 (lowest
    bitrate). x: bitrate in kbps on a log scale; y: the metric. Uses a
    bare matplotlib Figure on the Agg canvas: no pyplot, no display, no
    global state touched. Returns path."""
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = Figure(figsize=(8, 5.5), dpi=100)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(1, 1, 1)
    pts = points_from_rows(rows, metric)
    groups = {}
    for p in pts:
        key = (p.row.get("width"), p.row.get("height"))
        groups.setdefault(key, []).append(p)
    encoders = sorted({str(p.row.get("encoder", "")) for p in pts})
    markers = "os^Dv<>phx*"
    try:
        from matplotlib import colormaps
        colours = colormaps["viridis"]
    except ImportError:  # matplotlib < 3.5
        from matplotlib import cm
        colours = cm.get_cmap("viridis")
    keys = sorted(groups, key=lambda k: ((k[0] or 0) * (k[1] or 0), str(k)))
    for n, key in enumerate(keys):
        colour = colours(n / max(1, len(keys) - 1) * 0.9)
        label = f"{key[0]}x{key[1]}"
        for e, enc in enumerate(encoders):
            sel = [p for p in groups[key]
                   if str(p.row.get("encoder", "")) == enc]
            if not sel:
                continue
            lab = label if len(encoders) == 1 else f"{label} {enc}"
            ax.scatter([p[0] for p in sel], [p[1] for p in sel], s=22,
                       color=colour, marker=markers[e % len(markers)],
                       alpha=0.8, label=lab, zorder=2)
    h = sorted((_as_point(p) for p in hull), key=lambda p: p[0])
    if h:
        ax.plot([p[0] for p in h], [p[1] for p in h], color="crimson",
                linewidth=1.5, label="convex hull", zorder=3)
    r = sorted((_as_point(p) for p in rungs), key=lambda p: p[0])
    if r:
        ax.scatter([p[0] for p in r], [p[1] for p in r], s=140,
                   facecolors="none", edgecolors="black", linewidths=1.5,
                   label="rungs", zorder=4)
        for i, p in enumerate(r, 1):
            ax.annotate(str(i), (p[0], p[1]), textcoords="offset points",
                        xytext=(6, -12), fontsize=8)
    if pts or h or r:
        ax.set_xscale("log")
    ax.set_xlabel("bitrate (kbps)")
    ax.set_ylabel(metric)
    ax.grid(True, which="both", alpha=0.3)
    if title:
        ax.set_title(title)
    if pts or h or r:
        ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(path)
    return path
