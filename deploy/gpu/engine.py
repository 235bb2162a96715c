#!/usr/bin/env python3
"""servesim GPU test engine: a small OpenAI-compatible streaming server over transformers' continuous batching.

A Llama-3.1-8B-shaped model with random bf16 weights (no download) is scheduled by transformers'
ContinuousBatchingManager (paged KV cache, `paged|sdpa` attention). Prompts are tokenized by a byte-level
"tokenizer", so token counts are exact and deterministic:

    chat:         prompt_tokens = 1 + sum over messages (24 + len(role) + len(content)) + 22     (lengths in UTF-8 bytes)
                  one user message of n bytes -> n + 51
    completions:  prompt_tokens = n + 1 for a string prompt of n bytes; len(ids) for a token-id list

(1 = BOS; a message renders as "<|im_start|>{role}\\n{content}<|im_end|>\\n"; 22 = "<|im_start|>assistant\\n").
Every request generates exactly max_tokens tokens (EOS is disabled), one SSE chunk per token, finish_reason "length".
See README.md for flags. `--backend fake` runs the HTTP layer without torch, for CPU tests.
"""
import argparse
import asyncio
import contextlib
import dataclasses
import functools
import inspect
import itertools
import json
import logging
import os
import sys
import time
import uuid

from aiohttp import web

log = logging.getLogger("engine")

# ---------------------------------------------------------------------------------------------- byte tokenizer
VOCAB = 128256
BOS_ID, EOS_ID = 128000, 128001
BYTE_BASE = 1000  # byte b -> token id BYTE_BASE + b
WORDS = ("time year over well also back work life only then long even need feel come give take make look find want "
         "tell call keep seem turn show hear play move live hold word home hand part high last much next same city "
         "team name line form game book fact head face side kind room").split()  # output id -> " " + word


def content_text(content):
    """OpenAI message content: a string, None, or a list of parts whose "text" parts are concatenated."""
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list) and all(isinstance(p, dict) for p in content):
        return "".join(p.get("text", "") for p in content if p.get("type") == "text")
    raise ApiError(400, "message content must be a string or a list of content parts", "messages")


def render_chat(messages):
    parts = []
    for m in messages:
        if not isinstance(m, dict) or not isinstance(m.get("role"), str):
            raise ApiError(400, "each message needs a string 'role'", "messages")
        parts.append(f"<|im_start|>{m['role']}\n{content_text(m.get('content'))}<|im_end|>\n")
    return "".join(parts) + "<|im_start|>assistant\n"


def encode(text):
    return [BOS_ID] + [BYTE_BASE + b for b in text.encode("utf-8")]


def token_text(token_id):
    return " " + WORDS[token_id % len(WORDS)]


class ApiError(Exception):
    def __init__(self, status, message, param=None, etype=None):
        super().__init__(message)
        self.status, self.message, self.param = status, message, param
        self.etype = etype or ("invalid_request_error" if status < 500 else "internal_server_error")


def error_body(status, message, etype, param=None):
    return {"error": {"message": message, "type": etype, "param": param, "code": status}}


# ---------------------------------------------------------------------------------------------- backends
class CBBackend:
    """transformers' ContinuousBatchingManager over a random-weight Llama-3.1-8B-shaped model on one GPU.

    Outputs are routed per request with `register_result_handler` (called on the event loop, before
    `add_request`): the manager's thread then runs the callback on the loop (call_soon_threadsafe)."""

    def __init__(self, args):
        import torch
        from transformers import GenerationConfig
        from transformers.generation import ContinuousBatchingConfig  # transformers >= 5.3
        cbc = cb_config(args, ContinuousBatchingConfig)  # validates the knobs before the model is built
        self.model = build_model(args)
        sample = args.sampling == "sample"
        # Greedy by default (argmax is safe on random weights). In sample mode the CB per-request temperature
        # processor is created only if the shared temperature is not 1.0, hence 0.5 (always overridden per request).
        gen = GenerationConfig(do_sample=sample, max_new_tokens=args.default_max_tokens,
                               **(dict(temperature=0.5, top_k=0, top_p=1.0) if sample else {}))
        self.per_request_temperature = sample
        self.mgr = self.model.init_continuous_batching(generation_config=gen, continuous_batching_config=cbc)
        if not hasattr(self.mgr, "register_result_handler"):
            raise RuntimeError("this transformers' ContinuousBatchingManager has no register_result_handler")
        self.add_sig = inspect.signature(self.mgr.add_request).parameters
        if hasattr(self.mgr, "warmup"):
            self.mgr.warmup()  # no-op without CUDA graphs/compile; must run on the main thread when they are on
        self.mgr.start()
        for _ in range(600):
            if getattr(self.mgr, "batch_processor", None) is not None or not self.mgr.is_running():
                break
            time.sleep(0.2)
        bp = self.mgr.batch_processor
        if bp is None:
            raise RuntimeError("the continuous batching manager did not start (see the log above)")
        cache = bp.cache
        self.capacity_tokens = cache.num_blocks * cache.block_size
        log.info("paged KV cache: num_blocks=%d block_size=%d (%d tokens) max_batch_tokens=%s scheduler=%s attn=%s",
                 cache.num_blocks, cache.block_size, self.capacity_tokens, getattr(cache, "max_batch_tokens", "?"),
                 type(bp.scheduler).__name__, self.model.config._attn_implementation)
        log.info("resolved CB config: %s", getattr(self.mgr, "continuous_batching_config", None))
        log.info("GPU memory allocated %.1f GiB, reserved %.1f GiB",
                 torch.cuda.memory_allocated() / 2**30, torch.cuda.memory_reserved() / 2**30)
        self.self_test()

    def _add(self, rid, ids, max_tokens, temperature, streaming):
        kw = dict(request_id=rid, max_new_tokens=max_tokens, streaming=streaming)
        if "eos_token_id" in self.add_sig:
            kw["eos_token_id"] = -1  # negative ids are dropped: no EOS, generation stops at max_new_tokens only
        if self.per_request_temperature:
            kw["temperature"] = max(float(temperature), 1e-4)  # 0 -> (near) greedy
        self.mgr.add_request(list(ids), **kw)

    def self_test(self):
        """One 4-token request before serving: fails start-up loudly instead of the first real request."""
        t0, rid = time.perf_counter(), "selftest-" + uuid.uuid4().hex[:8]
        self._add(rid, encode("self test"), 4, 1.0, streaming=False)
        while time.perf_counter() - t0 < 600:
            out = self.mgr.get_result(request_id=rid, timeout=1)
            if out is not None and getattr(out, "error", None):
                raise RuntimeError(f"self-test request failed: {out.error}")
            if out is not None and out.is_finished():
                if len(out.generated_tokens) != 4:
                    raise RuntimeError(f"self-test generated {len(out.generated_tokens)} tokens, want 4")
                log.info("self-test OK: 4 tokens in %.0f ms", 1000 * (time.perf_counter() - t0))
                return
            if not self.mgr.is_running():
                raise RuntimeError("generation thread died during the self-test (see the log above)")
        raise RuntimeError("self-test timed out")

    def submit(self, rid, ids, max_tokens, temperature, deliver):
        """Start a request; deliver(tokens_so_far, finished, error) is called on the event loop."""
        def on_output(out):  # GenerationOutput: generated_tokens holds every token so far
            deliver(out.generated_tokens, out.is_finished(), getattr(out, "error", None))
        self.mgr.register_result_handler(rid, on_output)  # before add_request, so no output can be missed
        self._add(rid, ids, max_tokens, temperature, streaming=True)

    def release(self, rid, abort):
        """Forget a request's output handler; abort=True also cancels it in the scheduler (client went away)."""
        if abort:
            self.mgr.cancel_request(rid)
        router = getattr(self.mgr, "output_router", None)  # handlers remove themselves only on completion
        if router is not None:
            router.result_handlers.pop(rid, None)

    def is_running(self):
        return self.mgr.is_running()

    def stats(self):
        """(running, waiting, kv cache usage in [0, 1]) read from the scheduler and the paged cache."""
        bp = self.mgr.batch_processor
        if bp is None:
            return 0, self.mgr.input_queue.qsize(), 0.0
        s, c = bp.scheduler, bp.cache
        waiting = len(s.waiting_requests) + self.mgr.input_queue.qsize()
        return len(s.active_requests), waiting, 1.0 - c.get_num_free_blocks() / max(c.num_blocks, 1)

    def stop(self):
        self.mgr.stop(block=True, timeout=10)


def build_model(args):
    """Llama-3.1-8B shapes, random bf16 weights built directly on the GPU (init runs on the GPU: seconds)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    config = LlamaConfig(
        vocab_size=VOCAB, hidden_size=4096, intermediate_size=14336, num_hidden_layers=args.layers,
        num_attention_heads=32, num_key_value_heads=8, head_dim=128, max_position_embeddings=131072,
        rms_norm_eps=1e-5, hidden_act="silu", tie_word_embeddings=False, bos_token_id=BOS_ID, eos_token_id=EOS_ID,
        # Llama 3.1 uses rope_type "llama3" scaling on top of theta 500000; it does not change any shape or cost.
        rope_parameters={"rope_type": "default", "rope_theta": 500000.0})
    torch.manual_seed(args.seed)
    t0, default_dtype = time.perf_counter(), torch.get_default_dtype()
    torch.set_default_dtype(torch.bfloat16)  # as from_pretrained(dtype=bf16) does: params are created in bf16
    try:
        with torch.device("cuda"):  # ... and directly on the GPU, never on the CPU
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(default_dtype)
    model.eval().requires_grad_(False)
    if args.attn != model.config._attn_implementation:
        model.set_attn_implementation(args.attn)
    n = sum(p.numel() for p in model.parameters())
    log.info("model: %d layers, %.2fB params, %s on %s, attn=%s, built in %.1f s", args.layers, n / 1e9,
             model.dtype, model.device, model.config._attn_implementation, time.perf_counter() - t0)
    return model


def cb_config(args, cls):
    """Map the CLI knobs onto ContinuousBatchingConfig; unset knobs keep transformers' defaults."""
    tri = {"auto": None, "on": True, "off": False}
    want = dict(block_size=args.block_size, num_blocks=args.num_blocks, max_batch_tokens=args.max_batch_tokens,
                max_memory_percent=args.kv_memory_fraction, max_requests_per_batch=args.max_parallel,
                scheduler_type=args.scheduler, use_cuda_graph=tri[args.cuda_graph],
                use_async_batching=tri[args.async_batching], allow_block_sharing=args.prefix_sharing == "on",
                per_request_processors=args.sampling == "sample" or None, default_compile_level=args.compile_level)
    fields = {f.name for f in dataclasses.fields(cls)} if dataclasses.is_dataclass(cls) else \
        set(inspect.signature(cls).parameters)
    kw = {k: v for k, v in want.items() if v is not None and k in fields}
    dropped = sorted(k for k, v in want.items() if v is not None and k not in fields)
    if dropped:
        log.warning("this transformers' ContinuousBatchingConfig has no %s: ignored", dropped)
    try:
        from transformers.generation.continuous_batching.scheduler import SCHEDULER_MAPPING
        if args.scheduler not in SCHEDULER_MAPPING:  # the manager would silently fall back to FIFO
            raise SystemExit(f"--scheduler {args.scheduler!r}: choose one of {sorted(SCHEDULER_MAPPING)}")
    except ImportError:
        pass
    return cls(**kw)


class FakeBackend:
    """No model (--backend fake): token i of a request arrives after ttft + i*itl; for CPU tests of the HTTP layer."""
    capacity_tokens = None

    def __init__(self, args):
        self.ttft, self.itl, self.tasks = args.fake_ttft_ms / 1e3, args.fake_itl_ms / 1e3, {}

    def submit(self, rid, ids, max_tokens, temperature, deliver):
        async def run():
            await asyncio.sleep(self.ttft)
            tokens = []
            for i in range(max_tokens):
                tokens.append((ids[i % len(ids)] + i) % VOCAB)
                deliver(list(tokens), len(tokens) == max_tokens, None)
                await asyncio.sleep(self.itl)
        self.tasks[rid] = asyncio.get_running_loop().create_task(run())

    def release(self, rid, abort):
        task = self.tasks.pop(rid, None)
        if task is not None and abort:
            task.cancel()

    is_running = staticmethod(lambda: True)
    stats = lambda self: (len(self.tasks), 0, 0.0)  # noqa: E731
    stop = staticmethod(lambda: None)


# ---------------------------------------------------------------------------------------------- HTTP layer
class Server:
    def __init__(self, args, backend):
        self.args, self.backend, self.ids = args, backend, itertools.count()
        cap = backend.capacity_tokens
        self.max_len = min(args.max_model_len, cap) if cap else args.max_model_len
        self.totals = dict(prompt_tokens=0, generation_tokens=0, request_success=0, request_failure=0)

    def app(self):
        app = web.Application(middlewares=[self.errors], client_max_size=64 * 2**20)
        app.router.add_post("/v1/chat/completions", functools.partial(self.complete, chat=True))
        app.router.add_post("/v1/completions", functools.partial(self.complete, chat=False))
        app.router.add_get("/v1/models", self.models)
        app.router.add_get("/health", self.health)
        app.router.add_get("/metrics", self.metrics)
        app.on_cleanup.append(self.cleanup)
        return app

    async def cleanup(self, _):
        await asyncio.get_running_loop().run_in_executor(None, self.backend.stop)

    @web.middleware
    async def errors(self, request, handler):
        """Every failure before a stream starts is an OpenAI error object with its HTTP status."""
        try:
            return await handler(request)
        except ApiError as e:
            return web.json_response(error_body(e.status, e.message, e.etype, e.param), status=e.status)
        except web.HTTPException as e:
            if e.status < 400:
                raise
            etype = "not_found_error" if e.status == 404 else "invalid_request_error"
            return web.json_response(error_body(e.status, e.reason, etype), status=e.status)
        except Exception as e:  # noqa: BLE001
            log.exception("internal error")
            return web.json_response(error_body(500, f"internal error: {e!r}", "internal_server_error"), status=500)

    async def health(self, _):
        return web.Response(text="OK") if self.backend.is_running() else web.Response(status=503, text="not ready")

    async def models(self, _):
        return web.json_response({"object": "list", "data": [{
            "id": self.args.model_name, "object": "model", "created": int(time.time()), "owned_by": "servesim",
            "max_model_len": self.max_len}]})

    async def metrics(self, _):
        try:
            running, waiting, usage = self.backend.stats()
        except Exception as e:  # noqa: BLE001 - internals of transformers' scheduler may move between versions
            log.warning("engine stats unavailable: %r", e)
            running = waiting = usage = float("nan")
        label = '{model_name="%s"}' % self.args.model_name
        lines = []
        for name, kind, value in (("num_requests_running", "gauge", running), ("num_requests_waiting", "gauge", waiting),
                                  ("gpu_cache_usage_perc", "gauge", usage), ("kv_cache_usage_perc", "gauge", usage),
                                  *((k + "_total", "counter", v) for k, v in self.totals.items())):
            lines += [f"# TYPE vllm:{name} {kind}", f"vllm:{name}{label} {value if value == value else 'NaN'}"]
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain", charset="utf-8")

    def parse(self, body, chat):
        if not isinstance(body, dict):
            raise ApiError(400, "request body must be a JSON object")
        if body.get("n") not in (None, 1):
            raise ApiError(400, "only n=1 is supported", "n")
        max_tokens = body.get("max_completion_tokens") if chat else None
        max_tokens = max_tokens if max_tokens is not None else body.get("max_tokens")
        max_tokens = self.args.default_max_tokens if max_tokens is None else max_tokens
        if not isinstance(max_tokens, int) or isinstance(max_tokens, bool) or max_tokens < 1:
            raise ApiError(400, "max_tokens must be an integer >= 1", "max_tokens")
        temperature = body.get("temperature", 1.0)
        temperature = 1.0 if temperature is None else temperature
        if not isinstance(temperature, (int, float)) or isinstance(temperature, bool) or not 0 <= temperature <= 2:
            raise ApiError(400, "temperature must be a number in [0, 2]", "temperature")
        if chat:
            messages = body.get("messages")
            if not isinstance(messages, list) or not messages:
                raise ApiError(400, "messages must be a non-empty list", "messages")
            ids = encode(render_chat(messages))
        else:
            prompt = body.get("prompt")
            if isinstance(prompt, list) and len(prompt) == 1 and isinstance(prompt[0], str):
                prompt = prompt[0]
            if isinstance(prompt, str):
                ids = encode(prompt)
            elif isinstance(prompt, list) and prompt and all(type(t) is int and 0 <= t < VOCAB for t in prompt):
                ids = prompt
            else:
                raise ApiError(400, "prompt must be a string or a non-empty list of token ids", "prompt")
        if len(ids) + max_tokens > self.max_len:
            raise ApiError(400, f"prompt ({len(ids)} tokens) + max_tokens ({max_tokens}) exceeds the maximum context "
                                f"length {self.max_len}", "max_tokens")
        opts = body.get("stream_options") if isinstance(body.get("stream_options"), dict) else {}
        return dict(ids=ids, max_tokens=max_tokens, temperature=float(temperature), stream=bool(body.get("stream")),
                    usage=bool(opts.get("include_usage")), continuous=bool(opts.get("continuous_usage_stats")),
                    model=body.get("model") or self.args.model_name)

    async def generate(self, ids, max_tokens, temperature):
        """Async generator of lists of new token ids; cancels the request if the consumer stops early."""
        rid, queue, sent, done, err = f"req-{next(self.ids)}", asyncio.Queue(), 0, False, None
        self.backend.submit(rid, ids, max_tokens, temperature, lambda *out: queue.put_nowait(out))
        try:
            while not done:
                try:
                    item = queue.get_nowait() if not queue.empty() else await asyncio.wait_for(queue.get(), 5)
                except asyncio.TimeoutError:
                    if not self.backend.is_running():
                        raise ApiError(503, "the generation loop has stopped")
                    continue
                while not queue.empty():  # outputs carry all tokens so far: only the newest one matters
                    item = queue.get_nowait()
                tokens, done, err = item
                if err:
                    raise ApiError(500, f"generation failed: {err}")
                if len(tokens) > sent:
                    new, sent = tokens[sent:], len(tokens)
                    yield new
        finally:
            self.backend.release(rid, abort=not done and not err)

    async def complete(self, request, chat):
        try:
            body = await request.json()
        except ValueError:
            raise ApiError(400, "request body is not valid JSON")
        p = self.parse(body, chat)
        if not self.backend.is_running():
            raise ApiError(503, "the engine is not running")
        n_prompt, max_tokens = len(p["ids"]), p["max_tokens"]
        base = {"id": ("chatcmpl-" if chat else "cmpl-") + uuid.uuid4().hex, "created": int(time.time()),
                "model": p["model"]}
        usage = lambda n: {"prompt_tokens": n_prompt, "completion_tokens": n, "total_tokens": n_prompt + n}
        gen = self.generate(p["ids"], max_tokens, p["temperature"])
        if not p["stream"]:
            tokens = []
            try:
                async with contextlib.aclosing(gen) as g:
                    async for new in g:
                        tokens += new
            except ApiError:
                self.totals["request_failure"] += 1
                raise
            self.count(n_prompt, len(tokens))
            text = "".join(token_text(t) for t in tokens)
            choice = {"index": 0, "logprobs": None, "finish_reason": "length"}
            choice.update({"message": {"role": "assistant", "content": text}} if chat else {"text": text})
            return web.json_response(dict(base, object="chat.completion" if chat else "text_completion",
                                          choices=[choice], usage=usage(len(tokens))))

        resp = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await resp.prepare(request)
        obj = "chat.completion.chunk" if chat else "text_completion"
        sse = lambda d: b"data: " + json.dumps(dict(base, object=obj, **d), separators=(",", ":")).encode() + b"\n\n"
        n = 0
        try:
            if chat:  # role-only first chunk, as vLLM sends (carries no content token)
                await resp.write(sse({"choices": [{"index": 0, "delta": {"role": "assistant", "content": ""},
                                                   "logprobs": None, "finish_reason": None}]}))
            async with contextlib.aclosing(gen) as g:
                async for new in g:  # one SSE event per token; tokens that arrived together share one write
                    out = []
                    for t in new:
                        n += 1
                        choice = {"index": 0, "logprobs": None, "finish_reason": "length" if n == max_tokens else None}
                        choice.update({"delta": {"content": token_text(t)}} if chat else {"text": token_text(t)})
                        out.append(sse(dict(choices=[choice], **({"usage": usage(n)} if p["continuous"] else {}))))
                    await resp.write(b"".join(out))
            self.count(n_prompt, n)
            tail = sse({"choices": [], "usage": usage(n)}) if p["usage"] else b""
            await resp.write(tail + b"data: [DONE]\n\n")
            await resp.write_eof()
        except ApiError as e:  # the stream has started: report in-band, as vLLM does
            self.totals["request_failure"] += 1
            log.error("request failed mid-stream: %s", e.message)
            with contextlib.suppress(ConnectionError):
                await resp.write(b"data: " + json.dumps(error_body(e.status, e.message, e.etype)).encode() +
                                 b"\n\ndata: [DONE]\n\n")
        except ConnectionError:  # client went away; the request was cancelled by generate()
            log.info("client disconnected after %d of %d tokens", n, max_tokens)
        return resp

    def count(self, n_prompt, n_gen):
        self.totals["prompt_tokens"] += n_prompt
        self.totals["generation_tokens"] += n_gen
        self.totals["request_success"] += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    a = ap.add_argument
    a("--host", default="127.0.0.1")
    a("--port", type=int, default=8000)
    a("--model-name", default="llama-3.1-8b-random", help="served model id")
    a("--backend", choices=["cb", "fake"], default="cb", help="cb: transformers CB on the GPU; fake: no model")
    a("--layers", type=int, default=32, help="decoder layers (32 = Llama-3.1-8B; fewer for a quick smoke test)")
    a("--seed", type=int, default=0)
    a("--attn", default="sdpa", help="base attention implementation; CB prefixes it with 'paged|'")
    a("--block-size", type=int, help="tokens per KV block (transformers' default if unset)")
    a("--num-blocks", type=int, help="KV blocks (derived from --kv-memory-fraction if unset)")
    a("--max-batch-tokens", type=int, help="token budget per forward step (derived if unset)")
    a("--kv-memory-fraction", type=float, default=0.8,
      help="fraction of the GPU memory still free after loading the weights given to KV cache + activations")
    a("--max-parallel", type=int, help="max requests per batch (max_requests_per_batch)")
    a("--scheduler", default="fifo", help="CB scheduler: fifo or prefill_first")
    a("--cuda-graph", choices=["auto", "on", "off"], default="auto")
    a("--async-batching", choices=["auto", "on", "off"], default="auto")
    a("--compile-level", type=int, default=0, help="transformers' default_compile_level (0 = no torch.compile)")
    a("--prefix-sharing", choices=["on", "off"], default="on", help="reuse KV blocks of shared prompt prefixes")
    a("--sampling", choices=["greedy", "sample"], default="greedy",
      help="greedy: every request is argmax; sample: per-request temperature (experimental on random weights)")
    a("--max-model-len", type=int, default=131072, help="cap on prompt + max_tokens (also capped by the KV cache)")
    a("--default-max-tokens", type=int, default=256, help="max_tokens when a request omits it")
    a("--fake-ttft-ms", type=float, default=20.0)
    a("--fake-itl-ms", type=float, default=10.0)
    a("--access-log", action="store_true")
    a("--log-level", default="INFO")
    args = ap.parse_args()
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    backend, code = None, 0
    try:
        backend = FakeBackend(args) if args.backend == "fake" else CBBackend(args)
        with contextlib.suppress(ImportError):
            import uvloop
            asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
        log.info("serving %s on http://%s:%d", args.model_name, args.host, args.port)
        web.run_app(Server(args, backend).app(), host=args.host, port=args.port, print=None, shutdown_timeout=5,
                    access_log=logging.getLogger("aiohttp.access") if args.access_log else None)
    except KeyboardInterrupt:
        pass
    except SystemExit as e:
        log.error("%s", e.code)
        code = 2
    except Exception:  # noqa: BLE001
        log.exception("engine failed")
        code = 1
    logging.shutdown()
    sys.stderr.flush()
    os._exit(code)  # the CB generation thread is not a daemon: never wait for it here


if __name__ == "__main__":
    main()
