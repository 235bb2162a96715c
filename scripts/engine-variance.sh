#!/usr/bin/env bash
# engine-variance.sh — how much the CPU test engine's decode step varies from
# one freshly started engine to the next, in the same KV-cache state, and how
# it grows with the cells the step attends over.
#
#   scripts/engine-variance.sh [N [FILL ...]]   N fresh engines per FILL (default 4; FILL default 512)
#   REPEAT=K scripts/engine-variance.sh ...     run a K times on each engine (default 1), to set the
#                                               spread within one engine beside the spread between them
#
# On each engine, in this order (servesim record, closed loop):
#   a     3 requests, one client, 64-token prompts, 64 output tokens (fresh cache)
#   fill  4 requests at once, FILL-token prompts, 1 output token: slots 1-3 keep
#         their prompts, so the cache holds about 4 × FILL cells
#   b     3 requests as a: slot 0 is reused, every step attends over the cells
#         slots 1-3 hold (what the simulator's slot cache models)
# and prints TPOT p50 of a and b. The states are the same on every engine, so
# the spread of b across engines is engine and host variation, not model error.
# Needs the engine built (scripts/engine.sh install) and servesim (make build).
set -euo pipefail

N=${1:-4}
shift || true
FILLS=("${@:-512}")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
S=$ROOT/.cache/bin/servesim
PORT=11439
DIR=$(mktemp -d)
trap 'SERVESIM_ENGINE_PORT=$PORT "$ROOT/scripts/engine.sh" stop >/dev/null 2>&1 || true; rm -rf "$DIR"' EXIT

"$S" trace synth --requests 3 --arrival constant --rate 100 --prompt fixed:64 --output fixed:64 --seed 1 "$DIR/a.parquet" >/dev/null

# tpot TRACE CLIENTS: replay TRACE and print its TPOT p50; a failed replay
# prints record's output on stderr (stdout is only the TPOT).
tpot() {
	local out
	out=$("$S" record --trace "$1" --out "$DIR/out.parquet" --concurrency "$2" --arrival closed \
		--base-url "http://127.0.0.1:$PORT/v1" --model servesim-tiny --api-key-env SERVESIM_NO_KEY \
		--tokens-per-byte 1 --prompt-overhead 20 2>&1) || { printf '%s\n' "$out" >&2; return 1; }
	awk '$1 == "TPOT" { print $3 }' <<<"$out"
}

echo "  fill  engine  a (fresh)  b (4 × fill cells held)  b/a"
for fill in "${FILLS[@]}"; do
	"$S" trace synth --requests 4 --arrival constant --rate 100 --prompt "fixed:$fill" --output fixed:1 --seed 2 "$DIR/fill.parquet" >/dev/null
	for i in $(seq 1 "$N"); do
		# start would reuse a server an earlier, killed run left on the port.
		SERVESIM_ENGINE_PORT=$PORT "$ROOT/scripts/engine.sh" stop >/dev/null 2>&1
		SERVESIM_ENGINE_PORT=$PORT "$ROOT/scripts/engine.sh" start >/dev/null # its errors say why it failed
		a=$(tpot "$DIR/a.parquet" 1)
		again=""
		for _ in $(seq 2 "${REPEAT:-1}"); do
			again="$again $(tpot "$DIR/a.parquet" 1)"
		done
		tpot "$DIR/fill.parquet" 4 >/dev/null
		b=$(tpot "$DIR/a.parquet" 1)
		SERVESIM_ENGINE_PORT=$PORT "$ROOT/scripts/engine.sh" stop >/dev/null 2>&1
		awk -v f="$fill" -v i="$i" -v a="$a" -v b="$b" -v again="$again" \
			'BEGIN { printf "%6d  %6d  %9s  %23s  %4.2f%s\n", f, i, a, b, (b + 0) / (a + 0), again == "" ? "" : "   a again:" again }'
	done
done
