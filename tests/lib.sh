#!/bin/sh
# SPDX-License-Identifier: MIT
# librdmapush as its users see it, run by `make check`:
#  1. examples/recv.c and examples/push.c, over the in-memory fabric in
#     one process (tests/lib/examples_mem): the files arrive (cmp), and
#     rp_recv_stop() from a signal handler ends a receiver;
#  2. `make install DESTDIR=...`, then the examples built against that
#     install through pkg-config, as a program outside the tree is, and
#     run against the installed librdmapush.so; the installed CLI runs;
#  3. the header's version macros are the library's rp_version();
#  4. no library source includes the CLI's options header.
# Needs from make: srcdir, MAKE, CC, CFLAGS, LDFLAGS, libdir, bindir,
# includedir.

top=${srcdir:-.}
fail=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rp-lib.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

ok() { echo "lib: ok: $*"; }
bad() { echo "lib: FAIL: $*"; fail=1; }

# 1. The examples, one process, in-memory fabric.
mkdir -p "$tmp/src/tree" "$tmp/out" "$tmp/out2" "$tmp/out3"
head -c 3000000 /dev/urandom >"$tmp/src/big" || exit 99
printf 'hello\n' >"$tmp/src/small"
if timeout -s KILL 60 ./tests/lib/examples_mem "$tmp/out" "$tmp/src/big" "$tmp/src/small" \
	>"$tmp/mem.log" 2>&1 &&
	cmp "$tmp/src/big" "$tmp/out/big" && cmp "$tmp/src/small" "$tmp/out/small" &&
	grep -q '^big 3000000 ok$' "$tmp/mem.log"; then
	ok "examples push two files into recv -1 (cmp, entries listed)"
else
	bad "examples over the in-memory fabric:"; cat "$tmp/mem.log"
fi
# A failed entry comes back as such: the receiver refuses to replace.
if timeout -s KILL 60 ./tests/lib/examples_mem "$tmp/out" "$tmp/src/small" >"$tmp/exist.log" 2>&1; then
	bad "a push over an existing file succeeded"; cat "$tmp/exist.log"
elif grep -q '^small 0 file exists' "$tmp/exist.log"; then
	ok "an entry the receiver refuses is listed with its error"
else
	bad "refused entry:"; cat "$tmp/exist.log"
fi
t0=$(date +%s)
if timeout -s KILL 20 ./tests/lib/examples_mem --stop "$tmp/out2" >"$tmp/stop.log" 2>&1 &&
	[ $(($(date +%s) - t0)) -lt 10 ]; then
	ok "rp_recv_stop() from a signal handler ends rp_recv_run()"
else
	bad "recv -t 1:"; cat "$tmp/stop.log"
fi

# 2. Installed, built through pkg-config, run.
dest=$tmp/inst
if ! ${MAKE:-make} install DESTDIR="$dest" >"$tmp/install.log" 2>&1; then
	bad "make install DESTDIR"; tail -20 "$tmp/install.log"
	exit 1
fi
export PKG_CONFIG_PATH="$dest$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
flags=$(pkg-config --cflags --libs rdmapush) || bad "pkg-config rdmapush"
for ex in push recv; do
	# shellcheck disable=SC2086 # flags are words
	# The build's own CFLAGS and LDFLAGS (empty by default; the
	# sanitizers' under scripts/sanitize, which the program must share).
	if ${CC:-cc} ${CFLAGS:-} -Wall -Werror -o "$tmp/$ex" \
		"$top/examples/$ex.c" $flags ${LDFLAGS:-} 2>"$tmp/$ex.cc"; then
		ok "examples/$ex.c builds with pkg-config's flags ($flags)"
	else
		bad "examples/$ex.c against the install:"; cat "$tmp/$ex.cc"
		continue
	fi
	LD_LIBRARY_PATH="$dest$libdir" "$tmp/$ex" >"$tmp/$ex.out" 2>&1
	rc=$?
	if [ $rc = 2 ] && grep -q "librdmapush $PACKAGE_VERSION)" "$tmp/$ex.out" &&
		LD_LIBRARY_PATH="$dest$libdir" ldd "$tmp/$ex" | grep -q "$dest$libdir/librdmapush.so"; then
		ok "$ex runs on the installed librdmapush.so ($(cat "$tmp/$ex.out" | sed 's/.*(//;s/)//'))"
	else
		bad "$ex against the install: status $rc"; cat "$tmp/$ex.out"
	fi
done
v=$(LD_LIBRARY_PATH="$dest$libdir" "$dest$bindir/rdmapush" --version 2>&1)
if [ "$v" = "rdmapush $PACKAGE_VERSION" ]; then
	ok "the installed rdmapush runs ($v)"
else
	bad "installed rdmapush --version: $v"
fi
for f in "$dest$includedir/rdmapush.h" "$dest$libdir/librdmapush.so"; do
	[ -e "$f" ] || bad "not installed: ${f#"$dest"}"
done
[ -e "$dest$includedir/rdmapush/opts.h" ] && bad "an internal header is installed"

# 3. The header's version is the package's.
hv=$(awk '/#define RDMAPUSH_VERSION_(MAJOR|MINOR|PATCH)/ { v = v sep $3; sep = "." }
	END { print v }' "$top/include/rdmapush.h")
if [ "$hv" = "$PACKAGE_VERSION" ]; then
	ok "RDMAPUSH_VERSION_* say $hv, as the package"
else
	bad "rdmapush.h says $hv, the package $PACKAGE_VERSION"
fi

# 4. The library reads struct rp_config, never the CLI's options.
n=0
for f in "$top"/src/*.c "$top"/src/*.h "$top"/include/rdmapush/*.h; do
	case ${f##*/} in main.c | opts*.c | opts_int.h | opts.h) continue ;; esac
	n=$((n + 1))
	if grep -q '#include "rdmapush/opts.h"' "$f"; then
		bad "${f#"$top"/} includes the CLI's rdmapush/opts.h"
	fi
done
ok "no library file of $n includes rdmapush/opts.h"

[ $fail = 0 ] || { echo "lib: FAILED"; exit 1; }
echo "lib: passed"
