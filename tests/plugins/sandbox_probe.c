/* sandbox_probe.c -- not a plugin: a shared object whose constructor tries
 * what native code inside Code Mode's sandbox could use to hold host memory
 * no rlimit counts, and writes what happened to /tmp/sandbox-probe.txt.
 * A script that escaped the vm writes it to the sandbox's /tmp and loads it
 * with process.dlopen (tests/unit/code_mode_test.cpp). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <sys/ipc.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static int error_of(long rc) { return rc < 0 ? errno : 0; }

__attribute__((constructor)) static void probe(void) {
  unsigned char io_uring_params[120] = {0};
  struct rlimit nofile = {0, 0};
  int memfd = error_of(syscall(SYS_memfd_create, "probe", 0));
  int shm = error_of(syscall(SYS_shmget, IPC_PRIVATE, 4096, IPC_CREAT | 0600));
  int io_uring = error_of(syscall(SYS_io_uring_setup, 1, io_uring_params));
  FILE *out = fopen("/tmp/sandbox-probe.txt", "w");
  getrlimit(RLIMIT_NOFILE, &nofile);
  if (!out) return;
  fprintf(out, "memfd_create=%d shmget=%d io_uring_setup=%d nofile=%llu", memfd, shm, io_uring,
          (unsigned long long)nofile.rlim_cur);
  fclose(out);
}
