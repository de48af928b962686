#!/usr/bin/env bash
# Start the local services the tests use if they are not running (PostgreSQL, Redis, RabbitMQ).
set -u
up() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if ! up 5432; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
if ! up 6379 && command -v redis-server >/dev/null; then
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
if ! up 5672 && command -v rabbitmq-server >/dev/null; then
  # -detached returns at once; the broker (the Celery tests' default) accepts connections some seconds later.
  rabbitmq-server -detached >/dev/null 2>&1 || service rabbitmq-server start >/dev/null 2>&1 || true
fi
for _ in $(seq 1 60); do up 5432 && break; sleep 1; done
up 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }
if command -v redis-server >/dev/null; then
  for _ in $(seq 1 30); do up 6379 && break; sleep 1; done
fi
if command -v rabbitmq-server >/dev/null; then
  for _ in $(seq 1 120); do up 5672 && break; sleep 1; done
  # An open port can precede the end of boot (plugins, the guest user): wait for the node to say it is up.
  if up 5672 && command -v rabbitmqctl >/dev/null; then
    timeout 90 rabbitmqctl -q await_startup >/dev/null 2>&1 || true
  fi
  up 5672 || echo "RabbitMQ is installed but not reachable on 127.0.0.1:5672: the distributed tests will fail" >&2
fi
echo "services: postgres ok$(up 6379 && echo ', redis ok')$(up 5672 && echo ', rabbitmq ok')"
