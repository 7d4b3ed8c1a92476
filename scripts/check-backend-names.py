#!/usr/bin/env python3
"""No backend is named in checker/, reports/ or harness/ outside the registries.

A backend is its own files plus one line in backends/backend_registry.cc, and a
fault family its own files plus one line in nemesis/nemesis_registry.cc. The
layers that judge a run, draw it and drive it (checker/, reports/, harness/)
must then know no backend by name, or adding one would touch them. This check
reads their production sources (tests, benches, fuzzers and testing/ helpers
are exempt: they may name what they exercise) and refuses
  - a string literal holding a backend's name, or one word of it, as a word
    ("redis", "redis-sentinel", "sentinel", "zookeeper", ...: the names are
    read from the registry's `.name = "..."` lines, so a new backend is
    covered without editing this file), and
  - an #include of a header the registries include to reach one backend or
    one fault family (backends/redis_service.h, nemesis/partition_nemesis.h,
    ...: read from the two registries' own includes), but for the few
    generic headers listed in GENERIC_REGISTRY_INCLUDES.
Comments are skipped. ALLOWED lists the occurrences that are still there on
purpose or until their own change lands, each with its reason.

Usage: check-backend-names.py --root DIR. Exit 0 clean, 1 with one line per
occurrence (file, line, what), 254 bad usage.
"""

import argparse
import os
import re
import sys

SCANNED = ["checker", "reports", "harness"]
REGISTRIES = ["backends/backend_registry.cc", "nemesis/nemesis_registry.cc"]
# Headers a registry includes that are not one backend's or one family's:
# the registry machinery and the exec client protocol (every backend's).
GENERIC_REGISTRY_INCLUDES = {
    "backends/backend_registry.h",
    "backends/exec_protocol.h",
    "nemesis/nemesis_registry.h",
}
# (file, the literal or include) still allowed, each with its reason.
ALLOWED = {
    # A help text's example of a suite's lock list.
    ("harness/suite_file.cc", r'({\"lock\": [\"etcd\", \"postgres\"], \"nemesis\": \"clock\"})'):
        "an example in an error message",
}

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]+"([^"]+)"', re.M)
BACKEND_NAME = re.compile(r'\.name\s*=\s*"([^"]+)"')


def is_production_source(name):
    if not (name.endswith(".cc") or name.endswith(".h")):
        return False
    stem = name.rsplit(".", 1)[0]
    return not (stem.endswith("_test") or stem.endswith("_bench") or stem.endswith("_fuzz"))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def strip_comments(code):
    """`code` with its comments blanked (newlines kept) and its literals intact."""
    out, i, n = [], 0, len(code)
    while i < n:
        if code.startswith("//", i):
            end = code.find("\n", i)
            i = n if end < 0 else end
        elif code.startswith("/*", i):
            end = code.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append("\n" * code.count("\n", i, end))
            i = end
        elif code[i] == '"' or code.startswith('R"(', i):
            end = literal_end(code, i)
            out.append(code[i:end])
            i = end
        elif code[i] == "'":
            end = code.find("'", i + (3 if code[i + 1:i + 2] == "\\" else 2))
            end = n if end < 0 else end + 1
            out.append(code[i:end])
            i = end
        else:
            out.append(code[i])
            i += 1
    return "".join(out)


def literal_end(code, i):
    if code.startswith('R"(', i):
        end = code.find(')"', i + 3)
        return len(code) if end < 0 else end + 2
    j = i + 1
    while j < len(code) and code[j] != '"':
        j += 2 if code[j] == "\\" else 1
    return j + 1


def string_literals(code):
    """(line, text) of each string literal of `code` (comments and #include
    lines skipped)."""
    code = INCLUDE.sub("", strip_comments(code))
    found, i = [], 0
    while i < len(code):
        if code[i] == "'":
            end = code.find("'", i + (3 if code[i + 1:i + 2] == "\\" else 2))
            i = len(code) if end < 0 else end + 1
        elif code.startswith('R"(', i) or code[i] == '"':
            end = literal_end(code, i)
            raw = code.startswith('R"(', i)
            text = code[i + 3:end - 2] if raw else code[i + 1:end - 1]
            found.append((code.count("\n", 0, i) + 1, text))
            i = end
        else:
            i += 1
    return found


def backend_words(root):
    """The registry's backend names and each word of them ("redis-sentinel"
    gives "redis-sentinel", "redis", "sentinel")."""
    names = BACKEND_NAME.findall(read(os.path.join(root, "backends/backend_registry.cc")))
    words = set(names)
    for name in names:
        words.update(part for part in name.split("-") if len(part) > 2)
    return words


def specific_headers(root):
    """Headers the registries include to reach one backend or one family."""
    headers = set()
    for registry in REGISTRIES:
        for header in INCLUDE.findall(read(os.path.join(root, registry))):
            if header.split("/")[0] in ("backends", "nemesis"):
                headers.add(header)
    return headers - GENERIC_REGISTRY_INCLUDES


def names_a_word(text, words):
    tokens = set(re.split(r"[^a-z0-9]+", text.lower()))
    tokens.update(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)+", text.lower()))
    return sorted(tokens & words)


def occurrences(root):
    """One line per backend name or specific include found, ALLOWED left out."""
    words, headers = backend_words(root), specific_headers(root)
    found = []
    for folder in SCANNED:
        base = os.path.join(root, folder)
        for name in sorted(os.listdir(base)):
            path = os.path.join(base, name)
            if not os.path.isfile(path) or not is_production_source(name):
                continue
            rel = folder + "/" + name
            code = read(path)
            for header in INCLUDE.findall(strip_comments(code)):
                if header in headers and (rel, header) not in ALLOWED:
                    found.append(f"{rel}: includes {header}, one backend's or family's header "
                                 "(reach it through its registry)")
            for line, text in string_literals(code):
                hits = names_a_word(text, words)
                if hits and (rel, text) not in ALLOWED and not any(
                        (rel, hit) in ALLOWED for hit in hits if hit == text):
                    found.append(f"{rel}:{line}: the string \"{text}\" names backend "
                                 f"{', '.join(hits)} (ask the registry or the service instead)")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True)
    try:
        args = parser.parse_args()
    except SystemExit:
        return 254
    for needed in REGISTRIES + SCANNED:
        if not os.path.exists(os.path.join(args.root, needed)):
            print(f"check-backend-names: {args.root} has no {needed}", file=sys.stderr)
            return 254
    found = occurrences(args.root)
    for line in found:
        print(line)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
