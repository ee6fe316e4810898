#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the bench boots of scripts/bench.sh into bench/RESULTS.md.

usage: bench-table.py OUTDIR ROUNDS WALLS BASE-RELEASE PATCHED-KERNEL-LINE

Each boot's "R state op status min median n" lines are read from
OUTDIR/NAME.txt, or OUTDIR/NAME-rN.txt for N in 1..ROUNDS, where the
smallest minimum of the rounds is kept.  The figure used is the minimum over the per-call samples:
under -icount it is the instruction count of the call's path when nothing
else (a timer tick, a kworker, an RCU callback) ran inside it, and two
boots of one kernel agree on it (the A/A column shows by how much).
"""
import datetime
import os
import statistics
import sys

out, rounds, walls, base_release, patched_line = sys.argv[1:6]
base_dir = f"build/{os.environ.get('BASE', '7.3')}"
kernel = ".".join(base_release.split(".")[:2])


def load_one(path):
    rows = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 7 and p[0] == "R":
                rows[(p[1], p[2])] = (p[3], int(p[4]), int(p[5]), int(p[6]))
    return rows


def load(name, rounds=1):
    if rounds == 1:
        return load_one(f"{out}/{name}.txt")
    rows = {}
    for r in range(1, rounds + 1):
        for key, v in load_one(f"{out}/{name}-r{r}.txt").items():
            if key not in rows or v[1] < rows[key][1]:
                rows[key] = v
    return rows


R = int(rounds)
base1, base2 = load("base1", R), load("base2", R)
series, nolsm = load("series", R), load("series-nolsm", R)
WALLS = int(walls)
wall_base = [load_one(f"{out}/base-wall-w{w}.txt") for w in range(1, WALLS + 1)]
wall_series = [load_one(f"{out}/series-wall-w{w}.txt") for w in range(1, WALLS + 1)]
storm = load("storm")
OPS = ["getpid", "prctl_not_ours", "socket_inet_close", "socket_unix_close",
       "tcp_connect_accept_close", "tcp_connect", "udp_send", "udp_sendto", "udp_connect",
       "unix_connect", "fork_exit_wait", "fork_exec_wait"]
goals = []


def cell(rows, state, op):
    r = rows.get((state, op))
    if not r:
        return "n/a"
    return f"{r[1]:,}" + ("" if r[0] == "ok" else f" ({r[0]})")


def pct(a, b):
    return "n/a" if not a or b is None else f"{100.0 * (b - a) / a:+.2f} %"


def aa(state, op):
    a, b = base1.get((state, op)), base2.get((state, op))
    if not a or not b:
        return "n/a"
    return f"{b[1] - a[1]:+,} ({pct(a[1], b[1])})"


print("# Cost of the series: `make bench`\n")
print(f"- Date: {datetime.date.today().isoformat()}")
print(f"- Patched: {patched_line}")
print(f"- Baseline: {base_release}, the same tree and `.config` without "
      f"the series (`{base_dir}/obj-base`)")
print("- Command: `make bench` (boots `bench/bench.c` as root in QEMU TCG "
      "with `-icount shift=0,sleep=off` and one CPU)")
print("- Unit: **instructions**. Under `-icount shift=0` a guest nanosecond "
      "is one executed instruction, so the figures do not depend on the "
      "host's load. Each figure is the minimum over per-call samples "
      f"(warm-up excluded), the smallest of {R} boots that differ in one "
      "unused kernel argument: the call's path when nothing else ran "
      "inside it. "
      f"\"A/A\" is {R} more boots of the baseline against the first {R}: "
      "the noise floor beside every comparison.")
print("- Every state runs as uid 1000 without capabilities; sockets it "
      "uses were made before it entered the state (kept sockets).\n")

print("## Tasks that do not use the series\n")
print("(a) no task on the machine ever closed its gate (static key off); "
      "(b) another task closed its gate earlier (static key on). "
      "Δ is against the baseline. The last three columns split (b)'s Δ: "
      "*slot* is what the patched kernel costs with disablenetwork left "
      f"out of `lsm=` ({kernel} gives every hook call site one static-call slot "
      "per built-in LSM: a patched-out jump that any new LSM adds, plus the "
      "series' code outside the LSM); *hooks* is the series' hooks with "
      "the key off; *key on* what they add once a gate was closed.\n")
print("*(a) median Δ* is the same comparison on the medians of the samples, "
      "beside the minimums: a wait inside the call would show there.\n")
print("| operation | samples | baseline | A/A | (a) patched | (a) Δ | "
      "(a) median Δ | (b) key on | (b) Δ | slot | hooks | key on |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|")
# Worst Δ per kind of path: [vs unpatched key off, key on; hooks alone key
# off, key on], for socket calls and for fork/exec.
worst = {"socket": [None] * 4, "fork and exec": [None] * 4}


for op in OPS:
    b = base1.get(("open", op))
    a_ = series.get(("open", op))
    k = series.get(("open-keyon", op))
    n = nolsm.get(("open", op))
    if not b or not a_ or not k or not n:
        continue
    da, db = a_[1] - b[1], k[1] - b[1]
    slot, hooks, keyon = n[1] - b[1], a_[1] - n[1], k[1] - a_[1]
    kind = "fork and exec" if op.startswith("fork") else "socket"
    if op not in ("getpid", "prctl_not_ours"):
        worst[kind] = [x if w is None else max(w, x) for w, x in
                       zip(worst[kind], (da, db, hooks, hooks + keyon))]
    if op == "prctl_not_ours":
        goals.append(("A prctl that is not the series' own, no gate on the "
                      "machine: at most +10 instructions against the "
                      "unpatched kernel", f"{da:+,}", da <= 10))
    print(f"| {op} | {b[3]} | {b[1]:,} | {aa('open', op)} | {a_[1]:,} | "
          f"{da:+,} ({pct(b[1], a_[1])}) | {a_[2] - b[2]:+,} | {k[1]:,} | {db:+,} "
          f"({pct(b[1], k[1])}) | {slot:+,} | {hooks:+,} | {keyon:+,} |")
print()
print("TCP connect has two modes about 190 instructions apart, and a whole "
      "process's samples fall in one of them: two boots of the unpatched "
      "kernel agree, but the patched kernel with disablenetwork left out of "
      "`lsm=` (no hook called at all) has been seen in either mode, as has "
      "the patched kernel with its hooks. A TCP Δ near +190 is that mode, "
      "not the series; the UDP and AF_UNIX connects, which have one mode, "
      "show what the connect hook costs.\n")
for kind, w in worst.items():
    if None in w:
        continue
    goals.append((f"Unrestricted task, no gate on the machine, {kind} paths: "
                  "at most +10 instructions per operation; against the "
                  "unpatched kernel / the series' hooks alone (patched kernel "
                  "with and without the LSM)", f"worst {w[0]:+} / {w[2]:+}",
                  f"{'yes' if w[0] <= 10 else 'no'} / "
                  f"{'yes' if w[2] <= 10 else 'no'}"))
    goals.append((f"Unrestricted task after another task closed its gate, "
                  f"{kind} paths: at most +15; the same two ways",
                  f"worst {w[1]:+} / {w[3]:+}",
                  f"{'yes' if w[1] <= 15 else 'no'} / "
                  f"{'yes' if w[3] <= 15 else 'no'}"))

# bench.c handles UDP in its Landlock ruleset where the kernel's headers
# have the rights (7.3): the refused UDP sendto shows which it was.
ll_udp = series.get(("landlock", "udp_sendto"))
ll_udp = bool(ll_udp) and ll_udp[0] != "ok"
ll_rules = ("TCP bind and connect and UDP bind and connect/send (ABI 11)"
            if ll_udp else "TCP bind and connect")
print("## Refusals: what a refused call costs\n")
print("(c) a task behind its gate; (d) a seccomp filter refusing socket() "
      "for every family but AF_UNIX (systemd's "
      "`RestrictAddressFamilies=AF_UNIX`); (e) a Landlock ruleset handling "
      f"{ll_rules} with no rule. The errno says whether the call "
      "was refused; \"ok\" cells are the overhead on an allowed call.\n")
print("| operation | baseline, unrestricted | (c) gate | (d) seccomp | "
      "(e) Landlock | gate / seccomp | A/A (d) |")
print("|---|---|---|---|---|---|---|")
for op in OPS:
    g, s = series.get(("gated", op)), series.get(("seccomp", op))
    ratio = f"{g[1] / s[1]:.2f}" if g and s else "n/a"
    print(f"| {op} | {cell(base1, 'open', op)} | {cell(series, 'gated', op)} | "
          f"{cell(series, 'seccomp', op)} | {cell(series, 'landlock', op)} | "
          f"{ratio} | {aa('seccomp', op)} |")
print()
print("What Landlock still cannot refuse: socket creation (its socket-type "
      "series is not merged), so `socket_inet_close` stays \"ok\" under (e); "
      "calls of other families than TCP and UDP (SCTP, vsock, and the rest "
      "the gate refuses at socket()); and sends on a kept socket, which the "
      "gate allows too.\n")
g = series.get(("gated", "socket_inet_close"))
s = series.get(("seccomp", "socket_inet_close"))
if g and s:
    goals.append(("Refusal of socket(AF_INET) by the gate no more expensive "
                  "than seccomp's", f"{g[1]} vs {s[1]}", g[1] <= s[1]))

print("## Setup: one-time costs, each in a fresh process\n")
print("| step | samples | patched | baseline | A/A |")
print("|---|---|---|---|---|")
SETUP = ["prctl_no_new_privs", "prctl_nosuid", "prctl_network_off",
         "first_gate_on_machine", "seccomp_filter", "landlock_ruleset",
         "unshare_user_net", "root_unshare_net", "root_unshare_net_lo_up",
         "nosuid_unshare_net"]
for op in SETUP:
    r = series.get(("setup", op))
    if r:
        print(f"| {op} | {r[3]} | {cell(series, 'setup', op)} | "
              f"{cell(base1, 'setup', op)} | {aa('setup', op)} |")


def setup(op):
    r = series.get(("setup", op))
    return r[1] if r and r[0] == "ok" else None


nnp, ns, gate = (setup(x) for x in
                 ("prctl_no_new_privs", "prctl_nosuid", "prctl_network_off"))
if nnp and ns and gate:
    print(f"\nPR_SET_NOSUID + PR_SET_NETWORK: {ns:,} + {gate:,} = "
          f"{ns + gate:,} instructions; two bare PR_SET_NO_NEW_PRIVS: "
          f"{2 * nnp:,}; the bound (twice that): {4 * nnp:,}.")
    goals.append(("Setup of nosuid plus the gate at most 2x two bare "
                  "PR_SET_NO_NEW_PRIVS", f"{ns + gate} vs {4 * nnp}",
                  ns + gate <= 4 * nnp))
root_lo, nsn, root = (setup(x) for x in ("root_unshare_net_lo_up",
                                         "nosuid_unshare_net",
                                         "root_unshare_net"))
if root_lo and nsn and root:
    print(f"\n`unshare -n` by a nosuid user (loopback brought up by the "
          f"kernel): {nsn:,}; by root followed by bringing lo up: "
          f"{root_lo:,} ({pct(root_lo, nsn)}); root's bare unshare: "
          f"{root:,} ({pct(root, nsn)}).")
    goals.append(("nosuid `unshare -n` within 5 % of root's unshare -n + lo "
                  "up", pct(root_lo, nsn), nsn <= 1.05 * root_lo))
print()

print("## Every thread at once: the synchronised calls\n")
print("One call that changes every thread of a process, with 1, 8 and 64 "
      "threads in all (the others blocked in read()), on one CPU under "
      "-icount: the figure counts the work of every thread, each running "
      "its task_work.  `PR_NOSUID_TSYNC` and `PR_NETWORK_TSYNC` beside "
      f"Landlock's `LANDLOCK_RESTRICT_SELF_TSYNC` (the ruleset of (e)), in the "
      "same boot.\n")
print("| call | 1 thread | 8 threads | 64 threads | 64 / 1 |")
print("|---|---|---|---|---|")
for call in ("tsync_nosuid", "tsync_network_off", "tsync_landlock"):
    cells, vals = [], []
    for n in (1, 8, 64):
        r = series.get(("setup", f"{call}_{n}_threads"))
        vals.append(r[1] if r and r[0] == "ok" else None)
        cells.append(cell(series, "setup", f"{call}_{n}_threads"))
    ratio = f"{vals[2] / vals[0]:.1f}" if vals[0] and vals[2] else "n/a"
    print(f"| {call} | {' | '.join(cells)} | {ratio} |")
print()
alone_ = series.get(("setup", "tsync_nosuid_1500_threads"))
beside = series.get(("setup", "tsync_nosuid_1500_threads_beside_3000"))
if alone_ and beside and alone_[0] == "ok" and beside[0] == "ok":
    flat = beside[1] <= 1.10 * alone_[1]
    print("`PR_NOSUID_TSYNC` with 1,500 threads, alone and beside another "
          "process of uid 1000 holding 3,000 threads: "
          f"{alone_[1]:,} and {beside[1]:,} instructions "
          f"({beside[1] / alone_[1]:.3f}x).\n")
    goals.append(("TSYNC of 1,500 threads beside a process of 3,000 threads "
                  "within 10 % of it alone",
                  f"{beside[1] / alone_[1]:.3f}x", flat))

print("## A namespace storm: what it costs root beyond CPU sharing\n")
print("Root makes and drops a network namespace in a loop (fork, unshare, "
      "exit, wait), on the patched kernel with two CPUs under -icount: "
      "alone, beside 4 processes of uid 1000 at nice 19 that only spin, and "
      "beside 4 nosuid processes of uid 1000 at nice 19 that fill their "
      "namespace allowance and then release and make namespaces without end. "
      "The storm/spin ratio is what the storm costs beyond sharing the CPUs; "
      "the selftest (`userns: netns.storm`) checks only behaviour.\n")
print("| load | cycles | min | median | median / alone |")
print("|---|---|---|---|---|")
alone = storm.get(("storm", "alone"))
for load_ in ("alone", "spin", "storm"):
    r = storm.get(("storm", load_))
    if not r:
        print(f"| {load_} | n/a | n/a | n/a | n/a |")
        continue
    rel = f"{r[2] / alone[2]:.2f}" if alone and alone[2] else "n/a"
    print(f"| {load_} ({r[0]}) | {r[3]} | {r[1]:,} | {r[2]:,} | {rel} |")
spin_, storm_ = storm.get(("storm", "spin")), storm.get(("storm", "storm"))
if spin_ and storm_ and spin_[2]:
    print(f"\nStorm beyond CPU sharing: median storm / median spin = "
          f"**{storm_[2] / spin_[2]:.2f}**.")
print()

print("## Wall clock (secondary)\n")
print(f"The same kernels booted without `-icount` (multi-threaded TCG on a "
      f"shared host: nanoseconds, noisy), {WALLS} boots of each, base and "
      f"series interleaved; unrestricted task, no gate on the machine.  Each "
      f"boot gives a median per operation; the table gives the median of "
      f"those medians and their range.\n")
print("| operation | baseline ns: median (range) | patched ns: median (range) | patched / baseline |")
print("|---|---|---|---|")


def medians(boots, op):
    v = sorted(b[("open", op)][2] for b in boots if ("open", op) in b)
    return v


for op in OPS:
    b, p = medians(wall_base, op), medians(wall_series, op)
    if b and p:
        mb, mp = statistics.median(b), statistics.median(p)
        print(f"| {op} | {mb:,.0f} ({b[0]:,}-{b[-1]:,}) | "
              f"{mp:,.0f} ({p[0]:,}-{p[-1]:,}) | {mp / mb:.3f} |")
print()

print("## Goals\n")
print("| goal | measured | met |")
print("|---|---|---|")
for text, got, ok in goals:
    if ok is True or ok is False:
        ok = "yes" if ok else "no"
    print(f"| {text} | {got} | {ok.replace('no', '**no**')} |")
