"""Model spend: tokens per day this month as a chart with the daily cap, and per job."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pi_memory.viewer.html import empty, esc, page, table

if TYPE_CHECKING:
    from pi_memory.viewer.routing import Request, Response


def render(request: Request) -> Response:
    import calendar

    from pi_memory.model import ledger
    from pi_memory.viewer.chart import series_class, spend_chart

    app = request.app
    config = app.opened().config
    directory = ledger.directory(config)
    now = ledger.now_local()
    by_day = ledger.daily(directory, now)
    spend = ledger.spend(directory, now)
    cap = config.daily_token_cap
    last = calendar.monthrange(now.year, now.month)[1]
    days = [f"{now:%Y-%m}-{d:02d}" for d in range(1, last + 1)]
    tokens = {day: {job: s.tokens for job, s in jobs.items()} for day, jobs in by_day.items()}
    jobs = sorted(spend.month)
    legend = "".join(
        f'<span><i class="b{series_class(jobs, job)[1:]}"></i>{esc(job)}</span>' for job in jobs
    )
    limit = f"daily cap for background jobs: {cap:,} tokens" if cap else "no daily cap"
    body = (
        f'<section class="card"><h2>{esc(f"{now:%B %Y}")}: {spend.tokens_month():,} tokens</h2>'
        f'<p class="meta">{esc(limit)} · today {spend.tokens_today():,}</p>'
        f'{spend_chart(days, tokens, cap)}<div class="legend">{legend}</div></section>'
    )
    rows = [
        (
            esc(job),
            f"{s.calls:,}",
            f"{s.failures:,}",
            f"{s.tokens_in:,}",
            f"{s.tokens_out:,}",
            f"{spend.today.get(job, ledger.JobSpend()).tokens:,}",
        )
        for job, s in sorted(spend.month.items())
    ]
    body += '<section class="card"><h2>Per job this month</h2>'
    body += (
        table(("job", "calls", "failed", "tokens in", "tokens out", "today"), rows)
        if rows
        else empty("No model call this month.")
    )
    body += "</section>"
    if spend.stopped_today:
        stopped = f"{spend.stopped_today} background calls were stopped by the cap today."
        body += f'<p class="warn">{esc(stopped)}</p>'
    return page(app, "Spend", "/spend", body)
