/* Private: what the convolution and pooling front ends (src/linalg/conv.c,
 * pool.c) hand their kernels (src/cpu/conv.c). */

/* A sliding window over three spatial dims (fewer use leading size-1 dims):
 * output place o reads input places o * stride - pad + j * dil, j < k. */
typedef struct ct__window {
    int64_t in[3], out[3], k[3], stride[3], pad[3], dil[3];
} ct__window;

/* A sparse linear map applied to each of `planes` planes: output i of a
 * plane is sum over its taps t of w[t] * in[src[t]] (taps i * taps ..
 * (i + 1) * taps; src -1: outside, w NULL: weights 1). Pooling, padding,
 * interpolation and pixel shuffling are such maps; their backward is the
 * adjoint, whose backward is the map again. Shared by the nodes that use it. */
typedef struct ct__linmap {
    int refcount;
    const char *name, *adjoint_name; /* the node names of the map and of its adjoint */
    int64_t planes, n_in, n_out, taps;
    bool per_plane;  /* src holds a table per plane (max pooling's indices) */
    int64_t *src;    /* [per_plane ? planes : 1][n_out][taps] */
    double *w;       /* as src (never per plane), or NULL */
    ct_shape in_shape, out_shape;
} ct__linmap;
