"""Session context packing: the budget always holds, and the policy keeps noise from crowding out facts."""

from __future__ import annotations

import random

import msgspec

from codememory.recall.context import ContextPolicy, ContextRequest, build_context, estimate_tokens, pack
from codememory.recall.provenance import format_line
from codememory.recall.query import RecallQuery
from codememory.recall.recaller import RecallHit
from codememory.recall.scoring import ScoreParts

DAY = 1_700_000_000.0


def _hit(
    n: int,
    text: str,
    total: float,
    *,
    kind: str = "prompt",
    importance: float = 0.5,
    session: str = "s1",
) -> RecallHit:
    payload: dict[str, object] = {
        "text": text,
        "type": kind,
        "importance": importance,
        "session_id": session,
        "created_at": DAY,
    }
    parts = ScoreParts(dense=total, lexical=0.0, recency=0.0, importance=importance, scope=0.0, total=total)
    return RecallHit(f"m{n}", payload, parts)


class ListSource:
    """A HitSource over a fixed ranking that records the queries it was asked."""

    def __init__(self, by_repo: dict[str, list[RecallHit]]) -> None:
        self.by_repo = by_repo
        self.queries: list[RecallQuery] = []

    def recall(self, query: RecallQuery) -> list[RecallHit]:
        self.queries.append(query)
        hits = self.by_repo.get(query.repo, [])
        return [h for h in hits if not query.types or h.payload["type"] in query.types][: query.limit]


def test_the_block_never_exceeds_the_budget_under_any_policy() -> None:
    rng = random.Random(3)
    hits = [
        _hit(i, "word " * rng.randint(1, 400), rng.random(), session=f"s{i % 7}", importance=rng.random())
        for i in range(80)
    ]
    hits.sort(key=lambda h: -h.parts.total)
    for policy in (ContextPolicy(), ContextPolicy.legacy(), ContextPolicy(max_line_tokens=0)):
        for budget in (60, 100, 500, 1500, 4000):
            ctx = pack(hits, budget, policy)
            assert ctx.tokens == estimate_tokens(ctx.text)
            assert ctx.tokens <= budget, (policy, budget)
            assert len(ctx.memory_ids) == len(set(ctx.memory_ids))


def test_legacy_packs_whole_lines_greedily_and_skips_the_callers_own_session() -> None:
    first = _hit(1, "money is integer cents", 0.95, session="s3")
    long = _hit(2, "x" * 2000, 0.9, session="s1")
    own = _hit(3, "mine", 0.8, session="me")
    short = _hit(4, "we use uv, not pip", 0.7, session="s2")
    ctx = pack([first, long, own, short], 300, ContextPolicy.legacy(), session_id="me")
    assert ctx.memory_ids == ("m1", "m4")  # the long line does not fit whole and is passed over
    assert format_line(short.payload) in ctx.text


def test_legacy_trims_the_best_memory_when_nothing_else_fits() -> None:
    ctx = pack([_hit(1, "y" * 4000, 0.9)], 200, ContextPolicy.legacy())
    assert ctx.memory_ids == ("m1",)
    assert ctx.tokens <= 200


def test_low_importance_observations_are_left_out_by_default() -> None:
    read = _hit(1, "Read src/app.py: import os ...", 0.95, kind="observation", importance=0.2)
    decision = _hit(2, "we log with structlog", 0.5)
    assert pack([read, decision], 1500, ContextPolicy()).memory_ids == ("m2",)
    assert pack([read, decision], 1500, ContextPolicy.legacy()).memory_ids == ("m1", "m2")


def test_type_weights_reorder_what_was_stated_ahead_of_what_was_observed() -> None:
    shell = _hit(1, "Bash: git status --short in src", 0.60, kind="observation", importance=0.4)
    prompt = _hit(2, "migrations must be backwards compatible", 0.55)
    ctx = pack([shell, prompt], 1500, ContextPolicy())
    assert ctx.memory_ids == ("m2", "m1")
    assert ctx.text.index("migrations") < ctx.text.index("git status")
    equal = ContextPolicy(type_weights={})
    assert pack([shell, prompt], 1500, equal).memory_ids == ("m1", "m2")


def test_a_question_goes_after_what_is_known() -> None:
    asked = _hit(1, "how many retries does the API client do?", 0.60)
    known = _hit(2, "the API client retries 3 times with jittered backoff", 0.45)
    ctx = pack([asked, known], 1500, ContextPolicy())
    assert ctx.memory_ids == ("m2", "m1")
    assert pack([asked, known], 1500, ContextPolicy(question_weight=1.0)).memory_ids == ("m1", "m2")
    tight = estimate_tokens(ctx.text) - estimate_tokens(format_line(asked.payload))
    assert pack([asked, known], tight, ContextPolicy()).memory_ids == ("m2",)  # the budget goes to the fact
    summary = _hit(3, "Session of 2026-12-07 in api: asked: how many retries does the client do?", 0.60)
    summary = _with(summary, type="summary")  # it quotes a question; it asks nothing itself
    assert pack([summary, known], 1500, ContextPolicy()).memory_ids == ("m3", "m2")


def test_per_session_lets_other_sessions_go_first_then_fills() -> None:
    busy = [
        _hit(i, f"edit {chr(97 + i)} in the busy session", 0.9 - i / 100, session="busy") for i in range(10)
    ]
    other = _hit(99, "ledger postings are append-only", 0.3, session="quiet")
    ctx = pack([*busy, other], 4000, ContextPolicy(per_session=3))
    assert ctx.memory_ids[:4] == ("m0", "m1", "m2", "m99")
    assert len(ctx.memory_ids) == 11  # the budget allows the rest, so they follow
    assert pack([*busy, other], 4000, ContextPolicy(per_session=0)).memory_ids[-1] == "m99"


def test_memories_too_short_to_say_anything_are_left_out() -> None:
    hits = [_hit(1, "thanks", 0.9), _hit(2, "go ahead", 0.8), _hit(3, "we use pnpm, not npm", 0.1)]
    assert pack(hits, 1500, ContextPolicy()).memory_ids == ("m3",)
    assert pack(hits, 1500, ContextPolicy(min_chars=0)).memory_ids == ("m1", "m2", "m3")


def test_lines_differing_only_in_numbers_are_packed_once() -> None:
    runs = [
        _hit(i, f"uv run pytest -q {100 + i} passed in {i}.5s", 0.9 - i / 10, session=f"s{i}")
        for i in range(3)
    ]
    assert pack(runs, 1500, ContextPolicy()).memory_ids == ("m0",)
    assert len(pack(runs, 1500, ContextPolicy(dedupe=False)).memory_ids) == 3


def test_long_memories_are_cut_so_more_of_them_fit() -> None:
    hits = [
        _hit(i, f"fact {chr(97 + i)} " + "detail " * 200, 0.9 - i / 100, session=f"s{i}") for i in range(5)
    ]
    capped = pack(hits, 500, ContextPolicy(max_line_tokens=60))
    whole = pack(hits, 500, ContextPolicy.legacy())
    assert len(capped.memory_ids) == 5
    assert len(whole.memory_ids) == 1
    assert all(len(line) <= 240 for line in capped.text.splitlines())
    assert capped.tokens <= 500


def test_build_context_asks_for_the_policys_candidates_and_falls_back_to_any_repo() -> None:
    source = ListSource({"": [_hit(1, "anywhere: we use uv, not pip", 0.5)]})
    policy = ContextPolicy(candidates=70, stated_types=())
    asked = ContextRequest(tenant="t", repo="api", branch="main", cwd="/w/api/src", budget_tokens=500)
    ctx = build_context(source, asked, policy=policy)
    assert [(q.repo, q.limit, q.text) for q in source.queries] == [
        ("api", 70, "api main src"),
        ("api", 70, ""),  # the repository's memories by recency and importance, before any other repo
        ("", 70, "api main src"),
    ]
    assert ctx.memory_ids == ("m1",)
    assert "we use uv" in ctx.text


def test_a_repository_identity_gives_its_name_to_the_query_not_its_host_or_path() -> None:
    for identity in ("github.com/acme/payments", "/home/ana/src/payments/"):
        source = ListSource({identity: [_hit(1, "webhooks are verified with the signing secret", 0.5)]})
        asked = ContextRequest(
            tenant="t", repo=identity, branch="main", cwd="/home/ana/src/payments/app", budget_tokens=500
        )
        ctx = build_context(source, asked, policy=ContextPolicy(stated_types=()))
        assert [(q.repo, q.text) for q in source.queries] == [(identity, "payments main app")]
        assert ctx.memory_ids == ("m1",)


class NotYetEmbedded(ListSource):
    """Memories only a query without text finds: nothing shares the query's words, no vector yet."""

    def recall(self, query: RecallQuery) -> list[RecallHit]:
        found = super().recall(query)
        return found if not query.text else []


def test_a_repository_whose_memories_match_nothing_yet_still_gives_its_own() -> None:
    source = NotYetEmbedded({"api": [_hit(1, "run migrations with make migrate before tests", 0.5)]})
    asked = ContextRequest(tenant="t", repo="api", budget_tokens=500)
    ctx = build_context(source, asked, policy=ContextPolicy(stated_types=()))
    assert ctx.memory_ids == ("m1",) and [q.repo for q in source.queries] == ["api", "api"]


def test_stated_memories_get_their_own_recall_when_observations_flood_the_candidates() -> None:
    observed = [
        _hit(i, f"Edit src/{chr(97 + i)}.py: rename helper", 0.9, kind="observation", session=f"s{i}")
        for i in range(5)
    ]
    decision = _hit(9, "migrations must stay backwards compatible for one release", 0.3)
    source = ListSource({"api": [*observed, decision]})
    policy = ContextPolicy(candidates=5)
    ctx = build_context(source, ContextRequest(tenant="t", repo="api", budget_tokens=500), policy=policy)
    assert [q.types for q in source.queries] == [(), policy.stated_types]
    assert ctx.memory_ids[0] == "m9"  # 0.3 beats 0.9 x 0.3: stated outranks observed
    legacy = build_context(
        ListSource({"api": [*observed, decision]}),
        ContextRequest(tenant="t", repo="api"),
        policy=ContextPolicy(candidates=5, stated_types=()),
    )
    assert "m9" not in legacy.memory_ids


def test_nothing_recalled_is_an_empty_context() -> None:
    ctx = build_context(ListSource({}), ContextRequest(tenant="t", repo="api", prompt="why?"))
    assert (ctx.text, ctx.tokens, ctx.memory_ids) == ("", 0, ())


def test_one_session_summary_then_the_facts() -> None:
    """A first cycle summarises every finished session; their long lines would fill the budget."""
    areas = ("billing", "checkout", "search", "exports", "settings")
    summaries = [
        _hit(
            n,
            f"Session in api: asked: refactor the {area} module, it does too much " * 3,
            0.9,
            kind="summary",
        )
        for n, area in enumerate(areas, start=1)
    ]
    fact = _hit(9, "money amounts are integer minor units (cents), never floats", 0.5, kind="decision")
    assert pack([*summaries, fact], 200, ContextPolicy()).memory_ids == ("m1", "m9")
    assert pack([*summaries, fact], 200, ContextPolicy(summaries=5)).memory_ids[:2] == ("m1", "m2")


def test_a_memory_a_packed_line_quotes_whole_is_left_out() -> None:
    asked = "the payments tests fail since yesterday, can you fix them?"
    rule = "from now on every new class in api/ must be exported from api/__init__.py"
    summary = _hit(1, f"Session of 2026-12-07 in proj:\nasked: {asked} | thanks. {rule}", 0.9, kind="summary")
    prompts = [_hit(2, asked.upper(), 0.8), _hit(3, "thanks. " + rule, 0.7)]
    fact = _hit(4, "money amounts are integer minor units (cents), never floats", 0.6, kind="decision")
    assert pack([summary, *prompts, fact], 500, ContextPolicy()).memory_ids == ("m1", "m4")
    assert pack(
        [summary, *prompts, fact], 500, ContextPolicy(quoted=False, question_weight=1.0)
    ).memory_ids == (
        "m1",
        "m2",
        "m3",
        "m4",
    )
    # what the line was cut to counts: a prompt past the cut gets its own line
    cut = ContextPolicy(max_line_tokens=40)  # the line holds the first prompt, not the second
    assert pack([summary, *prompts, fact], 500, cut).memory_ids == ("m1", "m3", "m4")
    # a memory quoted only in part is not quoted
    partly = _hit(5, asked + " and the refunds too", 0.8)
    assert pack([summary, partly], 500, ContextPolicy()).memory_ids == ("m1", "m5")
    # the summary a session was given at its start counts for the prompts at its next prompt
    given = frozenset({"m1"})
    assert pack([summary, *prompts, fact], 500, ContextPolicy(), leave_out=given).memory_ids == ("m4",)


def test_only_a_summarys_whole_items_are_quoted() -> None:
    items = "never use floats for money amounts | fix the flaky ci job on main"
    summary = _hit(1, f"Session in api: asked: {items}", 0.9, kind="summary")
    note = _hit(2, "use floats for money amounts", 0.8, kind="note")  # inside an item, not one
    ci = _hit(3, "fix the flaky ci job on main", 0.7)
    ci_more = _hit(4, "fix the flaky ci job on mai", 0.6)  # an item's start, not up to the end of a word
    assert pack([summary, note, ci, ci_more], 500, ContextPolicy()).memory_ids == ("m1", "m2", "m4")
    # a line that is not a summary's quotes nothing
    rule = _hit(5, f"asked: {items}", 0.9, kind="decision")
    assert pack([rule, ci], 500, ContextPolicy()).memory_ids == ("m5", "m3")


def _with(hit: RecallHit, **payload: object) -> RecallHit:
    return RecallHit(hit.memory_id, {**hit.payload, **payload}, hit.parts)


def test_an_insight_and_a_memory_it_was_drawn_from_take_one_line() -> None:
    """A convention restated in two sessions came back as the rule and as the lesson drawn from it."""
    rule = _hit(1, "we use pytest with -x and the tests live in tests/, never unittest", 0.8)
    lesson = _with(
        _hit(
            2,
            f"{rule.payload['text']}\nSituation: stated in 2 sessions",
            0.6,
            kind="insight",
        ),
        metadata={"evidence": "m1,m7"},
    )
    other = _hit(3, "our database is postgres 15, migrations go through alembic", 0.5)
    policy = ContextPolicy()
    assert pack([rule, lesson, other], 500, policy).memory_ids == ("m1", "m3")
    # the lesson ranked first: the memory it was drawn from is the one left out
    first = RecallHit(lesson.memory_id, lesson.payload, msgspec.structs.replace(lesson.parts, total=0.9))
    assert pack([first, rule, other], 500, policy).memory_ids == ("m2", "m3")
    # drawn from a restatement that a cycle merged into the rule
    canonical = _with(_hit(4, rule.payload["text"], 0.8), sources=[{"memory_id": "m7", "session_id": "s2"}])
    assert pack([canonical, _with(lesson, metadata={"evidence": "m7"}), other], 500, policy).memory_ids == (
        "m4",
        "m3",
    )
    # an insight drawn from something else, and the packing before this rule, keep both
    unrelated = _with(lesson, metadata={"evidence": "m8"})
    assert pack([rule, unrelated, other], 500, policy).memory_ids == ("m1", "m2", "m3")
    assert pack([rule, lesson, other], 500, ContextPolicy.legacy()).memory_ids == ("m1", "m2", "m3")


def test_what_the_session_was_given_is_left_out_and_counts_as_packed() -> None:
    rule = _hit(1, "we use pytest with -x and the tests live in tests/, never unittest", 0.9)
    lesson = _with(
        _hit(2, f"{rule.payload['text']}\nSituation: stated in 2 sessions", 0.8, kind="insight"),
        metadata={"evidence": "m1"},
    )
    summary = _hit(3, "Session in api: asked: bump the retry budget to 30 seconds", 0.7, kind="summary")
    other_summary = _hit(4, "Session in api: asked: move the cache to redis", 0.6, kind="summary")
    fact = _hit(5, "the API retries failed calls 5 times with exponential backoff", 0.5)
    hits = [rule, lesson, summary, other_summary, fact]
    policy = ContextPolicy()
    assert pack(hits, 500, policy).memory_ids == ("m1", "m3", "m5")
    # given the rule and one summary at its start: the lesson drawn from the rule and a second
    # summary are no news either
    assert pack(hits, 500, policy, leave_out=frozenset({"m1", "m3"})).memory_ids == ("m5",)
    assert pack(hits, 500, policy, leave_out=frozenset({"m1", "m3", "m5"})) == pack([], 500, policy)


def test_a_line_the_session_was_given_is_not_given_again_under_another_id() -> None:
    asked = _hit(1, "how many retries does the API do?", 0.9, session="s5")
    again = _hit(2, "how many retries does the API do?", 0.8, session="s6")  # the same words, not merged
    fact = _hit(3, "the API retries failed calls 5 times with exponential backoff", 0.5)
    policy = ContextPolicy()
    assert pack([asked, again, fact], 500, policy, leave_out=frozenset({"m1"})).memory_ids == ("m3",)
    assert pack(
        [asked, again, fact],
        500,
        ContextPolicy(dedupe=False, question_weight=1.0),
        leave_out=frozenset({"m1"}),
    ).memory_ids == (
        "m2",
        "m3",
    )


def test_an_insight_that_does_not_repeat_what_it_was_drawn_from_leaves_it_in() -> None:
    failure = _hit(
        1, "Bash: pytest tests/test_webhooks.py failed: counted the first delivery as a retry", 0.9
    )
    lesson = _with(
        _hit(
            2,
            "`pytest tests/test_webhooks.py` failed, then passed after changing retries.py",
            0.95,
            kind="insight",
        ),
        metadata={"evidence": "m1,m9", "kind": "fix"},
    )
    assert pack([lesson, failure], 500, ContextPolicy()).memory_ids == ("m2", "m1")
