# Shared by scripts/run and scripts/test: install and start what Chess Gold needs.
# Source it; it defines functions only.

cg_log() { printf '\033[1;33m==>\033[0m %s\n' "$*" >&2; }

cg_apt_updated=""
# Installs Debian packages that are missing (as root, or with sudo when available).
cg_apt_install() {
  local sudo=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null; then sudo="sudo"; else
      cg_log "missing packages: $*; install them (needs root)"; return 1
    fi
  fi
  if [ -z "$cg_apt_updated" ]; then
    cg_log "apt-get update"
    $sudo apt-get update -qq
    cg_apt_updated=1
  fi
  cg_log "installing $*"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

cg_pg_bin() {
  local d
  d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$d" ] && echo "$d"
}

# Whether a PostgreSQL answers on 127.0.0.1:$1 as user postgres without a password.
cg_pg_answers() {
  local port=$1
  command -v psql >/dev/null || return 1
  psql "postgres://postgres@127.0.0.1:${port}/postgres" -Atqc 'select 1' >/dev/null 2>&1
}

# Starts a private cluster in .local/pg on port $1 (created with trust auth when absent).
cg_private_cluster() {
  local port=$1 bin dir log
  bin=$(cg_pg_bin) || true
  if [ -z "$bin" ]; then
    cg_apt_install postgresql postgresql-client
    bin=$(cg_pg_bin)
  fi
  dir="$PWD/.local/pg"
  log="$PWD/.local/pg.log"
  mkdir -p "$PWD/.local"
  local as=()
  if [ "$(id -u)" = 0 ]; then
    # initdb refuses to run as root: the cluster belongs to the postgres system user.
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/bash postgres
    as=(runuser -u postgres --)
    mkdir -p "$dir" /var/run/postgresql
    chown postgres "$dir" /var/run/postgresql "$PWD/.local"
    touch "$log" && chown postgres "$log"
  fi
  if [ ! -f "$dir/PG_VERSION" ]; then
    cg_log "creating a private PostgreSQL cluster in .local/pg"
    "${as[@]}" "$bin/initdb" -D "$dir" -U postgres -A trust -E UTF8 >/dev/null
  fi
  cg_log "starting the private PostgreSQL cluster on 127.0.0.1:${port}"
  "${as[@]}" "$bin/pg_ctl" -D "$dir" -l "$log" -w -o "-p ${port} -k /tmp -c listen_addresses=127.0.0.1" start >/dev/null
}

# Makes sure a PostgreSQL answers on 127.0.0.1:5432: the machine's cluster, else a private one.
cg_ensure_postgres() {
  command -v psql >/dev/null || cg_apt_install postgresql-client
  if cg_pg_answers 5432; then return 0; fi
  if command -v pg_ctlcluster >/dev/null && [ -d /etc/postgresql ] && [ -n "$(ls /etc/postgresql 2>/dev/null)" ]; then
    local v
    v=$(ls /etc/postgresql | sort -V | tail -n 1)
    cg_log "starting the machine's PostgreSQL $v cluster"
    pg_ctlcluster --skip-systemctl-redirect "$v" main start 2>/dev/null || true
    for _ in $(seq 1 20); do cg_pg_answers 5432 && return 0; sleep 0.5; done
  fi
  if pg_isready -h 127.0.0.1 -p 5432 >/dev/null 2>&1; then
    cg_log "a PostgreSQL answers on 127.0.0.1:5432 but not to user postgres without a password;"
    cg_log "set DATABASE_URL to a URL that works, or allow trust auth for 127.0.0.1"
    return 1
  fi
  cg_private_cluster 5432
  for _ in $(seq 1 20); do cg_pg_answers 5432 && return 0; sleep 0.5; done
  cg_log "PostgreSQL did not come up (see .local/pg.log)"
  return 1
}

# Makes sure a Redis answers on 127.0.0.1:6379.
cg_ensure_redis() {
  command -v redis-server >/dev/null || cg_apt_install redis-server
  if [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = PONG ]; then return 0; fi
  cg_log "starting Redis on 127.0.0.1:6379"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no >/dev/null
  for _ in $(seq 1 20); do
    [ "$(redis-cli -h 127.0.0.1 -p 6379 ping 2>/dev/null)" = PONG ] && return 0
    sleep 0.25
  done
  cg_log "Redis did not come up"
  return 1
}
