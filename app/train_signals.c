/* gmm-train's signal handlers (see train_signals.h). */
#include "app/train_signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
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

void train_signals_exit_at_once(void)
{
    cli_handle_stop_signals(on_signal_before_fit, 1);
}

/* Under mpirun: SIGTERM or SIGHUP is the launcher ending the job (another rank failed or died,
 * or the job was stopped); this rank's model is no use alone. */
static void on_launcher_end(int sig)
{
    (void)sig;
    file_write_remove_temporaries();
    static const char msg[] = "gmm-train: ended by mpirun (another rank failed or the job was "
                              "stopped); no model written by this rank\n";
    say(msg, sizeof msg - 1);
    _exit(EXIT_INTERRUPTED);
}

void train_signals_stop_gracefully(int with_sigterm)
{
    cli_handle_stop_signals(on_stop_signal, with_sigterm);
    if (!with_sigterm) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_launcher_end;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
    }
}

int train_stop_was_requested(void *user)
{
    (void)user;
    return stop_requested != 0;
}
