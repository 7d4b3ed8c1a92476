#!/usr/bin/python3
"""The shipped nightly CI definitions (ci/), checked and run here.

Both files parse as YAML and have the jobs and steps the nightly needs: a
matrix (GitHub) or `parallel` (GitLab) of shard jobs that set up, run their
shard and keep its directory, then a merge job that gets them all, merges,
keeps the page and compares with the last good night. Every command they
name exists: the scripts, and each locksmith subcommand the scripts call.
Then each file's jobs run here as its CI system would run them (every shard
job in a fresh directory of its own, its `run`/`script` lines through bash,
the artifact and cache steps done by copying), on a tiny Redis suite:
real shard outputs, merged by the merge job's own commands into one page
with every run of the suite, each with its seed from the unsharded plan.

  /usr/bin/python3 tests/ci_nightly_test.py SOURCE_DIR BUILD_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml  # python3-yaml (scripts/setup.sh --tests)

SOURCE, BUILD = (os.path.abspath(p) for p in sys.argv[1:3])
GITHUB = os.path.join(SOURCE, "ci/github/locksmith-nightly.yml")
GITLAB = os.path.join(SOURCE, "ci/gitlab/locksmith-nightly.gitlab-ci.yml")
SEED = "4242"
# Two cells of three runs: six runs over the files' four shards.
TINY_SUITE = {
    "description": "ci_nightly_test: the nightly's machinery on a tiny suite",
    "test_count": 3,
    "base": {"backend": "redis", "nemesis": "none", "concurrency": 2, "time_limit_s": 0.5},
    "cells": [{"name": "first"}, {"name": "second"}],
}
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what, flush=True)


def sh(line, cwd, env):
    """A `run`/`script` line as the runner runs it (bash, exit on error)."""
    print("$ " + line, flush=True)
    return subprocess.run(["bash", "-eo", "pipefail", "-c", line], cwd=cwd, env=env).returncode


def job_dir(root, name):
    """A fresh checkout for one job: the repository's ci/, scripts/ and
    suites/, and build/ (the set-up's result, done once for every job)."""
    d = os.path.join(root, name)
    os.makedirs(d)
    for entry in ("ci", "scripts", "suites"):
        os.symlink(os.path.join(SOURCE, entry), os.path.join(d, entry))
    os.symlink(BUILD, os.path.join(d, "build"))
    with open(os.path.join(d, "tiny.json"), "w") as f:
        json.dump(TINY_SUITE, f)
    return d


def is_setup(line):
    return line.strip() == "scripts/setup.sh" or line.startswith("apt-get ")


def subcommands():
    out = subprocess.run([os.path.join(BUILD, "locksmith"), "--help"], capture_output=True,
                         text=True).stdout
    section = re.split(r"(?i)subcommands:", out, maxsplit=1)[-1]
    return set(re.findall(r"^\s+([a-z]+)\s", section, re.M))


def check_named_commands(lines):
    """Each line's first word that is a repository path is an executable
    file; each locksmith subcommand the ci/ scripts call is a real one."""
    for line in lines:
        word = line.split()[0]
        if "/" in word and not word.startswith("$"):
            path = os.path.join(SOURCE, word)
            check(os.path.isfile(path) and os.access(path, os.X_OK), "no executable " + word)
    known = subcommands()
    check("suite" in known and "merge" in known, "locksmith --help lists " + str(known))
    for script in ("ci/run-shard.sh", "ci/merge-night.sh"):
        with open(os.path.join(SOURCE, script)) as f:
            for sub in re.findall(r'"\$locksmith" ([a-z]+)', f.read()):
                check(sub in known, script + " calls locksmith " + sub + ", not a subcommand")


def substitute(text, values):
    """GitHub's ${{ expr }} with the values this test gives them."""
    return re.sub(r"\$\{\{\s*([^}]+?)\s*\}\}", lambda m: values[m.group(1)], str(text))


def check_merged(night, expect_shards):
    summary = json.load(open(os.path.join(night, "summary.json")))
    plan = subprocess.run([os.path.join(BUILD, "locksmith"), "suite", "--help"],
                          capture_output=True, text=True)
    check(plan.returncode == 0, "suite --help")
    runs = summary["runs"]
    check(summary["completed_runs"] == 6 and summary["planned_runs"] == 6,
          night + ": %d of %d runs" % (summary["completed_runs"], summary["planned_runs"]))
    check(sorted((r["cell"], r["repeat"]) for r in runs) ==
          [(c, i) for c in ("first", "second") for i in range(3)], night + ": the runs")
    check(len({r["seed"] for r in runs}) == 6, night + ": six seeds")
    check(all(r["verdict"] == "valid" for r in runs), night + ": verdicts " +
          str([r["verdict"] for r in runs]))
    index = open(os.path.join(night, "index.html")).read()
    for r in runs:
        check(os.path.isfile(os.path.join(night, r["dir"], "report.html")), r["dir"])
        check('href="%s/report.html"' % r["dir"] in index, "index links " + r["dir"])
    shards = json.load(open(os.path.join(night, "shards.json")))["shards"]
    check(len(shards) == expect_shards, "%d shards merged" % len(shards))
    return {(r["cell"], r["repeat"]): r["seed"] for r in runs}


def github(root):
    wf = yaml.safe_load(open(GITHUB))
    triggers = wf.get(True, wf.get("on"))  # YAML 1.1 reads the key `on` as true
    check("schedule" in triggers, "github: scheduled")
    jobs = wf["jobs"]
    shard, merge = jobs["shard"], jobs["merge"]
    matrix = shard["strategy"]["matrix"]["shard"]
    check(matrix == list(range(1, len(matrix) + 1)) and len(matrix) > 1, "github: matrix 1..N")
    check(shard["strategy"].get("fail-fast") is False, "github: a shard's failure stops none")
    check("${{ matrix.shard }}/" + str(len(matrix)) in shard["env"]["LOCKSMITH_SHARD"],
          "github: LOCKSMITH_SHARD from the matrix")
    check(merge["needs"] == "shard" and "cancelled()" in merge["if"],
          "github: merge after every shard, even failed ones")
    uses = lambda job: [s["uses"].split("@")[0] for s in job["steps"] if "uses" in s]
    check(uses(shard) == ["actions/checkout", "actions/upload-artifact"], "github: " + str(uses(shard)))
    check(uses(merge) == ["actions/checkout", "actions/download-artifact", "actions/cache/restore",
                          "actions/upload-artifact", "actions/cache/save"], "github: " + str(uses(merge)))
    runs = lambda job: [s["run"] for s in job["steps"] if "run" in s]
    check(runs(shard)[0] == "scripts/setup.sh" and runs(merge)[0] == "scripts/setup.sh",
          "github: both jobs set up as the README says")
    check_named_commands(runs(shard) + runs(merge))

    artifacts, cache = os.path.join(root, "artifacts"), os.path.join(root, "cache")
    for n in matrix:
        values = {"github.run_id": SEED, "matrix.shard": str(n)}
        d = job_dir(root, "gh-shard-%d" % n)
        env = dict(os.environ, **{k: substitute(v, values) for k, v in wf["env"].items()})
        env.update({k: substitute(v, values) for k, v in shard["env"].items()})
        env["LOCKSMITH_SUITE"] = "tiny.json"
        for step in shard["steps"]:
            if "run" in step and not is_setup(step["run"]):
                check(sh(step["run"], d, env) == 0, "github shard %d: %s" % (n, step["run"]))
            elif step.get("uses", "").startswith("actions/upload-artifact"):
                # The artifact holds what links point to, as upload-artifact stores them.
                name = substitute(step["with"]["name"], values)
                shutil.copytree(os.path.join(d, step["with"]["path"]), os.path.join(artifacts, name))
    seeds = []
    for night in (1, 2):
        d = job_dir(root, "gh-merge-%d" % night)
        values = {"github.run_id": SEED + str(night)}
        env = dict(os.environ, **{k: substitute(v, values) for k, v in wf["env"].items()})
        failed = False  # after a failed step, only `if: always()` steps run
        for step in merge["steps"]:
            action, w = step.get("uses", "").split("@")[0], step.get("with", {})
            if failed and "always()" not in step.get("if", ""):
                continue
            if "run" in step and not is_setup(step["run"]):
                failed = sh(step["run"], d, env) != 0
                check(not failed, "github merge: " + step["run"])
            elif action == "actions/download-artifact":
                for name in sorted(os.listdir(artifacts)):
                    shutil.copytree(os.path.join(artifacts, name), os.path.join(d, w["path"], name),
                                    symlinks=True)
            elif action == "actions/cache/restore" and os.path.isdir(cache):
                shutil.copytree(cache, os.path.join(d, w["path"]))
            elif action == "actions/cache/save":
                shutil.rmtree(cache, ignore_errors=True)
                shutil.copytree(os.path.join(d, w["path"]), cache)
            elif action == "actions/upload-artifact":
                check(os.path.isfile(os.path.join(d, w["path"], "index.html")), "github: the page")
        seeds.append(check_merged(os.path.join(d, "night"), len(matrix)))
    check(os.path.isfile(os.path.join(cache, "summary.json")), "github: tonight kept for tomorrow")
    return seeds[0]


def gitlab(root):
    ci = yaml.safe_load(open(GITLAB))
    shard, merge = ci["locksmith-shard"], ci["locksmith-merge"]
    total = shard["parallel"]
    check(isinstance(total, int) and total > 1, "gitlab: parallel N")
    check(ci["stages"] == ["shard", "merge"] and shard["stage"] == "shard" and
          merge["stage"] == "merge", "gitlab: stages")
    check(merge["needs"] == [{"job": "locksmith-shard", "artifacts": True}], "gitlab: needs")
    check(any(r.get("when") == "always" for r in merge["rules"]), "gitlab: merge after failures")
    check(shard["artifacts"]["when"] == "always" and merge["artifacts"]["when"] == "always",
          "gitlab: artifacts kept whatever the verdict")
    check(shard["script"][0] == "scripts/setup.sh" and merge["script"][0] == "scripts/setup.sh",
          "gitlab: both jobs set up as the README says")
    check_named_commands([l for l in shard["script"] + merge["script"] if not is_setup(l)])

    variables = {k: v.replace("$CI_PIPELINE_ID", SEED) for k, v in ci["variables"].items()}
    merge_dir = job_dir(root, "gl-merge")
    for n in range(1, total + 1):
        d = job_dir(root, "gl-shard-%d" % n)
        env = dict(os.environ, CI_NODE_INDEX=str(n), CI_NODE_TOTAL=str(total), **variables)
        env["LOCKSMITH_SUITE"] = "tiny.json"
        for line in shard["script"]:
            if not is_setup(line):
                check(sh(line, d, env) == 0, "gitlab shard %d: %s" % (n, line))
        for path in shard["artifacts"]["paths"]:  # every job's, into the merge job's directory
            shutil.copytree(os.path.join(d, path), os.path.join(merge_dir, path), symlinks=True,
                            dirs_exist_ok=True)
    env = dict(os.environ, CI_API_V4_URL="http://127.0.0.1:9/api/v4", CI_PROJECT_ID="1",
               CI_COMMIT_REF_NAME="main", CI_JOB_TOKEN="none", **variables)
    for line in merge["script"]:
        if not is_setup(line):
            check(sh(line, merge_dir, env) == 0, "gitlab merge: " + line)
    for path in merge["artifacts"]["paths"]:
        check(os.path.isfile(os.path.join(merge_dir, path, "index.html")), "gitlab: the page")
    return check_merged(os.path.join(merge_dir, "night"), total)


with tempfile.TemporaryDirectory(prefix="ci_nightly_test.") as root:
    github_seeds = github(os.path.join(root, "github"))
    gitlab_seeds = gitlab(os.path.join(root, "gitlab"))
    # One suite, one seed: the same runs with the same seeds, however split.
    check(github_seeds == gitlab_seeds, "the two systems' nights ran the same seeds")
print("ci_nightly_test: %d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
