/* hook_process.c -- the comparison point: a compiled hook program spawned
 * per call, as command hooks in agent CLIs work.  Reads the call as JSON on
 * stdin, prints a decision. */
#include <stdio.h>
#include <string.h>

int main(void) {
  char buf[1 << 16];
  size_t n = fread(buf, 1, sizeof buf - 1, stdin);
  buf[n] = 0;
  fputs(strstr(buf, "\"rm -rf") ? "{\"decision\":\"deny\"}\n" : "{\"decision\":\"allow\"}\n",
        stdout);
  return 0;
}
