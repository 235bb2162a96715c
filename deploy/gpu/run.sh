#!/usr/bin/env bash
# run.sh — the whole loop, one command, on one machine: start the engine, calibrate its step-time model (quick
# plan), sweep its continuous-batching knobs over a production-like trace with that profile, verify the 3 best
# candidates live (the engine restarted with each one's knobs, NVML sampling each replay; --refit then says, per
# candidate, how far the engine's own steps were from the profile's), and write the report.
#
#   OUT=gpu-out deploy/gpu/run.sh
#
# ENGINE=gpu (the default when nvidia-smi sees a GPU; an H200 or an H100 SXM, named to the profile and the sweep as
# the GPU the engine runs on: the first CUDA_VISIBLE_DEVICES names, else the first nvidia-smi lists) serves deploy/gpu/engine.py: a Llama-3.1-8B-shaped model
# with random bf16 weights, swept over --max-parallel × --max-batch-tokens, replaying the first minute of the
# Azure 2023 conversation trace. ENGINE=cpu (the default otherwise) serves the CPU test engine (scripts/engine.sh:
# Ollama and the generated tiny model), swept over its parallel slots, replaying a synthesized bursty trace; CI
# runs it this way.
#
# Environment:
#   OUT       output directory (default run-out): profile.json, profile.refit.json, trace, sweep/, verify/, verify.txt, report.html,
#             report.md, run.log, the engines' logs
#   SERVESIM  the servesim binary (default .cache/bin/servesim, else servesim on PATH). A machine without Go
#             takes one built elsewhere: CGO_ENABLED=1 GOOS=linux GOARCH=amd64 go build -o servesim ./cmd/servesim,
#             on Linux with a C compiler (NVML needs cgo: a cross-compiled binary measures no power)
#   PORT      the engine's port (default 8000 gpu, 11438 cpu); nothing else may listen there
#   PYTHON    the GPU engine's interpreter (default python3)
#   CUDA_VISIBLE_DEVICES  the GPU engine's GPU: its first entry, an index or UUID as nvidia-smi lists them
#             (default: the first GPU nvidia-smi lists)
#   REPEAT    measure each candidate this many times, each on a fresh engine (default 1; verify --repeat)
#
# Exit status: verify's (0 every metric within tolerance, 4 some metric outside it, 5 a candidate could not be
# measured, 6 the refit failed; the report is written for each); 1 when any other step fails, verify included
# when it stops with an error of its own (1, or 2 for a usage error).
set -eEuo pipefail
trap 'exit 1' ERR # a failed step's own status (2, 127) would pass for neither verify's nor the documented 1

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$(mkdir -p "${OUT:-run-out}" && cd "${OUT:-run-out}" && pwd)
if [[ -z ${ENGINE:-} ]]; then
	ENGINE=cpu
	if nvidia-smi -L >/dev/null 2>&1; then ENGINE=gpu; fi
fi
SERVESIM=${SERVESIM:-$ROOT/.cache/bin/servesim}
[[ $SERVESIM == /* ]] || SERVESIM=$PWD/$SERVESIM # named from here: the steps run from the repository root
[[ -x $SERVESIM ]] || SERVESIM=$(command -v servesim) || { echo "run.sh: no servesim binary (set SERVESIM)" >&2; exit 1; }
PYTHON=${PYTHON:-python3}
exec > >(tee "$OUT/run.log") 2>&1
T0=$SECONDS
step() { printf '\n== %s (%ds)\n' "$*" $((SECONDS - T0)); }
cd "$ROOT"

case $ENGINE in
gpu)
	PORT=${PORT:-8000}
	MODEL=llama-3.1-8b-random
	TEXT=(--tokens-per-byte 1 --prompt-overhead 51) # engine.py: 1 token per byte + 51 for a chat message
	# The engine's GPU: the first CUDA_VISIBLE_DEVICES names, else the first nvidia-smi lists, pinned by UUID.
	# NVML samples every GPU of the host: calibrate's power fit and verify's energy take this one's samples
	# (--gpu-devices), or a host's idle GPUs would pull the power fit toward idle power and verify, seeing
	# more devices than the plan's, would compare no energy.
	GPU_ID=${CUDA_VISIBLE_DEVICES:-0}
	GPU_UUID=$(nvidia-smi --query-gpu=uuid --format=csv,noheader -i "${GPU_ID%%,*}") ||
		{ echo "run.sh: GPU \"${GPU_ID%%,*}\" (CUDA_VISIBLE_DEVICES): nvidia-smi lists no such GPU" >&2; exit 1; }
	export CUDA_VISIBLE_DEVICES=$GPU_UUID
	# the catalog's name for that GPU, and the sweep over its memory and price
	GPU_NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader -i "$GPU_UUID")
	case $GPU_NAME in
	*H200*) GPU_MODEL=H200-141G SWEEP=deploy/gpu/h200-sweep.toml ;;
	*"H100 80GB HBM3"* | *H100*SXM*) GPU_MODEL=H100-SXM-80G SWEEP=deploy/gpu/h100-sweep.toml ;;
	*)
		echo "run.sh: GPU \"$GPU_NAME\": deploy/gpu has sweeps for the H200 and the H100 SXM only" >&2
		exit 1
		;;
	esac
	DEVICE=(--engine transformers-cb --device $GPU_MODEL --precision bf16 --block-size 256 --gpu-devices "$GPU_UUID")
	SLICE=0s:60s
	HEALTH=http://127.0.0.1:$PORT/health
	HEALTH_TIMEOUT=4m
	ENGINE_CMD="exec $PYTHON deploy/gpu/engine.py --host {{.Host}} --port {{.Port}} --model-name $MODEL"
	ENGINE_CMD+=" --max-parallel {{.MaxNumSeqs}} --max-batch-tokens {{.MaxNumBatchedTokens}} --block-size {{.BlockSize}}"
	ENGINE_CMD+=" --max-model-len {{.MaxModelLen}} --kv-memory-fraction 0.85"
	GPU=(--gpu --gpu-devices "$GPU_UUID")
	# The calibration's concurrency ramp climbs to the engine's slots: the quick plan's default top of 8 clients
	# would leave every decode batch wider than 8 (the sweep runs 16–128) extrapolated. Not past them: the
	# ramp's clients beyond 64 would only queue (calibrate takes --engine transformers-cb for a paged engine, so
	# a hard limit found is no slot cache).
	SLOTS=64
	RAMP=(--max-concurrency $SLOTS)
	start_engine() {
		$PYTHON deploy/gpu/engine.py --port "$PORT" --model-name $MODEL --max-parallel $SLOTS --max-batch-tokens 2048 \
			--block-size 256 --max-model-len 8192 --kv-memory-fraction 0.85 >"$OUT/engine-calibrate.log" 2>&1 &
		ENGINE_PID=$!
		for _ in $(seq 1 240); do
			$PYTHON -c "import urllib.request as u; u.build_opener(u.ProxyHandler({})).open('$HEALTH', timeout=2)" 2>/dev/null && return 0
			kill -0 $ENGINE_PID 2>/dev/null || { tail -20 "$OUT/engine-calibrate.log"; return 1; }
			sleep 1
		done
		echo "run.sh: the engine was not healthy after 4 min" >&2
		return 1
	}
	stop_engine() { kill "$ENGINE_PID" 2>/dev/null && wait "$ENGINE_PID" 2>/dev/null || true; }
	make_trace() { cp testdata/azure2023/AzureLLMInferenceTrace_conv.csv "$OUT/trace.csv" && TRACE=$OUT/trace.csv; }
	;;
cpu)
	PORT=${PORT:-11438}
	MODEL=servesim-tiny
	TEXT=(--tokens-per-byte 1 --prompt-overhead 20 --prompt-prefix 7) # the tiny model's tokenizer: 1 token per byte + 20 for chat, 7 before the text
	DEVICE=(--engine ollama --engine-version 0.6.5 --device cpu --precision f16 --engine-args OLLAMA_NUM_PARALLEL=4,num_thread=1)
	SWEEP=deploy/gpu/cpu-sweep.toml
	SLICE=30
	HEALTH=http://127.0.0.1:$PORT/api/version
	HEALTH_TIMEOUT=1m
	ENGINE_CMD="SERVESIM_ENGINE_PORT={{.Port}} OLLAMA_NUM_PARALLEL={{.MaxNumSeqs}} exec scripts/engine.sh serve"
	GPU=()
	RAMP=() # the quick plan's ramp to 8 clients passes the engine's 4 slots: calibrate finds them
	start_engine() { SERVESIM_ENGINE_PORT=$PORT OLLAMA_NUM_PARALLEL=4 scripts/engine.sh start >/dev/null; }
	stop_engine() { SERVESIM_ENGINE_PORT=$PORT scripts/engine.sh stop; }
	make_trace() {
		TRACE=$OUT/trace.parquet
		"$SERVESIM" trace synth --requests 60 --arrival gamma --cv 2 --rate 1 \
			--prompt lognormal:160:0.6:16:1024 --output lognormal:24:0.5:4:96 \
			--prefix-groups 4 --prefix-tokens 64 --block-size 16 --seed 42 "$TRACE"
	}
	;;
*)
	echo "run.sh: ENGINE=$ENGINE: want gpu or cpu" >&2
	exit 1
	;;
esac
BASE=http://127.0.0.1:$PORT/v1
NOKEY=(--api-key-env SERVESIM_NO_API_KEY)
echo "run.sh: engine $ENGINE on port $PORT, servesim $("$SERVESIM" --version 2>/dev/null || true), output $OUT"

step "start the engine"
trap stop_engine EXIT
start_engine

step "calibrate (quick plan)"
"$SERVESIM" calibrate --base-url "$BASE" --model $MODEL "${NOKEY[@]}" "${TEXT[@]}" --plan quick "${RAMP[@]}" \
	--out "$OUT/profile.json" "${DEVICE[@]}"
stop_engine
trap - EXIT

step "production-like trace"
make_trace
"$SERVESIM" trace stats "$TRACE"

step "sweep the engine's knobs with the calibrated profile"
"$SERVESIM" simulate --sweep "$SWEEP" --trace "$TRACE" --profile "$OUT/profile.json" --out "$OUT/sweep" --top 3 -q

step "verify the 3 best live"
rc=0
"$SERVESIM" verify --candidates "$OUT/sweep/candidates.json" --top 3 --trace "$TRACE" --slice "$SLICE" \
	--base-url "$BASE" --model $MODEL "${NOKEY[@]}" "${TEXT[@]}" --profile "$OUT/profile.json" "${GPU[@]}" \
	--engine-cmd "$ENGINE_CMD" --health-url "$HEALTH" --health-timeout "$HEALTH_TIMEOUT" --repeat "${REPEAT:-1}" --refit \
	--out "$OUT/verify" | tee "$OUT/verify.txt" || rc=${PIPESTATUS[0]}
[[ $rc == 0 || $rc == 4 || $rc == 5 || $rc == 6 ]] || { echo "run.sh: verify failed (exit $rc)" >&2; exit 1; }

step "report"
"$SERVESIM" report --title "servesim: calibrate, sweep and verify on $ENGINE" --verify "$OUT/verify/verify.json" \
	-o "$OUT/report.html" "$OUT/sweep/sweep.parquet"
"$SERVESIM" report --title "servesim: calibrate, sweep and verify on $ENGINE" --verify "$OUT/verify/verify.json" \
	-o "$OUT/report.md" "$OUT/sweep/sweep.parquet"
step "done: verify exit $rc"
exit $rc
