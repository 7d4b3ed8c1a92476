#!/usr/bin/env python3
"""Tests for scripts/check-unity-names.py on crafted layers in a temp dir."""

import importlib.util
import os
import tempfile
import unittest

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-unity-names.py")
_spec = importlib.util.spec_from_file_location("check_unity_names", CHECK)
check = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check)


def anonymous(body):
    return "namespace locksmith {\nnamespace {\n\n" + body + "\n}  // namespace\n}  // namespace locksmith\n"


class UnityNamesTest(unittest.TestCase):
    def layer(self, files, layer="backends"):
        root = tempfile.mkdtemp()
        os.mkdir(os.path.join(root, layer))
        for name, text in files.items():
            with open(os.path.join(root, layer, name), "w", encoding="utf-8") as f:
                f.write(text)
        return check.clashes(root)

    def test_the_same_constant_in_two_sources_clashes(self):
        found = self.layer({
            "a_service.cc": anonymous("constexpr char kLogFile[] = \"a.log\";"),
            "b_service.cc": anonymous("constexpr char kLogFile[] = \"b.log\";"),
        })
        self.assertEqual(len(found), 1)
        self.assertIn("variable kLogFile is defined in a_service.cc, b_service.cc", found[0])

    def test_the_same_function_and_type_clash(self):
        body = "struct Row {\n  int a;\n};\n\nstd::string Seconds(double s) {\n  return {};\n}\n"
        found = self.layer({"a.cc": anonymous(body), "b.cc": anonymous(body)}, layer="reports")
        self.assertEqual(len(found), 2)
        self.assertTrue(any("function Seconds(double s)" in line for line in found))
        self.assertTrue(any("type Row" in line for line in found))

    def test_a_namespace_scope_constant_has_internal_linkage_and_counts(self):
        text = "namespace locksmith {\n\nconstexpr int kLimit = 1;\n\n}  // namespace locksmith\n"
        found = self.layer({"a.cc": text, "b.cc": text})
        self.assertEqual(len(found), 1)
        self.assertIn("variable kLimit", found[0])

    def test_a_static_function_at_file_scope_counts(self):
        found = self.layer({
            "a.cc": "static int Open(const char* name) {\n  return 0;\n}\n",
            "b.cc": "static int Open(const char* name) {\n  return 1;\n}\n",
        })
        self.assertEqual(len(found), 1)

    def test_overloads_aliases_tests_and_namespace_members_pass(self):
        found = self.layer({
            "a.cc": anonymous("using Clock = std::chrono::steady_clock;\n"
                              "std::string Seconds(double s) {\n  return {};\n}\n"),
            "b.cc": anonymous("using Clock = std::chrono::steady_clock;\n"
                              "std::string Seconds(int64_t ns) {\n  return {};\n}\n"),
            "a_test.cc": anonymous("constexpr int kKeys = 3;"),
            "b_test.cc": anonymous("constexpr int kKeys = 3;"),
            "c.cc": "namespace locksmith {\n\ninline constexpr int kShared = 1;\n\n}  // namespace locksmith\n",
            "d.cc": "namespace locksmith {\n\nextern const int kShared = 1;\n\n}  // namespace locksmith\n",
        })
        self.assertEqual(found, [])

    def test_the_tree_itself_is_clean(self):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self.assertEqual(check.clashes(root), [])


if __name__ == "__main__":
    unittest.main()
