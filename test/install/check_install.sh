#!/usr/bin/env bash
# Installs hwagent into a fresh prefix, then builds examples/trainer as a
# user would: a separate CMake project with find_package(hwagent).
set -euo pipefail
build="$1"; source="$2"; work="$3"
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
cmake -S "$source/examples/trainer" -B "$work/trainer" -G Ninja \
  -Dhwagent_DIR="$work/prefix/lib/cmake/hwagent" \
  -DHWAGENT_OPT="$work/prefix/bin/hwagent-opt" > "$work/configure.log"
cmake --build "$work/trainer" > "$work/build.log"
/usr/bin/python3 "$source/scripts/digits.py" export --out "$work/digits" > /dev/null
"$work/trainer/bin/hwagent-digits-trainer" "$work/digits" 1
