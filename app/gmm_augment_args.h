/* gmm-augment's command line, parsed (gmm_augment_parse_args in app/augment_args.c), so that the
 * option parser can be driven by a fuzz harness (tests/fuzz/) as well as by main. */
#ifndef GMM_AUGMENT_ARGS_H
#define GMM_AUGMENT_ARGS_H

#include "data/augment.h"

typedef struct {
    const char *in_dir, *out_dir;
    long long count;            /* -n: images to write (1..IDX_MAX_ITEMS) */
    long long seed;             /* --seed */
    long long batch;            /* --batch: images per piece */
    int keep_originals;         /* 0 with --no-originals */
    int quiet;                  /* -q */
    const char *png;            /* --png FILE, or NULL: OUT_DIR/augment.png ("" none) */
    gmm_augment_params params;  /* --alpha, --sigma, --max-shift */
} gmm_augment_args;

/* Parses argv into args. Returns -1 when the program should go on, otherwise the exit code
 * (0 after --help, 1 after a usage error, with the message printed). */
int gmm_augment_parse_args(int argc, char **argv, gmm_augment_args *args);

/* -n against the image size of the set read (rows x cols): the set written must be one the IDX
 * reader takes (data/idx.h: at most IDX_MAX_DATA_BYTES bytes of images). Returns 0, or 1 (a
 * usage error) after a message naming the largest -n for that size. */
int gmm_augment_check_count(const gmm_augment_args *args, int rows, int cols);

#endif
