/*
 * argoexec: the static launcher of the reference executor's bundle.
 *
 * It is /bin/argoexec in the executor image (and /argo-bin/bin/argoexec in the
 * init-less image volume, /var/run/argo/argoexec once `init` has copied it),
 * the first code that runs in every container that runs argoexec. Built with
 * `gcc -static` by reference_impl/images/bundling.py, which explains the
 * choice and the measurements behind it.
 *
 * 1. Block every signal that can be blocked, as the first instructions of the
 *    process (`launcher_entry`, the ELF entry point, before the C library's
 *    own start-up). A blocked signal stays pending across execve, so a SIGTERM
 *    that arrives while the interpreter starts is neither fatal nor dropped
 *    (PID 1 drops a signal it neither catches nor blocks); the executor
 *    unblocks once its handlers exist (reference_impl/executor/launching.py).
 *    Synchronous faults stay unblocked: blocking them would only hide a crash.
 *    What remains is the kernel's own: a signal that arrives while execve is
 *    still loading this file meets the default disposition, as it would for
 *    any program (upstream's Go argoexec installs its handlers later still).
 * 2. Find the bundle beside this file: <this file>.bundle/ (via /proc/self/exe).
 * 3. Exec the bundle's own loader on the bundle's own interpreter:
 *      B/lib/ld-linux-x86-64.so.2 --library-path B/lib --argv0 B/bin/python3
 *        B/bin/python3 -I -S -B -m reference_impl.executor <launch args> <argv[1:]>
 *    so nothing of the image (its libc, its Python) is used. Launch args tell
 *    the executor where the launcher is and how to give back the environment
 *    it had: LC_CTYPE (Python's locale coercion sets it, PEP 538) and the
 *    loader variables moved out of the way here (the image's LD_PRELOAD or
 *    LD_AUDIT would be loaded into our interpreter).
 * On failure it writes the reason to stderr and /dev/termination-log and exits
 * 64, the emissary's error code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define EXIT_EMISSARY_ERROR 64
#define MAX_LAUNCH_ARGS 8

static const char *moved_variables[] = {"LD_PRELOAD", "LD_AUDIT"};

/* Signals 1..64 as the kernel's sigset: all but the synchronous faults. */
#define BIT(sig) (1UL << ((sig) - 1))
const unsigned long launcher_early_mask =
    ~(BIT(SIGSEGV) | BIT(SIGBUS) | BIT(SIGFPE) | BIT(SIGILL) | BIT(SIGABRT) |
      BIT(SIGTRAP) | BIT(SIGSYS));

/*
 * The entry point (gcc -Wl,-e,launcher_entry): rt_sigprocmask(SIG_BLOCK,
 * &launcher_early_mask, NULL, 8), then the C library's _start with the
 * registers the kernel gave (%rdx, the exit hook, is 0 for static programs).
 */
__asm__(
    ".text\n"
    ".globl launcher_entry\n"
    ".type launcher_entry, @function\n"
    "launcher_entry:\n"
    "    mov $14, %eax\n"
    "    xor %edi, %edi\n"
    "    lea launcher_early_mask(%rip), %rsi\n"
    "    xor %edx, %edx\n"
    "    mov $8, %r10d\n"
    "    syscall\n"
    "    xor %edx, %edx\n"
    "    jmp _start\n");

static void fail(const char *what, int err) {
    char message[PATH_MAX + 128];
    int n = snprintf(message, sizeof message, "argoexec launcher: %s: %s\n", what,
                     strerror(err));
    if (n < 0) {
        _exit(EXIT_EMISSARY_ERROR);
    }
    size_t len = (size_t)n < sizeof message ? (size_t)n : sizeof message - 1;
    (void)!write(STDERR_FILENO, message, len);
    int fd = open("/dev/termination-log", O_WRONLY | O_TRUNC | O_CLOEXEC);
    if (fd >= 0) {
        (void)!write(fd, message, len);
        close(fd);
    }
    _exit(EXIT_EMISSARY_ERROR);
}

static void check_signals_blocked(void) {
    sigset_t set;
    if (sigprocmask(SIG_BLOCK, NULL, &set) != 0 || !sigismember(&set, SIGTERM)) {
        fail("signals are not blocked (built without -Wl,-e,launcher_entry?)", EINVAL);
    }
}

static void own_path(const char *argv0, char *out) {
    ssize_t n = readlink("/proc/self/exe", out, PATH_MAX - 1);
    if (n > 0) {
        out[n] = '\0';
        return;
    }
    /* No /proc: argv[0] is an absolute path in every pod the controller builds. */
    if (strchr(argv0, '/') == NULL || realpath(argv0, out) == NULL) {
        fail("cannot find my own path (no /proc/self/exe)", errno ? errno : ENOENT);
    }
}

static char *joined(const char *a, const char *b) {
    char *out = NULL;
    if (asprintf(&out, "%s%s", a, b) < 0) {
        fail("out of memory", ENOMEM);
    }
    return out;
}

int main(int argc, char **argv) {
    check_signals_blocked();
    char self[PATH_MAX];
    own_path(argc > 0 ? argv[0] : "", self);
    char *bundle = joined(self, ".bundle");
    char *loader = joined(bundle, "/lib/ld-linux-x86-64.so.2");
    char *libs = joined(bundle, "/lib");
    char *python = joined(bundle, "/bin/python3");

    char **args = calloc((size_t)argc + 16 + MAX_LAUNCH_ARGS, sizeof *args);
    if (args == NULL) {
        fail("out of memory", ENOMEM);
    }
    size_t i = 0;
    const char *fixed[] = {loader, "--library-path", libs, "--argv0", python, python,
                           "-I", "-S", "-B", "-m", "reference_impl.executor"};
    for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++) {
        args[i++] = (char *)fixed[k];
    }
    args[i++] = joined("--wpc-launcher=", self);
    const char *ctype = getenv("LC_CTYPE");
    args[i++] = ctype ? joined("--wpc-env=LC_CTYPE=", ctype) : "--wpc-unset=LC_CTYPE";
    for (size_t k = 0; k < sizeof moved_variables / sizeof *moved_variables; k++) {
        const char *value = getenv(moved_variables[k]);
        if (value != NULL) {
            char *name = joined(moved_variables[k], "=");
            args[i++] = joined(joined("--wpc-env=", name), value);
            unsetenv(moved_variables[k]);
        }
    }
    args[i++] = "--wpc-end";
    for (int k = 1; k < argc; k++) {
        args[i++] = argv[k];
    }
    args[i] = NULL;
    execv(loader, args);
    fail(loader, errno);
    return EXIT_EMISSARY_ERROR;
}
