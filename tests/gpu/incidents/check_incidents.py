#!/usr/bin/env python3
"""The flight recorder's GPU tests (issue 28) and the mixed-program carveout (issue 29, item 3).

Every case (incidents.hpp, incident_torch_oom.py) runs plain, under `gpufl trace` and linked, with a 5 s hang
watchdog (GPUFL_HANG_TIMEOUT_S=5) and system sampling every 100 ms; each run ends within 60 s (SIGTERM to its
process group, SIGKILL 5 s later). A profiled run must
  - exit as the plain run did (a signal death by the same signal), print the same stderr (a CUDA error's text and
    code normalized: 700 and 717 both occur) and the same RESULT lines,
  - leave a log that `gpufl cat` and `gpufl report` read to its end, with session_end (after a crash too),
  - hold exactly the incident kinds the case causes, saying what the case's expectations (EXPECT below) say,
  - have the Incidents section in its report (--skip-report-check leaves this out).
The hang cases run side by side (they spend 20 s waiting); everything else one at a time (the PyTorch case fills
the GPU's memory). `spin` runs under PcSampling too, and is SIGTERMed 3 s in, plain and under PcSampling: it must
end within 5 s by SIGTERM, as the plain run does, with no process left.

Writes OUT/runs/<case>/<engine>-<mode>/ (stdout, stderr, log, report), OUT/summary.json; with --fixtures DIR, the
logs of one passing traced run of each incident kind (crash, hang, oom, cuda_error) into DIR/<kind>/.
Prints one PASS/FAIL/SKIP line per case, then the JSON summary. Exit status 1 when a case failed.

Usage: check_incidents.py BUILD OUT [--cases a,b] [--fixtures DIR] [--skip-report-check] [--python PY]
                           [--budget-s N]
"""
import argparse
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from incident_expect import EXPECT, FIXTURES, SIGTERM_CASE
from incident_log import Log, facts, normalized_stderr, result_lines

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_LIMIT_S, KILL_AFTER_S = 60, 5
HANG_TIMEOUT_S = 5
SAMPLE_RATE_MS = 100
SIGTERM_AFTER_S, SIGTERM_WITHIN_S = 3, 5
MODES = ("plain", "trace", "linked")


def run(cmd, env, d, sigterm_after=None):
    """Runs cmd in its own session with stdout/stderr in d; returns what happened. With sigterm_after, SIGTERM goes
    to cmd's process alone after that many seconds (as a user's kill would), and `took_s` says how long it then
    took to end."""
    os.makedirs(d, exist_ok=True)
    out_path, err_path = os.path.join(d, "stdout.txt"), os.path.join(d, "stderr.txt")
    t0 = time.monotonic()
    r = {"timed_out": False}
    with open(out_path, "w") as out, open(err_path, "w") as err:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, cwd=d, start_new_session=True)
        limit = RUN_LIMIT_S
        if sigterm_after is not None:
            try:
                proc.wait(timeout=sigterm_after)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGTERM)
            r["sigterm_at_s"] = time.monotonic() - t0
            limit = SIGTERM_WITHIN_S
        try:
            proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            r["timed_out"] = True
            stop(proc)
    r["wall_s"] = time.monotonic() - t0
    if sigterm_after is not None:
        r["took_s"] = r["wall_s"] - r["sigterm_at_s"]
    r["rc"] = proc.returncode
    with open(out_path, errors="replace") as f:
        r["stdout"] = f.read()
    with open(err_path, errors="replace") as f:
        r["stderr"] = f.read()
    return r


def stop(proc):
    """SIGTERM to the run's process group and to every process below it (`gpufl trace` runs the program in a group
    of its own), SIGKILL to what is left 5 s later."""
    family = [proc.pid] + descendants(proc.pid)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in family:
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, sig)
                except OSError:
                    pass
        try:
            proc.wait(timeout=KILL_AFTER_S)
        except subprocess.TimeoutExpired:
            pass
        if sig == signal.SIGTERM and proc.returncode is not None and not any(map(alive, family[1:])):
            return
    proc.wait()


def descendants(pid):
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open("/proc/%s/stat" % entry) as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def alive(pid):
    """True while pid exists and is not a zombie."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


class Checker:
    def __init__(self, args):
        self.build, self.out = os.path.abspath(args.build), os.path.abspath(args.out)
        self.gpufl = os.path.join(self.build, "apps/gpufl/gpufl")
        self.program = os.path.join(self.build, "tests/gpu/incidents/gpufl_incidents")
        self.python = args.python
        self.report_check = not args.skip_report_check
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("GPUFL_", "GFL_")) and k not in (
                        "CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH", "PYTORCH_CUDA_ALLOC_CONF")}
        self.env["PYTHONUNBUFFERED"] = "1"
        self.runs = {}  # (case, engine, mode) -> run result with "why"
        self.python_linked = None  # why a linked Python run cannot be made (None: it can), found once
        self.start, self.budget_s = time.monotonic(), args.budget_s

    def command(self, case, linked):
        spec = EXPECT[case]
        if spec.get("python"):
            return [self.python, os.path.join(HERE, spec["python"])] + (["--linked"] if linked else [])
        return [self.program] + (["--linked"] if linked else []) + [spec.get("program_case", case)] + spec.get(
            "args", [])

    def mode_command(self, case, engine, mode, prefix):
        """(command, environment) of one run."""
        env = dict(self.env)
        if mode == "plain":
            return self.command(case, False), env
        env["GPUFL_HANG_TIMEOUT_S"] = str(HANG_TIMEOUT_S)
        if mode == "trace":
            return [self.gpufl, "trace", "-q", "--engine", engine, "--sample-rate", str(SAMPLE_RATE_MS), "-o",
                    prefix, "--"] + self.command(case, False), env
        env.update({"GPUFL_LOG_PATH": prefix, "GPUFL_ENGINE": engine, "GPUFL_SAMPLE_RATE_MS": str(SAMPLE_RATE_MS)})
        return self.command(case, True), env

    def one(self, case, engine, mode):
        d = os.path.join(self.out, "runs", case, "%s-%s" % (engine, mode) if mode != "plain" else "plain")
        shutil.rmtree(d, ignore_errors=True)
        prefix = os.path.join(d, "log")
        if time.monotonic() - self.start > self.budget_s:
            r = {"status": "SKIP", "why": ["past the --budget-s of %g s" % self.budget_s]}
        elif mode == "linked" and EXPECT[case].get("python") and self.python_linked_problem():
            r = {"status": "SKIP", "why": [self.python_linked_problem()]}
        else:
            cmd, env = self.mode_command(case, engine, mode, prefix)
            r = run(cmd, env, d)
            r.update({"dir": d, "prefix": prefix, "args": EXPECT[case].get("args", [])})
        self.runs[(case, engine, mode)] = r
        return r

    def python_linked_problem(self):
        if self.python_linked is None:
            p = subprocess.run([self.python, "-c", "import gpufl"], capture_output=True, text=True, env=self.env)
            self.python_linked = "" if p.returncode == 0 else (
                "%s cannot import gpufl (run the python step first): %s" % (
                    self.python, (p.stderr.strip().splitlines() or ["?"])[-1][:160]))
        return self.python_linked

    def judge(self, case, engine, mode):
        """Fills run["why"] (empty: passed) and run["status"] for a profiled run, against the plain run."""
        r, plain = self.runs[(case, engine, mode)], self.runs[(case, "None", "plain")]
        if r.get("status") == "SKIP":
            return
        if plain.get("status") == "SKIP":
            r.update({"status": "SKIP", "why": ["no plain run to compare with"]})
            return
        spec = EXPECT[case]
        why = []
        plain_problem = spec["plain"](plain)
        if plain_problem:
            why.append("plain run is not what the test needs: " + plain_problem)
        if r["timed_out"]:
            why.append("did not end within %d s" % RUN_LIMIT_S)
        if r["rc"] != plain["rc"]:
            why.append("exit %s, plain %s" % (r["rc"], plain["rc"]))
        if normalized_stderr(r["stderr"]) != normalized_stderr(plain["stderr"]):
            why.append("stderr differs: %r, plain %r" % (r["stderr"][-300:], plain["stderr"][-300:]))
        if result_lines(r["stdout"]) != result_lines(plain["stdout"]):
            why.append("RESULT lines differ: %s, plain %s" % (result_lines(r["stdout"]), result_lines(plain["stdout"])))
        log = Log(self.gpufl, r["prefix"])
        why += log.problems()
        if not log.types.get("session_end"):
            why.append("no session_end")
        kinds = log.kinds()
        if set(kinds) - set(spec.get("optional_kinds", ())) != set(spec["kinds"]):
            why.append("incident kinds %s, expected %s" % (dict(kinds), sorted(spec["kinds"])))
        why += spec["check"](r, log)
        report = subprocess.run([self.gpufl, "report", r["prefix"]], capture_output=True, text=True, timeout=120)
        with open(os.path.join(r["dir"], "report.txt"), "w") as f:
            f.write(report.stdout + ("\n--- stderr\n" + report.stderr if report.stderr else ""))
        if report.returncode != 0:
            why.append("gpufl report exit %d" % report.returncode)
        warnings = [line.strip() for line in report.stdout.splitlines() if "Reader Warnings" in line]
        if warnings:
            why.append(warnings[0])
        if self.report_check and spec["kinds"] and "incident" not in report.stdout.lower():
            why.append("the report does not mention the incident")
        r["why"], r["status"] = why, "FAIL" if why else "PASS"
        r["incidents"] = dict(kinds)

    def sigterm(self, engine, mode):
        """spin, SIGTERMed after 3 s: ends within 5 s by SIGTERM (exit -15 or 143), no process left behind."""
        case = SIGTERM_CASE
        if time.monotonic() - self.start > self.budget_s:
            self.runs[(case, engine, mode)] = {"status": "SKIP", "why": ["past the --budget-s of %g s" % self.budget_s]}
            return
        d = os.path.join(self.out, "runs", case, "%s-%s" % (engine, mode))
        shutil.rmtree(d, ignore_errors=True)
        prefix = os.path.join(d, "log")
        cmd, env = self.mode_command("spin", engine, mode, prefix)
        r = run(cmd, env, d, sigterm_after=SIGTERM_AFTER_S)
        r.update({"dir": d, "prefix": prefix})
        why = []
        if r["timed_out"] or r["took_s"] > SIGTERM_WITHIN_S:
            why.append("did not end within %d s of SIGTERM (%s)" % (
                SIGTERM_WITHIN_S, "killed" if r["timed_out"] else "%.1f s" % r["took_s"]))
        if r["rc"] not in (-signal.SIGTERM, 128 + signal.SIGTERM):
            why.append("exit %s, not by SIGTERM" % r["rc"])
        pid = facts(r["stdout"]).get("TID main")
        if pid is None:
            why.append("the program never printed its pid (it did not reach the spin)")
        elif alive(int(pid)):
            why.append("the program (pid %s) still runs after what was SIGTERMed ended" % pid)
            os.kill(int(pid), signal.SIGKILL)
        if mode != "plain":
            log = Log(self.gpufl, prefix)
            r["log_problems"] = log.problems()  # said, not judged: a killed program's log may end mid-line
        r["why"], r["status"] = why, "FAIL" if why else "PASS"
        self.runs[(case, engine, mode)] = r

    def copy_fixtures(self, into):
        """The logs of one passing traced run of each incident kind, named <kind>.<channel>.log."""
        copied = {}
        for kind, (case, engine) in FIXTURES.items():
            r = self.runs.get((case, engine, "trace"))
            if not r or r.get("status") != "PASS":
                continue
            dest = os.path.join(into, kind)
            os.makedirs(dest, exist_ok=True)
            for name in sorted(os.listdir(r["dir"])):
                if name.startswith("log.") and ".log" in name:
                    shutil.copy(os.path.join(r["dir"], name), os.path.join(dest, kind + name[len("log"):]))
            shutil.copy(os.path.join(r["dir"], "report.txt"), os.path.join(dest, kind + ".report.txt"))
            copied[kind] = {n: os.path.getsize(os.path.join(dest, n)) for n in sorted(os.listdir(dest))}
        return copied


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--cases", default=",".join(list(EXPECT) + [SIGTERM_CASE]),
                    help="default: all (%(default)s)")
    ap.add_argument("--fixtures", metavar="DIR", help="copy one passing traced log of each incident kind here")
    ap.add_argument("--skip-report-check", action="store_true", help="do not look for the report's Incidents section")
    ap.add_argument("--budget-s", type=float, default=270, help="runs that would start after this are skipped")
    ap.add_argument("--python", default=sys.executable, help="interpreter of the PyTorch case (linked: with gpufl)")
    args = ap.parse_args()
    cases = args.cases.split(",")
    unknown = [c for c in cases if c not in EXPECT and c != SIGTERM_CASE]
    if unknown:
        ap.error("unknown case(s) %s; cases: %s" % (", ".join(unknown), ", ".join(list(EXPECT) + [SIGTERM_CASE])))
    c = Checker(args)
    for path in (c.gpufl, c.program):
        if not os.access(path, os.X_OK):
            ap.error("%s is missing: build the gpufl and gpufl_incidents targets" % path)
    t0 = c.start
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the crash cases leave no core files (inherited)
    runs = [(case, engine, mode) for case in cases if case in EXPECT for engine in EXPECT[case]["engines"]
            for mode in MODES if mode in EXPECT[case].get("modes", MODES) and (mode != "plain" or engine == "None")]
    side_by_side = [key for key in runs if EXPECT[key[0]].get("side_by_side") and key[1] == "None"]
    with ThreadPoolExecutor(max_workers=max(1, len(side_by_side))) as pool:
        list(pool.map(lambda key: c.one(*key), side_by_side))
    for key in runs:
        if key not in side_by_side:
            c.one(*key)
    for key in runs:
        if key[2] != "plain":
            try:
                c.judge(*key)
            except Exception as e:  # a check that meets a record it did not foresee fails the run, not the suite
                c.runs[key].update({"status": "FAIL", "why": ["checker error: %s: %s" % (type(e).__name__, e)]})
    if SIGTERM_CASE in cases:
        for engine, mode in (("None", "plain"), ("PcSampling", "trace"), ("PcSampling", "linked")):
            c.sigterm(engine, mode)
    summary = {"wall_s": round(time.monotonic() - t0, 1), "cases": {}}
    failed = False
    for case in cases:
        rows = {"%s-%s" % (e, m): r for (cs, e, m), r in c.runs.items() if cs == case and (m != "plain" or
                                                                                         case == SIGTERM_CASE)}
        statuses = {r["status"] for r in rows.values()}
        status = "FAIL" if "FAIL" in statuses else "PASS" if "PASS" in statuses else "SKIP"
        failed |= status == "FAIL"
        reasons = "; ".join("%s%s: %s" % (k, "" if r["status"] == "FAIL" else " " + r["status"], " | ".join(r["why"]))
                            for k, r in rows.items() if r["why"])
        print("%s %s%s" % (status, case, (": " + reasons) if reasons else ""), flush=True)
        summary["cases"][case] = {"status": status, "runs": {
            k: {"status": r["status"], "why": r["why"], "rc": r.get("rc"), "wall_s": round(r.get("wall_s", 0), 2),
                "incidents": r.get("incidents"), "took_s": r.get("took_s"), "log_problems": r.get("log_problems")}
            for k, r in rows.items()}}
        summary["cases"][case]["plain"] = {k: c.runs[(case, "None", "plain")].get(k) for k in ("rc", "wall_s")} \
            if (case, "None", "plain") in c.runs else None
    if args.fixtures:
        summary["fixtures"] = c.copy_fixtures(args.fixtures)
    with open(os.path.join(c.out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    print(json.dumps(summary, separators=(",", ":")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
