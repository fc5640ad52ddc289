/* mcp_echo_server.c -- the smallest MCP server over stdio, for measuring
 * what the gateway adds to a tools/call: answers initialize, tools/list
 * (one tool, "echo"), tools/call and ping, one JSON-RPC message per line.
 * Not a JSON parser: it finds the method and copies the id token, which is
 * enough for the well-formed messages the benchmark and the gateway send. */
#include <stdio.h>
#include <string.h>

static char line[1 << 20];

/* Copies the value of the first "id" member (a number or a string) into out. */
static int find_id(const char *msg, char *out, size_t cap) {
  const char *p = strstr(msg, "\"id\":");
  size_t n = 0;
  if (!p) return 0;
  p += 5;
  while (*p == ' ') ++p;
  if (*p == '"') {
    out[n++] = *p++;
    while (*p && *p != '"' && n + 2 < cap) out[n++] = *p++;
    out[n++] = '"';
  } else {
    while (*p && *p != ',' && *p != '}' && n + 1 < cap) out[n++] = *p++;
  }
  out[n] = 0;
  return 1;
}

static void reply(const char *id, const char *result) {
  printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n", id, result);
  fflush(stdout);
}

int main(void) {
  char id[256];
  while (fgets(line, sizeof line, stdin)) {
    if (!find_id(line, id, sizeof id)) continue; /* a notification */
    if (strstr(line, "\"method\":\"initialize\""))
      reply(id,
            "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{\"tools\":{}},"
            "\"serverInfo\":{\"name\":\"bench-echo\",\"version\":\"1.0.0\"}}");
    else if (strstr(line, "\"method\":\"tools/list\""))
      reply(id,
            "{\"tools\":[{\"name\":\"echo\",\"description\":\"echoes\","
            "\"inputSchema\":{\"type\":\"object\"}}]}");
    else if (strstr(line, "\"method\":\"tools/call\""))
      reply(id, "{\"content\":[{\"type\":\"text\",\"text\":\"echo\"}],\"isError\":false}");
    else if (strstr(line, "\"method\":"))
      printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{}}\n", id), fflush(stdout);
  }
  return 0;
}
