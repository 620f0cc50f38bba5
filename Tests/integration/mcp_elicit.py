"""A tiny MCP server on stdio for tests: `ask_ticket` asks the client for a ticket number with an elicitation
(`elicitation/create`, a form) and returns what came back as its text result; `ask_priority` asks with OpenAI's form
extension (mode `openai/form`), which it uses only when its client (codex) declared the extension at `initialize`
(codex does when its own client, the bridge, declared it), else it answers that the client did not.

Codex runs it as `mcp_servers.tickets` (see `mcp_args`); the scripted model calls the tool as
`mcp__tickets__ask_ticket`."""
import json
import sys

SCHEMA = {"type": "object", "properties": {"ticket": {"type": "integer", "title": "Ticket number"}}, "required": ["ticket"]}
PRIORITY = {"type": "object", "properties": {"priority": {"type": "string", "title": "Priority", "enum": ["low", "high"]}},
            "required": ["priority"]}


def mcp_args(python: str, script: str) -> list:
    """`--codex-config` values that make codex start this server as `tickets`."""
    return [f'mcp_servers.tickets={{command={json.dumps(python)},args=[{json.dumps(script)}]}}']


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    pending = {}
    next_id = 1000
    openai_form = False
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except json.JSONDecodeError:
            continue
        method = msg.get("method")
        if method == "initialize":
            openai_form = "openai/form" in ((msg.get("params") or {}).get("capabilities") or {}).get("extensions", {})
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {
                "protocolVersion": msg.get("params", {}).get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": "tickets", "version": "1"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"tools": [{
                "name": "ask_ticket", "description": "Asks the user which ticket to work on.",
                "inputSchema": {"type": "object", "properties": {}}}, {
                "name": "ask_priority", "description": "Asks the user how urgent the ticket is.",
                "inputSchema": {"type": "object", "properties": {}}}]}})
        elif method == "tools/call" and msg["params"]["name"] == "ask_priority" and not openai_form:
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {
                "content": [{"type": "text", "text": "the client did not declare openai/form"}], "isError": True}})
        elif method == "tools/call" and msg["params"]["name"] == "ask_priority":
            next_id += 1
            pending[next_id] = msg["id"]
            send({"jsonrpc": "2.0", "id": next_id, "method": "elicitation/create", "params": {
                "mode": "openai/form", "message": "How urgent is it?", "requestedSchema": PRIORITY}})
        elif method == "tools/call":
            next_id += 1
            pending[next_id] = msg["id"]
            send({"jsonrpc": "2.0", "id": next_id, "method": "elicitation/create", "params": {
                "mode": "form", "message": "Which ticket should I work on?", "requestedSchema": SCHEMA}})
        elif method is None and msg.get("id") in pending:
            call = pending.pop(msg["id"])
            text = json.dumps(msg.get("result", msg.get("error")))
            send({"jsonrpc": "2.0", "id": call, "result": {"content": [{"type": "text", "text": text}], "isError": False}})
        elif "id" in msg and method is not None:
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {}})


if __name__ == "__main__":
    main()
