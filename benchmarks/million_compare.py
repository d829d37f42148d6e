"""``bench_million``'s comparisons: a kept shard served in turns with other settings, other layouts
(``compare``) or another checkout's code (``against_code``), and how their answers agree.

Every configuration is served ``rounds`` times, in turns, so a slower minute of the machine falls on
all of them; the figures are medians over the rounds. Answers agree by memory and by base text (the
real text a memory derives from: its near-copies are equally relevant, so a change among them
changes no answer).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from million_serving import measure
from results import median


def compare(
    data_dir: Path,
    asked: list[str],
    variants: list[str],
    rounds: int,
    first: dict[str, float] | None = None,
    against: list[Path] | None = None,
) -> None:
    """The kept shard served as configured and with each variant's settings (``NAME:KEY=VALUE,...``),
    and each shard of ``against`` (another layout of the same memories, as configured), in turns,
    ``rounds`` times: medians over the rounds, so a slower minute of the machine falls on all. The
    top-10 agreement is with the first of ``against`` when given (the baseline), else as configured,
    by memory and by base text: memories of one base text are near-copies of it, equally relevant, so
    a change among them changes no answer."""
    configs: dict[str, tuple[Path, dict[str, str]]] = {
        f"{_layout_of(other)} layout ({other})": (other, {}) for other in against or []
    }
    configs[f"{_layout_of(data_dir)} layout" if against else "configured"] = (data_dir, {})
    for spec in variants:
        name, _, pairs = spec.partition(":")
        name, _, directory = name.partition("@")  # NAME@DIR: another kept shard of the same memories
        env = dict(pair.split("=", 1) for pair in pairs.split(",") if pair)
        configs[name] = (Path(directory) if directory else data_dir, env)
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in configs}
    for turn in range(rounds):
        for name, (directory, env) in configs.items():
            if turn == 0 and directory == data_dir and not env and first is not None:
                runs[name].append(first)  # measured just before, as configured
                continue
            runs[name].append(measure(directory, asked, env))
            got = {k: v for k, v in runs[name][-1].items() if k not in ("hits", "bases")}
            print(name, directory, json.dumps(env), json.dumps(got), flush=True)
    print("| settings | recall p50 ms | p99 ms | in the servicer p50 | shard open s | peak RSS GiB "
          "| top-10 shared with configured | same top hit | top-10 base texts shared | same top base text "
          "| one query's embedding alone ms | full collections | longest collector pause ms |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    reference: list[list[str]] = next(iter(runs.values()))[0]["hits"]  # type: ignore[assignment]
    reference_bases: list[list[str]] = next(iter(runs.values()))[0]["bases"]  # type: ignore[assignment]
    for name, done in runs.items():
        keys = ("p50", "p99", "server_p50", "open_s", "peak_gib", "embed_ms")
        p50, p99, server, open_s, peak, embed = [median([m[k] for m in done]) for k in keys]
        hits: list[list[str]] = done[0]["hits"]  # type: ignore[assignment]
        shared = sum(len(set(a) & set(b)) for a, b in zip(hits, reference, strict=True)) / (10 * len(hits))
        top = sum(a[0] == b[0] for a, b in zip(hits, reference, strict=True)) / len(hits)
        base_shared, base_top = _by_base(done[0]["bases"], reference_bases)  # type: ignore[arg-type]
        full, pause = _collector_cells(done)
        print(f"| {name} | {p50:.1f} | {p99:.1f} | {server:.1f} | {open_s:.2f} | {peak:.2f} "
              f"| {shared:.1%} | {top:.1%} | {base_shared} | {base_top} "
              f"| {embed:.2f} | {full} | {pause} |")  # fmt: skip


def _by_base(bases: list[list[str]], reference: list[list[str]]) -> tuple[str, str]:
    """The share of top-10 base texts (as a multiset) and of first base texts shared with the reference."""
    shared = sum(sum((Counter(a) & Counter(b)).values()) for a, b in zip(bases, reference, strict=True))
    top = sum(a[0] == b[0] for a, b in zip(bases, reference, strict=True))
    return f"{shared / (10 * len(bases)):.1%}", f"{top / len(bases):.1%}"


def against_code(baseline: Path, shards: list[Path], asked: list[str], rounds: int) -> None:
    """Each kept shard served by ``baseline``'s code and by this checkout's, in turns (the order
    swapped every round, so a slower minute of the machine falls on both): medians over the rounds,
    and how many top-10 lists this code returns exactly as the baseline did."""
    runs: dict[tuple[Path, str], list[dict[str, float]]] = {}
    for turn in range(rounds):
        for shard in shards:
            codes: list[tuple[str, Path | None]] = [("baseline", baseline), ("this", None)]
            for name, code in codes if turn % 2 == 0 else codes[::-1]:
                runs.setdefault((shard, name), []).append(measure(shard, asked, code=code))
                got = {k: v for k, v in runs[(shard, name)][-1].items() if k not in ("hits", "bases")}
                print(name, _layout_of(shard), json.dumps(got), flush=True)
    print("| code | layout | recall p50 ms | p99 ms | in the servicer p50 | first recall ms | shard open s "
          "| peak RSS GiB | top-10 lists as the baseline's | full collections "
          "| longest collector pause ms |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for (shard, name), done in runs.items():
        cells = [median([m[k] for m in done]) for k in ("p50", "p99", "server_p50", "first_ms", "open_s")]
        peak = max(m["peak_gib"] for m in done)
        hits: list[list[str]] = done[0]["hits"]  # type: ignore[assignment]
        reference: list[list[str]] = runs[(shard, "baseline")][0]["hits"]  # type: ignore[assignment]
        same = sum(a == b for a, b in zip(hits, reference, strict=True)) / len(hits)
        p50, p99, server, first, open_s = cells
        full, pause = _collector_cells(done)
        print(f"| {name} | {_layout_of(shard)} | {p50:.1f} | {p99:.1f} | {server:.1f} | {first:.0f} "
              f"| {open_s:.2f} | {peak:.2f} | {same:.1%} | {full} | {pause} |")  # fmt: skip


def _collector_cells(done: list[dict[str, float]]) -> tuple[str, str]:
    """Full collections per serving (median) and the longest pause over the servings; "-" when the
    serving code did not record them (older code)."""
    recorded = [m for m in done if m.get("gc_full", -1) >= 0]
    if not recorded:
        return "-", "-"
    full = median([m["gc_full"] for m in recorded])
    return f"{full:.0f}", f"{max(m['gc_longest_ms'] for m in recorded):.0f}"


def _layout_of(data_dir: Path) -> str:
    """The layout a kept shard's generation recorded (``ram`` before layouts were recorded)."""
    marker = json.loads((data_dir / "memories" / "gen-1" / "model.json").read_text())
    return str(marker.get("layout", "ram"))
