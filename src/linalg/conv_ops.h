/* Backend interface: what the convolution and pooling front ends (src/linalg/conv.c,
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

/* A convolution's parameters for nd (1 to 3) spatial dims. */
typedef struct ct__conv {
    int nd;
    bool transposed;
    int64_t groups;
    int64_t stride[3], pad[3], dil[3], out_pad[3];
} ct__conv;

/* One convolution kernel run on raw device pointers to contiguous data of
 * dtype (float32 or float64), window g being im2col's for one image:
 *   FORWARD      out (N, Cout, out...) = x (N, Cin, in...) convolved with
 *                w, plus b (Cout) unless NULL (conv->transposed: the
 *                transposed convolution)
 *   WEIGHT_GRAD  out (w's shape) = the weight's gradient of that
 *                convolution, from x and the output's gradient in w's slot
 *   BIAS_GRAD    out (Cout) = x (N, Cout, L) summed over N and L
 *   IM2COL       out (N, Cin * K, L) = F.unfold of x (N, Cin, H, W)
 *   COL2IM       out (N, Cin, H, W) = F.fold of x (N, Cin * K, L)
 * CT_OK, or an error (scratch memory) with the message set. */
typedef enum ct__conv_kind {
    CT__CONV_FORWARD,
    CT__CONV_WEIGHT_GRAD,
    CT__CONV_BIAS_GRAD,
    CT__CONV_IM2COL,
    CT__CONV_COL2IM
} ct__conv_kind;
typedef struct ct__conv_job {
    ct__conv_kind kind;
    const ct__conv *conv;
    const ct__window *g;
    ct_dtype dtype;
    int64_t N, Cin, Cout, L;
    const void *x, *w, *b;
    void *out;
} ct__conv_job;

/* One run of a sparse linear map m (whose tables live on the host) on raw
 * device pointers to contiguous data of dtype (float32 or float64):
 *   APPLY    out (m's output shape) = m(x); places no tap reaches get fill
 *   ADJOINT  out (m's input shape) = the adjoint of m applied to x
 *   ARGMAX   out (int64, m's output shape) = the input place of each
 *            window's largest element (max pooling's indices), values
 *            (dtype, m's output shape) = that element; inside,
 *            when not NULL, gives 2-D windows that all lie in the H x W
 *            image (sizes inside[0], strides inside[1]; OH x OW outputs). */
typedef enum ct__linmap_kind { CT__LINMAP_APPLY, CT__LINMAP_ADJOINT, CT__LINMAP_ARGMAX } ct__linmap_kind;
typedef struct ct__linmap_job {
    ct__linmap_kind kind;
    const ct__linmap *m;
    ct_dtype dtype;
    const void *x;
    void *out, *values;
    double fill;
    const int64_t (*inside)[2];
    int64_t H, W, OH, OW;
} ct__linmap_job;
