"""Limits on calls to one LLM endpoint: concurrent calls, requests per minute and tokens per minute.

Two implementations of one interface:
- in-process (threads of one process), the default;
- Redis-backed, when AGENTR_REDIS_URL is set, so the limits hold across runs, processes and machines.
  Concurrency is a set of leases that expire (a killed holder cannot leak a slot); RPM and TPM are token
  buckets updated atomically by Lua scripts; a 429's Retry-After pauses every caller of the endpoint.
"""

from __future__ import annotations

import threading
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass

from pydantic import BaseModel, Field


class EndpointLimits(BaseModel):
    """Limits for one endpoint, configured in one place (LLMResource / AGENTR_LLM_* variables)."""

    max_concurrent: int | None = Field(default=None, ge=1)
    requests_per_minute: int | None = Field(default=None, ge=1)
    tokens_per_minute: int | None = Field(default=None, ge=1)
    redis_url: str | None = None
    lease_seconds: float = 600.0  # a concurrency slot held longer than this is presumed dead

    @property
    def active(self) -> bool:
        return bool(self.max_concurrent or self.requests_per_minute or self.tokens_per_minute)


@dataclass
class _Bucket:
    capacity: float
    per_second: float
    level: float
    stamp: float

    def wait_for(self, amount: float, now: float) -> float:
        """Seconds until `amount` is available; takes it when that is now."""
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.per_second)
        self.stamp = now
        amount = min(amount, self.capacity)  # a single request larger than a minute's budget still goes, alone
        if self.level >= amount:
            self.level -= amount
            return 0.0
        return (amount - self.level) / self.per_second


class InProcessLimiter:
    def __init__(self, limits: EndpointLimits):
        self.limits = limits
        self._slots = threading.BoundedSemaphore(limits.max_concurrent) if limits.max_concurrent else None
        self._lock = threading.Lock()
        now = time.monotonic()
        self._requests = (
            _Bucket(limits.requests_per_minute, limits.requests_per_minute / 60, limits.requests_per_minute, now)
            if limits.requests_per_minute else None
        )
        self._tokens = (
            _Bucket(limits.tokens_per_minute, limits.tokens_per_minute / 60, limits.tokens_per_minute, now)
            if limits.tokens_per_minute else None
        )
        self._paused_until = 0.0

    @contextmanager
    def slot(self, tokens: int):
        self._wait_for_budget(tokens)
        if self._slots:
            self._slots.acquire()
        try:
            yield
        finally:
            if self._slots:
                self._slots.release()

    def _wait_for_budget(self, tokens: int) -> None:
        while True:
            with self._lock:
                now = time.monotonic()
                wait = max(0.0, self._paused_until - now)
                if wait == 0 and self._requests:
                    wait = self._requests.wait_for(1, now)
                if wait == 0 and self._tokens:
                    wait = self._tokens.wait_for(tokens, now)
                    if wait and self._requests:
                        self._requests.level += 1  # give the request back; it did not go
            if wait == 0:
                return
            time.sleep(min(wait, 1.0))

    def pause(self, seconds: float) -> None:
        with self._lock:
            self._paused_until = max(self._paused_until, time.monotonic() + seconds)


# KEYS: bucket key. ARGV: capacity, per_second, amount, now. Returns milliseconds to wait (0 = taken).
_BUCKET_LUA = """
local level = tonumber(redis.call('HGET', KEYS[1], 'level') or ARGV[1])
local stamp = tonumber(redis.call('HGET', KEYS[1], 'stamp') or ARGV[4])
local capacity, rate, amount, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
level = math.min(capacity, level + math.max(0, now - stamp) * rate)
amount = math.min(amount, capacity)
local wait = 0
if level >= amount then level = level - amount else wait = math.ceil((amount - level) / rate * 1000) end
redis.call('HSET', KEYS[1], 'level', level, 'stamp', now)
redis.call('EXPIRE', KEYS[1], 3600)
return wait
"""

# KEYS: lease zset. ARGV: limit, lease id, now, expiry. Returns 1 if a slot was taken.
_LEASE_LUA = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], ARGV[4], ARGV[2])
  redis.call('EXPIRE', KEYS[1], 86400)
  return 1
end
return 0
"""


class RedisLimiter:
    def __init__(self, limits: EndpointLimits, endpoint: str, redis_url: str):
        import redis

        self.limits = limits
        self.client = redis.Redis.from_url(redis_url)
        self.prefix = f"agentr:llm-limits:{endpoint}"
        self._bucket = self.client.register_script(_BUCKET_LUA)
        self._lease = self.client.register_script(_LEASE_LUA)

    @contextmanager
    def slot(self, tokens: int):
        self._wait_for_budget(tokens)
        lease = self._acquire_lease()
        try:
            yield
        finally:
            if lease:
                self.client.zrem(f"{self.prefix}:leases", lease)

    def _now(self) -> float:
        seconds, micros = self.client.time()  # one clock for every process
        return seconds + micros / 1e6

    def _wait_for_pause(self) -> None:
        while True:
            paused = float(self.client.get(f"{self.prefix}:paused_until") or 0)
            now = self._now()
            if paused <= now:
                return
            time.sleep(min(paused - now, 1.0))

    def _wait_for_budget(self, tokens: int) -> None:
        # A Retry-After pause holds every caller, whatever limits are configured (none, or concurrency only).
        self._wait_for_pause()
        checks = []
        if self.limits.requests_per_minute:
            checks.append(("requests", self.limits.requests_per_minute, 1))
        if self.limits.tokens_per_minute:
            checks.append(("tokens", self.limits.tokens_per_minute, tokens))
        for name, per_minute, amount in checks:
            while True:
                paused = float(self.client.get(f"{self.prefix}:paused_until") or 0)
                now = self._now()
                if paused > now:
                    time.sleep(min(paused - now, 1.0))
                    continue
                args = [per_minute, per_minute / 60, amount, now]
                wait_ms = int(self._bucket(keys=[f"{self.prefix}:{name}"], args=args))
                if wait_ms == 0:
                    break
                time.sleep(min(wait_ms / 1000, 1.0))

    def _acquire_lease(self) -> str | None:
        if not self.limits.max_concurrent:
            return None
        lease = uuid.uuid4().hex
        while True:
            now = self._now()
            taken = self._lease(
                keys=[f"{self.prefix}:leases"],
                args=[self.limits.max_concurrent, lease, now, now + self.limits.lease_seconds],
            )
            if int(taken) == 1:
                return lease
            time.sleep(0.02)

    def pause(self, seconds: float) -> None:
        until = self._now() + seconds
        key = f"{self.prefix}:paused_until"
        current = float(self.client.get(key) or 0)
        if until > current:
            self.client.set(key, until, ex=max(1, int(seconds) + 1))


_shared: dict[tuple[str, str], InProcessLimiter | RedisLimiter] = {}
_shared_lock = threading.Lock()


def make_limiter(limits: EndpointLimits | None, endpoint: str):
    """One limiter per endpoint and configuration per process, so every run in the process shares it.

    With no limits configured there is still one: a 429's Retry-After must pause every caller of the endpoint
    (in the process, or everywhere when a Redis URL is given), not only the call that got it."""
    limits = limits or EndpointLimits()
    key = (endpoint, limits.model_dump_json())
    with _shared_lock:
        if key not in _shared:
            url = limits.redis_url
            _shared[key] = RedisLimiter(limits, endpoint, url) if url else InProcessLimiter(limits)
        return _shared[key]
