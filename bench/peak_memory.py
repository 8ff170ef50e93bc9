#!/usr/bin/env python3
"""Runs a command and samples its memory from /proc every 10 ms: the peak of
RssAnon (its own heap: what a loader holds), RssFile (the page cache it
maps) and RssShmem (shared memory: lavapipe's GPU buffers, a queue's
staging). Prints one JSON line last, after the command's stderr tail.

  bench/peak_memory.py [--json OUT] -- wgrt generate --model m.gguf -n 8

Also imported by tests/e2e/test_streaming_load.py (run_sampled)."""
import json
import subprocess
import sys
import time

KEYS = ("RssAnon", "RssFile", "RssShmem")


def status_mib(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in KEYS:
                out[key] = int(value.split()[0]) / 1024
    return out


def run_sampled(cmd, timeout=600):
    """(returncode, stdout, stderr, peak MiB by key, samples, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak = {k: 0.0 for k in KEYS}
    samples = 0
    while proc.poll() is None:
        try:
            for k, v in status_mib(proc.pid).items():
                peak[k] = max(peak[k], v)
            samples += 1
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.01)
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err, peak, samples, time.monotonic() - start


def main(argv):
    json_out = None
    if argv[:1] == ["--json"]:
        json_out, argv = argv[1], argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        sys.exit(__doc__)
    rc, _, err, peak, samples, seconds = run_sampled(argv)
    sys.stderr.write(err[-3000:])
    result = {"cmd": argv, "rc": rc, "seconds": round(seconds, 2), "samples": samples,
              "peak_mib": {k: round(v, 1) for k, v in peak.items()}}
    print(json.dumps(result))
    if json_out:
        with open(json_out, "w") as f:
            json.dump(result, f, indent=1)
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
