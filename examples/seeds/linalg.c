/* Seed 004 (matrix operations): products, transpose, inverse, trace, norm,
 * determinant, eigen decomposition, QR and SVD of small matrices. torch.eig, which the seed
 * calls, is gone from PyTorch 1.13; ct_linalg_eig (torch.linalg.eig) gives
 * the same numbers as its (real, imaginary) pairs, with LAPACK's phases
 * (each eigenvector's largest component real), which the example turns, as
 * linalg.py does, so that it is also positive, as the seed's output shows.
 * QR's signs are LAPACK's; singular vectors are unique only up to sign, so
 * the example prints their magnitudes. */
#define CTORCH_IMPLEMENTATION
#include "ctorch.h"

#include <math.h>
#include <stdio.h>

/* The eigenvectors v (n, n, 2), columns of (real, imaginary) pairs, each
 * divided by the phase of its largest component (the first of equal
 * magnitude), which makes that component real and positive. */
static ct_tensor *largest_component_positive(const ct_tensor *v)
{
    ct_tensor *w = ct_contiguous(ct_clone(v));
    float *p = (float *)ct_data_ptr(w);
    int64_t n = ct_size(w, 0);
    for (int64_t j = 0; j < n; j++) {
        int64_t k = 0;
        for (int64_t i = 1; i < n; i++)
            if (hypotf(p[(i * n + j) * 2], p[(i * n + j) * 2 + 1]) > hypotf(p[(k * n + j) * 2], p[(k * n + j) * 2 + 1]))
                k = i;
        float m = hypotf(p[(k * n + j) * 2], p[(k * n + j) * 2 + 1]);
        float cr = p[(k * n + j) * 2] / m, ci = -p[(k * n + j) * 2 + 1] / m; /* conj(phase) */
        for (int64_t i = 0; i < n; i++) {
            float re = p[(i * n + j) * 2], im = p[(i * n + j) * 2 + 1];
            p[(i * n + j) * 2] = re * cr - im * ci;
            p[(i * n + j) * 2 + 1] = re * ci + im * cr;
        }
    }
    return w;
}

int main(void)
{
    ct_scope s = ct_scope_begin();
    ct_tensor *ia = ct_from_array((int64_t[]){1, 2, 3, 4}, CT_SHAPE(2, 2), CT_I64); /* torch.tensor([[1, 2], [3, 4]]) */
    ct_tensor *ib = ct_from_array((int64_t[]){2, 0, 0, 2}, CT_SHAPE(2, 2), CT_I64); /* torch.tensor([[2, 0], [0, 2]]) */
    ct_print(ct_matmul(ia, ib));                                                   /* a @ b */
    ct_tensor *a = ct_from_array((float[]){1, 2, 3, 4}, CT_SHAPE(2, 2), CT_F32); /* torch.tensor([[1.0, 2], [3, 4]]) */
    ct_print(ct_t(a));                                                          /* a.t() */
    ct_print(ct_inverse(a));                                                    /* torch.inverse(a) */
    ct_print(ct_trace(a));                                                      /* torch.trace(a) */
    ct_print(ct_norm(a, 2));                                                    /* torch.norm(a) */
    ct_print(ct_linalg_det(a));                                                 /* torch.det(a) */

    ct_tensor *b = ct_from_array((float[]){1, 2, -5, 4}, CT_SHAPE(2, 2), CT_F32); /* torch.tensor([[1.0, 2], [-5, 4]]) */
    ct_tensor *values, *vectors;
    ct_linalg_eig(b, &values, &vectors); /* torch.linalg.eig(b), as view_as_real pairs */
    ct_print(values);
    ct_print(largest_component_positive(vectors));

    ct_tensor *q, *r;
    ct_qr(a, true, &q, &r); /* q, r = torch.qr(a) */
    ct_print(q);
    ct_print(r);
    ct_print(ct_matmul(q, r)); /* q @ r */

    ct_tensor *c = ct_from_array((float[]){1, 2, 3, 4, 5, 6}, CT_SHAPE(3, 2), CT_F32);
    ct_tensor *u, *sv, *v;
    ct_svd(c, true, &u, &sv, &v); /* u, s, v = torch.svd(c) */
    ct_print(sv);
    ct_print(ct_abs(u));
    ct_print(ct_abs(v));
    ct_print(ct_matmul(ct_matmul(u, ct_diag(sv, 0)), ct_t(v))); /* u @ torch.diag(s) @ v.t() */
    ct_print(ct_linalg_matrix_rank(c, false)); /* torch.linalg.matrix_rank(c) */
    ct_print(ct_linalg_svdvals(c));            /* torch.linalg.svdvals(c) */
    ct_scope_end(s);
    return 0;
}
