#!/bin/sh
# Container entry point. Behind HaRP (HP_SHARED_KEY set) it first starts
# frpc, which tunnels HaRP's requests to the app's unix socket; then it runs
# the app in ExApp mode.
set -e

if [ -n "$HP_SHARED_KEY" ]; then
  sock="${HP_EXAPP_SOCK:-/tmp/exapp.sock}"
  conf=/tmp/frpc.toml
  {
    echo "serverAddr = \"${HP_FRP_ADDRESS}\""
    echo "serverPort = ${HP_FRP_PORT:-8782}"
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
  frpc -c "$conf" &
fi

exec hybridsearch serve
