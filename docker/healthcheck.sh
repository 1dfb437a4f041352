#!/bin/sh
# Docker HEALTHCHECK.
# Behind HaRP (HP_SHARED_KEY set): the app must answer /heartbeat on its
# unix socket, and the tunnel must be up: frpc's admin API (address and
# password in FRPC_ADMIN_FILE, written by start.sh) must report the app's
# proxy "running", which it does only while frpc is logged in to HaRP's
# frps. A frpc that runs but cannot reach HaRP, or is refused, fails it.
# Otherwise: the app must answer /heartbeat on APP_HOST:APP_PORT; a
# wildcard APP_HOST (0.0.0.0, ::) is reached on the loopback address.
set -u

if [ -n "${HP_SHARED_KEY:-}" ]; then
  curl -fsS --max-time 2 --unix-socket "${HP_EXAPP_SOCK:-/tmp/exapp.sock}" http://localhost/heartbeat >/dev/null || exit 1
  read -r port creds < "${FRPC_ADMIN_FILE:-/tmp/frpc-admin}" || {
    echo "healthcheck: frpc's admin settings are missing (start.sh writes them)" >&2
    exit 1
  }
  status=$(curl -fsS --max-time 2 -u "$creds" "http://127.0.0.1:${port}/api/status") || {
    echo "healthcheck: frpc's admin API does not answer on 127.0.0.1:${port}" >&2
    exit 1
  }
  # One proxy object per line; ours must say "running".
  if echo "$status" | tr '}' '\n' | grep -F "\"name\":\"${APP_ID:-}\"" | grep -qF '"status":"running"'; then
    exit 0
  fi
  echo "healthcheck: the tunnel to HaRP is down: frpc reports $status" >&2
  exit 1
fi

host="${APP_HOST:-127.0.0.1}"
case "$host" in
"" | 0.0.0.0 | :: | "[::]") hosts="127.0.0.1 ::1" ;;
*) hosts="$host" ;;
esac
for h in $hosts; do
  case "$h" in *:*) h="[${h#[}" && h="${h%]}]" ;; esac
  curl -fsS --max-time 2 "http://${h}:${APP_PORT:?}/heartbeat" >/dev/null 2>&1 && exit 0
done
echo "healthcheck: the app does not answer /heartbeat on ${host}:${APP_PORT}" >&2
exit 1
