/* The model file's tagged sections (version 5 on): after the version-4 body and before the
 * CRC, a list of sections, each u32 tag, u32 zero, u64 length, then length bytes padded with
 * zeros to a multiple of 8; tag 0 (length 0) ends the list. A new kind of content is one more tag
 * here, not another fixed header field.
 *   tag 1, the UMAP space (models/features/umap_space.h): u32 neighbours k, u32 image dimension
 *          q, u64 images n, u32 dimensions d, u32 map dimensions (0 or 2), u32 epochs, u32
 *          storage (0: images, 1: values), u64 seed, f64 min_dist, spread, a, b; the training
 *          data, storage 0: u8 images[n x q], storage 1: f32 values[n x q], padded to 8; f32
 *          embedding[n x d]; f32 map[n x map dimensions]. (Files before the values were
 *          possible hold 0 there: their images read as before.)
 *   tag 2, the label matched to each component: u32 K, i32 label[K] (-1: none)
 *   tag 3, a variational model's priors and posterior (models/model.h's gmm_bayes): u32 weight
 *          prior type (0: Dirichlet process, 1: Dirichlet distribution), u32 K, u32 d, u32
 *          covariance type (both as the model's), f64 weight_concentration_prior,
 *          mean_precision_prior, degrees_of_freedom_prior, mean_prior[d], covariance_prior[C],
 *          weight_concentration[2K], mean_precision[K], degrees_of_freedom[K],
 *          log_weight_terms[K]
 * An unknown tag, a repeated one, a length that does not match its content or bytes after the
 * end tag are format errors. */
#ifndef GMM_MODEL_SECTIONS_H
#define GMM_MODEL_SECTIONS_H

#include <stddef.h>

#include "models/model.h"

/* The sections of model (those it has, then the end tag) in one new buffer (free it); none
 * (NULL, 0) when it has no UMAP space, matched labels or variational part: such a model is
 * written as a version-4 file, which older programs read too. */
gmm_status model_sections_encode(const gmm_model *model, unsigned char **bytes, size_t *n_bytes);
/* Reads the sections in bytes[0 .. n_bytes) into model (its K, dim and covariance type already
 * set): the UMAP space becomes model->space (GMM_ERR_FORMAT if it has one already), the matching
 * model->matched_label, the variational part model->bayes. path heads the messages. */
gmm_status model_sections_decode(const char *path, const unsigned char *bytes, size_t n_bytes,
                                 gmm_model *model);

#endif
