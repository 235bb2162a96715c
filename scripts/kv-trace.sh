#!/usr/bin/env bash
# kv-trace.sh — check calibration's slot model against the engine's own KV
# cache.
#
#   scripts/kv-trace.sh [OUT]      (default OUT: a new temporary directory)
#
# Builds Ollama v0.6.5 with one print added to its llama.cpp: every ubatch
# writes the cells it attends over (n_kv), the cells in use, the head where
# it is placed and its tokens per sequence. Starts that engine (port 11441),
# runs `servesim calibrate --plan quick` against it with every output line
# time-stamped, stops it, and prints per run the median cells the engine's
# decode steps attended over beside the slot model's (calibrate's "by run"
# lines), and how long the engine's decode steps took. Needs the engine built (scripts/engine.sh install) and servesim
# (make build); about 4 minutes to build, 3 to run.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
S=$ROOT/.cache/bin/servesim
OUT=${1:-$(mktemp -d)}
PORT=11441
DIR=$ROOT/.cache/kvtrace
mkdir -p "$OUT" "$DIR"

if [[ ! -x $DIR/ollama ]]; then
	SRC=$(go env GOMODCACHE)/github.com/ollama/ollama@v0.6.5
	[[ -d $SRC ]] || (cd "$DIR" && GOFLAGS=-mod=mod go mod download github.com/ollama/ollama@v0.6.5)
	rm -rf "$DIR/src" && cp -r "$SRC" "$DIR/src" && chmod -R u+w "$DIR/src"
	# After the ubatch's cells are found, before its graph is built.
	awk '{ print }
	/^        \/\/printf\("kv_self.n = %5d, kv_self.used = %5d, kv_self.head = %5d\\n"/ {
		print "        {"
		print "            struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);"
		print "            fprintf(stderr, \"SSKV t=%lld n=%d used=%d head=%d ntok=%d seqs\", (long long)ts.tv_sec*1000000LL + ts.tv_nsec/1000, kv_self.n, kv_self.used, kv_self.head, ubatch.n_tokens);"
		print "            for (uint32_t i = 0; i < ubatch.n_tokens; ) {"
		print "                uint32_t j = i;"
		print "                while (j + 1 < ubatch.n_tokens && ubatch.seq_id[j + 1][0] == ubatch.seq_id[i][0] && ubatch.pos[j + 1] == ubatch.pos[j] + 1) j++;"
		print "                fprintf(stderr, \" %d:%d-%d\", ubatch.seq_id[i][0], ubatch.pos[i], ubatch.pos[j]);"
		print "                i = j + 1;"
		print "            }"
		print "            fprintf(stderr, \"\\n\");"
		print "        }"
		patched = 1
	}
	END { if (!patched) exit 1 }' "$SRC/llama/llama.cpp/src/llama.cpp" >"$DIR/src/llama/llama.cpp/src/llama.cpp" ||
		{ echo "kv-trace.sh: llama.cpp not as expected" >&2; exit 1; }
	sed -i '1i #include <time.h>' "$DIR/src/llama/llama.cpp/src/llama.cpp"
	echo "kv-trace.sh: building the traced engine (a few minutes)..." >&2
	(cd "$DIR/src" && CGO_ENABLED=1 CGO_CFLAGS="-O3 -march=native -mno-amx-int8" CGO_CXXFLAGS="-O3 -march=native -mno-amx-int8" \
		go build -ldflags="-X=github.com/ollama/ollama/version.Version=0.6.5" -o "$DIR/ollama" .)
fi

LOG=$ROOT/.cache/engine/ollama-$PORT.log
export SERVESIM_ENGINE_PORT=$PORT SERVESIM_OLLAMA=$DIR/ollama
# A server an earlier, killed run left would be reused by start, writing
# to the log removed here and serving from a warm cache.
"$ROOT/scripts/engine.sh" stop >/dev/null 2>&1
rm -f "$LOG"
# calibrate's output goes to its log, not here: a failure says where to look.
trap 'rc=$?; "$ROOT/scripts/engine.sh" stop >/dev/null 2>&1 || true
	((rc == 0)) || echo "kv-trace.sh: failed (exit status $rc); logs in $OUT" >&2' EXIT
"$ROOT/scripts/engine.sh" start >/dev/null
"$S" calibrate --base-url "http://127.0.0.1:$PORT/v1" --model servesim-tiny --api-key-env SERVESIM_NO_KEY \
	--tokens-per-byte 1 --prompt-overhead 20 --prompt-prefix 7 --plan quick --out "$OUT/profile.json" 2>&1 |
	while IFS= read -r line; do printf '%s %s\n' "$(date +%s%6N)" "$line"; done >"$OUT/calibrate.log"
"$ROOT/scripts/engine.sh" stop >/dev/null 2>&1
cp "$LOG" "$OUT/engine.log"
(cd "$ROOT" && go run ./scripts/kvtrace "$OUT/calibrate.log" "$OUT/engine.log")
echo "kv-trace.sh: logs in $OUT" >&2
