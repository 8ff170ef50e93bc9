#!/usr/bin/env python3
"""Tokens/s of `wgrt serve` under N concurrent streams, for comparison with
`wgrt bench` tg: starts the server on a free loopback port, warms it up, then
N clients each stream R completions of T tokens (ignore_eos, greedy) at once.
Prints one JSON line: per-stream and aggregate generated tokens/s, mean time
to first token, wall time. The server decodes up to --parallel streams at once
(default: the largest stream count), so aggregate tokens/s grows with N while
a decode step stays bound by reading the weights; --parallel 1 gives the
one-at-a-time baseline. With --constrained K, K of the N streams ask for a
JSON object (response_format json_object), which decodes in the batch beside
the others under a token mask found on the host.

With --llama-server PATH, llama.cpp's llama-server is measured instead, with
the same requests: -np --parallel slots of --ctx tokens each, -ngl --ngl
layers on the GPU. Generated tokens are counted from the usage of each
answer's last chunk (either server), else llama-server's timings.predicted_n.

    python3 bench/serve_load.py --model M.gguf --streams 1,8,32 --tokens 128 --requests 2
    python3 bench/serve_load.py --streams 4 --constrained 2
    python3 bench/serve_load.py --llama-server llama-server --model M.gguf --streams 1,8,32
"""
import argparse
import http.client
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def start(wgrt, model, ctx, queue, parallel):
    args = [str(wgrt), "serve", "--host", "127.0.0.1", "--port", "0", "--ctx", str(ctx), "--queue", str(queue),
            "--parallel", str(parallel), "--quiet"]
    if model:
        args += ["--model", model]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 300
    for line in proc.stderr:  # the log is read until the port shows, then left to the OS pipe (it is --quiet)
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if m:
            return proc, int(m.group(1))
        if time.monotonic() > deadline:
            break
    proc.kill()
    sys.exit("wgrt serve did not start")


def free_port():
    """A loopback port that is free now. (Recent llama-servers take --port 0
    too, but then only their log tells the port; this works with any build.)"""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_llama_server(path, model, ctx, parallel, ngl):
    # -c is the whole KV cache, which llama-server splits evenly across its -np
    # slots: --ctx per slot, as wgrt's --ctx is per request.
    port = free_port()
    args = [path, "-m", model, "--host", "127.0.0.1", "--port", str(port), "-np", str(parallel),
            "-c", str(ctx * parallel), "-ngl", str(ngl)]
    log = tempfile.TemporaryFile()  # it logs every request: a file, not a pipe that fills up and blocks it
    proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
        try:  # /health answers 503 while the model loads, 200 once it serves
            conn.request("GET", "/health")
            if conn.getresponse().status == 200:
                return proc, port
        except OSError:  # not listening yet
            pass
        finally:
            conn.close()
        time.sleep(0.5)
    proc.kill()
    log.seek(0)
    sys.stderr.write(log.read()[-3000:].decode(errors="replace"))
    sys.exit("llama-server did not start")


def post(conn, body):
    """The answer to a completion request on `conn`; any status but 200 ends the run."""
    conn.request("POST", "/v1/completions", json.dumps(body), {"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        sys.exit(f"the server answered {resp.status}: {resp.read()[:300]!r}")
    return resp


def stream_events(port, body):
    """The data of each server-sent event of a streamed request (the standard
    library only, so that this runs where no openai client is installed)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        for line in post(conn, body):
            if line.startswith(b"data: "):
                data = line[6:].strip()
                if data == b"[DONE]":
                    return
                event = json.loads(data)
                if "error" in event:  # a failure after the 200 comes as an event
                    sys.exit(f"the server sent an error: {event['error']}")
                yield event
    finally:
        conn.close()


def whole_answer(port, body):
    """The usage of a request answered in one body (no events: what the
    server costs without streaming)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    try:
        answer = json.loads(post(conn, body).read())
        return answer.get("usage") or {"completion_tokens": answer["timings"]["predicted_n"]}
    finally:
        conn.close()


def one_stream(port, tokens, requests, constrained=False, llama=False, stream=True):
    firsts, generated = [], 0
    # Both servers take ignore_eos, temperature 0 (greedy) and max_tokens on /v1/completions.
    body = {"model": "m", "prompt": "Once upon a time", "max_tokens": tokens, "temperature": 0, "stream": stream,
            "ignore_eos": True}
    if stream:
        body["stream_options"] = {"include_usage": True}
    if constrained:
        # llama-server's /v1/completions ignores response_format (only its chat
        # endpoint reads it); its own json_schema field, {} being any object, does
        # the same. Once the object is whole its grammar allows only EOS, which
        # ignore_eos bans: it fails the stream ("empty grammar stack"), so there
        # the object ends the answer (wgrt draws EOS on to max_tokens instead).
        body.update({"json_schema": {}, "ignore_eos": False} if llama
                    else {"response_format": {"type": "json_object"}})
    for _ in range(requests):
        if not stream:  # no first token to time
            generated += whole_answer(port, body)["completion_tokens"]
            continue
        t0 = time.monotonic()
        first = usage = timings = None
        for chunk in stream_events(port, body):
            if first is None and chunk.get("choices") and chunk["choices"][0].get("text"):
                first = time.monotonic() - t0
            usage = chunk.get("usage") or usage
            timings = chunk.get("timings") or timings
        if usage:
            generated += usage["completion_tokens"]
        elif timings:
            generated += timings["predicted_n"]
        else:
            sys.exit("the streamed answer told no token count (neither usage nor timings.predicted_n)")
        firsts.append(first or 0.0)
    return generated, firsts


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wgrt", default=str(ROOT / "build" / "wgrt"))
    ap.add_argument("--llama-server", default="", metavar="PATH", help="measure llama.cpp's llama-server instead")
    ap.add_argument("--ngl", type=int, default=99, help="llama-server's -ngl (layers on the GPU)")
    ap.add_argument("--model", default="")
    ap.add_argument("--streams", default="1,8")
    ap.add_argument("--tokens", type=int, default=128)
    ap.add_argument("--requests", type=int, default=2, help="per stream")
    ap.add_argument("--ctx", type=int, default=1024)
    ap.add_argument("--parallel", type=int, default=0, help="the server's --parallel (default: the most streams)")
    ap.add_argument("--constrained", type=int, default=0, help="streams (of each count) that ask for a JSON object")
    ap.add_argument("--no-stream", action="store_true",
                    help="ask for whole answers (no per-token events; no time to first token)")
    a = ap.parse_args()
    counts = [int(s) for s in a.streams.split(",")]
    parallel = a.parallel or max(counts)
    llama = bool(a.llama_server)
    if llama and not a.model:
        sys.exit("--llama-server needs --model")
    proc, port = (start_llama_server(a.llama_server, a.model, a.ctx, parallel, a.ngl) if llama
                  else start(a.wgrt, a.model, a.ctx, max(counts) + 1, parallel))
    try:
        one_stream(port, 16, 1, llama=llama)  # warm-up: pipelines compiled, caches touched
        for n in counts:
            t0, cpu0 = time.monotonic(), time.process_time()
            with ThreadPoolExecutor(n) as pool:
                results = list(pool.map(
                    lambda i: one_stream(port, a.tokens, a.requests, i < a.constrained, llama, not a.no_stream),
                    range(n)))
            wall, client_cpu = time.monotonic() - t0, time.process_time() - cpu0
            total = sum(g for g, _ in results)
            firsts = [f for _, fs in results for f in fs] or [0.0]
            print(json.dumps({"engine": "llama-server" if llama else "wgrt", "streams": n, "parallel": parallel,
                              "streamed": not a.no_stream,
                              "constrained": min(a.constrained, n),
                              "tokens_per_request": a.tokens, "requests": n * a.requests,
                              "generated_tokens": total, "wall_s": round(wall, 3),
                              "aggregate_tokens_per_s": round(total / wall, 2),
                              "per_stream_tokens_per_s": round(total / wall / n, 2),
                              "mean_time_to_first_token_s": round(sum(firsts) / len(firsts), 3),
                              # This client's CPU seconds over the wall time: near 1.0 (one core:
                              # the GIL), the client, not the server, bounds the figure.
                              "client_cpu_per_wall": round(client_cpu / wall, 2)}), flush=True)
    finally:
        proc.terminate()
        proc.wait(timeout=60)


if __name__ == "__main__":
    main()
