#!/usr/bin/env python3
"""Checks that docs/design.md's folder map is true of the tree.

The map is every table row of docs/design.md whose first cell names folders
(`base/`, `tests/`, ...). For each row:
  - every backticked file or folder name in the row exists under the row's
    folder, or under a subfolder the row named before it (`testing/` then
    `exec_programs/`); `x.*` means the pair x.h and x.cc, any other `*` a
    glob with at least one match;
and for the tree:
  - every top-level folder holding tracked files (dot-folders aside) has a
    row, and every direct subfolder of a layer's folder (the layers of
    cmake/LocksmithLayers.cmake: testing/, fuzz/, testdata/, assets/ ...) and
    of adapters/ is named in its folder's row.
A backticked word counts as a file name when it looks like one: a path of
name characters ending in "/" or in an extension (".h", ".*", ".json" ...);
run files that are not in the tree (`history.bin`, `results.json` ...) are
listed in RUN_FILES.

One line per problem, naming the row and the missing name, e.g.
    docs/design.md:93: `backends/` row names `foo.*`, but backends/foo.h is missing
Exit status: 0 true, 1 problems, 254 bad usage.
Standard library only; run as `python3 scripts/check-design-map.py [--root DIR]`.
"""

import argparse
import fnmatch
import glob
import os
import re
import sys

MAP = os.path.join("docs", "design.md")
LAYERS_FILE = os.path.join("cmake", "LocksmithLayers.cmake")
MAP_HEADING = "## What's here"
LAYERS_HEADING = "## Layers"
# Folders whose every direct subfolder must be named, besides the layers'.
NAMED_SUBFOLDERS_OF = ("adapters",)
# Files a run writes (named in the map's prose), never files of the tree.
RUN_FILES = {"history.bin", "history.jsonl", "results.json", "config.json",
             "report.html", "junit.xml", "index.html", "controller.json"}
# Where the build writes (named as where a program ends up).
BUILD_OUTPUT = "build/"
# File endings the map's names carry.
EXTENSIONS = ("h", "cc", "c", "py", "sh", "cmake", "json", "yml", "yaml", "md",
              "txt", "css", "js", "mjs", "html", "go", "java", "xsd", "edn",
              "jsonl", "toml", "xml", "in", "mod", "sum", "gradle", "kts")
_NAME = r"[A-Za-z0-9_.+-]+"
_FILE_NAME = re.compile(
    rf"^(?:{_NAME}/)*(?:{_NAME}/|[A-Za-z0-9_+-]+(?:\*|[A-Za-z0-9_.+-]*\.(?:\*|{'|'.join(EXTENSIONS)})))$")
_BACKTICKED = re.compile(r"`([^`]+)`")


class Problem:
    def __init__(self, line, message):
        self.line = line
        self.message = message

    def __str__(self):
        return f"{MAP}:{self.line}: {self.message}"


def is_file_name(word):
    return bool(_FILE_NAME.match(word)) and word not in RUN_FILES and \
        not word.startswith(("-", "."))


def split_cells(line):
    """The cells of a Markdown table row, backticked "|" kept in place."""
    cells, cell, quoted = [], "", False
    for c in line.strip().strip("|"):
        if c == "`":
            quoted = not quoted
        if c == "|" and not quoted:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += c
    cells.append(cell.strip())
    return cells


def map_rows(text):
    """(line number, [folder], [names]) for each table row whose first cell
    is backticked folders only."""
    rows = []
    for number, line in enumerate(text.split("\n"), 1):
        if not line.startswith("|"):
            continue
        cells = split_cells(line)
        folders = _BACKTICKED.findall(cells[0])
        leftover = _BACKTICKED.sub("", cells[0]).replace(",", "").strip()
        if not folders or leftover or not all(f.endswith("/") for f in folders):
            continue
        names = [w for cell in cells[1:] for w in _BACKTICKED.findall(cell)
                 if is_file_name(w)]
        rows.append((number, [f.rstrip("/") for f in folders], names))
    return rows


def missing_paths(root, base, name):
    """The paths `name` stands for under `base` that are missing ([] when
    it exists)."""
    path = os.path.normpath(os.path.join(root, base, name.rstrip("/")))
    if name.endswith(".*"):
        stem = path[:-2]
        return [p for p in (stem + ".h", stem + ".cc") if not os.path.isfile(p)]
    if "*" in name:
        return [] if glob.glob(path) else [path]
    if name.endswith("/"):
        return [] if os.path.isdir(path) else [path]
    return [] if os.path.exists(path) else [path]


def check_row(root, number, folders, names):
    problems = []
    for folder in folders:
        if not os.path.isdir(os.path.join(root, folder)):
            problems.append(Problem(number, f"the row of `{folder}/` names a folder "
                                            f"that is missing"))
    if len(folders) != 1:
        return problems
    folder = folders[0]
    # A name with a "/" may also be a path from the top ("scripts/x.sh").
    bases = [folder, ""]
    for name in names:
        if name.startswith(BUILD_OUTPUT):
            continue
        best = None
        for base in bases:
            if base == "" and "/" not in name.rstrip("/"):
                continue
            missing = missing_paths(root, base, name)
            if not missing:
                best = []
                if name.endswith("/"):
                    bases.append(os.path.join(base, name.rstrip("/")))
                break
            if best is None:
                best = missing
        if best:
            shown = ", ".join(os.path.relpath(p, root) for p in best)
            problems.append(Problem(number, f"`{folder}/` row names `{name}`, but "
                                            f"{shown} is missing"))
    return problems


def layers(root):
    with open(os.path.join(root, LAYERS_FILE), encoding="utf-8") as f:
        match = re.search(r"set\(LOCKSMITH_LAYERS ([^)]*)\)", f.read())
    return match.group(1).split() if match else []


def tree_folders(root):
    """Top-level folders (dot-folders and build output aside)."""
    skip = {"build"}
    return sorted(d for d in os.listdir(root)
                  if os.path.isdir(os.path.join(root, d)) and not d.startswith(".")
                  and d not in skip and not d.startswith("build"))


def production_stems(root, folder):
    """The production sources directly in `folder`, by stem ("x" of x.h and
    x.cc): neither a test, a bench nor a fuzz target."""
    stems = set()
    for name in os.listdir(os.path.join(root, folder)):
        stem, ext = os.path.splitext(name)
        if ext in (".h", ".cc") and not re.search(r"_(test|bench|fuzz)(_|$)", stem):
            stems.add(stem)
    return stems


def named_stems(names):
    """Stems and glob patterns ("linearizability_*") of a row's names."""
    stems = set()
    for name in names:
        if "/" in name.rstrip("/"):
            continue
        stems.add(re.sub(r"\.(\*|h|cc)$", "", name))
    return stems


def check_coverage(root, table, last_line):
    """The map proper (`table`: the rows of "What's here") names every
    top-level folder, and each layer's row every subfolder and production
    source of its folder."""
    problems = []
    rows = {}
    for number, folders, names in table:
        for folder in folders:
            rows[folder] = (number, names)
    for folder in tree_folders(root):
        if folder not in rows:
            problems.append(Problem(last_line, f"the folder {folder}/ has no row in the map"))
    for folder in layers(root) + list(NAMED_SUBFOLDERS_OF):
        top = os.path.join(root, folder)
        if not os.path.isdir(top) or folder not in rows:
            continue
        number, names = rows[folder]
        for sub in sorted(os.listdir(top)):
            if os.path.isdir(os.path.join(top, sub)) and sub + "/" not in names:
                problems.append(Problem(number, f"`{folder}/` row does not name its "
                                                f"subfolder `{sub}/`"))
        if folder not in layers(root):
            continue
        patterns = named_stems(names)
        for stem in sorted(production_stems(root, folder)):
            if not any(fnmatch.fnmatchcase(stem, p) for p in patterns):
                problems.append(Problem(number, f"`{folder}/` row does not name "
                                                f"`{stem}.*` ({folder}/{stem})"))
    return problems


def check_layer_uses(root, layer_table):
    """The "uses" column of the layers table says what the CMake file lets
    each layer use."""
    problems = []
    with open(os.path.join(root, LAYERS_FILE), encoding="utf-8") as f:
        cmake = f.read()
    for number, folders, cells in layer_table:
        if len(folders) != 1 or folders[0] not in layers(root):
            continue
        layer = folders[0]
        match = re.search(rf"set\(LOCKSMITH_LAYER_USES_{layer} ([^)]*)\)", cmake)
        allowed = set(match.group(1).replace('"', "").split()) if match else set()
        said = set(re.findall(r"[a-z]+", cells[-1])) & set(layers(root))
        if cells[-1].startswith("every layer"):
            said = allowed
        if said != allowed:
            problems.append(Problem(number, f"`{layer}/` uses {', '.join(sorted(said)) or 'none'}"
                                            f" in the map, {', '.join(sorted(allowed)) or 'none'}"
                                            f" in {LAYERS_FILE}"))
    return problems


def section(text, heading):
    """(first line number, lines) of the section under `heading`."""
    lines = text.split("\n")
    start = lines.index(heading) + 1 if heading in lines else len(lines)
    end = start
    while end < len(lines) and not lines[end].startswith("## "):
        end += 1
    return start, "\n".join(lines[start:end])


def rows_of(text, heading):
    first, body = section(text, heading)
    return [(number + first, folders, names) for number, folders, names in map_rows(body)]


def layer_rows(text):
    first, body = section(text, LAYERS_HEADING)
    rows = []
    for number, line in enumerate(body.split("\n"), 1 + first):
        if line.startswith("| `"):
            cells = split_cells(line)
            folders = [f.rstrip("/") for f in _BACKTICKED.findall(cells[0])]
            rows.append((number, folders, cells))
    return rows


def check_map(root):
    with open(os.path.join(root, MAP), encoding="utf-8") as f:
        text = f.read()
    problems = []
    for number, folders, names in map_rows(text):
        problems.extend(check_row(root, number, folders, names))
    table = rows_of(text, MAP_HEADING)
    if not table:
        return problems + [Problem(1, f"no folder table under \"{MAP_HEADING}\"")]
    problems.extend(check_coverage(root, table, table[-1][0]))
    problems.extend(check_layer_uses(root, layer_rows(text)))
    return problems


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(here),
                        help="the source tree (default: this script's project)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:
        return 0 if exit_request.code == 0 else 254
    if not os.path.isfile(os.path.join(args.root, MAP)):
        print(f"check-design-map: no {MAP} under {args.root}", file=sys.stderr)
        return 254
    problems = check_map(args.root)
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
