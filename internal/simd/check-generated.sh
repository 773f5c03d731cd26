#!/bin/sh
# Regenerates the assembly, stubs, dispatch and wrapper files of package
# simd and package kernels' SIMD registration, and fails if they differ
# from the checked-in ones. CI runs it.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
files="simd_amd64.s stubs_amd64.go accel_amd64.go accel_other.go wrappers.go ../../kernels/simd_gen.go"
saved() { echo "$tmp/$(echo "$1" | tr / _)"; }
for f in $files; do cp "$f" "$(saved "$f")"; done
go generate
status=0
for f in $files; do
	if ! cmp -s "$f" "$(saved "$f")"; then
		echo "internal/simd/$f is out of date: run go generate in internal/simd" >&2
		status=1
	fi
done
exit $status
