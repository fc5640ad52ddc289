#!/usr/bin/env bash
# check_plugin_exports.sh PLUGIN.so... -- each plugin must export the entry
# symbol alone and carry no STB_GNU_UNIQUE symbol (either would keep it
# mapped after dlclose).  Fails naming the plugin and the symbol.
set -euo pipefail
status=0
for so in "$@"; do
  syms=$(readelf --dyn-syms -W "$so")
  # Defined (Ndx not UND), non-local dynamic symbols.
  exported=$(awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && $5 != "LOCAL" {print $8}' <<<"$syms" | sed 's/@.*//' | sort -u)
  if [ "$exported" != "toolgate_plugin_entry" ]; then
    echo "FAIL $so exports: $(echo $exported)" >&2
    status=1
  fi
  if readelf --syms -W "$so" | awk '{print $5}' | grep -qx UNIQUE; then
    echo "FAIL $so has UNIQUE symbols:" >&2
    readelf --syms -W "$so" | awk '$5 == "UNIQUE"' >&2
    status=1
  fi
  [ $status -eq 0 ] && echo "ok   $so"
done
exit $status
