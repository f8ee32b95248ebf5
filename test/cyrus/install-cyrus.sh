#!/usr/bin/env bash
# Installs Debian's Cyrus IMAP (3.6.1 on Debian 12) for the Cyrus scenario suite (issue 6).
# Idempotent: does nothing when /usr/lib/cyrus/bin/master is present. Needs root (CI is root).
# A temporary policy-rc.d keeps the packages' system services (cyrus-imapd, exim4) from starting:
# the tests run their own private instance and must never touch /etc/imapd.conf.
set -euo pipefail

if [ -x /usr/lib/cyrus/bin/master ] && [ -x /usr/lib/cyrus/bin/httpd ] && [ -x /usr/lib/cyrus/bin/imtest ] && command -v saslpasswd2 >/dev/null && command -v busybox >/dev/null; then
  echo "cyrus: already installed ($(dpkg-query -W -f='${Version}' cyrus-imapd 2>/dev/null || echo unknown))"
  exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
  echo "cyrus: installing needs root (run: sudo bash $0)" >&2
  exit 1
fi

policy=/usr/sbin/policy-rc.d
created_policy=0
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 0755 "$policy"
  created_policy=1
fi
cleanup() { if [ "$created_policy" = 1 ]; then rm -f "$policy"; fi; }
trap cleanup EXIT

export DEBIAN_FRONTEND=noninteractive
packages=(cyrus-imapd cyrus-caldav cyrus-admin cyrus-clients sasl2-bin busybox)
# Refresh the package lists only when needed: when apt cannot see the package (fresh containers
# have no lists), or when an install from stale lists fails. SKIP_APT_UPDATE=1: the caller (.ci/run)
# has just updated them.
updated=0
refresh() { apt-get update -qq; updated=1; }
if [ "${SKIP_APT_UPDATE:-0}" != 1 ] && ! apt-cache show cyrus-caldav >/dev/null 2>&1; then
  refresh
fi
if ! apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null; then
  [ "$updated" = 1 ] && exit 1
  refresh
  apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
fi

# The packages' own services stay stopped (policy-rc.d refused them); make sure none is running.
for svc in cyrus-imapd exim4; do
  if command -v service >/dev/null && service "$svc" status >/dev/null 2>&1; then
    service "$svc" stop >/dev/null 2>&1 || true
  fi
done

echo "cyrus: installed $(dpkg-query -W -f='${Version}' cyrus-imapd)"
