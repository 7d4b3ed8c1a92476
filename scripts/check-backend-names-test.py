#!/usr/bin/env python3
"""Tests for scripts/check-backend-names.py on crafted trees in a temp dir."""

import importlib.util
import os
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-backend-names.py")
_spec = importlib.util.spec_from_file_location("check_backend_names", CHECK)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)

BACKEND_REGISTRY = """#include "backends/backend_registry.h"

#include "backends/exec_protocol.h"
#include "backends/redis_service.h"
#include "backends/sentinel_service.h"
#include "base/module_registry.h"

const std::vector<BackendEntry>& Backends() {
  static const std::vector<BackendEntry> kBackends = {
      {.name = "redis", .hosts = FixedHosts<1>},
      {.name = "redis-sentinel", .hosts = SentinelHosts},
  };
}
"""
NEMESIS_REGISTRY = """#include "nemesis/nemesis_registry.h"

#include "nemesis/kill_nemesis.h"
#include "nemesis/partition_nemesis.h"
"""


class BackendNamesTest(unittest.TestCase):
    def tree(self, files):
        root = tempfile.mkdtemp()
        files = dict(files)
        files.setdefault("backends/backend_registry.cc", BACKEND_REGISTRY)
        files.setdefault("nemesis/nemesis_registry.cc", NEMESIS_REGISTRY)
        for folder in check.SCANNED + ["backends", "nemesis"]:
            os.makedirs(os.path.join(root, folder), exist_ok=True)
        for name, text in files.items():
            with open(os.path.join(root, name), "w", encoding="utf-8") as f:
                f.write(text)
        return check.occurrences(root)

    def test_a_backend_name_in_a_string_is_found(self):
        found = self.tree({"checker/a.cc": 'const char* k = "redis";\n'})
        self.assertEqual(len(found), 1)
        self.assertIn("checker/a.cc:1", found[0])
        self.assertIn("backend redis", found[0])

    def test_a_word_of_a_backend_name_is_found_as_a_word_only(self):
        found = self.tree({"reports/a.cc": 'x = "a sentinel";\ny = "+switch-master";\n'
                                           'z = "sentinels"; w = "predis";\n'})
        self.assertEqual(len(found), 1)
        self.assertIn("reports/a.cc:1", found[0])
        self.assertIn("sentinel", found[0])

    def test_a_specific_header_is_found_and_a_generic_one_passes(self):
        found = self.tree({
            "harness/run.cc": '#include "backends/redis_service.h"\n'
                              '#include "backends/backend_registry.h"\n'
                              '#include "backends/exec_protocol.h"\n'
                              '#include "nemesis/nemesis_registry.h"\n',
            "harness/run_config.cc": '#include "nemesis/partition_nemesis.h"\n',
        })
        self.assertEqual(len(found), 2)
        self.assertIn("harness/run.cc: includes backends/redis_service.h", found[0])
        self.assertIn("harness/run_config.cc: includes nemesis/partition_nemesis.h", found[1])

    def test_comments_tests_and_other_folders_are_not_read(self):
        found = self.tree({
            "checker/a.cc": '// "redis"\n/* #include "backends/redis_service.h"\n "etcd" */\n',
            "checker/a_test.cc": 'x = "redis";\n#include "backends/redis_service.h"\n',
            "reports/b_bench.cc": 'x = "redis";\n',
            "backends/c.cc": 'x = "redis";\n',
        })
        self.assertEqual(found, [])

    def test_raw_strings_and_escapes_are_read(self):
        found = self.tree({"harness/a.cc": 'a = "say \\"redis\\"";\nb = R"(sentinel)";\n'})
        self.assertEqual(len(found), 2)

    def test_the_tree_itself_is_clean(self):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.assertEqual(check.occurrences(root), [])


if __name__ == "__main__":
    unittest.main()
