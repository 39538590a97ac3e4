"""An identifier the agent singles out of what a tool showed, whatever its shape (issue 27).

A listing shows many names; the agent says, in the user's language, which one matters:
"the part 202603_118_240_2 is broken", "restore 2025-11-02T03:00:11Z", "queue
amq.gen-Xk2... has no consumer". No rule for ids reads those shapes in prose (a part name
of digits, a timestamp, a random server-named queue), and an id a model drops is lost
for good. Because the tool showed the token first, on a line that talks of no
credential, it is a name the tool gave, not a password typed in chat. No case is taken
from a fidelity set.
"""

from __future__ import annotations

import pytest

from contextfold.compaction._ledger import build_ledger
from contextfold.messages import Message, TextBlock, ToolResultBlock, ToolUseBlock


def agent_ids(output: str, report: str, request: str = "Check it, please.") -> list[str]:
    call = ToolUseBlock(id="call_1", name="bash", input={"command": "list"})
    messages = [
        Message.user(request),
        Message(role="assistant", content=[TextBlock(text="Looking."), call]),
        Message(role="user", content=[ToolResultBlock(tool_use_id="call_1", content=output)]),
        Message.assistant(report),
    ]
    return [f.key for f in build_ledger(messages).facts if f.kind == "id" and f.who == "agent"]


PARTS = "name\n202603_118_240_2\n202603_241_300_1\n202604_1_96_4\n"
BACKUPS = "2025-11-01T03:00:09Z  done\n2025-11-02T03:00:11Z  done\n2025-11-03T03:00:07Z  error\n"
QUEUES = (
    "name                                messages  consumers\n"
    "amq.gen-Jq4-T_2vXbLr9kWm0eYs3A      48211     0\n"
    "amq.gen-Pq8Lm3Zx5RtY7uVb2Nc9a       0         1\n"
)


@pytest.mark.parametrize(
    ("output", "report", "token"),
    [
        (PARTS, "Частина 202603_118_240_2 позначена як зламана.", "202603_118_240_2"),  # Ukrainian
        (BACKUPS, "Gelin 2025-11-02T03:00:11Z yedeğinden geri yükleyelim.", "2025-11-02T03:00:11Z"),
        (
            QUEUES,
            "Foleni amq.gen-Jq4-T_2vXbLr9kWm0eYs3A haina consumer.",
            "amq.gen-Jq4-T_2vXbLr9kWm0eYs3A",
        ),
        (
            QUEUES,
            "问题是amq.gen-Jq4-T_2vXbLr9kWm0eYs3A，没有消费者。",
            "amq.gen-Jq4-T_2vXbLr9kWm0eYs3A",
        ),
    ],
)
def test_a_name_the_agent_singles_out_of_a_tools_output_is_an_identifier(
    output: str, report: str, token: str
) -> None:
    assert token in agent_ids(output, report)


@pytest.mark.parametrize(
    ("output", "report", "token"),
    [
        # never shown by a tool: a token typed in chat may be a password
        ("ok\n", "Kasutan nüüd Xk2pQ9vLr7TbN4mZs1Wc8e_77 kontot.", "Xk2pQ9vLr7TbN4mZs1Wc8e_77"),
        # shown, but on a line that talks of a credential
        (
            "client_secret: Zq81_Lm3Zx5RtY7uVb2Nc9a\n",
            "Nimeweka Zq81_Lm3Zx5RtY7uVb2Nc9a kwenye faili.",
            "Zq81_Lm3Zx5RtY7uVb2Nc9a",
        ),
        # a file is a file fact, not an identifier
        ("app/config_2024.yaml\n", "Nimebadilisha app/config_2024.yaml.", "app/config_2024.yaml"),
    ],
)
def test_a_token_no_tool_showed_a_credential_or_a_file_is_no_such_identifier(
    output: str, report: str, token: str
) -> None:
    assert token not in agent_ids(output, report)


def test_a_turn_searches_its_outputs_for_a_bounded_number_of_tokens() -> None:
    # a long report naming thousands of tokens against a megabyte of output must not
    # search the output once per token: the turn has a budget of lookups
    from contextfold.compaction._ledger import _SHOWN_LOOKUPS, _Shown

    shown = _Shown()
    shown.add("\n".join(f"part-{i:06d}x" for i in range(5_000)))
    found = [shown.singled_out(f"part-{i:06d}x is broken.") for i in range(2 * _SHOWN_LOOKUPS)]
    assert sum(map(len, found)) == _SHOWN_LOOKUPS
    assert shown.lookups == 0
