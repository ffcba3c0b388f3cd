"""An agent that needs a person's approval before it refunds an order: it asks through the handoff
service, prints the link for the person, waits for the answer, checks the answer's receipt, then
acts on it.

    pip install svc-handoff        # from this checkout: pip install clients/python
    SVC_API_KEY=<owner key or developer key> python examples/python/agent.py

SVC_URL is the service (http://127.0.0.1:8080 unless set). The receipt is checked against the
key's own workspace, which the client asks the service for (GET /v1/me).

With LangGraph installed (`pip install langgraph`), the approval is a node of a graph that calls
`interrupt()`: the graph pauses there, the person is asked, and the graph resumes with their
answer. Without it (or with SVC_EXAMPLE_PLAIN=1) the agent asks directly; the handoff is the same.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from typing import Any, TypedDict

from svc_handoff import Client

QUESTION: Any = {
    "mode": "interactive",
    "title": "Approve the refund for order 1042",
    "description": "The customer says the parcel arrived damaged and asks for a refund of 49.90 EUR.",
    "source": {
        "kind": "svc_surface",
        "components": [
            {"type": "record", "label": "Order", "fields": {"order": "1042", "customer": "A. Example", "total": 49.9}},
            {"type": "field", "name": "amount", "label": "Refund amount (EUR)", "schema": {"type": "number", "minimum": 0, "maximum": 49.9}, "value": 49.9, "required": True},
            {"type": "field", "name": "note", "label": "Note to the customer", "schema": {"type": "string", "maxLength": 500}, "multiline": True},
        ],
    },
    "actions": [
        {"id": "approve", "label": "Approve refund", "intent": "approve"},
        {"id": "reject", "label": "Reject", "intent": "reject"},
    ],
}


class Decision(TypedDict):
    action_id: str
    data: dict[str, Any]


def ask_person(client: Client, question: Any) -> Decision:
    """The handoff: create a Session, show its link, wait for the answer, check its receipt."""
    session = client.create_session(question)
    print(f"Waiting for a person to answer at:\n  {session['human_url']}", flush=True)
    # Ctrl-C stops waiting; the Session stays open, so the agent can come back for the answer later.
    answered = client.wait_for_response(session["id"], timeout=60 * 60)
    # The receipt proves what the service accepted: this action, this input, on this revision, for
    # this key's workspace.
    receipt = client.verify_receipt(session["id"], answered.response)
    print(f'Receipt verified: "{receipt["summary"]}", accepted at {receipt["accepted_at"]} for workspace {receipt["workspace_id"]}.')
    client.complete(session["id"])
    return {"action_id": answered.response["action_id"], "data": answered.response["data"]}


def act_on(decision: Decision) -> str:
    if decision["action_id"] != "approve":
        return "Decision: no refund."
    note = decision["data"].get("note")
    return f"Decision: refund {decision['data']['amount']:.2f} EUR{f' (note: {note})' if note else ''}."


def run_graph(client: Client) -> str:
    """The same approval as a LangGraph node: interrupt() pauses the graph until the person answers."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import END, START, StateGraph
    from langgraph.types import Command, interrupt

    class State(TypedDict, total=False):
        decision: Decision
        outcome: str

    def approval(state: State) -> State:
        return {"decision": interrupt(QUESTION)}

    def refund(state: State) -> State:
        return {"outcome": act_on(state["decision"])}

    graph = (
        StateGraph(State)
        .add_node("approval", approval)
        .add_node("refund", refund)
        .add_edge(START, "approval")
        .add_edge("approval", "refund")
        .add_edge("refund", END)
        .compile(checkpointer=InMemorySaver())
    )
    config: Any = {"configurable": {"thread_id": "refund-1042"}}
    result = graph.invoke({}, config)
    while "__interrupt__" in result:
        # The graph waits on a person: ask through the handoff service, resume with the answer.
        result = graph.invoke(Command(resume=ask_person(client, result["__interrupt__"][0].value)), config)
    return str(result["outcome"])


def main() -> int:
    api_key = os.environ.get("SVC_API_KEY")
    if not api_key:
        print("Set SVC_API_KEY to the owner key `npm start` printed, or a developer key (svc_sk_...) from /app/keys.", file=sys.stderr)
        return 2
    with Client(os.environ.get("SVC_URL", "http://127.0.0.1:8080"), api_key) as client:
        with_graph = importlib.util.find_spec("langgraph") is not None and os.environ.get("SVC_EXAMPLE_PLAIN") != "1"
        print(run_graph(client) if with_graph else act_on(ask_person(client, QUESTION)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
