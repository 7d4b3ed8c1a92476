#!/usr/bin/env python3
"""Size lint for the production C++ sources.

Reports every function body over 80 lines and every file over 600 lines in
the production modules, one line each:
    path:line: function NAME is N lines (limit 80)
    path:1: file is N lines (limit 600)
A function's length is the number of lines strictly between its opening and
closing brace; lambdas and local classes inside it count as part of it. A
lambda outside any function (a namespace-scope table, say) is measured on its
own. A function is exempt only when the line right before its definition is
    // lint: declaration table
(long option-declaration functions, which read best as one list).

After the findings, one line on stderr tells how long the measured bodies
are (exempt ones aside), so the limit reads as the ceiling it is:
    lint-sizes: N functions: median M lines, 90th percentile P, longest X (NAME at path:line); limit 80

Files named in the allowlist (scripts/lint-sizes.allow by default) are
skipped; an entry for a file that is missing or now passes is an error too,
so the list can only shrink.

Exit status: 0 clean, 1 findings, 254 bad usage.
Standard library only; run as `python3 scripts/lint-sizes.py [--root DIR]`.
"""

import argparse
import os
import sys

FUNCTION_LIMIT = 80
FILE_LIMIT = 600
EXEMPT_COMMENT = "// lint: declaration table"
MODULES = ("base", "cluster", "history", "checker", "backends", "workloads", "nemesis",
           "reports", "harness")
# Path components that hold tests, test doubles, benches or fuzz targets.
NON_PRODUCTION_DIRS = {"testing", "tests", "bench", "fuzz", "testdata"}
NON_PRODUCTION_SUFFIXES = ("_test.cc", "_bench.cc", "_fuzz.cc")

# A "(...)" right before a "{" that opens one of these is a control block.
CONTROL_KEYWORDS = {"if", "for", "while", "switch", "catch", "constexpr"}
# Tokens that may sit between a function's ")" and its "{".
TRAILING_QUALIFIERS = {"const", "volatile", "noexcept", "override", "final",
                       "mutable", "&", "&&", "try", "constexpr", "consteval"}
# Keywords after which "[" opens a lambda rather than a subscript.
EXPRESSION_KEYWORDS = {"return", "co_return", "co_yield", "co_await", "case",
                       "throw", "else", "do"}
LITERAL_PREFIXES = {"L", "u", "U", "u8"}
# Words that look like names but cannot name a member being initialized.
NON_NAME_KEYWORDS = CONTROL_KEYWORDS | EXPRESSION_KEYWORDS | {
    "sizeof", "alignof", "decltype", "noexcept", "throw", "operator"}


class Token:
    __slots__ = ("text", "line")

    def __init__(self, text, line):
        self.text = text
        self.line = line


def _is_ident_char(c):
    return c.isalnum() or c == "_"


def _blank(text):
    """Keeps the newlines of `text`, so line numbers stay right."""
    return "".join("\n" if c == "\n" else " " for c in text)


def strip_source(src):
    """Returns `src` with comments and preprocessor lines blanked and the
    contents of string, raw string and character literals blanked (their
    quotes kept), every newline in place."""
    out = []
    i = 0
    n = len(src)
    at_line_start = True
    while i < n:
        c = src[i]
        if c == "\n":
            out.append(c)
            i += 1
            at_line_start = True
            continue
        if c in " \t\r\f\v":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":
            end = i
            while end < n and src[end] != "\n":
                end += 2 if src.startswith("\\\n", end) else 1
            out.append(_blank(src[i:end]))
            i = end
            continue
        at_line_start = False
        if src.startswith("//", i):
            end = src.find("\n", i)
            end = n if end < 0 else end
            out.append(_blank(src[i:end]))
            i = end
        elif src.startswith("/*", i):
            end = src.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(_blank(src[i:end]))
            i = end
        elif c.isdigit() or (c == "." and i + 1 < n and src[i + 1].isdigit()):
            # A pp-number, digit separators (1'000) included.
            end = i + 1
            while end < n:
                d = src[end]
                if d in "eEpP" and end + 1 < n and src[end + 1] in "+-":
                    end += 2
                elif _is_ident_char(d) or d == "." or (
                        d == "'" and end + 1 < n and _is_ident_char(src[end + 1])):
                    end += 1
                else:
                    break
            out.append(src[i:end])
            i = end
        elif _is_ident_char(c):
            end = i
            while end < n and _is_ident_char(src[end]):
                end += 1
            word = src[i:end]
            out.append(word)
            i = end
            if end < n and src[end] == '"' and word.endswith("R") and (
                    word[:-1] in LITERAL_PREFIXES or word == "R"):
                i = _strip_raw_string(src, i, out)
            elif end < n and src[end] in "\"'" and word in LITERAL_PREFIXES:
                i = _strip_quoted(src, i, out)
        elif c in "\"'":
            i = _strip_quoted(src, i, out)
        else:
            out.append(c)
            i += 1
    return "".join(out)


def _strip_quoted(src, i, out):
    quote = src[i]
    end = i + 1
    while end < len(src) and src[end] != quote and src[end] != "\n":
        end += 2 if src[end] == "\\" else 1
    terminated = end < len(src) and src[end] == quote
    out.append(quote + _blank(src[i + 1:end]) + quote)
    return end + 1 if terminated else end


def _strip_raw_string(src, i, out):
    # src[i] is the '"' of R"delim( ... )delim".
    paren = src.find("(", i)
    if paren < 0:
        out.append(src[i:])
        return len(src)
    closer = ")" + src[i + 1:paren] + '"'
    end = src.find(closer, paren)
    end = len(src) if end < 0 else end + len(closer)
    out.append('"' + _blank(src[i + 1:end - 1]) + '"')
    return end


_MULTI_CHAR_PUNCTUATORS = ("::", "->", "&&")


def tokenize(stripped):
    tokens = []
    i = 0
    n = len(stripped)
    line = 1
    while i < n:
        c = stripped[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif c in "\"'":
            end = stripped.find(c, i + 1)
            end = n if end < 0 else end + 1
            tokens.append(Token(c + c, line))
            line += stripped.count("\n", i, end)
            i = end
        elif _is_ident_char(c):
            end = i
            while end < n and (_is_ident_char(stripped[end]) or (
                    stripped[end] in ".'" and stripped[i].isdigit())):
                end += 1
            tokens.append(Token(stripped[i:end], line))
            i = end
        else:
            for punct in _MULTI_CHAR_PUNCTUATORS:
                if stripped.startswith(punct, i):
                    tokens.append(Token(punct, line))
                    i += len(punct)
                    break
            else:
                tokens.append(Token(c, line))
                i += 1
    return tokens


def _is_identifier(text):
    return bool(text) and (text[0].isalpha() or text[0] == "_")


def _match_backward(tokens, close_index, opener, closer):
    """Index of the `opener` matching tokens[close_index] (a `closer`)."""
    depth = 0
    for k in range(close_index, -1, -1):
        text = tokens[k].text
        if text == closer:
            depth += 1
        elif text == opener:
            depth -= 1
            if depth == 0:
                return k
    return -1


def _lambda_introducer(tokens, bracket_close):
    """If the "]" at bracket_close ends a lambda's capture list, the index of
    its "["; else -1."""
    bracket_open = _match_backward(tokens, bracket_close, "[", "]")
    if bracket_open <= 0:
        return bracket_open
    before = tokens[bracket_open - 1].text
    if before in EXPRESSION_KEYWORDS:
        return bracket_open
    # After a name, ")", "]" or ">" a "[" is a subscript (or new T[n]).
    subscript = _is_identifier(before) or before in (")", "]", ">")
    return -1 if subscript else bracket_open


def _lambda(tokens, bracket_close):
    introducer = _lambda_introducer(tokens, bracket_close)
    return ("lambda", introducer) if introducer >= 0 else (None, None)


def _skip_trailing_return(tokens, j):
    """If tokens[..j] ends with "-> Type", the index before the "->"."""
    depth = 0
    k = j
    while k >= 0:
        text = tokens[k].text
        if text in (")", "]"):
            depth += 1
        elif text in ("(", "["):
            if depth == 0:
                return j
            depth -= 1
        elif depth == 0:
            if text == "->":
                return k - 1
            if text in (";", "{", "}", "="):
                return j
        k -= 1
    return j


def _skip_member_initializers(tokens, j):
    """If tokens[..j] ends with a constructor's ": a_(x), b_{y}", the index
    before the ":"; else j."""
    k = j
    while k >= 0 and tokens[k].text in (")", "}"):
        opener = _match_backward(tokens, k, "(" if tokens[k].text == ")" else "{",
                                 tokens[k].text)
        name = opener - 1
        if name >= 0 and tokens[name].text == ">":
            name = _match_backward(tokens, name, "<", ">") - 1
        if name < 1 or not _is_identifier(tokens[name].text) or \
                tokens[name].text in NON_NAME_KEYWORDS:
            return j
        while name >= 2 and tokens[name - 1].text == "::":
            name -= 2
        separator = tokens[name - 1].text
        if separator == ":":
            before = name - 2
            if before >= 0 and (tokens[before].text == ")" or
                                tokens[before].text in TRAILING_QUALIFIERS):
                return before
            return j
        if separator != ",":
            return j
        k = name - 2
    return j


def classify_brace(tokens, brace):
    """What the "{" at index `brace` opens: ("function", index of the "(" of
    its parameters), ("lambda", index of its "[") or (None, None) for
    anything else."""
    j = _skip_member_initializers(tokens, brace - 1)
    j = _skip_trailing_return(tokens, j)
    while j >= 0:
        text = tokens[j].text
        if text in TRAILING_QUALIFIERS:
            j -= 1
        elif text == "]":
            return _lambda(tokens, j)
        elif text == ")":
            paren = _match_backward(tokens, j, "(", ")")
            if paren <= 0:
                return None, None
            before = tokens[paren - 1].text
            if before in ("noexcept", "throw"):
                j = _skip_trailing_return(tokens, paren - 2)
            elif before in CONTROL_KEYWORDS:
                return None, None
            elif before == "]":
                return _lambda(tokens, paren - 1)
            elif before == ">" and _template_lambda(tokens, paren - 1) >= 0:
                return "lambda", _template_lambda(tokens, paren - 1)
            elif _is_identifier(before) or before in (")", ">") or \
                    _operator_before(tokens, paren):
                return "function", paren
            else:
                return None, None
        else:
            return None, None
    return None, None


def _template_lambda(tokens, angle_close):
    """For the "<...>" of "[]<typename T>(...)", the index of the "["; else -1."""
    angle_open = _match_backward(tokens, angle_close, "<", ">")
    if angle_open <= 0 or tokens[angle_open - 1].text != "]":
        return -1
    return _lambda_introducer(tokens, angle_open - 1)


def _operator_before(tokens, paren):
    return any(tokens[k].text == "operator"
               for k in range(max(0, paren - 3), paren))


def function_name(tokens, paren):
    """The qualified name before the "(" at `paren`."""
    for k in range(paren - 1, max(-1, paren - 4), -1):
        if tokens[k].text == "operator":
            symbol = "".join(t.text for t in tokens[k + 1:paren])
            spaced = k + 1 < paren and _is_identifier(tokens[k + 1].text)
            name = "operator" + (" " if spaced else "") + symbol
            return _qualify(tokens, k, name)
    k = paren - 1
    if tokens[k].text == ">":
        k = _match_backward(tokens, k, "<", ">") - 1
    if k < 0 or not _is_identifier(tokens[k].text):
        return "(anonymous)"
    name = tokens[k].text
    if k > 0 and tokens[k - 1].text == "~":
        name = "~" + name
        k -= 1
    return _qualify(tokens, k, name)


def _qualify(tokens, k, name):
    while k >= 2 and tokens[k - 1].text == "::":
        scope = k - 2
        if tokens[scope].text == ">":
            scope = _match_backward(tokens, scope, "<", ">") - 1
        if scope < 0 or not _is_identifier(tokens[scope].text):
            break
        name = tokens[scope].text + "::" + name
        k = scope
    return name


def lambda_name(tokens, introducer):
    """A lambda outside functions is named after what it initializes."""
    k = introducer
    if k >= 2 and tokens[k - 1].text == "=" and _is_identifier(tokens[k - 2].text):
        return tokens[k - 2].text + " (lambda)"
    return "(lambda)"


def declaration_start(tokens, name_index):
    """Index of the first token of the declaration holding name_index."""
    k = name_index
    while k > 0:
        text = tokens[k - 1].text
        if text in (";", "{", "}"):
            break
        if text == ":" and k >= 2 and tokens[k - 2].text in (
                "public", "private", "protected"):
            break
        k -= 1
    return k


class Finding:
    def __init__(self, path, line, message):
        self.path = path
        self.line = line
        self.message = message

    def __str__(self):
        return f"{self.path}:{self.line}: {self.message}"


class Body:
    """One measured function or lambda body."""

    def __init__(self, path, line, name, length):
        self.path = path
        self.line = line
        self.name = name
        self.length = length


def lint_source(path, src, bodies=None):
    """The findings in one file's text (path is only used in messages); the
    length of every body the limit applies to is appended to `bodies`."""
    findings = []
    # Lines as the tokenizer counts them: only "\n" ends one.
    raw_lines = src.split("\n")
    line_count = len(raw_lines) - (1 if src.endswith("\n") or not src else 0)
    if line_count > FILE_LIMIT:
        findings.append(Finding(path, 1, f"file is {line_count} lines (limit {FILE_LIMIT})"))
    tokens = tokenize(strip_source(src))
    # Each open brace: None, or (name, report line, exempt) for a measured body.
    stack = []
    inside_function = 0
    for index, token in enumerate(tokens):
        if token.text == "{":
            unit = None
            if inside_function == 0:
                kind, at = classify_brace(tokens, index)
                if kind == "function":
                    unit = _unit(tokens, raw_lines, at, function_name(tokens, at))
                elif kind == "lambda":
                    unit = _unit(tokens, raw_lines, at, lambda_name(tokens, at))
            if unit is not None:
                inside_function += 1
                unit = unit + (token.line,)
            stack.append(unit)
        elif token.text == "}" and stack:
            unit = stack.pop()
            if unit is None:
                continue
            inside_function -= 1
            name, line, exempt, open_line = unit
            length = token.line - open_line - 1
            if bodies is not None and not exempt:
                bodies.append(Body(path, line, name, length))
            if length > FUNCTION_LIMIT and not exempt:
                findings.append(Finding(path, line, f"function {name} is {length} lines "
                                        f"(limit {FUNCTION_LIMIT})"))
    return findings


def _unit(tokens, raw_lines, anchor, name):
    """(name, report line, exempt) for the body whose head holds `anchor`
    (the "(" of a function's parameters, the "[" of a lambda)."""
    start_line = tokens[declaration_start(tokens, anchor)].line
    previous = raw_lines[start_line - 2].strip() if start_line >= 2 else ""
    return name, tokens[anchor].line, previous == EXEMPT_COMMENT


def is_production(relative_path):
    parts = relative_path.split("/")
    if parts[0] not in MODULES:
        return False
    if not relative_path.endswith((".cc", ".h")):
        return False
    if relative_path.endswith(NON_PRODUCTION_SUFFIXES):
        return False
    return not any(part in NON_PRODUCTION_DIRS for part in parts[1:-1])


def production_files(root):
    files = []
    for module in MODULES:
        top = os.path.join(root, module)
        if not os.path.isdir(top):
            continue
        for directory, subdirs, names in os.walk(top):
            subdirs.sort()
            for name in sorted(names):
                relative = os.path.relpath(os.path.join(directory, name), root)
                relative = relative.replace(os.sep, "/")
                if is_production(relative):
                    files.append(relative)
    return files


def read_allowlist(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            entry = line.split("#", 1)[0].strip()
            if entry:
                entries.append((entry, number))
    return entries


def percentile(sorted_values, fraction):
    """The nearest-rank percentile of a sorted, non-empty list."""
    rank = max(1, -(-len(sorted_values) * fraction // 1))
    return sorted_values[int(rank) - 1]


def length_summary(bodies):
    """One line: how many bodies, their median, 90th percentile and longest."""
    if not bodies:
        return "lint-sizes: no functions"
    lengths = sorted(b.length for b in bodies)
    longest = max(bodies, key=lambda b: b.length)
    return (f"lint-sizes: {len(bodies)} functions: median {percentile(lengths, 0.5)} lines, "
            f"90th percentile {percentile(lengths, 0.9)}, longest {longest.length} "
            f"({longest.name} at {longest.path}:{longest.line}); limit {FUNCTION_LIMIT}")


def lint_tree(root, allow_path, bodies=None):
    """Findings for the tree at root, plus problems with the allowlist; every
    measured body goes to `bodies`."""
    allowed = read_allowlist(allow_path) if allow_path else []
    allowed_paths = {entry for entry, _ in allowed}
    findings = []
    failing = set()
    for relative in production_files(root):
        with open(os.path.join(root, relative), encoding="utf-8",
                  errors="replace") as f:
            file_findings = lint_source(relative, f.read(), bodies)
        if file_findings:
            failing.add(relative)
        if relative not in allowed_paths:
            findings.extend(file_findings)
    shown_allow = os.path.relpath(allow_path, root) if allow_path else ""
    if shown_allow.startswith(".."):
        shown_allow = allow_path
    for entry, number in allowed:
        if entry not in failing:
            state = "passes now" if os.path.isfile(os.path.join(root, entry)) \
                else "is not a production source"
            findings.append(Finding(shown_allow.replace(os.sep, "/"), number,
                                    f"{entry} {state}: remove it from the allowlist"))
    return findings


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(here),
                        help="the source tree (default: this script's project)")
    parser.add_argument("--allow", default=None,
                        help="allowlist file (default: ROOT/scripts/lint-sizes.allow "
                             "if present)")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_request:
        return 0 if exit_request.code == 0 else 254
    if not os.path.isdir(args.root):
        print(f"lint-sizes: no such directory: {args.root}", file=sys.stderr)
        return 254
    allow = args.allow
    if allow is None:
        default = os.path.join(args.root, "scripts", "lint-sizes.allow")
        allow = default if os.path.isfile(default) else None
    elif not os.path.isfile(allow):
        print(f"lint-sizes: no such allowlist: {allow}", file=sys.stderr)
        return 254
    bodies = []
    findings = lint_tree(args.root, allow, bodies)
    for finding in findings:
        print(finding)
    print(length_summary(bodies), file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
