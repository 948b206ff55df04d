/* gmm-train's signal handlers (see train_signals.h). */
#include "app/train_signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "app/gmm_train_args.h"
#include "data/file_write.h"

static volatile sig_atomic_t stop_requested;

static void say(const char *msg, size_t len)
{
    ssize_t ignored = write(STDERR_FILENO, msg, len); /* async-signal-safe, as are unlink, _exit */
    (void)ignored;
}

static void on_signal_before_fit(int sig)
{
    (void)sig;
    file_write_remove_temporaries();
    static const char msg[] = "\ngmm-train: interrupted before the fit began; no model written\n";
    say(msg, sizeof msg - 1);
    _exit(EXIT_INTERRUPTED);
}

static void on_stop_signal(int sig)
{
    (void)sig;
    if (stop_requested) {
        file_write_remove_temporaries();
        _exit(EXIT_INTERRUPTED);
    }
    stop_requested = 1;
    static const char msg[] = "\ngmm-train: interrupted: stopping after the current EM iteration "
                              "and writing the model, or at once without one during the "
                              "initialisation (interrupt again to quit at once, writing "
                              "nothing)\n";
    say(msg, sizeof msg - 1);
}

static void install(void (*handler)(int), int with_sigterm)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time: the second waits for the first */
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    if (with_sigterm) {
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
    }
}

void train_signals_exit_at_once(void)
{
    signal(SIGPIPE, SIG_IGN);
    install(on_signal_before_fit, 1);
}

void train_signals_stop_gracefully(int with_sigterm)
{
    install(on_stop_signal, with_sigterm);
}

int train_stop_was_requested(void *user)
{
    (void)user;
    return stop_requested != 0;
}
