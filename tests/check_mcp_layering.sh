#!/bin/sh
# check_mcp_layering.sh HOST_DIR -- the MCP gateway (HOST_DIR/mcp) is built
# on the engine's public API alone, and the engine does not know it:
#   - nothing in mcp/ includes a path that leaves its folder (host/src/...);
#   - nothing in the engine (src/, the CLI aside) includes the gateway.
host=$1
status=0
if grep -rEn '#include[[:space:]]*"[^"]*\.\./' "$host/mcp"; then
  echo "FAIL: the gateway includes files outside host/mcp (use the public <toolgate/...> headers)"
  status=1
fi
if grep -rEn '#include[[:space:]]*[<"](toolgate/mcp/|[^">]*mcp/)' "$host/src" "$host/include" |
   grep -v "^$host/src/cli/"; then
  echo "FAIL: the engine includes the gateway (only the CLI may)"
  status=1
fi
[ $status -eq 0 ] && echo "ok: host/mcp uses the public API only; the engine does not include it"
exit $status
