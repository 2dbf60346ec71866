/*
 * The pod sandbox's placeholder process, written for WPC.
 *
 * It holds the pod's namespaces open and reaps zombies, because it is PID 1
 * of the sandbox. SIGINT and SIGTERM end it cleanly. Behaviour follows what
 * the Kubernetes pause container is documented to do; the code is our own.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig) {
    (void)sig;
    _exit(0);
}

static void on_child(int sig) {
    (void)sig;
    while (waitpid(-1, NULL, WNOHANG) > 0) {
    }
}

int main(int argc, char **argv) {
    struct sigaction stop, child;
    if (argc > 1 && strcmp(argv[1], "-v") == 0) {
        puts("wpc-pause");
        return 0;
    }
    if (getpid() != 1) {
        fprintf(stderr, "warning: pause should be the first process\n");
    }
    memset(&stop, 0, sizeof(stop));
    stop.sa_handler = on_stop;
    memset(&child, 0, sizeof(child));
    child.sa_handler = on_child;
    child.sa_flags = SA_NOCLDSTOP;
    if (sigaction(SIGINT, &stop, NULL) < 0 || sigaction(SIGTERM, &stop, NULL) < 0 ||
        sigaction(SIGCHLD, &child, NULL) < 0) {
        perror("sigaction");
        return 1;
    }
    for (;;) {
        pause();
    }
    return 42;
}
