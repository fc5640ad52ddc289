/* stdio_relay.c -- the floor of any process between an MCP client and a
 * stdio server: it starts the server and copies bytes both ways, parsing
 * nothing.  The MCP benchmark (mcp_sdk_latency.mjs) runs it beside the
 * gateway, so "what the gateway adds" can be read against "what any relay
 * adds" on the same machine in the same run.
 *
 * usage: toolgate_stdio_relay SERVER [ARG...] */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

struct copy {
  int from, to;
};

static void *copy_bytes(void *arg) {
  const struct copy *c = arg;
  char buf[65536];
  for (;;) {
    ssize_t n = read(c->from, buf, sizeof buf);
    if (n <= 0) break;
    for (ssize_t off = 0; off < n;) {
      ssize_t w = write(c->to, buf + off, (size_t)(n - off));
      if (w <= 0) return NULL;
      off += w;
    }
  }
  close(c->to);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: toolgate_stdio_relay SERVER [ARG...]\n");
    return 2;
  }
  int to_server[2], from_server[2];
  if (pipe(to_server) || pipe(from_server)) return perror("pipe"), 1;
  signal(SIGPIPE, SIG_IGN);
  pid_t pid = fork();
  if (pid < 0) return perror("fork"), 1;
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(to_server[0], 0);
    dup2(from_server[1], 1);
    close(to_server[1]);
    close(from_server[0]);
    execvp(argv[1], argv + 1);
    perror("exec");
    _exit(127);
  }
  close(to_server[0]);
  close(from_server[1]);
  struct copy up = {0, to_server[1]}, down = {from_server[0], 1};
  pthread_t t;
  if (pthread_create(&t, NULL, copy_bytes, &down)) return 1;
  copy_bytes(&up); /* the client closed: so does the server's stdin */
  int status;
  waitpid(pid, &status, 0);
  pthread_join(t, NULL);
  return 0;
}
