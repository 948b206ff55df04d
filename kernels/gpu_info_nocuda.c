/* Stand-ins for gpu_info.h in a build without CUDA: no GPU. */
#include "kernels/gpu_info.h"

int gmm_cuda_built(void) { return 0; }
int gmm_gpu_count(void) { return 0; }
void gmm_cuda_start_context(void) {}
int gmm_gpu_describe(char *name, size_t name_len, size_t *free_bytes, size_t *total_bytes)
{
    (void)name; (void)name_len; (void)free_bytes; (void)total_bytes;
    return -1;
}
void gmm_cuda_set_sync_debug(int on) { (void)on; }
void gmm_cuda_release(void) {}
