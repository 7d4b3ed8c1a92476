#!/usr/bin/env python3
"""Names that would clash when a layer's sources are compiled in one batch.

scripts/setup.sh builds the libraries in unity batches (LOCKSMITH_UNITY_BUILD):
CMake pastes a layer's sources, several at a time, into one translation unit.
Two sources that each define the same name with internal linkage (in an
anonymous namespace, or `static` at file scope) then define it twice, which is
an error, but only when the two land in the same batch, and which sources do
changes whenever a file is added to the layer. So the check is on the whole
layer: no two production sources of one layer may define, with internal
linkage (an anonymous namespace, `static`, or a namespace-scope const),
  - the same constant or variable,
  - the same type (struct, class, enum), or
  - the same function with the same parameter list.
Overloads (other parameters) and type aliases to the same type are allowed:
the batch compiles them. A name file-local to one source is best named for
what it is there (kRedisProbeTimeout, JunitSeconds), or shared from base/.

Usage: check-unity-names.py --root DIR. Exit 0 clean, 1 with one line per
clash (the name and the files), 254 bad usage.
"""

import argparse
import collections
import os
import re
import sys

LAYERS = ["base", "cluster", "history", "checker", "reports", "backends", "workloads", "nemesis", "harness"]

FUNCTION = re.compile(
    r"^(?:static\s+|inline\s+)*(?:constexpr\s+)?(?:const\s+)?"
    r"[A-Za-z_][\w:<>,\s\*&]*?[\s\*&]([A-Za-z_]\w*)\s*(\([^{;]*)")
VARIABLE = re.compile(
    r"^(?:static\s+)?(?:inline\s+)?(?:constexpr|const)\s+[\w:<>,\s\*&]+?\s"
    r"\**([A-Za-z_]\w*)\s*(?:=|\{|\[)")
TYPE = re.compile(r"^(?:struct|class|enum(?:\s+class)?)\s+([A-Za-z_]\w*)\s*(?:[:{]|final)")
NOT_NAMES = {"operator", "if", "for", "while", "return", "switch", "sizeof"}


def is_production_source(name):
    return (name.endswith(".cc") and not name.endswith("_test.cc")
            and not name.endswith("_bench.cc"))


def internal_definitions(text):
    """(kind, key) of each definition with internal linkage in `text`.

    Only the project's layout is read: `namespace {` opens an anonymous
    namespace at the start of a line and a `}` at the start of a line
    that is commented as a namespace's end closes it; a definition starts
    at column 0 inside it, or with `static` at column 0 anywhere; a const
    or constexpr variable at column 0 has internal linkage anywhere.
    """
    anonymous = False
    found = []
    for line in text.splitlines():
        if line.startswith("namespace {"):
            anonymous = True
            continue
        if line.startswith("}") and "// namespace" in line and "locksmith" not in line:
            anonymous = False
            continue
        if line.startswith(("using ", "namespace ", "template", "#", "//", " ", "}")):
            continue
        # A const or constexpr variable at namespace scope has internal
        # linkage in any namespace (unless inline or extern).
        match = VARIABLE.match(line)
        if match and "(" not in line.split("=")[0] and not line.startswith(("inline", "extern")):
            found.append(("variable", match.group(1)))
            continue
        if not (anonymous or line.startswith("static ")):
            continue
        match = TYPE.match(line)
        if match:
            found.append(("type", match.group(1)))
            continue
        match = FUNCTION.match(line)
        if match and match.group(1) not in NOT_NAMES:
            params = re.sub(r"\s+", " ", match.group(2)).strip()
            # A parameter list that goes on to the next line is compared
            # by its first line, which names the first parameters' types.
            found.append(("function", match.group(1) + params))
    return found


def clashes(root):
    lines = []
    for layer in LAYERS:
        folder = os.path.join(root, layer)
        if not os.path.isdir(folder):
            continue
        where = collections.defaultdict(list)
        for name in sorted(os.listdir(folder)):
            if not is_production_source(name):
                continue
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for kind, key in set(internal_definitions(f.read())):
                    where[(kind, key)].append(name)
        for (kind, key), files in sorted(where.items()):
            if len(files) > 1:
                lines.append(f"{layer}/: {kind} {key} is defined in {', '.join(files)}: "
                             "in one unity batch they clash; give each a name of its own "
                             "or share one definition")
    return lines


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    try:
        args = parser.parse_args(argv)
    except SystemExit:
        return 254
    if not os.path.isdir(args.root):
        print(f"check-unity-names: {args.root} is not a directory", file=sys.stderr)
        return 254
    found = clashes(args.root)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
