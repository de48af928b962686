"""Evaluating the real inbox sensor tick after tick, its cursor carried from one tick to the next as the daemon
carries it (build_sensor_context does not keep it by itself)."""

from __future__ import annotations

from dagster import DagsterInstance, SensorResult, SkipReason, build_sensor_context

from agentr_dagster.defs.resources import StoreResource


class SensorTicks:
    """``tick()`` evaluates the sensor once; ``settled()`` twice, as two daemon ticks over files that did not
    change in between (the first sees them, the second takes them), and returns the second tick's result."""

    def __init__(self, store_url: str, instance: DagsterInstance, sensor=None):
        from agentr_dagster.defs.sensors import inbox_sensor

        self.sensor = sensor or inbox_sensor
        self.instance = instance
        self.resources = {"store": StoreResource(database_url=store_url)}
        self.cursor: str | None = None
        self.log_lines: list[tuple[str, str]] = []

    def tick(self):
        context = build_sensor_context(instance=self.instance, resources=self.resources, cursor=self.cursor)
        result = self.sensor(context)
        self.cursor = context.cursor
        return result

    def settled(self):
        self.tick()
        return self.tick()


def skipped(result) -> SkipReason | None:
    """The tick's skip, whether it came alone or in a SensorResult (a tick that launched nothing but recorded
    its rejections on the `inbox` asset); None when the tick requested runs."""
    if isinstance(result, SkipReason):
        return result
    if isinstance(result, SensorResult) and not result.run_requests:
        return result.skip_reason
    return None
