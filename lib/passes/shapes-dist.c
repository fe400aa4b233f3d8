/*
 * Shape rules of torch's functional collectives (the _c10d_functional operators distributed
 * graphs hold: FSDP, tensor parallel, DDP with compiled autograd). Each follows the meta
 * function torch registers for the op (torch/csrc/distributed/c10d/Functional.cpp): all_reduce
 * and broadcast return a tensor like the input (empty_like: its strides kept), all_gather grows
 * and reduce_scatter shrinks dimension 0 by the group size into a contiguous tensor, wait_tensor
 * returns its argument. Checked against the values torch recorded in tlparse's multi-rank logs.
 */
#include "lib/passes/shapes-int.h"

#include <string.h>

/* The output of all_gather_into_tensor / reduce_scatter_tensor: input's sizes with dimension 0
 * multiplied (gather) or divided (scatter) by group_size, contiguous. */
static int resize_dim0(struct cgs_shape_ctx *sc, bool gather, struct cgs_diag *d)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], g;

    TRY(need_tensor(sc, "input", &t, d));
    if (t->ndim == 0 || t->ndim == CGS_NDIM_UNKNOWN)
        return cgs_diag_set(d, t->ndim ? CGS_E_UNKNOWN : CGS_E_INVAL,
                            "a collective over dimension 0 needs a tensor with one");
    if (int_of(sc, A(sc, "group_size"), &g))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "group_size is not known");
    dimcpy(shape, t->shape, t->ndim);
    shape[0] = gather ? S_mul(sc, shape[0], g) : S_div(sc, shape[0], g);
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}

RULE(c10d_all_gather)
{
    (void)n;
    return resize_dim0(sc, true, d);
}

RULE(c10d_reduce_scatter)
{
    (void)n;
    return resize_dim0(sc, false, d);
}

/* all_to_all_single: dimension 0 is the sum of output_split_sizes (input's when empty). */
RULE(c10d_all_to_all)
{
    const struct cgs_tensor *t;
    sym_t shape[NDIM_MAX], parts[NDIM_MAX];
    uint32_t k = 0;

    (void)n;
    TRY(need_tensor(sc, "input", &t, d));
    if (t->ndim == 0 || t->ndim == CGS_NDIM_UNKNOWN)
        return cgs_diag_set(d, t->ndim ? CGS_E_UNKNOWN : CGS_E_INVAL,
                            "all_to_all_single needs a tensor with a dimension 0");
    dimcpy(shape, t->shape, t->ndim);
    if (ints_of(sc, A(sc, "output_split_sizes"), parts, &k))
        return cgs_diag_set(d, CGS_E_UNKNOWN, "output_split_sizes are not known");
    if (k) {
        shape[0] = parts[0];
        for (uint32_t i = 1; i < k; i++)
            shape[0] = S_add(sc, shape[0], parts[i]);
    }
    out_dense(sc, t->ndim, shape, t->dtype, t->device, false);
    return 0;
}
