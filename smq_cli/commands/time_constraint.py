"""`smq query --start-time / --end-time`: MetricFlow's time constraint, as a filter on metric_time.

MetricFlow (`mf query --start-time T1 --end-time T2`) keeps the rows whose metric_time lies in [T1, T2], both
ends included, after widening the range to whole periods of the query's grain: the finest `metric_time__<grain>`
the query groups by (else the finest grain of its metrics' bare metric_time, day by default). By month,
2024-01-15 .. 2024-02-10 becomes 2024-01-01 .. 2024-02-29, so the first and last months are whole. The
widened range becomes one filter on metric_time at that grain's day (or, below a day, at the grain itself),
which restricts the periods reported as MetricFlow's constraint does.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Iterable, Mapping

from engine.errors import QueryError

GRAIN_ORDER = ("second", "minute", "hour", "day", "week", "month", "quarter", "year")  # finest first
SUB_DAILY = ("second", "minute", "hour")
FORMAT = "an ISO 8601 date or timestamp, e.g. 2024-01-15 or 2024-01-15T08:30:00"


def parse_time(option: str, text: str) -> dt.datetime:
    """An option's ISO 8601 value, or a clear error naming the option and the format expected."""
    value = text.strip()
    try:
        parsed = dt.datetime.fromisoformat(value)
    except ValueError:
        raise QueryError(f"{option}: '{text}' is not {FORMAT}", code="bad_arguments") from None
    if parsed.tzinfo is not None:
        raise QueryError(f"{option}: '{text}' has a time zone offset; give the time as the warehouse stores it, without one "
                         f"({FORMAT})", code="bad_arguments")
    return parsed


def query_grain(group_by: Iterable[str], metric_grains: Iterable[str | None]) -> str:
    """The grain MetricFlow widens the constraint to: the finest metric_time grain grouped by, else the finest
    grain of a bare metric_time for these metrics (day when none declares one)."""
    grains = []
    for name in group_by:
        base, _, grain = name.partition("__")
        if base != "metric_time":
            continue
        if not grain:
            grains.append(_finest(metric_grains))
        elif grain in GRAIN_ORDER:
            grains.append(grain)
        elif not grain.startswith("extract_"):
            grains.append("day")  # a custom granularity: periods of days
    return min(grains, key=GRAIN_ORDER.index) if grains else _finest(metric_grains)


def _finest(grains: Iterable[str | None]) -> str:
    known = [g for g in grains if g in GRAIN_ORDER]
    return min(known, key=GRAIN_ORDER.index) if known else "day"


def period_start(grain: str, value: dt.datetime) -> dt.datetime:
    """The start of the period of `grain` holding `value` (weeks start on Monday, as MetricFlow's)."""
    if grain == "second":
        return value.replace(microsecond=0)
    if grain == "minute":
        return value.replace(second=0, microsecond=0)
    if grain == "hour":
        return value.replace(minute=0, second=0, microsecond=0)
    day = value.replace(hour=0, minute=0, second=0, microsecond=0)
    if grain == "week":
        return day - dt.timedelta(days=day.weekday())
    if grain == "month":
        return day.replace(day=1)
    if grain == "quarter":
        return day.replace(month=(day.month - 1) // 3 * 3 + 1, day=1)
    if grain == "year":
        return day.replace(month=1, day=1)
    return day


def period_last_day(grain: str, value: dt.datetime) -> dt.datetime:
    """The last day of the period of `grain` (day and above) holding `value`."""
    start = period_start(grain, value)
    if grain == "week":
        return start + dt.timedelta(days=6)
    if grain in ("month", "quarter", "year"):
        month = {"month": start.month, "quarter": start.month + 2, "year": 12}[grain]
        return start.replace(month=month, day=calendar.monthrange(start.year, month)[1])
    return start


def _literal(value: dt.datetime, grain: str) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S" if grain in SUB_DAILY else "%Y-%m-%d")


def constraint_filter(start: dt.datetime | None, end: dt.datetime | None, grain: str) -> str | None:
    """The filter keeping metric_time in [start, end] widened to whole periods of `grain`; an end left out is open."""
    if start is None and end is None:
        return None
    column = f"metric_time__{grain}" if grain in SUB_DAILY else "metric_time__day"
    low = _literal(period_start(grain, start), grain) if start is not None else None
    if end is None:
        high = None
    elif grain in SUB_DAILY:
        high = _literal(period_start(grain, end), grain)
    else:
        high = _literal(period_last_day(grain, end), grain)
    if low is not None and high is not None:
        return f"{column} BETWEEN '{low}' AND '{high}'"
    return f"{column} >= '{low}'" if low is not None else f"{column} <= '{high}'"


def time_constraint(start_text: str | None, end_text: str | None, group_by: Iterable[str],
                    metric_grains: Mapping[str, str | None] | Iterable[str | None]) -> str | None:
    """The --start-time / --end-time filter for a query grouped by `group_by`, or None when neither is given."""
    start = parse_time("--start-time", start_text) if start_text is not None else None
    end = parse_time("--end-time", end_text) if end_text is not None else None
    grains = metric_grains.values() if isinstance(metric_grains, Mapping) else metric_grains
    grain = query_grain(group_by, grains)
    if start is not None and end is not None and period_start(grain, start) > period_start(grain, end):
        raise QueryError(f"--start-time {start_text} is after --end-time {end_text} (by {grain}): the range would be empty",
                         code="bad_arguments")
    return constraint_filter(start, end, grain)
