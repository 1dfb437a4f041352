#!/bin/sh
# Container entry point (under tini). It checks that the data directory is
# writable, then, behind HaRP (HP_SHARED_KEY set), keeps frpc running to
# tunnel HaRP's requests to the app's unix socket; then it runs the app in
# ExApp mode.
#
# HaRP installs its FRP client certificates (ca.crt, client.crt,
# client.key) into /certs/frp with "docker exec" after the container has
# started. frpc talks TLS once all three are there: until then it connects
# without TLS (HaRP with HP_FRP_DISABLE_TLS=true accepts that), and when
# they arrive frpc is restarted with TLS. frpc runs with loginFailExit =
# false, so it keeps retrying while HaRP is unreachable, and it is
# restarted if it exits anyway. Its admin API listens on 127.0.0.1 with a
# password made at each start, for the health check: the tunnel is up when
# frpc reports the app's proxy "running" (logged in to HaRP's frps).
#
# Environment for tests: FRPC_CONFIG (default /tmp/frpc.toml),
# FRPC_ADMIN_FILE (default /tmp/frpc-admin), FRPC_CERT_DIR (default
# /certs/frp), FRPC_RESTART_DELAY (seconds, default 2); FRPC_ADMIN_PORT
# (default APP_PORT + 10000) moves the admin API when that port is taken.
set -eu

data="${APP_PERSISTENT_STORAGE:-}"
if [ -n "$data" ]; then
  probe="$data/.start-write-test"
  # (in a subshell: a failed redirection of ":" would end the script)
  if ! { mkdir -p "$data" && (: > "$probe") && rm -f "$probe"; } 2>/dev/null; then
    owner=$(stat -c 'it belongs to %u:%g, mode %a' "$data" 2>/dev/null || echo "it does not exist and cannot be created")
    echo "start.sh: the data directory $data is not writable by the app's user (uid $(id -u), gid $(id -g)): $owner." >&2
    echo "start.sh: fix: use a named Docker volume (Docker gives it to the image's user), or give the host" \
      "folder you bind-mount to that user: chown -R $(id -u):$(id -g) <host folder>" >&2
    exit 1
  fi
fi

if [ -n "${HP_SHARED_KEY:-}" ]; then
  sock="${HP_EXAPP_SOCK:-/tmp/exapp.sock}"
  conf="${FRPC_CONFIG:-/tmp/frpc.toml}"
  admin="${FRPC_ADMIN_FILE:-/tmp/frpc-admin}"
  certs="${FRPC_CERT_DIR:-/certs/frp}"
  delay="${FRPC_RESTART_DELAY:-2}"
  : "${HP_FRP_ADDRESS:?HP_FRP_ADDRESS must be set behind HaRP}"
  : "${APP_ID:?APP_ID must be set}"
  : "${APP_PORT:?APP_PORT must be set}"
  admin_port="${FRPC_ADMIN_PORT:-$((APP_PORT + 10000))}"

  certs_present() {
    [ -s "$certs/ca.crt" ] && [ -s "$certs/client.crt" ] && [ -s "$certs/client.key" ]
  }

  # write_config writes the frpc configuration as HaRP's own ExApp start
  # script does (exapps_dev/start.sh), TLS when the certificates are there,
  # plus the admin API. It sets tls to true or false.
  write_config() {
    tls=false
    if certs_present; then tls=true; fi
    password=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
    umask 077 # both files hold secrets
    {
      echo "serverAddr = \"${HP_FRP_ADDRESS}\""
      echo "serverPort = ${HP_FRP_PORT:-8782}"
      echo "loginFailExit = false"
      echo ""
      if $tls; then
        echo "transport.tls.enable = true"
        echo "transport.tls.certFile = \"$certs/client.crt\""
        echo "transport.tls.keyFile = \"$certs/client.key\""
        echo "transport.tls.trustedCaFile = \"$certs/ca.crt\""
        echo "transport.tls.serverName = \"harp.nc\""
      else
        echo "transport.tls.enable = false"
      fi
      echo ""
      echo "metadatas.token = \"${HP_SHARED_KEY}\""
      echo ""
      echo "webServer.addr = \"127.0.0.1\""
      echo "webServer.port = ${admin_port}"
      echo "webServer.user = \"health\""
      echo "webServer.password = \"${password}\""
      echo ""
      echo "[[proxies]]"
      echo "remotePort = ${APP_PORT}"
      echo "type = \"tcp\""
      echo "name = \"${APP_ID}\""
      echo "[proxies.plugin]"
      echo "type = \"unix_domain_socket\""
      echo "unixPath = \"${sock}\""
    } > "$conf"
    echo "${admin_port} health:${password}" > "$admin"
    umask 022
  }

  (
    while :; do
      write_config
      if ! $tls; then
        echo "start.sh: no FRP certificates in $certs yet; frpc connects without TLS until HaRP installs them" >&2
      fi
      frpc -c "$conf" &
      pid=$!
      watcher=
      if ! $tls; then
        # Restart frpc with TLS as soon as HaRP has copied all three files.
        (
          while ! certs_present; do sleep 1; done
          sleep 1 # let the copy finish
          echo "start.sh: FRP certificates installed in $certs; restarting frpc with TLS" >&2
          kill "$pid" 2>/dev/null
        ) &
        watcher=$!
      fi
      status=0
      wait "$pid" || status=$?
      if [ -n "$watcher" ]; then kill "$watcher" 2>/dev/null || true; fi
      if ! $tls && certs_present; then continue; fi
      echo "start.sh: frpc exited with status $status; restarting it in ${delay}s" >&2
      sleep "$delay"
    done
  ) &
fi

exec hybridsearch serve
