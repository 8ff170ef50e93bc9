#!/usr/bin/env python3
"""Summarizes one bench/run_all.sh run as Markdown: tokens/s of wgrt and
llama.cpp (CUDA, Vulkan) per model and test, the ratio to the best peer,
decode bandwidth, and wgrt's top kernels for one decode step.

Usage: python3 bench/summarize.py RUN_DIR [--json PATH --commit HASH]
(RUN_DIR holds wgrt-<m>.json, wgrt-<m>-nofuse.json and
llamacpp-{cuda,vulkan}-<m>.out as written by bench/run_all.sh). --json also
writes the table as JSON: one row per model and test with tok/s of wgrt and
each peer, wgrt's dispatches per decode step, the commit and the date.
"""
import argparse
import datetime
import glob
import re
import json
import os
import statistics
import sys

H200_BW = 4.8e12  # bytes/s, HBM3e peak


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def peer_results(path):
    """{test name: tok/s} from llama-bench -o json output (median of samples)."""
    rows = load_json(path) or []
    out = {}
    for r in rows:
        name = f"pp{r['n_prompt']}" if r.get("n_prompt") else f"tg{r['n_gen']}"
        samples = r.get("samples_ts") or []
        out[name] = statistics.median(samples) if samples else r.get("avg_ts")
        out[name + ".std"] = r.get("stddev_ts")
    return out, rows


def fmt(x, nd=1):
    return "-" if x is None else f"{x:,.{nd}f}"


def decode_dispatches(w):
    """Dispatches of the profiled decode step, or None."""
    for p in (w or {}).get("profiles", []):
        if p["what"].startswith("decode"):
            return p["dispatches"]
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run", nargs="?", default="/tmp/bench-run")
    ap.add_argument("--json", help="also write the table as JSON here")
    ap.add_argument("--commit", default="unknown", help="the wgrt commit benchmarked, for --json")
    opts = ap.parse_args()
    run = opts.run
    rows_json = []
    models = sorted({os.path.basename(p)[5:-5] for p in glob.glob(os.path.join(run, "wgrt-*.json"))
                     if not p.endswith("-nofuse.json")} |
                    {os.path.basename(p).split("-", 2)[2][:-4] for p in glob.glob(os.path.join(run, "llamacpp-*-*.out"))})
    print("| model | test | wgrt tok/s | llama.cpp Vulkan | llama.cpp CUDA | wgrt / best peer | wgrt decode GB/s (% of 4.8 TB/s) |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    notes = []
    for m in models:
        w = load_json(os.path.join(run, f"wgrt-{m}.json"))
        vk, vk_rows = peer_results(os.path.join(run, f"llamacpp-vulkan-{m}.out"))
        cu, cu_rows = peer_results(os.path.join(run, f"llamacpp-cuda-{m}.out"))
        wt = {t["name"]: t for t in (w or {}).get("tests", [])}
        names = list(dict.fromkeys(list(wt) + [k for k in list(vk) + list(cu) if not k.endswith(".std")]))
        for name in names:
            t = wt.get(name)
            ws = t["tok_s"]["median"] if t and t.get("runs") else None
            best = max([x for x in (vk.get(name), cu.get(name)) if x], default=None)
            ratio = f"{ws / best:.2f}" if ws and best else "-"
            bw = "-"
            if ws and name.startswith("tg") and w:
                gbs = w["weight_bytes"] * ws
                bw = f"{gbs / 1e9:,.0f} ({100 * gbs / H200_BW:.0f}%)"
            err = f" (error: {t['error'][:60]})" if t and t.get("error") else ""
            print(f"| {m} | {name} | {fmt(ws)}{err} | {fmt(vk.get(name))} | {fmt(cu.get(name))} | {ratio} | {bw} |")
            rows_json.append({"model": m, "test": name, "fuse": True, "wgrt_tok_s": ws,
                              "peers": {"llama.cpp CUDA": cu.get(name), "llama.cpp Vulkan": vk.get(name)},
                              "dispatches_per_step": decode_dispatches(w) if name.startswith("tg") else None})
        # The same tg tests without the fusion passes (A/B, issue 13).
        nf = load_json(os.path.join(run, f"wgrt-{m}-nofuse.json"))
        for t in (nf or {}).get("tests", []):
            if not t.get("runs"):
                continue
            ws = t["tok_s"]["median"]
            fused = wt.get(t["name"])
            vs = (f" ({fused['tok_s']['median'] / ws:.2f}x fused/unfused)"
                  if fused and fused.get("runs") and ws else "")
            print(f"| {m} | {t['name']} --no-fuse{vs} | {fmt(ws)} | - | - | - | - |")
            rows_json.append({"model": m, "test": t["name"], "fuse": False, "wgrt_tok_s": ws, "peers": {},
                              "dispatches_per_step": decode_dispatches(nf)})
        if w:
            mem = w["memory"]
            notes.append(f"- {m}: wgrt on {w['adapter']} ({w['runtime']}; shader-f16 {w['shader_f16']}, "
                         f"subgroups {w['subgroups']}); weights {w['weight_bytes'] / 2**20:.0f} MiB, "
                         f"model GPU memory {mem['model_total_bytes'] / 2**20:.0f} MiB, "
                         f"device peak {mem['device_peak_bytes'] / 2**20:.0f} MiB; load {w['load_seconds']:.1f} s")
            for t in w.get("tests", []):
                h = t.get("host_ms_per_pass")
                if h and t.get("runs"):
                    notes.append(f"  - {t['name']}: host ms per forward pass: prepare {h['prepare']:.3f}, "
                                 f"encode+submit {h['encode']:.3f}, wait for GPU {h['wait']:.3f}, "
                                 f"readback {h['readback']:.3f}")
        for label, rows in (("CUDA", cu_rows), ("Vulkan", vk_rows)):
            if rows:
                r = rows[0]
                notes.append(f"- {m}: llama.cpp {label}: {r.get('gpu_info', '')}, {r.get('backends', '')}, "
                             f"flash_attn {r.get('flash_attn')}, n_ubatch {r.get('n_ubatch')}, "
                             f"model_size {r.get('model_size', 0) / 2**20:.0f} MiB, build {r.get('build_commit')}")
    print()
    print("\n".join(notes))
    if opts.json:
        date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
        for r in rows_json:
            r["commit"] = opts.commit
            r["date"] = date
        with open(opts.json, "w") as f:
            json.dump(rows_json, f, indent=1)
            f.write("\n")
    for m in models + [m + "-nofuse" for m in models]:
        w = load_json(os.path.join(run, f"wgrt-{m}.json"))
        for p in (w or {}).get("profiles", []):
            top = 12 if p["what"].startswith("decode") else 6
            print(f"\nwgrt {m}, {p['what']}: {p['dispatches']} dispatches, GPU {p['gpu_ms']:.3f} ms "
                  f"(sum of timed dispatches), wall {p['wall_ms']:.3f} ms with timing on")
            tg = [t for t in w.get("tests", []) if t.get("n_gen") and t.get("runs")]
            if p["what"].startswith("decode") and tg and p["gpu_ms"] > 0:
                wall = tg[0]["ms_per_token"]["median"]
                print(f"untimed {tg[0]['name']}: {wall:.3f} ms/token; kernels {p['gpu_ms']:.3f} ms = "
                      f"{min(100, 100 * p['gpu_ms'] / wall):.0f}% of it (the rest: CPU encode/submit/readback, idle GPU)")
            print("| kernel | count | total us | avg us | share |")
            print("| --- | ---: | ---: | ---: | ---: |")
            for k in p["kernels"][:top]:
                share = 100 * k["gpu_us"] / (1e3 * p["gpu_ms"]) if p["gpu_ms"] else 0
                print(f"| {k['label']} | {k['count']} | {k['gpu_us']:.1f} | {k['gpu_us'] / k['count']:.2f} | {share:.1f}% |")
    vision_table(run)


def vision_table(run):
    """The vision programs' `wgrt run --repeat --profile` outputs (wgrt-vision-NAME.out):
    median wall latency, dispatches, GPU time and the top kernels; NAME-unprofiled
    rows are the same program without the profile (wall latency only)."""
    outs = sorted(glob.glob(os.path.join(run, "wgrt-vision-*.out")))
    if not outs:
        return
    print("\n| vision program | median ms (wall) | min ms | dispatches | GPU ms | top kernels (avg us) |")
    print("| --- | ---: | ---: | ---: | ---: | --- |")
    for path in outs:
        text = open(path).read()
        med = re.search(r"time:\s+([\d.]+) ms median of \d+ runs \(min ([\d.]+) ms\)", text)
        disp = re.search(r"forward, (\d+) dispatches", text)
        gpu = re.search(r"profile:\s+([\d.]+) ms of GPU time", text)
        kernels = re.findall(r"^\s+(\S+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)%$", text, re.M)[:3]
        top = ", ".join(f"{k[0]} x{k[1]} ({float(k[3]):.1f})" for k in kernels)
        name = os.path.basename(path)[len("wgrt-vision-"):-4]
        print(f"| {name} | {med.group(1) if med else '-'} | {med.group(2) if med else '-'} | "
              f"{disp.group(1) if disp else '-'} | {gpu.group(1) if gpu else '-'} | {top} |")


if __name__ == "__main__":
    main()
