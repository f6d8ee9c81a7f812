#!/bin/sh
# SPDX-License-Identifier: MIT
# contrib/rdmapush.service, run by `make check`: systemd accepts the unit
# (systemd-analyze verify, with ExecStart pointed at the binary just
# built), a misspelt copy is rejected (so the check can fail), and the
# receiver accepts the unit's command line: run with a real key and
# directory it gets past option and key parsing (exit 4 for no RDMA
# device on a host without one, or still listening after 3 s on a host
# with one; never 2, a usage or key-file error).
#
# usage: tests/contrib.sh   (from make check; srcdir and the built
# ./rdmapush in the current directory)

top=${srcdir:-$(dirname "$0")/..}
unit=$top/contrib/rdmapush.service
bin=$(pwd)/rdmapush
tmp=$(mktemp -d /tmp/rdmapush-contrib.XXXXXX) || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

[ -f "$unit" ] && [ -x "$bin" ] || { echo "contrib: $unit or $bin missing" >&2; exit 99; }
if ! command -v systemd-analyze >/dev/null; then
	echo "contrib: FAIL systemd-analyze not found (Debian package systemd)"
	exit 1
fi

# The unit as installed, but with paths of this build and this test.
sed -e "s#/usr/local/bin/rdmapush#$bin#" \
    -e "s#/srv/rdmapush#$tmp/in#g" \
    -e "s#/etc/rdmapush/key#$tmp/key#g" "$unit" >"$tmp/rdmapush.service"
if systemd-analyze verify --man=no "$tmp/rdmapush.service" >"$tmp/verify" 2>&1; then
	echo "contrib: ok systemd-analyze verify accepts the unit"
else
	echo "contrib: FAIL systemd-analyze verify:"; cat "$tmp/verify"; fail=1
fi
sed 's/^Restart=/Retsart=/' "$tmp/rdmapush.service" >"$tmp/bad.service"
if systemd-analyze verify --man=no "$tmp/bad.service" 2>&1 | grep -q Retsart; then
	echo "contrib: ok a misspelt directive is reported"
else
	echo "contrib: FAIL a misspelt directive went unnoticed: the check cannot fail"; fail=1
fi

# The unit's command line, as the service would run it (another port).
mkdir "$tmp/in" && "$bin" keygen "$tmp/key" >/dev/null 2>&1 || exit 99
cmd=$(sed -n 's/^ExecStart=//p' "$tmp/rdmapush.service")
# shellcheck disable=SC2086 # the command line is split as systemd splits it
timeout 3 $cmd -p 18599 >"$tmp/out" 2>&1
rc=$?
case $rc in
4 | 124) echo "contrib: ok the unit's command line starts (exit $rc)" ;;
*) echo "contrib: FAIL the unit's command line: exit $rc:"; cat "$tmp/out"; fail=1 ;;
esac
exit $fail
