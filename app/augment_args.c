/* gmm-augment's options: the --help text, the parser that turns argv into gmm_augment_args
 * (app/gmm_augment_args.h) and the check of -n against the image size, apart from main so that
 * a fuzz harness drives the parser too. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "app/cli.h"
#include "app/gmm_augment_args.h"
#include "data/idx.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gmm-augment IN_DIR OUT_DIR -n N [options]\n"
            "\n"
            "Writes OUT_DIR/train-images-idx3-ubyte (and train-labels-idx1-ubyte when IN_DIR has\n"
            "labels): N images, image i made from training image i mod M of IN_DIR (M images)\n"
            "by a random elastic deformation (a uniform random displacement field smoothed by a\n"
            "Gaussian of width SIGMA and scaled by ALPHA, Simard et al. 2003) and a random shift\n"
            "of up to SHIFT pixels each way. The first M images are the originals, as in\n"
            "infiMNIST and MNIST8M. The same seed gives the same bytes. The test split of\n"
            "IN_DIR, if any, is copied (raw) so that gmm-predict finds it, and augment.png shows\n"
            "a few originals beside their deformations.\n"
            "\n"
            "options:\n"
            "  -n, --count N        images to write (1 .. 2147483647, and at most 2^33 bytes of\n"
            "                       images: 10956549 of 28 x 28; 8100000 is MNIST8M's size)\n"
            "  --seed S             random seed (default 0)\n"
            "  --alpha A            displacement scale in pixels (default 34; 0..1000)\n"
            "  --sigma S            smoothing width in pixels (default 4; 0.5..50)\n"
            "  --max-shift P        whole-pixel shift each way, 0..8 (default 1)\n"
            "  --no-originals       deform every image, the first M too\n"
            "  --batch B            images per piece (default 65536; 1..16777216): memory is\n"
            "                       about 2 x B x (image size + 1) bytes\n"
            "  --png FILE           the picture (default OUT_DIR/augment.png; '' writes none)\n"
            "  -q, --quiet          no progress lines\n"
            "  --version            print the program's version and exit\n"
            "  -h, --help           this help\n"
            "\n"
            "Exit codes: 0 done, 1 bad usage, 2 bad data or a failed write, 130 interrupted\n"
            "(no output file is left half written).\n");
}

enum { OPT_SEED = 256, OPT_ALPHA, OPT_SIGMA, OPT_SHIFT, OPT_NO_ORIGINALS, OPT_BATCH, OPT_PNG,
       OPT_VERSION };

/* The bounds data/augment.c's gmm_augment_params_check holds the parameters to. */
#define ALPHA_MAX 1000.0
#define SIGMA_MIN 0.5
#define SIGMA_MAX 50.0

int gmm_augment_parse_args(int argc, char **argv, gmm_augment_args *args)
{
    cli_program = "gmm-augment";
    gmm_augment_args a = {.batch = 65536, .keep_originals = 1};
    gmm_augment_params_default(&a.params);
    long long v;
    static const struct option longopts[] = {
        {"count", required_argument, 0, 'n'}, {"seed", required_argument, 0, OPT_SEED},
        {"alpha", required_argument, 0, OPT_ALPHA}, {"sigma", required_argument, 0, OPT_SIGMA},
        {"max-shift", required_argument, 0, OPT_SHIFT},
        {"no-originals", no_argument, 0, OPT_NO_ORIGINALS},
        {"batch", required_argument, 0, OPT_BATCH}, {"png", required_argument, 0, OPT_PNG},
        {"quiet", no_argument, 0, 'q'}, {"version", no_argument, 0, OPT_VERSION},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":n:qh", longopts, NULL)) != -1) {
        switch (c) {
        case 'n':
            /* the reader's count limit; the bytes' limit needs the image size (check_count) */
            if (cli_parse_int("-n", optarg, INT64_MIN, INT64_MAX, &a.count)) return 1;
            if (a.count < 1 || a.count > IDX_MAX_ITEMS)
                return cli_error("-n must be between 1 and %d (the images an IDX file may "
                                 "hold), got %s", IDX_MAX_ITEMS, optarg);
            break;
        case OPT_SEED:
            if (cli_parse_int("--seed", optarg, 0, INT64_MAX, &a.seed)) return 1;
            break;
        case OPT_ALPHA:
            if (cli_parse_double_range("--alpha", optarg, 0.0, ALPHA_MAX, &a.params.alpha))
                return 1;
            break;
        case OPT_SIGMA:
            if (cli_parse_double_range("--sigma", optarg, SIGMA_MIN, SIGMA_MAX, &a.params.sigma))
                return 1;
            break;
        case OPT_SHIFT:
            if (cli_parse_int("--max-shift", optarg, 0, 8, &v)) return 1;
            a.params.max_shift = (int)v;
            break;
        case OPT_NO_ORIGINALS: a.keep_originals = 0; break;
        case OPT_BATCH:
            if (cli_parse_int("--batch", optarg, 1, 1 << 24, &a.batch)) return 1;
            break;
        case OPT_PNG: a.png = optarg; break;
        case 'q': a.quiet = 1; break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION: return cli_version();
        case ':': return cli_error("option %s needs a value (see --help)", argv[optind - 1]);
        default: return cli_error("unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (argc - optind != 2) {
        usage(stderr);
        if (argc - optind < 2) return cli_error("needs IN_DIR and OUT_DIR");
        return cli_error("unexpected argument '%s' (see --help)", argv[optind + 2]);
    }
    if (!a.count) return cli_error("-n N is required: the number of images to write");
    gmm_status st = gmm_augment_params_check(&a.params);
    if (st != GMM_OK) return cli_error("%s", gmm_error_message(st));
    a.in_dir = argv[optind];
    a.out_dir = argv[optind + 1];
    if (!*a.out_dir) return cli_error("OUT_DIR is empty");
    *args = a;
    return -1;
}

int gmm_augment_check_count(const gmm_augment_args *args, int rows, int cols)
{
    const uint64_t image_bytes = (uint64_t)rows * (uint64_t)cols;
    if (image_bytes == 0) return 0; /* the reader has refused such a set already */
    const uint64_t by_bytes = IDX_MAX_DATA_BYTES / image_bytes;
    const long long most = by_bytes < IDX_MAX_ITEMS ? (long long)by_bytes : IDX_MAX_ITEMS;
    if (args->count <= most) return 0;
    return cli_error("-n %lld: at most %lld images of %d x %d fit one IDX file that the reader "
                     "takes (2^33 bytes of images, fewer than 2^31 images)",
                     args->count, most, rows, cols);
}
