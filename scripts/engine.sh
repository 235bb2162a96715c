#!/usr/bin/env bash
# engine.sh — run a real OpenAI-compatible engine (Ollama v0.6.5, built from
# source, CPU only, fully offline) serving a tiny random-weight model that
# servesim generates itself (cmd/servesim-testmodel, package model/gguf).
#
#   scripts/engine.sh install   build Ollama into .cache/bin (idempotent, ~4 min on 2 cores)
#   scripts/engine.sh start     install if needed, generate the model, start the server,
#                               create + load the model; prints
#                               SERVESIM_ENGINE_URL=... and SERVESIM_ENGINE_MODEL=... lines (sourceable)
#   scripts/engine.sh serve     run the server in the foreground on the model that start
#                               created (for `servesim verify --engine-cmd`, which restarts
#                               it per candidate with OLLAMA_NUM_PARALLEL = max_num_seqs)
#   scripts/engine.sh stop      stop the server (and its runner)
#   scripts/engine.sh status    print the same lines if running, exit 1 otherwise
#
# Needs only Go and gcc/g++ (Debian: golang + build-essential); no curl.
# Environment: SERVESIM_ENGINE_PORT (default 11435); SERVESIM_OLLAMA, an
# ollama binary to serve with instead of the one installed (scripts/kv-trace.sh);
# SERVESIM_ENGINE_CPUS, a taskset CPU list to pin the server to (default: none;
# see BENCHMARKS.md, "Live replay", for what pinning does on two cores);
# SERVESIM_ENGINE_NICE, the server's nice value (default 10, so that the
# engine does not starve the load generator on a shared host).
# Everything lives under <repo>/.cache: bin/ollama, engine/{model.gguf,Modelfile,
# ollama-PORT.log,ollama-PORT.pid,ollama-PORT.settings,home,models}. start
# reuses a server it started earlier only if it was started with the same
# OLLAMA_NUM_PARALLEL, SERVESIM_ENGINE_CPUS, SERVESIM_ENGINE_NICE and
# SERVESIM_OLLAMA; otherwise it restarts it.
set -euo pipefail

OLLAMA_VERSION=0.6.5
MODEL=servesim-tiny
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BIN=$ROOT/.cache/bin
ENGINE=$ROOT/.cache/engine
PORT=${SERVESIM_ENGINE_PORT:-11435}
PIDFILE=$ENGINE/ollama-$PORT.pid
SETTINGSFILE=$ENGINE/ollama-$PORT.settings
LOG=$ENGINE/ollama-$PORT.log

die() { echo "engine.sh: $*" >&2; exit 1; }

# The environment for both `ollama serve` and the `ollama` client: every path
# is local, nothing reaches the network.
ollama_env() {
	# The caller's own OLLAMA_* settings (OLLAMA_NEW_ENGINE, OLLAMA_KV_CACHE_TYPE,
	# ...) would change what is measured; only OLLAMA_NUM_PARALLEL, which verify
	# sets per candidate, is taken from it.
	local v
	for v in $(compgen -e OLLAMA_ || true); do
		[[ $v == OLLAMA_NUM_PARALLEL ]] || unset "$v"
	done
	export HOME=$ENGINE/home                  # ~/.ollama (identity key) lands here
	export OLLAMA_MODELS=$ENGINE/models       # blobs + manifests
	export OLLAMA_HOST=127.0.0.1:$PORT
	export OLLAMA_NUM_PARALLEL=${OLLAMA_NUM_PARALLEL:-4} # sequences batched in one runner (default 4)
	export OLLAMA_MAX_LOADED_MODELS=1
	export OLLAMA_KEEP_ALIVE=-1               # never unload
	export OLLAMA_NOPRUNE=1                   # don't touch blobs at startup
	export OLLAMA_MAX_QUEUE=512
	export OLLAMA_ORIGINS='*'
	export OLLAMA_FLASH_ATTENTION=0
	export CUDA_VISIBLE_DEVICES=-1 ROCR_VISIBLE_DEVICES=-1 HIP_VISIBLE_DEVICES=-1 # CPU only
	unset HTTPS_PROXY HTTP_PROXY https_proxy http_proxy
}

# http SECONDS METHOD PATH [BODY]: minimal HTTP/1.0 client over bash's
# /dev/tcp (so curl is not required). Prints the response body; fails on
# non-2xx, and on no whole response within SECONDS (a server that accepts
# but never answers must not hang the script).
http() (
	secs=$1 method=$2 path=$3 body=${4:-}
	exec 3<>"/dev/tcp/127.0.0.1/$PORT" || exit 1
	printf '%s %s HTTP/1.0\r\nHost: 127.0.0.1:%s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' \
		"$method" "$path" "$PORT" "$(printf %s "$body" | wc -c)" "$body" >&3
	# A timeout fails; an error reading past the response (a reset) does not.
	# --foreground: cat stays in the caller's process group, which an
	# interrupt ends (start's 300s warm-up must not outlast a Ctrl-C).
	resp=$(timeout --foreground "$secs" cat <&3) || (($? != 124)) || exit 1
	exec 3<&-
	status=${resp#* }
	printf '%s\n' "${resp#*$'\r\n\r\n'}"
	[[ ${status:0:1} == 2 ]]
)

healthy() { http 5 GET /api/version >/dev/null 2>&1; }

# PIN is the command prefix that pins the server to SERVESIM_ENGINE_CPUS.
PIN=()
[[ -z ${SERVESIM_ENGINE_CPUS-} ]] || PIN=(taskset -c "$SERVESIM_ENGINE_CPUS")

# The pid file holds the server's pid and its start time (Linux: clock ticks
# since boot, field 22 of /proc/PID/stat). Together they name one process: a
# stale file (the server died, the host rebooted) whose pid another process
# now has is not taken for the server, so stop never signals that process.
starttime() {
	local stat f
	stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	read -ra f <<<"${stat##*) }" # fields 3 on: the command name may hold spaces
	echo "${f[19]}"
}
server_pid() { local pid _; read -r pid _ <"$PIDFILE" && echo "$pid"; }
running() {
	local pid start
	[[ -f $PIDFILE ]] && read -r pid start <"$PIDFILE" || return 1
	[[ -n $pid && -n $start ]] && kill -0 "$pid" 2>/dev/null && [[ $(starttime "$pid") == "$start" ]]
}

cmd_install() {
	if [[ -x $BIN/ollama && "$(cat "$BIN/ollama.version" 2>/dev/null)" == "$OLLAMA_VERSION" ]]; then
		return 0
	fi
	command -v go >/dev/null || die "go not found"
	command -v gcc >/dev/null && command -v g++ >/dev/null || die "gcc/g++ not found (apt-get install build-essential)"
	mkdir -p "$BIN"
	echo "engine.sh: building ollama v$OLLAMA_VERSION (a few minutes)..." >&2
	# -mno-amx-int8: Ollama's Go build leaves out ggml's AMX kernels (their
	# directory has no Go file), so on a host with AMX -march=native alone
	# links ggml-cpu.cpp against an AMX buffer type that was never compiled.
	local flags="-O3 -march=native -mno-amx-int8"
	(cd "$ROOT" && CGO_ENABLED=1 CGO_CFLAGS="$flags" CGO_CXXFLAGS="$flags" GOBIN=$BIN \
		go install -ldflags="-X=github.com/ollama/ollama/version.Version=$OLLAMA_VERSION" \
		"github.com/ollama/ollama@v$OLLAMA_VERSION")
	echo "$OLLAMA_VERSION" >"$BIN/ollama.version"
}

cmd_start() {
	cmd_install
	mkdir -p "$ENGINE/home" "$ENGINE/models"
	(cd "$ROOT" && go build -o "$BIN/servesim-testmodel" ./cmd/servesim-testmodel)
	"$BIN/servesim-testmodel" -out "$ENGINE"
	ollama_env

	# What the server is started with: a running one is reused only if it
	# was started the same way (SERVESIM_ENGINE_CPUS=1 after an unpinned
	# start must not measure the unpinned server).
	local settings
	settings="OLLAMA_NUM_PARALLEL=$OLLAMA_NUM_PARALLEL SERVESIM_ENGINE_CPUS=${SERVESIM_ENGINE_CPUS-}"
	settings+=" SERVESIM_ENGINE_NICE=${SERVESIM_ENGINE_NICE:-10} SERVESIM_OLLAMA=${SERVESIM_OLLAMA:-$BIN/ollama}"
	if running && healthy && [[ $(cat "$SETTINGSFILE" 2>/dev/null) == "$settings" ]]; then
		echo "engine.sh: reusing running server (pid $(server_pid))" >&2
	else
		# The server the pid file names no longer answers, or runs with other
		# settings: stop it, or the new pid file would hide it from stop
		# while it holds the port.
		if running; then
			echo "engine.sh: server (pid $(server_pid)) does not answer or was started with other settings; restarting it" >&2
			cmd_stop
		fi
		healthy && die "port $PORT is already in use by another server"
		# setsid: own process group, so stop can end the server and its runner.
		# nice: on a small shared host the engine under test must not starve
		# the load generator, or client-side schedule lag measures the engine.
		# A signal before the pid file names the server is held until it
		# does: ending here would leave a server no stop can find.
		local held=0
		trap 'held=129' HUP
		trap 'held=130' INT
		trap 'held=143' TERM
		setsid "${PIN[@]}" nice -n "${SERVESIM_ENGINE_NICE:-10}" "${SERVESIM_OLLAMA:-$BIN/ollama}" serve >>"$LOG" 2>&1 </dev/null &
		echo "$! $(starttime $! || true)" >"$PIDFILE"
		printf '%s\n' "$settings" >"$SETTINGSFILE"
		# From here a failed start stops the server it started: no engine is
		# left running (and reused by the next start) after an error.
		trap 'rc=$?; ((rc == 0)) || cmd_stop; exit $rc' EXIT
		# bash runs the EXIT trap of a script ended by a signal with status 0:
		# exit with the signal's status, so that an interrupted start stops it too.
		trap 'exit 129' HUP
		trap 'exit 130' INT
		trap 'exit 143' TERM
		((held == 0)) || exit $held
		local deadline=$((SECONDS + 30))
		while ((SECONDS < deadline)); do
			healthy && break
			running || die "ollama serve exited; see $LOG"
			sleep 0.2
		done
		healthy || die "ollama serve not healthy after 30s; see $LOG"
	fi

	# The client waits on the server without a limit of its own: a server that
	# stops answering must not hold start (and CI) past the limit here.
	# --foreground: create stays in start's process group, so an interrupt
	# (to the group, from a terminal or CI) ends it instead of waiting on it.
	(cd "$ENGINE" && timeout --foreground 300 "$BIN/ollama" create "$MODEL" -f Modelfile) >>"$LOG" 2>&1 ||
		die "ollama create failed or took over 300s; see $LOG"
	# Load the model and run one token so the first real request is warm.
	http 300 POST /api/generate "{\"model\":\"$MODEL\",\"prompt\":\"warm up\",\"stream\":false,\"keep_alive\":-1,\"options\":{\"num_predict\":1}}" >/dev/null ||
		die "warm-up request failed; see $LOG"
	trap - EXIT HUP INT TERM
	printf "SERVESIM_ENGINE_URL=http://127.0.0.1:%s/v1\nSERVESIM_ENGINE_MODEL=%s\n" "$PORT" "$MODEL"
}

cmd_serve() {
	[[ -x $BIN/ollama && -d $ENGINE/models/manifests ]] || die "no engine or model yet: run '$0 start' once first"
	ollama_env
	exec "${PIN[@]}" nice -n "${SERVESIM_ENGINE_NICE:-10}" "${SERVESIM_OLLAMA:-$BIN/ollama}" serve
}

# group_alive PID: whether the process group PID still has a member. The
# group alone: the server runs in a group of its own (setsid), and once that
# group is gone its id may name another's process.
group_alive() { kill -0 -- "-$1" 2>/dev/null; }

cmd_stop() {
	if ! running; then
		rm -f "$PIDFILE" "$SETTINGSFILE"
		echo "engine.sh: not running" >&2
		return 0
	fi
	local pid
	pid=$(server_pid)
	kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	# Wait for the whole group, not the server alone: a runner that outlives
	# the server would be left with no pid file to find it by. The group's id
	# is not reused while any member of it lives, so it is still the server's.
	for _ in $(seq 1 50); do
		group_alive "$pid" || break
		sleep 0.2
	done
	if group_alive "$pid"; then
		kill -KILL -- "-$pid" 2>/dev/null || true
	fi
	rm -f "$PIDFILE" "$SETTINGSFILE"
	echo "engine.sh: stopped" >&2
}

cmd_status() {
	if running && healthy; then
		printf "SERVESIM_ENGINE_URL=http://127.0.0.1:%s/v1\nSERVESIM_ENGINE_MODEL=%s\n" "$PORT" "$MODEL"
	else
		echo "engine.sh: not running" >&2
		return 1
	fi
}

case "${1:-}" in
install) cmd_install ;;
start) cmd_start ;;
serve) cmd_serve ;;
stop) cmd_stop ;;
status) cmd_status ;;
*) die "usage: $0 install|start|serve|stop|status" ;;
esac
