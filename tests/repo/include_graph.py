#!/usr/bin/env python3
"""The include graph of the C sources under ROOT (default: the repository).

A unit is a source file with its header (x.c and x.h are one unit x; a
header alone or a program alone is a unit too). An edge goes from a unit to
every unit it names in an `#include "..."` line (paths from ROOT, as the
Makefile's -I. reads them, or from the including file's folder). Fails
(status 1) on:
  - a circle: units that reach each other through includes (printed as a
    path A -> B -> A), unless listed in KNOWN_CIRCLES;
  - `#include "bench_nbc/...` outside bench_nbc/, its tests (tests/, fuzz/),
    unless listed in KNOWN_EXCEPTIONS below with the reason;
  - the analysis's rooms (ANALYSIS_ROOMS, in the order data flows): a file
    of a room that includes a room after it (up), another room's private
    header (any header of analysis/ROOM/ but ROOM.h), or the facade
    analysis/analysis.h; a file outside analysis/ that includes a room's
    private header; a C file under analysis/ outside every room.
The known exceptions and circles are printed at the end, and so is any that no longer
occurs (then remove it)."""
import os
import re
import sys

SKIP_DIRS = {".git", "build", ".ci"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# Files that include bench_nbc/ headers though they are not bench_nbc's,
# each with why it may for now.
KNOWN_EXCEPTIONS = {}
BENCH_NBC_USERS = ("bench_nbc/", "tests/", "fuzz/")
# The rooms of analysis/, in the order data flows: a room includes only
# the public headers (analysis/ROOM/ROOM.h) of the rooms before it.
# analysis/analysis.h, the facade, includes them for the other modules.
ANALYSIS_ROOMS = ("inputs", "stats", "metrics", "impact", "verdict", "tables", "figures",
                  "analyze", "compare", "trace", "tools")
ANALYSIS_FACADE = "analysis/analysis.h"
# Circles known and not yet resolved: the units' names without their
# folder (a move keeps the exception), with the reason.
KNOWN_CIRCLES = {}


def sources(root):
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield os.path.relpath(os.path.join(folder, name), root)


def unit(path):
    return os.path.splitext(path)[0]


def analysis_room(path):
    """The room of a path under analysis/ (None outside analysis/, "" for a
    file directly in analysis/)."""
    parts = path.split("/")
    if parts[0] != "analysis":
        return None
    return parts[1] if len(parts) > 2 else ""


def room_problem(path, target):
    """What is wrong with path including target, by the rooms' rules."""
    room, to = analysis_room(path), analysis_room(target)
    if to is None or path == ANALYSIS_FACADE:
        return None
    if room is None:
        if to and target != f"analysis/{to}/{to}.h":
            return f"includes {target}, a private header of the room {to}"
        return None
    if room not in ANALYSIS_ROOMS:
        return None  # reported once per file by rooms_misplaced
    if target == ANALYSIS_FACADE:
        return f"includes {target}, the facade, from the room {room} (include the rooms' headers)"
    if to == room:
        return None
    if to not in ANALYSIS_ROOMS:
        return f"includes {target}, outside every room"
    if target != f"analysis/{to}/{to}.h":
        return f"includes {target}, a private header of the room {to}"
    if ANALYSIS_ROOMS.index(to) > ANALYSIS_ROOMS.index(room):
        return f"includes {target}: the room {room} goes up to {to} (rooms: {' -> '.join(ANALYSIS_ROOMS)})"
    return None


def rooms_misplaced(files):
    for path in sorted(files):
        room = analysis_room(path)
        if room is not None and path != ANALYSIS_FACADE and room not in ANALYSIS_ROOMS:
            yield (f"{path}: not in a room of ANALYSIS_ROOMS (add its folder to the table, "
                   "in the order data flows)")


def graph(root):
    files = set(sources(root))
    edges, problems, used_exceptions = {}, list(rooms_misplaced(files)), set()
    for path in sorted(files):
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1)
                local = os.path.normpath(os.path.join(os.path.dirname(path), name))
                target = name if name in files else local if local in files else None
                if name.startswith("bench_nbc/") and not path.startswith(BENCH_NBC_USERS):
                    if path in KNOWN_EXCEPTIONS:
                        used_exceptions.add(path)
                    else:
                        problems.append(f"{path}:{number}: includes {name} (bench_nbc/ is "
                                        "included only by bench_nbc/, tests/ and fuzz/)")
                why = room_problem(path, target) if target else None
                if why:
                    problems.append(f"{path}:{number}: {why}")
                if target and unit(target) != unit(path):
                    edges.setdefault(unit(path), set()).add(unit(target))
    return edges, problems, used_exceptions


def circles(edges):
    """One circle per strongly connected component of more than one unit
    (Tarjan), shown as a path through it."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                names = tuple(sorted(os.path.basename(u) for u in component))
                found.append((names, path_through(sorted(component), edges)))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def path_through(component, edges):
    """A -> ... -> A inside the component, from its first unit."""
    members, start = set(component), component[0]
    previous, frontier = {start: None}, [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(edges.get(v, ())):
                if w == start:
                    path = [w, v]
                    while previous[v] is not None:
                        v = previous[v]
                        path.append(v)
                    return " -> ".join(reversed(path))
                if w in members and w not in previous:
                    previous[w] = v
                    nxt.append(w)
        frontier = nxt
    return " <-> ".join(component)


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "."
    edges, problems, used = graph(root)
    used_circles = set()
    for names, path in circles(edges):
        if names in KNOWN_CIRCLES:
            used_circles.add(names)
        else:
            problems.append(f"include circle: {path}")
    for p in problems:
        print(p)
    print(f"{len(edges)} units with includes checked")
    print("analysis rooms, in the order data flows (each includes only those above it):")
    for room in ANALYSIS_ROOMS:
        header = os.path.join(root, "analysis", room, room + ".h")
        if os.path.exists(header):
            with open(header, "rb") as f:
                lines = sum(1 for _ in f)
            print(f"  analysis/{room}/{room}.h ({lines} lines)")
        else:
            print(f"  analysis/{room}/{room}.h (missing)")
    print("known exceptions (bench_nbc/ included from outside):"
          + ("" if KNOWN_EXCEPTIONS else " none"))
    for path, why in sorted(KNOWN_EXCEPTIONS.items()):
        print(f"  {path}: {why}" + ("" if path in used else " (no longer occurs: remove it)"))
    print("known circles:" + ("" if KNOWN_CIRCLES else " none"))
    for names, why in sorted(KNOWN_CIRCLES.items()):
        print(f"  {' <-> '.join(names)}: {why}"
              + ("" if names in used_circles else " (no longer occurs: remove it)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
