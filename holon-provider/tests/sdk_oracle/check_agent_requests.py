"""Holds every request examples/agent sent to its loopback server (written by its
tests under HOLON_AGENT_REQUESTS_OUT, one file per provider) to the provider SDK's
request type, as check_requests.py holds holon-provider's."""

import json
import sys
from pathlib import Path

from check_requests import CHECKS

PROVIDERS = ["openai-chat", "openai-responses", "anthropic"]


def main(directory):
    for provider in PROVIDERS:
        path = Path(directory) / f"{provider}.json"
        requests = json.loads(path.read_text())  # a missing file fails: nothing unchecked
        assert len(requests) >= 2, f"{provider}: {len(requests)} requests recorded"
        for number, request in enumerate(requests, 1):
            try:
                CHECKS[provider]["request"](request)
            except Exception:
                print(f"FAIL examples/agent {provider} request {number}")
                raise
        print(f"examples/agent {provider}: {len(requests)} requests valid under the SDK's request type")


if __name__ == "__main__":
    main(sys.argv[1])
