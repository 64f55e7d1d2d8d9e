"""The spend chart: model tokens per day, stacked by job, with the daily cap, as SVG.

Drawn here from plain numbers (no chart library): a pure function from the
days, their tokens per job and the cap to the ``<svg>`` text. Colours come
from the stylesheet's ``s0``…``s5`` classes; each bar carries a ``<title>``
a person can hover over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pi_memory.viewer.html import esc

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

WIDTH: Final = 760
HEIGHT: Final = 260
LEFT: Final = 64
BOTTOM: Final = 24
TOP: Final = 16
#: The cap is drawn inside the chart unless it is this many times the busiest day.
CAP_IN_VIEW: Final = 3
COLOURS: Final = 6


def series_class(jobs: Sequence[str], job: str) -> str:
    return f"s{jobs.index(job) % COLOURS}"


def spend_chart(
    days: Sequence[str],
    tokens: Mapping[str, Mapping[str, int]],
    cap: int,
    *,
    height: int = HEIGHT,
) -> str:
    """``days`` in order; ``tokens``: day → job → tokens; ``cap``: 0 for none."""
    jobs = sorted({job for day in tokens.values() for job in day})
    busiest = max((sum(tokens.get(d, {}).values()) for d in days), default=0)
    show_cap = cap > 0 and (busiest == 0 or cap <= CAP_IN_VIEW * busiest)
    top = max(busiest, cap if show_cap else 0, 1) * 1.1
    plot_h = height - TOP - BOTTOM
    step = (WIDTH - LEFT) / max(len(days), 1)

    def y(value: float) -> float:
        return TOP + plot_h - plot_h * value / top

    parts = [
        f'<svg class="chart" viewBox="0 0 {WIDTH} {height}" role="img" '
        f'aria-label="model tokens per day">',
        f'<line class="axis" x1="{LEFT}" y1="{y(0):.1f}" x2="{WIDTH}" y2="{y(0):.1f}"/>',
    ]
    for tick in (0, top / 2, top / 1.1):
        parts.append(
            f'<text x="{LEFT - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">{_short(tick)}</text>'
        )
    for i, day in enumerate(days):
        x = LEFT + i * step + step * 0.15
        base = 0.0
        for job in jobs:
            value = tokens.get(day, {}).get(job, 0)
            if not value:
                continue
            parts.append(
                f'<rect class="{series_class(jobs, job)}" x="{x:.1f}" y="{y(base + value):.1f}" '
                f'width="{step * 0.7:.1f}" height="{y(base) - y(base + value):.1f}">'
                f"<title>{esc(day)} · {esc(job)}: {value:,} tokens</title></rect>"
            )
            base += value
        if i % max(1, len(days) // 10) == 0:
            parts.append(
                f'<text x="{x + step * 0.35:.1f}" y="{height - 6}" text-anchor="middle">'
                f"{esc(day[-2:])}</text>"
            )
    if show_cap:
        parts.append(
            f'<line class="cap" x1="{LEFT}" y1="{y(cap):.1f}" x2="{WIDTH}" y2="{y(cap):.1f}"/>'
            f'<text x="{WIDTH - 4}" y="{y(cap) - 5:.1f}" text-anchor="end">daily cap {cap:,}</text>'
        )
    elif cap:  # far above the busiest day: said, not drawn (the bars would vanish)
        parts.append(
            f'<text class="cap-note" x="{WIDTH - 4}" y="{TOP}" text-anchor="end">'
            f"daily cap {cap:,}: far above these days ↑</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def _short(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:.1f}M"
    if value >= 1_000:
        return f"{value / 1_000:.0f}k"
    return f"{value:.0f}"
