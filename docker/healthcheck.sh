#!/bin/sh
# Docker HEALTHCHECK. Behind HaRP (HP_SHARED_KEY set) the app must answer
# /heartbeat on its unix socket and frpc must run, or HaRP cannot reach it;
# otherwise the app must answer /heartbeat on APP_HOST:APP_PORT. pgrep
# comes from procps, which the image installs.
if [ -n "${HP_SHARED_KEY:-}" ]; then
  curl -fsS --max-time 2 --unix-socket "${HP_EXAPP_SOCK:-/tmp/exapp.sock}" http://localhost/heartbeat >/dev/null &&
    pgrep -x frpc >/dev/null
else
  curl -fsS --max-time 2 "http://${APP_HOST:-127.0.0.1}:${APP_PORT:?}/heartbeat" >/dev/null
fi
