"""What each incident case must leave in its log (check_incidents.py runs them). Each check gets the profiled run
(its stdout names this run's threads, streams and sizes) and its Log, and returns what is wrong (empty: right)."""
from incident_log import cuda_error_code, facts, launches, suspects

HANG_S = 5  # GPUFL_HANG_TIMEOUT_S of the profiled runs
GIVE_UP_S = 20  # the spinning kernels' own limit (the case's argument, when given)
TORCH_CHUNK = 1 << 30  # incident_torch_oom.py's allocation


def leaf(log, path_id):
    return log.scope(path_id or 0).split("/")[-1]


def exactly_one(log, kind):
    found = log.of_kind(kind)
    return (found[0], []) if len(found) == 1 else (None, ["%d %s incidents, expected 1" % (len(found), kind)])


def stream_named(launch, handle, incident, log, same_kernel, other_kernel):
    """The launch names its stream: the handle the program printed, and/or a CUPTI stream id that the launches of
    `same_kernel` (the same stream) share and those of `other_kernel` (another stream) do not."""
    if not launch.get("stream_handle") and not launch.get("stream"):
        return ["no stream named"]
    why = []
    if launch.get("stream_handle") and int(launch["stream_handle"]) != int(handle):
        why.append("stream_handle %s, the program's stream is %s" % (launch["stream_handle"], handle))
    if launch.get("stream"):
        same = ({e.get("stream") for e in launches(incident, same_kernel)} | log.streams_of(same_kernel)) - {None}
        other = ({e.get("stream") for e in launches(incident, other_kernel)} | log.streams_of(other_kernel)) - {None}
        if same and launch["stream"] not in same:
            why.append("stream %s, but %s ran on %s" % (launch["stream"], same_kernel, sorted(same)))
        if launch["stream"] in other:
            why.append("stream %s is %s's, the other stream" % (launch["stream"], other_kernel))
    return why


def check_oob(r, log):
    f = facts(r["stdout"])
    i, why = exactly_one(log, "cuda_error")
    if not i:
        return why
    code = cuda_error_code(r["stderr"])
    if i.get("error_code") != code:
        why.append("error_code %s, the program got %s" % (i.get("error_code"), code))
    if "ynchronize" not in (i.get("api") or ""):
        why.append("api %r, not the synchronize that returned the error" % i.get("api"))
    if not i.get("attribution"):
        why.append("no attribution (how sure the suspects are)")
    bad = launches(i, "oob_write")
    if len(bad) != 1:
        return why + ["oob_write %d times in in_flight (%d listed of %s)" % (
            len(bad), len(i.get("in_flight") or []), i.get("in_flight_count"))]
    bad = bad[0]
    if bad.get("suspect") is not True:
        why.append("oob_write is not a suspect")
    since = int(f.get("SINCE_SYNC", 0))
    if not 1 <= len(suspects(i)) <= since:
        why.append("%d suspects; %d launches came after the last synchronize" % (len(suspects(i)), since))
    if leaf(log, bad.get("scope")) != "bad_step":
        why.append("oob_write's scope is %r, not bad_step" % log.scope(bad.get("scope") or 0))
    return why + stream_named(bad, f.get("HANDLE s2", 0), i, log, "shift_step", "scale_step")


def hang_names(i, log, waiters, scopes):
    """The hang incident names every waiter (name -> (tid, stream handle)) blocked in a stream synchronize, and
    exactly one spin_on_flag suspect on each waiter's stream, in `scopes`."""
    why = []
    blocked = {b.get("tid"): b for b in i.get("blocked") or []}
    for name, (tid, handle) in waiters.items():
        b = blocked.get(tid)
        if not b:
            why.append("thread %s (tid %s) not among the blocked %s" % (name, tid, sorted(blocked)))
            continue
        if "StreamSynchronize" not in (b.get("api") or ""):
            why.append("thread %s blocked in %r, not a stream synchronize" % (name, b.get("api")))
        if b.get("stream_handle") and b["stream_handle"] != handle:
            why.append("thread %s waits on stream %s, its stream is %s" % (name, b["stream_handle"], handle))
        if not b.get("since_ns"):
            why.append("thread %s: no since_ns" % name)
    spins = launches(i, "spin_on_flag", suspects_only=True)
    if len(spins) != len(waiters):
        why.append("%d spin_on_flag suspects, expected %d" % (len(spins), len(waiters)))
    elif all(e.get("stream_handle") for e in spins):
        if sorted(e["stream_handle"] for e in spins) != sorted(h for _, h in waiters.values()):
            why.append("suspects on streams %s, the waiters' are %s" % (
                sorted(e["stream_handle"] for e in spins), sorted(h for _, h in waiters.values())))
    elif len({e.get("stream") for e in spins} - {None}) != len(waiters):
        why.append("suspects' streams %s: not one per waiter" % [e.get("stream") for e in spins])
    if sorted(leaf(log, e.get("scope")) for e in spins) != sorted(scopes):
        why.append("suspects' scopes %s, expected %s" % (sorted(log.scope(e.get("scope") or 0) for e in spins),
                                                           sorted(scopes)))
    others = [e.get("name") for e in suspects(i) if "spin_on_flag" not in (e.get("name") or "")]
    if others:
        why.append("other suspects: %s" % others[:4])
    return why


def hang_delay(i, log, tids, give_up_s):
    """The incident came after the watchdog's timeout and before the kernels gave up."""
    since = [b.get("since_ns") for b in i.get("blocked") or [] if b.get("tid") in tids and b.get("since_ns")]
    if not since:
        return []
    waited = (i.get("ts_ns", 0) - min(since)) / 1e9
    return [] if HANG_S - 0.5 <= waited <= give_up_s - 1 else [
        "incident %.1f s after the wait began (watchdog %d s, kernels give up at %g s)" % (waited, HANG_S, give_up_s)]


def give_up_s(r):
    return float(r["args"][0]) if r.get("args") else GIVE_UP_S


def check_spin(r, log):
    f = facts(r["stdout"])
    i, why = exactly_one(log, "hang")
    if not i:
        return why
    tid = int(f.get("TID main", -1))
    why += hang_names(i, log, {"main": (tid, int(f.get("HANDLE s", 0)))}, ["wait_step"])
    why += hang_delay(i, log, {tid}, give_up_s(r))
    if not i.get("gpu_mem_total_bytes"):
        why.append("no GPU state (gpu_mem_total_bytes) with sampling every 100 ms")
    return why


def check_deadlock(r, log):
    f = facts(r["stdout"])
    hangs = log.of_kind("hang")
    if not 1 <= len(hangs) <= 2:  # one per distinct state: a blocked, then a and b (or both at once)
        return ["%d hang incidents, expected 1 or 2" % len(hangs)]
    waiters = {n: (int(f.get("TID " + n, -1)), int(f.get("HANDLE " + n, 0))) for n in ("a", "b")}
    attempts = [hang_names(i, log, waiters, ["peer_a", "peer_b"]) for i in hangs]
    if all(attempts):
        return ["no hang incident names both threads and kernels: " + " | ".join(attempts[-1])]
    full = hangs[attempts.index([])]
    return hang_delay(full, log, {tid for tid, _ in waiters.values()}, give_up_s(r))


def check_oom_raw(r, log):
    f = facts(r["stdout"])
    i, why = exactly_one(log, "out_of_memory")
    if not i:
        return why
    if i.get("requested_bytes") != int(f.get("REQUEST", -1)):
        why.append("requested_bytes %s, the program asked %s" % (i.get("requested_bytes"), f.get("REQUEST")))
    if i.get("total_bytes") != int(f.get("TOTAL", -1)):
        why.append("total_bytes %s, cudaMemGetInfo says %s" % (i.get("total_bytes"), f.get("TOTAL")))
    if not 0 < (i.get("free_bytes") or 0) <= (i.get("total_bytes") or 0):
        why.append("free_bytes %s of total %s" % (i.get("free_bytes"), i.get("total_bytes")))
    api = (i.get("api") or "").lower()
    if "malloc" not in api and "memalloc" not in api:
        why.append("api %r, not the allocation" % i.get("api"))
    if leaf(log, i.get("scope")) != "alloc_step":
        why.append("scope %r, not alloc_step" % log.scope(i.get("scope") or 0))
    return why


def check_torch_oom(r, log):
    i, why = exactly_one(log, "out_of_memory")
    if not i:
        return why
    asked = i.get("requested_bytes") or 0
    if not TORCH_CHUNK <= asked <= TORCH_CHUNK + (20 << 20):
        why.append("requested_bytes %s, the tensor is %d" % (asked, TORCH_CHUNK))
    if not (i.get("total_bytes") or 0) > 0 or (i.get("free_bytes") or 0) >= asked:
        why.append("free_bytes %s, total_bytes %s for a request of %s" % (
            i.get("free_bytes"), i.get("total_bytes"), asked))
    if leaf(log, i.get("scope")) != "alloc_loop":
        why.append("scope %r, not alloc_loop" % log.scope(i.get("scope") or 0))
    return why


def check_signal(name, number):
    def check(r, log):
        i, why = exactly_one(log, "signal")
        if not i:
            return why
        if i.get("error_name") != name and i.get("error_code") != number:
            why.append("error_name %r, error_code %r: not %s" % (i.get("error_name"), i.get("error_code"), name))
        want = {k.split()[1]: int(v) for k, v in facts(r["stdout"]).items() if k.startswith("COUNT ")}
        got = log.kernels_by_name()
        if any(got.get(k, 0) != n for k, n in want.items()):
            why.append("kernels in the log %s, launched %s" % (dict(got), want))
        return why

    return check


def check_carveout(r, log):
    f = facts(r["stdout"])
    api = int(f.get("OCCUPANCY carveout_tail max_active_blocks", -1))
    defs = [d for d in log.defs.values() if "carveout_tail" in (d.get("demangled") or "")]
    if not defs:
        return ["no kernel_def of carveout_tail"]
    why = []
    for d in defs:
        if d.get("carveout_pct") != 25:
            why.append("kernel_def %s: carveout_pct %s, not 25" % (d.get("k"), d.get("carveout_pct")))
        if d.get("max_active_blocks") != api:
            why.append("kernel_def %s: max_active_blocks %s (limited by %s), occupancy API %d" % (
                d.get("k"), d.get("max_active_blocks"), d.get("limiting_resource"), api))
    if log.kernels_by_name().get("carveout_tail") != 1:
        why.append("%s carveout_tail kernel events, launched once" % log.kernels_by_name().get("carveout_tail"))
    return why


def plain_exits(rc, result=None, stderr_error=False):
    """What the plain run must do for the case to test anything."""
    def check(p):
        if p["rc"] != rc:
            return "exit %s, expected %s" % (p["rc"], rc)
        if result and result not in p["stdout"]:
            return "no %r in its output" % result
        if stderr_error and cuda_error_code(p["stderr"]) is None:
            return "no CUDA error on stderr"
        return ""

    return check


# case -> engines, the incident kinds it must cause (and no other), what the plain run must show, the check; the
# hang cases run side by side; the PyTorch case is a Python script; program_case and args: what gpufl_incidents
# runs (default: the case's name, no arguments); modes: plain, trace, linked unless said.
EXPECT = {
    # The driver may report the fault as an Xid too (31, 43): an `xid` incident then, counted in the summary.
    "oob": {"engines": ["None"], "kinds": {"cuda_error"}, "optional_kinds": {"xid"}, "plain": plain_exits(1, stderr_error=True),
            "check": check_oob},
    "spin": {"engines": ["None", "PcSampling"], "kinds": {"hang"}, "side_by_side": True,
             "plain": plain_exits(0, "RESULT spin_gave_up 1"), "check": check_spin},
    # The hang fixture: the same, its kernel giving up after 8 s (a smaller log), traced only.
    "spin_fixture": {"program_case": "spin", "args": ["8"], "engines": ["None"], "modes": ["plain", "trace"],
                     "kinds": {"hang"}, "side_by_side": True, "plain": plain_exits(0, "RESULT spin_gave_up 1"),
                     "check": check_spin},
    "deadlock": {"engines": ["None"], "kinds": {"hang"}, "side_by_side": True,
                 "plain": plain_exits(0, "RESULT deadlock_broken_by_timeout 1"), "check": check_deadlock},
    "oom_raw": {"engines": ["None"], "kinds": {"out_of_memory"}, "plain": plain_exits(0, "RESULT oom_raw_error 2"),
                "check": check_oom_raw},
    "segv": {"engines": ["None"], "kinds": {"signal"}, "plain": plain_exits(-11), "check": check_signal("SIGSEGV", 11)},
    "abort": {"engines": ["None"], "kinds": {"signal"}, "plain": plain_exits(-6), "check": check_signal("SIGABRT", 6)},
    "carveout_mixed": {"engines": ["None"], "kinds": set(),
                       "plain": plain_exits(0, "OCCUPANCY carveout_tail max_active_blocks"), "check": check_carveout},
    "torch_oom": {"engines": ["None"], "kinds": {"out_of_memory"}, "python": "incident_torch_oom.py",
                  "plain": plain_exits(0, "RESULT torch_oom_caught True"), "check": check_torch_oom},
}
# The run whose logs become each kind's fixture (traced).
FIXTURES = {"cuda_error": ("oob", "None"), "hang": ("spin_fixture", "None"), "oom": ("oom_raw", "None"),
            "crash": ("segv", "None")}
SIGTERM_CASE = "spin_sigterm"
