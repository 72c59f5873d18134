/* The derivatives of the linear algebra ops (decomp.c), PyTorch's formulas
 * (torch/csrc/autograd/FunctionsManual.cpp) for real matrices, written with
 * ctorch's own differentiable ops so that they can be differentiated again.
 * Each ct__la_record_* records its op's node when an input requires grad;
 * false (its outputs discarded, the error set) when that failed: the op
 * must fail then, not return results without their history. */

/* ---------------------------------------------------------------- helpers */

/* The identity (n, n) in t's dtype. */
static ct_tensor *ct__la_eye_of(const ct_tensor *t, int64_t n) { return t ? ct_eye(n, n, t->dtype) : NULL; }

/* v (..., n) on the diagonal of (..., n, n) (torch.diag_embed). */
static ct_tensor *ct__diag_embed(const ct_tensor *v)
{
    return v ? ct_mul(ct_unsqueeze(v, -2), ct__la_eye_of(v, v->sizes[v->ndim - 1])) : NULL;
}

/* E[i][j] = v[j] - v[i] off the diagonal, 1 on it: the denominators of the
 * eigen and singular vector derivatives. */
static ct_tensor *ct__la_gaps(const ct_tensor *v)
{
    if (!v) return NULL;
    return ct_add(ct_sub(ct_unsqueeze(v, -2), ct_unsqueeze(v, -1)), ct__la_eye_of(v, v->sizes[v->ndim - 1]));
}

/* Whether every element of g is zero: the gradient of an output that got
 * none (where PyTorch passes an undefined tensor and takes a shorter formula). */
static bool ct__la_is_zero(const ct_tensor *g)
{
    ct_tensor *total;
    CT__UNRECORDED(total, ct_sum(ct_abs(g)));
    return total && ct_item(total) == 0;
}

/* Record a node of `type` over input A giving outputs out (n_out), saving
 * the tensors in save (n_save; is_out marks those that are outputs) and
 * iargs[0] = arg; false, the outputs discarded, when it could not be. */
static bool ct__la_record(const ct__node_type *type, const ct_tensor *const *in, int n_in, ct_tensor *const *out,
                          int n_out, const ct_tensor *const *save, const bool *is_out, int n_save, int64_t arg)
{
    for (int i = 0; i < n_out; i++)
        if (!out[i]) return true; /* the op failed already: nothing to record */
    ct__node *n = ct__record(type, in, n_in, out, n_out);
    for (int i = 0; n && i < n_save; i++) ct__save(n, save[i], is_out[i]);
    if (n) n->iargs[0] = arg;
    if (ct__recorded_ok(n, in, n_in)) return true;
    for (int i = 0; i < n_out; i++) ct__discard(out[i]);
    return false;
}

/* ---------------------------------------------------------------- inverse, determinants, solve */

CT__BACKWARD(linalg_inv) /* -Y^T g Y^T, Y = A^-1 */
{
    ct_tensor *Yt = ct__mT(CT__S(0));
    CT__GRAD(0, ct_neg(ct_matmul(Yt, ct_matmul(go[0], Yt))));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_inv = {"LinalgInvExBackward0", ct__bw_linalg_inv};

static bool ct__la_record_inv(ct_tensor *r, const ct_tensor *A)
{
    bool out = true;
    return ct__la_record(&ct__nt_linalg_inv, &A, 1, &r, 1, (const ct_tensor *const *)&r, &out, 1, 0);
}

/* g (...) times A^-T, g broadcast over each matrix. A^-T is inverted as
 * (A^T)^-1, from the LU factors of A^T that det and slogdet use: near a
 * singular matrix det A^-T then stays accurate, the tiny pivot cancelling. */
static ct_tensor *ct__la_times_inv_t(const ct_tensor *g, const ct_tensor *A)
{
    return ct_mul(ct_unsqueeze(ct_unsqueeze(g, -1), -1), ct_linalg_inv(ct__mT(A)));
}

/* The determinant's gradient comes in three forms, each for some of the
 * matrices of a batch (det, g: (batch...), A (batch..., n, n)). */
typedef ct_tensor *(*ct__det_grad_fn)(const ct_tensor *A, const ct_tensor *det, const ct_tensor *g);

/* g det A^-T: A invertible. */
static ct_tensor *ct__det_grad_regular(const ct_tensor *A, const ct_tensor *det, const ct_tensor *g)
{
    return ct__la_times_inv_t(ct_mul(g, det), A);
}

/* Zero: PyTorch's first-order gradient where det is exactly zero (its LU
 * solve, with zero pivots nudged to eps, of a zero right-hand side). */
static ct_tensor *ct__det_grad_zero(const ct_tensor *A, const ct_tensor *det, const ct_tensor *g)
{
    (void)det;
    (void)g;
    return ct_zeros_like(A, CT_DEFAULT);
}

/* For each k the product of v's (..., n) elements other than v[k], from
 * exclusive cumulative products from both ends: no division, so zeros are
 * safe (PyTorch's prod_safe_zeros_backward). */
static ct_tensor *ct__prod_of_others(const ct_tensor *v)
{
    int64_t k = v ? v->sizes[v->ndim - 1] : 0;
    if (k == 0) return v ? ct_ones_like(v, CT_DEFAULT) : NULL;
    ct_tensor *ones = ct_ones_like(ct_narrow(v, -1, 0, 1), CT_DEFAULT);
    ct_tensor *fw[2] = {ones, ct_narrow(v, -1, 0, k - 1)}, *bw[2] = {ones, ct_flip(ct_narrow(v, -1, 1, k - 1), CT_DIMS(-1))};
    if (!fw[0] || !fw[1] || !bw[1]) return NULL;
    ct_tensor *before = ct_cumprod(ct_cat(fw, 2, -1), -1, CT_DEFAULT);
    ct_tensor *after = ct_flip(ct_cumprod(ct_cat(bw, 2, -1), -1, CT_DEFAULT), CT_DIMS(-1));
    return ct_mul(before, after);
}

/* The cofactor matrix by SVD, defined for singular A: with A = U S Vh,
 * det A = det U det Vh prod S, so gA = U diag(g det U det Vh d prod S / dS) Vh. */
static ct_tensor *ct__det_grad_svd(const ct_tensor *A, const ct_tensor *det, const ct_tensor *g)
{
    ct_tensor *U, *S, *Vh;
    (void)det;
    if (ct_linalg_svd(A, false, &U, &S, &Vh) != CT_OK) return NULL;
    ct_tensor *alpha = ct_mul(ct_linalg_det(U), ct_linalg_det(Vh));
    ct_tensor *D = ct_mul(ct_unsqueeze(ct_mul(g, alpha), -1), ct__prod_of_others(S));
    return ct_matmul(ct_mul(U, ct_unsqueeze(D, -2)), Vh);
}

/* `special` for the matrices where mask (batch..., bool) holds, `regular`
 * for the others, each on its own matrices only (PyTorch's masked_fmap),
 * so that neither sees an input it is not defined at. */
static ct_tensor *ct__det_grad_masked(const ct_tensor *mask, ct__det_grad_fn special, ct__det_grad_fn regular,
                                      const ct_tensor *A, const ct_tensor *det, const ct_tensor *g)
{
    int64_t batch = mask ? ct_numel(mask) : 0, hits = 0, n = A->sizes[A->ndim - 1];
    bool *m = mask ? (bool *)CT_MALLOC((size_t)(batch > 0 ? batch : 1)) : NULL;
    if (mask && !m) CT__OOM();
    if (!m || ct_copy_to_array(mask, m, batch, CT_BOOL) != CT_OK) {
        CT_FREE(m);
        return NULL;
    }
    for (int64_t b = 0; b < batch; b++) hits += m[b];
    ct_tensor *r = NULL;
    if (hits == 0 || hits == batch) {
        r = (hits ? special : regular)(A, det, g);
    } else { /* mixed: matrix by matrix */
        ct_tensor *Af = ct_reshape(A, CT_SHAPE(batch, n, n)), *df = ct_reshape(det, CT_SHAPE(batch));
        ct_tensor *gf = ct_reshape(g, CT_SHAPE(batch));
        ct_tensor **parts = (ct_tensor **)CT_MALLOC((size_t)batch * sizeof *parts);
        if (!parts) CT__OOM();
        bool ok = parts && Af && df && gf;
        for (int64_t b = 0; ok && b < batch; b++)
            ok = (parts[b] = (m[b] ? special : regular)(ct_select(Af, 0, b), ct_select(df, 0, b),
                                                        ct_select(gf, 0, b))) != NULL;
        if (ok) r = ct_reshape_as(ct_stack(parts, (int)batch, 0), A);
        CT_FREE(parts);
    }
    CT_FREE(m);
    return r;
}

/* PyTorch's linalg_det_backward. A first-order gradient is g det A^-T,
 * zero where det is exactly zero; under create_graph, matrices with
 * |det| < 100 eps take the SVD form, which is the true cofactor matrix
 * there and differentiable again. */
CT__BACKWARD(linalg_det)
{
    ct_tensor *A = CT__S(0), *det = CT__S(1), *g = go[0], *mask;
    if (!A || !det) return ct_last_error_code();
    bool higher = ct__grad_mode(); /* the engine enables grad mode for create_graph */
    double eps = A->dtype == CT_F32 ? (double)FLT_EPSILON : DBL_EPSILON;
    CT__UNRECORDED(mask, higher ? ct_lt_scalar(ct_abs(det), ct_float(100 * eps)) : ct_eq_scalar(det, ct_float(0)));
    CT__GRAD(0, ct__det_grad_masked(mask, higher ? ct__det_grad_svd : ct__det_grad_zero, ct__det_grad_regular, A,
                                    det, g));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_det = {"LinalgDetBackward0", ct__bw_linalg_det};

/* Record type over A giving r, saving both (det and pinv). */
static bool ct__la_record_in_out(const ct__node_type *type, ct_tensor *r, const ct_tensor *A)
{
    const ct_tensor *save[2] = {A, r};
    bool out[2] = {false, true};
    return ct__la_record(type, &A, 1, &r, 1, save, out, 2, 0);
}

static bool ct__la_record_det(ct_tensor *r, const ct_tensor *A) { return ct__la_record_in_out(&ct__nt_linalg_det, r, A); }

CT__BACKWARD(linalg_slogdet) /* the sign has no gradient; g_logabs A^-T */
{
    CT__GRAD(0, ct__la_times_inv_t(go[1], CT__S(0)));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_slogdet = {"LinalgSlogdetBackward0", ct__bw_linalg_slogdet};

static bool ct__la_record_slogdet(ct_tensor *sign, ct_tensor *logabs, const ct_tensor *A)
{
    ct_tensor *out[2] = {sign, logabs};
    bool is_out = false;
    return ct__la_record(&ct__nt_linalg_slogdet, &A, 1, out, 2, &A, &is_out, 1, 0);
}

CT__BACKWARD(linalg_solve) /* gB = A^-T g, gA = -gB X^T; each summed to its input's shape */
{
    ct_tensor *A = CT__S(0), *X = CT__S(1), *g = go[0];
    if (n->iargs[0]) { /* B was a vector */
        X = ct_unsqueeze(X, -1);
        g = ct_unsqueeze(g, -1);
    }
    ct_tensor *gB = ct_linalg_solve(ct__mT(A), g);
    if (ct__needs_grad(n, 0)) {
        const ct__out_meta *m = ct__input_meta(n, 0);
        CT__GRAD(0, ct__sum_to_shape(ct_neg(ct_matmul(gB, ct__mT(X))), m->sizes, m->ndim));
    }
    if (ct__needs_grad(n, 1)) {
        const ct__out_meta *m = ct__input_meta(n, 1);
        CT__GRAD(1, ct__sum_to_shape(n->iargs[0] ? ct_squeeze_dim(gB, -1) : gB, m->sizes, m->ndim));
    }
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_solve = {"LinalgSolveExBackward0", ct__bw_linalg_solve};

static bool ct__la_record_solve(ct_tensor *X, const ct_tensor *A, const ct_tensor *B, bool vector)
{
    const ct_tensor *in[2] = {A, B}, *save[2] = {A, X};
    bool out[2] = {false, true};
    return ct__la_record(&ct__nt_linalg_solve, in, 2, &X, 1, save, out, 2, vector);
}

/* ---------------------------------------------------------------- Cholesky */

CT__BACKWARD(linalg_cholesky)
{
    /* phi = tril(L^T gL) with its diagonal halved; gA = sym(L^-T phi L^-1) */
    ct_tensor *L = CT__S(0), *gL = go[0];
    if (n->iargs[0]) { /* upper: U = L^T */
        L = ct__mT(L);
        gL = ct__mT(gL);
    }
    ct_tensor *phi = ct_matmul(ct__mT(L), gL), *Linv = ct_linalg_inv(L);
    if (!phi) return ct_last_error_code();
    phi = ct_sub(ct_tril(phi, 0), ct_mul_scalar(ct_mul(phi, ct__la_eye_of(phi, phi->sizes[phi->ndim - 1])), ct_float(0.5)));
    ct_tensor *gA = ct_matmul(ct_matmul(ct__mT(Linv), phi), Linv);
    CT__GRAD(0, ct_mul_scalar(ct_add(gA, ct__mT(gA)), ct_float(0.5)));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_cholesky = {"LinalgCholeskyExBackward0", ct__bw_linalg_cholesky};

static bool ct__la_record_cholesky(ct_tensor *r, const ct_tensor *A, bool upper)
{
    bool out = true;
    return ct__la_record(&ct__nt_linalg_cholesky, &A, 1, &r, 1, (const ct_tensor *const *)&r, &out, 1, upper);
}

/* ---------------------------------------------------------------- QR */

/* The QR backward for m >= n (Q (m, n), R (n, n)):
 * gA = (gQ + Q syminvadj(triu(gR R^T - Q^T gQ))) R^-T. */
static ct_tensor *ct__qr_backward_tall(const ct_tensor *gQ, const ct_tensor *gR, const ct_tensor *Q,
                                       const ct_tensor *R)
{
    ct_tensor *M = ct_sub(ct_matmul(gR, ct__mT(R)), ct_matmul(ct__mT(Q), gQ));
    if (!M) return NULL;
    ct_tensor *up = ct_triu(M, 0);
    ct_tensor *sym = ct_sub(ct_add(up, ct__mT(up)), ct_mul(M, ct__la_eye_of(M, M->sizes[M->ndim - 1])));
    return ct_matmul(ct_add(gQ, ct_matmul(Q, sym)), ct__mT(ct_linalg_inv(R)));
}

CT__BACKWARD(linalg_qr)
{
    ct_tensor *A = CT__S(0), *Q = CT__S(1), *R = CT__S(2), *gQ = go[0], *gR = go[1];
    if (!A || !Q || !R) return ct_last_error_code();
    int64_t m = A->sizes[A->ndim - 2], k = R->sizes[R->ndim - 2], cols = A->sizes[A->ndim - 1];
    if (n->iargs[0] == CT_QR_R)
        return ct__fail(CT_ERR_RUNTIME,
                        "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
                        "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
    if (n->iargs[0] == CT_QR_COMPLETE && m > cols)
        return ct__fail(CT_ERR_RUNTIME,
                        "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
    if (m >= cols) {
        CT__GRAD(0, ct__qr_backward_tall(gQ, gR, Q, R));
        return CT_OK;
    }
    /* A = [X | Y] with X = Q R1 square: Y's part moves into gQ */
    ct_tensor *R1 = ct_narrow(R, -1, 0, k), *gR1 = ct_narrow(gR, -1, 0, k), *gR2 = ct_narrow(gR, -1, k, cols - k);
    ct_tensor *Y = ct_narrow(A, -1, k, cols - k);
    ct_tensor *gX = ct__qr_backward_tall(ct_add(gQ, ct_matmul(Y, ct__mT(gR2))), gR1, Q, R1);
    ct_tensor *parts[2] = {gX, ct_matmul(Q, gR2)};
    CT__GRAD(0, parts[0] && parts[1] ? ct_cat(parts, 2, -1) : NULL);
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_qr = {"LinalgQrBackward0", ct__bw_linalg_qr};

static bool ct__la_record_qr(ct_tensor *Q, ct_tensor *R, const ct_tensor *A, ct_qr_mode mode)
{
    ct_tensor *out[2] = {Q, R};
    const ct_tensor *save[3] = {A, Q, R};
    bool is_out[3] = {false, true, true};
    return ct__la_record(&ct__nt_linalg_qr, &A, 1, out, 2, save, is_out, 3, mode);
}

/* ---------------------------------------------------------------- SVD */

/* PyTorch's svd_backward for distinct singular values: U (m, k), S (k),
 * Vh (k, n); only_s: no gradient reached U or Vh (svdvals). */
static ct_tensor *ct__svd_backward(const ct_tensor *gU, const ct_tensor *gS, const ct_tensor *gVh, const ct_tensor *U,
                                   const ct_tensor *S, const ct_tensor *Vh, bool only_s)
{
    if (!U || !S || !Vh) return NULL;
    int64_t m = U->sizes[U->ndim - 2], n = Vh->sizes[Vh->ndim - 1];
    if (only_s) /* U diag(gS) Vh */
        return ct_matmul(ct_mul(U, ct_unsqueeze(gS, -2)), Vh);
    ct_tensor *UtgU = ct_matmul(ct__mT(U), gU), *VhgV = ct_matmul(Vh, ct__mT(gVh));
    UtgU = ct_sub(UtgU, ct__mT(UtgU)); /* skew parts */
    VhgV = ct_sub(VhgV, ct__mT(VhgV));
    ct_tensor *E = ct__la_gaps(ct_mul(S, S));
    ct_tensor *gA = ct_div(ct_add(ct_mul(UtgU, ct_unsqueeze(S, -2)), ct_mul(ct_unsqueeze(S, -1), VhgV)), E);
    gA = ct_add(gA, ct__diag_embed(gS));
    if (m > n) { /* [U gA + (I - U U^T) gU S^-1] Vh */
        ct_tensor *gUSinv = ct_div(gU, ct_unsqueeze(S, -2));
        gA = ct_add(ct_matmul(U, gA), gUSinv);
        gA = ct_sub(gA, ct_matmul(U, ct_matmul(ct__mT(U), gUSinv)));
        return ct_matmul(gA, Vh);
    }
    if (m < n) { /* U [gA Vh + S^-1 gVh (I - V Vh)] */
        ct_tensor *SinvgVh = ct_div(gVh, ct_unsqueeze(S, -1));
        gA = ct_add(ct_matmul(gA, Vh), SinvgVh);
        gA = ct_sub(gA, ct_matmul(ct_matmul(SinvgVh, ct__mT(Vh)), Vh));
        return ct_matmul(U, gA);
    }
    return ct_matmul(U, ct_matmul(gA, Vh));
}

/* iargs[0]: full_matrices (U, Vh narrowed to k). svdvals records U and Vh
 * as outputs the caller never sees, so that a double backward reaches them. */
CT__BACKWARD(linalg_svd)
{
    ct_tensor *U = CT__S(0), *S = CT__S(1), *Vh = CT__S(2), *gU = go[0], *gVh = go[2];
    if (!U || !S || !Vh) return ct_last_error_code();
    if (n->iargs[0]) {
        int64_t k = S->sizes[S->ndim - 1];
        U = ct_narrow(U, -1, 0, k);
        Vh = ct_narrow(Vh, -2, 0, k);
        gU = ct_narrow(gU, -1, 0, k);
        gVh = ct_narrow(gVh, -2, 0, k);
    }
    bool only_s = ct__la_is_zero(gU) && ct__la_is_zero(gVh);
    CT__GRAD(0, ct__svd_backward(gU, go[1], gVh, U, S, Vh, only_s));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_svd = {"LinalgSvdBackward0", ct__bw_linalg_svd};

static bool ct__la_record_svd(ct_tensor *U, ct_tensor *S, ct_tensor *Vh, const ct_tensor *A, bool full)
{
    if (!U || !Vh) return true; /* computed only when A requires grad */
    ct_tensor *out[3] = {U, S, Vh};
    const ct_tensor *save[3] = {U, S, Vh};
    bool is_out[3] = {true, true, true};
    return ct__la_record(&ct__nt_linalg_svd, &A, 1, out, 3, save, is_out, 3, full);
}

/* ---------------------------------------------------------------- eigh */

/* V (skew(V^T gV) / 2E + diag(gL)) V^T. eigvalsh records V as an output
 * the caller never sees, so that a double backward reaches it. */
CT__BACKWARD(linalg_eigh)
{
    ct_tensor *L = CT__S(0), *V = CT__S(1), *gL = go[0];
    ct_tensor *inner = ct__diag_embed(gL);
    if (!ct__la_is_zero(go[1])) {
        ct_tensor *VtgV = ct_matmul(ct__mT(V), go[1]);
        VtgV = ct_mul_scalar(ct_sub(VtgV, ct__mT(VtgV)), ct_float(0.5));
        inner = ct_add(inner, ct_div(VtgV, ct__la_gaps(L)));
    }
    CT__GRAD(0, ct_matmul(V, ct_matmul(inner, ct__mT(V))));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_eigh = {"LinalgEighBackward0", ct__bw_linalg_eigh};

/* Record type (eigh's or eig's) over A giving eigenvalues L and vectors V,
 * saving both. */
static bool ct__la_record_eigen(const ct__node_type *type, ct_tensor *L, ct_tensor *V, const ct_tensor *A)
{
    if (!V) return true; /* computed only when A requires grad */
    ct_tensor *out[2] = {L, V};
    const ct_tensor *save[2] = {L, V};
    bool is_out[2] = {true, true};
    return ct__la_record(type, &A, 1, out, 2, save, is_out, 2, 0);
}

static bool ct__la_record_eigh(ct_tensor *L, ct_tensor *Q, const ct_tensor *A)
{
    return ct__la_record_eigen(&ct__nt_linalg_eigh, L, Q, A);
}

/* ---------------------------------------------------------------- pinv, trace, matrix_exp */

/* PyTorch's pinv_backward: the gradient at A of P = pinv(A) receiving g. */
static ct_tensor *ct__pinv_backward(const ct_tensor *g, const ct_tensor *P, const ct_tensor *A)
{
    if (!A || !P || !g) return NULL;
    ct_tensor *Pt = ct__mT(P), *gt = ct__mT(g), *gA;
    if (A->sizes[A->ndim - 2] <= A->sizes[A->ndim - 1]) {
        ct_tensor *K = ct_matmul(gt, P), *KPt = ct_matmul(K, Pt);
        gA = ct_add(ct_neg(ct__mT(ct_matmul(P, K))), KPt);
        gA = ct_sub(gA, ct_matmul(ct_matmul(A, P), KPt));
        gA = ct_add(gA, ct_matmul(ct_matmul(Pt, P), ct_sub(gt, ct_matmul(K, A))));
    } else {
        ct_tensor *K = ct_matmul(P, gt), *PtK = ct_matmul(Pt, K);
        gA = ct_add(ct_neg(ct__mT(ct_matmul(K, P))), PtK);
        gA = ct_sub(gA, ct_matmul(ct_matmul(PtK, P), A));
        gA = ct_add(gA, ct_matmul(ct_matmul(ct_sub(gt, ct_matmul(A, K)), P), Pt));
    }
    return gA;
}

CT__BACKWARD(linalg_pinv)
{
    CT__GRAD(0, ct__pinv_backward(go[0], CT__S(1), CT__S(0)));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_pinv = {"LinalgPinvBackward0", ct__bw_linalg_pinv};

static bool ct__la_record_pinv(ct_tensor *r, const ct_tensor *A) { return ct__la_record_in_out(&ct__nt_linalg_pinv, r, A); }

CT__BACKWARD(trace) /* g on the diagonal */
{
    const ct__out_meta *m = ct__input_meta(n, 0);
    CT__GRAD(0, ct_mul(ct_eye(m->sizes[0], m->sizes[1], go[0]->dtype), go[0]));
    return CT_OK;
}
static const ct__node_type ct__nt_trace = {"TraceBackward0", ct__bw_trace};

static bool ct__la_record_trace(ct_tensor *r, const ct_tensor *A)
{
    return ct__la_record(&ct__nt_trace, &A, 1, &r, 1, NULL, NULL, 0, 0);
}

CT__BACKWARD(linalg_matrix_exp) /* the top-right block of exp([[A^T, g], [0, A^T]]) */
{
    ct_tensor *At = ct__mT(CT__S(0)), *g = go[0];
    if (!At) return ct_last_error_code();
    int64_t k = At->sizes[At->ndim - 1];
    ct_tensor *top[2] = {At, g}, *bottom[2] = {ct_zeros_like(At, CT_DEFAULT), At};
    ct_tensor *rows[2] = {ct_cat(top, 2, -1), ct_cat(bottom, 2, -1)};
    ct_tensor *big = rows[0] && rows[1] ? ct_cat(rows, 2, -2) : NULL;
    CT__GRAD(0, ct_narrow(ct_narrow(ct_linalg_matrix_exp(big), -2, 0, k), -1, k, k));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_matrix_exp = {"LinalgMatrixExpBackward0", ct__bw_linalg_matrix_exp};

static bool ct__la_record_matrix_exp(ct_tensor *r, const ct_tensor *A)
{
    bool out = false;
    return ct__la_record(&ct__nt_linalg_matrix_exp, &A, 1, &r, 1, &A, &out, 1, 0);
}

/* ---------------------------------------------------------------- cross */

/* cross(other, g) and cross(g, input) along the same dim; the engine sums
 * each to its input's shape where the inputs broadcast. */
CT__BACKWARD(linalg_cross)
{
    int dim = (int)n->iargs[0];
    CT__GRAD(0, ct_linalg_cross(CT__S(1), go[0], dim));
    CT__GRAD(1, ct_linalg_cross(go[0], CT__S(0), dim));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_cross = {"LinalgCrossBackward0", ct__bw_linalg_cross};

static bool ct__la_record_cross(ct_tensor *r, const ct_tensor *input, const ct_tensor *other, int dim)
{
    const ct_tensor *in[2] = {input, other};
    const bool out[2] = {false, false};
    return ct__la_record(&ct__nt_linalg_cross, in, 2, &r, 1, in, out, 2, dim);
}

/* ---------------------------------------------------------------- eig */

/* A complex tensor as its real and imaginary parts: ctorch's (..., 2)
 * pairs split, or parts computed apart. */
typedef struct ct__cx {
    ct_tensor *re, *im;
} ct__cx;

static ct__cx ct__cx_of(const ct_tensor *pairs)
{
    ct__cx z = {pairs ? ct_select(pairs, -1, 0) : NULL, pairs ? ct_select(pairs, -1, 1) : NULL};
    return z;
}

/* a^H b for complex matrices a (..., k, m), b (..., k, n). */
static ct__cx ct__cx_hmm(ct__cx a, ct__cx b)
{
    ct_tensor *art = ct__mT(a.re), *ait = ct__mT(a.im);
    ct__cx z = {ct_add(ct_matmul(art, b.re), ct_matmul(ait, b.im)), ct_sub(ct_matmul(art, b.im), ct_matmul(ait, b.re))};
    return z;
}

/* a b^H for complex matrices a (..., m, k), b (..., n, k). */
static ct__cx ct__cx_mmh(ct__cx a, ct__cx b)
{
    ct_tensor *brt = ct__mT(b.re), *bit = ct__mT(b.im);
    ct__cx z = {ct_add(ct_matmul(a.re, brt), ct_matmul(a.im, bit)), ct_sub(ct_matmul(a.im, brt), ct_matmul(a.re, bit))};
    return z;
}

/* a / b element by element. */
static ct__cx ct__cx_div(ct__cx a, ct__cx b)
{
    ct_tensor *den = ct_add(ct_mul(b.re, b.re), ct_mul(b.im, b.im));
    ct__cx z = {ct_div(ct_add(ct_mul(a.re, b.re), ct_mul(a.im, b.im)), den),
                ct_div(ct_sub(ct_mul(a.im, b.re), ct_mul(a.re, b.im)), den)};
    return z;
}

/* Re(X) for X solving H X = R (H (..., n, n), R (..., n, k) complex), by
 * the real system [[Hr, -Hi], [Hi, Hr]] [Xr; Xi] = [Rr; Ri]. */
static ct_tensor *ct__cx_solve_re(ct__cx H, ct__cx R)
{
    ct_tensor *top[2] = {H.re, ct_neg(H.im)}, *bottom[2] = {H.im, H.re}, *rhs[2] = {R.re, R.im};
    if (!top[0] || !top[1] || !bottom[0] || !rhs[0] || !rhs[1]) return NULL;
    ct_tensor *rows[2] = {ct_cat(top, 2, -1), ct_cat(bottom, 2, -1)};
    ct_tensor *big = rows[0] && rows[1] ? ct_cat(rows, 2, -2) : NULL, *B = ct_cat(rhs, 2, -2);
    return ct_narrow(ct_linalg_solve(big, B), -2, 0, H.re->sizes[H.re->ndim - 1]);
}

/* Each eigenvector is fixed only up to a phase e^{i phi}; a loss that
 * depends on it leaves Im(diag(V^H gV)) nonzero (PyTorch's tolerance). */
static ct_result ct__eig_check_gauge(const ct_tensor *VhgV_im)
{
    ct_tensor *worst;
    CT__UNRECORDED(worst, ct_amax(ct_abs(ct_diagonal(VhgV_im, 0, -2, -1)), CT_SHAPE0, false));
    if (!worst) return ct_last_error_code();
    if (ct_numel(worst) && ct_item(worst) > 1e-2)
        return ct__fail(CT_ERR_RUNTIME,
                        "linalg_eig_backward: The eigenvectors in the complex case are specified up to multiplication "
                        "by e^{i phi}. The specified loss function depends on this quantity, so it is ill-defined.");
    return CT_OK;
}

/* (V^H gV - V^H V diag(Re diag(V^H gV))) / conj(E), E[i][j] = L[j] - L[i]
 * off the diagonal, 1 on it: the eigenvector part of the derivative. */
static ct__cx ct__eig_vector_part(ct__cx L, ct__cx V, ct__cx VhgV)
{
    ct_tensor *d = ct_unsqueeze(ct_diagonal(VhgV.re, 0, -2, -1), -2);
    ct__cx VhV = ct__cx_hmm(V, V);
    ct__cx M = {ct_sub(VhgV.re, ct_mul(VhV.re, d)), ct_sub(VhgV.im, ct_mul(VhV.im, d))};
    ct__cx Econj = {ct__la_gaps(L.re), ct_sub(ct_unsqueeze(L.im, -1), ct_unsqueeze(L.im, -2))};
    return ct__cx_div(M, Econj);
}

/* PyTorch's linalg_eig_backward for a real input: the real part of
 * V^-H (diag(gL) + vector part) V^H. The outputs are (re, im) pairs, whose
 * gradients are gL = dl/dRe + i dl/dIm as view_as_real hands them on.
 * eigvals records V as an output the caller never sees. */
CT__BACKWARD(linalg_eig)
{
    ct__cx L = ct__cx_of(CT__S(0)), V = ct__cx_of(CT__S(1)), gL = ct__cx_of(go[0]);
    if (!L.re || !V.re || !gL.re) return ct_last_error_code();
    ct__cx G = {ct__diag_embed(gL.re), ct__diag_embed(gL.im)};
    if (!ct__la_is_zero(go[1])) {
        ct__cx VhgV = ct__cx_hmm(V, ct__cx_of(go[1]));
        if (!VhgV.im) return ct_last_error_code();
        if (ct__eig_check_gauge(VhgV.im) != CT_OK) return ct_last_error_code();
        ct__cx P = ct__eig_vector_part(L, V, VhgV);
        G.re = ct_add(G.re, P.re);
        G.im = ct_add(G.im, P.im);
    }
    ct__cx Vh = {ct__mT(V.re), ct_neg(ct__mT(V.im))};
    CT__GRAD(0, ct__cx_solve_re(Vh, ct__cx_mmh(G, V)));
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_eig = {"LinalgEigBackward0", ct__bw_linalg_eig};

static bool ct__la_record_eig(ct_tensor *L, ct_tensor *V, const ct_tensor *A)
{
    return ct__la_record_eigen(&ct__nt_linalg_eig, L, V, A);
}

/* ---------------------------------------------------------------- lstsq */

/* PyTorch's linalg_lstsq_backward (X = pinv(A) B): gA by pinv's derivative
 * receiving gX B^T, gB = pinv(A)^T gX; each summed to its input's shape.
 * iargs[0]: B was a vector. */
CT__BACKWARD(linalg_lstsq)
{
    ct_tensor *A = CT__S(0), *B = CT__S(1), *gX = go[0];
    if (n->iargs[0]) {
        B = ct_unsqueeze(B, -1);
        gX = ct_unsqueeze(gX, -1);
    }
    ct_tensor *P = ct_linalg_pinv(A, false), *gA = NULL, *gB = NULL;
    if (ct__needs_grad(n, 0) && !(gA = ct__pinv_backward(ct_matmul(gX, ct__mT(B)), P, A)))
        return ct_last_error_code();
    if (ct__needs_grad(n, 1) && !(gB = ct_matmul(ct__mT(P), gX))) return ct_last_error_code();
    if (gB && n->iargs[0]) gB = ct_squeeze_dim(gB, -1);
    const ct__out_meta *mA = ct__input_meta(n, 0), *mB = ct__input_meta(n, 1);
    CT__GRAD(0, ct__sum_to_shape(gA, mA->sizes, mA->ndim));
    CT__GRAD(1, gB ? ct__sum_to_shape(gB, mB->sizes, mB->ndim) : NULL);
    return CT_OK;
}
static const ct__node_type ct__nt_linalg_lstsq = {"LinalgLstsqBackward0", ct__bw_linalg_lstsq};

static bool ct__la_record_lstsq(ct_tensor *X, const ct_tensor *A, const ct_tensor *B, bool vector)
{
    const ct_tensor *in[2] = {A, B};
    bool is_out[2] = {false, false};
    return ct__la_record(&ct__nt_linalg_lstsq, in, 2, &X, 1, in, is_out, 2, vector);
}
