#!/usr/bin/env bash
# Instructions of one turn (8 calls, body in, items out) and of its hand-written
# floor, counted by callgrind (exactly repeatable, unlike timings on a shared machine).
# Usage: holon-provider/benches/callgrind.sh [turns]   (from the workspace root)
set -euo pipefail
turns=${1:-1000}
bench=$(cargo bench -p holon-provider --bench turn --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n1)
count() { # PROFILE TURNS -> instructions
    HOLON_BENCH_PROFILE=$1 HOLON_BENCH_CALLS=$2 \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_turn() { # PROFILE -> instructions per turn, the setup subtracted
    local base full
    base=$(count "$1" 0)
    full=$(count "$1" "$turns")
    echo $(( (full - base) / turns ))
}
ours=$(per_turn turn); floor=$(per_turn floor)
echo "one turn of 8 calls: $ours instructions; by hand: $floor; $(echo "scale=3; $ours / $floor" | bc)x"
