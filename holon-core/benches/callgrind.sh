#!/usr/bin/env bash
# Instructions per call of each dispatch entry point and of its floor, counted by
# callgrind (exactly repeatable, unlike timings on a shared machine), and the ratios.
# Usage: holon-core/benches/callgrind.sh [calls]   (from the workspace root)
# HOLON_BENCH_POLICY=allow counts the calls under an approval policy that allows all.
set -euo pipefail
calls=${1:-10000}
bench=$(cargo bench -p holon-core --bench dispatch --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n1)
count() { # MODE TOOLS CALLS -> instructions
    HOLON_BENCH_PROFILE=$1 HOLON_BENCH_TOOLS=$2 HOLON_BENCH_CALLS=$3 \
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bench" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
per_call() { # MODE TOOLS -> instructions per call, the setup subtracted
    local base full
    base=$(count "$1" "$2" 0)
    full=$(count "$1" "$2" "$calls")
    echo $(( (full - base) / calls ))
}
for tools in 40 1000; do
    text=$(per_call text $tools); text_floor=$(per_call text-floor $tools)
    value=$(per_call value $tools); value_floor=$(per_call value-floor $tools)
    echo "$tools tools: dispatch_text $text / from_str floor $text_floor = $(echo "scale=3; $text / $text_floor" | bc)x (bound 1.3x);" \
        "dispatch(Value) $value / Value floor $value_floor = $(echo "scale=3; $value / $value_floor" | bc)x"
done
