/*
 * The operator registry: one line per call target cgscope knows, as an
 * X-macro (jq's opcode_list.h). Included by lib/ops.h for enum cgs_op and
 * the rule prototypes, and by lib/ops.c for the cgs_ops[] table.
 *
 *   OP(ID, "target", rule, "schema", flags)
 *
 * target  the spec's target syntax: an aten/prims overload
 *         ("aten.add.Tensor"), a Python callable ("operator.add",
 *         "torch.nn.functional.relu"), or a tensor method ("view"; IDs of
 *         methods start with M_).
 * rule    the shape rule cgs_shape_rule_<rule> in lib/shapes.c.
 * schema  the argument list as Python/ATen declare it: names in positional
 *         order, "=default" for optional ones, "*" before keyword-only
 *         arguments, "*name" for a variadic tail (view(*size)).
 * flags   CGS_OPF_* (lib/ops.h).
 *
 * Keep the lines sorted by target (byte order): lookup is a binary search
 * over this order, and tests/test-ops.c checks it.
 */
OP(M___ADD__, "__add__", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___AND__, "__and__", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___EQ__, "__eq__", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___GE__, "__ge__", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___GT__, "__gt__", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___LE__, "__le__", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___LT__, "__lt__", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___MUL__, "__mul__", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___NE__, "__ne__", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___OR__, "__or__", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___RADD__, "__radd__", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___RMUL__, "__rmul__", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___SUB__, "__sub__", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M___TRUEDIV__, "__truediv__", binary_float,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M_ABS, "abs", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_ABS_, "abs_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_ADD, "add", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(M_ADD_, "add_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN___AND___TENSOR, "aten.__and__.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN___AND____TENSOR, "aten.__and___.Tensor", inplace,
   "self, other", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN___OR___TENSOR, "aten.__or__.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN___OR____TENSOR, "aten.__or___.Tensor", inplace,
   "self, other", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN__ADAPTIVE_AVG_POOL2D_DEFAULT, "aten._adaptive_avg_pool2d.default", adaptive_pool,
   "self, output_size", 0)
OP(ATEN__ASSERT_SCALAR_DEFAULT, "aten._assert_scalar.default", novalue,
   "self, assert_msg", CGS_OPF_NOVALUE)
OP(ATEN__ASSERT_TENSOR_METADATA_DEFAULT, "aten._assert_tensor_metadata.default", novalue,
   "a, size=None, stride=None, dtype=None, *, device=None, layout=None", CGS_OPF_NOVALUE)
OP(ATEN__LOCAL_SCALAR_DENSE_DEFAULT, "aten._local_scalar_dense.default", item,
   "self", CGS_OPF_SIZE)
OP(ATEN__LOG_SOFTMAX_DEFAULT, "aten._log_softmax.default", softmax,
   "self, dim, half_to_float", CGS_OPF_ELEMENTWISE)
OP(ATEN__LOG_SOFTMAX_BACKWARD_DATA_DEFAULT, "aten._log_softmax_backward_data.default", softmax_backward,
   "grad_output, output, dim, input_dtype", 0)
OP(ATEN__NATIVE_BATCH_NORM_LEGIT_FUNCTIONAL_DEFAULT, "aten._native_batch_norm_legit_functional.default", native_batch_norm,
   "input, weight, bias, running_mean, running_var, training, momentum, eps", 0)
OP(ATEN__NATIVE_BATCH_NORM_LEGIT_NO_TRAINING_DEFAULT, "aten._native_batch_norm_legit_no_training.default", native_batch_norm,
   "input, weight, bias, running_mean, running_var, momentum, eps", 0)
OP(ATEN__SCALED_DOT_PRODUCT_EFFICIENT_ATTENTION_DEFAULT, "aten._scaled_dot_product_efficient_attention.default", sdpa_efficient,
   "query, key, value, attn_bias, compute_log_sumexp, dropout_p=0.0, is_causal=False, *, scale=None", 0)
OP(ATEN__SCALED_DOT_PRODUCT_FLASH_ATTENTION_DEFAULT, "aten._scaled_dot_product_flash_attention.default", sdpa_flash,
   "query, key, value, dropout_p=0.0, is_causal=False, return_debug_mask=False, *, scale=None", 0)
OP(ATEN__SOFTMAX_DEFAULT, "aten._softmax.default", softmax,
   "self, dim, half_to_float", CGS_OPF_ELEMENTWISE)
OP(ATEN__SOFTMAX_BACKWARD_DATA_DEFAULT, "aten._softmax_backward_data.default", softmax_backward,
   "grad_output, output, dim, input_dtype", 0)
OP(ATEN__TO_COPY_DEFAULT, "aten._to_copy.default", to_copy,
   "self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, memory_format=None", CGS_OPF_ELEMENTWISE)
OP(ATEN__UNSAFE_VIEW_DEFAULT, "aten._unsafe_view.default", reshape,
   "self, size", CGS_OPF_VIEW)
OP(ATEN_ABS_DEFAULT, "aten.abs.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ABS__DEFAULT, "aten.abs_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_ACOS_DEFAULT, "aten.acos.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ACOSH_DEFAULT, "aten.acosh.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ADAPTIVE_AVG_POOL2D_DEFAULT, "aten.adaptive_avg_pool2d.default", adaptive_pool,
   "self, output_size", 0)
OP(ATEN_ADD_SCALAR, "aten.add.Scalar", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_ADD_TENSOR, "aten.add.Tensor", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_ADD__SCALAR, "aten.add_.Scalar", inplace,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_ADD__TENSOR, "aten.add_.Tensor", inplace,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_ADDCMUL_DEFAULT, "aten.addcmul.default", where3,
   "self, tensor1, tensor2, *, value=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_ADDMM_DEFAULT, "aten.addmm.default", addmm,
   "self, mat1, mat2, *, beta=1, alpha=1", CGS_OPF_MATMUL)
OP(ATEN_ALIAS_DEFAULT, "aten.alias.default", alias,
   "self", CGS_OPF_VIEW)
OP(ATEN_ALL_DEFAULT, "aten.all.default", reduce_bool,
   "self", CGS_OPF_REDUCTION)
OP(ATEN_AMAX_DEFAULT, "aten.amax.default", reduce,
   "self, dim=[], keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_AMIN_DEFAULT, "aten.amin.default", reduce,
   "self, dim=[], keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_ANY_DEFAULT, "aten.any.default", reduce_bool,
   "self", CGS_OPF_REDUCTION)
OP(ATEN_ANY_DIM, "aten.any.dim", reduce_bool,
   "self, dim, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_ARANGE_DEFAULT, "aten.arange.default", arange,
   "end, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_ARANGE_START, "aten.arange.start", arange,
   "start, end, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_ARANGE_START_STEP, "aten.arange.start_step", arange,
   "start, end, step=1, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_ARGMAX_DEFAULT, "aten.argmax.default", reduce_index,
   "self, dim=None, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_ARGMIN_DEFAULT, "aten.argmin.default", reduce_index,
   "self, dim=None, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_AS_STRIDED_DEFAULT, "aten.as_strided.default", as_strided,
   "self, size, stride, storage_offset=None", CGS_OPF_VIEW)
OP(ATEN_AS_STRIDED__DEFAULT, "aten.as_strided_.default", as_strided,
   "self, size, stride, storage_offset=None", CGS_OPF_VIEW)
OP(ATEN_ASIN_DEFAULT, "aten.asin.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ASINH_DEFAULT, "aten.asinh.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ATAN_DEFAULT, "aten.atan.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ATAN2_DEFAULT, "aten.atan2.default", binary_float,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_ATANH_DEFAULT, "aten.atanh.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_AVG_POOL2D_DEFAULT, "aten.avg_pool2d.default", avg_pool,
   "self, kernel_size, stride=[], padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None", 0)
OP(ATEN_AVG_POOL2D_BACKWARD_DEFAULT, "aten.avg_pool2d_backward.default", pool_backward,
   "grad_output, self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override", 0)
OP(ATEN_BADDBMM_DEFAULT, "aten.baddbmm.default", baddbmm,
   "self, batch1, batch2, *, beta=1, alpha=1", CGS_OPF_MATMUL)
OP(ATEN_BATCH_NORM_DEFAULT, "aten.batch_norm.default", batch_norm,
   "input, weight, bias, running_mean, running_var, training, momentum, eps, cudnn_enabled", 0)
OP(ATEN_BITWISE_AND_SCALAR, "aten.bitwise_and.Scalar", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_BITWISE_AND_TENSOR, "aten.bitwise_and.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_BITWISE_AND__TENSOR, "aten.bitwise_and_.Tensor", inplace,
   "self, other", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_BITWISE_NOT_DEFAULT, "aten.bitwise_not.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_BITWISE_OR_SCALAR, "aten.bitwise_or.Scalar", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_BITWISE_OR_TENSOR, "aten.bitwise_or.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_BITWISE_OR__TENSOR, "aten.bitwise_or_.Tensor", inplace,
   "self, other", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_BITWISE_XOR_TENSOR, "aten.bitwise_xor.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_BMM_DEFAULT, "aten.bmm.default", bmm,
   "self, mat2", CGS_OPF_MATMUL)
OP(ATEN_CAT_DEFAULT, "aten.cat.default", cat,
   "tensors, dim=0", 0)
OP(ATEN_CEIL_DEFAULT, "aten.ceil.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_CHUNK_DEFAULT, "aten.chunk.default", chunk,
   "self, chunks, dim=0", CGS_OPF_VIEW)
OP(ATEN_CLAMP_TENSOR, "aten.clamp.Tensor", where_like_clamp,
   "self, min=None, max=None", CGS_OPF_ELEMENTWISE)
OP(ATEN_CLAMP_DEFAULT, "aten.clamp.default", unary,
   "self, min=None, max=None", CGS_OPF_ELEMENTWISE)
OP(ATEN_CLAMP__DEFAULT, "aten.clamp_.default", inplace,
   "self, min=None, max=None", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_CLAMP_MAX_DEFAULT, "aten.clamp_max.default", unary,
   "self, max", CGS_OPF_ELEMENTWISE)
OP(ATEN_CLAMP_MIN_DEFAULT, "aten.clamp_min.default", unary,
   "self, min", CGS_OPF_ELEMENTWISE)
OP(ATEN_CLAMP_MIN__DEFAULT, "aten.clamp_min_.default", inplace,
   "self, min", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_CLONE_DEFAULT, "aten.clone.default", clone,
   "self, *, memory_format=None", CGS_OPF_ELEMENTWISE)
OP(ATEN_CONSTANT_PAD_ND_DEFAULT, "aten.constant_pad_nd.default", pad,
   "self, pad, value=0", 0)
OP(ATEN_CONTIGUOUS_DEFAULT, "aten.contiguous.default", contiguous,
   "self, memory_format=None", 0)
OP(ATEN_CONV1D_DEFAULT, "aten.conv1d.default", conv,
   "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1", CGS_OPF_CONV)
OP(ATEN_CONV2D_DEFAULT, "aten.conv2d.default", conv,
   "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1", CGS_OPF_CONV)
OP(ATEN_CONV3D_DEFAULT, "aten.conv3d.default", conv,
   "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1", CGS_OPF_CONV)
OP(ATEN_CONV_TRANSPOSE2D_INPUT, "aten.conv_transpose2d.input", conv_t,
   "input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1", CGS_OPF_CONV)
OP(ATEN_CONVOLUTION_DEFAULT, "aten.convolution.default", conv,
   "input, weight, bias, stride, padding, dilation, transposed, output_padding, groups", CGS_OPF_CONV)
OP(ATEN_CONVOLUTION_BACKWARD_DEFAULT, "aten.convolution_backward.default", conv_backward,
   "grad_output, input, weight, bias_sizes, stride, padding, dilation, transposed, output_padding, groups, output_mask", CGS_OPF_CONV)
OP(ATEN_COPY_DEFAULT, "aten.copy.default", copy,
   "self, src, non_blocking=False", CGS_OPF_ELEMENTWISE)
OP(ATEN_COPY__DEFAULT, "aten.copy_.default", inplace,
   "self, src, non_blocking=False", CGS_OPF_INPLACE)
OP(ATEN_COS_DEFAULT, "aten.cos.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_COSH_DEFAULT, "aten.cosh.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_CUMPROD_DEFAULT, "aten.cumprod.default", cumsum,
   "self, dim, *, dtype=None", 0)
OP(ATEN_CUMSUM_DEFAULT, "aten.cumsum.default", cumsum,
   "self, dim, *, dtype=None", 0)
OP(ATEN_DETACH_DEFAULT, "aten.detach.default", alias,
   "self", CGS_OPF_VIEW)
OP(ATEN_DIFF_DEFAULT, "aten.diff.default", diff,
   "self, n=1, dim=-1, prepend=None, append=None", 0)
OP(ATEN_DIGAMMA_DEFAULT, "aten.digamma.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_DIV_SCALAR, "aten.div.Scalar", binary_float,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_DIV_TENSOR, "aten.div.Tensor", binary_float,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_DIV_TENSOR_MODE, "aten.div.Tensor_mode", binary_div_mode,
   "self, other, *, rounding_mode", CGS_OPF_ELEMENTWISE)
OP(ATEN_DIV__SCALAR, "aten.div_.Scalar", inplace,
   "self, other", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_DIV__TENSOR, "aten.div_.Tensor", inplace,
   "self, other", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_DROPOUT_DEFAULT, "aten.dropout.default", dropout,
   "input, p, train", 0)
OP(ATEN_ELU_DEFAULT, "aten.elu.default", unary,
   "self, alpha=1, scale=1, input_scale=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_EMBEDDING_DEFAULT, "aten.embedding.default", embedding,
   "weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False", 0)
OP(ATEN_EMBEDDING_DENSE_BACKWARD_DEFAULT, "aten.embedding_dense_backward.default", embedding_backward,
   "grad_output, indices, num_weights, padding_idx, scale_grad_by_freq", 0)
OP(ATEN_EMPTY_MEMORY_FORMAT, "aten.empty.memory_format", zeros,
   "size, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None", CGS_OPF_FACTORY)
OP(ATEN_EMPTY_LIKE_DEFAULT, "aten.empty_like.default", empty_like,
   "self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None", CGS_OPF_FACTORY)
OP(ATEN_EMPTY_STRIDED_DEFAULT, "aten.empty_strided.default", empty_strided,
   "size, stride, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_EQ_SCALAR, "aten.eq.Scalar", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_EQ_TENSOR, "aten.eq.Tensor", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_ERF_DEFAULT, "aten.erf.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ERF__DEFAULT, "aten.erf_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_ERFC_DEFAULT, "aten.erfc.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ERFINV_DEFAULT, "aten.erfinv.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_EXP_DEFAULT, "aten.exp.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_EXP2_DEFAULT, "aten.exp2.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_EXP__DEFAULT, "aten.exp_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_EXPAND_DEFAULT, "aten.expand.default", expand,
   "self, size, *, implicit=False", CGS_OPF_VIEW)
OP(ATEN_EXPAND_COPY_DEFAULT, "aten.expand_copy.default", view_copy,
   "self, size, *, implicit=False", 0)
OP(ATEN_EXPM1_DEFAULT, "aten.expm1.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_FILL_SCALAR, "aten.fill.Scalar", clone,
   "self, value", CGS_OPF_ELEMENTWISE)
OP(ATEN_FILL__SCALAR, "aten.fill_.Scalar", inplace,
   "self, value", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_FLATTEN_USING_INTS, "aten.flatten.using_ints", flatten,
   "self, start_dim=0, end_dim=-1", CGS_OPF_VIEW)
OP(ATEN_FLIP_DEFAULT, "aten.flip.default", clone,
   "self, dims", 0)
OP(ATEN_FLOOR_DEFAULT, "aten.floor.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_FLOOR_DIVIDE_TENSOR, "aten.floor_divide.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_FLOOR_DIVIDE_DEFAULT, "aten.floor_divide.default", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_FMOD_SCALAR, "aten.fmod.Scalar", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_FMOD_TENSOR, "aten.fmod.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_FULL_DEFAULT, "aten.full.default", full,
   "size, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_FULL_LIKE_DEFAULT, "aten.full_like.default", full_like,
   "self, fill_value, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None", CGS_OPF_FACTORY)
OP(ATEN_GATHER_DEFAULT, "aten.gather.default", gather,
   "self, dim, index, *, sparse_grad=False", 0)
OP(ATEN_GE_SCALAR, "aten.ge.Scalar", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_GE_TENSOR, "aten.ge.Tensor", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_GELU_DEFAULT, "aten.gelu.default", unary,
   "self, approximate='none'", CGS_OPF_ELEMENTWISE)
OP(ATEN_GELU__DEFAULT, "aten.gelu_.default", inplace,
   "self, approximate='none'", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_GELU_BACKWARD_DEFAULT, "aten.gelu_backward.default", binary,
   "grad_output, self, *, approximate='none'", CGS_OPF_ELEMENTWISE)
OP(ATEN_GT_SCALAR, "aten.gt.Scalar", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_GT_TENSOR, "aten.gt.Tensor", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_HARDSIGMOID_DEFAULT, "aten.hardsigmoid.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_HARDSIGMOID_BACKWARD_DEFAULT, "aten.hardsigmoid_backward.default", binary,
   "grad_output, self", CGS_OPF_ELEMENTWISE)
OP(ATEN_HARDSWISH_DEFAULT, "aten.hardswish.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_HARDSWISH__DEFAULT, "aten.hardswish_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_HARDSWISH_BACKWARD_DEFAULT, "aten.hardswish_backward.default", binary,
   "grad_output, self", CGS_OPF_ELEMENTWISE)
OP(ATEN_HARDTANH_DEFAULT, "aten.hardtanh.default", unary,
   "self, min_val=-1, max_val=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_HARDTANH__DEFAULT, "aten.hardtanh_.default", inplace,
   "self, min_val=-1, max_val=1", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_INDEX_TENSOR, "aten.index.Tensor", index,
   "self, indices", 0)
OP(ATEN_INDEX_ADD_DEFAULT, "aten.index_add.default", contig_copy,
   "self, dim, index, source, *, alpha=1", 0)
OP(ATEN_INDEX_COPY_DEFAULT, "aten.index_copy.default", contig_copy,
   "self, dim, index, source", 0)
OP(ATEN_INDEX_PUT_DEFAULT, "aten.index_put.default", clone,
   "self, indices, values, accumulate=False", 0)
OP(ATEN_INDEX_PUT__DEFAULT, "aten.index_put_.default", inplace,
   "self, indices, values, accumulate=False", CGS_OPF_INPLACE)
OP(ATEN_INDEX_SELECT_DEFAULT, "aten.index_select.default", index_select,
   "self, dim, index", 0)
OP(ATEN_ISFINITE_DEFAULT, "aten.isfinite.default", unary_bool,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ISINF_DEFAULT, "aten.isinf.default", unary_bool,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_ISNAN_DEFAULT, "aten.isnan.default", unary_bool,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_LAYER_NORM_DEFAULT, "aten.layer_norm.default", layer_norm,
   "input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True", 0)
OP(ATEN_LE_SCALAR, "aten.le.Scalar", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_LE_TENSOR, "aten.le.Tensor", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_LEAKY_RELU_DEFAULT, "aten.leaky_relu.default", unary,
   "self, negative_slope=0.01", CGS_OPF_ELEMENTWISE)
OP(ATEN_LERP_SCALAR, "aten.lerp.Scalar", where3,
   "self, end, weight", CGS_OPF_ELEMENTWISE)
OP(ATEN_LGAMMA_DEFAULT, "aten.lgamma.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_LIFT_FRESH_COPY_DEFAULT, "aten.lift_fresh_copy.default", contig_copy,
   "self", 0)
OP(ATEN_LINALG_VECTOR_NORM_DEFAULT, "aten.linalg_vector_norm.default", reduce,
   "self, ord=2, dim=None, keepdim=False, *, dtype=None", CGS_OPF_REDUCTION)
OP(ATEN_LINEAR_DEFAULT, "aten.linear.default", linear,
   "input, weight, bias=None", CGS_OPF_MATMUL)
OP(ATEN_LOG_DEFAULT, "aten.log.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOG10_DEFAULT, "aten.log10.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOG1P_DEFAULT, "aten.log1p.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOG2_DEFAULT, "aten.log2.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOG_SOFTMAX_INT, "aten.log_softmax.int", softmax,
   "self, dim, dtype=None", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOGICAL_AND_TENSOR, "aten.logical_and.Tensor", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOGICAL_AND_DEFAULT, "aten.logical_and.default", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOGICAL_NOT_DEFAULT, "aten.logical_not.default", unary_bool,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOGICAL_OR_TENSOR, "aten.logical_or.Tensor", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOGICAL_OR_DEFAULT, "aten.logical_or.default", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOGICAL_XOR_DEFAULT, "aten.logical_xor.default", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_LOGSUMEXP_DEFAULT, "aten.logsumexp.default", reduce,
   "self, dim, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_LT_SCALAR, "aten.lt.Scalar", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_LT_TENSOR, "aten.lt.Tensor", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_MASKED_FILL_SCALAR, "aten.masked_fill.Scalar", masked_fill,
   "self, mask, value", CGS_OPF_ELEMENTWISE)
OP(ATEN_MASKED_FILL_TENSOR, "aten.masked_fill.Tensor", masked_fill,
   "self, mask, value", CGS_OPF_ELEMENTWISE)
OP(ATEN_MATMUL_DEFAULT, "aten.matmul.default", matmul,
   "self, other", CGS_OPF_MATMUL)
OP(ATEN_MAX_DEFAULT, "aten.max.default", reduce,
   "self", CGS_OPF_REDUCTION)
OP(ATEN_MAX_DIM, "aten.max.dim", max_dim,
   "self, dim, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_MAX_POOL2D_DEFAULT, "aten.max_pool2d.default", max_pool,
   "self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False", 0)
OP(ATEN_MAX_POOL2D_WITH_INDICES_DEFAULT, "aten.max_pool2d_with_indices.default", max_pool_indices,
   "self, kernel_size, stride=[], padding=0, dilation=1, ceil_mode=False", 0)
OP(ATEN_MAX_POOL2D_WITH_INDICES_BACKWARD_DEFAULT, "aten.max_pool2d_with_indices_backward.default", pool_backward,
   "grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices", 0)
OP(ATEN_MAXIMUM_DEFAULT, "aten.maximum.default", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_MEAN_DEFAULT, "aten.mean.default", reduce,
   "self, *, dtype=None", CGS_OPF_REDUCTION)
OP(ATEN_MEAN_DIM, "aten.mean.dim", reduce,
   "self, dim, keepdim=False, *, dtype=None", CGS_OPF_REDUCTION)
OP(ATEN_MIN_DEFAULT, "aten.min.default", reduce,
   "self", CGS_OPF_REDUCTION)
OP(ATEN_MIN_DIM, "aten.min.dim", max_dim,
   "self, dim, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_MINIMUM_DEFAULT, "aten.minimum.default", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_MM_DEFAULT, "aten.mm.default", mm,
   "self, mat2", CGS_OPF_MATMUL)
OP(ATEN_MSE_LOSS_DEFAULT, "aten.mse_loss.default", mse_loss,
   "self, target, reduction=1", 0)
OP(ATEN_MUL_SCALAR, "aten.mul.Scalar", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_MUL_TENSOR, "aten.mul.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_MUL__SCALAR, "aten.mul_.Scalar", inplace,
   "self, other", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_MUL__TENSOR, "aten.mul_.Tensor", inplace,
   "self, other", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_NARROW_DEFAULT, "aten.narrow.default", narrow,
   "self, dim, start, length", CGS_OPF_VIEW)
OP(ATEN_NATIVE_BATCH_NORM_DEFAULT, "aten.native_batch_norm.default", native_batch_norm,
   "input, weight, bias, running_mean, running_var, training, momentum, eps", 0)
OP(ATEN_NATIVE_BATCH_NORM_BACKWARD_DEFAULT, "aten.native_batch_norm_backward.default", bn_backward,
   "grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, output_mask", 0)
OP(ATEN_NATIVE_DROPOUT_DEFAULT, "aten.native_dropout.default", native_dropout,
   "input, p, train", 0)
OP(ATEN_NATIVE_DROPOUT_BACKWARD_DEFAULT, "aten.native_dropout_backward.default", binary,
   "grad_output, mask, scale", CGS_OPF_ELEMENTWISE)
OP(ATEN_NATIVE_GROUP_NORM_DEFAULT, "aten.native_group_norm.default", group_norm,
   "input, weight, bias, N, C, HxW, group, eps", 0)
OP(ATEN_NATIVE_LAYER_NORM_DEFAULT, "aten.native_layer_norm.default", native_layer_norm,
   "input, normalized_shape, weight, bias, eps", 0)
OP(ATEN_NATIVE_LAYER_NORM_BACKWARD_DEFAULT, "aten.native_layer_norm_backward.default", layer_norm_backward,
   "grad_out, input, normalized_shape, mean, rstd, weight, bias, output_mask", 0)
OP(ATEN_NE_SCALAR, "aten.ne.Scalar", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_NE_TENSOR, "aten.ne.Tensor", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_NEG_DEFAULT, "aten.neg.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_NEG__DEFAULT, "aten.neg_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_NEW_EMPTY_DEFAULT, "aten.new_empty.default", new_full,
   "self, size, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_NEW_EMPTY_STRIDED_DEFAULT, "aten.new_empty_strided.default", new_empty_strided,
   "self, size, stride, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_NEW_ONES_DEFAULT, "aten.new_ones.default", new_full,
   "self, size, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_NEW_ZEROS_DEFAULT, "aten.new_zeros.default", new_full,
   "self, size, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_NLL_LOSS_BACKWARD_DEFAULT, "aten.nll_loss_backward.default", like_self_contig,
   "grad_output, self, target, weight, reduction, ignore_index, total_weight", 0)
OP(ATEN_NLL_LOSS_FORWARD_DEFAULT, "aten.nll_loss_forward.default", nll_loss,
   "self, target, weight, reduction, ignore_index", 0)
OP(ATEN_NONZERO_DEFAULT, "aten.nonzero.default", item,
   "self", 0)
OP(ATEN_ONES_DEFAULT, "aten.ones.default", zeros,
   "size, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_ONES_LIKE_DEFAULT, "aten.ones_like.default", empty_like,
   "self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None", CGS_OPF_FACTORY)
OP(ATEN_OUTER_DEFAULT, "aten.outer.default", outer,
   "self, vec2", 0)
OP(ATEN_PERMUTE_DEFAULT, "aten.permute.default", permute,
   "self, dims", CGS_OPF_VIEW)
OP(ATEN_PERMUTE_COPY_DEFAULT, "aten.permute_copy.default", view_copy,
   "self, dims", 0)
OP(ATEN_POW_SCALAR, "aten.pow.Scalar", binary,
   "self, exponent", CGS_OPF_ELEMENTWISE)
OP(ATEN_POW_TENSOR_SCALAR, "aten.pow.Tensor_Scalar", binary,
   "self, exponent", CGS_OPF_ELEMENTWISE)
OP(ATEN_POW_TENSOR_TENSOR, "aten.pow.Tensor_Tensor", binary,
   "self, exponent", CGS_OPF_ELEMENTWISE)
OP(ATEN_PROD_DEFAULT, "aten.prod.default", reduce,
   "self, *, dtype=None", CGS_OPF_REDUCTION)
OP(ATEN_PROD_DIM_INT, "aten.prod.dim_int", reduce,
   "self, dim, keepdim=False, *, dtype=None", CGS_OPF_REDUCTION)
OP(ATEN_RECIPROCAL_DEFAULT, "aten.reciprocal.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_RECIPROCAL__DEFAULT, "aten.reciprocal_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_RELU_DEFAULT, "aten.relu.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_RELU6_DEFAULT, "aten.relu6.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_RELU__DEFAULT, "aten.relu_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_REMAINDER_SCALAR, "aten.remainder.Scalar", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_REMAINDER_TENSOR, "aten.remainder.Tensor", binary,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_REPEAT_DEFAULT, "aten.repeat.default", repeat,
   "self, repeats", 0)
OP(ATEN_REPEAT_INTERLEAVE_SELF_INT, "aten.repeat_interleave.self_int", repeat_interleave,
   "self, repeats, dim=None, *, output_size=None", 0)
OP(ATEN_RESHAPE_DEFAULT, "aten.reshape.default", reshape,
   "self, shape", CGS_OPF_VIEW)
OP(ATEN_ROLL_DEFAULT, "aten.roll.default", contig_copy,
   "self, shifts, dims=[]", 0)
OP(ATEN_ROUND_DEFAULT, "aten.round.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_RSQRT_DEFAULT, "aten.rsqrt.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_RSQRT__DEFAULT, "aten.rsqrt_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_RSUB_SCALAR, "aten.rsub.Scalar", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_RSUB_TENSOR, "aten.rsub.Tensor", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_SCALAR_TENSOR_DEFAULT, "aten.scalar_tensor.default", scalar_tensor,
   "s, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_SCALED_DOT_PRODUCT_ATTENTION_DEFAULT, "aten.scaled_dot_product_attention.default", sdpa,
   "query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False", 0)
OP(ATEN_SCATTER_SRC, "aten.scatter.src", scatter,
   "self, dim, index, src", 0)
OP(ATEN_SCATTER_VALUE, "aten.scatter.value", scatter,
   "self, dim, index, value", 0)
OP(ATEN_SCATTER_ADD_DEFAULT, "aten.scatter_add.default", scatter,
   "self, dim, index, src", 0)
OP(ATEN_SELECT_INT, "aten.select.int", select,
   "self, dim, index", CGS_OPF_VIEW)
OP(ATEN_SELECT_COPY_INT, "aten.select_copy.int", view_copy,
   "self, dim, index", 0)
OP(ATEN_SELECT_SCATTER_DEFAULT, "aten.select_scatter.default", clone,
   "self, src, dim, index", 0)
OP(ATEN_SGN_DEFAULT, "aten.sgn.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SIGMOID_DEFAULT, "aten.sigmoid.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SIGMOID__DEFAULT, "aten.sigmoid_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_SIGMOID_BACKWARD_DEFAULT, "aten.sigmoid_backward.default", binary,
   "grad_output, output", CGS_OPF_ELEMENTWISE)
OP(ATEN_SIGN_DEFAULT, "aten.sign.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SILU_DEFAULT, "aten.silu.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SILU__DEFAULT, "aten.silu_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_SILU_BACKWARD_DEFAULT, "aten.silu_backward.default", binary,
   "grad_output, self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SIN_DEFAULT, "aten.sin.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SINH_DEFAULT, "aten.sinh.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SLICE_TENSOR, "aten.slice.Tensor", slice,
   "self, dim=0, start=None, end=None, step=1", CGS_OPF_VIEW)
OP(ATEN_SLICE_COPY_TENSOR, "aten.slice_copy.Tensor", view_copy,
   "self, dim=0, start=None, end=None, step=1", 0)
OP(ATEN_SLICE_SCATTER_DEFAULT, "aten.slice_scatter.default", clone,
   "self, src, dim=0, start=None, end=None, step=1", 0)
OP(ATEN_SOFTMAX_INT, "aten.softmax.int", softmax,
   "self, dim, dtype=None", CGS_OPF_ELEMENTWISE)
OP(ATEN_SORT_DEFAULT, "aten.sort.default", sort,
   "self, dim=-1, descending=False", 0)
OP(ATEN_SPLIT_TENSOR, "aten.split.Tensor", split,
   "self, split_size, dim=0", CGS_OPF_VIEW)
OP(ATEN_SPLIT_WITH_SIZES_DEFAULT, "aten.split_with_sizes.default", split,
   "self, split_sizes, dim=0", CGS_OPF_VIEW)
OP(ATEN_SQRT_DEFAULT, "aten.sqrt.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SQRT__DEFAULT, "aten.sqrt_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_SQUARE_DEFAULT, "aten.square.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_SQUEEZE_DEFAULT, "aten.squeeze.default", squeeze,
   "self", CGS_OPF_VIEW)
OP(ATEN_SQUEEZE_DIM, "aten.squeeze.dim", squeeze,
   "self, dim", CGS_OPF_VIEW)
OP(ATEN_SQUEEZE_DIMS, "aten.squeeze.dims", squeeze,
   "self, dim", CGS_OPF_VIEW)
OP(ATEN_SQUEEZE__DIM, "aten.squeeze_.dim", squeeze,
   "self, dim", CGS_OPF_VIEW | CGS_OPF_INPLACE)
OP(ATEN_SQUEEZE_COPY_DIMS, "aten.squeeze_copy.dims", view_copy,
   "self, dim", 0)
OP(ATEN_STACK_DEFAULT, "aten.stack.default", stack,
   "tensors, dim=0", 0)
OP(ATEN_STD_CORRECTION, "aten.std.correction", reduce,
   "self, dim=None, *, correction=None, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_SUB_SCALAR, "aten.sub.Scalar", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_SUB_TENSOR, "aten.sub.Tensor", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(ATEN_SUB__SCALAR, "aten.sub_.Scalar", inplace,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_SUB__TENSOR, "aten.sub_.Tensor", inplace,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_SUM_DEFAULT, "aten.sum.default", reduce,
   "self, *, dtype=None", CGS_OPF_REDUCTION)
OP(ATEN_SUM_DIM_INTLIST, "aten.sum.dim_IntList", reduce,
   "self, dim, keepdim=False, *, dtype=None", CGS_OPF_REDUCTION)
OP(ATEN_SYM_NUMEL_DEFAULT, "aten.sym_numel.default", numel,
   "self", CGS_OPF_SIZE)
OP(ATEN_SYM_SIZE_DEFAULT, "aten.sym_size.default", size,
   "self", CGS_OPF_SIZE)
OP(ATEN_SYM_SIZE_INT, "aten.sym_size.int", sym_size,
   "self, dim", CGS_OPF_SIZE)
OP(ATEN_SYM_STRIDE_INT, "aten.sym_stride.int", sym_stride,
   "self, dim", CGS_OPF_SIZE)
OP(ATEN_T_DEFAULT, "aten.t.default", t,
   "self", CGS_OPF_VIEW)
OP(ATEN_TAN_DEFAULT, "aten.tan.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_TANH_DEFAULT, "aten.tanh.default", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_TANH__DEFAULT, "aten.tanh_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_TANH_BACKWARD_DEFAULT, "aten.tanh_backward.default", binary,
   "grad_output, output", CGS_OPF_ELEMENTWISE)
OP(ATEN_THRESHOLD_BACKWARD_DEFAULT, "aten.threshold_backward.default", binary,
   "grad_output, self, threshold", CGS_OPF_ELEMENTWISE)
OP(ATEN_TO_DEVICE, "aten.to.device", to,
   "self, device, dtype, non_blocking=False, copy=False, memory_format=None", CGS_OPF_ELEMENTWISE)
OP(ATEN_TO_DTYPE, "aten.to.dtype", to,
   "self, dtype, non_blocking=False, copy=False, memory_format=None", CGS_OPF_ELEMENTWISE)
OP(ATEN_TO_DTYPE_LAYOUT, "aten.to.dtype_layout", to,
   "self, *, dtype=None, layout=None, device=None, pin_memory=None, non_blocking=False, copy=False, memory_format=None", CGS_OPF_ELEMENTWISE)
OP(ATEN_TOPK_DEFAULT, "aten.topk.default", topk,
   "self, k, dim=-1, largest=True, sorted=True", 0)
OP(ATEN_TRANSPOSE_INT, "aten.transpose.int", transpose,
   "self, dim0, dim1", CGS_OPF_VIEW)
OP(ATEN_TRANSPOSE_COPY_INT, "aten.transpose_copy.int", view_copy,
   "self, dim0, dim1", 0)
OP(ATEN_TRIL_DEFAULT, "aten.tril.default", contig_copy,
   "self, diagonal=0", 0)
OP(ATEN_TRIU_DEFAULT, "aten.triu.default", contig_copy,
   "self, diagonal=0", 0)
OP(ATEN_TRUNC_DEFAULT, "aten.trunc.default", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(ATEN_UNBIND_INT, "aten.unbind.int", unbind,
   "self, dim=0", CGS_OPF_VIEW)
OP(ATEN_UNFLATTEN_INT, "aten.unflatten.int", unflatten,
   "self, dim, sizes", CGS_OPF_VIEW)
OP(ATEN_UNFOLD_DEFAULT, "aten.unfold.default", unfold,
   "self, dimension, size, step", CGS_OPF_VIEW)
OP(ATEN_UNSQUEEZE_DEFAULT, "aten.unsqueeze.default", unsqueeze,
   "self, dim", CGS_OPF_VIEW)
OP(ATEN_UNSQUEEZE__DEFAULT, "aten.unsqueeze_.default", unsqueeze,
   "self, dim", CGS_OPF_VIEW | CGS_OPF_INPLACE)
OP(ATEN_UNSQUEEZE_COPY_DEFAULT, "aten.unsqueeze_copy.default", view_copy,
   "self, dim", 0)
OP(ATEN_UPSAMPLE_BILINEAR2D_VEC, "aten.upsample_bilinear2d.vec", upsample,
   "input, output_size, align_corners, scale_factors", 0)
OP(ATEN_UPSAMPLE_NEAREST2D_DEFAULT, "aten.upsample_nearest2d.default", upsample,
   "self, output_size, scales_h=None, scales_w=None", 0)
OP(ATEN_UPSAMPLE_NEAREST2D_VEC, "aten.upsample_nearest2d.vec", upsample,
   "input, output_size, scale_factors", 0)
OP(ATEN_VAR_CORRECTION, "aten.var.correction", reduce,
   "self, dim=None, *, correction=None, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_VAR_MEAN_CORRECTION, "aten.var_mean.correction", var_mean,
   "self, dim=None, *, correction=None, keepdim=False", CGS_OPF_REDUCTION)
OP(ATEN_VIEW_DEFAULT, "aten.view.default", view,
   "self, size", CGS_OPF_VIEW)
OP(ATEN_VIEW_DTYPE, "aten.view.dtype", view_dtype,
   "self, dtype", CGS_OPF_VIEW)
OP(ATEN_VIEW_COPY_DEFAULT, "aten.view_copy.default", view_copy,
   "self, size", 0)
OP(ATEN_WHERE_SCALAROTHER, "aten.where.ScalarOther", where,
   "condition, self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_WHERE_SCALARSELF, "aten.where.ScalarSelf", where,
   "condition, self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_WHERE_SELF, "aten.where.self", where,
   "condition, self, other", CGS_OPF_ELEMENTWISE)
OP(ATEN_ZERO__DEFAULT, "aten.zero_.default", inplace,
   "self", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(ATEN_ZEROS_DEFAULT, "aten.zeros.default", zeros,
   "size, *, dtype=None, layout=None, device=None, pin_memory=None", CGS_OPF_FACTORY)
OP(ATEN_ZEROS_LIKE_DEFAULT, "aten.zeros_like.default", empty_like,
   "self, *, dtype=None, layout=None, device=None, pin_memory=None, memory_format=None", CGS_OPF_FACTORY)
OP(M_BFLOAT16, "bfloat16", to_fixed,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_BOOL, "bool", to_fixed,
   "self", CGS_OPF_ELEMENTWISE)
OP(BUILTINS_GETATTR, "builtins.getattr", getattr,
   "obj, name", CGS_OPF_SIZE)
OP(CGS_ATTENTION, "cgs.attention", attention,
   "q, k, v", 0)
OP(CGS_ATTENTION_DEFAULT, "cgs.attention.default", attention,
   "q, k, v", 0)
OP(CGS_ATTENTION_OUT, "cgs.attention_out", novalue,
   "q, k, v, out", CGS_OPF_INPLACE | CGS_OPF_NOVALUE)
OP(CGS_ATTENTION_OUT_DEFAULT, "cgs.attention_out.default", novalue,
   "q, k, v, out", CGS_OPF_INPLACE | CGS_OPF_NOVALUE)
OP(M_CHUNK, "chunk", chunk,
   "self, chunks, dim=0", CGS_OPF_VIEW)
OP(M_CLAMP, "clamp", unary,
   "self, min=None, max=None", CGS_OPF_ELEMENTWISE)
OP(M_CLAMP_, "clamp_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_CLAMP_MIN_, "clamp_min_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_CLONE, "clone", clone,
   "self, *, memory_format=None", CGS_OPF_ELEMENTWISE)
OP(M_CONTIGUOUS, "contiguous", contiguous,
   "self, memory_format=None", 0)
OP(M_COPY_, "copy_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_COS, "cos", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_CUMSUM, "cumsum", cumsum,
   "self, dim, *, dtype=None", 0)
OP(M_DETACH, "detach", alias,
   "self", CGS_OPF_VIEW)
OP(M_DIM, "dim", dim,
   "self", CGS_OPF_SIZE)
OP(M_DIV, "div", binary_float,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(M_DIV_, "div_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_EQ, "eq", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M_ERF, "erf", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_EXP, "exp", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_EXP_, "exp_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_EXPAND, "expand", expand,
   "self, *size", CGS_OPF_VIEW)
OP(M_EXPAND_AS, "expand_as", expand_as,
   "self, other", CGS_OPF_VIEW)
OP(M_FILL_, "fill_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_FLATTEN, "flatten", flatten,
   "self, start_dim=0, end_dim=-1", CGS_OPF_VIEW)
OP(M_FLOAT, "float", to_fixed,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_FLOOR, "floor", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_GE, "ge", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M_GT, "gt", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M_HALF, "half", to_fixed,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_INT, "int", to_fixed,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_ITEM, "item", item,
   "self", CGS_OPF_SIZE)
OP(M_LE, "le", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M_LOG, "log", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_LONG, "long", to_fixed,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_LT, "lt", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M_MASKED_FILL, "masked_fill", masked_fill,
   "self, mask, value", CGS_OPF_ELEMENTWISE)
OP(M_MASKED_FILL_, "masked_fill_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(MATH_SQRT, "math.sqrt", scalar_float,
   "a", CGS_OPF_SIZE)
OP(M_MATMUL, "matmul", matmul,
   "self, other", CGS_OPF_MATMUL)
OP(M_MAXIMUM, "maximum", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(M_MEAN, "mean", reduce,
   "self, dim=None, keepdim=False, *, dtype=None", CGS_OPF_REDUCTION)
OP(M_MINIMUM, "minimum", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(M_MUL, "mul", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(M_MUL_, "mul_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_NARROW, "narrow", narrow,
   "self, dim, start, length", CGS_OPF_VIEW)
OP(M_NE, "ne", compare,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M_NEG, "neg", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_NEG_, "neg_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_NEW_EMPTY, "new_empty", new_full,
   "self, *size, dtype=None, layout=None, device=None, requires_grad=False", CGS_OPF_FACTORY)
OP(M_NEW_ONES, "new_ones", new_full,
   "self, *size, dtype=None, layout=None, device=None, requires_grad=False", CGS_OPF_FACTORY)
OP(M_NEW_ZEROS, "new_zeros", new_full,
   "self, *size, dtype=None, layout=None, device=None, requires_grad=False", CGS_OPF_FACTORY)
OP(M_NUMEL, "numel", numel,
   "self", CGS_OPF_SIZE)
OP(OPERATOR_ADD, "operator.add", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_AND_, "operator.and_", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_EQ, "operator.eq", compare,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_FLOORDIV, "operator.floordiv", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_GE, "operator.ge", compare,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_GETITEM, "operator.getitem", getitem,
   "a, b", CGS_OPF_VIEW)
OP(OPERATOR_GT, "operator.gt", compare,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_IADD, "operator.iadd", binary_iop,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_IMUL, "operator.imul", binary_iop,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_ISUB, "operator.isub", binary_iop,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_ITRUEDIV, "operator.itruediv", binary_iop,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_LE, "operator.le", compare,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_LT, "operator.lt", compare,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_MATMUL, "operator.matmul", matmul,
   "a, b", CGS_OPF_MATMUL)
OP(OPERATOR_MOD, "operator.mod", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_MUL, "operator.mul", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_NE, "operator.ne", compare,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_NEG, "operator.neg", unary,
   "a", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_OR_, "operator.or_", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_POW, "operator.pow", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_SUB, "operator.sub", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_TRUEDIV, "operator.truediv", binary_float,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(OPERATOR_XOR, "operator.xor", binary,
   "a, b", CGS_OPF_ELEMENTWISE)
OP(M_PERMUTE, "permute", permute,
   "self, *dims", CGS_OPF_VIEW)
OP(M_POW, "pow", binary,
   "self, exponent", CGS_OPF_ELEMENTWISE)
OP(PRIMS__LOW_MEMORY_MAX_POOL_OFFSETS_TO_INDICES_DEFAULT, "prims._low_memory_max_pool_offsets_to_indices.default", offsets_to_indices,
   "offsets, kernel_size, input_size, stride, padding, dilation", 0)
OP(PRIMS__LOW_MEMORY_MAX_POOL_WITH_OFFSETS_DEFAULT, "prims._low_memory_max_pool_with_offsets.default", max_pool_offsets,
   "self, kernel_size, stride, padding, dilation, ceil_mode", 0)
OP(PRIMS_CONVERT_ELEMENT_TYPE_DEFAULT, "prims.convert_element_type.default", convert,
   "a, dtype", CGS_OPF_ELEMENTWISE)
OP(PRIMS_INDUCTOR_LOOKUP_SEED_DEFAULT, "prims.inductor_lookup_seed.default", lookup_seed,
   "seeds, index", 0)
OP(PRIMS_INDUCTOR_RANDOM_DEFAULT, "prims.inductor_random.default", inductor_random,
   "size, seed, mode", CGS_OPF_RANDOM)
OP(PRIMS_INDUCTOR_SEEDS_DEFAULT, "prims.inductor_seeds.default", seeds,
   "count, device", CGS_OPF_FACTORY)
OP(M_RECIPROCAL, "reciprocal", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_RELU, "relu", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_RELU_, "relu_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_REPEAT, "repeat", repeat,
   "self, *repeats", 0)
OP(M_REPEAT_INTERLEAVE, "repeat_interleave", repeat_interleave,
   "self, repeats, dim=None, *, output_size=None", 0)
OP(M_RESHAPE, "reshape", reshape,
   "self, *shape", CGS_OPF_VIEW)
OP(M_RESHAPE_AS, "reshape_as", view_as,
   "self, other", CGS_OPF_VIEW)
OP(M_RSQRT, "rsqrt", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_RSUB, "rsub", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(M_SELECT, "select", select,
   "self, dim, index", CGS_OPF_VIEW)
OP(M_SIGMOID, "sigmoid", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_SIGMOID_, "sigmoid_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_SIGN, "sign", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_SIN, "sin", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_SIZE, "size", size,
   "self, dim=None", CGS_OPF_SIZE)
OP(M_SOFTMAX, "softmax", softmax,
   "self, dim, dtype=None", CGS_OPF_ELEMENTWISE)
OP(M_SPLIT, "split", split,
   "self, split_size, dim=0", CGS_OPF_VIEW)
OP(M_SQRT, "sqrt", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_SQRT_, "sqrt_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_SQUARE, "square", unary,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_SQUEEZE, "squeeze", squeeze,
   "self, dim=None", CGS_OPF_VIEW)
OP(M_SUB, "sub", binary,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(M_SUB_, "sub_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_SUM, "sum", reduce,
   "self, dim=None, keepdim=False, *, dtype=None", CGS_OPF_REDUCTION)
OP(M_T, "t", t,
   "self", CGS_OPF_VIEW)
OP(M_TANH, "tanh", unary_float,
   "self", CGS_OPF_ELEMENTWISE)
OP(M_TANH_, "tanh_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
OP(M_TO, "to", to,
   "self, *args", CGS_OPF_ELEMENTWISE)
OP(TORCH_SIZE, "torch.Size", torch_size,
   "sizes", CGS_OPF_SIZE)
OP(TORCH__C__LOG_API_USAGE_ONCE, "torch._C._log_api_usage_once", novalue,
   "event", CGS_OPF_NOVALUE)
OP(TORCH__C__NN_GELU, "torch._C._nn.gelu", unary,
   "input, approximate='none'", CGS_OPF_ELEMENTWISE)
OP(TORCH__C__NN_LINEAR, "torch._C._nn.linear", linear,
   "input, weight, bias=None", CGS_OPF_MATMUL)
OP(TORCH__C__NN_SCALED_DOT_PRODUCT_ATTENTION, "torch._C._nn.scaled_dot_product_attention", sdpa,
   "query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False", 0)
OP(TORCH__ASSERT, "torch._assert", novalue,
   "condition, message", CGS_OPF_NOVALUE)
OP(TORCH__CHECK, "torch._check", novalue,
   "cond, message=None", CGS_OPF_NOVALUE)
OP(TORCH_ABS, "torch.abs", unary,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_ADD, "torch.add", binary,
   "input, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(TORCH_ADDMM, "torch.addmm", addmm,
   "input, mat1, mat2, *, beta=1, alpha=1", CGS_OPF_MATMUL)
OP(TORCH_ARANGE, "torch.arange", arange,
   "start, end=None, step=1, *, dtype=None, layout=None, device=None, requires_grad=False", CGS_OPF_FACTORY)
OP(TORCH_BMM, "torch.bmm", bmm,
   "input, mat2", CGS_OPF_MATMUL)
OP(TORCH_CAT, "torch.cat", cat,
   "tensors, dim=0", 0)
OP(TORCH_CHUNK, "torch.chunk", chunk,
   "input, chunks, dim=0", CGS_OPF_VIEW)
OP(TORCH_CLAMP, "torch.clamp", unary,
   "input, min=None, max=None", CGS_OPF_ELEMENTWISE)
OP(TORCH_CLONE, "torch.clone", clone,
   "input, *, memory_format=None", CGS_OPF_ELEMENTWISE)
OP(TORCH_CONV1D, "torch.conv1d", conv,
   "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1", CGS_OPF_CONV)
OP(TORCH_CONV2D, "torch.conv2d", conv,
   "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1", CGS_OPF_CONV)
OP(TORCH_CONV3D, "torch.conv3d", conv,
   "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1", CGS_OPF_CONV)
OP(TORCH_CONV_TRANSPOSE2D, "torch.conv_transpose2d", conv_t,
   "input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1", CGS_OPF_CONV)
OP(TORCH_COS, "torch.cos", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_CUMSUM, "torch.cumsum", cumsum,
   "input, dim, *, dtype=None", 0)
OP(TORCH_DIFF, "torch.diff", diff,
   "input, n=1, dim=-1, prepend=None, append=None", 0)
OP(TORCH_DIV, "torch.div", binary_float,
   "input, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(TORCH_EMPTY, "torch.empty", zeros,
   "*size, dtype=None, layout=None, device=None, requires_grad=False", CGS_OPF_FACTORY)
OP(TORCH_EMPTY_LIKE, "torch.empty_like", empty_like,
   "input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None", CGS_OPF_FACTORY)
OP(TORCH_EQ, "torch.eq", compare,
   "input, other", CGS_OPF_ELEMENTWISE)
OP(TORCH_ERF, "torch.erf", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_EXP, "torch.exp", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_FLATTEN, "torch.flatten", flatten,
   "input, start_dim=0, end_dim=-1", CGS_OPF_VIEW)
OP(TORCH_FLOOR, "torch.floor", unary,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_FULL, "torch.full", full,
   "size, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False", CGS_OPF_FACTORY)
OP(TORCH_GE, "torch.ge", compare,
   "input, other", CGS_OPF_ELEMENTWISE)
OP(TORCH_GT, "torch.gt", compare,
   "input, other", CGS_OPF_ELEMENTWISE)
OP(TORCH_LE, "torch.le", compare,
   "input, other", CGS_OPF_ELEMENTWISE)
OP(TORCH_LOG, "torch.log", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_LT, "torch.lt", compare,
   "input, other", CGS_OPF_ELEMENTWISE)
OP(TORCH_MATMUL, "torch.matmul", matmul,
   "input, other", CGS_OPF_MATMUL)
OP(TORCH_MAXIMUM, "torch.maximum", binary,
   "input, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(TORCH_MEAN, "torch.mean", reduce,
   "input, dim=None, keepdim=False, *, dtype=None", CGS_OPF_REDUCTION)
OP(TORCH_MINIMUM, "torch.minimum", binary,
   "input, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(TORCH_MM, "torch.mm", mm,
   "input, mat2", CGS_OPF_MATMUL)
OP(TORCH_MUL, "torch.mul", binary,
   "input, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(TORCH_NE, "torch.ne", compare,
   "input, other", CGS_OPF_ELEMENTWISE)
OP(TORCH_NEG, "torch.neg", unary,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_ADAPTIVE_AVG_POOL2D, "torch.nn.functional.adaptive_avg_pool2d", adaptive_pool,
   "input, output_size", 0)
OP(TORCH_NN_FUNCTIONAL_AVG_POOL2D, "torch.nn.functional.avg_pool2d", avg_pool,
   "input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None", 0)
OP(TORCH_NN_FUNCTIONAL_BATCH_NORM, "torch.nn.functional.batch_norm", batch_norm,
   "input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-05", 0)
OP(TORCH_NN_FUNCTIONAL_CONV2D, "torch.nn.functional.conv2d", conv,
   "input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1", CGS_OPF_CONV)
OP(TORCH_NN_FUNCTIONAL_DROPOUT, "torch.nn.functional.dropout", dropout,
   "input, p=0.5, training=True, inplace=False", 0)
OP(TORCH_NN_FUNCTIONAL_ELU, "torch.nn.functional.elu", unary_maybe_inplace,
   "input, alpha=1.0, inplace=False", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_EMBEDDING, "torch.nn.functional.embedding", embedding_f,
   "input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False, sparse=False", 0)
OP(TORCH_NN_FUNCTIONAL_GELU, "torch.nn.functional.gelu", unary,
   "input, approximate='none'", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_GROUP_NORM, "torch.nn.functional.group_norm", layer_norm_like_input,
   "input, num_groups, weight=None, bias=None, eps=1e-05", 0)
OP(TORCH_NN_FUNCTIONAL_HARDSIGMOID, "torch.nn.functional.hardsigmoid", unary_maybe_inplace,
   "input, inplace=False", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_HARDSWISH, "torch.nn.functional.hardswish", unary_maybe_inplace,
   "input, inplace=False", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_HARDTANH, "torch.nn.functional.hardtanh", unary_maybe_inplace,
   "input, min_val=-1.0, max_val=1.0, inplace=False", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_INTERPOLATE, "torch.nn.functional.interpolate", interpolate,
   "input, size=None, scale_factor=None, mode='nearest', align_corners=None, recompute_scale_factor=None, antialias=False", 0)
OP(TORCH_NN_FUNCTIONAL_LAYER_NORM, "torch.nn.functional.layer_norm", layer_norm,
   "input, normalized_shape, weight=None, bias=None, eps=1e-05", 0)
OP(TORCH_NN_FUNCTIONAL_LEAKY_RELU, "torch.nn.functional.leaky_relu", unary_maybe_inplace,
   "input, negative_slope=0.01, inplace=False", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_LINEAR, "torch.nn.functional.linear", linear,
   "input, weight, bias=None", CGS_OPF_MATMUL)
OP(TORCH_NN_FUNCTIONAL_LOG_SOFTMAX, "torch.nn.functional.log_softmax", softmax,
   "input, dim=None, _stacklevel=3, dtype=None", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_MAX_POOL2D, "torch.nn.functional.max_pool2d", max_pool_f,
   "input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False", 0)
OP(TORCH_NN_FUNCTIONAL_MULTI_HEAD_ATTENTION_FORWARD, "torch.nn.functional.multi_head_attention_forward", mha,
   "query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias, training=True, key_padding_mask=None, need_weights=True, attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None, v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True, is_causal=False", 0)
OP(TORCH_NN_FUNCTIONAL_PAD, "torch.nn.functional.pad", pad,
   "input, pad, mode='constant', value=None", 0)
OP(TORCH_NN_FUNCTIONAL_RELU, "torch.nn.functional.relu", unary_maybe_inplace,
   "input, inplace=False", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_RELU6, "torch.nn.functional.relu6", unary_maybe_inplace,
   "input, inplace=False", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_SCALED_DOT_PRODUCT_ATTENTION, "torch.nn.functional.scaled_dot_product_attention", sdpa,
   "query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None, enable_gqa=False", 0)
OP(TORCH_NN_FUNCTIONAL_SIGMOID, "torch.nn.functional.sigmoid", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_SILU, "torch.nn.functional.silu", unary_maybe_inplace,
   "input, inplace=False", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_SOFTMAX, "torch.nn.functional.softmax", softmax,
   "input, dim=None, _stacklevel=3, dtype=None", CGS_OPF_ELEMENTWISE)
OP(TORCH_NN_FUNCTIONAL_TANH, "torch.nn.functional.tanh", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_ONES, "torch.ones", zeros,
   "*size, dtype=None, layout=None, device=None, requires_grad=False", CGS_OPF_FACTORY)
OP(TORCH_ONES_LIKE, "torch.ones_like", empty_like,
   "input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None", CGS_OPF_FACTORY)
OP(TORCH_OUTER, "torch.outer", outer,
   "input, vec2", 0)
OP(TORCH_PERMUTE, "torch.permute", permute,
   "input, dims", CGS_OPF_VIEW)
OP(TORCH_POW, "torch.pow", binary,
   "input, exponent", CGS_OPF_ELEMENTWISE)
OP(TORCH_RECIPROCAL, "torch.reciprocal", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_RELU, "torch.relu", unary,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_RESHAPE, "torch.reshape", reshape,
   "input, shape", CGS_OPF_VIEW)
OP(TORCH_RSQRT, "torch.rsqrt", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_RSUB, "torch.rsub", binary,
   "input, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(TORCH_SIGMOID, "torch.sigmoid", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_SIGN, "torch.sign", unary,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_SIN, "torch.sin", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_SOFTMAX, "torch.softmax", softmax,
   "input, dim, dtype=None", CGS_OPF_ELEMENTWISE)
OP(TORCH_SPLIT, "torch.split", split,
   "tensor, split_size_or_sections, dim=0", CGS_OPF_VIEW)
OP(TORCH_SQRT, "torch.sqrt", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_SQUARE, "torch.square", unary,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_SQUEEZE, "torch.squeeze", squeeze,
   "input, dim=None", CGS_OPF_VIEW)
OP(TORCH_STACK, "torch.stack", stack,
   "tensors, dim=0", 0)
OP(TORCH_SUB, "torch.sub", binary,
   "input, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(TORCH_SUM, "torch.sum", reduce,
   "input, dim=None, keepdim=False, *, dtype=None", CGS_OPF_REDUCTION)
OP(TORCH_SYM_MAX, "torch.sym_max", sym_max,
   "a, b", CGS_OPF_SIZE)
OP(TORCH_SYM_MIN, "torch.sym_min", sym_min,
   "a, b", CGS_OPF_SIZE)
OP(TORCH_SYM_SUM, "torch.sym_sum", sym_sum,
   "args", CGS_OPF_SIZE)
OP(TORCH_TANH, "torch.tanh", unary_float,
   "input", CGS_OPF_ELEMENTWISE)
OP(TORCH_TRANSPOSE, "torch.transpose", transpose,
   "input, dim0, dim1", CGS_OPF_VIEW)
OP(TORCH_TRIL, "torch.tril", contig_copy,
   "input, diagonal=0", 0)
OP(TORCH_TRIU, "torch.triu", contig_copy,
   "input, diagonal=0", 0)
OP(TORCH_TRUE_DIVIDE, "torch.true_divide", binary_float,
   "input, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(TORCH_UNBIND, "torch.unbind", unbind,
   "input, dim=0", CGS_OPF_VIEW)
OP(TORCH_UNSQUEEZE, "torch.unsqueeze", unsqueeze,
   "input, dim", CGS_OPF_VIEW)
OP(TORCH_WHERE, "torch.where", where,
   "condition, input, other", CGS_OPF_ELEMENTWISE)
OP(TORCH_ZEROS, "torch.zeros", zeros,
   "*size, dtype=None, layout=None, device=None, requires_grad=False", CGS_OPF_FACTORY)
OP(TORCH_ZEROS_LIKE, "torch.zeros_like", empty_like,
   "input, *, dtype=None, layout=None, device=None, requires_grad=False, memory_format=None", CGS_OPF_FACTORY)
OP(M_TRANSPOSE, "transpose", transpose,
   "self, dim0, dim1", CGS_OPF_VIEW)
OP(M_TRIL, "tril", contig_copy,
   "self, diagonal=0", 0)
OP(M_TRIU, "triu", contig_copy,
   "self, diagonal=0", 0)
OP(M_TRUE_DIVIDE, "true_divide", binary_float,
   "self, other, *, alpha=1", CGS_OPF_ELEMENTWISE)
OP(M_TYPE_AS, "type_as", type_as,
   "self, other", CGS_OPF_ELEMENTWISE)
OP(M_UNBIND, "unbind", unbind,
   "self, dim=0", CGS_OPF_VIEW)
OP(M_UNFLATTEN, "unflatten", unflatten,
   "self, dim, sizes", CGS_OPF_VIEW)
OP(M_UNFOLD, "unfold", unfold,
   "self, dimension, size, step", CGS_OPF_VIEW)
OP(M_UNSQUEEZE, "unsqueeze", unsqueeze,
   "self, dim", CGS_OPF_VIEW)
OP(M_VIEW, "view", view,
   "self, *size", CGS_OPF_VIEW)
OP(M_VIEW_AS, "view_as", view_as,
   "self, other", CGS_OPF_VIEW)
OP(M_ZERO_, "zero_", inplace,
   "self, *args", CGS_OPF_ELEMENTWISE | CGS_OPF_INPLACE)
