# The official MCP conformance suite's shared steps, sourced by .ci/mcp-conformance
# and .ci/mcp-balancer: installing a pinned suite version (and Node 22 when needed),
# starting a server that prints its URL on stderr, reading the capabilities it
# declares, and running the suite against $url into a table of scenarios that fails
# on a required one.
#
# The sourcing script sets $target_dir (cargo's target directory) and $work (a
# scratch directory it removes), and stops the servers it starts.

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

# Installs suite version $1 (and Node 22 beside it when needed); sets $node and $suite.
install_suite() {
    local version="$1" suite_dir="$target_dir/mcp-conformance/$1"
    mkdir -p "$suite_dir"
    if [ ! -f "$suite_dir/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
        [ -f "$suite_dir/package.json" ] || echo '{"private": true}' > "$suite_dir/package.json"
        npm install --prefix "$suite_dir" --no-audit --no-fund --silent \
            "@modelcontextprotocol/conformance@$version"
    fi
    node=node
    if [ "$(node_major node)" -lt 22 ]; then
        node="$suite_dir/node_modules/.bin/node"
        if [ "$(node_major "$node")" -lt 22 ]; then
            npm install --prefix "$suite_dir" --no-audit --no-fund --silent node@22
        fi
    fi
    suite_package="$suite_dir/node_modules/@modelcontextprotocol/conformance"
    suite="$suite_package/dist/index.js"
}

# Starts a server (the command's stderr names its URL), sets $server_pid and $url;
# its stderr goes to a log of its own in $work.
servers_started=0
start_server() {
    servers_started=$((servers_started + 1))
    local log="$work/server-$servers_started.log"
    : > "$log"
    "$@" 2> "$log" &
    server_pid=$!
    url=""
    for _ in $(seq 100); do
        url="$(grep -o 'http://[^ ]*/mcp' "$log" | head -n 1 || true)"
        [ -n "$url" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    echo "the server did not start:" >&2
    cat "$log" >&2
    return 1
}

stop_server() {
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=""
}

# The capabilities the server at $url declares, one a line.
declared_capabilities() {
    curl --silent --show-error --max-time 10 "$url" \
        -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
        --data '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"ci","version":"1"}}}' |
        python3 -c '
import json, sys
body = sys.stdin.read()
# A JSON body, or the data lines of an SSE stream.
texts = [body] if body.lstrip().startswith("{") else [
    line[5:] for line in body.splitlines() if line.startswith("data:") and line[5:].strip()]
for text in texts:
    message = json.loads(text)
    if "result" in message:
        print("\n".join(message["result"].get("capabilities", {})))
'
}

# Runs the suite ($node $suite) against $url into $1, as $4 says (`all`, or a
# requirement set's revision), prints the table and fails unless every scenario the
# policy ($2: example | declared) requires passes, or is one of the known failures
# $5 names (space-separated; the caller says why each fails).
run_suite() {
    local out="$1" policy="$2" capabilities="$3" what="$4" known="${5:-}" requirements=""
    if [ "$what" = all ]; then
        "$node" "$suite" server --url "$url" --suite all -o "$out" > "$out.log" 2>&1 || true
    else
        requirements="$suite_package/requirements/$what.yaml"
        "$node" "$suite" server --url "$url" --requirements "$what" -o "$out" > "$out.log" 2>&1 || true
    fi
    python3 - "$out" "$policy" "$capabilities" "$requirements" "$known" <<'EOF'
import json, pathlib, re, sys

out, policy = pathlib.Path(sys.argv[1]), sys.argv[2]
capabilities, requirements_file = set(sys.argv[3].split()), sys.argv[4]
known = set(sys.argv[5].split())

def requirement_set(path):
    """The scenarios a requirement set scores for a server, and those it runs unscored.
    The file is a flat YAML of lists (the suite's own format); read without a YAML
    library."""
    scored, unscored, section = set(), set(), None
    for line in pathlib.Path(path).read_text().splitlines():
        if re.match(r"^\S", line) and not line.startswith("#"):
            section = line.rstrip(":").strip()
        elif section == "server" and (m := re.match(r"^\s+-\s+(\S+)", line)):
            scored.add(m.group(1))
        elif section == "not_scored" and (m := re.match(r"^\s+-\s+scenario:\s+(\S+)", line)):
            unscored.add(m.group(1))
    return scored, unscored

scored = unscored = None
if requirements_file:
    scored, unscored = requirement_set(requirements_file)

# The capability each group of scenarios exercises; the rest are the protocol's own
# (lifecycle, ping, transport, stateless requests) and always required.
GROUPS = [("tools-call-", "test-tools"), ("tools-", "tools"), ("logging-", "logging"),
          ("completion-", "completions"), ("resources-", "resources"),
          ("sep-2164-resource", "resources"), ("prompts-", "prompts"),
          ("elicitation-", "test-tools"), ("json-schema-", "test-tools"),
          ("input-required-result-", "test-tools"), ("tasks-", "test-tools"),
          ("server-sse-polling", "test-tools"), ("caching", "lists")]
LABELS = {"test-tools": "the suite's test tools", "lists": "each list it declares"}
# The caching scenario checks each list method; a server is held to the lists of the
# capabilities it declares.
CHECK_CAPABILITY = [("tools-list", "tools"), ("prompts-list", "prompts"),
                    ("resources-templates-list", "resources"), ("resources-list", "resources"),
                    ("resources-read", "resources")]

def capability_of(scenario):
    for prefix, capability in GROUPS:
        if scenario.startswith(prefix):
            return capability
    return None

def requirement(scenario):
    capability = capability_of(scenario)
    label = LABELS.get(capability, capability) or "protocol"
    # What a set runs unscored and the example serves is held to it too: the tasks
    # extension, and tool arguments in Mcp-Param-* headers (SEP-2243).
    if (policy == "example" and unscored is not None and scenario in unscored
            and scenario.startswith(("tasks-", "http-custom-header-"))):
        what = "the tasks extension" if scenario.startswith("tasks-") else "Mcp-Param headers"
        return True, what + " (unscored by the set)"
    if scored is not None and scenario not in scored:
        why = "not scored by the set" if scenario in unscored else "not in the set"
        return False, why
    if policy == "example":
        if scored is not None:
            return True, label
        return scenario.startswith(("tools-", "elicitation-")), label
    if capability == "test-tools":
        return False, label
    if capability in (None, "lists"):
        return True, label
    declared = capability in capabilities
    return declared, capability + ("" if declared else " (not declared)")

def failures(scenario, checks):
    """The checks that fail and count: under the declared policy, neither the caching
    checks of lists the server does not declare nor the checks the suite could not
    exercise for want of its own diagnostic tools (`untestable`)."""
    bad = [check for check in checks if check.get("status") == "FAILURE"]
    if policy == "declared":
        bad = [check for check in bad if not (check.get("details") or {}).get("untestable")]
    if policy == "declared" and capability_of(scenario) == "lists":
        def counts(check):
            for fragment, capability in CHECK_CAPABILITY:
                if fragment in (check.get("id") or ""):
                    return capability in capabilities
            return True
        bad = [check for check in bad if counts(check)]
    return bad

rows, failed = [], []
for checks_file in sorted(out.glob("**/checks.json")):
    name = checks_file.parent.name
    name = name[len("server-"):] if name.startswith("server-") else name
    scenario = re.sub(r"-\d{4}-\d\d-\d\dT.*$", "", name)
    checks = json.loads(checks_file.read_text())
    count = lambda status: sum(1 for check in checks if check.get("status") == status)
    bad = failures(scenario, checks)
    ok = not bad
    required, why = requirement(scenario)
    # pass*: the checks that fail are not the server's to pass (see `failures`).
    verdict = ("pass" if count("FAILURE") == 0 else "pass*" if ok and policy == "declared"
               else "known" if required and scenario in known
               else "FAIL" if required else "fail")
    rows.append((scenario, count("SUCCESS"), count("FAILURE"), count("WARNING"),
                 "required" if required else "-", why, verdict))
    if required and not ok and scenario not in known:
        failed.append(scenario)
        for check in bad:
            print(f"   {scenario}: {check.get('id')}: {check.get('errorMessage')}")
if not rows:
    print("the suite ran no scenario; its output:")
    print(pathlib.Path(str(out) + ".log").read_text())
    sys.exit(1)
print(f"   {'scenario':44} {'ok':>3} {'bad':>3} {'warn':>4}  {'required':8}  {'why':28} result")
for row in rows:
    print(f"   {row[0]:44} {row[1]:3} {row[2]:3} {row[3]:4}  {row[4]:8}  {row[5]:28} {row[6]}")
required = sum(1 for row in rows if row[4] == "required")
passed = sum(1 for row in rows if row[6] == "pass")
held = sum(1 for row in rows if row[6] == "pass*")
held_note = f" ({held} more pass what the server declares)" if held else ""
known_failed = sum(1 for row in rows if row[6] == "known")
known_note = f", {known_failed} known failures" if known_failed else ""
passed_known = known & {row[0] for row in rows if row[6] == "pass"}
if passed_known:
    # Said, not failed: a known failure may depend on which server a request reached.
    print(f"   known failures that passed this time: {' '.join(sorted(passed_known))}")
print(f"   {len(rows)} scenarios, {passed} pass{held_note}; {required} required, {len(failed)} required failed{known_note}")
sys.exit(1 if failed else 0)
EOF
}

