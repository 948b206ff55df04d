/* When a CPU loop of the kernel layer and the CPU backend is worth OpenMP's team of threads.
 *
 * libgomp's idle threads spin (up to GOMP_SPINCOUNT, about 300000 pause instructions, several
 * milliseconds) after each parallel region before they sleep, and OpenBLAS's pthreads pool
 * spins on sched_yield after each threaded call. On a machine with few cores a loop that wakes
 * the team for microseconds of work leaves a spinning thread on a core that the calling thread,
 * OpenBLAS's threads or other processes need next: a 2000 x 20, K = 3 fit took 5-10 times as long
 * as on one thread. Below GMM_PARALLEL_MIN_WORK the loops run on the calling thread alone, so a
 * small fit or scoring call never wakes the team; large ones still use every thread. The work
 * is counted in about one floating-point operation (or one element touched) per unit.
 *
 * Every loop that takes this clause computes each output element on one thread in a fixed
 * order, so the thread count changes no result. Use in a pragma:
 *   #pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(n_rows * K * d)) */
#ifndef GMM_KERNELS_PARALLEL_H
#define GMM_KERNELS_PARALLEL_H

/* about half a millisecond of one core's work: below it the team's wake-up and the spinning
 * that follows cost more than the second thread saves (measured with bench/sklearn_small.py
 * against 2e5 and 4e6; see bench/results/2026-11-26-small-fits.md) */
#define GMM_PARALLEL_MIN_WORK 1000000.0

#define GMM_PARALLEL_WORTH(work) ((double)(work) >= GMM_PARALLEL_MIN_WORK)

#endif
