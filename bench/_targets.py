"""The one table of performance targets: what each bench measures, how, and the limit each of
its figures must meet. Every bench checks its figures against this table (``bench/_figures.py``)
and exits 1 when one misses; the docs' bench table (docs/gen/bench_ref.py) is generated from it.

A row's ``full`` is the target (full mode, the sizes in ``BENCHES[...].full``), ``quick`` the
tolerance of the quick mode (``--quick``, what ``.ci/run`` runs); ``None``: not checked in that
mode (the mode does not measure that size). ``op`` says the direction: ``<=`` an upper bound,
``>=`` a lower bound. ``last`` is the last figure a bench printed, with the run it came from.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bench:
    name: str  # bench/<name>.py
    method: str  # how it samples, and why (runs, pairing, medians)
    full: str  # the sizes and runs of its full mode
    quick: str  # the sizes and runs of its quick mode


@dataclass(frozen=True)
class Target:
    key: str
    bench: str
    figure: str  # what the figure is, in a few words
    measure: str  # exactly what is timed, against what floor, wall or CPU, fresh process or not
    unit: str
    op: str  # "<=" or ">="
    full: float | None
    quick: float | None
    why: str  # why the quick tolerance is what it is (and any change of the target)
    last: str  # the last figure printed, and by which run


PAIRED = (
    "runs paired (floor, measured, floor, measured, ...): a change of load on the shared "
    "machine hits both alike; the figure is the median of the per-pair ratios"
)

BENCHES: tuple[Bench, ...] = (
    Bench(
        name="validate",
        method=PAIRED,
        full="7 paired runs per file",
        quick="5 paired runs per file",
    ),
    Bench(
        name="plan_scale",
        method=(
            "fresh processes, the sizes interleaved run by run; median wall and CPU time, "
            "largest peak RSS of the runs; growth: median of the per-run ratios"
        ),
        full="1,000 and 5,000 entities x 20 members, 5 runs each",
        quick="100 and 1,000 entities, 3 runs each",
    ),
    Bench(
        name="engine_overhead",
        method=(
            "in one process, repeated runs; each run measures the device floor, the memory store "
            "and the file store one after the other and its ratios are taken within the run; "
            "median of the runs"
        ),
        full="10,000 no-op nodes, 5 runs",
        quick="1,000 nodes, 5 runs",
    ),
    Bench(
        name="node_adapter",
        method=(
            "in one process, each run times the mock adapter then the Node bridge; median of the "
            "per-run differences"
        ),
        full="2,000 no-op nodes, 5 runs",
        quick="300 nodes, 3 runs",
    ),
    Bench(
        name="projects_changed",
        method="fresh processes, median wall time",
        full="5,000 projects, 300 changed (a split matrix: 150 entries of 2), 5 runs",
        quick="300 projects, 30 changed, `--max-jobs 16` (15 entries of 2), 3 runs",
    ),
    Bench(
        name="action_cold_start",
        method="action.yml's own steps in fresh processes; medians of the totals",
        full="5 cold and 5 warm runs",
        quick="1 cold and 1 warm run",
    ),
    Bench(
        name="parallel_applies",
        method=(
            "N and 2N `github auto` processes started at once on one bare origin, each time from "
            "an empty state branch, the pull request's thread as merged and a packed origin (the "
            "order of the sizes alternating by round); medians of rounds, the ratio the median "
            "of per-round ratios"
        ),
        full="50 and 100 projects, 3 rounds (the ratio the median of per-round ratios)",
        quick="3 and 6 projects, 3 rounds (the ratio the median of per-round ratios)",
    ),
    Bench(
        name="many_projects_pr",
        method=(
            "one pull request adding N projects on a fake GitHub that enforces GitHub's "
            "secondary limits; the plan matrix (one `github auto` job per project, one after "
            "the other) and the gate step; every content-creating request counted"
        ),
        full="200 projects, 1 run (a count: no rounds needed)",
        quick="11 projects (the smallest pull request over 10 projects), 1 run",
    ),
    Bench(
        name="angular_adapter",
        method=(
            "per-process baseline once (it takes a minute), the batched driver several times on "
            "fresh copies of the same template in the same run; ratio of the baseline to the "
            "batched median"
        ),
        full="the ToDo example's plan, 3 batched runs",
        quick="a one-entity plan (3 schematic nodes), 3 batched runs",
    ),
    Bench(
        name="first_generation",
        method="fresh processes, median wall time, peak RSS of the process tree",
        full="5 cold, 5 warm, 5 no-template runs",
        quick="1 warm run (after one untimed run that builds the template if missing)",
    ),
    Bench(
        name="regen_cycle",
        method="in one process, rounds on fresh folders; medians",
        full="golden ToDo manifest (283 nodes), 3 rounds",
        quick="the same, 1 round",
    ),
    Bench(
        name="apply_cycle",
        method="fresh `averos-ci run` processes, rounds on fresh folders; medians",
        full="the ToDo example (33 nodes), 3 rounds",
        quick="the same, 1 round",
    ),
    Bench(
        name="command_one",
        method="README command 1 with `bash -c` in a fresh clone, empty HOME, no node on PATH",
        full="a clean machine (empty caches) once, then 3 fresh clones with warm caches",
        quick="1 fresh clone with warm caches",
    ),
)

TARGETS: tuple[Target, ...] = (
    Target(
        key="validate.json_cpu_ratio",
        bench="validate",
        figure="validate / bare parse, golden JSON (CPU)",
        measure=(
            "CPU (user + system) of a fresh `averos-ci validate tests/data/averos/todoapp-manifest"
            ".json` over the CPU of a fresh `python -c` that reads the file and `json.loads` it; "
            "the interpreter start is in both"
        ),
        unit="x",
        op="<=",
        full=2.0,
        quick=2.0,
        why=(
            "same limit: a ratio of two fresh processes on the same file does not depend on the "
            "number of runs; CPU, not wall: the load of other processes is not in it"
        ),
        last=(
            "1.36 x (quick, the newcomer run of this change, 2026-12-04); "
            "1.1x (full, 7 paired runs, .ci/run of 2026-12-04); 1.32x (quick, load ~3)"
        ),
    ),
    Target(
        key="validate.yaml_cpu_ratio",
        bench="validate",
        figure="validate / bare parse, example YAML (CPU)",
        measure=(
            "CPU of a fresh `averos-ci validate examples/todoapp/todoapp.manifest.yaml` over "
            "the CPU of a fresh `python -c` that loads it with ruamel.yaml round-trip (the "
            "parser the product uses); interpreter start in both"
        ),
        unit="x",
        op="<=",
        full=2.0,
        quick=2.0,
        why="as the JSON figure (it had no verdict before issue 39)",
        last=(
            "1.027 x (quick, the newcomer run of this change, 2026-12-04); "
            "1.0x (full, 7 paired runs, .ci/run of 2026-12-04); 1.20x (quick, load ~3)"
        ),
    ),
    Target(
        key="plan_scale.wall_5000",
        bench="plan_scale",
        figure="plan of 5,000 entities, wall",
        measure=(
            "median wall time of a fresh `averos-ci plan --format json --out FILE` of 5,000 "
            "entities x 20 members, no state"
        ),
        unit="s",
        op="<=",
        full=7.0,
        quick=None,
        why="quick mode does not plan 5,000 entities: its CPU figure below stands for it",
        last="4.37 s (5 runs, .ci/run of 2026-12-04)",
    ),
    Target(
        key="plan_scale.cpu_largest",
        bench="plan_scale",
        figure="plan of the largest size, CPU",
        measure=(
            "median CPU (user + system) of the same fresh process at the largest size: 5,000 "
            "entities (full), 1,000 (quick)"
        ),
        unit="s",
        op="<=",
        full=7.0,
        quick=3.0,
        why=(
            "quick: a gross regression only (about twice the expected 1.5 s). The expected figure "
            "is the full target's per-entity cost at 1,000 entities plus the start-up every fresh "
            "process pays (about 0.6 s of CPU: 0.6 + (7 - 0.6) x 1,000 / 5,000 = 1.9 s); but the "
            "CPU time of one process on this shared VM varies by half between runs minutes "
            "apart at load < 2 (1.44 s, then 2.33 s, same code), so a tighter limit fails "
            "healthy runs. Per-entity regressions are what growth (same run, paired) and the "
            "full target catch"
        ),
        last=(
            "1.442 s, then 2.328 s (quick, two newcomer runs of 2026-12-07 minutes apart, load < "
            "2, same code); 6.1 s at 5,000 and 0.65 s "
            "at 100 (one run each, 2026-12-07); 1.212 s (quick, the newcomer run of 2026-12-04); "
            "4.32 s at 5,000 (.ci/run of 2026-12-04); 1.04 s at 1,000 (quick, 3 runs, load ~2), "
            "1.40 s (quick, load ~6: CPU time grows with the load too)"
        ),
    ),
    Target(
        key="plan_scale.peak_largest",
        bench="plan_scale",
        figure="peak RSS at the largest size",
        measure="largest peak RSS (ru_maxrss) of the runs' processes at the largest size",
        unit="MB",
        op="<=",
        full=500.0,
        quick=160.0,
        why=(
            "quick (1,000 entities): memory does not vary with load; 160 MB keeps a third over "
            "the measured 123 MB"
        ),
        last=(
            "121.6 MB (quick, the newcomer run of this change, 2026-12-04); "
            "443 MB at 5,000 (.ci/run of 2026-12-04); 122 MB at 1,000 (quick)"
        ),
    ),
    Target(
        key="plan_scale.growth",
        bench="plan_scale",
        figure="time growth, small to large size",
        measure=(
            "wall time at the largest size over wall time at the smallest, in the same run "
            "(paired), median of the runs: 1,000 -> 5,000 (full), 100 -> 1,000 (quick)"
        ),
        unit="x",
        op="<=",
        full=6.0,
        quick=4.0,
        why=(
            "quick: 100 -> 1,000 is mostly the fixed start (0.35 s of the 0.42 s at 100 entities), "
            "measured 2.5x; 4x catches a step that grows faster than linear"
        ),
        last=(
            "2.481 x (quick, the newcomer run of this change, 2026-12-04); "
            "4.00x (1,000 -> 5,000, .ci/run of 2026-12-04); 2.5x (100 -> 1,000, quick)"
        ),
    ),
    Target(
        key="engine_overhead.file_us_over_floor",
        bench="engine_overhead",
        figure="file-checkpointed run per node, its fdatasync time taken out",
        measure=(
            "wall time per node of a no-op plan through the mock adapter with the "
            "FileCheckpointStore, minus the time that run spent in the journal's own fdatasync "
            "calls (timed around each call, in the same run; in-process, no interpreter start)"
        ),
        unit="us/node",
        op="<=",
        full=300.0,
        quick=300.0,
        why=(
            "same limit. Changed by issue 39: the target was 300 us/node including the fdatasync "
            "every node must pay (one durable record per node is the design), so it measured the "
            "disk: 324 us/node with a 141 us fdatasync floor (quick, .ci/run of 2026-12-04), and "
            "1,027 us/node with the disk shared (10,000 nodes, load 3)"
        ),
        last=(
            "146.4 us/node (quick, the newcomer run of this change, 2026-12-04); "
            "quiet (load ~2): 164 us/node (quick, fdatasync floor 97 us); at load 7-10 on 2 cores "
            "(other jobs): 379-388 us/node, missed: an in-process wall figure, it grows with the "
            "machine's load (the memory run alone went from 97 to 371 us/node)"
        ),
    ),
    Target(
        key="engine_overhead.file_memory_ratio",
        bench="engine_overhead",
        figure="file / memory checkpoints, fdatasync time taken out",
        measure=(
            "(per-node time with the FileCheckpointStore - its own fdatasync time per node) / "
            "per-node time with the MemoryCheckpointStore, within one run; median of the runs"
        ),
        unit="x",
        op="<=",
        full=2.0,
        quick=2.0,
        why=(
            "same limit. Changed by issue 39: the ratio included the device's fdatasync (141 us on "
            "this disk against 96 us/node for the whole memory run), so no engine could meet it: "
            "3.37x (quick, .ci/run of 2026-12-04), 3.77x (fresh machine), 3.36x (10,000 nodes); "
            "the engine's own cost of the file is what the target is about"
        ),
        last=(
            "1.504 x (quick, the newcomer run of this change, 2026-12-04); "
            "1.95x quiet (quick); 1.02x and 2.24x at load 7-10 (quick, 2026-12-04)"
        ),
    ),
    Target(
        key="engine_overhead.resume_us_per_done",
        bench="engine_overhead",
        figure="resume decision per completed node",
        measure=(
            "time from Runner.run(resume=True) to the start of the one remaining node, after "
            "N - 1 SUCCESS checkpoints in the journal, divided by N - 1"
        ),
        unit="us/node",
        op="<=",
        full=50.0,
        quick=50.0,
        why="the target 0.5 s after 9,999 done nodes, per node, so one limit holds at both sizes",
        last=(
            "37-38 us/node (quick, 3 runs, 2026-12-07, after records are read in one step; "
            "52-54 before, 55.9 twice in CI's run); "
            "32.11 us/node (quick, the newcomer run of this change, 2026-12-04); "
            "27.8 us (278 ms after 9,999, 3 runs, load 3); 30 us (quick, quiet); 57-92 us at load "
            "7-10 (quick, missed: an in-process wall figure grows with the load)"
        ),
    ),
    Target(
        key="node_adapter.bridge_ms",
        bench="node_adapter",
        figure="node-module bridge cost per node",
        measure=(
            "per-node wall time of a no-op JavaScript adapter (one Node host, JSON lines over "
            "stdio) minus that of the mock adapter, host start-up excluded; in-process"
        ),
        unit="ms/node",
        op="<=",
        full=2.0,
        quick=2.0,
        why="same limit (a per-node figure)",
        last=(
            "0.2929 ms/node (quick, the newcomer run of this change, 2026-12-04); "
            "0.230 ms/node (quick, .ci/run of 2026-12-04)"
        ),
    ),
    Target(
        key="projects_changed.changed_s",
        bench="projects_changed",
        figure="`projects --changed`, 5,000 projects",
        measure=(
            "median wall time of a fresh `averos-ci projects --changed --base main --format "
            "github-matrix --max-jobs 256` in a repository of 5,000 projects (git-tracked, mock "
            "adapter configs), 300 of them changed; its matrix checked to hold each once"
        ),
        unit="s",
        op="<=",
        full=2.0,
        quick=2.0,
        why=(
            "quick (300 projects, 30 changed, --max-jobs 16): the same limit, since a wall figure "
            "of one short process swings with the shared machine's load (0.67 s and 1.40 s in two "
            "runs a minute apart, load ~6); the full size is where growth shows. Changed by issue "
            "40: the target was 2 s at 100 projects (0.349 s, .ci/run of 2026-12-04)"
        ),
        last=(
            "0.2675 s (quick, the newcomer run of this change, 2026-12-04); "
            "1.71 s (full, 5 runs, load ~11, 2026-12-04); 0.67 s and 1.40 s (quick, load ~6)"
        ),
    ),
    Target(
        key="projects_changed.discover_s",
        bench="projects_changed",
        figure="`projects` (discovery only), 5,000 projects",
        measure=(
            "median wall time of a fresh `averos-ci projects` (text) in the same repository: "
            "`git ls-files` and every config read"
        ),
        unit="s",
        op="<=",
        full=2.0,
        quick=2.0,
        why="as `--changed` (issue 40 added it: discovery is most of that time)",
        last=(
            "0.3035 s (quick, the newcomer run of this change, 2026-12-04); "
            "1.85 s (full, 5 runs, load ~11, 2026-12-04); 1.05 s and 1.14 s (quick, load ~6)"
        ),
    ),
    Target(
        key="action_cold_start.cold_s",
        bench="action_cold_start",
        figure="action, cold",
        measure=(
            "wall time of action.yml's steps on a fresh runner (no cached environment, empty uv "
            "and pip caches, no uv on PATH) + `averos-ci github plan` + saving the environment; "
            "fresh processes"
        ),
        unit="s",
        op="<=",
        full=20.0,
        quick=20.0,
        why="same limit: 2.7x above the measured median",
        last=(
            "7.484 s (quick, the newcomer run of this change, 2026-12-04); "
            "7.41 s (5 runs, .ci/run of 2026-12-04)"
        ),
    ),
    Target(
        key="action_cold_start.warm_s",
        bench="action_cold_start",
        figure="action, warm",
        measure=(
            "wall time of the same with the environment restored from the cache archive "
            "(the transfer from GitHub's cache service is not in it)"
        ),
        unit="s",
        op="<=",
        full=6.0,
        quick=6.0,
        why="same limit",
        last=(
            "1.339 s (quick, the newcomer run of this change, 2026-12-04); "
            "2.67 s (5 runs, .ci/run of 2026-12-04)"
        ),
    ),
    Target(
        key="parallel_applies.landed_share",
        bench="parallel_applies",
        figure="applies that landed",
        measure=(
            "share of the concurrent apply jobs whose state landed on the state branch "
            "(serial 1, no claim left), median of rounds, the lower of the two sizes (50 and 100)"
        ),
        unit="share",
        op=">=",
        full=1.0,
        quick=1.0,
        why="every apply must land in both modes",
        last=(
            "1 share (full, 2026-12-07, one round on the quiet 2 cores from 09:55 UTC: 50/50 "
            "and 100/100 landed, nothing lost, no claim left); 1 share (quick, the newcomer run "
            "of this change, 2026-12-04); 3/3 and 6/6 (quick, 2026-12-04)"
        ),
    ),
    Target(
        key="parallel_applies.wall_ratio",
        bench="parallel_applies",
        figure="wall time, 100 / 50 parallel applies",
        measure=(
            "wall time from the start of 100 concurrent `github auto` processes to the end of "
            "the last, over the same for the first 50 of them, in the same round (both from an "
            "empty state branch, one fake API, one bare origin); median of the rounds"
        ),
        unit="x",
        op="<=",
        full=2.2,
        quick=3.0,
        why=(
            "full: issue 40's target, linear growth (2x) with a tenth to spare. quick (3 and 6 "
            "projects): a wall ratio of a few processes on the shared 2-core machine swings with "
            "its load; 3x still catches quadratic growth (4x). One round gave 2.09x, 2.10x and "
            "2.74x, then 3.47x in a newcomer run: the quick mode takes the median of 3 rounds "
            "(more rounds, not a wider margin)"
        ),
        last=(
            "2.096 x met (full, 2026-12-07 16:20-16:45 UTC, quiet 2 cores, 3 rounds: 1.93, "
            "2.10, 2.32 x; every run from the merged thread and a packed origin, the order "
            "alternating; an apply whose claim was re-applied holds its first progress push "
            "back): 50 projects 93.84 s median, 302 retries (6.0 per project), back-off 14.1 s "
            "per job; 100 projects 183.81 s, 923 retries (9.2 per project), back-off 33.5 s. "
            "The same bench on the code before that change (rounds 1 and 2: 2.42, 2.16 x; its "
            "third ran partly on the new code): 50 "
            "projects 117-122 s, 378-383 retries; 100 projects 262-283 s, 1214-1238 retries, "
            "back-off 59-61 s per job. A longer back-off cap (--backoff-max 60) made it worse: "
            "50 projects 158 s. Earlier: "
            "NOT RELIABLY MET (full, 2026-12-07 afternoon, quiet 2 cores, fewer git processes "
            "per fetch and push): one run 1.907 x met (50 projects 128.55 s, 351 retries; 100 "
            "projects 245.18 s, 1131 retries), the next run's first round 3.25 x (50 projects "
            "88.43 s, 314 retries; 100 projects 287.08 s, 1396 retries, back-off 71 s per job) "
            "- the same code, a 50-project wall from 88 to 129 s: one round decides nothing, "
            "and retries per project still grow with N (6-7 at 50, 11-14 at 100). Tried and "
            "dropped that day: jobs that lost a race offering their commit beside the branch "
            "for the next winning push to land (25/50 projects: 2.96 x, 50 projects 126 s "
            "against 105 s without). Default progressIntervalSeconds (5 s): 2.407 x. "
            "2.311 x MISSED (full, 2026-12-07, one round on the quiet 2 cores from 09:55 UTC, "
            "load 0.0 at the start; progress pushes one try, the re-apply in-process): 50 "
            "projects 103.94 s, 356 retries (7.1 per project), back-off 21.9 s per job; 100 "
            "projects 240.17 s, 1197 retries (12.0 per project), back-off 59.6 s per job - "
            "retries per project still grow with N (the claim and final pushes of N jobs on one "
            "ref), and the 100 round's tail is back-off; earlier that day at load 40-73: 50 "
            "projects 250 s, 518 retries, the 100 round not ended after 870 s. 2.087 x (quick, "
            "2026-12-04)"
        ),
    ),
    Target(
        key="many_projects_pr.writes_per_project",
        bench="many_projects_pr",
        figure="content-creating requests per project of a large pull request",
        measure=(
            "POST, PATCH, PUT and DELETE requests the plan matrix and the gate step send for a "
            "pull request adding N projects, over N (a count, not a time)"
        ),
        unit="requests",
        op="<=",
        full=2.1,
        quick=2.5,
        why=(
            "two per project (its plan comment, its status) and three per run (the aggregate "
            "when it first turns pending, the gate's aggregate, the summary comment): 2.015 at "
            "200 projects, 2.27 at 11; a third request per project (the comment's stamp, or "
            "the aggregate re-posted by every job, as before issue 40) misses both"
        ),
        last=(
            "2.015 (full, 200 projects: 201 comments, 202 statuses, none refused under "
            "GitHub's limits, 2026-12-07); 2.273 (quick, 11 projects, 2026-12-07)"
        ),
    ),
    Target(
        key="many_projects_pr.hourly_share",
        bench="many_projects_pr",
        figure="share of GitHub's hourly secondary limit a large pull request spends",
        measure=(
            "the content-creating requests above over GitHub's documented limit of 500 an "
            "hour, scaled to N / 200 projects in quick mode"
        ),
        unit="share",
        op="<=",
        full=0.9,
        quick=1.0,
        why=(
            "issue 40: a 200-project pull request within the limit, with a tenth to spare for "
            "the approvals that follow; quick (11 projects) carries the three per-run requests "
            "over fewer projects (25 of 27.5)"
        ),
        last=(
            "0.806 (full, 403 requests for 200 projects, 2026-12-07); 0.909 (quick, 11 "
            "projects, 2026-12-07)"
        ),
    ),
    Target(
        key="angular_adapter.batched_ratio",
        bench="angular_adapter",
        figure="per-process / batched schematics",
        measure=(
            "wall time of the plan's nodes after the application node, one `npx ng generate` per "
            "node over the batched Node driver (median), on fresh copies of one template"
        ),
        unit="x",
        op=">=",
        full=10.0,
        quick=4.0,
        why=(
            "quick: the one-entity plan has 3 schematic nodes, so the driver's one-time load "
            "(~0.6 s) is most of the batched time: 7.0x and 5.2x measured"
        ),
        last=(
            "6.767 x (quick, the newcomer run of this change, 2026-12-04); "
            "12.7x (full: 42.1 s against a 3.32 s median of 1.69, 3.32, 3.66 s; load ~9, "
            "2026-12-04: the target is met); 7.0x (quick, .ci/run of 2026-12-04)"
        ),
    ),
    Target(
        key="first_generation.cold_s",
        bench="first_generation",
        figure="first generation, cold",
        measure=(
            "median wall time of a fresh process running the application node into an empty "
            "folder with an empty cache dir and npm cache (packages from the npm registry)"
        ),
        unit="s",
        op="<=",
        full=120.0,
        quick=None,
        why="needs the network and minutes: full mode only",
        last="see CHANGELOG (issue 25)",
    ),
    Target(
        key="first_generation.warm_s",
        bench="first_generation",
        figure="first generation, warm",
        measure="median wall time of the same with the warm cache (the cached template copied in)",
        unit="s",
        op="<=",
        full=10.0,
        quick=10.0,
        why="same limit",
        last=(
            "1.993 s (quick, the newcomer run of this change, 2026-12-04); "
            "2.0 s (quick, 1 run, load ~8, 2026-12-04)"
        ),
    ),
    Target(
        key="regen_cycle.plan_s",
        bench="regen_cycle",
        figure="plan with its code patch",
        measure=(
            "wall time of planning a one-member change of the golden manifest with its code patch "
            "(a clean generation in a scratch workspace + the three-way merge), in-process"
        ),
        unit="s",
        op="<=",
        full=15.0,
        quick=15.0,
        why="same size, same limit",
        last=(
            "4.866 s (quick, the newcomer run of this change, 2026-12-04); "
            "10.12 s (quick, 1 round, load ~8, 2026-12-04; 8.7 s quoted by issue 39)"
        ),
    ),
    Target(
        key="regen_cycle.apply_s",
        bench="regen_cycle",
        figure="apply of that plan",
        measure=(
            "wall time of `apply(expected_plan_hash=...)` of that plan (the merge written, the "
            "workspace opened, the state recorded), in-process"
        ),
        unit="s",
        op="<=",
        full=10.0,
        quick=10.0,
        why="same size, same limit",
        last=(
            "4.838 s (quick, the newcomer run of this change, 2026-12-04); "
            "0.12 s (quick, 1 round, load ~8, 2026-12-04)"
        ),
    ),
    Target(
        key="apply_cycle.incremental_s",
        bench="apply_cycle",
        figure="incremental apply (one member)",
        measure=(
            "wall time of a fresh `averos-ci run` after the manifest gains one member (drift check "
            "+ the one new node)"
        ),
        unit="s",
        op="<=",
        full=10.0,
        quick=10.0,
        why=(
            "same size, same limit; set by issue 39 (no target before) to the apply target of "
            "regen_cycle (the same work on the larger golden manifest); 5 s was tried first and "
            "missed at load ~8 (5.08 s)"
        ),
        last=(
            "2.437 s (quick, the newcomer run of this change, 2026-12-04); "
            "1.82 s (quick, .ci/run of 2026-12-04, first apply 4.28 s); 5.08 s (quick, load ~8, "
            "first apply 6.80 s)"
        ),
    ),
    Target(
        key="command_one.warm_s",
        bench="command_one",
        figure="README command 1, warm caches",
        measure=(
            "wall time of README command 1 in a fresh clone with this machine's pip, npm and "
            "template caches (a fresh venv, `pip install '.[node]'`, the ToDo app generated)"
        ),
        unit="s",
        op="<=",
        full=60.0,
        quick=60.0,
        why="same limit; set by issue 39 (no target before) above the README's 35-50 s",
        last=(
            "22.54 s (quick, the newcomer run of this change, 2026-12-04); "
            "23.8 s (quick, .ci/run of 2026-12-04); second run 8.3 s"
        ),
    ),
    Target(
        key="command_one.clean_s",
        bench="command_one",
        figure="README command 1, clean machine",
        measure="the same with empty pip, npm and template caches (downloads everything)",
        unit="s",
        op="<=",
        full=300.0,
        quick=None,
        why="needs the network and minutes: full mode only; README quotes 230-289 s",
        last="see README",
    ),
)
