"""Where the time after a capture's exit goes on a GPU, in one run: the resnet50 step's stage reading
(cold SASS cache: each disassembler call's wall time, the Python linking, cProfile of it), the disassembler's
flags compared on the same cubins, capture(bench=True, repros=True)'s exit, wait_stages and wait_repros (a stack
dump where one hangs), and a loaded GPT-2 backward's retime with the timing process's steps timestamped.

    python benchmarks/prof_fast_gpu.py OUT_DIR [--skip-cnn] [--skip-retime] [--stages-only]
"""

from __future__ import annotations

import cProfile
import faulthandler
import io
import os
import pstats
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]

import bench_light  # noqa: E402

from kernelviz import ir  # noqa: E402
from kernelviz.ir import stages  # noqa: E402

OUT = Path(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp())


def stage_profile(step) -> None:
    calls, cubins, spent = [], {}, {}
    lock = threading.Lock()
    real_run, real_dis, real_files, real_sass = stages.subprocess.run, stages.disassemble, ir._add_file_stages, \
        ir._add_sass

    def timed_run(command, **kw):
        start = time.perf_counter()
        done = real_run(command, **kw)
        with lock:
            calls.append((" ".join(os.path.basename(c) for c in command[:-1]), time.perf_counter() - start,
                          done.returncode, len(done.stdout or "")))
        return done

    def keep_cubin(cubin):
        with lock:
            cubins[cubin.name] = cubin.read_bytes()
        return real_dis(cubin)

    def timed(real, what):
        def run(*args):
            start = time.perf_counter()
            try:
                return real(*args)
            finally:
                with lock:
                    spent.setdefault(what, []).append(time.perf_counter() - start)
        return run

    stages.subprocess.run, stages.disassemble, ir.disassemble = timed_run, keep_cubin, keep_cubin
    ir._add_file_stages, ir._add_sass = timed(real_files, "files"), timed(real_sass, "sass")
    try:
        with bench_light.sass_kept_in(tempfile.mkdtemp(prefix="kv-sass-")):
            cap, body, exit_s = bench_light.captured(step)
            start = time.perf_counter()
            cap.wait_stages()
            ready = time.perf_counter() - start
    finally:
        stages.subprocess.run, stages.disassemble, ir.disassemble = real_run, real_dis, real_dis
        ir._add_file_stages, ir._add_sass = real_files, real_sass
    triton = [k for k in cap.kernels if k.kind.startswith("triton")]
    print(f"[stages cold] exit {exit_s:.2f} s, stages +{ready:.2f} s; {len(cap.launches)} launches, "
          f"{len(triton)} Triton kernels; workers {ir._WORKERS}, cpu_count {os.cpu_count()}, "
          f"affinity {len(os.sched_getaffinity(0))}, python {sys.version.split()[0]}")
    by = {}
    for what, secs, rc, _size in calls:
        by.setdefault((what, rc), []).append(secs)
    for (what, rc), secs in sorted(by.items()):
        print(f"  tool {what!r} rc={rc}: {len(secs)} calls, sum {sum(secs):.2f} s, median {statistics.median(secs):.3f}"
              f" s, max {max(secs):.3f} s")
    for what, label in (("files", "Triton's files read and linked"), ("sass", "SASS read (once its group's run "
                                                                             "kept it) and linked")):
        secs = spent.get(what, [])
        print(f"  {label}: {len(secs)} kernels, sum {sum(secs):.2f} s, max {max(secs, default=0):.3f} s")
    sizes = [len(b) for b in cubins.values()]
    if sizes:
        print(f"  cubins {len(sizes)}: median {statistics.median(sizes) / 1e3:.0f} KB, max {max(sizes) / 1e3:.0f} KB")

    # linking alone, one thread, under cProfile (SASS now kept: texts() reads it back)
    jobs = [job for graph in cap.graphs for job in ir.stage_jobs(graph, bench_light_compiled(graph))]
    prof = cProfile.Profile()
    start = time.perf_counter()
    prof.enable()
    for job in jobs:
        ir._add_texts(job)
    prof.disable()
    print(f"[linking, one thread, SASS kept] {len(jobs)} jobs {time.perf_counter() - start:.2f} s")
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(22)
    (OUT / "linking_profile.txt").write_text(text.getvalue())
    print("\n".join(text.getvalue().splitlines()[:40]))
    start = time.perf_counter()
    ir.read_jobs(jobs)
    print(f"[read_jobs, {ir._WORKERS} threads, SASS kept] {time.perf_counter() - start:.2f} s")

    # the disassembler's flags on the same cubins
    folder = Path(tempfile.mkdtemp(prefix="kv-cubins-"))
    paths = []
    for name, data in cubins.items():
        (folder / name).write_bytes(data)
        paths.append(folder / name)
    nvdisasm, cuobjdump = stages._tool("nvdisasm"), stages._tool("cuobjdump")
    print(f"  nvdisasm {nvdisasm}; cuobjdump {cuobjdump}")
    variants = {"nvdisasm -c -gi": [nvdisasm, "-c", "-gi"], "nvdisasm -c -g": [nvdisasm, "-c", "-g"],
                "nvdisasm -c": [nvdisasm, "-c"], "cuobjdump --dump-sass": [cuobjdump, "--dump-sass"]}
    sample = sorted(paths, key=lambda p: p.stat().st_size)
    sample = sample[:: max(1, len(sample) // 12)]
    for label, head in variants.items():
        if head[0] is None:
            continue
        secs, rcs = [], set()
        for path in sample:
            t = time.perf_counter()
            done = subprocess.run(head + [str(path)], capture_output=True, text=True)
            secs.append(time.perf_counter() - t)
            rcs.add(done.returncode)
        print(f"  serial {label}: {len(sample)} cubins, median {statistics.median(secs):.3f} s, max {max(secs):.3f} s,"
              f" rc {sorted(rcs)}")
    for threads in (4, 8, 16, 32):
        t = time.perf_counter()
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(lambda p: subprocess.run([nvdisasm, "-c", "-gi", str(p)], capture_output=True), paths))
        print(f"  all {len(paths)} cubins nvdisasm -c -gi, {threads} threads: {time.perf_counter() - t:.2f} s")
    t = time.perf_counter()
    with ThreadPoolExecutor(16) as pool:
        list(pool.map(lambda p: subprocess.run(["true"]), paths))
    print(f"  {len(paths)} x spawn of `true`, 16 threads (this process): {time.perf_counter() - t:.2f} s")
    script = (f"import subprocess,time,sys,glob\nfrom concurrent.futures import ThreadPoolExecutor as P\n"
              f"ps=sorted(glob.glob('{folder}/*'))\nt=time.perf_counter()\n"
              f"with P(16) as p: list(p.map(lambda x: subprocess.run(['{nvdisasm}','-c','-gi',x],capture_output=True),"
              f" ps))\nprint(f'  the same from a fresh small process, 16 threads: {{time.perf_counter()-t:.2f}} s')")
    print(subprocess.run([sys.executable, "-c", script], capture_output=True, text=True).stdout.rstrip())


def before_after(step) -> None:
    """Cold stages of the step with each cubin disassembled alone (as before), then in merged groups (now), and
    whether every kernel's SASS is the same."""
    sass, real_batches, runs = {}, ir.batches, []
    real_run = stages.subprocess.run

    def counted(command, **kw):
        runs.append(1)
        return real_run(command, **kw)

    def explained(cubins, workers):
        groups = real_batches(cubins, workers)
        from kernelviz.ir import merge

        datas = [c if isinstance(c, bytes) else c.read_bytes() for c in cubins if c is not None]
        alone = [d for d in datas if merge.part(d) is None]
        keys = {p.key for g in groups for _, p in g}
        print(f"  cubins {len(datas)}: {sum(map(len, groups))} merged in {len(groups)} groups of {len(keys)} kinds, "
              f"{len(alone)} not mergeable (first kept in OUT/alone_*.cubin)", flush=True)
        for i, data in enumerate(alone[:4]):
            (OUT / f"alone_{i}.cubin").write_bytes(data)
        return groups

    stages.subprocess.run = counted
    try:
        for label, batches in (("each cubin alone (before)", lambda *a: []), ("merged groups (now)", explained)):
            ir.batches = batches
            runs.clear()
            with bench_light.sass_kept_in(tempfile.mkdtemp(prefix="kv-sass-")):
                cap, body, exit_s = bench_light.captured(step)
                start = time.perf_counter()
                cap.wait_stages()
                ready = time.perf_counter() - start
            sass[label] = {k.name: next((s.text for s in k.ir.stages if s.name == "sass"), None)
                           for k in cap.kernels if k.ir}
            print(f"[stages cold, {label}] capture() exit {exit_s:.2f} s, stages +{ready:.2f} s after it; "
                  f"{len(runs)} disassembler runs", flush=True)
    finally:
        ir.batches, stages.subprocess.run = real_batches, real_run
    a, b = sass.values()
    same = sum(1 for name in a if a[name] is not None and a[name] == b.get(name))
    print(f"  SASS the same for {same} of {sum(1 for v in a.values() if v is not None)} kernels", flush=True)
    for name in a:
        if a[name] != b.get(name):
            (OUT / f"differs_{name}.txt").write_text(f"{a[name]}\n=====\n{b.get(name)}")


def bench_light_compiled(graph):
    from kernelviz.conductor import _compiled

    return _compiled(graph)


def repros_exit(step) -> None:
    faulthandler.dump_traceback_later(90, repeat=True, file=open(OUT / "hang_stacks.txt", "w"))
    try:
        with bench_light.sass_kept_in(tempfile.mkdtemp(prefix="kv-sass-")):
            for options in ({"bench": True}, {"bench": True, "repros": True}):
                cap, body, exit_s = bench_light.captured(step, **options)
                t = time.perf_counter()
                cap.wait_stages()
                s = time.perf_counter() - t
                cap.wait_repros()
                r = time.perf_counter() - t
                n = sum(1 for k in cap.kernels if k.repro is not None)
                ok = sum(1 for k in cap.kernels if k.repro is not None and k.repro.error is None)
                print(f"[capture({options})] exit {exit_s:.2f} s (step {body:.3f} s); stages +{s:.2f} s, repros "
                      f"+{r:.2f} s; kernel repros {ok}/{n}")
    finally:
        faulthandler.cancel_dump_traceback_later()


RETIME = r"""
import sys, time
t0 = time.perf_counter()
import torch, kernelviz
from kernelviz.bench import isolation
marks = []
real_follow = isolation._follow
def follow(proc, *a, **k):
    src = proc.stdout
    class Tee:
        def close(self):
            src.close()
        def __iter__(self):
            for line in src:
                marks.append((time.perf_counter(), line.strip()[:60]))
                yield line
    proc.stdout = Tee()
    return real_follow(proc, *a, **k)
isolation._follow = follow
cap = kernelviz.load(sys.argv[1])
s = time.perf_counter()
cap.bench(progress=False)
e = time.perf_counter()
n = sum(1 for l in cap.launches if l.timing and l.timing.in_graph_ms)
print(f'import+load {s - t0:.2f} s, bench() {e - s:.2f} s, {n}/{len(cap.launches)} launches timed')
last, shown = s, 0
for at, line in marks:
    if at - last > 0.15 or line.split()[0] in ('ready', 'graph', 'done') or line.startswith('phase') and shown < 12:
        print(f'   +{at - s:6.2f} s (step {at - last:5.2f} s) {line}')
        shown += 1
    last = at
print(f'   end +{e - s:.2f} s (after last line {e - last:.2f} s)')
"""


def retime() -> None:
    back, folder, path = bench_light.saved_gpt2_backward()
    print(f"[retime] GPT-2 backward: {len(back.launches)} launches, "
          f"{sum(1 for k in back.kernels if k.kind.startswith('triton'))} Triton kernels; "
          f"PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE')!r}")
    env = dict(os.environ, XDG_CACHE_HOME=str(folder / "cache"), PYTHONPATH=str(ROOT))
    for what in ("bytecode cache empty", "kept", "kept"):
        done = subprocess.run([sys.executable, "-c", RETIME, str(path)], capture_output=True, text=True, env=env)
        print(f"  {what}: " + (done.stdout.rstrip() or done.stderr.strip()[-600:]))
    code = ("import time; t = time.perf_counter(); import torch, torch._inductor.async_compile, "
            "torch._inductor.runtime.triton_heuristics, kernelviz.bench.measure, kernelviz.repro.record; "
            "print(f'{time.perf_counter() - t:.2f}')")
    from kernelviz.children import child_environment

    child = dict(child_environment(), XDG_CACHE_HOME=str(folder / "cache"))
    print(f"  the worker's imports alone (its env, cache kept): "
          f"{subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, env=child).stdout.strip()} s")


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name()}", flush=True)
    if "--skip-cnn" not in sys.argv:
        step = bench_light.cnn_step()
        t = time.perf_counter()
        step()
        torch.cuda.synchronize()
        print(f"resnet50 step compiled and run in {time.perf_counter() - t:.1f} s", flush=True)
        if "--stages-only" in sys.argv:
            before_after(step)
            return
        stage_profile(step)
        sys.stdout.flush()
        repros_exit(step)
        sys.stdout.flush()
    if "--skip-retime" not in sys.argv:
        retime()


if __name__ == "__main__":
    main()
