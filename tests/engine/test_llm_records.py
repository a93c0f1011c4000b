"""What the LLM operator reads from an answer (engine/llm/reply.py) and how its calls are kept
(engine/llm/transcript.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UserError
from engine.llm.reply import UnreadableReply, parse_reply
from engine.llm.transcript import INLINE_CHARS, Transcript, read_calls
from engine.space_file import load_space

REPO = Path(__file__).resolve().parents[2]
SPACE = load_space(REPO / "tests" / "fixtures" / "genomes" / "small.toml")
DEFAULT = SPACE.default_params()


def test_an_answer_in_a_fence_with_prose_around_it_gives_its_genomes_over_the_defaults():
    text = ('Sure! Smaller heads first.\n```json\n{"genomes": [{"params": {"BLOCK_H": 32}, "from": "abc", '
            '"why": "fewer heads, more CTAs"}, {"params": {"NUM_WARPS": 8}}]}\n```\nGood luck.')
    first, second = parse_reply(text, SPACE)
    assert first.params == {**DEFAULT, "BLOCK_H": 32} and first.parent == "abc"
    assert first.why == "fewer heads, more CTAs"
    assert second.params == {**DEFAULT, "NUM_WARPS": 8} and second.parent is None


def test_a_bare_list_of_parameter_objects_is_read_too_and_numbers_in_strings_become_numbers():
    (one, two) = parse_reply('[{"BLOCK_K": "64"}, {"BLOCK_H": "32", "why": "x"}]', SPACE)
    assert one.params["BLOCK_K"] == 64 and two.params["BLOCK_H"] == 32 and two.why == "x"


def test_values_and_genes_outside_the_space_are_kept_for_the_loop_to_refuse_with_a_reason():
    (bad,) = parse_reply('{"genomes": [{"params": {"BLOCK_H": "huge", "TILE": 7}}]}', SPACE)
    assert bad.params["BLOCK_H"] == "huge" and bad.params["TILE"] == 7
    assert any("unknown genes ['TILE']" in p for p in SPACE.violations(bad.params))


@pytest.mark.parametrize("text, message", [
    ("", "the answer is empty"),
    ("Use bigger blocks.", "no JSON object in the answer: 'Use bigger blocks.'"),
    ('{"configs": [1]}', "the JSON found has keys ['configs']"),
    ('{"genomes": [3]}', "genomes[0] is a int, not an object"),
    ('{"genomes": [{"params": 5}]}', "genomes[0] has no params object"),
])
def test_an_answer_without_genomes_says_what_it_held_instead(text, message):
    with pytest.raises(UnreadableReply, match=message.replace("[", r"\[").replace("]", r"\]").replace("(", r"\(")):
        parse_reply(text, SPACE)


@pytest.mark.parametrize("text", [
    # a reasoning model's thoughts left in the answer, with a draft inside them
    ('<think>The default is {"BLOCK_H": 64}; a draft: {"genomes": [{"params": {"BLOCK_H": 16}}]}</think>\n'
     '{"genomes": [{"params": {"NUM_WARPS": 8}}, {"params": {"BLOCK_K": 64}}]}'),
    # prose that quotes the defaults, or a gene's values, before the answer
    'Default is {"BLOCK_H": 64}. Proposals:\n{"genomes": [{"params": {"NUM_WARPS": 8}}, {"params": {"BLOCK_K": 64}}]}',
    ('Using {} as the base, BLOCK_K takes [32, 64, 128].\n```json\n'
     '{"genomes": [{"params": {"NUM_WARPS": 8}}, {"params": {"BLOCK_K": 64}}]}\n```'),
], ids=["think", "quoted-defaults", "quoted-values"])
def test_the_answer_is_the_genome_list_not_json_quoted_before_it(text):
    (one, two) = parse_reply(text, SPACE)
    assert (one.params["NUM_WARPS"], two.params["BLOCK_K"]) == (8, 64)


def test_an_item_that_is_no_genome_is_left_out_and_said_and_the_others_are_read():
    skipped: list[str] = []
    text = '{"genomes": [{"params": {"NUM_WARPS": 8}}, {"params": [1, 2]}, 7, {"params": {"BLOCK_K": 64}}]}'
    (one, two) = parse_reply(text, SPACE, skipped)
    assert (one.params["NUM_WARPS"], two.params["BLOCK_K"]) == (8, 64)
    assert skipped == ["genomes[1] has no params object", "genomes[2] is a int, not an object"]


def test_an_answer_nested_deeper_than_json_reads_is_unreadable_not_a_crash():
    with pytest.raises(UnreadableReply, match="the JSON at character 10 is nested too deeply to read"):
        parse_reply("I propose " + "[" * 5000, SPACE)  # a model caught in a loop


def test_long_messages_are_kept_once_by_content_and_restored_word_for_word(tmp_path):
    brief = "the template\n" * (INLINE_CHARS // 10)
    transcript = Transcript(tmp_path)
    for call in (1, 2):
        transcript.record({"call": call, "messages": [{"role": "system", "content": "rules"},
                                                      {"role": "user", "content": brief}]})
    assert len(list((tmp_path / "text").iterdir())) == 1
    assert (tmp_path / "calls.jsonl").stat().st_size < len(brief)  # neither line holds the brief
    assert [c["messages"][1]["content"] for c in read_calls(tmp_path)] == [brief, brief]
    (blob,) = (tmp_path / "text").iterdir()
    blob.unlink()  # a reader that only counts or sums never opens the kept texts
    assert [c["messages"][1] for c in read_calls(tmp_path, restore=False)] == [
        {"role": "user", "content_sha256": blob.stem}] * 2
    assert Transcript(tmp_path).count == 2


def test_a_line_torn_by_a_kill_is_left_out_and_the_next_call_starts_its_own_line(tmp_path):
    Transcript(tmp_path).record({"call": 1, "messages": []})
    with (tmp_path / "calls.jsonl").open("a") as f:
        f.write('{"call": 2, "messages": [{"role": "us')  # the driver died mid-line
    reopened = Transcript(tmp_path)
    assert reopened.count == 1
    reopened.record({"call": 2, "messages": []})
    assert [c["call"] for c in read_calls(tmp_path)] == [1, 2]


def test_an_edited_or_missing_kept_text_is_named(tmp_path):
    transcript = Transcript(tmp_path)
    transcript.record({"call": 1, "messages": [{"role": "user", "content": "x" * (INLINE_CHARS + 1)}]})
    (blob,) = (tmp_path / "text").iterdir()
    blob.write_text("y" * (INLINE_CHARS + 1))
    with pytest.raises(UserError, match="no longer matches its hash"):
        read_calls(tmp_path)
    blob.unlink()
    with pytest.raises(UserError, match=r"calls.jsonl:1: names .* which is missing"):
        read_calls(tmp_path)
    (tmp_path / "calls.jsonl").write_text('{"call": 1}\n{"call": 2, oops}\n{"call": 3}\n')
    with pytest.raises(UserError, match=r"calls.jsonl:2: not a JSON line"):
        read_calls(tmp_path)
