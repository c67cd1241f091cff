#!/usr/bin/env python3
"""Benchmark (not a test) of the explorer, `decode serve`.

    scripts/bench_explorer.py MODEL.onnx [FOLDER...]
    BIG_TENSOR=big.pb scripts/bench_explorer.py MODEL.onnx     (also a tensor file)

Starts `target/release/decode serve` on the model's folder and the folders
given, then measures, over HTTP as the page asks:

- the model's page: /api/open (what the page waits for before drawing the
  model), against `decode --json --values 8 MODEL` run in the same session
  (the reference: the command line printing the same JSON);
- a page of 1,000 values of the largest initializer, at its start, middle
  and end (best of 5 each);
- the server's resident memory (VmRSS) after each step, against the file's
  size;
- for each folder: the file list, and /api/open of every file in it (the
  slowest and the median);
- with Chromium and tests/browser/node_modules present: the page in a real
  browser (model drawn, initializer's first page, last page) via
  tests/browser/bench_page.mjs.

Needs only the Python standard library. Build first: cargo build --release.
"""
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DECODE = os.path.join(REPO, "target", "release", "decode")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    model = os.path.abspath(sys.argv[1])
    folders = [os.path.abspath(p) for p in sys.argv[2:]]
    size = os.path.getsize(model)

    t = time.perf_counter()
    subprocess.run([DECODE, "--json", "--values", "8", model], stdout=subprocess.DEVNULL, check=True)
    t = time.perf_counter()
    subprocess.run([DECODE, "--json", "--values", "8", model], stdout=subprocess.DEVNULL, check=True)
    cli = time.perf_counter() - t

    extra = [os.environ["BIG_TENSOR"]] if os.environ.get("BIG_TENSOR") else []
    server = subprocess.Popen([DECODE, "serve", model, *folders, *extra], stdout=subprocess.PIPE, text=True)
    try:
        url = server.stdout.readline().strip().split()[-1]
        base = url.split("/?")[0]
        token = url.split("token=")[1]

        def get(path, **params):
            q = urllib.parse.urlencode(params)
            req = urllib.request.Request(f"{base}{path}?{q}", headers={"Authorization": f"token {token}"})
            t0 = time.perf_counter()
            with urllib.request.urlopen(req) as r:
                body = r.read()
            return time.perf_counter() - t0, body

        print(f"model: {model} ({size / 2**20:.0f} MiB)")
        print(f"server RSS at start: {rss_mib(server.pid):.1f} MiB")
        dt, body = get("/api/open", f="0")
        opened = json.loads(body)
        print(
            f"model page (/api/open, {len(body) / 1024:.0f} KiB of JSON): {dt * 1000:.0f} ms; "
            f"decode --json --values 8: {cli * 1000:.0f} ms; ratio {dt / cli:.2f}"
        )
        dt2, _ = get("/api/open", f="0")
        print(f"  again (file mapped, page cache warm): {dt2 * 1000:.0f} ms")
        print(f"server RSS after the model page: {rss_mib(server.pid):.1f} MiB ({rss_mib(server.pid) * 2**20 / size:.3f} of the file)")
        tensors = [t for t in opened["tensors"] if t and t["initializer"]]
        big = max(tensors, key=lambda t: t["elements"])
        n = big["elements"]
        print(f"largest initializer: {big['name']} {big['dtype']} {big['dims']} ({n} values)")
        for label, offset in [("first", 0), ("middle", n // 2), ("last", max(0, n - 1000))]:
            times = []
            for _ in range(5):
                dt, body = get("/api/values", f="0", t=big["index"], offset=offset, count=1000)
                times.append(dt)
            got = sum(len(r) for r in json.loads(body)["values"])
            print(f"  page of {got} values at {label} ({offset}): best {min(times) * 1000:.1f} ms, median {statistics.median(times) * 1000:.1f} ms")
        print(f"server RSS after the pages: {rss_mib(server.pid):.1f} MiB")
        dt, body = get("/api/stats", f="0", t=big["index"])
        print(f"statistics + histogram of {n} values: {dt * 1000:.0f} ms; RSS {rss_mib(server.pid):.1f} MiB")

        for i, folder in enumerate(folders, start=1):
            dt, body = get("/api/files")
            files = [f for f in json.loads(body)["files"] if f["key"].startswith(f"{i}/")]
            print(f"folder {folder}: {len(files)} files listed in {dt * 1000:.0f} ms")
            times = []
            for f in files:
                dt, _ = get("/api/open", f=f["key"])
                times.append((dt, f["name"]))
            if times:
                times.sort()
                print(
                    f"  /api/open of every file: median {statistics.median([t for t, _ in times]) * 1000:.1f} ms, "
                    f"slowest {times[-1][0] * 1000:.0f} ms ({times[-1][1]})"
                )
            print(f"  server RSS: {rss_mib(server.pid):.1f} MiB")

        big_tensor = os.environ.get("BIG_TENSOR")
        if big_tensor:
            dt, body = get("/api/files")
            key = str(len(folders) + 1)
            dt, body = get("/api/open", f=key)
            t = json.loads(body)["tensors"][0]
            print(f"tensor file {big_tensor}: {t['dtype']} {t['dims']} ({t['elements']} values): /api/open {dt * 1000:.0f} ms")
            last = t["elements"] - 1000
            dt, body = get("/api/values", f=key, t=0, offset=last, count=1000)
            print(f"  its last 1,000 values: {dt * 1000:.1f} ms; RSS {rss_mib(server.pid):.1f} MiB")
            dt, body = get("/api/stats", f=key, t=0)
            print(f"  statistics + histogram of every value: {dt * 1000:.0f} ms; RSS {rss_mib(server.pid):.1f} MiB (the mapped file, read once)")

        page = os.path.join(REPO, "tests", "browser", "bench_page.mjs")
        if os.path.exists("/usr/bin/chromium") and os.path.isdir(os.path.join(REPO, "tests", "browser", "node_modules")):
            out = subprocess.run(["node", page, url, "0"], capture_output=True, text=True)
            print(out.stdout.strip() or out.stderr.strip())
            print(f"server RSS after the browser: {rss_mib(server.pid):.1f} MiB")
    finally:
        server.terminate()
        server.wait()
    return 0


if __name__ == "__main__":
    sys.exit(main())
