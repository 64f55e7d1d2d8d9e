"""Model spend: tokens per day this month as a chart with the daily cap, and per job."""

from __future__ import annotations

from pi_memory.viewer.html import empty, esc, page, table

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pi_memory.config.schema import Config
    from pi_memory.viewer.routing import Request, Response


def spend_days(config: Config, *, last: int = 0) -> str:
    """The spend chart: this month's days, or (``last``) the last days up to today,
    into the month before ("" then when nothing was spent: the overview shows it only
    once there is something)."""
    import calendar
    from datetime import timedelta

    from pi_memory.model import ledger
    from pi_memory.viewer.chart import spend_chart

    now = ledger.now_local()
    directory = ledger.directory(config)
    by_day = ledger.daily(directory, now)
    if last:
        by_day = {**ledger.daily(directory, now - timedelta(days=now.day)), **by_day}
        if not by_day:
            return ""
        shown = [f"{now - timedelta(days=back):%Y-%m-%d}" for back in range(last - 1, -1, -1)]
    else:
        month_end = calendar.monthrange(now.year, now.month)[1]
        shown = [f"{now:%Y-%m}-{d:02d}" for d in range(1, month_end + 1)]
    tokens = {day: {job: s.tokens for job, s in jobs.items()} for day, jobs in by_day.items()}
    return spend_chart(shown, tokens, config.daily_token_cap, height=150 if last else 260)


def render(request: Request) -> Response:
    from pi_memory.model import ledger
    from pi_memory.viewer.chart import series_class

    app = request.app
    config = app.opened().config
    now = ledger.now_local()
    spend = ledger.spend(ledger.directory(config), now)
    cap = config.daily_token_cap
    jobs = sorted(spend.month)
    legend = "".join(
        f'<span><i class="b{series_class(jobs, job)[1:]}"></i>{esc(job)}</span>' for job in jobs
    )
    limit = f"daily cap for background jobs: {cap:,} tokens" if cap else "no daily cap"
    body = (
        f'<section class="card"><h2>{esc(f"{now:%B %Y}")}: {spend.tokens_month():,} tokens</h2>'
        f'<p class="meta">{esc(limit)} · today {spend.tokens_today():,}</p>'
        f'{spend_days(config)}<div class="legend">{legend}</div></section>'
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
