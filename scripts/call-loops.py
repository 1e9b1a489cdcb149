#!/usr/bin/env python3
"""Which source files of the engine, the GPU layers and the element call
each other in a loop, and whether the element keeps to its faces.

A file calls another when its object file uses a symbol the other's object
defines (nm: undefined there, defined here).  Files that reach each other
through such calls form a loop (a strongly connected component of the call
graph); a layered tree has none.  Reads the objects of a build folder
(compile_commands.json names them), so build first.

    scripts/call-loops.py [BUILD_DIR [SOURCE_DIR]] [--fail] [--fail-faces]

Prints each loop's files, or "no call loops"; --fail exits 1 where there
is one.  Include loops too: the files of common/ and gst/vmafhip/ whose
`#include "..."` lines reach each other (each name resolved to the one
file of that name in the tree); --fail exits 1 where there is one.  The element (gst/vmafhip/) calls the engine through its faces
only: a call from it into the GPU layers (common/gpu/) other than the
backend choice (backend-choice.c, vh-backend.h) is printed as "face:";
--fail-faces exits 1 where there is one (the `layers` test).
"""
import json
import os
import subprocess
import sys

# the layers whose files should call one way (tools and tests excluded)
ROOTS = ("common/", "gst/vmafhip/")
# the element, and the GPU layers it reaches through the backend face only
ELEMENT = "gst/vmafhip/"
GPU_LAYERS = "common/gpu/"
GPU_FACE = ("backend-choice.c",)


def symbols(obj):
    """(defined, undefined) global symbols of one object file"""
    out = subprocess.run(["nm", "-P", "-g", obj], capture_output=True,
                         text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRVWtdbr" and kind.isupper():
            defined.add(name)
    return defined, undefined


def sources_and_objects(build, source):
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    src_root = os.path.realpath(source)
    pairs = {}
    for c in commands:
        src = os.path.relpath(os.path.realpath(os.path.join(c["directory"],
                                                            c["file"])),
                              src_root)
        if not src.startswith(ROOTS) or not src.endswith(".c"):
            continue
        obj = os.path.join(c["directory"], c["output"])
        # one object per source (a source built into two targets: either)
        if os.path.exists(obj):
            pairs.setdefault(src, obj)
    return pairs


def strongly_connected(graph):
    """Tarjan's algorithm, iterative; components of more than one node"""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return result


def include_graph(source):
    """file -> the project files it includes (#include "name"), over the
    sources and headers of ROOTS and the kernels' shared headers"""
    src_root = os.path.realpath(source)
    files, by_name = [], {}
    for top in ROOTS + ("kernels/",):
        for folder, _, names in os.walk(os.path.join(src_root, top)):
            for name in names:
                if name.endswith((".c", ".h")):
                    rel = os.path.relpath(os.path.join(folder, name), src_root)
                    files.append(rel)
                    by_name.setdefault(name, []).append(rel)
    graph = {}
    for rel in files:
        if not rel.startswith(ROOTS):
            continue
        targets = set()
        with open(os.path.join(src_root, rel), errors="replace") as f:
            for line in f:
                line = line.strip()
                if not line.startswith("#") or "include" not in line:
                    continue
                parts = line.replace("#", "", 1).split()
                if len(parts) < 2 or parts[0] != "include" \
                        or not parts[1].startswith('"'):
                    continue
                name = os.path.basename(parts[1].strip('"'))
                # a name in one folder only (bare includes are found on
                # the include path); a relative one resolved from here
                found = by_name.get(name, [])
                if len(found) > 1:
                    here = os.path.normpath(os.path.join(
                        os.path.dirname(rel), parts[1].strip('"')))
                    found = [c for c in found if c == here] or found[:1]
                for target in found:
                    if target != rel and target.startswith(ROOTS):
                        targets.add(target)
        graph[rel] = targets
    for targets in list(graph.values()):
        for t in targets:
            graph.setdefault(t, set())
    return graph


def self_test():
    """The include-loop finder on a made-up tree: two headers that include
    each other are a loop, a third that includes one of them is not in it"""
    import tempfile
    with tempfile.TemporaryDirectory() as root:
        for rel, text in (("common/a/a.h", '#include "b.h"\n'),
                          ("common/b/b.h", '#include "a.h"\n#include <glib.h>\n'),
                          ("gst/vmafhip/c.c", '#include "a.h"\n'),
                          ("kernels/k.h", '#include "a.h"\n')):
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        found = strongly_connected(include_graph(root))
    expected = [["common/a/a.h", "common/b/b.h"]]
    print("self-test: include loops found %s, expected %s" % (found, expected))
    return 0 if found == expected else 1


def main(argv):
    if "--self-test" in argv:
        return self_test()
    args = [a for a in argv[1:] if not a.startswith("--")]
    build = args[0] if args else "build"
    # (the source tree: given, else the folder above the build's)
    source = args[1] if len(args) > 1 else os.path.join(build, "..")
    pairs = sources_and_objects(build, source)
    if not pairs:
        sys.exit("call-loops: no objects under %s (build first)" % build)
    defined_by, uses = {}, {}
    for src, obj in pairs.items():
        defined, undefined = symbols(obj)
        uses[src] = undefined
        for name in defined:
            defined_by.setdefault(name, src)
    graph = {src: set() for src in pairs}
    for src, names in uses.items():
        for name in names:
            callee = defined_by.get(name)
            if callee and callee != src:
                graph[src].add(callee)
    loops = strongly_connected(graph)
    for loop in sorted(loops):
        print("call loop: " + " <-> ".join(loop))
    if not loops:
        print("no call loops among %d files of %s" % (len(pairs),
                                                        ", ".join(ROOTS)))
    includes = include_graph(source)
    include_loops = strongly_connected(includes)
    for loop in sorted(include_loops):
        print("include loop: " + " <-> ".join(loop))
    if not include_loops:
        print("no include loops among %d files of %s" % (len(includes),
                                                           ", ".join(ROOTS)))
    loops = loops + include_loops
    faces = []
    for src, names in sorted(uses.items()):
        if not src.startswith(ELEMENT):
            continue
        for name in sorted(names):
            callee = defined_by.get(name)
            if (callee and callee.startswith(GPU_LAYERS)
                    and os.path.basename(callee) not in GPU_FACE):
                faces.append("face: %s calls %s (%s)" % (src, name, callee))
    for line in faces:
        print(line)
    if not faces:
        print("the element calls the GPU layers through vh-backend.h only")
    if faces and "--fail-faces" in argv:
        return 1
    return 1 if loops and "--fail" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
