#!/usr/bin/env python3
"""Tests for scripts/lint-sizes.py on crafted C++ snippets in a temp dir."""

import importlib.util
import os
import subprocess
import sys
import tempfile
import unittest

LINT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lint-sizes.py")
_spec = importlib.util.spec_from_file_location("lint_sizes", LINT)
lint = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lint)


def body(lines, text="  Step();"):
    return "\n".join([text] * lines)


def function(name, lines, head="void {name}() {{"):
    return head.format(name=name) + "\n" + body(lines) + "\n}\n"


def messages(src):
    return [str(f) for f in lint.lint_source("x.cc", src)]


class FunctionLengthTest(unittest.TestCase):
    def test_long_function_is_flagged_with_its_line_and_length(self):
        src = "#include <x>\n\n" + function("Short", 3) + function("Long", 81)
        self.assertEqual(messages(src),
                         ["x.cc:8: function Long is 81 lines (limit 80)"])

    def test_eighty_lines_pass(self):
        self.assertEqual(messages(function("AtLimit", 80)), [])

    def test_qualified_names_and_trailing_qualifiers(self):
        src = (function("Run", 81, "int Search::{name}() const noexcept {{") +
               function("Get", 81, "auto Table<T>::{name}(int a)\n    -> std::vector<int> {{") +
               function("operator", 81, "bool Key::{name}==(const Key& o) const {{") +
               function("Ctor", 81, "Foo::Foo(int a)\n    : a_(a), b_{{a, 2}}, c_(Make(a)) {{"))
        self.assertEqual(messages(src), [
            "x.cc:1: function Search::Run is 81 lines (limit 80)",
            "x.cc:84: function Table::Get is 81 lines (limit 80)",
            "x.cc:168: function Key::operator== is 81 lines (limit 80)",
            "x.cc:251: function Foo::Foo is 81 lines (limit 80)",
        ])

    def test_member_defined_in_a_class_body(self):
        src = ("class Foo : public Bar<int> {\n public:\n" +
               function("Go", 81, "  void {name}() override {{") + "};\n")
        self.assertEqual(messages(src),
                         ["x.cc:3: function Go is 81 lines (limit 80)"])

    def test_long_lambda_inside_a_short_function_counts_for_the_function(self):
        src = ("void Outer() {\n  auto each = [&](int i) {\n" + body(85) +
               "\n  };\n  each(1);\n}\n")
        self.assertEqual(messages(src),
                         ["x.cc:1: function Outer is 88 lines (limit 80)"])

    def test_control_blocks_are_part_of_their_function_not_functions(self):
        src = ("int Outer(int n) {\n"
               "  if (n) {\n" + body(20) + "\n  } else {\n" + body(20) + "\n  }\n"
               "  for (int i : v) {\n" + body(20) + "\n  }\n"
               "  while (n--) {\n" + body(5) + "\n  }\n"
               "  switch (n) {\n    case 1: {\n" + body(5) + "\n    }\n  }\n"
               "  try {\n" + body(5) + "\n  } catch (const std::exception& e) {\n" +
               body(5) + "\n  }\n"
               "  if constexpr (kOn) {\n" + body(3) + "\n  }\n"
               "  return n;\n}\n")
        found = messages(src)
        self.assertEqual(len(found), 1, found)
        self.assertRegex(found[0], r"^x\.cc:1: function Outer is \d+ lines")

    def test_namespace_scope_lambda_is_measured_on_its_own(self):
        src = "const auto kTable = [] {\n" + body(81) + "\n}();\n"
        self.assertEqual(messages(src),
                         ["x.cc:1: function kTable (lambda) is 81 lines (limit 80)"])

    def test_array_new_with_braces_is_not_a_lambda(self):
        src = "int* kData = new int[3]{\n" + body(90, "  1,") + "\n};\n"
        self.assertEqual(messages(src), [])


class ClassifyTest(unittest.TestCase):
    def kind_of(self, head):
        tokens = lint.tokenize(lint.strip_source(head + " {"))
        return lint.classify_brace(tokens, len(tokens) - 1)[0]

    def test_control_blocks_are_not_functions(self):
        for head in ("if (ok)", "} else if (a && b)", "for (auto& [k, v] : m)",
                     "while (Next(x))", "switch (kind)", "catch (const Error& e)",
                     "if constexpr (kOn)", "else", "do", "try", "namespace a::b",
                     "class Foo final : public Bar<T>", "enum class E : int",
                     'extern "C"', "Foo x =", "return", "v.push_back(Item", "int a_"):
            self.assertIsNone(self.kind_of(head), head)

    def test_functions_and_lambdas(self):
        for head in ("void f()", "int A::B(int x) const", "Foo::Foo(int a) : a_(a), b_{a}",
                     "auto f() -> std::map<int, int>", "bool operator()(int) const noexcept",
                     "explicit operator bool() const", "Foo::~Foo()", "TEST(A, B)"):
            self.assertEqual(self.kind_of(head), "function", head)
        for head in ("auto f = [&]", "Run([this](int x) mutable -> bool",
                     "return [x]()", "auto g = []<typename T>(T t)"):
            self.assertEqual(self.kind_of(head), "lambda", head)


class LiteralsAndCommentsTest(unittest.TestCase):
    def test_long_raw_string_is_not_a_function(self):
        script = "\nfunction draw() {\n" + body(120, "  ctx.fill(\"x\");") + "\n}\n"
        src = ('const char* kScript = R"js(' + script + ')js";\n' +
               function("Small", 3) +
               'void Template() {\n  Emit(R"(\n}\n' + body(40, "  }") + '\n)");\n' +
               body(40) + "\n}\n")
        self.assertEqual(messages(src),
                         ["x.cc:130: function Template is 83 lines (limit 80)"])

    def test_braces_inside_literals_and_comments_do_not_count(self):
        tricky = ('  const char* a = "}}}\\" {";\n'
                  "  char b = '}';\n"
                  "  char c = '\\'';\n"
                  "  int d = 1'000'000;\n"
                  '  auto e = R"x(})" )x";\n'
                  "  auto f = u8\"}\";\n"
                  "  // } closing brace in a comment\n"
                  "  /* { unbalanced */\n"
                  "#define BRACE }\n")
        src = "void Tricky() {\n" + tricky + body(72) + "\n}\n"
        self.assertEqual(messages(src),
                         ["x.cc:1: function Tricky is 81 lines (limit 80)"])

    def test_file_over_600_lines(self):
        src = "\n".join(["// filler"] * 601) + "\n"
        self.assertEqual(messages(src), ["x.cc:1: file is 601 lines (limit 600)"])
        self.assertEqual(messages("\n".join(["// filler"] * 600) + "\n"), [])


class ExemptionTest(unittest.TestCase):
    TABLE = ("void Options::Declare(OptionSet& set) {\n" +
             body(90, '  set.Text("a", "--a", &a, "help");') + "\n}\n")

    def test_declaration_table_comment_exempts_the_function(self):
        src = "// lint: declaration table\n" + self.TABLE
        self.assertEqual(messages(src), [])

    def test_without_the_comment_the_table_is_flagged(self):
        self.assertEqual(messages(self.TABLE),
                         ["x.cc:1: function Options::Declare is 90 lines (limit 80)"])

    def test_comment_must_be_on_the_line_right_before(self):
        src = "// lint: declaration table\n\n" + self.TABLE
        self.assertEqual(len(messages(src)), 1)

    def test_comment_exempts_only_the_next_function(self):
        src = ("// lint: declaration table\n" + self.TABLE +
               function("Other", 81))
        self.assertEqual(messages(src),
                         ["x.cc:94: function Other is 81 lines (limit 80)"])


class TreeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.root = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def write(self, path, text):
        full = os.path.join(self.root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as f:
            f.write(text)

    def run_lint(self, *args):
        result = subprocess.run([sys.executable, LINT, "--root", self.root, *args],
                                capture_output=True, text=True, check=False)
        return result.returncode, result.stdout.splitlines()

    def test_only_production_sources_are_linted(self):
        long = function("Long", 81)
        for path in ("checker/x_test.cc", "checker/x_bench.cc", "checker/fuzz/f.cc",
                     "checker/testing/fake.h", "harness/tests/t.cc",
                     "scripts/tool.cc", "tests/e2e.cc", "checker/notes.txt"):
            self.write(path, long)
        self.assertEqual(self.run_lint(), (0, []))
        self.write("checker/long.cc", long)
        self.write("harness/deep/long.h", long)
        self.assertEqual(self.run_lint(), (1, [
            "checker/long.cc:1: function Long is 81 lines (limit 80)",
            "harness/deep/long.h:1: function Long is 81 lines (limit 80)",
        ]))

    def test_allowlist_skips_a_file_and_must_shrink(self):
        self.write("reports/old.cc", function("Long", 81))
        self.write("reports/fine.cc", function("Short", 2))
        self.write("scripts/lint-sizes.allow", "# shrinks to empty\nreports/old.cc\n")
        self.assertEqual(self.run_lint(), (0, []))
        self.write("scripts/lint-sizes.allow",
                   "reports/old.cc\nreports/fine.cc\nreports/gone.cc\n")
        self.assertEqual(self.run_lint(), (1, [
            "scripts/lint-sizes.allow:2: reports/fine.cc passes now: "
            "remove it from the allowlist",
            "scripts/lint-sizes.allow:3: reports/gone.cc is not a production source: "
            "remove it from the allowlist",
        ]))

    def test_the_summary_tells_median_90th_percentile_and_longest(self):
        self.write("nemesis/a.cc", "".join(function(f"F{n}", n) for n in range(1, 11)))
        self.write("nemesis/b_test.cc", function("NotMeasured", 70))
        self.write("nemesis/c.cc", "// lint: declaration table\n" + function("Table", 90))
        result = subprocess.run([sys.executable, LINT, "--root", self.root],
                                capture_output=True, text=True, check=False)
        self.assertEqual((result.returncode, result.stdout), (0, ""))
        self.assertEqual(result.stderr.splitlines(), [
            "lint-sizes: 10 functions: median 5 lines, 90th percentile 9, longest 10 "
            "(F10 at nemesis/a.cc:64); limit 80"])

    def test_percentile_is_nearest_rank(self):
        self.assertEqual(lint.percentile([7], 0.9), 7)
        self.assertEqual(lint.percentile([1, 2, 3, 4], 0.5), 2)
        self.assertEqual(lint.percentile(list(range(1, 21)), 0.9), 18)
        self.assertEqual(lint.percentile(list(range(1, 22)), 0.9), 19)

    def test_bad_usage_exits_254(self):
        self.assertEqual(self.run_lint("--allow", os.path.join(self.root, "none"))[0], 254)
        self.assertEqual(self.run_lint("--bogus")[0], 254)


if __name__ == "__main__":
    unittest.main()
