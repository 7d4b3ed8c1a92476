#!/usr/bin/env python3
"""Tests for scripts/check-design-map.py on small crafted trees."""

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-design-map.py")
_spec = importlib.util.spec_from_file_location("check_design_map", CHECK)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

LAYERS = """set(LOCKSMITH_LAYERS base cluster)
set(LOCKSMITH_LAYER_USES_base "")
set(LOCKSMITH_LAYER_USES_cluster base)
"""

LAYER_TABLE = """## Layers

| layer | holds | uses |
|---|---|---|
| `base/` | small things | the standard library |
| `cluster/` | hosts | {cluster_uses} |
"""

MAP = """# Design

{layers}
## What's here

| folder | what it holds |
|---|---|
| `base/` | `result.h` (Result), `text.*`, `history.bin` is a run's; `testing/` TempDir |
| `cluster/` | `host.h`, `net_*` (names), `local_host.*`{cluster_more} |
| `docs/` | this manual, `scripts/setup.sh` |
| `scripts/` | `setup.sh` |
| `cmake/` | `LocksmithLayers.cmake` |

## Conventions
"""

FILES = ["base/result.h", "base/text.h", "base/text.cc", "base/testing/temp_dir.h",
         "cluster/host.h", "cluster/net_plan.h", "cluster/net_plan.cc",
         "cluster/local_host.h", "cluster/local_host.cc", "cluster/host_test.cc",
         "cluster/fuzz_bench.cc", "docs/design.md", "scripts/setup.sh"]


class Tree:
    """A temporary tree with the files above and the map as given."""

    def __init__(self, cluster_more="", cluster_uses="base", drop=(), add=()):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name
        for path in [f for f in FILES if f not in drop] + list(add):
            full = os.path.join(self.root, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "w", encoding="utf-8") as f:
                f.write("x\n")
        os.makedirs(os.path.join(self.root, "cmake"), exist_ok=True)
        with open(os.path.join(self.root, "cmake", "LocksmithLayers.cmake"), "w") as f:
            f.write(LAYERS)
        layers = LAYER_TABLE.format(cluster_uses=cluster_uses)
        with open(os.path.join(self.root, "docs", "design.md"), "w") as f:
            f.write(MAP.format(layers=layers, cluster_more=cluster_more))

    def problems(self):
        return [str(p) for p in check.check_map(self.root)]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.dir.cleanup()


class DesignMapTest(unittest.TestCase):
    def test_a_true_map_passes(self):
        with Tree() as tree:
            self.assertEqual(tree.problems(), [])

    def test_a_named_file_that_is_gone_names_the_file_and_the_row(self):
        with Tree(drop=["cluster/host.h"]) as tree:
            self.assertEqual(tree.problems(), [
                "docs/design.md:15: `cluster/` row names `host.h`, but cluster/host.h is "
                "missing"])

    def test_a_pair_needs_both_its_header_and_its_source(self):
        with Tree(drop=["base/text.cc"]) as tree:
            self.assertEqual(tree.problems(), [
                "docs/design.md:14: `base/` row names `text.*`, but base/text.cc is missing"])

    def test_a_glob_needs_a_match(self):
        with Tree(drop=["cluster/net_plan.h", "cluster/net_plan.cc"]) as tree:
            self.assertIn("docs/design.md:15: `cluster/` row names `net_*`, but "
                          "cluster/net_* is missing", tree.problems())

    def test_a_name_in_a_named_subfolder_resolves_there(self):
        with Tree(cluster_more=", `testing/` `fake_host.*`",
                  add=["cluster/testing/fake_host.h", "cluster/testing/fake_host.cc"]) as tree:
            self.assertEqual(tree.problems(), [])

    def test_an_unnamed_subfolder_of_a_layer_fails(self):
        with Tree(add=["cluster/fuzz/target.cc"]) as tree:
            self.assertEqual(tree.problems(), [
                "docs/design.md:15: `cluster/` row does not name its subfolder `fuzz/`"])

    def test_an_unnamed_production_source_fails_but_tests_and_benches_need_no_name(self):
        with Tree(add=["cluster/ssh_host.h", "cluster/ssh_host.cc"]) as tree:
            self.assertEqual(tree.problems(), [
                "docs/design.md:15: `cluster/` row does not name `ssh_host.*` "
                "(cluster/ssh_host)"])

    def test_a_top_level_folder_without_a_row_fails(self):
        with Tree(add=["suites/nightly.json"]) as tree:
            self.assertEqual(tree.problems(), [
                "docs/design.md:18: the folder suites/ has no row in the map"])

    def test_the_layers_uses_column_must_say_what_cmake_allows(self):
        with Tree(cluster_uses="nothing") as tree:
            self.assertEqual(tree.problems(), [
                "docs/design.md:8: `cluster/` uses none in the map, base in "
                "cmake/LocksmithLayers.cmake"])

    def test_the_command_exits_1_with_problems_and_0_without(self):
        with Tree(drop=["cluster/host.h"]) as tree:
            run = subprocess.run([sys.executable, CHECK, "--root", tree.root],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 1)
            self.assertIn("cluster/host.h is missing", run.stdout)
        with Tree() as tree:
            run = subprocess.run([sys.executable, CHECK, "--root", tree.root],
                                 capture_output=True, text=True)
            self.assertEqual((run.returncode, run.stdout), (0, ""))

    def test_a_root_without_the_map_is_bad_usage(self):
        with tempfile.TemporaryDirectory() as empty:
            run = subprocess.run([sys.executable, CHECK, "--root", empty],
                                 capture_output=True, text=True)
            self.assertEqual(run.returncode, 254)
            self.assertEqual(len(run.stderr.strip().split("\n")), 1)


if __name__ == "__main__":
    unittest.main()
