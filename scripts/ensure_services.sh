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
  rabbitmq-server -detached || true
fi
for _ in $(seq 1 60); do up 5432 && break; sleep 1; done
up 5432 || { echo "PostgreSQL is not reachable on 127.0.0.1:5432" >&2; exit 1; }
echo "services: postgres ok$(up 6379 && echo ', redis ok')$(up 5672 && echo ', rabbitmq ok')"
