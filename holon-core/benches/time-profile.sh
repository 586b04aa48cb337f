#!/usr/bin/env bash
# Where a call's *time* goes, function by function: `dispatch_text` against its floor,
# sampled by `perf` on the CPU clock (a software event, so it works in a VM without
# hardware counters). Complements `callgrind.sh`, which counts instructions: the two
# part where the CPU waits without executing more, such as a load of bytes that were
# just stored in other widths (a store-forwarding stall), which `perf annotate` shows
# as the hottest instruction of a function.
#
# Usage: holon-core/benches/time-profile.sh [calls] [mode] [floor-mode]
#   (from the workspace root; defaults: 5000000 calls, `text` against `text-floor`)
# Prints the ratio of the two modes' samples (both make the same number of calls; a
# rough figure, the bench's interleaved rounds are the measure) and,
# for each function, its share of the floor's time in each run and the difference,
# largest first. Timings move by several percent from run to run on a
# shared machine: compare functions within one run of this script, not across runs.
set -euo pipefail
calls=${1:-5000000}
mode=${2:-text}
floor_mode=${3:-text-floor}
frequency=20000
command -v perf > /dev/null || { echo "needs perf (Debian: linux-perf)" >&2; exit 1; }
bench=$(cargo bench -p holon-core --bench dispatch --no-run --message-format=json 2>/dev/null \
    | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n1)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
profile() { # MODE -> "samples<TAB>symbol" lines added to $work/MODE.txt
    HOLON_BENCH_PROFILE=$1 HOLON_BENCH_TOOLS=40 HOLON_BENCH_CALLS=$calls \
        perf record -q -F "$frequency" -e cpu-clock -o "$work/$1.data" "$bench" > /dev/null 2>&1
    perf report -i "$work/$1.data" --no-children --sort symbol -F sample,symbol 2> /dev/null \
        | awk '!/^#/ && NF > 1 { n = $1; $1 = ""; sub(/^ +/, ""); sub(/ +- +-$/, ""); print n "\t" $0 }' >> "$work/$1.txt"
}
# Alternated, twice each, so that a machine that slows down meanwhile slows both.
for _ in 1 2; do
    profile "$mode"
    profile "$floor_mode"
done
python3 - "$work/$mode.txt" "$work/$floor_mode.txt" "$mode" "$floor_mode" <<'PY'
import sys
from collections import Counter

measured, floor, mode, floor_mode = sys.argv[1:]


def load(path):
    samples = Counter()
    for line in open(path):
        count, symbol = line.rstrip("\n").split("\t", 1)
        samples[symbol[:100]] += int(count)
    return samples


# Both runs make the same number of calls, so samples compare directly; each figure
# is a share of the floor's whole time.
a, b = load(measured), load(floor)
whole = sum(b.values())
print(f"{mode} / {floor_mode}, by samples: {sum(a.values()) / whole:.3f}x")
print(f"{mode:>10} {floor_mode:>10} {'diff':>7}  function (percent of the floor's time)")
for symbol in sorted(set(a) | set(b), key=lambda s: -abs(a[s] - b[s]))[:25]:
    print(f"{100 * a[symbol] / whole:10.1f} {100 * b[symbol] / whole:10.1f}"
          f" {100 * (a[symbol] - b[symbol]) / whole:7.1f}  {symbol}")
PY
