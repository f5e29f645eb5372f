/* Starts a bot of a language other than Python inside the sandbox (trusted code, static binary).

       /arena/launch UID RLIMITS AS_EXTRA_MB -- PROGRAM [ARG...]

   The native twin of launch.py: sets the rlimits (``AS=...,CPU=...``, see
   workers.sandbox.rlimit_spec; AS widened by AS_EXTRA_MB for runtimes that reserve much more
   address space than they use, such as the JVM and V8: the memory cgroup stays the hard cap),
   switches to the slot's unprivileged uid (when UID >= 0; bwrap left it only the capabilities to
   do that, and switching drops them), then execs PROGRAM. Compiled once per worker with the host's
   gcc (workers.sandbox.languages); about 1 ms where a Python launcher costs ten. */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static int fail(const char *what) {
    dprintf(2, "arena launcher: %s: %s\n", what, strerror(errno));
    return 1;
}

static int resource_of(const char *name) {
    static const struct { const char *name; int resource; } table[] = {
        {"AS", RLIMIT_AS}, {"CPU", RLIMIT_CPU}, {"FSIZE", RLIMIT_FSIZE}, {"NOFILE", RLIMIT_NOFILE},
        {"CORE", RLIMIT_CORE}, {"NPROC", RLIMIT_NPROC}, {"DATA", RLIMIT_DATA}, {"STACK", RLIMIT_STACK},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(name, table[i].name) == 0) return table[i].resource;
    return -1;
}

int main(int argc, char **argv) {
    if (argc < 6 || strcmp(argv[4], "--") != 0) {
        dprintf(2, "usage: %s UID RLIMITS AS_EXTRA_MB -- PROGRAM [ARG...]\n", argv[0]);
        return 2;
    }
    long uid = strtol(argv[1], NULL, 10);
    unsigned long long as_extra = strtoull(argv[3], NULL, 10) * 1024ULL * 1024ULL;
    char *spec = strdup(argv[2]);
    for (char *item = strtok(spec, ","); item; item = strtok(NULL, ",")) {
        char *equals = strchr(item, '=');
        if (!equals) continue;
        *equals = '\0';
        int resource = resource_of(item);
        if (resource < 0) {
            dprintf(2, "arena launcher: unknown rlimit %s\n", item);
            return 2;
        }
        rlim_t value = strtoull(equals + 1, NULL, 10);
        if (resource == RLIMIT_AS) value += as_extra;
        /* CPU: SIGXCPU at the soft limit, SIGKILL one second later (as launch.py). */
        struct rlimit limit = {value, resource == RLIMIT_CPU ? value + 1 : value};
        if (setrlimit(resource, &limit) != 0) return fail("setrlimit");
    }
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0 || setresgid(uid, uid, uid) != 0 || setresuid(uid, uid, uid) != 0)
            return fail("could not drop privileges");
        if (getuid() != (uid_t)uid || geteuid() != (uid_t)uid) {
            dprintf(2, "arena launcher: could not drop privileges\n");
            return 1;
        }
    }
    execv(argv[5], argv + 5);
    return fail(argv[5]);
}
