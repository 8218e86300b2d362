"""What check_incidents.py reads: the facts a program printed and the records `gpufl cat` prints for a log."""
import json
import re
import subprocess
from collections import Counter


def facts(stdout):
    """`KEY [WORDS] VALUE` lines -> {"KEY [WORDS]": "VALUE"} (the last of a key wins)."""
    out = {}
    for line in stdout.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].isupper():
            out[" ".join(parts[:-1])] = parts[-1]
    return out


def result_lines(stdout):
    """The RESULT lines, sorted (threads print them in any order): what must not change under gpufl."""
    return sorted(line for line in stdout.splitlines() if line.startswith("RESULT "))


# The CUDA error in a failing program's last line ("<call> failed: <text> (<code>)"): its text and code may differ
# run to run (an illegal address is 700 or 717), so stderr is compared with it replaced.
CUDA_FAILURE = re.compile(r"failed: .* \((\d+)\)$", re.M)


def normalized_stderr(text):
    return CUDA_FAILURE.sub("failed: <cuda error>", text)


def cuda_error_code(stderr):
    m = CUDA_FAILURE.search(stderr)
    return int(m.group(1)) if m else None


def short_name(demangled):
    """spin_on_flag for "(anonymous namespace)::spin_on_flag(int const volatile*, int*, long long)"."""
    name = re.sub(r"\(.*", "", (demangled or "").replace("(anonymous namespace)::", ""))
    return name.split("<")[0].split("::")[-1].split(" ")[-1]


class Log:
    """One session's records, as `gpufl cat PREFIX` prints them (channels merged, kernel blocks expanded)."""

    def __init__(self, gpufl, prefix):
        try:
            p = subprocess.run([gpufl, "cat", prefix], capture_output=True, text=True, timeout=60)
            self.cat_rc, self.cat_stderr, text = p.returncode, p.stderr.strip(), p.stdout
        except subprocess.TimeoutExpired:
            self.cat_rc, self.cat_stderr, text = "timeout (60 s)", "", ""
        self.records, self.bad_lines = [], 0
        for line in text.splitlines():
            try:
                self.records.append(json.loads(line))
            except ValueError:
                self.bad_lines += 1
        self.types = Counter(r.get("type") for r in self.records)
        self.incidents = [r for r in self.records if r.get("type") == "incident"]
        self.defs = {r.get("k"): r for r in self.records if r.get("type") == "kernel_def"}
        self.kernel_events = [r for r in self.records if r.get("type") == "kernel_event"]
        self.paths = {r.get("p"): (r.get("parent", 0), r.get("name", "?")) for r in self.records
                      if r.get("type") == "scope_path"}

    def problems(self):
        """Why the log is not readable to its end (empty: it is)."""
        why = []
        if self.cat_rc != 0:
            why.append("gpufl cat exit %s" % self.cat_rc)
        if self.cat_stderr:
            why.append("gpufl cat said: " + self.cat_stderr.splitlines()[0][:200])
        if self.bad_lines:
            why.append("%d lines of gpufl cat are not JSON" % self.bad_lines)
        if not self.types.get("session_start"):
            why.append("no session_start")
        return why

    def scope(self, path_id):
        """The scope path id as "outer/inner" ("" for 0 or an unknown id)."""
        names, seen = [], set()
        while path_id and path_id in self.paths and path_id not in seen:
            seen.add(path_id)
            parent, name = self.paths[path_id]
            names.append(name)
            path_id = parent
        return "/".join(reversed(names))

    def kinds(self):
        return Counter(i.get("kind") for i in self.incidents)

    def of_kind(self, kind):
        return [i for i in self.incidents if i.get("kind") == kind]

    def kernels_by_name(self):
        return Counter(short_name(self.defs.get(e.get("k"), {}).get("demangled")) for e in self.kernel_events)

    def streams_of(self, kernel):
        """The CUPTI stream ids the kernel_events of `kernel` (short name) ran on."""
        return {e.get("stream") for e in self.kernel_events
                if short_name(self.defs.get(e.get("k"), {}).get("demangled")) == kernel}


def launches(incident, name, suspects_only=False):
    """The in-flight launches of an incident whose (mangled) name contains `name`."""
    return [e for e in incident.get("in_flight") or [] if name in (e.get("name") or "")
            and (e.get("suspect") is True or not suspects_only)]


def suspects(incident):
    return [e for e in incident.get("in_flight") or [] if e.get("suspect") is True]
