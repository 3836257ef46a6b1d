"""An MCP client session against `kschedtui mcp --demo`, with the official Python SDK.

Run by tests/integration/mcp.rs: python client.py KSCHEDTUI_BINARY. Every check prints one
`ok:` line; the first failure raises (exit status 1) with what was expected and what came.

Checks: the tool list (and that no write tool is listed without --allow-writes), every tool's
structured content against its output schema (the SDK validates on each call; checked here
again with jsonschema), the two-line text summaries, explain_pod equal to `kschedtui explain
-o json` for every pending pod of the demo, fit equal to `kschedtui fit -o json`, errors as tool errors with the CLI's message, the
why-pending prompt, and the two-step writes with --allow-writes (plan, token, permission
check, send; --dry-run=server sends dry runs that change nothing).
"""

import asyncio
import json
import subprocess
import sys

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

BIN = sys.argv[1]
READ_TOOLS = [
    "list_pods",
    "explain_pod",
    "why_not_node",
    "queue",
    "fix_hints",
    "simulate",
    "deschedule",
    "fit",
    "cluster_summary",
]
GATES = "GenericWorkload=true,GangScheduling=true"
POLICY = open("fixtures/deschedule/policy.yaml", encoding="utf-8").read()
STOREFRONT = open("fixtures/fit/storefront.yaml", encoding="utf-8").read()


def ok(what):
    print(f"ok: {what}", flush=True)


def check(cond, what, detail=""):
    if not cond:
        raise AssertionError(f"{what}: {detail}")


def cli(*args, input=None):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, input=input)
    return p.returncode, p.stdout, p.stderr


def server(*flags):
    return StdioServerParameters(command=BIN, args=["--demo", "mcp", *flags])


async def session_of(params, body):
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as s:
            await s.initialize()
            return await body(s)


async def call(s, schemas, name, args):
    """A successful call: structured content valid against the schema, two summary lines."""
    r = await s.call_tool(name, args)
    text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
    check(not r.is_error, f"{name}({args}) succeeds", text)
    v = r.structured_content
    check(isinstance(v, dict), f"{name} returns structured content", repr(v)[:200])
    jsonschema.validate(v, schemas[name])
    lines = text.split("\n")
    check(len(lines) == 2 and all(lines), f"{name}'s text is a two-line summary", repr(text))
    return v, text


async def failing(s, name, args):
    r = await s.call_tool(name, args)
    text = "".join(c.text for c in r.content if getattr(c, "type", "") == "text")
    check(r.is_error, f"{name}({args}) is a tool error", text)
    return text


async def read_only(s):
    listed = await s.list_tools()
    names = [t.name for t in listed.tools]
    check(names == READ_TOOLS, "the read-only tool list", names)
    ok(f"tools listed without --allow-writes: {', '.join(names)} (no bind, no preempt)")
    schemas = {}
    for t in listed.tools:
        check(t.input_schema.get("type") == "object", f"{t.name} has an input schema", t.input_schema)
        check(t.output_schema and t.output_schema.get("type") == "object", f"{t.name} has an output schema", t.output_schema)
        jsonschema.Draft202012Validator.check_schema(t.output_schema)
        jsonschema.Draft202012Validator.check_schema(t.input_schema)
        check(t.annotations.read_only_hint is True, f"{t.name} is marked read-only", t.annotations)
        schemas[t.name] = t.output_schema
    ok("every tool has an input and an output schema (valid JSON Schema), marked read-only")

    pods, _ = await call(s, schemas, "list_pods", {})
    pending = [f"{p['pod']['namespace']}/{p['pod']['name']}" for p in pods["pods"]]
    check(len(pending) >= 10 and all(p["pending"] for p in pods["pods"]), "list_pods lists the pending pods", pending)
    everything, _ = await call(s, schemas, "list_pods", {"pendingOnly": False})
    check(everything["count"] > pods["count"], "pendingOnly=false lists bound pods too", everything["count"])
    tainted, _ = await call(s, schemas, "list_pods", {"reason": "TAINT"})
    check(
        0 < tainted["count"] < pods["count"] and all("taint" in p["verdict"].lower() for p in tainted["pods"]),
        "list_pods filters by a piece of the verdict",
        tainted,
    )
    ok(f"list_pods: {pods['count']} pending, {everything['count']} in all, {tainted['count']} with 'taint'")

    for pod in pending:
        v, text = await call(s, schemas, "explain_pod", {"pod": pod})
        code, out, err = cli("explain", "--demo", pod, "-o", "json")
        check(code == 0, f"explain {pod} -o json", err)
        check(v == json.loads(out), f"explain_pod {pod} equals `explain -o json`", text)
        check(text.startswith(f"{pod}: {v['outcome']}"), f"explain_pod {pod}'s summary starts with the outcome", text)
    ok(f"explain_pod equals `kschedtui explain --demo POD -o json` for all {len(pending)} pending pods")

    v, _ = await call(s, schemas, "explain_pod", {"pod": "batch/report-huge", "node": "pool-general-a1"})
    check([f["node"] for f in v["filter"]] == ["pool-general-a1"], "explain_pod with node keeps that node", v["filter"])
    ok("explain_pod with node narrows filter and score to the node")

    v, text = await call(s, schemas, "why_not_node", {"pod": "batch/report-huge", "node": "pool-general-a1"})
    codes = {p["plugin"]: p["code"] for p in v["plugins"]}
    check(
        v["feasible"] is False and v["decidedBy"] == "NodeResourcesFit" and codes["NodeResourcesFit"] == "UnschedulableAndUnresolvable",
        "why_not_node names the plugin upstream reports, with its code",
        v,
    )
    check(codes.get("TaintToleration") == "Success", "why_not_node gives every plugin's verdict", codes)
    ok(f"why_not_node: {text.splitlines()[0]}")

    v, _ = await call(s, schemas, "fix_hints", {"pod": "batch/report-huge"})
    check(v["fixes"] and v["fixes"][0]["after"]["result"] == "Binds", "fix_hints checks each fix", v["fixes"])
    _, out, _ = cli("explain", "--demo", "batch/report-huge", "-o", "json")
    check(v["fixes"] == json.loads(out)["fixes"], "fix_hints are explain's fixes", v["fixes"])
    ok(f"fix_hints: {len(v['fixes'])} fixes for batch/report-huge, the first binds it")

    v, _ = await call(s, schemas, "queue", {})
    _, out, _ = cli("queue", "--demo", "-o", "json")
    check(v == json.loads(out), "queue equals `queue -o json`", "")
    ok("queue equals `kschedtui queue --demo -o json`")

    v, _ = await call(s, schemas, "simulate", {"namespace": "shop"})
    _, out, _ = cli("simulate", "--demo", "-n", "shop", "-o", "json")
    check(v == json.loads(out), "simulate equals `simulate -o json`", "")
    ok("simulate equals `kschedtui simulate --demo -n shop -o json`")

    now = "2026-12-01T12:00:00Z"
    v, _ = await call(s, schemas, "deschedule", {"policy": POLICY, "now": now})
    _, out, _ = cli("deschedule", "--demo", "--policy", "fixtures/deschedule/policy.yaml", "--now", now, "-o", "json")
    want = json.loads(out)
    want["policy"] = "policy"
    check(v == want, "deschedule equals `deschedule -o json` (the policy named 'policy')", "")
    ok("deschedule equals `kschedtui deschedule --demo -o json`")

    v, text = await call(s, schemas, "fit", {"manifests": STOREFRONT, "max": True})
    code, out, err = cli("fit", "--demo", "-f", "fixtures/fit/storefront.yaml", "--max", "-o", "json")
    check(code == 3, "fit -f storefront.yaml exits 3 (7 of 8 fit)", err)
    check(v == json.loads(out), "fit equals `fit -o json`", text)
    w = v["workloads"][0]
    check(
        (w["replicas"], w["scheduled"], w["maxReplicas"]) == (8, 7, 7),
        "fit: 7 of the storefront's 8 replicas, and at most 7",
        (w["replicas"], w["scheduled"], w.get("maxReplicas")),
    )
    check(text.split("\n")[0] == "fit: 1 workload(s), 7 of 8 replica(s) scheduled (fit -f exits 3)", "fit's summary", text)
    ok(f"fit equals `kschedtui fit --demo -f fixtures/fit/storefront.yaml --max -o json`: {text.splitlines()[0]}")
    _, _, err = cli("fit", "--demo", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    got = await failing(s, "fit", {"manifests": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"})
    want = err.strip().removeprefix("error: ").replace("standard input", "manifests", 1)
    check(got == want, "fit without a workload: the CLI's message (the manifests named 'manifests')", f"{got!r} vs {want!r}")
    ok(f"fit errors are the CLI's: {got}")

    v, text = await call(s, schemas, "cluster_summary", {})
    check(v["pendingPods"] == pods["count"] and v["writes"] == "notListed", "cluster_summary counts", v)
    ok(f"cluster_summary: {text.splitlines()[0]}")

    code, _, err = cli("explain", "--demo", "shop/no-such-pod")
    message = err.strip().removeprefix("error: ")
    got = await failing(s, "explain_pod", {"pod": "shop/no-such-pod"})
    check(code == 1 and got == message, "a missing pod: the CLI's one-line message", f"{got!r} vs {message!r}")
    got = await failing(s, "bind", {"pod": "shop/search-indexer"})
    check(got.startswith("unknown tool 'bind'"), "bind is refused without --allow-writes", got)
    got = await failing(s, "why_not_node", {"pod": "batch/report-huge"})
    check(got == "argument 'node' is required", "a missing argument is named", got)
    ok(f"errors are tool errors with the CLI's message: {message}")

    prompts = await s.list_prompts()
    check([p.name for p in prompts.prompts] == ["why-pending"], "the why-pending prompt", prompts)
    check([a.name for a in prompts.prompts[0].arguments] == ["pod"], "its argument is pod", prompts)
    p = await s.get_prompt("why-pending", {"pod": "batch/report-huge"})
    text = p.messages[0].content.text
    check(
        "explain_pod" in text and "fix_hints" in text and text.index("explain_pod") < text.index("fix_hints"),
        "why-pending guides to explain_pod, then fix_hints",
        text,
    )
    ok("prompt why-pending: explain_pod, then fix_hints")
    return pending


async def writes(s):
    listed = await s.list_tools()
    names = [t.name for t in listed.tools]
    check(names == READ_TOOLS + ["bind", "preempt"], "--allow-writes lists bind and preempt", names)
    schemas = {t.name: t.output_schema for t in listed.tools}
    check(all(t.annotations.destructive_hint for t in listed.tools if t.name in ("bind", "preempt")), "writes are marked destructive", "")
    ok("--allow-writes lists bind and preempt (destructive)")

    pod = "shop/search-indexer"
    plan, text = await call(s, schemas, "bind", {"pod": pod})
    check(plan["sent"] is False and plan["token"] and plan["requests"], "the first call plans and sends nothing", plan)
    check(any("binding" in r for r in plan["requests"]), "the plan holds the Binding", plan["requests"])
    v, _ = await call(s, schemas, "explain_pod", {"pod": pod})
    check(v["outcome"] == "Schedulable", "nothing changed before the token comes back", v["outcome"])
    ok(f"bind, first call: {text.splitlines()[0]}")

    got = await failing(s, "preempt", {"token": plan["token"]})
    check("was made by bind" in got, "a token is for its own tool", got)
    # the token was used up by the refused call: plan again
    plan, _ = await call(s, schemas, "bind", {"pod": pod})
    sent, text = await call(s, schemas, "bind", {"token": plan["token"]})
    check(sent["sent"] is True and sent["ok"] is True and sent["requests"] == plan["requests"], "the second call sends the plan", sent)
    got = await failing(s, "explain_pod", {"pod": pod})
    check(got.startswith(f"pod '{pod}' is not pending: spec.nodeName is "), "the pod is bound in the cluster the server answers from", got)
    got = await failing(s, "bind", {"token": plan["token"]})
    check("unknown, used or expired" in got, "a token is used once", got)
    ok(f"bind, second call: {text.splitlines()[0]}")

    pods, _ = await call(s, schemas, "list_pods", {})
    nominating = [p for p in pods["pods"] if p["outcome"] == "PreemptionNominates"]
    check(nominating, "the demo has a pod whose preemption nominates a node", pods)
    target = f"{nominating[0]['pod']['namespace']}/{nominating[0]['pod']['name']}"
    plan, _ = await call(s, schemas, "preempt", {"pod": target})
    sent, text = await call(s, schemas, "preempt", {"token": plan["token"], "pod": target})
    check(sent["ok"] is True, "preempt sends", sent)
    v, _ = await call(s, schemas, "explain_pod", {"pod": target})
    check(v["outcome"] != "PreemptionNominates", "the victims are gone", v["outcome"])
    ok(f"preempt {target}: {text.splitlines()[0]}; then {v['outcome']}")


async def dry_run(s):
    listed = await s.list_tools()
    schemas = {t.name: t.output_schema for t in listed.tools}
    pod = "shop/search-indexer"
    plan, _ = await call(s, schemas, "bind", {"pod": pod})
    check(plan["dryRun"] is True, "--dry-run=server marks the plan", plan)
    sent, _ = await call(s, schemas, "bind", {"token": plan["token"]})
    check(sent["ok"] is True and sent["dryRun"] is True, "sent as dry runs", sent)
    v, _ = await call(s, schemas, "explain_pod", {"pod": pod})
    check(v["outcome"] == "Schedulable", "a dry run changes nothing", v["outcome"])
    ok("--dry-run=server: the requests are sent as dry runs and the pod stays pending")


async def release(s):
    listed = await s.list_tools()
    schemas = {t.name: t.output_schema for t in listed.tools}
    v, _ = await call(s, schemas, "cluster_summary", {})
    check(v["schedulerVersion"].startswith("1.36.") and GATES in v["schedulerVersion"], "the release and gates", v["schedulerVersion"])
    for pod in ["batch/report-huge", "ml/train-3gpu", "ml/ddp-worker-0", "ml/rollout-1"]:
        v, _ = await call(s, schemas, "explain_pod", {"pod": pod})
        code, out, err = cli("explain", "--demo", pod, "--scheduler-version", "1.36", "--feature-gates", GATES, "-o", "json")
        check(code == 0 and v == json.loads(out), f"explain_pod {pod} equals `explain` at the same release and gates", err)
    check(v["outcome"] == "HeldBeforeQueue", "a gang member held before the queue", v["outcome"])
    ok(f"mcp --scheduler-version 1.36 --feature-gates {GATES}: explain_pod as `explain` with them")


async def main():
    await session_of(server(), read_only)
    await session_of(server("--allow-writes"), writes)
    await session_of(server("--allow-writes", "--dry-run=server"), dry_run)
    await session_of(server("--scheduler-version", "1.36", "--feature-gates", GATES), release)
    print("mcp client: all checks passed", flush=True)


asyncio.run(main())
