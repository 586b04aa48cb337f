"""The official Python MCP SDK (2.x, protocol 2026-07-28) drives a task of
examples/conformance-server through a load balancer in front of replicas that share a
task store: it creates the task (`slow_compute`, run as a task since the client
declares the tasks extension), reads it with `tasks/get` until a replica other than
the one that created it answers, cancels it, and reads it cancelled.

Which replica answered each request comes from the response header the balancer
adds (`X-Served-By`, the name of the server it picked): a read "from another
replica" is one whose header differs from the creation's.

Usage: python balancer_tasks_client.py URL_OF_THE_BALANCER
Exits non-zero on any failure; ends with `mcp-balancer-tasks: N passed, M failed`.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Literal

import anyio
import httpx2
from mcp import types
from mcp.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from pydantic import ConfigDict
from pydantic.alias_generators import to_camel

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..",
                                "holon-cli", "tests", "mcp_client"))
from checks import Checks  # noqa: E402

TASKS = "io.modelcontextprotocol/tasks"
SERVED_BY = "x-served-by"


class TaskResult(types.Result):
    """A task as `tools/call` (`resultType: task`) and `tasks/get` answer it."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")
    result_type: Literal["task"] = "task"
    task_id: str
    status: str


class TaskStatus(types.Result):
    """What `tasks/get` and `tasks/cancel` answer: the fields this script reads."""

    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="allow")
    status: str | None = None


class TaskParams(types.RequestParams):
    task_id: str


class GetTask(types.Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskParams
    name_param = "taskId"


class CancelTask(types.Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskParams
    name_param = "taskId"


async def unresolved(result: TaskResult, _context: ClaimContext) -> types.CallToolResult:
    raise RuntimeError(f"the script reads task {result.task_id} itself (allow_claimed)")


class Tasks(ClientExtension):
    """The tasks extension: declared, and its `task` result claimed."""

    identifier = TASKS

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskResult, resolve=unresolved)]


class ServedBy:
    """The replica that answered each request, by its `Mcp-Method`, in order."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, str]] = []

    async def hook(self, response: httpx2.Response) -> None:
        method = response.request.headers.get("mcp-method", "?")
        self.seen.append((method, response.headers.get(SERVED_BY, "")))

    def last(self, method: str) -> str:
        return next((replica for seen, replica in reversed(self.seen) if seen == method), "")


async def drive(url: str, checks: Checks) -> None:
    served = ServedBy()
    http = httpx2.AsyncClient(
        timeout=httpx2.Timeout(30.0, read=300.0),
        event_hooks={"response": [served.hook]},
    )
    async with http, Client(streamable_http_client(url, http_client=http),
                            mode="2026-07-28", extensions=[Tasks()]) as client:
        session = client.session
        created = await session.call_tool("slow_compute", {"seconds": 60, "label": "balancer"},
                                          allow_claimed=True)
        checks.check("tools/call answers a task handle", isinstance(created, TaskResult),
                     type(created).__name__)
        if not isinstance(created, TaskResult):
            return
        task_id = created.task_id
        creator = served.last("tools/call")
        checks.check("the balancer names the replica that created the task", creator != "",
                     served.seen)
        # Round-robin sends the next request elsewhere; a few tries cover any order.
        other = ""
        for _ in range(6):
            polled = await session.send_request(GetTask(params=TaskParams(task_id=task_id)),
                                                TaskStatus)
            checks.check(f"tasks/get reads it working ({served.last('tasks/get')})",
                         polled.status == "working", polled)
            if served.last("tasks/get") not in ("", creator):
                other = served.last("tasks/get")
                break
        checks.check(f"a replica other than {creator} read the task", other != "", served.seen)
        cancelled = await session.send_request(CancelTask(params=TaskParams(task_id=task_id)),
                                               TaskStatus)
        checks.check(f"tasks/cancel is acknowledged (by {served.last('tasks/cancel')})",
                     getattr(cancelled, "result_type", None) in (None, "complete"), cancelled)
        replicas = set()
        for _ in range(3):
            read = await session.send_request(GetTask(params=TaskParams(task_id=task_id)),
                                              TaskStatus)
            replicas.add(served.last("tasks/get"))
            checks.check(f"tasks/get reads it cancelled ({served.last('tasks/get')})",
                         read.status == "cancelled", read)
        checks.check("the task's requests reached at least two replicas",
                     len({replica for _, replica in served.seen if replica}) >= 2, served.seen)
        print(f"   replicas per request: {served.seen}")


async def main(url: str) -> int:
    checks = Checks("mcp-balancer-tasks")
    try:
        with anyio.fail_after(120):
            await drive(url, checks)
    except Exception as error:  # noqa: BLE001 - every failure is reported
        checks.crash("a task through the balancer", error)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(anyio.run(main, sys.argv[1]))
