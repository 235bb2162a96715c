#!/usr/bin/env python3
"""Smoke test for a running deploy/gpu/engine.py (starts nothing; standard library only).

    python3 deploy/gpu/smoke.py --url http://127.0.0.1:8000 --max-tokens 32

Checks /health, /v1/models, one streaming chat request, one non-streaming completion, then --concurrency
concurrent streaming requests (chat and completions alternating, prompts of different lengths), and /metrics.
For every request: HTTP 200, one content chunk per token, finish_reason "length", data: [DONE], and usage with
completion_tokens == max_tokens and prompt_tokens == the engine's byte-tokenizer formula:
    chat (one user message of n UTF-8 bytes): n + 51        completions (string prompt of n bytes): n + 1
Prints TTFT / TPOT / throughput; exits 1 on any mismatch.
"""
import argparse
import json
import statistics
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never via an environment proxy


def expected_prompt_tokens(chat, text):
    n = len(text.encode("utf-8"))
    if not chat:
        return n + 1  # BOS + bytes
    # BOS + "<|im_start|>user\n" + content + "<|im_end|>\n" + "<|im_start|>assistant\n"
    return 1 + (24 + len("user") + n) + 22


def post(url, body, timeout):
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    return OPENER.open(req, timeout=timeout)


def stream_one(args, chat, prompt, max_tokens):
    """One streaming request; returns a dict of timings and the list of problems found."""
    body = {"model": args.model, "max_tokens": max_tokens, "temperature": 0, "stream": True,
            "stream_options": {"include_usage": True}, "ignore_eos": True}
    if chat:
        body["messages"] = [{"role": "user", "content": prompt}]
    else:
        body["prompt"] = prompt
    url = args.url + ("/v1/chat/completions" if chat else "/v1/completions")
    problems, times, usage, finish, done = [], [], None, None, False
    t0 = time.perf_counter()
    try:
        with post(url, body, args.timeout) as resp:
            if resp.status != 200:
                return {"problems": [f"HTTP {resp.status}"]}
            for raw in resp:
                line = raw.decode().strip()
                if not line:
                    continue
                if not line.startswith("data: "):
                    problems.append(f"not an SSE data line: {line[:80]!r}")
                    continue
                data = line[6:]
                if data == "[DONE]":
                    done = True
                    break
                chunk = json.loads(data)
                if "error" in chunk:
                    problems.append(f"stream error: {chunk['error']}")
                    continue
                if chunk.get("usage") and not chunk.get("choices"):
                    usage = chunk["usage"]
                    continue
                choice = chunk["choices"][0]
                text = choice["delta"].get("content") if chat else choice.get("text")
                if text:
                    times.append(time.perf_counter())
                finish = choice.get("finish_reason") or finish
    except urllib.error.HTTPError as e:
        return {"problems": [f"HTTP {e.code}: {e.read()[:300]!r}"]}
    except OSError as e:
        return {"problems": [f"connection: {e!r}"]}
    want_prompt = expected_prompt_tokens(chat, prompt)
    if not done:
        problems.append("no data: [DONE]")
    if usage is None:
        problems.append("no usage chunk")
    else:
        if usage.get("completion_tokens") != max_tokens:
            problems.append(f"completion_tokens {usage.get('completion_tokens')} != max_tokens {max_tokens}")
        if usage.get("prompt_tokens") != want_prompt:
            problems.append(f"prompt_tokens {usage.get('prompt_tokens')} != formula {want_prompt}")
        if usage.get("total_tokens") != usage.get("prompt_tokens", 0) + usage.get("completion_tokens", 0):
            problems.append("total_tokens != prompt_tokens + completion_tokens")
    if len(times) != max_tokens:
        problems.append(f"{len(times)} content chunks, want one per token ({max_tokens})")
    if finish != "length":
        problems.append(f"finish_reason {finish!r}, want 'length'")
    r = {"problems": problems, "tokens": len(times), "t0": t0, "end": times[-1] if times else None}
    if times:
        r["ttft"] = times[0] - t0
        r["tpot"] = (times[-1] - times[0]) / (len(times) - 1) if len(times) > 1 else 0.0
    return r


def check_json(args, path, want):
    try:
        with OPENER.open(args.url + path, timeout=30) as resp:
            text = resp.read().decode()
            return [] if want(text) else [f"{path}: unexpected body {text[:200]!r}"]
    except OSError as e:
        return [f"{path}: {e!r}"]


def non_streaming(args):
    prompt = "non-streaming check"
    body = {"model": args.model, "prompt": prompt, "max_tokens": args.max_tokens, "temperature": 0}
    try:
        with post(args.url + "/v1/completions", body, args.timeout) as resp:
            out = json.loads(resp.read())
    except OSError as e:
        return [f"non-streaming: {e!r}"]
    u = out.get("usage", {})
    want = (args.max_tokens, expected_prompt_tokens(False, prompt))
    got = (u.get("completion_tokens"), u.get("prompt_tokens"))
    return [] if got == want and out["choices"][0]["text"] else [f"non-streaming usage {got}, want {want}"]


def report(name, results, wall):
    ok = [r for r in results if "ttft" in r]
    if not ok:
        return
    ttft = [1000 * r["ttft"] for r in ok]
    tpot = [1000 * r["tpot"] for r in ok]
    tokens = sum(r["tokens"] for r in ok)
    print(f"{name}: {len(results)} req, TTFT ms mean {statistics.mean(ttft):.1f} max {max(ttft):.1f}, "
          f"TPOT ms mean {statistics.mean(tpot):.2f} max {max(tpot):.2f}, "
          f"{tokens} tokens in {wall:.2f} s = {tokens / wall:.1f} tok/s")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--url", default="http://127.0.0.1:8000")
    ap.add_argument("--model", default="llama-3.1-8b-random")
    ap.add_argument("--max-tokens", type=int, default=32)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--timeout", type=float, default=300)
    args = ap.parse_args()
    args.url = args.url.rstrip("/")
    problems = check_json(args, "/health", lambda t: True)
    problems += check_json(args, "/v1/models", lambda t: json.loads(t)["data"][0]["id"] != "")

    t = time.perf_counter()
    first = stream_one(args, True, "Hello! Say something.", args.max_tokens)
    problems += [f"single: {p}" for p in first["problems"]]
    report("single (chat)", [first], time.perf_counter() - t)
    problems += non_streaming(args)

    jobs = [(i % 2 == 0, f"request {i}: " + "lorem ipsum " * (1 + 40 * i), args.max_tokens)
            for i in range(args.concurrency)]
    t = time.perf_counter()
    with ThreadPoolExecutor(args.concurrency) as pool:
        results = list(pool.map(lambda j: stream_one(args, *j), jobs))
    wall = time.perf_counter() - t
    for i, r in enumerate(results):
        problems += [f"concurrent #{i} ({'chat' if jobs[i][0] else 'completions'}): {p}" for p in r["problems"]]
    report(f"concurrent x{args.concurrency}", results, wall)
    if len([r for r in results if "ttft" in r]) > 1:  # continuous batching: the streams must overlap in time
        starts, ends = max(r["t0"] + r["ttft"] for r in results if "ttft" in r), min(r["end"] for r in results if r.get("end"))
        print(f"overlap: last first-token at +{starts - t:.2f} s, first stream end at +{ends - t:.2f} s")

    problems += check_json(args, "/metrics", lambda t: "vllm:num_requests_running" in t and
                           "vllm:gpu_cache_usage_perc" in t)
    for p in problems:
        print("FAIL:", p)
    print("OK" if not problems else f"{len(problems)} problem(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
