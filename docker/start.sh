#!/bin/sh
# Container entry point. Behind HaRP (HP_SHARED_KEY set) it writes the frpc
# configuration and keeps frpc running, which tunnels HaRP's requests to
# the app's unix socket; then it runs the app in ExApp mode.
#
# frpc is started with loginFailExit = false, so it keeps retrying when
# HaRP's FRP port is not reachable yet, and it is restarted if it exits
# anyway: the Docker health check requires a running frpc behind HaRP.
# FRPC_CONFIG (default /tmp/frpc.toml) and FRPC_RESTART_DELAY (seconds,
# default 2) exist for tests.
set -eu

if [ -n "${HP_SHARED_KEY:-}" ]; then
  sock="${HP_EXAPP_SOCK:-/tmp/exapp.sock}"
  conf="${FRPC_CONFIG:-/tmp/frpc.toml}"
  : "${HP_FRP_ADDRESS:?HP_FRP_ADDRESS must be set behind HaRP}"
  : "${APP_ID:?APP_ID must be set}"
  : "${APP_PORT:?APP_PORT must be set}"
  umask 077 # the file holds the shared key
  {
    echo "serverAddr = \"${HP_FRP_ADDRESS}\""
    echo "serverPort = ${HP_FRP_PORT:-8782}"
    echo "loginFailExit = false"
    echo "metadatas.token = \"${HP_SHARED_KEY}\""
    if [ -d /certs/frp ]; then
      echo "transport.tls.enable = true"
      echo "transport.tls.certFile = \"/certs/frp/client.crt\""
      echo "transport.tls.keyFile = \"/certs/frp/client.key\""
      echo "transport.tls.trustedCaFile = \"/certs/frp/ca.crt\""
      echo "transport.tls.serverName = \"harp.nc\""
    else
      echo "transport.tls.enable = false"
    fi
    echo ""
    echo "[[proxies]]"
    echo "remotePort = ${APP_PORT}"
    echo "type = \"tcp\""
    echo "name = \"${APP_ID}\""
    echo "[proxies.plugin]"
    echo "type = \"unix_domain_socket\""
    echo "unixPath = \"${sock}\""
  } > "$conf"
  umask 022
  (
    while :; do
      status=0
      frpc -c "$conf" || status=$?
      echo "start.sh: frpc exited with status $status; restarting it in ${FRPC_RESTART_DELAY:-2}s" >&2
      sleep "${FRPC_RESTART_DELAY:-2}"
    done
  ) &
fi

exec hybridsearch serve
