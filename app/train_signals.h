/* gmm-train's signals: before the fit an interrupt ends the program at once (there is nothing to
 * save yet); during the fit the first one asks it to stop and write the model so far, a second
 * ends it at once. Either way no partial file is left and the exit code is 130. */
#ifndef GMM_TRAIN_SIGNALS_H
#define GMM_TRAIN_SIGNALS_H

/* SIGINT, SIGTERM and SIGHUP end the program at once: every temporary file being written is
 * removed (data/file_write.h), "interrupted before the fit began; no model written" is said and
 * the exit code is 130. SIGPIPE is ignored: a write to a closed pipe is an error (EPIPE) that
 * leaves no file, not a silent death. For the start of the program, before the data is read. */
void train_signals_exit_at_once(void);

/* From the fit on: the first SIGINT, SIGTERM or SIGHUP asks the fit to stop (the library polls
 * train_stop_was_requested through options.should_stop, after every EM iteration and inside the
 * initialisations); the program writes the model so far and exits with 130. A second one exits
 * at once, first removing every temporary file a save may be writing, so that the previous model
 * stays. Under mpirun (with_sigterm 0) SIGINT only: Ctrl-C reaches every rank, which stop
 * together, while mpirun ends the other ranks of a failed one with SIGTERM: then the rank says
 * "ended by mpirun (another rank failed or the job was stopped)" and exits at once (130). */
void train_signals_stop_gracefully(int with_sigterm);

/* Nonzero once a stop was asked for (user unused: the options.should_stop form). */
int train_stop_was_requested(void *user);

#endif
